#include "logistic.h"

namespace rdpkit::trees::internal {

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_ADDRESS__)
// Compiled twice, for x86-64-v3 (AVX2, FMA) and baseline x86-64; the loader picks the one the
// CPU runs.
#define RDPKIT_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RDPKIT_VECTOR_CLONES
#endif

RDPKIT_VECTOR_CLONES
void BinaryStatistics(const double* __restrict margin, const std::uint8_t* __restrict labels,
                      std::size_t count, double g_clip, double h_clip,
                      double* __restrict exp_neg_margin, double* __restrict gh) {
  for (std::size_t r = 0; r < count; ++r) {
    const double e = ExpForSigmoid(-margin[r]);
    LogisticStatistics(e, labels[r], g_clip, h_clip, gh[2 * r], gh[2 * r + 1]);
    exp_neg_margin[r] = KeptExp(e);
  }
}

RDPKIT_VECTOR_CLONES
bool AddLeafValuesAndStatistics(double* __restrict margin, double* __restrict exp_neg_margin,
                                const double* __restrict vw, const std::uint8_t* __restrict labels,
                                std::size_t count, double g_clip, double h_clip,
                                double* __restrict gh) {
  int outside = 0;
  for (std::size_t r = 0; r < count; ++r) {
    margin[r] += vw[2 * r];
    const double e = exp_neg_margin[r] * vw[2 * r + 1];
    exp_neg_margin[r] = e;
    outside |= static_cast<int>(!(e >= kExpSafeLow)) | static_cast<int>(!(e <= kExpSafeHigh));
    LogisticStatistics(e, labels[r], g_clip, h_clip, gh[2 * r], gh[2 * r + 1]);
  }
  return outside != 0;
}

}  // namespace rdpkit::trees::internal
