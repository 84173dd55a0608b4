// Internals of the privacy-loss-distribution accountant (pld.h; docs/math/pld.md): the
// discretisation of one Poisson-subsampled Gaussian pair and the FFT composition with its
// round-off bound. Private to the accountant.
#ifndef RDPKIT_ACCOUNTANT_SRC_PLD_INTERNAL_H_
#define RDPKIT_ACCOUNTANT_SRC_PLD_INTERNAL_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/pld.h"

namespace rdpkit::accountant::internal {

// Unit roundoff of IEEE double.
inline constexpr double kUnitRoundoff = 0x1p-53;

// The Poisson-subsampled privacy loss of a base loss ℓ, remove direction (−it for add):
// log(1 − q + q·e^ℓ) (pld.md eq. 3.6), as log1p(q·expm1(ℓ)); exactly ℓ at q = 1, where that form
// would be −∞ once e^ℓ < 2^-53. e^ℓ must not overflow (ℓ ≤ 709).
inline double SubsampledLoss(double base_loss, double q) {
  return q == 1 ? base_loss : std::log1p(q * std::expm1(base_loss));
}

// The mechanisms whose pairs the PLD discretises (docs/math/pld.md §1, §3b).
enum class PldMechanism {
  kGaussian,            // parameter: shift s = sensitivity/σ (the μ of the Gaussian)
  kLaplace,             // parameter: loss bound E = sensitivity/b
  kRandomizedResponse,  // parameter: ε (the dominating pair of every ε-DP mechanism)
  kBoundedRange,        // parameter: ε (every ε-bounded-range mechanism)
};

// One mechanism's pair, Poisson-subsampled with probability q ∈ (0, 1] (q = 1: not subsampled),
// run `count` times. Parameters are rounded up (a larger one gives a dominating pair).
struct PldFactor {
  PldMechanism mechanism;
  double parameter;
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

// Connect-the-dots discretisation (Doroshenko et al. 2022) of one Gaussian factor's pair on the
// grid of step h (a power of 2), its tails beyond mass tail_mass moved to +∞ (upper) or up to the
// lowest grid point (lower) (pld.md §2–3).
SparsePld DiscretizeFactor(const PldFactor& factor, PldDirection direction, double h,
                           double tail_mass);

// The same for a Laplace, randomized-response or bounded-range factor, whose loss is bounded: no
// tail is cut (pld.md §3b).
SparsePld DiscretizeBoundedFactor(const PldFactor& factor, PldDirection direction, double h);

// Approximate mean, variance and mean absolute value of one factor's privacy loss under P (by
// quadrature, in double): they plan the grid step and never enter a bound.
struct LossMoments {
  double mean;
  double variance;
  double mean_abs;
  double range;  // the width of the loss's support (bounded pairs) or of its central 1 − 1e-30
};
LossMoments GaussianMoments(const PldFactor& factor, PldDirection direction);
LossMoments BoundedMoments(const PldFactor& factor, PldDirection direction);

// Grid indices covering [kmin, kmax], both included: every index near 0, cells widening with |k|
// (at most |l|/64 and 2^-7 wide in loss, pld.md §2).
std::vector<std::int64_t> GridIndices(std::int64_t kmin, std::int64_t kmax, double h);

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

// One factor run once needs no transform (pld.md §4): its masses on the window [first,
// first + size), those below moved up to the window's first point (a larger loss only raises δ,
// eq. 6.1), and the sum of those above, rounded up. No round-off beyond the sums': errors are 0.
struct DirectWindow {
  ComposedWindow window;
  double above = 0;
};
DirectWindow PlaceMasses(const SparsePld& pld, std::int64_t first, std::size_t size);

// cos and sin of 2πr/n for r < n, within 4u (pld.md eq. 4.6); computed once per size and thread.
struct TwiddleTable {
  std::size_t n = 0;
  std::vector<double> cos;
  std::vector<double> sin;
};
const TwiddleTable& Twiddles(std::size_t n);

// One factor's transform ŷ_k = Σ_i m_i e^{−2πi·k·index_i/n}, k = 0 … n/2, in two forms
// (pld.md eq. 4.7–4.9):
//   log form: ŷ_k = e^{−2πi·k·reference/n}·S**·(1 − x_k) for a double S** near the masses' sum,
//     |log_scale − log S**| ≤ log_scale_error, |log_ratio[k] − log(1 − x_k)| ≤ log_error[k]
//     (+inf where no bound holds), log_abs_upper[k] ≥ log|1 − x_k|;
//   direct form: |bins[k] − ŷ_k| ≤ bins_error[k].
// A bin's power is taken from whichever form bounds its error more tightly. For a factor run
// `count` ≥ 16 times its heavy masses and the bins whose count-th power is not negligible
// (log_bound[k] ≥ negligible_log so far) are summed directly (eq. 4.6).
struct FactorLogSpectrum {
  bool has_log_form = false;  // the log_* fields are filled only when true
  std::uint64_t reference = 0;
  double log_scale = 0;
  double log_scale_error = 0;
  std::vector<std::complex<double>> log_ratio;
  std::vector<double> log_error;
  std::vector<double> log_abs_upper;
  std::vector<std::complex<double>> bins;
  std::vector<double> bins_error;
};
// Fills `out`, reusing its storage (a composition transforms its factors one after the other).
void LogSpectrumOf(const SparsePld& pld, std::size_t n, double count,
                   const std::vector<double>& log_bound, double negligible_log,
                   FactorLogSpectrum& out);

// Per-bin storage of the compositions (pld_fft.cc, pld_spectrum.cc), kept by the thread from one
// factor and one composition to the next so that a probe does not touch fresh pages. Freed at
// the end of each public PLD evaluation (ScratchRelease) unless a ScratchHold lives on the thread
// (a calibration, whose probes reuse it; freed when the hold ends).
struct CompositionScratch {
  // BinPowers (pld_fft.cc): per bin the two forms of the product and their bounds.
  std::vector<std::complex<double>> exponent;
  std::vector<double> exponent_error;
  std::vector<double> exponent_abs;
  std::vector<std::complex<double>> power;
  std::vector<double> log_p1;
  std::vector<double> abs_log;
  std::vector<double> a_sum;
  std::vector<double> log_bound;
  FactorLogSpectrum spectrum;                 // the factor being added
  std::vector<std::complex<double>> product;  // z''_k
  std::vector<double> inverse;
  // FactorTransform (pld_spectrum.cc): the rest's transform, its bounds and the direct bins.
  std::vector<double> dense;  // the light masses on the n points
  std::vector<std::complex<double>> transform;
  std::vector<double> error;
  std::vector<bool> direct;
  std::vector<std::complex<double>> direct_value;
};
CompositionScratch& ThreadScratch();

class ScratchHold {
 public:
  ScratchHold();
  ~ScratchHold();
  ScratchHold(const ScratchHold&) = delete;
  ScratchHold& operator=(const ScratchHold&) = delete;
};

class ScratchRelease {
 public:
  ScratchRelease() = default;
  ~ScratchRelease();
  ScratchRelease(const ScratchRelease&) = delete;
  ScratchRelease& operator=(const ScratchRelease&) = delete;
};

// One direction's composed PLD with every term of its δ bound (pld.md §6).
// With tilt λ > 0 (pld.md §6b) the window holds the composition of the tilted masses
// m·e^{λl}/M(λ): the composition itself at loss l is the window's value times
// scale(l) = e^{tilt_log_scale − λl}, tilt_log_scale ≥ Σ_j T_j·log M_j(λ).
struct DirectionPld {
  double h = 0;
  ComposedWindow window;
  double above = 0;     // bound on the composed finite mass above the window
  double infinity = 0;  // composed mass at +∞, rounded up
  double tilt = 0;
  double tilt_log_scale = 0;
  // scale(l) rounded up (1 without a tilt; +inf beyond the doubles).
  [[nodiscard]] double Scale(double loss) const;
};

// A composition's factors tilted by λ (pld.md §6b): each mass m at loss l becomes
// m·e^{λl − log M(λ)}, rounded up, and log_scale ≥ C = Σ_j T_j·log M_j(λ) for the M_j used.
struct TiltedFactors {
  std::vector<SparsePld> plds;
  double log_scale = 0;
};
TiltedFactors TiltFactors(const std::vector<SparsePld>& plds,
                          const std::vector<std::uint64_t>& counts, double h, double lambda);

// Grid indices [bottom, top] outside which the composed finite mass of the factors (each run
// counts[j] times) is at most about `tail` on each side, by Chernoff bounds over λ (pld.md eq.
// 5.1) on summaries of the masses, and the λ that gave the top. Only tightness depends on it.
// The λ tried: 2^{i/4}, −32 ≤ i ≤ 80 (pld.md §5), ascending.
const std::vector<double>& Lambdas();
struct Window {
  double bottom;
  double top;
  double lambda_top;
};
// every_lambda (for tests): every λ is tried instead of the descent; the same window.
Window ChernoffWindow(const std::vector<SparsePld>& plds, const std::vector<std::uint64_t>& counts,
                      double h, double tail, bool every_lambda = false);

// Upper bound of the composed finite mass at indices ≥ end (pld.md eq. 5.1) at λ near
// lambda_top, on the exact masses, rounded up.
double MassAbove(const std::vector<SparsePld>& plds, const std::vector<std::uint64_t>& counts,
                 double h, double end, double lambda_top);

// The tilt for δ_up near `loss` (pld.md §6b): the first λ of `lambdas` (ascending) whose scale
// there, e^{C(λ) − λ·loss}, is at most e^{log_target} — a larger λ only amplifies the mass that
// wraps around from above the window (§4) — else the one that minimises it (the Chernoff λ).
double TiltFor(const std::vector<SparsePld>& plds, const std::vector<std::uint64_t>& counts,
               double h, double loss, double log_target, const std::vector<double>& lambdas);

// The round-off term of one direction's δ bound at ε (pld.md eq. 6.1).
[[nodiscard]] double RoundOffAt(const DirectionPld& direction, double epsilon);

// δ_up(ε) = max over the directions of their δ bound (pld.md eq. 6.1), in [0, 1]; 0 for none.
[[nodiscard]] double DeltaUpper(const std::vector<DirectionPld>& directions, double epsilon);

// The smallest ε found with DeltaUpper(ε) ≤ δ (every ε returned passed that check), +inf when
// none within the windows, 0 for no directions (pld.md §6).
[[nodiscard]] double EpsilonUpper(const std::vector<DirectionPld>& directions, double delta);

// Real FFTs of size n (a power of 2, ≥ 4) by Eigen's FFT module, with bounds on their round-off
// derived for its algorithm (docs/math/pld.md §4). Exposed for tests.
class RealFft {
 public:
  explicit RealFft(std::size_t n);
  // spectrum[k] = Σ_j x_j e^{−2πijk/n}, k = 0 … n/2.
  void Forward(const std::vector<double>& x, std::vector<std::complex<double>>& spectrum) const;
  // x_j = Σ_{k=0}^{n−1} X_k e^{2πijk/n} (unscaled) of the Hermitian spectrum whose bins 0 … n/2
  // are given (the imaginary parts of bins 0 and n/2 are ignored).
  void Inverse(const std::vector<std::complex<double>>& spectrum, std::vector<double>& x) const;
  // |Forward'_k − Forward_k| ≤ ForwardErrorFactor()·‖x‖₁.
  [[nodiscard]] double ForwardErrorFactor() const;
  // |Inverse'_j − Inverse_j| ≤ InverseErrorFactor()·Σ_{k ≤ n/2}|X_k|.
  [[nodiscard]] double InverseErrorFactor() const;
  // ‖Inverse' − Inverse‖₂ ≤ InverseNormErrorFactor()·√(n/2)·‖X_{0 … n/2}‖₂.
  [[nodiscard]] double InverseNormErrorFactor() const;

 private:
  std::size_t n_;
};

// The grid steps PldEpsilon(event, delta, options) composes on for each of `grids` (pld.md §5),
// from one plan and without composing, and the resolution rule's step (a power of 2; 0 where no
// factor's loss varies); all 0 for an empty event. Calibration compares grids by them. Errors as
// PldEpsilon.
struct PldGridPlan {
  std::vector<double> steps;
  double resolution_step = 0;
};
PldGridPlan PlanPldGrids(const Event& event, double delta, const std::vector<PldOptions>& grids);

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_PLD_INTERNAL_H_
