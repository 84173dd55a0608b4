// The PLD accountant (pld.h): the event's factors, the grid and window, and the conversions
// (docs/math/pld.md §5–6).
#include "rdpkit/accountant/pld.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "pld_internal.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant {
namespace {

using internal::DirectionPld;
using internal::PldDirection;
using internal::PldFactor;
using internal::PldMechanism;
using internal::SparsePld;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = internal::kUnitRoundoff;
// The cap on grid points per direction (pld.md §5).
constexpr std::size_t kMaxPoints = std::size_t{1} << 21;
constexpr std::size_t kMinPoints = std::size_t{1} << 10;
// Grid step range (powers of 2) and the step of the first, window-finding pass.
constexpr double kMaxStep = 0x1p-6;
constexpr double kMinStep = 0x1p-40;
// Window: the composed mass above it and below it is at most kWindowShare·δ (ε from δ) or
// kDeltaModeTail (δ from ε; a δ below it is reported as about it); each factor's truncated tails at
// most kTailShare of that.
constexpr double kWindowShare = 1e-5;
constexpr double kDeltaModeTail = 1e-15;
constexpr double kTailShare = 1e-3;
// Counts beyond this are not accounted by PLD (the window would not fit).
constexpr double kMaxTotalCount = 1e12;
// Distinct (shift, q) mechanisms a PLD composes, and the smallest shift (1/σ) it discretises;
// beyond either it leaves the event to RDP (bounded time on any input).
constexpr std::size_t kMaxDistinctFactors = 64;
// The cells of all bounded pairs, and the distinct mechanisms × window points of one
// composition, that a PLD works through at most (bounded time on any input; beyond: RDP).
constexpr double kMaxTotalCells = 0x1p22;
constexpr double kMaxTransformPoints = 0x1p24;
// A tilted recomposition is tried when the round-off is more than this share of δ (pld.md §6b).
constexpr double kTiltShare = 1e-3;
// The round-off a tilt aims for, as a share of δ.
constexpr double kTiltTarget = 1e-4;
// At most this many tilted recompositions for one ε.
constexpr int kTiltRounds = 6;
constexpr double kMinShift = 1e-4;

// ---- Factors of the event ----

// x rounded up to the next double (a larger parameter gives a dominating pair: pld.md §1).
double Up(double x) { return std::nextafter(x, kInf); }

// Appends the event's factors times `times`; false when some part is not supported.
bool CollectFactors(const Event& event, double times, std::vector<PldFactor>& out) {
  const auto count = static_cast<std::uint64_t>(times);
  return std::visit(
      [&](const auto& e) -> bool {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          // Shifts are rounded up (the PLD grows with the shift: pld.md §1).
          out.push_back(
              {PldMechanism::kGaussian, (1 / e.noise_multiplier()) * (1 + 1e-12), 1.0, count});
          return true;
        } else if constexpr (std::is_same_v<T, LeafBalancedGaussianEvent>) {
          // μ = √(D·Σ r_d c_d²)/σ (S-BDT Thm 16), as in analytic_gaussian.h.
          const double d = static_cast<double>(e.weights().size());
          const double shift = std::sqrt(e.EffectiveScale()) / e.noise_multiplier();
          out.push_back(
              {PldMechanism::kGaussian, shift * (1 + 1e-12 + (2 * d + 16) * kU), 1.0, count});
          return true;
        } else if constexpr (std::is_same_v<T, LaplaceEvent>) {
          // Loss bound E = 1/b (pld.md §3b).
          out.push_back({PldMechanism::kLaplace, Up(1 / e.noise_multiplier()), 1.0, count});
          return true;
        } else if constexpr (std::is_same_v<T, PureDpEvent>) {
          if (e.epsilon() == 0) return true;  // releases nothing about any record
          out.push_back({PldMechanism::kRandomizedResponse, e.epsilon(), 1.0, count});
          return true;
        } else if constexpr (std::is_same_v<T, ExponentialEvent>) {
          out.push_back({PldMechanism::kBoundedRange, e.epsilon(), 1.0, count});
          return true;
        } else if constexpr (std::is_same_v<T, PoissonSampledEvent>) {
          const double q = e.sampling_probability();
          std::vector<PldFactor> inner;
          if (!CollectFactors(e.event(), 1, inner)) return false;
          if (q == 0) return true;  // releases nothing about any record
          if (inner.empty()) return true;
          if (inner.size() != 1 || inner[0].count != 1) return false;  // sampled compositions
          // Nested sampling is sampling at the product rate (thinning); an inexact product is
          // rounded up (the PLD grows with q, pld.md §1).
          double rate = q * inner[0].q;
          if (std::fma(q, inner[0].q, -rate) > 0) rate = Up(rate);
          out.push_back({inner[0].mechanism, inner[0].parameter, std::min(1.0, rate), count});
          return true;
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          const double total = times * static_cast<double>(e.count());
          if (total > kMaxTotalCount) return false;
          if (total == 0) return CollectFactors(e.event(), 0, out);
          return CollectFactors(e.event(), total, out);
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          for (const Event& part : e.events()) {
            if (!CollectFactors(part, times, out)) return false;
          }
          return true;
        } else if constexpr (std::is_same_v<T, ZcdpEvent> || std::is_same_v<T, RenyiFilterEvent>) {
          return false;
        } else {
          static_assert(kAlwaysFalse<T>, "unhandled event kind");
        }
      },
      event.variant());
}

// The factors with count > 0, equal pairs merged; nullopt when the event is not supported.
std::optional<std::vector<PldFactor>> Factors(const Event& event) {
  std::vector<PldFactor> raw;
  if (!CollectFactors(event, 1, raw)) return std::nullopt;
  std::map<std::tuple<PldMechanism, double, double>, double> merged;
  for (const PldFactor& f : raw) {
    merged[{f.mechanism, f.parameter, f.q}] += static_cast<double>(f.count);
  }
  std::vector<PldFactor> out;
  double total = 0;
  for (const auto& [key, count] : merged) {
    if (count == 0) continue;
    total += count;
    out.push_back(
        {std::get<0>(key), std::get<1>(key), std::get<2>(key), static_cast<std::uint64_t>(count)});
  }
  if (total > kMaxTotalCount) return std::nullopt;
  return out;
}

// ---- Grid and window ----

struct Bases {
  std::vector<SparsePld> plds;
  std::vector<std::uint64_t> counts;
};

Bases Discretize(const std::vector<PldFactor>& factors, PldDirection direction, double h,
                 double tail_mass) {
  // Bounded work: a bounded pair is discretised on every grid point of its loss range (at most
  // 2E/h of them); all of them together at most kMaxTotalCells.
  double cells = 0;
  for (const PldFactor& f : factors) {
    if (f.mechanism == PldMechanism::kLaplace || f.mechanism == PldMechanism::kBoundedRange) {
      cells += std::min(0x1p20, 2 * f.parameter / h);
    }
  }
  if (!(cells <= kMaxTotalCells)) {
    throw NumericalError(
        "pld: discretising these mechanisms would take more than 2^22 cells "
        "(grid step " +
        FormatNumber(h) + ")");
  }
  Bases out;
  for (const PldFactor& f : factors) {
    out.plds.push_back(f.mechanism == PldMechanism::kGaussian
                           ? internal::DiscretizeFactor(f, direction, h, tail_mass)
                           : internal::DiscretizeBoundedFactor(f, direction, h));
    out.counts.push_back(f.count);
  }
  return out;
}

// 2^⌈log₂ x⌉ and 2^⌊log₂ x⌋ for any x (0, +inf and NaN give 2^-1074 or 2^1023: the callers clamp).
double PowerOfTwo(double exponent) {
  return std::ldexp(
      1.0,
      static_cast<int>(std::isnan(exponent) ? -1074.0 : std::clamp(exponent, -1074.0, 1023.0)));
}
double PowerOfTwoAtLeast(double x) { return PowerOfTwo(std::ceil(std::log2(x))); }
double PowerOfTwoAtMost(double x) { return PowerOfTwo(std::floor(std::log2(x))); }
// A grid step inside [kMinStep, kMaxStep].
double ClampStep(double h) { return std::clamp(h, kMinStep, kMaxStep); }

// One direction's composition on the window of its discretised factors (pld.md §4–5), tilted by
// λ when λ > 0 (§6b).
DirectionPld ComposeDirection(const Bases& bases, double h, double tail, double lambda = 0) {
  const internal::Window window = internal::ChernoffWindow(bases.plds, bases.counts, h, tail);
  const double span = window.top - window.bottom + 1;
  if (!(span <= static_cast<double>(kMaxPoints))) {
    throw NumericalError("pld: the composition needs more than 2^21 grid points (grid step " +
                         FormatNumber(h) + ")");
  }
  const std::size_t n =
      std::max(kMinPoints, static_cast<std::size_t>(PowerOfTwoAtLeast(std::max(span, 2.0))));
  DirectionPld out;
  out.h = h;
  // Bounded work: a transform of n points per distinct mechanism, at most kMaxTransformPoints.
  if (static_cast<double>(bases.plds.size()) * static_cast<double>(n) > kMaxTransformPoints) {
    throw NumericalError("pld: " + std::to_string(bases.plds.size()) +
                         " distinct mechanisms on a window of " + std::to_string(n) +
                         " points exceed 2^24 transform points");
  }
  const auto first = static_cast<std::int64_t>(window.bottom);
  if (bases.plds.size() == 1 && bases.counts[0] == 1) {
    // One factor run once: its masses as they are, no transform and no round-off (pld.md §4).
    internal::DirectWindow direct = internal::PlaceMasses(bases.plds[0], first, n);
    out.window = std::move(direct.window);
    out.above = direct.above;
  } else {
    if (lambda > 0) {
      const internal::TiltedFactors tilted =
          internal::TiltFactors(bases.plds, bases.counts, h, lambda);
      out.window = internal::ComposeByFft(tilted.plds, bases.counts, first, n);
      out.tilt = lambda;
      out.tilt_log_scale = tilted.log_scale;
    } else {
      out.window = internal::ComposeByFft(bases.plds, bases.counts, first, n);
    }
    out.above =
        internal::MassAbove(bases.plds, bases.counts, h,
                            static_cast<double>(first) + static_cast<double>(n), window.lambda_top);
  }
  // 1 − Π_j (1 − ω_j)^{T_j} (pld.md eq. 2.4), rounded up.
  double log_keep = 0;
  for (std::size_t j = 0; j < bases.plds.size(); ++j) {
    log_keep += static_cast<double>(bases.counts[j]) * std::log1p(-bases.plds[j].infinity);
  }
  out.infinity = std::min(1.0, -std::expm1(log_keep * (1 + 1e-10)) * (1 + 1e-10));
  return out;
}

std::vector<PldFactor> RequireFactors(const Event& event) {
  const std::optional<std::vector<PldFactor>> factors = Factors(event);
  if (!factors) {
    throw InvalidArgument("accountant", "\"pld\"",
                          "events made of gaussian, leaf_balanced_gaussian, laplace, pure_dp and "
                          "exponential, each optionally poisson_sampled (composed, "
                          "self_composed) of at most 1e12 mechanisms in all; use \"rdp\" or "
                          "\"best\" for zcdp, renyi_filter, sampled compositions and more");
  }
  return *factors;
}

// The grid step (pld.md §5): fine enough that the window spans 2^log2_points points, and that the
// variance the connect-the-dots split adds (≈ h·E|L| per round, against Var L) stays below
// kVarianceShare; never finer than the window over 2^log2_max_points points.
constexpr double kVarianceShare = 0.05;

// The directions' composed PLDs of the event, each window holding all but about `tail` of the
// composed mass on each side (pld.md §5), and what a tilted recomposition needs.
struct Composition {
  std::vector<DirectionPld> directions;
  std::vector<Bases> bases;  // per direction
  double h = 0;
  double tail = 0;
  // The directions recomposed with tilts that make the round-off near `loss` a small share of
  // δ (pld.md §6b); a direction whose round-off there is already small is kept as it is.
  std::vector<DirectionPld> TiltedAt(double loss, double delta) const {
    const double allowed = kTiltTarget * delta;
    std::vector<DirectionPld> out;
    for (std::size_t k = 0; k < bases.size(); ++k) {
      const double round_off = internal::RoundOffAt(directions[k], loss);
      if (round_off <= allowed) {
        out.push_back(directions[k]);
        continue;
      }
      const double lambda = internal::TiltFor(bases[k].plds, bases[k].counts, h, loss,
                                              std::log(allowed / round_off), internal::Lambdas());
      out.push_back(ComposeDirection(bases[k], h, tail, lambda));
    }
    return out;
  }
};

void RequireOptions(const PldOptions& options) {
  Require(options.log2_points >= 10 && options.log2_points <= 20, "log2_points",
          options.log2_points, "[10, 20]");
  Require(options.log2_max_points >= options.log2_points && options.log2_max_points <= 20,
          "log2_max_points", options.log2_max_points,
          "[log2_points, 20] with log2_points = " + std::to_string(options.log2_points));
}

// The plan of a composition (pld.md §5): its factors and directions, and what its grid step
// follows from, so that the steps of several grids come from one plan.
struct Plan {
  std::vector<PldFactor> factors;
  std::vector<PldDirection> directions;
  double tail_mass = 0;  // each factor's truncated tails
  double width = 0;      // of the composed window
  // The coarsest step the resolution rule allows; none where no factor's loss varies (the
  // width's step then, rounded down).
  std::optional<double> by_resolution;
  bool atoms = false;  // a factor with atoms composed many times

  // The grid step for `options` (validated): fine enough that the window spans 2^log2_points
  // points and the resolution rule holds, never finer than 2^log2_max_points points.
  double Step(const PldOptions& options) const {
    const double by_width = width / std::ldexp(1.0, options.log2_points);
    const double finest = width / std::ldexp(1.0, options.log2_max_points);
    // The width rule rounds the step up (2^(log2_points − 1) to 2^log2_points points), down
    // where a factor has atoms (Laplace, randomized response): their split between two grid
    // points is the main pessimism there, and those compositions are cheap.
    const double width_step = atoms ? PowerOfTwoAtMost(by_width) : PowerOfTwoAtLeast(by_width);
    const double resolution_step = PowerOfTwoAtMost(by_resolution.value_or(by_width));
    return ClampStep(std::max(PowerOfTwoAtLeast(finest), std::min(width_step, resolution_step)));
  }
};

Plan PlanComposition(const Event& event, double tail) {
  Plan plan;
  plan.factors = RequireFactors(event);
  const std::vector<PldFactor>& factors = plan.factors;
  if (factors.empty()) return plan;
  // Bounded work (every distinct factor costs a discretisation and an FFT), and no factor whose
  // shift is too small to change ε (their grids would be very fine and slow): both a
  // NumericalError, so that best answers with RDP and `--accountant pld` says so.
  if (factors.size() > kMaxDistinctFactors) {
    throw NumericalError("pld: " + std::to_string(factors.size()) +
                         " distinct mechanisms (at most " + std::to_string(kMaxDistinctFactors) +
                         " are composed by PLD)");
  }
  double total_count = 0;
  bool symmetric = true;  // q = 1 everywhere: the two directions coincide (pld.md §1)
  for (const PldFactor& f : factors) {
    if (f.mechanism == PldMechanism::kGaussian && f.parameter < kMinShift) {
      throw NumericalError("pld: a shift 1/noise_multiplier of " + FormatNumber(f.parameter) +
                           " is below " + FormatNumber(kMinShift));
    }
    total_count += static_cast<double>(f.count);
    symmetric = symmetric && f.q == 1;
  }
  std::vector<PldDirection>& directions = plan.directions;
  directions.push_back(PldDirection::kRemove);
  if (!symmetric) directions.push_back(PldDirection::kAdd);
  // Plan from the losses' moments: a first grid at about 1/256 of the composed standard
  // deviation measures the window; the step then follows from its width and the resolution rule.
  double variance = 0;
  double mean_abs = 0;
  double range = 0;  // the widest single factor's loss range
  for (const PldDirection d : directions) {
    double v = 0;
    double a = 0;
    for (const PldFactor& f : factors) {
      const internal::LossMoments m = f.mechanism == PldMechanism::kGaussian
                                          ? internal::GaussianMoments(f, d)
                                          : internal::BoundedMoments(f, d);
      v += static_cast<double>(f.count) * m.variance;
      a += static_cast<double>(f.count) * m.mean_abs;
      range = std::max(range, m.range);
    }
    variance = std::max(variance, v);
    mean_abs = std::max(mean_abs, a);
  }
  plan.tail_mass = kTailShare * tail / total_count;
  const double tail_mass = plan.tail_mass;
  // The first grid: about 1/256 of the composition's standard deviation, but never finer than
  // 2^-18 of one factor's loss range (a nearly deterministic loss has a tiny variance).
  const double first_step =
      ClampStep(PowerOfTwoAtLeast(std::max(std::sqrt(variance) / 256, range / 0x1p18) + 1e-300));
  double width = 0;
  for (const PldDirection d : directions) {
    const Bases bases = Discretize(factors, d, first_step, tail_mass);
    const internal::Window w = internal::ChernoffWindow(bases.plds, bases.counts, first_step, tail);
    width = std::max(width, (w.top - w.bottom + 1) * first_step);
  }
  if (!std::isfinite(width)) {
    throw NumericalError("pld: no finite window holds the composition (grid step " +
                         FormatNumber(first_step) + ")");
  }
  plan.width = width;
  if (mean_abs > 0) plan.by_resolution = kVarianceShare * variance / mean_abs;
  // A few atoms are smeared once only; many compose their split.
  for (const PldFactor& f : factors) {
    plan.atoms =
        plan.atoms || (f.count >= 16 && (f.mechanism == PldMechanism::kLaplace ||
                                         f.mechanism == PldMechanism::kRandomizedResponse));
  }
  return plan;
}

Composition Compose(const Event& event, double tail, const PldOptions& options) {
  RequireOptions(options);
  const Plan plan = PlanComposition(event, tail);
  if (plan.factors.empty()) return {};
  const double h = plan.Step(options);
  Composition out;
  out.h = h;
  out.tail = tail;
  for (const PldDirection d : plan.directions) {
    out.bases.push_back(Discretize(plan.factors, d, h, plan.tail_mass));
    out.directions.push_back(ComposeDirection(out.bases.back(), h, tail));
  }
  return out;
}

// True when the composition's round-off is a noticeable share of δ at ε (pld.md §6b): a tilted
// recomposition may then do better.
bool RoundOffMatters(const std::vector<DirectionPld>& directions, double epsilon, double delta) {
  for (const DirectionPld& d : directions) {
    if (internal::RoundOffAt(d, epsilon) > kTiltShare * delta) return true;
  }
  return false;
}

}  // namespace

bool PldSupports(const Event& event) { return Factors(event).has_value(); }

double PldEpsilon(const Event& event, double delta, const PldOptions& options) {
  Require(delta > 0 && delta < 1, "delta", delta, "(0, 1)");
  const internal::ScratchRelease release;  // the compositions' storage, freed unless held
  const Composition composition = Compose(event, kWindowShare * delta, options);
  const double epsilon = internal::EpsilonUpper(composition.directions, delta);
  if (!std::isfinite(epsilon) || epsilon == 0 ||
      !RoundOffMatters(composition.directions, epsilon, delta)) {
    return epsilon;
  }
  // Tilted recompositions (pld.md §6b). A tilt centred at t makes δ_up accurate from about t up;
  // while the ε found is still limited by the round-off, the true ε lies lower: the next centre
  // steps down by the ratio of the last step; a centre that gave no better ε was too low, and the
  // next one lies halfway back. Every ε is an upper bound; the smallest is returned.
  double best = epsilon;
  double centre = epsilon;
  int misses = 0;
  for (int i = 0; i < kTiltRounds; ++i) {
    const std::vector<DirectionPld> tilted = composition.TiltedAt(centre, delta);
    const double found = internal::EpsilonUpper(tilted, delta);
    if (found < best) {
      best = found;
      // Converged when the round-off just below the ε found is negligible: the other terms of
      // δ_up, which no tilt changes, then hold the ε within 0.1 %.
      if (!RoundOffMatters(tilted, found * (1 - 1e-3), delta)) break;
      centre = found * std::clamp(found / centre, 0.125, 0.9);
    } else {
      if (++misses == 2) break;
      centre = (centre + best) / 2;
    }
  }
  return best;
}

internal::PldGridPlan internal::PlanPldGrids(const Event& event, double delta,
                                             const std::vector<PldOptions>& grids) {
  Require(delta > 0 && delta < 1, "delta", delta, "(0, 1)");
  for (const PldOptions& options : grids) RequireOptions(options);
  const Plan plan = PlanComposition(event, kWindowShare * delta);
  PldGridPlan out;
  for (const PldOptions& options : grids) {
    out.steps.push_back(plan.factors.empty() ? 0 : plan.Step(options));
  }
  if (!plan.factors.empty() && plan.by_resolution) {
    out.resolution_step = ClampStep(PowerOfTwoAtMost(*plan.by_resolution));
  }
  return out;
}

double PldDelta(const Event& event, double epsilon, const PldOptions& options) {
  Require(std::isfinite(epsilon) && epsilon >= 0, "epsilon", epsilon, "[0, inf)");
  const internal::ScratchRelease release;  // the compositions' storage, freed unless held
  const Composition composition = Compose(event, kDeltaModeTail, options);
  double best = internal::DeltaUpper(composition.directions, epsilon);
  // Tilted recompositions (pld.md §6b), each aiming at the round-off's share of the last δ_up,
  // while that halves it; every δ_up is an upper bound, the smallest is returned.
  const std::vector<DirectionPld>* current = &composition.directions;
  std::vector<DirectionPld> tilted;
  for (int i = 0; i < kTiltRounds && best > 0 && RoundOffMatters(*current, epsilon, best); ++i) {
    tilted = composition.TiltedAt(epsilon, best);
    const double found = internal::DeltaUpper(tilted, epsilon);
    const bool halved = found < 0.5 * best;
    best = std::min(best, found);
    if (!halved) break;
    current = &tilted;
  }
  return best;
}

}  // namespace rdpkit::accountant
