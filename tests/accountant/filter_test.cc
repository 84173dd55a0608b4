// Individual Rényi filter (Feldman & Zrnic 2021, Alg. 3; S-BDT Alg. 1) and training-run
// calibration (S-BDT Alg. 6 generalised).
#include "rdpkit/accountant/filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "mp.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/individual.h"
#include "rdpkit/accountant/run_calibration.h"
#include "reference_cases.h"

namespace rdpkit::accountant {
namespace {

using ::rdpkit::testing::DivideRounded;
using ::rdpkit::testing::LoadReferenceCases;
using ::rdpkit::testing::Mp;
using ::rdpkit::testing::ReferenceCase;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// renyi_filter cases: one record whose per-round norm varies; its per-round individual RDP is a
// subsampled Gaussian with ratio norm/clip (rounded up: never under-charged); the budget is
// T_budget worst-case rounds. The admitted rounds must be exactly the reference's.
class FilterReference : public ::testing::TestWithParam<ReferenceCase> {};
TEST_P(FilterReference, AdmitsExactlyTheReferenceRounds) {
  const ReferenceCase& c = GetParam();
  const auto& p = c.params;
  const double alpha = p.at("alpha");
  const double q = p.at("q");
  const double sigma = p.at("sigma");
  const double clip = p.at("clip_norm");
  const double worst =
      IndividualRdpCertified(LeafBalancedGaussianEvent(sigma, {1.0}), q, alpha).upper;
  const double budget = p.at("T_budget").get<double>() * worst;
  IndividualRenyiFilter filter(alpha, budget, 1);
  std::vector<int> admitted_rounds;
  std::vector<std::uint8_t> admitted;
  const std::vector<double> norms = p.at("individual_norms");
  for (std::size_t t = 0; t < norms.size(); ++t) {
    const double ratio = std::min(1.0, DivideRounded(norms[t], clip, /*round_up=*/true));
    const double loss =
        IndividualRdpCertified(LeafBalancedGaussianEvent(sigma, {1.0}, {ratio}), q, alpha).upper;
    if (filter.ChargeRound({loss}, &admitted) == 1) admitted_rounds.push_back(static_cast<int>(t));
    ASSERT_LE(filter.Spent(0), filter.budget());
  }
  EXPECT_EQ(static_cast<double>(admitted_rounds.size()), c.expected) << c.id;
  EXPECT_EQ(admitted_rounds,
            c.raw.at("expected_detail").at("admitted_rounds").get<std::vector<int>>())
      << c.id;
}
INSTANTIATE_TEST_SUITE_P(Reference, FilterReference,
                         ::testing::ValuesIn(LoadReferenceCases("renyi_filter")),
                         [](const auto& p) { return CaseName(p.param); });

// Constructed example with exactly representable losses: records stop exactly at the round
// where their budget runs out, sit out rounds they cannot afford, and take cheaper ones later.
TEST(IndividualRenyiFilter, RecordsStopExactlyWhenTheBudgetRunsOut) {
  IndividualRenyiFilter filter(/*order=*/8, /*budget=*/1.0, 3);
  std::vector<std::uint8_t> admitted;
  // Record 0 costs 0.25 a round: exactly 4 rounds. Record 1 costs 0.375: 2 rounds (0.75), then
  // refused (1.125 > 1). Record 2 costs 0: always admitted.
  for (int round = 1; round <= 6; ++round) {
    const std::size_t n = filter.ChargeRound({0.25, 0.375, 0.0}, &admitted);
    EXPECT_EQ(admitted[0], round <= 4 ? 1 : 0) << round;
    EXPECT_EQ(admitted[1], round <= 2 ? 1 : 0) << round;
    EXPECT_EQ(admitted[2], 1);
    EXPECT_EQ(n, static_cast<std::size_t>((round <= 4) + (round <= 2) + 1));
  }
  EXPECT_EQ(filter.Spent(0), 1.0);
  EXPECT_FALSE(filter.Active(0));
  EXPECT_EQ(filter.Remaining(1), 0.25);
  EXPECT_TRUE(filter.Active(1));
  // A cheaper round is still admitted for record 1 and fills its budget exactly.
  filter.ChargeRound({0.25, 0.25, 0.0}, &admitted);
  EXPECT_EQ(admitted[0], 0);
  EXPECT_EQ(admitted[1], 1);
  EXPECT_EQ(filter.Spent(1), 1.0);
  EXPECT_EQ(filter.NumActive(), 1u);
  EXPECT_EQ(filter.rounds(), 7u);
  // Invalid losses are never charged.
  filter.ChargeRound({std::nan(""), -1.0, std::numeric_limits<double>::infinity()}, &admitted);
  EXPECT_EQ(admitted, (std::vector<std::uint8_t>{0, 0, 0}));
}

// Sums are rounded up: 0.1 + 0.1 + 0.1 exceeds 0.3 in exact arithmetic of the doubles, so the
// third charge is refused; and over random losses the exact sum of charges never exceeds the
// budget (checked at 300 bits).
TEST(IndividualRenyiFilter, NeverLetsARecordExceedItsBudget) {
  IndividualRenyiFilter small(2, 0.3, 1);
  std::vector<std::uint8_t> admitted;
  EXPECT_EQ(small.ChargeRound({0.1}, &admitted), 1u);
  EXPECT_EQ(small.ChargeRound({0.1}, &admitted), 1u);
  // 0.1 (double) = 0.1000000000000000055…, three of them exceed 0.3 (double) = 0.29999…99889.
  EXPECT_EQ(small.ChargeRound({0.1}, &admitted), 0u);

  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 0.3);
  const std::size_t n = 50;
  IndividualRenyiFilter filter(4, 2.0, n);
  std::vector<Mp> exact(n, Mp(0.0));
  for (int round = 0; round < 200; ++round) {
    std::vector<double> losses(n);
    for (double& l : losses) l = unit(rng);
    filter.ChargeRound(losses, &admitted);
    for (std::size_t i = 0; i < n; ++i) {
      if (admitted[i]) exact[i] = exact[i] + Mp(losses[i]);
      ASSERT_FALSE(Mp(2.0) < exact[i]) << "record " << i << " round " << round;
      ASSERT_FALSE(Mp(filter.Spent(i)) < exact[i]);  // recorded spend ≥ exact spend
    }
  }
}

TEST(IndividualRenyiFilter, StateSurvivesSaveAndRestore) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 0.2);
  IndividualRenyiFilter filter(16, 1.5, 20);
  std::vector<std::uint8_t> admitted;
  for (int round = 0; round < 7; ++round) {
    std::vector<double> losses(20);
    for (double& l : losses) l = unit(rng);
    filter.ChargeRound(losses, &admitted);
  }
  const std::string saved = filter.ToJson().dump();
  IndividualRenyiFilter restored = IndividualRenyiFilter::FromJson(nlohmann::json::parse(saved));
  EXPECT_EQ(restored.order(), filter.order());
  EXPECT_EQ(restored.budget(), filter.budget());
  EXPECT_EQ(restored.rounds(), filter.rounds());
  ASSERT_EQ(restored.size(), filter.size());
  for (std::size_t i = 0; i < filter.size(); ++i) EXPECT_EQ(restored.Spent(i), filter.Spent(i));
  // A stream continues: new records join both, and both admit the same records from now on.
  filter.AddRecords(5);
  restored.AddRecords(5);
  std::vector<std::uint8_t> admitted_restored;
  for (int round = 0; round < 20; ++round) {
    std::vector<double> losses(25);
    for (double& l : losses) l = unit(rng);
    filter.ChargeRound(losses, &admitted);
    restored.ChargeRound(losses, &admitted_restored);
    ASSERT_EQ(admitted, admitted_restored) << round;
  }
  EXPECT_EQ(restored.ToJson(), filter.ToJson());
}

TEST(IndividualRenyiFilter, RejectsInvalidStateAndArguments) {
  EXPECT_THAT([] { IndividualRenyiFilter(1.0, 1.0); },
              ThrowsMessage<InvalidArgument>(HasSubstr("order")));
  EXPECT_THAT([] { IndividualRenyiFilter(2.0, -1.0); },
              ThrowsMessage<InvalidArgument>(HasSubstr("budget")));
  nlohmann::json good = IndividualRenyiFilter(2.0, 1.0, 2).ToJson();
  nlohmann::json extra = good;
  extra["colour"] = "red";
  EXPECT_THAT([&] { (void)IndividualRenyiFilter::FromJson(extra); },
              ThrowsMessage<InvalidArgument>(HasSubstr("colour")));
  nlohmann::json over = good;
  over["spent"][1] = 1.5;
  EXPECT_THAT([&] { (void)IndividualRenyiFilter::FromJson(over); },
              ThrowsMessage<InvalidArgument>(HasSubstr("spent[1]")));
  nlohmann::json format = good;
  format["format"] = "something-else";
  EXPECT_THAT([&] { (void)IndividualRenyiFilter::FromJson(format); },
              ThrowsMessage<InvalidArgument>(HasSubstr("format")));
  IndividualRenyiFilter filter(2.0, 1.0, 2);
  std::vector<std::uint8_t> admitted;
  EXPECT_THAT([&] { filter.ChargeRound({0.1}, &admitted); },
              ThrowsMessage<InvalidArgument>(HasSubstr("losses")));
}

// Charging through the table admits exactly what charging the table's losses does.
TEST(IndividualRenyiFilter, TableChargingMatchesExplicitLosses) {
  const IndividualRdpTable table(1.1, {0.4, 0.6}, 0.05, 6, 128);
  const std::size_t n = 100;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  IndividualRenyiFilter by_table(6, 40 * table.WorstCase(), n);
  IndividualRenyiFilter by_losses(6, 40 * table.WorstCase(), n);
  std::vector<std::uint8_t> a, b;
  for (int round = 0; round < 80; ++round) {
    std::vector<double> ratios(2 * n);
    for (double& r : ratios) r = unit(rng);
    std::vector<double> losses(n);
    for (std::size_t i = 0; i < n; ++i) losses[i] = table.Loss(&ratios[2 * i]);
    EXPECT_EQ(by_table.ChargeRound(table, ratios, &a), by_losses.ChargeRound(losses, &b));
    ASSERT_EQ(a, b);
  }
  // A worst-case record is admitted exactly 40 times when the budget leaves room for the upward
  // rounding of 40 sums (as CalibrateTrainingRun's budget does; a bare 40·cost may refuse the
  // 40th round, on the safe side).
  IndividualRenyiFilter worst(6, 40 * table.WorstCase() * (1 + 1e-12), 1);
  int count = 0;
  for (int round = 0; round < 45; ++round)
    count += static_cast<int>(worst.ChargeRound(table, {1.0, 1.0}, &a));
  EXPECT_EQ(count, 40);
}

// ------------------------------------------------------------------------------------------
// Training-run calibration.

TEST(CalibrateTrainingRun, SolvesNoiseOrderAndBudgetCertified) {
  TrainingRunProblem problem;
  problem.epsilon = 1.0;
  problem.delta = 1e-6;
  problem.rounds = 50;
  problem.sampling_probability = 0.1;
  problem.leaf_noise_weights = {0.5, 0.5};
  problem.extra_events = {LaplaceEvent(20.0)};
  const TrainingRunCalibration run = CalibrateTrainingRun(problem);
  EXPECT_LE(run.epsilon, problem.epsilon);
  EXPECT_GT(run.epsilon, problem.epsilon * (1 - 1e-6));  // tight: the target is met, not wasted
  EXPECT_EQ(std::floor(run.order), run.order);           // integer order (as S-BDT Alg. 6)
  EXPECT_GE(run.budget, 50 * run.round_rdp);
  // The run's event at the chosen order is within the reported ε.
  ConversionOptions at_order;
  at_order.orders = {run.order};
  EXPECT_LE(Epsilon(run.event, problem.delta, at_order).epsilon, run.epsilon);
  // Less noise would exceed the target at every order.
  TrainingRunProblem less = problem;
  const Event tighter = ComposedEvent(
      {SelfComposedEvent(
           50, PoissonSampledEvent(
                   0.1, LeafBalancedGaussianEvent(run.noise_multiplier * (1 - 1e-6), {0.5, 0.5}))),
       LaplaceEvent(20.0)});
  ConversionOptions integers;  // RDP: the accountant the filter's run is calibrated with
  integers.accountant = Accountant::kRdp;
  for (int a = 2; a <= 256; ++a) integers.orders.push_back(a);
  EXPECT_GT(Epsilon(tighter, problem.delta, integers).epsilon, problem.epsilon);
  // The filter with the per-record table admits a worst-case record exactly `rounds` times.
  const IndividualRdpTable table(run.noise_multiplier, {0.5, 0.5}, 0.1, run.order, 64);
  IndividualRenyiFilter filter(run.order, run.budget, 2);
  std::vector<std::uint8_t> admitted;
  int worst_rounds = 0;
  int light_rounds = 0;
  for (int round = 0; round < 60; ++round) {
    filter.ChargeRound(table, {1.0, 1.0, 0.3, 0.3}, &admitted);
    worst_rounds += admitted[0];
    light_rounds += admitted[1];
  }
  EXPECT_EQ(worst_rounds, 50);
  EXPECT_EQ(light_rounds, 60);  // a record with small gradients keeps training (S-BDT §6.6)
}

TEST(CalibrateTrainingRun, RejectsImpossibleTargetsAndBadProblems) {
  TrainingRunProblem problem;
  problem.epsilon = 0.01;
  problem.extra_events = {LaplaceEvent(1.0)};  // ε = 1 already
  EXPECT_THROW((void)CalibrateTrainingRun(problem), NumericalError);
  TrainingRunProblem bad;
  bad.sampling_probability = 0;
  EXPECT_THAT([&] { (void)CalibrateTrainingRun(bad); },
              ThrowsMessage<InvalidArgument>(HasSubstr("sampling_probability")));
}

}  // namespace
}  // namespace rdpkit::accountant
