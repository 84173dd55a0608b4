#include "rdpkit/accountant/convert.h"

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <limits>
#include <optional>
#include <system_error>

#include "certify.h"
#include "conversion_impl.h"
#include "curves_impl.h"
#include "pure_dp.h"
#include "rdpkit/accountant/analytic_gaussian.h"
#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/pld.h"
#include "real.h"

namespace rdpkit::accountant {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Golden-section refinement stops when the order bracket is this narrow (relative in α − 1);
// ε is flat at its minimum, so the ε error is far below the 1e-6 target.
constexpr double kOrderTolerance = 1e-9;
constexpr int kMaxRefineSteps = 200;
// A value reported by the fast (double) path is raised by this relative margin on each of its
// terms, which covers the curves' double rounding (≤ ~1e-10 relative: kMaxCancellation in real.h,
// the subsampled series' 1e-10 target, lgamma at m ≤ 1e5): a fast ε or δ may be less tight than
// the certified one, never smaller than the truth.
constexpr double kFastMargin = 1e-8;
// The certified value at the order chosen on the fast path may exceed the fast value there by
// this much (relative) before the order is chosen again on the certified path: a larger gap means
// the fast curve misjudged this event, and its order choice cannot be trusted.
constexpr double kOrderCheckTolerance = 1e-6;

struct Candidate {
  double order = 0;
  double value = kInf;  // ε (or log δ) at order, fast path
};

// Objective at one order on the fast path: ε for Epsilon, log δ for Delta. NaN counts as +inf
// here only so that the scan can skip an order; the reported value is always recomputed on the
// certified path, which never returns NaN silently.
template <class Objective>
double SafeObjective(const Objective& objective, double order) {
  const double v = objective(order);
  return std::isnan(v) ? kInf : v;
}

// Golden-section search of a unimodal objective in x = log(α − 1) on [lo, hi]. Every curve is
// defined at every real order > 1 (subsampled ones through the exact sampled Gaussian or the
// convexity bound between integers), so the search is over continuous orders.
template <class Objective>
Candidate Refine(const Objective& objective, double lo, double hi, Candidate best) {
  auto consider = [&](double order) {
    const double v = SafeObjective(objective, order);
    if (v < best.value) best = Candidate{order, v};
    return v;
  };
  const double kInvPhi = (std::sqrt(5.0) - 1) / 2;
  double x0 = std::log(lo - 1);
  double x3 = std::log(hi - 1);
  double x1 = x3 - kInvPhi * (x3 - x0);
  double x2 = x0 + kInvPhi * (x3 - x0);
  double f1 = consider(1 + std::exp(x1));
  double f2 = consider(1 + std::exp(x2));
  for (int step = 0; step < kMaxRefineSteps && (x3 - x0) > kOrderTolerance; ++step) {
    if (f1 <= f2) {
      x3 = x2;
      x2 = x1;
      f2 = f1;
      x1 = x3 - kInvPhi * (x3 - x0);
      f1 = consider(1 + std::exp(x1));
    } else {
      x0 = x1;
      x1 = x2;
      f1 = f2;
      x2 = x0 + kInvPhi * (x3 - x0);
      f2 = consider(1 + std::exp(x2));
    }
  }
  return best;
}

// Minimises objective over the options' orders (default grid + refinement when none are given).
template <class Objective>
Candidate Minimise(const Event& event, const ConversionOptions& options,
                   const Objective& objective) {
  const bool user_orders = !options.orders.empty();
  // A renyi_filter's curve is finite at its order only: those orders are the whole search.
  const std::vector<double> filter_orders =
      user_orders ? std::vector<double>{} : FilterOrders(event);
  if (!filter_orders.empty()) {
    Candidate best;
    for (const double order : filter_orders) {
      const double v = SafeObjective(objective, order);
      if (v < best.value || best.order == 0) best = Candidate{order, v};
    }
    return best;
  }
  const std::vector<double>& grid = user_orders ? options.orders : DefaultOrders();
  Candidate best;
  std::size_t best_index = 0;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const double v = SafeObjective(objective, grid[i]);
    if (v < best.value || best.order == 0) {
      best = Candidate{grid[i], v};
      best_index = i;
    }
  }
  if (user_orders || !std::isfinite(best.value)) return best;
  const double lo = best_index > 0 ? grid[best_index - 1] : 1 + (grid[0] - 1) / 10;
  const double hi = best_index + 1 < grid.size() ? grid[best_index + 1] : kMaxOrder;
  return Refine(objective, lo, std::min(hi, kMaxOrder), best);
}

template <class I>
bool Narrow(const I& x) {
  return internal::WithinRelativeWidth(internal::LowerDouble(x), internal::UpperDouble(x),
                                       internal::kRetryRelativeWidth);
}

template <class I>
internal::PerConversion<I> EpsilonEnclosure(const Event& event, double order, double delta) {
  using std::log;
  const I alpha(order);
  return internal::EpsilonConversions(alpha, internal::Rdp(event, alpha), I(log(I(delta))));
}

template <class I>
internal::PerConversion<I> LogDeltaEnclosure(const Event& event, double order, double epsilon) {
  const I alpha(order);
  return internal::LogDeltaConversions(alpha, internal::Rdp(event, alpha), I(epsilon));
}

// Evaluates at 133 bits, retries at 332 bits when an enclosure is wider than kRetryRelativeWidth
// (certify.h; cancellation), and returns the smaller upper ends: each is a guaranteed upper bound.
template <template <class> class Enclosure>
internal::PerConversion<double> UpperEnds(const Event& event, double order, double arg) {
  auto narrow = Enclosure<internal::Interval>::Get(event, order, arg);
  internal::PerConversion<double> out{internal::UpperDouble(narrow.mironov),
                                      internal::UpperDouble(narrow.balle)};
  if (!Narrow(narrow.mironov) || !Narrow(narrow.balle)) {
    auto wide = Enclosure<internal::WideInterval>::Get(event, order, arg);
    out = {std::min(out.mironov, internal::UpperDouble(wide.mironov)),
           std::min(out.balle, internal::UpperDouble(wide.balle))};
  }
  if (std::isnan(out.mironov) || std::isnan(out.balle)) {
    throw NumericalError("certified conversion at order " + FormatNumber(order) +
                         " produced no enclosure (NaN)");
  }
  return out;
}

template <class I>
struct EpsilonAt {
  static internal::PerConversion<I> Get(const Event& e, double order, double delta) {
    return EpsilonEnclosure<I>(e, order, delta);
  }
};
template <class I>
struct LogDeltaAt {
  static internal::PerConversion<I> Get(const Event& e, double order, double epsilon) {
    return LogDeltaEnclosure<I>(e, order, epsilon);
  }
};

// Certified value of a conversion at one order, +inf where the certified evaluation fails (an
// order is then simply not chosen).
double CertifiedEpsilonAt(const Event& event, double order, double delta) {
  try {
    const auto cert = internal::CertifiedEpsilon(event, order, delta);
    return std::min(cert.mironov, cert.balle);
  } catch (const NumericalError&) {
    return kInf;
  }
}
double CertifiedLogDeltaAt(const Event& event, double order, double epsilon) {
  try {
    const auto cert = internal::CertifiedLogDelta(event, order, epsilon);
    return std::min(cert.mironov, cert.balle);
  } catch (const NumericalError&) {
    return kInf;
  }
}

// True when the certified value at the fast path's order agrees with the fast value there.
bool FastOrderTrusted(double fast_value, double certified_value) {
  if (!(certified_value > -kInf)) return true;
  if (std::isnan(fast_value)) return false;
  return certified_value <=
         fast_value + kOrderCheckTolerance * std::max(std::abs(certified_value), 1.0);
}

// The fast ε at one order raised by kFastMargin on every term of the conversion (see above).
double FastEpsilonUpper(double order, double rho, double log_delta) {
  const auto both = internal::EpsilonConversions(order, rho, log_delta);
  const double am1 = order - 1;
  const double terms = std::abs(rho) + std::abs(log_delta) / am1 +
                       std::abs(std::log1p(-1 / order)) + std::log(order) / am1;
  const double value = std::min(both.mironov, both.balle) + kFastMargin * terms;
  return std::nextafter(value, kInf);
}

// The fast log δ at one order raised the same way (its terms are multiplied by α − 1).
double FastLogDeltaUpper(double order, double rho, double epsilon) {
  const auto both = internal::LogDeltaConversions(order, rho, epsilon);
  const double am1 = order - 1;
  const double terms =
      am1 * (std::abs(rho) + epsilon + std::abs(std::log1p(-1 / order))) + std::log(order);
  const double value = std::min(both.mironov, both.balle) + kFastMargin * terms;
  return std::nextafter(value, kInf);
}

// e^x rounded toward +inf (MPFR), so exp of a certified upper end stays an upper bound.
double ExpRoundedUp(double x) {
  mpfr_t y;
  mpfr_init2(y, 64);
  mpfr_set_d(y, x, MPFR_RNDU);
  mpfr_exp(y, y, MPFR_RNDU);
  const double out = mpfr_get_d(y, MPFR_RNDU);
  mpfr_clear(y);
  return out;
}

}  // namespace

namespace internal {
PerConversion<double> CertifiedEpsilon(const Event& event, double order, double delta) {
  return UpperEnds<EpsilonAt>(event, order, delta);
}
PerConversion<double> CertifiedLogDelta(const Event& event, double order, double epsilon) {
  return UpperEnds<LogDeltaAt>(event, order, epsilon);
}
}  // namespace internal

std::string ConversionName(Conversion conversion) {
  return conversion == Conversion::kMironov ? "mironov2017" : "balle2020";
}

void ConversionOptions::Validate() const {
  Require(pld_log2_points >= 10 && pld_log2_points <= 20, "pld_log2_points", pld_log2_points,
          "[10, 20]");
  for (std::size_t i = 0; i < orders.size(); ++i) {
    Require(std::isfinite(orders[i]) && orders[i] > 1, "orders[" + std::to_string(i) + "]",
            orders[i], "(1, inf)");
  }
}

double EpsilonFromRdp(double order, double rdp, double delta) noexcept {
  const auto both = internal::EpsilonConversions(order, rdp, std::log(delta));
  return std::max(0.0, std::min(both.mironov, both.balle));
}

namespace {

EpsilonResult RdpEpsilon(const Event& event, double delta, const ConversionOptions& options) {
  const double log_delta = std::log(delta);
  Candidate best = Minimise(event, options, [&](double order) {
    const auto both = internal::EpsilonConversions(order, internal::Rdp(event, order), log_delta);
    return std::min(both.mironov, both.balle);
  });
  if (options.certified &&
      !FastOrderTrusted(best.value, CertifiedEpsilonAt(event, best.order, delta))) {
    best = Minimise(event, options,
                    [&](double order) { return CertifiedEpsilonAt(event, order, delta); });
  }
  EpsilonResult result{kInf, delta, best.order, Conversion::kBalle, options.certified};
  if (options.certified) {
    const auto cert = internal::CertifiedEpsilon(event, best.order, delta);
    result.epsilon = std::min(cert.mironov, cert.balle);
    result.conversion = cert.balle <= cert.mironov ? Conversion::kBalle : Conversion::kMironov;
  } else {
    const double rho = internal::Rdp(event, best.order);
    const auto both = internal::EpsilonConversions(best.order, rho, log_delta);
    result.epsilon = FastEpsilonUpper(best.order, rho, log_delta);
    result.conversion = both.balle <= both.mironov ? Conversion::kBalle : Conversion::kMironov;
  }
  // A negative bound means (0, δ)-DP as well; report 0, never a negative ε.
  result.epsilon = std::max(0.0, result.epsilon);
  // Order ∞: the curve there is the pure ε, and either conversion gives ε = ρ(∞) at any δ.
  if (options.orders.empty()) {
    const double pure = internal::PureEpsilonUpper(event);
    if (pure < result.epsilon) {
      result.epsilon = pure;
      result.order = kInf;
      result.conversion = Conversion::kMironov;
    }
  }
  return result;
}

DeltaResult RdpDelta(const Event& event, double epsilon, const ConversionOptions& options) {
  Candidate best = Minimise(event, options, [&](double order) {
    const auto both = internal::LogDeltaConversions(order, internal::Rdp(event, order), epsilon);
    return std::min(both.mironov, both.balle);
  });
  if (options.certified &&
      !FastOrderTrusted(best.value, CertifiedLogDeltaAt(event, best.order, epsilon))) {
    best = Minimise(event, options,
                    [&](double order) { return CertifiedLogDeltaAt(event, order, epsilon); });
  }
  DeltaResult result{1.0, epsilon, best.order, Conversion::kBalle, options.certified};
  double log_delta = 0;
  if (options.certified) {
    const auto cert = internal::CertifiedLogDelta(event, best.order, epsilon);
    result.conversion = cert.balle <= cert.mironov ? Conversion::kBalle : Conversion::kMironov;
    log_delta = std::min(cert.mironov, cert.balle);
  } else {
    const double rho = internal::Rdp(event, best.order);
    const auto both = internal::LogDeltaConversions(best.order, rho, epsilon);
    result.conversion = both.balle <= both.mironov ? Conversion::kBalle : Conversion::kMironov;
    log_delta = FastLogDeltaUpper(best.order, rho, epsilon);
  }
  // Rounded up on both paths (MPFR on the certified one, one ulp on the fast one).
  const double delta =
      options.certified ? ExpRoundedUp(log_delta) : std::nextafter(std::exp(log_delta), kInf);
  result.delta = std::min(1.0, delta);
  // Order ∞: an event that is ε₀-DP with ε₀ ≤ ε is (ε, 0)-DP.
  if (options.orders.empty() && result.delta > 0 && internal::PureEpsilonUpper(event) <= epsilon) {
    result.delta = 0;
    result.order = kInf;
    result.conversion = Conversion::kMironov;
  }
  return result;
}

// μ of the event when options allow the exact Gaussian accountant and the event is a Gaussian
// composition; nullopt when another accountant answers. kGaussian on another event is bad input.
std::optional<double> ExactGaussianMu(const Event& event, const ConversionOptions& options) {
  if (options.accountant == Accountant::kRdp || options.accountant == Accountant::kPld) {
    return std::nullopt;
  }
  const std::optional<Bound> mu = GaussianCompositionMu(event);
  if (!mu && options.accountant == Accountant::kGaussian) {
    throw InvalidArgument("accountant", "\"gaussian\"",
                          "events made only of gaussian and leaf_balanced_gaussian (composed, "
                          "self_composed); use \"rdp\" or \"best\" for this event");
  }
  // μ beyond the doubles (e.g. 1e300 Gaussians of σ = 1e-10): RDP answers (with ε = +∞).
  if (!mu || !std::isfinite(mu->upper)) return std::nullopt;
  // δ_μ(ε) grows with μ: the upper end is the safe side (+ 0.0: the enclosure of an empty
  // composition's μ = 0 may end at −0, reported as 0).
  return mu->upper + 0.0;
}

PldOptions PldOptionsFor(const ConversionOptions& options) {
  if (!options.certified) return kPldProbeOptions;
  return PldOptions{options.pld_log2_points, std::max(options.pld_log2_points, 20)};
}

// The answer of options.accountant for a value (ε or δ) at `argument` (δ or ε):
//  - the exact Gaussian accountant where it applies (kGaussian, or kBest: the smaller of it and
//    RDP; PLD is skipped there, it is never below the exact value);
//  - else PLD where it applies (kPld, or kBest: the smaller of it and RDP); a PLD that cannot
//    answer (its grid would exceed its memory cap) gives way to RDP, with a note under kPld;
//  - else RDP. Every candidate is an upper bound of the true value.
template <class Result, class Exact, class Pld, class Rdp>
Result SmallestOfAccountants(const Event& event, const ConversionOptions& options, double argument,
                             double Result::*value, const Exact& exact_value, const Pld& pld_value,
                             const Rdp& rdp_result) {
  const std::optional<double> mu = ExactGaussianMu(event, options);
  if (mu) {
    Result exact{0, argument, 0, Conversion::kBalle, true, Accountant::kGaussian, *mu};
    try {
      exact.*value = exact_value(*mu);
    } catch (const NumericalError&) {
      if (options.accountant == Accountant::kGaussian) throw;
      return rdp_result();
    }
    if (options.accountant == Accountant::kGaussian) return exact;
    const Result rdp = rdp_result();
    return exact.*value <= rdp.*value ? exact : rdp;
  }
  const bool want_pld = options.accountant == Accountant::kPld ||
                        (options.accountant == Accountant::kBest && PldSupports(event));
  if (!want_pld) return rdp_result();
  // Under kBest RDP is needed too: it runs on a second thread while PLD runs (the query then takes
  // about PLD's time alone); where no thread can be had, it runs after PLD.
  std::future<Result> rdp_later;
  if (options.accountant == Accountant::kBest) {
    try {
      rdp_later = std::async(std::launch::async, [&rdp_result] {
        // MPFR's caches of constants are per thread: freed before this one ends.
        struct FreeThreadCaches {
          ~FreeThreadCaches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }
        } free_caches;
        return rdp_result();
      });
    } catch (const std::system_error&) {
      rdp_later = std::async(std::launch::deferred, rdp_result);
    }
  }
  Result pld{0, argument, 0, Conversion::kBalle, true, Accountant::kPld, 0};
  try {
    pld.*value = pld_value(PldOptionsFor(options));  // kPld on another event throws here
  } catch (const NumericalError& error) {
    if (rdp_later.valid()) return rdp_later.get();
    Result rdp = rdp_result();
    rdp.note = std::string("pld could not answer (") + error.what() + "); answered by rdp";
    return rdp;
  }
  if (options.accountant == Accountant::kPld) return pld;
  const Result rdp = rdp_later.get();
  // A tie goes to RDP: it is where PLD was capped at the pure ε, which RDP's order ∞ explains.
  return pld.*value < rdp.*value ? pld : rdp;
}

}  // namespace

std::string AccountantName(Accountant accountant) {
  switch (accountant) {
    case Accountant::kBest:
      return "best";
    case Accountant::kRdp:
      return "rdp";
    case Accountant::kGaussian:
      return "gaussian";
    case Accountant::kPld:
      return "pld";
  }
  RDPKIT_CHECK(false);  // a value outside the enumeration
  return "";
}

Accountant AccountantFromName(const std::string& name) {
  for (Accountant a :
       {Accountant::kBest, Accountant::kRdp, Accountant::kGaussian, Accountant::kPld}) {
    if (AccountantName(a) == name) return a;
  }
  throw InvalidArgument("accountant", "\"" + name + "\"", "{best, rdp, gaussian, pld}");
}

EpsilonResult Epsilon(const Event& event, double delta, const ConversionOptions& options) {
  Require(delta > 0 && delta < 1, "delta", delta, "(0, 1)");
  options.Validate();
  return SmallestOfAccountants<EpsilonResult>(
      event, options, delta, &EpsilonResult::epsilon,
      [&](double mu) { return AnalyticGaussianEpsilon(mu, delta); },
      // The privacy loss never exceeds the event's pure ε (its PLD's support ends there), however
      // the grid discretises it (docs/math/pure_dp_order.md).
      [&](const PldOptions& pld) {
        return std::min(PldEpsilon(event, delta, pld), internal::PureEpsilonUpper(event));
      },
      [&] { return RdpEpsilon(event, delta, options); });
}

DeltaResult Delta(const Event& event, double epsilon, const ConversionOptions& options) {
  Require(std::isfinite(epsilon) && epsilon >= 0, "epsilon", epsilon, "[0, inf)");
  options.Validate();
  return SmallestOfAccountants<DeltaResult>(
      event, options, epsilon, &DeltaResult::delta,
      [&](double mu) { return AnalyticGaussianDelta(mu, epsilon); },
      [&](const PldOptions& pld) {
        return internal::PureEpsilonUpper(event) <= epsilon ? 0.0 : PldDelta(event, epsilon, pld);
      },
      [&] { return RdpDelta(event, epsilon, options); });
}

}  // namespace rdpkit::accountant
