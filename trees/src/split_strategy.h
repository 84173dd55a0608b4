// Split strategies: one per split_method, each answering both "how are this tree's splits chosen"
// and "which queries does one tree make" (Maddock et al. 2022 §4.3 and Table 1; Revisiting
// DP-XGBoost §4.2). The query plan's schedule is built from QueriesPerTree, the run's releases
// from Grow, so the two cannot drift apart unnoticed: the plan checks one against the other.
#ifndef RDPKIT_TREES_SRC_SPLIT_STRATEGY_H_
#define RDPKIT_TREES_SRC_SPLIT_STRATEGY_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "binned_matrix.h"
#include "heap_tree.h"
#include "leaf_value.h"
#include "query_plan.h"
#include "rdpkit/mechanisms/random.h"
#include "rdpkit/trees/config.h"
#include "statistics.h"

namespace rdpkit::trees::internal {

// Uniform integer in [0, n), n ≥ 1, by rejection (no modulo bias).
inline std::uint64_t UniformIndex(mechanisms::Random& rng, std::uint64_t n) {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t limit = max - (max % n + 1) % n;
  for (;;) {
    const std::uint64_t x = rng.NextU64();
    if (x <= limit) return x % n;
  }
}

// Uniform integer in [0, n), n ≥ 1.
inline int UniformInt(mechanisms::Random& rng, int n) {
  return static_cast<int>(UniformIndex(rng, static_cast<std::uint64_t>(n)));
}

// Number of features a tree may split on (Maddock §5.1: k-way interactions; "all" = m).
int FeaturesPerTree(const TrainerConfig& config, int n_features);

// The features tree t may split on (Maddock §5.1): all splittable ones, the next k of them
// (cyclical) or k drawn at random from rng (random); sorted.
std::vector<int> TreeFeatures(InteractionMethod method, const std::vector<int>& splittable,
                              int features_per_tree, int t, mechanisms::Random& rng);

// What a strategy uses while it grows one tree; the trainer implements it. Sums are exact sums
// of the statistics of the rows in the current sample; only the plan makes them noisy.
class GrowContext {
 public:
  virtual ~GrowContext() = default;
  virtual const BinnedMatrix& bins() const = 0;
  virtual mechanisms::Random& rng() = 0;
  virtual QueryPlan& plan() = 0;
  virtual const LeafParams& leaf_params() const = 0;
  // Every row back at the root (node 0 of level 0).
  virtual void ResetNodes() = 0;
  // Every row one level down from the level whose first node is `first`.
  virtual void RouteLevel(const HeapTree& tree, std::size_t first) = 0;
  // Every row to its leaf, and the per-leaf sums (one pass).
  virtual void RouteToLeaves(const HeapTree& tree, std::vector<Pair>& sums) = 0;
  // Per-leaf sums of rows already at their leaves.
  virtual void SumLeaves(std::size_t leaves, std::vector<Pair>& sums) = 0;
  // hist[(slot · count + node) · cells + cell] over the `count` nodes of the current level.
  // cell_split == nullptr: cell = bin, the missing bin is cell Q_f + 1. Otherwise (partially
  // random) 0: left of the node's candidate (*cell_split)[slot][node], 1: right, 2: missing.
  // count_as_b: b is replaced by 1 (row counts).
  virtual std::vector<Pair> Histogram(const std::vector<int>& features, std::size_t cells,
                                      std::size_t count,
                                      const std::vector<std::vector<std::uint16_t>>* cell_split,
                                      bool count_as_b) = 0;
};

class SplitStrategy {
 public:
  virtual ~SplitStrategy() = default;
  // The queries of one tree of depth d.
  virtual TreeQueries QueriesPerTree(int depth) const = 0;
  // Whether the splits are data independent (no split query): every row's leaf and the leaf sums
  // then come from one routing pass, which the trainer fuses with the statistics.
  virtual bool DataIndependent() const { return false; }
  // The depth a tree over `features` is grown to, given the run's depth for it (TreeDepth):
  // that depth, unless the strategy's deeper levels cannot partition the rows any further.
  virtual int GrownDepth(int depth, const BinnedMatrix& /*bins*/,
                         const std::vector<int>& /*features*/) const {
    return depth;
  }
  // Whether the released root histogram refines iterative_hessian candidates (post-processing,
  // κ_c = 0, Maddock §4.5.2) instead of Hessian-histogram queries.
  virtual bool RefinesCandidatesFromRootHistogram() const { return false; }
  // Chooses the splits of `tree` over `features`, leaves every row at its leaf (GrowContext's
  // nodes) and sets leaf_sums to the released leaf sums; root_hessian receives, per feature slot,
  // the released Hessian sum of each value bin 0..Q_f of the root, when the strategy releases a
  // root histogram (otherwise it is left empty).
  using RootHessian = std::vector<std::vector<double>>;
  virtual void Grow(GrowContext& context, const std::vector<int>& features, HeapTree& tree,
                    std::vector<Pair>& leaf_sums, RootHessian* root_hessian) const = 0;
};

// Totally random (and partially random with one feature per tree, whose split is then data
// independent too): split_random.cc. `scope` (split_scope): the candidates a node draws from.
std::unique_ptr<SplitStrategy> MakeRandomSplits(SplitScope scope);
// Histogram and partially random on noisy cells: split_histogram.cc.
std::unique_ptr<SplitStrategy> MakeHistogramSplits(int features_per_tree);
std::unique_ptr<SplitStrategy> MakePartiallyRandomSplits(int features_per_tree);
// Exponential mechanism: split_exponential.cc.
std::unique_ptr<SplitStrategy> MakeExponentialSplits();

// The strategy of config.split_method (and split_scope) with k features per tree.
std::unique_ptr<SplitStrategy> MakeSplitStrategy(const TrainerConfig& config,
                                                 int features_per_tree);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_SPLIT_STRATEGY_H_
