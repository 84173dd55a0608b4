// The checks a feature or label column goes through however it was read (a CSV file in data.cc,
// arrays in memory in data_columns.cc), so that the two readers give the same Dataset.
#ifndef RDPKIT_TREES_SRC_COLUMN_CHECKS_H_
#define RDPKIT_TREES_SRC_COLUMN_CHECKS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "csv_line.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"

namespace rdpkit::trees::internal {

// Names one row of a column in an error message ("\"train.csv\" row 3 (line 4), column \"age\"").
using RowNamer = std::function<std::string(std::size_t row)>;

// The CSV header matched to the schema (columns in any order): where each column goes, the label
// column (−1: none) and the column of each feature. InvalidArgument "data"/"label" naming a
// duplicate, unknown or missing column.
struct HeaderColumns {
  std::vector<csv::ColumnTarget> targets;
  int label_column = -1;
  std::vector<int> column_of_feature;
};
// The refusal of a row with another number of fields than the header has: "<source> row R (line
// L) has F fields, the header has H", with OpenQuoteHint(line).
InvalidArgument RaggedRow(const std::string& source, std::uint64_t row, std::uint64_t line,
                          std::string_view text, std::size_t header_fields);
// " (a quoted field with a line break? …)" when text holds an odd number of double quotes: rdpkit
// reads one row per line; "" otherwise.
std::string OpenQuoteHint(std::string_view text);

// Refuses a header with a column that has no name (an empty cell: a trailing comma, say),
// naming its position.
void RequireNamedColumns(const std::vector<std::string>& header, const std::string& source);
// Refuses a header that names a column twice (the label column, or another), for readers that
// take every column (the schema drafts); MatchHeader refuses only the columns a schema reads.
void RequireDistinctColumns(const std::vector<std::string>& header, const std::string& source,
                            const std::string& label);

HeaderColumns MatchHeader(const std::vector<std::string>& header, const Schema& schema,
                          const LoadOptions& options, const std::string& source);

// Why a value is not a code of the categorical feature spec ("2.5 is not a category code (integers
// 0..3)"), or empty when it is one or missing.
std::string CodeProblem(const FeatureSpec& spec, double value);
// Why a value is not a label of the schema's task ("the label is missing", "2 is not a binary
// label (0 or 1)", …), or empty.
std::string LabelProblem(const Schema& schema, double value);
// Clips a numeric value into [spec.min, spec.max]; true if it was outside (NaN stays missing).
inline bool ClipValue(const FeatureSpec& spec, double& value) {
  if (value < spec.min) {
    value = spec.min;
    return true;
  }
  if (value > spec.max) {
    value = spec.max;
    return true;
  }
  return false;
}

// A numeric feature: clips every value into [spec.min, spec.max] (NaN stays missing) and returns
// how many were clipped. A categorical feature: every value must be a code 0..n_codes-1 or NaN
// (InvalidArgument "data" naming the row otherwise); returns 0.
std::size_t ClipOrCheckColumn(const FeatureSpec& spec, std::vector<double>& column,
                              const RowNamer& where);

// "\"abc\" is not a number (missing values are empty or NaN)": a numeric column's bad field.
std::string NotANumberText(std::string_view field);
// Why `field` of a column that `target` sends to the schema's features or labels was refused (it
// is no number, nor one of the column's names): "\"abc\" is not a number (…)", or for a
// categorical feature or a multiclass label what its cells may be instead (cell_names.h).
std::string BadFieldText(const Schema& schema, const csv::ColumnTarget& target,
                         std::string_view field);
// The same for a feature's field (a Python text cell, CodesOfCells).
std::string BadFeatureFieldText(const FeatureSpec& spec, std::string_view field);

// Labels are never missing; binary labels are 0 or 1, multiclass labels the class indices
// 0..n_classes-1. InvalidArgument "label" naming the row.
void CheckLabels(const Schema& schema, const std::vector<double>& labels, const RowNamer& where);

// The smallest and largest non-missing value seen (a column read a block at a time).
struct ValueRange {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();

  void Add(double value) {
    if (std::isnan(value)) return;
    lo = std::min(lo, value);
    hi = std::max(hi, value);
  }
  bool empty() const { return !(lo <= hi); }
};

// Bounds from the observed values (--bounds-from-data; LEAKS PRIVACY): the smallest and largest
// non-missing value, [0, 1] when every value is missing, and a constant column (or one spanning
// fewer than 2^17 doubles, or narrower than 2·DBL_MIN, which neither split candidates nor the
// label's scaling resolve) widened so that the bounds hold distinct split candidates and a
// normal half-width. As a ValueRange.
ValueRange BoundsOfRange(const ValueRange& range);
// spec.min and spec.max from BoundsOfRange.
void SetBoundsFromRange(const ValueRange& range, FeatureSpec& spec);
void SetBoundsFromValues(const std::vector<double>& values, FeatureSpec& spec);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_COLUMN_CHECKS_H_
