// WithoutUnreachableNodes (model.h, model_prune.cc): the same leaf value for every row, and every
// leaf kept reachable, on random trees with repeated features and tied thresholds; and the
// trainer's "all"-scope trees, which it shrinks most.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "rdpkit/trees/config.h"
#include "rdpkit/trees/model.h"
#include "rdpkit/trees/train.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr int kFeatures = 3;
// Thresholds from a small set, so that a path often splits a feature twice at the same value.
constexpr double kThresholds[] = {-1.0, 0.0, 0.5, 1.0};

// A complete tree of `depth` in heap order: random features, thresholds and default sides.
Tree RandomTree(int depth, std::mt19937_64& rng) {
  Tree tree;
  const std::size_t internal = (std::size_t{1} << depth) - 1;
  tree.nodes.resize(2 * internal + 1);
  for (std::size_t i = 0; i < internal; ++i) {
    Node& node = tree.nodes[i];
    node.feature = static_cast<int>(rng() % kFeatures);
    node.threshold = kThresholds[rng() % 4];
    node.default_left = (rng() & 1) != 0;
    node.left = static_cast<int>(2 * i + 1);
    node.right = static_cast<int>(2 * i + 2);
  }
  for (std::size_t i = internal; i < tree.nodes.size(); ++i) {
    tree.nodes[i].value = static_cast<double>(i);  // distinct: a wrong leaf shows
  }
  return tree;
}

// A value of a feature: missing, ±inf, a threshold exactly (a tie), or between and beyond them.
double RandomValue(std::mt19937_64& rng) {
  static constexpr double kValues[] = {kNan, -kInf, kInf, -1.0, 0.0, 0.5,  1.0,
                                       -2.0, -0.5,  0.25, 0.75, 3.0, 1e300};
  return kValues[rng() % (sizeof(kValues) / sizeof(kValues[0]))];
}

// A row that reaches `leaf` of `tree`, built from what its path allows of each feature (NaN where
// only a missing value is allowed); fails the test where the path allows nothing.
std::vector<double> WitnessOf(const Tree& tree, int leaf) {
  std::vector<int> parent(tree.nodes.size(), -1);
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const Node& node = tree.nodes[i];
    if (node.is_leaf()) continue;
    parent[static_cast<std::size_t>(node.left)] = static_cast<int>(i);
    parent[static_cast<std::size_t>(node.right)] = static_cast<int>(i);
  }
  std::vector<double> lo(kFeatures, -kInf), hi(kFeatures, kInf);
  std::vector<char> missing(kFeatures, 1);
  for (int child = leaf, at = parent[static_cast<std::size_t>(leaf)]; at >= 0;
       child = at, at = parent[static_cast<std::size_t>(at)]) {
    const Node& node = tree.nodes[static_cast<std::size_t>(at)];
    const auto f = static_cast<std::size_t>(node.feature);
    const bool left = node.left == child;
    if (left) {
      hi[f] = std::min(hi[f], node.threshold);
    } else {
      lo[f] = std::max(lo[f], node.threshold);
    }
    missing[f] = missing[f] && (node.default_left == left);
  }
  std::vector<double> row(kFeatures);
  for (std::size_t f = 0; f < kFeatures; ++f) {
    if (lo[f] < hi[f]) {
      row[f] = std::isfinite(lo[f]) ? lo[f] : (std::isfinite(hi[f]) ? hi[f] - 1 : 0.0);
    } else {
      EXPECT_TRUE(missing[f]) << "leaf " << leaf << " feature " << f << ": nothing reaches it";
      row[f] = kNan;
    }
  }
  return row;
}

TEST(WithoutUnreachableNodes, SameLeafValueForEveryRowAndEveryLeafReachable) {
  std::mt19937_64 rng(7);
  std::size_t before = 0, after = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Tree whole = RandomTree(1 + trial % 7, rng);
    const Tree pruned = WithoutUnreachableNodes(whole);
    ASSERT_NO_THROW(pruned.Validate(kFeatures)) << trial;
    before += whole.nodes.size();
    after += pruned.nodes.size();
    for (int r = 0; r < 400; ++r) {
      const double row[kFeatures] = {RandomValue(rng), RandomValue(rng), RandomValue(rng)};
      ASSERT_EQ(pruned.Predict(row), whole.Predict(row)) << "trial " << trial << " row " << r;
    }
    for (std::size_t i = 0; i < pruned.nodes.size(); ++i) {
      if (!pruned.nodes[i].is_leaf()) continue;
      const std::vector<double> row = WitnessOf(pruned, static_cast<int>(i));
      EXPECT_EQ(pruned.LeafIndex(row.data()), static_cast<int>(i)) << "trial " << trial;
    }
    // Nothing left to prune: a second pass gives the same nodes.
    const Tree again = WithoutUnreachableNodes(pruned);
    ASSERT_EQ(again.nodes.size(), pruned.nodes.size()) << trial;
  }
  // Three features and four thresholds: deep trees repeat splits, and many go.
  EXPECT_LT(after, before / 2);
}

TEST(WithoutUnreachableNodes, LeafAndSplitWithBothSidesReachableAreKept) {
  Tree leaf;
  leaf.nodes.resize(1);
  leaf.nodes[0].value = 3;
  EXPECT_EQ(WithoutUnreachableNodes(leaf).nodes.size(), 1u);
  // x0 < 0 twice on the left: the inner split's right side holds no present value, only a
  // missing one where the root sent NaN left and the inner split sends it right.
  for (const bool inner_default_left : {true, false}) {
    Tree tree;
    tree.nodes.resize(5);
    tree.nodes[0] = Node{0, 0.0, /*default_left=*/true, 1, 2, 0};
    tree.nodes[1] = Node{0, 0.0, inner_default_left, 3, 4, 0};
    tree.nodes[2].value = 2;
    tree.nodes[3].value = 3;
    tree.nodes[4].value = 4;
    const Tree pruned = WithoutUnreachableNodes(tree);
    EXPECT_EQ(pruned.nodes.size(), inner_default_left ? 3u : 5u);
    const double missing[1] = {kNan};
    EXPECT_EQ(pruned.Predict(missing), inner_default_left ? 3 : 4);
    const double negative[1] = {-1};
    EXPECT_EQ(pruned.Predict(negative), 3);
  }
}

// The trainer's trees under split_scope "all" with one feature per tree (S-BDT's setting, the
// auto rule's): the model holds only reachable leaves, far fewer nodes than the trees as grown,
// and predicts every row as they do.
TEST(WithoutUnreachableNodes, TrainedModelPredictsAsTheTreesAsGrown) {
  const Dataset d = testing::SyntheticData(1000, 4);
  const TrainerConfig config =
      TrainerConfig::FromJson({{"n_estimators", 40},
                               {"max_depth", 6},
                               {"split_scope", "all"},
                               {"feature_interaction", {{"method", "cyclical"}, {"k", 1}}},
                               {"privacy", {{"epsilon", 1.0}}},
                               {"seed", 2}});
  const Model whole = Train(d, config, testing::QuietWholeTrees());
  const Model pruned = Train(d, config, testing::Quiet());
  ASSERT_EQ(pruned.trees.size(), whole.trees.size());
  std::size_t whole_nodes = 0, pruned_nodes = 0;
  for (std::size_t t = 0; t < whole.trees.size(); ++t) {
    whole_nodes += whole.trees[t].nodes.size();
    pruned_nodes += pruned.trees[t].nodes.size();
    EXPECT_EQ(whole.trees[t].nodes.size(), 127u);
  }
  EXPECT_LT(pruned_nodes, whole_nodes / 4);
  std::mt19937_64 rng(3);
  std::vector<double> row(4);
  for (std::size_t i = 0; i < d.labels.size(); ++i) {
    for (std::size_t f = 0; f < 4; ++f) {
      row[f] = rng() % 8 == 0 ? kNan : d.columns[f][i];
    }
    ASSERT_EQ(pruned.PredictMargin(row.data()), whole.PredictMargin(row.data())) << i;
  }
  EXPECT_EQ(pruned.privacy, whole.privacy);
}

}  // namespace
}  // namespace rdpkit::trees
