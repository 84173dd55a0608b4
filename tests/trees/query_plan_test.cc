// The query plan (trees/src/query_plan.h): the run's event is the composition of its mechanisms'
// events over what was released, and a release the schedule did not count, or a scheduled query
// the run left out, is an InternalError.
#include "query_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/mechanisms/random.h"
#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/train.h"
#include "statistics.h"
#include "synthetic_data.h"

namespace rdpkit::trees::internal {
namespace {

using nlohmann::json;

TrainerConfig Config(json j) {
  if (!j.contains("privacy") && !j.contains("non_private")) j["privacy"] = {{"epsilon", 1.0}};
  j["seed"] = 3;
  return TrainerConfig::FromJson(j);
}

// Two trees of depth 2 with totally random splits: one leaf query each.
QuerySchedule TwoLeafTrees() {
  QuerySchedule schedule;
  schedule.AddTrees(2, TreeQueries{.leaf = 1});
  return schedule;
}

TEST(QueryPlan, AFaithfulRunReleasesExactlyTheScheduledEvent) {
  const TrainerConfig config = Config({{"n_estimators", 2}});
  auto rng = mechanisms::Random::Seeded(1);
  QueryPlan plan(config, TwoLeafTrees(), 3.0, &rng);
  std::vector<Pair> leaves(4);
  for (int t = 0; t < 2; ++t) {
    plan.BeginTree();
    plan.ReleaseSums(Release::kLeaf, leaves.data(), 1, 4, 4);
    plan.EndTree();
  }
  EXPECT_EQ(plan.ReleasedEvent().ToJson(), plan.ScheduledEvent().ToJson());
  EXPECT_EQ(plan.ReleasedEvent().ToJson(),
            json::parse(R"({"self_composed": {"count": 2, "event": {"gaussian":
                        {"noise_multiplier": 3.0}}}})"));
}

TEST(QueryPlan, AReleaseTheScheduleDidNotCountIsAnInternalError) {
  const TrainerConfig config = Config({{"n_estimators", 2}});
  auto rng = mechanisms::Random::Seeded(1);
  std::vector<Pair> cells(4);
  {
    // A second leaf query in one tree.
    QueryPlan plan(config, TwoLeafTrees(), 3.0, &rng);
    plan.BeginTree();
    plan.ReleaseSums(Release::kLeaf, cells.data(), 1, 4, 4);
    EXPECT_THROW(plan.ReleaseSums(Release::kLeaf, cells.data(), 1, 4, 4), InternalError);
  }
  {
    // A kind of query the schedule has none of.
    QueryPlan plan(config, TwoLeafTrees(), 3.0, &rng);
    plan.BeginTree();
    EXPECT_THROW(plan.ReleaseSums(Release::kHistogram, cells.data(), 1, 4, 4), InternalError);
    std::vector<double> hessian(3);
    EXPECT_THROW(plan.ReleaseHessianHistogram(hessian), InternalError);
    EXPECT_THROW((void)plan.SelectSplits({{1.0, 2.0}}), InternalError);
  }
  {
    // A release outside any tree, and a third tree.
    QueryPlan plan(config, TwoLeafTrees(), 3.0, &rng);
    EXPECT_THROW(plan.ReleaseSums(Release::kLeaf, cells.data(), 1, 4, 4), InternalError);
    for (int t = 0; t < 2; ++t) {
      plan.BeginTree();
      plan.ReleaseSums(Release::kLeaf, cells.data(), 1, 4, 4);
      plan.EndTree();
    }
    EXPECT_THROW(plan.BeginTree(), InternalError);
  }
  {
    // An initial score the schedule has not planned.
    QueryPlan plan(config, TwoLeafTrees(), 3.0, &rng);
    EXPECT_THROW((void)plan.ReleaseInitialScore(10, 5), InternalError);
  }
}

TEST(QueryPlan, AScheduledQueryTheRunLeftOutIsAnInternalError) {
  const TrainerConfig config = Config({{"n_estimators", 2}});
  auto rng = mechanisms::Random::Seeded(1);
  std::vector<Pair> cells(4);
  {
    // A tree that released nothing.
    QueryPlan plan(config, TwoLeafTrees(), 3.0, &rng);
    plan.BeginTree();
    EXPECT_THROW(plan.EndTree(), InternalError);
  }
  {
    // One tree of two: the released event would claim a run that did not happen.
    QueryPlan plan(config, TwoLeafTrees(), 3.0, &rng);
    plan.BeginTree();
    plan.ReleaseSums(Release::kLeaf, cells.data(), 1, 4, 4);
    plan.EndTree();
    EXPECT_THROW((void)plan.ReleasedEvent(), InternalError);
  }
}

TEST(QueryPlan, NoiseHasTheScaleOfTheEventsMechanism) {
  // Spherical noise on (a, b): sd = σ·√(s_a² + s_b²) = σ·√17/4 for binary Newton (Maddock §4.2).
  const TrainerConfig config = Config({{"n_estimators", 1}});
  constexpr int kCells = 20000;
  QuerySchedule schedule;
  schedule.AddTrees(1, TreeQueries{.leaf = 1});
  auto rng = mechanisms::Random::Seeded(7);
  QueryPlan plan(config, schedule, 2.0, &rng);
  std::vector<Pair> cells(kCells);
  plan.BeginTree();
  plan.ReleaseSums(Release::kLeaf, cells.data(), 1, kCells, kCells);
  plan.EndTree();
  double sum_squares = 0;
  for (const Pair& c : cells) sum_squares += c.a * c.a + c.b * c.b;
  const double sd = std::sqrt(sum_squares / (2 * kCells));
  // 40000 draws: the sample sd is within 2% of the true one with probability > 1 − 1e-6.
  EXPECT_NEAR(sd, 2.0 * std::sqrt(17.0) / 4, 0.02 * 2.0 * std::sqrt(17.0) / 4);
  EXPECT_EQ(plan.ReleasedEvent().ToJson(),
            json::parse(R"({"gaussian": {"noise_multiplier": 2.0}})"));
}

TEST(QuerySchedule, IterativeHessianCountsTheNumericFeaturesItRefines) {
  // Categorical features keep their codes: an IH round releases one histogram per numeric one.
  const TrainerConfig config =
      Config({{"n_estimators", 5},
              {"split_candidates", {{"method", "iterative_hessian"}, {"rounds", 2}}}});
  const QueryShape shape{.n_features = 6, .n_splittable_features = 6, .n_refinable_features = 4};
  const QuerySchedule schedule = QuerySchedule::Of(config, shape);
  ASSERT_EQ(schedule.runs.size(), 2U);
  EXPECT_EQ(schedule.runs[0].first, 2U);
  EXPECT_EQ(schedule.runs[0].second, (TreeQueries{.candidate = 4, .leaf = 1}));
  EXPECT_EQ(schedule.runs[1].first, 3U);
  EXPECT_EQ(schedule.runs[1].second, (TreeQueries{.leaf = 1}));
  EXPECT_EQ(CountQueries(config, shape).candidate, 8U);
}

TEST(QuerySchedule, TreesSplitOnAtMostTheSplittableFeatures) {
  // k = all over 6 features of which 3 have a candidate: histograms of 3 features per level.
  const TrainerConfig config = Config({{"split_method", "histogram"}, {"max_depth", 3}});
  const QueryShape shape{.n_features = 6, .n_splittable_features = 3, .n_refinable_features = 3};
  EXPECT_EQ(QuerySchedule::Of(config, shape).Totals().split, 100U * 3 * 3);
}

TEST(QueryPlan, TrainedModelWithCategoricalFeaturesReleasesWhatItsEventCounts) {
  // Two numeric and one categorical feature, IH for 2 rounds: 2·2 Hessian histograms, each one
  // noisy cell vector in the noise log, and the stored event counts exactly those.
  Dataset data = trees::testing::SyntheticData(400, 3);
  FeatureSpec& code = data.schema.features[2];
  code.categorical = true;
  code.n_codes = 3;
  code.min = 0;
  code.max = 2;
  for (double& x : data.columns[2]) x = std::floor(x * 3 - 1e-9);
  const TrainerConfig config =
      Config({{"n_estimators", 4},
              {"split_candidates", {{"method", "iterative_hessian"}, {"rounds", 2}}}});
  std::vector<NoiseRecord> log;
  TrainOptions options;
  options.progress = false;
  options.noise_log = &log;
  const Model model = Train(data, config, options);
  std::size_t hessian_cells = 0;
  for (const NoiseRecord& r : log) hessian_cells += r.query == "hessian_histogram" ? 1 : 0;
  EXPECT_EQ(hessian_cells, 2U * 2 * 33);  // 2 rounds × 2 numeric features × (Q + 1) bins
  const json event = model.privacy["event"];
  EXPECT_EQ(event["composed"][0]["self_composed"]["count"], 4);
  EXPECT_EQ(event["composed"][1]["self_composed"]["count"], 4);
}

// The exponential splits' utilities are computed in double (statistics.h SplitUtility). At nodes
// of ~2^28 rows their rounding exceeds the slack 4·s_a²/(n + 1 + λ) that the exact Δ_U = 3·s_a²
// leaves (the family below reaches −3·s_a² + that slack exactly), so without a margin two
// neighbouring data sets' computed utilities differ by more than 3·s_a²; the plan's Δ carries the
// margin that covers every data set of up to kMaxPrivateRows rows.
TEST(QueryPlan, ExponentialSensitivityCoversTheRoundingOfTheUtilities) {
  std::mt19937_64 draw(11);
  // Clips of at most 24 significant bits are their own fixed-point values: no truncation slack.
  for (const double clip : {0.75, 0.8125}) {
    for (const double lambda : {0.0, 0.3, 1.0}) {
      const TrainerConfig config = Config(
          {{"split_method", "exponential"}, {"gradient_clip", clip}, {"reg_lambda", lambda}});
      auto rng = mechanisms::Random::Seeded(1);
      const QueryPlan plan(config, QuerySchedule::Of(config, QueryShape::AllNumeric(3)), 2.0, &rng);
      const double s_a = plan.sensitivities().a;
      const FixedPoint fixed(s_a);
      const double v = fixed.ToDouble(fixed.ToFixed(s_a));  // a record's largest |a|
      const double exact_bound = 3 * s_a * s_a;
      const double delta = plan.exponential_sensitivity();
      int beyond_exact_bound = 0;
      for (int trial = 0; trial < 4000; ++trial) {
        const auto max_rows = static_cast<std::int64_t>(kMaxPrivateRows);
        const std::int64_t n =
            std::uniform_int_distribution<std::int64_t>(std::int64_t{1} << 26, max_rows / 2)(draw);
        const std::int64_t m =
            std::uniform_int_distribution<std::int64_t>(0, max_rows - n - 1)(draw);
        // Left child: n records at −v (worst case) or anywhere in [−v, v]; D' adds one at +v.
        const double g = trial % 2 == 0
                             ? -static_cast<double>(n) * v
                             : fixed.ToDouble(std::uniform_int_distribution<std::int64_t>(
                                   -n * fixed.ToFixed(v), n * fixed.ToFixed(v))(draw));
        const Pair right{static_cast<double>(m) * v, static_cast<double>(m)};
        const double u = SplitUtility({g, static_cast<double>(n)}, right, lambda);
        const double u_neighbour = SplitUtility({g + v, static_cast<double>(n + 1)}, right, lambda);
        ASSERT_LE(std::fabs(u - u_neighbour), delta) << clip << " " << lambda << " " << n;
        beyond_exact_bound += std::fabs(u - u_neighbour) > exact_bound ? 1 : 0;
      }
      EXPECT_GT(beyond_exact_bound, 0) << clip << " " << lambda;
    }
  }
}

}  // namespace
}  // namespace rdpkit::trees::internal
