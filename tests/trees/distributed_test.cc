// Training over several ranks (docs/distributed.md), as K parties in one process: under a seed
// and distributed_noise "central" the model is the single-process model of the concatenated
// shards (identical predictions: sums are exact); under "shares" the pairwise masks cancel, no
// rank hands over its plain sums, the noise sums to at least the accounted variance, and the
// privacy event is the single-process one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <numeric>
#include <vector>

#include "distributed_release.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/communicator.h"
#include "rdpkit/trees/train.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using ::testing::HasSubstr;
using testing::Quiet;
using testing::SyntheticData;
using testing::SyntheticMulticlass;

// Rows [begin, end) of data.
Dataset Rows(const Dataset& data, std::size_t begin, std::size_t end) {
  Dataset out;
  out.schema = data.schema;
  out.feature_names = data.feature_names;
  out.clipped.assign(data.n_features(), 0);
  for (const auto& column : data.columns) {
    out.columns.emplace_back(column.begin() + static_cast<std::ptrdiff_t>(begin),
                             column.begin() + static_cast<std::ptrdiff_t>(end));
  }
  out.labels.assign(data.labels.begin() + static_cast<std::ptrdiff_t>(begin),
                    data.labels.begin() + static_cast<std::ptrdiff_t>(end));
  return out;
}

// K contiguous shards of unequal sizes whose concatenation is data.
std::vector<Dataset> Shards(const Dataset& data, int k) {
  std::vector<Dataset> shards;
  const std::size_t n = data.n_rows();
  std::size_t begin = 0;
  for (int r = 0; r < k; ++r) {
    // Shard r holds a share proportional to r + 1 (unequal sizes exercise the row offsets).
    const std::size_t end = r + 1 == k ? n : begin + n * 2 * (r + 1) / (k * (k + 1));
    shards.push_back(Rows(data, begin, end));
    begin = end;
  }
  return shards;
}

// Trains on every shard with K parties; returns rank 0's model (after checking every rank's
// model predicts the same as rank 0's on `data`).
Model TrainDistributed(const std::vector<Dataset>& shards, const TrainerConfig& config,
                       const Dataset& data) {
  const int k = static_cast<int>(shards.size());
  std::vector<Model> models(static_cast<std::size_t>(k));
  InProcessGroup group(k);
  group.Run([&](Communicator& communicator) {
    TrainOptions options = Quiet();
    options.communicator = &communicator;
    models[static_cast<std::size_t>(communicator.rank())] =
        Train(shards[static_cast<std::size_t>(communicator.rank())], config, options);
  });
  for (int r = 1; r < k; ++r) {
    EXPECT_EQ(models[static_cast<std::size_t>(r)].Predict(data), models[0].Predict(data))
        << "rank " << r;
  }
  return models[0];
}

// Predictions of two models of the same run, one distributed: identical, because every released
// sum is an exact sum (trees/src/statistics.h) and does not depend on how the rows are split.
void ExpectSamePredictions(const Model& a, const Model& b, const Dataset& data) {
  constexpr double kTolerance = 0;
  const std::vector<double> pa = a.Predict(data);
  const std::vector<double> pb = b.Predict(data);
  ASSERT_EQ(pa.size(), pb.size());
  double worst = 0;
  for (std::size_t i = 0; i < pa.size(); ++i) worst = std::max(worst, std::fabs(pa[i] - pb[i]));
  EXPECT_LE(worst, kTolerance);
  EXPECT_EQ(a.trees.size(), b.trees.size());
  EXPECT_EQ(a.privacy, b.privacy);
}

TrainerConfig Private(int trees, std::uint64_t seed = 11) {
  TrainerConfig c;
  c.n_estimators = trees;
  c.privacy = TrainerConfig::Privacy{.epsilon = 1.0};
  c.seed = seed;
  return c;
}

struct CentralCase {
  const char* name;
  TrainerConfig config;
  Task task;
};

class CentralEqualsSingleProcess : public ::testing::TestWithParam<CentralCase> {};

TEST_P(CentralEqualsSingleProcess, OnTwoAndFourRanks) {
  const CentralCase& c = GetParam();
  const Dataset data = c.task == Task::kMulticlass ? SyntheticMulticlass(3000, 4, 3)
                                                   : SyntheticData(3000, 4, c.task);
  TrainerConfig config = c.config;
  if (c.task == Task::kRegression) config.objective = Objective::kRegSquaredError;
  if (c.task == Task::kMulticlass) config.objective = Objective::kMultiSoftprob;
  const Model single = Train(data, config, Quiet());
  for (int k : {2, 4}) {
    SCOPED_TRACE(std::string(c.name) + ", " + std::to_string(k) + " ranks");
    ExpectSamePredictions(single, TrainDistributed(Shards(data, k), config, data), data);
  }
}

TrainerConfig With(TrainerConfig c, void (*edit)(TrainerConfig&)) {
  edit(c);
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    Configs, CentralEqualsSingleProcess,
    ::testing::Values(CentralCase{"totally_random", Private(20), Task::kBinary},
                      CentralCase{"histogram",
                                  With(Private(4),
                                       [](TrainerConfig& c) {
                                         c.split_method = SplitMethod::kHistogram;
                                         c.max_depth = 3;
                                       }),
                                  Task::kBinary},
                      CentralCase{"partially_random",
                                  With(Private(4),
                                       [](TrainerConfig& c) {
                                         c.split_method = SplitMethod::kPartiallyRandom;
                                         c.max_depth = 3;
                                       }),
                                  Task::kBinary},
                      CentralCase{"exponential",
                                  With(Private(4),
                                       [](TrainerConfig& c) {
                                         c.split_method = SplitMethod::kExponential;
                                         c.max_depth = 3;
                                       }),
                                  Task::kBinary},
                      CentralCase{"iterative_hessian_initial_score",
                                  With(Private(10),
                                       [](TrainerConfig& c) {
                                         c.split_candidates.method =
                                             CandidateMethod::kIterativeHessian;
                                         c.split_candidates.rounds = 2;
                                         c.initial_score = TrainerConfig::InitialScore{};
                                       }),
                                  Task::kBinary},
                      // Poisson sampling without noise: the same rows in every tree (a private run
                      // would calibrate a subsampled event on every rank, ~40 s each).
                      CentralCase{"subsample_non_private",
                                  With(Private(10),
                                       [](TrainerConfig& c) {
                                         c.privacy.reset();
                                         c.non_private = true;
                                         c.subsample = 0.5;
                                       }),
                                  Task::kBinary},
                      CentralCase{"regression_batches",
                                  With(Private(10), [](TrainerConfig& c) { c.batch_size = 5; }),
                                  Task::kRegression},
                      CentralCase{"multiclass", Private(5), Task::kMulticlass}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(SecureAggregation, MasksCancelAndHideEachRanksVector) {
  constexpr int kRanks = 4;
  constexpr std::size_t kLength = 50;
  InProcessGroup group(kRanks);
  std::vector<std::vector<std::uint64_t>> masks(kRanks), plain(kRanks), sums(kRanks);
  group.Run([&](Communicator& communicator) {
    const auto r = static_cast<std::size_t>(communicator.rank());
    mechanisms::Random rng = mechanisms::Random::Seeded(100 + r);
    internal::SecureAggregation aggregation(communicator, rng);
    masks[r] = aggregation.NextMasks(kLength);
    std::vector<std::uint64_t> values(kLength);
    for (std::size_t i = 0; i < kLength; ++i) values[i] = 1000 * r + i;  // small, plain
    plain[r] = values;
    aggregation.Sum(values);
    sums[r] = values;
  });
  for (std::size_t i = 0; i < kLength; ++i) {
    std::uint64_t mask_sum = 0, plain_sum = 0;
    for (int r = 0; r < kRanks; ++r) {
      mask_sum += masks[r][i];
      plain_sum += plain[r][i];
    }
    EXPECT_EQ(mask_sum, 0u) << i;  // modulo 2^64
    for (int r = 0; r < kRanks; ++r) EXPECT_EQ(sums[r][i], plain_sum);
  }
  // What each rank handed to the sum is its vector plus masks: no coordinate equals the plain
  // value (each would with probability 2^-64).
  for (int r = 0; r < kRanks; ++r) {
    const auto& handed = group.modular_inputs(r).back();
    for (std::size_t i = 0; i < kLength; ++i) EXPECT_NE(handed[i], plain[r][i]);
  }
}

TEST(DistributedShares, InflatedSensitivityCoversTheLattice) {
  for (int k : {2, 3, 16, 1000}) {
    for (double s : {0.25, 1.0, 1.0307764064044151, 3e5}) {
      const double share_sigma = 0.7 / std::sqrt(k);
      const auto step = [&](double sensitivity) {
        return mechanisms::GaussianMechanism(sensitivity, share_sigma).granularity();
      };
      const double inflated = internal::InflatedShareSensitivity(s, k, step);
      EXPECT_GE(inflated, s + (k + 2) * step(inflated)) << k << " " << s;
      EXPECT_LE(inflated, s * (1 + 1e-3)) << k << " " << s;  // a tiny increase
    }
  }
}

// The sum over K ranks of the released noise on zero data: mean 0, variance (s'σ)² with s' ≥ s.
TEST(DistributedShares, NoiseSharesSumToTheAccountedVariance) {
  constexpr int kRanks = 3;
  constexpr std::size_t kCells = 20000;  // 40000 coordinates: the variance within ±3.5 %
  TrainerConfig config = Private(1);
  config.distributed_noise = DistributedNoise::kShares;
  const double sigma = 2.0;
  const Sensitivities s{.a = 1, .b = 0.25};
  std::vector<internal::Pair> released(kCells);
  std::vector<double> inflated;
  InProcessGroup group(kRanks);
  group.Run([&](Communicator& communicator) {
    internal::DistributedReleases releases(communicator, config, sigma, s, /*n_rows=*/1000);
    std::vector<internal::Pair> cells(kCells);
    releases.ReleaseShares(cells.data(), 1, kCells, kCells);
    if (communicator.rank() == 0) {
      released = cells;
      inflated = releases.share_sensitivities();
    }
  });
  ASSERT_FALSE(inflated.empty());
  EXPECT_GE(inflated[0], s.pair());
  double sum = 0, squares = 0;
  for (const auto& cell : released) {
    sum += cell.a + cell.b;
    squares += cell.a * cell.a + cell.b * cell.b;
  }
  const double n = 2.0 * kCells;
  const double expected = inflated[0] * sigma * inflated[0] * sigma;
  EXPECT_NEAR(sum / n, 0.0, 4 * std::sqrt(expected / n));
  // Var of the sample variance of a normal: 2σ⁴/n; 5 standard errors is 3.5 % here.
  EXPECT_NEAR(squares / n / expected, 1.0, 5 * std::sqrt(2.0 / n));
}

// A federated run (Maddock §6): parties whose shards are not IID (sorted by the label, so one
// party holds mostly 0s and another mostly 1s), noise as shares: the same privacy event as one
// process, a model every party agrees on, and one that still learns.
TEST(DistributedShares, NonIidPartiesTrainOneModelUnderTheSameEvent) {
  const Dataset data = SyntheticData(4000, 4, Task::kBinary, 5);
  std::vector<std::size_t> order(data.n_rows());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t i, std::size_t j) { return data.labels[i] < data.labels[j]; });
  Dataset sorted = data;
  for (std::size_t f = 0; f < data.n_features(); ++f) {
    for (std::size_t i = 0; i < order.size(); ++i) sorted.columns[f][i] = data.columns[f][order[i]];
  }
  for (std::size_t i = 0; i < order.size(); ++i) sorted.labels[i] = data.labels[order[i]];
  TrainerConfig config = Private(30);
  config.max_depth = 3;
  config.distributed_noise = DistributedNoise::kShares;
  const Model federated = TrainDistributed(Shards(sorted, 3), config, data);
  TrainerConfig central = config;
  central.distributed_noise = DistributedNoise::kCentral;
  const Model single = Train(data, central, Quiet());
  EXPECT_EQ(federated.privacy, single.privacy);
  // Accuracy well above the 50 % of a constant (the single-process run reaches about 90 %).
  const std::vector<double> p = federated.Predict(data);
  double correct = 0;
  for (std::size_t i = 0; i < p.size(); ++i) correct += (p[i] >= 0.5) == (data.labels[i] == 1);
  EXPECT_GT(correct / static_cast<double>(p.size()), 0.75);
}

TEST(Distributed, RefusesRanksWithAnotherConfig) {
  const Dataset data = SyntheticData(400, 3);
  InProcessGroup group(3);
  EXPECT_THAT(
      [&] {
        group.Run([&](Communicator& communicator) {
          TrainerConfig config = Private(2);
          if (communicator.rank() == 2) config.max_depth = 5;  // would make other collectives
          TrainOptions options = Quiet();
          options.communicator = &communicator;
          Train(data, config, options);
        });
      },
      ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("rank 2")));
}

TEST(DistributedShares, RefusesLaplaceAndExponentialReleasesByName) {
  const Dataset data = SyntheticData(400, 3);
  const auto refused = [&](TrainerConfig config) {
    config.distributed_noise = DistributedNoise::kShares;
    InProcessGroup group(2);
    group.Run([&](Communicator& communicator) {
      TrainOptions options = Quiet();
      options.communicator = &communicator;
      Train(data, config, options);
    });
  };
  TrainerConfig initial = Private(2);
  initial.initial_score = TrainerConfig::InitialScore{};
  EXPECT_THAT([&] { refused(initial); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("initial_score")));
  TrainerConfig exponential = Private(2);
  exponential.split_method = SplitMethod::kExponential;
  EXPECT_THAT([&] { refused(exponential); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("exponential")));
  TrainerConfig filter = Private(2);
  filter.renyi_filter = TrainerConfig::RenyiFilter{};
  EXPECT_THAT([&] { refused(filter); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("renyi_filter")));
}

}  // namespace
}  // namespace rdpkit::trees
