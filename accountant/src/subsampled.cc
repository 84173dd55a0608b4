// Poisson-subsampled RDP curves: which bound applies to which base event, and the public entry
// points. The bounds live in zhu_wang.cc (integer orders, convexity between them) and
// sampled_gaussian.cc (fractional orders of a Gaussian base); docs/math/subsampling.md has the
// derivations, the truncation bounds and the argument for each rounding side.
#include "subsampled.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "certify.h"
#include "curves_impl.h"
#include "enclosures.h"
#include "rdpkit/accountant/errors.h"
#include "real.h"
#include "sampled_gaussian.h"
#include "zhu_wang.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// Classification of the base event.

// True when the base is a Gaussian-type mechanism whose curve is c·α (Gaussian, leaf-balanced
// Gaussian and their compositions); adds c to `c`. gaussian stays true only if every part is a
// Gaussian mechanism (then the subsampled mechanism is exactly a sampled one-dimensional Gaussian
// with σ² = 1/(2c), §1).
template <class Real>
bool LinearCoefficient(const Event& event, Real& c, bool& gaussian) {
  return std::visit(
      [&](const auto& e) -> bool {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          c += GaussianRdp(Real(1), e.noise_multiplier());
          return true;
        } else if constexpr (std::is_same_v<T, LeafBalancedGaussianEvent>) {
          c += LeafBalancedGaussianRdp(Real(1), e);
          return true;
        } else if constexpr (std::is_same_v<T, ZcdpEvent>) {
          // A ρ-zCDP event is only *bounded* by ρα: it may be randomized response or a Laplace
          // mechanism in disguise, whose Pearson–Vajda pseudo-divergences can be negative, so the
          // tight bound (S-BDT Lem. 15 needs the pair's curve to equal α·t) is not proven for it.
          // It takes the general Zhu–Wang bound (Thm 5), which holds for every mechanism.
          (void)gaussian;
          return false;
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          if (e.count() == 0) return true;
          Real inner(0);
          if (!LinearCoefficient(e.event(), inner, gaussian)) return false;
          c += static_cast<double>(e.count()) * inner;
          return true;
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          for (const Event& inner : e.events()) {
            if (!LinearCoefficient(inner, c, gaussian)) return false;
          }
          return true;
        } else if constexpr (std::is_same_v<T, LaplaceEvent> ||
                             std::is_same_v<T, ExponentialEvent> ||
                             std::is_same_v<T, PureDpEvent> ||
                             std::is_same_v<T, PoissonSampledEvent> ||
                             std::is_same_v<T, RenyiFilterEvent>) {
          return false;  // curve not of the form c·α
        } else {
          static_assert(kAlwaysFalse<T>, "unhandled event kind");
        }
      },
      event.variant());
}

// Amplification by Poisson sampling of an ε-DP mechanism: log(1 + q(e^ε − 1)) (Balle, Barthe,
// Gaboardi 2018, Thm 8; Li, Qardaji, Su 2012). In double, e^ε overflows for ε > 709: there
// log(1 + q(e^ε − 1)) = ε + log q + log1p(e^{log1p(−q) − log q − ε}), which does not.
template <class Real>
Real AmplifiedEpsilon(double q, const Real& eps) {
  using std::expm1;
  using std::log1p;
  if constexpr (!kIsInterval<Real>) {
    const double direct = std::log1p(q * std::expm1(eps));
    if (std::isfinite(direct) || q == 0) return direct;
    return eps + std::log(q) + std::log1p(std::exp(std::log1p(-q) - std::log(q) - eps));
  } else {
    return log1p(q * expm1(eps));
  }
}

// ε such that the base is ε-DP, when it is pure-DP (Laplace: 1/b; exponential: ε; pure_dp: ε;
// compositions add; a nested Poisson sample amplifies, AmplifiedEpsilon).
template <class Real>
bool PureEpsilon(const Event& event, Real& eps) {
  return std::visit(
      [&](const auto& e) -> bool {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, LaplaceEvent>) {
          eps += 1 / Real(e.noise_multiplier());
          return true;
        } else if constexpr (std::is_same_v<T, ExponentialEvent> ||
                             std::is_same_v<T, PureDpEvent>) {
          eps += Real(e.epsilon());
          return true;
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          if (e.count() == 0) return true;
          Real inner(0);
          if (!PureEpsilon(e.event(), inner)) return false;
          eps += static_cast<double>(e.count()) * inner;
          return true;
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          for (const Event& inner : e.events()) {
            if (!PureEpsilon(inner, eps)) return false;
          }
          return true;
        } else if constexpr (std::is_same_v<T, PoissonSampledEvent>) {
          Real inner(0);
          if (!PureEpsilon(e.event(), inner)) return false;
          eps += AmplifiedEpsilon(e.sampling_probability(), inner);
          return true;
        } else if constexpr (std::is_same_v<T, GaussianEvent> ||
                             std::is_same_v<T, LeafBalancedGaussianEvent> ||
                             std::is_same_v<T, ZcdpEvent> || std::is_same_v<T, RenyiFilterEvent>) {
          return false;  // no finite pure ε
        } else {
          static_assert(kAlwaysFalse<T>, "unhandled event kind");
        }
      },
      event.variant());
}

// RDP of any ε-DP mechanism (randomized response, Bun–Steinke 2016 Prop. 3.3; the same formula as
// PureDpRdp in curves_impl.h, here for an ε that is itself an enclosure).
// The double path goes through PureDpRdp's fast path, which guards the cancellation at small ε.
template <class Real>
Real RandomizedResponseRdp(const Real& alpha, const Real& eps) {
  using std::exp;
  using std::log1p;
  if constexpr (!kIsInterval<Real>) {
    if (!(eps >= 0)) return kInf;  // not a usable ε: no bound from this side
    return PureDpRdp(alpha, eps);
  } else {
    return eps + (log1p(exp(-(2 * alpha - 1) * eps)) - log1p(exp(-eps))) / (alpha - 1);
  }
}

// ---------------------------------------------------------------------------------------------

bool IsInteger(double order) { return std::floor(order) == order; }

// Orders above this are answered with +inf (a valid upper bound; every such order is an integer
// and its binomial sum would not fit the index type).
constexpr double kMaxFiniteOrder = 0x1p50;

}  // namespace

template <class Real>
Real SampledLinearRdp(double q, const Real& c, bool gaussian, double order) {
  if (q == 0 || UpperDouble(c) == 0) return Real(0);
  if (q == 1) return c * Real(order);
  if (order > kMaxFiniteOrder) return Real(kInf);
  if (IsInteger(order)) return TightInteger(q, c, static_cast<long>(order));
  const auto at_integer = [&](long m) { return TightInteger(q, c, m); };
  if (gaussian) {
    const FractionalFast fast = SgmFractionalFast(q, UpperDouble(c), order);
    if constexpr (!kIsInterval<Real>) {
      if (fast.status == SeriesStatus::kOk) return fast.rho;
      if (fast.status == SeriesStatus::kInaccurate) {
        // The double sum lost digits to cancellation: use the certified series instead, at 133
        // bits and at 332 bits when wider than kRetryRelativeWidth (the ladder of certify.h).
        Interval rho;
        if (SgmFractionalCertified(q, Interval(c), order, fast, &rho)) {
          if (RelativeWidth(rho) <= kRetryRelativeWidth) return UpperDouble(rho);
          WideInterval wide;
          if (SgmFractionalCertified(q, WideInterval(c), order, fast, &wide)) {
            return UpperDouble(wide);
          }
        }
      }
    } else {
      Real rho;
      if (SgmFractionalCertified(q, c, order, fast, &rho)) return rho;
    }
  }
  // Not a Gaussian base, or the series converges too slowly: convexity bound, and the base
  // curve itself (subsampling never increases the divergence).
  return Smaller(Interpolate<Real>(order, at_integer), c * Real(order));
}

namespace {

// q₁·q₂ rounded up (never below the exact product).
double MultiplyUp(double a, double b) {
  const double p = a * b;
  if (p == 0 && a != 0 && b != 0) return std::numeric_limits<double>::denorm_min();
  if (p < std::numeric_limits<double>::min()) return std::nextafter(p, 1.0);  // inexact fma
  return std::fma(a, b, -p) > 0 ? std::nextafter(p, 1.0) : p;
}

// A Poisson sample (rate q₁) of a Poisson sample (rate q₂) of a dataset holds each record
// independently with probability q₁q₂, so poisson_sampled(q₁, poisson_sampled(q₂, E)) is the same
// mechanism as poisson_sampled(q₁q₂, E) (same output distribution on every dataset; thinning of a
// Bernoulli process, e.g. Kallenberg, Foundations of Modern Probability, Ch. 12 (thinning)).
// The product is rounded up: every bound used here is non-decreasing in q (the Zhu–Wang sums are
// E[h_K] with K ~ Bin(m, q) and h non-decreasing; docs/math/subsampling.md §2). A composed list
// of one event and a self_composed count of 1 are the event itself and are looked through.
// Flattening makes directly nested sampling cost one level, not one level per nesting.
struct FlatSample {
  double q;
  const Event* base;
};
FlatSample Flatten(const PoissonSampledEvent& event) {
  FlatSample flat{event.sampling_probability(), &event.event()};
  for (;;) {
    if (const auto* inner = flat.base->get_if<PoissonSampledEvent>()) {
      flat.q = MultiplyUp(flat.q, inner->sampling_probability());
      flat.base = &inner->event();
    } else if (const auto* self = flat.base->get_if<SelfComposedEvent>();
               self != nullptr && self->count() == 1) {
      flat.base = &self->event();
    } else if (const auto* list = flat.base->get_if<ComposedEvent>();
               list != nullptr && list->events().size() == 1) {
      flat.base = &list->events().front();
    } else {
      return flat;
    }
  }
}

// Largest number of Poisson samplings on one path of the event tree after flattening (0: no
// sampling). The general Zhu–Wang sum evaluates its base at up to m orders, so a base that itself
// needs a sum at each of them costs a product over the levels.
int SamplingDepth(const Event& event) {
  return std::visit(
      [](const auto& e) -> int {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, PoissonSampledEvent>) {
          return 1 + SamplingDepth(*Flatten(e).base);
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          return SamplingDepth(e.event());
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          int depth = 0;
          for (const Event& inner : e.events()) depth = std::max(depth, SamplingDepth(inner));
          return depth;
        } else if constexpr (std::is_same_v<T, GaussianEvent> ||
                             std::is_same_v<T, LeafBalancedGaussianEvent> ||
                             std::is_same_v<T, LaplaceEvent> ||
                             std::is_same_v<T, ExponentialEvent> ||
                             std::is_same_v<T, PureDpEvent> || std::is_same_v<T, ZcdpEvent> ||
                             std::is_same_v<T, RenyiFilterEvent>) {
          // A renyi_filter's curve does not evaluate its inner event (curves_impl.h).
          return 0;
        } else {
          static_assert(kAlwaysFalse<T>, "unhandled event kind");
        }
      },
      event.variant());
}

// A base with this many levels of (non-flattenable) sampling inside is not summed over: the
// general sum would evaluate it at up to m orders, each a sum itself (cost exponential in depth).
// Such a sample takes the bounds that need the base at one order only (the base curve and the
// amplified pure-DP guarantee), so the cost of every event is linear in its size (one level of
// summing over a summed base is kept: cost N², as before).
constexpr int kMaxSummedSamplingDepth = 1;

}  // namespace

template <class Real>
Real PoissonSampledRdpWith(const PoissonSampledEvent& event, const Real& alpha,
                           SubsamplingBound bound) {
  const double order = UpperDouble(alpha);
  RDPKIT_CHECK(LowerDouble(alpha) == order);
  const FlatSample flat = Flatten(event);
  const double q = flat.q;
  const Event& base = *flat.base;
  if (q == 0) return Real(0);
  Real c(0);
  bool gaussian = true;
  const bool linear = LinearCoefficient(base, c, gaussian);
  if (bound == SubsamplingBound::kTightZhuWang && !linear) {
    throw InvalidArgument("bound", "tight_zhu_wang",
                          "Gaussian-type events (gaussian, leaf_balanced_gaussian and their "
                          "compositions)");
  }
  // q = 1: the sample is the whole dataset.
  if (q == 1) return Rdp(base, alpha);
  if (linear && bound != SubsamplingBound::kGeneralZhuWang) {
    return SampledLinearRdp(q, c, gaussian && bound == SubsamplingBound::kAuto, order);
  }
  const bool summed = SamplingDepth(base) <= kMaxSummedSamplingDepth;
  if (!summed && bound == SubsamplingBound::kGeneralZhuWang) {
    throw InvalidArgument("bound", "general_zhu_wang",
                          "events with at most " + std::to_string(kMaxSummedSamplingDepth) +
                              " level of poisson_sampled inside the sampled event (deeper "
                              "nesting would cost exponential time)");
  }
  if (order > kMaxFiniteOrder) return Real(kInf);
  const bool tightest = bound == SubsamplingBound::kAuto;
  Real eps(0);
  const bool pure = tightest && PureEpsilon(base, eps);
  // Every one of these is a sound upper bound at integer order m; the minimum is too.
  const auto cheap = [&](const Real& a) -> Real {
    Real value = Rdp(base, a);  // subsampling never increases the divergence
    if (pure) value = Smaller(value, RandomizedResponseRdp(a, AmplifiedEpsilon(q, eps)));
    return value;
  };
  if (!summed) return cheap(alpha);
  const auto at_integer = [&](long m) -> Real {
    Real value = GeneralInteger<Real>(q, base, m);
    if (tightest) value = Smaller(value, cheap(Real(static_cast<double>(m))));
    return value;
  };
  if (IsInteger(order)) return at_integer(static_cast<long>(order));
  Real value = Interpolate<Real>(order, at_integer);
  if (tightest) value = Smaller(value, cheap(alpha));
  return value;
}

// The fast value is used when it is a number ≥ 0; otherwise (a failure of the double sums at an
// extreme rate or order) the interval evaluation's upper end, and +∞ when that fails too.
template <class Real>
Real PoissonSampledRdp(const PoissonSampledEvent& event, const Real& alpha) {
  if constexpr (kIsInterval<Real>) {
    return PoissonSampledRdpWith(event, alpha, SubsamplingBound::kAuto);
  } else {
    const double fast = PoissonSampledRdpWith(event, alpha, SubsamplingBound::kAuto);
    if (fast >= 0) return fast;
    try {
      const double upper = UpperByIntervals([&](auto zero) {
        return PoissonSampledRdpWith(event, decltype(zero)(alpha), SubsamplingBound::kAuto);
      });
      return upper >= 0 ? upper : (std::isnan(upper) ? kInf : 0.0);
    } catch (const NumericalError&) {
      return kInf;
    }
  }
}

template double PoissonSampledRdp<double>(const PoissonSampledEvent&, const double&);
template Interval PoissonSampledRdp<Interval>(const PoissonSampledEvent&, const Interval&);
template WideInterval PoissonSampledRdp<WideInterval>(const PoissonSampledEvent&,
                                                      const WideInterval&);
template double PoissonSampledRdpWith<double>(const PoissonSampledEvent&, const double&,
                                              SubsamplingBound);
template Interval PoissonSampledRdpWith<Interval>(const PoissonSampledEvent&, const Interval&,
                                                  SubsamplingBound);
template WideInterval PoissonSampledRdpWith<WideInterval>(const PoissonSampledEvent&,
                                                          const WideInterval&, SubsamplingBound);
template double SampledLinearRdp<double>(double, const double&, bool, double);
template Interval SampledLinearRdp<Interval>(double, const Interval&, bool, double);
template WideInterval SampledLinearRdp<WideInterval>(double, const WideInterval&, bool, double);

}  // namespace rdpkit::accountant::internal

namespace rdpkit::accountant {
namespace {

void RequireOrder(double order) {
  Require(std::isfinite(order) && order > 1, "order", order, "(1, inf)");
}

}  // namespace

double PoissonSampledRdpFast(const PoissonSampledEvent& event, double order,
                             SubsamplingBound bound) {
  RequireOrder(order);
  return internal::PoissonSampledRdpWith(event, order, bound);
}

Bound PoissonSampledRdpCertified(const PoissonSampledEvent& event, double order,
                                 SubsamplingBound bound) {
  RequireOrder(order);
  return internal::Certify(
      [&](auto zero) {
        return internal::PoissonSampledRdpWith(event, decltype(zero)(order), bound);
      },
      [&] { return "certified subsampled RDP at order " + FormatNumber(order); });
}

}  // namespace rdpkit::accountant
