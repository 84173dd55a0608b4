// The entry points of calibrate.h: Calibrate (its arguments checked, the solver of calibrate.cc,
// and under best RDP's cross-check of a loose PLD answer), and CalibrateJson, which finds the one
// "?" field of an event, sets the domain its field implies and solves with Calibrate.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "calibrate_internal.h"
#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"

namespace rdpkit::accountant {
namespace {

using nlohmann::json;

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
  const CalibrationResult result = internal::SolveCalibration(problem, epsilon, delta, options);
  // Under best, PLD's probes can stop far short of the target where PLD's ε is not monotone in
  // the parameter (tiny δ, bounded-range parts: 200 sampled exponential steps at δ = 1e-30 gave
  // ε = 4.07 for a target of 8.1). Then RDP solves too, and the value that spends more of the
  // target wins (both are certified).
  constexpr double kLooseAnswer = 1e-3;  // relative distance below the target
  const bool at_end = problem.increasing && result.value == problem.upper;
  if (options.accountant != Accountant::kBest || result.accountant != Accountant::kPld || at_end ||
      result.epsilon >= epsilon * (1 - kLooseAnswer)) {
    return result;
  }
  ConversionOptions rdp = options;
  rdp.accountant = Accountant::kRdp;
  try {
    const CalibrationResult by_rdp = internal::SolveCalibration(problem, epsilon, delta, rdp);
    const bool spends_more =
        problem.increasing ? by_rdp.value > result.value : by_rdp.value < result.value;
    return spends_more ? by_rdp : result;
  } catch (const NumericalError&) {
    return result;  // RDP finds no value: PLD's answer stands
  }
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
  // A Rényi filter's curve is its budget's (individual.h), whatever its event's parameters: a
  // "?" there has no answer, and a search would return the edge of its range.
  std::string path = p.pointer.to_string();
  path += '/';
  if (path.find("/renyi_filter/") != std::string::npos) {
    throw InvalidArgument(Dotted(p.pointer),
                          "\"?\" inside a renyi_filter, whose privacy curve is set by its order "
                          "and budget alone: there is nothing to solve for (calibrate an event "
                          "without the filter)");
  }
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
