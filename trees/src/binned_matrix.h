// The training data as bins of the split candidates: what split search and routing read.
#ifndef RDPKIT_TREES_SRC_BINNED_MATRIX_H_
#define RDPKIT_TREES_SRC_BINNED_MATRIX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "candidates.h"
#include "parallel.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"

namespace rdpkit::trees::internal {

// Every candidate set has at most this many entries for a bin to fit a byte (255 = missing).
constexpr int kMaxCompactCandidates = 253;
constexpr std::uint8_t kMissingByte = 255;

// Per feature f: its split candidates c_1 < … < c_Q (public: from the schema's bounds, or refined
// by released statistics) and each row's bin, the number of candidates at which GoesLeft is false
// (kMissingBin for a missing value). With Q ≤ kMaxCompactCandidates for every feature, the bins
// are kept as bytes, column by column (one byte a value: kMissingByte for a missing one), else as
// 16-bit values.
class BinnedMatrix {
 public:
  // Initial candidates of split_candidates.method for every feature (InitialCandidates: throws,
  // naming features[f].min/max, when public bounds give fewer than 2), then the bins. A data set
  // read as bins (Dataset::binned) is used as it is, without a copy (it must outlive this), and
  // must have been binned for the same split_candidates (else InvalidArgument).
  BinnedMatrix(const Dataset& data, const TrainerConfig::SplitCandidates& candidates,
               WorkerPool& pool);

  std::size_t n_rows() const noexcept { return n_; }
  std::size_t n_features() const noexcept { return m_; }
  const std::vector<double>& candidates(std::size_t f) const { return candidates_[f]; }
  // Replaces feature f's candidates (e.g. refined by iterative_hessian) and re-bins it.
  void SetCandidates(std::size_t f, std::vector<double> candidates);
  // Features with at least one candidate.
  const std::vector<int>& splittable() const noexcept { return splittable_; }

  bool compact() const noexcept { return compact_; }
  // !compact() only: feature f's 16-bit bins.
  const std::uint16_t* bins(std::size_t f) const { return bins_[f].data(); }
  // compact() only: feature f's bins as bytes.
  const std::uint8_t* column_bytes(std::size_t f) const { return column_bytes_ + f * n_; }
  // Row i's bin of feature f in either layout (kMissingBin when missing).
  std::uint16_t bin(std::size_t f, std::size_t i) const {
    if (!compact_) return bins_[f][i];
    const std::uint8_t byte = column_bytes_[f * n_ + i];
    return byte == kMissingByte ? kMissingBin : byte;
  }
  bool has_missing(std::size_t f) const { return column_has_missing_[f] != 0; }

 private:
  void Rebin(std::size_t f);

  const Dataset& data_;
  WorkerPool& pool_;
  std::size_t n_;
  std::size_t m_;
  std::vector<int> splittable_;
  std::vector<std::vector<double>> candidates_;
  bool compact_;
  std::vector<std::vector<std::uint16_t>> bins_;  // !compact_
  std::vector<std::uint8_t> column_bins_;         // compact_, unless the data came binned
  const std::uint8_t* column_bytes_ = nullptr;    // compact_: column_bins_ or the data's bins
  std::vector<std::uint8_t> column_has_missing_;
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_BINNED_MATRIX_H_
