// Rounding computed privacy quantities to the safe side: a sensitivity that comes out of a few
// double operations (each rounded to nearest, at most half an ulp off) is moved up by one ulp per
// operation, so that noise = sensitivity × σ is never below what the accountant assumed; a
// record's sensitivity ratio for the individual Rényi filter is rounded up likewise.
#ifndef RDPKIT_TREES_SRC_ROUNDING_H_
#define RDPKIT_TREES_SRC_ROUNDING_H_

#include <algorithm>
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

// √(a² + b²) within a few ulps; hypot (several times slower) only where a² + b² may underflow.
inline double Norm(double a, double b) {
  const double squares = a * a + b * b;
  return squares > 1e-290 ? std::sqrt(squares) : std::hypot(a, b);
}

// min(1, value/bound) rounded up by a relative margin of 1e-12, which covers the roundings of a
// value computed with up to ~1000 operations (a softprob norm over K ≤ 1000 classes) and of the
// division: a record's individual privacy loss (its ratio to the sensitivity) is never
// undercharged.
inline double RatioUp(double value, double bound) {
  return std::min(1.0, (1 + 1e-12) * value / bound);
}

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_ROUNDING_H_
