// Privacy-loss-distribution (PLD) accountant (Koskela et al. 2020; Doroshenko et al. 2022,
// "Connect the Dots: Tighter Discrete Approximations of Privacy Loss Distributions").
//
// Handles compositions (composed, self_composed) of gaussian, leaf_balanced_gaussian, laplace,
// pure_dp and exponential (bounded range) events, each optionally Poisson-subsampled (add/remove
// neighbours: the larger δ of the two directions).
// Each factor's pair is discretised pessimistically (connect-the-dots with outward-rounded masses,
// truncated tails moved to +∞ loss or up), the factors are composed by FFT, and the FFT's
// round-off and the mass outside the window are bounded and added to δ, so every value returned
// is an upper bound of the true one (docs/math/pld.md states each bound and what it rests on).
#ifndef RDPKIT_ACCOUNTANT_PLD_H_
#define RDPKIT_ACCOUNTANT_PLD_H_

#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant {

struct PldOptions {
  // The grid step is chosen so that the composed window spans between 2^(log2_points − 1) and
  // 2^log2_points points (fewer points are faster and less tight, never unsound), and finer where
  // the discretisation
  // would otherwise add more than a few percent to the variance of the privacy loss (small
  // sampling probabilities over many rounds), up to 2^log2_max_points points. log2_points in
  // [10, 20], log2_max_points in [log2_points, 20].
  int log2_points = 16;
  int log2_max_points = 20;
};
// Calibration probes: a coarser grid (the final answer is evaluated with the default).
inline constexpr PldOptions kPldProbeOptions{14, 17};

// True when the PLD accountant handles the event: compositions of gaussian,
// leaf_balanced_gaussian, laplace, pure_dp and exponential, each optionally poisson_sampled;
// false for zcdp, renyi_filter and poisson_sampled compositions.
[[nodiscard]] bool PldSupports(const Event& event);

// Smallest ε the PLD certifies at δ ∈ (0, 1) (+inf when none within its window). Throws
// InvalidArgument naming "accountant" on an unsupported event, and NumericalError when the grid
// it would need exceeds its memory cap (2^21 points per direction).
[[nodiscard]] double PldEpsilon(const Event& event, double delta, const PldOptions& options = {});

// δ at ε ∈ [0, inf) certified by the PLD, in [0, 1]. Errors as PldEpsilon.
[[nodiscard]] double PldDelta(const Event& event, double epsilon, const PldOptions& options = {});

}  // namespace rdpkit::accountant

#endif  // RDPKIT_ACCOUNTANT_PLD_H_
