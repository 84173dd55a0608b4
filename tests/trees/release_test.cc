// What a training run releases (DESIGN.md §6, docs/trees.md "What the model file releases") and
// how its files are written: the model file and stdout carry only what the privacy event covers;
// exact counts go to the training log; a filtered run's ε is re-derived exactly from its event;
// δ ≥ 1/n and data-derived bounds are never called private; output files are written safely.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/file_output.h"
#include "rdpkit/trees/model.h"
#include "rdpkit/trees/train.h"
#include "synthetic_data.h"
#include "trees_commands.h"
#include "trees_test_util.h"

namespace rdpkit::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using trees::testing::ReadText;
using trees::testing::ScratchDir;

constexpr const char* kSchema = R"({"task": "binary", "features": [
    {"name": "a", "min": 0, "max": 1}, {"name": "b", "min": 0, "max": 1}]})";

// 203 rows with 3 values outside the bounds (the issue's reproducer shape).
std::string Csv203() {
  std::ostringstream csv;
  csv << "a,b,label\n";
  for (int i = 0; i < 203; ++i) {
    double a = (i % 17) / 17.0;
    if (i == 5 || i == 50 || i == 150) a = 7.5;  // clipped
    csv << a << "," << (i % 5) / 5.0 << "," << (i % 2) << "\n";
  }
  return csv.str();
}

nlohmann::json RunTrainCommand(const TrainArgs& args, std::string* stderr_text = nullptr) {
  std::ostringstream out;
  std::ostringstream err;
  TrainArgs copy = args;
  copy.err = &err;
  EXPECT_EQ(RunTrain(copy, out), 0);
  if (stderr_text != nullptr) *stderr_text = err.str();
  return nlohmann::json::parse(out.str());
}

struct FilteredRun {
  ScratchDir dir;
  TrainArgs args;
  FilteredRun() {
    args.data = dir.Write("train.csv", Csv203());
    args.schema = dir.Write("schema.json", kSchema);
    args.config =
        R"({"n_estimators": 20, "max_depth": 2, "subsample": 0.5, "seed": 4,
            "renyi_filter": {"extra_rounds": 3}, "privacy": {"epsilon": 1, "delta": 1e-4}})";
    args.out = dir.File("model.json");
    args.report = dir.File("log.json");
  }
};

// Issue 11, point 1: no exact count of the data in the model file or on stdout; all of them in
// the training log, which says it is not private.
TEST(Release, ModelFileAndStdoutHoldNoDataDependentCounts) {
  FilteredRun run;
  std::string err;
  const nlohmann::json summary = RunTrainCommand(run.args, &err);
  const std::string model_text = ReadText(run.args.out);
  const nlohmann::json model = nlohmann::json::parse(model_text);
  for (const char* key : {"report", "n_rows", "clipped", "total_clipped", "active_records",
                          "records_sitting_out", "delta_source"}) {
    EXPECT_EQ(model_text.find(std::string("\"") + key + "\""), std::string::npos) << key;
    // stdout names the log file ("report": path) but holds none of its counts.
    if (std::string(key) != "report") {
      EXPECT_FALSE(summary.contains(key)) << key;
    }
  }
  EXPECT_FALSE(summary["report"].is_object());
  // Top level: exactly the released parts.
  std::set<std::string> keys;
  for (const auto& item : model.items()) keys.insert(item.key());
  // (label_column, the operator's --label, is written only when it is not "label".)
  EXPECT_EQ(keys, (std::set<std::string>{"format", "version", "objective", "base_score",
                                         "feature_names", "trees", "config", "privacy", "schema"}));
  std::set<std::string> privacy_keys;
  for (const auto& item : model["privacy"].items()) privacy_keys.insert(item.key());
  EXPECT_EQ(privacy_keys, (std::set<std::string>{"epsilon", "delta", "accountant", "event"}));

  const nlohmann::json log = nlohmann::json::parse(ReadText(run.args.report));
  EXPECT_EQ(log["n_rows"], 203);
  EXPECT_EQ(log["total_clipped"], 3);
  EXPECT_EQ(log["clipped"], nlohmann::json({{"a", 3}}));
  EXPECT_TRUE(log["renyi_filter"].contains("active_records"));
  EXPECT_THAT(log["notice"].get<std::string>(), HasSubstr("NOT differentially private"));
  EXPECT_THAT(err, HasSubstr("203 rows, 3 values clipped"));
  EXPECT_EQ(summary["report"], run.args.report);
}

// Issue 11, point 2: the stored event of a filtered run covers all T + extra rounds, and the
// documented recipe (ε of privacy.event at privacy.delta, no orders given) gives back exactly
// the recorded ε, at the filter's order.
TEST(Release, FilteredRunsEpsilonIsReDerivedExactlyFromItsEvent) {
  FilteredRun run;
  (void)RunTrainCommand(run.args);
  const trees::Model model = trees::Model::Load(run.args.out);
  EXPECT_EQ(model.trees.size(), 23u);
  const nlohmann::json& event = model.privacy["event"];
  const nlohmann::json& filter = event["composed"][0]["renyi_filter"];
  EXPECT_EQ(filter["max_rounds"], 23);
  const auto again =
      accountant::Epsilon(accountant::Event::FromJson(event), model.privacy["delta"].get<double>());
  EXPECT_TRUE(again.certified);
  EXPECT_EQ(again.epsilon, model.privacy["epsilon"].get<double>());
  EXPECT_EQ(again.order, filter["order"].get<double>());
  EXPECT_LE(again.epsilon, 1.0);
  // The rounds do not enter the curve; the budget does: a larger budget is a larger ε.
  nlohmann::json bigger = event;
  bigger["composed"][0]["renyi_filter"]["budget"] = filter["budget"].get<double>() * 2;
  EXPECT_GT(accountant::Epsilon(accountant::Event::FromJson(bigger), 1e-4).epsilon, again.epsilon);
}

// Issue 11, point 4: δ ≥ 1/n is refused unless accepted by name; the default is below 1/n.
TEST(Release, DeltaOfOneOverNOrMoreIsRefusedUnlessAccepted) {
  const trees::Dataset two_rows = trees::testing::SyntheticData(2, 2);
  const auto config = [](const nlohmann::json& privacy) {
    return trees::TrainerConfig::FromJson(
        {{"n_estimators", 2}, {"max_depth", 1}, {"seed", 1}, {"privacy", privacy}});
  };
  trees::TrainOptions quiet;
  quiet.progress = false;
  EXPECT_THAT(
      [&] {
        (void)trees::Train(two_rows, config({{"epsilon", 1}, {"delta", 0.5}}), quiet);
      },
      ThrowsMessage<InvalidArgument>(::testing::AllOf(
          HasSubstr("privacy.delta = 0.5"), HasSubstr("n = 2"), HasSubstr("allow_large_delta"))));
  const trees::Model accepted = trees::Train(
      two_rows, config({{"epsilon", 1}, {"delta", 0.5}, {"allow_large_delta", true}}), quiet);
  EXPECT_EQ(accepted.privacy["delta"], 0.5);
  EXPECT_EQ(accepted.config["privacy"]["allow_large_delta"], true);
  // Default: the largest power of ten strictly below 1/n.
  const trees::Model by_default = trees::Train(two_rows, config({{"epsilon", 1}}), quiet);
  EXPECT_EQ(by_default.privacy["delta"], 0.1);
  for (const std::size_t n : {1, 2, 9, 10, 11, 99, 100, 3221, 1000000}) {
    const double delta = trees::DefaultDelta(n);
    EXPECT_LT(delta * static_cast<double>(n), 1.0) << n;
    EXPECT_GE(delta * static_cast<double>(n) * 10, 1.0 - 1e-12) << n;  // largest such power
    EXPECT_NEAR(std::log10(delta), std::round(std::log10(delta)), 1e-12) << n;  // 10^-k
  }
}

// Issue 11, point 11: non-regular targets are refused, never replaced; modes are kept.
TEST(FileOutput, RefusesNonRegularTargetsAndKeepsModes) {
  ScratchDir dir;
  const std::string real = dir.Write("real.json", "keep me");
  const std::string link = dir.File("link.json");
  ASSERT_EQ(symlink(real.c_str(), link.c_str()), 0);
  EXPECT_THAT([&] { trees::WriteFileAtomically(link, "new"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is a symbolic link")));
  EXPECT_EQ(ReadText(real), "keep me");
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  const std::string fifo = dir.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_THAT([&] { trees::WriteFileAtomically(fifo, "new"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is a FIFO")));
  EXPECT_THAT([&] { trees::WriteFileAtomically("/dev/null", "new"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is a device")));
  EXPECT_THAT([&] { trees::WriteFileAtomically(dir.path().string(), "new"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is a directory")));

  // An existing 0644 file stays 0644 (and 0640 stays 0640) after being replaced.
  for (const mode_t mode : {mode_t{0644}, mode_t{0640}}) {
    const std::string path = dir.Write("mode.json", "old");
    ASSERT_EQ(chmod(path.c_str(), mode), 0);
    trees::WriteFileAtomically(path, "new");
    struct stat info {};
    ASSERT_EQ(stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, mode);
    EXPECT_EQ(ReadText(path), "new");
  }
  // A new file gets 0666 less the umask.
  const mode_t old_mask = umask(022);
  trees::WriteFileAtomically(dir.File("fresh.json"), "x");
  umask(old_mask);
  struct stat info {};
  ASSERT_EQ(stat(dir.File("fresh.json").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0644u);
  // Nothing but the files themselves is left in the folder.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find("rdpkit-tmp"), std::string::npos)
        << entry.path();
  }
}

// CheckOutputPath refuses what WriteFileAtomically would, and a missing folder, and writes
// nothing.
TEST(FileOutput, CheckOutputPathRefusesUpFrontAndWritesNothing) {
  ScratchDir dir;
  EXPECT_NO_THROW(trees::CheckOutputPath(dir.File("new.json")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("new.json")));
  EXPECT_NO_THROW(trees::CheckOutputPath(dir.Write("old.json", "x")));
  EXPECT_THAT([&] { trees::CheckOutputPath(""); },
              ThrowsMessage<InvalidArgument>(HasSubstr("empty path")));
  EXPECT_THAT([&] { trees::CheckOutputPath(dir.path().string(), "report"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("report: ")));
  EXPECT_THAT([&] { trees::CheckOutputPath(dir.File("a/b.json")); },
              ThrowsMessage<InvalidArgument>(HasSubstr("does not exist")));
  EXPECT_THAT([&] { trees::CheckOutputPath(dir.Write("plain", "x") + "/b.json"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("does not exist")));
  EXPECT_THAT([&] { trees::CheckOutputPath("/dev/null"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("is a device")));
  if (geteuid() != 0) {  // root may write anywhere
    const std::string locked = dir.File("locked");
    ASSERT_EQ(mkdir(locked.c_str(), 0555), 0);
    EXPECT_THAT([&] { trees::CheckOutputPath(locked + "/m.json"); },
                ThrowsMessage<InvalidArgument>(HasSubstr("cannot create a file in")));
  }
}

// Issue 11, point 12: a temporary left by a killed writer (its process gone) is removed by the
// next write to the same target; one of a live process is left alone.
TEST(FileOutput, RemovesTemporariesOfDeadWriters) {
  ScratchDir dir;
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);  // child is gone: its pid names no process
  const std::string stale =
      dir.Write(".model.json." + std::to_string(child) + ".rdpkit-tmp.0badc0de", "partial");
  const std::string live =
      dir.Write(".model.json." + std::to_string(getppid()) + ".rdpkit-tmp.12345678", "other");
  trees::WriteFileAtomically(dir.File("model.json"), "done");
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_EQ(ReadText(dir.File("model.json")), "done");
}

// Issue 11, point 12: SIGTERM during a write removes the temporary file. The child writes a
// large file in a loop; the parent kills it mid-way and checks that no temporary survives.
TEST(FileOutput, SignalDuringAWriteRemovesTheTemporary) {
  ScratchDir dir;
  const std::string target = dir.File("big.json");
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    const std::string text(64 << 20, 'x');
    (void)!write(ready[1], "r", 1);
    for (;;) trees::WriteFileAtomically(target, text);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  usleep(300 * 1000);  // well inside the writes
  ASSERT_EQ(kill(child, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().filename().string().find("rdpkit-tmp"), std::string::npos)
        << entry.path();
  }
}

}  // namespace
}  // namespace rdpkit::tools
