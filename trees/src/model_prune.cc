// WithoutUnreachableNodes (model.h): a tree without the subtrees no row can reach. A split may
// send every row its path allows to one side: random splits are drawn over a feature's whole
// range, so that once a path has split a feature, later splits of it often fall outside what the
// path allows (S-BDT's coarse trees, docs/trees_auto_why.md). Exact for every row: any reals, ±inf
// and NaN reach a leaf of the same value as in the whole tree (GoesLeft).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "rdpkit/trees/model.h"

namespace rdpkit::trees {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// What the path to a node allows of one feature: present values in [lo, hi) (hi = +inf: no upper
// bound, +inf itself included; thresholds are finite), and a missing value while every split of
// the feature so far sent NaN this way.
struct Allowed {
  double lo = -kInf;
  double hi = kInf;
  bool missing = true;
  [[nodiscard]] bool Reachable() const { return lo < hi || missing; }
};

class Pruner {
 public:
  explicit Pruner(const Tree& tree) : in_(tree) {
    int features = 0;
    for (const Node& node : tree.nodes) features = std::max(features, node.feature + 1);
    allowed_.resize(static_cast<std::size_t>(features));
  }

  // Copies the reachable part of the subtree at `index` to out, returning its new index.
  int Copy(int index) {
    const Node& node = in_.nodes[static_cast<std::size_t>(index)];
    if (node.is_leaf()) {
      out_.nodes.push_back(node);
      return static_cast<int>(out_.nodes.size()) - 1;
    }
    Allowed& allowed = allowed_[static_cast<std::size_t>(node.feature)];
    const Allowed here = allowed;
    // GoesLeft: x < threshold left, x ≥ threshold right, NaN to default_left's side.
    const Allowed left{here.lo, std::min(here.hi, node.threshold),
                       here.missing && node.default_left};
    const Allowed right{std::max(here.lo, node.threshold), here.hi,
                        here.missing && !node.default_left};
    int at;
    if (!left.Reachable() || !right.Reachable()) {
      // Every row here takes the other side: the split gives way to it (one side is always
      // reachable, as the two cover what reaches the node).
      const bool to_left = left.Reachable();
      allowed = to_left ? left : right;
      at = Copy(to_left ? node.left : node.right);
    } else {
      at = static_cast<int>(out_.nodes.size());
      out_.nodes.push_back(node);
      allowed = left;
      const int left_at = Copy(node.left);
      allowed = right;
      const int right_at = Copy(node.right);
      out_.nodes[static_cast<std::size_t>(at)].left = left_at;
      out_.nodes[static_cast<std::size_t>(at)].right = right_at;
    }
    allowed = here;
    return at;
  }

  Tree Take() { return std::move(out_); }

 private:
  const Tree& in_;
  Tree out_;
  std::vector<Allowed> allowed_;  // per feature, on the current path
};

}  // namespace

Tree WithoutUnreachableNodes(const Tree& tree) {
  if (tree.nodes.empty()) return tree;
  Pruner pruner(tree);
  pruner.Copy(0);
  return pruner.Take();
}

}  // namespace rdpkit::trees
