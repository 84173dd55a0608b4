// rdpkit predict: model + CSV → CSV of predictions (DESIGN.md §3).
#include <algorithm>
#include <charconv>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "cli.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/file_output.h"
#include "rdpkit/trees/model.h"
#include "trees_commands.h"

namespace rdpkit::tools {

void ReadDataForModel(const trees::Model& model, const std::string& path, const std::string& label,
                      bool with_labels, const std::function<void(trees::Dataset&& part)>& on_part) {
  trees::Schema schema = model.schema;
  if (schema.features.empty()) {
    // No recorded schema: read the model's features as plain, unbounded numbers.
    schema.task = trees::TaskOfObjective(model.objective);
    schema.n_classes = model.n_classes;
    for (const auto& name : model.feature_names) {
      schema.features.push_back({.name = name,
                                 .min = -std::numeric_limits<double>::infinity(),
                                 .max = std::numeric_limits<double>::infinity()});
    }
  }
  const std::string& column =
      !label.empty()
          ? label
          : (!model.label_column.empty() ? model.label_column : trees::kDefaultLabelColumn);
  trees::LoadCsvParts(path, schema,
                      {.label = column, .require_label = with_labels, .read_label = with_labels},
                      on_part);
}

namespace {

// Shortest text that reads back to the same double.
void AppendNumber(std::string& csv, double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  csv.append(buffer, result.ptr);
}

// A CSV header field: quoted (with doubled quotes) when it holds a comma, quote or line break.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The --labels cell of class `index`: its name when the model knows the names (a multiclass
// model's classes, or a binary schema's two), as a CSV field; the index otherwise.
std::string LabelCell(const trees::Model& model, std::size_t index) {
  const std::vector<std::string>& names =
      !model.classes.empty() ? model.classes : model.schema.classes;
  return index < names.size() ? CsvField(names[index]) : std::to_string(index);
}

// The header line of the predictions CSV.
std::string HeaderLine(const trees::Model& model, bool labels) {
  if (trees::TaskOfObjective(model.objective) != trees::Task::kMulticlass) {
    return labels ? "prediction,label\n" : "prediction\n";
  }
  std::string line;
  for (std::size_t c = 0; c < static_cast<std::size_t>(model.n_classes); ++c) {
    if (c > 0) line += ',';
    line += model.classes.empty() ? "p" + std::to_string(c) : CsvField(model.classes[c]);
  }
  return line + (labels ? ",label\n" : "\n");
}

// The CSV lines of the predictions of one part of the data, appended to csv.
void AppendPredictionLines(const trees::Model& model, const trees::Dataset& part, bool labels,
                           std::string& csv) {
  if (trees::TaskOfObjective(model.objective) != trees::Task::kMulticlass) {
    const std::vector<double> predictions = model.Predict(part);
    csv.reserve(csv.size() + predictions.size() * 24);
    for (const double value : predictions) {
      AppendNumber(csv, value);
      if (labels) csv += "," + LabelCell(model, value >= 0.5 ? 1 : 0);
      csv += '\n';
    }
    return;
  }
  const auto k = static_cast<std::size_t>(model.n_classes);
  const std::vector<double> p = model.PredictProbabilities(part);
  csv.reserve(csv.size() + p.size() * 24);
  for (std::size_t r = 0; r < part.n_rows(); ++r) {
    std::size_t best = 0;
    for (std::size_t c = 0; c < k; ++c) {
      if (c > 0) csv += ',';
      AppendNumber(csv, p[r * k + c]);
      if (p[r * k + c] > p[r * k + best]) best = c;
    }
    if (labels) csv += "," + LabelCell(model, best);
    csv += '\n';
  }
}

}  // namespace

int RunPredict(const PredictArgs& args, std::ostream& out) {
  if (args.model.empty()) throw InvalidArgument("model", "missing (--model model.json)");
  if (args.data.empty()) throw InvalidArgument("data", "missing (--data test.csv)");
  if (!args.out.empty()) {  // before the data is read
    trees::CheckOutputPath(args.out, "out", {{args.model, "model"}, {args.data, "data"}});
  }
  const trees::Model model = trees::Model::Load(args.model);
  if (args.labels && trees::TaskOfObjective(model.objective) == trees::Task::kRegression) {
    throw InvalidArgument("labels", "given for a regression model (binary and multiclass only)");
  }
  // A class column headed "label" beside the --labels column would give the CSV two columns of
  // that name, and a reader would take one for the other.
  if (args.labels &&
      std::find(model.classes.begin(), model.classes.end(), "label") != model.classes.end()) {
    throw InvalidArgument("labels",
                          "a class of the model is named \"label\", the name of the column "
                          "--labels adds (its probability column is headed \"label\" too): "
                          "predict without --labels, or rename the class in the schema");
  }
  // --out: each part's lines go to the temporary file as they are made (bounded memory), which
  // appears whole only once every row was read. Standard output gets the whole CSV at the end,
  // so that a refused row leaves nothing on it.
  std::optional<trees::AtomicFileWriter> file;
  if (!args.out.empty()) file.emplace(args.out, "out");
  std::string csv = HeaderLine(model, args.labels);
  std::size_t rows = 0;
  ReadDataForModel(model, args.data, args.label, false, [&](trees::Dataset&& part) {
    AppendPredictionLines(model, part, args.labels, csv);
    rows += part.n_rows();
    if (file) {
      file->Write(csv);
      csv.clear();
    }
  });
  if (!file) {
    out << csv;
  } else {  // every line is written: a file of no data rows was refused
    file->Commit();
    WriteJson(out, {{"rows", rows}, {"out", args.out}});
  }
  return 0;
}

void RegisterPredict(CLI::App& app, Action& action) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* sub = app.add_subcommand("predict", "predict with a trained model");
  sub->add_option("--model", args->model, "model file written by rdpkit train")->required();
  sub->add_option("--data", args->data, "CSV with the model's feature columns")->required();
  sub->add_option("--out", args->out, "CSV to write (default: standard output)");
  sub->add_option("--label", args->label,
                  "label column to ignore (default: the model's, else label)");
  sub->add_flag("--labels", args->labels,
                "add a \"label\" column: the most probable class (binary: p >= 0.5)");
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunPredict(*args, out); }; });
}

}  // namespace rdpkit::tools
