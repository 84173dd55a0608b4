// Schema parsing and the CSV reader (DESIGN.md §4).
//
// The CSV reader reads blocks of whole lines (csv_table.h: each field converted with
// std::from_chars straight into preallocated columns: no allocation per value, no locale, no
// streams): ParseCsv its text as one block, LoadCsv and LoadCsvParts a file a block at a time
// (data_parts.cc). Validation (bounds, codes, labels) runs afterwards column by column on each
// block's rows (DatasetOfTable).
#include "rdpkit/trees/data.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "column_checks.h"
#include "csv_line.h"
#include "csv_table.h"
#include "label_bounds.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "schema_classes.h"
#include "text_file.h"

namespace rdpkit::trees {
namespace {

using namespace internal::csv;  // NOLINT: the CSV line pieces shared with binned_csv.cc

std::string FeatureField(std::size_t index, const char* key) {
  return "features[" + std::to_string(index) + "]." + key;
}

double RequireNumber(const nlohmann::json& object, const char* key, std::size_t index) {
  const auto it = object.find(key);
  if (it == object.end()) {
    throw InvalidArgument(FeatureField(index, key),
                          "missing (every numeric feature needs public bounds \"min\" and "
                          "\"max\"; DP must not take them from the data)");
  }
  if (it->is_string() && it->get<std::string>() == "?") {
    throw InvalidArgument(FeatureField(index, key), "\"?\"",
                          "the finite numbers: a public bound, known without looking at the "
                          "data (fill in the drafted schema)");
  }
  if (!it->is_number()) {
    throw InvalidArgument(FeatureField(index, key), it->dump(), "the finite numbers");
  }
  const double value = it->get<double>();
  Require(std::isfinite(value), FeatureField(index, key), value, "the finite numbers");
  return value;
}

// A numeric feature's bounds must have a finite width: candidate grids, bin midpoints and the
// clipping of values all compute max − min, which overflows to inf for bounds such as ±9e307 (one
// split threshold, or a division by zero later). Bounds a few ulps apart are refused by the
// trainer (candidates.h InitialCandidates), which knows the candidate method and count.
void RequireFiniteWidth(const FeatureSpec& spec, std::size_t index) {
  if (std::isfinite(spec.max - spec.min)) return;
  throw InvalidArgument("features[" + std::to_string(index) + "].min/max",
                        "[" + FormatNumber(spec.min) + ", " + FormatNumber(spec.max) +
                            "] (feature \"" + spec.name + "\", width max − min overflows)",
                        "the bounds of finite width (max − min ≤ " +
                            FormatNumber(std::numeric_limits<double>::max()) + ")");
}

}  // namespace

std::string TaskName(Task task) {
  if (task == Task::kMulticlass) return "multiclass";
  return task == Task::kBinary ? "binary" : "regression";
}

Schema Schema::FromJson(const nlohmann::json& json) {
  if (!json.is_object()) throw InvalidArgument("schema", "must be a JSON object");
  Schema schema;
  const auto task = json.find("task");
  if (task == json.end()) {
    throw InvalidArgument("task", "missing (\"binary\", \"regression\" or \"multiclass\")");
  }
  if (*task == "binary") {
    schema.task = Task::kBinary;
  } else if (*task == "regression") {
    schema.task = Task::kRegression;
  } else if (*task == "multiclass") {
    schema.task = Task::kMulticlass;
  } else {
    throw InvalidArgument("task", task->dump(), "{\"binary\", \"regression\", \"multiclass\"}");
  }
  internal::ReadClasses(json, schema);
  // A schema drafted with bounds read off the data says so (rdpkit schema --bounds-from-data);
  // such bounds are not public, and the trainer accepts it only under --bounds-from-data.
  schema.bounds_from_data = json.contains("bounds_from_data");
  const auto features = json.find("features");
  if (features == json.end() || !features->is_array() || features->empty()) {
    throw InvalidArgument("features", "missing or empty (a list of {\"name\", \"min\", \"max\"})");
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < features->size(); ++i) {
    const auto& entry = (*features)[i];
    if (!entry.is_object()) {
      throw InvalidArgument("features[" + std::to_string(i) + "]", "must be a JSON object");
    }
    FeatureSpec spec;
    const auto name = entry.find("name");
    if (name == entry.end() || !name->is_string() || name->get<std::string>().empty()) {
      throw InvalidArgument(FeatureField(i, "name"), "missing or not a non-empty string");
    }
    spec.name = name->get<std::string>();
    internal::RequirePrintableName(spec.name, FeatureField(i, "name"));
    if (!names.insert(spec.name).second) {
      throw InvalidArgument(FeatureField(i, "name"), "\"" + spec.name + "\" appears twice");
    }
    const auto categorical = entry.find("categorical");
    if (categorical != entry.end()) {
      if (!categorical->is_boolean()) {
        throw InvalidArgument(FeatureField(i, "categorical"), categorical->dump(), "{true, false}");
      }
      spec.categorical = categorical->get<bool>();
    }
    if (spec.categorical) {
      const auto n_codes = entry.find("n_codes");
      if (n_codes == entry.end()) {
        throw InvalidArgument(FeatureField(i, "n_codes"),
                              "missing (a categorical feature needs n_codes; codes are "
                              "0..n_codes-1)");
      }
      if (n_codes->is_string() && n_codes->get<std::string>() == "?") {
        throw InvalidArgument(FeatureField(i, "n_codes"), "\"?\"",
                              "[1, 16777216]: the number of the feature's codes, known without "
                              "looking at the data (fill in the drafted schema)");
      }
      if (!n_codes->is_number_integer() || n_codes->get<long long>() < 1 ||
          n_codes->get<long long>() > (1 << 24)) {
        throw InvalidArgument(FeatureField(i, "n_codes"), n_codes->dump(),
                              "the integers [1, 16777216]");
      }
      spec.n_codes = n_codes->get<int>();
      spec.codes = internal::ReadCodeNames(entry, i, spec.n_codes);
      spec.min = 0;
      spec.max = spec.n_codes - 1;
      // Optional bounds of a categorical feature are descriptive but must fit the codes.
      for (const char* key : {"min", "max"}) {
        if (entry.contains(key)) {
          const double bound = RequireNumber(entry, key, i);
          Require(bound >= 0 && bound <= spec.max, FeatureField(i, key), bound,
                  "[0, n_codes - 1] = [0, " + std::to_string(spec.n_codes - 1) + "]");
        }
      }
    } else {
      if (entry.contains("n_codes")) {
        throw InvalidArgument(FeatureField(i, "n_codes"),
                              "given for a numeric feature (set \"categorical\": true)");
      }
      spec.min = RequireNumber(entry, "min", i);
      spec.max = RequireNumber(entry, "max", i);
      if (!(spec.min < spec.max)) {
        throw InvalidArgument(FeatureField(i, "max"), FormatNumber(spec.max),
                              "(min, inf) with min = " + FormatNumber(spec.min));
      }
      RequireFiniteWidth(spec, i);
    }
    schema.features.push_back(std::move(spec));
  }
  schema.label = internal::ParseLabelBounds(json, schema.task);
  return schema;
}

Schema Schema::FromFile(const std::string& path) {
  const std::string text =
      internal::ReadDocumentText(path, "schema", internal::kMaxSchemaBytes, "a schema file");
  // Strict: duplicate keys, 1e999, invalid UTF-8, trailing text are refused (json_input.h).
  return FromJson(ParseJson(text, "schema", "file \"" + Abbreviate(path) + "\""));
}

nlohmann::json Schema::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& spec : features) {
    nlohmann::json entry = {{"name", spec.name}, {"categorical", spec.categorical}};
    if (spec.categorical) {
      entry["n_codes"] = spec.n_codes;
      if (!spec.codes.empty()) entry["codes"] = spec.codes;
    } else {
      entry["min"] = spec.min;
      entry["max"] = spec.max;
    }
    list.push_back(std::move(entry));
  }
  nlohmann::json out = {{"task", TaskName(task)}, {"features", std::move(list)}};
  if (label) out["label"] = {{"min", label->min}, {"max", label->max}};
  internal::WriteClasses(*this, out);
  return out;
}

int Schema::FeatureIndex(const std::string& name) const {
  for (std::size_t f = 0; f < features.size(); ++f) {
    if (features[f].name == name) return static_cast<int>(f);
  }
  return -1;
}

std::size_t Dataset::n_rows() const {
  if (binned) return binned->n_rows;
  if (!columns.empty()) return columns.front().size();
  return labels.size();
}

std::size_t Dataset::n_labels() const {
  return binned && !binned->binary_labels.empty() ? binned->binary_labels.size() : labels.size();
}

std::vector<double> Dataset::LabelValues() const {
  if (!binned || binned->binary_labels.empty()) return labels;
  return {binned->binary_labels.begin(), binned->binary_labels.end()};
}

std::vector<double> Dataset::Row(std::size_t row) const {
  std::vector<double> out(columns.size());
  for (std::size_t f = 0; f < columns.size(); ++f) out[f] = columns[f][row];
  return out;
}

std::size_t Dataset::total_clipped() const {
  std::size_t total = 0;
  for (const auto count : clipped) total += count;
  return total;
}

namespace internal {

std::string OpenQuoteHint(std::string_view text) {
  if (std::count(text.begin(), text.end(), '"') % 2 == 0) return "";
  return " (a quoted field with a line break? rdpkit reads one row per line; write the break as "
         "a space)";
}

InvalidArgument RaggedRow(const std::string& source, std::uint64_t row, std::uint64_t line,
                          std::string_view text, std::size_t header_fields) {
  std::vector<std::string_view> fields;
  SplitLine(text, fields);
  return InvalidArgument("data", source + " row " + std::to_string(row) + " (line " +
                                     std::to_string(line) + ") has " +
                                     std::to_string(fields.size()) + " fields, the header has " +
                                     std::to_string(header_fields) + OpenQuoteHint(text));
}

void RequireNamedColumns(const std::vector<std::string>& header, const std::string& source) {
  for (std::size_t c = 0; c < header.size(); ++c) {
    const std::string column = source + ": column " + std::to_string(c + 1) + " of " +
                               std::to_string(header.size()) + " in the header";
    if (header[c].empty()) {
      throw InvalidArgument(
          "data", column + " has no name" +
                      (c + 1 == header.size() ? " (a comma at the end of the line?)" : ""));
    }
    // Names go into schema and model files, CSV headers and onto terminals.
    if (const std::string problem = NameProblem(header[c]); !problem.empty()) {
      throw InvalidArgument("data", column + ", " + Quote(header[c]) + ", " + problem);
    }
  }
}

void RequireDistinctColumns(const std::vector<std::string>& header, const std::string& source,
                            const std::string& label) {
  std::set<std::string_view> names;
  for (const std::string& name : header) {
    // The words of MatchHeader's refusals, which read the data against a schema.
    if (!names.insert(name).second) {
      throw InvalidArgument("data", source + ": " + (name == label ? "label " : "") + "column \"" +
                                        name + "\" appears twice");
    }
  }
}

HeaderColumns MatchHeader(const std::vector<std::string>& header, const Schema& schema,
                          const LoadOptions& options, const std::string& source) {
  RequireNamedColumns(header, source);
  HeaderColumns out;
  int& label_column = out.label_column;
  std::vector<int>& column_of_feature = out.column_of_feature;
  column_of_feature.assign(schema.features.size(), -1);
  std::unordered_map<std::string, int> feature_index;
  for (std::size_t f = 0; f < schema.features.size(); ++f) {
    feature_index.emplace(schema.features[f].name, static_cast<int>(f));
  }
  // A column is a feature or the label, never both (the header would then seem to lack it).
  if (feature_index.count(options.label) > 0) {
    throw InvalidArgument("label", "\"" + options.label +
                                       "\" is a feature of the schema (the label column must be "
                                       "one the schema does not list; pass --label NAME)");
  }
  std::vector<ColumnTarget> targets(header.size());
  std::vector<std::string> extra;
  for (std::size_t c = 0; c < header.size(); ++c) {
    const std::string& name = header[c];
    if (name == options.label) {
      if (label_column >= 0) {
        throw InvalidArgument("data", source + ": label column \"" + name + "\" appears twice");
      }
      label_column = static_cast<int>(c);
      targets[c].kind = options.read_label ? ColumnTarget::kLabel : ColumnTarget::kSkip;
      if (!schema.classes.empty()) {
        targets[c].names = CellNames::Of(schema.classes, "class", nullptr);
      }
      continue;
    }
    const auto it = feature_index.find(name);
    if (it == feature_index.end()) {
      extra.push_back(name);
      continue;
    }
    if (column_of_feature[static_cast<std::size_t>(it->second)] >= 0) {
      throw InvalidArgument("data", source + ": column \"" + name + "\" appears twice");
    }
    column_of_feature[static_cast<std::size_t>(it->second)] = static_cast<int>(c);
    targets[c] = {ColumnTarget::kFeature, it->second, nullptr};
    const FeatureSpec& spec = schema.features[static_cast<std::size_t>(it->second)];
    if (spec.categorical && !spec.codes.empty()) {
      targets[c].names = CellNames::Of(spec.codes, "code", nullptr);
    }
  }
  if (!extra.empty()) {
    std::string list;
    for (const auto& name : extra) list += (list.empty() ? "\"" : ", \"") + name + "\"";
    throw InvalidArgument("data", source + ": column(s) " + list +
                                      " are not in the schema and are not the label column \"" +
                                      options.label +
                                      "\" (remove them, add them to the schema, or pass "
                                      "--label NAME)");
  }
  for (std::size_t f = 0; f < schema.features.size(); ++f) {
    if (column_of_feature[f] < 0) {
      throw InvalidArgument("data", source + ": schema feature \"" + schema.features[f].name +
                                        "\" has no column in the header");
    }
  }
  if (label_column < 0 && options.require_label) {
    throw InvalidArgument("label", source + ": no label column \"" + options.label +
                                       "\" in the header (pass --label NAME)");
  }
  out.targets = std::move(targets);
  return out;
}

Dataset DatasetOfTable(RawTable& table, const Schema& schema, const LoadOptions& options,
                       const HeaderColumns& columns, const std::string& source,
                       std::optional<ValueFault>& fault) {
  Dataset data;
  data.schema = schema;
  data.columns.resize(schema.features.size());
  data.clipped.assign(schema.features.size(), 0);
  for (std::size_t f = 0; f < schema.features.size(); ++f) {
    const FeatureSpec& spec = schema.features[f];
    data.feature_names.push_back(spec.name);
    std::vector<double>& column =
        table.columns[static_cast<std::size_t>(columns.column_of_feature[f])];
    const auto where = [&](std::size_t row) { return RowText(source, table, row, spec.name); };
    try {
      data.clipped[f] = ClipOrCheckColumn(spec, column, where);
    } catch (const InvalidArgument& error) {
      fault = ValueFault{f, error};
      return data;
    }
    data.columns[f] = std::move(column);
  }
  if (columns.label_column >= 0 && options.read_label) {
    std::vector<double>& labels = table.columns[static_cast<std::size_t>(columns.label_column)];
    try {
      CheckLabels(schema, labels,
                  [&](std::size_t row) { return RowText(source, table, row, options.label); });
    } catch (const InvalidArgument& error) {
      fault = ValueFault{schema.features.size(), error};
      return data;
    }
    data.labels = std::move(labels);
  }
  return data;
}

}  // namespace internal

Dataset ParseCsv(std::string_view text, const Schema& schema, const LoadOptions& options,
                 const std::string& source) {
  // The reader in parts (data_parts.cc) over the whole text as one block: one part.
  internal::BlockSource blocks = internal::BlockSource::OfText(text);
  Dataset data;
  internal::ReadCsvParts(blocks, source, schema, options,
                         [&](Dataset&& part) { data = std::move(part); });
  return data;
}

namespace internal {

Schema SchemaFromBlocks(BlockSource& blocks, const std::string& source, const std::string& label,
                        Task task) {
  bool has_label = false;
  auto targets_of_header = [&](const std::vector<std::string>& header) {
    RequireNamedColumns(header, source);
    RequireDistinctColumns(header, source, label);
    std::vector<ColumnTarget> targets(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (header[c] == label) {
        has_label = true;
      } else {
        targets[c] = {ColumnTarget::kFeature, static_cast<int>(c)};
      }
    }
    if (!has_label) {
      throw InvalidArgument("label", source + ": no label column \"" + label +
                                         "\" in the header (pass --label NAME)");
    }
    return targets;
  };
  std::vector<ColumnTarget> targets;
  const auto why_bad = [](std::size_t, std::string_view f) {
    return Quote(FieldString(f)) +
           " is not a number (missing values are empty or NaN; a column of names needs a "
           "schema listing them: rdpkit schema drafts one)";
  };
  // A block of the file at a time: of its values only each column's range is kept.
  TableCursor cursor;
  RawTable table;
  std::vector<ValueRange> ranges;
  while (ReadNextTableBlock(blocks, source, targets_of_header, targets, why_bad, cursor, table)) {
    ranges.resize(table.header.size());
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      for (const double value : table.columns[c]) ranges[c].Add(value);
    }
  }
  RequireHeaderAndRows(cursor, source);
  Schema schema;
  schema.task = task;
  schema.bounds_from_data = true;
  for (std::size_t c = 0; c < table.header.size(); ++c) {
    if (targets[c].kind != ColumnTarget::kFeature) continue;
    FeatureSpec spec;
    spec.name = table.header[c];
    SetBoundsFromRange(ranges[c], spec);
    RequireFiniteWidth(spec, schema.features.size());
    schema.features.push_back(std::move(spec));
  }
  if (schema.features.empty()) {
    throw InvalidArgument("data", source + " has no feature columns besides the label");
  }
  return schema;
}

}  // namespace internal

Schema SchemaFromData(const std::string& csv_path, const std::string& label, Task task) {
  internal::BlockSource blocks = internal::BlockSource::OfFile(csv_path);
  return internal::SchemaFromBlocks(blocks, "\"" + csv_path + "\"", label, task);
}

}  // namespace rdpkit::trees
