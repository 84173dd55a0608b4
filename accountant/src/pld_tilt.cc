// Exponential tilting of the factors of a composition (docs/math/pld.md §6b): it carries the FFT
// composition's absolute round-off down to δ far below it.
#include <cmath>
#include <cstdint>
#include <vector>

#include "pld_internal.h"

namespace rdpkit::accountant::internal {
namespace {
constexpr double kU = kUnitRoundoff;
}  // namespace

TiltedFactors TiltFactors(const std::vector<SparsePld>& plds,
                          const std::vector<std::uint64_t>& counts, double h, double lambda) {
  TiltedFactors out{plds, 0};
  double abs_sum = 0;
  for (std::size_t j = 0; j < plds.size(); ++j) {
    const double log_m = LogMoment(plds[j], h, lambda);
    SparsePld& pld = out.plds[j];
    for (std::size_t i = 0; i < pld.index.size(); ++i) {
      // m·e^{λl − log M(λ)} (pld.md §6b): the exponent within 2u·(|λl| + |log M|), exp within
      // 1 ulp; rounded up.
      const double product = lambda * static_cast<double>(pld.index[i]) * h;
      const double margin = 2 * kU * (std::abs(product) + std::abs(log_m)) + 4 * kU;
      pld.mass[i] *= std::exp(product - log_m + margin) * (1 + 2 * kU);
    }
    const double term = static_cast<double>(counts[j]) * log_m;
    out.log_scale += term;
    abs_sum += std::abs(term);
  }
  // C = Σ_j T_j·log M_j(λ) (pld.md eq. 6.2): the products by T and the sum within (J + 1)u of the
  // absolute terms; rounded up.
  out.log_scale += (static_cast<double>(plds.size()) + 1) * kU * abs_sum + 1e-300;
  return out;
}

double TiltFor(const std::vector<SparsePld>& plds, const std::vector<std::uint64_t>& counts,
               double h, double loss, double log_target, const std::vector<double>& lambdas) {
  double best = HUGE_VAL;
  double best_lambda = 0;
  for (const double lambda : lambdas) {
    double log_m = 0;
    for (std::size_t j = 0; j < plds.size(); ++j) {
      log_m += static_cast<double>(counts[j]) * LogMoment(plds[j], h, lambda);
    }
    // log of the scale at `loss`, C(λ) − λ·loss (pld.md eq. 6.2)
    const double exponent = log_m - lambda * loss;
    if (exponent <= log_target) return lambda;
    if (exponent < best) {
      best = exponent;
      best_lambda = lambda;
    }
  }
  return best_lambda;
}

double DirectionPld::Scale(double loss) const {
  if (tilt == 0) return 1;
  // e^{C − λl}: the exponent within 2u·(|C| + |λl|) (two roundings), exp within 1 ulp.
  const double product = tilt * loss;
  const double exponent = tilt_log_scale - product;
  const double margin = 2 * kU * (std::abs(tilt_log_scale) + std::abs(product)) + 1e-300;
  return std::exp(exponent + margin) * (1 + 2 * kU);  // +inf beyond the doubles: δ_up is then 1
}

}  // namespace rdpkit::accountant::internal
