// Special-function enclosures shared by the subsampled curves (docs/math/subsampling.md): each
// helper has a double overload (fast path) and an MPFI interval one (certified path) that encloses
// the true value over its whole interval argument. No Boost.Math special function is used on the
// certified path: lngamma is MPFR's correctly rounded one, erfc a series or continued fraction of
// MPFI operations.
#ifndef RDPKIT_ACCOUNTANT_SRC_ENCLOSURES_H_
#define RDPKIT_ACCOUNTANT_SRC_ENCLOSURES_H_

#include <mpfi.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "real.h"
#include "series.h"

namespace rdpkit::accountant::internal {

template <class I>
mpfr_prec_t PrecisionOf() {
  const I x(0);
  return mpfi_get_prec(x.backend().data());
}

template <class I>
I FromEndpoints(mpfr_srcptr lo, mpfr_srcptr hi) {
  I out;
  mpfi_interv_fr(out.backend().data(), lo, hi);
  return out;
}

// min(a, b); for intervals endpoint-wise (encloses min(x, y) for x ∈ a, y ∈ b).
inline double Smaller(double a, double b) { return std::min(a, b); }
template <class I>
I Smaller(const I& a, const I& b) {
  return Min(a, b);
}

// Relative diameter of an interval (rounded up), at the interval's own precision.
template <class I>
double RelativeWidth(const I& x) {
  mpfr_t d;
  mpfr_init2(d, 64);
  mpfi_diam_rel(d, x.backend().data());
  const double out = mpfr_get_d(d, MPFR_RNDU);
  mpfr_clear(d);
  return std::abs(out);
}

// [min(0, t), max(0, t)]: a remainder known to lie between 0 and t.
inline double ZeroHull(double t) { return t; }
template <class I>
I ZeroHull(const I& t) {
  return Hull(Smaller(I(0), t), Max(I(0), t));
}

// log Γ(n) for an exact double n > 0. MPFR's lngamma is correctly rounded, so rounding the two
// ends down and up encloses the true value (no Boost.Math special function is involved).
inline double LogGamma(double n) {
  int sign = 0;
  return lgamma_r(n, &sign);
}
template <class I>
I LogGammaEnclosure(double n) {
  const mpfr_prec_t prec = PrecisionOf<I>();
  mpfr_t x, lo, hi;
  mpfr_init2(x, 64);
  mpfr_init2(lo, prec);
  mpfr_init2(hi, prec);
  mpfr_set_d(x, n, MPFR_RNDN);  // exact: n is a double
  mpfr_lngamma(lo, x, MPFR_RNDD);
  mpfr_lngamma(hi, x, MPFR_RNDU);
  I out = FromEndpoints<I>(lo, hi);
  mpfr_clear(x);
  mpfr_clear(lo);
  mpfr_clear(hi);
  return out;
}

// log C(m, k) for integers 0 ≤ k ≤ m.
template <class Real>
Real LogBinomial(long m, long k) {
  const double md = static_cast<double>(m);
  const double kd = static_cast<double>(k);
  if constexpr (kIsInterval<Real>) {
    return LogGammaEnclosure<Real>(md + 1) - LogGammaEnclosure<Real>(kd + 1) -
           LogGammaEnclosure<Real>(md - kd + 1);
  } else {
    return LogGamma(md + 1) - LogGamma(kd + 1) - LogGamma(md - kd + 1);
  }
}

// log(e^x − 1) for x ≥ 0 (−inf at 0) in the Zhu–Wang sums, where x reaches c·α² ≈ 1e10. Intervals
// use LogExpm1 of real.h. The double overload is LogExpm1 but for x = 1 exactly, which it takes
// through log(expm1(1)) (LogExpm1 through the factored form): the two may differ in the last bit
// and the integer-order values are kept as they were.
inline double LogExpm1Stable(double x) {
  return x > 1 ? x + std::log1p(-std::exp(-x)) : std::log(std::expm1(x));
}
template <class I>
I LogExpm1Stable(const I& x) {
  return LogExpm1(x);
}

// log(1 + e^y) without overflow.
template <class Real>
Real Softplus(const Real& y) {
  using std::exp;
  using std::log1p;
  if (LowerDouble(y) > 0) return y + log1p(exp(-y));
  return log1p(exp(y));
}

// log erfc(x). Double: erfc itself below 26, beyond the asymptotic series (A&S 7.1.23, five
// terms; relative error < 1e-13 for x ≥ 26) because erfc underflows there.
inline double LogErfc(double x) {
  if (x < 26) return std::log(std::erfc(x));
  const double inv = 1 / (x * x);
  return -x * x - std::log(x) - 0.5 * std::log(M_PI) +
         std::log1p(inv * (-0.5 + inv * (0.75 + inv * (-1.875 + inv * 6.5625))));
}
// Interval erfc without Boost.Math or MPFR's erfc (whose cost explodes near x = 10): for
// 0 ≤ x ≤ 5, erfc = 1 − (2/√π)e^{−x²}Σ_n 2^n x^{2n+1}/(2n+1)!! (A&S 7.1.6, positive terms; once
// n > x² the ratio 2x²/(2n+3) < 1 bounds the remainder geometrically); for x > 5 the continued
// fraction erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))) (A&S 7.1.14), whose
// successive approximants bracket the value (positive partial numerators), deepened until two
// agree; x < 0 uses erfc(x) = 2 − erfc(−x). Every step is an MPFI operation on the whole interval
// x, so the result encloses erfc over x.
template <class I>
I ErfcEnclosure(const I& x) {
  using std::atan;
  using std::exp;
  using std::sqrt;
  if (UpperDouble(x) < 0) return 2 - ErfcEnclosure(I(-x));
  if (LowerDouble(x) < 0) {
    // Straddles 0: erfc is decreasing, enclose the two ends separately.
    const I lo = ErfcEnclosure(I(UpperDouble(x)));
    return Hull(lo, 2 - ErfcEnclosure(I(-LowerDouble(x))));
  }
  const I sqrt_pi = sqrt(4 * atan(I(1)));
  if (UpperDouble(x) < 1e-100) {
    // erf(x) = (2/√π)(x − x³/3 + x⁵/10 − …), alternating with decreasing terms for x < 1, so it
    // lies in (2/√π)[x − x³/3, x] (A&S 7.1.5). The series below would need a sum above the
    // smallest double to stop.
    return 1 - 2 / sqrt_pi * Hull(I(x - x * x * x / 3), x);
  }
  // Target relative accuracy: 30 bits short of the working precision.
  const double precision = std::ldexp(1.0, -static_cast<int>(PrecisionOf<I>()) + 30);
  const I x2 = x * x;
  if (UpperDouble(x) <= 5) {
    I term = x;
    I sum = x;
    const double x2_hi = UpperDouble(x2);
    for (int n = 1;; ++n) {
      CheckSeriesIterations("erfc series (A&S 7.1.6)", n);
      term = term * (2 * x2) / (2 * n + 1);
      sum += term;
      const double ratio = 2 * x2_hi / (2 * n + 3);
      if (n > x2_hi && ratio < 0.5 && UpperDouble(term) <= precision * LowerDouble(sum)) {
        // Remainder ≤ term·r/(1−r) with r the ratio bound of the following terms.
        const I remainder = term * ratio / (1 - ratio);
        const I erf = 2 / sqrt_pi * exp(-x2) * Hull(sum, sum + remainder);
        return 1 - erf;
      }
    }
  }
  double previous_width = std::numeric_limits<double>::infinity();
  for (int depth = 16;; depth *= 2) {
    CheckSeriesIterations("erfc continued fraction (A&S 7.1.14)", depth);
    I f1 = x;
    for (int k = depth; k >= 1; --k) f1 = x + I(k / 2.0) / f1;
    I f2 = x;
    for (int k = depth + 1; k >= 1; --k) f2 = x + I(k / 2.0) / f2;
    const I a = 1 / f1;
    const I b = 1 / f2;
    const I both = Hull(Smaller(a, b), Max(a, b));
    // Done when precise enough, or when the width no longer shrinks (it is then the width
    // inherited from x; the hull of two approximants encloses the value either way).
    const double width = RelativeWidth(both);
    if (width <= precision || width >= previous_width / 2) return exp(-x2) / sqrt_pi * both;
    previous_width = width;
  }
}

// Interval log erfc. Above 26000 erfc would underflow MPFR's exponent range; there the bounds
// (2/√π)e^{−x²}/(x+√(x²+2)) < erfc(x) ≤ (2/√π)e^{−x²}/(x+√(x²+4/π)) (A&S 7.1.13) are used; their
// ratio is 1 + O(1/x²) < 1 + 3e-10.
template <class I>
I LogErfc(const I& x) {
  using std::atan;
  using std::log;
  using std::sqrt;
  if (LowerDouble(x) > 26000) {
    const I pi = 4 * atan(I(1));
    const I log_c = log(I(2)) - log(pi) / 2;
    const I x2 = x * x;
    const I lower = log_c - x2 - log(x + sqrt(x2 + 2));
    const I upper = log_c - x2 - log(x + sqrt(x2 + 4 / pi));
    return Hull(lower, upper);
  }
  return log(ErfcEnclosure(x));
}

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_ENCLOSURES_H_
