// δ(ε) and ε(δ) of a composed PLD with every error term of its bound (docs/math/pld.md §6).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "pld_internal.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = kUnitRoundoff;
// Bisection steps between two grid points when the closed-form guess inside a cell fails its
// check (pld.md §6).
constexpr int kRefineSteps = 12;

// The round-off of the composition over the window points from `begin` on (pld.md eq. 6.1 and
// 6.3): count·D, or by Cauchy–Schwarz √count·D₂ (weights ≤ 1); with a tilt, each point's error is
// scaled by scale(l_i) ≤ scale(l_begin)·e^{−λh(i − begin)}, a geometric series.
double FftTerm(const DirectionPld& pld, std::size_t begin) {
  const ComposedWindow& w = pld.window;
  const double count = static_cast<double>(w.values.size() - begin);
  if (count == 0) return 0;
  if (pld.tilt == 0) {
    return std::min(count * w.error_per_point, std::sqrt(count) * w.error_norm2);
  }
  const double loss = static_cast<double>(w.first + static_cast<std::int64_t>(begin)) * pld.h;
  const double first = pld.Scale(loss);
  if (!(first < kInf)) return kInf;
  const double ratio = pld.tilt * pld.h;  // scale falls by e^{−λh} a point
  const double sum = first / -std::expm1(-ratio) * (1 + 8 * kU);
  const double sum_squares = first * first / -std::expm1(-2 * ratio) * (1 + 8 * kU);
  return std::min(sum * w.error_per_point, std::sqrt(sum_squares) * w.error_norm2) * (1 + 4 * kU);
}

// δ_up of one direction at ε (pld.md eq. 6.1).
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
    // With a tilt, the composition's value: the window's times scale(l), rounded up (pld.md §6b;
    // the product's rounding is in `rounding`).
    const double scale = pld.tilt == 0 ? 1.0 : pld.Scale(loss);
    if (!(scale < kInf)) return 1;  // a scale beyond the doubles bounds nothing: δ ≤ 1
    const double v = w.values[i] * scale;
    sum += weight * v;
    abs_sum += std::abs(weight * v);
    // The weight's rounding: e^{gap} (≤ 1 ulp, (2j + 2)u along the recurrence), ε − l
    // (≤ u·|ε − l|, times e^{gap} ≤ 1) and 1 − e^{gap} (≤ u).
    guard += std::abs(v) * ((2 * static_cast<double>(j) + 4) * kU * factor +
                            1.01 * kU * std::abs(gap) + kU * weight);
  }
  const double count = static_cast<double>(n - begin);
  const double rounding = (count + 5) * kU * 1.01 * abs_sum;
  const double fft = FftTerm(pld, begin);
  const double total = sum + guard + rounding + fft + pld.above + pld.infinity;
  if (std::isnan(total)) return 1;  // never a NaN reported as a bound
  return std::min(1.0, std::max(0.0, total * (1 + 8 * kU)));
}

// Approximate δ on the cell [l_j, l_{j+1}) of each grid point j (double, no guard), as
// δ(ε) ≈ tail_j − e^{ε − l_j}·weighted_j + rest: tail_j = Σ_{i>j} v_i and
// weighted_j = Σ_{i>j} v_i e^{l_j − l_i} by the backward recurrence weighted_j =
// e^{−h}(v_{j+1} + weighted_{j+1}), from the top of the window down, one point at a time. Only
// chooses where DeltaUpper is evaluated; never reported.
class ApproximateCurve {
 public:
  explicit ApproximateCurve(const DirectionPld& pld)
      : pld_(pld), step_(std::exp(-pld.h)), j_(pld.window.values.size()) {}
  double rest() const { return pld_.above + pld_.infinity; }
  // The sums at point j: tail_j and weighted_j (j descending from one call to the next).
  std::pair<double, double> At(std::size_t j) {
    RDPKIT_CHECK(j < j_);
    while (j_ > j + 1) Add(--j_);
    return {tail_, weighted_};
  }

 private:
  void Add(std::size_t k) {
    double v = pld_.window.values[k];
    if (pld_.tilt != 0) {
      // Capped: only a guess is made from these values.
      v *= std::min(
          1e300, pld_.Scale(static_cast<double>(pld_.window.first + static_cast<std::int64_t>(k)) *
                            pld_.h));
    }
    tail_ += v;
    weighted_ = step_ * (v + weighted_);
  }

  const DirectionPld& pld_;
  double step_;
  std::size_t j_;  // the sums hold the points from j_ up
  double tail_ = 0;
  double weighted_ = 0;
};

// Largest loss of any window (ε beyond it: only the bounded terms remain).
double WindowTop(const std::vector<DirectionPld>& directions) {
  double top = 0;
  for (const DirectionPld& d : directions) {
    top = std::max(top, static_cast<double>(d.window.first +
                                            static_cast<std::int64_t>(d.window.values.size())) *
                            d.h);
  }
  return top;
}

}  // namespace

double RoundOffAt(const DirectionPld& direction, double epsilon) {
  const ComposedWindow& w = direction.window;
  const double start = std::floor(epsilon / direction.h) + 1 - static_cast<double>(w.first);
  const std::size_t n = w.values.size();
  const std::size_t begin =
      start <= 0 ? 0 : (start >= static_cast<double>(n) ? n : static_cast<std::size_t>(start));
  return FftTerm(direction, begin);
}

double DeltaUpper(const std::vector<DirectionPld>& directions, double epsilon) {
  double delta = 0;
  for (const DirectionPld& d : directions) delta = std::max(delta, DeltaUpper(d, epsilon));
  return delta;
}

double EpsilonUpper(const std::vector<DirectionPld>& directions, double delta) {
  if (directions.empty()) return 0;
  const double h = directions.front().h;
  const double top = WindowTop(directions);
  if (DeltaUpper(directions, top) > delta) return kInf;
  const auto passes = [&](double epsilon) { return DeltaUpper(directions, epsilon) <= delta; };
  // The approximate curves: per direction, the grid index where they first pass, and the cell
  // sums that give a closed-form ε inside a cell.
  double guess = 0;  // δ_up is the largest of the directions': all of them must pass
  for (const DirectionPld& d : directions) {
    ApproximateCurve c(d);
    const std::size_t n = d.window.values.size();
    double k = static_cast<double>(d.window.first) + static_cast<double>(n);
    for (std::size_t i = n; i-- > 0;) {
      const double fft = FftTerm(d, i + 1);  // the points above l_i
      const auto [tail, weighted] = c.At(i);
      if (tail - weighted + c.rest() + fft > delta) break;
      k = static_cast<double>(d.window.first) + static_cast<double>(i);
    }
    guess = std::max(guess, k);
  }
  // The smallest grid index that passes (δ_up is non-increasing in ε): galloping from the guess
  // until the boundary is bracketed, then bisection; every decision is made with DeltaUpper.
  // Index 0 is tested last, only where every index above it passed (then ε = 0 may pass too).
  double lo_index = 0;                   // fails, or is tested at the end
  double hi_index = std::ceil(top / h);  // passes
  guess = std::clamp(guess, lo_index + 1, hi_index);
  if (passes(guess * h)) {
    hi_index = guess;
    for (double gap = 1; hi_index - gap > lo_index; gap *= 2) {
      if (!passes((hi_index - gap) * h)) {
        lo_index = hi_index - gap;
        break;
      }
      hi_index -= gap;
    }
  } else {
    lo_index = guess;
    for (double gap = 1; lo_index + gap < hi_index; gap *= 2) {
      if (passes((lo_index + gap) * h)) {
        hi_index = lo_index + gap;
        break;
      }
      lo_index += gap;
    }
  }
  while (hi_index - lo_index > 1) {
    const double mid = std::floor((lo_index + hi_index) / 2);
    (passes(mid * h) ? hi_index : lo_index) = mid;
  }
  if (lo_index == 0 && passes(0)) return 0;
  double lo = lo_index * h;
  double hi = hi_index * h;
  // Inside (lo, hi] each direction's δ_up is about tail − e^{ε − lo}·weighted + rest with the sums
  // of the cell's lower point, rest = the terms the sums leave out. The largest
  // root over the directions, nudged up by a relative 1e-9, is returned if DeltaUpper passes
  // there; otherwise bisection decides. Only an ε at which DeltaUpper passed is returned.
  double candidate = lo;
  for (std::size_t di = 0; di < directions.size() && candidate < hi; ++di) {
    const DirectionPld& d = directions[di];
    const double j = lo_index - static_cast<double>(d.window.first);
    if (j < 0 || j >= static_cast<double>(d.window.values.size())) {
      candidate = hi;
      break;
    }
    const auto [tail, weighted] = ApproximateCurve(d).At(static_cast<std::size_t>(j));
    // The other terms at lo: over (lo, hi] the same points lie above ε.
    const double rest = DeltaUpper(d, lo) - (tail - weighted);
    const double excess = tail + rest - delta;
    if (excess <= weighted) continue;  // this direction passes at lo already
    candidate = weighted > 0 ? std::max(candidate, lo + std::log(excess / weighted)) : hi;
  }
  candidate += 1e-9 * std::abs(candidate) + 1e-300;
  if (candidate > lo && candidate < hi && passes(candidate)) return candidate;
  for (int i = 0; i < kRefineSteps; ++i) {
    const double mid = lo + (hi - lo) / 2;
    (passes(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace rdpkit::accountant::internal
