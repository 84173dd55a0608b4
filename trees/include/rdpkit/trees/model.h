// A trained model (DESIGN.md §6): an ensemble of binary trees plus the configuration and the
// privacy guarantee of the run that produced it. Routing of a value through a split is defined
// once, here (GoesLeft), and used by both the trainer and prediction.
#ifndef RDPKIT_TREES_MODEL_H_
#define RDPKIT_TREES_MODEL_H_

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"

namespace rdpkit::trees {

struct Node {
  // Internal node: feature >= 0; a row goes LEFT iff x[feature] < threshold (the same strict
  // comparison in training and prediction); a missing value (NaN) goes left iff default_left.
  // Leaf: feature == -1, value = leaf weight (already multiplied by the learning rate).
  int feature = -1;
  double threshold = 0;
  bool default_left = true;
  int left = -1, right = -1;
  double value = 0;

  bool is_leaf() const { return feature < 0; }
};

// The one split rule of rdpkit: x < threshold goes left, NaN follows default_left. The trainer
// partitions rows with this function, so training and prediction cannot disagree on a tie.
inline bool GoesLeft(const Node& node, double x) {
  return std::isnan(x) ? node.default_left : x < node.threshold;
}

struct Tree {
  std::vector<Node> nodes;  // nodes[0] is the root

  // Leaf value reached by a row (n_features values in schema order).
  double Predict(const double* row) const;
  // Index of the leaf reached by a row.
  int LeafIndex(const double* row) const;
  // Checks structure: children in range, every node reachable from the root exactly once (no
  // cycles, no sharing), features in [0, n_features), finite thresholds and values. Throws
  // InvalidArgument naming "trees[tree_index].nodes[i]...".
  void Validate(int n_features, int tree_index = 0) const;
};

// The same function of every row (any reals, ±inf, NaN) without the nodes no row can reach: a
// split that sends every row its path allows to one side gives way to that side (model_prune.cc).
// The trainer's trees go through it, so a model holds and releases only leaves some row can
// use. Nodes keep their depth-first order, the root first.
Tree WithoutUnreachableNodes(const Tree& tree);

struct Model {
  Objective objective = Objective::kBinaryLogistic;
  double base_score = 0;  // margin added before the trees (every class's, multiclass)
  std::vector<std::string> feature_names;
  std::vector<Tree> trees;  // multiclass: tree j adds to the margin of class j mod n_classes
  // Multiclass objectives: K ≥ 2 and the class names (empty: none); 0 and empty otherwise.
  int n_classes = 0;
  std::vector<std::string> classes;
  nlohmann::json config = nlohmann::json::object();   // the trainer configuration used
  nlohmann::json privacy = nlohmann::json::object();  // {"epsilon", "delta", "event"} (DESIGN §6);
                                                      // non-private runs: {"private": false, ...}
  // The local training log of the run that produced the model (row count, clipped values, query
  // counts, records the Rényi filter retired, …). Exact data-dependent counts that no ε covers:
  // for the operator only, NEVER written to the model file (ToJson/Save leave it out) and not read
  // back by Load. DESIGN.md §6, docs/trees.md "What the model file releases".
  nlohmann::json training_log = nlohmann::json::object();
  // The name of the training data's label column (rdpkit train --label), so that predict and
  // evaluate skip or read it without being told again. Empty: not recorded (kDefaultLabelColumn).
  // Public: the operator chose it, as they chose the feature names.
  std::string label_column;
  // The schema the model was trained with (bounds, categorical codes), so `predict` reads new data
  // the same way. Optional: empty features = unknown (then prediction data is read unclipped).
  Schema schema;

  // base_score + sum of tree outputs.
  double PredictMargin(const double* row) const;
  // Probability of class 1 for binary:logistic (sigmoid of the margin); the margin otherwise.
  double PredictRow(const double* row) const;
  // One prediction per row of data. data.feature_names must equal feature_names (same order).
  // Multiclass: the most probable class index (the lowest on a tie).
  std::vector<double> Predict(const Dataset& data) const;
  // Multiclass: the K margins of a row (base_score plus the trees of each class).
  std::vector<double> PredictMargins(const double* row) const;
  // Multiclass: K class probabilities per row, row-major (n_rows × K): softmax of the margins
  // (multi:softprob) or σ of each normalised to sum 1 (multi:ovr).
  std::vector<double> PredictProbabilities(const Dataset& data) const;

  // {"format": "rdpkit-model", "version": 1, "objective", "base_score", "feature_names",
  //  "trees": [{"nodes": [[feature, threshold, default_left, left, right, value], ...]}], ...};
  // multiclass adds "n_classes" and (when named) "classes".
  // Deterministic: the same model always gives the same bytes (keys sorted, doubles round-trip).
  // with_trees = false leaves "trees" empty (ToText adds them one at a time).
  nlohmann::json ToJson(bool with_trees = true) const;
  // Corrupt or foreign JSON (wrong format/version, bad node, cycle, feature out of range)
  // -> InvalidArgument naming the offending field.
  static Model FromJson(const nlohmann::json& json);
  // The exact text Save writes: ToJson().dump() plus a newline, built one tree at a time.
  std::string ToText() const;
  // Atomic: written to a temporary file in the same folder, then renamed over path.
  void Save(const std::string& path) const;
  // FromJson of a model file's text (origin names it in a JSON error: "JSON text"). The tree nodes
  // are read as the parser meets them, never held as JSON (a model of 10^5 nodes is mostly nodes):
  // the same models and the same refusals as FromJson(ParseJson(text)).
  static Model Parse(std::string_view text, const std::string& origin);
  // Errors (unreadable, truncated, not JSON, foreign) are InvalidArgument naming "model".
  static Model Load(const std::string& path);
};

// Logistic sigmoid 1/(1+e^{-x}), computed without overflow for large |x|.
double Sigmoid(double margin);

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_MODEL_H_
