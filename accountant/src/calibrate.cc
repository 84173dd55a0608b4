#include "rdpkit/accountant/calibrate.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"

namespace rdpkit::accountant {
namespace {

using nlohmann::json;

// Bisection stops when the bracket is this narrow, relative (the boundary is met within 1e-6).
constexpr double kRelativeTolerance = 1e-8;
// Bracket expansion: factor per step and the number of steps (2^200 covers any double domain).
constexpr double kExpansionFactor = 4.0;
constexpr int kMaxExpansions = 600;

class Solver {
 public:
  Solver(const CalibrationProblem& problem, double target, double delta,
         const ConversionOptions& options)
      : problem_(problem), target_(target), delta_(delta), options_(options) {}

  // Brackets and bisects on the fast (double) path, then certifies the safe end; if the certified
  // ε misses the target (fast and certified differ by ~1e-12 relative), steps toward the safe side
  // in doubling steps until the certified ε meets it. The returned value is always certified.
  CalibrationResult Solve() {
    options_.certified = false;
    SolveWithProbes();
    const double fast_safe = last_safe_value_;
    options_.certified = true;
    have_safe_ = false;
    if (Test(fast_safe)) return Result();
    double step = problem_.integer ? 1.0 : kRelativeTolerance * fast_safe;
    for (int i = 0; i < kMaxExpansions; ++i, step *= 2) {
      double v = problem_.increasing ? fast_safe - step : fast_safe + step;
      if (problem_.integer) v = problem_.increasing ? std::floor(v) : std::ceil(v);
      if (problem_.increasing
              ? (v < problem_.lower || (v == problem_.lower && !problem_.lower_inclusive))
              : v > problem_.upper) {
        break;
      }
      if (Test(v)) return Result();
    }
    throw NumericalError("the certified epsilon does not meet the target near the calibrated " +
                         problem_.parameter + " = " + FormatNumber(fast_safe));
  }

 private:
  CalibrationResult Result() const {
    return CalibrationResult{problem_.parameter, last_safe_value_,     last_safe_.epsilon, delta_,
                             last_safe_.order,   last_safe_.conversion};
  }

  void SolveWithProbes() {
    // "safe" meets the target; "unsafe" does not. Noise parameters are safe when large,
    // everything else when small.
    std::optional<double> safe;
    std::optional<double> unsafe;
    double v = Start();
    for (int i = 0; i < kMaxExpansions && !(safe && unsafe); ++i) {
      if (Test(v)) {
        safe = v;
        if (unsafe) break;
        const double next = TowardUnsafe(v);
        if (next == v) break;  // reached the edge of the domain: every value is safe
        v = next;
      } else {
        unsafe = v;
        if (safe) break;
        const double next = TowardSafe(v);
        if (next == v) break;
        v = next;
      }
    }
    if (!safe) {
      throw NumericalError("no " + problem_.parameter + " in the accepted range " + Domain() +
                           " meets epsilon = " + FormatNumber(target_) +
                           " at delta = " + FormatNumber(delta_) +
                           " (the rest of the event already spends too much, or the target is "
                           "too small)");
    }
    if (unsafe) Bisect(*safe, *unsafe);
  }

  std::string Domain() const {
    return (problem_.lower_inclusive ? "[" : "(") + FormatNumber(problem_.lower) + ", " +
           FormatNumber(problem_.upper) + "]";
  }

  double Start() const {
    if (problem_.integer) return std::max(1.0, std::min(problem_.upper, 1000.0));
    return std::min(problem_.upper, std::max(1.0, problem_.lower * 2));
  }

  bool Test(double v) {
    const Event event = problem_.make_event(v);
    const EpsilonResult eps = Epsilon(event, delta_, options_);
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

  double Up(double v) const {
    if (problem_.integer) return std::min(problem_.upper, std::max(v + 1, std::floor(v * 2)));
    return std::min(problem_.upper, v * kExpansionFactor);
  }
  double Down(double v) const {
    if (problem_.integer) {
      const double next = std::floor(v / 2);
      return std::max(problem_.lower_inclusive ? problem_.lower : problem_.lower + 1, next);
    }
    const double next = v / kExpansionFactor;
    if (next <= problem_.lower || next == 0) {
      return problem_.lower_inclusive ? problem_.lower : v;  // cannot get closer to an open end
    }
    return next;
  }
  double TowardUnsafe(double v) const { return problem_.increasing ? Up(v) : Down(v); }
  double TowardSafe(double v) const { return problem_.increasing ? Down(v) : Up(v); }

  void Bisect(double safe, double unsafe) {
    for (int i = 0; i < 400; ++i) {
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
    problem.lower_inclusive = true;
    problem.upper = 1;
  } else if (p.field == "epsilon" && (p.kind == "exponential" || p.kind == "pure_dp")) {
    problem.increasing = true;
    problem.lower = 0;
    problem.lower_inclusive = p.kind == "pure_dp";
    problem.upper = kHuge;
  } else if (p.field == "rho" && p.kind == "zcdp") {
    problem.increasing = true;
    problem.lower = 0;
    problem.lower_inclusive = true;
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
  CalibrationResult result = Calibrate(problem, epsilon, delta, options);
  return JsonCalibrationResult{result, with_value(result.value)};
}

}  // namespace rdpkit::accountant
