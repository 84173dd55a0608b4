// rdpkit train: CSV + schema + trainer config → model file (DESIGN.md §3–§6).
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <streambuf>
#include <string>

#include "cli.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/auto_config.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/file_output.h"
#include "rdpkit/trees/train.h"
#include "trees_commands.h"

namespace rdpkit::tools {
namespace {

constexpr const char* kBoundsWarning =
    "rdpkit: WARNING: --bounds-from-data takes the feature bounds from the training data itself. "
    "This LEAKS PRIVATE INFORMATION (each feature's minimum and maximum are released exactly) "
    "and the epsilon reported for this model does NOT cover it. Use a schema with public bounds "
    "for a differentially private model.\n";

// Appends the elapsed wall time to the lines the trainer writes to its progress stream:
// "rdpkit train: 40/100 trees" becomes "rdpkit train: 40/100 trees (2.1 s elapsed)". At most one
// line per kEvery is shown; the last line (the finished count) is always shown.
class ElapsedLines : public std::streambuf {
 public:
  ElapsedLines(std::ostream& sink, std::chrono::steady_clock::time_point start)
      : sink_(sink), start_(start), shown_(start) {}
  ~ElapsedLines() override {
    if (!held_.empty()) sink_ << held_ << std::flush;
    if (!line_.empty()) sink_ << line_ << std::flush;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    const char c = traits_type::to_char_type(ch);
    if (c != '\n') {
      line_.push_back(c);
      return ch;
    }
    const auto now = std::chrono::steady_clock::now();
    char elapsed[48];
    std::snprintf(elapsed, sizeof(elapsed), " (%.1f s elapsed)\n",
                  std::chrono::duration<double>(now - start_).count());
    held_ = line_ + elapsed;
    line_.clear();
    if (now - shown_ >= kEvery) {
      sink_ << held_ << std::flush;
      held_.clear();
      shown_ = now;
    }
    return ch;
  }
  std::streamsize xsputn(const char* text, std::streamsize count) override {
    for (std::streamsize i = 0; i < count; ++i) overflow(traits_type::to_int_type(text[i]));
    return count;
  }

 private:
  static constexpr std::chrono::milliseconds kEvery{500};
  std::ostream& sink_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point shown_;  // when the last line was shown
  std::string line_;                             // the line being written
  std::string held_;                             // the latest complete line not yet shown
};

constexpr const char* kTrainingLogNotice =
    "NOT differentially private: exact counts of the training data (rows, clipped values, "
    "records the Renyi filter retired). A local log for the operator; do not publish it. The "
    "model file holds none of it.";

// The objective a schema's task trains with when neither the config nor --objective names one.
const char* DefaultObjective(trees::Task task) {
  if (task == trees::Task::kMulticlass) return "multi:softprob";
  return task == trees::Task::kBinary ? "binary:logistic" : "reg:squarederror";
}

// The trainer config: the --config JSON (or {}), with the flags' keys written over it. FromJson
// validates the result, naming the key of a bad value whichever place it came from.
nlohmann::json ConfigJson(const TrainArgs& args) {
  nlohmann::json config = nlohmann::json::object();
  if (!args.config.empty()) {
    config = ReadEventJson(args.config, "config");
    if (!config.is_object()) throw InvalidArgument("config", "must be a JSON object");
  }
  if (!args.objective.empty()) config["objective"] = args.objective;
  if (args.n_estimators) config["n_estimators"] = *args.n_estimators;
  if (args.seed) config["seed"] = *args.seed;
  if (args.epsilon || args.delta) {
    if (!config.contains("privacy") || !config["privacy"].is_object()) {
      config["privacy"] = nlohmann::json::object();
    }
    if (args.epsilon) config["privacy"]["epsilon"] = *args.epsilon;
    if (args.delta) config["privacy"]["delta"] = *args.delta;
  }
  if (!config.contains("privacy") && !config.value("non_private", false)) {
    throw InvalidArgument("privacy",
                          "missing: give --epsilon E (and optionally --delta D), a \"privacy\": "
                          "{\"epsilon\": ...} in the config, or \"non_private\": true for a "
                          "baseline without any noise");
  }
  return config;
}

// Says how regression labels entered training: scaled by the schema's public label bounds (and
// how many lay outside, a count of the NOT private log), or, without bounds, that residuals are
// clipped at gradient_clip in label units (docs/trees_training.md, "Regression").
void RegressionLabelNote(const trees::Schema& schema, const trees::TrainerConfig& config,
                         const nlohmann::json& log, std::ostream& err) {
  if (schema.label) {
    err << "rdpkit train: labels scaled from the schema's label bounds [" << schema.label->min
        << ", " << schema.label->max << "] to [-1, 1] (gradient_clip " << config.gradient_clip
        << " = " << config.gradient_clip * (schema.label->max / 2 - schema.label->min / 2)
        << " in label units); " << log.value("labels_clipped", 0) << " labels outside were clipped"
        << " (NOT differentially private)\n";
  } else {
    err << "rdpkit train: warning: the schema has no public label bounds (\"label\": {\"min\": "
           "..., \"max\": ...}), so labels are used as they are and every residual is clipped to "
           "+-gradient_clip = "
        << config.gradient_clip
        << " in label units; give the bounds (docs/trees.md) or set gradient_clip\n";
  }
  err << std::flush;
}

}  // namespace

int RunTrain(const TrainArgs& args, std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  if (args.data.empty()) throw InvalidArgument("data", "missing (--data train.csv)");
  if (args.out.empty()) throw InvalidArgument("out", "missing (--out model.json)");
  if (args.schema.empty() && !args.bounds_from_data) {
    throw InvalidArgument(
        "schema",
        "missing: training without a schema is refused, because differential privacy needs "
        "feature bounds that do not come from the data (pass --schema schema.json; "
        "--bounds-from-data overrides this and leaks privacy)");
  }
  nlohmann::json config_json = ConfigJson(args);
  const bool has_schema = !args.schema.empty();
  trees::Schema schema;
  if (has_schema) schema = trees::Schema::FromFile(args.schema);
  // A schema whose bounds came from the data (rdpkit schema --bounds-from-data) says so; it is
  // used only when the user accepts the leak by name.
  if (has_schema && args.bounds_from_data && !schema.bounds_from_data) {
    throw InvalidArgument("bounds-from-data",
                          "given together with --schema, whose bounds are public (choose one)");
  }
  if (has_schema && schema.bounds_from_data && !args.bounds_from_data) {
    throw InvalidArgument("schema",
                          "its bounds were taken from the data (\"bounds_from_data\"): they leak "
                          "privacy; replace them with public bounds and delete that key, or pass "
                          "--bounds-from-data to train a model marked not private");
  }
  // Without an objective in the config or the flags, the schema's task decides.
  if (!config_json.contains("objective") && has_schema) {
    config_json["objective"] = DefaultObjective(schema.task);
  }
  // The keys as given, checked before the data is read; the auto rule fills in the others below.
  const trees::TrainerConfig given = trees::TrainerConfig::FromJson(config_json);
  const trees::Task task = trees::TaskOfObjective(given.objective);
  if (args.bounds_from_data) {
    if (args.err != nullptr) *args.err << kBoundsWarning << std::flush;
    if (!has_schema && task == trees::Task::kMulticlass) {
      throw InvalidArgument("schema",
                            "missing: a multiclass objective needs a schema with "
                            "\"n_classes\" (pass --schema schema.json)");
    }
    if (!has_schema) schema = trees::SchemaFromData(args.data, args.label, task);
  }
  if (has_schema && schema.task != task) {
    throw InvalidArgument("objective", "\"" + trees::ToString(given.objective) +
                                           "\" does not fit the schema's task \"" +
                                           trees::TaskName(schema.task) + "\"");
  }
  const trees::Dataset data = trees::LoadCsv(args.data, schema, {.label = args.label});
  // Keys the config does not give: the auto rule's, from public facts (n, m, task, ε, δ).
  const trees::TrainerConfig config = trees::ResolveConfig(config_json, data.schema, data.n_rows());

  std::optional<ElapsedLines> progress_lines;
  std::optional<std::ostream> progress;
  if (args.err != nullptr && !args.quiet) {
    progress_lines.emplace(*args.err, start);
    progress.emplace(&*progress_lines);
  }
  trees::Model model = trees::Train(
      data, config,
      {.progress = progress.has_value(), .progress_stream = progress ? &*progress : nullptr});
  progress.reset();  // flushes the last progress line before anything else goes to stderr
  progress_lines.reset();
  model.schema = data.schema;
  model.Save(args.out);

  // The training log: exact data-dependent counts for the operator, covered by no epsilon. It
  // goes to --report (a file that says so) and, summarised, to stderr; never to the model file
  // or to stdout (DESIGN.md §6).
  nlohmann::json log = model.training_log;
  nlohmann::json clipped = nlohmann::json::object();
  for (std::size_t f = 0; f < data.n_features(); ++f) {
    if (data.clipped[f] > 0) clipped[data.feature_names[f]] = data.clipped[f];
  }
  log["clipped"] = clipped;
  log["notice"] = kTrainingLogNotice;
  log["model"] = args.out;
  if (!args.report.empty()) trees::WriteFileAtomically(args.report, log.dump(2) + "\n", "report");
  if (args.err != nullptr && !args.quiet) {
    *args.err << "rdpkit train: training log (NOT differentially private, do not publish): "
              << data.n_rows() << " rows, " << data.total_clipped() << " values clipped into the "
              << "schema bounds"
              << (args.report.empty() ? std::string(" (--report FILE writes the full log)")
                                      : " (full log in " + args.report + ")")
              << "\n"
              << std::flush;
    if (task == trees::Task::kRegression) RegressionLabelNote(schema, config, log, *args.err);
    if (log.value("delta_source", "") != "config" && log.contains("delta_source")) {
      *args.err << "rdpkit train: delta = " << model.privacy.value("delta", 0.0) << " ("
                << log["delta_source"].get<std::string>()
                << "; set it with --delta or privacy.delta)\n"
                << std::flush;
    }
  }

  // stdout: what the model file itself releases, nothing more.
  const auto& privacy = model.privacy;
  const bool is_private = !privacy.contains("private") || privacy["private"] != false;
  nlohmann::json summary = {
      {"model", args.out},
      {"n_trees", model.trees.size()},
      {"private", is_private},
      {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}};
  summary["epsilon"] = privacy.contains("epsilon") ? privacy["epsilon"] : nlohmann::json(nullptr);
  summary["delta"] = privacy.contains("delta") ? privacy["delta"] : nlohmann::json(nullptr);
  summary["noise_multiplier"] = model.training_log.contains("noise_multiplier")
                                    ? model.training_log["noise_multiplier"]
                                    : nlohmann::json(nullptr);
  if (!args.report.empty()) summary["report"] = args.report;
  if (args.bounds_from_data) summary["bounds_from_data"] = true;
  WriteJson(out, summary);
  return 0;
}

void RegisterTrain(CLI::App& app, Action& action) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* sub = app.add_subcommand("train", "train a differentially private boosted-tree model");
  sub->add_option("--data", args->data, "training CSV with a header row")->required();
  sub->add_option("--schema", args->schema, "schema JSON with public feature bounds");
  sub->add_option("--config", args->config,
                  "trainer config: file path, - for stdin, or inline {...} (default: defaults)");
  AddNumberOption(sub, "--epsilon", &args->epsilon, "decimal numbers in (0, inf)",
                  "privacy.epsilon: the run's target epsilon (overrides the config)");
  AddNumberOption(sub, "--delta", &args->delta, "decimal numbers in (0, 1)",
                  "privacy.delta (overrides the config; default: a power of ten below 1/n)");
  sub->add_option("--objective", args->objective,
                  "binary:logistic, reg:squarederror, multi:softprob or multi:ovr (default: the "
                  "schema's task)");
  AddWholeNumberOption(sub, "--n-estimators", &args->n_estimators, "whole numbers in [1, 100000]",
                       "n_estimators: number of trees (overrides the config)");
  AddWholeNumberOption(sub, "--seed", &args->seed, "whole numbers in [0, 2^64)",
                       "seed of the noise generator (overrides the config; default: secure)");
  sub->add_option("--out", args->out, "model file to write")->required();
  sub->add_option("--label", args->label, "name of the label column (default: label)");
  sub->add_flag("--bounds-from-data", args->bounds_from_data,
                "take feature bounds from the data instead of a schema (LEAKS PRIVACY)");
  sub->add_option("--report", args->report,
                  "write the training log (exact counts, NOT private) to this JSON file");
  sub->add_flag("--quiet", args->quiet, "no progress line or training-log summary on stderr");
  sub->callback(
      [args, &action] { action = [args](std::ostream& out) { return RunTrain(*args, out); }; });
}

}  // namespace rdpkit::tools
