#include "rdpkit/trees/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Metrics are a few additions and one division: allow a few ulps.
constexpr double kTolerance = 1e-15;

TEST(Auc, MatchesHandCountedPairs) {
  // Pairs (positive, negative): 0.35>0.1 yes, 0.35>0.4 no, 0.8>0.1 yes, 0.8>0.4 yes → 3/4.
  EXPECT_EQ(Auc({0.1, 0.4, 0.35, 0.8}, {0, 0, 1, 1}), 0.75);
  EXPECT_EQ(Auc({0.1, 0.2, 0.3}, {0, 1, 1}), 1.0);
  EXPECT_EQ(Auc({0.3, 0.2, 0.1}, {0, 1, 1}), 0.0);
}

TEST(Auc, TiesCountHalf) {
  // Positive 0.5 vs the negatives 0.5, 0.5: two ties (1/2 each); positive 0.9 beats both → 3/4.
  EXPECT_EQ(Auc({0.5, 0.5, 0.5, 0.9}, {0, 1, 0, 1}), 0.75);
  EXPECT_EQ(Auc({0.7, 0.7, 0.7, 0.7}, {0, 1, 0, 1}), 0.5);
  // Positive 0.2 ties negative 0.2 (1/2), beats 0.1 (1); positive 0.3 beats both (2) → 3.5/4.
  EXPECT_EQ(Auc({0.2, 0.1, 0.2, 0.3}, {1, 0, 0, 1}), 0.875);
}

TEST(Auc, NeedsBothClassesAndMatchingSizes) {
  EXPECT_THAT(
      [] {
        (void)Auc({0.1, 0.2}, {1, 1});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("both classes")));
  EXPECT_THAT(
      [] {
        (void)Auc({0.1, 0.2}, {1});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("labels")));
  EXPECT_THAT([] { (void)Auc({}, {}); }, ThrowsMessage<InvalidArgument>(HasSubstr("labels")));
  EXPECT_THAT(
      [] {
        (void)Auc({0.1, 0.2}, {0, 2});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("labels[1] = 2")));
  EXPECT_THAT(
      [] {
        (void)Auc({0.1, std::nan("")}, {0, 1});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("predictions[1]")));
}

TEST(Accuracy, ThresholdsAtOneHalf) {
  // 0.5 → class 1 (right), 0.49 → 0 (wrong), 0.9 → 1 (right), 0.1 → 0 (right).
  EXPECT_EQ(Accuracy({0.5, 0.49, 0.9, 0.1}, {1, 1, 1, 0}), 0.75);
  EXPECT_EQ(Accuracy({0.2}, {1}), 0.0);
}

TEST(LogLoss, MatchesHandComputedValue) {
  // −(log 0.9 + log 0.8)/2.
  EXPECT_NEAR(LogLoss({0.9, 0.2}, {1, 0}), (-std::log(0.9) - std::log(0.8)) / 2, kTolerance);
  EXPECT_NEAR(LogLoss({0.9, 0.2}, {1, 0}), 0.16425203348601806, kTolerance);
}

TEST(LogLoss, ClipsProbabilitiesAwayFromZeroAndOne) {
  // p = 0 for a positive costs −log(1e-15) = 34.538776394910684, not ∞.
  EXPECT_NEAR(LogLoss({0.0}, {1}), 34.538776394910684, 1e-12);
  // p = 1 for a negative: 1 − 1e-15 rounds to the double 1 − 9.992007221626409e-16, so the cost
  // is −log(9.992007221626409e-16) = 34.53957599234088.
  EXPECT_NEAR(LogLoss({1.0}, {0}), 34.53957599234088, 1e-12);
  const double perfect = LogLoss({1.0, 0.0}, {1, 0});
  EXPECT_GT(perfect, 0);
  EXPECT_LT(perfect, 2e-15);
}

TEST(Rmse, MatchesHandComputedValue) {
  // Errors 0, 2, −3: sqrt(13/3).
  EXPECT_NEAR(Rmse({1, 2, 3}, {1, 0, 6}), std::sqrt(13.0 / 3.0), kTolerance);
  EXPECT_NEAR(Rmse({1, 2, 3}, {1, 0, 6}), 2.0816659994661326, kTolerance);
  EXPECT_EQ(Rmse({1.5}, {1.5}), 0);
}

TEST(Mae, MatchesHandComputedValue) {
  EXPECT_NEAR(Mae({1, 2, 3}, {1, 0, 6}), 5.0 / 3.0, kTolerance);
  EXPECT_THAT([] { (void)Mae({1}, {INFINITY}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("labels[0]")));
}

// Errors near the ends of the double range: the squares neither overflow nor underflow, and the
// RMSE is never below the MAE (both gave rmse = inf and rmse = 0 < mae on a user's labels).
TEST(Rmse, ErrorsAtTheEndsOfTheDoubleRangeKeepTheirSize) {
  EXPECT_DOUBLE_EQ(Rmse({0, 0, 0, 0}, {-1e160, 1e160, -1e160, 1e160}), 1e160);
  EXPECT_DOUBLE_EQ(Mae({0, 0, 0, 0}, {-1e160, 1e160, -1e160, 1e160}), 1e160);
  // Differences of 1.6e308 in both directions: the mean of |e| is finite, as is the RMSE.
  EXPECT_DOUBLE_EQ(Mae({-8e307, 8e307}, {8e307, -8e307}), 1.6e308);
  EXPECT_DOUBLE_EQ(Rmse({-8e307, 8e307}, {8e307, -8e307}), 1.6e308);
  const double rmse = Rmse({1.5e-320, 1.5e-320}, {1e-320, 2e-320});
  const double mae = Mae({1.5e-320, 1.5e-320}, {1e-320, 2e-320});
  EXPECT_GT(mae, 0);
  EXPECT_GE(rmse, mae);
}

}  // namespace
}  // namespace rdpkit::trees
