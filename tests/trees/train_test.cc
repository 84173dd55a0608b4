#include "rdpkit/trees/train.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/trees/metrics.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::Quiet;
using testing::SyntheticData;
using ::testing::ThrowsMessage;

TrainerConfig Config(json j) {
  if (!j.contains("privacy") && !j.contains("non_private")) j["privacy"] = {{"epsilon", 1.0}};
  if (!j.contains("seed")) j["seed"] = 42;
  return TrainerConfig::FromJson(j);
}

// Every option on small data: the model trains, has T trees of depth d and learns the signal
// (x0 + x1 > 1). Thresholds: a non-private model must reach AUC 0.85 and a private one (ε = 8 on
// 4000 rows) 0.70; a model that ignores the data sits at 0.5 ± 0.03 on 2000 test rows.
struct OptionCase {
  const char* name;
  json config;
  double min_auc;
};
// Names the case in test output and ctest names (not its bytes, which vary between builds).
void PrintTo(const OptionCase& c, std::ostream* os) { *os << c.name; }

class TrainOption : public ::testing::TestWithParam<OptionCase> {};

TEST_P(TrainOption, LearnsTheSignal) {
  const Dataset train = SyntheticData(4000, 4, Task::kBinary, 1);
  const Dataset test = SyntheticData(2000, 4, Task::kBinary, 2);
  json j = GetParam().config;
  if (!j.contains("non_private") && !j.contains("privacy")) j["privacy"] = {{"epsilon", 8.0}};
  const TrainerConfig config = Config(j);
  const Model model = Train(train, config, Quiet());
  ASSERT_EQ(model.trees.size(), static_cast<std::size_t>(config.n_estimators));
  for (const Tree& tree : model.trees) {
    // Complete trees without the nodes no row can reach (WithoutUnreachableNodes).
    EXPECT_LE(tree.nodes.size(), (std::size_t{2} << config.max_depth) - 1);
    EXPECT_NO_THROW(tree.Validate(4));
  }
  EXPECT_GE(Auc(model.Predict(test), test.labels), GetParam().min_auc) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Options, TrainOption,
    ::testing::Values(
        OptionCase{"tr_newton", {{"n_estimators", 50}}, 0.70},
        OptionCase{"tr_gradient", {{"n_estimators", 50}, {"leaf_update", "gradient"}}, 0.70},
        OptionCase{"tr_averaging_rf",
                   {{"n_estimators", 50}, {"leaf_update", "averaging"}, {"batch_size", 50}},
                   0.70},
        OptionCase{"pr_newton",
                   {{"n_estimators", 10}, {"split_method", "partially_random"}, {"max_depth", 3}},
                   0.70},
        OptionCase{"hist_newton",
                   {{"n_estimators", 10}, {"split_method", "histogram"}, {"max_depth", 3}},
                   0.70},
        OptionCase{"hist_cyclical_k1",
                   {{"n_estimators", 20},
                    {"split_method", "histogram"},
                    {"feature_interaction", {{"method", "cyclical"}, {"k", 1}}}},
                   0.70},
        OptionCase{"exponential",
                   {{"n_estimators", 10}, {"split_method", "exponential"}, {"max_depth", 3}},
                   0.70},
        OptionCase{"log_candidates",
                   {{"n_estimators", 50}, {"split_candidates", {{"method", "log"}}}},
                   0.70},
        OptionCase{"iterative_hessian_tr",
                   {{"n_estimators", 50},
                    {"split_candidates", {{"method", "iterative_hessian"}, {"rounds", 3}}}},
                   0.70},
        OptionCase{"iterative_hessian_hist",
                   {{"n_estimators", 10},
                    {"split_method", "histogram"},
                    {"max_depth", 3},
                    {"split_candidates", {{"method", "iterative_hessian"}, {"rounds", 3}}}},
                   0.70},
        OptionCase{
            "cyclical_k1",
            {{"n_estimators", 50}, {"feature_interaction", {{"method", "cyclical"}, {"k", 1}}}},
            0.70},
        OptionCase{
            "random_k2",
            {{"n_estimators", 50}, {"feature_interaction", {{"method", "random"}, {"k", 2}}}},
            0.70},
        OptionCase{"batched", {{"n_estimators", 60}, {"batch_size", 15}}, 0.70},
        OptionCase{
            "leaf_balanced", {{"n_estimators", 50}, {"leaf_noise_weights", {0.1, 0.9}}}, 0.70},
        OptionCase{"subsample", {{"n_estimators", 50}, {"subsample", 0.5}}, 0.70},
        OptionCase{"initial_score",
                   {{"n_estimators", 50},
                    {"initial_score", {{"epsilon_share", 0.05}, {"label_clip", 1.0}}}},
                   0.70},
        OptionCase{"threads2", {{"n_estimators", 50}, {"threads", 2}}, 0.70},
        OptionCase{"non_private_tr", {{"n_estimators", 50}, {"non_private", true}}, 0.85},
        OptionCase{"non_private_hist",
                   {{"n_estimators", 10}, {"non_private", true}, {"split_method", "histogram"}},
                   0.85},
        OptionCase{"quantile_baseline",
                   {{"n_estimators", 50}, {"split_candidates", {{"method", "quantile"}}}},
                   0.70}),
    [](const ::testing::TestParamInfo<OptionCase>& param_info) { return param_info.param.name; });

TEST(Train, RegressionWithGradientClipping) {
  const Dataset train = SyntheticData(4000, 3, Task::kRegression, 3);
  const Dataset test = SyntheticData(2000, 3, Task::kRegression, 4);
  const TrainerConfig config = Config({{"objective", "reg:squarederror"},
                                       {"n_estimators", 50},
                                       {"gradient_clip", 2.0},
                                       {"privacy", {{"epsilon", 8.0}}}});
  const Model model = Train(train, config, Quiet());
  // Predicting 0 everywhere gives the label RMSE around 0.75 (label = 2x0 − x1 on [0,1]²).
  double zero_rmse = 0;
  for (double y : test.labels) zero_rmse += y * y;
  zero_rmse = std::sqrt(zero_rmse / static_cast<double>(test.labels.size()));
  EXPECT_LT(Rmse(model.Predict(test), test.labels), 0.8 * zero_rmse);
}

TEST(Train, SameSeedGivesTheSameModelBytes) {
  const Dataset train = SyntheticData(1000, 3);
  for (const char* split : {"totally_random", "histogram", "partially_random", "exponential"}) {
    // Subsampling (Poisson draws per tree) only with TR: its calibration is the slow one.
    const bool tr = std::string(split) == "totally_random";
    const TrainerConfig config = Config({{"n_estimators", 8},
                                         {"max_depth", 3},
                                         {"split_method", split},
                                         {"subsample", tr ? 0.7 : 1.0},
                                         {"seed", 123}});
    EXPECT_EQ(Train(train, config, Quiet()).ToText(), Train(train, config, Quiet()).ToText())
        << split;
    TrainerConfig other = config;
    other.seed = 124;
    EXPECT_NE(Train(train, config, Quiet()).ToText(), Train(train, other, Quiet()).ToText())
        << split;
  }
}

TEST(Train, ThreadsGiveTheSameTreesAsOneThread) {
  // Chunked sums differ only by floating-point association; the structure of TR trees is drawn
  // before any data is read and must be identical.
  const Dataset train = SyntheticData(20000, 3);
  TrainerConfig one = Config({{"n_estimators", 5}, {"seed", 9}});
  TrainerConfig two = one;
  two.threads = 2;
  const Model a = Train(train, one, Quiet());
  const Model b = Train(train, two, Quiet());
  ASSERT_EQ(a.trees.size(), b.trees.size());
  for (std::size_t t = 0; t < a.trees.size(); ++t) {
    for (std::size_t i = 0; i < a.trees[t].nodes.size(); ++i) {
      EXPECT_EQ(a.trees[t].nodes[i].feature, b.trees[t].nodes[i].feature);
      EXPECT_EQ(a.trees[t].nodes[i].threshold, b.trees[t].nodes[i].threshold);
      EXPECT_NEAR(a.trees[t].nodes[i].value, b.trees[t].nodes[i].value, 1e-9);
    }
  }
}

TEST(Train, ModelRecordsConfigPrivacyAndReport) {
  const Dataset train = SyntheticData(500, 2);
  const Model model = Train(train, Config({{"n_estimators", 5}}), Quiet());
  EXPECT_EQ(model.objective, Objective::kBinaryLogistic);
  EXPECT_EQ(model.config["n_estimators"], 5);
  EXPECT_TRUE(model.privacy.contains("event"));
  EXPECT_DOUBLE_EQ(model.privacy["delta"].get<double>(), 1e-3);  // 10^-k below 1/500
  EXPECT_EQ(model.training_log["queries"]["leaf"], 5);
  EXPECT_GT(model.training_log["noise_multiplier"].get<double>(), 0);
  // The model file round-trips.
  EXPECT_EQ(Model::FromJson(model.ToJson()).ToText(), model.ToText());
}

TEST(Train, NonPrivateBaselinesSayNotPrivate) {
  const Dataset train = SyntheticData(500, 2);
  const Model a = Train(train, Config({{"n_estimators", 3}, {"non_private", true}}), Quiet());
  EXPECT_EQ(a.privacy["private"], false);
  EXPECT_FALSE(a.privacy.contains("event"));
  const Model q =
      Train(train, Config({{"n_estimators", 3}, {"split_candidates", {{"method", "quantile"}}}}),
            Quiet());
  EXPECT_EQ(q.privacy["private"], false);
  EXPECT_THAT(q.privacy["reason"].get<std::string>(), HasSubstr("quantile"));
  EXPECT_FALSE(q.privacy.contains("event"));
}

TEST(Train, BadDataAndUnsupportedKeysAreClearErrors) {
  const Dataset train = SyntheticData(200, 2);
  EXPECT_THAT(
      [&] {
        (void)Train(train, Config({{"objective", "reg:squarederror"}}), Quiet());
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("objective")));
  EXPECT_THAT(
      [&] {
        (void)Train(train, Config({{"feature_interaction", {{"method", "random"}, {"k", 3}}}}),
                    Quiet());
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("feature_interaction.k = 3")));
  // Not implemented options are refused by name, never ignored.
  EXPECT_THAT(
      [&] {
        (void)Train(
            train, Config({{"renyi_filter", {{"extra_rounds", 2}}}, {"split_method", "histogram"}}),
            Quiet());
      },
      ThrowsMessage<InvalidArgument>(
          ::testing::AllOf(HasSubstr("renyi_filter"), HasSubstr("not supported yet"))));
  Dataset unlabeled = train;
  unlabeled.labels.clear();
  EXPECT_THAT([&] { (void)Train(unlabeled, Config({}), Quiet()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("labels")));
  // A schema that allows no split (one categorical feature of one code) says what would.
  const Schema one_code = Schema::FromJson(
      {{"task", "binary"}, {"features", {{{"name", "c"}, {"categorical", true}, {"n_codes", 1}}}}});
  const Dataset constant = DatasetFromColumns(one_code, {{0, 0, 0, 0}}, {0, 1, 0, 1}, "test");
  EXPECT_THAT(
      [&] { (void)Train(constant, Config({}), Quiet()); },
      ThrowsMessage<InvalidArgument>(HasSubstr("a categorical feature needs n_codes >= 2")));
}

// Clips that put a noise scale outside what the mechanisms take: the refusal names the keys and
// their values (it named only "stddev (sensitivity × noise_multiplier)").
TEST(Train, NoiseScalesOutOfRangeNameTheKeysTheyFollowFrom) {
  const Dataset train = SyntheticData(200, 2, Task::kRegression, 3);
  const auto refusal = [&](const json& config) {
    try {
      (void)Train(train, Config(config), Quiet());
    } catch (const InvalidArgument& error) {
      return std::string(error.what());
    }
    return std::string("trained");
  };
  EXPECT_THAT(refusal({{"objective", "reg:squarederror"}, {"gradient_clip", 1e308}}),
              ::testing::StartsWith("gradient_clip/hessian_clip: with gradient_clip = 1e+308, "
                                    "hessian_clip = 1, stddev (sensitivity × noise_multiplier) = "
                                    "inf is outside [2^-900, 2^900]"));
  EXPECT_THAT(refusal({{"objective", "reg:squarederror"},
                       {"gradient_clip", 1e-300},
                       {"hessian_clip", 1e-300},
                       {"leaf_noise_weights", {0.5, 0.5}}}),
              HasSubstr("gradient_clip/hessian_clip/leaf_noise_weights: with gradient_clip = "
                        "1e-300, hessian_clip = 1e-300, leaf_noise_weights = [0.5, 0.5]"));
  EXPECT_THAT(
      refusal({{"objective", "reg:squarederror"}, {"initial_score", {{"label_clip", 1e308}}}}),
      ::testing::StartsWith("initial_score.label_clip/epsilon_share: with "
                            "initial_score.label_clip = 1e+308, epsilon_share = 0.05, "
                            "scale (sensitivity × noise_multiplier) = inf"));
  EXPECT_EQ(refusal({{"objective", "reg:squarederror"}, {"gradient_clip", 1e3}}), "trained");
}

// An ε that no noise meets is bad input naming privacy.epsilon (it was a NumericalError, exit 1):
// the initial score's share spends it all, or it is too small for the filter's run.
TEST(Train, AnEpsilonNoNoiseMeetsIsRefusedNamingIt) {
  const Dataset train = SyntheticData(300, 2);
  EXPECT_THAT(
      [&] {
        (void)Train(train,
                    Config({{"privacy", {{"epsilon", 0.5}, {"delta", 1e-9}}},
                            {"subsample", 0.01},
                            {"max_depth", 1},
                            {"initial_score", {{"epsilon_share", 0.999999999}}}}),
                    Quiet());
      },
      ThrowsMessage<InvalidArgument>(::testing::AllOf(
          ::testing::StartsWith("privacy.epsilon: no noise_multiplier in (0, 1e+12] meets"),
          HasSubstr("or lower initial_score.epsilon_share (0.999999999 of it"))));
  EXPECT_THAT(
      [&] {
        (void)Train(train,
                    Config({{"privacy", {{"epsilon", 1e-6}, {"delta", 1e-9}}},
                            {"renyi_filter", json::object()}}),
                    Quiet());
      },
      ThrowsMessage<InvalidArgument>(::testing::AllOf(
          ::testing::StartsWith("privacy.epsilon: no noise_multiplier in (0, 1e+15] meets"),
          ::testing::EndsWith(": raise privacy.epsilon"))));
}

// S-BDT §6.5–6.6: with an individual Rényi filter the run trains T + extra trees; in the extra
// rounds only records with budget left take part (records with large gradients, charged the
// worst case each round, sit them out). The certified ε at the filter's order α̂ stays ≤ target.
TEST(Train, RenyiFilterRunsExtraRoundsWithinTheBudget) {
  const Dataset train = SyntheticData(2000, 3);
  const TrainerConfig config =
      Config({{"n_estimators", 20}, {"renyi_filter", {{"extra_rounds", 10}}}});
  const Model model = Train(train, config, Quiet());
  EXPECT_EQ(model.trees.size(), 30u);
  EXPECT_EQ(model.training_log["renyi_filter"]["rounds"], 30);
  EXPECT_GT(model.training_log["renyi_filter"]["records_sitting_out"].get<std::uint64_t>(), 0u);
  // The stored event is the filtered run: a renyi_filter over all 30 rounds at the order α̂,
  // and re-deriving its ε with the documented recipe (no orders given) gives back exactly the
  // recorded ε, at α̂.
  const nlohmann::json& filter = model.privacy["event"]["composed"][0]["renyi_filter"];
  EXPECT_EQ(filter["max_rounds"], 30);
  EXPECT_EQ(filter["order"], model.training_log["renyi_filter"]["order"]);
  const auto eps = accountant::Epsilon(accountant::Event::FromJson(model.privacy["event"]),
                                       model.privacy["delta"].get<double>());
  EXPECT_LE(model.privacy["epsilon"].get<double>(), 1.0);
  EXPECT_EQ(eps.epsilon, model.privacy["epsilon"].get<double>());
  EXPECT_EQ(eps.order, filter["order"].get<double>());
}

}  // namespace
}  // namespace rdpkit::trees
