#include "row_statistics.h"

#include <algorithm>

#include "logistic.h"
#include "rdpkit/accountant/errors.h"
#include "row_sample.h"

namespace rdpkit::trees::internal {

RowStatistics::RowStatistics(const std::vector<double>& labels, const std::uint8_t* binary_labels,
                             std::size_t n, const TrainerConfig& config, WorkerPool& pool,
                             bool fused, double base_score)
    : labels_(labels),
      binary_labels_(binary_labels),
      pool_(pool),
      n_(n),
      binary_(TaskOfObjective(config.objective) == Task::kBinary),
      leaf_update_(config.leaf_update),
      gradient_clip_(config.gradient_clip),
      hessian_clip_(config.hessian_clip),
      fused_(fused) {
  RDPKIT_CHECK(binary_ ? binary_labels_ != nullptr : labels_.size() == n_);
  RDPKIT_CHECK(!fused_ ||
               (binary_ && leaf_update_ == LeafUpdate::kNewton && config.batch_size == 1));
  if (config.batch_size > 1) batch_update_.assign(n_, 0.0);
  if (fused_) {
    float_margin_.assign(n_, static_cast<float>(base_score));
    // The per-row (a, b) (16 bytes a row) are only kept when something else reads them
    // (iterative_hessian's histograms).
    if (config.split_candidates.method != CandidateMethod::kIterativeHessian) return;
  } else {
    margin_.assign(n_, base_score);
  }
  Update({}, nullptr, nullptr);
}

void RowStatistics::Update(const std::vector<double>& add, const double* leaf_values,
                           const std::uint16_t* node_of) {
  stats_.resize(n_);
  const double g_clip = gradient_clip_;
  const double h_clip = hessian_clip_;
  if (fused_) {
    RDPKIT_CHECK(add.empty());
    // The fused pass's block kernel over every row, its (g, h) kept.
    const Pass pass{leaf_values};
    pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
      alignas(64) double gh[2 * kMaxBlock];
      for (std::size_t start = begin; start < end; start += kMaxBlock) {
        const std::size_t count = std::min(kMaxBlock, end - start);
        Block(pass, start, count, node_of, nullptr, gh);
        for (std::size_t r = 0; r < count; ++r) stats_[start + r] = {gh[2 * r], gh[2 * r + 1]};
      }
    });
    return;
  }
  const bool apply = !add.empty();
  const LeafUpdate leaf = leaf_update_;
  const bool binary = binary_;
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
    double* margin = margin_.data();
    for (std::size_t i = begin; i < end; ++i) {
      if (apply) margin[i] += add[i];
      if (leaf_values) margin[i] += leaf_values[node_of[i]];
    }
    if (binary && leaf == LeafUpdate::kNewton) {
      // The common case (binary Newton boosting): the vectorized kernel, block by block.
      alignas(64) double gh[2 * kMaxBlock];
      for (std::size_t start = begin; start < end; start += kMaxBlock) {
        const std::size_t count = std::min(kMaxBlock, end - start);
        BinaryStatistics(margin + start, binary_labels_ + start, count, g_clip, h_clip, gh);
        for (std::size_t r = 0; r < count; ++r) stats_[start + r] = {gh[2 * r], gh[2 * r + 1]};
      }
      return;
    }
    const StatisticsRule rule{
        .binary = binary, .leaf_update = leaf, .gradient_clip = g_clip, .hessian_clip = h_clip};
    if (binary) {
      GeneralStatistics(margin + begin, binary_labels_ + begin, end - begin, rule,
                        stats_.data() + begin);
    } else {
      GeneralStatistics(margin + begin, labels_.data() + begin, end - begin, rule,
                        stats_.data() + begin);
    }
  });
}

void RowStatistics::Block(const Pass& pass, std::size_t start, std::size_t count,
                          const std::uint16_t* node_of, const std::uint64_t* in_sample,
                          double* gh) {
  RDPKIT_CHECK(count <= kMaxBlock);
  float* margin = float_margin_.data() + start;
  const std::uint8_t* labels = binary_labels_ + start;
  if (pass.pending) {
    alignas(64) double add[kMaxBlock];
    for (std::size_t r = 0; r < count; ++r) add[r] = pass.pending[node_of[start + r]];
#pragma GCC diagnostic push
      // add[0, count) is written above; GCC cannot see that the kernel reads no further.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
    AddToFloatMargins(margin, add, count);
#pragma GCC diagnostic pop
  }
  if (in_sample == nullptr) {
    FloatMarginStatistics(margin, labels, count, gradient_clip_, hessian_clip_, gh);
    return;
  }
  // Only the rows of the tree's sample need statistics (S-BDT §6.3): gathered (without a branch),
  // computed, put back; the others get (0, 0).
  alignas(64) float sample_margin[kMaxBlock];
  alignas(64) std::uint8_t sample_label[kMaxBlock];
  alignas(64) double sample_gh[2 * kMaxBlock];
  std::uint16_t row_of[kMaxBlock];
  std::size_t k = 0;
  for (std::size_t r = 0; r < count; ++r) {
    row_of[k] = static_cast<std::uint16_t>(r);
    sample_margin[k] = margin[r];
    sample_label[k] = labels[r];
    k += RowSample::In(in_sample, start + r) ? 1 : 0;
  }
  FloatMarginStatistics(sample_margin, sample_label, k, gradient_clip_, hessian_clip_, sample_gh);
  std::fill(gh, gh + 2 * count, 0.0);
  for (std::size_t j = 0; j < k; ++j) {
    gh[2 * row_of[j]] = sample_gh[2 * j];
    gh[2 * row_of[j] + 1] = sample_gh[2 * j + 1];
  }
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
  return Pass{have_pending_ ? pending_values_.data() : nullptr};
}

}  // namespace rdpkit::trees::internal
