// rdpkit predict: model + CSV → CSV of predictions (DESIGN.md §3).
#include <charconv>
#include <limits>
#include <memory>
#include <sstream>

#include "cli.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/file_output.h"
#include "rdpkit/trees/model.h"
#include "trees_commands.h"

namespace rdpkit::tools {

trees::Dataset LoadDataForModel(const trees::Model& model, const std::string& path,
                                const std::string& label, bool with_labels) {
  trees::Schema schema = model.schema;
  if (schema.features.empty()) {
    // No recorded schema: read the model's features as plain, unbounded numbers.
    schema.task = trees::TaskOfObjective(model.objective);
    for (const auto& name : model.feature_names) {
      schema.features.push_back({.name = name,
                                 .min = -std::numeric_limits<double>::infinity(),
                                 .max = std::numeric_limits<double>::infinity()});
    }
  }
  return trees::LoadCsv(path, schema,
                        {.label = label, .require_label = with_labels, .read_label = with_labels});
}

int RunPredict(const PredictArgs& args, std::ostream& out) {
  if (args.model.empty()) throw InvalidArgument("model", "missing (--model model.json)");
  if (args.data.empty()) throw InvalidArgument("data", "missing (--data test.csv)");
  const trees::Model model = trees::Model::Load(args.model);
  const trees::Dataset data = LoadDataForModel(model, args.data, args.label, false);
  const std::vector<double> predictions = model.Predict(data);

  std::string csv = "prediction\n";
  csv.reserve(csv.size() + predictions.size() * 24);
  char buffer[32];
  for (const double value : predictions) {
    // Shortest text that reads back to the same double.
    const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
    csv.append(buffer, result.ptr);
    csv += '\n';
  }
  if (args.out.empty()) {
    out << csv;
  } else {
    trees::WriteFileAtomically(args.out, csv, "out");
    WriteJson(out, {{"rows", predictions.size()}, {"out", args.out}});
  }
  return 0;
}

void RegisterPredict(CLI::App& app, Action& action) {
  auto args = std::make_shared<PredictArgs>();
  CLI::App* sub = app.add_subcommand("predict", "predict with a trained model");
  sub->add_option("--model", args->model, "model file written by rdpkit train")->required();
  sub->add_option("--data", args->data, "CSV with the model's feature columns")->required();
  sub->add_option("--out", args->out, "CSV to write (default: standard output)");
  sub->add_option("--label", args->label, "label column to ignore (default: label)");
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunPredict(*args, out); }; });
}

}  // namespace rdpkit::tools
