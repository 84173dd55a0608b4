// Identifiers (categorical features with many codes): split_candidates.categorical_count gives
// categorical features their own candidate count, and categorical_depth their own tree depth. Both
// depend on the schema and public randomness only, so the privacy event must not change.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "binned_matrix.h"
#include "parallel.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/binned_csv.h"
#include "rdpkit/trees/train.h"
#include "split_strategy.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// n rows of m features, feature 0 an identifier of `codes` codes whose label effect is per code.
Dataset WithIdentifier(std::size_t n, int m, int codes) {
  Dataset data = testing::SyntheticData(n, m);
  FeatureSpec& id = data.schema.features[0];
  id.categorical = true;
  id.n_codes = codes;
  id.min = 0;
  id.max = codes - 1;
  for (std::size_t i = 0; i < n; ++i) {
    const auto code = static_cast<int>((i * 7919) % static_cast<std::size_t>(codes));
    data.columns[0][i] = code;
    if (code % 3 == 0) data.labels[i] = 1;  // a third of the codes are all positive
  }
  return data;
}

// 30 trees of depth 3 over one feature each (cyclical), categorical features split over every
// code boundary of a 600-code identifier, at ε = 1.
TrainerConfig OneFeatureTrees(int seed) {
  TrainerConfig config;
  config.n_estimators = 30;
  config.max_depth = 3;
  config.seed = static_cast<std::uint64_t>(seed);
  config.feature_interaction = {.method = InteractionMethod::kCyclical, .k = 1};
  config.split_candidates.categorical_count = 599;
  config.privacy = TrainerConfig::Privacy{.epsilon = 1};
  return config;
}

TEST(CategoricalDepthConfig, ParsesValidatesAndRoundTrips) {
  const TrainerConfig defaults = TrainerConfig::FromJson({{"privacy", {{"epsilon", 1.0}}}});
  EXPECT_EQ(defaults.categorical_depth, 0);
  EXPECT_EQ(defaults.split_candidates.categorical_count, 0);
  EXPECT_EQ(defaults.split_candidates.categorical(), 32);
  // The defaults are not written, so models trained before these keys existed keep their bytes.
  EXPECT_FALSE(defaults.ToJson().contains("categorical_depth"));
  EXPECT_FALSE(defaults.ToJson()["split_candidates"].contains("categorical_count"));

  const TrainerConfig c =
      TrainerConfig::FromJson({{"categorical_depth", 11},
                               {"split_candidates", {{"count", 16}, {"categorical_count", 2971}}},
                               {"privacy", {{"epsilon", 1.0}}}});
  EXPECT_EQ(c.categorical_depth, 11);
  EXPECT_EQ(c.split_candidates.categorical(), 2971);
  EXPECT_EQ(c.split_candidates.widest(), 2971);
  EXPECT_EQ(TrainerConfig::FromJson(c.ToJson()).ToJson(), c.ToJson());
  EXPECT_NO_THROW(
      TrainerConfig::FromJson({{"categorical_depth", 8},
                               {"split_method", "partially_random"},
                               {"feature_interaction", {{"method", "cyclical"}, {"k", 1}}},
                               {"privacy", {{"epsilon", 1.0}}}}));
}

TEST(CategoricalDepthConfig, RefusesValuesOutsideTheirRangesAndGreedySplits) {
  EXPECT_THAT(
      [] {
        TrainerConfig::FromJson({{"categorical_depth", 17}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("categorical_depth = 17 is outside [0, 16]")));
  EXPECT_THAT(
      [] {
        TrainerConfig::FromJson({{"split_candidates", {{"categorical_count", 65535}}}});
      },
      ThrowsMessage<InvalidArgument>(
          HasSubstr("split_candidates.categorical_count = 65535 is outside [0, 65534]")));
  // A greedy tree's split queries depend on its depth: refused, naming the key.
  for (const char* method : {"histogram", "exponential"}) {
    EXPECT_THAT(
        [&] {
          TrainerConfig::FromJson({{"categorical_depth", 8}, {"split_method", method}});
        },
        ThrowsMessage<InvalidArgument>(HasSubstr("categorical_depth = 8 (split_method")))
        << method;
  }
}

TEST(CategoricalCount, CategoricalFeaturesGetTheirOwnCandidateCount) {
  const Dataset data = WithIdentifier(2000, 3, 600);
  internal::WorkerPool pool(1);
  TrainerConfig::SplitCandidates sc;
  sc.count = 32;
  sc.categorical_count = 599;
  const internal::BinnedMatrix every_code(data, sc, pool);
  EXPECT_EQ(every_code.candidates(0).size(), 599u);  // every code boundary
  EXPECT_EQ(every_code.candidates(1).size(), 32u);
  EXPECT_FALSE(every_code.compact());  // 599 > 253: 16-bit bins
  sc.categorical_count = 100;
  const internal::BinnedMatrix thinned(data, sc, pool);
  EXPECT_EQ(thinned.candidates(0).size(), 100u);
  EXPECT_EQ(thinned.candidates(2).size(), 32u);
  EXPECT_TRUE(thinned.compact());
  // The binned reader takes what fits a byte.
  EXPECT_TRUE(CandidatesFromSchemaAlone(sc));
  sc.categorical_count = 254;
  EXPECT_FALSE(CandidatesFromSchemaAlone(sc));
}

// Trees on the identifier grow to categorical_depth, the others to max_depth, and the privacy
// event is that of the same run without categorical_depth: depth is public and a tree's leaves
// partition its rows, whatever their number.
TEST(CategoricalDepth, OnlyTreesOverCategoricalFeaturesGrowDeeperAndTheEventIsUnchanged) {
  const Dataset data = WithIdentifier(3000, 3, 600);
  for (const double subsample : {1.0, 0.1}) {
    TrainerConfig config = OneFeatureTrees(4);
    config.subsample = subsample;
    const Model shallow = Train(data, config, testing::Quiet());
    config.categorical_depth = 10;
    const Model deep = Train(data, config, testing::Quiet());
    EXPECT_EQ(deep.privacy["event"], shallow.privacy["event"]) << subsample;
    EXPECT_EQ(deep.privacy["epsilon"], shallow.privacy["epsilon"]) << subsample;
    const auto [identifier_trees, other_trees] = testing::DeepestTreesOfAndBesides(deep, 0);
    EXPECT_LE(other_trees, 3) << subsample;
    EXPECT_GT(identifier_trees, 3) << subsample;
    EXPECT_LE(identifier_trees, 10) << subsample;
  }
}

// Feature 1 becomes an ordered code of 4 values (3 candidates), missing in every 10th row.
Dataset WithIdentifierAndShortCode(std::size_t n) {
  Dataset data = WithIdentifier(n, 3, 600);
  FeatureSpec& code = data.schema.features[1];
  code.categorical = true;
  code.n_codes = 4;
  code.min = 0;
  code.max = 3;
  for (std::size_t i = 0; i < n; ++i) {
    data.columns[1][i] =
        i % 10 == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(i % 4);
  }
  return data;
}

// A node-scoped split leaves each child fewer open candidates, so Σ_f Q_f levels partition the
// rows as far as the tree can: a tree over fewer candidates than its depth stops there.
TEST(GrownDepth, NodeScopedTreesStopWhenTheirCandidatesRunOut) {
  const Dataset data = WithIdentifierAndShortCode(2000);
  internal::WorkerPool pool(1);
  TrainerConfig::SplitCandidates sc;
  sc.categorical_count = 599;
  const internal::BinnedMatrix bins(data, sc, pool);
  ASSERT_EQ(bins.candidates(1).size(), 3u);
  const auto node = internal::MakeRandomSplits(SplitScope::kNode);
  EXPECT_EQ(node->GrownDepth(10, bins, {1}), 3);
  EXPECT_EQ(node->GrownDepth(2, bins, {1}), 2);
  EXPECT_EQ(node->GrownDepth(10, bins, {0}), 10);
  EXPECT_EQ(node->GrownDepth(10, bins, {1, 2}), 10);  // 3 + 32 candidates
  // split_scope all draws among all candidates at every node: its depth is kept.
  EXPECT_EQ(internal::MakeRandomSplits(SplitScope::kAll)->GrownDepth(10, bins, {1}), 10);
  EXPECT_EQ(internal::MakeHistogramSplits(1)->GrownDepth(10, bins, {1}), 10);
}

// In training: the short code's trees end at depth 3 while the identifier's grow deeper, even
// though missing values could otherwise be parted from the present ones level after level; the
// event is unchanged (depth is public and the leaves partition the rows).
TEST(GrownDepth, TrainedTreesOverAShortCodeEndWhereItsCandidatesDo) {
  const Dataset data = WithIdentifierAndShortCode(3000);
  TrainerConfig config = OneFeatureTrees(4);
  const Model shallow = Train(data, config, testing::Quiet());
  config.categorical_depth = 10;
  const Model deep = Train(data, config, testing::Quiet());
  EXPECT_EQ(deep.privacy["event"], shallow.privacy["event"]);
  EXPECT_LE(testing::DeepestTreesOfAndBesides(deep, 1).first, 3);
  EXPECT_GT(testing::DeepestTreesOfAndBesides(deep, 0).first, 3);
}

// The memory estimate counts a one-feature tree's nodes as at most those its candidates let rows
// reach (2(Q_f + 2) − 1): an identifier run's short codes no longer count as full deep trees, and
// every trained tree stays within its feature's count.
TEST(TrainingMemory, CountsTheNodesOneFeatureTreesCanKeep) {
  const Dataset data = WithIdentifierAndShortCode(3000);
  TrainerConfig config = OneFeatureTrees(5);
  config.categorical_depth = 10;
  // Identifier: 599 candidates, depth 10 → min(2047, 1201); short code: 3 → min(2047, 9); the
  // numeric feature: 32 at depth 3 → min(15, 67); each feature takes 10 of the 30 trees.
  const double per_feature[] = {1201, 9, 15};
  const MemoryEstimate cyclical = EstimateTrainingMemory(config, data.schema, data.n_rows());
  EXPECT_DOUBLE_EQ(cyclical.nodes, 10 * (1201 + 9 + 15));
  EXPECT_DOUBLE_EQ(cyclical.trees, 30);
  EXPECT_DOUBLE_EQ(cyclical.tree_nodes, 1201);
  EXPECT_THAT(
      [&] { RequireTrainableInMemory(config, data.schema, data.n_rows(), 1e6, "t"); },
      ThrowsMessage<InvalidArgument>(HasSubstr("30 trees of up to 1201 nodes, 409 on average")));
  const Model model = Train(data, config, testing::Quiet());
  double kept = 0;
  for (const Tree& tree : model.trees) {
    kept += static_cast<double>(tree.nodes.size());
    const int feature = testing::DeepestLeafAndFeature(tree).second;
    if (feature >= 0) {
      EXPECT_LE(static_cast<double>(tree.nodes.size()), per_feature[feature]) << feature;
    }
  }
  EXPECT_LE(kept, cyclical.nodes);
  // Drawn at random, any tree may take the identifier; over all features, every tree is full.
  config.feature_interaction = {.method = InteractionMethod::kRandom, .k = 1};
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(config, data.schema, data.n_rows()).nodes, 30 * 1201);
  config.feature_interaction = {.method = InteractionMethod::kAll};
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(config, data.schema, data.n_rows()).nodes, 30 * 2047);
  EXPECT_DOUBLE_EQ(EstimateTrainingMemory(config, data.schema, data.n_rows()).tree_nodes, 2047);
}

}  // namespace
}  // namespace rdpkit::trees
