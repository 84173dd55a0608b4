// Routing kernels (trees/src/routing.h): the 16-bit, row-byte and column-byte (AVX2) kernels
// route every row to the same leaf as a plain walk of the tree, with and without missing values.
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

HeapTree RandomTree(const BinnedMatrix& bins, int depth, std::mt19937_64& rng) {
  HeapTree tree(depth);
  for (std::size_t node = 0; node < HeapTree::Internal(depth); ++node) {
    const auto f = static_cast<std::size_t>(rng() % bins.n_features());
    tree.feature[node] = static_cast<int>(f);
    tree.split_bin[node] = static_cast<std::uint16_t>(1 + rng() % bins.candidates(f).size());
    tree.default_left[node] = static_cast<std::uint8_t>(rng() & 1);
  }
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
  for (int depth : {1, 2, 3, 5, 8, 10}) {
    const HeapTree tree = RandomTree(bins, depth, rng);
    std::vector<std::uint16_t> expected(bins.n_rows());
    for (std::size_t i = 0; i < bins.n_rows(); ++i) expected[i] = WalkLeaf(bins, tree, i);
    for (RouteKernel kernel : {RouteKernel::kAuto, RouteKernel::kWideBins,
                               RouteKernel::kScalarBytes, RouteKernel::kColumnBytes}) {
      if (!TreeRouter::Supports(kernel, bins, depth)) continue;
      ++kernels_run;
      EXPECT_EQ(RouteAll(bins, tree, kernel), expected)
          << "kernel " << static_cast<int>(kernel) << ", depth " << depth;
    }
  }
  EXPECT_GE(kernels_run, 12);  // kAuto and kWideBins or kScalarBytes at every depth
}

INSTANTIATE_TEST_SUITE_P(Bins, RoutingKernels,
                         ::testing::Values(Case{32, 0.0}, Case{32, 0.1}, Case{253, 0.05},
                                           Case{300, 0.05}));

TEST(RoutingKernels, ColumnKernelRunsWhereTheCpuHasAvx2) {
  const Dataset data = DataWithMissing(64, 2, 0.0, 3);
  WorkerPool pool(1);
  const BinnedMatrix bins(data, TrainerConfig::SplitCandidates{}, pool);
  if (!TreeRouter::Supports(RouteKernel::kColumnBytes, bins, 4)) {
    GTEST_SKIP() << "no AVX2 on this CPU: the column kernel is not compiled in or not run";
  }
  EXPECT_EQ(TreeRouter(bins, HeapTree(4)).kernel(), RouteKernel::kColumnBytes);
  EXPECT_FALSE(TreeRouter::Supports(RouteKernel::kColumnBytes, bins, 9));  // depth ≤ 8 only
}

}  // namespace
}  // namespace rdpkit::trees::internal
