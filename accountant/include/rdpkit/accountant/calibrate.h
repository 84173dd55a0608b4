// Noise calibration (DESIGN.md §1): solve one parameter of an event so that it meets a target
// (ε, δ). The search keeps a bracket whose safe end is certified, so the returned value never
// gives an ε above the target; it stops within 1e-8 relative of the boundary where RDP or the
// exact Gaussian accountant answers, 1e-5 where PLD does (integers: exact).
#ifndef RDPKIT_ACCOUNTANT_CALIBRATE_H_
#define RDPKIT_ACCOUNTANT_CALIBRATE_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant {

struct CalibrationProblem {
  // Builds the event for a parameter value (may throw InvalidArgument outside the domain).
  std::function<Event(double)> make_event;
  std::string parameter;         // name reported to the user, e.g. "noise_multiplier"
  bool increasing = false;       // true: ε grows with the parameter (count, q, ε); false: noise
  bool integer = false;          // the parameter is a whole number (a count)
  double lower = 0;              // open lower end of the domain
  double upper = 0;              // closed upper end of the domain
  bool lower_inclusive = false;  // the lower end itself is allowed (e.g. count 0, q 0)
};

struct CalibrationResult {
  std::string parameter;
  double value;    // the safe value: ε(value) ≤ target
  double epsilon;  // certified ε at value
  double delta;
  double order;                              // rdp: the order of the certified ε
  Conversion conversion;                     // rdp: its conversion
  Accountant accountant = Accountant::kRdp;  // the accountant of the certified ε
  double mu = 0;                             // gaussian: μ of the composition
};

// Throws UnreachableTarget (a NumericalError) when no value in the domain meets the target.
[[nodiscard]] CalibrationResult Calibrate(const CalibrationProblem& problem, double epsilon,
                                          double delta, const ConversionOptions& options = {});

// The event JSON holds exactly one numeric field given as the string "?"; solves for it.
// Returns the result and the completed event.
struct JsonCalibrationResult {
  CalibrationResult result;
  nlohmann::json event;
};
[[nodiscard]] JsonCalibrationResult CalibrateJson(const nlohmann::json& event_with_placeholder,
                                                  double epsilon, double delta,
                                                  const ConversionOptions& options = {});

}  // namespace rdpkit::accountant

#endif  // RDPKIT_ACCOUNTANT_CALIBRATE_H_
