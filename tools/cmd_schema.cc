// rdpkit schema: drafts the schema of a CSV (names, kinds, categorical codes), with its bounds left
// for the user to fill in with public values, or taken from the data behind a marker.
#include <memory>

#include "cli.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/file_output.h"
#include "trees_commands.h"

namespace rdpkit::tools {

int RunSchema(const SchemaArgs& args, std::ostream& out) {
  if (args.data.empty()) throw InvalidArgument("data", "missing (--data file.csv)");
  std::optional<trees::Task> task;
  if (args.task == "binary") {
    task = trees::Task::kBinary;
  } else if (args.task == "regression") {
    task = trees::Task::kRegression;
  } else if (args.task == "multiclass") {
    task = trees::Task::kMulticlass;
  } else if (!args.task.empty()) {
    throw InvalidArgument("task", "\"" + args.task + "\"", "{binary, regression, multiclass}");
  }
  if (!args.out.empty()) trees::CheckOutputPath(args.out, "out", {{args.data, "data"}});
  const trees::Schema draft = trees::DraftSchema(args.data, args.label, task);
  const nlohmann::json json = trees::SchemaDraftJson(draft, args.bounds_from_data);
  if (args.bounds_from_data && args.err != nullptr) {
    *args.err << "rdpkit: WARNING: the drafted bounds are the data's own minimum and maximum: "
                 "they LEAK PRIVACY and rdpkit train refuses them unless --bounds-from-data.\n"
              << std::flush;
  }
  if (args.out.empty()) {
    WriteJson(out, json);
    return 0;
  }
  trees::WriteFileAtomically(args.out, json.dump(1) + "\n", "out");
  int placeholders = 0;
  for (const char* key : {"n_classes", "classes"}) {
    placeholders += json.contains(key) && json[key] == "?" ? 1 : 0;
  }
  for (const auto& feature : json["features"]) {
    for (const auto& [key, value] : feature.items()) placeholders += value == "?" ? 1 : 0;
  }
  if (json.contains("label")) {  // a regression label's public bounds
    for (const auto& [key, value] : json["label"].items()) placeholders += value == "?" ? 1 : 0;
  }
  WriteJson(out, {{"schema", args.out},
                  {"task", json["task"]},
                  {"features", draft.features.size()},
                  {"to_fill_in", placeholders}});
  return 0;
}

void RegisterSchema(CLI::App& app, Action& action) {
  auto args = std::make_shared<SchemaArgs>();
  CLI::App* sub = app.add_subcommand("schema", "draft the schema of a CSV file");
  sub->add_option("--data", args->data, "CSV with a header row")->required();
  sub->add_option("--label", args->label, "name of the label column (default: label)");
  sub->add_option(
      "--task", args->task,
      "binary, regression or multiclass (default: binary for labels 0/1 or two class names, "
      "multiclass for more names, else regression)");
  sub->add_flag("--bounds-from-data", args->bounds_from_data,
                "write the data's own bounds, marked as leaking privacy (default: \"?\")");
  sub->add_option("--out", args->out, "write the draft to this file (default: stdout)");
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunSchema(*args, out); }; });
}

}  // namespace rdpkit::tools
