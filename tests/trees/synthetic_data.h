// Small synthetic datasets for the trainer tests (fixed seeds, public bounds [0, 1]).
#ifndef RDPKIT_TESTS_TREES_SYNTHETIC_DATA_H_
#define RDPKIT_TESTS_TREES_SYNTHETIC_DATA_H_

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "rdpkit/trees/data.h"

namespace rdpkit::trees::testing {

// n rows, m numeric features uniform on [0, 1] (schema bounds [0, 1]). Binary: label 1 iff
// x0 + x1 > 1 (flipped with probability flip). Regression: label 2·x0 − x1 + N(0, 0.1²).
inline Dataset SyntheticData(std::size_t n, int m, Task task = Task::kBinary,
                             std::uint64_t seed = 1, double flip = 0.05) {
  Dataset d;
  d.schema.task = task;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 0.1);
  for (int f = 0; f < m; ++f) {
    FeatureSpec spec;
    spec.name = "x";
    spec.name += std::to_string(f);
    spec.min = 0;
    spec.max = 1;
    d.schema.features.push_back(spec);
    d.feature_names.push_back(spec.name);
  }
  d.columns.assign(static_cast<std::size_t>(m), std::vector<double>(n));
  d.clipped.assign(static_cast<std::size_t>(m), 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (int f = 0; f < m; ++f) d.columns[static_cast<std::size_t>(f)][i] = unit(rng);
    const double x0 = d.columns[0][i];
    const double x1 = m > 1 ? d.columns[1][i] : 0.5;
    if (task == Task::kBinary) {
      double y = x0 + x1 > 1 ? 1 : 0;
      if (unit(rng) < flip) y = 1 - y;
      d.labels.push_back(y);
    } else {
      d.labels.push_back(2 * x0 - x1 + noise(rng));
    }
  }
  return d;
}

// n rows, m ≥ 2 numeric features uniform on [0, 1], K classes: label ⌊K·(0.7·x0 + 0.3·x1)⌋ (bands
// across the square, the last one closed), replaced by a uniformly drawn class with probability
// flip. The schema says "multiclass" with n_classes = K.
inline Dataset SyntheticMulticlass(std::size_t n, int m, int n_classes, std::uint64_t seed = 1,
                                   double flip = 0.05) {
  Dataset d = SyntheticData(n, m, Task::kRegression, seed);
  d.schema.task = Task::kMulticlass;
  d.schema.n_classes = n_classes;
  std::mt19937_64 rng(seed + 1000);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double score = 0.7 * d.columns[0][i] + 0.3 * d.columns[1][i];
    int y = std::min(n_classes - 1, static_cast<int>(score * n_classes));
    if (unit(rng) < flip) y = std::min(n_classes - 1, static_cast<int>(unit(rng) * n_classes));
    d.labels[i] = y;
  }
  return d;
}

}  // namespace rdpkit::trees::testing

#endif  // RDPKIT_TESTS_TREES_SYNTHETIC_DATA_H_
