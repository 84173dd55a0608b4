#include "rdpkit/mechanisms/gaussian.h"

#include <cmath>
#include <string>

#include "exact.h"
#include "grid.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::mechanisms {

GaussianMechanism::GaussianMechanism(double sensitivity, double noise_multiplier)
    : sensitivity_(sensitivity), noise_multiplier_(noise_multiplier) {
  Require(std::isfinite(sensitivity) && sensitivity > 0, "sensitivity", sensitivity, "(0, inf)");
  Require(std::isfinite(noise_multiplier) && noise_multiplier > 0, "noise_multiplier",
          noise_multiplier, "(0, inf)");
  // Rounded up, so the noise is never smaller than sensitivity·σ (the accounted amount).
  stddev_ = internal::ProductRoundedUp(sensitivity, noise_multiplier);
  internal::RequireScaleInRange(stddev_, "stddev (sensitivity × noise_multiplier)");
  granularity_exponent_ = internal::GridExponent(stddev_);
  granularity_ = std::ldexp(1.0, granularity_exponent_);
}

double GaussianMechanism::Sample(Random& rng) const { return Add(0.0, rng); }

double GaussianMechanism::Add(double value, Random& rng) const {
  internal::RequireSnappable(value, granularity_exponent_, "value");
  const double sigma_grid = std::ldexp(stddev_, -granularity_exponent_);
  double out = 0;
  internal::SnappedGaussian(&value, &out, 1, &sigma_grid, &granularity_exponent_, rng);
  return out;
}

void GaussianMechanism::AddTo(double* values, std::size_t n, Random& rng) const {
  Require(n <= kMaxDimension, "n", static_cast<double>(n), "[0, 2^40]");
  internal::RequireAllSnappable(values, n, granularity_exponent_);
  const double sigma_grid[2] = {std::ldexp(stddev_, -granularity_exponent_),
                                std::ldexp(stddev_, -granularity_exponent_)};
  const int k[2] = {granularity_exponent_, granularity_exponent_};
  std::size_t i = 0;
  for (; i + 1 < n; i += 2)
    internal::SnappedGaussian(values + i, values + i, 2, sigma_grid, k, rng);
  if (i < n) internal::SnappedGaussian(values + i, values + i, 1, sigma_grid, k, rng);
}

accountant::Event GaussianMechanism::event() const {
  return accountant::GaussianEvent(noise_multiplier_);
}

LeafBalancedGaussianMechanism::LeafBalancedGaussianMechanism(std::vector<double> sensitivities,
                                                             double noise_multiplier,
                                                             std::vector<double> weights)
    : noise_multiplier_(noise_multiplier), weights_(std::move(weights)) {
  // The accountant's event validates noise_multiplier and the weights (DESIGN.md §1).
  const accountant::LeafBalancedGaussianEvent validated(noise_multiplier_, weights_);
  if (sensitivities.size() != weights_.size()) {
    throw InvalidArgument("sensitivities",
                          "has " + std::to_string(sensitivities.size()) + " entries, weights has " +
                              std::to_string(weights_.size()) + "; they must match");
  }
  const auto dimension = static_cast<double>(weights_.size());
  coordinates_.reserve(weights_.size());
  for (std::size_t d = 0; d < weights_.size(); ++d) {
    Require(std::isfinite(sensitivities[d]) && sensitivities[d] > 0,
            "sensitivities[" + std::to_string(d) + "]", sensitivities[d], "(0, inf)");
    // Coordinate d: sd = s_d·σ/sqrt(D r_d) (S-BDT Thm 16, DESIGN.md §1). The three roundings of
    // σ/sqrt(D r_d) sum to < 2^-51.4 relative; the factor 1 + 2^-50 makes it an upper bound.
    const double multiplier =
        noise_multiplier_ / std::sqrt(dimension * weights_[d]) * (1.0 + 0x1p-50);
    coordinates_.emplace_back(sensitivities[d], multiplier);
  }
}

void LeafBalancedGaussianMechanism::AddTo(double* values, Random& rng) const {
  const std::size_t dimension = coordinates_.size();
  for (std::size_t d = 0; d < dimension; ++d) {
    const int k = std::ilogb(coordinates_[d].granularity());
    if (!internal::Snappable(values[d], k)) {
      internal::ThrowNotSnappable(values[d], "values[" + std::to_string(d) + "]");
    }
  }
  std::size_t d = 0;
  for (; d < dimension; d += 2) {
    const int count = d + 1 < dimension ? 2 : 1;
    double sigma_grid[2] = {0, 0};
    int k[2] = {0, 0};
    for (int j = 0; j < count; ++j) {
      const GaussianMechanism& c = coordinates_[d + static_cast<std::size_t>(j)];
      k[j] = std::ilogb(c.granularity());
      sigma_grid[j] = std::ldexp(c.stddev(), -k[j]);
    }
    internal::SnappedGaussian(values + d, values + d, count, sigma_grid, k, rng);
  }
}

std::vector<double> LeafBalancedGaussianMechanism::stddevs() const {
  std::vector<double> out;
  for (const auto& c : coordinates_) out.push_back(c.stddev());
  return out;
}

std::vector<double> LeafBalancedGaussianMechanism::granularities() const {
  std::vector<double> out;
  for (const auto& c : coordinates_) out.push_back(c.granularity());
  return out;
}

accountant::Event LeafBalancedGaussianMechanism::event() const {
  return accountant::LeafBalancedGaussianEvent(noise_multiplier_, weights_);
}

}  // namespace rdpkit::mechanisms
