// Routing: which leaf of a HeapTree each row reaches. Four kernels compute the same thing —
// over the 16-bit bins (any candidate count), over the byte bins (scalar, 8 rows in flight), over
// the byte bins with AVX2 (32 rows per vector, depth ≤ 8), and, for a tree that splits one
// feature only, by a table from that feature's bin to the leaf (any bins, any depth) — behind
// one interface; tests/trees/routing_test.cc checks that they agree.
#ifndef RDPKIT_TREES_SRC_ROUTING_H_
#define RDPKIT_TREES_SRC_ROUTING_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "binned_matrix.h"
#include "heap_tree.h"
#include "parallel.h"

namespace rdpkit::trees::internal {

enum class RouteKernel {
  kAuto,         // the fastest kernel that applies
  kWideBins,     // 16-bit bins, level by level (more than 253 candidates, the only kernel then)
  kScalarBytes,  // byte bins, scalar, 8 rows in flight
  kColumnBytes,  // byte bins column by column, AVX2 (rows not a multiple of 32: kScalarBytes)
  kOneFeature,   // every internal node splits the same feature: one table lookup per row
};

// One internal node for routing over byte bins: row goes right iff bin ≥ split_bin, except that a
// missing bin goes left when default_left.
struct CompactStep {
  std::uint32_t feature;
  std::uint8_t split_bin;
  std::uint8_t default_left;
};

// Routing tables of one tree for the column kernel (defined in routing.cc).
struct ColumnPlan;

class TreeRouter {
 public:
  // Rows per RouteBlock call at most.
  static constexpr std::size_t kBlock = 256;
  // Whether a kernel can route `tree` over these bins (kAuto: always).
  static bool Supports(RouteKernel kernel, const BinnedMatrix& bins, const HeapTree& tree);

  // kernel must be supported (else InternalError).
  TreeRouter(const BinnedMatrix& bins, const HeapTree& tree,
             RouteKernel kernel = RouteKernel::kAuto);
  ~TreeRouter();
  TreeRouter(const TreeRouter&) = delete;
  TreeRouter& operator=(const TreeRouter&) = delete;

  // leaf[r] = the index within the last level of the leaf that row start + r reaches, for
  // r < count ≤ kBlock.
  void RouteBlock(std::size_t start, std::size_t count, std::uint16_t* leaf) const;
  RouteKernel kernel() const noexcept { return kernel_; }

 private:
  struct WideStep {
    const std::uint16_t* column;
    std::uint16_t split_bin;
    std::uint16_t default_left;
  };
  const BinnedMatrix& bins_;
  int depth_;
  RouteKernel kernel_;
  bool missing_ = false;  // some feature of the tree has missing values (byte kernels)
  std::vector<WideStep> wide_steps_;
  std::vector<CompactStep> compact_steps_;
  std::vector<const std::uint8_t*> feature_columns_;  // byte kernels: each feature's column
  std::unique_ptr<ColumnPlan> column_plan_;           // kColumnBytes only
  // kOneFeature: the feature's bins (one of the two), the leaf of each bin 0..Q and of a missing
  // value.
  const std::uint16_t* one_feature_wide_ = nullptr;
  const std::uint8_t* one_feature_bytes_ = nullptr;
  std::vector<std::uint16_t> leaf_of_bin_;
  std::uint16_t leaf_of_missing_ = 0;
};

// Moves every row one level down from level nodes first.. (node_of[i]: the row's node index within
// its level, updated to the index within the next level).
void RouteLevel(const BinnedMatrix& bins, const HeapTree& tree, std::size_t first,
                std::vector<std::uint16_t>& node_of, WorkerPool& pool);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_ROUTING_H_
