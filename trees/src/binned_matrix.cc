#include "binned_matrix.h"

#include <algorithm>
#include <utility>

#include "candidates.h"
#include "config_keys.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {

BinnedMatrix::BinnedMatrix(const Dataset& data, const TrainerConfig::SplitCandidates& sc,
                           WorkerPool& pool)
    : data_(data),
      pool_(pool),
      n_(data.n_rows()),
      m_(data.n_features()),
      // Every candidate set has at most Q (categorical: Q_c) entries (IH trims to Q): with both
      // ≤ 253 a bin is a byte.
      compact_(sc.widest() <= kMaxCompactCandidates) {
  candidates_.resize(m_);
  column_has_missing_.assign(m_, 0);
  if (data.binned) {
    const BinnedFeatures& binned = *data.binned;
    if (binned.method != ToString(sc.method) || binned.count != sc.count ||
        binned.categorical_count != sc.categorical_count) {
      throw InvalidArgument(
          "split_candidates",
          "method \"" + ToString(sc.method) + "\", count " + std::to_string(sc.count) +
              ", categorical_count " + std::to_string(sc.categorical_count) +
              " (the data were binned for \"" + binned.method + "\", " +
              std::to_string(binned.count) + ", " + std::to_string(binned.categorical_count) + ")",
          "the split candidates the data were read with");
    }
    RDPKIT_CHECK(compact_ && binned.bins.size() == n_ * m_);
    candidates_ = binned.candidates;
    column_has_missing_ = binned.has_missing;
    column_bytes_ = binned.bins.data();
  } else if (compact_) {
    column_bins_.assign(n_ * m_, 0);
    column_bytes_ = column_bins_.data();
  } else {
    bins_.resize(m_);
  }
  for (std::size_t f = 0; f < m_; ++f) {
    if (data.binned) {
      if (!candidates_[f].empty()) splittable_.push_back(static_cast<int>(f));
      continue;
    }
    auto& c = candidates_[f];
    const FeatureSpec& feature = data_.schema.features[f];
    c = InitialCandidates(feature, f, sc.method, CandidateCount(sc, feature), data_.columns[f]);
    if (!c.empty()) splittable_.push_back(static_cast<int>(f));
    Rebin(f);
  }
  if (splittable_.empty()) {
    throw InvalidArgument("data",
                          "no feature has a split candidate, so no tree could split (a categorical "
                          "feature needs n_codes >= 2, a numeric one bounds min < max that hold "
                          "distinct candidates)");
  }
}

void BinnedMatrix::SetCandidates(std::size_t f, std::vector<double> candidates) {
  candidates_[f] = std::move(candidates);
  Rebin(f);
}

void BinnedMatrix::Rebin(std::size_t f) {
  RDPKIT_CHECK(candidates_[f].size() < kMissingBin && !data_.binned);
  RDPKIT_CHECK(!compact_ || candidates_[f].size() <= kMaxCompactCandidates);
  if (!compact_) bins_[f].resize(n_);
  std::uint16_t* wide = compact_ ? nullptr : bins_[f].data();
  std::uint8_t* bytes = compact_ ? column_bins_.data() + f * n_ : nullptr;
  const std::vector<double>& values = data_.columns[f];
  std::vector<std::uint8_t> missing(static_cast<std::size_t>(pool_.threads()), 0);
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int w) {
    bool any_missing = false;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint16_t bin = BinOf(candidates_[f], static_cast<int>(f), values[i]);
      any_missing = any_missing || bin == kMissingBin;
      if (compact_) {
        bytes[i] = bin == kMissingBin ? kMissingByte : static_cast<std::uint8_t>(bin);
      } else {
        wide[i] = bin;
      }
    }
    missing[static_cast<std::size_t>(w)] = any_missing ? 1 : 0;
  });
  column_has_missing_[f] = std::find(missing.begin(), missing.end(), 1) != missing.end() ? 1 : 0;
}

}  // namespace rdpkit::trees::internal
