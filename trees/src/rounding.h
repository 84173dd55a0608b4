// Rounding a computed bound to the safe side: a sensitivity that comes out of a few double
// operations (each rounded to nearest, at most half an ulp off) is moved up by one ulp per
// operation, so that noise = sensitivity × σ is never below what the accountant assumed.
#ifndef RDPKIT_TREES_SRC_ROUNDING_H_
#define RDPKIT_TREES_SRC_ROUNDING_H_

#include <cmath>
#include <limits>

namespace rdpkit::trees::internal {

// value moved up by `roundings` ulps: an upper bound of the exact result of an expression whose
// `roundings` operations were each rounded to nearest (or, as hypot, to within one ulp).
inline double RoundedUp(double value, int roundings) {
  for (int i = 0; i < roundings; ++i) {
    value = std::nextafter(value, std::numeric_limits<double>::infinity());
  }
  return value;
}

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_ROUNDING_H_
