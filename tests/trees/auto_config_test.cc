#include "rdpkit/trees/auto_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/model.h"
#include "rdpkit/trees/train.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

json PrivacyOnly(double epsilon) { return {{"privacy", {{"epsilon", epsilon}}}}; }

PublicFacts Facts(std::size_t n, int m, Task task, double epsilon) {
  PublicFacts facts;
  facts.n_rows = n;
  facts.n_features = m;
  facts.task = task;
  facts.n_classes = task == Task::kMulticlass ? 3 : 0;
  facts.epsilon = epsilon;
  facts.delta = DefaultDelta(n);
  return facts;
}

TEST(AutoSettings, ChoosesManySmallStepsForClassificationBelowTenThousandRows) {
  for (const double epsilon : {0.1, 1.0}) {
    json s = AutoSettings(Facts(9999, 20, Task::kBinary, epsilon), json::object());
    EXPECT_EQ(s["objective"], "binary:logistic");
    EXPECT_EQ(s["n_estimators"], 1000);
    EXPECT_DOUBLE_EQ(s["learning_rate"].get<double>(), 45 * std::cbrt(epsilon) / 1000);
    EXPECT_FALSE(s.contains("subsample"));
    EXPECT_EQ(s["gradient_clip"], 0.5);  // |σ(0) − y|
    EXPECT_EQ(s["hessian_clip"], 0.1);
    s = AutoSettings(Facts(3000, 20, Task::kMulticlass, epsilon), json::object());
    EXPECT_EQ(s["objective"], "multi:softprob");
    EXPECT_EQ(s["n_estimators"], 300);  // rounds of K class trees
    EXPECT_DOUBLE_EQ(s["learning_rate"].get<double>(), 0.1);
    EXPECT_DOUBLE_EQ(s["gradient_clip"].get<double>(), std::sqrt(2.0 / 3));  // ‖1/K − e_y‖, K = 3
    EXPECT_EQ(s["hessian_clip"], 0.1);  // as binary's, below softprob's bound 1/4
    // One-vs-rest trains binary class trees: softprob's clip is not chosen for it.
    EXPECT_FALSE(
        AutoSettings(Facts(3000, 20, Task::kMulticlass, epsilon), {{"objective", "multi:ovr"}})
            .contains("gradient_clip"));
  }
}

TEST(AutoSettings, SubsamplesRegressionAndLargeClassificationRuns) {
  const auto expect_subsampled = [](const json& s, double hessian_clip, bool initial_score,
                                    int depth = 6, double epsilon = 0.5) {
    const bool multiclass = s["objective"] == "multi:softprob";
    // Multiclass from ε = 0.5: a larger sample (0.2) and total step (42).
    const bool larger = multiclass && epsilon >= 0.5;
    EXPECT_EQ(s["subsample"], larger ? 0.2 : 0.1);
    // S-BDT's Hessian weight 0.2 for classification; regression's Hessians are counts: 0.15.
    const double hessian_weight = s["objective"] == "reg:squarederror" ? 0.15 : 0.2;
    EXPECT_EQ(s["leaf_noise_weights"], json({hessian_weight, 1 - hessian_weight}));
    // Binary and regression: T = 2000 with T·η = 60 from 10 000 rows, 100 below (depth 4);
    // multiclass (no initial score): 300 rounds, T·η = 30 (42 from ε = 0.5).
    EXPECT_EQ(s["n_estimators"], initial_score ? 2000 : 300);
    const double total_step = larger ? 42 : multiclass ? 30 : depth == 4 ? 100 : 60;
    EXPECT_DOUBLE_EQ(s["learning_rate"].get<double>(), total_step / s["n_estimators"].get<int>());
    EXPECT_EQ(s["max_depth"], depth);
    EXPECT_EQ(s["split_scope"], "all");
    EXPECT_EQ(s["hessian_clip"], hessian_clip);
    EXPECT_EQ(s.contains("initial_score"), initial_score);
  };
  expect_subsampled(AutoSettings(Facts(10000, 11, Task::kBinary, 0.5), {}), 0.25, true);
  // Regression below 10 000 rows (the only subsampled runs there) grows trees of depth 4.
  expect_subsampled(AutoSettings(Facts(300, 10, Task::kRegression, 0.5), {}), 1.0, true, 4);
  expect_subsampled(AutoSettings(Facts(10000, 10, Task::kRegression, 0.5), {}), 1.0, true, 6);
  expect_subsampled(AutoSettings(Facts(50000, 10, Task::kMulticlass, 0.5), {}), 0.1, false);
  expect_subsampled(AutoSettings(Facts(50000, 10, Task::kMulticlass, 0.1), {}), 0.1, false, 6, 0.1);
  // g*: the first round's gradient norm, as without subsampling (|σ(0) − y| = S-BDT's 0.5 for
  // binary, ‖1/K − e_y‖ for softprob); regression S-BDT's 0.5 (before any adaptation).
  EXPECT_EQ(AutoSettings(Facts(10000, 11, Task::kBinary, 0.5), {})["gradient_clip"], 0.5);
  EXPECT_DOUBLE_EQ(
      AutoSettings(Facts(50000, 10, Task::kMulticlass, 0.5), {})["gradient_clip"].get<double>(),
      std::sqrt(2.0 / 3));
  EXPECT_EQ(AutoSettings(Facts(10000, 10, Task::kRegression, 0.5), {})["gradient_clip"], 0.5);
  EXPECT_FALSE(AutoSettings(Facts(50000, 10, Task::kMulticlass, 0.5), {{"objective", "multi:ovr"}})
                   .contains("gradient_clip"));
  // Regression adapts g* to the noisy mean where the label bounds are public (the rule bounds
  // residuals of labels scaled into [-1, 1]); binary keeps its fixed g* = |σ(0) − y|.
  PublicFacts bounded = Facts(300, 10, Task::kRegression, 0.5);
  bounded.label_bounds = true;
  EXPECT_EQ(AutoSettings(bounded, {})["initial_score"]["adapt_gradient_clip"], true);
  EXPECT_FALSE(AutoSettings(Facts(300, 10, Task::kRegression, 0.5), {})["initial_score"].contains(
      "adapt_gradient_clip"));
  EXPECT_FALSE(AutoSettings(Facts(10000, 11, Task::kBinary, 0.5), {})["initial_score"].contains(
      "adapt_gradient_clip"));
  // With the averaging update g* clips the labels themselves: no adapted clip (it would be
  // refused, naming a key the config did not give).
  EXPECT_FALSE(AutoSettings(bounded, {{"leaf_update", "averaging"}})["initial_score"].contains(
      "adapt_gradient_clip"));
  // A given g* is kept as given.
  EXPECT_FALSE(AutoSettings(bounded, {{"gradient_clip", 0.3}})["initial_score"].contains(
      "adapt_gradient_clip"));
  // A non-private baseline (ε = ∞) is not subsampled and gets no initial score.
  const json baseline =
      AutoSettings(Facts(300, 10, Task::kRegression, std::numeric_limits<double>::infinity()),
                   {{"non_private", true}});
  EXPECT_FALSE(baseline.contains("subsample"));
  EXPECT_FALSE(baseline.contains("initial_score"));
  EXPECT_EQ(baseline["n_estimators"], 1000);
  // split_scope "all" only where the config's split method draws splits at random.
  EXPECT_FALSE(AutoSettings(Facts(300, 10, Task::kRegression, 1), {{"split_method", "histogram"}})
                   .contains("split_scope"));
}

// Subsampled trees: one feature each (S-BDT's), except regression from ε = 1 (below 10 000 rows
// from ε = 2), whose trees split on all features (docs/trees_auto_why.md § Larger ε).
TEST(AutoSettings, RegressionTreesSplitOnAllFeaturesFromEpsilonOneOrTwo) {
  const json one = {{"method", "cyclical"}, {"k", 1}};
  const json all = {{"method", "all"}, {"k", 0}};
  const auto interaction = [](std::size_t n, Task task, double epsilon) {
    return AutoSettings(Facts(n, 10, task, epsilon), json::object())["feature_interaction"];
  };
  for (const std::size_t n : {10000, 50000}) {
    EXPECT_EQ(interaction(n, Task::kRegression, 0.999), one);
    EXPECT_EQ(interaction(n, Task::kRegression, 1.0), all);
    EXPECT_EQ(interaction(n, Task::kRegression, 8.0), all);
  }
  for (const std::size_t n : {300, 9999}) {
    EXPECT_EQ(interaction(n, Task::kRegression, 1.0), one);
    EXPECT_EQ(interaction(n, Task::kRegression, 1.999), one);
    EXPECT_EQ(interaction(n, Task::kRegression, 2.0), all);
    EXPECT_EQ(interaction(n, Task::kRegression, 8.0), all);
  }
  EXPECT_EQ(interaction(10000, Task::kBinary, 0.5), one);
  for (const double epsilon : {0.5, 1.0, 8.0}) {
    EXPECT_EQ(interaction(50000, Task::kMulticlass, epsilon), one);
  }
  // Trees over all features still draw their splits from all of a feature's candidates.
  EXPECT_EQ(AutoSettings(Facts(10000, 10, Task::kRegression, 2.0), {})["split_scope"], "all");
  // A given feature_interaction wins.
  EXPECT_EQ(AutoSettings(Facts(10000, 10, Task::kRegression, 2.0), {{"feature_interaction", one}})
                .contains("feature_interaction"),
            false);
}

// Binary runs from 10 000 rows subsample below ε = 1 only; multiclass runs at every ε, at rate 0.2
// from ε = 0.5 (docs/trees_auto_why.md § Larger binary sets, § Why this rule).
TEST(AutoSettings, LargeBinaryRunsSubsampleBelowEpsilonOneOnly) {
  for (const std::size_t n : {10000, 200000}) {
    EXPECT_EQ(AutoSettings(Facts(n, 11, Task::kBinary, 0.999), {})["subsample"], 0.1);
    for (const double epsilon : {1.0, 2.0, 8.0}) {
      const json s = AutoSettings(Facts(n, 11, Task::kBinary, epsilon), {});
      EXPECT_FALSE(s.contains("subsample")) << epsilon;
      // The settings of the branch below 10 000 rows.
      EXPECT_EQ(s, AutoSettings(Facts(9999, 11, Task::kBinary, epsilon), {})) << epsilon;
      // Multiclass from ε = 0.5 at the larger rate.
      EXPECT_EQ(AutoSettings(Facts(n, 11, Task::kMulticlass, epsilon), {})["subsample"], 0.2);
    }
  }
}

// Above ε = 1 an unsampled binary run keeps ε = 1's total step T·η = 45 (docs/trees_auto_why.md
// § Larger ε): more budget never lengthens the steps past where the model fits.
TEST(AutoSettings, BinaryTotalStepStopsGrowingAtEpsilonOne) {
  for (const double epsilon : {1.0, 1.5, 2.0, 8.0, 1e6}) {
    const json s = AutoSettings(Facts(3000, 20, Task::kBinary, epsilon), json::object());
    EXPECT_DOUBLE_EQ(s["learning_rate"].get<double>(), 0.045) << epsilon;
  }
  const json below = AutoSettings(Facts(3000, 20, Task::kBinary, 0.999), json::object());
  EXPECT_LT(below["learning_rate"].get<double>(), 0.045);
}

TEST(AutoSettings, AGivenNumberOfTreesSetsTheLearningRate) {
  const PublicFacts facts = Facts(3000, 20, Task::kBinary, 1.0);
  const json given = {{"n_estimators", 300}};
  const json s = AutoSettings(facts, given);
  EXPECT_FALSE(s.contains("n_estimators"));                  // the config's own
  EXPECT_DOUBLE_EQ(s["learning_rate"].get<double>(), 0.15);  // T·η = 45 at ε = 1
  // Subsampled runs take T·η = 100 below 10 000 rows (regression) and 60 from there, multiclass
  // runs T·η = 30 (subsampled from ε = 0.5: 42).
  const auto rate = [](const PublicFacts& f, int trees) {
    return AutoSettings(f, {{"n_estimators", trees}})["learning_rate"].get<double>();
  };
  EXPECT_DOUBLE_EQ(rate(Facts(3000, 20, Task::kRegression, 1.0), 300), 0.3);  // at most 0.3
  EXPECT_DOUBLE_EQ(rate(Facts(3000, 20, Task::kRegression, 1.0), 4000), 0.025);
  EXPECT_DOUBLE_EQ(rate(Facts(10000, 20, Task::kBinary, 0.1), 300), 0.2);
  EXPECT_DOUBLE_EQ(rate(Facts(20000, 20, Task::kRegression, 1.0), 600), 0.1);
  EXPECT_DOUBLE_EQ(rate(Facts(3000, 20, Task::kMulticlass, 1.0), 300), 0.1);
  EXPECT_DOUBLE_EQ(rate(Facts(20000, 20, Task::kMulticlass, 0.1), 300), 0.1);
  EXPECT_DOUBLE_EQ(rate(Facts(20000, 20, Task::kMulticlass, 0.5), 300), 0.14);  // T·η = 42
  EXPECT_DOUBLE_EQ(rate(facts, 20), 0.3);                                       // at most 0.3
  // An invalid T sets no learning rate: FromJson refuses it by name, nothing is clamped.
  EXPECT_FALSE(AutoSettings(facts, {{"n_estimators", 0}}).contains("learning_rate"));
  const Dataset data = testing::SyntheticData(50, 2);
  json config = PrivacyOnly(1.0);
  config["n_estimators"] = -3;
  EXPECT_THAT([&] { (void)ResolveConfig(config, data.schema, data.n_rows()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("n_estimators")));
}

TEST(AutoSettings, GivenKeysAreNeverChosen) {
  const json given = {{"learning_rate", 0.5}, {"max_depth", 2}, {"initial_score", nullptr}};
  for (const Task task : {Task::kBinary, Task::kRegression, Task::kMulticlass}) {
    for (const double epsilon : {0.1, 1.0}) {
      for (const std::size_t n : {300, 40000}) {
        const json s = AutoSettings(Facts(n, 10, task, epsilon), given);
        EXPECT_FALSE(s.contains("learning_rate"));
        EXPECT_FALSE(s.contains("max_depth"));
        EXPECT_FALSE(s.contains("initial_score"));
      }
    }
  }
}

TEST(ResolveConfig, GivenKeysWinAndTheRestIsTheRule) {
  const Dataset data = testing::SyntheticData(500, 4);
  json config = PrivacyOnly(1.0);
  config["max_depth"] = 3;
  const TrainerConfig c = ResolveConfig(config, data.schema, data.n_rows());
  EXPECT_EQ(c.defaults, Defaults::kAuto);
  EXPECT_EQ(c.max_depth, 3);
  const json rule = AutoSettings(PublicFactsOf(config, data.schema, data.n_rows()), config);
  EXPECT_EQ(c.n_estimators, rule["n_estimators"].get<int>());
  EXPECT_DOUBLE_EQ(c.learning_rate, rule["learning_rate"].get<double>());
}

// Private binary runs split on the union of a uniform and a log grid (docs/trees_auto_features.md §
// Split candidates); regression, multiclass and non-private baselines keep the key table's uniform
// grid.
TEST(AutoSettings, PrivateBinaryRunsSplitOnUniformAndLogCandidates) {
  for (const std::size_t n : {300, 9999, 10000, 40000}) {
    for (const double epsilon : {0.1, 0.5, 1.0, 8.0}) {
      EXPECT_EQ(
          AutoSettings(Facts(n, 10, Task::kBinary, epsilon), json::object())["split_candidates"],
          json({{"method", "uniform_and_log"}, {"count", 32}, {"rounds", 5}}))
          << n << " " << epsilon;
      for (const Task task : {Task::kRegression, Task::kMulticlass}) {
        EXPECT_FALSE(
            AutoSettings(Facts(n, 10, task, epsilon), json::object()).contains("split_candidates"));
      }
    }
    EXPECT_FALSE(AutoSettings(Facts(n, 10, Task::kBinary, std::numeric_limits<double>::infinity()),
                              json::object())
                     .contains("split_candidates"));
  }
}

// A categorical feature with more than 256 codes (identifiers): one feature per tree, split within
// the node's range, categorical features over every code boundary in trees as deep as the codes
// need (11 at most; other trees keep the branch's depth and candidates), in every branch of every
// task, except regression below 10 000 rows, which only splits over every code boundary; 256
// codes or a non-private baseline leave the rule as it was.
TEST(AutoSettings, WideCategoricalFeaturesGetDeepOneFeatureTreesOverEveryCode) {
  for (const Task task : {Task::kBinary, Task::kRegression, Task::kMulticlass}) {
    for (const std::size_t n : {3000, 9999, 10000, 50000}) {
      for (const double epsilon : {0.1, 1.0, 8.0}) {
        for (const auto& [codes, depth] :
             {std::pair{257, 9}, {1024, 10}, {1128, 11}, {70000, 11}}) {
          PublicFacts facts = Facts(n, 6, task, epsilon);
          facts.widest_categorical = codes;
          const json s = AutoSettings(facts, json::object());
          const std::string where = std::to_string(codes) + " codes, n " + std::to_string(n) +
                                    ", ε " + std::to_string(epsilon);
          EXPECT_EQ(s["split_candidates"]["method"],
                    task == Task::kBinary ? "uniform_and_log" : "uniform")
              << where;
          EXPECT_EQ(s["split_candidates"]["categorical_count"], std::min(codes - 1, 65534))
              << where;
          EXPECT_EQ(s["split_candidates"]["count"], 32) << where;
          if (task == Task::kRegression && n < 10000) {
            // Small regression runs: every code boundary, the branch's settings otherwise.
            PublicFacts narrow = facts;
            narrow.widest_categorical = 256;
            json expected = AutoSettings(narrow, json::object());
            expected["split_candidates"] = s["split_candidates"];
            EXPECT_EQ(s, expected) << where;
            continue;
          }
          EXPECT_EQ(s["feature_interaction"], json({{"method", "cyclical"}, {"k", 1}})) << where;
          EXPECT_FALSE(s.contains("split_scope")) << where;  // the key table's node scope
          EXPECT_EQ(s["categorical_depth"], depth) << where;
          // The branch's other choices stay (subsampling where it subsamples), except that binary
          // runs never subsample: 1000 trees on all rows.
          PublicFacts narrow = facts;
          narrow.widest_categorical = 256;
          const json before = AutoSettings(narrow, json::object());
          // Other trees: the branch's depth, at least 6.
          EXPECT_EQ(s["max_depth"], std::max(before.value("max_depth", 4), 6)) << where;
          if (task == Task::kBinary) {
            EXPECT_FALSE(s.contains("subsample")) << where;
            EXPECT_EQ(s["n_estimators"], 1000) << where;
            EXPECT_EQ(s["hessian_clip"], 0.1) << where;
          } else {
            EXPECT_EQ(s.contains("subsample"), before.contains("subsample")) << where;
            // At most 1000 trees (subsampled regression's 2000 halved; multiclass keeps 300).
            EXPECT_EQ(s["n_estimators"], std::min(before["n_estimators"].get<int>(), 1000))
                << where;
          }
          PublicFacts none = facts;
          none.widest_categorical = 0;
          EXPECT_EQ(before, AutoSettings(none, json::object())) << where;
        }
      }
    }
    // Greedy splits given: the rule's other settings, not deep trees over thousands of candidates.
    PublicFacts facts = Facts(50000, 6, task, 0.5);
    const json greedy = {{"split_method", "histogram"}};
    const json plain_greedy = AutoSettings(facts, greedy);
    facts.widest_categorical = 2972;
    EXPECT_EQ(AutoSettings(facts, greedy), plain_greedy);
    EXPECT_EQ(AutoSettings(facts, {{"split_method", "partially_random"}})["categorical_depth"], 11);
    // Partially random splits over several features per tree pick the best noisy gain: the config
    // is valid as given, and the rule adds nothing that would make it invalid.
    for (const json& interaction :
         {json({{"method", "cyclical"}, {"k", 2}}), json({{"method", "all"}, {"k", 0}})}) {
      const json partial = {{"split_method", "partially_random"},
                            {"feature_interaction", interaction}};
      facts.widest_categorical = 0;
      const json plain_partial = AutoSettings(facts, partial);
      facts.widest_categorical = 2972;
      EXPECT_EQ(AutoSettings(facts, partial), plain_partial) << interaction.dump();
    }
    PublicFacts baseline = Facts(50000, 6, task, std::numeric_limits<double>::infinity());
    const json plain = AutoSettings(baseline, json::object());
    baseline.widest_categorical = 2972;
    EXPECT_EQ(AutoSettings(baseline, json::object()), plain);
  }
}

TEST(PublicFactsOf, WidestCategoricalIsTheMostCodesOfACategoricalFeature) {
  Dataset data = testing::SyntheticData(100, 4);
  EXPECT_EQ(PublicFactsOf(PrivacyOnly(1.0), data.schema, 100).widest_categorical, 0);
  for (const auto& [f, codes] : {std::pair{1, 40}, {3, 300}}) {
    data.schema.features[f].categorical = true;
    data.schema.features[f].n_codes = codes;
    data.schema.features[f].min = 0;
    data.schema.features[f].max = codes - 1;
  }
  EXPECT_EQ(PublicFactsOf(PrivacyOnly(1.0), data.schema, 100).widest_categorical, 300);
}

// `rdpkit train` bins the data with RunSplitCandidates before it counts the rows: they must be the
// candidates ResolveConfig then gives the trainer, for every n, given or chosen.
TEST(ResolveConfig, RunSplitCandidatesAreTheResolvedOnesForEveryN) {
  const json log16 = {{"method", "log"}, {"count", 16}};
  for (const Task task : {Task::kBinary, Task::kRegression, Task::kMulticlass}) {
    for (const int wide_codes : {0, 1000}) {
      Dataset data = testing::SyntheticData(200, 3, task);
      if (wide_codes > 0) {  // feature 0 an identifier: the candidates then follow its codes
        data.schema.features[0].categorical = true;
        data.schema.features[0].n_codes = wide_codes;
        data.schema.features[0].min = 0;
        data.schema.features[0].max = wide_codes - 1;
      }
      for (const json& privacy :
           {json(PrivacyOnly(0.1)), json(PrivacyOnly(1.0)), json({{"non_private", true}})}) {
        for (const json& extra :
             {json::object(), json({{"defaults", "static"}}), json({{"split_candidates", log16}}),
              json({{"split_method", "histogram"}}),
              json({{"split_method", "partially_random"},
                    {"feature_interaction", {{"method", "cyclical"}, {"k", 2}}}})}) {
          json config = privacy;
          config.update(extra);
          const TrainerConfig::SplitCandidates read = RunSplitCandidates(config, data.schema);
          for (const std::size_t n : {200, 20000, 2000000}) {
            const TrainerConfig::SplitCandidates used =
                ResolveConfig(config, data.schema, n).split_candidates;
            EXPECT_EQ(read.method, used.method) << config.dump() << " n " << n;
            EXPECT_EQ(read.count, used.count) << config.dump() << " n " << n;
            EXPECT_EQ(read.categorical_count, used.categorical_count)
                << config.dump() << " n " << n;
          }
        }
      }
    }
  }
}

TEST(ResolveConfig, StaticDefaultsAreTheKeyTables) {
  const Dataset data = testing::SyntheticData(500, 4);
  json config = PrivacyOnly(1.0);
  config["defaults"] = "static";
  const TrainerConfig c = ResolveConfig(config, data.schema, data.n_rows());
  const TrainerConfig fixed;
  EXPECT_EQ(c.defaults, Defaults::kStatic);
  EXPECT_EQ(c.n_estimators, fixed.n_estimators);
  EXPECT_EQ(c.learning_rate, fixed.learning_rate);
  EXPECT_EQ(c.max_depth, fixed.max_depth);
}

TEST(ResolveConfig, BadDefaultsValueIsRefusedByName) {
  const Dataset data = testing::SyntheticData(50, 2);
  json config = PrivacyOnly(1.0);
  config["defaults"] = "best";
  EXPECT_THAT([&] { (void)ResolveConfig(config, data.schema, data.n_rows()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("defaults")));
}

// The rule reads public facts only: two data sets with the same n, m, task and target get the
// same settings whatever their values.
TEST(ResolveConfig, DependsOnPublicFactsOnly) {
  const Dataset a = testing::SyntheticData(800, 5, Task::kBinary, /*seed=*/1);
  const Dataset b = testing::SyntheticData(800, 5, Task::kBinary, /*seed=*/2, /*flip=*/0.4);
  const json config = PrivacyOnly(0.5);
  EXPECT_EQ(ResolveConfig(config, a.schema, a.n_rows()).ToJson(),
            ResolveConfig(config, b.schema, b.n_rows()).ToJson());
}

// The model written for an auto run records every chosen setting, and its privacy event gives
// back its ε.
TEST(ResolveConfig, ModelRecordsTheChosenSettingsAndItsEventGivesBackEpsilon) {
  for (const Task task : {Task::kBinary, Task::kRegression}) {
    for (const bool wide : {false, true}) {
      Dataset data = testing::SyntheticData(400, 3, task);
      json config = PrivacyOnly(1.0);
      // Regression subsamples: a short run keeps its calibration quick in a test.
      if (task == Task::kRegression || wide) config["n_estimators"] = 20;
      // Feature 0 an identifier of 300 codes: deep one-feature trees over every code (regression
      // below 10 000 rows: every code boundary in the branch's trees).
      if (wide) {
        FeatureSpec& id = data.schema.features[0];
        id.categorical = true;
        id.n_codes = 300;
        id.min = 0;
        id.max = 299;
        for (std::size_t i = 0; i < data.columns[0].size(); ++i) {
          data.columns[0][i] = static_cast<double>((i * 7) % 300);
        }
      }
      const TrainerConfig resolved = ResolveConfig(config, data.schema, data.n_rows());
      const Model model = Train(data, resolved, {.progress = false});
      EXPECT_EQ(model.config, resolved.ToJson());
      EXPECT_EQ(model.config["defaults"], "auto");
      const json rule = AutoSettings(PublicFactsOf(config, data.schema, data.n_rows()), config);
      for (const auto& item : rule.items()) EXPECT_EQ(model.config[item.key()], item.value());
      const double delta = model.privacy["delta"].get<double>();
      const auto eps =
          accountant::Epsilon(accountant::Event::FromJson(model.privacy["event"]), delta);
      EXPECT_DOUBLE_EQ(eps.epsilon, model.privacy["epsilon"].get<double>());
      EXPECT_LE(eps.epsilon, 1.0);
      if (wide) {
        EXPECT_EQ(model.config["split_candidates"]["categorical_count"], 299);
      }
      if (wide && task == Task::kRegression) {
        EXPECT_FALSE(model.config.contains("categorical_depth"));  // the key table's: max_depth
        EXPECT_EQ(model.config["max_depth"], 4);
      }
      if (wide && task == Task::kBinary) {
        EXPECT_EQ(model.config["categorical_depth"], 9);
        EXPECT_EQ(model.config["feature_interaction"]["k"], 1);
        // Trees on the identifier reach below the other trees' depth; the others keep it.
        const int max_depth = model.config["max_depth"].get<int>();
        const auto [identifier_trees, other_trees] = testing::DeepestTreesOfAndBesides(model, 0);
        EXPECT_LE(other_trees, max_depth);
        EXPECT_GT(identifier_trees, max_depth);
        EXPECT_LE(identifier_trees, 9);
      }
    }
  }
}

}  // namespace
}  // namespace rdpkit::trees
