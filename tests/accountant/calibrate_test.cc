#include "rdpkit/accountant/calibrate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Safe side: ε(value) ≤ target. Tight: moving the value `nudge` relative toward the unsafe side
// breaks the target (so the value is within `nudge` of the boundary: 1e-6 on RDP and the exact
// Gaussian accountant, 1e-4 where PLD answers, whose search stops at 1e-5).
void ExpectSafeAndTight(const std::string& text, double epsilon, double delta, bool increasing,
                        double nudge = 1e-6) {
  const auto solved = CalibrateJson(json::parse(text), epsilon, delta);
  const Event event = Event::FromJson(solved.event);
  EXPECT_LE(Epsilon(event, delta).epsilon, epsilon) << text;
  EXPECT_LE(solved.result.epsilon, epsilon) << text;
  const double v = solved.result.value;
  const double nudged = increasing ? v * (1 + nudge) : v * (1 - nudge);
  json moved = json::parse(text);
  const std::string s = moved.dump();
  const std::string replaced =
      s.substr(0, s.find("\"?\"")) + json(nudged).dump() + s.substr(s.find("\"?\"") + 3);
  EXPECT_GT(Epsilon(Event::FromJson(json::parse(replaced)), delta).epsilon, epsilon) << text;
}

TEST(Calibrate, NoiseMultiplierOfGaussianComposition) {
  ExpectSafeAndTight(
      R"({"self_composed":{"count":1000,"event":{"gaussian":{"noise_multiplier":"?"}}}})", 1.0,
      1e-6, /*increasing=*/false);
}

TEST(Calibrate, NoiseMultiplierOfLaplaceInAComposition) {
  // PLD answers (Laplace and Gaussian), so the value is within its search's tolerance.
  ExpectSafeAndTight(
      R"({"composed":[{"self_composed":{"count":50,"event":{"laplace":{"noise_multiplier":"?"}}}},
                         {"gaussian":{"noise_multiplier":20}}]})",
      0.8, 1e-5, false, /*nudge=*/1e-4);
}

TEST(Calibrate, NoiseMultiplierOfSubsampledRunsWherePldAnswers) {
  // The trainer's subsampled run (initial score by 2 Laplace releases, 300 sampled leaf-balanced
  // rounds) and 1e4 sampled Gaussians: the search's aimed pairs (calibrate.cc, Land) must leave
  // the value safe and within the PLD search's tolerance. In the second the half-size grid equals
  // the probes' grid, so the first pair misses and the second one brackets.
  ExpectSafeAndTight(
      R"({"composed":[{"self_composed":{"count":2,"event":{"laplace":{"noise_multiplier":200}}}},
          {"self_composed":{"count":300,"event":{"poisson_sampled":{"sampling_probability":0.1,
            "event":{"leaf_balanced_gaussian":{"noise_multiplier":"?","weights":[0.2,0.8]}}}}}}]})",
      0.1, 1e-4, /*increasing=*/false, /*nudge=*/1e-4);
  ExpectSafeAndTight(
      R"({"self_composed":{"count":10000,"event":{"poisson_sampled":{"sampling_probability":0.01,
            "event":{"gaussian":{"noise_multiplier":"?"}}}}}})",
      1.0, 1e-5, /*increasing=*/false, /*nudge=*/1e-4);
}

TEST(Calibrate, SubsampledTrainerRunSpendsItsBudgetToWithin2e5) {
  // Where the reported grid's safe probe already lies within 1e-5 of the target, the search ends
  // without its pair's second probe (calibrate.cc, Tight); a safe probe further below aims the
  // next pair itself (Far), and at 2000 rounds and δ = 1e-4 the probes' grid is already the
  // coarser one. The ε returned is still the target's to within the search's tolerance times the
  // slope (about 1 here), at each of the trainer's ε, both round counts of the auto rule and the
  // δ of its sets.
  for (const int rounds : {300, 2000}) {
    for (const double delta : {1e-3, 1e-4, 1e-5}) {
      for (const double target : {0.1, 0.5, 1.0}) {
        const auto solved = CalibrateJson(
            json::parse(
                R"({"composed":[{"self_composed":{"count":2,"event":{"laplace":{"noise_multiplier":)" +
                std::to_string(20 / target) + R"(}}}},{"self_composed":{"count":)" +
                std::to_string(rounds) + R"(,"event":{"poisson_sampled":{
                "sampling_probability":0.1,"event":{"leaf_balanced_gaussian":{"noise_multiplier":"?",
                "weights":[0.2,0.8],"sensitivity_ratios":[1,0.5]}}}}}}]})"),
            target, delta);
        const std::string where = std::to_string(rounds) + " rounds, delta " +
                                  std::to_string(delta) + ", epsilon " + std::to_string(target);
        EXPECT_LE(solved.result.epsilon, target) << where;
        EXPECT_GE(solved.result.epsilon, target * (1 - 2e-5)) << where;
        EXPECT_EQ(solved.result.accountant, Accountant::kPld) << where;
      }
    }
  }
}

TEST(Calibrate, EpsilonOfExponentialAndPureDp) {
  ExpectSafeAndTight(R"({"self_composed":{"count":100,"event":{"exponential":{"epsilon":"?"}}}})",
                     1.0, 1e-6, /*increasing=*/true);
  ExpectSafeAndTight(R"({"self_composed":{"count":10,"event":{"pure_dp":{"epsilon":"?"}}}})", 2.0,
                     1e-6, true, /*nudge=*/1e-4);
}

TEST(Calibrate, CountIsTheLargestWholeNumberMeetingTheTarget) {
  const auto solved = CalibrateJson(
      json::parse(
          R"({"self_composed":{"count":"?","event":{"gaussian":{"noise_multiplier":30}}}})"),
      1.0, 1e-6);
  const auto n = static_cast<std::uint64_t>(solved.result.value);
  EXPECT_EQ(solved.result.parameter, "count");
  EXPECT_LE(Epsilon(SelfComposedEvent(n, GaussianEvent(30)), 1e-6).epsilon, 1.0);
  EXPECT_GT(Epsilon(SelfComposedEvent(n + 1, GaussianEvent(30)), 1e-6).epsilon, 1.0);
  EXPECT_EQ(solved.event["self_composed"]["count"], n);
}

// Under kBest PLD answers the probes of a "?" count, but the bracket can probe counts past PLD's
// total (1e12): RDP answers those, as kBest would, instead of the solve failing with PLD's
// refusal of the event.
TEST(Calibrate, CountProbesPastPldsLimitAreAnsweredNotRefused) {
  for (const char* text : {
           R"({"self_composed":{"count":"?","event":{"poisson_sampled":{"sampling_probability":)"
           R"(0.001,"event":{"gaussian":{"noise_multiplier":50}}}}}})",
           R"({"self_composed":{"count":"?","event":{"laplace":{"noise_multiplier":1e6}}}})",
       }) {
    const auto solved = CalibrateJson(json::parse(text), 1.0, 1e-5);
    const Event event = Event::FromJson(solved.event);
    EXPECT_LE(Epsilon(event, 1e-5).epsilon, 1.0) << text;
    EXPECT_GT(solved.result.value, 1e8) << text;
  }
}

TEST(Calibrate, GenericProblemThroughTheCppApi) {
  CalibrationProblem problem;
  problem.parameter = "noise_multiplier";
  problem.make_event = [](double sigma) { return SelfComposedEvent(500, GaussianEvent(sigma)); };
  problem.lower = 0;
  problem.upper = 1e6;
  const CalibrationResult r = Calibrate(problem, 2.0, 1e-6);
  EXPECT_LE(r.epsilon, 2.0);
  EXPECT_GT(Epsilon(problem.make_event(r.value * (1 - 1e-6)), 1e-6).epsilon, 2.0);
}

TEST(Calibrate, ImpossibleTargetIsAClearError) {
  // The fixed Laplace part alone spends more than the target.
  EXPECT_THAT(
      [] {
        (void)CalibrateJson(json::parse(R"({"composed":[{"laplace":{"noise_multiplier":0.1}},
                                   {"gaussian":{"noise_multiplier":"?"}}]})"),
                            1.0, 1e-6);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("noise_multiplier")));
  // Even one run is too many.
  EXPECT_THAT(
      [] {
        (void)CalibrateJson(
            json::parse(
                R"({"self_composed":{"count":"?","event":{"gaussian":{"noise_multiplier":0.1}}}})"),
            1.0, 1e-6);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("count")));
  // The C++ API reports the same as a NumericalError (no value of the domain meets the target).
  CalibrationProblem problem;
  problem.parameter = "noise_multiplier";
  problem.make_event = [](double sigma) {
    return ComposedEvent({LaplaceEvent(0.1), GaussianEvent(sigma)});
  };
  problem.upper = 1e15;
  EXPECT_THAT([&] { (void)Calibrate(problem, 1.0, 1e-6); },
              ThrowsMessage<NumericalError>(HasSubstr("meets epsilon")));
}

// Issue 11, item 9: an unreachable target fails at once for every field that can be calibrated,
// naming the field's JSON path; it never returns a value that answers nothing (q = 0 took 50 s
// and returned 0.0). Each case costs a handful of evaluations (the safe end is tested first).
TEST(Calibrate, UnreachableTargetFailsFastForEveryField) {
  const char* rest = R"({"laplace":{"noise_multiplier":1}})";  // ε = 1 already
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"gaussian":{"noise_multiplier":"?"}})", "gaussian.noise_multiplier"},
      {R"({"self_composed":{"count":"?","event":{"gaussian":{"noise_multiplier":1}}}})",
       "self_composed.count"},
      {R"({"poisson_sampled":{"sampling_probability":"?","event":{"gaussian":{"noise_multiplier":1}}}})",
       "poisson_sampled.sampling_probability"},
      {R"({"exponential":{"epsilon":"?"}})", "exponential.epsilon"},
      {R"({"pure_dp":{"epsilon":"?"}})", "pure_dp.epsilon"},
      {R"({"zcdp":{"rho":"?"}})", "zcdp.rho"},
  };
  for (const auto& [text, field] : cases) {
    // The rest of the event spends more than the target.
    const json with_rest = json::parse(std::string(R"({"composed":[)") + rest + "," + text + "]}");
    EXPECT_THAT([&] { (void)CalibrateJson(with_rest, 0.5, 1e-5); },
                ThrowsMessage<InvalidArgument>(AllOf(HasSubstr("composed[1]"), HasSubstr(field),
                                                     HasSubstr("meets epsilon = 0.5"))))
        << text;
  }
}

// A field that cannot make its event free: one run of a Gaussian at σ = 1 spends too much, and a
// sampled Gaussian cannot be certified below ε ≈ 0.0024 at δ = 1e-5 however small q is (its curve
// at high orders is ≈ αc + log q). Returning q = 0 ("sample nothing") is not an answer.
TEST(Calibrate, TargetsMetOnlyByAnEmptyAnswerAreUnreachable) {
  EXPECT_THAT(
      [] {
        (void)CalibrateJson(
            json::parse(
                R"({"self_composed":{"count":"?","event":{"gaussian":{"noise_multiplier":1}}}})"),
            1e-3, 1e-5);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("self_composed.count")));
  EXPECT_THAT(
      [] {
        // Under RDP no q > 0 reaches ε = 1e-6 at δ = 1e-5. (PLD does: a q below ~2.5e-5 is
        // (0, 1e-5)-DP, so `best` finds one; pld_test.cc.)
        ConversionOptions rdp;
        rdp.accountant = Accountant::kRdp;
        (void)CalibrateJson(json::parse(R"({"poisson_sampled":{"sampling_probability":"?",
                                   "event":{"gaussian":{"noise_multiplier":1}}}})"),
                            1e-6, 1e-5, rdp);
      },
      ThrowsMessage<InvalidArgument>(
          AllOf(HasSubstr("poisson_sampled.sampling_probability"), HasSubstr("(0, 1]"))));
}

// Issue 11, item 3: calibrating a large exponential ε used to fail (the double curve underflowed).
TEST(Calibrate, LargeExponentialEpsilon) {
  for (double target : {800.0, 1000.0}) {
    ExpectSafeAndTight(R"({"exponential":{"epsilon":"?"}})", target, 1e-5, /*increasing=*/true);
  }
}

// Issue 11, item 10: a count that is not exactly a double (2^53 + 1) is refused, not read as 2^53
// and echoed back as given; 2^53 itself is accepted.
TEST(Calibrate, CountsBeyondTwoToThe53AreRefused) {
  const std::string big = "9007199254740993";  // 2^53 + 1
  EXPECT_THAT(
      [&] {
        (void)Event::FromJson(json::parse(R"({"self_composed":{"count":)" + big +
                                          R"(,"event":{"gaussian":{"noise_multiplier":1e9}}}})"));
      },
      ThrowsMessage<InvalidArgument>(
          AllOf(HasSubstr("self_composed.count"), HasSubstr(big), HasSubstr("2^53"))));
  EXPECT_THAT(
      [&] {
        (void)CalibrateJson(json::parse(R"({"composed":[{"self_composed":{"count":)" + big +
                                        R"(,"event":{"gaussian":{"noise_multiplier":1e9}}}},
                           {"gaussian":{"noise_multiplier":"?"}}]})"),
                            1.0, 1e-5);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr(big)));
  const Event max = Event::FromJson(json::parse(
      R"({"self_composed":{"count":9007199254740992,"event":{"gaussian":{"noise_multiplier":1}}}})"));
  EXPECT_EQ(max.get_if<SelfComposedEvent>()->count(), std::uint64_t{1} << 53);
}

TEST(Calibrate, PlaceholderErrors) {
  EXPECT_THAT(
      [] {
        (void)CalibrateJson(json::parse(R"({"composed":[{"gaussian":{"noise_multiplier":"?"}},
                                   {"laplace":{"noise_multiplier":"?"}}]})"),
                            1.0, 1e-6);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("exactly one")));
  EXPECT_THAT(
      [] { (void)CalibrateJson(json::parse(R"({"gaussian":{"noise_multiplier":1}})"), 1.0, 1e-6); },
      ThrowsMessage<InvalidArgument>(HasSubstr("found none")));
  EXPECT_THAT(
      [] {
        (void)CalibrateJson(
            json::parse(R"({"leaf_balanced_gaussian":{"noise_multiplier":1,"weights":["?",0.5]}})"),
            1.0, 1e-6);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("weights")));
  EXPECT_THAT(
      [] {
        (void)CalibrateJson(json::parse(R"({"gaussian":{"noise_multiplier":"?"}})"), -1.0, 1e-6);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("epsilon")));
  EXPECT_THAT(
      [] {
        (void)CalibrateJson(json::parse(R"({"gaussian":{"noise_multiplier":"?"}})"), 1.0, 0.0);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("delta")));
  // A filter's curve does not depend on its event: no answer, not the edge of the range.
  EXPECT_THAT(
      [] {
        (void)CalibrateJson(json::parse(R"({"renyi_filter":{"order":13,"budget":0.5,)"
                                        R"("max_rounds":30,"event":{"gaussian":)"
                                        R"({"noise_multiplier":"?"}}}})"),
                            2.0, 1e-5);
      },
      ThrowsMessage<InvalidArgument>(
          HasSubstr("renyi_filter.event.gaussian.noise_multiplier: \"?\" inside a renyi_filter")));
}

}  // namespace
}  // namespace rdpkit::accountant
