// One template body per RDP curve (STYLE.md §5), instantiated for double (fast path) and for the
// MPFI intervals of real.h (certified path). With an interval Real every function returns an
// enclosure of the true value at the exact double inputs.
#ifndef RDPKIT_ACCOUNTANT_SRC_CURVES_IMPL_H_
#define RDPKIT_ACCOUNTANT_SRC_CURVES_IMPL_H_

#include <cmath>
#include <limits>

#include "certify.h"
#include "rdpkit/accountant/event.h"
#include "real.h"

namespace rdpkit::accountant::internal {

// ρ(α) = α/(2σ²), α > 1, σ > 0. Mironov 2017, Prop. 7. Exact up to one rounding per operation.
// Dividing by σ twice keeps σ² out of the double range's edges: no denormal (inexact) σ² for
// σ ≈ 1e-160, no 0/0 or ∞ where the value itself is representable.
template <class Real>
Real GaussianRdp(const Real& alpha, double noise_multiplier) {
  const Real sigma(noise_multiplier);
  return alpha / (2 * sigma) / sigma;
}

// ρ(α) = α·D/(2σ²)·Σ_d r_d c_d², α > 1. S-BDT Thm 16 and Cor. 17. With every c_d = 1 (worst case)
// and Σ r_d = 1 this is α·D/(2σ²): D coordinates, each at its own sensitivity.
template <class Real>
Real LeafBalancedGaussianRdp(const Real& alpha, const LeafBalancedGaussianEvent& event) {
  const auto& r = event.weights();
  const auto& c = event.sensitivity_ratios();
  // Σ_d r_d (c_d/σ)²: each ratio is divided by σ before squaring, so tiny c_d with tiny σ stays
  // finite (no 0·∞) and no σ² leaves the double range.
  const Real sigma(event.noise_multiplier());
  Real sum(0);
  for (std::size_t d = 0; d < r.size(); ++d) {
    const Real scaled = Real(c.empty() ? 1.0 : c[d]) / sigma;
    sum += Real(r[d]) * scaled * scaled;
  }
  return alpha * static_cast<double>(r.size()) * sum / 2;
}

// ρ(α) = 1/(α−1)·log(α/(2α−1)·e^{(α−1)/b} + (α−1)/(2α−1)·e^{−α/b}),  α > 1, b > 0.
// Mironov 2017, Prop. 6 (S-BDT Thm 18). Factoring out α/(2α−1)·e^{(α−1)/b} and writing
// u = (α−1)/α gives ρ = 1/b + [log1p(u·e^{−(2α−1)/b}) − log1p(u)]/(α−1): no overflow for any
// α ≤ 1e5 and b > 0, and no 0/0 as α → 1 (both log1p terms are O(u)).
template <class Real>
Real LaplaceRdp(const Real& alpha, double noise_multiplier) {
  using std::exp;
  using std::log1p;
  const Real b(noise_multiplier);
  const Real am1 = alpha - 1;
  const Real u = am1 / alpha;
  return 1 / b + (log1p(u * exp(-(2 * alpha - 1) / b)) - log1p(u)) / am1;
}

// Fast path of the Laplace curve. The two log1p terms cancel against 1/b for large b (ρ ≈ α/(2b²)
// while the terms are O(1/b)); there the same value comes from a form without cancellation:
// e^{(α−1)ρ} − 1 = [α·E((α−1)/b) + (α−1)·E(−α/b)]/(2α−1), E(x) = e^x − 1 − x ≥ 0 (Mironov 2017,
// Prop. 6, whose linear terms cancel exactly; docs/math/small_epsilon.md), and the interval
// evaluation's upper end only where that is not finite. Laplace with scale b is (1/b)-DP, so
// ρ ≤ 1/b (rounded up) caps every value (Mironov 2017, Prop. 3 direction: D_α ≤ D_∞).
inline double LaplaceRdp(const double& alpha, double noise_multiplier) {
  const double b = noise_multiplier;
  const double am1 = alpha - 1;
  const double u = am1 / alpha;
  const double head = 1 / b;
  const double a = std::log1p(u * std::exp(-(2 * alpha - 1) / b));
  const double c = std::log1p(u);
  const double cap = std::nextafter(head, std::numeric_limits<double>::infinity());
  double rho = head + (a - c) / am1;
  if (!DoubleIsAccurate(rho, head + (std::abs(a) + c) / am1)) {
    const double excess =
        (alpha * Expm1MinusX(am1 / b) + am1 * Expm1MinusX(-alpha / b)) / (2 * alpha - 1);
    rho = std::log1p(excess) / am1;
    if (!std::isfinite(rho)) {
      rho = UpperByIntervals([&](auto zero) { return LaplaceRdp(decltype(zero)(alpha), b); });
    }
  }
  return std::isnan(rho) ? cap : std::min(rho, cap);
}

// ε-bounded range (exponential mechanism), Revisiting DP-XGBoost Thm 1:
//   ρ(α) = sup_{t∈[0,ε]} 1/(α−1)·[α(t−ε) + log((e^{αε}−1)p_t + 1)],
//   p_t = (e^{−t}−e^{−ε})/(1−e^{−ε}).
// Dividing the log's argument by e^{αε} gives the overflow-free form (its App. A.1)
//   (α−1)·f(t) = α t + log(p_t + (1−p_t)·e^{−αε}),
// with p_t = e^{−t}·expm1(t−ε)/expm1(−ε) and 1−p_t = expm1(−t)/expm1(−ε). f is concave in t
// (the log term is log(a e^{−t} + b) with a > 0 > b), so the supremum is at the stationary point
//   t* = log((α−1)/α) + log(e^{αε}−1) − log(e^{(α−1)ε}−1)
// clamped to [0, ε]; docs/math/bounded_range.md has the derivation. For an interval Real, t* is an
// enclosure and f(t*) encloses f at the true maximiser, i.e. the supremum.
template <class Real>
Real BoundedRangeObjective(const Real& alpha, const Real& eps, const Real& t) {
  using std::exp;
  using std::expm1;
  using std::log;
  const Real denom = expm1(-eps);
  const Real p = exp(-t) * expm1(t - eps) / denom;
  const Real one_minus_p = expm1(-t) / denom;
  return (alpha * t + log(p + one_minus_p * exp(-alpha * eps))) / (alpha - 1);
}

template <class Real>
Real ExponentialRdp(const Real& alpha, double epsilon) {
  using std::log;
  using std::log1p;
  const Real eps(epsilon);
  const Real am1 = alpha - 1;
  Real t_star = log1p(-1 / alpha) + LogExpm1(alpha * eps) - LogExpm1(am1 * eps);
  t_star = Clamp(t_star, Real(0), eps);
  return BoundedRangeObjective(alpha, eps, t_star);
}

// (α−1)ρ of the bounded-range curve for α ≥ kSmallEpsilonMinOrder and αε ≤ kSmallEpsilonMaxProduct,
// without the cancellation of the log-space form (docs/math/small_epsilon.md, "Bounded range").
// With A(x) = 1 − e^{−x}, B(x) = x − A(x) = E(−x) ≥ 0 and h(x) = expm1(x)/x:
//   t* = log(h(αε)/h((α−1)ε)),  h(αε) − h((α−1)ε) = ε·Σ_{k≥1} P_k/(k+1)!,  P_k = Σ_i a^i b^{k−1−i};
//   (α−1)ρ = [t*·D + B(t*)·A(αε)]/A(ε) − G(y),  D = B(αε) − α·B(ε) = Σ_{k≥2} (−1)^k (a^k −
//   αε^k)/k!, y = A(t*)·A(αε)/A(ε),  G(y) = −log(1 − y) − y = Σ_{k≥2} y^k/k;
// every series has positive (or alternating, decreasing) terms, with a = αε, b = (α−1)ε.
inline constexpr double kSmallEpsilonMinOrder = 1.001;
inline constexpr double kSmallEpsilonMaxProduct = 0.125;  // αε at most
inline double BoundedRangeSmallEpsilon(double alpha, double epsilon) {
  const double a = alpha * epsilon;
  const double b = (alpha - 1) * epsilon;
  double h_diff = 0;  // Σ_{k≥1} P_k/(k+1)!
  double p_k = 1;     // P_1
  double b_pow = 1;   // b^{k−1}
  double factorial = 2;
  for (int k = 1; k <= 24; ++k) {
    h_diff += p_k / factorial;
    b_pow *= b;
    p_k = a * p_k + b_pow;  // P_{k+1} = a·P_k + b^k
    factorial *= k + 2;
  }
  const double h_b = std::expm1(b) / b;
  const double t = Clamp(std::log1p(epsilon * h_diff / h_b), 0.0, epsilon);
  double d = 0;  // B(αε) − α·B(ε)
  double a_pow = a;
  double e_pow = epsilon;
  double k_factorial = 1;
  for (int k = 2; k <= 24; ++k) {
    a_pow *= a;
    e_pow *= epsilon;
    k_factorial *= k;
    d += (k % 2 == 0 ? 1 : -1) * (a_pow - alpha * e_pow) / k_factorial;
  }
  const double a_alpha = -std::expm1(-a);
  const double a_eps = -std::expm1(-epsilon);
  const double y = -std::expm1(-t) * a_alpha / a_eps;
  double g = 0;  // G(y)
  double y_pow = y;
  for (int k = 2; k <= 40; ++k) {
    y_pow *= y;
    g += y_pow / k;
  }
  return (t * d + Expm1MinusX(-t) * a_alpha) / a_eps - g;
}

// Fast path of the bounded-range curve, all in log space: p_t itself underflows for ε ≳ 745
// (p_{t*} ≈ e^{−ε}/α), which made the plain double objective −∞. With d = t* − ε,
//   log p_t = −t + log(−expm1(d)) − log(−expm1(−ε)),  log(1−p_t) = log(−expm1(−t)) −
//   log(−expm1(−ε)), (α−1)ρ = α t + log(e^{log p_t} + e^{log(1−p_t) − αε})   (log-sum-exp),
// and for (α−1)ε ≥ 1, d = log1p(−1/α) + log1p(−e^{−αε}) − log1p(−e^{−(α−1)ε}) (the ε terms of
// the two LogExpm1 cancel exactly), so t* keeps its digits next to a large ε. Near α = 1 the two
// terms of (α−1)ρ cancel; past kMaxCancellation BoundedRangeSmallEpsilon gives the value where it
// applies, the interval evaluation's upper end elsewhere. The mechanism is ε-DP, so ρ ≤ ε caps
// every value (and answers where nothing else is finite).
inline double ExponentialRdp(const double& alpha, double epsilon) {
  const double am1 = alpha - 1;
  double d = 0;
  if (am1 * epsilon >= 1) {
    d = std::log1p(-1 / alpha) + std::log1p(-std::exp(-alpha * epsilon)) -
        std::log1p(-std::exp(-am1 * epsilon));
  } else {
    d = std::log1p(-1 / alpha) + LogExpm1(alpha * epsilon) - LogExpm1(am1 * epsilon) - epsilon;
  }
  d = Clamp(d, -epsilon, 0.0);
  const double t = epsilon + d;
  const double log_denom = std::log(-std::expm1(-epsilon));
  const double log_p = -t + std::log(-std::expm1(d)) - log_denom;
  const double log_1mp = std::log(-std::expm1(-t)) - log_denom;
  const double log_mix = LogAddExp(log_p, log_1mp - alpha * epsilon);
  double rho = (alpha * t + log_mix) / am1;
  // Every term that enters (α−1)ρ, including those of log p_t and log(1−p_t): for small ε they
  // are O(log ε) while (α−1)ρ is O(αε²), and the guard must see that cancellation.
  const double magnitude = alpha * t + t + std::abs(std::log(-std::expm1(d))) +
                           2 * std::abs(log_denom) + std::abs(std::log(-std::expm1(-t))) +
                           std::min(alpha * epsilon, std::abs(log_mix));
  if (!DoubleIsAccurate(rho, magnitude / am1)) {
    rho = alpha >= kSmallEpsilonMinOrder && alpha * epsilon <= kSmallEpsilonMaxProduct
              ? BoundedRangeSmallEpsilon(alpha, epsilon) / am1
              : std::numeric_limits<double>::quiet_NaN();
    if (!(std::isfinite(rho) && rho >= 0)) {
      rho = UpperByIntervals(
          [&](auto zero) { return ExponentialRdp(decltype(zero)(alpha), epsilon); });
    }
  }
  return std::isnan(rho) ? epsilon : std::min(rho, epsilon);
}

// Generic ε-DP mechanism: ρ(α) = 1/(α−1)·log((e^{αε} + e^{−(α−1)ε})/(1+e^{ε})), the RDP of
// randomized response, which bounds every ε-DP mechanism (Bun–Steinke 2016, proof of Prop. 3.3:
// (sinh(αε) − sinh((α−1)ε))/sinh(ε) is the same quantity). Written as
// ρ = ε + [log1p(e^{−(2α−1)ε}) − log1p(e^{−ε})]/(α−1) so nothing overflows.
template <class Real>
Real PureDpRdp(const Real& alpha, double epsilon) {
  using std::exp;
  using std::log1p;
  const Real eps(epsilon);
  return eps + (log1p(exp(-(2 * alpha - 1) * eps)) - log1p(exp(-eps))) / (alpha - 1);
}

// Fast path of the pure-DP curve: for small ε the log1p terms (≈ log 2 each) cancel against ε
// (ρ ≈ αε²/2); there the same value comes from a form without cancellation,
// e^{(α−1)ρ} − 1 = 2·sinh(αε/2)·sinh((α−1)ε/2)/cosh(ε/2) (the quotient above is
// cosh((2α−1)ε/2)/cosh(ε/2); docs/math/small_epsilon.md), and the interval evaluation's upper end
// only where that is not finite. ρ ≤ ε caps it.
inline double PureDpRdp(const double& alpha, double epsilon) {
  if (epsilon == 0) return 0;
  const double am1 = alpha - 1;
  const double a = std::log1p(std::exp(-(2 * alpha - 1) * epsilon));
  const double c = std::log1p(std::exp(-epsilon));
  double rho = epsilon + (a - c) / am1;
  if (!DoubleIsAccurate(rho, epsilon + (a + c) / am1)) {
    const double excess =
        2 * std::sinh(alpha * epsilon / 2) * std::sinh(am1 * epsilon / 2) / std::cosh(epsilon / 2);
    rho = std::log1p(excess) / am1;
    if (!std::isfinite(rho)) {
      rho = UpperByIntervals([&](auto zero) { return PureDpRdp(decltype(zero)(alpha), epsilon); });
    }
  }
  return std::isnan(rho) ? epsilon : std::min(rho, epsilon);
}

// ρ-zCDP: ρ(α) = ρα. Bun–Steinke 2016, Def. 1.1.
template <class Real>
Real ZcdpRdp(const Real& alpha, double rho) {
  return Real(rho) * alpha;
}

// Poisson-subsampled curves (subsampled.cc).
template <class Real>
Real PoissonSampledRdp(const PoissonSampledEvent& event, const Real& alpha);

// Dispatch over the event tree. Composition adds curves (Mironov 2017, Prop. 1).
template <class Real>
Real Rdp(const Event& event, const Real& alpha) {
  return std::visit(
      [&](const auto& e) -> Real {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          return GaussianRdp(alpha, e.noise_multiplier());
        } else if constexpr (std::is_same_v<T, LeafBalancedGaussianEvent>) {
          return LeafBalancedGaussianRdp(alpha, e);
        } else if constexpr (std::is_same_v<T, LaplaceEvent>) {
          return LaplaceRdp(alpha, e.noise_multiplier());
        } else if constexpr (std::is_same_v<T, ExponentialEvent>) {
          return ExponentialRdp(alpha, e.epsilon());
        } else if constexpr (std::is_same_v<T, PureDpEvent>) {
          return PureDpRdp(alpha, e.epsilon());
        } else if constexpr (std::is_same_v<T, ZcdpEvent>) {
          return ZcdpRdp(alpha, e.rho());
        } else if constexpr (std::is_same_v<T, PoissonSampledEvent>) {
          return PoissonSampledRdp(e, alpha);
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          if (e.count() == 0) return Real(0);
          return static_cast<double>(e.count()) * Rdp(e.event(), alpha);
        } else if constexpr (std::is_same_v<T, RenyiFilterEvent>) {
          // Feldman & Zrnic 2021, Thm 4.5: (order, budget)-RDP; no claim at other orders.
          if (LowerDouble(alpha) == e.order() && UpperDouble(alpha) == e.order()) {
            return Real(e.budget());
          }
          return Real(std::numeric_limits<double>::infinity());
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          Real sum(0);
          for (const Event& inner : e.events()) sum += Rdp(inner, alpha);
          return sum;
        } else {
          static_assert(kAlwaysFalse<T>, "unhandled event kind");
        }
      },
      event.variant());
}

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_CURVES_IMPL_H_
