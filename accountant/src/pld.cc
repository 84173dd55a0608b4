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
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "pld_internal.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant {
namespace {

using internal::ComposedWindow;
using internal::PldDirection;
using internal::PldFactor;
using internal::SparsePld;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = internal::kUnitRoundoff;
// The cap on grid points per direction (pld.md §5).
constexpr std::size_t kMaxPoints = std::size_t{1} << 21;
constexpr std::size_t kMinPoints = std::size_t{1} << 10;
// Grid step range (powers of 2) and the step of the first, window-finding pass.
constexpr double kMaxStep = 0x1p-6;
constexpr double kMinStep = 0x1p-40;
constexpr double kFirstPassStep = 0x1p-10;
constexpr int kStepPasses = 6;
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
constexpr double kMinShift = 1e-4;
// ε refinement between two grid points: bisection steps (to h/4096).
constexpr int kRefineSteps = 12;

// ---- Factors of the event ----

// Appends the event's factors times `times`; false when some part is not supported.
bool CollectFactors(const Event& event, double times, std::vector<PldFactor>& out) {
  return std::visit(
      [&](const auto& e) -> bool {
        using T = std::decay_t<decltype(e)>;
        // Shifts are rounded up (the PLD grows with the shift: pld.md §1).
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          out.push_back(
              {(1 / e.noise_multiplier()) * (1 + 1e-12), 1.0, static_cast<std::uint64_t>(times)});
          return true;
        } else if constexpr (std::is_same_v<T, LeafBalancedGaussianEvent>) {
          // μ = √(D·Σ r_d c_d²)/σ (S-BDT Thm 16), as in analytic_gaussian.h.
          const double d = static_cast<double>(e.weights().size());
          const double shift = std::sqrt(e.EffectiveScale()) / e.noise_multiplier();
          out.push_back(
              {shift * (1 + 1e-12 + (2 * d + 16) * kU), 1.0, static_cast<std::uint64_t>(times)});
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
          if (std::fma(q, inner[0].q, -rate) > 0) rate = std::nextafter(rate, 2.0);
          out.push_back({inner[0].shift, std::min(1.0, rate), static_cast<std::uint64_t>(times)});
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

// The factors with count > 0, equal pairs merged; nullopt when the event is not supported.
std::optional<std::vector<PldFactor>> Factors(const Event& event) {
  std::vector<PldFactor> raw;
  if (!CollectFactors(event, 1, raw)) return std::nullopt;
  std::map<std::pair<double, double>, double> merged;
  for (const PldFactor& f : raw) merged[{f.shift, f.q}] += static_cast<double>(f.count);
  std::vector<PldFactor> out;
  double total = 0;
  for (const auto& [key, count] : merged) {
    if (count == 0) continue;
    total += count;
    out.push_back({key.first, key.second, static_cast<std::uint64_t>(count)});
  }
  if (total > kMaxTotalCount) return std::nullopt;
  return out;
}

// ---- Window ----

struct Bases {
  std::vector<SparsePld> plds;
  std::vector<std::uint64_t> counts;
};

Bases Discretize(const std::vector<PldFactor>& factors, PldDirection direction, double h,
                 double tail_mass) {
  Bases out;
  for (const PldFactor& f : factors) {
    out.plds.push_back(internal::DiscretizeFactor(f, direction, h, tail_mass));
    out.counts.push_back(f.count);
  }
  return out;
}

// Σ_j T_j·log M_j(λ) (pld.md eq. 5.1).
double LogComposedMoment(const Bases& bases, double h, double lambda) {
  double sum = 0;
  for (std::size_t j = 0; j < bases.plds.size(); ++j) {
    sum += static_cast<double>(bases.counts[j]) * internal::LogMoment(bases.plds[j], h, lambda);
  }
  return sum;
}

const std::vector<double>& Lambdas() {
  static const std::vector<double> lambdas = [] {
    std::vector<double> v;
    for (int i = -32; i <= 80; ++i) v.push_back(std::exp2(i / 4.0));
    return v;
  }();
  return lambdas;
}

// Grid indices [bottom, top] outside which the composed finite mass is ≤ tail on each side, by
// Chernoff bounds over λ (pld.md eq. 5.1).
std::pair<double, double> ChernoffWindow(const Bases& bases, double h, double tail) {
  double top = kInf;
  double bottom = -kInf;
  const double log_tail = std::log(tail);
  for (const double lambda : Lambdas()) {
    const double up = LogComposedMoment(bases, h, lambda);
    const double down = LogComposedMoment(bases, h, -lambda);
    if (std::isfinite(up)) top = std::min(top, std::ceil((up - log_tail) / (lambda * h)));
    if (std::isfinite(down)) {
      bottom = std::max(bottom, std::floor((log_tail - down) / (lambda * h)));
    }
  }
  return {bottom, top};
}

// Upper bound of the composed finite mass at indices ≥ end (pld.md eq. 5.1), rounded up.
double MassAbove(const Bases& bases, double h, double end) {
  double best = kInf;
  for (const double lambda : Lambdas()) {
    const double log_m = LogComposedMoment(bases, h, lambda);
    const double exponent = log_m - lambda * end * h;
    // The double evaluation of Σ T log M: a relative 1e-10 of its terms covers its rounding.
    best = std::min(best, exponent + 1e-10 * (std::abs(log_m) + lambda * std::abs(end) * h));
  }
  return std::min(1.0, std::exp(best) * (1 + 1e-10));
}

// One direction's composed PLD with every term of its δ bound (pld.md §6).
struct DirectionPld {
  double h = 0;
  ComposedWindow window;
  double above = 0;     // bound on the composed finite mass above the window
  double infinity = 0;  // composed mass at +∞, rounded up
};

struct Plan {
  double h;
  double tail;  // per-side window tail
};

double PowerOfTwoAtLeast(double x) {
  return std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(x))));
}

DirectionPld ComposeDirection(const std::vector<PldFactor>& factors, PldDirection direction,
                              const Plan& plan, double total_count) {
  const double tail_mass = kTailShare * plan.tail / total_count;
  const Bases bases = Discretize(factors, direction, plan.h, tail_mass);
  const auto [bottom, top] = ChernoffWindow(bases, plan.h, plan.tail);
  const double span = top - bottom + 1;
  if (!(span <= static_cast<double>(kMaxPoints))) {
    throw NumericalError("pld: the composition needs more than 2^21 grid points (grid step " +
                         FormatNumber(plan.h) + ")");
  }
  const std::size_t n =
      std::max(kMinPoints, static_cast<std::size_t>(PowerOfTwoAtLeast(std::max(span, 2.0))));
  DirectionPld out;
  out.h = plan.h;
  const auto first = static_cast<std::int64_t>(bottom);
  out.window = internal::ComposeByFft(bases.plds, bases.counts, first, n);
  out.above = MassAbove(bases, plan.h, static_cast<double>(first) + static_cast<double>(n));
  // 1 − Π_j (1 − ω_j)^{T_j} (pld.md eq. 2.4), rounded up.
  double log_keep = 0;
  for (std::size_t j = 0; j < bases.plds.size(); ++j) {
    log_keep += static_cast<double>(bases.counts[j]) * std::log1p(-bases.plds[j].infinity);
  }
  out.infinity = std::min(1.0, -std::expm1(log_keep * (1 + 1e-10)) * (1 + 1e-10));
  return out;
}

struct Composed {
  std::vector<DirectionPld> directions;
  bool empty = false;  // no factor: releases nothing
};

std::vector<PldFactor> RequireFactors(const Event& event) {
  const std::optional<std::vector<PldFactor>> factors = Factors(event);
  if (!factors) {
    throw InvalidArgument("accountant", "\"pld\"",
                          "events made of gaussian and leaf_balanced_gaussian, each optionally "
                          "poisson_sampled (composed, self_composed); use \"rdp\" or \"best\" "
                          "for this event");
  }
  return *factors;
}

Composed Compose(const Event& event, double tail, const PldOptions& options) {
  Require(options.log2_points >= 10 && options.log2_points <= 20, "log2_points",
          options.log2_points, "[10, 20]");
  const std::vector<PldFactor> factors = RequireFactors(event);
  Composed out;
  if (factors.empty()) {
    out.empty = true;
    return out;
  }
  // Bounded work (every distinct factor costs a discretisation and an FFT per pass), and no
  // factor whose shift is too small to change ε (their grids would be very fine and slow): both
  // a NumericalError, so that best answers with RDP and `--accountant pld` says so.
  if (factors.size() > kMaxDistinctFactors) {
    throw NumericalError("pld: " + std::to_string(factors.size()) +
                         " distinct mechanisms (at most " + std::to_string(kMaxDistinctFactors) +
                         " are composed by PLD)");
  }
  for (const PldFactor& f : factors) {
    if (f.shift < kMinShift) {
      throw NumericalError("pld: a shift 1/noise_multiplier of " + FormatNumber(f.shift) +
                           " is below " + FormatNumber(kMinShift));
    }
  }
  double total_count = 0;
  bool symmetric = true;  // q = 1 everywhere: the two directions coincide (pld.md §1)
  for (const PldFactor& f : factors) {
    total_count += static_cast<double>(f.count);
    symmetric = symmetric && f.q == 1;
  }
  std::vector<PldDirection> directions{PldDirection::kRemove};
  if (!symmetric) directions.push_back(PldDirection::kAdd);
  // The window's width sets the grid step (pld.md §5). A coarse grid inflates the width (its
  // split adds variance), so the step is refined until it stops shrinking.
  const double points = std::ldexp(1.0, options.log2_points);
  double h = kFirstPassStep;
  for (int pass = 0; pass < kStepPasses; ++pass) {
    double width = 0;
    for (const PldDirection d : directions) {
      const Bases bases = Discretize(factors, d, h, kTailShare * tail / total_count);
      const auto [bottom, top] = ChernoffWindow(bases, h, tail);
      width = std::max(width, (top - bottom + 1) * h);
    }
    const double next = std::clamp(PowerOfTwoAtLeast(width / points), kMinStep, kMaxStep);
    if (next >= h && pass > 0) break;
    h = next;
  }
  for (const PldDirection d : directions) {
    out.directions.push_back(ComposeDirection(factors, d, Plan{h, tail}, total_count));
  }
  return out;
}

// ---- δ bound of one direction at ε (pld.md eq. 6.1) ----

double DeltaUpper(const DirectionPld& pld, double epsilon) {
  const ComposedWindow& w = pld.window;
  const std::size_t n = w.values.size();
  // First window point with loss > ε.
  const double start = std::floor(epsilon / pld.h) + 1 - static_cast<double>(w.first);
  const std::size_t begin =
      start <= 0 ? 0 : (start >= static_cast<double>(n) ? n : static_cast<std::size_t>(start));
  // e^{ε − l_i} by the recurrence e^{ε − l_{i+1}} = e^{ε − l_i}·e^{−h}, restarted from exp every
  // kRestart points: after j steps its relative error is ≤ (2j + 2)u (one rounding per product and
  // e^{−h} within 1 ulp), charged to `guard` below.
  constexpr std::size_t kRestart = 1024;
  const double step = std::exp(-pld.h);
  double sum = 0;
  double abs_sum = 0;
  double guard = 0;
  double factor = 0;
  for (std::size_t i = begin; i < n; ++i) {
    const std::size_t j = (i - begin) % kRestart;
    const double loss = static_cast<double>(w.first + static_cast<std::int64_t>(i)) * pld.h;
    const double gap = epsilon - loss;  // < 0
    factor = j == 0 ? std::exp(gap) : factor * step;
    const double weight = 1 - factor;
    const double v = w.values[i];
    sum += weight * v;
    abs_sum += std::abs(weight * v);
    // The weight's rounding: e^{gap} (≤ 1 ulp, (2j + 2)u along the recurrence), ε − l
    // (≤ u·|ε − l|, times e^{gap} ≤ 1) and 1 − e^{gap} (≤ u).
    guard += std::abs(v) * ((2 * static_cast<double>(j) + 4) * kU * factor +
                            1.01 * kU * std::abs(gap) + kU * weight);
  }
  const double count = static_cast<double>(n - begin);
  const double rounding = (count + 4) * kU * 1.01 * abs_sum;
  // The round-off of the composition over the counted points (pld.md eq. 6.1): n·D, or by
  // Cauchy–Schwarz √n·D₂ (weights ≤ 1).
  const double fft = std::min(count * w.error_per_point, std::sqrt(count) * w.error_norm2);
  const double total = sum + guard + rounding + fft + pld.above + pld.infinity;
  return std::min(1.0, std::max(0.0, total * (1 + 8 * kU)));
}

// δ at every grid point of the window, approximately (double, no guard): the backward
// recurrence C_j = e^{−h}(v_{j+1} + C_{j+1}) for Σ_{i>j} v_i e^{l_j − l_i}. Only used to choose
// where DeltaUpper is evaluated; never reported.
std::vector<double> ApproximateDeltas(const DirectionPld& pld) {
  const std::vector<double>& v = pld.window.values;
  const std::size_t n = v.size();
  std::vector<double> out(n);
  const double step = std::exp(-pld.h);
  double tail = 0;
  double weighted = 0;
  for (std::size_t k = n; k-- > 0;) {
    out[k] = tail - weighted + pld.above + pld.infinity;
    tail += v[k];
    weighted = step * (v[k] + weighted);
  }
  return out;
}

double DeltaUpper(const Composed& composed, double epsilon) {
  if (composed.empty) return 0;
  double delta = 0;
  for (const DirectionPld& d : composed.directions) delta = std::max(delta, DeltaUpper(d, epsilon));
  return delta;
}

// Largest loss of any window (ε beyond it: only the bounded terms remain).
double WindowTop(const Composed& composed) {
  double top = 0;
  for (const DirectionPld& d : composed.directions) {
    top = std::max(top, static_cast<double>(d.window.first +
                                            static_cast<std::int64_t>(d.window.values.size())) *
                            d.h);
  }
  return top;
}

}  // namespace

bool PldSupports(const Event& event) { return Factors(event).has_value(); }

double PldEpsilon(const Event& event, double delta, const PldOptions& options) {
  Require(delta > 0 && delta < 1, "delta", delta, "(0, 1)");
  const Composed composed = Compose(event, kWindowShare * delta, options);
  if (composed.empty || DeltaUpper(composed, 0) <= delta) return 0;
  const double h = composed.directions.front().h;
  const double top = WindowTop(composed);
  if (DeltaUpper(composed, top) > delta) return kInf;
  // Smallest grid point that passes (δ is non-increasing in ε): first guessed from the
  // approximate curves, then bracketed with DeltaUpper (galloping from the guess).
  double guess = std::ceil(top / h);
  for (const DirectionPld& d : composed.directions) {
    const std::vector<double> approx = ApproximateDeltas(d);
    double k = static_cast<double>(d.window.first) + static_cast<double>(approx.size());
    for (std::size_t i = approx.size(); i-- > 0;) {
      if (approx[i] > delta) break;
      k = static_cast<double>(d.window.first) + static_cast<double>(i);
    }
    guess = std::min(guess, std::max(k, 0.0));
  }
  guess = std::max(guess, 0.0);
  double lo_index = 0;                   // fails (δ at 0 was checked above)
  double hi_index = std::ceil(top / h);  // passes
  for (double gap = 1; guess > lo_index && guess < hi_index; gap *= 2) {
    if (DeltaUpper(composed, guess * h) <= delta) {
      hi_index = guess;
      guess = std::max(lo_index, guess - gap);
      if (guess == lo_index) break;
    } else {
      lo_index = guess;
      guess = std::min(hi_index, guess + gap);
    }
    if (lo_index + 1 >= hi_index) break;
  }
  while (hi_index - lo_index > 1) {
    const double mid = std::floor((lo_index + hi_index) / 2);
    (DeltaUpper(composed, mid * h) <= delta ? hi_index : lo_index) = mid;
  }
  // Continuous refinement between the two grid points; only a passing ε is ever returned.
  double lo = lo_index * h;
  double hi = hi_index * h;
  for (int i = 0; i < kRefineSteps; ++i) {
    const double mid = lo + (hi - lo) / 2;
    (DeltaUpper(composed, mid) <= delta ? hi : lo) = mid;
  }
  return hi;
}

double PldDelta(const Event& event, double epsilon, const PldOptions& options) {
  Require(std::isfinite(epsilon) && epsilon >= 0, "epsilon", epsilon, "[0, inf)");
  const Composed composed = Compose(event, kDeltaModeTail, options);
  return DeltaUpper(composed, epsilon);
}

}  // namespace rdpkit::accountant
