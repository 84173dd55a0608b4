// RDP curves: reference values (100-digit mpmath), a second way of computing each curve (naive
// formulas at 300 bits, a dense scan over t for the bounded-range supremum), and properties.
#include "rdpkit/accountant/curves.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "mp.h"
#include "rdpkit/accountant/errors.h"
#include "reference_cases.h"

namespace rdpkit::accountant {
namespace {

using ::rdpkit::testing::DivideRounded;
using ::rdpkit::testing::LoadReferenceCases;
using ::rdpkit::testing::Mp;
using ::rdpkit::testing::ReferenceCase;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr double kEps = std::numeric_limits<double>::epsilon();
// Certified upper bounds may exceed the 100-digit value by at most this (relative): the enclosure
// is computed at 133 bits, the input conversions round outward by one ulp each.
constexpr double kCertifiedSlack = 1e-12;

double RelativeError(double value, double truth) {
  return truth == 0 ? std::abs(value) : std::abs(value - truth) / std::abs(truth);
}

void ExpectSoundAndTight(const Event& event, double order, const ReferenceCase& c,
                         double fast_tolerance) {
  const Bound b = RdpCertified(event, order);
  EXPECT_GE(b.upper, c.expected_down) << c.id << ": certified upper below the 100-digit value";
  // Inputs are rounded toward more privacy loss (b down, ratios up), so lower may sit a few ulps
  // above the exact value; the enclosure must still be that narrow.
  EXPECT_LE(b.lower, c.expected_up * (1 + 1e-14)) << c.id;
  EXPECT_LE(b.upper - c.expected_down, kCertifiedSlack * c.expected_down) << c.id;
  EXPECT_LE(RelativeError(RdpFast(event, order), c.expected), fast_tolerance) << c.id;
}

class GaussianReference : public ::testing::TestWithParam<ReferenceCase> {};
TEST_P(GaussianReference, CertifiedIsSoundAndTight) {
  const ReferenceCase& c = GetParam();
  // Fast: α/(2σ²) is three correctly rounded operations: ≤ 4 ulp.
  ExpectSoundAndTight(GaussianEvent(c.params.at("sigma").get<double>()),
                      c.params.at("alpha").get<double>(), c, 4 * kEps);
}
INSTANTIATE_TEST_SUITE_P(Reference, GaussianReference,
                         ::testing::ValuesIn(LoadReferenceCases("rdp_gaussian")),
                         [](const auto& p) { return CaseName(p.param); });

// The reference gives ε = 1/b. b = 1/ε rounded DOWN keeps the comparison sound: less noise can only
// raise the curve, so the certified value at b must still be ≥ the reference at exactly 1/ε.
class LaplaceReference : public ::testing::TestWithParam<ReferenceCase> {};
TEST_P(LaplaceReference, CertifiedIsSoundAndTight) {
  const ReferenceCase& c = GetParam();
  const double b = DivideRounded(1.0, c.params.at("eps").get<double>(), /*round_up=*/false);
  // Fast: the log1p difference loses at most a factor b² of cancellation (docs in curves_impl.h);
  // for these b ≤ 1000 that leaves ≤ 1e-9 relative.
  ExpectSoundAndTight(LaplaceEvent(b), c.params.at("alpha").get<double>(), c, 1e-9);
}
INSTANTIATE_TEST_SUITE_P(Reference, LaplaceReference,
                         ::testing::ValuesIn(LoadReferenceCases("rdp_laplace")),
                         [](const auto& p) { return CaseName(p.param); });

class BoundedRangeReference : public ::testing::TestWithParam<ReferenceCase> {};
TEST_P(BoundedRangeReference, CertifiedIsSoundAndTight) {
  const ReferenceCase& c = GetParam();
  // Fast: cancellation between αt and the log term costs ~1/((α−1)ε) ulps; ≤ 1e-9 for these.
  ExpectSoundAndTight(ExponentialEvent(c.params.at("eps").get<double>()),
                      c.params.at("alpha").get<double>(), c, 1e-9);
}
INSTANTIATE_TEST_SUITE_P(Reference, BoundedRangeReference,
                         ::testing::ValuesIn(LoadReferenceCases("rdp_bounded_range")),
                         [](const auto& p) { return CaseName(p.param); });

// Ratios c_d = s_i/s_d are rounded UP so the comparison stays sound.
class LeafBalancedReference : public ::testing::TestWithParam<ReferenceCase> {};
TEST_P(LeafBalancedReference, CertifiedIsSoundAndTight) {
  const ReferenceCase& c = GetParam();
  const auto r = c.params.at("r").get<std::vector<double>>();
  const auto s_i = c.params.at("s_i").get<std::vector<double>>();
  const auto s = c.params.at("s").get<std::vector<double>>();
  std::vector<double> ratios;
  for (std::size_t d = 0; d < r.size(); ++d) ratios.push_back(DivideRounded(s_i[d], s[d], true));
  const LeafBalancedGaussianEvent event(c.params.at("sigma").get<double>(), r, ratios);
  ExpectSoundAndTight(event, c.params.at("alpha").get<double>(), c, 1e-14);
}
INSTANTIATE_TEST_SUITE_P(Reference, LeafBalancedReference,
                         ::testing::ValuesIn(LoadReferenceCases("rdp_leaf_balanced_gaussian")),
                         [](const auto& p) { return CaseName(p.param); });

// Second way: the textbook Laplace formula at 300 bits.
Mp NaiveLaplace(double alpha, double b) {
  const Mp a(alpha);
  const Mp bb(b);
  const Mp inner = a / (2 * a - 1) * exp((a - 1) / bb) + (a - 1) / (2 * a - 1) * exp(-a / bb);
  return log(inner) / (a - 1);
}

// Second way: Bun–Steinke's sinh form of the pure-DP bound at 300 bits.
Mp NaivePureDp(double alpha, double eps) {
  const Mp a(alpha);
  const Mp e(eps);
  return log((sinh(a * e) - sinh((a - 1) * e)) / sinh(e)) / (a - 1);
}

// Second way for bounded range: the original (non-log-space) objective at 300 bits, maximised by a
// dense scan over t ∈ [0, ε] (1001 points), zoomed in three times around the best point, so the
// maximiser is missed by at most ε·1e-12.
double DenseScanBoundedRange(double alpha, double eps) {
  const Mp a(alpha);
  const Mp e(eps);
  const Mp A = exp(a * e) - 1;
  const Mp denom = 1 - exp(-e);
  auto f = [&](const Mp& t) {
    const Mp p = (exp(-t) - exp(-e)) / denom;
    return (a * (t - e) + log(A * p + 1)) / (a - 1);
  };
  constexpr int kPoints = 1000;
  Mp best = f(Mp(0.0));
  double best_t = 0;
  double lo = 0;
  double hi = eps;
  // Four zooms of 1000 points each, every one around the previous best point.
  for (int zoom = 0; zoom < 4; ++zoom) {
    const double step = (hi - lo) / kPoints;
    for (int i = 0; i <= kPoints; ++i) {
      const double t = lo + step * i;
      const Mp v = f(Mp(t));
      if (best < v) {
        best = v;
        best_t = t;
      }
    }
    lo = std::max(0.0, best_t - step);
    hi = std::min(eps, best_t + step);
  }
  return best.ToDouble();
}

TEST(ExponentialRdp, SupremumMatchesDenseScanOverT) {
  // α from just above 1 to 1e5; ε from tiny to large. The scan is a lower bound of the supremum
  // (it misses the maximiser by ≤ step/4000; the objective is flat there), so the certified
  // value must be ≥ the scan and within 1e-9 relative of it.
  for (double alpha : {1.0 + 1e-9, 1.0 + 1e-6, 1.5, 7.3, 1e3, 1e5}) {
    for (double eps : {1e-4, 0.01, 0.5, 3.0, 20.0}) {
      const double scan = DenseScanBoundedRange(alpha, eps);
      const Bound b = RdpCertified(ExponentialEvent(eps), alpha);
      EXPECT_GE(b.upper, scan * (1 - 1e-15)) << "alpha=" << alpha << " eps=" << eps;
      EXPECT_LE(RelativeError(b.upper, scan), 1e-9) << "alpha=" << alpha << " eps=" << eps;
    }
  }
}

TEST(LaplaceRdp, MatchesNaiveFormulaAtHighPrecision) {
  for (double alpha : {1.0 + 1e-9, 1.01, 2.0, 10.5, 300.0, 1e5}) {
    for (double b : {0.05, 0.5, 1.0, 7.0, 100.0}) {
      const double truth = NaiveLaplace(alpha, b).ToDouble();
      const Bound bound = RdpCertified(LaplaceEvent(b), alpha);
      EXPECT_LE(RelativeError(bound.upper, truth), 1e-13) << alpha << " " << b;
      EXPECT_GE(bound.upper, truth * (1 - 1e-15));
    }
  }
}

TEST(PureDpRdp, MatchesSinhFormAndKnownBounds) {
  for (double alpha : {1.0 + 1e-6, 1.5, 2.0, 33.0, 1e4}) {
    for (double eps : {1e-3, 0.1, 1.0, 5.0}) {
      const double truth = NaivePureDp(alpha, eps).ToDouble();
      const double upper = RdpCertified(PureDpEvent(eps), alpha).upper;
      EXPECT_LE(RelativeError(upper, truth), 1e-12) << alpha << " " << eps;
      // Never looser than Mironov 2017 Prop. 3 (ε) or Bun–Steinke Prop. 3.3 (αε²/2).
      EXPECT_LE(upper, eps * (1 + 1e-15));
      EXPECT_LE(upper, alpha * eps * eps / 2 * (1 + 1e-12));
    }
  }
}

TEST(ZcdpRdp, IsLinearInOrder) {
  EXPECT_DOUBLE_EQ(RdpCertified(ZcdpEvent(0.25), 8.0).upper, 2.0);
  EXPECT_EQ(RdpCertified(ZcdpEvent(0.0), 8.0).upper, 0.0);
}

TEST(LeafBalancedGaussianRdp, WorstCaseIsGaussianOfDCoordinates) {
  // With every ratio 1, D coordinates of sensitivity s_d each: α·D/(2σ²), the Gaussian curve at
  // noise multiplier σ/√D (S-BDT Thm 16 with c_d = 1), whatever the weights.
  const double sigma = 1.7;
  const LeafBalancedGaussianEvent worst(sigma, {0.25, 0.75});
  for (double alpha : {1.5, 2.0, 100.0}) {
    const double gaussian = RdpFast(GaussianEvent(sigma / std::sqrt(2.0)), alpha);
    EXPECT_NEAR(RdpFast(worst, alpha), gaussian, 8 * kEps * gaussian);
    // Individual ratios < 1 give a smaller curve (S-BDT Cor. 17).
    EXPECT_LT(RdpCertified(LeafBalancedGaussianEvent(sigma, {0.25, 0.75}, {0.5, 1.0}), alpha).upper,
              RdpCertified(worst, alpha).lower);
  }
}

// ----- Limits -----

TEST(Limits, LaplaceTendsToKlAndToPureEpsilon) {
  for (double b : {0.3, 1.0, 10.0}) {
    // α → 1: KL divergence of Laplace(0,b) and Laplace(1,b) is 1/b + e^{−1/b} − 1.
    const double kl = 1 / b + std::exp(-1 / b) - 1;
    EXPECT_NEAR(RdpCertified(LaplaceEvent(b), 1 + 1e-9).upper, kl, 1e-8 * kl);
    // α → ∞: the pure-DP parameter 1/b, approached from below within log(2)/(α−1).
    const double at_large = RdpCertified(LaplaceEvent(b), 1e5).upper;
    EXPECT_LE(at_large, 1 / b);
    EXPECT_GE(at_large, 1 / b - std::log(2.0) / (1e5 - 1));
  }
}

TEST(Limits, ExponentialAndPureDpTendToEpsilonAtLargeOrder) {
  // Both approach ε from below as α → ∞ (the 1/(α−1) log terms vanish).
  for (const Event& event : {Event(ExponentialEvent(0.7)), Event(PureDpEvent(0.7))}) {
    const double at_large = RdpCertified(event, 1e5).upper;
    EXPECT_LE(at_large, 0.7);
    EXPECT_GE(at_large, 0.7 - 20 / (1e5 - 1));
  }
}

// ----- Properties on fixed grids -----

std::vector<double> OrderGrid() {
  std::vector<double> grid;
  for (int k = -9; k <= 5; ++k) {
    grid.push_back(1 + std::pow(10.0, k));
    grid.push_back(1 + 3 * std::pow(10.0, k));
  }
  return grid;
}

std::vector<Event> CurveZoo() {
  return {GaussianEvent(0.5),
          GaussianEvent(30),
          LeafBalancedGaussianEvent(2.0, {0.1, 0.9}, {0.3, 1.0}),
          LaplaceEvent(0.2),
          LaplaceEvent(50),
          ExponentialEvent(0.05),
          ExponentialEvent(4),
          PureDpEvent(0.3),
          ZcdpEvent(0.01),
          ComposedEvent({GaussianEvent(3), LaplaceEvent(10)}),
          SelfComposedEvent(1000, ExponentialEvent(0.01))};
}

TEST(Properties, NonDecreasingInOrder) {
  for (const Event& event : CurveZoo()) {
    double previous = 0;
    for (double alpha : OrderGrid()) {
      const Bound b = RdpCertified(event, alpha);
      // The curve is non-decreasing in α (Mironov 2017, Prop. 9 / van Erven–Harremoës Thm 3).
      EXPECT_GE(b.upper, previous * (1 - 1e-12)) << event.ToJson() << " alpha=" << alpha;
      previous = b.lower;
    }
  }
}

TEST(Properties, NonIncreasingInNoise) {
  for (double alpha : OrderGrid()) {
    double previous_gauss = std::numeric_limits<double>::infinity();
    double previous_laplace = previous_gauss;
    for (double noise : {0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 1000.0}) {
      const double g = RdpCertified(GaussianEvent(noise), alpha).upper;
      const double l = RdpCertified(LaplaceEvent(noise), alpha).upper;
      EXPECT_LE(g, previous_gauss) << alpha << " " << noise;
      EXPECT_LE(l, previous_laplace) << alpha << " " << noise;
      previous_gauss = g;
      previous_laplace = l;
    }
  }
}

TEST(Properties, NonDecreasingInCountAndEpsilon) {
  for (double alpha : {1.01, 2.0, 50.0}) {
    double previous = 0;
    for (std::uint64_t count : {0, 1, 2, 10, 1000, 1000000}) {
      const double v = RdpCertified(SelfComposedEvent(count, LaplaceEvent(3)), alpha).upper;
      EXPECT_GE(v, previous);
      previous = v;
    }
    previous = 0;
    for (double eps : {1e-3, 0.1, 1.0, 10.0}) {
      const double v = RdpCertified(ExponentialEvent(eps), alpha).upper;
      EXPECT_GE(v, previous);
      previous = v;
    }
  }
}

TEST(Properties, CompositionAdds) {
  const Event a = GaussianEvent(1.3);
  const Event b = LaplaceEvent(2.5);
  const Event c = ExponentialEvent(0.4);
  for (double alpha : OrderGrid()) {
    const Bound composed = RdpCertified(ComposedEvent({a, b, c, a}), alpha);
    const double sum_upper = 2 * RdpCertified(a, alpha).upper + RdpCertified(b, alpha).upper +
                             RdpCertified(c, alpha).upper;
    EXPECT_NEAR(composed.upper, sum_upper, 1e-12 * sum_upper);
    const Bound self = RdpCertified(SelfComposedEvent(7, b), alpha);
    EXPECT_NEAR(self.upper, 7 * RdpCertified(b, alpha).upper, 1e-12 * self.upper);
  }
}

TEST(Properties, FastAgreesWithCertifiedWhereDoubleIsAccurate) {
  for (const Event& event : CurveZoo()) {
    for (double alpha : {1.5, 2.0, 3.7, 16.0, 250.0, 4096.0}) {
      const Bound b = RdpCertified(event, alpha);
      const double fast = RdpFast(event, alpha);
      EXPECT_LE(RelativeError(fast, b.upper), 1e-9) << event.ToJson() << " alpha=" << alpha;
      EXPECT_LE(fast, b.upper * (1 + 1e-12)) << event.ToJson() << " alpha=" << alpha;
    }
  }
}

// Double loses digits to cancellation as α → 1 (the bracket of the bounded-range objective is
// O((α−1)ε²) but its two terms are O(ε)); 133-bit intervals do not, and the fast path detects the
// cancellation and takes the interval evaluation's upper end instead of a double below the truth.
TEST(Precision, CertifiedKeepsDigitsWhereDoubleLosesThem) {
  const double alpha = 1 + 1e-9;
  const double eps = 0.1;
  const double truth = DenseScanBoundedRange(alpha, eps);
  const double fast = RdpFast(ExponentialEvent(eps), alpha);
  const Bound cert = RdpCertified(ExponentialEvent(eps), alpha);
  EXPECT_LE(RelativeError(cert.upper, truth), 1e-12);
  EXPECT_GE(cert.upper, truth * (1 - 1e-15));
  EXPECT_LE(RelativeError(fast, truth), 1e-12);
  EXPECT_GE(fast, cert.lower);
}

// ----- Edges and errors -----

TEST(Edges, ExtremeOrdersAndScalesAreFinite) {
  for (const Event& event : CurveZoo()) {
    for (double alpha : {1 + 1e-9, 1e5}) {
      const Bound b = RdpCertified(event, alpha);
      EXPECT_TRUE(std::isfinite(b.upper)) << event.ToJson() << " " << alpha;
      EXPECT_GE(b.lower, 0.0);
    }
  }
  EXPECT_TRUE(std::isfinite(RdpCertified(LaplaceEvent(1e-3), 1e5).upper));
  EXPECT_TRUE(std::isfinite(RdpCertified(ExponentialEvent(500), 1e5).upper));
  EXPECT_TRUE(std::isfinite(RdpCertified(GaussianEvent(1e-150), 1e5).upper));
  EXPECT_GT(RdpCertified(GaussianEvent(1e150), 2).upper, 0.0);
}

TEST(Errors, OrderOutsideDomainNamesTheField) {
  for (double bad : {1.0, 0.5, -3.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THAT([&] { (void)RdpFast(GaussianEvent(1), bad); },
                ThrowsMessage<InvalidArgument>(HasSubstr("order")));
    EXPECT_THAT([&] { (void)RdpCertified(GaussianEvent(1), bad); },
                ThrowsMessage<InvalidArgument>(HasSubstr("order")));
  }
}

TEST(DefaultOrders, CoverTheDomainSorted) {
  const auto& orders = DefaultOrders();
  ASSERT_FALSE(orders.empty());
  EXPECT_GT(orders.front(), 1.0);
  EXPECT_LE(orders.back(), kMaxOrder);
  EXPECT_GE(orders.back(), kMaxOrder / 2);
  for (std::size_t i = 1; i < orders.size(); ++i) EXPECT_LT(orders[i - 1], orders[i]);
}

}  // namespace
}  // namespace rdpkit::accountant
