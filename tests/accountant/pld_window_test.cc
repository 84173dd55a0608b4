// The PLD window's Chernoff search (docs/math/pld.md §5): its descent over λ finds the same
// window as trying every λ, on discrete PLDs of the shapes the accountant composes; and the grid
// step a composition plans.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "../../accountant/src/pld_internal.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/pld.h"

namespace rdpkit::accountant::internal {
namespace {

// A discrete PLD on the grid: an atom-like bump at `centre` (spread `width` grid steps) holding
// 1 − share of the mass, and a second bump at `far` holding `share` (the shape of a
// Poisson-subsampled pair: most mass near 0, a little at the full mechanism's losses).
SparsePld TwoBumps(std::int64_t centre, double width, std::int64_t far, double far_width,
                   double share) {
  SparsePld out;
  const auto add_bump = [&](std::int64_t at, double w, double mass, std::vector<double>& dense,
                            std::int64_t lo) {
    double total = 0;
    std::vector<double> shape;
    for (std::int64_t i = at - static_cast<std::int64_t>(6 * w) - 1;
         i <= at + static_cast<std::int64_t>(6 * w) + 1; ++i) {
      const double z = (static_cast<double>(i - at)) / w;
      shape.push_back(std::exp(-0.5 * z * z));
      total += shape.back();
    }
    const std::int64_t first = at - static_cast<std::int64_t>(6 * w) - 1;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      dense[static_cast<std::size_t>(first + static_cast<std::int64_t>(k) - lo)] +=
          mass * shape[k] / total;
    }
  };
  const std::int64_t lo = std::min(centre - static_cast<std::int64_t>(6 * width),
                                   far - static_cast<std::int64_t>(6 * far_width)) -
                          2;
  const std::int64_t hi = std::max(centre + static_cast<std::int64_t>(6 * width),
                                   far + static_cast<std::int64_t>(6 * far_width)) +
                          2;
  std::vector<double> dense(static_cast<std::size_t>(hi - lo + 1), 0.0);
  add_bump(centre, width, 1 - share, dense, lo);
  add_bump(far, far_width, share, dense, lo);
  for (std::size_t k = 0; k < dense.size(); ++k) {
    if (dense[k] > 0) {
      out.index.push_back(lo + static_cast<std::int64_t>(k));
      out.mass.push_back(dense[k]);
    }
  }
  return out;
}

TEST(PldWindow, DescentFindsTheWindowOfEveryLambda) {
  std::mt19937_64 rng(20261125);
  std::uniform_real_distribution<double> unit(0, 1);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const double h = std::ldexp(1.0, -static_cast<int>(4 + 12 * unit(rng)));
    std::vector<SparsePld> plds;
    std::vector<std::uint64_t> counts;
    const int factors = 1 + static_cast<int>(2 * unit(rng));
    for (int j = 0; j < factors; ++j) {
      const auto centre = static_cast<std::int64_t>(-20 + 40 * unit(rng));
      const double width = 0.5 + 50 * unit(rng) * unit(rng);
      const auto far = centre + static_cast<std::int64_t>(2000 * unit(rng) * unit(rng));
      const double far_width = 0.5 + 100 * unit(rng);
      const double share = std::pow(10.0, -6 * unit(rng));
      plds.push_back(TwoBumps(centre, width, far, far_width, share));
      counts.push_back(static_cast<std::uint64_t>(std::pow(10.0, 4 * unit(rng))));
    }
    const double tail = std::pow(10.0, -3 - 15 * unit(rng));
    const Window fast = ChernoffWindow(plds, counts, h, tail);
    const Window every = ChernoffWindow(plds, counts, h, tail, /*every_lambda=*/true);
    ASSERT_EQ(fast.top, every.top) << "trial " << trial;
    ASSERT_EQ(fast.bottom, every.bottom) << "trial " << trial;
    ASSERT_EQ(fast.lambda_top, every.lambda_top) << "trial " << trial;
    ++compared;
  }
  EXPECT_EQ(compared, 300);
}

// The trainer's subsampled run (bench/accountant_bench.cc, TrainerRunEvent) at σ.
Event TrainerRun(double epsilon, double sigma, std::uint64_t rounds) {
  const Event round = PoissonSampledEvent(0.1, LeafBalancedGaussianEvent(sigma, {0.2, 0.8}));
  return ComposedEvent(
      {SelfComposedEvent(2, LaplaceEvent(20.0 / epsilon)), SelfComposedEvent(rounds, round)});
}

// The planned grid steps (pld.md §5), which calibration compares between grids: powers of two,
// never coarser for more points, never coarser than the resolution rule's step unless 2^20 points
// do not reach it; at 300 rounds the 2^14-point probes' grid is 4 steps of the reported
// 2^16-point grid and the resolution step 16, while at 2000 rounds and δ = 1e-4 the resolution
// step is 2 and refines the probes' grid to the 2^15-point grid's step (calibrate_grids.cc).
TEST(PlanPldGrids, PowersOfTwoThatTheResolutionRuleRefines) {
  const PldOptions coarser{15, 20};
  const PldOptions reported{16, 20};
  std::vector<PldOptions> every;
  for (int points = 10; points <= 20; ++points) every.push_back(PldOptions{points, 20});
  for (const auto& [event, delta] : {std::pair{TrainerRun(1.0, 8.156, 300), 1e-4},
                                     std::pair{TrainerRun(0.5, 38.1336, 2000), 1e-4},
                                     std::pair{TrainerRun(1.0, 16.61, 2000), 1e-3}}) {
    const PldGridPlan plan = PlanPldGrids(event, delta, every);
    const std::vector<double>& steps = plan.steps;
    ASSERT_EQ(steps.size(), every.size());
    int exponent = 0;
    EXPECT_EQ(std::frexp(plan.resolution_step, &exponent), 0.5);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      EXPECT_EQ(std::frexp(steps[i], &exponent), 0.5) << i;
      if (i > 0) {
        EXPECT_LE(steps[i], steps[i - 1]) << i;
      }
      EXPECT_LE(steps[i], std::max(plan.resolution_step, steps.back())) << i;
      // One plan per call: the same step as asked alone.
      EXPECT_EQ(steps[i], PlanPldGrids(event, delta, {every[i]}).steps[0]) << i;
    }
  }
  const PldGridPlan short_run =
      PlanPldGrids(TrainerRun(1.0, 8.156, 300), 1e-4, {kPldProbeOptions, coarser, reported});
  EXPECT_EQ(short_run.steps[0], 4 * short_run.steps[2]);
  EXPECT_EQ(short_run.steps[1], 2 * short_run.steps[2]);
  EXPECT_EQ(short_run.resolution_step, 16 * short_run.steps[2]);
  const PldGridPlan long_run =
      PlanPldGrids(TrainerRun(0.5, 38.1336, 2000), 1e-4, {kPldProbeOptions, coarser, reported});
  EXPECT_EQ(long_run.steps[0], long_run.steps[1]);
  EXPECT_EQ(long_run.steps[1], 2 * long_run.steps[2]);
  EXPECT_EQ(long_run.resolution_step, 2 * long_run.steps[2]);
  EXPECT_THROW((void)PlanPldGrids(TrainerRun(0.5, 38.1336, 2000), 0, {reported}), InvalidArgument);
  EXPECT_THROW((void)PlanPldGrids(TrainerRun(0.5, 38.1336, 2000), 1e-4, {PldOptions{16, 12}}),
               InvalidArgument);
}

// A Gaussian of small noise multiplier (shift s = 1/σ ≥ 2.8) unsampled: its loss s·x − s²/2 was
// computed as log1p(expm1(·)), −∞ at the moments' left end, so the plan had no resolution step
// and composed on the finest grid (2^20 points, 150 MB, for 2 Gaussians of σ = 0.35 and one
// exponential selection). The moments are the Gaussian PLD's N(s²/2, s²), and the reported grid
// is the width rule's.
TEST(PlanPldGrids, SmallNoiseGaussiansPlanFromFiniteMoments) {
  for (const double sigma : {0.4, 0.35, 0.2, 0.05}) {
    const double s = 1 / sigma;
    const LossMoments m =
        GaussianMoments(PldFactor{PldMechanism::kGaussian, s, 1.0, 1}, PldDirection::kRemove);
    EXPECT_NEAR(m.mean, s * s / 2, 1e-6 * s * s) << sigma;
    EXPECT_NEAR(m.variance, s * s, 1e-6 * s * s) << sigma;
    EXPECT_TRUE(std::isfinite(m.range)) << sigma;
    const Event event =
        ComposedEvent({ExponentialEvent(0.1), SelfComposedEvent(2, GaussianEvent(sigma))});
    const PldGridPlan plan = PlanPldGrids(event, 1e-3, {PldOptions{16, 20}, PldOptions{16, 16}});
    EXPECT_GT(plan.resolution_step, 0) << sigma;
    EXPECT_EQ(plan.steps[0], plan.steps[1]) << sigma;
  }
}

}  // namespace
}  // namespace rdpkit::accountant::internal
