// Shared by calibrate.cc (the solver), calibrate_grids.cc (where its probes aim) and
// calibrate_json.cc (the "?" placeholder of an event).
#ifndef RDPKIT_ACCOUNTANT_SRC_CALIBRATE_INTERNAL_H_
#define RDPKIT_ACCOUNTANT_SRC_CALIBRATE_INTERNAL_H_

#include <optional>

#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant::internal {

// The solver alone (calibrate.cc), on validated arguments: Calibrate (calibrate_json.cc) adds the
// checks of its arguments and, under best, RDP's cross-check of a loose PLD answer.
CalibrationResult SolveCalibration(const CalibrationProblem& problem, double epsilon, double delta,
                                   const ConversionOptions& options);

// The estimated drop of log ε from the calibration probes' grid (kPldProbeOptions), where its ε
// is probe_epsilon, to the reported grid of 2^log2_points points, for `event` at δ
// (calibrate_grids.cc): 0 where the probes already run on the reported grid, or where the
// halving before it cannot be measured; nullopt where a grid gives no finite ε. Throws
// NumericalError as PldEpsilon. Aims Land()'s pair only.
std::optional<double> ReportedGridDrop(const Event& event, double delta, double probe_epsilon,
                                       int log2_points);

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_CALIBRATE_INTERNAL_H_
