#include "training_report.h"

namespace rdpkit::trees::internal {

nlohmann::json TrainingLog(const Dataset& data, const TrainerConfig& config,
                           const PrivacyPlan& privacy, const RunFacts& facts) {
  const Sensitivities& s = privacy.sensitivities;
  nlohmann::json report = {
      {"n_rows", data.n_rows()},
      {"n_features", static_cast<int>(data.n_features())},
      {"clipped", data.clipped},
      {"total_clipped", data.total_clipped()},
      {"queries", privacy.counts.ToJson()},
      {"sensitivities", {{"a", s.a}, {"b", s.b}, {"pair", s.pair()}}},
  };
  if (facts.labels_scaled) report["labels_clipped"] = facts.labels_clipped;
  if (facts.noisy) {
    report["noise_multiplier"] = privacy.noise_multiplier;
    if (privacy.counts.exponential) {
      report["exponential_epsilon"] = privacy.exponential_epsilon;
      report["exponential_selections"] = facts.exponential_selections;
    }
    if (config.initial_score) report["initial_score_epsilon"] = privacy.initial_score_epsilon;
    if (facts.adapted_gradient_clip) report["gradient_clip"] = *facts.adapted_gradient_clip;
    report["delta_source"] = privacy.delta_from_n ? DefaultDeltaSource() : "config";
  }
  if (facts.filter_rounds) {
    report["renyi_filter"] = {{"order", privacy.filter_order},
                              {"budget", privacy.filter_budget},
                              {"rounds", *facts.filter_rounds},
                              {"records_sitting_out", facts.records_sitting_out},
                              {"active_records", facts.active_records}};
  }
  return report;
}

nlohmann::json PrivacyBlock(const Dataset& data, const TrainerConfig& config,
                            const PrivacyPlan& privacy,
                            const std::optional<accountant::Event>& released_event) {
  const bool quantile = config.split_candidates.method == CandidateMethod::kQuantile;
  const bool bounds_from_data = data.schema.bounds_from_data;
  if (released_event && !quantile && !bounds_from_data) {
    // With the filter the event holds a renyi_filter (order α̂, budget, max_rounds T + extra):
    // the run is (α̂, budget)-RDP (Feldman & Zrnic 2021, Thm 4.5) and `rdpkit epsilon --event`
    // evaluates it at α̂, giving back exactly privacy.epsilon.
    return {{"epsilon", privacy.epsilon},
            {"delta", privacy.delta},
            {"accountant", accountant::AccountantName(privacy.accountant)},
            {"event", released_event->ToJson()}};
  }
  nlohmann::json block = {
      {"private", false},
      {"reason", config.non_private ? "non_private: true (no noise was added)"
                 : quantile         ? "split_candidates.method = quantile uses exact quantiles of "
                                      "the training data"
                                    : "the feature bounds were taken from the training data "
                                      "(--bounds-from-data): they are released with the model "
                                      "and no epsilon covers them"}};
  if (bounds_from_data) block["bounds_from_data"] = true;
  if (released_event) {
    block["noise_event"] = released_event->ToJson();
    block["noise_epsilon"] = privacy.epsilon;
    block["delta"] = privacy.delta;
  }
  return block;
}

}  // namespace rdpkit::trees::internal
