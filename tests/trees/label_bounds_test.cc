// Public label bounds of regression schemas (DESIGN.md §4) and the label scale they give the
// trainer (trees/src/label_bounds.h, docs/trees_training.md "Regression").
#include "label_bounds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/train.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::Quiet;
using testing::SyntheticData;
using ::testing::ThrowsMessage;

json RegressionSchemaJson(json label) {
  json schema = {{"task", "regression"}, {"features", {{{"name", "a"}, {"min", 0}, {"max", 1}}}}};
  if (!label.is_null()) schema["label"] = std::move(label);
  return schema;
}

TEST(LabelBounds, AreReadAndWrittenBack) {
  const Schema schema = Schema::FromJson(RegressionSchemaJson({{"min", 326}, {"max", 18823}}));
  ASSERT_TRUE(schema.label.has_value());
  EXPECT_EQ(schema.label->min, 326);
  EXPECT_EQ(schema.label->max, 18823);
  const Schema again = Schema::FromJson(schema.ToJson());
  ASSERT_TRUE(again.label.has_value());
  EXPECT_EQ(again.label->min, 326);
  EXPECT_EQ(again.label->max, 18823);
  EXPECT_FALSE(Schema::FromJson(RegressionSchemaJson(nullptr)).label.has_value());
  EXPECT_FALSE(Schema::FromJson(RegressionSchemaJson(nullptr)).ToJson().contains("label"));
}

TEST(LabelBounds, BadBoundsNameTheField) {
  const auto refused = [](json label, const std::string& field) {
    EXPECT_THAT([&] { Schema::FromJson(RegressionSchemaJson(label)); },
                ThrowsMessage<InvalidArgument>(HasSubstr(field)))
        << label.dump();
  };
  refused({{"min", "?"}, {"max", 5}}, "label.min = \"?\"");
  refused({{"min", 0}, {"max", "?"}}, "label.max = \"?\"");
  refused({{"min", 0}}, "label.max");
  refused({{"min", 5}, {"max", 5}}, "label.max = 5");
  refused({{"min", 6}, {"max", 5}}, "label.max = 5 is outside (min, inf) with min = 6");
  refused({{"min", -1.5e308}, {"max", 1.5e308}}, "label.min/max");
  // A half-width below the smallest normal double: the scaling would divide by 0 or a subnormal.
  refused({{"min", 0}, {"max", 5e-324}}, "label.min/max = [0, 5e-324] (width below");
  refused({{"min", 1e-323}, {"max", 1.5e-323}}, "(width below 4.450147717014403e-308)");
  refused({{"min", -5e-324}, {"max", 5e-324}}, "bounds at least 4.450147717014403e-308 apart");
  refused({{"min", 0}, {"max", 1}, {"mean", 0.5}}, "label.mean");
  refused(json::array({0, 1}), "label");
  refused({{"min", true}, {"max", 1}}, "label.min");
  // A binary label is 0 or 1: bounds there are a mistake, said by name.
  json binary = RegressionSchemaJson({{"min", 0}, {"max", 1}});
  binary["task"] = "binary";
  EXPECT_THAT([&] { Schema::FromJson(binary); },
              ThrowsMessage<InvalidArgument>(HasSubstr("label bounds are for regression")));
}

// Labels y = 2·x0 − x1 + noise lie in about [−1.3, 2.3]; bounds [lo, hi].
Dataset BoundedRegression(std::size_t n, std::uint64_t seed, double lo, double hi) {
  Dataset d = SyntheticData(n, 3, Task::kRegression, seed);
  d.schema.label = LabelBounds{.min = lo, .max = hi};
  return d;
}

TrainerConfig RegressionConfig(json extra = json::object()) {
  json j = {{"objective", "reg:squarederror"},
            {"n_estimators", 30},
            {"max_depth", 3},
            {"learning_rate", 0.3},
            {"privacy", {{"epsilon", 2.0}, {"delta", 1e-6}}},
            {"initial_score", {{"epsilon_share", 0.1}}},
            {"seed", 7}};
  j.update(extra);
  return TrainerConfig::FromJson(j);
}

// The bounded run is the unbounded run on labels (y − mid)/half, mapped back: F = mid + half·F'.
// Same seed, same calibration, same draws: equal up to the rounding of the final map.
TEST(LabelBounds, TrainingIsTheScaledRunMappedBack) {
  const double lo = -2, hi = 3, mid = 0.5, half = 2.5;
  const Dataset bounded = BoundedRegression(3000, 11, lo, hi);
  Dataset scaled = bounded;
  scaled.schema.label.reset();
  for (double& y : scaled.labels) y = std::clamp((y - mid) / half, -1.0, 1.0);

  const TrainerConfig config = RegressionConfig();
  const Model a = Train(bounded, config, Quiet());
  const Model b = Train(scaled, config, Quiet());
  EXPECT_EQ(a.privacy, b.privacy);
  EXPECT_EQ(a.training_log["noise_multiplier"], b.training_log["noise_multiplier"]);
  EXPECT_EQ(a.training_log["labels_clipped"], 0);
  EXPECT_FALSE(b.training_log.contains("labels_clipped"));
  const std::vector<double> pa = a.Predict(bounded);
  const std::vector<double> pb = b.Predict(scaled);
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_NEAR(pa[i], mid + half * pb[i], 1e-12 * half * (1 + std::fabs(pb[i]))) << i;
  }
}

// Found by a sweep of train's configs: label bounds of ±8e307 gave a base score and leaves beyond
// the doubles in label units, written as null, so that predict and evaluate refused the model
// that train had written with exit 0. The run is refused instead, naming the bounds; wide bounds
// whose predictions stay finite train.
TEST(LabelBounds, PredictionsBeyondTheDoublesAreRefused) {
  EXPECT_THAT(
      [] { (void)Train(BoundedRegression(1000, 13, -8e307, 8e307), RegressionConfig(), Quiet()); },
      ThrowsMessage<InvalidArgument>(
          AllOf(HasSubstr("label.min/label.max: the trained model's predictions could overflow"),
                HasSubstr("give narrower public label bounds"))));
  const Model wide = Train(BoundedRegression(1000, 13, -1e300, 1e300), RegressionConfig(), Quiet());
  for (double p : wide.Predict(BoundedRegression(100, 14, -1e300, 1e300))) {
    EXPECT_TRUE(std::isfinite(p));
  }
  // Without label bounds, leaves that add up beyond the doubles are refused too.
  const std::vector<double> labels(2, 0.0);
  const internal::TrainingLabels unscaled(labels, std::nullopt);
  Model huge;
  huge.trees.resize(2);
  for (Tree& tree : huge.trees) tree.nodes.push_back(Node{.value = 1e308});
  EXPECT_THAT([&] { unscaled.ToLabelUnits(huge); },
              ThrowsMessage<InvalidArgument>(HasSubstr("model: the trained model's predictions")));
  huge.trees.pop_back();
  EXPECT_NO_THROW(unscaled.ToLabelUnits(huge));
}

TEST(LabelBounds, LabelsOutsideAreClippedAndCountedInTheLog) {
  Dataset data = BoundedRegression(2000, 12, -0.5, 1.0);
  std::size_t outside = 0;
  for (double y : data.labels) outside += (y < -0.5 || y > 1.0) ? 1 : 0;
  ASSERT_GT(outside, 100u);
  const Model model = Train(data, RegressionConfig(), Quiet());
  EXPECT_EQ(model.training_log["labels_clipped"], outside);
  // The count is the operator's log, never the model's (DESIGN.md §6).
  EXPECT_EQ(model.ToJson().dump().find("labels_clipped"), std::string::npos);
}

// Labels in the thousands: without bounds every residual is clipped to ±1 label unit and the model
// barely moves; with bounds the default clip is half the label range and the model learns.
TEST(LabelBounds, LargeLabelsAreLearnedWithBoundsOnly) {
  const auto in_dollars = [](Dataset d) {
    for (double& y : d.labels) y = 5000 + 3000 * y;
    d.schema.label = LabelBounds{.min = -2000, .max = 13000};
    return d;
  };
  const Dataset train = in_dollars(SyntheticData(4000, 3, Task::kRegression, 21));
  const Dataset test = in_dollars(SyntheticData(2000, 3, Task::kRegression, 22));
  Dataset unbounded = train;
  unbounded.schema.label.reset();
  double mean = 0;
  for (double y : test.labels) mean += y / static_cast<double>(test.labels.size());
  const double constant_rmse = Rmse(std::vector<double>(test.labels.size(), mean), test.labels);

  const TrainerConfig config = RegressionConfig({{"n_estimators", 50}});
  const double with_bounds = Rmse(Train(train, config, Quiet()).Predict(test), test.labels);
  const double without = Rmse(Train(unbounded, config, Quiet()).Predict(test), test.labels);
  EXPECT_LT(with_bounds, 0.6 * constant_rmse);
  EXPECT_GT(without, constant_rmse);  // stuck near the clipped initial score
}

TEST(LabelBounds, DraftedRegressionSchemasAskForThem) {
  testing::ScratchDir dir;
  const std::string data = dir.Write("d.csv", "a,label\n0.5,3\n0.25,7.5\n0.75,-1\n");
  const Schema draft = DraftSchema(data, "label", Task::kRegression);
  const json blank = SchemaDraftJson(draft, /*with_data_bounds=*/false);
  EXPECT_EQ(blank["label"], json({{"min", "?"}, {"max", "?"}}));
  const json leaky = SchemaDraftJson(draft, /*with_data_bounds=*/true);
  EXPECT_EQ(leaky["label"], json({{"min", -1}, {"max", 7.5}}));
  EXPECT_TRUE(leaky.contains("bounds_from_data"));
  const std::string labels01 = dir.Write("b.csv", "a,label\n0.5,1\n0.25,0\n");
  const json binary = SchemaDraftJson(DraftSchema(labels01, "label", Task::kBinary), false);
  EXPECT_FALSE(binary.contains("label"));
}

}  // namespace
}  // namespace rdpkit::trees
