// Tabular data for the trees module (DESIGN.md §4): a JSON schema with public feature bounds and
// a CSV reader that clips values into those bounds (counting every clipped value) and keeps
// missing values as NaN.
#ifndef RDPKIT_TREES_DATA_H_
#define RDPKIT_TREES_DATA_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdpkit::trees {

enum class Task { kBinary, kRegression, kMulticlass };

// "binary" / "regression" / "multiclass".
std::string TaskName(Task task);

struct FeatureSpec {
  std::string name;
  double min = 0;  // public lower bound; min < max (categorical: 0)
  double max = 0;  // public upper bound (categorical: n_codes - 1)
  bool categorical = false;
  int n_codes = 0;  // categorical only, >= 1; codes are 0..n_codes-1
  // Categorical only, optional: codes[i] is the name of code i (the schema's "codes"; n_codes
  // distinct strings, or empty when none are given). Data cells may hold a name instead of its
  // code when no name reads as a number or as missing (DESIGN.md §4).
  std::vector<std::string> codes;
};

// Public bounds of a regression label (DESIGN.md §4): min < max, both finite. The trainer boosts on
// labels mapped to [−1, 1] by them (docs/trees_training.md, "Regression").
struct LabelBounds {
  double min = 0;
  double max = 0;
};

struct Schema {
  Task task = Task::kBinary;
  std::vector<FeatureSpec> features;
  // Regression only: public label bounds ("label": {"min", "max"}); absent → labels used as they
  // are, gradients clipped at gradient_clip in label units.
  std::optional<LabelBounds> label;
  // multiclass only: K = n_classes ∈ [2, kMaxClasses] (labels are the class indices 0..K−1) and
  // optionally the K distinct class names (empty: none given).
  static constexpr int kMaxClasses = 1000;
  int n_classes = 0;
  std::vector<std::string> classes;
  // true when the bounds were read off the training data (SchemaFromData): they are not public,
  // so a model trained with them is never called private. Not part of the schema JSON.
  bool bounds_from_data = false;

  // DESIGN.md §4: {"task": "binary"|"regression"|"multiclass", ["n_classes": K, "classes": [..]],
  // "features": [{"name", "min", "max", "categorical", "n_codes", "codes"}, ...], "label": {"min",
  // "max"} (regression, optional)}. Descriptive keys (name, origin, n_missing, a numeric feature's
  // codes, ...) are accepted and ignored. Missing bounds, min >= max, non-finite bounds, a width
  // max - min that overflows
  // ("features[3].min/max"), bad n_codes, duplicate names -> InvalidArgument naming e.g.
  // "features[3].max".
  static Schema FromJson(const nlohmann::json& json);
  // Reads and parses a schema file; errors name the field "schema".
  static Schema FromFile(const std::string& path);
  // The canonical form (only the keys above).
  nlohmann::json ToJson() const;
  // Index of the feature called name, or -1.
  int FeatureIndex(const std::string& name) const;
};

// The feature values of a data set read by LoadCsvBinned (binned_csv.h): each value only as its bin
// of split candidates that the schema alone fixes, one byte (255: missing), column by column.
struct BinnedFeatures {
  std::string method;  // split_candidates.method of the candidates (uniform, log, uniform_and_log)
  int count = 0;       // split_candidates.count
  int categorical_count = 0;  // split_candidates.categorical_count
  std::size_t n_rows = 0;
  std::vector<std::vector<double>> candidates;  // per feature, as the trainer would draw them
  std::vector<std::uint8_t> bins;               // bins[f · n_rows + row]
  std::vector<std::uint8_t> has_missing;        // per feature: 1 if a value is missing
  // A binary schema's labels (0/1), one byte a row; Dataset::labels is then empty.
  std::vector<std::uint8_t> binary_labels;
};

struct Dataset {
  Schema schema;
  std::vector<std::string> feature_names;  // schema order
  std::vector<std::vector<double>>
      columns;                       // columns[f][row]; clipped into [min, max]; NaN = missing
  std::vector<double> labels;        // binary: 0/1; empty if the CSV had no label column
  std::vector<std::size_t> clipped;  // per feature: how many values were clipped
  // Set instead of `columns` by LoadCsvBinned: the values as bins only (training, not prediction).
  std::shared_ptr<const BinnedFeatures> binned;

  std::size_t n_rows() const;
  // How many labels the data has, in either form (labels or binned->binary_labels).
  std::size_t n_labels() const;
  // The labels as numbers, in either form (a copy).
  std::vector<double> LabelValues() const;
  std::size_t n_features() const { return binned ? binned->candidates.size() : columns.size(); }
  // One row in schema order (copies; for prediction of single rows and tests).
  std::vector<double> Row(std::size_t row) const;
  // Sum of clipped.
  std::size_t total_clipped() const;
};

// The label column's name when none is given (--label, LoadOptions, a model without label_column).
inline constexpr const char* kDefaultLabelColumn = "label";

struct LoadOptions {
  std::string label = kDefaultLabelColumn;  // name of the label column
  bool require_label = true;  // false: a missing label column is allowed (labels stay empty)
  bool read_label = true;     // false: a label column, if present, is skipped unread (predict)
};

// Reads a CSV with a header row. Columns are matched to the schema by name (any order); the label
// column is options.label. A column neither in the schema nor the label is an error naming it.
// Values: decimal numbers; empty, "NaN", "nan", "NA", "?" are missing (NaN). Numeric features
// outside [min, max] are clipped and counted in Dataset::clipped. Categorical features must be
// integer codes in [0, n_codes) (or missing), or the codes' names (FeatureSpec::codes). Binary
// labels must be 0 or 1, multiclass labels integers in [0, n_classes) or the class names
// (Schema::classes); labels are never missing. Errors are InvalidArgument naming the file, row
// (1-based data row, header = row 0) and column. With several faults in a file, the first field
// that is no number (or ragged row), else the first bad code of the first feature in schema order
// that has one, else the first bad label. The file is read in blocks (LoadCsvParts, appended): its
// text is never held whole.
Dataset LoadCsv(const std::string& csv_path, const Schema& schema, const LoadOptions& options = {});
// LoadCsv in parts, for a file too large to hold (predict and evaluate of millions of rows): reads
// blocks of whole lines (about 16 MiB each; a regular file, a pipe or a device) and calls
// on_part(part) with each block's rows as a Dataset (its clipped counts are the part's), in file
// order. The same checks and messages as LoadCsv, with rows and lines numbered in the whole file,
// and the same refusal of a file with several faults: a field that is no number is thrown when
// its block is read, a bad code or label after the rest of the file was read (no part is handed on
// after its block), so a caller that writes output must not publish it until the call returns.
// Memory: one block and its part.
void LoadCsvParts(const std::string& csv_path, const Schema& schema, const LoadOptions& options,
                  const std::function<void(Dataset&& part)>& on_part);
// Same, from text already in memory (source names it in messages).
Dataset ParseCsv(std::string_view text, const Schema& schema, const LoadOptions& options = {},
                 const std::string& source = "data");

// A data set from feature columns already in memory (columns[f][row] in schema order; the Python
// package's arrays): the same clipping into the bounds, code and label checks as ParseCsv, so
// the same values give the same Dataset. Infinite feature values are refused (the CSV reader
// refuses them too); errors name `source`, the 0-based row and the column.
Dataset DatasetFromColumns(const Schema& schema, std::vector<std::vector<double>> columns,
                           std::vector<double> labels, const std::string& source = "data");
// The values of one feature's cells given as text (the Python package's text columns), each read
// as the CSV reader reads a cell of that feature: a number is itself, an empty cell, NaN, NA or ?
// is missing (NaN), and for a categorical feature any other text is the code it names
// (FeatureSpec::codes, where they can stand in cells). The codes' range is checked later
// (DatasetFromColumns). InvalidArgument "data" naming `source`, the 0-based row and the column.
std::vector<double> CodesOfCells(const FeatureSpec& spec, const std::vector<std::string>& cells,
                                 const std::string& source = "data");
// Bounds read off columns in memory (LEAKS PRIVACY; bounds_from_data = true), by the rule of
// SchemaFromData; names as in a schema file (unique, non-empty).
Schema SchemaFromColumns(const std::vector<std::string>& names,
                         const std::vector<std::vector<double>>& columns, Task task);

// --bounds-from-data (LEAKS PRIVACY; the CLI prints a warning): every non-label column becomes a
// numeric feature whose bounds are the observed min and max (max widened when min == max).
Schema SchemaFromData(const std::string& csv_path, const std::string& label, Task task);

// A draft schema for a CSV (rdpkit schema): feature names in column order; a column whose values
// are all whole numbers in [0, 32] is drafted categorical (n_codes = its largest value + 1),
// any other numeric; the task is `task`, or binary when every label is 0 or 1 and regression
// otherwise. The bounds are the data's own (bounds_from_data = true): SchemaDraftJson decides
// whether they are written at all.
Schema DraftSchema(const std::string& csv_path, const std::string& label,
                   const std::optional<Task>& task);
// The draft as schema JSON. with_data_bounds = false: every bound and n_codes is "?", for the
// user to fill in with public values (the trainer refuses a "?" by name). true: the data's bounds
// and a top-level "bounds_from_data" warning, which the trainer refuses unless --bounds-from-data.
nlohmann::json SchemaDraftJson(const Schema& draft, bool with_data_bounds);

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_DATA_H_
