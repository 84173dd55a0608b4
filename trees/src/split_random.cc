// Data-independent splits: totally random (Maddock §4.3.2 TR), and partially random with one
// feature per tree (its one random candidate is the only choice). One leaf query per tree.
#include <algorithm>
#include <memory>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "split_strategy.h"

namespace rdpkit::trees::internal {
namespace {

// Maddock §4.3.2 TR: a feature uniformly at random, then a candidate uniformly at random. The
// candidate is drawn among those inside the node's interval of that feature, which its
// ancestors' splits fix (public, data independent); a candidate outside it would send every row
// of the node to one side. Features with no such candidate are skipped; if none is left the
// split is drawn over all candidates (an empty child).
void AssignNodeScopedSplits(const BinnedMatrix& bins, mechanisms::Random& rng,
                            const std::vector<int>& features, HeapTree& tree) {
  const std::size_t k = features.size();
  std::vector<int> lo(k, 0), hi(k);
  for (std::size_t slot = 0; slot < k; ++slot) {
    hi[slot] =
        static_cast<int>(bins.candidates(static_cast<std::size_t>(features[slot])).size()) + 1;
  }
  std::vector<std::size_t> open;
  open.reserve(k);
  const auto assign = [&](const auto& self, std::size_t node, int level) -> void {
    if (level == tree.depth) return;
    open.clear();
    for (std::size_t slot = 0; slot < k; ++slot) {
      if (hi[slot] - lo[slot] > 1) open.push_back(slot);  // bins lo..hi−1: splits lo+1..hi−1
    }
    std::size_t slot;
    int j;
    if (!open.empty()) {
      slot = open[UniformIndex(rng, open.size())];
      j = lo[slot] + 1 + UniformInt(rng, hi[slot] - lo[slot] - 1);
    } else {
      slot = UniformIndex(rng, k);
      j = 1 +
          UniformInt(rng, static_cast<int>(
                              bins.candidates(static_cast<std::size_t>(features[slot])).size()));
    }
    tree.feature[node] = features[slot];
    tree.split_bin[node] = static_cast<std::uint16_t>(j);
    tree.default_left[node] = static_cast<std::uint8_t>(rng.NextU64() & 1);
    const int saved_lo = lo[slot];
    const int saved_hi = hi[slot];
    hi[slot] = std::max(saved_lo, std::min(saved_hi, j));
    self(self, 2 * node + 1, level + 1);
    hi[slot] = saved_hi;
    lo[slot] = std::min(saved_hi, std::max(saved_lo, j));
    self(self, 2 * node + 2, level + 1);
    lo[slot] = saved_lo;
  };
  assign(assign, 0, 0);
}

// split_scope "all", as S-BDT's code (kirschte/sbdt) draws it: every node, in heap order, a
// feature uniformly at random, then a candidate uniformly among all of that feature's, whatever
// the ancestors chose (a child may be empty, so trees are coarser); the missing-value direction
// is a coin flip. Public randomness only.
void AssignUnscopedSplits(const BinnedMatrix& bins, mechanisms::Random& rng,
                          const std::vector<int>& features, HeapTree& tree) {
  const std::size_t internal_nodes = (std::size_t{1} << tree.depth) - 1;
  for (std::size_t node = 0; node < internal_nodes; ++node) {
    const int feature = features[UniformIndex(rng, features.size())];
    const auto count = bins.candidates(static_cast<std::size_t>(feature)).size();
    tree.feature[node] = feature;
    // Bins 0..Q: split bin j ∈ [1, Q] sends bins < j left (candidate j − 1 is the threshold).
    tree.split_bin[node] = static_cast<std::uint16_t>(1 + UniformInt(rng, static_cast<int>(count)));
    tree.default_left[node] = static_cast<std::uint8_t>(rng.NextU64() & 1);
  }
}

class RandomSplits final : public SplitStrategy {
 public:
  explicit RandomSplits(SplitScope scope) : scope_(scope) {}

  TreeQueries QueriesPerTree(int /*depth*/) const override {
    // Maddock §4.3.2: TR splits are data independent (κ_s = 0); one leaf query per tree
    // (κ_w = T): the leaves partition the rows, so all leaf sums are one query (§4.4.3).
    return TreeQueries{.leaf = 1};
  }

  bool DataIndependent() const override { return true; }

  // Node scope: each split draws a candidate inside its feature's open range and leaves each
  // child fewer open candidates (AssignNodeScopedSplits), so every path has closed all ranges
  // after Σ_f Q_f splits; a split of a closed range sends every present value one way and only
  // parts missing values from them. Deeper levels would add nothing but such leaves (and their
  // noise draws): a one-feature tree over a code of 2 values needs 1 level, not
  // categorical_depth's 11. The depth depends on the public candidates only.
  int GrownDepth(int depth, const BinnedMatrix& bins,
                 const std::vector<int>& features) const override {
    if (scope_ == SplitScope::kAll) return depth;
    std::size_t open = 0;
    for (const int f : features) open += bins.candidates(static_cast<std::size_t>(f)).size();
    return static_cast<int>(std::clamp<std::size_t>(open, 1, static_cast<std::size_t>(depth)));
  }

  void Grow(GrowContext& context, const std::vector<int>& features, HeapTree& tree,
            std::vector<Pair>& leaf_sums, RootHessian* /*root_hessian*/) const override {
    if (scope_ == SplitScope::kAll) {
      AssignUnscopedSplits(context.bins(), context.rng(), features, tree);
    } else {
      AssignNodeScopedSplits(context.bins(), context.rng(), features, tree);
    }
    context.RouteToLeaves(tree, leaf_sums);  // routing and the exact leaf sums in one pass
    context.plan().ReleaseSums(Release::kLeaf, leaf_sums.data(), 1, leaf_sums.size(),
                               leaf_sums.size());
  }

 private:
  SplitScope scope_;
};

}  // namespace

std::unique_ptr<SplitStrategy> MakeRandomSplits(SplitScope scope) {
  return std::make_unique<RandomSplits>(scope);
}

int FeaturesPerTree(const TrainerConfig& config, int n_features) {
  switch (config.feature_interaction.method) {
    case InteractionMethod::kAll:
      return n_features;
    case InteractionMethod::kCyclical:
    case InteractionMethod::kRandom:
      return std::min(config.feature_interaction.k, n_features);
  }
  RDPKIT_CHECK(false);  // a value outside the enumeration
  return 0;
}

std::vector<int> TreeFeatures(InteractionMethod method, const std::vector<int>& splittable,
                              int features_per_tree, int t, mechanisms::Random& rng) {
  const int pool = static_cast<int>(splittable.size());
  const int k = std::min(features_per_tree, pool);
  if (method == InteractionMethod::kAll || k >= pool) return splittable;
  std::vector<int> out;
  RDPKIT_CHECK(method == InteractionMethod::kCyclical || method == InteractionMethod::kRandom);
  if (method == InteractionMethod::kCyclical) {
    // Maddock §5.1: tree t uses the next k features, cycling every m/k trees.
    for (int j = 0; j < k; ++j) {
      const long long index = (static_cast<long long>(t) * k + j) % pool;
      out.push_back(splittable[static_cast<std::size_t>(index)]);
    }
    return out;
  }
  // Random k-way: k distinct features, chosen uniformly at the start of the tree.
  std::vector<int> all = splittable;
  for (int j = 0; j < k; ++j) {
    const int r = j + UniformInt(rng, pool - j);
    std::swap(all[static_cast<std::size_t>(j)], all[static_cast<std::size_t>(r)]);
    out.push_back(all[static_cast<std::size_t>(j)]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::unique_ptr<SplitStrategy> MakeSplitStrategy(const TrainerConfig& config,
                                                 int features_per_tree) {
  switch (config.split_method) {
    case SplitMethod::kTotallyRandom:
      return MakeRandomSplits(config.split_scope);
    case SplitMethod::kPartiallyRandom:
      // With one feature per tree the random candidate is the only choice: data independent.
      if (features_per_tree == 1) return MakeRandomSplits(config.split_scope);
      return MakePartiallyRandomSplits(features_per_tree);
    case SplitMethod::kHistogram:
      return MakeHistogramSplits(features_per_tree);
    case SplitMethod::kExponential:
      return MakeExponentialSplits();
  }
  RDPKIT_CHECK(false);  // a value outside the enumeration
  return nullptr;
}

}  // namespace rdpkit::trees::internal
