#include "candidates.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/model.h"

namespace rdpkit::trees::internal {
namespace {

// Keeps `count` of the sorted values, evenly spaced by index (all of them if there are fewer).
std::vector<double> EvenSubset(const std::vector<double>& values, int count) {
  const std::size_t n = values.size();
  const auto q = static_cast<std::size_t>(count);
  if (n <= q) return values;
  std::vector<double> out;
  out.reserve(q);
  for (std::size_t j = 0; j < q; ++j) {
    // Index round((j + 1)·(n + 1)/(q + 1)) − 1 spreads the kept values over the whole range.
    const std::size_t index = std::min(n - 1, ((j + 1) * (n + 1)) / (q + 1) - 1);
    if (out.empty() || values[index] > out.back()) out.push_back(values[index]);
  }
  return out;
}

std::vector<double> CategoricalCandidates(const FeatureSpec& feature, int count) {
  std::vector<double> all;
  for (int code = 0; code + 1 < feature.n_codes; ++code) all.push_back(code + 0.5);
  return EvenSubset(all, count);
}

// Sorts, removes duplicates and values outside (min, max].
std::vector<double> Clean(const FeatureSpec& feature, std::vector<double> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<double> out;
  for (double v : values) {
    if (std::isfinite(v) && v > feature.min && v <= feature.max) out.push_back(v);
  }
  return out;
}

// The lowest candidate is the smallest double above min, so that its split is x ≤ min vs
// x > min: sparse features (word counts, amounts) hold most values at the bound itself. This is
// the split Maddock's grid min + j·(max − min)/Q, j = 0..Q−1 with the test x ≤ c makes at j = 0.
double AboveLowerBound(const FeatureSpec& feature) {
  return std::nextafter(feature.min, std::numeric_limits<double>::infinity());
}

}  // namespace

std::vector<double> UniformCandidates(const FeatureSpec& feature, int count) {
  if (feature.categorical) return CategoricalCandidates(feature, count);
  std::vector<double> out = {AboveLowerBound(feature)};
  const double width = feature.max - feature.min;
  for (int j = 1; j < count; ++j) {
    // Maddock §4.5.1: c_j = min + j·(max − min)/Q.
    out.push_back(feature.min + width * j / count);
  }
  return Clean(feature, out);
}

std::vector<double> LogCandidates(const FeatureSpec& feature, int count) {
  if (feature.categorical) return CategoricalCandidates(feature, count);
  std::vector<double> out = {AboveLowerBound(feature)};
  const double log_width = std::log1p(feature.max - feature.min);
  for (int j = 1; j < count; ++j) {
    // Uniform on the log(1 + x − min) scale (Maddock §4.5.1, log candidates).
    out.push_back(feature.min + std::expm1(log_width * j / count));
  }
  return Clean(feature, out);
}

std::vector<double> QuantileCandidates(const FeatureSpec& feature,
                                       const std::vector<double>& column, int count) {
  if (feature.categorical) return CategoricalCandidates(feature, count);
  std::vector<double> values;
  values.reserve(column.size());
  for (double v : column) {
    if (!std::isnan(v)) values.push_back(v);
  }
  if (values.empty()) return UniformCandidates(feature, count);
  std::sort(values.begin(), values.end());
  std::vector<double> out;
  for (int j = 1; j <= count; ++j) {
    const auto index = static_cast<std::size_t>(
        std::floor(static_cast<double>(j) * static_cast<double>(values.size()) / (count + 1)));
    out.push_back(values[std::min(index, values.size() - 1)]);
  }
  return Clean(feature, out);
}

std::vector<double> RefineIterativeHessian(const FeatureSpec& feature,
                                           const std::vector<double>& candidates,
                                           const std::vector<double>& hessian, int count) {
  if (feature.categorical) return candidates;
  RDPKIT_CHECK(hessian.size() == candidates.size() + 1);
  const std::size_t q = candidates.size();
  double total = 0;
  for (double h : hessian) total += std::max(h, 0.0);
  std::vector<double> out;
  if (total > 0) {
    const double target = total / count;
    double accumulated = 0;
    for (std::size_t j = 0; j <= q; ++j) {
      const double left = j == 0 ? feature.min : candidates[j - 1];
      const double right = j == q ? feature.max : candidates[j];
      const double mass = std::max(hessian[j], 0.0);
      accumulated += mass;
      // A heavy bin is refined at its midpoint (Maddock §4.5.2: "split bins that have large
      // Hessian value").
      if (mass > target) out.push_back(left + (right - left) / 2);
      // A light bin is merged with the next one: its right boundary is dropped.
      if (j < q && accumulated >= target) {
        out.push_back(right);
        accumulated = 0;
      }
    }
  }
  out = Clean(feature, out);
  out = EvenSubset(out, count);
  // Fill up to Q candidates by halving the widest gap (Maddock §4.5.2: "fill the remaining bins by
  // uniformly splitting").
  while (static_cast<int>(out.size()) < count) {
    double best_width = 0;
    double best_mid = 0;
    double previous = feature.min;
    for (std::size_t j = 0; j <= out.size(); ++j) {
      const double next = j == out.size() ? feature.max : out[j];
      const double mid = previous + (next - previous) / 2;
      if (next - previous > best_width && mid > previous && mid < next) {
        best_width = next - previous;
        best_mid = mid;
      }
      previous = next;
    }
    if (best_width <= 0) break;  // no representable midpoint is left
    out.insert(std::upper_bound(out.begin(), out.end(), best_mid), best_mid);
  }
  return out;
}

std::uint16_t BinOf(const std::vector<double>& candidates, int feature, double x) {
  if (std::isnan(x)) return kMissingBin;
  // The bin is the number of candidates at which x does NOT go left, decided by the one routing
  // rule of the model (GoesLeft), so training and prediction agree on every tie.
  Node node;
  node.feature = feature;
  const auto it = std::partition_point(candidates.begin(), candidates.end(), [&](double c) {
    node.threshold = c;
    return !GoesLeft(node, x);
  });
  return static_cast<std::uint16_t>(it - candidates.begin());
}

}  // namespace rdpkit::trees::internal
