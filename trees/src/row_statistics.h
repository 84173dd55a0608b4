// The rows' state between trees: margins F, per-row statistics (a, b) and the boosting batch's
// pending updates. In the fused mode (binary Newton boosting, one tree per batch, data-independent
// splits, every row) a tree's leaf values enter the margins in the next tree's routing pass,
// block by block, with e^{−F} kept per row so that no exponential is recomputed.
#ifndef RDPKIT_TREES_SRC_ROW_STATISTICS_H_
#define RDPKIT_TREES_SRC_ROW_STATISTICS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parallel.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "statistics.h"

namespace rdpkit::trees::internal {

class RowStatistics {
 public:
  // The statistics of config's objective and leaf update, clipped to gradient_clip and
  // hessian_clip (S-BDT §4.2); margins start at base_score.
  // labels: the training labels (0/1, or regression labels in the trainer's units), one per row.
  RowStatistics(const std::vector<double>& labels, const TrainerConfig& config, WorkerPool& pool,
                bool fused, double base_score);

  // Every row's statistics; empty in the fused mode until an Update (nothing reads them there).
  const std::vector<Pair>& stats() const noexcept { return stats_; }
  bool fused() const noexcept { return fused_; }

  // Adds add[i] (if not empty) or leaf_values[node_of[i]] (if not null) to row i's margin, then
  // recomputes every row's statistics.
  void Update(const std::vector<double>& add, const double* leaf_values,
              const std::uint16_t* node_of);
  // Boosting batches (Maddock §5.2): a tree's value of each row's leaf is added to the batch's
  // update, which enters the margins (and renews the statistics) at the end of the batch.
  void AddToBatch(const std::vector<double>& leaf_values, const std::uint16_t* node_of);
  void ApplyBatch();
  // Fused mode: the tree's leaf values enter the margins in the next pass (or FlushPending).
  void SetPending(const std::vector<double>& leaf_values);
  void FlushPending(const std::uint16_t* node_of);

  // A fused routing pass: BeginPass, then Block for every block of rows (before their leaves of
  // the previous tree in node_of are overwritten), then EndPass.
  struct Pass {
    const double* pending = nullptr;  // the previous tree's leaf values, not yet in the margins
    std::vector<double> pending_vw;   // each pending value v beside e^{−v}
    bool refresh_exp = false;         // e^{−F} recomputed from the margins in this pass
  };
  Pass BeginPass();
  // The statistics of rows start..start+count−1, (g, h) interleaved in gh.
  void Block(const Pass& pass, std::size_t start, std::size_t count, const std::uint16_t* node_of,
             double* gh);
  void EndPass() { have_pending_ = false; }

 private:
  const std::vector<double>& labels_;
  WorkerPool& pool_;
  std::size_t n_;
  bool binary_;
  LeafUpdate leaf_update_;
  double gradient_clip_;
  double hessian_clip_;
  bool fused_;
  std::vector<double> margin_;
  std::vector<double> batch_update_;
  std::vector<Pair> stats_;
  std::vector<std::uint8_t> labels01_;  // binary labels as bytes, for BinaryStatistics
  bool have_pending_ = false;           // pending_values_ have not yet entered margin_
  std::vector<double> pending_values_;
  // e^{−F} per row for the fused pass, kept by multiplying with e^{−v} of each tree's leaf value v
  // and recomputed from the margin every kExpRefresh trees (bounds the rounding drift) or after
  // anything else changed the margins (exp_age_ ≥ kExpRefresh). Kept only within [kExpSafeLow,
  // kExpSafeHigh]: 0 marks a row whose e^{−F} lies outside (or was clamped by ExpForSigmoid),
  // whose statistics are then computed from F until it returns.
  static constexpr int kExpRefresh = 32;
  std::vector<double> exp_neg_margin_;
  int exp_age_ = kExpRefresh;
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_ROW_STATISTICS_H_
