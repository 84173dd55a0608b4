// Utility driver for bench/utility.py: trains one configuration on repeated random train/test
// splits of one dataset and prints the test metrics as one JSON object.
//
//   trees_utility --data spambase.csv --schema spambase.json --config cfg.json
//                 [--splits 5] [--seeds 3] [--test-fraction 0.3] [--split-seed 0]
//
// Split r (r = 0..splits−1) shuffles the rows with seed split_seed + r (std::mt19937_64, a
// public permutation unrelated to the trainer's noise); run s of a split trains with config seed
// 1000·r + s. δ defaults to 1/n of the training part, as in the trainer.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/model.h"
#include "rdpkit/trees/train.h"

namespace {

using rdpkit::trees::Dataset;

Dataset Subset(const Dataset& data, const std::vector<std::size_t>& rows) {
  Dataset out;
  out.schema = data.schema;
  out.feature_names = data.feature_names;
  out.clipped = data.clipped;
  out.columns.resize(data.columns.size());
  for (std::size_t f = 0; f < data.columns.size(); ++f) {
    out.columns[f].reserve(rows.size());
    for (std::size_t r : rows) out.columns[f].push_back(data.columns[f][r]);
  }
  for (std::size_t r : rows) out.labels.push_back(data.labels[r]);
  return out;
}

double Mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double Std(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

int Run(int argc, char** argv) {
  std::string data_path, schema_path, config_path;
  int splits = 5, seeds = 3;
  double test_fraction = 0.3;
  std::uint64_t split_seed = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--data") {
      data_path = value;
    } else if (flag == "--schema") {
      schema_path = value;
    } else if (flag == "--config") {
      config_path = value;
    } else if (flag == "--splits") {
      splits = std::stoi(value);
    } else if (flag == "--seeds") {
      seeds = std::stoi(value);
    } else if (flag == "--test-fraction") {
      test_fraction = std::stod(value);
    } else if (flag == "--split-seed") {
      split_seed = std::stoull(value);
    } else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  const auto schema = rdpkit::trees::Schema::FromFile(schema_path);
  const Dataset data = rdpkit::trees::LoadCsv(data_path, schema);
  std::ifstream config_file(config_path);
  const auto config_json = nlohmann::json::parse(config_file);
  const bool binary = schema.task == rdpkit::trees::Task::kBinary;

  std::vector<double> metric, epsilons, seconds;
  double noise_multiplier = 0;
  for (int r = 0; r < splits; ++r) {
    std::vector<std::size_t> order(data.n_rows());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 shuffle_rng(split_seed + static_cast<std::uint64_t>(r));
    std::shuffle(order.begin(), order.end(), shuffle_rng);
    const auto n_test =
        static_cast<std::size_t>(std::round(test_fraction * static_cast<double>(order.size())));
    const std::vector<std::size_t> test_rows(order.begin(), order.begin() + n_test);
    const std::vector<std::size_t> train_rows(order.begin() + n_test, order.end());
    const Dataset train = Subset(data, train_rows);
    const Dataset test = Subset(data, test_rows);
    for (int s = 0; s < seeds; ++s) {
      auto config = rdpkit::trees::TrainerConfig::FromJson(config_json);
      config.seed = static_cast<std::uint64_t>(1000 * r + s);
      rdpkit::trees::TrainOptions options;
      options.progress = false;
      const auto start = std::chrono::steady_clock::now();
      const auto model = rdpkit::trees::Train(train, config, options);
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      const auto predictions = model.Predict(test);
      metric.push_back(binary ? rdpkit::trees::Auc(predictions, test.labels)
                              : rdpkit::trees::Rmse(predictions, test.labels));
      if (model.privacy.contains("epsilon")) epsilons.push_back(model.privacy["epsilon"]);
      if (model.training_log.contains("noise_multiplier")) {
        noise_multiplier = model.training_log["noise_multiplier"];
      }
    }
  }
  nlohmann::json out = {{binary ? "auc_mean" : "rmse_mean", Mean(metric)},
                        {binary ? "auc_std" : "rmse_std", Std(metric)},
                        {"runs", metric.size()},
                        {"train_seconds_mean", Mean(seconds)},
                        {"noise_multiplier", noise_multiplier}};
  if (!epsilons.empty()) {
    out["epsilon_max"] = *std::max_element(epsilons.begin(), epsilons.end());
  }
  std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "trees_utility: " << e.what() << "\n";
    return 1;
  }
}
