// Drafting a schema from a CSV (rdpkit schema): names and kinds from the data, bounds left for the
// user to fill in with public values, or taken from the data behind a loud marker.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "cell_names.h"
#include "column_checks.h"
#include "csv_line.h"
#include "csv_table.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"
#include "schema_classes.h"
#include "text_file.h"

namespace rdpkit::trees {
namespace {

using namespace internal::csv;  // NOLINT: the CSV line pieces shared with the readers

// Whole-number columns with values in [0, kMaxDraftCode] are drafted as categorical codes.
constexpr double kMaxDraftCode = 32;

constexpr const char* kBoundsWarning =
    "WARNING: these bounds were read off the data itself. They LEAK PRIVATE INFORMATION (each "
    "feature's exact minimum and maximum, which categories and classes occur) and no epsilon "
    "covers them; rdpkit train refuses this schema unless --bounds-from-data is given, and the "
    "model is then marked not private. Replace them with public bounds and delete this key.";

constexpr const char* kFillInNote =
    "Draft: replace every \"?\" with a PUBLIC value (what is known about the feature without "
    "looking at this data: its unit, its legal range, the number of its codes, the list of its "
    "categories' or the classes' names). Bounds taken from the data leak privacy. Values outside "
    "the bounds are clipped into them when training.";

// One column as the draft sees it, read a block of the file at a time: what its numbers are, and
// its texts that are no number.
struct DraftColumn {
  std::string name;
  internal::ValueRange numbers;  // the smallest and largest number
  bool any_missing = false;      // an empty cell, NaN, NA or ?
  bool codes_only = true;        // every number a whole number in [0, kMaxDraftCode]
  bool binary = true;            // every number 0 or 1
  bool whole = true;             // every number a whole number ≥ 0
  std::set<std::string> texts;   // the distinct cells that are neither
  // For the messages, each with the line it stands on: the first number's and text's cells (a
  // mixed column), and the first number that is neither 0 nor 1 (a binary label).
  std::string a_number, a_text;
  std::size_t a_number_line = 0, a_text_line = 0, not_binary_line = 0;
  double not_binary = 0;

  // A cell read as the number value (NaN: missing), its text `cell`.
  void AddNumber(double value, std::string_view cell, std::size_t line) {
    if (std::isnan(value)) {
      any_missing = true;
      return;
    }
    if (a_number.empty()) {
      a_number = cell;
      a_number_line = line;
    }
    numbers.Add(value);
    codes_only = codes_only && value >= 0 && value <= kMaxDraftCode && value == std::floor(value);
    if (binary && value != 0 && value != 1) {
      binary = false;
      not_binary = value;
      not_binary_line = line;
    }
    whole = whole && value >= 0 && value == std::floor(value);
  }

  // A cell that is no number.
  void AddText(std::string_view cell, std::size_t line) {
    if (a_text.empty()) {
      a_text = cell;
      a_text_line = line;
    }
    if (texts.size() <= static_cast<std::size_t>(1 << 24)) texts.emplace(cell);
  }
};

// Reads every column of the CSV, keeping texts that are no number instead of refusing them. The
// file is read in blocks of whole lines, so a file of any length takes one block and the columns'
// distinct texts.
std::vector<DraftColumn> ReadDraftColumns(internal::BlockSource& blocks, const std::string& source,
                                          const std::string& label) {
  std::vector<DraftColumn> columns;
  std::vector<std::string_view> fields;
  std::string scratch;  // a cell's text when it holds doubled quotes (FieldText)
  std::size_t line_number = 0, row = 0;
  std::string_view block;
  while (blocks.Next(block)) {
    for (std::size_t pos = 0; pos < block.size();) {
      std::size_t stop = block.find('\n', pos);
      if (stop == std::string_view::npos) stop = block.size();
      std::string_view text = block.substr(pos, stop - pos);
      pos = stop + 1;
      ++line_number;
      DropByteOrderMark(text, line_number);
      if (IsBlankLine(text)) continue;
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
      SplitLine(text, fields);
      if (columns.empty()) {
        std::vector<std::string> header;
        for (const auto field : fields) header.emplace_back(FieldString(field));
        internal::RequireNamedColumns(header, source);
        internal::RequireDistinctColumns(header, source, label);
        for (auto& name : header) columns.push_back({.name = std::move(name)});
        continue;
      }
      ++row;
      if (fields.size() != columns.size()) {
        throw internal::RaggedRow(source, row, line_number, text, columns.size());
      }
      for (std::size_t c = 0; c < fields.size(); ++c) {
        double value = 0;
        DraftColumn& column = columns[c];
        const std::string_view cell = FieldText(fields[c], scratch);
        if (ParseField(fields[c], value) != Parsed::kBad) {
          column.AddNumber(value, cell, line_number);
        } else {
          column.AddText(cell, line_number);
        }
      }
    }
  }
  if (columns.empty()) throw InvalidArgument("data", source + " is empty (expected a header row)");
  if (row == 0) throw InvalidArgument("data", source + " has a header but no data rows");
  return columns;
}

// A column of texts: its names (sorted), or an error when numbers are mixed in (a cell "1" would
// be read as code 1, not as a name), there are more than a categorical feature may have, or a
// name could not stand in a cell.
std::vector<std::string> NamesOf(const DraftColumn& column, const std::string& source,
                                 const std::string& what) {
  if (!column.a_number.empty()) {
    throw InvalidArgument("data", source + ", column \"" + column.name + "\": mixes numbers (" +
                                      Quote(column.a_number) + " on line " +
                                      std::to_string(column.a_number_line) + ") and text (" +
                                      Quote(column.a_text) + " on line " +
                                      std::to_string(column.a_text_line) + "); write its " + what +
                                      " all as names or all as integers 0..n-1");
  }
  if (column.texts.size() > static_cast<std::size_t>(1 << 24)) {
    throw InvalidArgument("data", source + ", column \"" + column.name +
                                      "\": more than 16777216 distinct texts (the most a "
                                      "categorical feature may have)");
  }
  std::vector<std::string> names(column.texts.begin(), column.texts.end());
  for (const std::string& name : names) {
    if (const std::string problem = internal::NameProblem(name); !problem.empty()) {
      throw InvalidArgument("data", source + ", column \"" + column.name + "\": its text " +
                                        Quote(name) + " " + problem);
    }
  }
  // Names the data reader could not match in a cell (a blank at an end): the draft would give a
  // schema that refuses its own data.
  std::string why;
  if (internal::CellNames::Of(names, what == "labels" ? "class" : "code", &why) == nullptr) {
    throw InvalidArgument("data", source + ", column \"" + column.name +
                                      "\": its texts cannot be drafted as names: " + why);
  }
  return names;
}

// The task and classes from the label column.
void DraftLabel(const DraftColumn& label, const std::string& source,
                const std::optional<Task>& task, Schema& schema) {
  if (label.any_missing) {
    throw InvalidArgument("label", source + ", label column \"" + label.name +
                                       "\": a label is missing (labels never are)");
  }
  if (!label.texts.empty()) {
    schema.classes = NamesOf(label, source, "labels");
    if (task == Task::kRegression || schema.classes.size() < 2) {
      throw InvalidArgument(
          "data", source + ", label column \"" + label.name +
                      "\": " + std::to_string(schema.classes.size()) + " class name(s) such as " +
                      Quote(schema.classes.front()) +
                      (task == Task::kRegression ? ", but a regression label is a number"
                                                 : "; a classification needs at least 2"));
    }
    schema.task = task ? *task : (schema.classes.size() == 2 ? Task::kBinary : Task::kMulticlass);
    if (schema.task == Task::kBinary && schema.classes.size() != 2) {
      throw InvalidArgument("data", source + ", label column \"" + label.name +
                                        "\": " + std::to_string(schema.classes.size()) +
                                        " class names, a binary label has 2");
    }
    schema.n_classes =
        schema.task == Task::kMulticlass ? static_cast<int>(schema.classes.size()) : 0;
    return;
  }
  schema.task = task ? *task : (label.binary ? Task::kBinary : Task::kRegression);
  // What the data reader would refuse in every row holding it (ReadLabel), refused here.
  if (schema.task == Task::kBinary && !label.binary) {
    throw InvalidArgument("label", source + ", label column \"" + label.name +
                                       "\": " + FormatNumber(label.not_binary) + " on line " +
                                       std::to_string(label.not_binary_line) +
                                       " is not a binary label (0 or 1, or two class names)");
  }
  if (schema.task == Task::kMulticlass) {
    if (!label.whole) {
      throw InvalidArgument("label", source + ", label column \"" + label.name +
                                         "\": a multiclass label is a class index 0..K-1 or a "
                                         "class name, not a fraction or a negative number");
    }
    if (label.numbers.hi >= Schema::kMaxClasses) {
      throw InvalidArgument("label", source + ", label column \"" + label.name +
                                         "\": class index " + FormatNumber(label.numbers.hi) +
                                         " is beyond the most classes a schema may have (" +
                                         std::to_string(Schema::kMaxClasses) + ")");
    }
    schema.n_classes = std::max(2, static_cast<int>(label.numbers.hi) + 1);
  } else if (schema.task == Task::kRegression) {
    // A constant label is widened as a constant feature is.
    const internal::ValueRange bounds = internal::BoundsOfRange(label.numbers);
    schema.label = LabelBounds{.min = bounds.lo, .max = bounds.hi};
  }
}

}  // namespace

namespace internal {

Schema DraftSchemaOfBlocks(BlockSource& blocks, const std::string& source, const std::string& label,
                           const std::optional<Task>& task) {
  const std::vector<DraftColumn> columns = ReadDraftColumns(blocks, source, label);
  Schema schema;
  schema.bounds_from_data = true;
  bool has_label = false;
  for (const DraftColumn& column : columns) {
    if (column.name == label) {
      DraftLabel(column, source, task, schema);
      has_label = true;
      continue;
    }
    FeatureSpec spec;
    spec.name = column.name;
    if (!column.texts.empty()) {
      spec.categorical = true;
      spec.codes = NamesOf(column, source, "values");
      spec.n_codes = static_cast<int>(spec.codes.size());
      spec.max = spec.n_codes - 1;
    } else if (column.codes_only && !column.numbers.empty()) {
      // Whole numbers in [0, kMaxDraftCode] only: category codes; at least two, as a constant
      // numeric column is widened, so that the feature can be split.
      spec.categorical = true;
      spec.n_codes = std::max(2, static_cast<int>(column.numbers.hi) + 1);
      spec.max = spec.n_codes - 1;
    } else {
      internal::SetBoundsFromRange(column.numbers, spec);
    }
    schema.features.push_back(std::move(spec));
  }
  if (!has_label) {
    throw InvalidArgument(
        "label", source + ": no label column \"" + label + "\" in the header (pass --label NAME)");
  }
  if (schema.features.empty()) {
    throw InvalidArgument("data", source + " has no feature columns besides the label");
  }
  // The names, widths and duplicates are checked as for a schema file.
  Schema checked = Schema::FromJson(schema.ToJson());
  checked.bounds_from_data = true;
  return checked;
}

}  // namespace internal

Schema DraftSchema(const std::string& csv_path, const std::string& label,
                   const std::optional<Task>& task) {
  internal::BlockSource blocks = internal::BlockSource::OfFile(csv_path);
  return internal::DraftSchemaOfBlocks(blocks, "\"" + csv_path + "\"", label, task);
}

nlohmann::json SchemaDraftJson(const Schema& draft, bool with_data_bounds) {
  const nlohmann::json ask = "?";
  nlohmann::json features = nlohmann::json::array();
  for (const FeatureSpec& spec : draft.features) {
    nlohmann::json entry = {{"name", spec.name}, {"categorical", spec.categorical}};
    if (spec.categorical) {
      entry["n_codes"] = with_data_bounds ? nlohmann::json(spec.n_codes) : ask;
      if (!spec.codes.empty()) entry["codes"] = with_data_bounds ? nlohmann::json(spec.codes) : ask;
    } else {
      entry["min"] = with_data_bounds ? nlohmann::json(spec.min) : ask;
      entry["max"] = with_data_bounds ? nlohmann::json(spec.max) : ask;
    }
    features.push_back(std::move(entry));
  }
  nlohmann::json out = {{"task", TaskName(draft.task)}};
  if (draft.task == Task::kMulticlass) {
    out["n_classes"] = with_data_bounds ? nlohmann::json(draft.n_classes) : ask;
  }
  if (!draft.classes.empty()) {
    out["classes"] = with_data_bounds ? nlohmann::json(draft.classes) : ask;
  }
  out["features"] = std::move(features);
  if (draft.task == Task::kRegression) {
    out["label"] = with_data_bounds && draft.label
                       ? nlohmann::json{{"min", draft.label->min}, {"max", draft.label->max}}
                       : nlohmann::json{{"min", ask}, {"max", ask}};
  }
  if (with_data_bounds) {
    out["bounds_from_data"] = kBoundsWarning;
  } else {
    out["note"] = kFillInNote;
  }
  return out;
}

}  // namespace rdpkit::trees
