#include "rdpkit/accountant/calibrate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "rdpkit/accountant/analytic_gaussian.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "rdpkit/accountant/pld.h"

namespace rdpkit::accountant {
namespace {

using nlohmann::json;

// Bisection stops when the bracket is this narrow, relative (the boundary is met within 1e-6).
constexpr double kRelativeTolerance = 1e-8;
// Bracket expansion: the step factor starts here and is squared after every step, so the whole
// double range is crossed in about ten probes (1 → 1e-300 takes 7).
constexpr double kFirstExpansionFactor = 4.0;
constexpr int kMaxExpansions = 64;
constexpr int kMaxBisections = 400;
// An open lower end at 0 is searched down to this value (a sampling probability, ε or ρ of
// 1e-300 spends nothing measurable; anything smaller changes no ε).
constexpr double kSmallestProbe = 1e-300;

// No value of the domain meets the target (CalibrateJson reports it as bad input, exit 2).
class UnreachableTarget : public NumericalError {
 public:
  using NumericalError::NumericalError;
};

class Solver {
 public:
  Solver(const CalibrationProblem& problem, double target, double delta,
         const ConversionOptions& options)
      : problem_(problem), target_(target), delta_(delta), options_(options) {}

  // 1. The safe end of the domain (the value that spends least) is tested first, on the certified
  //    path: if it misses the target no value meets it, and that is reported at once.
  // 2. Brackets (steps growing geometrically) and bisects on the fast path, whose ε is never
  //    below the truth (convert.cc), then certifies the safe end of the final bracket.
  // 3. Should the certified ε miss the target there, bisects on the certified path between the
  //    certified safe end from step 1 and that value. The returned value is always certified.
  CalibrationResult Solve() {
    const double safe_end = SafeEnd();
    options_.certified = true;
    if (!Test(safe_end)) {
      throw UnreachableTarget(
          "no " + problem_.parameter + " in " + Domain() +
          " meets epsilon = " + FormatNumber(target_) + " at delta = " + FormatNumber(delta_) +
          ": even " + problem_.parameter + " = " + FormatNumber(safe_end) +
          " (the end of the range that spends least) gives epsilon = " +
          FormatNumber(last_epsilon_) +
          " (the rest of the event already spends too much, or the target is too small)");
    }
    const double certified_safe = safe_end;
    const EpsilonResult certified_safe_result = last_safe_;
    options_.certified = false;
    // Under kBest the probes use PLD alone where it applies (its coarse grid is an upper bound
    // too, and RDP of subsampled events can be slow); the final value is again the best one.
    const Accountant asked = options_.accountant;
    if (asked == Accountant::kBest) {
      const Event probe = problem_.make_event(safe_end);
      if (PldSupports(probe) && !GaussianCompositionMu(probe)) {
        options_.accountant = Accountant::kPld;
      }
    }
    have_safe_ = false;
    SolveWithProbes(safe_end);
    const double fast_safe = last_safe_value_;
    options_.certified = true;
    options_.accountant = asked;
    have_safe_ = false;
    if (Test(fast_safe)) return Result();
    // Certified bisection between the two; certified_safe is already known to be safe.
    last_safe_ = certified_safe_result;
    last_safe_value_ = certified_safe;
    have_safe_ = true;
    Bisect(certified_safe, fast_safe);
    return Result();
  }

 private:
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

  void SolveWithProbes(double known_safe) {
    // "safe" meets the target; "unsafe" does not. Noise parameters are safe when large,
    // everything else when small.
    std::optional<double> safe;
    std::optional<double> unsafe;
    double v = Start();
    double factor = kFirstExpansionFactor;
    for (int i = 0; i < kMaxExpansions && !(safe && unsafe); ++i, factor *= factor) {
      if (Test(v)) {
        safe = v;
        if (v == UnsafeEnd()) break;  // every value of the domain is safe
        v = Toward(v, factor, /*safe_side=*/false);
      } else {
        unsafe = v;
        if (v == SafeEnd()) break;  // cannot happen on the certified path (tested first)
        v = Toward(v, factor, /*safe_side=*/true);
      }
    }
    if (!safe) {
      // The fast path found no safe probe; the certified safe end stands in.
      safe = known_safe;
      last_safe_value_ = known_safe;
      (void)Test(known_safe);
    }
    if (unsafe) Bisect(*safe, *unsafe);
  }

  std::string Domain() const {
    return (problem_.lower_inclusive ? "[" : "(") + FormatNumber(problem_.lower) + ", " +
           FormatNumber(problem_.upper) + "]";
  }

  double Start() const {
    const double start = problem_.integer ? 1000.0 : std::max(1.0, problem_.lower * 2);
    return std::clamp(start, Floor(), problem_.upper);
  }

  bool Test(double v) {
    const Event event = problem_.make_event(v);
    const EpsilonResult eps = Epsilon(event, delta_, options_);
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

  void Bisect(double safe, double unsafe) {
    for (int i = 0; i < kMaxBisections; ++i) {
      const double lo = std::min(safe, unsafe);
      const double hi = std::max(safe, unsafe);
      double mid;
      if (problem_.integer) {
        if (hi - lo <= 1) return;
        mid = std::floor(lo + (hi - lo) / 2);
      } else {
        if (hi - lo <= kRelativeTolerance * hi) return;
        // Geometric midpoint when the bracket spans orders of magnitude, arithmetic otherwise.
        mid = (lo > 0 && hi / lo > 4) ? std::sqrt(lo) * std::sqrt(hi) : lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi) return;
      }
      if (Test(mid)) {
        safe = mid;
      } else {
        unsafe = mid;
      }
    }
  }

  const CalibrationProblem& problem_;
  double target_;
  double delta_;
  ConversionOptions options_;
  EpsilonResult last_safe_{};  // ε of the safe probe closest to the boundary
  double last_safe_value_ = 0;
  double last_epsilon_ = 0;  // ε of the latest probe
  bool have_safe_ = false;
};

// Where a "?" sits and what it means.
struct Placeholder {
  json::json_pointer pointer;
  std::string kind;   // event kind holding it
  std::string field;  // key
};

void FindPlaceholders(const json& j, const json::json_pointer& at, const std::string& kind,
                      std::vector<Placeholder>& out) {
  if (j.is_string() && j.get<std::string>() == "?") {
    out.push_back({at, kind, at.empty() ? "" : at.back()});
    return;
  }
  if (j.is_object()) {
    for (const auto& item : j.items()) {
      // An event object has one key, its kind; fields below it belong to that kind.
      const bool is_event_key = j.size() == 1 && item.value().is_object();
      FindPlaceholders(item.value(), at / item.key(), is_event_key ? item.key() : kind, out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) FindPlaceholders(j[i], at / i, kind, out);
  }
}

// composed[0].gaussian.noise_multiplier: the one path style of every message (json_input.h).
std::string Dotted(const json::json_pointer& pointer) { return JsonPathOf(pointer); }

}  // namespace

CalibrationResult Calibrate(const CalibrationProblem& problem, double epsilon, double delta,
                            const ConversionOptions& options) {
  Require(std::isfinite(epsilon) && epsilon > 0, "epsilon", epsilon, "(0, inf)");
  Require(delta > 0 && delta < 1, "delta", delta, "(0, 1)");
  options.Validate();
  if (!problem.make_event) throw InvalidArgument("make_event", "must be set");
  if (!(problem.upper > problem.lower)) {
    throw InvalidArgument("upper", FormatNumber(problem.upper),
                          "(lower, inf] with lower = " + FormatNumber(problem.lower));
  }
  return Solver(problem, epsilon, delta, options).Solve();
}

JsonCalibrationResult CalibrateJson(const json& event_with_placeholder, double epsilon,
                                    double delta, const ConversionOptions& options) {
  std::vector<Placeholder> found;
  FindPlaceholders(event_with_placeholder, json::json_pointer(), "", found);
  if (found.empty()) {
    throw InvalidArgument("event",
                          "calibrate needs exactly one numeric field given as \"?\", "
                          "found none");
  }
  if (found.size() > 1) {
    std::string list;
    for (const auto& p : found) list += (list.empty() ? "" : ", ") + Dotted(p.pointer);
    throw InvalidArgument(Dotted(found[1].pointer),
                          "calibrate solves for exactly one \"?\" field, found " +
                              std::to_string(found.size()) + ": " + list);
  }
  const Placeholder& p = found.front();
  CalibrationProblem problem;
  problem.parameter = p.field;
  // Every domain leaves out the value that answers nothing (no noise, zero runs, an empty sample,
  // a mechanism that releases nothing): a target met only there is unreachable, and reported so.
  const double kHuge = 1e15;  // search cap for unbounded parameters
  if (p.field == "noise_multiplier") {
    problem.increasing = false;
    problem.lower = 0;
    problem.upper = kHuge;
  } else if (p.field == "count" && p.kind == "self_composed") {
    // At least one run: "zero runs" meets any target but answers nothing.
    problem.increasing = true;
    problem.integer = true;
    problem.lower = 0;
    problem.lower_inclusive = false;
    problem.upper = static_cast<double>(std::uint64_t{1} << 53);
  } else if (p.field == "sampling_probability") {
    problem.increasing = true;
    problem.lower = 0;
    problem.lower_inclusive = false;
    problem.upper = 1;
  } else if (p.field == "epsilon" && (p.kind == "exponential" || p.kind == "pure_dp")) {
    problem.increasing = true;
    problem.lower = 0;
    problem.lower_inclusive = false;
    problem.upper = kHuge;
  } else if (p.field == "rho" && p.kind == "zcdp") {
    problem.increasing = true;
    problem.lower = 0;
    problem.lower_inclusive = false;
    problem.upper = kHuge;
  } else {
    throw InvalidArgument(Dotted(p.pointer),
                          "\"?\" is accepted only for noise_multiplier, count, "
                          "sampling_probability, epsilon (exponential, pure_dp) or rho (zcdp)");
  }
  // Validate the rest of the event once, with a harmless value in the placeholder's place.
  const auto with_value = [&](double v) {
    json filled = event_with_placeholder;
    if (problem.integer) {
      filled[p.pointer] = static_cast<std::uint64_t>(v);
    } else {
      filled[p.pointer] = v;
    }
    return filled;
  };
  (void)Event::FromJson(with_value(problem.integer ? 1.0 : 0.5));
  problem.make_event = [&](double v) { return Event::FromJson(with_value(v)); };
  try {
    const CalibrationResult result = Calibrate(problem, epsilon, delta, options);
    return JsonCalibrationResult{result, with_value(result.value)};
  } catch (const UnreachableTarget& unreachable) {
    // The target cannot be met by any value of the field: bad input, named by its JSON path.
    throw InvalidArgument(Dotted(p.pointer), unreachable.what());
  }
}

}  // namespace rdpkit::accountant
