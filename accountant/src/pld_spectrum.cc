// The discrete Fourier transform of one factor's masses with a bound on its error per bin
// (docs/math/pld.md §4): an FFT of the light masses, the heavy masses and the bins that the
// factor's power would amplify summed directly from an accurate table of twiddles.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numeric>
#include <vector>

#include "pld_internal.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kU = kUnitRoundoff;
using Complex = std::complex<double>;

// Direct sums apply to factors run at least kDirectMinCount times (where the power amplifies the
// transform's error by T, pld.md eq. 4.3).
constexpr double kDirectMinCount = 16;
// Heavy masses: at most kMaxHeavy of them, each at least kHeavyShare of the factor's mass.
constexpr std::size_t kMaxHeavy = 8;
constexpr double kHeavyShare = 1.0 / 64;
// Direct bins: those whose T-th power bound exceeds e^{kDirectLog}, when bins × masses is at most
// kDirectBudget.
constexpr double kDirectLog = -80;
constexpr std::size_t kDirectBudget = std::size_t{1} << 22;
// A table twiddle is within 4u of e^{−2πir/n} (the angle (r/n)·2π, r ≤ n/8, within 2u·π/4, and
// cos, sin within 1 ulp; the other octants are exact reflections); a term m·w' is then within
// (4u + √2·u·(1 + 4u))·m < 6u·m of m·w (pld.md eq. 4.6).
constexpr double kTermError = 6 * kU;
// A compensated (Kahan) sum of M terms is within (2u + O(M·u²))·Σ|terms| per component
// (Higham 2002, §4.3), so ≤ 3u·Σ m in modulus for M ≤ 2^40 (pld.md eq. 4.6).
constexpr double kKahanError = 3 * kU;

// cos and sin of 2πr/n for r < n (pld.md eq. 4.6), computed once per size and thread.
struct TwiddleTable {
  std::size_t n = 0;
  std::vector<double> cos;
  std::vector<double> sin;
};

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

void KahanAdd(double& sum, double& carry, double x) {
  const double y = x - carry;
  const double t = sum + y;
  carry = (t - sum) - y;
  sum = t;
}

// Upper bound of a sum of n non-negative doubles computed left to right: (1 + (n+1)u)·sum.
double SumUpper(double sum, std::size_t n) {
  return sum * (1 + (static_cast<double>(n) + 1) * kU * 1.01);
}

}  // namespace

FactorSpectrum SpectrumOf(const SparsePld& pld, std::size_t n, double count,
                          const std::vector<double>& log_p1, double negligible_log) {
  const std::size_t bins = n / 2 + 1;
  const std::size_t masses = pld.index.size();
  std::vector<std::uint64_t> positions(masses);
  const auto m = static_cast<std::int64_t>(n);
  for (std::size_t i = 0; i < masses; ++i) {
    positions[i] = static_cast<std::uint64_t>(((pld.index[i] % m) + m) % m);
  }
  const double total = SumUpper(std::accumulate(pld.mass.begin(), pld.mass.end(), 0.0), masses);
  // The heavy masses, largest first.
  std::vector<std::size_t> heavy;
  if (count >= kDirectMinCount) {
    std::vector<std::size_t> order(masses);
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t keep = std::min(kMaxHeavy, masses);
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                      [&](std::size_t a, std::size_t b) { return pld.mass[a] > pld.mass[b]; });
    for (std::size_t i = 0; i < keep && pld.mass[order[i]] >= kHeavyShare * total; ++i) {
      heavy.push_back(order[i]);
    }
  }
  std::vector<bool> is_heavy(masses, false);
  for (const std::size_t i : heavy) is_heavy[i] = true;
  // The light masses by FFT (folding onto an occupied position rounded up: the input stays an
  // upper bound of the masses).
  std::vector<double> y(n, 0.0);
  double light = 0;
  double heavy_mass = 0;
  for (std::size_t i = 0; i < masses; ++i) {
    if (is_heavy[i]) {
      heavy_mass += pld.mass[i];
      continue;
    }
    double& cell = y[positions[i]];
    cell = cell == 0 ? pld.mass[i] : std::nextafter(cell + pld.mass[i], 2.0);
    light += pld.mass[i];
  }
  light = SumUpper(light, 2 * masses);
  heavy_mass = SumUpper(heavy_mass, heavy.size());
  FactorSpectrum out;
  out.mass_up = total;
  const RealFft fft(n);
  fft.Forward(y, out.bins);
  // |bin' − ŷ_k| ≤ F·S_light + 2u·S_light + 6u·S_heavy + (H + 1)·1.5u·S: the FFT, the folding
  // (the transform is of the masses, not of their rounded-up folded sums), the heavy terms and
  // the H + 1 additions (pld.md eq. 4.6).
  const double mixed_error = (fft.ForwardErrorFactor() + 2 * kU) * light + kTermError * heavy_mass +
                             (static_cast<double>(heavy.size()) + 1) * 1.5 * kU * total;
  out.error.assign(bins, mixed_error);
  if (heavy.empty() && count < kDirectMinCount) return out;
  const TwiddleTable& table = Twiddles(n);
  // e^{−2πi·k·p/n} = (cos, −sin) at r = k·p mod n, stepped exactly in integers.
  for (const std::size_t i : heavy) {
    const double mass = pld.mass[i];
    const std::uint64_t p = positions[i];
    std::uint64_t r = 0;
    for (std::size_t k = 0; k < bins; ++k, r = (r + p) % n) {
      out.bins[k] += Complex(mass * table.cos[r], -mass * table.sin[r]);
    }
  }
  // The bins the power would amplify: recomputed by a compensated direct sum over all masses.
  std::vector<std::size_t> wanted;
  for (std::size_t k = 0; k < bins; ++k) {
    if (log_p1[k] < negligible_log) continue;
    const double r =
        std::min(total, std::sqrt(std::norm(out.bins[k])) * (1 + 3 * kU) + out.error[k]);
    if (count * std::log(r + out.error[k]) > kDirectLog) wanted.push_back(k);
  }
  if (wanted.size() * masses > kDirectBudget) return out;
  const double direct_error = (kTermError + kKahanError) * total;
  for (const std::size_t k : wanted) {
    double re = 0;
    double re_carry = 0;
    double im = 0;
    double im_carry = 0;
    for (std::size_t i = 0; i < masses; ++i) {
      const std::size_t r =
          static_cast<std::size_t>((static_cast<std::uint64_t>(k) * positions[i]) % n);
      KahanAdd(re, re_carry, pld.mass[i] * table.cos[r]);
      KahanAdd(im, im_carry, -pld.mass[i] * table.sin[r]);
    }
    out.bins[k] = {re, im};
    out.error[k] = direct_error;
  }
  return out;
}

}  // namespace rdpkit::accountant::internal
