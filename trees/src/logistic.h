// The per-row statistics kernels, binary cross-entropy first: the trainer's hottest loops. The
// block kernels are in logistic.cc, which alone is compiled with -fno-trapping-math (clipping by
// comparisons then becomes vector blends) and, with GCC on x86-64, twice (x86-64-v3 and baseline).
#ifndef RDPKIT_TREES_SRC_LOGISTIC_H_
#define RDPKIT_TREES_SRC_LOGISTIC_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "rdpkit/trees/config.h"
#include "statistics.h"

namespace rdpkit::trees::internal {

// e^x for the logistic link, branch-free so the statistics loop vectorizes. x is clamped to
// [−700, 700]; x = k·ln 2 + r with |r| ≤ ln 2/2 (k rounded by the 1.5·2^52 shifter), e^r by its
// Taylor polynomial of degree 9 (remainder (ln2/2)^10/10! < 3e-12 relative), 2^k written into
// the exponent bits. Privacy does not depend on this accuracy: g and h are clipped afterwards.
inline __attribute__((always_inline)) double ExpForSigmoid(double x) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 0.693147180369123816490;  // high bits of ln 2 (exact product with k)
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kShifter = 0x1.8p52;
  x = std::min(std::max(x, -700.0), 700.0);
  const double t = x * kLog2e + kShifter;
  const double k = t - kShifter;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p = 1.0 / 362880.0;  // 1/9!
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  std::uint64_t bits;
  std::memcpy(&bits, &t, sizeof bits);  // low bits of t hold k
  bits = (bits + 1023) << 52;           // (k + 1023) in the exponent field, k ∈ [−1010, 1010]
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// Binary cross-entropy statistics of one row from e = e^{−F} (F its margin): p = σ(F) = 1/(1 + e),
// g = p − y and h = p(1 − p), clipped to [−g*, g*] and [0, h*] (S-BDT §4.2).
inline __attribute__((always_inline)) void LogisticStatistics(double e, std::uint8_t y,
                                                              double g_clip, double h_clip,
                                                              double& g, double& h) {
  const double p = 1 / (1 + e);
  const double gr = p - y;
  const double hr = p * (1 - p);
  g = gr < -g_clip ? -g_clip : (gr > g_clip ? g_clip : gr);
  h = hr < 0 ? 0 : (hr > h_clip ? h_clip : hr);
}

// The statistics of `count` rows from their margins F, (g, h) interleaved: gh[2r] = g,
// gh[2r + 1] = h. Plain arrays and no gathers, so that the loop vectorizes.
void BinaryStatistics(const double* __restrict margin, const std::uint8_t* __restrict labels,
                      std::size_t count, double g_clip, double h_clip, double* __restrict gh);

// The fused pass's kernels. The margins F are kept as floats: F + v is formed in double, kept
// within ±kMaxFloatMargin (where σ(F) is 0 or 1 long since: ExpForSigmoid clamps F to ±700; a
// double beyond the float range would not convert) and rounded (add[r] = v, the value of row r's
// leaf in the previous tree)...
constexpr double kMaxFloatMargin = 1e30;
void AddToFloatMargins(float* __restrict margin, const double* __restrict add, std::size_t count);
// ...and the statistics are computed from the kept F as BinaryStatistics does.
void FloatMarginStatistics(const float* __restrict margin, const std::uint8_t* __restrict labels,
                           std::size_t count, double g_clip, double h_clip, double* __restrict gh);

// The statistics of `count` rows for any objective and leaf update, from their margins F:
// averaging (y, 1) (Maddock §4.4.1; regression labels clipped to [−g*, g*]); gradient (g, 1) and
// Newton (g, h) (§4.4.2–4.4.3) with binary cross-entropy g = σ(F) − y, h = σ(F)(1 − σ(F)) or
// squared error g = F − y, h = 1; g clipped to [−g*, g*], h to [0, h*] (S-BDT §4.2).
struct StatisticsRule {
  bool binary = true;
  LeafUpdate leaf_update = LeafUpdate::kNewton;
  double gradient_clip = 1;
  double hessian_clip = 1;
};
// labels: doubles (regression) or 0/1 bytes (binary).
template <typename Label>
void GeneralStatistics(const double* __restrict margin, const Label* __restrict labels,
                       std::size_t count, const StatisticsRule& rule, Pair* __restrict stats);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_LOGISTIC_H_
