// Poisson row sampling (row_sample.h): its inclusion probability never exceeds the rate the
// accountant is given, the draws follow the documented integer rule, and the rate is met.
#include "row_sample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>

#include "rdpkit/mechanisms/random.h"

namespace rdpkit::trees::internal {
namespace {

TEST(RowSample, InclusionProbabilityIsNeverAboveTheAccountedRate) {
  // Powers of two are met exactly; other rates lie below by less than 2^-53.
  for (int k = 0; k <= 60; ++k) {
    const double gamma = std::ldexp(1.0, -k);
    EXPECT_EQ(RowSample::InclusionProbability(gamma), k <= 53 ? gamma : 0.0) << k;
  }
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 100000; ++trial) {
    const double gamma = trial == 0 ? 0.1 : trial == 1 ? 1.0 / 3 : unit(rng);
    const double p = RowSample::InclusionProbability(gamma);
    ASSERT_LE(p, gamma) << gamma;
    ASSERT_LT(gamma - p, 0x1p-53) << gamma;
    // A whole number of 2^-53: the draw's threshold is exact.
    ASSERT_EQ(std::floor(p * 0x1p53), p * 0x1p53) << gamma;
  }
  // The earlier rule (u < γ with u = k·2^-53) took ⌈0.1·2^53⌉/2^53, above 0.1.
  EXPECT_GT(std::ceil(0.1 * 0x1p53) * 0x1p-53, 0.1);
  EXPECT_LT(RowSample::InclusionProbability(0.1), 0.1);
}

TEST(RowSample, DrawsFollowTheIntegerRuleAndMeetTheRate) {
  const double gamma = 0.1;
  const std::size_t total = 200000;
  const std::size_t first = 1000;
  const std::size_t n = 150000;  // this rank's rows: first..first+n−1 of total
  mechanisms::Random draws = mechanisms::Random::Seeded(5);
  RowSample sample;
  sample.DrawPoisson(draws, gamma, first, n, total);
  // The same stream, rule written out: row i is in when its 53-bit draw is below ⌊γ·2^53⌋.
  mechanisms::Random again = mechanisms::Random::Seeded(5);
  const auto below = static_cast<std::uint64_t>(std::floor(gamma * 0x1p53));
  std::size_t taken = 0;
  for (std::size_t i = 0; i < total; ++i) {
    const bool in = (again.NextU64() >> 11) < below;
    if (i < first || i >= first + n) continue;
    ASSERT_EQ(sample.Has(i - first), in) << i;
    taken += in ? 1 : 0;
  }
  // Both streams are at the same place: the draws of the ranks after were made too.
  EXPECT_EQ(draws.NextU64(), again.NextU64());
  // Binomial(n, γ): within 5 standard deviations of nγ.
  const double sd = std::sqrt(static_cast<double>(n) * gamma * (1 - gamma));
  EXPECT_NEAR(static_cast<double>(taken), static_cast<double>(n) * gamma, 5 * sd);
}

}  // namespace
}  // namespace rdpkit::trees::internal
