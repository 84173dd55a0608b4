// Arguments and runners of the tree subcommands `train`, `predict`, `evaluate` (DESIGN.md §3).
#ifndef RDPKIT_TOOLS_TREES_COMMANDS_H_
#define RDPKIT_TOOLS_TREES_COMMANDS_H_

#include <cstdint>
#include <functional>
#include <iostream>
#include <optional>
#include <ostream>
#include <string>

#include "rdpkit/trees/data.h"
#include "rdpkit/trees/model.h"

namespace rdpkit::tools {

struct TrainArgs {
  std::string data;    // training CSV with a header row, required
  std::string schema;  // schema JSON file; required unless bounds_from_data
  std::string config;  // trainer config: file path, "-" for stdin, or inline {...};
                       // empty: the defaults
  // Common settings as flags; each overrides its key in the config.
  std::optional<double> epsilon;                   // privacy.epsilon
  std::optional<double> delta;                     // privacy.delta
  std::string objective;                           // objective (default: from the schema's task)
  std::optional<std::uint64_t> n_estimators;       // n_estimators
  std::optional<std::uint64_t> seed;               // seed
  std::string out;                                 // model file to write (atomically), required
  std::string label = trees::kDefaultLabelColumn;  // name of the label column
  std::string report;              // training log file (exact counts, not private); empty: none
  bool bounds_from_data = false;   // take feature bounds from the data (leaks privacy; warns)
  bool quiet = false;              // no progress line
  std::ostream* err = &std::cerr;  // warnings and progress (tests capture them)
};
// Prints {"model", "n_trees", "private", "epsilon", "delta", "noise_multiplier", "seconds"} on
// out: only what the model file releases. Exact counts (rows, clipped values, …) form the
// training log: summarised on err, written whole to args.report.
int RunTrain(const TrainArgs& args, std::ostream& out);

// rdpkit schema: a draft schema for a CSV (docs/cli.md "schema").
struct SchemaArgs {
  std::string data;                                // CSV with a header row, required
  std::string label = trees::kDefaultLabelColumn;  // name of the label column
  std::string task;                // "binary" or "regression"; empty: from the labels
  bool bounds_from_data = false;   // write the data's bounds (LEAKS PRIVACY; marked in the file)
  std::string out;                 // write the draft here (pretty); empty: stdout
  std::ostream* err = &std::cerr;  // the warning of bounds_from_data
};
int RunSchema(const SchemaArgs& args, std::ostream& out);

struct PredictArgs {
  std::string model;    // model file, required
  std::string data;     // CSV; a label column, if any, is ignored
  std::string out;      // CSV to write (atomically); empty: the CSV goes to out
  std::string label;    // column to ignore; empty: the model's label_column, else the default
  bool labels = false;  // --labels: add the predicted class ("label" column)
};
// CSV "prediction" + one line per row (probability of class 1 for binary) to out or args.out;
// multiclass: one probability column per class (p0..p{K-1}, or the class names). --labels adds a
// "label" column: the most probable class (binary: p >= 0.5). With args.out, out receives
// {"rows": n, "out": path}.
int RunPredict(const PredictArgs& args, std::ostream& out);

struct EvaluateArgs {
  std::string model;
  std::string data;   // CSV with the label column
  std::string label;  // empty: the model's label_column, else the default
};
// {"auc", "accuracy", "log_loss"} (binary), {"rmse", "mae"} (regression) or
// {"accuracy", "macro_auc", "log_loss"} (multiclass).
int RunEvaluate(const EvaluateArgs& args, std::ostream& out);

// The data of `predict`/`evaluate`, read with the model's own schema (bounds and codes of its
// training run) in parts of whole rows (trees::LoadCsvParts), so that files of any length take
// bounded memory; a model without a schema reads its feature_names unbounded. with_labels: the
// label column is required and validated; otherwise it is optional and skipped unread. An empty
// label names the column the model was trained with (Model::label_column), else the default.
void ReadDataForModel(const trees::Model& model, const std::string& path, const std::string& label,
                      bool with_labels, const std::function<void(trees::Dataset&& part)>& on_part);

}  // namespace rdpkit::tools

#endif  // RDPKIT_TOOLS_TREES_COMMANDS_H_
