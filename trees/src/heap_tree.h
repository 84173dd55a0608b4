// The trainer's tree while it is grown: a full binary tree in heap order over binned features.
#ifndef RDPKIT_TREES_SRC_HEAP_TREE_H_
#define RDPKIT_TREES_SRC_HEAP_TREE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "candidates.h"

namespace rdpkit::trees::internal {

// A full binary tree of depth d in heap order: internal nodes 0..2^d−2 (children 2i+1, 2i+2),
// leaves 2^d−1..2^{d+1}−2. A row goes left at node i iff its bin < split_bin[i] (the bin counts
// the candidates at which GoesLeft is false), a missing value iff default_left[i].
struct HeapTree {
  int depth = 0;
  std::vector<int> feature;
  std::vector<std::uint16_t> split_bin;
  std::vector<std::uint8_t> default_left;
  std::vector<double> leaf_value;

  explicit HeapTree(int d)
      : depth(d),
        feature(Internal(d), 0),
        split_bin(Internal(d), 1),
        default_left(Internal(d), 1),
        leaf_value(Leaves(d), 0) {}
  static std::size_t Internal(int d) { return (std::size_t{1} << d) - 1; }
  static std::size_t Leaves(int d) { return std::size_t{1} << d; }
  static std::size_t Nodes(int d) { return Internal(d) + Leaves(d); }  // 2^(d+1) − 1
};

// The depth of a tree over `features` (indices into the schema): categorical_depth when it is
// set and every feature is categorical, else max_depth. Public: the schema and the tree's public
// draw of features decide it.
inline int TreeDepth(const TrainerConfig& config, const Schema& schema,
                     const std::vector<int>& features) {
  const bool all_categorical =
      !features.empty() && std::all_of(features.begin(), features.end(), [&](int f) {
        return schema.features[static_cast<std::size_t>(f)].categorical;
      });
  return config.categorical_depth > 0 && all_categorical ? config.categorical_depth
                                                         : config.max_depth;
}

// The binned form of GoesLeft: x < c_j ⇔ bin < j; a missing value goes right unless default_left.
inline bool GoesRightBinned(std::uint16_t bin, std::uint16_t split_bin, bool default_left) {
  return bin == kMissingBin ? !default_left : bin >= split_bin;
}

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_HEAP_TREE_H_
