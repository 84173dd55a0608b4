// Speed of the private trainer (issue 5, point 12). Every training benchmark includes the
// calibration of the noise multiplier (the accountant's certified bisection), as a user's run
// does. Report medians of ≥ 5 repetitions:
//   trees_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

#include "rdpkit/accountant/json_input.h"
#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/binned_csv.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"
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

// Prediction: the 1000 trees of depth 6 above (trained once) over the 50 000 generated rows, a
// block of rows at a time as `rdpkit predict` does; model file and CSV reading excluded.
void BM_Predict_Synthetic50k1000Trees(benchmark::State& state) {
  rdpkit::trees::TrainOptions options;
  options.progress = false;
  static const rdpkit::trees::Model model =
      rdpkit::trees::Train(Synthetic50k(), TrConfig(1), options);
  for (auto _ : state) {
    auto predictions = model.Predict(Synthetic50k());
    benchmark::DoNotOptimize(predictions);
  }
  state.counters["row_trees"] =
      benchmark::Counter(1000.0 * static_cast<double>(Synthetic50k().n_rows()) *
                             static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Predict_Synthetic50k1000Trees)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reading a model file's text: the same 1000 trees of depth 6 (6.6 MB of JSON) through
// Model::Parse, which reads each node as the parser meets it (what `rdpkit predict` and the Python
// package load), and through the JSON tree of the whole file (FromJson(ParseJson)), for contrast.
const std::string& Synthetic1000TreesText() {
  rdpkit::trees::TrainOptions options;
  options.progress = false;
  static const std::string text =
      rdpkit::trees::Train(Synthetic50k(), TrConfig(1), options).ToText();
  return text;
}
void BM_ModelParse_1000Trees(benchmark::State& state) {
  const std::string& text = Synthetic1000TreesText();
  for (auto _ : state) {
    auto model = rdpkit::trees::Model::Parse(text, "bench");
    benchmark::DoNotOptimize(model);
  }
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_ModelParse_1000Trees)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_ModelFromJsonTree_1000Trees(benchmark::State& state) {
  const std::string& text = Synthetic1000TreesText();
  for (auto _ : state) {
    auto model = rdpkit::trees::Model::FromJson(rdpkit::ParseJson(text, "model", "bench"));
    benchmark::DoNotOptimize(model);
  }
}
BENCHMARK(BM_ModelFromJsonTree_1000Trees)->Unit(benchmark::kMillisecond)->UseRealTime();

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

// A CSV of `rows` rows shaped like bench/make_large_csv.py's (4 numeric, 3 categorical columns,
// about 4 % missing values, a binary label), in memory; fixed seed.
const std::string& LargeCsvText(std::size_t rows) {
  static std::string text;
  if (!text.empty()) return text;
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0, 1);
  text = "age,income,debt_ratio,hours_per_week,region,product,employment,label\n";
  char line[160];
  for (std::size_t i = 0; i < rows; ++i) {
    const bool gone = unit(rng) < 0.04;
    std::snprintf(line, sizeof(line), "%d,%s,%.4f,%.1f,%d,%d,%d,%d\n",
                  18 + static_cast<int>(unit(rng) * 70),
                  gone ? "" : std::to_string(unit(rng) * 200000).c_str(), unit(rng) * 4,
                  unit(rng) * 80, static_cast<int>(unit(rng) * 12), static_cast<int>(unit(rng) * 5),
                  static_cast<int>(unit(rng) * 4), unit(rng) < 0.3 ? 1 : 0);
    text += line;
  }
  return text;
}

const rdpkit::trees::Schema& LargeCsvSchema() {
  static const rdpkit::trees::Schema schema =
      rdpkit::trees::Schema::FromJson(nlohmann::json::parse(R"({"task": "binary", "features": [
        {"name": "age", "min": 18, "max": 90}, {"name": "income", "min": 0, "max": 250000},
        {"name": "debt_ratio", "min": 0, "max": 5}, {"name": "hours_per_week", "min": 0, "max": 80},
        {"name": "region", "categorical": true, "n_codes": 12},
        {"name": "product", "categorical": true, "n_codes": 5},
        {"name": "employment", "categorical": true, "n_codes": 4}]})"));
  return schema;
}

// 300 000 rows (about 12 MB) read into doubles (ParseCsv, what predict uses).
void BM_Csv_Read300kAsDoubles(benchmark::State& state) {
  const std::string& text = LargeCsvText(300000);
  for (auto _ : state) benchmark::DoNotOptimize(rdpkit::trees::ParseCsv(text, LargeCsvSchema()));
  state.counters["rows"] = benchmark::Counter(300000.0 * static_cast<double>(state.iterations()),
                                              benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Csv_Read300kAsDoubles)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same rows read straight into byte bins (ParseCsvBinned, what train uses), on 1 and 2 threads.
void BM_Csv_Read300kAsBins(benchmark::State& state) {
  const std::string& text = LargeCsvText(300000);
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(rdpkit::trees::ParseCsvBinned(text, LargeCsvSchema(), {}, threads));
  }
  state.counters["rows"] = benchmark::Counter(300000.0 * static_cast<double>(state.iterations()),
                                              benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Csv_Read300kAsBins)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("threads")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
