#include "rdpkit/accountant/calibrate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "calibrate_internal.h"
#include "pld_internal.h"
#include "pure_dp.h"
#include "rdpkit/accountant/analytic_gaussian.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/pld.h"

namespace rdpkit::accountant {
namespace {

// The search stops when the bracket is this narrow, relative (the boundary is met within 1e-6).
constexpr double kRelativeTolerance = 1e-8;
// PLD probes on the coarse grid stop at this relative width; the reported grid then searches a
// bracket kRefineWidening (relative) around their answer, widened until it brackets.
constexpr double kCoarseTolerance = 3e-3;
// The reported grid's search stops at this relative width (each probe is a full PLD).
constexpr double kRefineTolerance = 1e-5;
constexpr double kRefineWidening = 3e-3;
// Land()'s pair sits this far (relative) either side of its aim: together narrower than
// kRefineTolerance, so that a pair that brackets ends the search.
constexpr double kLandingHalfWidth = 0.45 * kRefineTolerance;
// The approach (kBest or kPld solving without RDP): a bracket on a PLD of 2^11 to 2^13 points, 1.5
// to 3 times cheaper than a probe of kPldProbeOptions; its ε lies 0.03–0.3 % above the reported
// grid's on the trainer's runs and on 1e3–1e4 sampled Gaussians (q 0.004–0.01). The probes then
// start at its root with its slope.
constexpr PldOptions kApproachGrid{11, 13};
constexpr double kApproachTolerance = 3e-2;
// The scout before it: a bracket on a PLD of 2^9 to 2^10 points (its ε a few percent above the
// approach grid's), whose root and slope start the approach, so that its expansion from Start()
// runs on the cheapest grid.
constexpr PldOptions kScoutGrid{10, 10};
constexpr double kScoutTolerance = 0.1;
// ProbeNear()'s two probes are used as they are within this relative distance of each other.
constexpr double kNearReach = 3e-2;
// A secant step stays at least this share of the bracket (in log value) from either end.
constexpr double kSecantGuard = 0.005;
// Bracket expansion: the step factor starts here and is squared after every step, so the whole
// double range is crossed in about ten probes (1 → 1e-300 takes 7).
constexpr double kFirstExpansionFactor = 4.0;
constexpr int kMaxExpansions = 64;
constexpr int kMaxBisections = 400;
// An open lower end at 0 is searched down to this value (a sampling probability, ε or ρ of
// 1e-300 spends nothing measurable; anything smaller changes no ε).
constexpr double kSmallestProbe = 1e-300;

class Solver {
 public:
  Solver(const CalibrationProblem& problem, double target, double delta,
         const ConversionOptions& options)
      : problem_(problem),
        target_(target),
        delta_(delta),
        options_(options),
        asked_(options.accountant) {}

  // 1. Brackets (steps growing geometrically) and narrows the bracket on the fast path, whose ε is
  //    never below the truth (convert.cc). Where PLD answers the probes (kPld, or kBest on an
  //    event PLD supports that is not a Gaussian composition), a coarse grid brackets to a
  //    relative kCoarseTolerance and the reported grid then narrows that bracket.
  // 2. Certifies the safe end of the final bracket (under kBest: the smaller of PLD and RDP).
  // 3. Only when no probe was safe, or the certified ε misses the target there: tests the safe
  //    end of the domain (the value that spends least) on the certified path. If it misses the
  //    target no value meets it, and that is reported; otherwise bisects on the certified path
  //    between it and the value of step 2. The returned value is always certified.
  CalibrationResult Solve() {
    const Accountant asked = options_.accountant;
    const Event probe = problem_.make_event(SafeEnd());
    const bool pld_probes =
        asked == Accountant::kPld ||
        (asked == Accountant::kBest && PldSupports(probe) && !GaussianCompositionMu(probe));
    options_.certified = false;
    bool found;
    if (pld_probes) {
      // PLD alone answers the probes (under kBest too: its ε is an upper bound, and RDP of
      // subsampled events can be slow); the final value is again the best one.
      options_.accountant = Accountant::kPld;
      // The cheap grids aim the probes also where RDP may end up solving (bounded-range parts,
      // δ < 1e-9): 3 exponential-split trees at ε = 2513 took 1.78 s of full-grid probes
      // without them, 0.69 s with (BM_Calibrate_ExponentialSplitRun).
      const std::optional<Aim> near = problem_.integer ? std::nullopt : Approach();
      found = near ? ProbeNear(*near) : SolveWithProbes(kCoarseTolerance, Start());
      if (found && last_safe_.accountant != Accountant::kPld) {
        // PLD could not answer here (its grid would not fit): RDP solves, as for other events.
        options_.accountant = asked;
        have_safe_ = false;
        found = SolveWithProbes(kRelativeTolerance, Start());
      } else if (found && asked == Accountant::kBest && RdpMayBeTighter(probe)) {
        // Where RDP may give the smaller ε (compositions with bounded-range mechanisms, very
        // small δ), it is compared once at PLD's answer and solves instead if it is smaller.
        const double coarse = last_safe_value_;
        const double pld_epsilon = last_safe_.epsilon;
        ConversionOptions rdp = options_;
        rdp.accountant = Accountant::kRdp;
        if (Epsilon(problem_.make_event(coarse), delta_, rdp).epsilon < pld_epsilon) {
          options_.accountant = Accountant::kRdp;
          have_safe_ = false;
          found = SolveWithProbes(kRelativeTolerance, Start());
        }
      }
      if (options_.accountant == Accountant::kPld && found) {
        // The reported grid: PLD's certified options on a bracket around the probes' answer.
        options_.certified = true;
        found = Refine();
      }
    } else {
      found = SolveWithProbes(kRelativeTolerance, Start());
    }
    options_.certified = true;
    // The final value is certified by the accountant that solved, under kBest by the smaller of
    // all that apply — except that RDP is not evaluated where PLD solved an event without
    // bounded-range mechanisms at δ ≥ 1e-9: PLD is below RDP there (all 189 subsampled-Gaussian
    // cases of the fine reference, the Laplace and pure-DP compositions of the tests), and RDP of
    // subsampled Gaussians at large σ costs ~0.1 s.
    const bool pld_only = found && pld_probes && options_.accountant == Accountant::kPld &&
                          !RdpMayBeTighter(problem_.make_event(last_safe_value_));
    // Refine's probes already ran with PLD's certified options: its safe value is the answer.
    if (pld_only) return Result();
    options_.accountant = asked;
    const double fast_safe = last_safe_value_;
    have_safe_ = false;
    if (found && Test(fast_safe)) return Result();
    const Probe missed{fast_safe, last_epsilon_};
    // The safe end of the domain, certified.
    const double safe_end = SafeEnd();
    have_safe_ = false;
    if (!Test(safe_end)) {
      throw UnreachableTarget(
          "no " + problem_.parameter + " in " + Domain() +
          " meets epsilon = " + FormatNumber(target_) + " at delta = " + FormatNumber(delta_) +
          ": even " + problem_.parameter + " = " + FormatNumber(safe_end) +
          " (the end of the range that spends least) gives epsilon = " +
          FormatNumber(last_epsilon_) +
          " (the rest of the event already spends too much, or the target is too small)");
    }
    if (found) Bisect({safe_end, last_epsilon_}, missed, kRelativeTolerance);
    return Result();
  }

 private:
  // Below this δ the PLD's round-off terms can outweigh its advantage over RDP; with a
  // bounded-range mechanism RDP may compose more tightly.
  static constexpr double kSmallDelta = 1e-9;
  bool RdpMayBeTighter(const Event& event) const {
    return delta_ < kSmallDelta || internal::HasBoundedRange(event);
  }

  // A probed value and its ε.
  struct Probe {
    double value;
    double epsilon;
  };

  CalibrationResult Result() const {
    return CalibrationResult{
        problem_.parameter, last_safe_value_,      last_safe_.epsilon,    delta_,
        last_safe_.order,   last_safe_.conversion, last_safe_.accountant, last_safe_.mu};
  }

  // Smallest value searched: the lower end, or just above an open one.
  double Floor() const {
    if (problem_.integer) {
      return problem_.lower_inclusive ? std::ceil(problem_.lower) : std::floor(problem_.lower) + 1;
    }
    if (problem_.lower_inclusive) return problem_.lower;
    if (problem_.lower == 0) return kSmallestProbe;
    return std::nextafter(problem_.lower, std::numeric_limits<double>::infinity());
  }
  double SafeEnd() const { return problem_.increasing ? Floor() : problem_.upper; }
  double UnsafeEnd() const { return problem_.increasing ? problem_.upper : Floor(); }

  // Brackets the boundary from `start` and narrows it to `tolerance`; false when no probe was
  // safe. A nonzero hint_slope (of log ε against log value, from an approach) aims the first step.
  bool SolveWithProbes(double tolerance, double start, double hint_slope = 0) {
    // "safe" meets the target; "unsafe" does not. Noise parameters are safe when large,
    // everything else when small.
    std::optional<Probe> safe;
    std::optional<Probe> unsafe;
    std::optional<Probe> previous;
    double v = start;
    double factor = kFirstExpansionFactor;
    // Steps aimed from near the boundary may be small; blind ones double at least.
    const double min_step = hint_slope != 0 ? 1 + tolerance : 2.0;
    for (int i = 0; i < kMaxExpansions && !(safe && unsafe); ++i, factor *= factor) {
      const bool ok = Test(v);
      const Probe probe{v, last_epsilon_};
      if (ok) {
        safe = probe;
        if (v == UnsafeEnd()) break;  // every value of the domain is safe
      } else {
        unsafe = probe;
        if (v == SafeEnd()) break;  // even the end that spends least misses on this path
      }
      // The step: the geometric expansion, or less where two probes on this side extrapolate
      // (log value, log ε) to the target within it (aimed twice as far, at least ×2).
      double step = factor;
      if (!problem_.integer) {
        const double by_secant =
            previous ? ExtrapolatedFactor(*previous, probe) : FactorAlong(hint_slope, probe);
        if (by_secant > 0) step = std::clamp(by_secant * by_secant, min_step, factor);
      }
      previous = probe;
      v = Toward(v, step, /*safe_side=*/!ok);
    }
    if (!safe) return false;
    if (unsafe) Bisect(*safe, *unsafe, tolerance);
    return true;
  }

  // The slope of the line through a and b in (log value, log ε); 0 where it says nothing (ε of
  // 0 or ∞, equal values, flatter than 1e-3).
  static double SlopeThrough(const Probe& a, const Probe& b) {
    if (!(a.value > 0 && b.value > 0 && a.value != b.value && a.epsilon > 0 && b.epsilon > 0 &&
          std::isfinite(a.epsilon) && std::isfinite(b.epsilon))) {
      return 0;
    }
    const double slope = std::log(b.epsilon / a.epsilon) / std::log(b.value / a.value);
    return std::abs(slope) > 1e-3 ? slope : 0;
  }
  // The factor (> 1) by which the value must move from c (default b) along the slope through a
  // and b for ε to reach the target; 0 where the line says nothing or points away.
  double ExtrapolatedFactor(const Probe& a, const Probe& b) const {
    return FactorAlong(SlopeThrough(a, b), b);
  }
  double ExtrapolatedFactor(const Probe& a, const Probe& b, const Probe& c) const {
    return FactorAlong(SlopeThrough(a, b), c);
  }
  // The factor (> 1) by which c's value must move along `slope` for ε to reach the target.
  double FactorAlong(double slope, const Probe& c) const {
    if (!(std::abs(slope) > 1e-3 && c.epsilon > 0 && std::isfinite(c.epsilon))) return 0;
    const double factor = std::exp(std::abs(std::log(target_ / c.epsilon) / slope));
    return factor > 1 && std::isfinite(factor) ? factor : 0;
  }

  // A value near the boundary and the slope of log ε against log value there.
  struct Aim {
    double value;
    double slope;
  };

  // The approach: a bracket on kApproachGrid (its probes never become the answer), started from
  // the scout's, and its secant root in (log value, log ε); nullopt where it found none (the
  // probes then start from Start()).
  std::optional<Aim> Approach() {
    const std::optional<Aim> scout = SecantAim(kScoutGrid, kScoutTolerance, Start(), 0);
    return scout ? SecantAim(kApproachGrid, kApproachTolerance, scout->value, scout->slope)
                 : SecantAim(kApproachGrid, kApproachTolerance, Start(), 0);
  }

  // A bracket on `grid` to `tolerance` from `start` (aimed along `slope` where nonzero) and its
  // secant root in (log value, log ε); nullopt where it found none. Its probes aim only.
  std::optional<Aim> SecantAim(const PldOptions& grid, double tolerance, double start,
                               double slope_hint) {
    probe_grid_ = grid;
    bool bracketed = false;
    try {
      bracketed = SolveWithProbes(tolerance, start, slope_hint) && last_bracket_;
    } catch (const NumericalError&) {
    }
    probe_grid_.reset();
    have_safe_ = false;
    const std::optional<std::pair<Probe, Probe>> bracket = std::move(last_bracket_);
    last_bracket_.reset();
    if (!bracketed) return std::nullopt;
    const Probe& a = bracket->first;
    const Probe& b = bracket->second;
    const double slope = SlopeThrough(a, b);
    if (slope == 0) return std::nullopt;
    const double root = a.value * std::exp(std::log(target_ / a.epsilon) / slope);
    if (!(root > 0 && std::isfinite(root))) return std::nullopt;
    return Aim{std::clamp(root, Floor(), problem_.upper), slope};
  }

  // Two probes near the boundary from the approach's root, for Land(): one there and one where
  // the approach's slope carries its ε to the target (the probes' grid moves ε by 0.03–0.3 % from
  // the approach's). Land() needs their slope and secant root, not a bracket: with the second
  // within ~1e-3 of the boundary, the secant's curvature error there is a few 1e-6, and it only
  // aims. Where neither is safe, the expansion and bisection of SolveWithProbes instead.
  bool ProbeNear(const Aim& near) {
    const bool ok = Test(near.value);
    const Probe first{near.value, last_epsilon_};
    const double factor = FactorAlong(near.slope, first);
    if (factor <= 0) return SolveWithProbes(kCoarseTolerance, near.value, near.slope);
    const double v = Toward(near.value, factor, /*safe_side=*/!ok);
    const bool ok_too = Test(v);
    const Probe second{v, last_epsilon_};
    // Far apart (ε nearly flat in the value, or an approach far off), their secant is too rough
    // to aim with: the probes' own bracket then, as without an approach.
    if (!(ok || ok_too) || v == near.value || std::abs(std::log(v / near.value)) > kNearReach) {
      const double slope = std::log(second.epsilon / first.epsilon) / std::log(v / near.value);
      return SolveWithProbes(kCoarseTolerance, v, std::isfinite(slope) ? slope : near.slope);
    }
    last_bracket_ = std::pair{first, second};
    return true;
  }

  // Tests the values `half_width` (relative) either side of `aim`, the safe side first and the
  // other only where that one was safe and not Tight.
  void TestPair(double aim, double half_width, std::optional<Probe>& safe,
                std::optional<Probe>& unsafe, std::optional<Probe>& latest) {
    const double safe_side = Toward(aim, 1 + half_width, /*safe_side=*/true);
    const double unsafe_side = Toward(aim, 1 + half_width, /*safe_side=*/false);
    if (!Test(safe_side)) {
      unsafe = latest = Probe{safe_side, last_epsilon_};
      return;
    }
    safe = latest = Probe{safe_side, last_epsilon_};
    if (Tight(*safe) || Far(*safe, half_width)) return;
    if (Test(unsafe_side)) {
      safe = latest = Probe{unsafe_side, last_epsilon_};
    } else {
      unsafe = latest = Probe{unsafe_side, last_epsilon_};
    }
  }

  // Narrows, with the current (reported) options, a bracket around the coarse probes' answer.
  // Where Land() finds no pair: from its probes, or else from the coarse safe value, a step toward
  // the other side of kRefineWidening (relative) at least, growing until it brackets. False when
  // no value tested here was safe.
  bool Refine() {
    const double coarse = last_safe_value_;
    have_safe_ = false;
    std::optional<Probe> safe;
    std::optional<Probe> unsafe;
    std::optional<Probe> latest;
    if (last_bracket_ && !problem_.integer) {
      Land(safe, unsafe, latest);
      if (safe && Tight(*safe)) return true;
      if (latest && !(safe && unsafe)) {
        // The pair fell on one side (the coarser grid's shift from the reported one was not the
        // estimate): a second pair, aimed from its last probe along the coarse slope.
        const double factor =
            ExtrapolatedFactor(last_bracket_->first, last_bracket_->second, *latest);
        if (factor > 0) {
          TestPair(Toward(latest->value, factor, /*safe_side=*/!safe), kLandingHalfWidth, safe,
                   unsafe, latest);
          if (safe && Tight(*safe)) return true;
        }
      }
    }
    if (!latest) {
      latest = Probe{coarse, 0};
      if (Test(coarse)) {
        safe = latest = Probe{coarse, last_epsilon_};
      } else {
        unsafe = latest = Probe{coarse, last_epsilon_};
      }
    }
    // The first step: where the coarse bracket's slope (log ε against log value) puts the target,
    // past it by a quarter of the way or kRefineWidening at least, so that it likely brackets.
    double widening = kRefineWidening;
    if (last_bracket_ && !problem_.integer) {
      const double factor =
          ExtrapolatedFactor(last_bracket_->first, last_bracket_->second, *latest);
      if (factor > 1) widening = std::max(kRefineTolerance, (factor - 1) * 1.25);
    }
    for (int i = 0; i < kMaxExpansions && !(safe && unsafe); ++i, widening *= 4) {
      const bool toward_safe = !safe;
      const double from = toward_safe ? unsafe->value : safe->value;
      const double v = Toward(from, 1 + widening, toward_safe);
      if (v == from) break;  // the end of the domain
      if (Test(v)) {
        safe = Probe{v, last_epsilon_};
      } else {
        unsafe = Probe{v, last_epsilon_};
      }
    }
    if (!safe) return false;
    if (unsafe) Bisect(*safe, *unsafe, kRefineTolerance);
    return true;
  }

  // Aims two probes of the reported grid at a bracket narrower than kRefineTolerance: the pair
  // kLandingHalfWidth either side of where the coarse slope carries the reported grid's ε at the
  // coarse bracket's secant root to the target, that ε estimated from one probe on a coarser grid
  // (ReportedGridDrop). Probes that miss are handed to Refine (`latest`: the last of them). Only
  // probes of the reported grid (Test) can become the answer: the coarser probe aims, it
  // certifies nothing. The secant in (log value, log ε) is a numerical heuristic (ε ∝
  // value^slope locally), not a bound.
  void Land(std::optional<Probe>& safe, std::optional<Probe>& unsafe,
            std::optional<Probe>& latest) {
    const Probe& a = last_bracket_->first;
    const Probe& b = last_bracket_->second;
    const double slope = SlopeThrough(a, b);
    if (slope == 0) return;
    landing_slope_ = slope;
    // Secant root in (log value, log ε), where the probes' ε is the target; ε falls as the grid
    // is refined, and the slope carries the reported grid's ε there back up to the target.
    const double root = a.value * std::exp(std::log(target_ / a.epsilon) / slope);
    std::optional<double> drop;
    try {
      drop = internal::ReportedGridDrop(problem_.make_event(root), delta_, target_,
                                        options_.pld_log2_points);
    } catch (const NumericalError&) {
      return;
    }
    if (!drop) return;
    const double aim = root * std::exp(*drop / slope);
    // An aim far outside the coarse probes (by more than their distance or kCoarseTolerance)
    // means the slope says little.
    const double lo = std::min(a.value, b.value);
    const double hi = std::max(a.value, b.value);
    const double reach = std::max(hi - lo, kCoarseTolerance * hi);
    if (!(aim > lo - reach && aim < hi + reach) || !(aim > Floor())) return;
    TestPair(aim, kLandingHalfWidth, safe, unsafe, latest);
  }

  // A safe probe of the reported grid whose ε lies below the target by less than
  // kRefineTolerance·min(1, |slope|) (relative; Land's slope of log ε against log value) ends the
  // search: along that slope the boundary is within kRefineTolerance of its value, and its ε
  // wastes less than that of the target. A heuristic of tightness only: the value is safe either
  // way (Test, certified).
  bool Tight(const Probe& safe) const {
    const double slack = kRefineTolerance * std::min(1.0, std::abs(landing_slope_));
    return landing_slope_ != 0 && safe.epsilon <= target_ && safe.epsilon >= target_ * (1 - slack);
  }

  // A safe probe below the target by twice what the pair's width moves ε along the slope: its
  // partner is safe too, so the next aim comes from this probe's ε. A heuristic of cost only.
  bool Far(const Probe& safe, double half_width) const {
    return landing_slope_ != 0 &&
           safe.epsilon < target_ * (1 - 4 * half_width * std::abs(landing_slope_));
  }

  std::string Domain() const {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "(" + std::string inlined.
    std::string text = problem_.lower_inclusive ? "[" : "(";
    text += FormatNumber(problem_.lower);
    text += ", ";
    text += FormatNumber(problem_.upper);
    return text + "]";
  }

  double Start() const {
    const double start = problem_.integer ? 1000.0 : std::max(1.0, problem_.lower * 2);
    return std::clamp(start, Floor(), problem_.upper);
  }

  bool Test(double v) {
    const Event event = problem_.make_event(v);
    // PLD answers kBest's probes only where it takes the probe (a "?" count can reach past its
    // total count): there RDP answers, as kBest would, and Solve re-solves with it.
    ConversionOptions probe = options_;
    if (asked_ == Accountant::kBest && !PldSupports(event)) probe.accountant = Accountant::kBest;
    const EpsilonResult eps = probe_grid_ && probe.accountant == Accountant::kPld
                                  ? EpsilonResult{PldEpsilon(event, delta_, *probe_grid_),
                                                  delta_,
                                                  0,
                                                  Conversion::kBalle,
                                                  false,
                                                  Accountant::kPld}
                                  : Epsilon(event, delta_, probe);
    last_epsilon_ = eps.epsilon;
    const bool ok = eps.epsilon <= target_;
    if (ok && (!have_safe_ || Safer(last_safe_value_, v))) {
      last_safe_ = eps;
      last_safe_value_ = v;
      have_safe_ = true;
    }
    return ok;
  }

  // True when b is closer to the boundary than a among safe values.
  bool Safer(double a, double b) const { return problem_.increasing ? b > a : b < a; }

  // One expansion step by `factor`, toward the safe or the unsafe side, clamped to the domain.
  double Toward(double v, double factor, bool safe_side) const {
    const bool up = safe_side != problem_.increasing;
    double next = up ? v * factor : v / factor;
    if (problem_.integer) next = up ? std::max(v + 1, std::floor(next)) : std::floor(next);
    return std::clamp(next, Floor(), problem_.upper);
  }

  // The next point inside [lo, hi]: for a real parameter, the root of the secant through the two
  // ends in (log value, log ε) (Illinois: the end kept twice in a row has its log-ratio halved),
  // kept at least kSecantGuard of the bracket away from either end; the geometric or arithmetic
  // midpoint where the secant has nothing to go on (ε of 0 or ∞ at an end, a bracket spanning
  // orders of magnitude, or a stalled end).
  double Next(const Probe& safe, const Probe& unsafe, double safe_scale, double unsafe_scale,
              double tolerance, int last_moved) const {
    const double lo = std::min(safe.value, unsafe.value);
    const double hi = std::max(safe.value, unsafe.value);
    const double midpoint =
        (lo > 0 && hi / lo > 4) ? std::sqrt(lo) * std::sqrt(hi) : lo + (hi - lo) / 2;
    if (problem_.integer || lo <= 0 || hi / lo > 4 || !(safe.epsilon > 0) ||
        !std::isfinite(unsafe.epsilon)) {
      return midpoint;
    }
    const double ys = safe_scale * std::log(safe.epsilon / target_);      // ≤ 0
    const double yu = unsafe_scale * std::log(unsafe.epsilon / target_);  // > 0
    if (!(yu > ys)) return midpoint;
    const double xs = std::log(safe.value);
    const double xu = std::log(unsafe.value);
    // Aimed past the root toward the end that stayed (the unsafe one at first) by half a
    // tolerance, or a quarter of the way from the end that moved if more (at most half the way to
    // the end it aims at), so that the bracket closes from both sides.
    const double root = xs - ys * (xu - xs) / (yu - ys);
    const bool toward_safe = last_moved == -1;  // the unsafe end moved last
    const double target_end = toward_safe ? xs : xu;
    const double moved_end = toward_safe ? xu : xs;
    const double push = std::min(
        std::max(0.5 * tolerance, 0.25 * std::abs(root - (last_moved == 0 ? root : moved_end))),
        0.5 * std::abs(target_end - root));
    const double x = root + std::copysign(push, target_end - root);
    const double guard = kSecantGuard * (std::log(hi) - std::log(lo));
    const double clamped = std::clamp(x, std::log(lo) + guard, std::log(hi) - guard);
    const double v = std::exp(clamped);
    return (v > lo && v < hi) ? v : midpoint;
  }

  void Bisect(Probe safe, Probe unsafe, double tolerance) {
    // The final bracket, whatever way the loop ends.
    struct Record {
      std::optional<std::pair<Probe, Probe>>& bracket;
      const Probe& safe;
      const Probe& unsafe;
      ~Record() { bracket = std::pair{safe, unsafe}; }
    } record{last_bracket_, safe, unsafe};
    double safe_scale = 1;
    double unsafe_scale = 1;
    int last_moved = 0;  // +1 safe end, −1 unsafe end
    for (int i = 0; i < kMaxBisections; ++i) {
      const double lo = std::min(safe.value, unsafe.value);
      const double hi = std::max(safe.value, unsafe.value);
      double mid;
      if (problem_.integer) {
        if (hi - lo <= 1) return;
        mid = std::floor(lo + (hi - lo) / 2);
      } else {
        if (hi - lo <= tolerance * hi) return;
        mid = Next(safe, unsafe, safe_scale, unsafe_scale, tolerance, last_moved);
        if (mid <= lo || mid >= hi) return;
      }
      if (Test(mid)) {
        safe = Probe{mid, last_epsilon_};
        unsafe_scale = last_moved == 1 ? unsafe_scale / 2 : 1;  // Illinois
        safe_scale = 1;
        last_moved = 1;
      } else {
        unsafe = Probe{mid, last_epsilon_};
        safe_scale = last_moved == -1 ? safe_scale / 2 : 1;
        unsafe_scale = 1;
        last_moved = -1;
      }
    }
  }

  const CalibrationProblem& problem_;
  double target_;
  double delta_;
  ConversionOptions options_;
  Accountant asked_;  // the accountant the caller asked for (options_ changes while solving)
  EpsilonResult last_safe_{};  // ε of the safe probe closest to the boundary
  double last_safe_value_ = 0;
  double last_epsilon_ = 0;  // ε of the latest probe
  bool have_safe_ = false;
  std::optional<std::pair<Probe, Probe>> last_bracket_;  // the last Bisect's (safe, unsafe)
  std::optional<PldOptions> probe_grid_;  // set: Test asks PLD on this grid alone (Approach)
  double landing_slope_ = 0;  // Land's slope of log ε against log value; 0: none (Tight)
};

}  // namespace

namespace internal {
CalibrationResult SolveCalibration(const CalibrationProblem& problem, double epsilon, double delta,
                                   const ConversionOptions& options) {
  // The PLD probes on this thread reuse one composition storage; freed when the solve ends.
  const internal::ScratchHold hold_scratch;
  return Solver(problem, epsilon, delta, options).Solve();
}
}  // namespace internal

}  // namespace rdpkit::accountant
