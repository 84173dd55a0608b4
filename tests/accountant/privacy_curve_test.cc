// The privacy curve (privacy_curve.h): its step grid and its points against Epsilon.
#include "rdpkit/accountant/privacy_curve.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(CurveSteps, SpansOneToStepsOnALogScale) {
  EXPECT_THAT(CurveSteps(100, 3), ElementsAre(1u, 10u, 100u));
  EXPECT_THAT(CurveSteps(1, 5), ElementsAre(1u));
  EXPECT_THAT(CurveSteps(3, 30), ElementsAre(1u, 2u, 3u));  // distinct: fewer than asked
  const auto steps = CurveSteps(3516, 30);
  EXPECT_EQ(steps.front(), 1u);
  EXPECT_EQ(steps.back(), 3516u);
  EXPECT_LE(steps.size(), 30u);
  EXPECT_TRUE(std::is_sorted(steps.begin(), steps.end()));
  EXPECT_EQ(std::adjacent_find(steps.begin(), steps.end()), steps.end());
}

TEST(CurveSteps, RefusesOutOfRangeArguments) {
  EXPECT_THAT([] { (void)CurveSteps(0, 5); },
              ThrowsMessage<InvalidArgument>(HasSubstr("steps = 0 is outside [1, 2^53]")));
  EXPECT_THAT([] { (void)CurveSteps(10, 1); },
              ThrowsMessage<InvalidArgument>(HasSubstr("points = 1 is outside [2, 1000]")));
}

TEST(PrivacyCurve, EachPointIsTheEpsilonOfThatComposition) {
  const Event step = PoissonSampledEvent(0.01, GaussianEvent(1.1));
  const auto curve = PrivacyCurve(step, 1000, 1e-5, 4);
  ASSERT_EQ(curve.size(), 4u);
  for (const auto& point : curve) {
    const EpsilonResult direct = Epsilon(SelfComposedEvent(point.steps, step), 1e-5);
    EXPECT_EQ(point.epsilon.epsilon, direct.epsilon) << point.steps;
  }
  for (std::size_t i = 1; i < curve.size(); ++i) {
    EXPECT_LT(curve[i - 1].epsilon.epsilon, curve[i].epsilon.epsilon);
  }
  // A self_composed event and no steps: the same curve.
  const auto same = PrivacyCurve(SelfComposedEvent(1000, step), 0, 1e-5, 4);
  ASSERT_EQ(same.size(), curve.size());
  EXPECT_EQ(same.back().epsilon.epsilon, curve.back().epsilon.epsilon);
  EXPECT_THAT([&] { (void)PrivacyCurve(step, 0, 1e-5, 4); },
              ThrowsMessage<InvalidArgument>(HasSubstr("steps: missing")));
}

}  // namespace
}  // namespace rdpkit::accountant
