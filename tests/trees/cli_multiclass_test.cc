// `rdpkit train`, `predict` and `evaluate` on a multiclass schema (tools/trees_commands.h): one
// probability column per class headed by the class names (or p0..p{K-1}), --labels for the
// argmax, and the multiclass metrics equal to the library's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/model.h"
#include "trees_commands.h"
#include "trees_test_util.h"

namespace rdpkit::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;
using trees::testing::ScratchDir;

// 300 rows, x = i/300, label = ⌊3x⌋ (three bands).
std::string BandsCsv() {
  std::ostringstream csv;
  csv << "x,label\n";
  for (int i = 0; i < 300; ++i) csv << i / 300.0 << "," << (3 * i) / 300 << "\n";
  return csv.str();
}

struct Bands {
  ScratchDir dir;
  std::string data = dir.Write("train.csv", BandsCsv());
  std::string model = dir.File("model.json");

  void Train(const std::string& schema_json) {
    TrainArgs args;
    args.data = data;
    args.schema = dir.Write("schema.json", schema_json);
    args.config =
        R"({"n_estimators": 10, "max_depth": 3, "privacy": {"epsilon": 4, "delta": 1e-5},
            "seed": 5})";
    args.out = model;
    args.quiet = true;
    std::ostringstream out;
    ASSERT_EQ(RunTrain(args, out), 0);
  }
};

constexpr const char* kNamed = R"({"task": "multiclass", "n_classes": 3,
  "classes": ["low", "mid, or so", "high"], "features": [{"name": "x", "min": 0, "max": 1}]})";
constexpr const char* kUnnamed = R"({"task": "multiclass", "n_classes": 3,
  "features": [{"name": "x", "min": 0, "max": 1}]})";

TEST(MulticlassCommands, PredictWritesOneColumnPerClassAndLabelsTheArgmax) {
  Bands bands;
  bands.Train(kNamed);
  const trees::Model model = trees::Model::Load(bands.model);
  EXPECT_EQ(model.objective, trees::Objective::kMultiSoftprob);  // the schema's default
  EXPECT_EQ(model.n_classes, 3);
  std::ostringstream out;
  EXPECT_EQ(RunPredict({.model = bands.model, .data = bands.data, .labels = true}, out), 0);
  std::istringstream lines(out.str());
  std::string header, row;
  std::getline(lines, header);
  EXPECT_EQ(header, "low,\"mid, or so\",high,label");
  const trees::Dataset data = trees::LoadCsv(bands.data, model.schema);
  const std::vector<double> p = model.PredictProbabilities(data);
  const std::vector<double> labels = model.Predict(data);
  for (std::size_t r = 0; std::getline(lines, row); ++r) {
    ASSERT_LT(r, data.n_rows());
    double a, b, c;
    char comma;
    std::string label;
    std::istringstream fields(row);
    fields >> a >> comma >> b >> comma >> c >> comma;
    std::getline(fields, label);
    EXPECT_EQ(a, p[3 * r]);  // shortest round-trip text
    EXPECT_EQ(c, p[3 * r + 2]);
    // The class's name, quoted where it holds a comma.
    const char* names[] = {"low", "\"mid, or so\"", "high"};
    EXPECT_EQ(label, names[static_cast<int>(labels[r])]);
  }
  bands.Train(kUnnamed);
  std::ostringstream plain;
  EXPECT_EQ(RunPredict({.model = bands.model, .data = bands.data}, plain), 0);
  EXPECT_THAT(plain.str(), StartsWith("p0,p1,p2\n"));
  // Without names, --labels gives the class index.
  std::ostringstream indices;
  EXPECT_EQ(RunPredict({.model = bands.model, .data = bands.data, .labels = true}, indices), 0);
  EXPECT_THAT(indices.str(), ::testing::MatchesRegex("p0,p1,p2,label\n([^\n]*,[012]\n)+"));
  // A class named "label" would head a second "label" column: refused, with the way out.
  bands.Train(R"({"task": "multiclass", "n_classes": 3, "classes": ["low", "label", "high"],
      "features": [{"name": "x", "min": 0, "max": 1}]})");
  std::ostringstream refused;
  EXPECT_THAT(
      [&] { RunPredict({.model = bands.model, .data = bands.data, .labels = true}, refused); },
      ThrowsMessage<InvalidArgument>(HasSubstr("predict without --labels")));
  EXPECT_EQ(RunPredict({.model = bands.model, .data = bands.data}, refused), 0);
  EXPECT_THAT(refused.str(), StartsWith("low,label,high\n"));
}

TEST(MulticlassCommands, EvaluateReportsTheLibraryMetrics) {
  Bands bands;
  bands.Train(kUnnamed);
  std::ostringstream out;
  EXPECT_EQ(RunEvaluate({.model = bands.model, .data = bands.data}, out), 0);
  const nlohmann::json metrics = nlohmann::json::parse(out.str());
  ASSERT_EQ(metrics.size(), 3u) << metrics.dump();
  const trees::Model model = trees::Model::Load(bands.model);
  const trees::Dataset data = trees::LoadCsv(bands.data, model.schema);
  const std::vector<double> p = model.PredictProbabilities(data);
  EXPECT_EQ(metrics["accuracy"], trees::MulticlassAccuracy(p, 3, data.labels));
  EXPECT_EQ(metrics["macro_auc"], trees::MacroAuc(p, 3, data.labels));
  EXPECT_EQ(metrics["log_loss"], trees::MulticlassLogLoss(p, 3, data.labels));
  EXPECT_GT(metrics["accuracy"].get<double>(), 0.6);  // chance: 1/3
  // A label outside 0..K−1 in the evaluation data names its row and value.
  const std::string bad = bands.dir.Write("bad.csv", "x,label\n0.5,1\n0.7,3\n");
  EXPECT_THAT([&] { RunEvaluate({.model = bands.model, .data = bad}, out); },
              ThrowsMessage<InvalidArgument>(HasSubstr("row 2")));
}

// Test data of one class still has an accuracy and a log loss; the AUC is null, saying why.
TEST(MulticlassCommands, EvaluateOnOneClassGivesANullAucAndTheOtherMetrics) {
  Bands bands;
  bands.Train(kUnnamed);
  const std::string one_class = bands.dir.Write("one.csv", "x,label\n0.1,0\n0.2,0\n0.3,0\n");
  std::ostringstream out;
  EXPECT_EQ(RunEvaluate({.model = bands.model, .data = one_class}, out), 0);
  const nlohmann::json metrics = nlohmann::json::parse(out.str());
  EXPECT_TRUE(metrics["macro_auc"].is_null());
  EXPECT_THAT(metrics["macro_auc_undefined"].get<std::string>(), HasSubstr("two classes"));
  EXPECT_TRUE(metrics["accuracy"].is_number());
  EXPECT_TRUE(metrics["log_loss"].is_number());
  // Binary: the same.
  const std::string binary = bands.dir.Write(
      "binary.json", R"({"task": "binary", "features": [{"name": "x", "min": 0, "max": 1}]})");
  const std::string binary_data = bands.dir.Write("b.csv", "x,label\n0.1,0\n0.9,1\n");
  TrainArgs args;
  args.data = binary_data;
  args.schema = binary;
  args.config = R"({"n_estimators": 2, "non_private": true})";
  args.out = bands.dir.File("b.json");
  args.quiet = true;
  ASSERT_EQ(RunTrain(args, out), 0);
  std::ostringstream binary_out;
  EXPECT_EQ(
      RunEvaluate({.model = args.out, .data = bands.dir.Write("b1.csv", "x,label\n0.1,1\n0.9,1\n")},
                  binary_out),
      0);
  const nlohmann::json binary_metrics = nlohmann::json::parse(binary_out.str());
  EXPECT_TRUE(binary_metrics["auc"].is_null());
  EXPECT_THAT(binary_metrics["auc_undefined"].get<std::string>(), HasSubstr("all 2 labels are 1"));
  EXPECT_TRUE(binary_metrics["accuracy"].is_number());
}

}  // namespace
}  // namespace rdpkit::tools
