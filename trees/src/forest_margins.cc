// Block prediction: rows cross a tree level by level (forest_margins.h).
#include "forest_margins.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {
namespace {

// Deeper trees (only from a hand-written model file: the trainer's are far shallower) are walked
// row by row, so that a long chain costs each row its own path, not the chain's whole length.
constexpr int kMaxLevelByLevelDepth = 32;

}  // namespace

ForestMargins::ForestMargins(const Model& model) : n_features_(model.feature_names.size()) {
  trees_.reserve(model.trees.size());
  for (const Tree& tree : model.trees) Append(tree);
}

void ForestMargins::Append(const Tree& tree) {
  const std::size_t first = steps_.size();
  // Indices are ints; a model file under its 1 GiB limit holds far fewer nodes.
  RDPKIT_CHECK(first + tree.nodes.size() <
               static_cast<std::size_t>(std::numeric_limits<int>::max()));
  steps_.resize(first + tree.nodes.size());
  values_.resize(first + tree.nodes.size(), 0.0);
  // Breadth first from the root of a validated tree (Tree::Validate: each node reached once);
  // each internal node claims the next two places for its children.
  struct Visit {
    int node;        // index in tree.nodes
    std::size_t at;  // place in steps_
    int depth;
  };
  std::vector<Visit> queue = {{0, first, 0}};
  std::size_t next_free = first + 1;
  int deepest = 0;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const Visit visit = queue[q];
    const Node& node = tree.nodes[static_cast<std::size_t>(visit.node)];
    deepest = std::max(deepest, visit.depth);
    if (node.is_leaf()) {
      steps_[visit.at] = {std::numeric_limits<double>::quiet_NaN(), 0,
                          static_cast<int>(visit.at) - 1, false, true};
      values_[visit.at] = node.value;
      continue;
    }
    steps_[visit.at] = {node.threshold, node.feature, static_cast<int>(next_free),
                        node.default_left, false};
    queue.push_back({node.left, next_free, visit.depth + 1});
    queue.push_back({node.right, next_free + 1, visit.depth + 1});
    next_free += 2;
  }
  trees_.push_back({first, deepest});
}

int ForestMargins::Next(const Step& step, const double* row) const {
  const double x = row[static_cast<std::size_t>(step.feature)];
  // GoesLeft (model.h): x < threshold left, NaN to default_left's side. A leaf's NaN threshold
  // sends every x "right", to left + 1, itself.
  const bool goes_left = (x < step.threshold) | (std::isnan(x) & step.default_left);
  return step.left + static_cast<int>(!goes_left);
}

void ForestMargins::AddLevelByLevel(const TreeSpan& tree, const double* rows, std::size_t count,
                                    std::size_t k, std::size_t c, double* margins) const {
  std::array<int, kBlock> at;  // the node each row stands at
  at.fill(static_cast<int>(tree.first));
  // One step per row per level: the rows' walks do not wait on each other, so the processor
  // overlaps them, where one row's walk waits on each of its loads in turn.
  for (int level = 0; level < tree.depth; ++level) {
    for (std::size_t r = 0; r < count; ++r) {
      at[r] = Next(steps_[static_cast<std::size_t>(at[r])], &rows[r * n_features_]);
    }
  }
  for (std::size_t r = 0; r < count; ++r) {
    margins[r * k + c] += values_[static_cast<std::size_t>(at[r])];
  }
}

void ForestMargins::AddRowByRow(const TreeSpan& tree, const double* rows, std::size_t count,
                                std::size_t k, std::size_t c, double* margins) const {
  for (std::size_t r = 0; r < count; ++r) {
    std::size_t i = tree.first;
    while (!steps_[i].leaf) i = static_cast<std::size_t>(Next(steps_[i], &rows[r * n_features_]));
    margins[r * k + c] += values_[i];
  }
}

void ForestMargins::Add(const double* rows, std::size_t count, std::size_t k,
                        double* margins) const {
  RDPKIT_CHECK(count <= kBlock);
  for (std::size_t t = 0; t < trees_.size(); ++t) {
    const TreeSpan& tree = trees_[t];
    const std::size_t c = t % k;
    if (tree.depth <= kMaxLevelByLevelDepth) {
      AddLevelByLevel(tree, rows, count, k, c, margins);
    } else {
      AddRowByRow(tree, rows, count, k, c, margins);
    }
  }
}

}  // namespace rdpkit::trees::internal
