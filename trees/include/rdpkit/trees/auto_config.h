// The trainer's "auto" settings (docs/trees_auto.md): with "defaults": "auto" (the default of a
// config read by `rdpkit train` or the Python estimators), every key the config does not give is
// chosen by one documented rule from public facts only: n (treated as public exactly as the
// default δ < 1/n already treats it), the number of features m, the task (and K), ε and δ. A key
// the config gives always wins. The rule reads no row of the data, so it costs no privacy; the
// chosen settings are written into the model's config like any other.
#ifndef RDPKIT_TREES_AUTO_CONFIG_H_
#define RDPKIT_TREES_AUTO_CONFIG_H_

#include <cstddef>
#include <nlohmann/json.hpp>

#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"

namespace rdpkit::trees {

// What the auto rule may look at: public quantities only.
struct PublicFacts {
  std::size_t n_rows = 0;  // n, number of training rows (public like δ = 1/n)
  int n_features = 0;      // m, from the schema
  Task task = Task::kBinary;
  int n_classes = 0;  // K for multiclass, else 0
  double epsilon = 1;
  double delta = 0;            // the config's δ, or DefaultDelta(n)
  bool label_bounds = false;   // regression: the schema's public label bounds are given
  int widest_categorical = 0;  // the most codes of a categorical feature (0: none), from the schema
};

// The facts of a run: the schema's task, K, m and categorical codes, n rows, and the config's
// privacy target (δ: given, or DefaultDelta(n)). A config without "privacy" (non_private) gives
// ε = inf.
PublicFacts PublicFactsOf(const nlohmann::json& config, const Schema& schema, std::size_t n_rows);

// The rule (docs/trees_auto.md): config keys and their values for these facts, as a JSON object
// in the config's shape. `given` is the user's config: a key it gives is not chosen (an explicit
// key wins) and n_estimators given sets the learning rate by T.
nlohmann::json AutoSettings(const PublicFacts& facts, const nlohmann::json& given);

// The config's keys as given, parsed and validated before n is known (`rdpkit train` checks them
// before it reads the data). Where the rule will choose n_estimators by n, batch_size's range
// [1, n_estimators] cannot be checked yet: it is left to ResolveConfig (here T = B = 1 stand in).
TrainerConfig GivenConfig(const nlohmann::json& config);

// The split candidates of a run with this config: the config's, else the rule's, which depend on
// the schema and ε only, not on n, so a reader can bin the data before it has counted the rows
// (`rdpkit train`). Equal to ResolveConfig(config, schema, n).split_candidates for every n.
TrainerConfig::SplitCandidates RunSplitCandidates(const nlohmann::json& config,
                                                  const Schema& schema);

// The user's config with the rule's settings added where it gives none, then parsed and
// validated (TrainerConfig::FromJson). "defaults": "static" → the config as it is, absent keys at
// the fixed defaults of the key table. The result's `defaults` says which.
TrainerConfig ResolveConfig(const nlohmann::json& config, const Schema& schema, std::size_t n_rows);

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_AUTO_CONFIG_H_
