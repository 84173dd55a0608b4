// Drafting a schema from a CSV (rdpkit schema): names and kinds from the data, bounds left for the
// user to fill in with public values, or taken from the data behind a loud marker.
#include <algorithm>
#include <cmath>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"

namespace rdpkit::trees {
namespace {

// Whole-number columns with values in [0, kMaxDraftCode] are drafted as categorical codes.
constexpr double kMaxDraftCode = 32;

constexpr const char* kBoundsWarning =
    "WARNING: these bounds were read off the data itself. They LEAK PRIVATE INFORMATION (each "
    "feature's exact minimum and maximum) and no epsilon covers them; rdpkit train refuses this "
    "schema unless --bounds-from-data is given, and the model is then marked not private. "
    "Replace them with public bounds and delete this key.";

constexpr const char* kFillInNote =
    "Draft: replace every \"?\" with a PUBLIC value (what is known about the feature without "
    "looking at this data: its unit, its legal range, the number of its codes). Bounds taken from "
    "the data leak privacy. Values outside the bounds are clipped into them when training.";

bool LooksCategorical(const std::vector<double>& column) {
  bool any = false;
  for (double x : column) {
    if (std::isnan(x)) continue;
    if (x < 0 || x > kMaxDraftCode || x != std::floor(x)) return false;
    any = true;
  }
  return any;
}

}  // namespace

Schema DraftSchema(const std::string& csv_path, const std::string& label,
                   const std::optional<Task>& task) {
  // The data's own bounds, then the columns under them (as regression, so that any label loads).
  Schema schema = SchemaFromData(csv_path, label, Task::kRegression);
  const Dataset data = LoadCsv(csv_path, schema, {.label = label});
  bool binary_labels = !data.labels.empty();
  for (double y : data.labels) binary_labels = binary_labels && (y == 0 || y == 1);
  schema.task = task ? *task : (binary_labels ? Task::kBinary : Task::kRegression);
  for (std::size_t f = 0; f < schema.features.size(); ++f) {
    FeatureSpec& spec = schema.features[f];
    if (!LooksCategorical(data.columns[f])) continue;
    spec.categorical = true;
    double largest = 0;
    for (double x : data.columns[f]) {
      if (!std::isnan(x)) largest = std::max(largest, x);
    }
    spec.n_codes = static_cast<int>(largest) + 1;
    spec.min = 0;
    spec.max = largest;
  }
  if (schema.task == Task::kRegression && !data.labels.empty()) {
    const auto [lo, hi] = std::minmax_element(data.labels.begin(), data.labels.end());
    // A constant label gets a unit-wide range, as a constant feature does.
    schema.label = LabelBounds{.min = *lo, .max = *hi > *lo ? *hi : *lo + 1};
  }
  return schema;
}

nlohmann::json SchemaDraftJson(const Schema& draft, bool with_data_bounds) {
  nlohmann::json features = nlohmann::json::array();
  for (const FeatureSpec& spec : draft.features) {
    nlohmann::json entry = {{"name", spec.name}, {"categorical", spec.categorical}};
    if (spec.categorical) {
      entry["n_codes"] = with_data_bounds ? nlohmann::json(spec.n_codes) : nlohmann::json("?");
    } else if (with_data_bounds) {
      entry["min"] = spec.min;
      entry["max"] = spec.max;
    } else {
      entry["min"] = "?";
      entry["max"] = "?";
    }
    features.push_back(std::move(entry));
  }
  nlohmann::json out = {{"task", TaskName(draft.task)}, {"features", std::move(features)}};
  if (draft.task == Task::kRegression) {
    out["label"] = with_data_bounds && draft.label
                       ? nlohmann::json{{"min", draft.label->min}, {"max", draft.label->max}}
                       : nlohmann::json{{"min", "?"}, {"max", "?"}};
  }
  if (with_data_bounds) {
    out["bounds_from_data"] = kBoundsWarning;
  } else {
    out["note"] = kFillInNote;
  }
  return out;
}

}  // namespace rdpkit::trees
