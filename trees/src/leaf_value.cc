#include "leaf_value.h"

#include <algorithm>
#include <cmath>

namespace rdpkit::trees::internal {
namespace {

double Clamp(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }

}  // namespace

double NoisyDenominator(const Pair& sums, const LeafParams& params) {
  return std::max(sums.b, params.hessian_floor) + params.reg_lambda;  // max(H̃, c·s_H) + λ
}

double NodeScore(const Pair& sums, const LeafParams& params) {
  const double den = NoisyDenominator(sums, params);
  if (!(den > 0)) return 0;
  return sums.a * sums.a / den;  // G²/(H + λ), Maddock Eq. 5
}

double LeafValue(const Pair& sums, const LeafParams& params, int batch) {
  const double beta = params.max_leaf_value;
  double v;
  if (params.leaf_update == LeafUpdate::kAveraging) {
    // Maddock §4.4.1: the class proportion (mean label for regression); for binary it enters
    // the margin as log-odds, clipped to [−β, β].
    if (params.binary) {
      double q = sums.b > 0 ? Clamp(sums.a / sums.b, 0, 1) : 0.5;
      q = Clamp(q, 1e-12, 1 - 1e-12);
      v = Clamp(std::log(q / (1 - q)), -beta, beta);
    } else {
      v = sums.b > 0 ? Clamp(sums.a / sums.b, -beta, beta) : 0;
    }
    return v / batch;  // averaged over the batch (B = T: a random forest), no learning rate
  }
  // Maddock §4.4.3: −η·clip(G̃/(H̃ + λ), β), H̃ kept ≥ c·s_H as in NodeScore; the batch average
  // of §5.2 divides by the batch size. negative_hessian_leaf "zero": H̃ < 0 → 0, as S-BDT's code
  // (kirschte/sbdt) does.
  if (params.zero_negative_hessian && sums.b < 0) return 0;
  const double den = NoisyDenominator(sums, params);
  if (!(den > 0)) return 0;
  v = Clamp(-sums.a / den, -beta, beta);
  return params.learning_rate * v / batch;
}

}  // namespace rdpkit::trees::internal
