// The query plan: the only way the trainer releases anything computed from the data.
//
// A run is a schedule of queries (Maddock et al. 2022 Table 1; S-BDT §6.2–6.3; Revisiting
// DP-XGBoost §4.2), tree by tree. The plan owns the mechanisms that answer them, built once from
// the noise multiplier σ and the sensitivities of the statistics; every noisy value the trainer
// uses comes out of one of its Release*/Select* calls. The run's privacy event is a function of
// the ledger of what was released and of the mechanisms' own event(): calibration evaluates the
// same function on the schedule. A release beyond the schedule, or a scheduled query left
// unreleased, is an InternalError (RDPKIT_CHECK, on in release builds).
//
// A query releases a block of disjoint cells (the nodes of a level, the leaves of a tree): a
// record falls in one cell, so the block has the sensitivity of one cell (parallel composition).
// Where the sums came from (one process, several ranks) and how wide a cell's statistics are do
// not change the ledger: only ReleaseSums' cell type and mechanism would (docs/architecture.md).
#ifndef RDPKIT_TREES_SRC_QUERY_PLAN_H_
#define RDPKIT_TREES_SRC_QUERY_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "rdpkit/accountant/event.h"
#include "rdpkit/mechanisms/exponential.h"
#include "rdpkit/mechanisms/gaussian.h"
#include "rdpkit/mechanisms/laplace.h"
#include "rdpkit/mechanisms/random.h"
#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/communicator.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/train.h"
#include "statistics.h"

namespace rdpkit::trees::internal {

class DistributedReleases;

// What one query releases; each kind counts toward one of κ_c, κ_s, κ_w.
enum class Release {
  kHessianHistogram,  // κ_c: noisy Hessian histogram of one feature (Maddock §4.5.2)
  kHistogram,         // κ_s: (a, b) histogram of one feature over a level's nodes (§4.3.1)
  kPartiallyRandom,   // κ_s: (a, b) left/right/missing sums of one feature over a level (§4.3.2)
  kExponentialSplit,  // κ_s: an exponential-mechanism split per node of a level (Revisiting §4.2)
  kLeaf,              // κ_w: (a, b) sums of every leaf of a tree (§4.4)
};
// The name in NoiseRecord::query: "hessian_histogram", "histogram", … (kExponentialSplit draws
// no additive noise).
const char* NoiseLogName(Release release);

// The queries of one tree (one Poisson round when subsampled).
struct TreeQueries {
  std::uint64_t candidate = 0;  // Hessian histograms
  std::uint64_t split = 0;      // histograms, partially random sums or exponential selections
  std::uint64_t leaf = 0;       // leaf sums
  bool operator==(const TreeQueries& other) const = default;
};

// What a run releases: the initial score, then tree after tree (run-length encoded). With a
// multiclass objective a "tree" of the schedule is a boosting round of `classes` class trees:
// multi:softprob (joint_classes) releases the i-th query of every class tree of a round as one
// query of the concatenated class vector (its sensitivity: softmax.h), so a round has the
// queries of one class tree; multi:ovr composes them, so a round has K times those queries.
struct QuerySchedule {
  bool initial_score = false;
  bool exponential_splits = false;  // split queries are exponential selections
  int classes = 1;                  // class trees per round (K for multiclass, else 1)
  bool joint_classes = false;       // multi:softprob: a round's class trees' queries are joint
  std::vector<std::pair<std::uint64_t, TreeQueries>> runs;  // (consecutive trees, each one's)

  // The schedule of a configuration (split queries per tree from its split strategy).
  static QuerySchedule Of(const TrainerConfig& config, const QueryShape& shape);
  void AddTrees(std::uint64_t count, const TreeQueries& queries);
  std::uint64_t trees() const;
  TreeQueries Totals() const;
  // The queries one class tree of a round makes (the round's, divided among its class trees).
  TreeQueries PerClass(const TreeQueries& round) const;
  bool operator==(const QuerySchedule& other) const = default;
};

class QueryPlan {
 public:
  // The mechanisms of a run for noise multiplier σ > 0 (σ = 0: a non-private run, releases are
  // exact and there is no event). rng draws the noise (nullptr: a plan that only builds events);
  // noise_log, when set, receives every draw.
  QueryPlan(const TrainerConfig& config, QuerySchedule schedule, double noise_multiplier,
            mechanisms::Random* rng = nullptr, std::vector<NoiseRecord>* noise_log = nullptr);
  ~QueryPlan();
  QueryPlan(QueryPlan&&) noexcept;

  // A run over the communicator's K > 1 ranks (docs/distributed.md): every release first combines
  // the ranks' exact sums, then adds the noise once (distributed_noise "central": rank 0's values
  // are broadcast) or as K shares under secure aggregation ("shares"). n_rows: all ranks' rows.
  // The ledger and the event do not change: the release is the single-process one.
  void UseCommunicator(Communicator& communicator, const TrainerConfig& config,
                       std::uint64_t n_rows);
  // Sums over the ranks of exact cells that are not released themselves (the exponential
  // mechanism's utilities, central only); nothing without a communicator.
  void CombineExact(std::vector<Pair>& cells);

  // The initial score's release alone (two Laplace mechanisms, S-BDT §6.2), or nullopt.
  static std::optional<accountant::Event> InitialScoreEvent(const TrainerConfig& config);

  // A run under an individual Rényi filter (S-BDT §6.5–6.6): the event becomes a renyi_filter
  // at `order` with per-record `budget` over every scheduled tree (Feldman & Zrnic 2021 Thm 4.5).
  void UseRenyiFilter(double order, double budget);

  // The event of the whole schedule: what calibration solves σ for.
  [[nodiscard]] accountant::Event ScheduledEvent() const;
  // The event of what was released; InternalError unless the run released exactly the schedule.
  [[nodiscard]] accountant::Event ReleasedEvent() const;

  // Brackets the releases of one tree (S-BDT §6.3: one Poisson round); with a multiclass
  // objective, of one round of class trees, each begun with BeginClass. EndTree checks that
  // every class tree made exactly the per-class queries of the schedule.
  void BeginTree();
  void BeginClass(int k);
  void EndTree();

  // The initial score's noisy count and noisy sum of clipped labels (once, before any tree).
  std::pair<double, double> ReleaseInitialScore(double count, double label_sum);
  // The Laplace scales b of that count's and that sum's noise.
  std::pair<double, double> InitialScoreNoiseScales() const;
  // A new g* (> 0) before any tree (initial_score.adapt_gradient_clip): the statistics' mechanisms
  // take the new gradient sensitivity at the same σ, so the event is unchanged (checked).
  void AdaptGradientClip(double gradient_clip);
  // One query: noise on both statistics of every cell first[g·stride + c], g < groups,
  // c < width (empty cells too), in that order.
  void ReleaseSums(Release release, Pair* first, std::size_t groups, std::size_t stride,
                   std::size_t width);
  // One iterative-Hessian query: noise on every cell of one feature's Hessian histogram.
  void ReleaseHessianHistogram(std::vector<double>& cells);
  // One exponential-split query: a choice per node of a level (utilities[node][option]); without
  // noise, the argmax.
  std::vector<std::size_t> SelectSplits(const std::vector<std::vector<double>>& utilities);

  bool noisy() const noexcept { return noisy_; }
  double noise_multiplier() const noexcept { return noise_multiplier_; }
  const Sensitivities& sensitivities() const noexcept { return sensitivities_; }
  // Standard deviation of the noise on a released Hessian-type sum (b); 0 without noise.
  double hessian_noise_stddev() const;
  double exponential_epsilon() const noexcept { return exponential_epsilon_; }
  double exponential_sensitivity() const noexcept {
    return exponential_ ? exponential_->sensitivity() : 0.0;
  }
  std::uint64_t exponential_selections() const noexcept { return exponential_selections_; }
  const QuerySchedule& schedule() const noexcept { return schedule_; }

 private:
  accountant::Event EventOf(const QuerySchedule& ledger) const;
  accountant::Event TreeEvent(const TreeQueries& tree) const;
  // The event of one (a, b) statistics query: the leaf-balanced or the spherical mechanism's.
  accountant::Event PairEvent() const;
  // Counts one query against the open tree's schedule (InternalError past it).
  void Count(Release release);
  void Log(Release release, int coordinate, double exact, double noisy);
  void AddNoise(Release release, Pair& cell);
  // The mechanisms of the (a, b) statistics and of the exponential splits, from σ, the
  // sensitivities and the leaf noise weights (one place for their noise scales).
  void BuildStatisticMechanisms();

  QuerySchedule schedule_;
  double sampling_probability_;
  bool noisy_;
  double noise_multiplier_;
  Sensitivities sensitivities_;
  std::vector<double> leaf_noise_weights_;  // empty: spherical noise
  mechanisms::Random* rng_;
  std::vector<NoiseRecord>* noise_log_;

  std::optional<mechanisms::GaussianMechanism> pair_gaussian_;              // spherical noise
  std::optional<mechanisms::LeafBalancedGaussianMechanism> pair_balanced_;  // S-BDT §5.2
  std::optional<mechanisms::GaussianMechanism> hessian_gaussian_;
  std::optional<mechanisms::ExponentialMechanism> exponential_;
  std::optional<mechanisms::LaplaceMechanism> initial_count_;
  std::optional<mechanisms::LaplaceMechanism> initial_sum_;
  double exponential_epsilon_ = 0;
  std::optional<std::pair<double, double>> renyi_filter_;  // (order, budget)
  std::unique_ptr<DistributedReleases> distributed_;       // runs over several ranks

  // The ledger.
  QuerySchedule released_;
  std::uint64_t next_tree_ = 0;     // trees begun so far
  std::size_t schedule_run_ = 0;    // the schedule's run holding tree next_tree_ − 1
  std::uint64_t trees_in_run_ = 0;  // trees of that run begun so far
  bool tree_open_ = false;
  int open_class_ = 0;                     // the class tree releasing now
  std::vector<TreeQueries> open_classes_;  // each class tree's releases in the open round
  std::uint64_t exponential_selections_ = 0;
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_QUERY_PLAN_H_
