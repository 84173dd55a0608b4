// Exact sums of the records' statistics (trees/src/statistics.h, docs/trees_training.md "Exact
// sums"): a released sum moves by at most the clip bound when one record is added or removed,
// whatever the other records and the summation order; a double sum does not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "statistics.h"

namespace rdpkit::trees {
namespace {

using internal::ExactSums;
using internal::FixedPair;
using internal::FixedPoint;
using internal::FixedScales;
using internal::Pair;

double ExactSum(const std::vector<double>& values, const FixedPoint& fixed) {
  std::int64_t sum = 0;
  for (double v : values) sum += fixed.ToFixed(v);
  return fixed.ToDouble(sum);
}

double DoubleSum(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum;
}

// A million records in [−1, 1] and one more at the front: the double sums of the two data sets
// differ by more than the bound 1 (every later partial sum rounds differently), the exact sums by
// at most 1.
TEST(ExactSums, OneRecordMovesTheSumByAtMostTheBound) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> values(1'000'000);
  for (double& v : values) v = unit(rng);
  const FixedPoint fixed(1.0);
  double worst_double = 0;
  double worst_exact = 0;
  for (const double added : {1.0, -1.0, 0.999999999, 1.0 / 3, -0x1p-30}) {
    std::vector<double> neighbour = {added};
    neighbour.insert(neighbour.end(), values.begin(), values.end());
    worst_double = std::max(worst_double,
                            std::fabs(DoubleSum(neighbour) - DoubleSum(values)) - std::fabs(added));
    const double moved = std::fabs(ExactSum(neighbour, fixed) - ExactSum(values, fixed));
    EXPECT_LE(moved, std::fabs(added)) << added;
    worst_exact = std::max(worst_exact, moved - std::fabs(added));
  }
  EXPECT_GT(worst_double, 0);  // the failure the exact sums avoid (about 1e-10 here)
  EXPECT_LE(worst_exact, 0);
}

// Any order and any split into partial sums give the same bits; truncation only shrinks
// magnitudes, by at most 2^-23 of the bound, for bounds from 2^-900 to 2^900.
TEST(ExactSums, OrderFreeAndNeverAboveTheBound) {
  std::mt19937_64 rng(5);
  for (const double bound : {0x1p-900, 1e-300, 0.1, 0.25, 0.5, 1.0, 3.0, 1000.0, 1e300, 0x1p900}) {
    const FixedPoint fixed(bound);
    const double at_bound = fixed.ToDouble(fixed.ToFixed(bound));
    EXPECT_LE(at_bound, bound) << bound;
    EXPECT_GE(at_bound, bound * (1 - 0x1p-23)) << bound;
    std::uniform_real_distribution<double> within(-bound, bound);
    std::vector<double> values(10'000);
    for (double& v : values) {
      v = within(rng);
      const double back = fixed.ToDouble(fixed.ToFixed(v));
      ASSERT_LE(std::fabs(back), std::fabs(v)) << bound;
      ASSERT_LE(std::fabs(v) - std::fabs(back), bound * 0x1p-23) << bound;
    }
    const FixedScales scales(bound, 1.0);
    const double reference = ExactSum(values, fixed);
    for (int trial = 0; trial < 5; ++trial) {
      std::shuffle(values.begin(), values.end(), rng);
      std::vector<std::vector<FixedPair>> partial(1 + trial, std::vector<FixedPair>(2));
      for (std::size_t i = 0; i < values.size(); ++i) {
        partial[i % partial.size()][i % 2] += scales.ToFixed(Pair{values[i], 1.0});
      }
      const std::vector<Pair> sums = ExactSums(partial, 1, scales, 2);
      EXPECT_EQ(sums[0].a, reference) << bound;
      EXPECT_EQ(sums[0].b, 10'000.0) << bound;
    }
  }
}

}  // namespace
}  // namespace rdpkit::trees
