// Calibration of a subsampled training run with an individual Rényi filter (generalises S-BDT
// Alg. 6, which scans σ on a grid and integer α ≤ α_max): given a target (ε, δ), T rounds of a
// Poisson-subsampled (rate γ) Gaussian or leaf-balanced Gaussian, and fixed extra events (e.g. the
// Laplace initial score), solve for the smallest noise multiplier, the order α̂ and the filter
// budget ρ(α̂) = T · (worst-case per-round RDP at α̂), all certified.
#ifndef RDPKIT_ACCOUNTANT_RUN_CALIBRATION_H_
#define RDPKIT_ACCOUNTANT_RUN_CALIBRATION_H_

#include <cstdint>
#include <vector>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant {

struct TrainingRunProblem {
  double epsilon = 1.0;      // target ε, (0, inf)
  double delta = 1e-6;       // target δ, (0, 1)
  std::uint64_t rounds = 1;  // T regular rounds (trees), [1, 2^53]
  // Rounds the filter may run beyond T (S-BDT §6.6); recorded in the event as max_rounds = T +
  // extra_rounds. They spend no more than the budget, so they do not change σ.
  std::uint64_t extra_rounds = 0;
  double sampling_probability = 1.0;  // γ per round, (0, 1]; S-BDT §6.3
  // Leaf noise weights r_d (Σ = 1), S-BDT §5.2; empty = one spherical Gaussian.
  std::vector<double> leaf_noise_weights;
  // Events run once besides the rounds (e.g. {"laplace": …} for the initial score, S-BDT §6.2).
  std::vector<Event> extra_events;
  // Orders to choose α̂ from, each in (1, inf); empty = every integer 2..256, then integers 5%
  // apart up to 1e5 (integer orders keep the filter's per-record table cheap).
  std::vector<double> orders;
  void Validate() const;
};

struct TrainingRunCalibration {
  double noise_multiplier;  // σ of every round (the safe end: ε ≤ target)
  double order;             // α̂
  double round_rdp;         // worst-case RDP of one round at α̂ (certified upper bound)
  double budget;   // filter budget ρ(α̂) ≥ rounds · round_rdp (certified, rounded up)
  double epsilon;  // certified ε of extras + budget at α̂ (≤ target)
  double delta;
  Conversion conversion;
  // The complete event of the filtered run: {"composed": [{"renyi_filter": {order, budget,
  // max_rounds, round event}}, extras…]}. Epsilon(event, delta) gives back epsilon exactly.
  Event event;
};

// Throws InvalidArgument for a bad problem and UnreachableTarget when no noise meets the target
// (e.g. the extra events alone exceed it).
[[nodiscard]] TrainingRunCalibration CalibrateTrainingRun(const TrainingRunProblem& problem);

}  // namespace rdpkit::accountant

#endif  // RDPKIT_ACCOUNTANT_RUN_CALIBRATION_H_
