// One factor's transform in log form, with bounds on its error per bin (docs/math/pld.md §4): the
// transform relative to the factor's heaviest mass, ŷ_k = w^{k·p₀}·S·(1 − x_k), is kept as
// log S + log(1 − x_k), so that a power T multiplies the error of x_k (small where the factor is
// nearly one atom) instead of that of ŷ_k. x_k comes from an FFT of the light masses, the other
// heavy masses and, where the power would amplify it, a compensated direct sum.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "pld_internal.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kU = kUnitRoundoff;
constexpr double kInf = std::numeric_limits<double>::infinity();
using Complex = std::complex<double>;

// Heavy masses and direct sums apply to factors run at least kDirectMinCount times (where the
// power multiplies the error by T, pld.md eq. 4.3).
constexpr double kDirectMinCount = 16;
// Heavy masses besides the reference: at most kMaxHeavy, each at least kHeavyShare of the mass.
constexpr std::size_t kMaxHeavy = 8;
constexpr double kHeavyShare = 1.0 / 64;
// The log form is computed when the other masses hold at most this share of the total.
constexpr double kLogFormShare = 0.5;
// Direct bins: those whose power bound exceeds e^{kDirectLog}, while bins × masses ≤ kDirectBudget.
constexpr double kDirectLog = -80;
constexpr std::size_t kDirectBudget = std::size_t{1} << 22;
// A table twiddle is within 4u of e^{−2πir/n}; a term m·w' is then within 6u·m of m·w (eq. 4.6).
constexpr double kTermError = 6 * kU;
// A compensated (Kahan) sum of M terms is within (2u + O(M·u²))·Σ|terms| per component
// (Higham 2002, §4.3): ≤ 3u·Σ m in modulus for M ≤ 2^40 (eq. 4.6).
constexpr double kKahanError = 3 * kU;

void KahanAdd(double& sum, double& carry, double x) {
  const double y = x - carry;
  const double t = sum + y;
  carry = (t - sum) - y;
  sum = t;
}

// Σ values by compensated summation, raised so that it is ≥ the exact sum (pld.md eq. 4.7).
double SumUpper(const std::vector<double>& values, const std::vector<bool>* skip = nullptr) {
  double sum = 0;
  double carry = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (skip == nullptr || !(*skip)[i]) KahanAdd(sum, carry, values[i]);
  }
  return sum * (1 + 4 * kU);
}

// log1p(z) of a complex z and a bound on its rounding (pld.md eq. 4.8): for |z| ≤ ½,
// re = ½·log1p(2·Re z + |z|²), im = atan2(Im z, 1 + Re z), within 20u·|z|; otherwise
// re = log|1 + z| by hypot, within 11u + 2u·|re|.
struct LogValue {
  Complex value;
  double rounding;
};
LogValue ComplexLog1p(Complex z) {
  const double modulus = std::sqrt(std::norm(z)) * (1 + 2 * kU);
  const double im = std::atan2(z.imag(), 1 + z.real());
  if (modulus <= 0.5) {
    const double re = 0.5 * std::log1p(2 * z.real() + std::norm(z));
    return {{re, im}, 20 * kU * modulus};
  }
  // |1 + z| within 3u relative (the rounding of 1 + Re z is relative to it, hypot 1 ulp), log
  // 1 ulp; atan2 2 ulp plus u from its rounded argument: ≤ 3u + u·|re| + 2u·π + u.
  const double re = std::log(std::hypot(1 + z.real(), z.imag()));
  return {{re, im}, 11 * kU + 2 * kU * std::abs(re)};
}

}  // namespace

const TwiddleTable& Twiddles(std::size_t n) {
  thread_local TwiddleTable table;
  if (table.n == n) return table;
  RDPKIT_CHECK(n >= 8 && (n & (n - 1)) == 0);
  table.n = n;
  table.cos.assign(n, 0.0);
  table.sin.assign(n, 0.0);
  const std::size_t eighth = n / 8;
  const double inv_n = 1 / static_cast<double>(n);  // exact: n is a power of 2
  for (std::size_t r = 0; r <= eighth; ++r) {
    const double angle = 2 * M_PI * (static_cast<double>(r) * inv_n);
    table.cos[r] = std::cos(angle);
    table.sin[r] = std::sin(angle);
  }
  // Reflections: θ ↦ π/2 − θ swaps cos and sin; θ ↦ θ + π/2 maps (c, s) to (−s, c).
  const std::size_t quarter = n / 4;
  for (std::size_t r = eighth + 1; r <= quarter; ++r) {
    table.cos[r] = table.sin[quarter - r];
    table.sin[r] = table.cos[quarter - r];
  }
  for (std::size_t r = quarter + 1; r < n; ++r) {
    table.cos[r] = -table.sin[r - quarter];
    table.sin[r] = table.cos[r - quarter];
  }
  return table;
}

namespace {

// One factor's transform: the reference mass, the rest's transform R_k with its error bound, and
// the two forms of each bin (pld.md eq. 4.6–4.9).
class FactorTransform {
 public:
  FactorTransform(const SparsePld& pld, std::size_t n)
      : pld_(pld), n_(n), bins_(n / 2 + 1), mask_(n - 1), table_(Twiddles(n)) {
    // No direct bins until DirectBins finds some (the buffers may hold another factor's).
    direct_.clear();
    direct_value_.clear();
    const std::size_t masses = pld.index.size();
    RDPKIT_CHECK(masses > 0);
    const auto m = static_cast<std::int64_t>(n);
    positions_.resize(masses);
    for (std::size_t i = 0; i < masses; ++i) {
      positions_[i] = static_cast<std::uint64_t>(((pld.index[i] % m) + m) % m);
    }
    // The reference: the heaviest mass; the rest at offsets from it (n is a power of 2).
    reference_ = static_cast<std::size_t>(std::max_element(pld.mass.begin(), pld.mass.end()) -
                                          pld.mass.begin());
    offsets_.resize(masses);
    for (std::size_t i = 0; i < masses; ++i) {
      offsets_[i] = (positions_[i] + n - positions_[reference_]) & mask_;
    }
    // S** = m₀ + s_rest, a double, with s_rest close to the other masses' sum (so that x is
    // small) and known exactly as hi + lo (an error-free sum): m₀ + R_k = S** − d_k exactly for
    // d_k = s_rest − R_k, and x_k = d_k/S** (pld.md eq. 4.7).
    not_rest_.assign(masses, false);
    not_rest_[reference_] = true;
    rest_ = SumUpper(pld.mass, &not_rest_);
    const double m0 = pld.mass[reference_];
    total_ = m0 + rest_;
    rest_hi_ = total_ - m0;
    const double b = rest_hi_ - total_;  // TwoSum: total − m₀ = rest_hi + rest_lo exactly
    rest_lo_ = (total_ - (rest_hi_ - b)) + (-m0 - b);
  }

  // R_k by an FFT of the light masses and, for a factor run ≥ kDirectMinCount times, its heavy
  // masses by table (eq. 4.6).
  void RestTransform(double count) {
    const std::size_t masses = pld_.index.size();
    std::vector<std::size_t> heavy;
    if (count >= kDirectMinCount) {
      std::vector<std::size_t> order(masses);
      std::iota(order.begin(), order.end(), std::size_t{0});
      const std::size_t keep = std::min(kMaxHeavy + 1, masses);
      std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep),
                        order.end(),
                        [&](std::size_t a, std::size_t b) { return pld_.mass[a] > pld_.mass[b]; });
      for (std::size_t i = 0; i < keep; ++i) {
        if (order[i] != reference_ && pld_.mass[order[i]] >= kHeavyShare * total_) {
          heavy.push_back(order[i]);
        }
      }
    }
    std::vector<bool> not_light = not_rest_;
    for (const std::size_t i : heavy) not_light[i] = true;
    const double light = SumUpper(pld_.mass, &not_light);
    // The indices are distinct and increasing, so at most f = ⌈span/n⌉ share a position; their
    // sum to nearest is within f·u of them.
    const double most_folded = std::ceil(
        static_cast<double>(pld_.index.back() - pld_.index.front() + 1) / static_cast<double>(n_));
    std::vector<double>& y = ThreadScratch().dense;
    y.assign(n_, 0.0);
    for (std::size_t i = 0; i < masses; ++i) {
      if (!not_light[i]) y[offsets_[i]] += pld_.mass[i];
    }
    const RealFft fft(n_);
    fft.Forward(y, transform_);
    error_.assign(bins_, (fft.ForwardErrorFactor() + most_folded * kU) * light +
                             kTermError * rest_ +
                             (static_cast<double>(heavy.size()) + 1) * 1.5 * kU * rest_);
    for (const std::size_t i : heavy) {
      const double mass = pld_.mass[i];
      const std::uint64_t p = offsets_[i];
      std::uint64_t r = 0;
      for (std::size_t k = 0; k < bins_; ++k, r = (r + p) & mask_) {
        transform_[k] += Complex(mass * table_.cos[r], -mass * table_.sin[r]);
      }
    }
  }

  // x_k = (s_rest − R_k)/S** and e ≥ |x' − x|: |R' − R|/S** plus the subtraction, the addition
  // of lo and the division, ≤ 4u·|x'| (eq. 4.7).
  std::pair<Complex, double> Deficit(std::size_t k) const {
    const Complex x = ((rest_hi_ - transform_[k]) + rest_lo_) / total_;
    return {x, error_[k] / total_ * (1 + 4 * kU) + 4 * kU * Modulus(x)};
  }

  // The bins the power would amplify, by two compensated sums each (within the budget): R_k over
  // the other masses at their offsets, ŷ_k over all masses at their positions (eq. 4.6).
  void DirectBins(double count, const std::vector<double>& log_bound, double negligible_log) {
    if (count < kDirectMinCount) return;
    // count·log(|1 − x| + e) > kDirectLog ⟺ |1 − x| + e > e^{kDirectLog/count}.
    const double threshold = std::exp(kDirectLog / count);
    std::vector<std::size_t> wanted;
    for (std::size_t k = 0; k < bins_; ++k) {
      if (log_bound[k] < negligible_log) continue;
      const auto [x, e] = Deficit(k);
      if (Modulus(1.0 - x) + e > threshold) wanted.push_back(k);
    }
    const std::size_t masses = pld_.index.size();
    if (wanted.size() * masses > kDirectBudget) return;
    direct_.assign(bins_, false);
    direct_value_.assign(bins_, Complex(0, 0));
    for (const std::size_t k : wanted) {
      double sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // rest re, carry, im, carry; full re, …
      const auto kk = static_cast<std::uint64_t>(k);
      for (std::size_t i = 0; i < masses; ++i) {
        const auto a = static_cast<std::size_t>((kk * positions_[i]) & mask_);
        KahanAdd(sums[4], sums[5], pld_.mass[i] * table_.cos[a]);
        KahanAdd(sums[6], sums[7], -pld_.mass[i] * table_.sin[a]);
        if (i == reference_) continue;
        const auto r = static_cast<std::size_t>((kk * offsets_[i]) & mask_);
        KahanAdd(sums[0], sums[1], pld_.mass[i] * table_.cos[r]);
        KahanAdd(sums[2], sums[3], -pld_.mass[i] * table_.sin[r]);
      }
      transform_[k] = {sums[0], sums[2]};
      error_[k] = (kTermError + kKahanError) * rest_;
      direct_[k] = true;
      direct_value_[k] = {sums[4], sums[6]};
    }
  }

  // Both forms of every non-negligible bin (eq. 4.8, 4.9).
  void Forms(const std::vector<double>& log_bound, double negligible_log,
             FactorLogSpectrum& out) const {
    out.reference = positions_[reference_];
    // log S**, within 2u·|log S**| (log within 1 ulp).
    out.log_scale = std::log(total_);
    out.log_scale_error = 2 * kU * std::abs(out.log_scale) + 1e-300;
    // The log form pays where the reference holds most of the mass (x small: its errors are
    // those of the rest); elsewhere the direct form is as tight and cheaper.
    out.has_log_form = rest_ <= kLogFormShare * total_;
    if (out.has_log_form) {
      out.log_ratio.assign(bins_, Complex(0, 0));
      out.log_error.assign(bins_, 0.0);
      out.log_abs_upper.assign(bins_, 0.0);
    } else {
      out.log_ratio.clear();
      out.log_error.clear();
      out.log_abs_upper.clear();
    }
    out.bins.assign(bins_, Complex(0, 0));
    out.bins_error.assign(bins_, 0.0);
    for (std::size_t k = 0; k < bins_; ++k) {
      if (log_bound[k] < negligible_log) continue;  // the bin is 0 already
      DirectForm(k, out);
      if (out.has_log_form) LogForm(k, out);
    }
  }

 private:
  // Moduli as √(re² + im²), within 2u (far cheaper than hypot; no overflow at these magnitudes,
  // underflow far below the bounds).
  static double Modulus(Complex c) { return std::sqrt(std::norm(c)); }

  // ŷ'_k: the direct sum, within 9u·S; else w^{k·p₀}·(m₀ + R'_k), where the addition (u), the
  // table twiddle (4u) and the complex product (√2γ₂ < 3u) add ≤ 8u·|ŷ'_k| to R's error.
  void DirectForm(std::size_t k, FactorLogSpectrum& out) const {
    if (!direct_.empty() && direct_[k]) {
      out.bins[k] = direct_value_[k];
      out.bins_error[k] = (kTermError + kKahanError) * total_ * (1 + 2 * kU);
      return;
    }
    const std::size_t r = (static_cast<std::uint64_t>(k) * out.reference) & mask_;
    out.bins[k] = (pld_.mass[reference_] + transform_[k]) * Complex(table_.cos[r], -table_.sin[r]);
    out.bins_error[k] = error_[k] + 8 * kU * Modulus(out.bins[k]);
  }

  // log(1 − x) and |log(1 − x') − log(1 − x)| ≤ e/(|1 − x'| − e) + rounding (eq. 4.8).
  void LogForm(std::size_t k, FactorLogSpectrum& out) const {
    const auto [x, e] = Deficit(k);
    const LogValue l = ComplexLog1p(-x);
    const double lower = Modulus(1.0 - x) * (1 - 3 * kU);
    out.log_ratio[k] = l.value;
    if (lower > 2 * e) {
      out.log_error[k] = e / (lower - e) * (1 + 4 * kU) + l.rounding;
      // log|1 − x| ≤ Re l + its error.
      out.log_abs_upper[k] = l.value.real() + out.log_error[k] + 1e-300;
    } else {
      out.log_error[k] = kInf;
      const double log_abs = std::log(lower * (1 + 8 * kU) + e);
      out.log_abs_upper[k] = log_abs + 4 * kU * std::abs(log_abs) + 1e-300;
    }
  }

  const SparsePld& pld_;
  std::size_t n_;
  std::size_t bins_;
  std::uint64_t mask_;
  const TwiddleTable& table_;
  std::vector<std::uint64_t> positions_;
  std::vector<std::uint64_t> offsets_;
  std::size_t reference_ = 0;
  std::vector<bool> not_rest_;
  double rest_ = 0;
  double total_ = 0;  // S**
  double rest_hi_ = 0;
  double rest_lo_ = 0;
  CompositionScratch& scratch_ = ThreadScratch();
  std::vector<Complex>& transform_ = scratch_.transform;  // R'_k
  std::vector<double>& error_ = scratch_.error;           // ≥ |R'_k − R_k|
  std::vector<bool>& direct_ = scratch_.direct;
  std::vector<Complex>& direct_value_ = scratch_.direct_value;
};

}  // namespace

void LogSpectrumOf(const SparsePld& pld, std::size_t n, double count,
                   const std::vector<double>& log_bound, double negligible_log,
                   FactorLogSpectrum& out) {
  FactorTransform transform(pld, n);
  transform.RestTransform(count);
  transform.DirectBins(count, log_bound, negligible_log);
  transform.Forms(log_bound, negligible_log, out);
}

}  // namespace rdpkit::accountant::internal
