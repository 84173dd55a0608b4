#include "training_report.h"

#include <cmath>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"

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

void CheckPrivacyBlock(const nlohmann::json& privacy) {
  // ε may be 0: a run whose δ alone covers it (the event's δ(0) at most δ) reports ε = 0.
  const auto number = [&](const char* key, bool is_delta) {
    const auto it = privacy.find(key);
    const std::string field = std::string("privacy.") + key;
    if (it == privacy.end()) throw InvalidArgument(field, "missing");
    if (!it->is_number()) throw InvalidArgument(field, it->dump(), "the numbers");
    const double value = it->get<double>();
    const bool ok = is_delta ? value > 0 && value < 1 : value >= 0 && std::isfinite(value);
    Require(ok, field, value, is_delta ? "(0, 1)" : "[0, inf)");
  };
  const auto event = [&](const char* key) {
    try {
      (void)accountant::Event::FromJson(privacy.at(key));
    } catch (const InvalidArgument& error) {
      throw InvalidArgument(std::string("privacy.") + key, error.what());
    }
  };
  if (privacy.empty()) return;  // a model built in code claims nothing
  const auto private_flag = privacy.find("private");
  if (private_flag == privacy.end()) {
    number("epsilon", false);
    number("delta", true);
    if (!privacy.contains("event")) throw InvalidArgument("privacy.event", "missing");
    event("event");
    return;
  }
  if (*private_flag != false) {
    throw InvalidArgument("privacy.private", private_flag->dump(),
                          "false, or no key (a private model)");
  }
  const auto reason = privacy.find("reason");
  if (reason == privacy.end() || !reason->is_string()) {
    throw InvalidArgument("privacy.reason", "missing or not a string (why it is not private)");
  }
  if (privacy.contains("noise_event")) event("noise_event");
}

}  // namespace rdpkit::trees::internal
