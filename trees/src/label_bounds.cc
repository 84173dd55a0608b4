#include "label_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "statistics.h"

namespace rdpkit::trees::internal {
namespace {

double RequireBound(const nlohmann::json& label, const char* key) {
  const std::string field = std::string("label.") + key;
  const auto it = label.find(key);
  if (it == label.end()) {
    throw InvalidArgument(field, "missing (label bounds need both \"min\" and \"max\")");
  }
  if (it->is_string() && it->get<std::string>() == "?") {
    throw InvalidArgument(field, "\"?\"",
                          "the finite numbers: a public bound of the label, known without looking "
                          "at the data (fill in the drafted schema)");
  }
  if (!it->is_number() || !std::isfinite(it->get<double>())) {
    throw InvalidArgument(field, it->dump(), "the finite numbers");
  }
  return it->get<double>();
}

}  // namespace

std::optional<LabelBounds> ParseLabelBounds(const nlohmann::json& schema_json, Task task) {
  const auto label = schema_json.find("label");
  if (label == schema_json.end()) return std::nullopt;
  if (task != Task::kRegression) {
    throw InvalidArgument("label", "label bounds are for regression schemas (task \"" +
                                       TaskName(task) + "\" fixes its labels)");
  }
  if (!label->is_object()) {
    throw InvalidArgument("label", label->dump().substr(0, 80), "an object {\"min\", \"max\"}");
  }
  for (const auto& [key, value] : label->items()) {
    if (key != "min" && key != "max") {
      throw InvalidArgument("label." + key, "unknown key (accepted: min, max)");
    }
  }
  LabelBounds bounds{.min = RequireBound(*label, "min"), .max = RequireBound(*label, "max")};
  if (!(bounds.min < bounds.max)) {
    throw InvalidArgument("label.max", FormatNumber(bounds.max),
                          "(min, inf) with min = " + FormatNumber(bounds.min));
  }
  if (!std::isfinite(bounds.max - bounds.min)) {
    throw InvalidArgument("label.min/max",
                          "[" + FormatNumber(bounds.min) + ", " + FormatNumber(bounds.max) +
                              "] (width max − min overflows)",
                          "bounds of finite width");
  }
  // TrainingLabels scales by the half-width max/2 − min/2: below the smallest normal double it is
  // 0 or a subnormal of a bit or two, and the scaled labels and the model lose the bounds' meaning
  // ([0, 5e-324] trained a model predicting 1).
  if (bounds.max / 2 - bounds.min / 2 < std::numeric_limits<double>::min()) {
    throw InvalidArgument(
        "label.min/max",
        "[" + FormatNumber(bounds.min) + ", " + FormatNumber(bounds.max) + "] (width below " +
            FormatNumber(2 * std::numeric_limits<double>::min()) + ")",
        "bounds at least " + FormatNumber(2 * std::numeric_limits<double>::min()) + " apart");
  }
  return bounds;
}

TrainingLabels::TrainingLabels(const std::vector<double>& labels,
                               const std::optional<LabelBounds>& bounds)
    : labels_(labels) {
  if (!bounds) return;
  // Written as a/2 + b/2 and b/2 − a/2 so that neither overflows for bounds near ±DBL_MAX.
  mid_ = bounds->min / 2 + bounds->max / 2;
  half_ = bounds->max / 2 - bounds->min / 2;
  scaled_.resize(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double y = labels[i];
    clipped_ += (y < bounds->min || y > bounds->max) ? 1 : 0;
    scaled_[i] = std::clamp((y - mid_) / half_, -1.0, 1.0);
  }
}

namespace {

// The largest |prediction margin| a model can give: |base score| plus each tree's largest |leaf|
// (long double, whose exponent range holds any sum of doubles here).
long double LargestMargin(const Model& model) {
  long double largest = std::fabs(static_cast<long double>(model.base_score));
  for (const Tree& tree : model.trees) {
    long double tree_largest = 0;
    for (const Node& node : tree.nodes) {
      if (node.is_leaf())
        tree_largest = std::max(tree_largest, std::fabs(static_cast<long double>(node.value)));
    }
    largest += tree_largest;
  }
  return largest;
}

}  // namespace

void TrainingLabels::ToLabelUnits(Model& model) const {
  if (scaled()) {
    model.base_score = mid_ + half_ * model.base_score;
    for (Tree& tree : model.trees) {
      for (Node& node : tree.nodes) {
        if (node.is_leaf()) node.value *= half_;
      }
    }
  }
  // A value or a prediction beyond the doubles would be written as null and refused by every
  // reader of the model: the run is refused instead, naming what to change (post-processing of
  // the released values, so the refusal costs no privacy).
  static_assert(std::numeric_limits<long double>::max_exponent >
                std::numeric_limits<double>::max_exponent + 32);
  const long double largest = LargestMargin(model);
  if (std::isfinite(largest) && largest <= std::numeric_limits<double>::max()) return;
  const std::string what =
      "the trained model's predictions could overflow the doubles (its base score and largest "
      "leaves add up to more than " +
      FormatNumber(std::numeric_limits<double>::max()) + ")";
  if (scaled()) {
    throw InvalidArgument("label.min/label.max",
                          what + " in label units, half the label range being " +
                              FormatNumber(half_) + ": give narrower public label bounds");
  }
  throw InvalidArgument("model", what + ": bound the leaves with max_leaf_value");
}

const std::uint8_t* CheckLabels(const Dataset& data, bool binary, std::vector<std::uint8_t>& own) {
  const std::size_t n = data.n_rows();
  if (data.n_labels() != n) {
    throw InvalidArgument("data.labels", "training needs one label per row");
  }
  if (data.labels.empty()) return data.binned->binary_labels.data();  // 0/1 by construction
  if (binary) own.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double y = data.labels[i];
    if (!std::isfinite(y) || (binary && y != 0 && y != 1)) {
      throw InvalidArgument("data.labels[" + std::to_string(i) + "]", FormatNumber(y),
                            binary ? "{0, 1}" : "finite numbers");
    }
    if (binary) own[i] = y != 0 ? 1 : 0;
  }
  return binary ? own.data() : nullptr;
}

InitialScoreRelease PrivateInitialScore(const std::vector<double>& labels,
                                        const std::uint8_t* binary_labels, std::size_t n,
                                        double clip, QueryPlan& plan) {
  const bool binary = binary_labels != nullptr;
  // An exact sum (statistics.h): a rounded double sum could move by more than the clip, the
  // Laplace release's L1 sensitivity, when one record is added or removed.
  const double bound = binary ? std::min(clip, 1.0) : clip;
  const FixedPoint fixed(bound);
  std::int64_t exact = 0;
  if (binary) {
    std::int64_t ones = 0;
    for (std::size_t i = 0; i < n; ++i) ones += binary_labels[i];
    exact = ones * fixed.ToFixed(bound);  // Σ clamp(y, 0, clip), y ∈ {0, 1}
  } else {
    for (double y : labels) exact += fixed.ToFixed(std::clamp(y, -clip, clip));
  }
  const double sum = fixed.ToDouble(exact);
  const auto [noisy_count, noisy_sum] = plan.ReleaseInitialScore(static_cast<double>(n), sum);
  const double mean = noisy_sum / std::max(noisy_count, 1.0);
  if (!binary) return {std::clamp(mean, -clip, clip), noisy_count, noisy_sum};
  const double p = std::clamp(mean / std::min(clip, 1.0), 1e-3, 1 - 1e-3);
  return {std::log(p / (1 - p)), noisy_count, noisy_sum};  // S-BDT Alg. 3 line 9: logit
}

double AdaptedGradientClip(const InitialScoreRelease& release, double label_clip,
                           std::pair<double, double> noise_scales, double gradient_clip) {
  const double count = std::max(release.noisy_count, 1.0);
  const double mean = std::clamp(release.noisy_sum / count, -label_clip, label_clip);
  const auto [count_scale, sum_scale] = noise_scales;
  // Laplace(b) has variance 2b²; m̃ = S̃/ñ to first order (the delta method).
  const double noise_sd =
      std::sqrt(2 * (sum_scale * sum_scale + mean * mean * count_scale * count_scale)) / count;
  // Markov on y + m* ≥ 0 (or m* − y): with mean distance d from the nearer clip, at most a third
  // of the labels lie beyond 3d from it, so residuals from the mean stay within 2d for two thirds
  // or more of the rows. 2·d̂ is taken as it is (a too large g* costs as much as a too small one),
  // and never below sd(m̃), where the release cannot tell the mean from the bound
  // (docs/trees_training.md, "Adapted gradient clip").
  const double distance = label_clip - std::abs(mean);
  return std::min(gradient_clip, std::max(2 * distance, noise_sd));
}

double ReleaseInitialScore(const std::vector<double>& labels, const std::uint8_t* binary_labels,
                           std::size_t n, TrainerConfig& config, QueryPlan& plan) {
  const TrainerConfig::InitialScore& initial = *config.initial_score;
  const InitialScoreRelease release =
      PrivateInitialScore(labels, binary_labels, n, initial.label_clip, plan);
  if (initial.adapt_gradient_clip) {
    // Post-processing of the release; the plan checks that the event stays the same.
    config.gradient_clip = AdaptedGradientClip(
        release, initial.label_clip, plan.InitialScoreNoiseScales(), config.gradient_clip);
    plan.AdaptGradientClip(config.gradient_clip);
  }
  return release.score;
}

std::optional<double> AdaptedClipOf(const TrainerConfig& config) {
  if (!config.initial_score || !config.initial_score->adapt_gradient_clip) return std::nullopt;
  return config.gradient_clip;
}

void RequireLabelBoundsToAdaptClip(const TrainerConfig& config, const Schema& schema) {
  if (!AdaptedClipOf(config) || schema.label) return;
  // The rule bounds residuals of labels that lie within the clipped range (scaled, [−1, 1]).
  throw InvalidArgument("initial_score.adapt_gradient_clip",
                        "= true needs public label bounds in the schema (\"label\": {\"min\": "
                        "..., \"max\": ...}); give them or leave the key out");
}

}  // namespace rdpkit::trees::internal
