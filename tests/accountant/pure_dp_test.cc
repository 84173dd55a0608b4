// The pure-DP order (order ∞ of the RDP accountant, pure_dp.h): the ε of each pure mechanism and
// of their compositions, Poisson sampling against the exact worst case (randomized response)
// computed a second way, its place in Epsilon / Delta / Calibrate, and the events it leaves alone.
#include "../../accountant/src/pure_dp.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "mp.h"
#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/convert.h"

namespace rdpkit::accountant {
namespace {

using internal::PureEpsilonUpper;
using ::rdpkit::testing::Mp;

constexpr double kInf = std::numeric_limits<double>::infinity();

Event Laplace(double noise_multiplier) { return LaplaceEvent(noise_multiplier); }

TEST(PureDpOrder, IsTheEpsilonOfEachPureMechanismRoundedUp) {
  EXPECT_EQ(PureEpsilonUpper(Laplace(2)), 0.5);
  // 1/3 rounded up: the double above it (the nearest double to 1/10 is above 1/10 already).
  EXPECT_EQ(PureEpsilonUpper(Laplace(3)), std::nextafter(1.0 / 3.0, kInf));
  EXPECT_EQ(PureEpsilonUpper(Laplace(10)), 0.1);
  EXPECT_EQ(PureEpsilonUpper(ExponentialEvent(0.3)), 0.3);
  EXPECT_EQ(PureEpsilonUpper(PureDpEvent(0)), 0);
  // Compositions add exactly: ten steps of 1/10 are 1, not 1 + 2^-52.
  EXPECT_EQ(PureEpsilonUpper(SelfComposedEvent(10, Laplace(10))), 1.0);
  EXPECT_EQ(PureEpsilonUpper(ComposedEvent({Laplace(10), Laplace(10), ExponentialEvent(0.75)})),
            std::nextafter(0.95, kInf));  // 0.2 + 0.75 exactly, rounded up (the double 0.95 < 0.95)
  EXPECT_EQ(PureEpsilonUpper(SelfComposedEvent(0, GaussianEvent(1))), 0);
  EXPECT_EQ(PureEpsilonUpper(SelfComposedEvent(3, Laplace(3))), 1.0);
}

TEST(PureDpOrder, IsInfiniteWhereAMechanismHasNoPureEpsilon) {
  EXPECT_EQ(PureEpsilonUpper(GaussianEvent(5)), kInf);
  EXPECT_EQ(PureEpsilonUpper(ZcdpEvent(0.01)), kInf);
  EXPECT_EQ(PureEpsilonUpper(LeafBalancedGaussianEvent(5, {0.5, 0.5})), kInf);
  EXPECT_EQ(PureEpsilonUpper(ComposedEvent({Laplace(1), GaussianEvent(100)})), kInf);
  EXPECT_EQ(PureEpsilonUpper(SelfComposedEvent(2, ComposedEvent({ZcdpEvent(0), Laplace(1)}))),
            kInf);
  // A filter claims its order only.
  EXPECT_EQ(PureEpsilonUpper(RenyiFilterEvent(8, 1, 10, Laplace(1))), kInf);
  // e^ε beyond MPFR's exponent range: no bound rather than a wrong one.
  EXPECT_EQ(PureEpsilonUpper(PoissonSampledEvent(0.5, PureDpEvent(1e300))), kInf);
}

// Randomized response at ε is the worst ε-DP mechanism; Poisson-sampled at q its largest privacy
// loss, over both outputs and both directions (adding or removing the record), is the pure ε of
// the sampled event. Computed here from the output probabilities at 300 bits.
Mp SampledRandomizedResponseLoss(double q, double epsilon) {
  const Mp e(epsilon);
  const Mp qq(q);
  const Mp yes = exp(e) / (1 + exp(e));  // P(1 | record's bit 1)
  const Mp no = 1 / (1 + exp(e));        // P(1 | record's bit 0); the record absent answers 0
  Mp worst(0);
  // Output 1 and output 0: P(output | record present) against P(output | record absent).
  for (const auto& [present, absent] : {std::pair<Mp, Mp>{yes, no}, {1 - yes, 1 - no}}) {
    const Mp with = qq * present + (1 - qq) * absent;
    for (const Mp& loss : {log(with / absent), log(absent / with)}) {
      if (worst < loss) worst = loss;
    }
  }
  return worst;
}

TEST(PureDpOrder, PoissonSamplingMatchesTheSampledRandomizedResponse) {
  for (const double q : {1e-9, 1e-4, 0.01, 0.3, 0.999, 1.0}) {
    for (const double epsilon : {1e-6, 0.1, 1.0, 7.0, 40.0}) {
      const double bound = PureEpsilonUpper(PoissonSampledEvent(q, PureDpEvent(epsilon)));
      const Mp exact = SampledRandomizedResponseLoss(q, epsilon);
      EXPECT_FALSE(Mp(bound) < exact) << q << " " << epsilon;
      EXPECT_FALSE(exact * (1 + Mp(1e-15)) + Mp(1e-300) < Mp(bound)) << q << " " << epsilon;
    }
  }
  EXPECT_EQ(PureEpsilonUpper(PoissonSampledEvent(0, Laplace(1))), 0);
}

TEST(PureDpOrder, CapsEpsilonAtEveryDeltaAndAnswersAsOrderInfinity) {
  const Event ten = SelfComposedEvent(10, Laplace(10));
  for (const Accountant accountant : {Accountant::kBest, Accountant::kRdp}) {
    const EpsilonResult result = Epsilon(ten, 1e-12, {.accountant = accountant});
    EXPECT_EQ(result.epsilon, 1.0);
    EXPECT_EQ(result.order, kInf);
    EXPECT_EQ(result.accountant, Accountant::kRdp);
    EXPECT_EQ(Epsilon(ten, 1e-300, {.accountant = accountant}).epsilon, 1.0);
  }
  // The fast path too (the bound is exact arithmetic either way).
  EXPECT_EQ(Epsilon(ten, 1e-300, {.certified = false}).epsilon, 1.0);
  // Orders the caller lists are the whole search: no order ∞ then.
  const EpsilonResult listed =
      Epsilon(ten, 1e-12, {.orders = {1000, 100000}, .accountant = Accountant::kRdp});
  EXPECT_GT(listed.epsilon, 1.0);
  EXPECT_LT(listed.order, kInf);
  // Where a finite order does better, it answers (large δ).
  EXPECT_LT(Epsilon(ten, 1e-3).epsilon, 1.0);
  // A Gaussian inside: no pure ε, no order ∞.
  EXPECT_LT(
      Epsilon(ComposedEvent({ten, GaussianEvent(30)}), 1e-300, {.accountant = Accountant::kRdp})
          .order,
      kInf);
}

// PLD's loss never exceeds the pure ε either, whatever its grid: at δ = 1e-30 its discretised ε of
// 200 sampled steps was 24.05 above the pure ε of 9.90.
TEST(PureDpOrder, CapsThePldAccountantToo) {
  const Event sampled = SelfComposedEvent(200, PoissonSampledEvent(0.7, PureDpEvent(0.07)));
  const double pure = PureEpsilonUpper(sampled);
  EXPECT_LE(Epsilon(sampled, 1e-30, {.accountant = Accountant::kPld}).epsilon, pure);
  const Event ten = SelfComposedEvent(10, Laplace(10));
  EXPECT_EQ(Delta(ten, 1.0, {.accountant = Accountant::kPld}).delta, 0);
}

// Under best, a PLD answer far below the target (PLD's ε not monotone in q at tiny δ) is checked
// by RDP, whose larger safe value wins: best is never worse than rdp alone.
TEST(PureDpOrder, BestCalibratesAtLeastAsFarAsRdp) {
  for (const auto& [count, epsilon, target] :
       {std::tuple{200, 0.07091091470107884, 8.1}, std::tuple{172, 0.013, 0.1069}}) {
    const nlohmann::json event = {{"self_composed",
                                   {{"count", count},
                                    {"event",
                                     {{"poisson_sampled",
                                       {{"sampling_probability", "?"},
                                        {"event", {{"exponential", {{"epsilon", epsilon}}}}}}}}}}}};
    const CalibrationResult best = CalibrateJson(event, target, 1e-30).result;
    const CalibrationResult rdp =
        CalibrateJson(event, target, 1e-30, {.accountant = Accountant::kRdp}).result;
    EXPECT_GE(best.value, rdp.value) << count;
    EXPECT_LE(best.epsilon, target) << count;
  }
}

TEST(PureDpOrder, GivesDeltaZeroAtThePureEpsilon) {
  const Event ten = SelfComposedEvent(10, Laplace(10));
  const DeltaResult at = Delta(ten, 1.0);
  EXPECT_EQ(at.delta, 0);
  EXPECT_EQ(at.order, kInf);
  EXPECT_GT(Delta(ten, 0.999).delta, 0);
}

// The exact ε(δ) of one Laplace mechanism, ε₀ + 2·log(1 − δ) (its δ(ε) = 1 − e^{(ε−ε₀)/2}), is
// never above what is reported, however small δ.
TEST(PureDpOrder, NeverReportsLessThanTheExactLaplaceEpsilon) {
  for (const double b : {0.01, 0.3, 1.0, 10.0}) {
    for (const double delta : {1e-3, 1e-12, 1e-100, 1e-300}) {
      const Mp exact = Mp(1) / Mp(b) + 2 * log(1 - Mp(delta));
      EXPECT_FALSE(Mp(Epsilon(Laplace(b), delta).epsilon) < exact) << b << " " << delta;
    }
  }
}

TEST(PureDpOrder, CalibratesToThePureBound) {
  const JsonCalibrationResult solved = CalibrateJson(
      nlohmann::json::parse(
          R"({"self_composed": {"count": "?", "event": {"laplace": {"noise_multiplier": 10}}}})"),
      1.0, 1e-300);
  EXPECT_EQ(solved.result.value, 10);
  EXPECT_EQ(solved.result.epsilon, 1.0);
  EXPECT_EQ(solved.result.order, kInf);
  // A rate far below PLD's resolution: no PLD probe meets ε = 1e-9, order ∞ solves it, at
  // q ≤ 1e-9/(e^100 − 1) = 3.72e-53 (was the end of the domain, 1e-300).
  const JsonCalibrationResult rate = CalibrateJson(
      nlohmann::json::parse(
          R"({"poisson_sampled": {"sampling_probability": "?", "event": {"pure_dp": {"epsilon": 100}}}})"),
      1e-9, 1e-300);
  EXPECT_LE(rate.result.epsilon, 1e-9);
  // Within the solver's tolerance where PLD answers (1e-5 relative, calibrate.h).
  EXPECT_NEAR(rate.result.value, 1e-9 / std::expm1(100.0), 1e-5 * 3.72e-53);
}

}  // namespace
}  // namespace rdpkit::accountant
