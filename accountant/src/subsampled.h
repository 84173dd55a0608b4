// Poisson-subsampled RDP curves (Zhu & Wang 2019; Mironov, Talwar, Zhang 2019; S-BDT Thm 14,
// Lem. 15). docs/math/subsampling.md has the derivations and the truncation bounds.
#ifndef RDPKIT_ACCOUNTANT_SRC_SUBSAMPLED_H_
#define RDPKIT_ACCOUNTANT_SRC_SUBSAMPLED_H_

#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/subsampling.h"

namespace rdpkit::accountant::internal {

// ρ(α) of the Poisson-sampled event with an explicit choice of the Zhu–Wang bound (kAuto picks
// the tightest sound one). Instantiated for double, Interval and WideInterval.
template <class Real>
Real PoissonSampledRdpWith(const PoissonSampledEvent& event, const Real& alpha,
                           SubsamplingBound bound);

// ρ(α) of a Poisson sample (rate q) of a mechanism whose curve is c·α. gaussian = true when the
// mechanism is a Gaussian mechanism (exact fractional orders); otherwise fractional orders use the
// convexity bound. Instantiated for double, Interval and WideInterval.
template <class Real>
Real SampledLinearRdp(double q, const Real& c, bool gaussian, double order);

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_SUBSAMPLED_H_
