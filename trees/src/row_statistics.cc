#include "row_statistics.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "logistic.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {
namespace {

// Rows per Block call at most.
constexpr std::size_t kMaxBlock = 256;

}  // namespace

RowStatistics::RowStatistics(const std::vector<double>& labels, const TrainerConfig& config,
                             WorkerPool& pool, bool fused, double base_score)
    : labels_(labels),
      pool_(pool),
      n_(labels.size()),
      binary_(TaskOfObjective(config.objective) == Task::kBinary),
      leaf_update_(config.leaf_update),
      gradient_clip_(config.gradient_clip),
      hessian_clip_(config.hessian_clip),
      fused_(fused),
      margin_(n_, base_score) {
  if (config.batch_size > 1) batch_update_.assign(n_, 0.0);
  if (binary_) {
    labels01_.resize(n_);  // binary labels are exactly 0 or 1 (checked by the loader)
    for (std::size_t i = 0; i < n_; ++i) labels01_[i] = labels_[i] != 0 ? 1 : 0;
  }
  // The fused pass computes each block's statistics as it routes: the per-row (a, b) (16 bytes a
  // row) are only kept when something else reads them (iterative_hessian's histograms).
  if (fused_ && config.split_candidates.method != CandidateMethod::kIterativeHessian) return;
  Update({}, nullptr, nullptr);
}

void RowStatistics::Update(const std::vector<double>& add, const double* leaf_values,
                           const std::uint16_t* node_of) {
  exp_age_ = kExpRefresh;  // the fused pass's e^{−F} no longer follows the margins
  stats_.resize(n_);
  const bool apply = !add.empty();
  const double g_clip = gradient_clip_;
  const double h_clip = hessian_clip_;
  const LeafUpdate leaf = leaf_update_;
  const bool binary = binary_;
  if (binary && leaf == LeafUpdate::kNewton && !apply) {
    // The common case (binary Newton boosting): the fused pass's kernel, block by block.
    pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
      constexpr std::size_t kBlock = 256;
      alignas(64) double gh[2 * kBlock];
      alignas(64) double exp_neg_margin[kBlock];  // not kept: margins change outside the fused pass
      double* margin = margin_.data();
      const std::uint16_t* leaf_of = node_of;
      if (leaf_values) {
        for (std::size_t i = begin; i < end; ++i) margin[i] += leaf_values[leaf_of[i]];
      }
      for (std::size_t start = begin; start < end; start += kBlock) {
        const std::size_t count = std::min(kBlock, end - start);
        BinaryStatistics(margin + start, labels01_.data() + start, count, g_clip, h_clip,
                         exp_neg_margin, gh);
        for (std::size_t r = 0; r < count; ++r) stats_[start + r] = {gh[2 * r], gh[2 * r + 1]};
      }
    });
    return;
  }
  const StatisticsRule rule{
      .binary = binary, .leaf_update = leaf, .gradient_clip = g_clip, .hessian_clip = h_clip};
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) {
      if (apply) margin_[i] += add[i];
      if (leaf_values) margin_[i] += leaf_values[node_of[i]];
    }
    GeneralStatistics(margin_.data() + begin, labels_.data() + begin, end - begin, rule,
                      stats_.data() + begin);
  });
}

void RowStatistics::Block(const Pass& pass, std::size_t start, std::size_t count,
                          const std::uint16_t* node_of, double* gh) {
  const double g_clip = gradient_clip_;
  const double h_clip = hessian_clip_;
  const double* pending = pass.pending;
  double* margin = margin_.data();
  double* e = exp_neg_margin_.data() + start;
  const std::uint8_t* labels = labels01_.data();
  const std::uint16_t* leaf_of = node_of;
  if (pending && !pass.refresh_exp) {
    alignas(64) double vw[2 * kMaxBlock];
    const double* table = pass.pending_vw.data();
    RDPKIT_CHECK(count <= kMaxBlock);
    for (std::size_t r = 0; r < count; ++r) {
      std::memcpy(vw + 2 * r, table + 2 * leaf_of[start + r], 2 * sizeof(double));
    }
#pragma GCC diagnostic push
    // vw[0, 2·count) is written above; GCC cannot see that the kernel reads no further.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
    const bool outside = AddLeafValuesAndStatistics(margin + start, e, vw, labels + start, count,
                                                    g_clip, h_clip, gh);
#pragma GCC diagnostic pop
    if (outside) {
      for (std::size_t r = 0; r < count; ++r) {
        if (e[r] >= kExpSafeLow && e[r] <= kExpSafeHigh) continue;
        const double exact = ExpForSigmoid(-margin[start + r]);
        LogisticStatistics(exact, labels[start + r], g_clip, h_clip, gh[2 * r], gh[2 * r + 1]);
        e[r] = KeptExp(exact);  // (not a call to BinaryStatistics: that slows this loop)
      }
    }
    return;
  }
  // e^{−F} from the margins (ExpForSigmoid clamps F to [−700, 700]).
  if (pending) {
    for (std::size_t r = 0; r < count; ++r) margin[start + r] += pending[leaf_of[start + r]];
  }
  BinaryStatistics(margin + start, labels + start, count, g_clip, h_clip, e, gh);
}

void RowStatistics::AddToBatch(const std::vector<double>& leaf_values,
                               const std::uint16_t* node_of) {
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) batch_update_[i] += leaf_values[node_of[i]];
  });
}

void RowStatistics::ApplyBatch() {
  Update(batch_update_, nullptr, nullptr);
  std::fill(batch_update_.begin(), batch_update_.end(), 0.0);
}

void RowStatistics::SetPending(const std::vector<double>& leaf_values) {
  RDPKIT_CHECK(fused_);
  pending_values_ = leaf_values;
  have_pending_ = true;
}

void RowStatistics::FlushPending(const std::uint16_t* node_of) {
  if (!have_pending_) return;
  Update({}, pending_values_.data(), node_of);
  have_pending_ = false;
}

RowStatistics::Pass RowStatistics::BeginPass() {
  RDPKIT_CHECK(fused_);
  Pass pass;
  pass.pending = have_pending_ ? pending_values_.data() : nullptr;
  // Each pending value v beside its factor of e^{−F}: e^{−(F+v)} = e^{−F}·e^{−v}.
  pass.pending_vw.resize(pass.pending ? 2 * pending_values_.size() : 0);
  for (std::size_t l = 0; l < pass.pending_vw.size() / 2; ++l) {
    pass.pending_vw[2 * l] = pass.pending[l];
    pass.pending_vw[2 * l + 1] = std::exp(-pass.pending[l]);
  }
  pass.refresh_exp = exp_age_ >= kExpRefresh;
  exp_neg_margin_.resize(n_);
  exp_age_ = pass.refresh_exp ? 1 : exp_age_ + 1;
  return pass;
}

}  // namespace rdpkit::trees::internal
