// How far the reported grid's ε lies below the calibration probes' grid's (calibrate.cc, Land):
// one halving of the grid step measured at the probes' root, extrapolated to the reported grid
// (docs/math/pld.md §5 plans the grids). A numerical aim only: no value is certified here.
#include <algorithm>
#include <cmath>
#include <optional>

#include "calibrate_internal.h"
#include "pld_internal.h"
#include "rdpkit/accountant/pld.h"

namespace rdpkit::accountant::internal {
namespace {

// How much less log ε moves at the halving onto the reported grid (step h) than at the halving
// before it, by how many h the resolution rule's step holds (pld.md §5). Measured on the
// trainer's Poisson-subsampled runs (bench/accountant_bench.cc; 300–5000 rounds, δ 1e-3–1e-5,
// ε 0.1–1): 4.10–4.15 where it holds 2, 4.3–5.0 where 4, 6.1–7.2 where 8 or 16.
double HalvingRatio(double resolution_multiple) {
  if (resolution_multiple <= 2) return 4.1;
  if (resolution_multiple <= 4) return 4.6;
  return 6.5;
}

}  // namespace

std::optional<double> ReportedGridDrop(const Event& event, double delta, double probe_epsilon,
                                       int log2_points) {
  const int coarser_points = std::max(10, log2_points - 1);
  const int coarsest_points = std::max(10, log2_points - 2);
  const PldOptions coarser{coarser_points, std::max(coarser_points, 20)};
  const PldOptions coarsest{coarsest_points, coarsest_points};  // the width rule alone
  const PldOptions reported{log2_points, std::max(log2_points, 20)};
  const PldGridPlan plan =
      PlanPldGrids(event, delta, {kPldProbeOptions, coarser, coarsest, reported});
  const double probes = plan.steps[0];
  const double h = plan.steps[3];
  if (!(h > 0 && probe_epsilon > 0 && std::isfinite(probe_epsilon))) return std::nullopt;
  if (probes == h) return 0.0;
  const double ratio = HalvingRatio(plan.resolution_step / h);
  const auto valid = [](double epsilon) { return epsilon > 0 && std::isfinite(epsilon); };
  if (probes == plan.steps[1]) {
    // The probes' grid is already the coarser one (many rounds: the resolution rule refines
    // it): the halving onto it, measured from twice its step, over the ratio; without that grid,
    // no estimate (the reported grid's first probe measures the drop).
    if (!(probes == 2 * h && plan.steps[2] == 2 * probes)) return 0.0;
    const double coarsest_epsilon = PldEpsilon(event, delta, coarsest);
    if (!valid(coarsest_epsilon)) return std::nullopt;
    return std::abs(std::log(coarsest_epsilon / probe_epsilon)) / ratio;
  }
  // The probes' grid is coarser (4h at 300 rounds): the drop onto the coarser grid, measured,
  // plus that over the ratio for the halving on to the reported grid.
  const double coarser_epsilon = PldEpsilon(event, delta, coarser);
  if (!valid(coarser_epsilon)) return std::nullopt;
  const double drop = std::log(probe_epsilon / coarser_epsilon);
  return drop + std::abs(drop) / ratio;
}

}  // namespace rdpkit::accountant::internal
