// Trainer configuration (DESIGN.md §5) as `rdpkit train --config '{...}'` reads it: the command
// line's JSON reader, then TrainerConfig::FromJson. An accepted config must survive ToJson →
// FromJson unchanged. A config that is cheap to run (bounded below) then trains on a fixed
// 24-row dataset of the objective's task, and the model must write itself back and predict.
//
// Budget: at most kMaxTrees trees (with the Rényi filter's extra rounds) of depth ≤ kMaxDepth, ε at
// most kMaxEpsilon, one thread; a seed is set when the config has none, so every run is
// reproducible. Larger configs are only parsed (training them is a memory/time question, not a
// parsing one).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli.h"
#include "fuzz_util.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"
#include "rdpkit/trees/train.h"

namespace {

using rdpkit::trees::Dataset;
using rdpkit::trees::Schema;
using rdpkit::trees::TrainerConfig;

constexpr std::size_t kMaxInputBytes = 4096;
constexpr int kMaxTrees = 8;
constexpr int kMaxDepth = 5;
// Calibrating σ for a few exponential-split trees at a large ε and a tiny δ is the slowest
// thing a small config can ask: at most 2.2 s under ASan up to ε = 100 (δ down to 1e-15), 5–7 s
// at ε = 254–1000 and 8 s at ε = 2513 with δ = 1e-9, too near the 10 s timeout on a loaded
// machine. Larger ε reach no other trainer path (the events themselves are event_json_fuzzer's).
constexpr double kMaxEpsilon = 100;

// 24 rows: a numeric, a wide numeric, a categorical feature and a missing value in each column.
Dataset TinyDataset(const char* task, const char* label_bounds) {
  const Schema schema = Schema::FromJson(nlohmann::json::parse(
      std::string(R"({"task": ")") + task + R"(", )" + label_bounds + R"("features": [
        {"name": "x", "min": 0, "max": 10},
        {"name": "w", "min": -1e6, "max": 1e6},
        {"name": "c", "categorical": true, "n_codes": 4}]})"));
  std::string csv = "x,w,c,label\n";
  for (int row = 0; row < 24; ++row) {
    const bool missing = row % 11 == 5;
    csv += missing ? "," : std::to_string(row % 12) + ",";
    csv += missing ? "," : std::to_string((row * 7919) % 2000000 - 1000000) + ",";
    csv += missing ? "," : std::to_string(row % 4) + ",";
    csv += std::to_string((row * 5 + row / 3) % 2) + "\n";
  }
  return rdpkit::trees::ParseCsv(csv, schema, {}, "tiny.csv");
}

const Dataset& BinaryData() {
  static const Dataset data = TinyDataset("binary", "");
  return data;
}

const Dataset& RegressionData() {
  static const Dataset data = TinyDataset("regression", R"("label": {"min": -1, "max": 2}, )");
  return data;
}

bool CheapToTrain(const TrainerConfig& config) {
  const int extra = config.renyi_filter ? config.renyi_filter->extra_rounds : 0;
  return config.n_estimators + extra <= kMaxTrees && config.max_depth <= kMaxDepth &&
         (!config.privacy || config.privacy->epsilon <= kMaxEpsilon);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxInputBytes) return -1;
  const std::string text(rdpkit::fuzz::AsText(data, size));
  // The reader takes text that does not start with '{' for a file name: inline JSON only here.
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return -1;

  rdpkit::fuzz::RefusalsAllowed([&] {
    TrainerConfig config = TrainerConfig::FromJson(rdpkit::tools::ReadEventJson(text, "config"));

    const nlohmann::json written = config.ToJson();
    nlohmann::json reread;
    if (!rdpkit::fuzz::RefusalsAllowed(
            [&] { reread = TrainerConfig::FromJson(written).ToJson(); })) {
      rdpkit::fuzz::Fail("FromJson refused what ToJson wrote", written.dump());
    }
    if (reread != written) {
      rdpkit::fuzz::Fail("ToJson -> FromJson changed the config", written.dump());
    }

    if (!CheapToTrain(config)) return;
    config.threads = 1;
    if (!config.seed) config.seed = 1;
    const Dataset& train = config.objective == rdpkit::trees::Objective::kBinaryLogistic
                               ? BinaryData()
                               : RegressionData();
    const rdpkit::trees::Model model =
        rdpkit::trees::Train(train, config, {.progress = false, .progress_stream = nullptr});
    const std::string model_text = model.ToText();
    if (!rdpkit::fuzz::RefusalsAllowed(
            [&] { (void)rdpkit::trees::Model::FromJson(nlohmann::json::parse(model_text)); })) {
      rdpkit::fuzz::Fail("a trained model does not load", model_text.substr(0, 2000));
    }
    if (model.Predict(train).size() != train.n_rows()) {
      rdpkit::fuzz::Fail("one prediction per row");
    }
  });
  return 0;
}
