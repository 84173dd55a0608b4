// Zhu–Wang bounds of a Poisson-subsampled mechanism at integer orders, summed in log space
// (docs/math/subsampling.md §2), and the convexity bound between integers (§4).
#ifndef RDPKIT_ACCOUNTANT_SRC_ZHU_WANG_H_
#define RDPKIT_ACCOUNTANT_SRC_ZHU_WANG_H_

#include <cmath>

#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant::internal {

// Tight Zhu–Wang value at integer m ≥ 2 for a base whose curve is c·α (S-BDT Thm 14 with
// Lem. 15). Instantiated for double, Interval and WideInterval; an interval result encloses it.
template <class Real>
Real TightInteger(double q, const Real& c, long m);

// General Zhu–Wang value at integer m ≥ 2 for any base (Zhu & Wang 2019, Thm 5). Instantiated
// for double, Interval and WideInterval.
template <class Real>
Real GeneralInteger(double q, const Event& base, long m);

// ---------------------------------------------------------------------------------------------
// Convexity bound at fractional orders (§4): (α−1)ρ(α) = log E[(p/p')^α] is convex in α (Hölder),
// so with a = ⌊α⌋, t = α − a:  (α−1)ρ(α) ≤ (1−t)(a−1)ρ(a) + t·a·ρ(a+1); for α < 2 the left point
// is (1, 0), giving ρ(α) ≤ ρ(2). Valid for upper bounds at the integers (the coefficients are ≥ 0).
template <class Real, class AtInteger>
Real Interpolate(double order, const AtInteger& at_integer) {
  const double a = std::floor(order);
  if (a < 2) return at_integer(2);
  const double t = order - a;  // exact (Sterbenz)
  const long ai = static_cast<long>(a);
  return ((1 - t) * (a - 1) * at_integer(ai) + t * a * at_integer(ai + 1)) / (Real(order) - 1);
}

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_ZHU_WANG_H_
