// Public label bounds of a regression schema ({"label": {"min": a, "max": b}}, DESIGN.md §4) and
// the label scale that follows from them: the trainer boosts on y' = (y − mid)/half, clipped to
// [−1, 1] (mid = (a + b)/2, half = (b − a)/2), so gradient_clip, max_leaf_value and
// initial_score.label_clip are in units of half the label range, and the model's leaf values and
// base score are mapped back to label units at the end (docs/trees_training.md, "Regression").
#ifndef RDPKIT_TREES_SRC_LABEL_BOUNDS_H_
#define RDPKIT_TREES_SRC_LABEL_BOUNDS_H_

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"

namespace rdpkit::trees::internal {

// The schema's "label" object: absent → nullopt. A "?" (drafted schema), a non-number, non-finite
// bounds, min ≥ max or a width that overflows → InvalidArgument naming "label.min"/"label.max";
// label bounds on a binary schema → InvalidArgument naming "label".
std::optional<LabelBounds> ParseLabelBounds(const nlohmann::json& schema_json, Task task);

// y ↦ (y − mid)/half for a bounded regression label; the identity otherwise.
class LabelScale {
 public:
  explicit LabelScale(const std::optional<LabelBounds>& bounds);

  bool active() const { return half_ > 0; }
  // The training labels: scaled and clipped to [−1, 1] when active (clipped counts the labels
  // outside the bounds), a plain copy otherwise.
  std::vector<double> Scaled(const std::vector<double>& labels, std::size_t* clipped) const;
  // Maps a model trained on scaled labels back to label units: F = mid + half·F', i.e. the base
  // score becomes mid + half·base' and every leaf value half·value (exact post-processing).
  void ToLabelUnits(Model& model) const;

 private:
  LabelBounds bounds_;
  double mid_ = 0;
  double half_ = 0;  // 0: inactive
};

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_LABEL_BOUNDS_H_
