// Splits chosen from noisy cells: histogram (Maddock §4.3.1) and partially random (§4.3.2). Each
// level releases one query per feature (the level's nodes are disjoint); the last level's child
// sums are the leaf sums (κ_w = 0, Maddock Table 1).
#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "split_strategy.h"

namespace rdpkit::trees::internal {
namespace {

// Best split of one node from its (noisy) cells: value cells 0..q and the missing cell q + 1.
struct SplitChoice {
  double gain = -std::numeric_limits<double>::infinity();
  int slot = 0;
  std::uint16_t split_bin = 1;
  bool default_left = true;
  Pair left, right;
};

// Considers every split j ∈ [1, q] of the cells h (q + 2 of them) in both default directions:
// gain = score(left) + score(right) − score(parent) (Maddock Eq. 5). split_bin is j, or
// random_bin for partially random cells (q = 1).
void ConsiderSplits(const std::vector<Pair>& h, std::size_t q, int slot,
                    const std::uint16_t* random_bin, const LeafParams& params, SplitChoice& best) {
  Pair values;
  for (std::size_t c = 0; c <= q; ++c) values += h[c];
  const Pair missing = h[q + 1];
  const double parent = NodeScore(values + missing, params);
  Pair prefix;
  for (std::size_t j = 1; j <= q; ++j) {
    prefix += h[j - 1];
    for (int dl = 1; dl >= 0; --dl) {
      const Pair left = dl ? prefix + missing : prefix;
      const Pair right = dl ? values - prefix : values - prefix + missing;
      const double gain = NodeScore(left, params) + NodeScore(right, params) - parent;
      if (gain > best.gain) {
        best.gain = gain;
        best.slot = slot;
        best.split_bin = random_bin ? *random_bin : static_cast<std::uint16_t>(j);
        best.default_left = dl != 0;
        best.left = left;
        best.right = right;
      }
    }
  }
}

// The value-bin range [lo, hi) of each node of a level and whether it holds the missing cell:
// with one feature per tree the root histogram restricted to a node's range is its histogram
// (Maddock §5.1).
struct NodeRanges {
  std::vector<std::uint16_t> lo, hi;
  std::vector<std::uint8_t> has_missing;
  // The children's ranges after the level's splits (feature, split bin, default direction).
  void Split(const HeapTree& tree, std::size_t first) {
    NodeRanges next;
    for (std::size_t node = 0; node < lo.size(); ++node) {
      const std::uint16_t j = tree.split_bin[first + node];
      const bool default_left = tree.default_left[first + node] != 0;
      next.lo.push_back(lo[node]);
      next.hi.push_back(std::max(lo[node], std::min(hi[node], j)));
      next.has_missing.push_back(has_missing[node] && default_left ? 1 : 0);
      next.lo.push_back(std::min(hi[node], std::max(lo[node], j)));
      next.hi.push_back(hi[node]);
      next.has_missing.push_back(has_missing[node] && !default_left ? 1 : 0);
    }
    *this = std::move(next);
  }
};

class NoisyCellSplits final : public SplitStrategy {
 public:
  NoisyCellSplits(bool partially_random, int features_per_tree)
      : partially_random_(partially_random),
        features_per_tree_(features_per_tree),
        root_only_(!partially_random && features_per_tree == 1) {}

  TreeQueries QueriesPerTree(int depth) const override {
    // Maddock §4.3.1–4.3.2, §5.1: one query per feature per level (κ_s = T·k·d); a histogram
    // with k = 1 uses the root histogram at every level (κ_s = T). κ_w = 0.
    const auto k = static_cast<std::uint64_t>(features_per_tree_);
    return TreeQueries{.split = root_only_ ? 1 : k * static_cast<std::uint64_t>(depth)};
  }

  bool RefinesCandidatesFromRootHistogram() const override { return !partially_random_; }

  void Grow(GrowContext& context, const std::vector<int>& features, HeapTree& tree,
            std::vector<Pair>& leaf_sums, RootHessian* root_hessian) const override;

 private:
  // The level's released cells: hist[(slot · count + node) · cells + cell].
  std::vector<Pair> ReleaseLevel(GrowContext& context, const std::vector<int>& features,
                                 std::size_t count, std::size_t cells,
                                 std::vector<std::vector<std::uint16_t>>& random_bin) const;

  bool partially_random_;
  int features_per_tree_;
  bool root_only_;
};

std::vector<Pair> NoisyCellSplits::ReleaseLevel(
    GrowContext& context, const std::vector<int>& features, std::size_t count, std::size_t cells,
    std::vector<std::vector<std::uint16_t>>& random_bin) const {
  const BinnedMatrix& bins = context.bins();
  if (partially_random_) {
    // One random candidate per node and feature, then its (left, right, missing) sums.
    random_bin.assign(features.size(), std::vector<std::uint16_t>(count));
    for (std::size_t node = 0; node < count; ++node) {
      for (std::size_t slot = 0; slot < features.size(); ++slot) {
        const std::uint64_t q = bins.candidates(static_cast<std::size_t>(features[slot])).size();
        random_bin[slot][node] = static_cast<std::uint16_t>(1 + UniformIndex(context.rng(), q));
      }
    }
    std::vector<Pair> hist = context.Histogram(features, cells, count, &random_bin, false);
    for (std::size_t slot = 0; slot < features.size(); ++slot) {
      context.plan().ReleaseSums(Release::kPartiallyRandom, &hist[slot * count * cells], 1,
                                 count * cells, count * cells);
    }
    return hist;
  }
  std::vector<Pair> hist = context.Histogram(features, cells, count, nullptr, false);
  // Noise on every released cell of every node (empty cells too).
  for (std::size_t slot = 0; slot < features.size(); ++slot) {
    const std::size_t q = bins.candidates(static_cast<std::size_t>(features[slot])).size();
    context.plan().ReleaseSums(Release::kHistogram, &hist[slot * count * cells], count, cells,
                               q + 2);
  }
  return hist;
}

void NoisyCellSplits::Grow(GrowContext& context, const std::vector<int>& features, HeapTree& tree,
                           std::vector<Pair>& leaf_sums, RootHessian* root_hessian) const {
  const BinnedMatrix& bins = context.bins();
  const int depth = tree.depth;
  leaf_sums.assign(HeapTree::Leaves(depth), Pair{});
  context.ResetNodes();
  std::vector<Pair> root;  // the released root histogram (root_only_)
  NodeRanges ranges;       // (root_only_)
  std::size_t max_q = 0;
  for (int f : features)
    max_q = std::max(max_q, bins.candidates(static_cast<std::size_t>(f)).size());
  const std::size_t cells = partially_random_ ? 3 : max_q + 2;
  std::vector<std::vector<std::uint16_t>> random_bin;
  for (int level = 0; level < depth; ++level) {
    const std::size_t first = (std::size_t{1} << level) - 1;
    const std::size_t count = std::size_t{1} << level;
    std::vector<Pair> hist;
    if (!root_only_ || level == 0) {
      hist = ReleaseLevel(context, features, count, cells, random_bin);
      if (level == 0 && !partially_random_ && root_hessian) {
        root_hessian->assign(features.size(), {});
        for (std::size_t slot = 0; slot < features.size(); ++slot) {
          const std::size_t q = bins.candidates(static_cast<std::size_t>(features[slot])).size();
          for (std::size_t c = 0; c <= q; ++c) {
            (*root_hessian)[slot].push_back(hist[slot * cells + c].b);  // the root: one node
          }
        }
      }
      if (level == 0 && root_only_) {
        root = hist;
        ranges.lo.assign(1, 0);
        ranges.hi.assign(1, static_cast<std::uint16_t>(
                                bins.candidates(static_cast<std::size_t>(features[0])).size() + 1));
        ranges.has_missing.assign(1, 1);
      }
    }
    for (std::size_t node = 0; node < count; ++node) {
      SplitChoice best;
      for (std::size_t slot = 0; slot < features.size(); ++slot) {
        const auto f = static_cast<std::size_t>(features[slot]);
        const std::size_t q = partially_random_ ? 1 : bins.candidates(f).size();
        std::vector<Pair> h(q + 2);
        if (root_only_) {
          // The node's histogram is the root histogram restricted to its bin range.
          for (std::size_t c = ranges.lo[node]; c < ranges.hi[node]; ++c) h[c] = root[c];
          if (ranges.has_missing[node]) h[q + 1] = root[q + 1];
        } else {
          const Pair* src = &hist[(slot * count + node) * cells];
          for (std::size_t c = 0; c < q + 1; ++c) h[c] = src[c];
          h[q + 1] = src[partially_random_ ? 2 : q + 1];
        }
        ConsiderSplits(h, q, static_cast<int>(slot),
                       partially_random_ ? &random_bin[slot][node] : nullptr, context.leaf_params(),
                       best);
      }
      const std::size_t id = first + node;
      tree.feature[id] = features[static_cast<std::size_t>(best.slot)];
      tree.split_bin[id] = best.split_bin;
      tree.default_left[id] = best.default_left ? 1 : 0;
      if (level + 1 == depth) {
        // The last level's child sums are the leaf sums (κ_w = 0, Maddock Table 1).
        leaf_sums[2 * node] = best.left;
        leaf_sums[2 * node + 1] = best.right;
      }
    }
    if (root_only_) ranges.Split(tree, first);
    context.RouteLevel(tree, first);
  }
}

}  // namespace

std::unique_ptr<SplitStrategy> MakeHistogramSplits(int features_per_tree) {
  return std::make_unique<NoisyCellSplits>(/*partially_random=*/false, features_per_tree);
}

std::unique_ptr<SplitStrategy> MakePartiallyRandomSplits(int features_per_tree) {
  return std::make_unique<NoisyCellSplits>(/*partially_random=*/true, features_per_tree);
}

}  // namespace rdpkit::trees::internal
