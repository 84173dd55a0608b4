// Federated simulation (Maddock et al. 2022, §3 and §6; docs/distributed.md): K parties as threads
// of one process, each holding a non-IID shard of a training CSV, train one model with secure
// aggregation (distributed_noise "shares") or a trusted aggregator ("central"); the single-process
// model on all rows is the reference. Prints one JSON object: test AUC of each, the epsilon of
// each model's privacy block, and the bytes the parties handed to the collectives.
//
//   federated_sim TRAIN.csv TEST.csv SCHEMA.json [PARTIES=4] [SKEW=label|iid] [CONFIG_JSON]
//
// SKEW label: the rows sorted by label, then cut into K contiguous shards (the first parties hold
// mostly one class, the last the other); iid: contiguous shards of the file as it is.
#include <algorithm>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/communicator.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/metrics.h"
#include "rdpkit/trees/train.h"

namespace {

using rdpkit::trees::Dataset;

std::vector<Dataset> Parties(const Dataset& data, int k, bool label_skew) {
  std::vector<std::size_t> order(data.n_rows());
  std::iota(order.begin(), order.end(), 0);
  if (label_skew) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t i, std::size_t j) { return data.labels[i] < data.labels[j]; });
  }
  std::vector<Dataset> parties(static_cast<std::size_t>(k));
  for (int r = 0; r < k; ++r) {
    Dataset& party = parties[static_cast<std::size_t>(r)];
    party.schema = data.schema;
    party.feature_names = data.feature_names;
    party.clipped.assign(data.n_features(), 0);
    party.columns.resize(data.n_features());
    const std::size_t first = order.size() * static_cast<std::size_t>(r) / k;
    const std::size_t last = order.size() * static_cast<std::size_t>(r + 1) / k;
    for (std::size_t i = first; i < last; ++i) {
      for (std::size_t f = 0; f < data.n_features(); ++f) {
        party.columns[f].push_back(data.columns[f][order[i]]);
      }
      party.labels.push_back(data.labels[order[i]]);
    }
  }
  return parties;
}

struct Result {
  rdpkit::trees::Model model;
  std::uint64_t bytes = 0;
};

Result TrainParties(const std::vector<Dataset>& parties,
                    const rdpkit::trees::TrainerConfig& config) {
  Result result;
  std::vector<rdpkit::trees::Model> models(parties.size());
  std::vector<std::uint64_t> bytes(parties.size());
  rdpkit::trees::InProcessGroup group(static_cast<int>(parties.size()));
  group.Run([&](rdpkit::trees::Communicator& communicator) {
    const auto r = static_cast<std::size_t>(communicator.rank());
    rdpkit::trees::TrainOptions options;
    options.progress = false;
    options.communicator = &communicator;
    models[r] = rdpkit::trees::Train(parties[r], config, options);
    bytes[r] = communicator.bytes_sent();
  });
  result.model = std::move(models[0]);
  result.bytes = std::accumulate(bytes.begin(), bytes.end(), std::uint64_t{0});
  return result;
}

double TestAuc(const rdpkit::trees::Model& model, const Dataset& test) {
  return rdpkit::trees::Auc(model.Predict(test), test.labels);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: federated_sim TRAIN.csv TEST.csv SCHEMA.json [PARTIES] [label|iid] "
                 "[CONFIG_JSON]\n";
    return 2;
  }
  try {
    const auto schema = rdpkit::trees::Schema::FromFile(argv[3]);
    const Dataset train = rdpkit::trees::LoadCsv(argv[1], schema);
    const Dataset test = rdpkit::trees::LoadCsv(argv[2], schema);
    const int k = argc > 4 ? std::stoi(argv[4]) : 4;
    const bool label_skew = argc <= 5 || std::string(argv[5]) == "label";
    auto config_json = nlohmann::json::parse(
        argc > 6 ? argv[6] : R"({"n_estimators": 100, "max_depth": 4, "seed": 1,
                                 "privacy": {"epsilon": 1}})");
    config_json["distributed_noise"] = "central";
    const auto central = rdpkit::trees::TrainerConfig::FromJson(config_json);
    config_json["distributed_noise"] = "shares";
    const auto shares = rdpkit::trees::TrainerConfig::FromJson(config_json);
    const std::vector<Dataset> parties = Parties(train, k, label_skew);
    rdpkit::trees::TrainOptions quiet;
    quiet.progress = false;
    const auto single = rdpkit::trees::Train(train, central, quiet);
    const Result with_aggregator = TrainParties(parties, central);
    const Result federated = TrainParties(parties, shares);
    nlohmann::json out = {
        {"parties", k},
        {"skew", label_skew ? "label" : "iid"},
        {"rows", train.n_rows()},
        {"single_process", {{"auc", TestAuc(single, test)}, {"privacy", single.privacy}}},
        {"central",
         {{"auc", TestAuc(with_aggregator.model, test)},
          {"epsilon", with_aggregator.model.privacy.value("epsilon", 0.0)},
          {"bytes", with_aggregator.bytes}}},
        {"shares",
         {{"auc", TestAuc(federated.model, test)},
          {"epsilon", federated.model.privacy.value("epsilon", 0.0)},
          {"bytes", federated.bytes}}}};
    std::cout << out.dump() << "\n";
  } catch (const rdpkit::InvalidArgument& error) {
    std::cerr << "federated_sim: " << error.what() << "\n";
    return 2;
  }
  return 0;
}
