// The PLD of the bounded-loss pairs (docs/math/pld.md §3b): Laplace, randomized response (pure
// DP) and the ε-bounded-range pair, alone, composed and Poisson-subsampled, against exact values
// computed a second way (closed forms, binomial sums, a quadrature of the hockey-stick
// divergence, the supremum over the bounded-range family).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/pld.h"

namespace rdpkit::accountant {
namespace {

// The PLD's own slack at the default grid against an exact δ: its split of a point between two
// grid points (relative) and, in δ mode, its round-off and window terms (absolute, ~1e-11 here;
// pld.md §3, §6). 1e-3 and 1e-10 cover the cases below with a margin of ~5×.
constexpr double kDeltaSlack = 1e-3;
constexpr double kDeltaFloor = 1e-10;

// δ(ε) = Σ_k w_k·(1 − e^{ε − l_k})₊ of a discrete PLD in log space (long double).
long double DeltaOfPoints(const std::vector<long double>& log_mass,
                          const std::vector<long double>& loss, long double epsilon) {
  long double delta = 0;
  for (std::size_t i = 0; i < loss.size(); ++i) {
    if (loss[i] > epsilon) delta += std::exp(log_mass[i]) * -std::expm1(epsilon - loss[i]);
  }
  return delta;
}

// The T-fold composition of a two-point PLD (P-masses p, 1 − p at losses a, b) by binomial sums.
long double BinomialDelta(long double p, long double a, long double b, int count,
                          long double epsilon) {
  std::vector<long double> log_mass;
  std::vector<long double> loss;
  for (int k = 0; k <= count; ++k) {
    log_mass.push_back(std::lgamma(count + 1.0L) - std::lgamma(k + 1.0L) -
                       std::lgamma(count - k + 1.0L) + k * std::log(p) +
                       (count - k) * std::log1p(-p));
    loss.push_back(k * a + (count - k) * b);
  }
  return DeltaOfPoints(log_mass, loss, epsilon);
}

// Randomized response ε0, Poisson-subsampled at q, T times: remove P = q·RR_P + (1−q)·RR_Q
// against Q = RR_Q, add the swapped pair (pld.md §1); δ is the larger of the two.
long double SubsampledRandomizedResponseDelta(double eps0, double q, int count, double epsilon) {
  const long double p = 1 / (1 + std::exp(-static_cast<long double>(eps0)));  // RR_P(+)
  const long double pq = q * p + (1 - q) * (1 - p);                           // P(+)
  const long double lp = std::log(pq / (1 - p));                              // loss at +
  const long double lm = std::log((1 - pq) / p);                              // loss at −
  const long double remove = BinomialDelta(pq, lp, lm, count, epsilon);
  const long double add = BinomialDelta(1 - p, -lp, -lm, count, epsilon);
  return std::max(remove, add);
}

TEST(PldMechanisms, RandomizedResponseCompositionsAgainstBinomialSums) {
  for (const double eps0 : {0.05, 0.5, 2.0}) {
    for (const int count : {1, 10, 300}) {
      for (const double q : {1.0, 0.1, 0.001}) {
        const Event event =
            SelfComposedEvent(count, q == 1 ? Event(PureDpEvent(eps0))
                                            : Event(PoissonSampledEvent(q, PureDpEvent(eps0))));
        for (const double epsilon : {0.0, 0.3 * eps0 * std::sqrt(count), eps0 * count * 0.7}) {
          SCOPED_TRACE(event.ToJson().dump() + " epsilon " + std::to_string(epsilon));
          const double exact =
              static_cast<double>(SubsampledRandomizedResponseDelta(eps0, q, count, epsilon));
          const double pld = PldDelta(event, epsilon);
          EXPECT_GE(pld, exact * (1 - 1e-12));
          EXPECT_LE(pld, exact * (1 + kDeltaSlack) + kDeltaFloor);
        }
        // ε at δ = 1e-6: never below the exact one (the exact δ there is at most the target).
        const double eps = PldEpsilon(event, 1e-6);
        EXPECT_LE(SubsampledRandomizedResponseDelta(eps0, q, count, eps), 1e-6 * (1 + 1e-9));
      }
    }
  }
}

// Laplace with E = 1/b: δ(ε) = 1 − e^{(ε − E)/2} for 0 ≤ ε < E (pld.md eq. 3.4).
TEST(PldMechanisms, LaplaceAgainstItsClosedForm) {
  for (const double b : {0.2, 1.0, 10.0, 300.0}) {
    const double e = 1 / b;
    for (const double share : {0.0, 0.3, 0.9, 0.999}) {
      const double epsilon = share * e;
      const double exact = -std::expm1((epsilon - e) / 2);
      const double pld = PldDelta(LaplaceEvent(b), epsilon);
      SCOPED_TRACE("b " + std::to_string(b) + " epsilon " + std::to_string(epsilon));
      EXPECT_GE(pld, exact * (1 - 1e-12));
      EXPECT_LE(pld, exact * (1 + kDeltaSlack) + kDeltaFloor);
    }
    for (const double delta : {1e-10, 1e-5, 1e-2}) {
      const double exact = std::max(0.0, e + 2 * std::log1p(-delta));
      const double pld = PldEpsilon(LaplaceEvent(b), delta);
      EXPECT_GE(pld, exact * (1 - 1e-12));
      EXPECT_LE(pld, exact + 1e-3 * e);
    }
  }
}

// The hockey-stick δ(ε) of a Poisson-subsampled Laplace pair by quadrature of
// ∫ (p(x) − e^ε·q(x))₊ dx, both directions (the second way of computing it).
double SubsampledLaplaceQuadrature(double b, double q, double epsilon) {
  const auto lap = [b](double x, double mean) {
    return std::exp(-std::abs(x - mean) / b) / (2 * b);
  };
  double remove = 0;
  double add = 0;
  const double lo = -60 * b;
  const double hi = 1 + 60 * b;
  const int steps = 400000;
  const double step = (hi - lo) / steps;
  for (int i = 0; i < steps; ++i) {  // midpoint rule; the kinks at 0 and 1 are grid points
    const double x = lo + step * (i + 0.5);
    const double mix = q * lap(x, 1) + (1 - q) * lap(x, 0);
    remove += std::max(0.0, mix - std::exp(epsilon) * lap(x, 0)) * step;
    add += std::max(0.0, lap(x, 0) - std::exp(epsilon) * mix) * step;
  }
  return std::max(remove, add);
}

TEST(PldMechanisms, SubsampledLaplaceAgainstQuadrature) {
  for (const double b : {0.5, 2.0}) {
    for (const double q : {0.01, 0.3}) {
      const Event event = PoissonSampledEvent(q, LaplaceEvent(b));
      for (const double epsilon : {0.0, 0.01, 0.1, 0.4}) {
        const double quad = SubsampledLaplaceQuadrature(b, q, epsilon);
        const double pld = PldDelta(event, epsilon);
        SCOPED_TRACE("b " + std::to_string(b) + " q " + std::to_string(q) + " epsilon " +
                     std::to_string(epsilon));
        // The midpoint rule's own error here is below 1e-7 relative.
        EXPECT_GE(pld, quad * (1 - 1e-6));
        EXPECT_LE(pld, quad * (1 + kDeltaSlack) + kDeltaFloor);
      }
    }
  }
}

// The ε-bounded-range pair: δ(ε') = (1 − e^{(ε'−ε)/2})²/(1 − e^{−ε}) for 0 ≤ ε' ≤ ε, which is the
// supremum over t ∈ [0, ε] of the binary pairs with losses ε − t and −t (Dong, Durfee & Rogers
// 2020): checked both ways.
TEST(PldMechanisms, BoundedRangeIsTheSupremumOfItsFamily) {
  for (const double eps : {0.01, 0.5, 3.0}) {
    for (const double share : {0.0, 0.2, 0.7, 0.99}) {
      const double epsilon = share * eps;
      const double closed = std::pow(-std::expm1((epsilon - eps) / 2), 2) / -std::expm1(-eps);
      // Binary pair t: P-mass p1 = (1 − e^{−t})/(1 − e^{−ε}) at loss ε − t, 1 − p1 at −t.
      double sup = 0;
      for (int i = 0; i <= 20000; ++i) {
        const double t = eps * i / 20000.0;
        const double p1 = -std::expm1(-t) / -std::expm1(-eps);
        double d = 0;
        if (eps - t > epsilon) d += p1 * -std::expm1(epsilon - (eps - t));
        if (-t > epsilon) d += (1 - p1) * -std::expm1(epsilon + t);
        sup = std::max(sup, d);
      }
      SCOPED_TRACE("eps " + std::to_string(eps) + " epsilon " + std::to_string(epsilon));
      EXPECT_NEAR(sup, closed, 1e-7 * closed + 1e-15);
      const double pld = PldDelta(ExponentialEvent(eps), epsilon);
      EXPECT_GE(pld, closed * (1 - 1e-12));
      EXPECT_LE(pld, closed * (1 + kDeltaSlack) + kDeltaFloor);
    }
  }
}

// Compositions: best is never above either accountant; PLD is below RDP for Laplace and pure-DP
// compositions; for bounded-range compositions the one pair that dominates every ε-BR mechanism
// composes less tightly than RDP's supremum over the family, and best takes RDP (pld.md §7).
TEST(PldMechanisms, CompositionsAgainstRdp) {
  ConversionOptions rdp;
  rdp.accountant = Accountant::kRdp;
  ConversionOptions pld;
  pld.accountant = Accountant::kPld;
  const std::vector<Event> tighter_by_pld = {
      SelfComposedEvent(100, LaplaceEvent(10)),
      SelfComposedEvent(1000, PoissonSampledEvent(0.01, LaplaceEvent(1))),
      SelfComposedEvent(50, PureDpEvent(0.1)),
      SelfComposedEvent(1000, PoissonSampledEvent(0.01, PureDpEvent(1))),
      SelfComposedEvent(1000, PoissonSampledEvent(0.01, ExponentialEvent(1))),
      ComposedEvent({SampledGaussian(0.01, 1, 1000), SelfComposedEvent(10, LaplaceEvent(20))}),
  };
  for (const Event& event : tighter_by_pld) {
    SCOPED_TRACE(event.ToJson().dump());
    const EpsilonResult by_pld = Epsilon(event, 1e-5, pld);
    const EpsilonResult by_rdp = Epsilon(event, 1e-5, rdp);
    EXPECT_EQ(by_pld.accountant, Accountant::kPld);
    EXPECT_LT(by_pld.epsilon, by_rdp.epsilon);
    const EpsilonResult best = Epsilon(event, 1e-5);
    EXPECT_EQ(best.accountant, Accountant::kPld);
    EXPECT_EQ(best.epsilon, by_pld.epsilon);
  }
  const Event br = SelfComposedEvent(100, ExponentialEvent(0.1));
  const EpsilonResult best = Epsilon(br, 1e-5);
  EXPECT_EQ(best.accountant, Accountant::kRdp);
  EXPECT_LE(best.epsilon, Epsilon(br, 1e-5, pld).epsilon);
}

TEST(PldMechanisms, Monotone) {
  double previous = 0;
  for (const int count : {1, 10, 100, 1000}) {
    const double eps = PldEpsilon(SelfComposedEvent(count, LaplaceEvent(20)), 1e-6);
    EXPECT_GT(eps, previous);
    previous = eps;
  }
  previous = 0;
  for (const double q : {0.001, 0.01, 0.1, 1.0}) {
    const double eps =
        PldEpsilon(SelfComposedEvent(100, PoissonSampledEvent(q, ExponentialEvent(0.5))), 1e-6);
    EXPECT_GT(eps, previous);
    previous = eps;
  }
  previous = 0;
  for (const double eps0 : {0.01, 0.1, 1.0}) {
    const double eps = PldEpsilon(SelfComposedEvent(30, PureDpEvent(eps0)), 1e-6);
    EXPECT_GT(eps, previous);
    previous = eps;
  }
  // Nothing released: ε = 0, δ = 0.
  EXPECT_EQ(PldEpsilon(SelfComposedEvent(10, PureDpEvent(0)), 1e-6), 0);
  // A loss bound beyond e^700 is left to RDP (with a note under --accountant pld).
  ConversionOptions pld;
  pld.accountant = Accountant::kPld;
  const EpsilonResult huge = Epsilon(PureDpEvent(800), 1e-6, pld);
  EXPECT_EQ(huge.accountant, Accountant::kRdp);
  EXPECT_NE(huge.note.find("pld could not answer"), std::string::npos);
}

}  // namespace
}  // namespace rdpkit::accountant
