#include "label_bounds.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "rdpkit/accountant/errors.h"

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
  return bounds;
}

LabelScale::LabelScale(const std::optional<LabelBounds>& bounds) {
  if (!bounds) return;
  bounds_ = *bounds;
  // Written as a/2 + b/2 and b/2 − a/2 so that neither overflows for bounds near ±DBL_MAX.
  mid_ = bounds->min / 2 + bounds->max / 2;
  half_ = bounds->max / 2 - bounds->min / 2;
}

std::vector<double> LabelScale::Scaled(const std::vector<double>& labels,
                                       std::size_t* clipped) const {
  std::vector<double> out(labels);
  if (!active()) return out;
  std::size_t outside = 0;
  for (double& y : out) {
    outside += (y < bounds_.min || y > bounds_.max) ? 1 : 0;
    y = std::clamp((y - mid_) / half_, -1.0, 1.0);
  }
  if (clipped != nullptr) *clipped = outside;
  return out;
}

void LabelScale::ToLabelUnits(Model& model) const {
  if (!active()) return;
  model.base_score = mid_ + half_ * model.base_score;
  for (Tree& tree : model.trees) {
    for (Node& node : tree.nodes) {
      if (node.is_leaf()) node.value *= half_;
    }
  }
}

}  // namespace rdpkit::trees::internal
