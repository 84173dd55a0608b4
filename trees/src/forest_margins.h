// Margins of many rows at once: the prediction kernel behind Model::Predict and
// Model::PredictProbabilities.
#pragma once

#include <cstddef>
#include <vector>

#include "rdpkit/trees/model.h"

namespace rdpkit::trees::internal {

// A model's trees in the form the block kernel walks: one flat node array in which a node's two
// children sit side by side (right = left + 1) and each leaf steps to itself, so that every row of
// a block takes one step per level, without a branch on its direction or on whether it is done.
// Built once per Predict call (a pass over the nodes).
class ForestMargins {
 public:
  explicit ForestMargins(const Model& model);

  // Rows per block: a block's rows cross one tree before the next tree is read, so the tree stays
  // in cache (2000 trees of depth 6 are ~10 MB; row after row would read all of them per row).
  static constexpr std::size_t kBlock = 256;

  // margins[r·k + c] for the `count` ≤ kBlock rows (n_features values each, row-major) in `rows`;
  // tree t adds to class t mod k, in model order, so each sum is PredictMargin's, bit for bit.
  void Add(const double* rows, std::size_t count, std::size_t k, double* margins) const;

 private:
  struct Step {
    double threshold;   // NaN at a leaf: no value goes left
    int feature;        // 0 at a leaf
    int left;           // the left child; the right child is left + 1 (a leaf: itself − 1)
    bool default_left;  // false at a leaf
    bool leaf;
  };
  struct TreeSpan {
    std::size_t first;  // index of the root in steps_
    int depth;          // longest root-to-leaf path, in edges
  };

  // The node a row with feature values `row` steps to from `step` (GoesLeft, model.h).
  int Next(const Step& step, const double* row) const;
  // Appends `tree` in the layout above, children of a node side by side.
  void Append(const Tree& tree);
  void AddLevelByLevel(const TreeSpan& tree, const double* rows, std::size_t count, std::size_t k,
                       std::size_t c, double* margins) const;
  void AddRowByRow(const TreeSpan& tree, const double* rows, std::size_t count, std::size_t k,
                   std::size_t c, double* margins) const;

  std::size_t n_features_;
  std::vector<Step> steps_;
  std::vector<double> values_;  // leaf values, 0 at internal nodes
  std::vector<TreeSpan> trees_;
};

}  // namespace rdpkit::trees::internal
