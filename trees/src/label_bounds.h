// Public label bounds of a regression schema ({"label": {"min": a, "max": b}}, DESIGN.md §4) and
// the label scale that follows from them: the trainer boosts on y' = (y − mid)/half, clipped to
// [−1, 1] (mid = (a + b)/2, half = (b − a)/2), so gradient_clip, max_leaf_value and
// initial_score.label_clip are in units of half the label range, and the model's leaf values and
// base score are mapped back to label units at the end (docs/trees_training.md, "Regression").
#ifndef RDPKIT_TREES_SRC_LABEL_BOUNDS_H_
#define RDPKIT_TREES_SRC_LABEL_BOUNDS_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "query_plan.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"

namespace rdpkit::trees::internal {

// The schema's "label" object: absent → nullopt. A "?" (drafted schema), a non-number, non-finite
// bounds, min ≥ max, a width that overflows or is below 2·DBL_MIN → InvalidArgument naming
// "label.min"/"label.max";
// label bounds on a binary schema → InvalidArgument naming "label".
std::optional<LabelBounds> ParseLabelBounds(const nlohmann::json& schema_json, Task task);

// The labels the trainer boosts on: the data's labels as they are, or (a regression schema with
// label bounds) y ↦ (y − mid)/half clipped to [−1, 1]; maps the finished model back.
class TrainingLabels {
 public:
  // labels must outlive this object.
  TrainingLabels(const std::vector<double>& labels, const std::optional<LabelBounds>& bounds);

  const std::vector<double>& values() const { return scaled() ? scaled_ : labels_; }
  bool scaled() const { return half_ > 0; }
  // How many labels lay outside the bounds (clipped); 0 when not scaled.
  std::size_t clipped() const { return clipped_; }
  // Maps a model trained on scaled labels back to label units: F = mid + half·F', i.e. the base
  // score becomes mid + half·base' and every leaf value half·value (exact post-processing). Then,
  // scaled or not, refuses a model whose predictions could overflow the doubles (InvalidArgument
  // naming "label.min/label.max" when scaled, else "model").
  void ToLabelUnits(Model& model) const;

 private:
  const std::vector<double>& labels_;
  std::vector<double> scaled_;
  std::size_t clipped_ = 0;
  double mid_ = 0;
  double half_ = 0;  // 0: not scaled
};

// Checks the data's labels: one per row, finite, 0 or 1 for a binary objective (else
// InvalidArgument naming "data.labels" or "data.labels[i]"). Returns a binary objective's labels
// as 0/1 bytes, n_rows of them: the data's own (LoadCsvBinned) or, filled, own; else null.
const std::uint8_t* CheckLabels(const Dataset& data, bool binary, std::vector<std::uint8_t>& own);

// S-BDT §6.2 / Alg. 3: the DP initial score, the mean of the labels clipped to [0, clip] (binary)
// or [−clip, clip], from the plan's noisy count and noisy sum (two Laplace releases, each with half
// of the initial-score budget); binary: the logit of that mean.
// labels: regression labels (binary_labels null) or, with binary_labels (0/1 bytes, n of them),
// nothing.
struct InitialScoreRelease {
  double score;        // the base margin
  double noisy_count;  // ñ
  double noisy_sum;    // S̃, of the labels clipped to [−clip, clip] (binary [0, min(clip, 1)])
};
InitialScoreRelease PrivateInitialScore(const std::vector<double>& labels,
                                        const std::uint8_t* binary_labels, std::size_t n,
                                        double clip, QueryPlan& plan);

// The run's initial score (config.initial_score given): PrivateInitialScore and, with
// adapt_gradient_clip, config.gradient_clip and the plan's mechanisms set to AdaptedGradientClip.
double ReleaseInitialScore(const std::vector<double>& labels, const std::uint8_t* binary_labels,
                           std::size_t n, TrainerConfig& config, QueryPlan& plan);
// The adapted g* of a config with adapt_gradient_clip (after ReleaseInitialScore), else nullopt.
std::optional<double> AdaptedClipOf(const TrainerConfig& config);
// InvalidArgument naming initial_score.adapt_gradient_clip where it is set without label bounds.
void RequireLabelBoundsToAdaptClip(const TrainerConfig& config, const Schema& schema);

// initial_score.adapt_gradient_clip (docs/trees_training.md, "Adapted gradient clip"): for
// regression labels clipped to [−m*, m*], min(g*, max(2·d̂, sd(m̃))) with d̂ = max(0, m* − |m̃|),
// m̃ = S̃/max(ñ, 1) and sd(m̃) = √2·√(b_S² + m̃²·b_n²)/max(ñ, 1) from the Laplace scales
// (b_n, b_S). Post-processing of the release.
double AdaptedGradientClip(const InitialScoreRelease& release, double label_clip,
                           std::pair<double, double> noise_scales, double gradient_clip);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_LABEL_BOUNDS_H_
