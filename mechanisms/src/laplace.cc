#include "rdpkit/mechanisms/laplace.h"

#include <cmath>
#include <string>

#include "exact.h"
#include "grid.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::mechanisms {

LaplaceMechanism::LaplaceMechanism(double sensitivity, double noise_multiplier)
    : sensitivity_(sensitivity), noise_multiplier_(noise_multiplier) {
  Require(std::isfinite(sensitivity) && sensitivity > 0, "sensitivity", sensitivity, "(0, inf)");
  Require(std::isfinite(noise_multiplier) && noise_multiplier > 0, "noise_multiplier",
          noise_multiplier, "(0, inf)");
  // Rounded up: the scale is never below sensitivity·noise_multiplier (the accounted amount).
  scale_ = internal::ProductRoundedUp(sensitivity, noise_multiplier);
  internal::RequireScaleInRange(scale_, "scale (sensitivity × noise_multiplier)");
  granularity_exponent_ = internal::GridExponent(scale_);
  granularity_ = std::ldexp(1.0, granularity_exponent_);
}

double LaplaceMechanism::Sample(Random& rng) const { return Add(0.0, rng); }

double LaplaceMechanism::Add(double value, Random& rng) const {
  internal::RequireSnappable(value, granularity_exponent_, "value");
  return internal::SnappedLaplace(value, std::ldexp(scale_, -granularity_exponent_),
                                  granularity_exponent_, rng);
}

void LaplaceMechanism::AddTo(double* values, std::size_t n, Random& rng) const {
  internal::RequireAllSnappable(values, n, granularity_exponent_);
  const double scale_grid = std::ldexp(scale_, -granularity_exponent_);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = internal::SnappedLaplace(values[i], scale_grid, granularity_exponent_, rng);
  }
}

accountant::Event LaplaceMechanism::event() const {
  return accountant::LaplaceEvent(noise_multiplier_);
}

}  // namespace rdpkit::mechanisms
