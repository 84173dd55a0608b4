// rdpkit train: CSV + schema + trainer config → model file (DESIGN.md §3–§6).
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "cli.h"
#include "progress_lines.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/auto_config.h"
#include "rdpkit/trees/binned_csv.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/file_output.h"
#include "rdpkit/trees/train.h"
#include "train_ranks.h"
#include "trees_commands.h"

namespace rdpkit::tools {
namespace {

constexpr const char* kBoundsWarning =
    "rdpkit: WARNING: --bounds-from-data takes the feature bounds from the training data itself. "
    "This LEAKS PRIVATE INFORMATION (each feature's minimum and maximum are released exactly) "
    "and the epsilon reported for this model does NOT cover it. Use a schema with public bounds "
    "for a differentially private model.\n";

constexpr const char* kSeedWarning =
    "rdpkit: WARNING: a seed makes every noise draw of this run reproducible. Anyone who learns "
    "or guesses it (the trees' random splits let a guess be checked) can remove the noise, and "
    "the epsilon reported does NOT hold against them. The model file does not record the seed. "
    "Use a seed for tests and reproducible experiments; for a model you publish, give none "
    "(secure randomness) or keep a secret random 64-bit seed.\n";

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

// A δ of 1 % or more is a weak guarantee: a mechanism that publishes each row whole with
// probability δ is (0, δ)-DP (Dwork & Roth 2014, §2.3). The default δ reaches it below 100 rows.
void DeltaWarning(double delta, bool defaulted, std::ostream& err) {
  if (delta < 0.01) return;
  err << "rdpkit train: warning: delta = " << delta
      << " is a weak guarantee: a run that published each training row whole with probability "
      << delta << " would meet it"
      << (defaulted ? " (the default delta is this large below 100 rows; choose delta knowing "
                      "this, with --delta)\n"
                    : "\n")
      << std::flush;
}

// Says how regression labels entered training: scaled by the schema's public label bounds (and
// how many lay outside, a count of the NOT private log), or, without bounds, that residuals are
// clipped at gradient_clip in label units (docs/trees_training.md, "Regression").
void RegressionLabelNote(const trees::Schema& schema, const trees::TrainerConfig& config,
                         const nlohmann::json& log, std::ostream& err) {
  if (schema.label) {
    // initial_score.adapt_gradient_clip: the g* the trees were grown with (the model's config).
    const double clip = log.value("gradient_clip", config.gradient_clip);
    err << "rdpkit train: labels scaled from the schema's label bounds [" << schema.label->min
        << ", " << schema.label->max << "] to [-1, 1] (gradient_clip " << clip << " = "
        << clip * (schema.label->max / 2 - schema.label->min / 2) << " in label units"
        << (log.contains("gradient_clip")
                ? ", adapted from " + FormatNumber(config.gradient_clip) + " by the noisy mean"
                : std::string())
        << "); " << log.value("labels_clipped", 0) << " labels outside were clipped"
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

// The training data of this rank: its shard, or its row range of the one file every rank reads.
// Values are kept only as bins when the split candidates follow from the schema (binned_csv.h).
trees::Dataset LoadTrainingData(const TrainArgs& args, const trees::Schema& schema,
                                const trees::TrainerConfig::SplitCandidates& candidates,
                                int threads, const TrainRanks& ranks) {
  const std::string path = ranks.DataPath(args.data);
  const bool shared_file = ranks.size() > 1 && path == args.data;
  const trees::RowRange range{.rank = shared_file ? ranks.rank() : 0,
                              .ranks = shared_file ? ranks.size() : 1};
  if (trees::CandidatesFromSchemaAlone(candidates)) {
    return trees::LoadCsvBinned(path, schema, candidates, threads, {.label = args.label}, range);
  }
  trees::Dataset data = trees::LoadCsv(path, schema, {.label = args.label});
  if (!shared_file) return data;
  // Candidates that need raw values (iterative_hessian): the whole file is read, this rank's rows
  // kept (the same rows LoadCsvBinned's range gives).
  const std::size_t n = data.n_rows();
  const std::size_t first = n * static_cast<std::size_t>(range.rank) / range.ranks;
  const std::size_t last = n * static_cast<std::size_t>(range.rank + 1) / range.ranks;
  if (first == last) {
    throw InvalidArgument("data", "\"" + path + "\" has " + std::to_string(n) +
                                      " data rows, fewer than the " + std::to_string(range.ranks) +
                                      " ranks that share it");
  }
  for (auto& column : data.columns) {
    column = std::vector<double>(column.begin() + static_cast<std::ptrdiff_t>(first),
                                 column.begin() + static_cast<std::ptrdiff_t>(last));
  }
  data.labels = std::vector<double>(data.labels.begin() + static_cast<std::ptrdiff_t>(first),
                                    data.labels.begin() + static_cast<std::ptrdiff_t>(last));
  return data;
}

int TrainOnRanks(const TrainArgs& args, std::ostream& out, TrainRanks& ranks);

// A failing rank's error as one line in one write: std::cerr writes each insertion at once, and
// mpirun's abort banner could otherwise land inside the line.
void ReportRankError(int rank, const char* what) {
  const std::string line = "rdpkit: error: (rank " + std::to_string(rank) + ") " + what + "\n";
  std::cerr << line << std::flush;
}

}  // namespace

int RunTrain(const TrainArgs& args, std::ostream& out) {
  TrainRanks ranks(args.data);
  if (ranks.size() == 1) return TrainOnRanks(args, out, ranks);
  // A rank that fails ends the job: the others would wait for it in their next collective.
  try {
    return TrainOnRanks(args, out, ranks);
  } catch (const InvalidArgument& error) {
    ReportRankError(ranks.rank(), error.what());
    ranks.AbortOthers(2);
  } catch (const std::exception& error) {
    ReportRankError(ranks.rank(), error.what());
    ranks.AbortOthers(1);
  }
  return 1;
}

namespace {

// The training log's exact counts over every rank (each rank reads its own rows): rows and
// clipped values per feature; in a run over several ranks also written into `log` with the
// labels clipped, the number of ranks and the bytes handed to the collectives.
struct RowCounts {
  std::size_t rows = 0;
  std::vector<std::size_t> clipped;
};
RowCounts CountOverRanks(const trees::Dataset& data, TrainRanks& ranks, nlohmann::json& log) {
  RowCounts counts{data.n_rows(), data.clipped};
  if (ranks.size() == 1) return counts;
  trees::Communicator& communicator = *ranks.communicator();
  // Payload bytes every rank handed to the collectives of training (docs/distributed.md).
  log["communication_bytes"] = trees::SumOverRanks(communicator, communicator.bytes_sent());
  counts.rows = trees::SumOverRanks(communicator, counts.rows);
  for (auto& count : counts.clipped) count = trees::SumOverRanks(communicator, count);
  if (log.contains("labels_clipped")) {
    log["labels_clipped"] =
        trees::SumOverRanks(communicator, log["labels_clipped"].get<std::uint64_t>());
  }
  log["n_rows"] = counts.rows;
  log["clipped"] = counts.clipped;
  log["ranks"] = ranks.size();
  return counts;
}

// The schema (from --schema, or from the data under --bounds-from-data) and the config's keys as
// given, checked against each other before the data is read; the objective defaults to the
// schema's task. The auto rule fills in the other keys after reading (it needs n).
trees::TrainerConfig CheckedSchemaAndConfig(const TrainArgs& args, const TrainRanks& ranks,
                                            trees::Schema& schema, nlohmann::json& config_json) {
  const bool has_schema = !args.schema.empty();
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
  // The keys as given, checked before the data is read (batch_size against the auto rule's T once
  // n is known, GivenConfig); the auto rule fills in the others below.
  const trees::TrainerConfig given = trees::GivenConfig(config_json);
  const trees::Task task = trees::TaskOfObjective(given.objective);
  if (args.bounds_from_data) {
    if (!has_schema && task == trees::Task::kMulticlass) {
      throw InvalidArgument("schema",
                            "missing: a multiclass objective needs a schema with "
                            "\"n_classes\" (pass --schema schema.json)");
    }
    if (!has_schema) schema = trees::SchemaFromData(ranks.DataPath(args.data), args.label, task);
    // After the bounds were read: a refused input gets its error alone.
    if (args.err != nullptr) *args.err << kBoundsWarning << std::flush;
  }
  if (has_schema && schema.task != task) {
    throw InvalidArgument("objective", "\"" + trees::ToString(given.objective) +
                                           "\" does not fit the schema's task \"" +
                                           trees::TaskName(schema.task) + "\"");
  }
  return given;
}

int TrainOnRanks(const TrainArgs& args, std::ostream& out, TrainRanks& ranks) {
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
  // Where rank 0 will write, checked before the data is read and the model trained.
  if (ranks.rank() == 0) {
    const std::vector<trees::OtherFile> inputs = {
        {ranks.DataPath(args.data), "data"}, {args.schema, "schema"}, {args.config, "config"}};
    std::vector<trees::OtherFile> others = inputs;
    others.push_back({args.report, "report"});
    trees::CheckOutputPath(args.out, "out", others);
    if (!args.report.empty()) trees::CheckOutputPath(args.report, "report", inputs);
  }
  nlohmann::json config_json = ConfigJson(args);
  trees::Schema schema;
  const trees::TrainerConfig given = CheckedSchemaAndConfig(args, ranks, schema, config_json);
  // The split candidates the run will use (the auto rule's depend on the task and ε, not n) say
  // how the data is read.
  const trees::Dataset data = LoadTrainingData(
      args, schema, trees::RunSplitCandidates(config_json, schema), given.threads, ranks);
  // Keys the config does not give: the auto rule's, from public facts (n over all ranks, m, task,
  // ε, δ).
  const std::size_t all_rows =
      ranks.size() == 1
          ? data.n_rows()
          : static_cast<std::size_t>(trees::SumOverRanks(*ranks.communicator(), data.n_rows()));
  const trees::TrainerConfig config = trees::ResolveConfig(config_json, data.schema, all_rows);
  if (config.seed && config.privacy && args.err != nullptr && !args.quiet && ranks.rank() == 0) {
    *args.err << kSeedWarning << std::flush;
  }

  std::optional<ProgressStream> progress;
  if (args.err != nullptr && !args.quiet && ranks.rank() == 0) progress.emplace(*args.err, start);
  trees::Model model = trees::Train(data, config,
                                    {.progress = progress.has_value(),
                                     .progress_stream = progress ? &progress->stream() : nullptr,
                                     .communicator = ranks.communicator()});
  progress.reset();  // writes the last progress line before anything else goes to stderr
  const RowCounts counts = CountOverRanks(data, ranks, model.training_log);
  const std::size_t rows = counts.rows;
  const std::vector<std::size_t>& clipped_counts = counts.clipped;
  if (ranks.rank() != 0) return 0;  // rank 0 writes the model, the log and the summary
  std::size_t total_clipped = 0;
  for (const auto count : clipped_counts) total_clipped += count;
  model.schema = data.schema;
  // Recorded when it is not the default, so a default run writes the file it always wrote (and
  // the Python estimator's, byte for byte).
  if (args.label != trees::kDefaultLabelColumn) model.label_column = args.label;

  // The training log: exact data-dependent counts for the operator, covered by no epsilon. It
  // goes to --report (a file that says so) and, summarised, to stderr; never to the model file
  // or to stdout (DESIGN.md §6).
  nlohmann::json log = model.training_log;
  nlohmann::json clipped = nlohmann::json::object();
  for (std::size_t f = 0; f < data.n_features(); ++f) {
    if (clipped_counts[f] > 0) clipped[data.feature_names[f]] = clipped_counts[f];
  }
  log["clipped"] = clipped;
  log["notice"] = kTrainingLogNotice;
  log["model"] = args.out;
  // The report goes to its temporary file before the model is saved and is renamed into place
  // after: a report that cannot be written leaves no model behind, and a model that cannot be
  // saved no report.
  std::optional<trees::AtomicFileWriter> report;
  if (!args.report.empty()) {
    report.emplace(args.report, "report");
    // The model's path may hold bytes that are not UTF-8 (shown as U+FFFD, as on stdout).
    report->Write(log.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
  model.Save(args.out);
  if (report) report->Commit();
  if (args.err != nullptr && !args.quiet) {
    *args.err << "rdpkit train: training log (NOT differentially private, do not publish): " << rows
              << " rows, " << total_clipped << " values clipped into the "
              << "schema bounds"
              << (args.report.empty() ? std::string(" (--report FILE writes the full log)")
                                      : " (full log in " + Printable(args.report) + ")")
              << "\n"
              << std::flush;
    if (trees::TaskOfObjective(config.objective) == trees::Task::kRegression) {
      RegressionLabelNote(schema, config, log, *args.err);
    }
    const bool delta_defaulted =
        log.value("delta_source", "") != "config" && log.contains("delta_source");
    if (delta_defaulted) {
      *args.err << "rdpkit train: delta = " << model.privacy.value("delta", 0.0) << " ("
                << log["delta_source"].get<std::string>()
                << "; set it with --delta or privacy.delta)\n"
                << std::flush;
    }
    DeltaWarning(model.privacy.value("delta", 0.0), delta_defaulted, *args.err);
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

}  // namespace

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
