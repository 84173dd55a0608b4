// The per-record statistics the trainer sums and releases, and the rows' working state.
#ifndef RDPKIT_TREES_SRC_STATISTICS_H_
#define RDPKIT_TREES_SRC_STATISTICS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rdpkit::trees::internal {

// One record's statistics, or their sum over a cell of rows: a is the gradient-type statistic
// (the label for averaging), b the Hessian-type one (the count for gradient and averaging).
struct Pair {
  double a = 0;
  double b = 0;
  Pair& operator+=(const Pair& o) {
    a += o.a;
    b += o.b;
    return *this;
  }
};
inline Pair operator-(Pair x, const Pair& y) { return {x.a - y.a, x.b - y.b}; }
inline Pair operator+(Pair x, const Pair& y) { return {x.a + y.a, x.b + y.b}; }

// Exact sums (docs/trees_training.md "Exact sums"). A double sum of n records' statistics is off
// by rounding, up to about n²·2^-53 of the bound in the worst case, so its sensitivity would
// exceed the clip bound s that the noise is scaled to (Casacuberta et al. 2022). Instead each
// record's value v (|v| ≤ s) enters a sum as the integer q = trunc(v·2^(kBits − e)), with e from
// frexp (s = m·2^e, m ∈ [1/2, 1)), so |q| ≤ s·2^(kBits − e) < 2^kBits. Integers add exactly, in
// any order, so adding or removing one record moves the sum of any set of records by |q|·2^(e −
// kBits) ≤ s. Truncation toward zero only shrinks values: the clip bound holds for every
// coordinate and every norm. A sum converts back to a double exactly while |Σq| < 2^53, i.e. for
// cells of fewer than 2^(53 − kBits) = 2^29 records.
class FixedPoint {
 public:
  static constexpr int kBits = 24;  // resolution 2^-24 of the bound (≤ 2^-23 of s)
  FixedPoint() = default;
  explicit FixedPoint(double bound) {
    int e = 0;
    (void)std::frexp(bound, &e);                                   // bound = m·2^e, m ∈ [1/2, 1)
    const int shift = std::max(-1022, std::min(1022, kBits - e));  // normal powers of two
    to_fixed_ = std::ldexp(1.0, shift);
    from_fixed_ = std::ldexp(1.0, -shift);
  }
  std::int64_t ToFixed(double value) const {  // truncates toward zero
    return static_cast<std::int64_t>(value * to_fixed_);
  }
  double ToDouble(std::int64_t sum) const { return static_cast<double>(sum) * from_fixed_; }

 private:
  double to_fixed_ = 1;
  double from_fixed_ = 1;
};

// A cell's exact sums of the records' (a, b) in the fixed points of the a and b bounds.
struct FixedPair {
  std::int64_t a = 0;
  std::int64_t b = 0;
  FixedPair& operator+=(const FixedPair& o) {
    a += o.a;
    b += o.b;
    return *this;
  }
};

// The fixed points of a run's two statistics, from their bounds (the sensitivities s_a and s_b,
// or 1 for a b that counts records).
struct FixedScales {
  FixedPoint a;
  FixedPoint b;
  FixedScales(double bound_a, double bound_b) : a(bound_a), b(bound_b) {}
  FixedPair ToFixed(const Pair& p) const { return {a.ToFixed(p.a), b.ToFixed(p.b)}; }
  Pair ToPair(const FixedPair& q) const { return {a.ToDouble(q.a), b.ToDouble(q.b)}; }
};

// The most training rows (over all ranks) of a private run: every cell's exact sum then has
// |Σq| < 2^53 and converts to a double exactly, and kSplitUtilityMargin covers the rounding of
// SplitUtility. More rows are refused (PlanPrivacy).
inline constexpr std::uint64_t kMaxPrivateRows = (std::uint64_t{1} << (53 - FixedPoint::kBits)) - 1;

// An exponential split's utility Σ_children G²/(n + λ) (Revisiting DP-XGBoost §4.2) from the
// children's exact sums of (a, count). The sums are exact; a·a, b + λ, the division and the final
// addition each round, so the result is within (1 + 2^-53)^4/(1 − 2^-53) − 1 < 5·2^-53 of the
// exact utility, relative. The exact utility is at most n·s_a² (|G| ≤ n·s_a, λ ≥ 0), so the
// computed utilities of neighbouring data sets of n and n + 1 rows ≤ kMaxPrivateRows + 1 = 2^29
// differ from the exact ones by at most 5·2^-53·2^30·s_a² = (5/3)·2^-23 of Δ_U = 3·s_a²: less
// than the relative margin 2^-21 that the exponential mechanism's Δ carries (query_plan.cc).
inline double SplitUtility(const Pair& left, const Pair& right, double lambda) {
  const auto score = [lambda](const Pair& p) {
    return p.b + lambda > 0 ? p.a * p.a / (p.b + lambda) : 0.0;
  };
  return score(left) + score(right);
}
inline constexpr double kSplitUtilityMargin = 0x1p-21;

// The exact sums of per-worker partial sums, each `copies` interleaved blocks of `size` cells
// (cell c of block j at j·size + c), as doubles.
inline std::vector<Pair> ExactSums(const std::vector<std::vector<FixedPair>>& partial,
                                   std::size_t size, const FixedScales& scales,
                                   std::size_t copies = 1) {
  std::vector<FixedPair> total(size);
  for (const auto& local : partial) {
    for (std::size_t j = 0; j < copies; ++j) {
      for (std::size_t c = 0; c < size; ++c) total[c] += local[j * size + c];
    }
  }
  std::vector<Pair> sums(size);
  for (std::size_t c = 0; c < size; ++c) sums[c] = scales.ToPair(total[c]);
  return sums;
}

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_STATISTICS_H_
