#include "rdpkit/trees/accounting.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "query_plan.h"
#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/run_calibration.h"
#include "rounding.h"
#include "softmax.h"
#include "statistics.h"

namespace rdpkit::trees {

using accountant::Event;
using internal::QueryPlan;
using internal::QuerySchedule;

namespace {

// Calibrates σ by calibrate(); an ε that no σ meets (too small, or spent by the initial score's
// share alone) is bad input: InvalidArgument naming privacy.epsilon and what to change.
template <class Calibration>
auto CalibrateOrRefuse(const TrainerConfig& config, Calibration&& calibrate) {
  try {
    return calibrate();
  } catch (const UnreachableTarget& error) {
    std::string advice = "raise privacy.epsilon";
    if (config.initial_score) {
      advice += " or lower initial_score.epsilon_share (" +
                FormatNumber(config.initial_score->epsilon_share) +
                " of it goes to the initial score)";
    }
    throw InvalidArgument("privacy.epsilon", std::string(error.what()) + ": " + advice);
  }
}

}  // namespace

QueryShape QueryShape::AllNumeric(int n_features) {
  return QueryShape{n_features, n_features, n_features};
}

nlohmann::json QueryCounts::ToJson() const {
  return {{"candidate", candidate},
          {"split", split},
          {"leaf", leaf},
          {"split_kind", exponential ? "exponential" : "gaussian"}};
}

QueryCounts CountQueries(const TrainerConfig& config, const QueryShape& shape) {
  // The plan's schedule, summed (Maddock Table 1): the per-tree counts come from the split
  // strategy (trees/src/split_*.cc), the Hessian histograms from iterative_hessian.
  const QuerySchedule schedule = QuerySchedule::Of(config, shape);
  QueryCounts c;
  const internal::TreeQueries totals = schedule.Totals();
  c.candidate = totals.candidate;
  c.split = totals.split;
  c.leaf = totals.leaf;
  c.exponential = schedule.exponential_splits;
  const internal::TreeQueries& last = schedule.runs.back().second;
  c.split_per_tree = last.split;
  c.leaf_per_tree = last.leaf;
  if (schedule.runs.front().second.candidate > 0) {
    c.ih_rounds = schedule.runs.front().first;
    c.candidate_per_round = schedule.runs.front().second.candidate;
  }
  return c;
}

// hypot: no underflow of a² for tiny clips, within one ulp of √(a² + b²); rounded up.
double Sensitivities::pair() const { return internal::RoundedUp(std::hypot(a, b), 1); }

Sensitivities StatisticSensitivities(const TrainerConfig& config, int n_classes) {
  if (TaskOfObjective(config.objective) == Task::kMulticlass) {
    return internal::MulticlassSensitivities(config, n_classes);
  }
  const bool binary = TaskOfObjective(config.objective) == Task::kBinary;
  Sensitivities s;
  if (config.leaf_update == LeafUpdate::kAveraging) {
    // Maddock §4.4.1: (y, 1) per record; regression labels are clipped to [−g*, g*].
    s.a = binary ? 1.0 : config.gradient_clip;
    s.b = 1;
  } else {
    // Binary cross-entropy: g = p − y ∈ (−1, 1), h = p(1 − p) ∈ (0, 1/4] (Maddock §4.2);
    // clipping (S-BDT §4.2) can only lower the bounds. Squared error: g = F − y clipped to g*,
    // h = 1.
    s.a = binary ? std::min(config.gradient_clip, 1.0) : config.gradient_clip;
    if (config.leaf_update == LeafUpdate::kNewton) {
      s.b = binary ? std::min(config.hessian_clip, 0.25) : std::min(config.hessian_clip, 1.0);
    } else {
      s.b = 1;  // gradient update: (g, 1), Maddock §4.4.2
    }
  }
  return s;
}

double ExponentialEpsilon(const QueryCounts& counts, double noise_multiplier) {
  if (counts.split == 0 || counts.leaf == 0) return 1 / noise_multiplier;
  // Equal zCDP-equivalent shares: κ_s·ε²/8 = κ_w/(2σ²) (Bun–Steinke 2016 Prop. 1.4 for ε-DP
  // selections vs Gaussian ρ = 1/(2σ²)).
  return 2 * std::sqrt(static_cast<double>(counts.leaf) / static_cast<double>(counts.split)) /
         noise_multiplier;
}

Event PlannedEvent(const TrainerConfig& config, const QueryShape& shape, double noise_multiplier) {
  return QueryPlan(config, QuerySchedule::Of(config, shape), noise_multiplier).ScheduledEvent();
}

double DefaultDelta(std::size_t n_rows) {
  // 10^−k with 10^k the smallest power of ten above n: δ < 1/n (δ ≪ 1/n is the usual advice,
  // Dwork & Roth 2014 §2.3), and δ reveals only the number of decimal digits of n.
  double power = 10;
  for (std::size_t bound = 10; bound <= n_rows && power < 1e300; bound *= 10) {
    power *= 10;
    if (bound > std::numeric_limits<std::size_t>::max() / 10) break;
  }
  return 1 / power;
}

const char* DefaultDeltaSource() {
  return "default: the largest power of ten below 1/n, n the number of training rows (the "
         "released delta reveals the number of decimal digits of n)";
}

PrivacyPlan PlanPrivacy(const TrainerConfig& config, std::size_t n_rows, const QueryShape& shape) {
  PrivacyPlan plan;
  const QuerySchedule schedule = QuerySchedule::Of(config, shape);
  plan.counts = CountQueries(config, shape);
  plan.sensitivities = StatisticSensitivities(config, shape.n_classes);
  if (config.non_private || !config.privacy) return plan;
  if (n_rows > internal::kMaxPrivateRows) {
    // The exact sums and the exponential splits' utility margin hold up to this (statistics.h).
    throw InvalidArgument("data", std::to_string(n_rows) + " training rows",
                          "[1, " + std::to_string(internal::kMaxPrivateRows) +
                              "] for a private run (docs/trees_training.md \"Exact sums\")");
  }
  if (config.privacy->delta) {
    plan.delta = *config.privacy->delta;
    // δ ≥ 1/n admits mechanisms that publish a whole record (e.g. one chosen at random is
    // (0, 1/n)-DP), so it is refused unless the user accepts it by name.
    if (!config.privacy->allow_large_delta && n_rows > 0 &&
        plan.delta >= 1.0 / static_cast<double>(n_rows)) {
      throw InvalidArgument("privacy.delta", FormatNumber(plan.delta),
                            "(0, 1/n) with n = " + std::to_string(n_rows) +
                                " training rows, i.e. below " +
                                FormatNumber(1.0 / static_cast<double>(n_rows)) +
                                " (a delta of 1/n or more admits releasing a whole record; set "
                                "privacy.allow_large_delta: true to accept it anyway)");
    }
  } else {
    plan.delta = DefaultDelta(n_rows);
    plan.delta_from_n = true;
  }
  if (config.initial_score) {
    plan.initial_score_epsilon = config.initial_score->epsilon_share * config.privacy->epsilon;
  }
  const auto start = std::chrono::steady_clock::now();
  if (config.renyi_filter) {
    // S-BDT §6.5 / Alg. 6: T regular rounds of one (subsampled) leaf query each, the initial
    // score as a fixed extra event; the filter budget is T × the worst-case round RDP at α̂, so
    // the extra rounds only spend what records have left (Feldman & Zrnic 2021, Thm 4.5).
    RDPKIT_CHECK(plan.counts.candidate == 0 && plan.counts.split == 0 &&
                 plan.counts.leaf_per_tree == 1);
    accountant::TrainingRunProblem run;
    run.epsilon = config.privacy->epsilon;
    run.delta = plan.delta;
    run.rounds = static_cast<std::uint64_t>(config.n_estimators);
    run.extra_rounds = static_cast<std::uint64_t>(config.renyi_filter->extra_rounds);
    run.sampling_probability = config.subsample;
    run.leaf_noise_weights = config.leaf_noise_weights;
    if (auto initial = QueryPlan::InitialScoreEvent(config)) run.extra_events.push_back(*initial);
    const accountant::TrainingRunCalibration result =
        CalibrateOrRefuse(config, [&] { return accountant::CalibrateTrainingRun(run); });
    plan.noise_multiplier = result.noise_multiplier;
    plan.epsilon = result.epsilon;
    plan.filter_order = result.order;
    plan.filter_budget = result.budget;
    // The event the query plan's mechanisms report under this filter is the one just certified.
    QueryPlan query_plan(config, schedule, plan.noise_multiplier);
    query_plan.UseRenyiFilter(plan.filter_order, plan.filter_budget);
    plan.event = query_plan.ScheduledEvent();
    RDPKIT_CHECK(plan.event->ToJson() == result.event.ToJson());
    plan.calibration_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return plan;
  }
  accountant::CalibrationProblem problem;
  problem.make_event = [&](double sigma) {
    return QueryPlan(config, schedule, sigma).ScheduledEvent();
  };
  problem.parameter = "noise_multiplier";
  problem.increasing = false;
  problem.lower = 0;
  problem.upper = 1e12;
  const accountant::CalibrationResult result = CalibrateOrRefuse(
      config, [&] { return accountant::Calibrate(problem, config.privacy->epsilon, plan.delta); });
  plan.noise_multiplier = result.value;
  plan.epsilon = result.epsilon;
  plan.accountant = result.accountant;
  const QueryPlan query_plan(config, schedule, plan.noise_multiplier);
  plan.event = query_plan.ScheduledEvent();
  plan.exponential_epsilon = query_plan.exponential_epsilon();
  plan.calibration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace rdpkit::trees
