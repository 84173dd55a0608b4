// The trainer for Python: a numpy array becomes a trees::Dataset in one pass (columns[f][row],
// clipped into the schema's bounds by the same checks as the CSV reader, data_columns.cc), and
// trees::Train runs on it exactly as `rdpkit train` does on the CSV (tools/cmd_train.cc). The
// estimators (python/rdpkit/estimators.py) build the schema and the config JSON.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "rdpkit/trees/auto_config.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"
#include "rdpkit/trees/train.h"

namespace py = pybind11;

namespace rdpkit::python {
namespace {

using DoubleArray = py::array_t<double>;  // no forcecast: the caller converts (and says so)

// X[row, f] → columns[f][row]: the one copy of the features (any strides, C or Fortran order).
std::vector<std::vector<double>> ColumnsOf(const DoubleArray& x) {
  if (x.ndim() != 2) {
    throw InvalidArgument("X", std::to_string(x.ndim()) + "-dimensional", "2-dimensional arrays");
  }
  const auto view = x.unchecked<2>();
  const auto n_rows = static_cast<std::size_t>(view.shape(0));
  const auto n_features = static_cast<std::size_t>(view.shape(1));
  std::vector<std::vector<double>> columns(n_features, std::vector<double>(n_rows));
  py::gil_scoped_release release;
  for (std::size_t f = 0; f < n_features; ++f) {
    double* column = columns[f].data();
    const auto feature = static_cast<py::ssize_t>(f);
    for (std::size_t row = 0; row < n_rows; ++row) {
      column[row] = view(static_cast<py::ssize_t>(row), feature);
    }
  }
  return columns;
}

std::vector<double> LabelsOf(const DoubleArray& y) {
  if (y.ndim() != 1) {
    throw InvalidArgument("y", std::to_string(y.ndim()) + "-dimensional", "1-dimensional arrays");
  }
  const auto view = y.unchecked<1>();
  std::vector<double> labels(static_cast<std::size_t>(view.shape(0)));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = view(static_cast<py::ssize_t>(i));
  return labels;
}

// The schema of a fit: schema_json as it is when it lists "features" (public bounds); without
// "features" the bounds are read off the columns (bounds_from_data: the model is marked not
// private, as with --bounds-from-data) and its other keys ("label", "n_classes", "classes") are
// kept, so public label bounds and classes are not lost with the feature bounds.
trees::Schema SchemaOfFit(const nlohmann::json& schema_json,
                          const std::vector<std::string>& feature_names,
                          const std::vector<std::vector<double>>& columns, trees::Task task) {
  if (schema_json.contains("features")) return trees::Schema::FromJson(schema_json);
  // Read as regression, whose schema needs no other key (a multiclass one needs n_classes); the
  // task and the keys of schema_json replace its own.
  nlohmann::json json =
      trees::SchemaFromColumns(feature_names, columns, trees::Task::kRegression).ToJson();
  json["task"] = trees::TaskName(task);
  for (const auto& item : schema_json.items()) json[item.key()] = item.value();
  trees::Schema schema = trees::Schema::FromJson(json);
  schema.bounds_from_data = true;
  return schema;
}

// A private run whose classes were read off y (no public list): which classes occur is released
// with the model (n_classes, the class trees) and no ε covers it, so the model is marked not
// private as a run with bounds from the data is (DESIGN.md §4, §6; training_report.cc).
void MarkClassesFromData(nlohmann::json& privacy) {
  if (privacy.value("private", true) == false) {
    privacy["classes_from_data"] = true;
    return;
  }
  nlohmann::json block = {
      {"private", false},
      {"reason",
       "the classes were read off the training labels (no public list of classes was given): "
       "which classes occur is released with the model and no epsilon covers it"},
      {"classes_from_data", true}};
  if (privacy.contains("event")) block["noise_event"] = privacy["event"];
  if (privacy.contains("epsilon")) block["noise_epsilon"] = privacy["epsilon"];
  if (privacy.contains("delta")) block["delta"] = privacy["delta"];
  privacy = std::move(block);
}

// Trains on X, y as `rdpkit train` does on the same values: schema_text is the schema JSON
// (SchemaOfFit); config_text is the trainer config JSON; classes_from_data says that the class
// list was read off y (MarkClassesFromData).
trees::Model TrainArrays(const DoubleArray& x, const DoubleArray& y,
                         const std::vector<std::string>& feature_names,
                         const std::string& schema_text, const std::string& config_text,
                         bool classes_from_data) {
  const nlohmann::json config_json = ParseJson(config_text, "config", "JSON text");
  const trees::TrainerConfig given = trees::GivenConfig(config_json);
  const trees::Task task = trees::TaskOfObjective(given.objective);
  std::vector<std::vector<double>> columns = ColumnsOf(x);
  if (feature_names.size() != columns.size()) {
    throw InvalidArgument("feature_names", std::to_string(feature_names.size()) + " names",
                          "one per column of X (" + std::to_string(columns.size()) + ")");
  }
  trees::Schema schema =
      SchemaOfFit(ParseJson(schema_text, "schema", "JSON text"), feature_names, columns, task);
  if (schema.task != task) {
    throw InvalidArgument("objective", "\"" + trees::ToString(given.objective) +
                                           "\" does not fit the schema's task \"" +
                                           trees::TaskName(schema.task) + "\"");
  }
  for (std::size_t f = 0; f < schema.features.size() && f < feature_names.size(); ++f) {
    if (schema.features[f].name != feature_names[f]) {
      throw InvalidArgument("feature_names", "\"" + feature_names[f] + "\" at position " +
                                                 std::to_string(f) + " is \"" +
                                                 schema.features[f].name + "\" in the schema");
    }
  }
  const trees::Dataset data =
      trees::DatasetFromColumns(schema, std::move(columns), LabelsOf(y), "X");
  // Keys the config does not give: the auto rule's, from public facts, as `rdpkit train`.
  const trees::TrainerConfig config = trees::ResolveConfig(config_json, data.schema, data.n_rows());
  py::gil_scoped_release release;
  trees::Model model = trees::Train(data, config, {.progress = false, .progress_stream = nullptr});
  model.schema = data.schema;
  // The counts a caller may want for its own log (never in the model file): clipped values.
  nlohmann::json clipped = nlohmann::json::object();
  for (std::size_t f = 0; f < data.n_features(); ++f) {
    if (data.clipped[f] > 0) clipped[data.feature_names[f]] = data.clipped[f];
  }
  model.training_log["clipped"] = clipped;
  if (classes_from_data) MarkClassesFromData(model.privacy);
  return model;
}

// Predictions for X read as `rdpkit predict` reads a CSV: through the model's schema (clipped
// into its bounds), or as unbounded numbers when the model records none; and the values clipped
// per feature name (features with none left out, as the training log's "clipped"), for the
// estimators' warning.
py::tuple PredictArrays(const trees::Model& model, const DoubleArray& x) {
  trees::Schema schema = model.schema;
  if (schema.features.empty()) {
    schema.task = trees::TaskOfObjective(model.objective);
    for (const auto& name : model.feature_names) {
      schema.features.push_back({.name = name,
                                 .min = -std::numeric_limits<double>::infinity(),
                                 .max = std::numeric_limits<double>::infinity()});
    }
  }
  const trees::Dataset data = trees::DatasetFromColumns(schema, ColumnsOf(x), {}, "X");
  const bool multiclass = model.n_classes >= 2;
  std::vector<double> values;
  {
    py::gil_scoped_release release;
    // Multiclass: the K class probabilities of each row (n × K, as `rdpkit predict` writes them).
    values = multiclass ? model.PredictProbabilities(data) : model.Predict(data);
  }
  const auto n = static_cast<py::ssize_t>(data.n_rows());
  py::array_t<double> out =
      multiclass ? py::array_t<double>({n, static_cast<py::ssize_t>(model.n_classes)})
                 : py::array_t<double>(n);
  std::copy(values.begin(), values.end(), out.mutable_data());
  py::dict clipped;
  for (std::size_t f = 0; f < data.n_features(); ++f) {
    if (data.clipped[f] > 0) clipped[py::str(data.feature_names[f])] = data.clipped[f];
  }
  return py::make_tuple(out, clipped);
}

// A text column of X as the values of feature `index` of features_json (a schema's feature
// entries, checked as a schema's are, so that an error names features[index]): numbers, missing
// values and the names of its codes, read as the CSV reader reads them (trees::CodesOfCells).
py::array_t<double> CodesOfTextCells(const std::vector<std::string>& cells,
                                     const std::string& features_json, std::size_t index,
                                     const std::string& source) {
  const nlohmann::json features = ParseJson(features_json, "bounds", "JSON text");
  const trees::Schema schema =
      trees::Schema::FromJson({{"task", "regression"}, {"features", features}});
  if (index >= schema.features.size()) {
    throw InvalidArgument("index", std::to_string(index),
                          "[0, " + std::to_string(schema.features.size()) + ")");
  }
  const std::vector<double> values = trees::CodesOfCells(schema.features[index], cells, source);
  py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

}  // namespace

void BindTrees(py::module_& m) {
  // The most classes a schema may have: the estimators refuse more before building the list.
  m.attr("MAX_CLASSES") = trees::Schema::kMaxClasses;
  py::class_<trees::Model>(m, "Model", "A trained model (DESIGN.md §6), as `rdpkit train` writes")
      .def_static(
          "from_json_text",
          [](const std::string& text) { return trees::Model::Parse(text, "JSON text"); },
          py::arg("text"))
      .def_static("load", &trees::Model::Load, py::arg("path"))
      .def("save", &trees::Model::Save, py::arg("path"))
      .def("to_json_text", &trees::Model::ToText)
      // Pickled as the model file's text (the estimators pickle with it).
      .def(py::pickle([](const trees::Model& model) { return model.ToText(); },
                      [](const std::string& text) { return trees::Model::Parse(text, "pickle"); }))
      .def("predict", &PredictArrays, py::arg("X"))
      .def_property_readonly("privacy_json",
                             [](const trees::Model& model) { return model.privacy.dump(); })
      .def_property_readonly("training_log_json",
                             [](const trees::Model& model) { return model.training_log.dump(); })
      .def_property_readonly("config_json",
                             [](const trees::Model& model) { return model.config.dump(); })
      .def_property_readonly("objective",
                             [](const trees::Model& model) { return ToString(model.objective); })
      // The schema the model was trained with (its public bounds and names), or "" without one.
      .def_property_readonly("schema_json",
                             [](const trees::Model& model) {
                               return model.schema.features.empty() ? std::string()
                                                                    : model.schema.ToJson().dump();
                             })
      .def_readonly("feature_names", &trees::Model::feature_names)
      .def_readonly("n_classes", &trees::Model::n_classes)
      .def_readonly("classes", &trees::Model::classes)
      .def_property_readonly("n_trees",
                             [](const trees::Model& model) { return model.trees.size(); });
  m.def("codes_of_cells", &CodesOfTextCells, py::arg("cells"), py::arg("features"),
        py::arg("index"), py::arg("source"));
  m.def("train", &TrainArrays, py::arg("X"), py::arg("y"), py::arg("feature_names"),
        py::arg("schema"), py::arg("config"), py::arg("classes_from_data"));
  // The config's keys as given, parsed and validated as `rdpkit train` does before reading data.
  m.def(
      "check_config",
      [](const std::string& text) {
        static_cast<void>(trees::GivenConfig(ParseJson(text, "config", "JSON text")));
      },
      py::arg("config"));
}

}  // namespace rdpkit::python
