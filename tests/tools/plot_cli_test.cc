// rdpkit plot: the SVG it writes and the points it prints, against rdpkit epsilon.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "commands.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::tools {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;

constexpr const char* kStep =
    R"({"poisson_sampled": {"sampling_probability": 0.01, "event": {"gaussian": {"noise_multiplier": 1.1}}}})";

std::string TempSvg() {
  return ::testing::TempDir() + "rdpkit_plot_" + std::to_string(::getpid()) + ".svg";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Long curves show their progress on stderr: at most one line every half second, and always the
// last (the points done of all); --quiet shows none.
TEST(PlotCommand, ShowsItsProgressUnlessQuiet) {
  for (const bool quiet : {false, true}) {
    std::ostringstream out;
    std::ostringstream err;
    PlotArgs args{.event = kStep, .delta = 1e-5, .steps = 1000, .points = 4, .out = TempSvg()};
    args.quiet = quiet;
    args.err = &err;
    ASSERT_EQ(RunPlot(args, out), 0);
    if (quiet) {
      EXPECT_EQ(err.str(), "");
    } else {
      EXPECT_THAT(err.str(),
                  ::testing::MatchesRegex("rdpkit plot: 4/4 points \\([0-9.]+ s elapsed\\)\n"));
    }
  }
  std::remove(TempSvg().c_str());
}

TEST(PlotCommand, WritesAnSvgOfTheEpsilonOfEachComposition) {
  const std::string svg = TempSvg();
  std::ostringstream out;
  ASSERT_EQ(RunPlot({.event = kStep, .delta = 1e-5, .steps = 1000, .points = 4, .out = svg}, out),
            0);
  const json j = json::parse(out.str());
  EXPECT_EQ(j.at("steps"), json({1, 10, 100, 1000}));
  ASSERT_EQ(j.at("epsilon").size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto count = j.at("steps")[i].get<std::uint64_t>();
    std::ostringstream direct;
    const std::string composed =
        R"({"self_composed": {"count": )" + std::to_string(count) + R"(, "event": )" + kStep + "}}";
    ASSERT_EQ(RunEpsilon({.event = composed, .delta = 1e-5}, direct), 0);
    EXPECT_EQ(j.at("epsilon")[i], json::parse(direct.str()).at("epsilon")) << count;
  }
  EXPECT_EQ(j.at("certified"), true);
  const std::string text = ReadFile(svg);
  EXPECT_THAT(text, StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(text, HasSubstr("</svg>\n"));
  EXPECT_EQ(Count(text, "<polyline"), 1u);
  EXPECT_EQ(Count(text, "<circle"), 4u);
  EXPECT_THAT(text, HasSubstr("epsilon at delta = 1e-05"));
  std::remove(svg.c_str());
}

TEST(PlotCommand, TakesTheStepsOfASelfComposedEvent) {
  const std::string svg = TempSvg();
  std::ostringstream out;
  const std::string composed =
      std::string(R"({"self_composed": {"count": 50, "event": )") + kStep + "}}";
  ASSERT_EQ(RunPlot({.event = composed, .delta = 1e-5, .points = 3, .out = svg, .fast = true}, out),
            0);
  const json j = json::parse(out.str());
  EXPECT_EQ(j.at("steps").back(), 50);
  EXPECT_EQ(j.at("certified"), false);
  std::remove(svg.c_str());
}

TEST(PlotCommand, BadInputNamesTheField) {
  std::ostringstream out;
  EXPECT_THAT([&] { (void)RunPlot({.event = kStep, .delta = 1e-5, .out = TempSvg()}, out); },
              ThrowsMessage<InvalidArgument>(HasSubstr("steps: missing")));
  EXPECT_THAT([&] { (void)RunPlot({.event = kStep, .delta = 1e-5, .steps = 10}, out); },
              ThrowsMessage<InvalidArgument>(HasSubstr("out")));
  EXPECT_THAT(
      [&] {
        (void)RunPlot({.event = kStep, .delta = 1e-5, .steps = 10, .points = 1, .out = TempSvg()},
                      out);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("points = 1 is outside [2, 1000]")));
  EXPECT_THAT(
      [&] {
        (void)RunPlot({.event = R"({"gaussian": {"noise_multiplier": 1}})",
                       .delta = 2,
                       .steps = 10,
                       .out = TempSvg()},
                      out);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("delta")));
  // Steps out of range are refused by name before any point is computed.
  for (const std::uint64_t steps : {std::uint64_t{0}, (std::uint64_t{1} << 53) + 1}) {
    EXPECT_THAT(
        [&] {
          (void)RunPlot({.event = kStep, .delta = 1e-5, .steps = steps, .out = TempSvg()}, out);
        },
        ThrowsMessage<InvalidArgument>(HasSubstr("steps = " + std::to_string(steps) +
                                                 " is outside whole numbers in [1, 2^53]")));
  }
  // The title goes into the SVG's XML: bytes that are not UTF-8 and control characters would
  // make it unreadable.
  for (const std::string& title :
       std::vector<std::string>{"caf\xFF", "line\nbreak", std::string("nul\0", 4), "a\tb",
                                "c1\xC2\x9B", "nonchar\xEF\xBF\xBF"}) {
    EXPECT_THAT(
        [&] {
          (void)RunPlot(
              {.event = kStep, .delta = 1e-5, .steps = 10, .out = TempSvg(), .title = title}, out);
        },
        ThrowsMessage<InvalidArgument>(
            HasSubstr("is outside UTF-8 text without control characters")));
  }
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace rdpkit::tools
