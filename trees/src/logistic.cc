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
                      std::size_t count, double g_clip, double h_clip, double* __restrict gh) {
  for (std::size_t r = 0; r < count; ++r) {
    LogisticStatistics(ExpForSigmoid(-margin[r]), labels[r], g_clip, h_clip, gh[2 * r],
                       gh[2 * r + 1]);
  }
}

RDPKIT_VECTOR_CLONES
void AddToFloatMargins(float* __restrict margin, const double* __restrict add, std::size_t count) {
  for (std::size_t r = 0; r < count; ++r) {
    const double sum = static_cast<double>(margin[r]) + add[r];
    margin[r] = static_cast<float>(std::min(std::max(sum, -kMaxFloatMargin), kMaxFloatMargin));
  }
}

RDPKIT_VECTOR_CLONES
void FloatMarginStatistics(const float* __restrict margin, const std::uint8_t* __restrict labels,
                           std::size_t count, double g_clip, double h_clip, double* __restrict gh) {
  for (std::size_t r = 0; r < count; ++r) {
    LogisticStatistics(ExpForSigmoid(-static_cast<double>(margin[r])), labels[r], g_clip, h_clip,
                       gh[2 * r], gh[2 * r + 1]);
  }
}

template <typename Label>
void GeneralStatistics(const double* __restrict margin, const Label* __restrict labels,
                       std::size_t count, const StatisticsRule& rule, Pair* __restrict stats) {
  const double g_clip = rule.gradient_clip;
  const double h_clip = rule.hessian_clip;
  const auto clamp = [](double x, double lo, double hi) { return std::min(std::max(x, lo), hi); };
  for (std::size_t i = 0; i < count; ++i) {
    const double y = static_cast<double>(labels[i]);
    Pair s;
    if (rule.leaf_update == LeafUpdate::kAveraging) {
      s.a = rule.binary ? y : clamp(y, -g_clip, g_clip);
      s.b = 1;
    } else {
      double g;
      double h;
      if (rule.binary) {
        const double p = 1 / (1 + ExpForSigmoid(-margin[i]));  // σ(F)
        g = p - y;
        h = p * (1 - p);
      } else {
        g = margin[i] - y;  // squared error ½(F − y)²
        h = 1;
      }
      s.a = clamp(g, -g_clip, g_clip);
      s.b = rule.leaf_update == LeafUpdate::kNewton ? clamp(h, 0, h_clip) : 1;
    }
    stats[i] = s;
  }
}

template void GeneralStatistics(const double* __restrict, const double* __restrict, std::size_t,
                                const StatisticsRule&, Pair* __restrict);
template void GeneralStatistics(const double* __restrict, const std::uint8_t* __restrict,
                                std::size_t, const StatisticsRule&, Pair* __restrict);

}  // namespace rdpkit::trees::internal
