#include "rdpkit/trees/accounting.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/run_calibration.h"

namespace rdpkit::trees {
namespace {

using accountant::ComposedEvent;
using accountant::Event;
using accountant::ExponentialEvent;
using accountant::GaussianEvent;
using accountant::LaplaceEvent;
using accountant::LeafBalancedGaussianEvent;
using accountant::PoissonSampledEvent;
using accountant::SelfComposedEvent;

// Number of features a tree may split on (Maddock §5.1: k-way interactions; "all" = m).
int FeaturesPerTree(const TrainerConfig& config, int n_features) {
  switch (config.feature_interaction.method) {
    case InteractionMethod::kAll:
      return n_features;
    case InteractionMethod::kCyclical:
    case InteractionMethod::kRandom:
      return std::min(config.feature_interaction.k, n_features);
  }
  RDPKIT_CHECK(false);  // a value outside the enumeration
  return 0;
}

// Event of one (a, b) pair query (histogram cell vector, partially random sums, leaf sums):
// spherical Gaussian of L2 sensitivity √(s_a² + s_b²), or leaf-balanced noise (S-BDT §5.2).
Event PairEvent(const TrainerConfig& config, double sigma) {
  if (config.leaf_noise_weights.empty()) return GaussianEvent(sigma);
  return LeafBalancedGaussianEvent(sigma, config.leaf_noise_weights);
}

// The RDP curve of a pair query is α·c; c = 1/(2σ²) (Mironov 2017) or D·Σr_d/(2σ²) = 1/σ²
// (S-BDT Cor. 17, D = 2, Σr = 1).
double PairSlope(const TrainerConfig& config, double sigma) {
  return config.leaf_noise_weights.empty() ? 1 / (2 * sigma * sigma) : 1 / (sigma * sigma);
}

void AddRepeated(std::vector<Event>& parts, std::uint64_t count, const Event& event) {
  if (count == 0) return;
  if (count == 1) {
    parts.push_back(event);
  } else {
    parts.push_back(SelfComposedEvent(count, event));
  }
}

Event Compose(std::vector<Event> parts) {
  RDPKIT_CHECK(!parts.empty());
  if (parts.size() == 1) return parts.front();
  return ComposedEvent(std::move(parts));
}

// The queries of one tree (for Poisson subsampling, S-BDT §6.3): with only Gaussian-type queries
// the composition is again a Gaussian-type curve α·c (linear in α), written as one Gaussian with
// σ_eff = 1/√(2c) so that the accountant can use the tight Zhu–Wang bound (S-BDT Lem. 15).
Event TreeEvent(const TrainerConfig& config, const QueryCounts& counts, double sigma, bool ih) {
  const std::uint64_t hessian = ih ? counts.candidate_per_round : 0;
  if (counts.exponential) {
    std::vector<Event> parts;
    AddRepeated(parts, hessian, GaussianEvent(sigma));
    AddRepeated(parts, counts.split_per_tree, ExponentialEvent(ExponentialEpsilon(counts, sigma)));
    AddRepeated(parts, counts.leaf_per_tree, PairEvent(config, sigma));
    return Compose(std::move(parts));
  }
  const std::uint64_t pairs = counts.split_per_tree + counts.leaf_per_tree;
  if (hessian == 0 && pairs == 1) return PairEvent(config, sigma);
  if (pairs == 0 && hessian == 1) return GaussianEvent(sigma);
  const double slope = static_cast<double>(hessian) / (2 * sigma * sigma) +
                       static_cast<double>(pairs) * PairSlope(config, sigma);
  return GaussianEvent(1 / std::sqrt(2 * slope));
}

// Split and leaf queries per tree of a split method with k features per tree and depth d.
void SplitQueriesPerTree(SplitMethod split, std::uint64_t k, std::uint64_t depth, QueryCounts& c) {
  switch (split) {
    case SplitMethod::kTotallyRandom:
      // Maddock §4.3.2: TR splits are data independent (κ_s = 0); one leaf query per tree.
      c.leaf_per_tree = 1;
      return;
    case SplitMethod::kPartiallyRandom:
      if (k == 1) {
        // With one feature per tree the random candidate is the only choice: the split is data
        // independent, as in TR (κ_s = 0, κ_w = T).
        c.leaf_per_tree = 1;
      } else {
        // Maddock §4.3.2: one (left, right, missing) sum query per feature per level; nodes of a
        // level are disjoint. The last level's sums give the leaves (κ_w = 0, Table 1).
        c.split_per_tree = k * depth;
      }
      return;
    case SplitMethod::kHistogram:
      // Maddock §4.3.1, §5.1: one histogram per feature per level (κ_s = T·k·d); with k = 1 the
      // root histogram serves every level (κ_s = T). Leaves come from the last histograms
      // (κ_w = 0).
      c.split_per_tree = k == 1 ? 1 : k * depth;
      return;
    case SplitMethod::kExponential:
      // Revisiting DP-XGBoost §4.2: one exponential selection per level (nodes are disjoint),
      // then one leaf query per tree.
      c.exponential = true;
      c.split_per_tree = depth;
      c.leaf_per_tree = 1;
      return;
  }
  RDPKIT_CHECK(false);  // a value outside the enumeration
}

}  // namespace

nlohmann::json QueryCounts::ToJson() const {
  return {{"candidate", candidate},
          {"split", split},
          {"leaf", leaf},
          {"split_kind", exponential ? "exponential" : "gaussian"}};
}

QueryCounts CountQueries(const TrainerConfig& config, int n_features) {
  QueryCounts c;
  const auto trees = static_cast<std::uint64_t>(config.n_estimators);
  const auto depth = static_cast<std::uint64_t>(config.max_depth);
  const auto k = static_cast<std::uint64_t>(FeaturesPerTree(config, n_features));
  const bool ih = config.split_candidates.method == CandidateMethod::kIterativeHessian;
  const SplitMethod split = config.split_method;
  SplitQueriesPerTree(split, k, depth, c);
  if (ih && split != SplitMethod::kHistogram) {
    // Maddock §4.5.2: without histograms, IH costs one Hessian histogram per feature in each of
    // the first s rounds (κ_c = s·m); with histogram splits it is post-processing (κ_c = 0).
    c.ih_rounds =
        std::min<std::uint64_t>(static_cast<std::uint64_t>(config.split_candidates.rounds), trees);
    c.candidate_per_round = static_cast<std::uint64_t>(n_features);
  }
  c.candidate = c.ih_rounds * c.candidate_per_round;
  c.split = trees * c.split_per_tree;
  c.leaf = trees * c.leaf_per_tree;
  return c;
}

double Sensitivities::pair() const { return std::sqrt(a * a + b * b); }

Sensitivities StatisticSensitivities(const TrainerConfig& config) {
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

Event BuildEvent(const TrainerConfig& config, const QueryCounts& counts, double sigma) {
  std::vector<Event> parts;
  if (config.initial_score) {
    RDPKIT_CHECK(config.privacy.has_value());
    // S-BDT §6.2: a noisy count and a noisy sum of clipped labels, each with the Laplace
    // mechanism at half the initial-score budget (noise_multiplier = 1/ε).
    const double epsilon_half = config.initial_score->epsilon_share * config.privacy->epsilon / 2;
    parts.push_back(SelfComposedEvent(2, LaplaceEvent(1 / epsilon_half)));
  }
  if (config.subsample < 1) {
    const auto trees = static_cast<std::uint64_t>(config.n_estimators);
    AddRepeated(parts, counts.ih_rounds,
                PoissonSampledEvent(config.subsample, TreeEvent(config, counts, sigma, true)));
    AddRepeated(parts, trees - counts.ih_rounds,
                PoissonSampledEvent(config.subsample, TreeEvent(config, counts, sigma, false)));
    return Compose(std::move(parts));
  }
  AddRepeated(parts, counts.candidate, GaussianEvent(sigma));
  if (counts.exponential) {
    AddRepeated(parts, counts.split, ExponentialEvent(ExponentialEpsilon(counts, sigma)));
  } else {
    AddRepeated(parts, counts.split, PairEvent(config, sigma));
  }
  AddRepeated(parts, counts.leaf, PairEvent(config, sigma));
  return Compose(std::move(parts));
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

PrivacyPlan PlanPrivacy(const TrainerConfig& config, std::size_t n_rows, int n_features) {
  PrivacyPlan plan;
  plan.counts = CountQueries(config, n_features);
  plan.sensitivities = StatisticSensitivities(config);
  if (config.non_private || !config.privacy) return plan;
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
    if (config.initial_score) {
      const double epsilon_half = plan.initial_score_epsilon / 2;
      run.extra_events.push_back(SelfComposedEvent(2, LaplaceEvent(1 / epsilon_half)));
    }
    const accountant::TrainingRunCalibration result = accountant::CalibrateTrainingRun(run);
    plan.noise_multiplier = result.noise_multiplier;
    plan.epsilon = result.epsilon;
    plan.event = result.event;
    plan.filter_order = result.order;
    plan.filter_budget = result.budget;
    plan.calibration_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return plan;
  }
  accountant::CalibrationProblem problem;
  problem.make_event = [&](double sigma) { return BuildEvent(config, plan.counts, sigma); };
  problem.parameter = "noise_multiplier";
  problem.increasing = false;
  problem.lower = 0;
  problem.upper = 1e12;
  const accountant::CalibrationResult result =
      accountant::Calibrate(problem, config.privacy->epsilon, plan.delta);
  plan.noise_multiplier = result.value;
  plan.epsilon = result.epsilon;
  plan.event = BuildEvent(config, plan.counts, plan.noise_multiplier);
  if (plan.counts.exponential) {
    plan.exponential_epsilon = ExponentialEpsilon(plan.counts, plan.noise_multiplier);
  }
  plan.calibration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace rdpkit::trees
