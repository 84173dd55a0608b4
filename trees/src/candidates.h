// Split candidate sets and binning (Maddock et al. 2022 §4.5). Private to the trees module.
#ifndef RDPKIT_TREES_SRC_CANDIDATES_H_
#define RDPKIT_TREES_SRC_CANDIDATES_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"

namespace rdpkit::trees::internal {

// Candidates of one feature: strictly increasing thresholds strictly inside (min, max]. A split at
// candidate c sends x < c left (model.h GoesLeft).

// Uniform over the public bounds: the smallest double above min (the split x ≤ min vs x > min),
// then c_j = min + j·(max − min)/Q, j = 1..Q−1 (Maddock §4.5.1).
// Categorical features: the code boundaries j + 1/2 (at most Q of them, evenly chosen).
std::vector<double> UniformCandidates(const FeatureSpec& feature, int count);
// Uniform after the transform log(1 + x − min): the smallest double above min, then
// c_j = min + expm1(j/Q · log1p(max − min)), j = 1..Q−1 (Maddock §4.5.1, "Log"). Categorical
// features as in UniformCandidates.
std::vector<double> LogCandidates(const FeatureSpec& feature, int count);
// The union of the uniform grid of max(2, Q − ⌊Q/2⌋) candidates and the log grid of ⌊Q/2⌋ (both
// hold the split just above min), so at most Q: the uniform half keeps the resolution of features
// spread over their bounds, the log half that of features whose values crowd near min (counts,
// amounts) (docs/trees_auto_features.md § Split candidates). Categorical features as in
// UniformCandidates.
std::vector<double> UniformAndLogCandidates(const FeatureSpec& feature, int count);
// NON-PRIVATE baseline: the j/(Q + 1) quantiles of the observed (non-missing) values, deduplicated
// (Maddock §4.5.1, "Quantiles"). Categorical features as in UniformCandidates.
std::vector<double> QuantileCandidates(const FeatureSpec& feature,
                                       const std::vector<double>& column, int count);
// One round of iterative Hessian refinement (after Maddock §4.5.2 / Alg. 2): hessian[j] is the
// (noisy) Hessian mass of value bin j, j = 0..q, where bin j is [c_j, c_{j+1}) with c_0 = min and
// c_{q+1} = max. With target = Σ max(hessian, 0)/Q: a bin heavier than target is split at its
// midpoint, and a boundary is kept only once the mass accumulated since the last kept boundary
// reaches target (light bins merge). The result is trimmed to Q candidates by even subsampling or
// filled up to Q by halving the widest gaps. Pure post-processing of the histogram. Categorical
// features are returned unchanged.
std::vector<double> RefineIterativeHessian(const FeatureSpec& feature,
                                           const std::vector<double>& candidates,
                                           const std::vector<double>& hessian, int count);

// The first candidate set of feature `index` for split_candidates.method (`method`) and count Q:
// uniform, log, quantile (from the training column; non-private) and iterative_hessian (which
// starts from uniform). A numeric feature whose public bounds give a private method fewer than 2
// distinct candidates (bounds a few ulps apart; log far from its origin) → InvalidArgument naming
// features[index].min/max. A categorical feature may have 0 (n_codes 1) or 1 (n_codes 2).
std::vector<double> InitialCandidates(const FeatureSpec& feature, std::size_t index,
                                      CandidateMethod method, int count,
                                      const std::vector<double>& column);

// The count InitialCandidates takes for `feature`: Q_c (categorical_count, if given) for a
// categorical feature, else Q.
inline int CandidateCount(const TrainerConfig::SplitCandidates& sc, const FeatureSpec& feature) {
  return feature.categorical ? sc.categorical() : sc.count;
}
// The most candidates InitialCandidates returns for `feature` (IH refinement keeps to Q): its
// CandidateCount, and for a categorical feature at most its n_codes − 1 code boundaries.
inline int MostCandidates(const TrainerConfig::SplitCandidates& sc, const FeatureSpec& feature) {
  const int count = CandidateCount(sc, feature);
  return feature.categorical ? std::min(count, std::max(feature.n_codes - 1, 0)) : count;
}

// Bin of a value for a candidate set: the number of candidates c with !GoesLeft(c, x), i.e. the
// value goes left at candidate index j (1-based) iff bin < j. NaN → kMissingBin.
constexpr std::uint16_t kMissingBin = std::numeric_limits<std::uint16_t>::max();
// Bins are 0..Q and kMissingBin, so Q (split_candidates.count) is at most kMissingBin − 1.
static_assert(TrainerConfig::SplitCandidates::kMaxCount < kMissingBin,
              "split_candidates.count must leave a bin value for missing values");
std::uint16_t BinOf(const std::vector<double>& candidates, int feature, double x);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_CANDIDATES_H_
