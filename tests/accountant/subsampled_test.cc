// Poisson-subsampled curves (issue 3): reference values (100-digit mpmath), second ways of
// computing them (naive 300-bit binomial sums, 300-bit quadrature), ε and σ-calibration cases
// against the reference libraries on their own order grids, properties, and the failures of
// existing accountants (Opacus, prv_accountant, dp_accounting, S-BDT) that rdpkit must not repeat.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mp.h"
#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/subsampling.h"
#include "reference_cases.h"
#include "subsampling_mp.h"

namespace rdpkit::accountant {
namespace {

using ::rdpkit::testing::DivideRounded;
using ::rdpkit::testing::GaussianCoefficient;
using ::rdpkit::testing::LoadReferenceCases;
using ::rdpkit::testing::Mp;
using ::rdpkit::testing::NaiveEpsilon;
using ::rdpkit::testing::NaiveSampledLinearAm1;
using ::rdpkit::testing::QuadratureSampledGaussianAm1;
using ::rdpkit::testing::ReferenceCase;
using ::rdpkit::testing::RhoFromAm1;

// Certified upper ends may exceed the 100-digit value by at most this (relative): enclosures are
// computed at 133 bits (332 on retry) and accepted when narrower than 1e-9 relative; in practice
// they are a few ulps wide. The issue's acceptance bound is 1e-6.
constexpr double kCertifiedSlack = 1e-12;
// Fast path: integer orders are log-space sums in double (≤ 1e-12 relative up to α = 1e4);
// fractional orders accept a rounding-error estimate up to 1e-10 before falling back.
constexpr double kFastTolerance = 1e-9;
// ε and σ: "within 1e-6 relative of the 100-digit values" (issue 3, point 7).
constexpr double kReferenceTolerance = 1e-6;

double RelativeError(double value, double truth) {
  return truth == 0 ? std::abs(value) : std::abs(value - truth) / std::abs(truth);
}

Event SampledGaussianEvent(double q, double sigma) {
  return PoissonSampledEvent(q, GaussianEvent(sigma));
}

// inputs_rounded_up: some input was rounded up from the reference's exact value (the curve can
// only rise), so the lower end may exceed the reference by that rounding.
void ExpectSoundAndTight(const Event& event, double order, const ReferenceCase& c,
                         bool inputs_rounded_up = false) {
  const Bound b = RdpCertified(event, order);
  EXPECT_GE(b.upper, c.expected_down) << c.id << ": certified upper below the 100-digit value";
  if (!inputs_rounded_up) {
    EXPECT_LE(b.lower, c.expected_up) << c.id << ": certified lower above the 100-digit value";
  }
  EXPECT_LE(b.upper - c.expected_down, kCertifiedSlack * c.expected_down) << c.id;
  EXPECT_LE(RelativeError(RdpFast(event, order), c.expected), kFastTolerance) << c.id;
}

// ------------------------------------------------------------------------------------------
// rdp_sgm: exact sampled Gaussian at integer and fractional orders.

class SampledGaussianReference : public ::testing::TestWithParam<ReferenceCase> {};
TEST_P(SampledGaussianReference, CertifiedIsSoundAndTight) {
  const ReferenceCase& c = GetParam();
  ASSERT_TRUE(c.has_hp) << c.id;
  // The double-precision libraries in cross_checks drift (flagged ones by far more than 1e-6, see
  // the case); the check is against the 100-digit value only.
  ExpectSoundAndTight(SampledGaussianEvent(c.params.at("q"), c.params.at("sigma")),
                      c.params.at("alpha"), c);
}
INSTANTIATE_TEST_SUITE_P(Reference, SampledGaussianReference,
                         ::testing::ValuesIn(LoadReferenceCases("rdp_sgm")),
                         [](const auto& p) { return CaseName(p.param); });

// ------------------------------------------------------------------------------------------
// rdp_subsampled_tight_integer: tight Zhu–Wang with linear bases (zCDP, leaf-balanced Gaussian).

// σ = 1/√(2ρ) rounded toward −∞ (more privacy loss than ρ-zCDP's Gaussian).
double NoiseForZcdpRoundedDown(double rho) {
  mpfr_t x;
  mpfr_init2(x, 200);
  mpfr_set_d(x, 2 * rho, MPFR_RNDU);
  mpfr_ui_div(x, 1, x, MPFR_RNDD);
  mpfr_sqrt(x, x, MPFR_RNDD);
  const double sigma = mpfr_get_d(x, MPFR_RNDD);
  mpfr_clear(x);
  return sigma;
}

Event TightIntegerBase(const ReferenceCase& c) {
  const auto& base = c.params.at("base_rdp");
  const std::string type = base.at("type");
  // The reference's tight formula for a base curve ρα is the sampled Gaussian with
  // σ = 1/√(2ρ) (its cross-check says so). σ is rounded DOWN so the comparison stays sound. A
  // zcdp event itself takes the general bound (see TightFormulaIsNotUsedForGenericZcdp).
  if (type == "linear_in_alpha") return GaussianEvent(NoiseForZcdpRoundedDown(base.at("rho")));
  // Ratios s_i/s rounded UP: a larger ratio can only raise the curve, so soundness against the
  // reference (computed from the exact quotient) is preserved.
  const std::vector<double> s_i = base.at("s_i");
  const std::vector<double> s = base.at("s");
  std::vector<double> ratios;
  for (std::size_t d = 0; d < s.size(); ++d) ratios.push_back(DivideRounded(s_i[d], s[d], true));
  return LeafBalancedGaussianEvent(base.at("sigma").get<double>(),
                                   base.at("r").get<std::vector<double>>(), ratios);
}

class TightIntegerReference : public ::testing::TestWithParam<ReferenceCase> {};
TEST_P(TightIntegerReference, CertifiedIsSoundAndTight) {
  const ReferenceCase& c = GetParam();
  const Event event = PoissonSampledEvent(c.params.at("q"), TightIntegerBase(c));
  // Every base input is rounded toward more privacy loss (ratios up, σ = 1/√(2ρ) down).
  ExpectSoundAndTight(event, c.params.at("alpha"), c, /*inputs_rounded_up=*/true);
}
INSTANTIATE_TEST_SUITE_P(Reference, TightIntegerReference,
                         ::testing::ValuesIn(LoadReferenceCases("rdp_subsampled_tight_integer")),
                         [](const auto& p) { return CaseName(p.param); });

// ------------------------------------------------------------------------------------------
// Second ways of computing: naive 300-bit binomial sum (integers), 300-bit quadrature (any order).

struct Grid {
  double q;
  double sigma;
  double alpha;
};

TEST(SampledGaussian, IntegerOrdersMatchNaiveBinomialSum) {
  for (const Grid g : {Grid{1e-9, 0.3, 2}, Grid{1e-9, 1000, 7}, Grid{1e-3, 0.5, 300},
                       Grid{0.2, 2, 1000}, Grid{0.7, 5, 64}, Grid{1e-5, 1, 3000}}) {
    const double truth = RhoFromAm1(
        NaiveSampledLinearAm1(g.q, GaussianCoefficient(g.sigma), static_cast<long>(g.alpha)),
        g.alpha);
    const Event event = SampledGaussianEvent(g.q, g.sigma);
    const Bound b = RdpCertified(event, g.alpha);
    EXPECT_LE(RelativeError(b.upper, truth), 1e-12) << g.q << " " << g.sigma << " " << g.alpha;
    EXPECT_LE(b.lower, b.upper);
    EXPECT_LE(RelativeError(RdpFast(event, g.alpha), truth), kFastTolerance);
  }
}

TEST(SampledGaussian, FractionalOrdersMatchQuadrature) {
  // Includes the orders where Opacus/prv_accountant underestimate by 29 % (q = 4.2e-6, σ = 9.2,
  // α = 1.087) and dp_accounting returns ∞ (q = 0.1, σ = 0.5, α = 1.1).
  for (const Grid g : {Grid{4.2e-6, 9.2, 1.087}, Grid{0.1, 0.5, 1.1}, Grid{0.01, 1, 2.5},
                       Grid{0.5, 3, 17.25}, Grid{1e-4, 0.7, 40.5}, Grid{0.9, 30, 1.001}}) {
    const Mp am1 = QuadratureSampledGaussianAm1(g.q, g.sigma, g.alpha);
    const Mp coarse = QuadratureSampledGaussianAm1(g.q, g.sigma, g.alpha, /*step_divisor=*/8);
    const double truth = RhoFromAm1(am1, g.alpha);
    // The quadrature has converged: halving the step changes nothing at 1e-15.
    ASSERT_LE(RelativeError(RhoFromAm1(coarse, g.alpha), truth), 1e-15) << g.alpha;
    const Event event = SampledGaussianEvent(g.q, g.sigma);
    const Bound b = RdpCertified(event, g.alpha);
    EXPECT_TRUE(std::isfinite(b.upper));
    EXPECT_LE(RelativeError(b.upper, truth), 1e-12) << g.q << " " << g.sigma << " " << g.alpha;
    EXPECT_LE(RelativeError(RdpFast(event, g.alpha), truth), kFastTolerance);
  }
}

// ------------------------------------------------------------------------------------------
// Failures of existing accountants (issue 3, point 6).

// Opacus returns NaN for integer α ≳ 1030 and drops those orders silently.
TEST(ExistingAccountantFailures, OpacusNanAboveOrder1030) {
  const Event event = SampledGaussianEvent(0.01, 1.0);
  double previous = 0;
  for (const double alpha : {1029.0, 1030.0, 1031.0, 1500.0, 4096.0, 20000.0, 100000.0}) {
    const Bound b = RdpCertified(event, alpha);
    EXPECT_TRUE(std::isfinite(b.upper) && std::isfinite(b.lower)) << alpha;
    EXPECT_GE(b.lower, previous) << "non-decreasing in the order at " << alpha;
    EXPECT_FALSE(std::isnan(RdpFast(event, alpha)));
    previous = b.lower;
  }
  // Large orders: A_α is dominated by its last term q^α e^{α(α−1)/(2σ²)}, so
  // ρ ≥ α/2 + α·log(q)/(α−1) at σ = 1.
  EXPECT_GE(RdpCertified(event, 1e5).lower, 1e5 / 2 + 1e5 * std::log(0.01) / (1e5 - 1));
}

// Opacus and prv_accountant return −0.683 against an exact 0.00315 at q = 0.5, σ = 100, α = 250.5.
TEST(ExistingAccountantFailures, NegativeRdpAtFractionalOrder) {
  const Bound b = RdpCertified(SampledGaussianEvent(0.5, 100), 250.5);
  EXPECT_GT(b.lower, 0.00315);
  EXPECT_LT(b.upper, 0.003151);
}

// dp_accounting's fractional-α values are upper bounds up to 14.6× too large and ∞ at q = 0.1,
// σ = 0.5, α = 1.1; rdpkit's value is finite and below its own neighbouring-integer bound.
TEST(ExistingAccountantFailures, DpAccountingInfiniteAtFractionalOrder) {
  const Event event = SampledGaussianEvent(0.1, 0.5);
  const Bound b = RdpCertified(event, 1.1);
  ASSERT_TRUE(std::isfinite(b.upper));
  EXPECT_LT(b.upper, RdpCertified(event, 2).lower);
  // The exact value (quadrature) is matched, not just bounded.
  const double truth = RhoFromAm1(QuadratureSampledGaussianAm1(0.1, 0.5, 1.1), 1.1);
  EXPECT_LE(RelativeError(b.upper, truth), 1e-12);
}

// The S-BDT accountant exits on binomial overflow and stops its order search at α = 2000.
TEST(ExistingAccountantFailures, SbdtOverflowAndOrderCap) {
  // α = 1e5, q = 1e-6: finite, no abort.
  const Bound b = RdpCertified(SampledGaussianEvent(1e-6, 1.0), 1e5);
  EXPECT_TRUE(std::isfinite(b.upper));
  EXPECT_GT(b.lower, 0);
  // A run whose best order is above 2000: rdpkit finds it, and it beats every order ≤ 2000.
  const Event run = SelfComposedEvent(10, SampledGaussianEvent(0.5, 2000.0));
  ConversionOptions rdp;
  rdp.accountant = Accountant::kRdp;
  const EpsilonResult best = Epsilon(run, /*delta=*/1e-12, rdp);
  EXPECT_GT(best.order, 2000);
  ConversionOptions capped = rdp;
  for (int a = 2; a <= 2000; ++a) capped.orders.push_back(a);
  EXPECT_LT(best.epsilon, Epsilon(run, 1e-12, capped).epsilon);
}

// Orders beyond 2^50 are answered with +inf (a valid upper bound), never with an abort.
TEST(PoissonSampled, HugeOrdersAreInfinite) {
  EXPECT_TRUE(std::isinf(RdpCertified(SampledGaussianEvent(0.01, 1.0), 1e300).upper));
  EXPECT_TRUE(std::isinf(RdpFast(PoissonSampledEvent(0.01, LaplaceEvent(1.0)), 1e20)));
  EXPECT_TRUE(std::isfinite(RdpFast(SampledGaussianEvent(0.01, 1.0), 1e12)));
}

// Extreme ranges (issue 3, point 2): α up to 1e5, q from 1e-9 to 1, σ from 0.3 to 1000 give
// finite enclosures, no NaN, no abort, and the fast value lies within them (up to the fast
// tolerance).
TEST(SampledGaussian, ExtremeRangesAreFiniteAndConsistent) {
  for (const double q : {1e-9, 1e-6, 0.01, 0.5, 1.0}) {
    for (const double sigma : {0.3, 1.0, 1000.0}) {
      for (const double alpha : {1.0 + 1e-9, 1.5, 2.0, 77.7, 1000.0, 12345.5, 1e5}) {
        const Event event = SampledGaussianEvent(q, sigma);
        const Bound b = RdpCertified(event, alpha);
        const double fast = RdpFast(event, alpha);
        ASSERT_TRUE(std::isfinite(b.upper) && std::isfinite(b.lower))
            << q << " " << sigma << " " << alpha;
        EXPECT_GE(b.lower, 0);
        EXPECT_LE(b.lower, b.upper);
        ASSERT_FALSE(std::isnan(fast));
        EXPECT_LE(fast, b.upper * (1 + kFastTolerance) + 1e-300)
            << q << " " << sigma << " " << alpha;
        EXPECT_GE(fast, b.lower * (1 - kFastTolerance)) << q << " " << sigma << " " << alpha;
      }
    }
  }
}

// ------------------------------------------------------------------------------------------
// Properties.

std::vector<Event> Bases() {
  return {GaussianEvent(1.3),
          LeafBalancedGaussianEvent(0.8, {0.3, 0.7}, {0.5, 1.0}),
          ZcdpEvent(0.05),
          LaplaceEvent(2.0),
          ExponentialEvent(0.7),
          PureDpEvent(0.4),
          ComposedEvent({GaussianEvent(2.0), LaplaceEvent(5.0)}),
          SelfComposedEvent(3, GaussianEvent(4.0))};
}
const std::vector<double> kOrders = {1.5, 2, 3, 7.5, 32, 100.25};

TEST(PoissonSampled, AtMostTheBaseCurveAndEqualAtQOne) {
  for (const Event& base : Bases()) {
    for (const double alpha : kOrders) {
      const Bound unsampled = RdpCertified(base, alpha);
      for (const double q : {1e-6, 0.01, 0.3, 0.9}) {
        const Bound sampled = RdpCertified(PoissonSampledEvent(q, base), alpha);
        EXPECT_LE(sampled.upper, unsampled.upper * (1 + 1e-12))
            << base.ToJson().dump() << " q=" << q << " a=" << alpha;
      }
      const Bound whole = RdpCertified(PoissonSampledEvent(1.0, base), alpha);
      EXPECT_EQ(whole.upper, unsampled.upper);
      EXPECT_EQ(RdpFast(PoissonSampledEvent(1.0, base), alpha), RdpFast(base, alpha));
    }
  }
}

TEST(PoissonSampled, NonDecreasingInSamplingProbabilityAndOrder) {
  const std::vector<double> rates = {0, 1e-9, 1e-6, 1e-4, 0.01, 0.1, 0.3, 0.5, 0.8, 0.99, 1};
  for (const Event& base : Bases()) {
    for (const double alpha : kOrders) {
      double previous = 0;
      for (const double q : rates) {
        const double upper = RdpCertified(PoissonSampledEvent(q, base), alpha).upper;
        EXPECT_GE(upper, previous * (1 - 1e-12)) << base.ToJson().dump() << " q=" << q;
        previous = upper;
      }
    }
    double previous = 0;
    for (const double alpha : kOrders) {
      const double upper = RdpCertified(PoissonSampledEvent(0.05, base), alpha).upper;
      EXPECT_GE(upper, previous * (1 - 1e-12)) << base.ToJson().dump() << " a=" << alpha;
      previous = upper;
    }
  }
}

// A generic ρ-zCDP base may be randomized response (ρ = ε²/2), for which the tight formula's
// precondition fails; the library must use the general bound for it, and refuse the tight one.
TEST(PoissonSampled, TightFormulaIsNotUsedForGenericZcdp) {
  const PoissonSampledEvent sampled(0.2, ZcdpEvent(0.2));
  for (const double alpha : {3.0, 10.0, 64.0}) {
    const Bound automatic = PoissonSampledRdpCertified(sampled, alpha, SubsamplingBound::kAuto);
    const Bound general =
        PoissonSampledRdpCertified(sampled, alpha, SubsamplingBound::kGeneralZhuWang);
    EXPECT_LE(automatic.upper, general.upper) << alpha;
    // Strictly above the tight value of the Gaussian with the same curve (σ = 1/√(2ρ) = √2.5).
    const Bound gaussian_tight =
        RdpCertified(PoissonSampledEvent(0.2, GaussianEvent(std::sqrt(2.5))), alpha);
    EXPECT_GT(automatic.lower, gaussian_tight.upper) << alpha;
    EXPECT_THROW((void)PoissonSampledRdpCertified(sampled, alpha, SubsamplingBound::kTightZhuWang),
                 InvalidArgument);
  }
}

TEST(PoissonSampled, TightBoundIsNeverLooserThanGeneral) {
  const std::vector<Event> linear = {GaussianEvent(0.5), GaussianEvent(3.0),
                                     LeafBalancedGaussianEvent(1.0, {0.4, 0.6}, {0.2, 0.9})};
  for (const Event& base : linear) {
    for (const double q : {1e-5, 0.01, 0.2, 0.7}) {
      const PoissonSampledEvent sampled(q, base);
      for (const double alpha : {2.0, 3.0, 4.5, 10.0, 64.0, 255.5, 1000.0}) {
        const Bound tight =
            PoissonSampledRdpCertified(sampled, alpha, SubsamplingBound::kTightZhuWang);
        const Bound general =
            PoissonSampledRdpCertified(sampled, alpha, SubsamplingBound::kGeneralZhuWang);
        const Bound automatic = PoissonSampledRdpCertified(sampled, alpha, SubsamplingBound::kAuto);
        // Equal at α = 2 (the general bound's factor 3 starts at l = 3), strictly below after.
        EXPECT_LE(tight.upper, general.upper) << q << " " << alpha;
        if (alpha >= 3) {
          EXPECT_LT(tight.upper, general.lower) << q << " " << alpha;
        }
        EXPECT_LE(automatic.upper, tight.upper * (1 + 1e-12)) << q << " " << alpha;
        EXPECT_EQ(automatic.upper, RdpCertified(Event(sampled), alpha).upper);
      }
    }
  }
}

TEST(PoissonSampled, GeneralBoundAppliesToEveryBaseAndTightRefusesNonLinear) {
  const PoissonSampledEvent laplace(0.01, LaplaceEvent(1.0));
  const Bound general = PoissonSampledRdpCertified(laplace, 8, SubsamplingBound::kGeneralZhuWang);
  const Bound automatic = PoissonSampledRdpCertified(laplace, 8, SubsamplingBound::kAuto);
  EXPECT_LE(automatic.upper, general.upper);
  EXPECT_GT(general.lower, 0);
  EXPECT_THAT([&] { (void)PoissonSampledRdpFast(laplace, 8, SubsamplingBound::kTightZhuWang); },
              ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("bound")));
}

// Fractional orders of non-Gaussian bases: the convexity bound lies between the neighbouring
// integers' values (as (α−1)ρ(α) interpolates) and the curve stays non-decreasing.
TEST(PoissonSampled, FractionalOrdersOfGeneralBasesInterpolate) {
  const Event event = PoissonSampledEvent(0.05, LaplaceEvent(0.5));
  for (const double a : {2.0, 5.0, 40.0}) {
    const double lo = RdpCertified(event, a).upper;
    const double hi = RdpCertified(event, a + 1).upper;
    const double mid = RdpCertified(event, a + 0.5).upper;
    EXPECT_LE(mid, ((0.5 * (a - 1) * lo + 0.5 * a * hi) / (a - 0.5)) * (1 + 1e-12));
    EXPECT_GE(mid, lo * (1 - 1e-12));
  }
}

// Nesting (issue 3, point 1): inside self_composed/composed, around composed, and in JSON.
TEST(PoissonSampled, NestsLikeEveryEvent) {
  const Event inner = PoissonSampledEvent(0.02, GaussianEvent(1.1));
  const Event run = ComposedEvent(
      {SelfComposedEvent(100, inner), LaplaceEvent(20.0),
       PoissonSampledEvent(0.1, ComposedEvent({GaussianEvent(3.0), LaplaceEvent(4.0)}))});
  const Event round_trip = Event::FromJson(run.ToJson());
  for (const double alpha : {1.7, 4.0, 12.5}) {
    const double expected =
        100 * RdpFast(inner, alpha) + RdpFast(LaplaceEvent(20.0), alpha) +
        RdpFast(PoissonSampledEvent(0.1, ComposedEvent({GaussianEvent(3.0), LaplaceEvent(4.0)})),
                alpha);
    EXPECT_NEAR(RdpFast(round_trip, alpha), expected, 1e-12 * expected);
  }
  const EpsilonResult eps = Epsilon(round_trip, 1e-6);
  EXPECT_TRUE(std::isfinite(eps.epsilon));
  EXPECT_GT(eps.epsilon, 0);
  const nlohmann::json j = nlohmann::json::parse(
      R"({"poisson_sampled": {"sampling_probability": 0.01, "event": {"gaussian": {"noise_multiplier": 1.1}}}})");
  EXPECT_EQ(RdpFast(Event::FromJson(j), 3), RdpFast(SampledGaussianEvent(0.01, 1.1), 3));
}

// ------------------------------------------------------------------------------------------
// eps_from_rdp_composition: at least as tight as the reference on its own grid, sound at the
// order rdpkit reports (recomputed with the naive sum or the quadrature at 300 bits).

struct ParsedRun {
  Event event;
  double q = 1;
  double sigma = 0;  // Gaussian cases
  double laplace_b = 0;
  double rounds = 1;
};

ParsedRun ParseRun(const nlohmann::json& p) {
  const std::string mechanism = p.at("mechanism");
  const std::uint64_t t = p.at("T");
  ParsedRun run{GaussianEvent(1.0)};
  run.rounds = static_cast<double>(t);
  if (mechanism == "laplace") {
    // b = 1/ε₀ rounded down: less noise only raises the curve, so soundness is kept.
    run.laplace_b = DivideRounded(1.0, p.at("eps0").get<double>(), false);
    run.event = SelfComposedEvent(t, LaplaceEvent(run.laplace_b));
    return run;
  }
  run.sigma = p.at("sigma");
  run.q = mechanism == "gaussian" ? 1.0 : p.at("q").get<double>();
  run.event = SelfComposedEvent(t, SampledGaussianEvent(run.q, run.sigma));
  return run;
}

// T·ρ(α) at 300 bits by a method independent of the library.
Mp IndependentRunRdp(const ParsedRun& run, double alpha) {
  if (run.laplace_b > 0) {
    // Mironov 2017 Prop. 6 literally.
    const Mp a(alpha), b(run.laplace_b), one(1.0);
    const Mp v = log(a / (Mp(2.0) * a - one) * exp((a - one) / b) +
                     (a - one) / (Mp(2.0) * a - one) * exp(-a / b)) /
                 (a - one);
    return Mp(run.rounds) * v;
  }
  Mp am1;
  if (std::floor(alpha) == alpha && alpha <= 20000) {
    am1 = NaiveSampledLinearAm1(run.q, GaussianCoefficient(run.sigma), static_cast<long>(alpha));
  } else {
    am1 = QuadratureSampledGaussianAm1(run.q, run.sigma, alpha);
  }
  return Mp(run.rounds) * log(Mp(1.0) + am1) / Mp(alpha - 1);
}

ConversionOptions OptionsFor(const ReferenceCase& c) {
  ConversionOptions options;
  options.accountant = Accountant::kRdp;  // the references are RDP values (PLD: pld_test.cc)
  if (c.params.contains("alpha_grid_values")) {
    options.orders = c.params.at("alpha_grid_values").get<std::vector<double>>();
  }
  return options;
}

// The Poisson-sampled cases (convert_test.cc covers the unsampled Gaussian and Laplace ones).
std::vector<ReferenceCase> SampledEpsilonCases() {
  std::vector<ReferenceCase> out;
  for (auto& c : LoadReferenceCases("eps_from_rdp_composition")) {
    if (c.params.at("mechanism") == "poisson_subsampled_gaussian") out.push_back(c);
  }
  return out;
}

class SampledEpsilonReference : public ::testing::TestWithParam<ReferenceCase> {};
TEST_P(SampledEpsilonReference, AtLeastAsTightAndSound) {
  const ReferenceCase& c = GetParam();
  const ParsedRun run = ParseRun(c.params);
  const double delta = c.params.at("delta");
  const EpsilonResult result = Epsilon(run.event, delta, OptionsFor(c));
  // The reference value. dp_accounting reports 0 through its KL shortcut (δ² + expm1(−ρ) > 0),
  // a conversion rdpkit does not implement; those cases compare with the same-grid value without
  // the shortcut, as the case's cross-check records.
  double reference = c.expected_up;
  if (c.raw.contains("mpmath_same_grid_no_kl_shortcut") && c.expected == 0) {
    reference = c.raw.at("mpmath_same_grid_no_kl_shortcut").get<double>();
  }
  EXPECT_LE(result.epsilon, reference * (1 + kReferenceTolerance) + 1e-15) << c.id;
  // Within 1e-6 of the 100-digit value where the case carries one and uses rdpkit's conversion
  // (Mironov-only cases are looser than rdpkit's min of both conversions by design).
  const bool balle = c.params.at("conversion") == "bbghs2020_thm21";
  if (c.has_hp && balle) {
    EXPECT_LE(RelativeError(result.epsilon, c.expected), kReferenceTolerance) << c.id;
    if (c.params.contains("alpha_grid_values")) {
      EXPECT_GE(result.epsilon, c.expected_down) << c.id << ": below the 100-digit optimum";
    }
  }
  // Sound at the reported order.
  const double naive =
      NaiveEpsilon(IndependentRunRdp(run, result.order), result.order, delta, /*balle_too=*/true);
  EXPECT_GE(result.epsilon, std::max(0.0, naive) * (1 - 1e-15)) << c.id << " at " << result.order;
}
INSTANTIATE_TEST_SUITE_P(Reference, SampledEpsilonReference,
                         ::testing::ValuesIn(SampledEpsilonCases()),
                         [](const auto& p) { return CaseName(p.param); });

// ------------------------------------------------------------------------------------------
// calibrate_sigma: smallest σ on the reference's grid; rdpkit's σ is at most the reference's (up
// to 1e-6 relative), within 1e-6 of it, and ε at rdpkit's (σ, order) recomputed independently
// meets the target.

class SampledCalibrationReference : public ::testing::TestWithParam<ReferenceCase> {};
TEST_P(SampledCalibrationReference, AtLeastAsTightAndSound) {
  const ReferenceCase& c = GetParam();
  const double q = c.params.at("q");
  const std::uint64_t t = c.params.at("T");
  const double target = c.params.at("target_eps");
  const double delta = c.params.at("delta");
  CalibrationProblem problem;
  problem.parameter = "noise_multiplier";
  problem.lower = 0;
  problem.upper = 1e15;
  problem.make_event = [&](double sigma) {
    return Event(SelfComposedEvent(t, SampledGaussianEvent(q, sigma)));
  };
  const CalibrationResult result = Calibrate(problem, target, delta, OptionsFor(c));
  // The reference is dp_accounting's bisection (tolerance 1e-10 absolute on σ) in double. Two
  // kinds of case cannot be matched to 1e-6, and say so in the file:
  //  - achieved_eps = 0: dp_accounting's KL shortcut (ε = 0 when δ² + expm1(−ρ) ≥ 0) decided σ;
  //    rdpkit does not implement that conversion, so only soundness is checked;
  //  - the consistency cross-check shows dp_accounting over-estimating the fractional-order RDP
  //    (its ε at its own σ is below the target by more than 1e-6): rdpkit, exact there, must find
  //    a strictly smaller σ.
  const bool kl_shortcut = c.raw.contains("achieved_eps") && c.raw.at("achieved_eps") == 0.0;
  double reference_gap = 0;
  for (const auto& check : c.raw.at("cross_checks")) {
    if (check.at("role") == "consistency" && check.contains("rel_gap_to_target")) {
      reference_gap = std::abs(check.at("rel_gap_to_target").get<double>());
    }
  }
  if (!kl_shortcut) {
    EXPECT_LE(result.value, c.expected_up * (1 + kReferenceTolerance)) << c.id;
    if (reference_gap <= 1e-8) {
      EXPECT_LE(RelativeError(result.value, c.expected), kReferenceTolerance) << c.id;
    } else {
      EXPECT_LT(result.value, c.expected) << c.id;
    }
  }
  EXPECT_LE(result.epsilon, target);
  ParsedRun run{SelfComposedEvent(t, SampledGaussianEvent(q, result.value))};
  run.q = q;
  run.sigma = result.value;
  run.rounds = static_cast<double>(t);
  EXPECT_LE(NaiveEpsilon(IndependentRunRdp(run, result.order), result.order, delta),
            target * (1 + 1e-15))
      << c.id << " at order " << result.order;
}
INSTANTIATE_TEST_SUITE_P(Reference, SampledCalibrationReference,
                         ::testing::ValuesIn(LoadReferenceCases("calibrate_sigma")),
                         [](const auto& p) { return CaseName(p.param); });

}  // namespace
}  // namespace rdpkit::accountant
