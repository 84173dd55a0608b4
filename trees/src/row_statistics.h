// The rows' state between trees: margins F, per-row statistics (a, b) and the boosting batch's
// pending updates. In the fused mode (binary Newton boosting, one tree per batch, data-independent
// splits) a tree's leaf values enter the margins in the next tree's routing pass, block by block,
// and the margins are kept as floats (4 bytes a row, docs/trees.md "Large data").
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
  // labels: regression labels in the trainer's units, one per row (binary: unused);
  // binary_labels: a binary objective's labels as 0/1 bytes, n of them (regression: null). Both
  // must outlive this object.
  RowStatistics(const std::vector<double>& labels, const std::uint8_t* binary_labels, std::size_t n,
                const TrainerConfig& config, WorkerPool& pool, bool fused, double base_score);

  // Every row's statistics; empty in the fused mode unless iterative_hessian candidates read
  // them (then renewed by FlushPending).
  const std::vector<Pair>& stats() const noexcept { return stats_; }
  bool fused() const noexcept { return fused_; }

  // Adds add[i] (if not empty; not in the fused mode) or leaf_values[node_of[i]] (if not null) to
  // row i's margin, then recomputes every row's statistics.
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
  };
  Pass BeginPass();
  // The statistics of rows start..start+count−1 (count ≤ kMaxBlock), (g, h) interleaved in gh;
  // (0, 0) for a row outside the tree's sample (RowSample::bits; null: every row).
  void Block(const Pass& pass, std::size_t start, std::size_t count, const std::uint16_t* node_of,
             const std::uint64_t* in_sample, double* gh);
  void EndPass() { have_pending_ = false; }
  static constexpr std::size_t kMaxBlock = 256;

 private:
  const std::vector<double>& labels_;
  const std::uint8_t* binary_labels_;
  WorkerPool& pool_;
  std::size_t n_;
  bool binary_;
  LeafUpdate leaf_update_;
  double gradient_clip_;
  double hessian_clip_;
  bool fused_;
  std::vector<double> margin_;  // not in the fused mode
  std::vector<double> batch_update_;
  std::vector<Pair> stats_;
  bool have_pending_ = false;  // pending_values_ have not yet entered the margins
  std::vector<double> pending_values_;
  // The fused mode's margins: F + v is formed in double and rounded to float (2^−24 relative),
  // so F is within T·6e-8·max|F| of the model's margin after T trees.
  std::vector<float> float_margin_;
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_ROW_STATISTICS_H_
