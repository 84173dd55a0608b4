// Rényi-DP curves ρ(α) of events (DESIGN.md §1, §2).
//
// Two paths share one template definition of each curve (STYLE.md §5):
//  - RdpFast: double, log space, for inner loops and scans;
//  - RdpCertified: interval arithmetic (MPFI through Boost.Multiprecision) at ≥ 128 bits; the
//    returned upper end is rounded up to a double, so upper ≥ the true ρ(α).
#ifndef RDPKIT_ACCOUNTANT_CURVES_H_
#define RDPKIT_ACCOUNTANT_CURVES_H_

#include <vector>

#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant {

// Bits of the certified path (MPFI). 40 decimal digits ≈ 133 bits are used; precision is raised
// automatically when an enclosure is too wide.
inline constexpr int kCertifiedBits = 128;

// lower ≤ true value ≤ upper.
struct Bound {
  double lower;
  double upper;
};

// ρ(α) in double precision. order ∈ (1, inf); may be +inf (e.g. a Gaussian at α = ∞ is not
// finite, a pure-DP event is). Throws InvalidArgument for an order outside (1, inf).
[[nodiscard]] double RdpFast(const Event& event, double order);

// Enclosure of ρ(α); upper is a guaranteed upper bound. Throws NumericalError if the enclosure
// stays wider than 1e-9 relative at the highest precision tried.
[[nodiscard]] Bound RdpCertified(const Event& event, double order);

// Default order grid for conversions: 1 + 10^x for x in [-3, 5] on a fine log grid, plus every
// integer 2..256 (integer orders are where subsampled curves are tight). Sorted, unique.
[[nodiscard]] const std::vector<double>& DefaultOrders();

// Largest order considered by the conversions (DESIGN: α ∈ (1, 10⁵]).
inline constexpr double kMaxOrder = 1e5;

}  // namespace rdpkit::accountant

#endif  // RDPKIT_ACCOUNTANT_CURVES_H_
