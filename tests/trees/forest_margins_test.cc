// Block prediction (forest_margins.cc) against the one-row walk of Tree::Predict, bit for bit, on
// random trees whose node order, depth and shape are nothing like the trainer's.
#include "forest_margins.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "softmax.h"

namespace rdpkit::trees {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A few values both as thresholds and as data, so that ties (x == threshold goes right) are common.
constexpr double kValues[] = {-kInf, -1.0, 0.0, 0.5, 1.0, 2.0, kInf};

double RandomValue(std::mt19937_64& rng) {
  if (rng() % 8 == 0) return kNaN;
  return kValues[rng() % std::size(kValues)];
}

// Nodes in creation order: a split stops at each level with probability 1/4, and always at
// max_depth; a chain (one child a leaf at every level) when `chain`.
void Grow(std::vector<Node>& nodes, int index, int depth, int max_depth, bool chain,
          std::size_t n_features, std::mt19937_64& rng) {
  if (depth == max_depth || (!chain && rng() % 4 == 0)) {
    nodes[static_cast<std::size_t>(index)].value = static_cast<double>(rng() % 1000) / 7.0;
    return;
  }
  Node split;
  split.feature = static_cast<int>(rng() % n_features);
  split.threshold = kValues[1 + rng() % (std::size(kValues) - 2)];  // finite (Tree::Validate)
  split.default_left = rng() % 2 == 0;
  split.left = static_cast<int>(nodes.size());
  split.right = split.left + 1;
  nodes[static_cast<std::size_t>(index)] = split;
  nodes.resize(nodes.size() + 2);
  const bool chain_left = rng() % 2 == 0;
  for (const int child : {split.left, split.right}) {
    const bool grows = !chain || (child == split.left) == chain_left;
    if (grows) {
      Grow(nodes, child, depth + 1, max_depth, chain, n_features, rng);
    } else {
      nodes[static_cast<std::size_t>(child)].value = -static_cast<double>(depth);
    }
  }
}

// The same tree with its nodes (but the root) in a random order.
Tree Shuffled(const std::vector<Node>& nodes, std::mt19937_64& rng) {
  std::vector<int> place(nodes.size());
  std::iota(place.begin(), place.end(), 0);
  std::shuffle(place.begin() + 1, place.end(), rng);
  Tree tree;
  tree.nodes.resize(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    Node node = nodes[i];
    if (!node.is_leaf()) {
      node.left = place[static_cast<std::size_t>(node.left)];
      node.right = place[static_cast<std::size_t>(node.right)];
    }
    tree.nodes[static_cast<std::size_t>(place[i])] = node;
  }
  return tree;
}

Model RandomModel(std::mt19937_64& rng, std::size_t n_features) {
  Model model;
  model.objective = Objective::kRegSquaredError;
  model.base_score = 0.125;
  for (std::size_t f = 0; f < n_features; ++f)
    model.feature_names.push_back("x" + std::to_string(f));
  // Root-only trees, shallow and deep bushy trees, and chains past the level-by-level limit (32).
  for (const auto& [max_depth, chain] : {std::pair{0, false},
                                         {1, false},
                                         {6, false},
                                         {12, false},
                                         {40, true},
                                         {3, false},
                                         {33, true},
                                         {6, false}}) {
    std::vector<Node> nodes(1);
    Grow(nodes, 0, 0, max_depth, chain, n_features, rng);
    model.trees.push_back(Shuffled(nodes, rng));
    model.trees.back().Validate(static_cast<int>(n_features), 0);
  }
  return model;
}

Dataset RandomData(std::mt19937_64& rng, const Model& model, std::size_t n_rows) {
  Dataset data;
  data.feature_names = model.feature_names;
  data.columns.assign(model.feature_names.size(), std::vector<double>(n_rows));
  for (auto& column : data.columns) {
    for (double& x : column) x = RandomValue(rng);
  }
  return data;
}

TEST(ForestMargins, PredictsRandomTreesAsTheOneRowWalk) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const Model model = RandomModel(rng, 1 + static_cast<std::size_t>(trial % 4));
    // 700 rows: two whole blocks of 256 and a part block.
    const Dataset data = RandomData(rng, model, 700);
    const std::vector<double> predictions = model.Predict(data);
    ASSERT_EQ(predictions.size(), 700u);
    for (std::size_t r = 0; r < 700; ++r) {
      ASSERT_EQ(predictions[r], model.PredictRow(data.Row(r).data())) << trial << " row " << r;
    }
  }
}

TEST(ForestMargins, PredictsRandomMulticlassTreesAsTheOneRowWalk) {
  std::mt19937_64 rng(12);
  Model model = RandomModel(rng, 3);
  model.objective = Objective::kMultiSoftprob;
  model.n_classes = 3;
  const Dataset data = RandomData(rng, model, 300);
  const std::vector<double> p = model.PredictProbabilities(data);
  for (std::size_t r = 0; r < 300; ++r) {
    const std::vector<double> margins = model.PredictMargins(data.Row(r).data());
    double expected[3];
    internal::ClassProbabilities(model.objective, margins.data(), 3, expected);
    for (std::size_t c = 0; c < 3; ++c) ASSERT_EQ(p[r * 3 + c], expected[c]) << r;
  }
}

}  // namespace
}  // namespace rdpkit::trees
