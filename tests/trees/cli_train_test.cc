// Runners of `rdpkit train`, `predict` and `evaluate` (tools/trees_commands.h), called without a
// process, plus a few runs of the real binary for exit codes and stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/auto_config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/model.h"
#include "trees_commands.h"
#include "trees_test_util.h"

namespace rdpkit::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;
using trees::testing::ReadText;
using trees::testing::ScratchDir;
using trees::testing::SourcePath;

constexpr const char* kSchema = R"({
  "task": "binary", "name": "toy", "origin": "tests/trees/cli_train_test.cc",
  "features": [
    {"name": "x", "min": 0, "max": 1, "n_missing": 1},
    {"name": "z", "categorical": true, "n_codes": 3, "codes": ["a", "b", "c"]}
  ]})";

// 200 rows: x = i/200 (two of them outside [0, 1], one missing), z = i mod 3, label = [x >= 0.5].
std::string ToyCsv() {
  std::ostringstream csv;
  csv << "z,x,label\n";
  for (int i = 0; i < 200; ++i) {
    const double x = i / 200.0;
    csv << i % 3 << ",";
    if (i == 7) {
      csv << "";  // missing
    } else if (i == 11) {
      csv << -0.5;  // clipped to 0
    } else if (i == 190) {
      csv << 3.25;  // clipped to 1
    } else {
      csv << x;
    }
    csv << "," << (x >= 0.5 ? 1 : 0) << "\n";
  }
  return csv.str();
}

constexpr const char* kConfig =
    R"({"n_estimators": 4, "max_depth": 2, "privacy": {"epsilon": 2, "delta": 1e-5}, "seed": 3})";

struct Toy {
  ScratchDir dir;
  std::string data = dir.Write("train.csv", ToyCsv());
  std::string schema = dir.Write("schema.json", kSchema);
  std::string model = dir.File("model.json");

  TrainArgs Args(std::ostream* err) const {
    TrainArgs args;
    args.data = data;
    args.schema = schema;
    args.config = kConfig;
    args.out = model;
    args.err = err;
    return args;
  }
};

nlohmann::json Train(const TrainArgs& args) {
  std::ostringstream out;
  EXPECT_EQ(RunTrain(args, out), 0);
  return nlohmann::json::parse(out.str());
}

TEST(TrainCommand, PrintsOneSummaryObjectAndWritesTheModel) {
  const Toy toy;
  std::ostringstream err;
  const nlohmann::json summary = Train(toy.Args(&err));
  for (const char* key :
       {"epsilon", "delta", "n_trees", "noise_multiplier", "seconds", "model", "private"}) {
    EXPECT_TRUE(summary.contains(key)) << key << " in " << summary.dump();
  }
  // Exact counts of the data are the training log's, never stdout's (DESIGN.md §6).
  for (const char* key : {"n_rows", "clipped", "total_clipped"}) {
    EXPECT_FALSE(summary.contains(key)) << key << " in " << summary.dump();
  }
  EXPECT_EQ(summary.size(), 7u) << summary.dump();
  EXPECT_EQ(summary["n_trees"], 4);
  EXPECT_EQ(summary["delta"], 1e-5);
  EXPECT_LE(summary["epsilon"].get<double>(), 2.0);
  EXPECT_GT(summary["epsilon"].get<double>(), 1.0);
  EXPECT_GT(summary["noise_multiplier"].get<double>(), 0);
  EXPECT_EQ(summary["private"], true);
  // Two values of x were outside [0, 1]; z had none: said on stderr as the (not private) log.
  EXPECT_THAT(err.str(), HasSubstr("training log (NOT differentially private, do not publish): "
                                   "200 rows, 2 values clipped"));

  const trees::Model model = trees::Model::Load(toy.model);
  EXPECT_EQ(model.trees.size(), 4u);
  EXPECT_EQ(model.privacy["epsilon"], summary["epsilon"]);
  EXPECT_EQ(model.privacy["delta"], 1e-5);
  EXPECT_TRUE(model.privacy.contains("event"));
  EXPECT_EQ(model.schema.features.size(), 2u);
  EXPECT_EQ(model.feature_names, std::vector<std::string>({"x", "z"}));
  // The progress lines: trees done and elapsed time.
  EXPECT_THAT(err.str(), HasSubstr("4/4 trees"));
  EXPECT_THAT(err.str(), ::testing::ContainsRegex("s elapsed\\)\nrdpkit train: training log"));
}

TEST(TrainCommand, QuietPrintsNothingOnStderr) {
  const Toy toy;
  std::ostringstream err;
  TrainArgs args = toy.Args(&err);
  args.quiet = true;
  Train(args);
  EXPECT_EQ(err.str(), "");
}

// A seed reproduces every noise draw: a private run with one says so, one without does not, and
// the model file never records it.
TEST(TrainCommand, ASeedWarnsAndIsNotInTheModel) {
  const Toy toy;
  std::ostringstream err;
  TrainArgs args = toy.Args(&err);  // kConfig has seed 3
  Train(args);
  EXPECT_THAT(err.str(), HasSubstr("WARNING: a seed makes every noise draw"));
  EXPECT_FALSE(nlohmann::json::parse(ReadText(toy.model))["config"].contains("seed"));
  std::ostringstream secure_err;
  args.err = &secure_err;
  args.config = R"({"n_estimators": 4, "max_depth": 2, "privacy": {"epsilon": 2, "delta": 1e-5}})";
  Train(args);
  EXPECT_THAT(secure_err.str(), Not(HasSubstr("seed")));
}

TEST(TrainCommand, SameSeedGivesTheSameModelBytes) {
  const Toy toy;
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  Train(args);
  const std::string first = ReadText(toy.model);
  args.out = toy.dir.File("again.json");
  Train(args);
  EXPECT_EQ(ReadText(args.out), first);
}

TEST(TrainCommand, ReadsTheConfigFromAFile) {
  const Toy toy;
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  args.config = toy.dir.Write("cfg.json", kConfig);
  EXPECT_EQ(Train(args)["n_trees"], 4);
}

TEST(TrainCommand, RefusesToTrainWithoutASchema) {
  const Toy toy;
  TrainArgs args = toy.Args(nullptr);
  args.schema.clear();
  EXPECT_THAT([&] { Train(args); },
              ThrowsMessage<InvalidArgument>(HasSubstr("schema: missing: training without a "
                                                       "schema is refused")));
  EXPECT_FALSE(std::filesystem::exists(toy.model));
}

TEST(TrainCommand, BoundsFromDataWarnsAndMarksTheModel) {
  const Toy toy;
  std::ostringstream err;
  TrainArgs args = toy.Args(&err);
  args.schema.clear();
  args.bounds_from_data = true;
  args.quiet = true;
  const nlohmann::json summary = Train(args);
  EXPECT_THAT(err.str(), HasSubstr("WARNING: --bounds-from-data"));
  EXPECT_THAT(err.str(), HasSubstr("LEAKS PRIVATE INFORMATION"));
  EXPECT_EQ(summary["bounds_from_data"], true);
  // Bounds read off the data are released with the model and covered by no ε: never private.
  EXPECT_EQ(summary["private"], false);
  const trees::Model model = trees::Model::Load(toy.model);
  EXPECT_EQ(model.privacy["bounds_from_data"], true);
  EXPECT_EQ(model.privacy["private"], false);
  EXPECT_FALSE(model.privacy.contains("epsilon"));
  // Every column in file order, numeric, with the observed extremes as bounds.
  ASSERT_EQ(model.feature_names, std::vector<std::string>({"z", "x"}));
  EXPECT_FALSE(model.schema.features[0].categorical);
  EXPECT_EQ(model.schema.features[0].max, 2);
  EXPECT_EQ(model.schema.features[1].min, -0.5);
  EXPECT_EQ(model.schema.features[1].max, 3.25);
  // Both a schema and --bounds-from-data is ambiguous.
  args.schema = toy.schema;
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("bounds-from-data")));
}

TEST(TrainCommand, FlagsTrainWithoutAConfigAndOverrideOne) {
  const Toy toy;
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  // No --config: the defaults, the objective from the schema's task, privacy from --epsilon.
  args.config.clear();
  args.epsilon = 2.0;
  args.seed = 3;
  args.n_estimators = 5;
  const nlohmann::json summary = Train(args);
  EXPECT_EQ(summary["n_trees"], 5);
  EXPECT_EQ(summary["private"], true);
  EXPECT_LE(summary["epsilon"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(summary["delta"].get<double>(), 1e-3);  // the largest power of ten below 1/200
  const nlohmann::json model = nlohmann::json::parse(ReadText(toy.model));
  EXPECT_EQ(model["objective"], "binary:logistic");
  EXPECT_FALSE(model["config"].contains("seed"));  // it would reproduce every noise draw
  EXPECT_EQ(model["config"]["max_depth"], 4);      // the default
  // Flags win over the config file's keys.
  args.config = kConfig;  // n_estimators 4, epsilon 2, delta 1e-5, seed 3
  args.epsilon = 1.0;
  args.delta = 1e-6;
  args.n_estimators = 6;
  args.seed = 9;
  const nlohmann::json over = Train(args);
  EXPECT_EQ(over["n_trees"], 6);
  EXPECT_DOUBLE_EQ(over["delta"].get<double>(), 1e-6);
  EXPECT_LE(over["epsilon"].get<double>(), 1.0);
  EXPECT_GT(over["epsilon"].get<double>(), 0.99);
  // --seed 9 won over the config's 3: the model is that of the config with seed 9.
  const std::string flagged = ReadText(toy.model);
  args.seed.reset();
  args.config =
      R"({"n_estimators": 6, "max_depth": 2, "privacy": {"epsilon": 1, "delta": 1e-6}, "seed": 9})";
  Train(args);
  EXPECT_EQ(ReadText(toy.model), flagged);
  // Without any privacy target the error says how to give one.
  args.config.clear();
  args.epsilon.reset();
  args.delta.reset();
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("--epsilon")));
  args.epsilon = 1.0;
  args.objective = "reg:squarederror";  // does not fit the binary schema
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("objective")));
}

// With only --epsilon the auto rule chooses the rest (docs/trees_auto.md); a key of --config wins,
// and "defaults": "static" keeps the key table's fixed defaults. The model records the settings.
TEST(TrainCommand, AutoSettingsAreChosenRecordedAndOverridable) {
  const Toy toy;
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  args.config = R"({"max_depth": 3, "seed": 3})";
  args.epsilon = 1.0;
  EXPECT_EQ(Train(args)["n_trees"], 1000);  // binary, 200 rows, ε = 1: T = 1000, η = 0.045
  nlohmann::json config = nlohmann::json::parse(ReadText(toy.model))["config"];
  EXPECT_EQ(config["defaults"], "auto");
  EXPECT_EQ(config["max_depth"], 3);  // given
  EXPECT_DOUBLE_EQ(config["learning_rate"].get<double>(), 0.045);
  EXPECT_DOUBLE_EQ(config["gradient_clip"].get<double>(), 0.5);
  // The CLI read the CSV into bins of the rule's candidates before the rule ran: the model is the
  // library's on the values as doubles.
  EXPECT_EQ(config["split_candidates"]["method"], "uniform_and_log");
  const trees::Model model = trees::Model::Load(toy.model);
  const trees::Dataset doubles = trees::LoadCsv(toy.data, model.schema);
  config["seed"] = 3;  // not in the model (a seed reproduces the noise)
  const trees::TrainerConfig resolved =
      trees::ResolveConfig(config, doubles.schema, doubles.n_rows());
  EXPECT_EQ(trees::Train(doubles, resolved, trees::testing::Quiet()).ToJson()["trees"],
            model.ToJson()["trees"]);
  args.config = R"({"defaults": "static", "seed": 3})";
  EXPECT_EQ(Train(args)["n_trees"], 100);
  config = nlohmann::json::parse(ReadText(toy.model))["config"];
  EXPECT_FALSE(config.contains("defaults"));  // static is not written (old model bytes hold)
  EXPECT_DOUBLE_EQ(config["learning_rate"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(config["gradient_clip"].get<double>(), 1.0);
}

TEST(TrainCommand, SaysWhichDeltaItChoseAndWhy) {
  const Toy toy;
  std::ostringstream err;
  TrainArgs args = toy.Args(&err);
  args.config = R"({"n_estimators": 2, "max_depth": 2, "privacy": {"epsilon": 1}, "seed": 1})";
  Train(args);
  EXPECT_THAT(err.str(), HasSubstr("delta = 0.001 (default: the largest power of ten below 1/n"));
  std::ostringstream quiet_err;
  args.err = &quiet_err;
  args.config = kConfig;  // δ given: nothing to explain
  Train(args);
  EXPECT_THAT(quiet_err.str(), Not(HasSubstr("delta =")));
  // δ ≥ 1 %, given or the default of fewer than 100 rows: a warning says what it allows.
  EXPECT_THAT(err.str(), Not(HasSubstr("weak guarantee")));
  std::ostringstream weak_err;
  args.err = &weak_err;
  const std::string rows = ToyCsv();
  std::size_t end = 0;  // the header and the first 50 rows: the default δ is 0.01
  for (int line = 0; line < 51; ++line) end = rows.find('\n', end) + 1;
  args.data = toy.dir.Write("fifty.csv", rows.substr(0, end));
  args.config = R"({"n_estimators": 2, "max_depth": 2, "privacy": {"epsilon": 1}, "seed": 1})";
  Train(args);
  EXPECT_THAT(weak_err.str(), HasSubstr("warning: delta = 0.01 is a weak guarantee"));
  EXPECT_THAT(weak_err.str(), HasSubstr("the default delta is this large"));
  // A δ the user gave is warned about without blaming the default.
  std::ostringstream given_err;
  args.err = &given_err;
  args.delta = 0.015;
  Train(args);
  EXPECT_THAT(given_err.str(), HasSubstr("warning: delta = 0.015 is a weak guarantee"));
  EXPECT_THAT(given_err.str(), Not(HasSubstr("default")));
}

// The schema names z's codes ("a", "b", "c"): the same rows written with those names (and the
// labels with the names the schema then gives them) train the same model byte for byte, and
// predict the same.
TEST(TrainCommand, NamesInTheDataTrainTheModelOfTheirCodes) {
  const Toy toy;
  std::string named = ToyCsv();
  for (std::size_t at = named.find('\n') + 1; at < named.size(); at = named.find('\n', at) + 1) {
    named[at] = "abc"[named[at] - '0'];  // z, the first column, is the code 0..2
    const std::size_t end = named.find('\n', at);
    named.replace(end - 1, 1, named[end - 1] == '1' ? "yes" : "no");
  }
  nlohmann::json schema = nlohmann::json::parse(kSchema);
  schema["classes"] = {"no", "yes"};
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  args.schema = toy.dir.Write("named.json", schema.dump());
  Train(args);
  const std::string from_codes = ReadText(toy.model);
  args.data = toy.dir.Write("named.csv", named);
  Train(args);
  EXPECT_EQ(ReadText(toy.model), from_codes);
  EXPECT_THAT(named, HasSubstr("\nb,"));
  std::ostringstream by_codes, by_names;
  ASSERT_EQ(RunPredict({.model = toy.model, .data = toy.data}, by_codes), 0);
  ASSERT_EQ(RunPredict({.model = toy.model, .data = args.data}, by_names), 0);
  EXPECT_EQ(by_names.str(), by_codes.str());
  // --labels names the class as the schema does (1 iff p ≥ 0.5: "yes").
  std::ostringstream labelled;
  ASSERT_EQ(RunPredict({.model = toy.model, .data = args.data, .labels = true}, labelled), 0);
  std::istringstream lines(labelled.str());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "prediction,label");
  while (std::getline(lines, line)) {
    const double p = std::stod(line.substr(0, line.find(',')));
    EXPECT_EQ(line.substr(line.find(',') + 1), p >= 0.5 ? "yes" : "no") << line;
  }
}

TEST(SchemaCommand, DraftsPlaceholdersOrMarkedDataBounds) {
  const Toy toy;
  std::ostringstream out;
  ASSERT_EQ(RunSchema({.data = toy.data, .err = nullptr}, out), 0);
  const nlohmann::json draft = nlohmann::json::parse(out.str());
  EXPECT_EQ(draft["task"], "binary");  // labels 0/1
  ASSERT_EQ(draft["features"].size(), 2U);
  EXPECT_EQ(draft["features"][0]["name"], "z");  // whole numbers 0..2: codes
  EXPECT_EQ(draft["features"][0]["categorical"], true);
  EXPECT_EQ(draft["features"][0]["n_codes"], "?");
  EXPECT_EQ(draft["features"][1]["min"], "?");  // x: numeric
  EXPECT_FALSE(draft.contains("bounds_from_data"));
  // Training refuses the unfilled draft, naming the field.
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  args.schema = toy.dir.Write("draft.json", draft.dump());
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("features[0]")));
  // With the data's bounds the draft carries the marker; train takes it only when told to.
  std::ostringstream marked;
  ASSERT_EQ(RunSchema({.data = toy.data, .bounds_from_data = true, .err = nullptr}, marked), 0);
  const nlohmann::json leaky = nlohmann::json::parse(marked.str());
  EXPECT_THAT(leaky["bounds_from_data"].get<std::string>(), HasSubstr("LEAK"));
  EXPECT_EQ(leaky["features"][0]["n_codes"], 3);
  args.schema = toy.dir.Write("leaky.json", leaky.dump());
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("schema")));
  args.bounds_from_data = true;
  const nlohmann::json summary = Train(args);
  EXPECT_EQ(summary["private"], false);
  EXPECT_EQ(nlohmann::json::parse(ReadText(toy.model))["privacy"]["private"], false);
  // A public schema together with --bounds-from-data is still refused.
  args.schema = toy.schema;
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("bounds-from-data")));
}

TEST(TrainCommand, BadInputsNameTheFieldAndWriteNothing) {
  const Toy toy;
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  args.config = R"({"n_estimators": 4, "privacy": {"epsilon": 1}, "colour": "red"})";
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("colour")));
  args.config = R"({"n_estimators": 0, "privacy": {"epsilon": 1}})";
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("n_estimators")));
  args.config = R"({"n_estimators": 4)";
  EXPECT_THAT([&] { Train(args); },
              ThrowsMessage<InvalidArgument>(HasSubstr("malformed JSON in inline JSON")));
  args.config = R"({"objective": "reg:squarederror", "privacy": {"epsilon": 1}})";
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("objective")));
  args.config = kConfig;
  args.data = toy.dir.Write("bad.csv", "z,x,label\n0,0.5,1\n1,0.25,3\n");
  EXPECT_THAT([&] { Train(args); },
              ThrowsMessage<InvalidArgument>(HasSubstr("3 is not a binary label")));
  args.data = toy.data;
  args.label = "target";
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("\"label\"")));
  EXPECT_FALSE(std::filesystem::exists(toy.model));
  // Only the test's own files are in the folder: no temporary left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(toy.dir.path())) {
    ++files;
  }
  EXPECT_EQ(files, 3);  // train.csv, schema.json, bad.csv
}

// An output that cannot be written is refused before the data is read (a missing --data file
// would be the error otherwise), not after the training it would throw away.
TEST(TrainCommand, UnwritableOutputsAreRefusedBeforeTraining) {
  const Toy toy;
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  args.data = toy.dir.File("absent.csv");
  args.out = toy.dir.File("no_such_folder/model.json");
  EXPECT_THAT([&] { Train(args); },
              ThrowsMessage<InvalidArgument>(HasSubstr("out: \"" + args.out + "\": its folder")));
  args.out = toy.dir.path().string();
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("is a directory")));
  args.out = toy.model;
  args.report = toy.dir.File("no_such_folder/log.json");
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("report: ")));
  args.report.clear();
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("absent.csv")));
}

TEST(PredictCommand, WritesOneProbabilityPerRowAndIgnoresTheLabel) {
  const Toy toy;
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  Train(args);
  const trees::Model model = trees::Model::Load(toy.model);
  // Columns in another order, a garbage label column and a missing value.
  const std::string test = toy.dir.Write("test.csv", "label,x,z\nspam,0.9,2\n?,,0\n,0.1,1\n");
  std::ostringstream out;
  EXPECT_EQ(RunPredict({.model = toy.model, .data = test}, out), 0);
  const trees::Dataset data =
      trees::ParseCsv("x,z\n0.9,2\n,0\n0.1,1\n", model.schema, {.require_label = false});
  const std::vector<double> expected = model.Predict(data);
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "prediction");
  for (const double value : expected) {
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_EQ(std::stod(line), value);
    EXPECT_GT(value, 0);
    EXPECT_LT(value, 1);
  }
  EXPECT_FALSE(std::getline(lines, line));

  // --out: the same CSV in a file, a JSON line on stdout.
  std::ostringstream summary;
  const std::string preds = toy.dir.File("preds.csv");
  EXPECT_EQ(RunPredict({.model = toy.model, .data = test, .out = preds}, summary), 0);
  EXPECT_EQ(ReadText(preds), out.str());
  EXPECT_EQ(nlohmann::json::parse(summary.str()), nlohmann::json({{"rows", 3}, {"out", preds}}));
}

TEST(PredictCommand, RejectsCorruptModelsAndMismatchedData) {
  const Toy toy;
  std::ostringstream out;
  const std::string bad = toy.dir.Write("bad.json", R"({"format": "rdpkit-model", "vers)");
  EXPECT_THAT([&] { RunPredict({.model = bad, .data = toy.data}, out); },
              ThrowsMessage<InvalidArgument>(HasSubstr("model: ")));
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  Train(args);
  const std::string other = toy.dir.Write("other.csv", "x,w\n1,2\n");
  EXPECT_THAT([&] { RunPredict({.model = toy.model, .data = other}, out); },
              ThrowsMessage<InvalidArgument>(HasSubstr("\"w\"")));
  EXPECT_EQ(out.str(), "");
}

TEST(EvaluateCommand, BinaryMetricsEqualTheLibraryMetrics) {
  const Toy toy;
  TrainArgs args = toy.Args(nullptr);
  args.quiet = true;
  Train(args);
  std::ostringstream out;
  EXPECT_EQ(RunEvaluate({.model = toy.model, .data = toy.data}, out), 0);
  const nlohmann::json metrics = nlohmann::json::parse(out.str());
  ASSERT_EQ(metrics.size(), 3u) << metrics.dump();
  const trees::Model model = trees::Model::Load(toy.model);
  const trees::Dataset data = trees::LoadCsv(toy.data, model.schema);
  const auto predictions = model.Predict(data);
  EXPECT_EQ(metrics["auc"], trees::Auc(predictions, data.labels));
  EXPECT_EQ(metrics["accuracy"], trees::Accuracy(predictions, data.labels));
  EXPECT_EQ(metrics["log_loss"], trees::LogLoss(predictions, data.labels));
  // The label is required here.
  const std::string unlabelled = toy.dir.Write("u.csv", "x,z\n0.5,1\n");
  EXPECT_THAT([&] { RunEvaluate({.model = toy.model, .data = unlabelled}, out); },
              ThrowsMessage<InvalidArgument>(HasSubstr("no label column")));
}

TEST(EvaluateCommand, RegressionPrintsRmseAndMae) {
  ScratchDir dir;
  trees::Model model;
  model.objective = trees::Objective::kRegSquaredError;
  model.base_score = 1;
  model.feature_names = {"x"};
  trees::Tree tree;
  tree.nodes.resize(3);
  tree.nodes[0].feature = 0;
  tree.nodes[0].threshold = 0.5;
  tree.nodes[0].left = 1;
  tree.nodes[0].right = 2;
  tree.nodes[1].value = -1;  // x < 0.5 → 0
  tree.nodes[2].value = 2;   // x ≥ 0.5 → 3
  model.trees = {tree};
  const std::string path = dir.File("m.json");
  model.Save(path);
  // Predictions 0, 3, 3 against labels 1, 3, 5: errors −1, 0, −2 → RMSE sqrt(5/3), MAE 1.
  const std::string data = dir.Write("d.csv", "x,label\n0.25,1\n0.5,3\n7,5\n");
  std::ostringstream out;
  EXPECT_EQ(RunEvaluate({.model = path, .data = data}, out), 0);
  const nlohmann::json metrics = nlohmann::json::parse(out.str());
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_DOUBLE_EQ(metrics["rmse"].get<double>(), std::sqrt(5.0 / 3.0));
  EXPECT_DOUBLE_EQ(metrics["mae"].get<double>(), 1.0);
}

#ifdef RDPKIT_CLI_PATH
// Runs the real binary; returns its exit status and fills stdout/stderr.
int RunBinary(const std::string& arguments, const ScratchDir& dir, std::string* out,
              std::string* err) {
  const std::string command = std::string(RDPKIT_CLI_PATH) + " " + arguments + " >" +
                              dir.File("stdout") + " 2>" + dir.File("stderr");
  const int status = std::system(command.c_str());
  *out = ReadText(dir.File("stdout"));
  *err = ReadText(dir.File("stderr"));
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TreesBinary, ExitCodesAndStreams) {
  const Toy toy;
  std::string out;
  std::string err;
  const std::string common =
      "--data " + toy.data + " --config '" + kConfig + "' --out " + toy.model;
  EXPECT_EQ(RunBinary("train " + common, toy.dir, &out, &err), 2);
  EXPECT_THAT(err, HasSubstr("rdpkit: error: schema: missing"));
  EXPECT_EQ(out, "");
  EXPECT_EQ(RunBinary("train " + common + " --schema " + toy.schema, toy.dir, &out, &err), 0);
  EXPECT_EQ(nlohmann::json::parse(out)["n_trees"], 4);
  EXPECT_THAT(err, HasSubstr("trees"));  // progress
  EXPECT_EQ(RunBinary("train --quiet " + common + " --schema " + toy.schema, toy.dir, &out, &err),
            0);
  EXPECT_EQ(err, "");
  EXPECT_EQ(RunBinary("evaluate --model " + toy.model + " --data " + toy.data, toy.dir, &out, &err),
            0);
  EXPECT_TRUE(nlohmann::json::parse(out).contains("auc"));
  EXPECT_EQ(RunBinary("predict --model " + toy.schema + " --data " + toy.data, toy.dir, &out, &err),
            2);
  EXPECT_THAT(err, HasSubstr("not an rdpkit model"));
  EXPECT_EQ(RunBinary("train --bounds-from-data --quiet " + common, toy.dir, &out, &err), 0);
  EXPECT_THAT(err, HasSubstr("LEAKS PRIVATE INFORMATION"));
}

TEST(TreesBinary, TrainsOnTheBundledSpambase) {
  // The README's main job: the bundled config, train split, test split.
  ScratchDir dir;
  std::string out;
  std::string err;
  const std::string model = dir.File("spam.json");
  ASSERT_EQ(
      RunBinary("train --quiet --data " + SourcePath("examples/spambase_train.csv") + " --schema " +
                    SourcePath("examples/spambase.schema.json") + " --config " +
                    SourcePath("examples/spambase.config.json") + " --out " + model,
                dir, &out, &err),
      0)
      << err;
  const nlohmann::json summary = nlohmann::json::parse(out);
  EXPECT_LE(summary["epsilon"].get<double>(), 1.0);
  EXPECT_EQ(summary["n_trees"], 100);
  ASSERT_EQ(
      RunBinary("evaluate --model " + model + " --data " + SourcePath("examples/spambase_test.csv"),
                dir, &out, &err),
      0)
      << err;
  // Far better than chance (100 private trees at epsilon = 1 on 3221 rows give about 0.92; a
  // broken split rule, label or clipping gives about 0.5).
  EXPECT_GT(nlohmann::json::parse(out)["auc"].get<double>(), 0.85);
}
#endif

}  // namespace
}  // namespace rdpkit::tools
