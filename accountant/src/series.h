// One iteration cap and one non-convergence error for every series loop of the accountant, after
// Boost.Math's sum_series + check_series_iterations (boost/math/tools/series.hpp,
// boost/math/policies/error_handling.hpp): a loop that has not met its stopping test within
// kMaxSeriesIterations terms throws NumericalError naming the series; it never returns a partial
// sum as if it had converged.
#ifndef RDPKIT_ACCOUNTANT_SRC_SERIES_H_
#define RDPKIT_ACCOUNTANT_SRC_SERIES_H_

#include <string>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant::internal {

// 2^16 terms: every series here meets its stopping test within a few hundred terms (the erfc
// series for x ≤ 5, the binomial series of (1−q)^α at αq < 1/2, the continued fraction for x > 5),
// so the cap is reached only by a defect, never by a hard but valid input.
inline constexpr long kMaxSeriesIterations = 1L << 16;

// Throws when `iterations` terms of `series` have been used up without convergence.
inline void CheckSeriesIterations(const char* series, long iterations) {
  if (iterations >= kMaxSeriesIterations) {
    throw NumericalError(std::string(series) + " did not converge within " +
                         std::to_string(kMaxSeriesIterations) + " terms");
  }
}

// Σ_{k≥first} next(k) until converged(term, sum) holds after adding a term (Boost.Math's
// sum_series with the stopping test as a functor). Throws NumericalError naming `series` after
// kMaxSeriesIterations terms.
template <class Real, class Next, class Converged>
Real SumSeries(const char* series, long first, Real sum, const Next& next,
               const Converged& converged) {
  for (long k = first;; ++k) {
    CheckSeriesIterations(series, k - first);
    const Real term = next(k);
    sum += term;
    if (converged(term, sum)) return sum;
  }
}

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_SERIES_H_
