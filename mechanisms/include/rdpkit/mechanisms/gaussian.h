// Gaussian mechanisms that are safe against floating-point attacks (Mironov 2012).
//
// Guarantee (docs/mechanisms.md §Floating-point safety): for an input value x and noise standard
// deviation sd, the output is exactly γ·round((x + Y)/γ), where Y ~ N(0, sd²) is an ideal real
// Gaussian and γ = 2^k is a power-of-two grid step with sd/γ ∈ [2^20, 2^21). round() is taken on
// the exact real x + Y (never on a floating-point sum), so the output is a post-processing of the
// ideal continuous Gaussian mechanism: it has the continuous mechanism's RDP curve α/(2σ²)
// (post-processing: the data-processing inequality for Rényi divergence, van Erven & Harremoës
// 2014 Thm 9), the sensitivity is unchanged and the reported event is
// the plain {"gaussian": {"noise_multiplier": σ}}. The output set (multiples of γ) does not depend
// on x, which closes the low-order-bit channel of textbook samplers.
#ifndef RDPKIT_MECHANISMS_GAUSSIAN_H_
#define RDPKIT_MECHANISMS_GAUSSIAN_H_

#include <cstddef>
#include <vector>

#include "rdpkit/accountant/event.h"
#include "rdpkit/mechanisms/random.h"

namespace rdpkit::mechanisms {

// Largest vector length AddTo accepts in one call.
inline constexpr std::size_t kMaxDimension = std::size_t{1} << 40;

// Adds N(0, (sensitivity·noise_multiplier)²) noise to each coordinate, snapped exactly to the
// grid described above. sensitivity is the L2 sensitivity of the whole vector passed to AddTo.
class GaussianMechanism {
 public:
  // Both finite and > 0 (else InvalidArgument naming the field); their product must lie in
  // [2^-900, 2^900] (field "stddev (sensitivity × noise_multiplier)").
  GaussianMechanism(double sensitivity, double noise_multiplier);

  // One noise draw (the grid-snapped noise itself, i.e. Add(0, rng)).
  [[nodiscard]] double Sample(Random& rng) const;
  // γ·round((value + Y)/γ) computed exactly. value must be finite (field "value").
  [[nodiscard]] double Add(double value, Random& rng) const;
  // Add applied to values[0..n), in place; n ≤ kMaxDimension (field "n"), entries finite
  // (field "values[i]", checked before any noise is drawn).
  void AddTo(double* values, std::size_t n, Random& rng) const;

  double sensitivity() const noexcept { return sensitivity_; }
  double noise_multiplier() const noexcept { return noise_multiplier_; }
  // sensitivity · noise_multiplier, the standard deviation of Y.
  double stddev() const noexcept { return stddev_; }
  // γ = 2^k, the output grid step.
  double granularity() const noexcept { return granularity_; }
  // {"gaussian": {"noise_multiplier": σ}}: exact, no correction is needed (see the file comment).
  [[nodiscard]] accountant::Event event() const;

 private:
  double sensitivity_;
  double noise_multiplier_;
  double stddev_;
  double granularity_;
  int granularity_exponent_;  // γ = 2^granularity_exponent_
};

// Leaf-balanced (non-spherical) Gaussian, DESIGN.md §1 and S-BDT Thm 16 / §5.2: D coordinates,
// coordinate d has sensitivity s_d and gets N(0, s_d²σ²/(D r_d)), each snapped exactly to its own
// power-of-two grid as in GaussianMechanism. Reports
// {"leaf_balanced_gaussian": {"noise_multiplier": σ, "weights": [r_1, …, r_D]}}.
class LeafBalancedGaussianMechanism {
 public:
  // sensitivities: D ≥ 1 entries, finite > 0 ("sensitivities[d]"); noise_multiplier finite > 0;
  // weights: D entries in (0, 1] summing to 1 (the accountant's rule, "weights[d]",
  // "sum(weights)").
  LeafBalancedGaussianMechanism(std::vector<double> sensitivities, double noise_multiplier,
                                std::vector<double> weights);

  // values has dimension() entries, each finite.
  void AddTo(double* values, Random& rng) const;
  std::size_t dimension() const noexcept { return coordinates_.size(); }
  // s_d·σ/sqrt(D r_d), d = 0..D-1.
  std::vector<double> stddevs() const;
  std::vector<double> granularities() const;
  [[nodiscard]] accountant::Event event() const;

 private:
  double noise_multiplier_;
  std::vector<double> weights_;
  std::vector<GaussianMechanism> coordinates_;  // one scalar mechanism per coordinate
};

}  // namespace rdpkit::mechanisms

#endif  // RDPKIT_MECHANISMS_GAUSSIAN_H_
