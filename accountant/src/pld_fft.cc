// The composition of discrete PLDs by powers in the Fourier domain, with real FFTs from Eigen's
// FFT module (its kissfft back end; MPL-2.0, header-only) and a componentwise round-off bound
// derived for that algorithm (docs/math/pld.md §4).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <unsupported/Eigen/FFT>
#include <vector>

#include "pld_internal.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kU = kUnitRoundoff;
// Per-stage growth η of one butterfly stage of Eigen's kissfft (radix 4 or 2) and of its real
// pre-/post-processing: twiddle error μ ≤ 12u plus a complex product (√2γ₂) and two levels of
// sums; 24u covers it with a margin (pld.md eq. 4.1).
constexpr double kStageError = 24 * kU;
// A complex product's relative error, √2·γ₂ (Higham 2002, Lemma 3.5) < 3u.
constexpr double kComplexMulError = 3 * kU;
// A bin whose bound P1 = Π(R + E)^T is below e^{kNegligibleLog} (with the exponent's rounding far
// inside the margin) contributes less than 1e-300 to every value: it is set to 0 (pld.md §4).
constexpr double kNegligibleLog = -800;

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

// Butterfly stages of the complex transform of size n/2 inside a real transform of size n:
// kissfft factors out 4s, then one 2 (pld.md §4).
int ComplexStages(std::size_t n) {
  const int log2_half = static_cast<int>(std::lround(std::log2(static_cast<double>(n)))) - 1;
  return log2_half / 2 + log2_half % 2;
}

// (1 + x)^k − 1, rounded up.
double GrowthMinusOne(double x, int k) {
  return std::expm1(static_cast<double>(k) * std::log1p(x)) * (1 + 1e-6);
}

}  // namespace

RealFft::RealFft(std::size_t n) : n_(n) {
  RDPKIT_CHECK(n >= 4 && (n & (n - 1)) == 0 && n <= (std::size_t{1} << 30));
}

namespace {

// One Eigen FFT object per thread: it keeps the plans (twiddle tables) of the sizes used, so
// repeated compositions of one size compute them once.
Eigen::FFT<double>& ThreadFft() {
  thread_local Eigen::FFT<double> fft = [] {
    Eigen::FFT<double> f;
    f.SetFlag(Eigen::FFT<double>::HalfSpectrum);
    f.SetFlag(Eigen::FFT<double>::Unscaled);
    return f;
  }();
  return fft;
}

}  // namespace

void RealFft::Forward(const std::vector<double>& x, std::vector<Complex>& spectrum) const {
  RDPKIT_CHECK(x.size() == n_);
  spectrum.resize(n_ / 2 + 1);
  ThreadFft().fwd(spectrum.data(), x.data(), static_cast<Eigen::DenseIndex>(n_));
}

void RealFft::Inverse(const std::vector<Complex>& spectrum, std::vector<double>& x) const {
  RDPKIT_CHECK(spectrum.size() == n_ / 2 + 1);
  x.resize(n_);
  ThreadFft().inv(x.data(), spectrum.data(), static_cast<Eigen::DenseIndex>(n_));
}

double RealFft::ForwardErrorFactor() const {
  // |X'_k − X_k| ≤ F·‖x‖₁, F = 2((1 + η)^{L+1} − 1): L complex stages, then the recombination of
  // two conjugate bins (which doubles the stages' error) (pld.md eq. 4.2).
  return 2 * GrowthMinusOne(kStageError, ComplexStages(n_) + 1);
}

double RealFft::InverseErrorFactor() const {
  // |x'_j − x_j| ≤ G·Σ_{k ≤ n/2}|X_k| for the unscaled inverse: the pre-processed bins sum to at
  // most 4·Σ|X_k|, then L complex stages (pld.md eq. 4.3).
  return 4 * GrowthMinusOne(kStageError, ComplexStages(n_) + 1);
}

double RealFft::InverseNormErrorFactor() const {
  // ‖x' − x‖₂ ≤ H·√(n/2)·‖X_{0..n/2}‖₂: each radix-r stage has normwise error ≤ √r·η ≤ 2η
  // relative to its exact output (pld.md eq. 4.5).
  return 4 * GrowthMinusOne(2 * kStageError, ComplexStages(n_) + 1);
}

ComposedWindow ComposeByFft(const std::vector<SparsePld>& plds,
                            const std::vector<std::uint64_t>& counts, std::int64_t first,
                            std::size_t size) {
  RDPKIT_CHECK(plds.size() == counts.size());
  const std::size_t n = size;
  const std::size_t bins = n / 2 + 1;
  const RealFft fft(n);
  const auto position = [n](std::int64_t k) {
    const std::int64_t m = static_cast<std::int64_t>(n);
    return static_cast<std::size_t>(((k % m) + m) % m);
  };
  // Per bin, two forms of z_k (eq. 4.9), the one with the smaller error bound kept:
  //  log form: the exponent Σ_j T_j·log(1 − x_jk), its error bound and absolute terms;
  //  power form: Π_j ŷ*'^{T_j} with P1 = Π (R + E)^T and a_sum = Σ T·log1p(E/R) (eq. 4.3).
  // log_bound ≥ log|z_k| decides which bins are negligible.
  std::vector<Complex> exponent(bins, Complex(0, 0));
  std::vector<double> exponent_error(bins, 0.0);
  std::vector<double> exponent_abs(bins, 0.0);
  std::vector<Complex> power(bins, Complex(1, 0));
  std::vector<double> log_p1(bins, 0.0);
  std::vector<double> abs_log(bins, 0.0);
  std::vector<double> a_sum(bins, 0.0);
  std::vector<double> log_bound(bins, 0.0);
  double log_scale = 0;        // Σ_j T_j·log S**_j
  double log_scale_error = 0;  // Σ_j T_j·|error of log S**_j|
  double log_scale_abs = 0;    // Σ_j |T_j·log S**_j|
  std::uint64_t phase = 0;     // Σ_j T_j·reference_j mod n
  double factors = 0;
  double total_count = 0;
  bool log_form = true;  // every factor so far has its log form
  for (std::size_t j = 0; j < plds.size(); ++j) {
    if (counts[j] == 0) continue;
    const double t = static_cast<double>(counts[j]);
    factors += 1;
    total_count += t;
    const FactorLogSpectrum f = LogSpectrumOf(plds[j], n, t, log_bound, kNegligibleLog);
    phase = (phase + (counts[j] % n) * f.reference) % n;
    log_scale += t * f.log_scale;
    log_scale_abs += std::abs(t * f.log_scale);
    log_scale_error += t * f.log_scale_error;
    log_form = log_form && f.has_log_form;
    for (std::size_t k = 0; k < bins; ++k) {
      if (log_bound[k] < kNegligibleLog) continue;  // z_k and its bound are below e^{−800}
      const double e = f.bins_error[k];
      const double r = std::sqrt(std::norm(f.bins[k])) * (1 + 3 * kU) + e;  // ≥ |ŷ_k|
      const double log_re = std::log(r + e);
      // log|ŷ_k| ≤ log(R + E), or by the log form log S** + log|1 − x_k|: the smaller, rounded up.
      double bound = t * log_re;
      if (f.has_log_form) {
        bound = std::min(bound, t * (f.log_scale + f.log_scale_error + f.log_abs_upper[k]));
      }
      log_bound[k] += bound + 2 * kU * std::abs(bound) + 1e-300;
      if (log_bound[k] < kNegligibleLog) continue;
      log_p1[k] += t * log_re;
      abs_log[k] += t * std::abs(log_re);
      a_sum[k] += t * (e / r);  // ≥ T·log1p(E/R)
      power[k] = Mul(power[k], Pow(f.bins[k], counts[j]));
      if (!log_form) continue;
      const Complex term = t * f.log_ratio[k];
      const double term_abs = std::abs(term.real()) + std::abs(term.imag());  // ≥ |term|
      exponent[k] += term;
      exponent_abs[k] += term_abs;
      // The product by T: ≤ u relative per component.
      exponent_error[k] += t * f.log_error[k] + 2 * kU * term_abs;
    }
  }
  // Against z_k:
  //  log form z''_k = e^{Σ T log S** + Re exponent}·cis(Im exponent)·e^{−2πi·k·phase/n}, error
  //    ≤ |z_k|·η, η = expm1(E) + E + 16u, E the exponent's error; |z_k| ≤ |z''_k|/(1 − η);
  //  power form: error ≤ P1·ρ + P1·(1 − e^{−a_sum}), ρ = (1 + √2γ₂)^{ΣT} − 1 (eq. 4.3);
  //  a negligible bin: z''_k = 0, error ≤ e^{log_bound}.
  const TwiddleTable& table = Twiddles(n);
  // Rounding of the sums over J factors: (J + 1)u of their absolute terms.
  const double sum_rounding = (factors + 1) * kU;
  const double scale_error = sum_rounding * log_scale_abs + log_scale_error * (1 + 4 * kU);
  const double rho = std::expm1(total_count * std::log1p(kComplexMulError)) * (1 + 1e-6);
  const double sum_error = (4 + factors) * kU;
  std::vector<Complex> z(bins, Complex(0, 0));
  double b_norm = 0;   // Σ_k B_k over the half spectrum
  double z_norm = 0;   // Σ_k |z''_k| over the half spectrum
  double b_norm2 = 0;  // Σ_k B_k²
  double z_norm2 = 0;  // Σ_k |z''_k|²
  for (std::size_t k = 0; k < bins; ++k) {
    double b;
    if (log_bound[k] < kNegligibleLog) {
      b = std::exp(log_bound[k]) * (1 + 4 * kU) + 1e-300;
    } else {
      // The power form.
      const double p1 = std::exp(log_p1[k] + sum_error * abs_log[k]) * (1 + 4 * kU);
      const double b_power =
          p1 * rho + p1 * -std::expm1(-a_sum[k] * (1 + sum_error)) * (1 + 4 * kU) + 1e-300;
      z[k] = power[k];
      b = b_power;
      // The log form, where its bound is smaller.
      const double e = exponent_error[k] + sum_rounding * exponent_abs[k] + scale_error;
      if (log_form && e < 0.5) {
        const double magnitude = std::exp(log_scale + exponent[k].real());
        const auto r = static_cast<std::size_t>((static_cast<std::uint64_t>(k) * phase) & (n - 1));
        double sin_phase;
        double cos_phase;
        ::sincos(exponent[k].imag(), &sin_phase, &cos_phase);  // glibc: each within 1 ulp
        const Complex by_log =
            magnitude * Mul(Complex(cos_phase, sin_phase), Complex(table.cos[r], -table.sin[r]));
        const double eta = std::expm1(e) + e + 16 * kU;
        const double b_log =
            std::sqrt(std::norm(by_log)) * (1 + 3 * kU) * eta / (1 - eta) * (1 + 4 * kU) + 1e-300;
        if (b_log < b_power) {
          z[k] = by_log;
          b = b_log;
        }
      }
    }
    b_norm += b;
    z_norm += std::sqrt(std::norm(z[k])) + 1e-300;
    b_norm2 += b * b;
    z_norm2 += std::norm(z[k]);
  }
  b_norm = SumUpper(b_norm, bins);
  z_norm = SumUpper(z_norm * (1 + 3 * kU), bins);
  b_norm2 = std::sqrt(SumUpper(b_norm2 * (1 + 2 * kU), bins)) * (1 + 2 * kU);
  z_norm2 = std::sqrt(SumUpper(z_norm2 * (1 + 4 * kU), bins)) * (1 + 2 * kU);
  std::vector<double> inverse;
  fft.Inverse(z, inverse);
  ComposedWindow out;
  out.first = first;
  out.values.resize(n);
  const double inv_n = 1 / static_cast<double>(n);  // exact: n is a power of 2
  for (std::size_t i = 0; i < n; ++i) {
    out.values[i] = inverse[position(first + static_cast<std::int64_t>(i))] * inv_n;
  }
  // |v'_i − v_i| ≤ (G·‖z''‖₁ + 2‖B‖₁)/n over the half spectrum: the inverse's own round-off,
  // and the error of z'' (each bin but 0 and n/2 appears twice in the full spectrum) (eq. 4.4).
  out.error_per_point = (fft.InverseErrorFactor() * z_norm + 2 * b_norm) * inv_n * (1 + 1e-6);
  // ‖v' − v‖₂ ≤ (H·√(n/2)·‖z''‖₂ + √n·√2·‖B‖₂)/n (eq. 4.5): the full spectrum's 2-norm is at
  // most √2 times the half's, and the exact unscaled inverse has 2-norm √n.
  const double root_n = std::sqrt(static_cast<double>(n)) * (1 + kU);
  out.error_norm2 =
      (fft.InverseNormErrorFactor() * root_n * M_SQRT1_2 * z_norm2 + root_n * M_SQRT2 * b_norm2) *
      inv_n * (1 + 1e-6);
  return out;
}

}  // namespace rdpkit::accountant::internal
