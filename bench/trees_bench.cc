// Speed of the private trainer (issue 5, point 12). Every training benchmark includes the
// calibration of the noise multiplier (the accountant's certified bisection), as a user's run
// does. Report medians of ≥ 5 repetitions:
//   trees_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>

#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/train.h"

namespace {

using rdpkit::trees::Dataset;
using rdpkit::trees::TrainerConfig;

// spambase's vendored training split (examples/, 3220 rows × 57 features, public schema bounds).
const Dataset& Spambase() {
  static const Dataset data = [] {
    const std::string root = RDPKIT_SOURCE_DIR;
    const auto schema = rdpkit::trees::Schema::FromFile(root + "/examples/spambase.schema.json");
    return rdpkit::trees::LoadCsv(root + "/examples/spambase_train.csv", schema);
  }();
  return data;
}

// 50 000 rows × 14 features uniform on [0, 1]; label 1 iff a noisy linear score is positive.
const Dataset& Synthetic50k() {
  static const Dataset data = [] {
    Dataset d;
    constexpr int kFeatures = 14;
    constexpr std::size_t kRows = 50000;
    std::mt19937_64 rng(2024);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::normal_distribution<double> noise(0.0, 0.5);
    for (int f = 0; f < kFeatures; ++f) {
      rdpkit::trees::FeatureSpec spec;
      spec.name = "f";
      spec.name += std::to_string(f);
      spec.min = 0;
      spec.max = 1;
      d.schema.features.push_back(spec);
      d.feature_names.push_back(spec.name);
    }
    d.columns.assign(kFeatures, std::vector<double>(kRows));
    d.clipped.assign(kFeatures, 0);
    for (std::size_t i = 0; i < kRows; ++i) {
      double score = 0;
      for (int f = 0; f < kFeatures; ++f) {
        const double x = unit(rng);
        d.columns[static_cast<std::size_t>(f)][i] = x;
        score += (f % 3 == 0 ? 1.0 : -0.5) * (x - 0.5);
      }
      d.labels.push_back(score + noise(rng) > 0 ? 1.0 : 0.0);
    }
    return d;
  }();
  return data;
}

TrainerConfig TrConfig(int threads) {
  return TrainerConfig::FromJson({{"n_estimators", 1000},
                                  {"max_depth", 6},
                                  {"split_method", "totally_random"},
                                  {"leaf_update", "newton"},
                                  {"privacy", {{"epsilon", 1.0}}},
                                  {"seed", 1},
                                  {"threads", threads}});
}

void RunTrain(benchmark::State& state, const Dataset& data, const TrainerConfig& config) {
  rdpkit::trees::TrainOptions options;
  options.progress = false;
  for (auto _ : state) {
    auto model = rdpkit::trees::Train(data, config, options);
    benchmark::DoNotOptimize(model);
  }
  state.counters["trees"] = benchmark::Counter(
      static_cast<double>(config.n_estimators) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// 1000 totally random Newton trees of depth 6 on spambase's training split, calibration included.
void BM_Train_SpambaseTotallyRandomNewton(benchmark::State& state) {
  RunTrain(state, Spambase(), TrConfig(1));
}
BENCHMARK(BM_Train_SpambaseTotallyRandomNewton)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same trees on 50 000 × 14 generated rows, with threads = 1 and 2.
void BM_Train_Synthetic50kTotallyRandomNewton(benchmark::State& state) {
  RunTrain(state, Synthetic50k(), TrConfig(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_Train_Synthetic50kTotallyRandomNewton)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("threads")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Calibration alone: σ for 1000 Gaussian leaf queries at ε = 1, δ = 1/3220.
void BM_Plan_Calibrate1000LeafQueries(benchmark::State& state) {
  const TrainerConfig config = TrConfig(1);
  for (auto _ : state) {
    auto plan = rdpkit::trees::PlanPrivacy(config, 3220, rdpkit::trees::QueryShape::AllNumeric(57));
    benchmark::DoNotOptimize(plan);
  }
  state.counters["calls"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Plan_Calibrate1000LeafQueries)->Unit(benchmark::kMillisecond);

// A histogram-split model (the expensive private split method) for comparison: 25 trees, depth 4.
void BM_Train_SpambaseHistogramNewton(benchmark::State& state) {
  RunTrain(state, Spambase(),
           TrainerConfig::FromJson({{"n_estimators", 25},
                                    {"max_depth", 4},
                                    {"split_method", "histogram"},
                                    {"privacy", {{"epsilon", 1.0}}},
                                    {"seed", 1}}));
}
BENCHMARK(BM_Train_SpambaseHistogramNewton)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
