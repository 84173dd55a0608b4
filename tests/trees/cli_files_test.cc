// The files the trees commands read and write (text_file.h, file_output.h): an output that is
// also an input or the other output is refused before anything is read, endless lines and
// oversized documents are refused at their limit, a pipe trains the model of the file it carries,
// and output that cannot reach standard output is an error. Also the batch rules of the config
// that the command checks before and after the auto rule.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "model_nodes.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/model.h"
#include "text_file.h"
#include "trees_commands.h"
#include "trees_test_util.h"

namespace rdpkit::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using trees::testing::ReadText;
using trees::testing::ScratchDir;

constexpr const char* kSchema = R"({"task": "binary", "features": [
    {"name": "x", "min": 0, "max": 1}, {"name": "z", "categorical": true, "n_codes": 3}]})";

std::string ToyCsv() {
  std::ostringstream csv;
  csv << "x,z,label\n";
  for (int i = 0; i < 300; ++i) csv << i / 300.0 << "," << i % 3 << "," << (i >= 150) << "\n";
  return csv.str();
}

struct Files {
  ScratchDir dir;
  std::string data = dir.Write("train.csv", ToyCsv());
  std::string schema = dir.Write("schema.json", kSchema);
  std::string model = dir.File("model.json");

  TrainArgs Args() const {
    TrainArgs args;
    args.data = data;
    args.schema = schema;
    args.config = R"({"n_estimators": 3, "privacy": {"epsilon": 1, "delta": 1e-5}, "seed": 1})";
    args.out = model;
    args.quiet = true;
    return args;
  }
};

int Train(const TrainArgs& args) {
  std::ostringstream out;
  return RunTrain(args, out);
}

TEST(OutputFiles, AnOutputThatIsAnInputOrTheOtherOutputIsRefusedBeforeReading) {
  const Files files;
  const std::string data_before = ReadText(files.data);
  TrainArgs args = files.Args();
  args.report = args.out;
  EXPECT_THAT([&] { Train(args); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is the same file as --report")));
  args.report.clear();
  // The data under another spelling of its path, and the schema.
  args.out = files.dir.File("../" + files.dir.path().filename().string() + "/./train.csv");
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr(
                                        "out: \"" + args.out + "\" is the same file as --data")));
  args.out = files.schema;
  EXPECT_THAT([&] { Train(args); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is the same file as --schema")));
  args.out = files.model;
  args.report = files.data;
  EXPECT_THAT([&] { Train(args); }, ThrowsMessage<InvalidArgument>(HasSubstr("report: ")));
  // A hard link is the same file.
  const std::string link = files.dir.File("link.csv");
  ASSERT_EQ(::link(files.data.c_str(), link.c_str()), 0);
  args.report.clear();
  args.out = link;
  EXPECT_THAT([&] { Train(args); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is the same file as --data")));
  EXPECT_EQ(ReadText(files.data), data_before);
  EXPECT_FALSE(std::filesystem::exists(files.model));

  args.out = files.model;
  ASSERT_EQ(Train(args), 0);
  std::ostringstream out;
  EXPECT_THAT(
      [&] { (void)RunPredict({.model = files.model, .data = files.data, .out = files.data}, out); },
      ThrowsMessage<InvalidArgument>(HasSubstr("is the same file as --data")));
  EXPECT_THAT(
      [&] {
        (void)RunPredict({.model = files.model, .data = files.data, .out = files.model}, out);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("is the same file as --model")));
  EXPECT_EQ(ReadText(files.data), data_before);
}

TEST(InputFiles, EndlessLinesAndOversizedDocumentsAreRefusedAtTheirLimit) {
  const Files files;
  ASSERT_EQ(Train(files.Args()), 0);
  TrainArgs args = files.Args();
  args.data = "/dev/zero";  // one endless line
  EXPECT_THAT([&] { Train(args); },
              ThrowsMessage<InvalidArgument>(HasSubstr("has a line longer than 64 MiB")));
  EXPECT_THAT(
      [&] {
        (void)trees::LoadCsv("/dev/zero", trees::Schema::FromJson(nlohmann::json::parse(kSchema)));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("has a line longer than 64 MiB")));
  std::ostringstream out;
  EXPECT_THAT([&] { (void)RunSchema({.data = "/dev/zero"}, out); },
              ThrowsMessage<InvalidArgument>(HasSubstr("has a line longer than 64 MiB")));
  EXPECT_THAT(
      [&] { (void)trees::Schema::FromFile("/dev/zero"); },
      ThrowsMessage<InvalidArgument>(HasSubstr("schema: \"/dev/zero\" is longer than 256 MiB")));
  // A regular file over the model limit is refused by its size, before it is read (a sparse
  // file: no disk space).
  const std::string big = files.dir.File("big.json");
  { std::ofstream(big) << "{"; }
  std::filesystem::resize_file(big, trees::internal::kMaxModelBytes + 1);
  EXPECT_THAT([&] { (void)trees::Model::Load(big); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is longer than 1024 MiB, the limit")));
  // A line that ends past the limit is refused too, however it ends, by the readers in blocks as
  // by the reader of a whole file; a line of exactly the limit is read.
  for (const std::size_t length :
       {trees::internal::kMaxLineBytes, trees::internal::kMaxLineBytes + 1}) {
    SCOPED_TRACE(length);
    const std::string long_line = files.dir.Write(
        "long.csv", "x,z,label\n0.5,1,1\n0.5" + std::string(length - 7, ' ') + ",1,1\n0.5,2,0\n");
    const bool refused = length > trees::internal::kMaxLineBytes;
    auto blocks = trees::internal::BlockSource::OfFile(long_line);
    std::string_view block;
    std::size_t bytes = 0;
    const auto read_all = [&] {
      while (blocks.Next(block)) bytes += block.size();
    };
    if (refused) {
      EXPECT_THAT(read_all,
                  ThrowsMessage<InvalidArgument>(HasSubstr("has a line longer than 64 MiB")));
      TrainArgs long_args = files.Args();
      long_args.data = long_line;
      EXPECT_THAT([&] { Train(long_args); },
                  ThrowsMessage<InvalidArgument>(HasSubstr("has a line longer than 64 MiB")));
      EXPECT_THAT([&] { (void)RunPredict({.model = files.model, .data = long_line}, out); },
                  ThrowsMessage<InvalidArgument>(HasSubstr("has a line longer than 64 MiB")));
    } else {
      read_all();
      EXPECT_EQ(bytes, std::filesystem::file_size(long_line));
    }
  }
  std::filesystem::remove(files.dir.File("long.csv"));
  // A folder given as data is named as one.
  EXPECT_THAT(
      [&] {
        (void)trees::LoadCsv(files.dir.path().string(),
                             trees::Schema::FromJson(nlohmann::json::parse(kSchema)));
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("is a directory, not a file")));
  EXPECT_THAT(
      [&] { (void)RunPredict({.model = files.model, .data = files.dir.path().string()}, out); },
      ThrowsMessage<InvalidArgument>(HasSubstr("is a directory, not a file")));
  // The same read of a line just under the limit goes on.
  EXPECT_EQ(trees::internal::AfterLastNewline("ab\ncd\nef", 4, 99), 6u);
  EXPECT_EQ(trees::internal::AfterLastNewline("ab\ncd", 3, 99), 99u);
}

#ifdef RDPKIT_CLI_PATH
// Runs `rdpkit arguments` under sh; returns the exit status.
int Shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(InputFiles, APipeTrainsTheModelOfTheFileItCarries) {
  const Files files;
  const std::string cli = RDPKIT_CLI_PATH;
  const std::string common = " --schema " + files.schema +
                             " --epsilon 1 --n-estimators 5 --seed 2 --quiet >/dev/null 2>&1";
  ASSERT_EQ(
      Shell(cli + " train --data " + files.data + " --out " + files.dir.File("a.json") + common),
      0);
  ASSERT_EQ(Shell("cat " + files.data + " | " + cli + " train --data /dev/stdin --out " +
                  files.dir.File("b.json") + common),
            0);
  EXPECT_EQ(ReadText(files.dir.File("a.json")), ReadText(files.dir.File("b.json")));
}

// Linux paths may hold any bytes; the summary on stdout (JSON) shows those that are not UTF-8
// as U+FFFD instead of failing after the model was written.
// A run whose trees pass the most a model file may have stops at the tree that passes it (found
// by a sweep: 100 001 trees ran 270 s and took 3.5 GB before the model was refused unwritten).
TEST(OutputFiles, TreesBeyondTheModelFileLimitStopTheRunThere) {
  trees::Tree tree;
  tree.nodes.push_back(trees::Node{.value = 0.25});
  const std::string text = [&] {
    std::string t;
    trees::internal::AppendTree(t, tree);
    return t;
  }();
  std::size_t bytes = 0;
  EXPECT_EQ(trees::internal::CountedTowardsModelFile(tree, &bytes).nodes.size(), 1U);
  EXPECT_EQ(bytes, text.size() + 1);
  bytes = trees::internal::kMaxModelBytes - text.size() - 1;
  EXPECT_NO_THROW((void)trees::internal::CountedTowardsModelFile(tree, &bytes));
  EXPECT_THAT([&] { (void)trees::internal::CountedTowardsModelFile(tree, &bytes); },
              ThrowsMessage<InvalidArgument>(
                  HasSubstr("out: the trees trained so far are " +
                            std::to_string(trees::internal::kMaxModelBytes + text.size() + 1) +
                            " bytes of JSON, more than the 1024 MiB a model file may have")));
}

TEST(OutputFiles, APathThatIsNotUtf8IsWrittenAndShown) {
  const Files files;
  TrainArgs args = files.Args();
  args.out = files.dir.File("model\xFF.json");
  args.report = files.dir.File("report.json");
  std::ostringstream out;
  ASSERT_EQ(RunTrain(args, out), 0);
  EXPECT_TRUE(std::filesystem::exists(args.out));
  EXPECT_THAT(out.str(), HasSubstr("model\xEF\xBF\xBD.json"));
  EXPECT_THAT(ReadText(args.report), HasSubstr("model\xEF\xBF\xBD.json"));
}

// A file name may have 255 bytes, its temporary's name too (the stem is cut); a longer name is
// refused before training, so neither the model nor the report is written.
TEST(OutputFiles, LongFileNamesAreWrittenOrRefusedBeforeAnything) {
  const Files files;
  TrainArgs args = files.Args();
  args.out = files.dir.File(std::string(240, 'm') + ".json");
  args.report = files.dir.File(std::string(245, 'r') + ".json");
  std::ostringstream out;
  ASSERT_EQ(RunTrain(args, out), 0);
  EXPECT_TRUE(std::filesystem::exists(args.out));
  EXPECT_TRUE(std::filesystem::exists(args.report));
  std::size_t files_left = 0;
  for (const auto& entry : std::filesystem::directory_iterator(files.dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".rdpkit-tmp."), std::string::npos);
    ++files_left;
  }
  EXPECT_EQ(files_left, 4u);  // data, schema, model, report

  args.out = files.dir.File("model.json");
  args.report = files.dir.File(std::string(300, 'r') + ".json");
  EXPECT_THAT([&] { (void)RunTrain(args, out); },
              ThrowsMessage<InvalidArgument>(
                  HasSubstr("its file name is 305 bytes, longer than the 255 its folder allows")));
  EXPECT_FALSE(std::filesystem::exists(args.out));
}

TEST(OutputFiles, OutputThatCannotBeWrittenIsAnError) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const Files files;
  const std::string cli = RDPKIT_CLI_PATH;
  EXPECT_EQ(Shell(cli + R"( epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta 1e-5)" +
                  " >/dev/full 2>" + files.dir.File("err")),
            1);
  EXPECT_THAT(ReadText(files.dir.File("err")),
              HasSubstr("cannot write the output to standard output"));
}
#endif

TEST(BatchRules, BatchSizeIsCheckedAgainstTheTreesTheRunWillGrow) {
  const Files files;
  TrainArgs args = files.Args();
  // Without n_estimators the auto rule chooses 1000 trees here (binary, n < 10 000): a batch of
  // 500 is within them, though above the static default of 100.
  args.config = R"({"batch_size": 500, "privacy": {"epsilon": 1, "delta": 1e-5}, "seed": 1})";
  ASSERT_EQ(Train(args), 0);
  const trees::Model model = trees::Model::Load(files.model);
  EXPECT_EQ(model.trees.size(), 1000u);
  EXPECT_EQ(model.config["batch_size"], 500);
  args.config = R"({"batch_size": 1001, "privacy": {"epsilon": 1, "delta": 1e-5}})";
  EXPECT_THAT([&] { Train(args); },
              ThrowsMessage<InvalidArgument>(HasSubstr("[1, n_estimators = 1000]")));
}

TEST(BatchRules, AveragingLeavesAreOneBatchOfAllTrees) {
  const auto config = [](nlohmann::json j) {
    j["non_private"] = true;
    return trees::TrainerConfig::FromJson(j);
  };
  EXPECT_EQ(config({{"n_estimators", 40}, {"leaf_update", "averaging"}}).batch_size, 40);
  EXPECT_EQ(config({{"n_estimators", 40}}).batch_size, 1);
  EXPECT_THAT(
      [&] {
        (void)config({{"n_estimators", 40}, {"leaf_update", "averaging"}, {"batch_size", 8}});
      },
      ThrowsMessage<InvalidArgument>(
          HasSubstr("batch_size = 8 is outside {n_estimators = 40} with leaf_update averaging")));
  // The auto rule's T, and the model it trains predicts in (0, 1) away from the ends.
  const Files files;
  TrainArgs args = files.Args();
  args.config = R"({"leaf_update": "averaging", "privacy": {"epsilon": 1, "delta": 1e-5}})";
  ASSERT_EQ(Train(args), 0);
  const trees::Model model = trees::Model::Load(files.model);
  EXPECT_EQ(model.config["batch_size"], model.config["n_estimators"]);
  const trees::Dataset data = trees::LoadCsv(files.data, model.schema);
  for (const double p : model.Predict(data)) {
    EXPECT_GT(p, 1e-3);
    EXPECT_LT(p, 1 - 1e-3);
  }
}

// A model records the label column it was trained with, so predict and evaluate on a file of the
// training layout need no --label; an explicit --label still wins.
TEST(InputFiles, PredictAndEvaluateSkipTheLabelColumnTheModelWasTrainedWith) {
  Files files;
  std::string csv = ToyCsv();
  csv.replace(0, csv.find('\n'), "x,z,outcome");
  const std::string data = files.dir.Write("outcome.csv", csv);
  TrainArgs args = files.Args();
  args.data = data;
  args.label = "outcome";
  ASSERT_EQ(Train(args), 0);
  const trees::Model model = trees::Model::Load(files.model);
  EXPECT_EQ(model.label_column, "outcome");

  std::ostringstream predictions;
  ASSERT_EQ(RunPredict({.model = files.model, .data = data}, predictions), 0);
  const std::string text = predictions.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 301);
  std::ostringstream metrics;
  ASSERT_EQ(RunEvaluate({.model = files.model, .data = data}, metrics), 0);
  EXPECT_THAT(metrics.str(), HasSubstr("\"auc\""));
  // The file of the usual layout names its label "label": the model's column is not there.
  EXPECT_THAT([&] { RunEvaluate({.model = files.model, .data = files.data}, metrics); },
              ThrowsMessage<InvalidArgument>(HasSubstr("label column \"outcome\"")));
  ASSERT_EQ(RunEvaluate({.model = files.model, .data = files.data, .label = "label"}, metrics), 0);
}

// A test file larger than one block of the CSV reader (16 MiB): predict and evaluate read it in
// parts, and give what the whole file read at once gives.
std::string LargeCsv(bool bad_last_row) {
  std::string csv = "x,z,label\n";
  const std::size_t rows = 1'500'000;
  csv.reserve(rows * 14);
  for (std::size_t i = 0; i < rows; ++i) {
    csv += std::to_string(static_cast<double>(i % 1000) / 1000.0) + "," + std::to_string(i % 3) +
           "," + (i % 7 < 3 ? "1" : "0") + "\n";
  }
  EXPECT_GT(csv.size(), std::size_t{16} << 20);
  if (bad_last_row) csv += "0.5,7,1\n";  // 7 is not a code of z
  return csv;
}

TEST(InputFiles, PredictAndEvaluateReadALargeFileInPartsAsAWhole) {
  Files files;
  ASSERT_EQ(Train(files.Args()), 0);
  const trees::Model model = trees::Model::Load(files.model);
  const std::string data = files.dir.Write("large.csv", LargeCsv(false));
  const trees::Dataset whole = trees::LoadCsv(data, model.schema);
  const std::vector<double> expected = model.Predict(whole);

  std::ostringstream out;
  ASSERT_EQ(RunPredict({.model = files.model, .data = data, .out = files.dir.File("p.csv")}, out),
            0);
  EXPECT_EQ(nlohmann::json::parse(out.str())["rows"], expected.size());
  std::istringstream lines(ReadText(files.dir.File("p.csv")));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "prediction");
  std::size_t row = 0;
  for (; std::getline(lines, line); ++row) {
    ASSERT_LT(row, expected.size());
    ASSERT_EQ(std::stod(line), expected[row]) << row;
  }
  EXPECT_EQ(row, expected.size());

  std::ostringstream metrics;
  ASSERT_EQ(RunEvaluate({.model = files.model, .data = data}, metrics), 0);
  const auto json = nlohmann::json::parse(metrics.str());
  EXPECT_EQ(json["auc"], trees::Auc(expected, whole.labels));
  EXPECT_EQ(json["log_loss"], trees::LogLoss(expected, whole.labels));
}

// A refused last row, after parts of predictions were written to the temporary file: the
// existing --out file is kept as it was, no temporary is left, and standard output gets nothing.
TEST(OutputFiles, APredictionRefusedAtTheLastRowLeavesNoOutput) {
  Files files;
  ASSERT_EQ(Train(files.Args()), 0);
  const std::string data = files.dir.Write("bad_end.csv", LargeCsv(true));
  const std::string kept = files.dir.Write("p.csv", "earlier predictions\n");
  std::ostringstream out;
  EXPECT_THAT([&] { RunPredict({.model = files.model, .data = data, .out = kept}, out); },
              ThrowsMessage<InvalidArgument>(HasSubstr("row 1500001 (line 1500002)")));
  EXPECT_THAT([&] { RunPredict({.model = files.model, .data = data}, out); },
              ThrowsMessage<InvalidArgument>(HasSubstr("row 1500001")));
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(ReadText(kept), "earlier predictions\n");
  for (const auto& entry : std::filesystem::directory_iterator(files.dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find("rdpkit-tmp"), std::string::npos)
        << entry.path();
  }
}

}  // namespace
}  // namespace rdpkit::tools
