// Exact ε(δ) and δ(ε) of Gaussian compositions (Balle & Wang 2018 Thm 8); the bounds and their
// rounding are derived in docs/math/analytic_gaussian.md.
#include "rdpkit/accountant/analytic_gaussian.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <variant>

#include "certify.h"
#include "enclosures.h"
#include "rdpkit/accountant/errors.h"
#include "real.h"

namespace rdpkit::accountant {
namespace {

using internal::Interval;
using internal::WideInterval;

constexpr double kInf = std::numeric_limits<double>::infinity();
// The returned ε is within this relative distance of the smallest certified one.
constexpr double kEpsilonRelativeTolerance = 1e-12;
constexpr int kMaxBisections = 200;
constexpr int kMaxHalvings = 2100;  // the whole double range

// μ² of a Gaussian-type event, enclosed in `out`; false when the event is not Gaussian-type.
// Gaussian: 1/σ²; leaf-balanced: D·Σ_d r_d c_d²/σ² (S-BDT Thm 16); composition adds μ²
// (Dong, Roth & Su 2022, Cor. 3.3).
template <class I>
bool MuSquared(const Event& event, I& out) {
  return std::visit(
      [&out](const auto& e) -> bool {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          const I sigma(e.noise_multiplier());
          out = 1 / (sigma * sigma);
          return true;
        } else if constexpr (std::is_same_v<T, LeafBalancedGaussianEvent>) {
          const std::vector<double>& weights = e.weights();
          const std::vector<double>& ratios = e.sensitivity_ratios();
          I sum(0);
          for (std::size_t d = 0; d < weights.size(); ++d) {
            const I c(ratios.empty() ? 1.0 : ratios[d]);
            sum += I(weights[d]) * c * c;
          }
          const I sigma(e.noise_multiplier());
          out = I(static_cast<double>(weights.size())) * sum / (sigma * sigma);
          return true;
        } else if constexpr (std::is_same_v<T, PoissonSampledEvent>) {
          // Sampling with probability 1 releases the base event on every record.
          return e.sampling_probability() == 1 && MuSquared(e.event(), out);
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          I inner;
          if (!MuSquared(e.event(), inner)) return false;
          out = I(static_cast<unsigned long long>(e.count())) * inner;
          return true;
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          I total(0);
          for (const Event& part : e.events()) {
            I x;
            if (!MuSquared(part, x)) return false;
            total += x;
          }
          out = total;
          return true;
        } else if constexpr (std::is_same_v<T, LaplaceEvent> ||
                             std::is_same_v<T, ExponentialEvent> ||
                             std::is_same_v<T, PureDpEvent> || std::is_same_v<T, ZcdpEvent> ||
                             std::is_same_v<T, RenyiFilterEvent>) {
          return false;
        } else {
          static_assert(kAlwaysFalse<T>, "unhandled event kind");
        }
      },
      event.variant());
}

// log Φ(x) = log(erfc(−x/√2)/2), finite for every x (LogErfc switches to its asymptotic bounds
// where erfc would underflow).
template <class Real>
Real LogPhi(const Real& x) {
  using std::log;
  using std::sqrt;
  return internal::LogErfc(Real(-x / sqrt(Real(2)))) - log(Real(2));
}

// δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2) (Balle & Wang 2018 Thm 8), both terms in log space
// so that neither e^ε nor a far tail of Φ leaves the exponent range; for an interval Real the
// result encloses the true value (its cancellation only widens the enclosure, which the ladder
// then narrows at 332 bits).
template <class Real>
Real DeltaOf(const Real& mu, const Real& epsilon) {
  using std::exp;
  const Real a = -epsilon / mu + mu / 2;
  const Real b = -epsilon / mu - mu / 2;
  return exp(LogPhi(a)) - exp(epsilon + LogPhi(b));
}

// Certified upper bound of δ_μ(ε) (rounds up: ≥ the true value).
double DeltaUpper(double mu, double epsilon) {
  const double upper = internal::UpperByIntervals(
      [&](const auto& zero) { return DeltaOf(decltype(zero)(mu), decltype(zero)(epsilon)); });
  if (std::isnan(upper)) {
    throw NumericalError("analytic Gaussian: no enclosure of delta at mu = " + FormatNumber(mu) +
                         ", epsilon = " + FormatNumber(epsilon));
  }
  return std::min(1.0, std::max(0.0, upper));
}

void RequireMu(double mu) { Require(std::isfinite(mu) && mu >= 0, "mu", mu, "[0, inf)"); }

}  // namespace

std::optional<Bound> GaussianCompositionMu(const Event& event) {
  Interval mu2;
  if (!MuSquared(event, mu2)) return std::nullopt;
  using std::sqrt;
  return internal::BoundOf(Interval(sqrt(mu2)));
}

double AnalyticGaussianDelta(double mu, double epsilon) {
  RequireMu(mu);
  Require(epsilon >= 0 && !std::isnan(epsilon), "epsilon", epsilon, "[0, inf]");
  // μ = 0: nothing released (an empty composition, a count of 0), so the two output
  // distributions are equal and δ_0(ε) = 0 (the formula's ε/μ is undefined there).
  if (std::isinf(epsilon) || mu == 0) return 0;
  return DeltaUpper(mu, epsilon);
}

double AnalyticGaussianEpsilon(double mu, double delta) {
  RequireMu(mu);
  Require(delta > 0 && delta < 1, "delta", delta, "(0, 1)");
  if (mu == 0 || DeltaUpper(mu, 0) <= delta) return 0;  // μ = 0: nothing released, as above
  // The double-precision solution first (δ_μ decreases in ε), then certified bisection from a
  // bracket around it. Only `hi` is ever returned, and only once δ_μ(hi) ≤ δ is certified.
  double lo = 0;
  // ε ≤ μ²/2 + μ·√(2 log(1/δ)) (the RDP bound of μ-GDP): a finite start unless μ is near 1e154,
  // where no double ε is safe and +∞ is the answer (a value, not an error).
  double hi = std::max(1.0, mu * mu / 2 + mu * std::sqrt(2 * std::log(1 / delta)));
  int steps = 0;
  while (std::isfinite(hi) && DeltaOf(mu, hi) > delta && steps++ < kMaxBisections) hi *= 2;
  if (!std::isfinite(hi)) return kInf;
  // Down to the answer's binade first (a tiny μ has a tiny ε), then bisect.
  for (int i = 0; i < kMaxHalvings && hi > 1e-300 && DeltaOf(mu, hi / 2) <= delta; ++i) hi /= 2;
  lo = hi / 2;
  for (int i = 0; i < kMaxBisections && hi - lo > kEpsilonRelativeTolerance * hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    (DeltaOf(mu, mid) <= delta ? hi : lo) = mid;
  }
  // Certified bracket around the double solution (whose δ may be off by the double evaluation's
  // cancellation): hi certified safe, lo not certifiably safe, each widened until it is so.
  lo = std::max(0.0, lo * (1 - 1e-9));
  hi = hi * (1 + 1e-9);
  for (double step = 1e-9; lo > 0 && DeltaUpper(mu, lo) <= delta; step *= 4) {
    hi = lo;
    lo = step < 0.25 ? lo * (1 - step) : 0;
  }
  for (steps = 0; DeltaUpper(mu, hi) > delta; ++steps) {
    if (steps >= kMaxBisections) {
      throw NumericalError("analytic Gaussian: no certified epsilon for mu = " + FormatNumber(mu) +
                           ", delta = " + FormatNumber(delta));
    }
    lo = hi;
    hi = hi * 2 + 1e-300;
    if (!std::isfinite(hi)) return kInf;
  }
  for (int i = 0; i < kMaxBisections && hi - lo > kEpsilonRelativeTolerance * hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    (DeltaUpper(mu, mid) <= delta ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace rdpkit::accountant
