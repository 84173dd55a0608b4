// The query plan (trees/src/query_plan.h): the run's event is the composition of its mechanisms'
// events over what was released, and a release the schedule did not count, or a scheduled query
// the run left out, is an InternalError.
#include "query_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/mechanisms/random.h"
#include "rdpkit/trees/train.h"
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

}  // namespace
}  // namespace rdpkit::trees::internal
