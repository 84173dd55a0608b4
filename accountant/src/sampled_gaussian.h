// The sampled Gaussian mechanism at fractional orders: the Mironov–Talwar–Zhang series
// (docs/math/subsampling.md §3), fast (double) and certified (MPFI).
#ifndef RDPKIT_ACCOUNTANT_SRC_SAMPLED_GAUSSIAN_H_
#define RDPKIT_ACCOUNTANT_SRC_SAMPLED_GAUSSIAN_H_

#include <limits>

namespace rdpkit::accountant::internal {

enum class SeriesStatus { kOk, kInaccurate, kTooManyTerms };

struct FractionalFast {
  SeriesStatus status = SeriesStatus::kTooManyTerms;
  long terms = 0;  // N: terms 0..N−1 are summed, the tail from N is Euler-transformed
  double rho = std::numeric_limits<double>::quiet_NaN();
};

// Fast path (§3.3): ρ(α) of a Poisson sample (rate q) of the Gaussian mechanism with curve c·α.
// kOk: rho is good to 1e-10 relative; kInaccurate: the double sum lost digits to cancellation
// (rho is an estimate, terms says where the certified series starts); kTooManyTerms: the series
// needs more terms than the plan allows, or α or the exponents are out of its range (§4 applies).
FractionalFast SgmFractionalFast(double q, double c, double alpha);

// Certified value from the fast plan: an enclosure of ρ(α) in *rho, true when it is tight enough
// to use (see sampled_gaussian.cc); false: use the convexity bound (§4). Instantiated for Interval
// and WideInterval.
template <class I>
bool SgmFractionalCertified(double q, const I& c, double alpha, const FractionalFast& plan, I* rho);

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_SAMPLED_GAUSSIAN_H_
