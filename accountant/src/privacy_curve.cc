// ε against steps (privacy_curve.h).
#include "rdpkit/accountant/privacy_curve.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant {

std::vector<std::uint64_t> CurveSteps(std::uint64_t steps, int points) {
  constexpr double kMaxSteps = 9007199254740992.0;  // 2^53, SelfComposedEvent's largest count
  Require(steps >= 1 && static_cast<double>(steps) <= kMaxSteps, "steps",
          static_cast<double>(steps), "[1, 2^53]");
  Require(points >= 2 && points <= 1000, "points", points, "[2, 1000]");
  std::vector<std::uint64_t> out;
  const double log_steps = std::log(static_cast<double>(steps));
  for (int i = 0; i < points; ++i) {
    // Evenly spaced in log(count): count_i = steps^(i/(points−1)), rounded.
    const double count = std::round(std::exp(log_steps * i / (points - 1)));
    out.push_back(std::clamp(static_cast<std::uint64_t>(count), std::uint64_t{1}, steps));
  }
  out.front() = 1;
  out.back() = steps;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<CurvePoint> PrivacyCurve(
    const Event& event, std::uint64_t steps, double delta, int points,
    const ConversionOptions& options,
    const std::function<void(std::size_t done, std::size_t total)>& on_point) {
  const Event* step = &event;
  if (steps == 0) {
    const auto* composed = event.get_if<SelfComposedEvent>();
    if (composed == nullptr) {
      throw InvalidArgument("steps",
                            "missing: give the number of steps, or a self_composed event (its "
                            "count is the number of steps)");
    }
    step = &composed->event();
    steps = composed->count();
  }
  // Checked before any point is computed (the last point's event would refuse it, as a count).
  if (steps > (std::uint64_t{1} << 53)) {
    throw InvalidArgument("steps", std::to_string(steps), "whole numbers in [1, 2^53]");
  }
  std::vector<CurvePoint> curve;
  const std::vector<std::uint64_t> counts = CurveSteps(steps, points);
  for (const std::uint64_t count : counts) {
    curve.push_back({count, Epsilon(SelfComposedEvent(count, *step), delta, options)});
    if (on_point) on_point(curve.size(), counts.size());
  }
  return curve;
}

}  // namespace rdpkit::accountant
