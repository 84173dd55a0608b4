// The accountant subcommands: runners called in-process (golden JSON) and the real binary run as a
// process (exit status, stderr naming the field, nothing on stdout).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli.h"
#include "commands.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::tools {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;

json RunToJson(int (*run)(const EpsilonArgs&, std::ostream&), const EpsilonArgs& args) {
  std::ostringstream out;
  EXPECT_EQ(run(args, out), 0);
  return json::parse(out.str());
}

TEST(EpsilonCommand, GoldenOutput) {
  const json j = RunToJson(
      &RunEpsilon,
      {.event = R"({"gaussian":{"noise_multiplier":1}})", .delta = 1e-5, .accountant = "rdp"});
  // Continuous optimum of the Balle et al. conversion (reference eps_from_rdp_composition-0086:
  // 4.72838698494331388…); certified, so rounded up by at most a few ulps.
  EXPECT_NEAR(j.at("epsilon").get<double>(), 4.728386984943314, 1e-13);
  EXPECT_GE(j.at("epsilon").get<double>(), 4.728386984943313);
  EXPECT_EQ(j.at("delta"), 1e-5);
  EXPECT_EQ(j.at("conversion"), "balle2020");
  EXPECT_EQ(j.at("certified"), true);
  EXPECT_NEAR(j.at("order").get<double>(), 5.43184967, 1e-4);
  EXPECT_EQ(j.at("accountant"), "rdp");
  EXPECT_EQ(j.size(), 6u);
}

TEST(EpsilonCommand, GaussianCompositionsAreAccountedExactly) {
  // The default (best) accountant: exact for a Gaussian; mpmath value 4.37717809568122460855…
  // (tests/data/analytic_gaussian_cases.json, eps-s1.0-n1-d1e-05), rounded up.
  const json j =
      RunToJson(&RunEpsilon, {.event = R"({"gaussian":{"noise_multiplier":1}})", .delta = 1e-5});
  EXPECT_EQ(j.at("accountant"), "gaussian");
  EXPECT_GE(j.at("epsilon").get<double>(), 4.377178095681224);
  EXPECT_NEAR(j.at("epsilon").get<double>(), 4.377178095681225, 1e-12);
  EXPECT_EQ(j.at("mu"), 1.0);
  EXPECT_EQ(j.at("certified"), true);
  EXPECT_EQ(j.size(), 5u);
}

TEST(EpsilonCommand, FastFlagIsReported) {
  // RDP answers zcdp: its fast path is double precision only.
  const json j =
      RunToJson(&RunEpsilon, {.event = R"({"zcdp":{"rho":0.01}})", .delta = 1e-6, .fast = true});
  EXPECT_EQ(j.at("accountant"), "rdp");
  EXPECT_EQ(j.at("certified"), false);
  // PLD answers laplace: its fast path is a coarser grid, still an upper bound.
  const json pld = RunToJson(
      &RunEpsilon, {.event = R"({"laplace":{"noise_multiplier":2}})", .delta = 1e-6, .fast = true});
  EXPECT_EQ(pld.at("accountant"), "pld");
  EXPECT_EQ(pld.at("certified"), true);
}

TEST(DeltaCommand, GoldenOutput) {
  std::ostringstream out;
  ASSERT_EQ(
      RunDelta(
          {.event =
               R"({"self_composed":{"count":10,"event":{"gaussian":{"noise_multiplier":10}}}})",
           .epsilon = 1.0},
          out),
      0);
  const json j = json::parse(out.str());
  EXPECT_GT(j.at("delta").get<double>(), 0.0);
  EXPECT_LT(j.at("delta").get<double>(), 1e-3);
  EXPECT_EQ(j.at("epsilon"), 1.0);
  EXPECT_EQ(j.at("accountant"), "gaussian");
  EXPECT_NEAR(j.at("mu").get<double>(), std::sqrt(10.0) / 10, 1e-15);
}

TEST(RdpCommand, GoldenOutput) {
  std::ostringstream out;
  ASSERT_EQ(RunRdp({.event = R"({"gaussian":{"noise_multiplier":2}})", .orders = "2,8,32"}, out),
            0);
  const json j = json::parse(out.str());
  EXPECT_EQ(j.at("orders"), json({2.0, 8.0, 32.0}));
  EXPECT_EQ(j.at("rdp"), json({0.25, 1.0, 4.0}));  // α/(2σ²) is exact here
}

TEST(CalibrateCommand, GoldenOutput) {
  std::ostringstream out;
  ASSERT_EQ(
      RunCalibrate(
          {.event =
               R"({"self_composed":{"count":500,"event":{"gaussian":{"noise_multiplier":"?"}}}})",
           .epsilon = 1.0,
           .delta = 1e-6},
          out),
      0);
  const json j = json::parse(out.str());
  EXPECT_EQ(j.at("parameter"), "noise_multiplier");
  EXPECT_LE(j.at("epsilon").get<double>(), 1.0);
  EXPECT_EQ(j.at("event")["self_composed"]["event"]["gaussian"]["noise_multiplier"], j.at("value"));
}

struct ProcessResult {
  int status;
  std::string out;
  std::string err;
};

// A path in the test temp directory that no other test process uses (ctest -j runs each case
// as its own process, all sharing TempDir()).
std::string UniqueTempPath(const std::string& name) {
  return ::testing::TempDir() + "/rdpkit_" + std::to_string(getpid()) + "_" + name;
}

// Runs the real binary; stdout and stderr are captured through files.
ProcessResult RunProcess(const std::string& args) {
  const std::string out_path = UniqueTempPath("out.txt");
  const std::string err_path = UniqueTempPath("err.txt");
  const std::string command = std::string(RDPKIT_CLI_PATH) + " " + args + " >" + out_path + " 2>" +
                              err_path + (args.find('<') == std::string::npos ? " </dev/null" : "");
  const int raw = std::system(command.c_str());
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  ProcessResult result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out_path), slurp(err_path)};
  std::remove(out_path.c_str());
  std::remove(err_path.c_str());
  return result;
}

TEST(Process, SuccessPrintsOneJsonObject) {
  const ProcessResult r =
      RunProcess(R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta 1e-5)");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_TRUE(json::parse(r.out).is_object());
}

TEST(Process, EventFromFileAndStdin) {
  const std::string path = UniqueTempPath("event.json");
  std::ofstream(path) << R"({"laplace":{"noise_multiplier":3}})";
  const ProcessResult from_file = RunProcess("epsilon --event " + path + " --delta 1e-6");
  EXPECT_EQ(from_file.status, 0) << from_file.err;
  const ProcessResult from_stdin = RunProcess("epsilon --event - --delta 1e-6 <" + path);
  EXPECT_EQ(from_stdin.status, 0) << from_stdin.err;
  EXPECT_EQ(from_file.out, from_stdin.out);
  std::remove(path.c_str());
}

struct BadInput {
  std::string args;
  std::string field;  // must appear in the message
};
void PrintTo(const BadInput& b, std::ostream* os) { *os << b.args; }

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, ExitsTwoNamingTheFieldWithNothingOnStdout) {
  const ProcessResult r = RunProcess(GetParam().args);
  EXPECT_EQ(r.status, 2) << GetParam().args << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_THAT(r.err, HasSubstr(GetParam().field)) << GetParam().args;
  // One error style everywhere, CLI11's own errors included.
  EXPECT_THAT(r.err, StartsWith("rdpkit: error: ")) << GetParam().args;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadInputTest,
    ::testing::Values(
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":-1}}' --delta 1e-5)",
                 "gaussian.noise_multiplier = -1 is outside (0, inf)"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta 0)",
                 "delta = 0 is outside (0, 1)"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta 1.5)",
                 "delta = 1.5 is outside (0, 1)"},
        BadInput{R"(rdp --event '{"gaussian":{"noise_multiplier":1}}' --orders 1)",
                 "order = 1 is outside (1, inf)"},
        BadInput{R"(rdp --event '{"gaussian":{"noise_multiplier":1}}' --orders 2,abc)", "orders"},
        BadInput{R"(epsilon --event '{"gausian":{"noise_multiplier":1}}' --delta 1e-5)",
                 "unknown event"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}' --delta 1e-5)",
                 "malformed JSON"},
        BadInput{R"(epsilon --event /nonexistent/event.json --delta 1e-5)", "cannot open"},
        BadInput{
            R"(calibrate --event '{"composed":[{"gaussian":{"noise_multiplier":"?"}},{"laplace":{"noise_multiplier":"?"}}]}' --epsilon 1 --delta 1e-5)",
            "exactly one"},
        BadInput{
            R"(epsilon --event '{"self_composed":{"count":-3,"event":{"gaussian":{"noise_multiplier":1}}}}' --delta 1e-5)",
            "self_composed.count"},
        BadInput{R"(epsilon --delta 1e-5)", "--event"},
        BadInput{R"(nosuchcommand)", "nosuchcommand"},
        // Strict JSON: a key given twice is refused by path, never resolved to the last value.
        BadInput{
            R"(epsilon --event '{"gaussian":{"noise_multiplier":1,"noise_multiplier":0.01}}' --delta 1e-5)",
            "gaussian.noise_multiplier: key given twice"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1e999}}' --delta 1e-5)",
                 "gaussian.noise_multiplier = 1e999 is outside the finite numbers"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}} trailing' --delta 1e-5)",
                 "event: malformed JSON"},
        BadInput{
            R"(epsilon --event '{"self_composed":{"count":9007199254740993,"event":{"gaussian":{"noise_multiplier":1}}}}' --delta 1e-5)",
            "self_composed.count = 9007199254740993 is outside whole numbers in [0, 2^53]"},
        // Command-line numbers are plain decimal text only, with the accepted range.
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta '')",
                 "delta: --delta: empty value (--delta: target delta, in (0, 1))"},
        BadInput{R"(epsilon --event '' --delta 1e-5)", "event: --event: empty value"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta abc)",
                 R"(delta = "abc" is outside decimal numbers in (0, 1))"},
        BadInput{
            R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta 1e-5 --orders 0x10)",
            R"(orders = "0x10" is outside decimal numbers in (1, inf))"},
        BadInput{R"(rdp --event '{"gaussian":{"noise_multiplier":1}}' --orders 2,inf)",
                 R"(orders = "inf")"},
        BadInput{R"(delta --event '{"gaussian":{"noise_multiplier":1}}' --epsilon nan)",
                 R"(epsilon = "nan" is outside decimal numbers in [0, inf))"},
        BadInput{
            R"(calibrate --event '{"gaussian":{"noise_multiplier":"?"}}' --epsilon 1 --delta 1e999)",
            R"(delta = "1e999" is outside decimal numbers in (0, 1))"},
        BadInput{R"(sample --event '{"gaussian":{"noise_multiplier":1}}' --count 0x3)",
                 R"(count = "0x3" is outside whole numbers in [1, 1e8])"},
        BadInput{R"(sample --event '{"gaussian":{"noise_multiplier":1}}' --count 3 --seed -1)",
                 R"(seed = "-1")"},
        // CLI11's errors: field, what is wrong, the flag's accepted range.
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta)",
                 "delta: --delta needs a value (--delta: target delta, in (0, 1))"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta 1e-5 --delta 1)",
                 "delta: --delta given more than once (--delta: target delta, in (0, 1))"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}')",
                 "delta: missing; --delta is required (--delta: target delta, in (0, 1))"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --delta 1e-5 --bogus 3)",
                 "--bogus: unknown option or argument (accepted: --help, --event, --delta"},
        BadInput{R"(epsilon --event '{"gaussian":{"noise_multiplier":1}}' --bogus 3)",
                 "--bogus: unknown option"},
        // Paths are written one way: composed[1], not composed.1.
        BadInput{
            R"(calibrate --event '{"composed":[{"gaussian":{"noise_multiplier":1}},{"laplace":{"noise_multiplier":"?"}},{"zcdp":{"rho":"?"}}]}' --epsilon 1 --delta 1e-5)",
            "composed[2].zcdp.rho: calibrate solves for exactly one"}),
    [](const auto& p) { return "case" + std::to_string(p.index); });

// Input read from a file that is too deep, too wide or echoes too much.
class HostileFileTest : public ::testing::Test {
 protected:
  ProcessResult Run(const std::string& text, const std::string& command = "epsilon") {
    const std::string path = UniqueTempPath("hostile.json");
    std::ofstream(path) << text;
    ProcessResult r = RunProcess(command + " --event " + path + " --delta 1e-5");
    std::remove(path.c_str());
    EXPECT_EQ(r.status, 2) << r.err.substr(0, 500);
    EXPECT_TRUE(r.out.empty());
    EXPECT_THAT(r.err, StartsWith("rdpkit: error: "));
    return r;
  }
};

TEST_F(HostileFileTest, DeepCompositionIsRefusedNotACrash) {
  // 20,000 nested composed (300 KB) was a SIGSEGV.
  std::string text;
  for (int i = 0; i < 20000; ++i) text += R"({"composed":[)";
  text += R"({"gaussian":{"noise_multiplier":1}})";
  for (int i = 0; i < 20000; ++i) text += "]}";
  EXPECT_THAT(Run(text).err, HasSubstr("nested deeper than"));
}

TEST_F(HostileFileTest, DeepSelfCompositionIsRefusedQuickly) {
  // 10,000 nested self_composed took 3.7 GB and 20 s; 65 levels are one too many.
  for (const int n : {10000, 64}) {
    std::string text;
    for (int i = 0; i < n; ++i) text += R"({"self_composed":{"count":2,"event":)";
    text += R"({"gaussian":{"noise_multiplier":1}})";
    for (int i = 0; i < n; ++i) text += "}}";
    EXPECT_THAT(Run(text).err, HasSubstr("nest")) << n;
  }
}

TEST_F(HostileFileTest, HugeUnknownKeyIsEchoedAbbreviatedOnce) {
  const std::string key(10'000'000, 'k');
  const ProcessResult r = Run(R"({"gaussian":{"noise_multiplier":1,")" + key + R"(":1}})");
  EXPECT_LT(r.err.size(), 500u);
  EXPECT_THAT(r.err, HasSubstr("(10000000 bytes)"));
  EXPECT_THAT(r.err, HasSubstr("unknown key"));
}

// The trainer's schema and the model file go through the same strict reader.
TEST(StrictLoaders, SchemaAndModelRefuseOverflowAndDuplicateKeys) {
  const std::string csv = UniqueTempPath("data.csv");
  std::ofstream(csv) << "a,label\n1,0\n2,1\n3,0\n4,1\n";
  const std::string schema = UniqueTempPath("schema.json");
  const std::string config = R"('{"n_estimators":1,"privacy":{"epsilon":1,"delta":1e-5}}')";
  const auto train = [&](const std::string& schema_text) {
    std::ofstream(schema) << schema_text;
    return RunProcess("train --quiet --data " + csv + " --schema " + schema + " --config " +
                      config + " --out " + UniqueTempPath("model.json"));
  };
  ProcessResult r = train(R"({"task":"binary","features":[{"name":"a","min":0,"max":1e999}]})");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("features[0].max = 1e999 is outside the finite numbers"));
  r = train(R"({"task":"binary","task":"regression","features":[{"name":"a","min":0,"max":5}]})");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("task: key given twice"));
  r = RunProcess("train --quiet --data " + csv + " --schema " + schema +
                 R"( --config '{"n_estimators":1,"n_estimators":2}' --out )" +
                 UniqueTempPath("model.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("n_estimators: key given twice"));

  r = train(R"({"task":"binary","features":[{"name":"a","min":0,"max":5}]})");
  ASSERT_EQ(r.status, 0) << r.err;
  std::stringstream model;
  model << std::ifstream(UniqueTempPath("model.json")).rdbuf();
  const std::string text = model.str();
  const std::string bad = UniqueTempPath("bad_model.json");
  std::ofstream(bad) << text.substr(0, text.rfind('}')) << R"(,"format":"rdpkit-model"})";
  r = RunProcess("evaluate --model " + bad + " --data " + csv);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("format: key given twice"));
  std::ofstream(bad) << text.substr(0, text.rfind('}')) << R"(,"x":1e999})";
  r = RunProcess("evaluate --model " + bad + " --data " + csv);
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.err, HasSubstr("x = 1e999"));
  for (const std::string& path : {csv, schema, bad, UniqueTempPath("model.json")}) {
    std::remove(path.c_str());
  }
}

TEST(DpsgdCommand, AnswersEpsilonAndNoiseInTheUsersWords) {
  // Batch 256 of 60,000 for 15 epochs: q = 256/60000, ⌈15·60000/256⌉ = 3516 steps.
  std::ostringstream out;
  ASSERT_EQ(RunDpsgd({.dataset_size = 60000,
                      .batch_size = 256,
                      .epochs = 15,
                      .noise_multiplier = 1.1,
                      .delta = 1e-5},
                     out),
            0);
  const json j = json::parse(out.str());
  EXPECT_EQ(j.at("steps"), 3516);
  EXPECT_DOUBLE_EQ(j.at("sampling_probability").get<double>(), 256.0 / 60000);
  // The same as `rdpkit epsilon` on the printed event.
  const json again = RunToJson(&RunEpsilon, {.event = j.at("event").dump(), .delta = 1e-5});
  EXPECT_EQ(j.at("epsilon"), again.at("epsilon"));
  // best: the PLD accountant (pld_test.cc); RDP alone gives 1.2811 (Opacus' RDP value).
  EXPECT_EQ(j.at("accountant"), "pld");
  EXPECT_NEAR(j.at("epsilon").get<double>(), 1.1339, 1e-3);
  std::ostringstream rdp_out;
  ASSERT_EQ(RunDpsgd({.dataset_size = 60000,
                      .batch_size = 256,
                      .epochs = 15,
                      .noise_multiplier = 1.1,
                      .delta = 1e-5,
                      .accountant = "rdp"},
                     rdp_out),
            0);
  EXPECT_NEAR(json::parse(rdp_out.str()).at("epsilon").get<double>(), 1.2811, 1e-3);
  // The other way round: the noise multiplier for ε = 1 is larger, and meets the target.
  std::ostringstream solved;
  ASSERT_EQ(
      RunDpsgd(
          {.dataset_size = 60000, .batch_size = 256, .epochs = 15, .epsilon = 1.0, .delta = 1e-5},
          solved),
      0);
  const json s = json::parse(solved.str());
  EXPECT_GT(s.at("noise_multiplier").get<double>(), 1.1);
  EXPECT_LE(s.at("epsilon").get<double>(), 1.0);
  EXPECT_EQ(s.at("event")["self_composed"]["count"], 3516);
}

// 60000 may be written 6e4; a fraction, a sign or a value beyond 2^53 in exponent form may not.
TEST(WholeNumbers, DigitsOrExactExponentForms) {
  const std::string accepted = "whole numbers in [1, 2^53]";
  EXPECT_EQ(ParseWholeNumber("60000", "dataset-size", accepted), 60000u);
  EXPECT_EQ(ParseWholeNumber("6e4", "dataset-size", accepted), 60000u);
  EXPECT_EQ(ParseWholeNumber("1.5e3", "dataset-size", accepted), 1500u);
  EXPECT_EQ(ParseWholeNumber("18446744073709551615", "seed", accepted), 18446744073709551615u);
  EXPECT_EQ(ParseWholeNumber("010", "points", accepted), 10u);  // decimal, never octal
  EXPECT_EQ(ParseWholeNumber("5.", "seed", accepted), 5u);
  EXPECT_EQ(ParseWholeNumber("1.2500e2", "seed", accepted), 125u);
  EXPECT_EQ(ParseWholeNumber("0.0", "seed", accepted), 0u);
  // Texts that round to a whole double but do not denote one are refused.
  for (const char* bad :
       {"2.5", "1e-3", "-1", "+5", "0x10", "1e16", "1e400", "", " 1", "nan", "1.9999999999999999",
        "0.99999999999999999999", "1e-400", "1000.0000000000000001", "1.25e1"}) {
    EXPECT_THAT([&] { (void)ParseWholeNumber(bad, "dataset-size", accepted); },
                ThrowsMessage<InvalidArgument>(HasSubstr("dataset-size")))
        << bad;
  }
}

TEST(DpsgdCommand, BadInputNamesTheFlag) {
  std::ostringstream out;
  EXPECT_THAT(
      [&] {
        RunDpsgd(
            {.dataset_size = 100, .batch_size = 256, .epochs = 1, .epsilon = 1.0, .delta = 1e-5},
            out);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("batch-size")));
  EXPECT_THAT(
      [&] { RunDpsgd({.dataset_size = 100, .batch_size = 10, .epochs = 1, .delta = 1e-5}, out); },
      ThrowsMessage<InvalidArgument>(HasSubstr("--epsilon")));
  EXPECT_THAT(
      [&] {
        RunDpsgd(
            {.dataset_size = 100, .batch_size = 10, .epochs = -1, .epsilon = 1.0, .delta = 1e-5},
            out);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("epochs")));
  // Named by the flag, not by the path inside the event it builds; whole numbers as given.
  EXPECT_THAT(
      [&] {
        RunDpsgd({.dataset_size = 100,
                  .batch_size = 10,
                  .epochs = 1,
                  .noise_multiplier = 0.0,
                  .delta = 1e-5},
                 out);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("noise-multiplier = 0 is outside (0, inf)")));
  EXPECT_THAT(
      [&] {
        RunDpsgd({.dataset_size = 18446744073709551615u,
                  .batch_size = 10,
                  .epochs = 1,
                  .epsilon = 1.0,
                  .delta = 1e-5},
                 out);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("dataset-size = 18446744073709551615 is outside")));
}

}  // namespace
}  // namespace rdpkit::tools
