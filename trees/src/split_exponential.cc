// Greedy splits by the exponential mechanism (Revisiting DP-XGBoost §4.2): each level releases
// one selection per node (one query: the level's nodes are disjoint), then one leaf query.
#include <memory>
#include <utility>
#include <vector>

#include "split_strategy.h"
#include "statistics.h"

namespace rdpkit::trees::internal {
namespace {

class ExponentialSplits final : public SplitStrategy {
 public:
  TreeQueries QueriesPerTree(int depth) const override {
    // One exponential selection per level, then one leaf query per tree.
    return TreeQueries{.split = static_cast<std::uint64_t>(depth), .leaf = 1};
  }

  void Grow(GrowContext& context, const std::vector<int>& features, HeapTree& tree,
            std::vector<Pair>& leaf_sums, RootHessian* /*root_hessian*/) const override {
    const BinnedMatrix& bins = context.bins();
    const double lambda = context.leaf_params().reg_lambda;
    context.ResetNodes();
    std::size_t max_q = 0;
    for (int f : features) {
      max_q = std::max(max_q, bins.candidates(static_cast<std::size_t>(f)).size());
    }
    const std::size_t cells = max_q + 2;
    for (int level = 0; level < tree.depth; ++level) {
      const std::size_t first = (std::size_t{1} << level) - 1;
      const std::size_t count = std::size_t{1} << level;
      // Utility Σ_children G²/(n + λ) of every (feature, candidate) of the node on exact sums of
      // (a, count); missing values go left. Every candidate is scored; nothing is pre-filtered
      // with exact data.
      std::vector<Pair> hist = context.Histogram(features, cells, count, nullptr, true);
      context.plan().CombineExact(hist);  // every rank's rows (runs over several ranks)
      std::vector<std::vector<double>> utilities(count);
      std::vector<std::vector<std::pair<int, std::uint16_t>>> options(count);
      for (std::size_t node = 0; node < count; ++node) {
        for (std::size_t slot = 0; slot < features.size(); ++slot) {
          const auto f = static_cast<std::size_t>(features[slot]);
          const std::size_t q = bins.candidates(f).size();
          const Pair* h = &hist[(slot * count + node) * cells];
          Pair total = h[q + 1];
          for (std::size_t c = 0; c <= q; ++c) total += h[c];
          Pair left = h[q + 1];
          for (std::size_t j = 1; j <= q; ++j) {
            left += h[j - 1];
            utilities[node].push_back(SplitUtility(left, total - left, lambda));
            options[node].emplace_back(static_cast<int>(f), static_cast<std::uint16_t>(j));
          }
        }
      }
      const std::vector<std::size_t> picks = context.plan().SelectSplits(utilities);
      for (std::size_t node = 0; node < count; ++node) {
        tree.feature[first + node] = options[node][picks[node]].first;
        tree.split_bin[first + node] = options[node][picks[node]].second;
        tree.default_left[first + node] = 1;
      }
      context.RouteLevel(tree, first);
    }
    context.SumLeaves(HeapTree::Leaves(tree.depth), leaf_sums);
    context.plan().ReleaseSums(Release::kLeaf, leaf_sums.data(), 1, leaf_sums.size(),
                               leaf_sums.size());
  }
};

}  // namespace

std::unique_ptr<SplitStrategy> MakeExponentialSplits() {
  return std::make_unique<ExponentialSplits>();
}

}  // namespace rdpkit::trees::internal
