#include "rdpkit/accountant/run_calibration.h"

#include <cmath>
#include <limits>
#include <string>

#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/individual.h"

namespace rdpkit::accountant {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The budget is T·(per-round cost) raised by this relative slack, so that a worst-case record
// charged T times with sums rounded up (≤ T ulps, i.e. ≤ T·2^-52 relative) still fits in T rounds
// for T up to 4.5 million.
constexpr double kBudgetSlack = 1e-9;

Event RoundEvent(const TrainingRunProblem& p, double sigma) {
  if (p.leaf_noise_weights.empty())
    return PoissonSampledEvent(p.sampling_probability, GaussianEvent(sigma));
  return PoissonSampledEvent(p.sampling_probability,
                             LeafBalancedGaussianEvent(sigma, p.leaf_noise_weights));
}

Event RunEvent(const TrainingRunProblem& p, double sigma) {
  std::vector<Event> parts;
  parts.push_back(SelfComposedEvent(p.rounds, RoundEvent(p, sigma)));
  for (const Event& e : p.extra_events) parts.push_back(e);
  return ComposedEvent(std::move(parts));
}

// The event of the filtered run: up to rounds + extra_rounds rounds under a Rényi filter at
// `order` with per-record `budget` (Feldman & Zrnic 2021, Thm 4.5), then the extra events. Its
// curve is finite at `order` only, so Epsilon(event, δ) evaluates there: the ε recorded for a
// run is exactly what `rdpkit epsilon --event <event> --delta δ` gives back.
Event FilteredRunEvent(const TrainingRunProblem& p, double sigma, double order, double budget) {
  std::vector<Event> parts;
  parts.push_back(RenyiFilterEvent(order, budget, p.rounds + p.extra_rounds, RoundEvent(p, sigma)));
  for (const Event& e : p.extra_events) parts.push_back(e);
  return ComposedEvent(std::move(parts));
}

}  // namespace

void TrainingRunProblem::Validate() const {
  Require(std::isfinite(epsilon) && epsilon > 0, "epsilon", epsilon, "(0, inf)");
  Require(delta > 0 && delta < 1, "delta", delta, "(0, 1)");
  Require(rounds >= 1 && rounds <= (std::uint64_t{1} << 53), "rounds", static_cast<double>(rounds),
          "[1, 2^53]");
  Require(extra_rounds <= (std::uint64_t{1} << 53) - rounds, "extra_rounds",
          static_cast<double>(extra_rounds), "[0, 2^53 - rounds]");
  Require(sampling_probability > 0 && sampling_probability <= 1, "sampling_probability",
          sampling_probability, "(0, 1]");
  if (!leaf_noise_weights.empty()) (void)LeafBalancedGaussianEvent(1.0, leaf_noise_weights);
  ConversionOptions options;
  options.orders = orders;
  options.Validate();
}

TrainingRunCalibration CalibrateTrainingRun(const TrainingRunProblem& problem) {
  problem.Validate();
  CalibrationProblem cp;
  cp.parameter = "noise_multiplier";
  cp.increasing = false;
  cp.lower = 0;
  cp.upper = 1e15;
  cp.make_event = [&](double sigma) { return RunEvent(problem, sigma); };
  // Integer orders by default (as S-BDT Alg. 6): the tight subsampling bound is exact there and the
  // filter's per-record table is cheap to build. 2..256, then steps of 5% up to 1e5.
  ConversionOptions options;
  options.orders = problem.orders;
  // The filter is an RDP filter: σ and α̂ come from the RDP curve even where another accountant
  // would give a smaller ε for the unfiltered run.
  options.accountant = Accountant::kRdp;
  if (options.orders.empty()) {
    for (int a = 2; a <= 256; ++a) options.orders.push_back(a);
    for (double a = 256; a < kMaxOrder;) {
      a = std::ceil(a * 1.05);
      options.orders.push_back(std::min(a, kMaxOrder));
    }
  }
  const CalibrationResult found = Calibrate(cp, problem.epsilon, problem.delta, options);
  double sigma = found.value;
  const std::vector<double> weights =
      problem.leaf_noise_weights.empty() ? std::vector<double>{1.0} : problem.leaf_noise_weights;
  // The slack on the budget costs ~1e-9 relative in ε; if that crosses the target, a slightly
  // larger σ (1e-9 steps) restores it.
  for (int attempt = 0; attempt < 64; ++attempt, sigma *= 1 + 1e-9) {
    const double order = found.order;
    // Per-round worst case, computed both as the event (what ε accounts for) and as the filter
    // table does (what records are charged); the larger is used.
    const double by_event = RdpCertified(RoundEvent(problem, sigma), order).upper;
    const double by_table =
        IndividualRdpTable(sigma, weights, problem.sampling_probability, order, 1).WorstCase();
    const double round_rdp = std::max(by_event, by_table);
    const double budget =
        std::nextafter(static_cast<double>(problem.rounds) * round_rdp * (1 + kBudgetSlack), kInf);
    Event event = FilteredRunEvent(problem, sigma, order, budget);
    const EpsilonResult eps = Epsilon(event, problem.delta);
    if (eps.epsilon <= problem.epsilon) {
      return TrainingRunCalibration{sigma,       order,         round_rdp,      budget,
                                    eps.epsilon, problem.delta, eps.conversion, std::move(event)};
    }
  }
  throw NumericalError(
      "training-run calibration: the certified epsilon with the filter budget "
      "stays above the target");
}

}  // namespace rdpkit::accountant
