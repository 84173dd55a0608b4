// Internals of the privacy-loss-distribution accountant (pld.h; docs/math/pld.md): the
// discretisation of one Poisson-subsampled Gaussian pair and the FFT composition with its
// round-off bound. Private to the accountant.
#ifndef RDPKIT_ACCOUNTANT_SRC_PLD_INTERNAL_H_
#define RDPKIT_ACCOUNTANT_SRC_PLD_INTERNAL_H_

#include <complex>
#include <cstdint>
#include <vector>

namespace rdpkit::accountant::internal {

// Unit roundoff of IEEE double.
inline constexpr double kUnitRoundoff = 0x1p-53;

// One Poisson-subsampled Gaussian pair in standard units: shift s = sensitivity/σ (the μ of the
// Gaussian), sampling probability q ∈ (0, 1], run `count` times.
struct PldFactor {
  double shift;
  double q;
  std::uint64_t count;
};

// Which neighbouring direction (docs/math/pld.md §1): remove, P = (1−q)N(0,1) + qN(s,1) against
// Q = N(0,1); add, the swapped pair.
enum class PldDirection { kRemove, kAdd };

// A discrete PLD on the grid {k·h}: masses[n] at loss index[n]·h (indices increasing, not
// necessarily consecutive) and `infinity` at +∞. Every mass is an upper bound of the mass of a
// dominating pair (docs/math/pld.md §2).
struct SparsePld {
  std::vector<std::int64_t> index;
  std::vector<double> mass;
  double infinity = 0;
};

// Connect-the-dots discretisation (Doroshenko et al. 2022) of one factor's pair on the grid of
// step h (a power of 2), its tails beyond mass tail_mass moved to +∞ (upper) or up to the lowest
// grid point (lower). Cells widen geometrically away from loss 0 (at most |l|/64, pld.md §2).
SparsePld DiscretizeFactor(const PldFactor& factor, PldDirection direction, double h,
                           double tail_mass);

// log Σ_n mass[n]·e^{λ·index[n]·h} (finite masses only), for Chernoff bounds.
double LogMoment(const SparsePld& pld, double h, double lambda);

// The composition Π_j pld_j^{⊛counts_j} on the window of loss indices [first, first + size)
// (size a power of 2), by FFT (docs/math/pld.md §4). values[i] approximates the circular
// composition at loss index first + i; every |values[i] − exact| ≤ error_per_point, where the
// exact circular composition dominates the linear one on the window (aliasing only adds mass).
struct ComposedWindow {
  std::int64_t first = 0;
  std::vector<double> values;
  double error_per_point = 0;  // |values[i] − exact_i| ≤ this for every i
  double error_norm2 = 0;      // ‖values − exact‖₂ ≤ this
};
ComposedWindow ComposeByFft(const std::vector<SparsePld>& plds,
                            const std::vector<std::uint64_t>& counts, std::int64_t first,
                            std::size_t size);

// In-place radix-2 FFT (sign −1 forward, +1 inverse, no scaling); exposed for tests.
void Fft(std::vector<std::complex<double>>& data, int sign);
// Componentwise error bound factor of Fft: |computed_k − exact_k| ≤ FftErrorFactor(n)·Σ|input|
// (docs/math/pld.md §4).
double FftErrorFactor(std::size_t n);

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_PLD_INTERNAL_H_
