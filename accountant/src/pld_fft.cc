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
static_assert(kNegligibleLog < -746, "e^{kNegligibleLog} must underflow to 0 (Bin)");

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

namespace {

// Per bin, two forms of z_k = Π_j ŷ_jk^{T_j} (pld.md eq. 4.9), accumulated factor by factor:
//  power form: Π_j ŷ'^{T_j} with P1 = Π (R + E)^T and a_sum ≥ Σ T·log1p(E/R) (eq. 4.3);
//  log form: the exponent Σ_j T_j·log(1 − x_jk), its error bound and absolute terms.
// log_bound ≥ log|z_k| decides which bins are negligible.
class BinPowers {
 public:
  explicit BinPowers(std::size_t n) : n_(n), bins_(n / 2 + 1) {
    exponent_.assign(bins_, Complex(0, 0));
    exponent_error_.assign(bins_, 0.0);
    exponent_abs_.assign(bins_, 0.0);
    power_.assign(bins_, Complex(1, 0));
    log_p1_.assign(bins_, 0.0);
    abs_log_.assign(bins_, 0.0);
    a_sum_.assign(bins_, 0.0);
    log_bound_.assign(bins_, 0.0);
  }

  void Add(const SparsePld& pld, std::uint64_t count) {
    const double t = static_cast<double>(count);
    factors_ += 1;
    total_count_ += t;
    FactorLogSpectrum& f = scratch_.spectrum;
    LogSpectrumOf(pld, n_, t, log_bound_, kNegligibleLog, f);
    phase_ = (phase_ + (count % n_) * f.reference) % n_;
    log_scale_ += t * f.log_scale;
    log_scale_abs_ += std::abs(t * f.log_scale);
    log_scale_error_ += t * f.log_scale_error;
    log_form_ = log_form_ && f.has_log_form;
    for (std::size_t k = 0; k < bins_; ++k) {
      if (log_bound_[k] < kNegligibleLog) continue;  // z_k and its bound are below e^{−800}
      const double e = f.bins_error[k];
      const double r = std::sqrt(std::norm(f.bins[k])) * (1 + 3 * kU) + e;  // ≥ |ŷ_k|
      const double log_re = std::log(r + e);
      // log|ŷ_k| ≤ log(R + E), or by the log form log S** + log|1 − x_k|: the smaller, rounded up.
      double bound = t * log_re;
      if (f.has_log_form) {
        bound = std::min(bound, t * (f.log_scale + f.log_scale_error + f.log_abs_upper[k]));
      }
      log_bound_[k] += bound + 2 * kU * std::abs(bound) + 1e-300;
      if (log_bound_[k] < kNegligibleLog) continue;
      log_p1_[k] += t * log_re;
      abs_log_[k] += t * std::abs(log_re);
      a_sum_[k] += t * (e / r);  // ≥ T·log1p(E/R)
      power_[k] = Mul(power_[k], Pow(f.bins[k], count));
      if (!log_form_) continue;
      const Complex term = t * f.log_ratio[k];
      const double term_abs = std::abs(term.real()) + std::abs(term.imag());  // ≥ |term|
      exponent_[k] += term;
      exponent_abs_[k] += term_abs;
      // The product by T: ≤ u relative per component.
      exponent_error_[k] += t * f.log_error[k] + 2 * kU * term_abs;
    }
  }

  // z''_k and B_k ≥ |z''_k − z_k|, the form with the smaller bound (eq. 4.9):
  //  power form: B ≤ P1·ρ + P1·(1 − e^{−a_sum}), ρ = (1 + √2γ₂)^{ΣT} − 1 (eq. 4.3);
  //  log form: z''_k = e^{Σ T log S** + Re exponent}·cis(Im exponent)·e^{−2πi·k·phase/n},
  //    B ≤ |z_k|·η, η = expm1(E) + E + 16u, E the exponent's error; |z_k| ≤ |z''_k|/(1 − η);
  //  a negligible bin: z''_k = 0, B ≤ e^{log_bound}.
  // What every bin's bound shares, computed once (Bin).
  struct Shared {
    double sum_rounding;
    double sum_error;
    double rho;
    double scale_error;
    const TwiddleTable* table;
  };
  [[nodiscard]] Shared SharedTerms() const {
    Shared c{};
    // Rounding of the sums over J factors: (J + 1)u of their absolute terms (sum_error also the
    // logs in the exponent of P1).
    c.sum_rounding = (factors_ + 1) * kU;
    c.sum_error = (4 + factors_) * kU;
    c.rho = std::expm1(total_count_ * std::log1p(kComplexMulError)) * (1 + 1e-6);
    c.scale_error = c.sum_rounding * log_scale_abs_ + log_scale_error_ * (1 + 4 * kU);
    c.table = log_form_ ? &Twiddles(n_) : nullptr;  // the log form only
    return c;
  }

  std::pair<Complex, double> Bin(std::size_t k, const Shared& c) const {
    // e^{log_bound} underflows to 0 below −745 (kNegligibleLog is −800): the bound is 1e-300.
    if (log_bound_[k] < kNegligibleLog) return {0, 1e-300};
    const double p1 = std::exp(log_p1_[k] + c.sum_error * abs_log_[k]) * (1 + 4 * kU);
    const double b_power =
        p1 * c.rho + p1 * -std::expm1(-a_sum_[k] * (1 + c.sum_error)) * (1 + 4 * kU) + 1e-300;
    const double e = exponent_error_[k] + c.sum_rounding * exponent_abs_[k] + c.scale_error;
    if (!log_form_ || !(e < 0.5)) return {power_[k], b_power};
    const TwiddleTable& table = *c.table;
    const double magnitude = std::exp(log_scale_ + exponent_[k].real());
    const auto r = static_cast<std::size_t>((static_cast<std::uint64_t>(k) * phase_) & (n_ - 1));
    double sin_phase;
    double cos_phase;
    ::sincos(exponent_[k].imag(), &sin_phase, &cos_phase);  // glibc: each within 1 ulp
    const Complex by_log =
        magnitude * Mul(Complex(cos_phase, sin_phase), Complex(table.cos[r], -table.sin[r]));
    const double eta = std::expm1(e) + e + 16 * kU;
    const double b_log =
        std::sqrt(std::norm(by_log)) * (1 + 3 * kU) * eta / (1 - eta) * (1 + 4 * kU) + 1e-300;
    if (b_log < b_power) return {by_log, b_log};
    return {power_[k], b_power};
  }

 private:
  std::size_t n_;
  std::size_t bins_;
  CompositionScratch& scratch_ = ThreadScratch();
  std::vector<Complex>& exponent_ = scratch_.exponent;
  std::vector<double>& exponent_error_ = scratch_.exponent_error;
  std::vector<double>& exponent_abs_ = scratch_.exponent_abs;
  std::vector<Complex>& power_ = scratch_.power;
  std::vector<double>& log_p1_ = scratch_.log_p1;
  std::vector<double>& abs_log_ = scratch_.abs_log;
  std::vector<double>& a_sum_ = scratch_.a_sum;
  std::vector<double>& log_bound_ = scratch_.log_bound;
  double log_scale_ = 0;        // Σ_j T_j·log S**_j
  double log_scale_error_ = 0;  // Σ_j T_j·|error of log S**_j|
  double log_scale_abs_ = 0;    // Σ_j |T_j·log S**_j|
  std::uint64_t phase_ = 0;     // Σ_j T_j·reference_j mod n
  double factors_ = 0;
  double total_count_ = 0;
  bool log_form_ = true;  // every factor has its log form
};

}  // namespace

ComposedWindow ComposeByFft(const std::vector<SparsePld>& plds,
                            const std::vector<std::uint64_t>& counts, std::int64_t first,
                            std::size_t size) {
  RDPKIT_CHECK(plds.size() == counts.size());
  const std::size_t n = size;
  const std::size_t bins = n / 2 + 1;
  BinPowers powers(n);
  for (std::size_t j = 0; j < plds.size(); ++j) {
    if (counts[j] > 0) powers.Add(plds[j], counts[j]);
  }
  std::vector<Complex>& z = ThreadScratch().product;
  z.assign(bins, Complex(0, 0));
  double b_norm = 0;   // Σ_k B_k over the half spectrum
  double z_norm = 0;   // Σ_k |z''_k| over the half spectrum
  double b_norm2 = 0;  // Σ_k B_k²
  double z_norm2 = 0;  // Σ_k |z''_k|²
  const BinPowers::Shared shared = powers.SharedTerms();
  for (std::size_t k = 0; k < bins; ++k) {
    const auto [value, b] = powers.Bin(k, shared);
    z[k] = value;
    b_norm += b;
    z_norm += std::sqrt(std::norm(z[k])) + 1e-300;
    b_norm2 += b * b;
    z_norm2 += std::norm(z[k]);
  }
  b_norm = SumUpper(b_norm, bins);
  z_norm = SumUpper(z_norm * (1 + 3 * kU), bins);
  b_norm2 = std::sqrt(SumUpper(b_norm2 * (1 + 2 * kU), bins)) * (1 + 2 * kU);
  z_norm2 = std::sqrt(SumUpper(z_norm2 * (1 + 4 * kU), bins)) * (1 + 2 * kU);
  const RealFft fft(n);
  std::vector<double>& inverse = ThreadScratch().inverse;
  fft.Inverse(z, inverse);
  ComposedWindow out;
  out.first = first;
  out.values.resize(n);
  const double inv_n = 1 / static_cast<double>(n);  // exact: n is a power of 2
  const auto m = static_cast<std::int64_t>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t k = first + static_cast<std::int64_t>(i);
    out.values[i] = inverse[static_cast<std::size_t>(((k % m) + m) % m)] * inv_n;
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

DirectWindow PlaceMasses(const SparsePld& pld, std::int64_t first, std::size_t size) {
  DirectWindow out;
  out.window.first = first;
  out.window.values.assign(size, 0);
  const std::int64_t end = first + static_cast<std::int64_t>(size);
  double below = 0;
  double above = 0;
  double terms = 0;
  for (std::size_t i = 0; i < pld.index.size(); ++i) {
    const std::int64_t k = pld.index[i];
    if (k < first) {
      below += pld.mass[i];
    } else if (k >= end) {
      above += pld.mass[i];
    } else {
      out.window.values[static_cast<std::size_t>(k - first)] += pld.mass[i];
    }
    terms += 1;
  }
  // Recursive sums of non-negative terms: within (terms − 1)·u relative (Higham 2002, eq. 4.4);
  // the grid's indices are distinct, so window points hold one mass each, exactly.
  const double widen = 1 + (terms + 1) * kU * 1.01;
  out.window.values[0] += below * widen;
  out.window.values[0] *= 1 + 2 * kU;
  out.above = above * widen;
  return out;
}

namespace {
thread_local CompositionScratch scratch;
thread_local int scratch_holds = 0;
}  // namespace

CompositionScratch& ThreadScratch() { return scratch; }

ScratchHold::ScratchHold() { ++scratch_holds; }
ScratchHold::~ScratchHold() {
  if (--scratch_holds == 0) scratch = CompositionScratch{};
}

ScratchRelease::~ScratchRelease() {
  if (scratch_holds == 0) scratch = CompositionScratch{};
}

}  // namespace rdpkit::accountant::internal
