// Leaf values and split gains as free functions of the released (noisy) sums, in the manner of
// XGBoost's CalcWeight / CalcGain. Post-processing: they read only released values and public
// settings.
#ifndef RDPKIT_TREES_SRC_LEAF_VALUE_H_
#define RDPKIT_TREES_SRC_LEAF_VALUE_H_

#include "rdpkit/trees/config.h"
#include "statistics.h"

namespace rdpkit::trees::internal {

struct LeafParams {
  LeafUpdate leaf_update = LeafUpdate::kNewton;
  bool binary = true;
  double reg_lambda = 1;     // λ
  double hessian_floor = 0;  // c·s_H (noisy_hessian_floor × the Hessian noise sd), 0 without noise
  double max_leaf_value = 2;  // β
  // negative_hessian_leaf "zero": a Newton/gradient leaf with H̃ < 0 is 0 (S-BDT's code).
  bool zero_negative_hessian = false;
  double learning_rate = 0.3;  // η
};

// max(H̃, c·s_H) + λ, the denominator of leaf values and gains (noisy_hessian_floor,
// docs/trees_training.md §4).
double NoisyDenominator(const Pair& sums, const LeafParams& params);

// G²/(H + λ) (Maddock Eq. 5), with the noisy H̃ kept ≥ c·s_H ≥ 0 (Revisiting DP-XGBoost Eq. 3 for
// c = 0); 0 when the denominator is not positive (λ = 0: it carries no information).
double NodeScore(const Pair& sums, const LeafParams& params);

// The value of a leaf with (noisy) sums, in a batch of `batch` trees: Maddock §4.4.1 (averaging),
// §4.4.2–4.4.3 (gradient, Newton: −η·clip(G̃/(max(H̃, c·s_H) + λ), β)), §5.2 (batch average);
// with zero_negative_hessian a Newton/gradient leaf whose H̃ < 0 is 0 (S-BDT's code).
double LeafValue(const Pair& sums, const LeafParams& params, int batch);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_LEAF_VALUE_H_
