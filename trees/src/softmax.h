// Multiclass statistics (DESIGN.md §5 objectives multi:softprob and multi:ovr): each boosting
// round grows K class trees, tree k on the per-record statistics (g_k, h_k) of class k, all K on
// the margins of the round's start. The sensitivities of these statistics and their proof are in
// docs/trees_training.md "Multiclass"; the query plan releases a softprob round's K class trees'
// i-th queries as one Gaussian query of the concatenated vector (query_plan.h).
#ifndef RDPKIT_TREES_SRC_SOFTMAX_H_
#define RDPKIT_TREES_SRC_SOFTMAX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parallel.h"
#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "row_sample.h"
#include "statistics.h"

namespace rdpkit::trees::internal {

// L2 sensitivities (a: gradients, b: Hessians) of one record's statistics for K = n_classes:
// multi:softprob, over the K class trees of a round (the concatenated vectors g, h ∈ R^K):
//   a = min(g*, √2)                                 (g = p − e_y clipped to L2 norm g*)
//   b = √(min(h*, 1/4)·min(K·h*, 1 − 1/K))          (h_k = min(p_k(1 − p_k), h*), Newton)
//   b = √K                                          (gradient update: (g_k, 1) per class tree)
// multi:ovr, one class tree (binary cross-entropy): a = min(g*, 1), b = min(h*, 1/4) or 1.
Sensitivities MulticlassSensitivities(const TrainerConfig& config, int n_classes);

// Refuses, naming the key, the settings multiclass training does not support (yet), and labels
// that are not class indices 0..K−1 (naming the row and the value).
void ValidateMulticlass(const TrainerConfig& config, const Dataset& data);

// The margin every class starts from: data independent, so it releases nothing. softprob: 0
// (softmax of equal margins, p_k = 1/K, the same as log(1/K)); ovr: −log(K − 1) (σ = 1/K).
double MulticlassBaseScore(Objective objective, int n_classes);

// One record's statistics for every class from its K margins F (g, h: K values each).
// softprob: p = softmax(F), g = p − e_y scaled to L2 norm ≤ g*, h_k = min(p_k(1 − p_k), h*).
// ovr: p_k = σ(F_k), g_k = clip(p_k − [y = k], ±g*), h_k = min(p_k(1 − p_k), h*).
// Gradient leaf update: h_k = 1.
void MulticlassStatistics(Objective objective, LeafUpdate leaf_update, const double* margins,
                          int label, int n_classes, double g_clip, double h_clip, double* g,
                          double* h);

// Class probabilities from K margins: softmax (softprob) or σ(F_k) normalised to sum 1 (ovr).
void ClassProbabilities(Objective objective, const double* margins, int n_classes,
                        double* probabilities);

// The rows' margins (n × K) and their per-class statistics between rounds.
class ClassStatistics {
 public:
  ClassStatistics(const Dataset& data, const TrainerConfig& config, WorkerPool& pool,
                  double base_score);
  int n_classes() const noexcept { return k_; }
  const std::vector<Pair>& stats(int k) const { return stats_[static_cast<std::size_t>(k)]; }
  // Adds class k's tree to the class-k margins (leaf_values[node_of[i]] for row i). The
  // statistics stay those of the round's start until Recompute.
  void AddTree(int k, const std::vector<double>& leaf_values, const std::uint16_t* node_of);
  // The statistics of the rows in `rows` from their current margins (the start of a round, once
  // its rows are drawn); the other rows' stay stale until a round that draws them, and the
  // trainer reads only the rows of its sample (the Rényi filter, which charges every row, asks
  // for all of them). All rows by default.
  void Recompute(const RowSample& rows = RowSample());
  // Row i's (‖g‖₂, ‖h‖₂) over the classes: its contribution to a softprob round's joint query,
  // whose individual sensitivity ratios the Rényi filter charges (docs/math/multiclass.md).
  Pair Norms(std::size_t i) const;

 private:
  const Dataset& data_;
  WorkerPool& pool_;
  Objective objective_;
  LeafUpdate leaf_update_;
  double gradient_clip_;
  double hessian_clip_;
  std::size_t n_;
  int k_;
  std::vector<double> margins_;           // margins_[i·K + k]
  std::vector<std::vector<Pair>> stats_;  // stats_[k][i]
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_SOFTMAX_H_
