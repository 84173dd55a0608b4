// What a training run writes besides its trees: the model's privacy block (released with the
// model) and the training log (exact data-dependent counts: for the operator only, never released;
// DESIGN.md §6 "What the model releases").
#ifndef RDPKIT_TREES_SRC_TRAINING_REPORT_H_
#define RDPKIT_TREES_SRC_TRAINING_REPORT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "rdpkit/accountant/event.h"
#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"

namespace rdpkit::trees::internal {

// What the run did, as the training log reports it.
struct RunFacts {
  bool noisy = false;
  std::uint64_t exponential_selections = 0;
  // renyi_filter only: rounds run, record-rounds sat out, records still active at the end.
  std::optional<std::uint64_t> filter_rounds;
  std::uint64_t records_sitting_out = 0;
  std::uint64_t active_records = 0;
  // Regression with label bounds: whether the labels were scaled, and how many lay outside.
  bool labels_scaled = false;
  std::uint64_t labels_clipped = 0;
  // initial_score.adapt_gradient_clip: the g* the trees were grown with.
  std::optional<double> adapted_gradient_clip;
};

// The training log (NOT differentially private): rows, clipped values, queries, sensitivities,
// the noise multiplier and what the filter did.
nlohmann::json TrainingLog(const Dataset& data, const TrainerConfig& config,
                           const PrivacyPlan& privacy, const RunFacts& facts);

// The model's privacy block: {"epsilon", "delta", "event"} for a private run, where event is the
// event of what the run released (`rdpkit epsilon --event` on it gives back epsilon), or
// {"private": false, "reason", …} when no ε covers the model (no noise, exact quantiles, bounds
// taken from the data).
nlohmann::json PrivacyBlock(const Dataset& data, const TrainerConfig& config,
                            const PrivacyPlan& privacy,
                            const std::optional<accountant::Event>& released_event);

// Refuses (InvalidArgument naming the key) a model file's privacy block that is not one
// PrivacyBlock writes: {"epsilon" in [0, inf), "delta" in (0, 1), "event" an event, "accountant"
// optional} or {"private": false, "reason", and with noise "noise_event", "noise_epsilon",
// "delta"} (with flags such as "bounds_from_data"), or {} (a model built in code, which claims
// nothing). It does not recompute ε from the event:
// `rdpkit epsilon --event` does that.
void CheckPrivacyBlock(const nlohmann::json& privacy);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_TRAINING_REPORT_H_
