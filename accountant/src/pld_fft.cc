// Radix-2 FFT with a componentwise round-off bound, and the composition of discrete PLDs by
// powers in the Fourier domain (docs/math/pld.md §4).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "pld_internal.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kU = kUnitRoundoff;
// Twiddle error μ: the angle 2π·j/n is rounded twice (≤ 1.5u·π), cos and sin are within 1 ulp
// (glibc's documented bound): |w' − w| ≤ √2·(1.5π + 1)u < 10u (pld.md §4).
constexpr double kTwiddleError = 10 * kU;
// Per-stage growth η = μ + (1+μ)·√2γ₂ + u·(1 + (1+μ)(1+√2γ₂)) < 16u (pld.md eq. 4.1).
constexpr double kStageError = 16 * kU;
// A complex product's relative error, √2·γ₂ (Higham 2002, Lemma 3.5) < 3u.
constexpr double kComplexMulError = 3 * kU;

using Complex = std::complex<double>;

inline Complex Mul(const Complex& a, const Complex& b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// a^n by binary exponentiation (n ≥ 1): n − 1 products in the error analysis (pld.md §4).
Complex Pow(Complex a, std::uint64_t n) {
  Complex result(1, 0);
  bool first = true;
  while (n > 0) {
    if (n & 1) {
      result = first ? a : Mul(result, a);
      first = false;
    }
    n >>= 1;
    if (n > 0) a = Mul(a, a);
  }
  return result;
}

// Upper bound of a sum of n non-negative doubles computed left to right: (1 + (n+1)u)·sum.
double SumUpper(double sum, std::size_t n) {
  return sum * (1 + (static_cast<double>(n) + 1) * kU * 1.01);
}

}  // namespace

void Fft(std::vector<Complex>& data, int sign) {
  const std::size_t n = data.size();
  RDPKIT_CHECK(n > 0 && (n & (n - 1)) == 0);
  for (std::size_t i = 1, j = 0; i < n; ++i) {  // bit reversal
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(data[i], data[j]);
  }
  std::vector<Complex> twiddle(n / 2 + 1);
  for (std::size_t j = 0; j < n / 2 + 1; ++j) {
    const double angle = 2 * M_PI * (static_cast<double>(j) / static_cast<double>(n));
    twiddle[j] = {std::cos(angle), sign * std::sin(angle)};
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t half = len / 2;
    const std::size_t step = n / len;
    for (std::size_t i = 0; i < n; i += len) {
      for (std::size_t k = 0; k < half; ++k) {
        const Complex t = Mul(twiddle[k * step], data[i + k + half]);
        const Complex a = data[i + k];
        data[i + k] = a + t;
        data[i + k + half] = a - t;
      }
    }
  }
}

double FftErrorFactor(std::size_t n) {
  const double stages = std::log2(static_cast<double>(n));
  // (1 + η)^{log₂ n} − 1 (pld.md eq. 4.2), rounded up with a relative margin.
  return std::expm1(stages * std::log1p(kStageError)) * (1 + 1e-6);
}

ComposedWindow ComposeByFft(const std::vector<SparsePld>& plds,
                            const std::vector<std::uint64_t>& counts, std::int64_t first,
                            std::size_t size) {
  RDPKIT_CHECK(plds.size() == counts.size());
  const std::size_t n = size;
  const auto position = [n](std::int64_t k) {
    const std::int64_t m = static_cast<std::int64_t>(n);
    return static_cast<std::size_t>(((k % m) + m) % m);
  };
  const double fft_error = FftErrorFactor(n);
  std::vector<Complex> z(n, Complex(1, 0));
  std::vector<double> log_p1(n, 0.0);   // Σ_j T_j·log(R_jk + E_j)
  std::vector<double> abs_log(n, 0.0);  // Σ_j T_j·|log(R_jk + E_j)|, for its rounding
  std::vector<double> a_sum(n, 0.0);    // Σ_j T_j·log1p(E_j / R_jk)
  double total_count = 0;
  double factors = 0;
  std::vector<Complex> y(n);
  for (std::size_t j = 0; j < plds.size(); ++j) {
    if (counts[j] == 0) continue;
    const double t = static_cast<double>(counts[j]);
    total_count += t;
    factors += 1;
    std::fill(y.begin(), y.end(), Complex(0, 0));
    double sum = 0;
    for (std::size_t i = 0; i < plds[j].index.size(); ++i) {
      y[position(plds[j].index[i])] += plds[j].mass[i];
      sum += plds[j].mass[i];
    }
    // Folding masses onto one position adds non-negative numbers: covered by SumUpper too.
    const double s_up = SumUpper(sum, 2 * plds[j].index.size());
    Fft(y, -1);
    const double e = fft_error * s_up;  // |ŷ'_k − ŷ_k| ≤ e for every k (pld.md eq. 4.2)
    for (std::size_t k = 0; k < n; ++k) {
      const double r = std::min(s_up, std::abs(y[k]) * (1 + 2 * kU) + e);  // ≥ |ŷ_k|
      const double log_re = std::log(r + e);
      log_p1[k] += t * log_re;
      abs_log[k] += t * std::abs(log_re);
      a_sum[k] += t * std::log1p(e / r);
      z[k] = Mul(z[k], Pow(y[k], counts[j]));
    }
  }
  // ρ = (1 + √2γ₂)^{C} − 1, C = Σ T_j: the relative rounding of all products (pld.md eq. 4.3).
  const double rho = std::expm1(total_count * std::log1p(kComplexMulError)) * (1 + 1e-6);
  // Rounding of the exponent sums: log, log1p, the product by T and the sum over J factors.
  const double sum_error = (4 + factors) * kU;
  double b_norm = 0;
  double z_norm = 0;
  double b_norm2 = 0;  // Σ B_k²
  double z_norm2 = 0;  // Σ |z''_k|²
  for (std::size_t k = 0; k < n; ++k) {
    // P1 = Π(R+E)^T rounded up: its exponent's rounding added first; 1e-300 covers underflow.
    const double p1 = std::exp(log_p1[k] + sum_error * abs_log[k]) * (1 + 4 * kU);
    const double b =
        p1 * rho + p1 * -std::expm1(-a_sum[k] * (1 + sum_error)) * (1 + 4 * kU) + 1e-300;
    b_norm += b;
    z_norm += std::abs(z[k]);
    b_norm2 += b * b;
    z_norm2 += std::norm(z[k]);
  }
  b_norm = SumUpper(b_norm, n);
  z_norm = SumUpper(z_norm * (1 + 2 * kU), n);
  b_norm2 = std::sqrt(SumUpper(b_norm2 * (1 + 2 * kU), n)) * (1 + 2 * kU);
  z_norm2 = std::sqrt(SumUpper(z_norm2 * (1 + 4 * kU), n)) * (1 + 2 * kU);
  Fft(z, +1);
  ComposedWindow out;
  out.first = first;
  out.values.resize(n);
  const double inv_n = 1 / static_cast<double>(n);  // exact: n is a power of 2
  for (std::size_t i = 0; i < n; ++i) {
    out.values[i] = z[position(first + static_cast<std::int64_t>(i))].real() * inv_n;
  }
  // |v'_i − v_i| ≤ (e_L·‖z''‖₁ + ‖B‖₁)/N (pld.md eq. 4.4).
  out.error_per_point = (fft_error * z_norm + b_norm) * inv_n * (1 + 1e-6);
  // ‖v' − v‖₂ ≤ (c·‖z''‖₂ + ‖B‖₂)/√N: the inverse DFT scaled by 1/N has 2-norm 1/√N, and the
  // computed inverse is within c·‖F⁻¹z''‖₂ of the exact one, c = log₂N·η/(1 − log₂N·η)
  // (Higham 2002, Thm 24.2; pld.md eq. 4.5).
  const double stages = std::log2(static_cast<double>(n));
  const double normwise = stages * kStageError / (1 - stages * kStageError) * (1 + 1e-6);
  out.error_norm2 = (normwise * z_norm2 + b_norm2) / std::sqrt(static_cast<double>(n)) * (1 + 1e-6);
  return out;
}

}  // namespace rdpkit::accountant::internal
