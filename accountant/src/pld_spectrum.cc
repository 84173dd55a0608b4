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

FactorLogSpectrum LogSpectrumOf(const SparsePld& pld, std::size_t n, double count,
                                const std::vector<double>& log_bound, double negligible_log) {
  const std::size_t bins = n / 2 + 1;
  const std::size_t masses = pld.index.size();
  RDPKIT_CHECK(masses > 0);
  const auto m = static_cast<std::int64_t>(n);
  std::vector<std::uint64_t> positions(masses);
  for (std::size_t i = 0; i < masses; ++i) {
    positions[i] = static_cast<std::uint64_t>(((pld.index[i] % m) + m) % m);
  }
  // The reference: the heaviest mass; the rest at offsets from it.
  const std::size_t reference = static_cast<std::size_t>(
      std::max_element(pld.mass.begin(), pld.mass.end()) - pld.mass.begin());
  FactorLogSpectrum out;
  out.reference = positions[reference];
  std::vector<std::uint64_t> offsets(masses);
  const std::uint64_t mask = n - 1;  // n is a power of 2: x mod n = x & mask
  for (std::size_t i = 0; i < masses; ++i) offsets[i] = (positions[i] + n - out.reference) & mask;
  // S** = m₀ + s_rest, a double, with s_rest close to the other masses' sum (so that x is small)
  // and known exactly as hi + lo (an error-free sum): m₀ + R_k = S** − d_k exactly for
  // d_k = s_rest − R_k, and x_k = d_k/S** (pld.md eq. 4.7).
  std::vector<bool> not_rest(masses, false);
  not_rest[reference] = true;
  const double rest = SumUpper(pld.mass, &not_rest);
  const double total = pld.mass[reference] + rest;  // S**
  const double rest_hi = total - pld.mass[reference];
  const double rest_lo = [&] {  // TwoSum: total − m₀ = rest_hi + rest_lo exactly
    const double b = rest_hi - total;
    return (total - (rest_hi - b)) + (-pld.mass[reference] - b);
  }();
  // log S**, within 2u·|log S**| (log within 1 ulp).
  out.log_scale = std::log(total);
  out.log_scale_error = 2 * kU * std::abs(out.log_scale) + 1e-300;
  // The other heavy masses (largest first), by table for every bin.
  std::vector<std::size_t> heavy;
  if (count >= kDirectMinCount) {
    std::vector<std::size_t> order(masses);
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t keep = std::min(kMaxHeavy + 1, masses);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                      [&](std::size_t a, std::size_t b) { return pld.mass[a] > pld.mass[b]; });
    for (std::size_t i = 0; i < keep; ++i) {
      if (order[i] != reference && pld.mass[order[i]] >= kHeavyShare * total) {
        heavy.push_back(order[i]);
      }
    }
  }
  std::vector<bool> not_light = not_rest;
  for (const std::size_t i : heavy) not_light[i] = true;
  const double light = SumUpper(pld.mass, &not_light);
  // R_k = Σ_rest m_i·w^{k·offset_i}: the light masses by FFT (masses folding onto one position
  // summed to nearest: (f − 1)u·S_light for at most f per position), the heavy ones by table
  // (pld.md eq. 4.6).
  // The indices are distinct and increasing, so at most ⌈span/n⌉ of them share a position.
  const double most_folded = std::ceil(
      static_cast<double>(pld.index.back() - pld.index.front() + 1) / static_cast<double>(n));
  thread_local std::vector<double> y;
  y.assign(n, 0.0);
  for (std::size_t i = 0; i < masses; ++i) {
    if (!not_light[i]) y[offsets[i]] += pld.mass[i];
  }
  thread_local std::vector<Complex> transform;
  const RealFft fft(n);
  fft.Forward(y, transform);
  thread_local std::vector<double> error;
  error.assign(bins, (fft.ForwardErrorFactor() + most_folded * kU) * light + kTermError * rest +
                         (static_cast<double>(heavy.size()) + 1) * 1.5 * kU * rest);
  const TwiddleTable& table = Twiddles(n);
  for (const std::size_t i : heavy) {
    const double mass = pld.mass[i];
    const std::uint64_t p = offsets[i];
    std::uint64_t r = 0;
    for (std::size_t k = 0; k < bins; ++k, r = (r + p) & mask) {
      transform[k] += Complex(mass * table.cos[r], -mass * table.sin[r]);
    }
  }
  // x_k = (s_rest − R_k)/S** (pld.md eq. 4.7) and its error bound. Moduli as √(re² + im²), within
  // 2u (far cheaper than hypot; no overflow at these magnitudes, underflow far below the bounds).
  const auto modulus = [](Complex c) { return std::sqrt(std::norm(c)); };
  const auto deficit = [&](std::size_t k) {
    // |x' − x| ≤ |R' − R|/S** + the subtraction, the addition of lo and the division: ≤ 4u·|x'|
    // for those (eq. 4.7).
    const Complex x = ((rest_hi - transform[k]) + rest_lo) / total;
    const double e = error[k] / total * (1 + 4 * kU) + 4 * kU * modulus(x);
    return std::pair<Complex, double>{x, e};
  };
  // Direct sums for the bins the power would amplify (within the budget).
  std::vector<bool> direct;
  std::vector<Complex> direct_value;
  if (count >= kDirectMinCount) {
    // count·log(|1 − x| + e) > kDirectLog ⟺ |1 − x| + e > e^{kDirectLog/count}.
    const double threshold = std::exp(kDirectLog / count);
    std::vector<std::size_t> wanted;
    for (std::size_t k = 0; k < bins; ++k) {
      if (log_bound[k] < negligible_log) continue;
      const auto [x, e] = deficit(k);
      if (modulus(1.0 - x) + e > threshold) wanted.push_back(k);
    }
    if (wanted.size() * masses <= kDirectBudget) {
      // Two compensated sums per bin: R_k over the other masses at their offsets (log form),
      // and ŷ_k over all masses at their positions (direct form), each within 9u of its mass.
      direct.assign(bins, false);
      direct_value.assign(bins, Complex(0, 0));
      for (const std::size_t k : wanted) {
        double re = 0;
        double re_carry = 0;
        double im = 0;
        double im_carry = 0;
        double full_re = 0;
        double full_re_carry = 0;
        double full_im = 0;
        double full_im_carry = 0;
        const auto kk = static_cast<std::uint64_t>(k);
        for (std::size_t i = 0; i < masses; ++i) {
          const auto a = static_cast<std::size_t>((kk * positions[i]) & mask);
          KahanAdd(full_re, full_re_carry, pld.mass[i] * table.cos[a]);
          KahanAdd(full_im, full_im_carry, -pld.mass[i] * table.sin[a]);
          if (i == reference) continue;
          const auto r = static_cast<std::size_t>((kk * offsets[i]) & mask);
          KahanAdd(re, re_carry, pld.mass[i] * table.cos[r]);
          KahanAdd(im, im_carry, -pld.mass[i] * table.sin[r]);
        }
        transform[k] = {re, im};
        error[k] = (kTermError + kKahanError) * rest;
        direct[k] = true;
        direct_value[k] = {full_re, full_im};
      }
    }
  }
  // The log form pays where the reference holds most of the mass (x small: its errors are those
  // of the rest); elsewhere the direct form is as tight and cheaper.
  out.has_log_form = rest <= kLogFormShare * total;
  if (out.has_log_form) {
    out.log_ratio.resize(bins);
    out.log_error.resize(bins);
    out.log_abs_upper.resize(bins);
  }
  out.bins.resize(bins);
  out.bins_error.resize(bins);
  for (std::size_t k = 0; k < bins; ++k) {
    if (log_bound[k] < negligible_log) continue;  // the bin is 0 already
    // ŷ'_k: the direct sum, within 9u·S; else w^{k·p₀}·(m₀ + R'_k), where the addition (u), the
    // table twiddle (4u) and the complex product (√2γ₂ < 3u) add ≤ 8u·|ŷ'_k| to R's error
    // (eq. 4.9).
    if (!direct.empty() && direct[k]) {
      out.bins[k] = direct_value[k];
      out.bins_error[k] = (kTermError + kKahanError) * total * (1 + 2 * kU);
    } else {
      const std::size_t r = (static_cast<std::uint64_t>(k) * out.reference) & mask;
      out.bins[k] = (pld.mass[reference] + transform[k]) * Complex(table.cos[r], -table.sin[r]);
      out.bins_error[k] = error[k] + 8 * kU * modulus(out.bins[k]);
    }
    if (!out.has_log_form) continue;
    const auto [x, e] = deficit(k);
    // log(1 − x) and |log(1 − x') − log(1 − x)| ≤ e/(|1 − x'| − e) + rounding (eq. 4.8).
    const LogValue l = ComplexLog1p(-x);
    const double lower = modulus(1.0 - x) * (1 - 3 * kU);
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
  return out;
}

}  // namespace rdpkit::accountant::internal
