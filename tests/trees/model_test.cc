#include "rdpkit/trees/model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <random>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "softmax.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Node Split(int feature, double threshold, bool default_left, int left, int right) {
  Node node;
  node.feature = feature;
  node.threshold = threshold;
  node.default_left = default_left;
  node.left = left;
  node.right = right;
  return node;
}

Node Leaf(double value) {
  Node node;
  node.value = value;
  return node;
}

// x0 < 0.5 → leaf 0.25; else x1 < 2 → leaf -1 (missing x1 also), else leaf 3; missing x0 → right.
Tree SampleTree() {
  Tree tree;
  tree.nodes = {Split(0, 0.5, false, 1, 2), Leaf(0.25), Split(1, 2, true, 3, 4), Leaf(-1), Leaf(3)};
  return tree;
}

Model SampleModel() {
  Model model;
  model.objective = Objective::kBinaryLogistic;
  model.base_score = -0.1;
  model.feature_names = {"x0", "x1"};
  Tree second;
  second.nodes = {Split(1, 0.1 + 0.2, true, 1, 2), Leaf(1.0 / 3.0), Leaf(-2e-17)};
  model.trees = {SampleTree(), second};
  model.config = {{"n_estimators", 2}, {"seed", 7}};
  model.privacy = {
      {"epsilon", 1.0}, {"delta", 1e-5}, {"event", {{"gaussian", {{"noise_multiplier", 3.5}}}}}};
  model.training_log = {{"n_rows", 1234}, {"clipped", {{"x0", 2}}}};
  model.schema = Schema::FromJson(
      {{"task", "binary"},
       {"features",
        {{{"name", "x0"}, {"min", 0}, {"max", 1}}, {{"name", "x1"}, {"min", -5}, {"max", 5}}}}});
  return model;
}

TEST(GoesLeft, IsStrictlyLessThanTheThreshold) {
  const Node node = Split(0, 0.5, /*default_left=*/false, 1, 2);
  EXPECT_TRUE(GoesLeft(node, 0.49999999999999994));
  EXPECT_FALSE(GoesLeft(node, 0.5));  // equality goes right, in training and in prediction
  EXPECT_FALSE(GoesLeft(node, std::nextafter(0.5, 1.0)));
  EXPECT_FALSE(GoesLeft(node, kNaN));
  const Node missing_left = Split(0, 0.5, /*default_left=*/true, 1, 2);
  EXPECT_TRUE(GoesLeft(missing_left, kNaN));
  EXPECT_FALSE(GoesLeft(missing_left, 0.5));
}

TEST(Tree, RoutesAValueEqualToTheThresholdRight) {
  const Tree tree = SampleTree();
  const double on_threshold[] = {0.5, 2};
  EXPECT_EQ(tree.Predict(on_threshold), 3);
  const double below[] = {std::nextafter(0.5, 0.0), 2};
  EXPECT_EQ(tree.Predict(below), 0.25);
  const double second_below[] = {0.5, std::nextafter(2.0, 0.0)};
  EXPECT_EQ(tree.Predict(second_below), -1);
}

TEST(Tree, MissingValuesFollowDefaultLeft) {
  const Tree tree = SampleTree();
  const double x0_missing[] = {kNaN, 5};  // root: default right; then 5 >= 2 → leaf 3
  EXPECT_EQ(tree.Predict(x0_missing), 3);
  EXPECT_EQ(tree.LeafIndex(x0_missing), 4);
  const double x1_missing[] = {0.9, kNaN};  // second split: default left → leaf -1
  EXPECT_EQ(tree.Predict(x1_missing), -1);
}

TEST(Model, PredictsSigmoidOfBasePlusTrees) {
  const Model model = SampleModel();
  const double row[] = {0.1, 0.3};  // tree 1: 0.25; tree 2: 0.3 < 0.1+0.2 (=0.30000000000000004)
  const double margin = -0.1 + 0.25 + 1.0 / 3.0;
  EXPECT_EQ(model.PredictMargin(row), margin);
  EXPECT_DOUBLE_EQ(model.PredictRow(row), 1 / (1 + std::exp(-margin)));
  Model regression = model;
  regression.objective = Objective::kRegSquaredError;
  EXPECT_EQ(regression.PredictRow(row), margin);
}

TEST(Model, PredictsADataset) {
  const Model model = SampleModel();
  const Dataset data = ParseCsv("x1,x0\n0.3,0.1\n,7\n", model.schema, {.require_label = false});
  const auto predictions = model.Predict(data);
  ASSERT_EQ(predictions.size(), 2u);
  const double row0[] = {0.1, 0.3};
  const double row1[] = {1, kNaN};  // 7 clipped to the bound 1
  EXPECT_EQ(predictions[0], model.PredictRow(row0));
  EXPECT_EQ(predictions[1], model.PredictRow(row1));
  Dataset renamed = data;
  renamed.feature_names = {"x0", "other"};
  const auto refusal = HasSubstr("do not match the model's 2 features (same names, same order)");
  EXPECT_THAT([&] { (void)model.Predict(renamed); }, ThrowsMessage<InvalidArgument>(refusal));
  Model multiclass = model;
  multiclass.objective = Objective::kMultiSoftprob;
  multiclass.n_classes = 2;
  EXPECT_THAT([&] { (void)multiclass.Predict(renamed); }, ThrowsMessage<InvalidArgument>(refusal));
  EXPECT_THAT([&] { (void)multiclass.PredictProbabilities(renamed); },
              ThrowsMessage<InvalidArgument>(refusal));
  EXPECT_THAT([&] { (void)model.PredictProbabilities(data); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is not a multiclass model")));
}

// Predict and PredictProbabilities route rows a block at a time (256 rows, tree after tree): the
// same values, bit for bit, as row after row, across block boundaries and with missing values.
TEST(Model, PredictsBlocksOfRowsAsRowByRow) {
  Model model = SampleModel();
  for (int t = 0; t < 7; ++t) model.trees.push_back(model.trees[t % 2]);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> value(-1, 3);
  Dataset data;
  data.feature_names = model.feature_names;
  data.columns.assign(2, std::vector<double>(600));
  for (auto& column : data.columns) {
    for (double& x : column) x = rng() % 10 == 0 ? kNaN : value(rng);
  }
  const std::vector<double> predictions = model.Predict(data);
  ASSERT_EQ(predictions.size(), 600u);
  for (std::size_t r = 0; r < 600; ++r)
    EXPECT_EQ(predictions[r], model.PredictRow(data.Row(r).data()));
  model.objective = Objective::kMultiSoftprob;
  model.n_classes = 3;
  const std::vector<double> p = model.PredictProbabilities(data);
  ASSERT_EQ(p.size(), 1800u);
  for (std::size_t r = 0; r < 600; ++r) {
    const std::vector<double> margins = model.PredictMargins(data.Row(r).data());
    double expected[3];
    internal::ClassProbabilities(model.objective, margins.data(), 3, expected);
    for (std::size_t c = 0; c < 3; ++c) EXPECT_EQ(p[r * 3 + c], expected[c]);
  }
}

TEST(Sigmoid, IsStableAtTheExtremes) {
  EXPECT_EQ(Sigmoid(0), 0.5);
  EXPECT_EQ(Sigmoid(1000), 1);
  EXPECT_EQ(Sigmoid(-1000), 0);
  EXPECT_GT(Sigmoid(-700), 0);
  EXPECT_DOUBLE_EQ(Sigmoid(-2), 1 / (1 + std::exp(2.0)));
}

// The trees are written without building JSON objects (ToText); the text must read back as
// exactly ToJson() with numbers laid out as nlohmann::json lays them out: doubles of every
// magnitude, integers, negative zero, subnormals, both default directions.
TEST(ModelFile, TreesAreWrittenAsTheirJson) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> power(-320, 300);
  Model model = SampleModel();
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                100.0,
                                1e15,
                                1e16,
                                1e-4,
                                1e-5,
                                0.0001234,
                                123456789012345.0,
                                0.1 + 0.2,
                                5e-324,
                                1.7976931348623157e308};
  for (int i = 0; i < 20000; ++i) values.push_back(unit(rng) * std::pow(10.0, power(rng)));
  const std::size_t first_tree = model.trees.size();
  for (std::size_t i = 0; i + 2 < values.size(); i += 3) {
    Tree tree;
    tree.nodes = {Split(static_cast<int>(i % 2), values[i], i % 2 == 0, 1, 2), Leaf(values[i + 1]),
                  Leaf(values[i + 2])};
    model.trees.push_back(tree);
  }
  const std::string text = model.ToText();
  EXPECT_EQ(nlohmann::json::parse(text), model.ToJson());
  // Every double reads back bit for bit (the shortest round-trip digits; nlohmann's own dtoa
  // occasionally picks another digit string of the same double).
  const Model loaded = Model::FromJson(nlohmann::json::parse(text));
  ASSERT_EQ(loaded.trees.size(), model.trees.size());
  for (std::size_t t = first_tree; t < model.trees.size(); ++t) {
    for (std::size_t i = 0; i < 3; ++i) {
      const Node& w = model.trees[t].nodes[i];
      const Node& r = loaded.trees[t].nodes[i];
      const double written = w.is_leaf() ? w.value : w.threshold;
      const double read = r.is_leaf() ? r.value : r.threshold;
      EXPECT_EQ(std::signbit(read), std::signbit(written)) << t;
      EXPECT_EQ(read, written) << t;
      EXPECT_EQ(r.default_left, w.default_left);
    }
  }
  for (const char* laid_out : {"{\"leaf\":-0.0}", "{\"leaf\":100.0}", "{\"leaf\":1e+15}",
                               "\"threshold\":1e+16}", "{\"leaf\":0.0001}", "{\"leaf\":1e-05}"}) {
    EXPECT_NE(text.find(laid_out), std::string::npos) << laid_out;
  }
}

TEST(ModelFile, RoundTripsToTheSameBytesAndPredictions) {
  testing::ScratchDir dir;
  const Model model = SampleModel();
  const std::string path = dir.File("model.json");
  model.Save(path);
  const std::string bytes = testing::ReadText(path);
  EXPECT_EQ(bytes, model.ToText());
  EXPECT_EQ(nlohmann::json::parse(bytes), model.ToJson());
  const Model loaded = Model::Load(path);
  EXPECT_EQ(loaded.ToText(), bytes);
  // Doubles survive exactly, e.g. 0.1 + 0.2 and 1/3.
  EXPECT_EQ(loaded.trees[1].nodes[0].threshold, 0.1 + 0.2);
  EXPECT_EQ(loaded.trees[1].nodes[1].value, 1.0 / 3.0);
  EXPECT_EQ(loaded.privacy, model.privacy);
  EXPECT_EQ(loaded.config, model.config);
  EXPECT_EQ(loaded.schema.ToJson(), model.schema.ToJson());
  const double rows[][2] = {{0.1, 0.3}, {0.5, 2}, {kNaN, kNaN}, {0.7, 0.30000000000000004}};
  for (const auto& row : rows) EXPECT_EQ(loaded.PredictRow(row), model.PredictRow(row));
  // Saving the loaded model again gives the same bytes.
  loaded.Save(dir.File("again.json"));
  EXPECT_EQ(testing::ReadText(dir.File("again.json")), bytes);
}

// The trees are spliced into the text at a placeholder; a loaded model's config may hold the
// same key and value (found by the model fuzzer), and the trees must still land at the top level.
TEST(ModelFile, AConfigHoldingThePlaceholderRoundTrips) {
  Model model = SampleModel();
  model.config = {{"trees", "@rdpkit-trees@"},
                  {"x", {{"trees", "@rdpkit-trees-0@"}}},
                  {"y", {{"trees", "@rdpkit-trees-1@"}}}};
  const std::string text = model.ToText();
  EXPECT_EQ(nlohmann::json::parse(text), model.ToJson());
  const Model loaded = Model::FromJson(nlohmann::json::parse(text));
  EXPECT_EQ(loaded.config, model.config);
  EXPECT_EQ(loaded.ToText(), text);
}

TEST(ModelFile, HasTheDesignedTopLevelShape) {
  const nlohmann::json json = SampleModel().ToJson();
  EXPECT_EQ(json["format"], "rdpkit-model");
  EXPECT_EQ(json["version"], 1);
  for (const char* key :
       {"objective", "base_score", "feature_names", "trees", "config", "privacy", "schema"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  // The training log (exact counts, covered by no ε) never reaches the model file.
  EXPECT_EQ(json.size(), 9u);
  EXPECT_FALSE(json.contains("report"));
  EXPECT_EQ(SampleModel().ToText().find("1234"), std::string::npos);
  EXPECT_EQ(json["privacy"]["event"]["gaussian"]["noise_multiplier"], 3.5);
}

TEST(ModelFile, SaveReplacesAtomicallyAndLeavesNoTemporaryFiles) {
  testing::ScratchDir dir;
  const std::string path = dir.Write("model.json", "old contents");
  SampleModel().Save(path);
  EXPECT_EQ(testing::ReadText(path), SampleModel().ToText());
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
  }
  EXPECT_EQ(files, 1);
  EXPECT_THAT([] { SampleModel().Save("/nonexistent/dir/model.json"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("out")));
}

// Loads json text through Model::Load and returns the error message ("" if it loads).
std::string LoadError(const std::string& text) {
  testing::ScratchDir dir;
  try {
    (void)Model::Load(dir.Write("m.json", text));
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "";
}

std::string Mutated(const std::function<void(nlohmann::json&)>& change) {
  nlohmann::json json = SampleModel().ToJson();
  change(json);
  return json.dump();
}

TEST(ModelFile, RejectsTruncatedAndNonJsonFiles) {
  const std::string text = SampleModel().ToText();
  EXPECT_THAT(LoadError(text.substr(0, text.size() / 2)), HasSubstr("not valid JSON"));
  EXPECT_THAT(LoadError(""), HasSubstr("not valid JSON"));
  EXPECT_THAT(LoadError("[1, 2]"), HasSubstr("not a JSON object"));
  EXPECT_THAT([] { (void)Model::Load("/nonexistent/model.json"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("model: cannot open")));
  EXPECT_EQ(LoadError(text), "");
}

TEST(ModelFile, RejectsForeignFiles) {
  // An event file, an XGBoost model, a newer version.
  EXPECT_THAT(LoadError(R"({"gaussian": {"noise_multiplier": 1}})"),
              HasSubstr("not an rdpkit model"));
  EXPECT_THAT(LoadError(R"({"learner": {}, "version": [1, 7, 0]})"),
              HasSubstr("not an rdpkit model"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["version"] = 2; })), HasSubstr("version = 2"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["format"] = "xgboost"; })), HasSubstr("format"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["objective"] = "multi:softmax"; })),
              HasSubstr("objective"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["colour"] = "blue"; })),
              HasSubstr("colour: unknown model key"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j.erase("privacy"); })), HasSubstr("privacy"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["base_score"] = "high"; })),
              HasSubstr("base_score"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["feature_names"][1] = "x\x1B[2J"; })),
              HasSubstr("feature_names[1]: \"x\\x1B[2J\" holds a control character"));
}

// The privacy block is one train writes: its numbers in range and its event an event. (Whether
// the event gives back ε is `rdpkit epsilon`'s question, not the loader's.)
TEST(ModelFile, RejectsAPrivacyBlockTrainDoesNotWrite) {
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["privacy"]["delta"] = 2; })),
              HasSubstr("privacy.delta = 2 is outside (0, 1)"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["privacy"]["epsilon"] = -1; })),
              HasSubstr("privacy.epsilon = -1 is outside [0, inf)"));
  // ε = 0 is a run that δ alone covers (found by the trainer_config fuzzer: ε = 3e-8 at δ = 0.01).
  EXPECT_NO_THROW(Model::FromJson(
      nlohmann::json::parse(Mutated([](auto& j) { j["privacy"]["epsilon"] = 0.0; }))));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["privacy"]["epsilon"] = "1"; })),
              HasSubstr("privacy.epsilon"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["privacy"].erase("event"); })),
              HasSubstr("privacy.event: missing"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) {
                j["privacy"]["event"] = {{"gausian", 1}};
              })),
              HasSubstr("privacy.event"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["privacy"]["private"] = true; })),
              HasSubstr("privacy.private = true is outside false"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) {
                j["privacy"] = {{"private", false}};
              })),
              HasSubstr("privacy.reason: missing"));
  EXPECT_NO_THROW(Model::FromJson(nlohmann::json::parse(Mutated([](auto& j) {
    j["privacy"] = {{"private", false}, {"reason", "no noise"}};
  }))));
}

TEST(ModelFile, TheLabelColumnRoundTripsAndMustNameNoFeature) {
  Model model = SampleModel();
  EXPECT_FALSE(model.ToJson().contains("label_column"));  // not recorded: not written
  model.label_column = "outcome";
  nlohmann::json json = model.ToJson();
  EXPECT_EQ(Model::FromJson(json).label_column, "outcome");
  for (const nlohmann::json& bad :
       {nlohmann::json(""), nlohmann::json(3), nlohmann::json("x1"), nlohmann::json("a\nb"),
        nlohmann::json(std::string("a\0b", 3))}) {
    json["label_column"] = bad;
    EXPECT_THAT([&] { (void)Model::FromJson(json); },
                ThrowsMessage<InvalidArgument>(HasSubstr("label_column")))
        << bad;
  }
  json["label_column"] = "x1";
  EXPECT_THAT([&] { (void)Model::FromJson(json); },
              ThrowsMessage<InvalidArgument>(HasSubstr("\"x1\" is also a feature name")));
}

TEST(ModelFile, RejectsBrokenTrees) {
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][0]["nodes"][2]["right"] = 9; })),
              HasSubstr("trees[0].nodes[2].right = 9 is outside [1, 4]"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][0]["nodes"][2]["left"] = -1; })),
              HasSubstr("trees[0].nodes[2].left = -1"));
  // Cycle back to an ancestor, and two parents sharing one child.
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][0]["nodes"][2]["left"] = 2; })),
              HasSubstr("reached twice"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][0]["nodes"][0]["left"] = 0; })),
              HasSubstr("trees[0].nodes[0].left = 0"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][0]["nodes"][2]["left"] = 1; })),
              HasSubstr("reached twice"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) {
                j["trees"][0]["nodes"].push_back({{"leaf", 0}});
              })),
              HasSubstr("trees[0].nodes[5]: is not reachable"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][1]["nodes"][0]["feature"] = 2; })),
              HasSubstr("trees[1].nodes[0].feature = 2 is outside [0, 2)"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][1]["nodes"][0]["feature"] = -3; })),
              HasSubstr("trees[1].nodes[0].feature"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][1]["nodes"][0]["threshold"] = nullptr; })),
              HasSubstr("trees[1].nodes[0].threshold"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][1]["nodes"] = nlohmann::json::array(); })),
              HasSubstr("trees[1].nodes: empty"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["trees"][0]["nodes"][1]["leaf"] = "x"; })),
              HasSubstr("trees[0].nodes[1].leaf"));
  EXPECT_THAT(LoadError(Mutated([](auto& j) { j["feature_names"][1] = "x0"; })),
              HasSubstr("feature_names[1]"));
}

// Model::Parse reads the nodes while it parses; it must give FromJson(ParseJson(text))'s model, or
// its refusal, including which of two faults is reported.
std::string Outcome(const std::function<Model()>& read) {
  try {
    return read().ToText();
  } catch (const InvalidArgument& error) {
    return std::string("refused: ") + error.what();
  }
}

TEST(ModelFile, ParseGivesFromJsonsModelOrRefusal) {
  std::vector<std::string> texts = {
      SampleModel().ToText(),
      Mutated([](auto& j) { j["trees"][1]["nodes"][0]["feature"] = -3; }),
      Mutated([](auto& j) { j["trees"][0]["nodes"][1]["leaf"] = "x"; }),
      Mutated([](auto& j) { j["trees"][0]["nodes"][2]["surplus"] = 1; }),
      Mutated([](auto& j) { j["trees"][0]["nodes"][0] = 7; }),
      Mutated([](auto& j) {
        j["trees"][1]["nodes"][0] = nlohmann::json::array({1, 2});
      }),
      // Two faults: the one FromJson meets first is reported.
      Mutated([](auto& j) {
        j["trees"][1]["nodes"][0]["threshold"] = "x";
        j["version"] = 2;
      }),
      Mutated([](auto& j) {
        j["trees"][1]["nodes"][0]["threshold"] = "x";
        j["trees"][0]["nodes"][2]["right"] = 9;
      }),
      Mutated([](auto& j) {
        j["trees"][0]["nodes"][1]["leaf"] = "x";
        j["trees"][1]["nodes"][0]["feature"] = -3;
      }),
      // Arrays of the same names elsewhere are not nodes.
      Mutated([](auto& j) {
        j["config"]["trees"] = {{{"nodes", {1, {{"leaf", 2}}}}}};
      }),
      Mutated([](auto& j) {
        j["trees"][0] = {{"nodes", {{{"leaf", 1}}}}, {"extra", {{"nodes", {3}}}}};
      }),
      Mutated([](auto& j) {
        j["trees"] = {{"nodes", {{{"leaf", 1}}}}};
      }),
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text.substr(0, 300));
    const std::string expected =
        Outcome([&] { return Model::FromJson(ParseJson(text, "model", "JSON text")); });
    EXPECT_EQ(Outcome([&] { return Model::Parse(text, "JSON text"); }), expected);
  }
  EXPECT_EQ(Outcome([&] { return Model::Parse(texts[0], "JSON text"); }), texts[0]);
  EXPECT_THAT(Outcome([&] { return Model::Parse(texts[6], "JSON text"); }), HasSubstr("version"));
}

TEST(Tree, ValidateCatchesAHandBuiltCycle) {
  Tree tree;
  tree.nodes = {Split(0, 1, true, 1, 2), Split(0, 0, true, 0, 2), Leaf(1)};
  EXPECT_THAT([&] { tree.Validate(1); }, ThrowsMessage<InvalidArgument>(HasSubstr("nodes[1]")));
  EXPECT_NO_THROW(SampleTree().Validate(2));
}

}  // namespace
}  // namespace rdpkit::trees
