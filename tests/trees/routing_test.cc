// Routing kernels (trees/src/routing.h): the 16-bit, row-byte, column-byte (AVX2) and one-feature
// table kernels route every row to the same leaf as a plain walk of the tree, with and without
// missing values.
#include "routing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <random>
#include <vector>

#include "binned_matrix.h"
#include "heap_tree.h"
#include "parallel.h"
#include "synthetic_data.h"

namespace rdpkit::trees::internal {
namespace {

// n rows of m features, a share of them missing (NaN).
Dataset DataWithMissing(std::size_t n, int m, double missing_share, std::uint64_t seed) {
  Dataset data = trees::testing::SyntheticData(n, m, Task::kBinary, seed);
  std::mt19937_64 rng(seed + 100);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (auto& column : data.columns) {
    for (double& x : column) {
      if (unit(rng) < missing_share) x = std::numeric_limits<double>::quiet_NaN();
    }
  }
  return data;
}

// A tree of random splits; with `one_feature` ≥ 0 every node splits that feature.
HeapTree RandomTree(const BinnedMatrix& bins, int depth, std::mt19937_64& rng,
                    int one_feature = -1) {
  HeapTree tree(depth);
  for (std::size_t node = 0; node < HeapTree::Internal(depth); ++node) {
    const auto f = one_feature >= 0 ? static_cast<std::size_t>(one_feature)
                                    : static_cast<std::size_t>(rng() % bins.n_features());
    tree.feature[node] = static_cast<int>(f);
    tree.split_bin[node] = static_cast<std::uint16_t>(1 + rng() % bins.candidates(f).size());
    tree.default_left[node] = static_cast<std::uint8_t>(rng() & 1);
  }
  return tree;
}

// A tree whose root splits feature 0 and every other node feature 1.
HeapTree RandomTreeOfTwo(const BinnedMatrix& bins, int depth) {
  std::mt19937_64 rng(depth);
  HeapTree tree = RandomTree(bins, depth, rng, 1);
  tree.feature[0] = 0;
  return tree;
}

// The leaf of row i by walking the tree node by node.
std::uint16_t WalkLeaf(const BinnedMatrix& bins, const HeapTree& tree, std::size_t i) {
  std::size_t node = 0;
  for (int level = 0; level < tree.depth; ++level) {
    const std::uint16_t bin = bins.bin(static_cast<std::size_t>(tree.feature[node]), i);
    node = 2 * node + 1 +
           (GoesRightBinned(bin, tree.split_bin[node], tree.default_left[node] != 0) ? 1 : 0);
  }
  return static_cast<std::uint16_t>(node - HeapTree::Internal(tree.depth));
}

std::vector<std::uint16_t> RouteAll(const BinnedMatrix& bins, const HeapTree& tree,
                                    RouteKernel kernel) {
  const TreeRouter router(bins, tree, kernel);
  std::vector<std::uint16_t> leaf(bins.n_rows());
  for (std::size_t start = 0; start < bins.n_rows(); start += TreeRouter::kBlock) {
    const std::size_t count = std::min(TreeRouter::kBlock, bins.n_rows() - start);
    router.RouteBlock(start, count, leaf.data() + start);
  }
  return leaf;
}

struct Case {
  int candidates;
  double missing_share;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.candidates << " candidates, " << c.missing_share << " missing";
}

class RoutingKernels : public ::testing::TestWithParam<Case> {};

TEST_P(RoutingKernels, AgreeWithAPlainWalk) {
  const Case c = GetParam();
  // 1000 rows: not a multiple of 32 or of the block, so every kernel's tail path runs.
  const Dataset data = DataWithMissing(1000, 6, c.missing_share, 11);
  WorkerPool pool(1);
  TrainerConfig::SplitCandidates sc;
  sc.count = c.candidates;
  const BinnedMatrix bins(data, sc, pool);
  std::mt19937_64 rng(5);
  int kernels_run = 0;
  int one_feature_runs = 0;
  for (int depth : {1, 2, 3, 5, 8, 10, 12}) {
    for (int one_feature : {-1, 0, 5}) {
      const HeapTree tree = RandomTree(bins, depth, rng, one_feature);
      std::vector<std::uint16_t> expected(bins.n_rows());
      for (std::size_t i = 0; i < bins.n_rows(); ++i) expected[i] = WalkLeaf(bins, tree, i);
      for (RouteKernel kernel :
           {RouteKernel::kAuto, RouteKernel::kWideBins, RouteKernel::kScalarBytes,
            RouteKernel::kColumnBytes, RouteKernel::kOneFeature}) {
        if (!TreeRouter::Supports(kernel, bins, tree)) continue;
        ++kernels_run;
        if (kernel == RouteKernel::kOneFeature) ++one_feature_runs;
        EXPECT_EQ(RouteAll(bins, tree, kernel), expected)
            << "kernel " << static_cast<int>(kernel) << ", depth " << depth << ", one feature "
            << one_feature;
      }
    }
  }
  EXPECT_GE(kernels_run, 42);  // kAuto and kWideBins or kScalarBytes for every tree
  // The 14 trees of one feature route by their table, and so does the random tree of depth 1
  // (one node); one of depth 2 may by chance (its 3 nodes draw one of 6 features).
  EXPECT_GE(one_feature_runs, 15);
  EXPECT_LE(one_feature_runs, 16);
}

INSTANTIATE_TEST_SUITE_P(Bins, RoutingKernels,
                         ::testing::Values(Case{32, 0.0}, Case{32, 0.1}, Case{253, 0.05},
                                           Case{300, 0.05}));

TEST(RoutingKernels, ColumnKernelRunsWhereTheCpuHasAvx2) {
  const Dataset data = DataWithMissing(64, 2, 0.0, 3);
  WorkerPool pool(1);
  const BinnedMatrix bins(data, TrainerConfig::SplitCandidates{}, pool);
  if (!TreeRouter::Supports(RouteKernel::kColumnBytes, bins, RandomTreeOfTwo(bins, 4))) {
    GTEST_SKIP() << "no AVX2 on this CPU: the column kernel is not compiled in or not run";
  }
  EXPECT_EQ(TreeRouter(bins, RandomTreeOfTwo(bins, 4)).kernel(), RouteKernel::kColumnBytes);
  // depth ≤ 8 only
  EXPECT_FALSE(TreeRouter::Supports(RouteKernel::kColumnBytes, bins, RandomTreeOfTwo(bins, 9)));
}

TEST(RoutingKernels, TreesOfOneFeatureRouteByTheirTable) {
  const Dataset data = DataWithMissing(64, 2, 0.0, 3);
  WorkerPool pool(1);
  const BinnedMatrix bins(data, TrainerConfig::SplitCandidates{}, pool);
  std::mt19937_64 rng(9);
  EXPECT_EQ(TreeRouter(bins, RandomTree(bins, 6, rng, 1)).kernel(), RouteKernel::kOneFeature);
  EXPECT_FALSE(TreeRouter::Supports(RouteKernel::kOneFeature, bins, RandomTreeOfTwo(bins, 6)));
  EXPECT_FALSE(TreeRouter::Supports(RouteKernel::kOneFeature, bins, HeapTree(0)));  // no split
}

}  // namespace
}  // namespace rdpkit::trees::internal
