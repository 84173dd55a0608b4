// The certified path's precision ladder (STYLE.md §5, DESIGN.md §2): evaluate an enclosure at
// 133 bits (Interval), again at 332 bits (WideInterval) when it is too wide, and throw
// NumericalError when even that one is. Every certified curve value the accountant reports
// (RdpCertified, PoissonSampledRdpCertified, the individual RDP table) goes through Certify; the
// conversions (convert.cc) and the fast path's fallback (UpperByIntervals, below) climb the same
// two rungs to tighten an upper end.
#ifndef RDPKIT_ACCOUNTANT_SRC_CERTIFY_H_
#define RDPKIT_ACCOUNTANT_SRC_CERTIFY_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/errors.h"
#include "real.h"

namespace rdpkit::accountant::internal {

// The width tolerance of the ladder: a certified value is reported only from an enclosure at most
// this wide, relative. 1e-9 leaves the reported ε well inside the 1e-6 accuracy target.
inline constexpr double kCertifiedRelativeWidth = 1e-9;

// The (ε, δ) conversions (convert.cc), the fast path's interval fallback (UpperByIntervals, below)
// and the fast sampled-Gaussian fallback (subsampled.cc) climb the same ladder but never reject an
// enclosure for its width: they report an upper end, each rung's an upper bound. For them the
// width only decides whether the 332-bit retry is worth its cost, and they retry already above
// this width. It stays 1e-12, not kCertifiedRelativeWidth: a retry between the two widths can
// lower the reported ε or δ in its 10th to 12th digit, and every reported value is kept
// bit-identical to before the ladder was shared.
inline constexpr double kRetryRelativeWidth = 1e-12;

// True when [lower, upper] has no NaN end and upper − lower ≤ tolerance·max(|upper|, |lower|,
// 1e-300) (the floor keeps values near 0 from demanding an absolute width below 1e-309).
inline bool WithinRelativeWidth(double lower, double upper, double tolerance) {
  return upper - lower <= tolerance * std::max({std::abs(upper), std::abs(lower), 1e-300});
}

// An enclosure narrow enough to report: equal ends (also an exact ±∞), an infinite upper end only
// with a lower end at or above the largest double (the value lies beyond every finite double, so
// +∞ is the least double upper bound there is), otherwise WithinRelativeWidth at
// kCertifiedRelativeWidth.
inline bool CertifiedWidth(const Bound& b) {
  if (std::isnan(b.lower) || std::isnan(b.upper)) return false;
  if (b.upper == b.lower) return true;
  if (std::isinf(b.upper)) return b.lower >= std::numeric_limits<double>::max();
  return WithinRelativeWidth(b.lower, b.upper, kCertifiedRelativeWidth);
}

template <class I>
Bound BoundOf(const I& x) {
  return Bound{LowerDouble(x), UpperDouble(x)};
}

// enclose(I(0)) returns the enclosure at the precision of its argument's type (as in
// UpperByIntervals); describe() names the value for the error message.
template <class Enclose, class Describe>
Bound Certify(const Enclose& enclose, const Describe& describe) {
  const Bound narrow = BoundOf(enclose(Interval(0)));
  if (CertifiedWidth(narrow)) return narrow;
  const Bound wide = BoundOf(enclose(WideInterval(0)));
  if (CertifiedWidth(wide)) return wide;
  throw NumericalError(describe() + " is enclosed only in [" + FormatNumber(wide.lower) + ", " +
                       FormatNumber(wide.upper) +
                       "], wider than the relative precision target 1e-9");
}

// Upper end of an interval evaluation, the fast path's fallback: f(I(0)) at 133 bits, and at
// 332 bits when that enclosure is wider than kRetryRelativeWidth; the smaller upper end (each is
// an upper bound of the true value). NaN when neither evaluation gave an enclosure. Its width test
// is relative to |upper| alone (WithinRelativeWidth's floor at 1e-300 would skip retries for
// curve values below 1e-300 that it makes today).
template <class F>
double UpperByIntervals(const F& f) {
  const Interval narrow = f(Interval(0));
  const double lo = LowerDouble(narrow);
  const double hi = UpperDouble(narrow);
  if (!std::isnan(hi) && !std::isnan(lo) && hi - lo <= kRetryRelativeWidth * std::abs(hi))
    return hi;
  const double wide = UpperDouble(f(WideInterval(0)));
  if (std::isnan(hi)) return wide;
  if (std::isnan(wide)) return hi;
  return std::min(hi, wide);
}

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_CERTIFY_H_
