// Extreme parameters (issue 11, items 3 and 5): the fast (double) path never reports less than
// the truth and never chooses the certified path's order badly; nested Poisson sampling costs
// time linear in its depth.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"

// GCC 12 reports a false "maybe uninitialized" inside std::variant's move when events are pushed
// into a vector in a loop (libstdc++ PR 105593 family).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace rdpkit::accountant {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The fast curve value may sit below the certified lower end by its own double rounding only:
// kMaxCancellation (1e4) ulps at most, i.e. < 1e-11 relative.
constexpr double kFastRounding = 1e-11;

std::vector<Event> ExtremeEvents() {
  std::vector<Event> out;
  for (double eps : {1e-8, 1e-3, 0.5, 40.0, 700.0, 740.0, 800.0, 1000.0, 1e5}) {
    out.push_back(ExponentialEvent(eps));
    out.push_back(PureDpEvent(eps));
  }
  for (double b : {1e-6, 1e-3, 1.0, 1e3, 1e5, 1e8}) out.push_back(LaplaceEvent(b));
  for (double sigma : {1e-150, 1e-8, 1.0, 1e8, 1e150}) out.push_back(GaussianEvent(sigma));
  out.push_back(LeafBalancedGaussianEvent(1e-150, {0.5, 0.5}, {1e-150, 1.0}));
  for (double q : {1e-9, 0.01, 0.5}) {
    out.push_back(PoissonSampledEvent(q, ExponentialEvent(800)));
    out.push_back(PoissonSampledEvent(q, PureDpEvent(1000)));
    out.push_back(PoissonSampledEvent(q, LaplaceEvent(1e-3)));
    out.push_back(PoissonSampledEvent(q, ExponentialEvent(1e-3)));
  }
  return out;
}

const std::vector<double>& ExtremeOrders() {
  static const std::vector<double> orders = {1 + 1e-9, 1.001, 1.5, 2, 3.7, 64, 1000, 1e5};
  return orders;
}

// Each fast curve value is a number ≥ 0 (or +∞), never below the certified enclosure beyond its
// rounding, and finite wherever the certified value is.
TEST(FastCurves, NeverBelowTheCertifiedEnclosureAtExtremeParameters) {
  for (const Event& event : ExtremeEvents()) {
    for (double alpha : ExtremeOrders()) {
      const Bound cert = RdpCertified(event, alpha);
      const double fast = RdpFast(event, alpha);
      const std::string where = event.ToJson().dump() + " alpha=" + std::to_string(alpha);
      ASSERT_FALSE(std::isnan(fast)) << where;
      EXPECT_GE(fast, 0.0) << where;
      EXPECT_GE(fast, cert.lower - kFastRounding * std::abs(cert.lower)) << where;
      if (std::isfinite(cert.upper)) {
        EXPECT_TRUE(std::isfinite(fast)) << where;
        // Less tight is allowed; grossly loose is not.
        EXPECT_LE(fast, cert.upper * (1 + 1e-6) + 1e-300) << where;
      }
    }
  }
}

// The fast value of `event` at `alpha` against the certified enclosure, within `tolerance`
// (relative) either way; true. Where the certified path cannot enclose the curve (it throws, or
// its lower end is not positive), against `bound`, an upper bound the curve meets to a relative
// 1e-9 at these ε; false.
bool ExpectFastNearCertified(const Event& event, double alpha, double bound, double tolerance) {
  const double fast = RdpFast(event, alpha);
  const std::string where = event.ToJson().dump() + " alpha=" + std::to_string(alpha);
  Bound cert{};
  bool enclosed = true;
  try {
    cert = RdpCertified(event, alpha);
  } catch (const NumericalError&) {
    enclosed = false;
  }
  if (enclosed && cert.lower > 0) {
    EXPECT_GE(fast, cert.lower * (1 - tolerance)) << where;
    EXPECT_LE(fast, cert.upper * (1 + tolerance)) << where;
    return true;
  }
  EXPECT_LE(fast, bound * (1 + tolerance)) << where;
  EXPECT_GE(fast, bound * (1 - 1e-9)) << where;
  return false;
}

// Where the overflow-free Laplace and pure-DP forms cancel, the fast path takes forms without
// cancellation (docs/math/small_epsilon.md) instead of 133/332-bit intervals: the same value to a
// few ulps, so inside the certified enclosure but for 1e-12 relative either way. Where even 332
// bits cannot enclose the curve (b = 7.1e86 near α = 1), ρ = αε²/2·(1 − O(ε)) (both curves are
// below the zCDP bound αε²/2 of an ε-DP mechanism, Bun–Steinke 2016, Prop. 3.3) brackets it.
TEST(FastCurves, SmallEpsilonFormsMatchTheCertifiedEnclosure) {
  std::vector<std::pair<Event, double>> events;  // the event and its pure-DP ε
  for (double b : {1e4, 3e5, 1e8, 1e20, 7.1e86}) events.push_back({LaplaceEvent(b), 1 / b});
  for (double eps : {1e-3, 3e-6, 1e-8, 1e-20, 1e-200}) events.push_back({PureDpEvent(eps), eps});
  int certified = 0;
  for (const auto& [event, eps] : events) {
    for (double alpha : {1 + 1e-9, 1.001, 1.5, 2.0, 3.7, 64.0, 1000.0, 1e5}) {
      certified += ExpectFastNearCertified(event, alpha, alpha * eps / 2 * eps, 1e-12);
    }
  }
  EXPECT_EQ(certified, 64);  // of 80: the largest b and the two smallest ε escape 332 bits
}

// The bounded-range curve's form without cancellation (α ≥ 1.001, αε ≤ 1/8): inside the certified
// enclosure but for the fast path's rounding allowance, at every order and ε where it applies.
// At ε = 1e-100 the certified path encloses only [−inf, log 2/(α−1)]; there the zCDP bound of an
// ε-bounded-range mechanism, ρ ≤ αε²/8 (Cesar & Rogers 2021), which the curve meets to O(ε),
// brackets it.
TEST(FastCurves, SmallEpsilonBoundedRangeMatchesTheCertifiedEnclosure) {
  int certified = 0;
  int bracketed = 0;
  for (double eps : {1e-3, 3e-6, 1e-8, 1e-20, 1e-100}) {
    for (double alpha : {1.001, 1.01, 1.5, 2.0, 3.7, 17.0, 64.0, 1000.0, 1e5}) {
      if (alpha * eps > 0.125) continue;
      const bool enclosed = ExpectFastNearCertified(ExponentialEvent(eps), alpha,
                                                    alpha * eps / 8 * eps, kFastRounding);
      (enclosed ? certified : bracketed) += 1;
    }
  }
  EXPECT_EQ(certified, 33);
  EXPECT_EQ(bracketed, 9);
}

// A curve value beyond the largest double: its enclosure [DBL_MAX, +∞] is the narrowest a double
// can give, so the certified path reports it (+∞ as the upper bound) instead of throwing, and the
// conversions see the finite orders. Where the 332-bit evaluation itself overflows (lower end 0),
// it still throws.
TEST(CertifiedCurves, AValueAboveTheDoubleRangeIsReportedAsInfinite) {
  constexpr double kMax = std::numeric_limits<double>::max();
  for (const auto& [event, alpha] :
       std::vector<std::pair<Event, double>>{{ZcdpEvent(1e308), 2.0},
                                             {ZcdpEvent(1e308), 1e15},
                                             {GaussianEvent(5e-324), 2.0},
                                             {GaussianEvent(1e-160), 1e5}}) {
    const Bound b = RdpCertified(event, alpha);
    EXPECT_EQ(b.lower, kMax) << event.ToJson().dump() << " alpha=" << alpha;
    EXPECT_EQ(b.upper, kInf) << event.ToJson().dump() << " alpha=" << alpha;
    EXPECT_EQ(RdpFast(event, alpha), kInf) << event.ToJson().dump() << " alpha=" << alpha;
  }
  // Just below the largest double the enclosure stays finite and narrow: 1e308·1.5.
  const Bound finite = RdpCertified(ZcdpEvent(1e308), 1.5);
  EXPECT_NEAR(finite.upper, 1.5e308, 1e-9 * 1.5e308);
  EXPECT_THROW((void)RdpCertified(PoissonSampledEvent(0.5, GaussianEvent(1e-150)), 2.0),
               NumericalError);
}

// The reproducer of issue 11, item 3: ε = 0 on the fast path and a 15× loose certified ε.
TEST(FastCurves, ExponentialAt800IsNotZero) {
  const Event event = ExponentialEvent(800);
  EXPECT_GT(RdpFast(event, 2), 790.0);
  const EpsilonResult fast = Epsilon(event, 1e-5, {.certified = false});
  const EpsilonResult cert = Epsilon(event, 1e-5);
  EXPECT_GT(fast.epsilon, 790.0);
  EXPECT_LE(cert.epsilon, 800.0);  // an 800-bounded-range mechanism is 800-DP
  EXPECT_GT(cert.epsilon, 790.0);
}

// Dense certified scan over orders: the smallest certified ε any order in (1, 1e5] gives.
double DenseCertifiedMinimum(const Event& event, double delta) {
  double best = kInf;
  for (int k = -90; k <= 150; ++k) {
    const double order = 1 + std::pow(10.0, k / 30.0);
    if (order > kMaxOrder) break;
    ConversionOptions at;
    at.orders = {order};
    at.accountant = Accountant::kRdp;
    best = std::min(best, Epsilon(event, delta, at).epsilon);
  }
  return best;
}

// The reported fast ε (and δ) is never below the certified one, and the certified path's order
// (chosen on the fast path) is within a small factor of the best order.
TEST(FastConversions, FastIsAnUpperBoundAndTheOrderIsNearTheBest) {
  const std::vector<Event> events = {
      ExponentialEvent(800),
      ExponentialEvent(1000),
      ExponentialEvent(1e-3),
      PoissonSampledEvent(0.01, ExponentialEvent(800)),
      PoissonSampledEvent(1e-9, PureDpEvent(1000)),
      SelfComposedEvent(100, LaplaceEvent(1e5)),
      SelfComposedEvent(1000, PureDpEvent(1e-4)),
      ComposedEvent({GaussianEvent(1e8), LaplaceEvent(1e-3)}),
      SelfComposedEvent(1000000, GaussianEvent(1500)),
  };
  for (const Event& event : events) {
    for (double delta : {1e-10, 1e-5}) {
      const std::string where = event.ToJson().dump() + " delta=" + std::to_string(delta);
      // RDP's fast and certified paths (PLD, which best may choose, has no double-only path).
      const EpsilonResult fast =
          Epsilon(event, delta, {.certified = false, .accountant = Accountant::kRdp});
      const EpsilonResult cert = Epsilon(event, delta, {.accountant = Accountant::kRdp});
      EXPECT_GE(fast.epsilon, cert.epsilon) << where;
      EXPECT_LE(fast.epsilon, cert.epsilon * (1 + 1e-6) + 1e-9) << where;
      const double best = DenseCertifiedMinimum(event, delta);
      EXPECT_LE(cert.epsilon, best * (1 + 1e-3) + 1e-9) << where << " order=" << cert.order;
      const DeltaResult fast_delta =
          Delta(event, cert.epsilon, {.certified = false, .accountant = Accountant::kRdp});
      const DeltaResult cert_delta = Delta(event, cert.epsilon, {.accountant = Accountant::kRdp});
      EXPECT_GE(fast_delta.delta, cert_delta.delta) << where;
    }
  }
}

// ----- Nested Poisson sampling (item 5) -----

Event Nest(int depth, double q, const Event& base) {
  Event event = base;
  for (int i = 0; i < depth; ++i) event = PoissonSampledEvent(q, event);
  return event;
}

// Two independent Poisson samplings compose to one at the product rate (thinning), so five nested
// samplings at 1/2 are exactly one at 1/32 (an exact product): the same curve, in linear time.
TEST(NestedSampling, DirectNestingIsSamplingAtTheProductRate) {
  const Event nested = Nest(5, 0.5, GaussianEvent(1.0));
  const Event flat = PoissonSampledEvent(0.03125, GaussianEvent(1.0));
  for (double alpha : {1.5, 2.0, 7.25, 64.0, 1e5}) {
    EXPECT_EQ(RdpFast(nested, alpha), RdpFast(flat, alpha)) << alpha;
    EXPECT_EQ(RdpCertified(nested, alpha).upper, RdpCertified(flat, alpha).upper) << alpha;
  }
  EXPECT_EQ(Epsilon(nested, 1e-5).epsilon, Epsilon(flat, 1e-5).epsilon);
  // 60 levels: 0.5^60 is still an exact double.
  EXPECT_EQ(RdpCertified(Nest(60, 0.5, LaplaceEvent(2.0)), 8).upper,
            RdpCertified(PoissonSampledEvent(std::ldexp(1.0, -60), LaplaceEvent(2.0)), 8).upper);
}

// An inexact product is rounded up: never a smaller rate than the true one.
TEST(NestedSampling, InexactProductRoundsTowardMoreLoss) {
  const Event nested = PoissonSampledEvent(0.1, PoissonSampledEvent(0.3, LaplaceEvent(0.5)));
  const double nearest = 0.1 * 0.3;
  const Event below = PoissonSampledEvent(std::nextafter(nearest, 0.0), LaplaceEvent(0.5));
  for (double alpha : {2.0, 5.5, 32.0}) {
    EXPECT_GE(RdpCertified(nested, alpha).upper, RdpCertified(below, alpha).upper) << alpha;
  }
}

// Sampling nested through compositions cannot be flattened; every level must still cost a
// bounded amount (this used to take time exponential in the depth: five levels hung).
TEST(NestedSampling, IndirectNestingCostsLinearTime) {
  Event event = LaplaceEvent(0.5);
  for (int i = 0; i < 30; ++i) {
    event = PoissonSampledEvent(
        0.5, SelfComposedEvent(3, ComposedEvent({event, ZcdpEvent(0.01), ExponentialEvent(0.1)})));
  }
  const EpsilonResult cert = Epsilon(event, 1e-5);
  EXPECT_TRUE(std::isfinite(cert.epsilon));
  EXPECT_GE(Epsilon(event, 1e-5, {.certified = false}).epsilon, cert.epsilon);
  // Sound: a sample never loses more than the event run on the whole dataset.
  const auto& outer = *event.get_if<PoissonSampledEvent>();
  for (double alpha : {2.0, 9.5, 1000.0}) {
    EXPECT_LE(RdpCertified(event, alpha).upper, RdpCertified(outer.event(), alpha).upper) << alpha;
  }
}

}  // namespace
}  // namespace rdpkit::accountant
