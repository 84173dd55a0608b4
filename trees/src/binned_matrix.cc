#include "binned_matrix.h"

#include <algorithm>
#include <utility>

#include "candidates.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {

BinnedMatrix::BinnedMatrix(const Dataset& data, const TrainerConfig::SplitCandidates& sc,
                           WorkerPool& pool)
    : data_(data), pool_(pool), n_(data.n_rows()), m_(data.n_features()) {
  candidates_.resize(m_);
  bins_.resize(m_);
  column_has_missing_.assign(m_, 0);
  // Every candidate set has at most Q entries (IH trims to Q), so with Q ≤ 253 a bin fits a byte.
  if (sc.count <= kMaxCompactCandidates) {
    row_bins_.assign(n_ * m_, 0);
    column_bins_.assign(n_ * m_, 0);
  }
  for (std::size_t f = 0; f < m_; ++f) {
    auto& c = candidates_[f];
    c = InitialCandidates(data_.schema.features[f], f, sc.method, sc.count, data_.columns[f]);
    if (!c.empty()) splittable_.push_back(static_cast<int>(f));
    Rebin(f);
  }
  if (splittable_.empty()) {
    throw InvalidArgument("data", "no feature has a split candidate (every feature is constant)");
  }
}

void BinnedMatrix::SetCandidates(std::size_t f, std::vector<double> candidates) {
  candidates_[f] = std::move(candidates);
  Rebin(f);
}

void BinnedMatrix::Rebin(std::size_t f) {
  RDPKIT_CHECK(candidates_[f].size() < kMissingBin);
  RDPKIT_CHECK(row_bins_.empty() || candidates_[f].size() <= kMaxCompactCandidates);
  auto& column = bins_[f];
  column.resize(n_);
  const std::vector<double>& values = data_.columns[f];
  std::vector<std::uint8_t> missing(static_cast<std::size_t>(pool_.threads()), 0);
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int w) {
    bool any_missing = false;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint16_t bin = BinOf(candidates_[f], static_cast<int>(f), values[i]);
      column[i] = bin;
      any_missing = any_missing || bin == kMissingBin;
      if (!row_bins_.empty()) {
        const std::uint8_t byte =
            bin == kMissingBin ? kMissingByte : static_cast<std::uint8_t>(bin);
        row_bins_[i * m_ + f] = byte;
        column_bins_[f * n_ + i] = byte;
      }
    }
    missing[static_cast<std::size_t>(w)] = any_missing ? 1 : 0;
  });
  column_has_missing_[f] = std::find(missing.begin(), missing.end(), 1) != missing.end() ? 1 : 0;
}

}  // namespace rdpkit::trees::internal
