// ε against the number of steps of a repeated event: the privacy curve that `rdpkit plot` draws
// and rdpkit.plot_privacy_curve (Python) plots. One definition of the step grid and of the
// event at each step, so the two pictures agree.
#ifndef RDPKIT_ACCOUNTANT_PRIVACY_CURVE_H_
#define RDPKIT_ACCOUNTANT_PRIVACY_CURVE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant {

// At most `points` step counts in [1, steps], spread evenly on a log scale, always holding 1 and
// steps, sorted and distinct. steps ∈ [1, 2^53], points ∈ [2, 1000] (InvalidArgument otherwise).
[[nodiscard]] std::vector<std::uint64_t> CurveSteps(std::uint64_t steps, int points);

struct CurvePoint {
  std::uint64_t steps;  // the step event composed this many times
  EpsilonResult epsilon;
};

// ε at δ of SelfComposedEvent(count, step) for each count of CurveSteps(steps, points), by
// Epsilon (so each point is what `rdpkit epsilon` reports for that composition). steps = 0: the
// event must be a self_composed event, whose inner event is one step and whose count is the
// number of steps (InvalidArgument "steps" otherwise). on_point, if given, is called after each
// point with the points done and their total (for a progress line).
[[nodiscard]] std::vector<CurvePoint> PrivacyCurve(
    const Event& event, std::uint64_t steps, double delta, int points,
    const ConversionOptions& options = {},
    const std::function<void(std::size_t done, std::size_t total)>& on_point = {});

}  // namespace rdpkit::accountant

#endif  // RDPKIT_ACCOUNTANT_PRIVACY_CURVE_H_
