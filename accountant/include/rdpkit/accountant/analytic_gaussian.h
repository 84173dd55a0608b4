// Exact accounting of Gaussian compositions (Balle & Wang 2018, "Improving the Gaussian
// Mechanism for Differential Privacy: Analytical Calibration and Optimal Denoising", Thm 8;
// Dong, Roth & Su 2022, Cor. 3.3 for composition).
//
// A Gaussian mechanism with sensitivity 1 and noise multiplier σ is μ-GDP with μ = 1/σ; a
// leaf-balanced Gaussian (S-BDT Thm 16) with weights r_d and ratios c_d is a Gaussian mechanism
// with μ² = D·Σ_d r_d c_d²/σ² (its privacy loss is that of a shift of Mahalanobis length μ); a
// composition of μ_i-GDP mechanisms is √(Σμ_i²)-GDP, exactly. Such a composition is
// (ε, δ)-DP exactly when
//     δ ≥ δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2),
// so ε(δ) and δ(ε) below are the true values, not bounds of an RDP curve. Both are evaluated with
// interval arithmetic and rounded to the safe side (docs/math/analytic_gaussian.md).
#ifndef RDPKIT_ACCOUNTANT_ANALYTIC_GAUSSIAN_H_
#define RDPKIT_ACCOUNTANT_ANALYTIC_GAUSSIAN_H_

#include <optional>

#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant {

// Enclosure of μ when the event is made only of Gaussian-type events (gaussian,
// leaf_balanced_gaussian, and their self_composed / composed combinations; poisson_sampled with
// sampling_probability 1 is its base event); nullopt for anything else (zcdp is not one: a
// ρ-zCDP mechanism need not be a Gaussian).
[[nodiscard]] std::optional<Bound> GaussianCompositionMu(const Event& event);

// δ_μ(ε) for μ ≥ 0 (finite; μ = 0, nothing released, gives 0) and ε ≥ 0: a certified upper
// bound, in [0, 1].
[[nodiscard]] double AnalyticGaussianDelta(double mu, double epsilon);

// The smallest ε ≥ 0 with δ_μ(ε) ≤ δ, δ ∈ (0, 1): a certified upper bound (δ_μ at the returned ε
// is certified ≤ δ), within 1e-12 relative of the true value; 0 for μ = 0.
[[nodiscard]] double AnalyticGaussianEpsilon(double mu, double delta);

}  // namespace rdpkit::accountant

#endif  // RDPKIT_ACCOUNTANT_ANALYTIC_GAUSSIAN_H_
