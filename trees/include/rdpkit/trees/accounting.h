// Privacy accounting of a training run (Maddock et al. 2022 Thm 4.1 and Table 1; S-BDT §6.2–6.3).
// The run is a composition of queries: κ_c split-candidate queries (iterative Hessian
// histograms), κ_s split queries (histograms, partially random sums, exponential selections) and
// κ_w leaf queries. Every Gaussian query uses the same noise multiplier σ relative to its own L2
// sensitivity; calibration solves for σ with the accountant. The derivation per option and the
// counts are in docs/trees_training.md.
#ifndef RDPKIT_TREES_ACCOUNTING_H_
#define RDPKIT_TREES_ACCOUNTING_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/trees/config.h"

namespace rdpkit::trees {

// Query counts of Maddock Table 1 for a run of T = n_estimators trees.
struct QueryCounts {
  std::uint64_t candidate = 0;  // κ_c: Hessian-histogram queries (one per feature per IH round)
  std::uint64_t split = 0;      // κ_s: split queries (one per feature per level, or per level
                                //      for exponential selections)
  std::uint64_t leaf = 0;       // κ_w: leaf queries (one per tree; all leaves of a tree are
                                //      disjoint, so parallel composition makes them one query)
  // Per-tree breakdown, used when trees are Poisson-subsampled.
  std::uint64_t ih_rounds = 0;            // trees preceded by an IH histogram round (min(s, T))
  std::uint64_t split_per_tree = 0;       // κ_s / T
  std::uint64_t leaf_per_tree = 0;        // κ_w / T
  std::uint64_t candidate_per_round = 0;  // κ_c / ih_rounds (= number of features)
  bool exponential = false;               // split queries are exponential-mechanism selections
  nlohmann::json ToJson() const;
};

// The public facts of a data set (its schema and the candidate sets the schema's bounds give)
// that the query counts depend on.
struct QueryShape {
  int n_features = 0;             // m, which feature_interaction.k may not exceed
  int n_splittable_features = 0;  // features with a split candidate: a tree splits on ≤ this many
  int n_refinable_features = 0;   // numeric features with candidates: iterative_hessian refines
                                  // these (categorical features keep their codes)
  int n_classes = 0;              // multiclass objectives: K (the schema's n_classes); else 0
  // m features, each numeric with candidates.
  static QueryShape AllNumeric(int n_features);
};

// Counts for a configuration on data of that shape (Maddock Table 1, §4.3–4.5, §5.1).
QueryCounts CountQueries(const TrainerConfig& config, const QueryShape& shape);

// L2 sensitivities of the per-record statistics (a, b) released by the queries: a is the clipped
// gradient (label for averaging), b the clipped Hessian (1 for gradient and averaging updates).
// Binary cross-entropy: |g| ≤ 1, 0 ≤ h ≤ 1/4 (Maddock §4.2), so (g, h) has sensitivity √17/4.
struct Sensitivities {
  double a = 1;         // bound of |a|
  double b = 1;         // bound of |b|
  double pair() const;  // √(a² + b²), sensitivity of the (a, b) query
};
// Multiclass objectives (n_classes = K ≥ 2): the bounds of the L2 norms of the record's gradient
// and Hessian vectors over the K class trees of a round (multi:softprob, whose K trees' queries
// are released as one), or of one class tree's (multi:ovr); softmax.h, docs/trees_training.md.
Sensitivities StatisticSensitivities(const TrainerConfig& config, int n_classes = 0);

// ε of one exponential-mechanism selection for noise multiplier σ: splits and leaves get equal
// shares of the zCDP-equivalent budget (ε²/8 per selection vs 1/(2σ²) per Gaussian query):
// κ_s·ε²/8 = κ_w/(2σ²)  ⇒  ε = 2·√(κ_w/κ_s)/σ.
double ExponentialEpsilon(const QueryCounts& counts, double noise_multiplier);

// The event of the whole run for a noise multiplier σ (DESIGN.md §1 vocabulary): the event the
// trainer's query plan reports when every scheduled query is released (trees/src/query_plan.h).
accountant::Event PlannedEvent(const TrainerConfig& config, const QueryShape& shape,
                               double noise_multiplier);

// The calibrated plan of a run: σ solved with accountant::Calibrate so that the event meets the
// target (ε, δ); epsilon is the certified ε of that event (≤ target).
struct PrivacyPlan {
  QueryCounts counts;
  Sensitivities sensitivities;
  double noise_multiplier = 0;       // σ
  double exponential_epsilon = 0;    // ε per exponential selection (0 if unused)
  double initial_score_epsilon = 0;  // pure ε of the initial score (0 if unused)
  double delta = 0;
  bool delta_from_n = false;  // δ defaulted to DefaultDelta(n)
  double epsilon = 0;         // certified ε of event at delta
  // The accountant that certified epsilon (the smallest of those that apply: exact Gaussian for
  // a run made only of Gaussian-type queries, RDP otherwise; a Rényi-filtered run is RDP).
  accountant::Accountant accountant = accountant::Accountant::kRdp;
  double calibration_seconds = 0;
  std::optional<accountant::Event> event;
  // renyi_filter only (S-BDT §6.5, accountant::CalibrateTrainingRun): the order α̂ and the
  // per-record budget ρ(α̂) of the individual Rényi filter; epsilon is the certified ε at α̂.
  double filter_order = 0;
  double filter_budget = 0;
};
// The δ used when the config gives none: 10^−k, the largest power of ten strictly below 1/n, so
// that δ < 1/n and the released δ reveals only the number of decimal digits of n.
double DefaultDelta(std::size_t n_rows);
// Text for the training log's "delta_source" when DefaultDelta was used.
const char* DefaultDeltaSource();

// n_rows is the number of training rows: it sets δ = DefaultDelta(n) when the config gives none,
// and a given δ must be below 1/n unless privacy.allow_large_delta (docs/trees_training.md).
PrivacyPlan PlanPrivacy(const TrainerConfig& config, std::size_t n_rows, const QueryShape& shape);

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_ACCOUNTING_H_
