// Number types of the two precision paths (STYLE.md §5) and the few helpers whose meaning
// differs between a double and an interval. Private to the accountant: MPFI types never appear
// in public headers.
#ifndef RDPKIT_ACCOUNTANT_SRC_REAL_H_
#define RDPKIT_ACCOUNTANT_SRC_REAL_H_

#include <mpfr.h>

#include <algorithm>
#include <boost/multiprecision/mpfi.hpp>
#include <cmath>
#include <limits>

namespace rdpkit::accountant::internal {

// 40 decimal digits = 133 bits ≥ kCertifiedBits; 100 digits for the retry when an enclosure is
// too wide (cancellation near α = 1, huge binomial sums).
using Interval = boost::multiprecision::number<boost::multiprecision::mpfi_float_backend<40>,
                                               boost::multiprecision::et_off>;
using WideInterval = boost::multiprecision::number<boost::multiprecision::mpfi_float_backend<100>,
                                                   boost::multiprecision::et_off>;

template <class Real>
inline constexpr bool kIsInterval = !std::is_same_v<Real, double>;

// Upper end rounded up to the next double (≥ every point of the interval).
template <class I>
double UpperDouble(const I& x) {
  return mpfr_get_d(&x.backend().data()[0].right, MPFR_RNDU);
}
// Lower end rounded down to a double.
template <class I>
double LowerDouble(const I& x) {
  return mpfr_get_d(&x.backend().data()[0].left, MPFR_RNDD);
}
inline double UpperDouble(double x) { return x; }
inline double LowerDouble(double x) { return x; }

// Interval [lo, hi] from two enclosures: the hull of lo's lower end and hi's upper end.
template <class I>
I Hull(const I& lo, const I& hi) {
  I out;
  mpfi_interv_fr(out.backend().data(), &lo.backend().data()[0].left, &hi.backend().data()[0].right);
  return out;
}

// max(a, b) (and min), exact for doubles; for intervals [max(a.lo, b.lo), max(a.hi, b.hi)], which
// encloses max(x, y) for every x ∈ a, y ∈ b.
inline double Max(double a, double b) { return std::max(a, b); }
template <class I>
I Max(const I& a, const I& b) {
  I out = a;
  auto* o = out.backend().data();
  const auto* y = b.backend().data();
  mpfr_max(&o[0].left, &o[0].left, &y[0].left, MPFR_RNDD);
  mpfr_max(&o[0].right, &o[0].right, &y[0].right, MPFR_RNDU);
  return out;
}
template <class I>
I Min(const I& a, const I& b) {
  I out = a;
  auto* o = out.backend().data();
  const auto* y = b.backend().data();
  mpfr_min(&o[0].left, &o[0].left, &y[0].left, MPFR_RNDD);
  mpfr_min(&o[0].right, &o[0].right, &y[0].right, MPFR_RNDU);
  return out;
}

// clamp(x, lo, hi) with lo ≤ hi exact points; monotone, so endpoint-wise for intervals.
inline double Clamp(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }
template <class I>
I Clamp(const I& x, const I& lo, const I& hi) {
  return Min(Max(x, lo), hi);
}

// log(e^a + e^b). For doubles the larger argument is factored out so nothing overflows; intervals
// use the plain identity a + log1p(e^{b−a}), valid for all a, b (callers keep b − a well inside
// MPFR's exponent range).
inline double LogAddExp(double a, double b) {
  if (a == -std::numeric_limits<double>::infinity()) return b;
  if (b == -std::numeric_limits<double>::infinity()) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(-std::abs(a - b)));
}
template <class I>
I LogAddExp(const I& a, const I& b) {
  using std::exp;
  using std::log1p;
  return a + log1p(exp(b - a));
}

// log(e^x − 1) for x > 0: log(expm1(x)) near 0, x + log1p(−e^{−x}) for large x (no overflow).
inline double LogExpm1(double x) {
  return x < 1 ? std::log(std::expm1(x)) : x + std::log1p(-std::exp(-x));
}
// e^x − 1 − x (≥ 0 for every x), to a few ulps: the Taylor series x²/2 + x³/6 + … below |x| = 1/8
// (its terms past x^18/18! are below 2^-60 of the sum), expm1(x) − x above, where the difference
// is at least 0.0075 and loses at most 5 bits.
inline double Expm1MinusX(double x) {
  if (std::abs(x) >= 0.125) return std::expm1(x) - x;
  double term = x * x / 2;
  double sum = term;
  for (int k = 3; k <= 18; ++k) {
    term *= x / k;
    sum += term;
  }
  return sum;
}

// For intervals too: e^x overflows MPFR's default exponent range (≈ 2^30 bits, x ≳ 7.4e8; the
// bounded-range curve reaches αε = 1e10), so above 1 the same factored form is used.
template <class I>
I LogExpm1(const I& x) {
  using std::exp;
  using std::expm1;
  using std::log;
  using std::log1p;
  if (LowerDouble(x) > 1) return x + log1p(-exp(-x));
  return log(expm1(x));
}

// ---------------------------------------------------------------------------------------------
// Fast-path guards. A fast value may be less tight than the truth, never smaller (beyond its
// rounding error): a double formula that underflows, overflows or cancels is not used as is.

// A double result v of a sum whose terms have total magnitude M carries about (M/v)·2⁻⁵² relative
// rounding error; past this factor (≈ 1e-11 relative) the double value is not trusted.
inline constexpr double kMaxCancellation = 1e4;

// True when a double curve value can be used: a number ≥ 0 (or +∞) not swamped by cancellation.
inline bool DoubleIsAccurate(double value, double magnitude) {
  if (std::isnan(value) || value < 0) return false;
  if (std::isinf(value)) return true;
  return magnitude <= kMaxCancellation * value;
}

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_REAL_H_
