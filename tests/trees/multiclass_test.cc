// Multiclass training (multi:softprob, multi:ovr): the sensitivity bounds of the per-record class
// statistics against adversarial records, the noise against the stored event, determinism,
// learning a 3-class problem, the schema's class fields, bad labels, the refused combinations,
// the query plan's per-class ledger and the multiclass metrics.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "parallel.h"
#include "query_plan.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/mechanisms/random.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/model.h"
#include "rdpkit/trees/train.h"
#include "row_sample.h"
#include "softmax.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::Quiet;
using testing::SyntheticMulticlass;
using ::testing::ThrowsMessage;

TrainerConfig Config(json j) {
  if (!j.contains("objective")) j["objective"] = "multi:softprob";
  if (!j.contains("privacy") && !j.contains("non_private")) j["privacy"] = {{"epsilon", 1.0}};
  if (!j.contains("seed")) j["seed"] = 7;
  return TrainerConfig::FromJson(j);
}

// The norms of a record's gradient and Hessian vectors over its K classes.
// The record's gradient and Hessian norms, summed in long double: closer to the true norms of
// the released vectors than the bounds' own rounding, so that bounds are checked without slack.
std::pair<long double, long double> Norms(const TrainerConfig& config,
                                          const std::vector<double>& margins, int label) {
  const int k = static_cast<int>(margins.size());
  std::vector<double> g(margins.size()), h(margins.size());
  internal::MulticlassStatistics(config.objective, config.leaf_update, margins.data(), label, k,
                                 config.gradient_clip, config.hessian_clip, g.data(), h.data());
  long double gg = 0, hh = 0;
  for (std::size_t c = 0; c < g.size(); ++c) {
    gg += static_cast<long double>(g[c]) * g[c];
    hh += static_cast<long double>(h[c]) * h[c];
  }
  return {std::sqrt(gg), std::sqrt(hh)};
}

// Adversarial margins: the label's class far below one other class (‖p − e_y‖ → √2), uniform
// margins (the Hessian's maximum for K = 2), two classes tied above the rest, and random ones.
std::vector<std::vector<double>> AdversarialMargins(int k, std::mt19937_64& rng) {
  std::vector<std::vector<double>> out;
  const auto n = static_cast<std::size_t>(k);
  for (double gap : {0.0, 0.5, 2.0, 10.0, 40.0, 700.0}) {
    std::vector<double> one(n, 0.0);
    one[1] = gap;  // class 1 dominates; records labelled 0 are the worst case of Lemma 1
    out.push_back(one);
    std::vector<double> two(n, -gap);
    two[0] = two[1] = 0;
    out.push_back(two);
  }
  std::normal_distribution<double> normal(0.0, 3.0);
  for (int r = 0; r < 2000; ++r) {
    std::vector<double> m(n);
    for (double& x : m) x = normal(rng);
    out.push_back(m);
  }
  return out;
}

TEST(MulticlassSensitivity, NoRecordExceedsTheBoundAndTheGradientBoundIsTight) {
  std::mt19937_64 rng(5);
  for (const char* objective : {"multi:softprob", "multi:ovr"}) {
    for (int k : {2, 3, 6, 10}) {
      for (double g_clip : {0.3, 1.0, 2.0}) {
        for (double h_clip : {0.01, 0.2, 1.0}) {
          const TrainerConfig config = Config(
              {{"objective", objective}, {"gradient_clip", g_clip}, {"hessian_clip", h_clip}});
          const Sensitivities s = internal::MulticlassSensitivities(config, k);
          long double max_g = 0, max_h = 0;
          double max_class_g = 0;
          for (const auto& margins : AdversarialMargins(k, rng)) {
            for (int y = 0; y < k; ++y) {
              const auto [g, h] = Norms(config, margins, y);
              max_g = std::max(max_g, g);
              max_h = std::max(max_h, h);
              std::vector<double> gv(margins.size()), hv(margins.size());
              internal::MulticlassStatistics(config.objective, config.leaf_update, margins.data(),
                                             y, k, g_clip, h_clip, gv.data(), hv.data());
              for (std::size_t c = 0; c < gv.size(); ++c) {
                max_class_g = std::max(max_class_g, std::fabs(gv[c]));
                if (config.objective == Objective::kMultiOvr) {
                  EXPECT_LE(hv[c], s.b);  // per class tree
                }
              }
            }
          }
          const std::string where = std::string(objective) + " K=" + std::to_string(k) +
                                    " g*=" + std::to_string(g_clip) +
                                    " h*=" + std::to_string(h_clip);
          if (config.objective == Objective::kMultiSoftprob) {
            EXPECT_LE(max_g, s.a) << where;  // no slack: the bounds are upper bounds
            EXPECT_LE(max_h, s.b) << where;
            // Lemma 1 is attained in the limit: the worst record reaches the bound.
            EXPECT_GE(max_g, 0.999 * s.a) << where;
          } else {
            EXPECT_LE(max_class_g, s.a) << where;
            EXPECT_GE(max_class_g, 0.999 * s.a) << where;
          }
        }
      }
    }
  }
}

TEST(MulticlassSensitivity, ClosedFormsOfTheDocumentedBounds) {
  // docs/math/multiclass.md: s_a = min(g*, √2), s_b = √(min(h*, 1/4)·min(K·h*, 1 − 1/K)).
  // Each bound is rounded up: at least the exact value (long double reference), and within a few
  // ulps of it.
  const auto expect_upper_bound = [](double bound, long double exact) {
    EXPECT_GE(static_cast<long double>(bound), exact);
    EXPECT_NEAR(bound, static_cast<double>(exact), 2e-15 * bound);
  };
  const Sensitivities d6 = internal::MulticlassSensitivities(Config(json::object()), 6);
  EXPECT_DOUBLE_EQ(d6.a, 1.0);
  expect_upper_bound(d6.b, std::sqrt(0.25L * 5.0L / 6.0L));
  const Sensitivities loose = internal::MulticlassSensitivities(
      Config({{"gradient_clip", 5.0}, {"hessian_clip", 0.01}}), 3);
  expect_upper_bound(loose.a, std::sqrt(2.0L));
  expect_upper_bound(loose.b, std::sqrt(static_cast<long double>(0.01) * 0.03L));
  // K = 2 at p = (1/2, 1/2): ‖h‖² = 1/8, the bound is attained.
  const TrainerConfig defaults = Config(json::object());
  expect_upper_bound(internal::MulticlassSensitivities(defaults, 2).b,
                     Norms(defaults, {0.0, 0.0}, 0).second);
  // A tiny clip does not underflow to a zero sensitivity.
  EXPECT_GT(internal::MulticlassSensitivities(Config({{"hessian_clip", 1e-300}}), 3).b, 0);
  const Sensitivities gradient =
      internal::MulticlassSensitivities(Config({{"leaf_update", "gradient"}}), 3);
  expect_upper_bound(gradient.b, std::sqrt(3.0L));
  const Sensitivities ovr =
      internal::MulticlassSensitivities(Config({{"objective", "multi:ovr"}}), 6);
  expect_upper_bound(ovr.pair(), std::sqrt(17.0L) / 4);
}

TEST(MulticlassTraining, NoiseHasTheStandardDeviationOfTheStoredEvent) {
  const Dataset data = SyntheticMulticlass(3000, 3, 3, 11);
  std::vector<NoiseRecord> log;
  const TrainerConfig config = Config({{"n_estimators", 60}, {"max_depth", 4}});
  const Model model = Train(data, config, Quiet(&log));
  // The stored event: 60 rounds, each one Gaussian query of the class vector.
  const json event = model.privacy["event"];
  ASSERT_TRUE(event.contains("self_composed")) << event.dump();
  EXPECT_EQ(event["self_composed"]["count"], 60);
  const double sigma = event["self_composed"]["event"]["gaussian"]["noise_multiplier"];
  // Noise per coordinate: σ·√(s_a² + s_b²), the bounds computed here from the documented forms.
  const double s = std::sqrt(1.0 + 0.25 * (2.0 / 3.0));
  double sum2 = 0;
  std::size_t draws = 0;
  for (const NoiseRecord& r : log) {
    ASSERT_EQ(r.query, "leaf");
    sum2 += (r.noisy - r.exact) * (r.noisy - r.exact);
    ++draws;
  }
  EXPECT_EQ(draws, 60u * 3u * 16u * 2u);  // rounds × classes × leaves × (g, h)
  EXPECT_NEAR(std::sqrt(sum2 / static_cast<double>(draws)) / (sigma * s), 1.0, 0.04);
  // rdpkit epsilon on the stored event gives back the stored ε (≤ the target).
  const double epsilon =
      accountant::Epsilon(accountant::Event::FromJson(event), model.privacy["delta"]).epsilon;
  EXPECT_LE(epsilon, 1.0);
  EXPECT_NEAR(epsilon, model.privacy["epsilon"].get<double>(), 1e-9);
}

TEST(MulticlassTraining, OneVsRestComposesTheClassTrees) {
  const Dataset data = SyntheticMulticlass(2000, 3, 3, 12);
  const Model model =
      Train(data, Config({{"objective", "multi:ovr"}, {"n_estimators", 10}}), Quiet());
  EXPECT_EQ(model.privacy["event"]["self_composed"]["count"], 30);  // K leaf queries per round
  EXPECT_EQ(model.trees.size(), 30u);
  EXPECT_DOUBLE_EQ(model.base_score, -std::log(2.0));  // σ(base) = 1/K
}

TEST(MulticlassTraining, SameSeedSameModelBytes) {
  const Dataset data = SyntheticMulticlass(1500, 3, 3, 13);
  const std::vector<json> cases = {
      {{"objective", "multi:softprob"}, {"n_estimators", 6}},
      {{"objective", "multi:ovr"}, {"n_estimators", 6}},
      {{"split_method", "histogram"}, {"n_estimators", 2}, {"max_depth", 3}},
  };
  for (const json& j : cases) {
    const std::string a = Train(data, Config(j), Quiet()).ToText();
    EXPECT_EQ(a, Train(data, Config(j), Quiet()).ToText()) << j.dump();
    json other = j;
    other["seed"] = 8;
    EXPECT_NE(a, Train(data, Config(other), Quiet()).ToText()) << j.dump();
  }
}

// A round reads the statistics of its sample only, so the trainer recomputes just those rows
// (ClassStatistics::Recompute): theirs equal a recompute of every row, the others' stay as they
// were.
TEST(MulticlassTraining, RecomputingASampleGivesTheSampledRowsTheirFullValues) {
  const Dataset data = SyntheticMulticlass(500, 3, 3, 5);
  const TrainerConfig config = Config({{"objective", "multi:softprob"}, {"gradient_clip", 0.8}});
  internal::WorkerPool pool(2);
  internal::ClassStatistics every(data, config, pool, 0);
  internal::ClassStatistics sampled(data, config, pool, 0);
  const internal::ClassStatistics before(data, config, pool, 0);
  std::vector<std::uint16_t> node_of(data.n_rows());
  for (std::size_t i = 0; i < node_of.size(); ++i) node_of[i] = static_cast<std::uint16_t>(i % 4);
  for (int k = 0; k < 3; ++k) {
    // Different per class: the softmax ignores a shift common to every class.
    const std::vector<double> leaves = {0.7 * k, -0.4, 1.1 - k, -1.3 * k};
    every.AddTree(k, leaves, node_of.data());
    sampled.AddTree(k, leaves, node_of.data());
  }
  internal::RowSample rows;
  rows.SetEach(data.n_rows());
  for (std::size_t i = 0; i < data.n_rows(); i += 3) rows.Remove(i);
  every.Recompute();
  sampled.Recompute(rows);
  int changed = 0;
  for (int k = 0; k < 3; ++k) {
    for (std::size_t i = 0; i < data.n_rows(); ++i) {
      const internal::Pair expected = rows.Has(i) ? every.stats(k)[i] : before.stats(k)[i];
      ASSERT_EQ(sampled.stats(k)[i].a, expected.a) << k << " " << i;
      ASSERT_EQ(sampled.stats(k)[i].b, expected.b) << k << " " << i;
      changed += every.stats(k)[i].a != before.stats(k)[i].a ? 1 : 0;
    }
  }
  EXPECT_GT(changed, 1000);  // the trees moved the margins: stale and fresh values differ
}

struct LearnCase {
  json config;
  double min_accuracy;
};

TEST(MulticlassTraining, LearnsAThreeClassProblem) {
  const Dataset train = SyntheticMulticlass(4000, 4, 3, 21);
  const Dataset test = SyntheticMulticlass(2000, 4, 3, 22);
  // Chance is ≈ 1/3 (the bands hold 0.31–0.38 of the rows); the signal is learnable to ≈ 0.9.
  const std::vector<LearnCase> cases = {
      {{{"non_private", true}, {"n_estimators", 40}}, 0.85},
      {{{"privacy", {{"epsilon", 4.0}}}, {"n_estimators", 40}}, 0.70},
      {{{"objective", "multi:ovr"}, {"privacy", {{"epsilon", 4.0}}}, {"n_estimators", 40}}, 0.60},
      {{{"privacy", {{"epsilon", 4.0}}},
        {"split_method", "histogram"},
        {"n_estimators", 5},
        {"max_depth", 3}},
       0.60},
      {{{"privacy", {{"epsilon", 4.0}}},
        {"split_method", "partially_random"},
        {"n_estimators", 5},
        {"max_depth", 3}},
       0.60},
      {{{"privacy", {{"epsilon", 4.0}}},
        {"leaf_update", "gradient"},
        {"leaf_noise_weights", {0.3, 0.7}},
        {"subsample", 0.5},
        {"n_estimators", 40}},
       0.60},
  };
  for (const LearnCase& c : cases) {
    const Model model = Train(train, Config(c.config), Quiet());
    const std::vector<double> p = model.PredictProbabilities(test);
    EXPECT_GE(MulticlassAccuracy(p, 3, test.labels), c.min_accuracy) << c.config.dump();
    EXPECT_GE(MacroAuc(p, 3, test.labels), 0.75) << c.config.dump();
    for (std::size_t r = 0; r < test.n_rows(); r += 97) {
      EXPECT_NEAR(p[3 * r] + p[3 * r + 1] + p[3 * r + 2], 1.0, 1e-12);
    }
    // Predict gives the most probable class.
    const std::vector<double> labels = model.Predict(test);
    EXPECT_EQ(labels[0],
              static_cast<double>(std::max_element(p.begin(), p.begin() + 3) - p.begin()));
  }
}

TEST(MulticlassTraining, RenyiFilterChargesTheClassVector) {
  const Dataset data = SyntheticMulticlass(2000, 3, 3, 33);
  for (const json& weights : {json(nullptr), json({0.3, 0.7})}) {
    json j = {{"n_estimators", 8}, {"renyi_filter", {{"extra_rounds", 20}}}};
    if (!weights.is_null()) j["leaf_noise_weights"] = weights;
    const Model model = Train(data, Config(j), Quiet());
    EXPECT_EQ(model.trees.size(), 28u * 3u) << j.dump();  // (T + extra) rounds of K trees
    const json& event = model.privacy["event"];
    ASSERT_THAT(event.dump(), HasSubstr("renyi_filter"));
    const double epsilon =
        accountant::Epsilon(accountant::Event::FromJson(event), model.privacy["delta"]).epsilon;
    EXPECT_LE(epsilon, 1.0);
    EXPECT_NEAR(epsilon, model.privacy["epsilon"].get<double>(), 1e-9);
    // Extra rounds ran on the records that still had budget: the log says how many sat out.
    EXPECT_GT(model.training_log["renyi_filter"]["records_sitting_out"].get<double>(), 0)
        << model.training_log.dump();
  }
}

TEST(MulticlassTraining, RefusesUnsupportedCombinationsByName) {
  const Dataset data = SyntheticMulticlass(500, 3, 3, 31);
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"split_method", "exponential"}}, "split_method"},
      {{{"split_candidates", {{"method", "iterative_hessian"}}}}, "split_candidates.method"},
      {{{"leaf_update", "averaging"}}, "leaf_update"},
      {{{"batch_size", 2}}, "batch_size"},
      {{{"initial_score", {{"epsilon_share", 0.1}}}}, "initial_score"},
      {{{"objective", "multi:ovr"}, {"renyi_filter", {{"extra_rounds", 2}}}}, "renyi_filter"},
  };
  for (const auto& [j, key] : cases) {
    EXPECT_THAT([&] { (void)Train(data, Config(j), Quiet()); },
                ThrowsMessage<InvalidArgument>(
                    AllOf(HasSubstr(key), HasSubstr("not supported with a multiclass objective"))))
        << j.dump();
  }
  // An objective that does not fit the schema's task names the ones that do.
  EXPECT_THAT(
      [&] {
        (void)Train(data, Config({{"objective", "binary:logistic"}}), Quiet());
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("multi:softprob")));
}

TEST(MulticlassLabels, BadLabelsAreRejectedWithRowAndValue) {
  Schema schema = Schema::FromJson({{"task", "multiclass"},
                                    {"n_classes", 3},
                                    {"features", {{{"name", "x"}, {"min", 0}, {"max", 1}}}}});
  EXPECT_NO_THROW(ParseCsv("x,label\n0.5,0\n0.5,2\n", schema));
  for (const char* bad : {"3", "-1", "1.5", "7"}) {
    EXPECT_THAT([&] { ParseCsv(std::string("x,label\n0.5,1\n0.5,") + bad + "\n", schema); },
                ThrowsMessage<InvalidArgument>(
                    AllOf(HasSubstr("row 2"), HasSubstr(bad), HasSubstr("class index"))))
        << bad;
  }
  // A dataset built in code is checked by the trainer.
  Dataset data = SyntheticMulticlass(200, 2, 3, 32);
  data.labels[17] = 3;
  EXPECT_THAT([&] { (void)Train(data, Config(json::object()), Quiet()); },
              ThrowsMessage<InvalidArgument>(AllOf(HasSubstr("data.labels[17]"), HasSubstr("3"))));
}

TEST(MulticlassSchema, ClassFieldsAreReadCheckedAndWritten) {
  // As the shared data sets' sidecars write it (descriptive keys beside the class fields).
  const Schema satellite = Schema::FromJson(json::parse(R"({
      "name": "satellite_multiclass", "task": "multiclass", "n_classes": 6,
      "label_counts": {"0": 1533, "1": 703},
      "classes": ["red soil", "cotton crop", "grey soil", "damp grey soil",
                  "vegetation stubble", "very damp grey soil"],
      "features": [{"name": "x_1", "min": 39, "max": 104, "n_unique": 51}]})"));
  EXPECT_EQ(satellite.task, Task::kMulticlass);
  EXPECT_EQ(satellite.n_classes, 6);
  ASSERT_EQ(satellite.classes.size(), 6u);
  EXPECT_EQ(satellite.classes[4], "vegetation stubble");
  EXPECT_EQ(Schema::FromJson(satellite.ToJson()).ToJson(), satellite.ToJson());
  const json feature = {{{"name", "x"}, {"min", 0}, {"max", 1}}};
  const std::vector<std::pair<json, std::string>> bad = {
      {{{"task", "multiclass"}, {"features", feature}}, "n_classes"},
      {{{"task", "multiclass"}, {"n_classes", 1}, {"features", feature}}, "n_classes = 1"},
      {{{"task", "multiclass"}, {"n_classes", 2.5}, {"features", feature}}, "n_classes"},
      {{{"task", "multiclass"}, {"n_classes", 2}, {"classes", {"a"}}, {"features", feature}},
       "classes"},
      {{{"task", "multiclass"}, {"n_classes", 2}, {"classes", {"a", "a"}}, {"features", feature}},
       "classes[1]"},
      {{{"task", "binary"}, {"n_classes", 2}, {"features", feature}}, "n_classes"},
  };
  for (const auto& [j, field] : bad) {
    EXPECT_THAT([&] { (void)Schema::FromJson(j); },
                ThrowsMessage<InvalidArgument>(HasSubstr(field)))
        << j.dump();
  }
}

TEST(MulticlassModel, FileRecordsTheClassesAndReadsBack) {
  Dataset data = SyntheticMulticlass(800, 3, 3, 41);
  data.schema.classes = {"low", "mid", "high"};
  TrainerConfig config = Config({{"n_estimators", 3}});
  Model model = Train(data, config, Quiet());
  model.schema = data.schema;
  const json j = json::parse(model.ToText());
  EXPECT_EQ(j["n_classes"], 3);
  EXPECT_EQ(j["classes"], json({"low", "mid", "high"}));
  EXPECT_EQ(j["objective"], "multi:softprob");
  const Model back = Model::FromJson(j);
  EXPECT_EQ(back.ToText(), model.ToText());
  EXPECT_EQ(back.PredictProbabilities(data), model.PredictProbabilities(data));
  json binary_with_classes = j;
  binary_with_classes["objective"] = "binary:logistic";
  EXPECT_THAT([&] { (void)Model::FromJson(binary_with_classes); },
              ThrowsMessage<InvalidArgument>(HasSubstr("n_classes")));
}

TEST(MulticlassPlan, EveryClassTreeMustMakeTheScheduledQueries) {
  const TrainerConfig config = Config({{"n_estimators", 1}});
  QueryShape shape = QueryShape::AllNumeric(2);
  shape.n_classes = 3;
  const internal::QuerySchedule schedule = internal::QuerySchedule::Of(config, shape);
  EXPECT_EQ(schedule.Totals().leaf, 1u);  // one joint leaf query per round
  auto rng = mechanisms::Random::Seeded(1);
  std::vector<internal::Pair> leaves(4);
  {
    internal::QueryPlan plan(config, schedule, 2.0, &rng);
    plan.BeginTree();
    for (int k = 0; k < 3; ++k) {
      plan.BeginClass(k);
      plan.ReleaseSums(internal::Release::kLeaf, leaves.data(), 1, 4, 4);
    }
    plan.EndTree();
    EXPECT_EQ(plan.ReleasedEvent().ToJson(), plan.ScheduledEvent().ToJson());
  }
  {
    internal::QueryPlan plan(config, schedule, 2.0, &rng);
    plan.BeginTree();
    plan.BeginClass(0);
    plan.ReleaseSums(internal::Release::kLeaf, leaves.data(), 1, 4, 4);
    // A second leaf query of the same class tree is beyond the schedule.
    EXPECT_THROW(plan.ReleaseSums(internal::Release::kLeaf, leaves.data(), 1, 4, 4), InternalError);
    plan.BeginClass(1);
    plan.ReleaseSums(internal::Release::kLeaf, leaves.data(), 1, 4, 4);
    // Class 2 released nothing: the round is not the schedule's.
    EXPECT_THROW(plan.EndTree(), InternalError);
    EXPECT_THROW(plan.BeginClass(3), InternalError);
  }
}

TEST(MulticlassMetrics, HandComputedValues) {
  // Three rows, three classes.
  const std::vector<double> p = {0.7, 0.2, 0.1,  //
                                 0.1, 0.3, 0.6,  //
                                 0.3, 0.4, 0.3};
  const std::vector<double> y = {0, 2, 2};
  EXPECT_DOUBLE_EQ(MulticlassAccuracy(p, 3, y), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(MulticlassLogLoss(p, 3, y),
                   -(std::log(0.7) + std::log(0.6) + std::log(0.3)) / 3);
  // Class 0: positives {row 0}, scores 0.7 vs 0.1, 0.3 → AUC 1. Class 1 is absent (skipped).
  // Class 2: positives rows 1, 2 (0.6, 0.3) vs row 0 (0.1) → AUC 1.
  EXPECT_DOUBLE_EQ(MacroAuc(p, 3, y), 1.0);
  const std::vector<double> y2 = {1, 0, 2};
  // Class 0: pos row 1 (0.1) vs 0.7, 0.3 → 0; class 1: pos row 0 (0.2) vs 0.3, 0.4 → 0;
  // class 2: pos row 2 (0.3) vs 0.1, 0.6 → 0.5.
  EXPECT_DOUBLE_EQ(MacroAuc(p, 3, y2), 0.5 / 3);
  EXPECT_THROW((void)MulticlassAccuracy(p, 3, {0, 3, 1}), InvalidArgument);
  EXPECT_THROW((void)MulticlassLogLoss(p, 3, {0, 1}), InvalidArgument);
}

}  // namespace
}  // namespace rdpkit::trees
