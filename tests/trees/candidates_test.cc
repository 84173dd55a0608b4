// Split candidate sets (trees/src/candidates.h) on extreme and degenerate public bounds: every
// method gives strictly increasing, finite thresholds inside (min, max], never zero candidates for
// a splittable feature, and the private methods refuse bounds that collapse to one threshold.
#include "candidates.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr double kMaxDouble = std::numeric_limits<double>::max();
constexpr double kMinSubnormal = std::numeric_limits<double>::denorm_min();

FeatureSpec Numeric(double min, double max) {
  FeatureSpec f;
  f.name = "x";
  f.min = min;
  f.max = max;
  return f;
}

FeatureSpec Categorical(int n_codes) {
  FeatureSpec f;
  f.name = "c";
  f.categorical = true;
  f.n_codes = n_codes;
  f.max = n_codes - 1;
  return f;
}

// Strictly increasing, finite, inside (min, max], at most count of them.
void ExpectWellFormed(const FeatureSpec& f, const std::vector<double>& c, int count) {
  EXPECT_LE(static_cast<int>(c.size()), count);
  for (std::size_t j = 0; j < c.size(); ++j) {
    EXPECT_TRUE(std::isfinite(c[j])) << j;
    EXPECT_GT(c[j], f.min) << j;
    EXPECT_LE(c[j], f.max) << j;
    if (j > 0) {
      EXPECT_GT(c[j], c[j - 1]) << j;
    }
  }
}

// Bounds a hostile or careless schema may hold, all with a finite width.
std::vector<FeatureSpec> ExtremeBounds() {
  return {Numeric(-kMaxDouble / 2, kMaxDouble / 2),  // width = the largest double
          Numeric(-8e307, 8e307),                    // j·width overflows, width does not
          Numeric(0, kMaxDouble),
          Numeric(-kMaxDouble, 0),
          Numeric(1e300, 1.5e300),  // log: far from the origin of its scale
          Numeric(-1e20, 1e20),     // log across 0
          Numeric(-1, 1),
          Numeric(0, 1e-300),
          Numeric(0, 1e-320),  // subnormal width
          Numeric(1, 1 + 1e-12),
          Numeric(0, 64 * kMinSubnormal)};
}

TEST(Candidates, EveryMethodIsWellFormedOnExtremeBounds) {
  for (const FeatureSpec& f : ExtremeBounds()) {
    for (int count : {2, 3, 32, 1000}) {
      SCOPED_TRACE(FormatNumber(f.min) + ", " + FormatNumber(f.max) + ", Q " +
                   std::to_string(count));
      const auto uniform = UniformCandidates(f, count);
      ExpectWellFormed(f, uniform, count);
      EXPECT_GE(uniform.size(), 2u);
      ExpectWellFormed(f, LogCandidates(f, count), count);
      const auto both = UniformAndLogCandidates(f, count);
      ExpectWellFormed(f, both, count);
      EXPECT_GE(both.size(), 2u);
      const std::vector<double> column = {f.min, f.max, f.min / 2 + f.max / 2, NAN};
      ExpectWellFormed(f, QuantileCandidates(f, column, count), count);
      // Iterative Hessian from the uniform start: mass in one bin, none, negative, NaN.
      for (const double mass : {1.0, 0.0, -1.0, static_cast<double>(NAN)}) {
        std::vector<double> hessian(uniform.size() + 1, 0.0);
        hessian.back() = mass;
        const auto refined = RefineIterativeHessian(f, uniform, hessian, count);
        ExpectWellFormed(f, refined, count);
        EXPECT_FALSE(refined.empty());
      }
    }
  }
}

// Issue 11 item 6: ±9e307 has an infinite width; the schema refuses it (data_test). Before the
// fix, a refinement whose mass sat above the first candidate returned no candidate at all (a
// division by zero when a split was drawn), because every midpoint overflowed to inf.
TEST(Candidates, RefinementNeverLeavesASplittableFeatureWithoutCandidates) {
  const FeatureSpec f = Numeric(-8e307, 8e307);
  const std::vector<double> start = UniformCandidates(f, 2);
  ASSERT_EQ(start.size(), 2u);
  const auto refined = RefineIterativeHessian(f, start, {0.0, 0.0, 100.0}, 32);
  EXPECT_EQ(refined.size(), 32u);
  ExpectWellFormed(f, refined, 32);
  // Adjacent doubles: nothing representable to add; the input is kept.
  const FeatureSpec tight = Numeric(1, std::nextafter(1.0, 2.0));
  EXPECT_EQ(RefineIterativeHessian(tight, {tight.max}, {0.0, 5.0}, 32),
            std::vector<double>{tight.max});
}

TEST(Candidates, UniformGridStaysExactWhereItDidBefore) {
  // c_j = min + j·(max − min)/Q, the same doubles as before the overflow guard.
  EXPECT_EQ(UniformCandidates(Numeric(0, 10), 4),
            (std::vector<double>{kMinSubnormal, 2.5, 5.0, 7.5}));
  // A width near the largest double: j·width overflowed, so c_2 and c_3 were inf and dropped.
  const auto c = UniformCandidates(Numeric(-8e307, 8e307), 4);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_DOUBLE_EQ(c[1], -4e307);
  EXPECT_NEAR(c[2], 0.0, 1e293);  // 4 ulps of 8e307
  EXPECT_DOUBLE_EQ(c[3], 4e307);
}

TEST(Candidates, UniformAndLogIsTheUnionOfBothHalfGrids) {
  // Q = 8 on [0, 255]: the uniform grid of 4 (min⁺, 63.75, 127.5, 191.25) and the log grid of 4
  // (min⁺, expm1(j/4 · log 256) = 3, 15, 63), min⁺ held once: 7 candidates.
  const FeatureSpec f = Numeric(0, 255);
  const auto both = UniformAndLogCandidates(f, 8);
  ASSERT_EQ(both.size(), 7u);
  EXPECT_EQ(both[0], kMinSubnormal);
  EXPECT_DOUBLE_EQ(both[1], 3.0);
  EXPECT_DOUBLE_EQ(both[2], 15.0);
  EXPECT_DOUBLE_EQ(both[3], 63.0);
  EXPECT_DOUBLE_EQ(both[4], 63.75);
  EXPECT_DOUBLE_EQ(both[5], 127.5);
  EXPECT_DOUBLE_EQ(both[6], 191.25);
  // Every candidate of either half grid is kept; odd Q gives the uniform grid the extra one, and
  // it has at least 2 (Q = 2: min⁺ and the midpoint).
  for (int count : {2, 3, 32, 33}) {
    const auto united = UniformAndLogCandidates(f, count);
    for (const auto& half :
         {UniformCandidates(f, std::max(2, count - count / 2)), LogCandidates(f, count / 2)}) {
      for (double c : half) EXPECT_TRUE(std::binary_search(united.begin(), united.end(), c)) << c;
    }
  }
  // Categorical features keep the code boundaries, as with uniform.
  EXPECT_EQ(UniformAndLogCandidates(Categorical(8), 32), UniformCandidates(Categorical(8), 32));
  EXPECT_EQ(InitialCandidates(f, 0, CandidateMethod::kUniformAndLog, 8, {}), both);
}

TEST(Candidates, RefinementFillsByHalvingTheWidestGapLeftmostFirst) {
  const FeatureSpec f = Numeric(0, 8);
  // No mass: the fill alone, from the midpoint down (ties broken to the left).
  EXPECT_EQ(RefineIterativeHessian(f, {4.0}, {0.0, 0.0}, 3), (std::vector<double>{2.0, 4.0, 6.0}));
  EXPECT_EQ(RefineIterativeHessian(f, {4.0}, {0.0, 0.0}, 4),
            (std::vector<double>{1.0, 2.0, 4.0, 6.0}));
}

TEST(Candidates, RefinementAtTheLargestCountIsFast) {
  // The fill used to rescan all gaps per added candidate (O(Q²): minutes per feature at 65534).
  const FeatureSpec f = Numeric(0, 1);
  const int q = TrainerConfig::SplitCandidates::kMaxCount;
  const auto start = UniformCandidates(f, 2);
  std::vector<double> hessian(start.size() + 1, 0.0);
  const auto refined = RefineIterativeHessian(f, start, hessian, q);
  EXPECT_EQ(static_cast<int>(refined.size()), q);
  ExpectWellFormed(f, refined, q);
}

TEST(Candidates, CategoricalCodesDegenerateAndHuge) {
  EXPECT_TRUE(UniformCandidates(Categorical(1), 32).empty());  // constant: never split
  EXPECT_EQ(UniformCandidates(Categorical(2), 32), std::vector<double>{0.5});
  EXPECT_EQ(LogCandidates(Categorical(4), 32), (std::vector<double>{0.5, 1.5, 2.5}));
  const FeatureSpec huge = Categorical(1 << 24);
  const auto c = UniformCandidates(huge, 65534);
  EXPECT_EQ(c.size(), 65534u);
  ExpectWellFormed(huge, c, 65534);
  EXPECT_EQ(c.front(), 255.5);  // index ⌊2^24/65535⌋ − 1 of the 2^24 − 1 boundaries
  // Evenly spread: thinning 7 boundaries to 3 keeps 1.5, 3.5, 5.5 as EvenSubset did.
  EXPECT_EQ(UniformCandidates(Categorical(8), 3), (std::vector<double>{1.5, 3.5, 5.5}));
}

TEST(InitialCandidates, RefusesBoundsThatGiveFewerThanTwoCandidates) {
  // (1, nextafter(1)]: one double, so one threshold at most.
  const FeatureSpec adjacent = Numeric(1, std::nextafter(1.0, 2.0));
  for (const CandidateMethod method :
       {CandidateMethod::kUniform, CandidateMethod::kLog, CandidateMethod::kIterativeHessian,
        CandidateMethod::kUniformAndLog}) {
    EXPECT_THAT(
        [&] { (void)InitialCandidates(adjacent, 3, method, 32, {}); },
        ThrowsMessage<InvalidArgument>(AllOf(HasSubstr("features[3].min/max"),
                                             HasSubstr("at least 2 distinct"), HasSubstr("\"x\""))))
        << ToString(method);
  }
  // Log at Q = 2 from 1e300: its one interior point, 1e300 + √(5e299), rounds back to 1e300.
  EXPECT_THAT(
      [&] { (void)InitialCandidates(Numeric(1e300, 1.5e300), 0, CandidateMethod::kLog, 2, {}); },
      ThrowsMessage<InvalidArgument>(
          AllOf(HasSubstr("features[0].min/max"), HasSubstr("split_candidates.method"))));
  EXPECT_EQ(InitialCandidates(Numeric(1e300, 1.5e300), 0, CandidateMethod::kUniform, 2, {}).size(),
            2u);
  // Categorical features may have 0 or 1 candidate (n_codes 1 or 2); quantile is data-dependent.
  EXPECT_TRUE(InitialCandidates(Categorical(1), 0, CandidateMethod::kUniform, 32, {}).empty());
  EXPECT_EQ(InitialCandidates(Categorical(2), 0, CandidateMethod::kLog, 32, {}).size(), 1u);
  EXPECT_TRUE(
      InitialCandidates(Numeric(0, 1), 0, CandidateMethod::kQuantile, 32, {0.0, 0.0}).empty());
}

TEST(BinOf, TheLargestCountLeavesRoomForTheMissingBin) {
  // Issue 11 item 7: Q = 65535 gave a value the bin 65535 = kMissingBin.
  const int q = TrainerConfig::SplitCandidates::kMaxCount;
  const auto c = UniformCandidates(Numeric(0, 1), q);
  ASSERT_EQ(static_cast<int>(c.size()), q);
  EXPECT_EQ(BinOf(c, 0, 1.0), q);
  EXPECT_LT(BinOf(c, 0, 1.0), kMissingBin);
  EXPECT_EQ(BinOf(c, 0, NAN), kMissingBin);
}

}  // namespace
}  // namespace rdpkit::trees::internal
