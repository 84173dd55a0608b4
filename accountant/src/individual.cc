#include "rdpkit/accountant/individual.h"

#include <cmath>
#include <limits>
#include <string>

#include "certify.h"
#include "curves_impl.h"
#include "rdpkit/accountant/errors.h"
#include "real.h"
#include "subsampled.h"

namespace rdpkit::accountant {
namespace {

void RequireOrder(double order) {
  Require(std::isfinite(order) && order > 1, "order", order, "(1, inf)");
}
void RequireRate(double q) { Require(q >= 0 && q <= 1, "sampling_probability", q, "[0, 1]"); }

// Upper end of the per-record curve at mix u = j/G (linear coefficient c = D·u/(2σ²), S-BDT
// Thm 16) subsampled at q (Thm 19), certified (certify.h).
template <class I>
I GridValue(double sigma, double d, double mix_max, double q, double order, std::size_t j,
            std::size_t grid) {
  const I s(sigma);
  const I c =
      I(d) * (I(static_cast<double>(j)) / static_cast<double>(grid)) * mix_max / (2 * s * s);
  return internal::SampledLinearRdp(q, c, /*gaussian=*/true, order);
}

}  // namespace

double IndividualRdpFast(const LeafBalancedGaussianEvent& mechanism, double sampling_probability,
                         double order) {
  RequireOrder(order);
  RequireRate(sampling_probability);
  return internal::SampledLinearRdp(sampling_probability,
                                    internal::LeafBalancedGaussianRdp(1.0, mechanism),
                                    /*gaussian=*/true, order);
}

Bound IndividualRdpCertified(const LeafBalancedGaussianEvent& mechanism,
                             double sampling_probability, double order) {
  RequireOrder(order);
  RequireRate(sampling_probability);
  return RdpCertified(PoissonSampledEvent(sampling_probability, mechanism), order);
}

IndividualRdpTable::IndividualRdpTable(double noise_multiplier, std::vector<double> weights,
                                       double sampling_probability, double order,
                                       std::size_t grid_size)
    : noise_multiplier_(noise_multiplier),
      weights_(std::move(weights)),
      sampling_probability_(sampling_probability),
      order_(order),
      grid_(static_cast<double>(grid_size)) {
  // Validates σ and the weights exactly like the event does.
  (void)LeafBalancedGaussianEvent(noise_multiplier, weights_);
  RequireRate(sampling_probability);
  RequireOrder(order);
  Require(grid_size >= 1 && grid_size <= (std::size_t{1} << 20), "grid_size",
          static_cast<double>(grid_size), "[1, 1048576]");
  const double d = static_cast<double>(weights_.size());
  double sum = 0;
  for (const double r : weights_) sum += r;
  mix_max_ = std::nextafter(sum * (1 + 0x1p-40), std::numeric_limits<double>::infinity());
  scale_ = grid_ / mix_max_ * (1 + 0x1p-40);
  values_.resize(grid_size + 1);
  for (std::size_t j = 0; j <= grid_size; ++j) {
    const auto entry = [&] { return "individual RDP table: entry " + std::to_string(j); };
    const Bound b = internal::Certify(
        [&](auto zero) {
          return GridValue<decltype(zero)>(noise_multiplier, d, mix_max_, sampling_probability,
                                           order, j, grid_size);
        },
        entry);
    // A table entry must be finite (a record charged +inf could never take part).
    if (!std::isfinite(b.upper)) {
      throw NumericalError(entry() + " is enclosed only in [" + FormatNumber(b.lower) + ", " +
                           FormatNumber(b.upper) + "]");
    }
    values_[j] = b.upper;
  }
}

}  // namespace rdpkit::accountant
