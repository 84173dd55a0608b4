// Laplace mechanism, safe against floating-point attacks: the output is exactly
// γ·round((x + L)/γ) with L an ideal real Laplace(0, b) variate, b = sensitivity·noise_multiplier,
// and γ = 2^k with b/γ ∈ [2^20, 2^21). A post-processing of the ideal continuous Laplace
// mechanism, so it keeps its guarantee: ε = 1/noise_multiplier pure DP for L1 sensitivity
// `sensitivity` and the RDP curve of Mironov 2017 Prop. 6. docs/mechanisms.md has the details.
#ifndef RDPKIT_MECHANISMS_LAPLACE_H_
#define RDPKIT_MECHANISMS_LAPLACE_H_

#include <cstddef>

#include "rdpkit/accountant/event.h"
#include "rdpkit/mechanisms/random.h"

namespace rdpkit::mechanisms {

class LaplaceMechanism {
 public:
  // Both finite and > 0 (else InvalidArgument naming the field); their product in
  // [2^-900, 2^900] (field "scale (sensitivity × noise_multiplier)"). sensitivity is the L1
  // sensitivity of what AddTo receives.
  LaplaceMechanism(double sensitivity, double noise_multiplier);

  [[nodiscard]] double Sample(Random& rng) const;  // Add(0, rng)
  [[nodiscard]] double Add(double value, Random& rng) const;
  void AddTo(double* values, std::size_t n, Random& rng) const;

  double sensitivity() const noexcept { return sensitivity_; }
  double noise_multiplier() const noexcept { return noise_multiplier_; }
  // b = sensitivity · noise_multiplier.
  double scale() const noexcept { return scale_; }
  double granularity() const noexcept { return granularity_; }
  // {"laplace": {"noise_multiplier": noise_multiplier}}.
  [[nodiscard]] accountant::Event event() const;

 private:
  double sensitivity_;
  double noise_multiplier_;
  double scale_;
  double granularity_;
  int granularity_exponent_;
};

}  // namespace rdpkit::mechanisms

#endif  // RDPKIT_MECHANISMS_LAPLACE_H_
