// The renyi_filter event (Feldman & Zrnic 2021, Thm 4.5): an (order, budget)-RDP guarantee and
// nothing at other orders. A filtered training run is stored as this event, so that
// `rdpkit epsilon --event <privacy.event>` gives back exactly the recorded ε (issue 11, point 2).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/run_calibration.h"

namespace rdpkit::accountant {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr double kInf = std::numeric_limits<double>::infinity();

Event Round(double sigma) { return PoissonSampledEvent(0.1, GaussianEvent(sigma)); }

TEST(RenyiFilterEvent, JsonRoundTripsAndNamesBadFields) {
  const json text = {
      {"renyi_filter",
       {{"order", 12.0}, {"budget", 0.75}, {"max_rounds", 30}, {"event", Round(5.0).ToJson()}}}};
  const Event event = Event::FromJson(text);
  EXPECT_EQ(event.ToJson(), text);
  const auto* filter = event.get_if<RenyiFilterEvent>();
  ASSERT_NE(filter, nullptr);
  EXPECT_EQ(filter->order(), 12.0);
  EXPECT_EQ(filter->budget(), 0.75);
  EXPECT_EQ(filter->max_rounds(), 30u);

  const auto with = [&](const char* key, json value) {
    json changed = text;
    changed["renyi_filter"][key] = std::move(value);
    return changed;
  };
  EXPECT_THAT([&] { (void)Event::FromJson(with("order", 1.0)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("renyi_filter.order = 1 is outside")));
  EXPECT_THAT([&] { (void)Event::FromJson(with("order", 2e5)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("(1, 1e5]")));
  EXPECT_THAT([&] { (void)Event::FromJson(with("budget", -0.1)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("renyi_filter.budget = -0.1")));
  EXPECT_THAT([&] { (void)Event::FromJson(with("max_rounds", 0)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("renyi_filter.max_rounds")));
  EXPECT_THAT([&] { (void)Event::FromJson(with("max_rounds", 2.5)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("renyi_filter.max_rounds")));
  EXPECT_THAT([&] { (void)Event::FromJson(with("extra", 1)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("unknown key")));
  // A filter inside a filter, or under Poisson sampling, has no curve this library can bound.
  EXPECT_THAT([&] { (void)Event::FromJson(with("event", text)); },
              ThrowsMessage<InvalidArgument>(HasSubstr("inside another renyi_filter")));
  EXPECT_THAT(
      [&] {
        (void)Event::FromJson(
            {{"poisson_sampled", {{"sampling_probability", 0.5}, {"event", text}}}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("cannot be Poisson-sampled")));
}

TEST(RenyiFilterEvent, CurveIsTheBudgetAtItsOrderAndInfiniteElsewhere) {
  const Event filter = RenyiFilterEvent(12, 0.75, 30, Round(5.0));
  EXPECT_EQ(RdpFast(filter, 12), 0.75);
  const Bound at = RdpCertified(filter, 12);
  EXPECT_EQ(at.lower, 0.75);
  EXPECT_EQ(at.upper, 0.75);
  for (const double order : {1.5, 11.0, 11.999999, 12.000001, 13.0, 1e5}) {
    EXPECT_EQ(RdpFast(filter, order), kInf) << order;
    EXPECT_EQ(RdpCertified(filter, order).upper, kInf) << order;
  }
  // Composition adds curves at the filter's order; self-composition multiplies.
  const Event both = ComposedEvent({filter, LaplaceEvent(20)});
  EXPECT_NEAR(RdpFast(both, 12), 0.75 + RdpFast(LaplaceEvent(20), 12), 1e-15);
  EXPECT_EQ(RdpFast(SelfComposedEvent(2, filter), 12), 1.5);
  EXPECT_EQ(FilterOrders(both), std::vector<double>{12});
  EXPECT_TRUE(FilterOrders(Round(5.0)).empty());
}

// Without orders, ε and δ are evaluated at the filter's order, and agree with the same RDP value
// converted there by a second route (a zCDP event ρ = budget/order at that single order).
TEST(RenyiFilterEvent, EpsilonAndDeltaAreEvaluatedAtTheFiltersOrder) {
  const double order = 12;
  const double budget = 0.75;
  const Event filter = RenyiFilterEvent(order, budget, 30, Round(5.0));
  const EpsilonResult eps = Epsilon(filter, 1e-6);
  EXPECT_EQ(eps.order, order);
  EXPECT_TRUE(eps.certified);
  ConversionOptions at_order;
  at_order.orders = {order};
  const EpsilonResult second = Epsilon(ZcdpEvent(budget / order), 1e-6, at_order);
  EXPECT_NEAR(eps.epsilon, second.epsilon, 1e-12 * second.epsilon);
  EXPECT_GE(eps.epsilon, EpsilonFromRdp(order, budget, 1e-6));  // certified ≥ double value
  EXPECT_LE(eps.epsilon, EpsilonFromRdp(order, budget, 1e-6) * (1 + 1e-12));
  const DeltaResult delta = Delta(filter, eps.epsilon);
  EXPECT_EQ(delta.order, order);
  EXPECT_NEAR(delta.delta, 1e-6, 1e-12);
  // Orders given by the user that miss the filter's order give no finite bound.
  ConversionOptions elsewhere;
  elsewhere.orders = {8, 16};
  EXPECT_EQ(Epsilon(filter, 1e-6, elsewhere).epsilon, kInf);
  // The fast path picks the same order.
  ConversionOptions fast;
  fast.certified = false;
  EXPECT_EQ(Epsilon(filter, 1e-6, fast).order, order);
}

// CalibrateTrainingRun stores the filtered run's event; its ε, recomputed from the event's JSON
// as `rdpkit epsilon` does, is exactly the calibrated one.
TEST(RenyiFilterEvent, TrainingRunEventGivesBackItsEpsilonExactly) {
  TrainingRunProblem problem;
  problem.epsilon = 1.0;
  problem.delta = 1e-5;
  problem.rounds = 20;
  problem.extra_rounds = 10;
  problem.sampling_probability = 0.5;
  problem.extra_events = {SelfComposedEvent(2, LaplaceEvent(40.0))};
  const TrainingRunCalibration run = CalibrateTrainingRun(problem);
  const json text = run.event.ToJson();
  const json& filter = text["composed"][0]["renyi_filter"];
  EXPECT_EQ(filter["max_rounds"], 30);
  EXPECT_EQ(filter["order"], run.order);
  EXPECT_EQ(filter["budget"], run.budget);
  const EpsilonResult again = Epsilon(Event::FromJson(json::parse(text.dump())), problem.delta);
  EXPECT_EQ(again.epsilon, run.epsilon);
  EXPECT_EQ(again.order, run.order);
  EXPECT_LE(again.epsilon, problem.epsilon);
  // Bad extra_rounds.
  TrainingRunProblem bad = problem;
  bad.extra_rounds = (std::uint64_t{1} << 53);
  EXPECT_THAT([&] { (void)CalibrateTrainingRun(bad); },
              ThrowsMessage<InvalidArgument>(HasSubstr("extra_rounds")));
}

}  // namespace
}  // namespace rdpkit::accountant
