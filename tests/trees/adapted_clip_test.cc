// initial_score.adapt_gradient_clip (trees/src/label_bounds.h, docs/trees_training.md "Adapted
// gradient clip"): g* from the released noisy mean, post-processing that leaves the event alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "label_bounds.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/train.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using internal::AdaptedGradientClip;
using internal::InitialScoreRelease;
using nlohmann::json;
using ::testing::HasSubstr;
using testing::Quiet;
using testing::SyntheticData;
using ::testing::ThrowsMessage;

// Laplace(b) has variance 2b²; the noisy mean's sd by the delta method.
double MeanNoiseSd(double count, double mean, double count_scale, double sum_scale) {
  return std::sqrt(2 * (sum_scale * sum_scale + mean * mean * count_scale * count_scale)) / count;
}

TEST(AdaptedGradientClip, FollowsTheMeansDistanceFromTheNearerBound) {
  const std::pair<double, double> scales{20.0, 20.0};
  // Mean −0.94 over 20 000 rows: d̂ = 0.06, far above the noise's sd, so g* = 2·d̂.
  const InitialScoreRelease low{0, 20000, -0.94 * 20000};
  ASSERT_LT(MeanNoiseSd(20000, -0.94, 20, 20), 0.01);
  EXPECT_NEAR(AdaptedGradientClip(low, 1.0, scales, 0.5), 2 * 0.06, 1e-12);
  // The same near the upper bound.
  const InitialScoreRelease high{0, 20000, 0.94 * 20000};
  EXPECT_NEAR(AdaptedGradientClip(high, 1.0, scales, 0.5), 2 * 0.06, 1e-12);
  // A central mean keeps the given g*, and the result never exceeds it.
  const InitialScoreRelease central{0, 20000, 0.1 * 20000};
  EXPECT_EQ(AdaptedGradientClip(central, 1.0, scales, 0.5), 0.5);
  EXPECT_EQ(AdaptedGradientClip(low, 1.0, scales, 0.05), 0.05);
}

TEST(AdaptedGradientClip, NoiseKeepsItLarge) {
  // Few rows against the noise (a small ε): sd(m̃) is large, so g* stays, even where the noisy
  // mean fell on a bound or beyond it.
  const InitialScoreRelease beyond{0, 300, 1.3 * 300};
  EXPECT_EQ(AdaptedGradientClip(beyond, 1.0, {200.0, 200.0}, 0.5), 0.5);
  // A noisy count below 1 counts as 1.
  const InitialScoreRelease negative{0, -40, 5};
  EXPECT_EQ(AdaptedGradientClip(negative, 1.0, {200.0, 200.0}, 0.5), 0.5);
  // Beyond the clip with little noise: d̂ = 0 and g* is the noise's sd, still > 0.
  const InitialScoreRelease exact{0, 1e6, 1.2e6};
  const double g = AdaptedGradientClip(exact, 1.0, {1.0, 1.0}, 0.5);
  EXPECT_GT(g, 0);
  EXPECT_NEAR(g, MeanNoiseSd(1e6, 1.0, 1, 1), 1e-15);
}

TEST(AdaptedGradientClip, TakesTheNoisyDistanceNotAnUpperBoundOfIt) {
  // fair at ε = 0.1 (4 456 rows, Laplace scales 200): a mean 0.0245 from the bound under noise
  // of sd 0.089. g* = 2·d̂ would be 0.049 and 2·(d̂ + sd) 0.23, 4.6 times that: where the
  // release cannot place the mean closer than its sd, g* is that sd.
  const double count = 4456;
  const InitialScoreRelease near_bound{0, count, -0.9755 * count};
  const double sd = MeanNoiseSd(count, -0.9755, 200, 200);
  ASSERT_NEAR(sd, 0.089, 0.001);
  EXPECT_NEAR(AdaptedGradientClip(near_bound, 1.0, {200.0, 200.0}, 0.5), sd, 1e-12);
  // A distance above sd/2 counts twice, as without noise.
  const InitialScoreRelease farther{0, count, -0.9 * count};
  EXPECT_NEAR(AdaptedGradientClip(farther, 1.0, {200.0, 200.0}, 0.5), 2 * 0.1, 1e-12);
}

// Labels y = 2·x0 − x1 + noise (about [−1.3, 2.3]) under bounds [−2, 40]: scaled, they lie
// near −0.88 with residuals of a few hundredths, far below g* = 0.5.
Dataset ConcentratedLabels(std::size_t n, std::uint64_t seed) {
  Dataset d = SyntheticData(n, 3, Task::kRegression, seed);
  d.schema.label = LabelBounds{.min = -2, .max = 40};
  return d;
}

TrainerConfig SubsampledRegression(bool adapt) {
  json j = {{"objective", "reg:squarederror"},
            {"n_estimators", 100},
            {"max_depth", 4},
            {"learning_rate", 0.1},
            {"reg_lambda", 15},
            {"subsample", 0.1},
            {"leaf_noise_weights", {0.2, 0.8}},
            {"gradient_clip", 0.5},
            {"privacy", {{"epsilon", 1.0}, {"delta", 1e-5}}},
            {"initial_score", {{"epsilon_share", 0.1}, {"adapt_gradient_clip", adapt}}},
            {"seed", 3}};
  return TrainerConfig::FromJson(j);
}

TEST(AdaptedGradientClip, SameEventSmallerClipBetterModel) {
  const Dataset train = ConcentratedLabels(20000, 21);
  const Dataset test = ConcentratedLabels(5000, 22);
  const Model fixed = Train(train, SubsampledRegression(false), Quiet());
  const Model adapted = Train(train, SubsampledRegression(true), Quiet());
  // The event, σ and ε do not depend on g*.
  EXPECT_EQ(adapted.privacy, fixed.privacy);
  EXPECT_EQ(adapted.training_log["noise_multiplier"], fixed.training_log["noise_multiplier"]);
  const auto eps = accountant::Epsilon(accountant::Event::FromJson(adapted.privacy["event"]),
                                       adapted.privacy["delta"].get<double>());
  EXPECT_LE(eps.epsilon, 1.0);
  // The model's config holds the g* the trees were grown with; the log says so too.
  const double g = adapted.config["gradient_clip"].get<double>();
  EXPECT_LT(g, 0.35);
  EXPECT_GT(g, 0.2);
  EXPECT_EQ(adapted.training_log["gradient_clip"].get<double>(), g);
  EXPECT_EQ(adapted.training_log["sensitivities"]["a"].get<double>(), g);
  EXPECT_FALSE(fixed.training_log.contains("gradient_clip"));
  EXPECT_LT(Rmse(adapted.Predict(test), test.labels), Rmse(fixed.Predict(test), test.labels));
  // Trained again from its own config and the seed (which the model never holds): the same g*
  // and the same trees.
  EXPECT_FALSE(adapted.config.contains("seed"));
  nlohmann::json config_again = adapted.config;
  config_again["seed"] = 3;
  const Model again = Train(train, TrainerConfig::FromJson(config_again), Quiet());
  EXPECT_EQ(again.ToJson().dump(), adapted.ToJson().dump());
}

TEST(AdaptedGradientClip, RefusedWhereItsBoundDoesNotHold) {
  json binary = {{"objective", "binary:logistic"},
                 {"privacy", {{"epsilon", 1.0}, {"delta", 1e-5}}},
                 {"initial_score", {{"adapt_gradient_clip", true}}}};
  EXPECT_THAT([&] { (void)TrainerConfig::FromJson(binary); },
              ThrowsMessage<InvalidArgument>(HasSubstr("initial_score.adapt_gradient_clip")));
  json averaging = SubsampledRegression(true).ToJson();
  averaging["leaf_update"] = "averaging";
  averaging.erase("batch_size");  // its default with averaging leaves: one batch of all trees
  EXPECT_THAT([&] { (void)TrainerConfig::FromJson(averaging); },
              ThrowsMessage<InvalidArgument>(HasSubstr("initial_score.adapt_gradient_clip")));
  json narrow = SubsampledRegression(true).ToJson();
  narrow["initial_score"]["label_clip"] = 0.5;
  EXPECT_THAT([&] { (void)TrainerConfig::FromJson(narrow); },
              ThrowsMessage<InvalidArgument>(HasSubstr("initial_score.label_clip = 0.5")));
  Dataset unbounded = ConcentratedLabels(500, 23);
  unbounded.schema.label.reset();
  EXPECT_THAT([&] { (void)Train(unbounded, SubsampledRegression(true), Quiet()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("needs public label bounds")));
}

}  // namespace
}  // namespace rdpkit::trees
