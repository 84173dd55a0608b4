// The two data-independent options taken from S-BDT's code (kirschte/sbdt): split_scope (which
// candidates a random split is drawn from) and negative_hessian_leaf (a leaf whose noisy Hessian
// is negative). Both are public randomness or post-processing, so the event must not change.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/train.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

using testing::Quiet;
using testing::QuietWholeTrees;

TEST(SplitScopeConfig, ParsesValidatesAndRoundTrips) {
  const TrainerConfig defaults = TrainerConfig::FromJson({{"privacy", {{"epsilon", 1.0}}}});
  EXPECT_EQ(defaults.split_scope, SplitScope::kNode);
  EXPECT_EQ(defaults.negative_hessian_leaf, NegativeHessianLeaf::kFloor);
  // The defaults are not written, so models trained before these keys existed keep their bytes.
  EXPECT_FALSE(defaults.ToJson().contains("split_scope"));
  EXPECT_FALSE(defaults.ToJson().contains("negative_hessian_leaf"));

  const TrainerConfig c = TrainerConfig::FromJson(
      {{"split_scope", "all"}, {"negative_hessian_leaf", "zero"}, {"privacy", {{"epsilon", 1.0}}}});
  EXPECT_EQ(c.split_scope, SplitScope::kAll);
  EXPECT_EQ(c.negative_hessian_leaf, NegativeHessianLeaf::kZero);
  EXPECT_EQ(c.ToJson()["split_scope"], "all");
  EXPECT_EQ(c.ToJson()["negative_hessian_leaf"], "zero");
  EXPECT_EQ(TrainerConfig::FromJson(c.ToJson()).ToJson(), c.ToJson());
  EXPECT_EQ(ToString(SplitScope::kNode), "node");
  EXPECT_EQ(ToString(NegativeHessianLeaf::kFloor), "floor");

  // Partially random with one feature per tree draws its splits the same way: accepted.
  EXPECT_NO_THROW(
      TrainerConfig::FromJson({{"split_scope", "all"},
                               {"split_method", "partially_random"},
                               {"feature_interaction", {{"method", "cyclical"}, {"k", 1}}},
                               {"privacy", {{"epsilon", 1.0}}}}));
}

TEST(SplitScopeConfig, RefusesValuesAndCombinationsThatMeanNothing) {
  EXPECT_THAT(
      [] {
        TrainerConfig::FromJson({{"split_scope", "tree"}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("split_scope = \"tree\"")));
  EXPECT_THAT(
      [] {
        TrainerConfig::FromJson({{"negative_hessian_leaf", "clip"}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("{floor, zero}")));
  for (const char* method : {"histogram", "exponential", "partially_random"}) {
    EXPECT_THAT(
        [method] {
          TrainerConfig::FromJson(
              {{"split_scope", "all"}, {"split_method", method}, {"privacy", {{"epsilon", 1.0}}}});
        },
        ThrowsMessage<InvalidArgument>(
            HasSubstr("split_scope = \"all\" (split_method = \"" + std::string(method))))
        << method;
  }
  EXPECT_THAT(
      [] {
        TrainerConfig::FromJson({{"negative_hessian_leaf", "zero"},
                                 {"leaf_update", "averaging"},
                                 {"privacy", {{"epsilon", 1.0}}}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("negative_hessian_leaf = \"zero\"")));
}

// Whether some internal node of `tree` splits at a threshold outside the interval its ancestors
// leave for that feature (one child then receives no row whatever the data).
bool HasSplitOutsideItsInterval(const Tree& tree, int n_features) {
  const double inf = std::numeric_limits<double>::infinity();
  bool found = false;
  const auto walk = [&](const auto& self, int node, std::vector<double> lo,
                        std::vector<double> hi) -> void {
    const Node& n = tree.nodes[static_cast<std::size_t>(node)];
    if (n.is_leaf()) return;
    const auto f = static_cast<std::size_t>(n.feature);
    if (!(n.threshold > lo[f] && n.threshold < hi[f])) found = true;
    std::vector<double> left_hi = hi;
    left_hi[f] = std::min(hi[f], n.threshold);
    self(self, n.left, lo, left_hi);
    lo[f] = std::max(lo[f], n.threshold);
    self(self, n.right, lo, hi);
  };
  walk(walk, 0, std::vector<double>(static_cast<std::size_t>(n_features), -inf),
       std::vector<double>(static_cast<std::size_t>(n_features), inf));
  return found;
}

// Mean number of leaves of a tree that some training row reaches.
double MeanNonEmptyLeaves(const Model& model, const Dataset& d) {
  double total = 0;
  std::vector<double> row(d.columns.size());
  for (const Tree& tree : model.trees) {
    std::set<int> leaves;
    for (std::size_t i = 0; i < d.labels.size(); ++i) {
      for (std::size_t f = 0; f < row.size(); ++f) row[f] = d.columns[f][i];
      leaves.insert(tree.LeafIndex(row.data()));
    }
    total += static_cast<double>(leaves.size());
  }
  return total / static_cast<double>(model.trees.size());
}

// split_scope "all" draws every node's split over all of the feature's candidates: splits fall
// outside their node's interval and the trees reach far fewer leaves; "node" never does. The
// releases (the noise log's queries) and the stored event are those of the default run.
TEST(SplitScope, AllDrawsOverEveryCandidateAndReleasesTheSame) {
  const Dataset d = testing::SyntheticData(2000, 4);
  const int trees = 30;
  json config = {
      {"n_estimators", trees}, {"max_depth", 6}, {"privacy", {{"epsilon", 0.5}}}, {"seed", 3}};
  std::vector<NoiseRecord> node_log, all_log;
  const Model node = Train(d, TrainerConfig::FromJson(config), QuietWholeTrees(&node_log));
  config["split_scope"] = "all";
  const Model all = Train(d, TrainerConfig::FromJson(config), QuietWholeTrees(&all_log));

  EXPECT_EQ(all.privacy, node.privacy);  // public randomness: same ε, δ and event
  ASSERT_EQ(all_log.size(), node_log.size());
  for (std::size_t i = 0; i < all_log.size(); ++i) {
    EXPECT_EQ(all_log[i].query, node_log[i].query) << i;
    EXPECT_EQ(all_log[i].coordinate, node_log[i].coordinate) << i;
  }
  int outside_node = 0, outside_all = 0;
  for (int t = 0; t < trees; ++t) {
    outside_node += HasSplitOutsideItsInterval(node.trees[static_cast<std::size_t>(t)], 4);
    outside_all += HasSplitOutsideItsInterval(all.trees[static_cast<std::size_t>(t)], 4);
  }
  EXPECT_EQ(outside_node, 0);
  EXPECT_EQ(outside_all, trees);  // 63 nodes over 4 features × 32 candidates: always some
  // 2000 rows over 64 leaves: node scope reaches most of them, "all" about a quarter (S-BDT's
  // depth-6 trees have ~6.6 non-empty leaves on real data, fewer distinct features here).
  const double node_leaves = MeanNonEmptyLeaves(node, d);
  const double all_leaves = MeanNonEmptyLeaves(all, d);
  EXPECT_GT(node_leaves, 40);
  EXPECT_LT(all_leaves, 0.5 * node_leaves);
}

// negative_hessian_leaf "zero": a leaf whose released Hessian sum H̃ is negative is 0; every
// other leaf keeps the floored Newton step −η·clip(G̃/(max(H̃, c·s_H) + λ), β). The event equals
// the default run's (post-processing).
TEST(NegativeHessianLeaf, ZeroGivesZeroWhereTheNoisyHessianIsNegative) {
  const Dataset d = testing::SyntheticData(300, 3);
  const double eta = 0.3, beta = 2, lambda = 1, c = 2;
  json config = {{"n_estimators", 20},
                 {"max_depth", 3},
                 {"learning_rate", eta},
                 {"max_leaf_value", beta},
                 {"reg_lambda", lambda},
                 {"noisy_hessian_floor", c},
                 {"privacy", {{"epsilon", 0.3}}},
                 {"seed", 7}};
  const Model floor = Train(d, TrainerConfig::FromJson(config), Quiet());
  config["negative_hessian_leaf"] = "zero";
  std::vector<NoiseRecord> log;
  const Model zero = Train(d, TrainerConfig::FromJson(config), QuietWholeTrees(&log));
  EXPECT_EQ(zero.privacy, floor.privacy);

  // Spherical noise on the pair (g, h) of L2 sensitivity √17/4; the event is T Gaussian queries.
  const double sigma =
      zero.privacy["event"]["self_composed"]["event"]["gaussian"]["noise_multiplier"];
  const double s_h = sigma * std::sqrt(17.0) / 4;
  std::vector<const NoiseRecord*> leaf;
  for (const auto& r : log) {
    if (r.query == "leaf") leaf.push_back(&r);
  }
  ASSERT_EQ(leaf.size(), 20u * 8 * 2);
  int negative = 0;
  for (std::size_t t = 0; t < 20; ++t) {
    for (std::size_t l = 0; l < 8; ++l) {
      const double g = leaf[2 * (t * 8 + l)]->noisy;
      const double h = leaf[2 * (t * 8 + l) + 1]->noisy;
      double expected = 0;
      if (h < 0) {
        ++negative;
      } else {
        const double den = std::max(h, c * s_h) + lambda;  // max(H̃, c·s_H) + λ, as "floor"
        expected = -eta * std::min(std::max(g / den, -beta), beta);
      }
      EXPECT_DOUBLE_EQ(zero.trees[t].nodes[7 + l].value, expected) << "tree " << t << " leaf " << l;
    }
  }
  EXPECT_GT(negative, 20);  // ε = 0.3 on 300 rows: many leaves have H̃ < 0
}

}  // namespace
}  // namespace rdpkit::trees
