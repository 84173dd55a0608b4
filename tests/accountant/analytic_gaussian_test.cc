// Exact Gaussian accounting (analytic_gaussian.h, Balle & Wang 2018 Thm 8): against 60-digit
// mpmath values (tests/data/analytic_gaussian_cases.json, scripts/analytic_gaussian_reference.py),
// against a second way of computing δ, and its properties.
#include "rdpkit/accountant/analytic_gaussian.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "reference_cases.h"

namespace rdpkit::accountant {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// The target: the reported value is sound and within 1e-10 relative of the exact one.
constexpr double kRelativeSlack = 1e-10;

struct GaussianCase {
  std::string id;
  std::string kind;  // "epsilon" or "delta"
  double noise_multiplier;
  std::uint64_t count;
  double argument;  // δ for "epsilon", ε for "delta"
  double expected_down;
  double expected_up;
};
void PrintTo(const GaussianCase& c, std::ostream* os) { *os << c.id; }

std::vector<GaussianCase> LoadCases() {
  std::ifstream in(std::string(RDPKIT_REFERENCE_DIR) + "/analytic_gaussian_cases.json");
  const json file = json::parse(in);
  std::vector<GaussianCase> out;
  for (const json& c : file.at("cases")) {
    const std::string kind = c.at("kind");
    const std::string expected = c.at("expected");
    out.push_back({c.at("id"), kind, c.at("noise_multiplier"), c.at("count"),
                   kind == "epsilon" ? c.at("delta").get<double>() : c.at("epsilon").get<double>(),
                   testing::DecimalToDouble(expected, false),
                   testing::DecimalToDouble(expected, true)});
  }
  return out;
}

Event Composition(double sigma, std::uint64_t count) {
  if (count == 1) return GaussianEvent(sigma);
  return SelfComposedEvent(count, GaussianEvent(sigma));
}

class AnalyticGaussianReference : public ::testing::TestWithParam<GaussianCase> {};

TEST_P(AnalyticGaussianReference, SoundAndWithinOneTenBillionth) {
  const GaussianCase& c = GetParam();
  const Event event = Composition(c.noise_multiplier, c.count);
  const ConversionOptions exact{.accountant = Accountant::kGaussian};
  const double got = c.kind == "epsilon" ? Epsilon(event, c.argument, exact).epsilon
                                         : Delta(event, c.argument, exact).delta;
  EXPECT_GE(got, c.expected_down);  // one failure is a privacy bug
  EXPECT_LE(got, c.expected_up + kRelativeSlack * c.expected_up);
  // The best accountant never reports more than the exact one.
  const double best =
      c.kind == "epsilon" ? Epsilon(event, c.argument).epsilon : Delta(event, c.argument).delta;
  EXPECT_LE(best, got);
  EXPECT_GE(best, c.expected_down);
}

INSTANTIATE_TEST_SUITE_P(Cases, AnalyticGaussianReference, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<GaussianCase>& param_info) {
                           std::string name = param_info.param.id;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(AnalyticGaussian, DeltaAgreesWithAQuadratureOfThePrivacyLoss) {
  // A second way: δ(ε) = E_P[(1 − e^{ε−L})₊] with L ~ N(μ²/2, μ²) the privacy loss of N(μ, 1)
  // against N(0, 1), by the trapezoid rule on [μ²/2 − 12μ, μ²/2 + 12μ] (error far below 1e-9 for
  // these μ; the Gaussian tails beyond 12 sd hold < 1e-32).
  for (double mu : {0.2, 1.0, 3.0}) {
    for (double eps : {0.0, 0.5, 2.0}) {
      const double mean = mu * mu / 2;
      const int steps = 200000;
      const double lo = mean - 12 * mu;
      const double h = 24 * mu / steps;
      double sum = 0;
      for (int i = 0; i <= steps; ++i) {
        const double l = lo + i * h;
        const double density =
            std::exp(-(l - mean) * (l - mean) / (2 * mu * mu)) / (mu * std::sqrt(2 * M_PI));
        const double weight = (i == 0 || i == steps) ? 0.5 : 1.0;
        sum += weight * density * std::max(0.0, 1 - std::exp(eps - l));
      }
      const double quadrature = sum * h;
      EXPECT_NEAR(AnalyticGaussianDelta(mu, eps), quadrature, 1e-9 + 1e-7 * quadrature)
          << "mu " << mu << " eps " << eps;
    }
  }
}

TEST(AnalyticGaussian, MonotoneInItsArguments) {
  double previous = 1;
  for (double eps : {0.0, 0.01, 0.1, 1.0, 3.0, 10.0, 30.0}) {
    const double delta = AnalyticGaussianDelta(1.5, eps);
    EXPECT_LE(delta, previous) << eps;  // non-increasing in ε
    previous = delta;
  }
  previous = 0;
  for (double mu : {1e-6, 1e-3, 0.1, 1.0, 10.0, 100.0}) {
    const double eps = AnalyticGaussianEpsilon(mu, 1e-6);
    EXPECT_GE(eps, previous) << mu;  // non-decreasing in μ
    previous = eps;
  }
  // ε(δ) inverts δ(ε): δ at the reported ε is at most the target, and barely below it.
  for (double delta : {1e-3, 1e-9, 1e-100}) {
    const double eps = AnalyticGaussianEpsilon(2.0, delta);
    EXPECT_LE(AnalyticGaussianDelta(2.0, eps), delta);
    EXPECT_GT(AnalyticGaussianDelta(2.0, eps * (1 - 1e-9)), delta);
  }
}

TEST(AnalyticGaussian, CompositionIsOneGaussianWithTheSumOfSquares) {
  // μ² adds: 100 Gaussians of σ = 10, a leaf-balanced one (μ² = D·Σr c²/σ² = 2/σ²) and q = 1.
  const auto mu = GaussianCompositionMu(ComposedEvent(
      {SelfComposedEvent(100, GaussianEvent(10)), LeafBalancedGaussianEvent(2, {0.25, 0.75}),
       PoissonSampledEvent(1.0, GaussianEvent(1))}));
  ASSERT_TRUE(mu.has_value());
  EXPECT_LE(mu->lower, std::sqrt(1.0 + 0.5 + 1.0));
  EXPECT_GE(mu->upper, std::sqrt(1.0 + 0.5 + 1.0));
  EXPECT_LT(mu->upper - mu->lower, 1e-15);
  // Per-record ratios enter as c_d².
  const auto ratios = GaussianCompositionMu(LeafBalancedGaussianEvent(1, {0.5, 0.5}, {0.5, 1.0}));
  EXPECT_NEAR(ratios->upper, std::sqrt(2 * (0.5 * 0.25 + 0.5)), 1e-15);
  // Not Gaussian-type: a sampled Gaussian, Laplace, zCDP, a filter.
  EXPECT_FALSE(GaussianCompositionMu(PoissonSampledEvent(0.5, GaussianEvent(1))).has_value());
  EXPECT_FALSE(GaussianCompositionMu(LaplaceEvent(1)).has_value());
  EXPECT_FALSE(GaussianCompositionMu(ZcdpEvent(0.1)).has_value());
  EXPECT_FALSE(
      GaussianCompositionMu(ComposedEvent({GaussianEvent(1), LaplaceEvent(1)})).has_value());
}

TEST(AnalyticGaussian, BestPicksTheExactAccountantAndRdpWhereItDoesNotApply) {
  // The example: 100 Gaussians with σ = 40.4513 at δ = 1e-5: RDP 1.000, exact 0.9150.
  const Event event = SelfComposedEvent(100, GaussianEvent(40.4513));
  const EpsilonResult best = Epsilon(event, 1e-5);
  EXPECT_EQ(best.accountant, Accountant::kGaussian);
  EXPECT_NEAR(best.epsilon, 0.9150, 1e-4);
  EXPECT_NEAR(best.mu, std::sqrt(100.0) / 40.4513, 1e-15);
  const EpsilonResult rdp = Epsilon(event, 1e-5, {.accountant = Accountant::kRdp});
  EXPECT_EQ(rdp.accountant, Accountant::kRdp);
  EXPECT_NEAR(rdp.epsilon, 1.0, 1e-4);
  const EpsilonResult laplace = Epsilon(LaplaceEvent(1), 1e-5);
  EXPECT_EQ(laplace.accountant, Accountant::kRdp);
}

TEST(AnalyticGaussian, ExtremesAreAnsweredSoundly) {
  // μ = 1e300 (σ = 1e-300): no finite ε holds; +∞ is the answer, not an error.
  EXPECT_EQ(Epsilon(GaussianEvent(1e-300), 1e-5).epsilon, std::numeric_limits<double>::infinity());
  EXPECT_EQ(AnalyticGaussianDelta(1e300, 1e10), 1.0);
  // μ = 1e-300: δ(0) = 2Φ(μ/2) − 1 ≈ 4e-301, so ε = 0 at δ = 1e-30, and the reported δ(0) is an
  // upper bound (the difference of two terms near 1/2 is enclosed within 2^-332 absolute).
  EXPECT_EQ(AnalyticGaussianEpsilon(1e-300, 1e-30), 0.0);
  const double delta0 = AnalyticGaussianDelta(1e-300, 0);
  EXPECT_GE(delta0, 3.98e-301);
  EXPECT_LE(delta0, 1e-99);
  // ε up to 5e9 and δ down to 1e-300 stay finite and ordered.
  EXPECT_LT(AnalyticGaussianEpsilon(1e5, 1e-2), AnalyticGaussianEpsilon(1e5, 1e-300));
  EXPECT_TRUE(std::isfinite(AnalyticGaussianEpsilon(1e5, 1e-300)));
}

// A count of 0 or an empty composition releases nothing: every accountant answers ε = 0 and
// δ = 0 (the exact one with μ = 0; RDP a small δ at ε = 0) instead of refusing an internal μ.
TEST(AnalyticGaussian, NothingReleasedSpendsNothing) {
  EXPECT_EQ(AnalyticGaussianDelta(0, 0), 0.0);
  EXPECT_EQ(AnalyticGaussianEpsilon(0, 1e-300), 0.0);
  const std::vector<Event> empty_events = {
      SelfComposedEvent(0, GaussianEvent(1)), ComposedEvent({}),
      ComposedEvent({SelfComposedEvent(0, GaussianEvent(1e-3)), ComposedEvent({})})};
  for (const Event& event : empty_events) {
    for (Accountant accountant :
         {Accountant::kBest, Accountant::kGaussian, Accountant::kRdp, Accountant::kPld}) {
      SCOPED_TRACE(AccountantName(accountant));
      // RDP's conversion leaves a little even for ρ = 0 (its largest order is 1e5): ε about
      // log(1/δ)/α, δ about 1/α at ε = 0.
      const bool rdp = accountant == Accountant::kRdp;
      EXPECT_LE(Epsilon(event, 1e-6, {.accountant = accountant}).epsilon, rdp ? 1e-4 : 0.0);
      EXPECT_LE(Delta(event, 0.0, {.accountant = accountant}).delta, rdp ? 1e-5 : 0.0);
    }
    const EpsilonResult best = Epsilon(event, 1e-6);
    EXPECT_EQ(best.accountant, Accountant::kGaussian);
    EXPECT_FALSE(std::signbit(best.mu));
  }
}

TEST(AnalyticGaussian, BadInputNamesTheField) {
  EXPECT_THAT([] { (void)AnalyticGaussianEpsilon(-1, 1e-5); },
              ThrowsMessage<InvalidArgument>(HasSubstr("mu")));
  EXPECT_THAT([] { (void)AnalyticGaussianEpsilon(1, 1.5); },
              ThrowsMessage<InvalidArgument>(HasSubstr("delta")));
  EXPECT_THAT([] { (void)AnalyticGaussianDelta(1, std::nan("")); },
              ThrowsMessage<InvalidArgument>(HasSubstr("epsilon")));
  EXPECT_THAT([] { (void)Epsilon(LaplaceEvent(1), 1e-5, {.accountant = Accountant::kGaussian}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("accountant")));
  EXPECT_THAT([] { (void)AccountantFromName("prv"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("accountant")));
}

}  // namespace
}  // namespace rdpkit::accountant
