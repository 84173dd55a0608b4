#include "rdpkit/trees/accounting.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/trees/train.h"
#include "synthetic_data.h"

namespace rdpkit::trees {
namespace {

using accountant::Event;
using nlohmann::json;

constexpr int kFeatures = 4;
constexpr double kTargetEpsilon = 1.0;

TrainerConfig Config(json j) {
  j["n_estimators"] = 10;
  j["max_depth"] = 3;
  j["seed"] = 5;
  if (!j.contains("privacy")) j["privacy"] = {{"epsilon", kTargetEpsilon}};
  return TrainerConfig::FromJson(j);
}

json Gaussian(double sigma) { return {{"gaussian", {{"noise_multiplier", sigma}}}}; }
json Repeat(std::uint64_t count, json event) {
  if (count == 1) return event;
  return {{"self_composed", {{"count", count}, {"event", std::move(event)}}}};
}

// Hand-computed counts (Maddock Table 1) for m = 4 features, T = 10 trees, depth d = 3, s = 2
// IH rounds: TR κ_w = T; IH with TR/PR/exponential κ_c = s·m; Hist κ_s = T·k·d (k = 1: T),
// κ_w = 0; PR κ_s = T·k·d (k = 1: data-independent, κ_w = T); exponential κ_s = T·d
// selections plus κ_w = T.
struct CountCase {
  const char* name;
  json config;
  std::uint64_t candidate, split, leaf;
  bool exponential;
};
// Names the case in test output and ctest names (not its bytes, which vary between builds).
void PrintTo(const CountCase& c, std::ostream* os) { *os << c.name; }

class QueryCountCase : public ::testing::TestWithParam<CountCase> {};

const json kIh = {{"method", "iterative_hessian"}, {"rounds", 2}};

TEST_P(QueryCountCase, MatchesHandCountAndTheTrainedModel) {
  const CountCase& c = GetParam();
  const TrainerConfig config = Config(c.config);
  const QueryCounts counts = CountQueries(config, QueryShape::AllNumeric(kFeatures));
  EXPECT_EQ(counts.candidate, c.candidate);
  EXPECT_EQ(counts.split, c.split);
  EXPECT_EQ(counts.leaf, c.leaf);
  EXPECT_EQ(counts.exponential, c.exponential);

  // The trained model reports the same counts, and its event is exactly the composition of the
  // hand-counted queries at the noise multiplier it used.
  const Dataset data = testing::SyntheticData(300, kFeatures);
  TrainOptions options;
  options.progress = false;
  const Model model = Train(data, config, options);
  EXPECT_EQ(model.training_log["queries"]["candidate"], c.candidate);
  EXPECT_EQ(model.training_log["queries"]["split"], c.split);
  EXPECT_EQ(model.training_log["queries"]["leaf"], c.leaf);
  const double sigma = model.training_log["noise_multiplier"];
  json pair = config.leaf_noise_weights.empty()
                  ? Gaussian(sigma)
                  : json{{"leaf_balanced_gaussian",
                          {{"noise_multiplier", sigma}, {"weights", config.leaf_noise_weights}}}};
  json parts = json::array();
  if (c.candidate > 0) parts.push_back(Repeat(c.candidate, Gaussian(sigma)));
  if (c.split > 0) {
    parts.push_back(
        Repeat(c.split,
               c.exponential
                   ? json{{"exponential",
                           {{"epsilon", 2 * std::sqrt(double(c.leaf) / double(c.split)) / sigma}}}}
                   : pair));
  }
  if (c.leaf > 0) parts.push_back(Repeat(c.leaf, pair));
  const json expected = parts.size() == 1 ? parts[0] : json{{"composed", parts}};
  EXPECT_EQ(Event::FromJson(model.privacy["event"]).ToJson(), Event::FromJson(expected).ToJson());

  // `rdpkit epsilon` on the stored event: certified ε ≤ target, and equal to the recorded one.
  const double delta = model.privacy["delta"];
  EXPECT_DOUBLE_EQ(delta, 1e-3);  // the largest power of ten below 1/300
  const auto eps = accountant::Epsilon(Event::FromJson(model.privacy["event"]), delta);
  EXPECT_LE(eps.epsilon, kTargetEpsilon);
  EXPECT_GT(eps.epsilon, 0.999 * kTargetEpsilon);  // calibration is tight, not wasteful
  EXPECT_DOUBLE_EQ(eps.epsilon, model.privacy["epsilon"].get<double>());
}

INSTANTIATE_TEST_SUITE_P(
    Combinations, QueryCountCase,
    ::testing::Values(
        CountCase{"tr_newton", json::object(), 0, 0, 10, false},
        CountCase{"tr_gradient", {{"leaf_update", "gradient"}}, 0, 0, 10, false},
        CountCase{
            "tr_averaging", {{"leaf_update", "averaging"}, {"batch_size", 10}}, 0, 0, 10, false},
        CountCase{"tr_ih", {{"split_candidates", kIh}}, 8, 0, 10, false},
        CountCase{"tr_ih_more_rounds_than_trees",
                  {{"split_candidates", {{"method", "iterative_hessian"}, {"rounds", 20}}}},
                  40,
                  0,
                  10,
                  false},
        CountCase{"tr_ih_cyclical_k1",
                  {{"split_candidates", kIh},
                   {"feature_interaction", {{"method", "cyclical"}, {"k", 1}}}},
                  8,
                  0,
                  10,
                  false},
        CountCase{"tr_batched", {{"batch_size", 5}}, 0, 0, 10, false},
        CountCase{"tr_log", {{"split_candidates", {{"method", "log"}}}}, 0, 0, 10, false},
        CountCase{"tr_leaf_balanced", {{"leaf_noise_weights", {0.2, 0.8}}}, 0, 0, 10, false},
        CountCase{"pr_all", {{"split_method", "partially_random"}}, 0, 120, 0, false},
        CountCase{"pr_ih",
                  {{"split_method", "partially_random"}, {"split_candidates", kIh}},
                  8,
                  120,
                  0,
                  false},
        CountCase{"pr_cyclical_k1",
                  {{"split_method", "partially_random"},
                   {"feature_interaction", {{"method", "cyclical"}, {"k", 1}}}},
                  0,
                  0,
                  10,
                  false},
        CountCase{"hist_all", {{"split_method", "histogram"}}, 0, 120, 0, false},
        CountCase{"hist_ih_is_free",
                  {{"split_method", "histogram"}, {"split_candidates", kIh}},
                  0,
                  120,
                  0,
                  false},
        CountCase{"hist_cyclical_k1",
                  {{"split_method", "histogram"},
                   {"feature_interaction", {{"method", "cyclical"}, {"k", 1}}}},
                  0,
                  10,
                  0,
                  false},
        CountCase{"hist_random_k2",
                  {{"split_method", "histogram"},
                   {"feature_interaction", {{"method", "random"}, {"k", 2}}}},
                  0,
                  60,
                  0,
                  false},
        CountCase{"hist_gradient_leaf_balanced",
                  {{"split_method", "histogram"},
                   {"leaf_update", "gradient"},
                   {"leaf_noise_weights", {0.5, 0.5}}},
                  0,
                  120,
                  0,
                  false},
        CountCase{"exponential", {{"split_method", "exponential"}}, 0, 30, 10, true},
        CountCase{"exponential_ih",
                  {{"split_method", "exponential"}, {"split_candidates", kIh}},
                  8,
                  30,
                  10,
                  true}),
    [](const ::testing::TestParamInfo<CountCase>& param_info) { return param_info.param.name; });

TEST(Sensitivities, BinaryCrossEntropyNewtonIsSqrt17Over4) {
  const Sensitivities s = StatisticSensitivities(Config(json::object()));
  EXPECT_DOUBLE_EQ(s.a, 1.0);
  EXPECT_DOUBLE_EQ(s.b, 0.25);
  EXPECT_DOUBLE_EQ(s.pair(), std::sqrt(17.0) / 4);
}

TEST(Sensitivities, ClippingAndUpdates) {
  EXPECT_DOUBLE_EQ(StatisticSensitivities(Config({{"leaf_update", "gradient"}})).pair(),
                   std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(StatisticSensitivities(Config({{"leaf_update", "averaging"}})).pair(),
                   std::sqrt(2.0));
  const Sensitivities clipped =
      StatisticSensitivities(Config({{"gradient_clip", 0.5}, {"hessian_clip", 0.1}}));
  EXPECT_DOUBLE_EQ(clipped.a, 0.5);
  EXPECT_DOUBLE_EQ(clipped.b, 0.1);
  const Sensitivities regression =
      StatisticSensitivities(Config({{"objective", "reg:squarederror"}, {"gradient_clip", 3.0}}));
  EXPECT_DOUBLE_EQ(regression.a, 3.0);
  EXPECT_DOUBLE_EQ(regression.b, 1.0);
}

// The pair's sensitivity scales the noise, so it is never below √(a² + b²) (checked in long
// double over clips whose squares round), and a tiny clip does not underflow it to 0.
TEST(Sensitivities, PairIsAnUpperBoundWithoutUnderflow) {
  for (const double g : {1.0, 0.5, 0.3, 0.1, 1.0 / 3, 0.7071, 2.9}) {
    for (const double h : {0.25, 0.1, 0.15, 0.2, 1.0 / 7, 0.01}) {
      Sensitivities s;
      s.a = g;
      s.b = h;
      const long double exact =
          std::sqrt(static_cast<long double>(g) * g + static_cast<long double>(h) * h);
      EXPECT_GE(static_cast<long double>(s.pair()), exact) << g << " " << h;
      EXPECT_NEAR(s.pair(), static_cast<double>(exact), 1e-15) << g << " " << h;
    }
  }
  Sensitivities tiny;
  tiny.a = 1e-300;
  tiny.b = 1e-300;
  EXPECT_GE(tiny.pair(), 1e-300 * std::sqrt(2.0) * (1 - 1e-15));
}

TEST(PlannedEvent, SubsampledTreesAreOneLinearGaussianPerTree) {
  // S-BDT §6.3: per tree the queries are Gaussian (curve α·c), so the tree is one Gaussian with
  // σ_eff = 1/√(2c); IH trees add m Hessian histograms: c = (m + 1)/(2σ²) → σ/√(m + 1).
  const TrainerConfig config = Config({{"subsample", 0.25}, {"split_candidates", kIh}});
  const double sigma = 3.0;
  const json sampled = {
      {"composed",
       {Repeat(2,
               {{"poisson_sampled",
                 {{"sampling_probability", 0.25}, {"event", Gaussian(sigma / std::sqrt(5.0))}}}}),
        Repeat(8, {{"poisson_sampled",
                    {{"sampling_probability", 0.25}, {"event", Gaussian(sigma)}}}})}}};
  const json got = PlannedEvent(config, QueryShape::AllNumeric(kFeatures), sigma).ToJson();
  EXPECT_EQ(got["composed"][1], Event::FromJson(sampled["composed"][1]).ToJson());
  const double sigma_ih = got["composed"][0]["self_composed"]["event"]["poisson_sampled"]["event"]
                             ["gaussian"]["noise_multiplier"];
  EXPECT_NEAR(sigma_ih, sigma / std::sqrt(5.0), 1e-12);
}

TEST(PlannedEvent, InitialScoreSpendsItsShareAsTwoLaplaceReleases) {
  const TrainerConfig config =
      Config({{"initial_score", {{"epsilon_share", 0.1}, {"label_clip", 1.0}}}});
  const json got = PlannedEvent(config, QueryShape::AllNumeric(kFeatures), 2.0).ToJson();
  // ε_init = 0.1·ε = 0.1, each half 0.05 → Laplace noise_multiplier 1/0.05 = 20.
  EXPECT_EQ(got["composed"][0], Repeat(2, {{"laplace", {{"noise_multiplier", 20.0}}}}));
  EXPECT_EQ(got["composed"][1], Repeat(10, Gaussian(2.0)));
}

TEST(PlanPrivacy, DeltaDefaultsToAPowerOfTenBelowOneOverN) {
  const PrivacyPlan plan =
      PlanPrivacy(Config(json::object()), 1000, QueryShape::AllNumeric(kFeatures));
  EXPECT_DOUBLE_EQ(plan.delta, 1e-4);  // strictly below 1/1000
  EXPECT_TRUE(plan.delta_from_n);
  const PrivacyPlan explicit_delta =
      PlanPrivacy(Config({{"privacy", {{"epsilon", 1.0}, {"delta", 1e-6}}}}), 1000,
                  QueryShape::AllNumeric(kFeatures));
  EXPECT_DOUBLE_EQ(explicit_delta.delta, 1e-6);
  EXPECT_FALSE(explicit_delta.delta_from_n);
  EXPECT_GT(explicit_delta.noise_multiplier, plan.noise_multiplier);
  // A given δ of 1/n or more is refused by name unless accepted explicitly.
  EXPECT_THAT(
      [&] {
        (void)PlanPrivacy(Config({{"privacy", {{"epsilon", 1.0}, {"delta", 1e-3}}}}), 1000,
                          QueryShape::AllNumeric(kFeatures));
      },
      ::testing::ThrowsMessage<InvalidArgument>(::testing::HasSubstr("privacy.delta = 0.001")));
  const PrivacyPlan accepted = PlanPrivacy(
      Config({{"privacy", {{"epsilon", 1.0}, {"delta", 1e-3}, {"allow_large_delta", true}}}}), 1000,
      QueryShape::AllNumeric(kFeatures));
  EXPECT_DOUBLE_EQ(accepted.delta, 1e-3);
}

TEST(PlanPrivacy, RefusesMoreRowsThanTheExactSumsHold) {
  // Cells of up to 2^29 − 1 records convert to doubles exactly (statistics.h kMaxPrivateRows).
  const std::size_t most = (std::size_t{1} << 29) - 1;
  EXPECT_GT(
      PlanPrivacy(Config(json::object()), most, QueryShape::AllNumeric(kFeatures)).noise_multiplier,
      0);
  EXPECT_THAT(
      [&] {
        (void)PlanPrivacy(Config(json::object()), most + 1, QueryShape::AllNumeric(kFeatures));
      },
      ::testing::ThrowsMessage<InvalidArgument>(
          ::testing::HasSubstr("data = 536870912 training rows is outside [1, 536870911]")));
  // A non-private baseline adds no noise and has no limit.
  EXPECT_EQ(PlanPrivacy(Config({{"non_private", true}, {"privacy", nullptr}}), most + 1,
                        QueryShape::AllNumeric(kFeatures))
                .noise_multiplier,
            0);
}

TEST(PlanPrivacy, SubsamplingAndInitialScoreStayWithinTarget) {
  for (const json& extra :
       {json{{"subsample", 0.1}}, json{{"initial_score", {{"epsilon_share", 0.2}}}},
        json{{"subsample", 0.3}, {"split_method", "exponential"}}}) {
    const TrainerConfig config = Config(extra);
    const PrivacyPlan plan = PlanPrivacy(config, 2000, QueryShape::AllNumeric(kFeatures));
    const auto eps = accountant::Epsilon(*plan.event, plan.delta);
    EXPECT_LE(eps.epsilon, kTargetEpsilon) << extra.dump();
    EXPECT_GT(plan.noise_multiplier, 0) << extra.dump();
  }
}

}  // namespace
}  // namespace rdpkit::trees
