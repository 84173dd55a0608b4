// Column checks shared by the CSV reader and data sets built from arrays in memory (the Python
// package): clipping into the schema's bounds, category codes, labels, bounds from the data.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "cell_names.h"
#include "column_checks.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/data.h"
#include "schema_classes.h"

namespace rdpkit::trees {
namespace internal {

std::string NotANumberText(std::string_view field) {
  return csv::Quote(csv::FieldString(field)) + " is not a number (missing values are empty or NaN)";
}

std::string CodeProblem(const FeatureSpec& spec, double value) {
  if (std::isnan(value)) return {};
  if (value != std::floor(value) || value < 0 || value >= spec.n_codes) {
    return FormatNumber(value) + " is not a category code (integers 0.." +
           std::to_string(spec.n_codes - 1) + ")";
  }
  return {};
}

std::string LabelProblem(const Schema& schema, double value) {
  if (std::isnan(value)) return "the label is missing";
  if (!std::isfinite(value)) return FormatNumber(value) + " is not finite";
  if (schema.task == Task::kBinary && value != 0 && value != 1) {
    return FormatNumber(value) + " is not a binary label (0 or 1)";
  }
  if (schema.task == Task::kMulticlass && !IsClassLabel(value, schema.n_classes)) {
    return FormatNumber(value) + " is not a class index (the integers 0.." +
           std::to_string(schema.n_classes - 1) + ")";
  }
  return {};
}

std::size_t ClipOrCheckColumn(const FeatureSpec& spec, std::vector<double>& column,
                              const RowNamer& where) {
  if (spec.categorical) {
    for (std::size_t row = 0; row < column.size(); ++row) {
      const std::string problem = CodeProblem(spec, column[row]);
      if (!problem.empty()) throw InvalidArgument("data", where(row) + ": " + problem);
    }
    return 0;
  }
  std::size_t clipped = 0;
  for (double& value : column) clipped += ClipValue(spec, value) ? 1 : 0;
  return clipped;
}

std::string BadFeatureFieldText(const FeatureSpec& spec, std::string_view field) {
  if (!spec.categorical) return NotANumberText(field);
  return NotACellText(
      field, "the codes 0.." + std::to_string(spec.n_codes - 1) + ", or empty or NaN for missing",
      spec.codes, "codes", "code");
}

std::string BadFieldText(const Schema& schema, const csv::ColumnTarget& target,
                         std::string_view field) {
  if (target.kind == csv::ColumnTarget::kFeature) {
    return BadFeatureFieldText(schema.features[static_cast<std::size_t>(target.feature)], field) +
           OpenQuoteHint(field);
  }
  if (schema.task == Task::kRegression) return NotANumberText(field) + OpenQuoteHint(field);
  return NotACellText(field,
                      schema.task == Task::kMulticlass
                          ? "the class indices 0.." + std::to_string(schema.n_classes - 1)
                          : "the labels 0 and 1",
                      schema.classes, "classes", "class") +
         OpenQuoteHint(field);
}

void CheckLabels(const Schema& schema, const std::vector<double>& labels, const RowNamer& where) {
  for (std::size_t row = 0; row < labels.size(); ++row) {
    const std::string problem = LabelProblem(schema, labels[row]);
    if (!problem.empty()) throw InvalidArgument("label", where(row) + ": " + problem);
  }
}

ValueRange BoundsOfRange(const ValueRange& range) {
  double lo = range.lo;
  double hi = range.hi;
  if (range.empty()) {  // every value missing
    lo = 0;
    hi = 1;
  }
  // Fewer than 2^17 doubles between lo and hi cannot hold distinct split candidates of every
  // count a config allows (up to 65 534), and a width below 2·DBL_MIN no normal label scaling.
  const double scale = std::max(std::fabs(lo), std::fabs(hi));
  const double ulp = std::nextafter(scale, std::numeric_limits<double>::infinity()) - scale;
  if (hi - lo < std::max(2 * std::numeric_limits<double>::min(), ulp * 0x1p17)) {
    // A constant column (or one that narrow): widen by 1, or by 2^-20·|lo| where lo + 1 would
    // round back to lo (|lo| ≥ 2^53), so the bounds hold enough doubles for distinct candidates.
    const double pad = std::max(1.0, std::fabs(lo) * 0x1p-20);
    if (std::isfinite(lo + pad)) {
      hi = lo + pad;
    } else {
      lo = hi - pad;
    }
  }
  return ValueRange{.lo = lo, .hi = hi};
}

void SetBoundsFromRange(const ValueRange& range, FeatureSpec& spec) {
  const ValueRange bounds = BoundsOfRange(range);
  spec.min = bounds.lo;
  spec.max = bounds.hi;
}

void SetBoundsFromValues(const std::vector<double>& values, FeatureSpec& spec) {
  ValueRange range;
  for (const double value : values) range.Add(value);
  SetBoundsFromRange(range, spec);
}

}  // namespace internal

Dataset DatasetFromColumns(const Schema& schema, std::vector<std::vector<double>> columns,
                           std::vector<double> labels, const std::string& source) {
  if (schema.features.empty()) throw InvalidArgument("schema", "has no features");
  if (columns.size() != schema.features.size()) {
    throw InvalidArgument("data", source + " has " + std::to_string(columns.size()) +
                                      " feature columns, the schema has " +
                                      std::to_string(schema.features.size()));
  }
  const std::size_t n_rows = columns[0].size();
  if (n_rows == 0) throw InvalidArgument("data", source + " has no rows");
  for (const auto& column : columns) {
    RDPKIT_CHECK(column.size() == n_rows);
  }
  if (!labels.empty() && labels.size() != n_rows) {
    throw InvalidArgument("label", source + " has " + std::to_string(n_rows) + " rows but " +
                                       std::to_string(labels.size()) + " labels");
  }
  Dataset data;
  data.schema = schema;
  data.clipped.assign(schema.features.size(), 0);
  for (std::size_t f = 0; f < schema.features.size(); ++f) {
    const FeatureSpec& spec = schema.features[f];
    data.feature_names.push_back(spec.name);
    for (const double value : columns[f]) {
      if (std::isinf(value)) {
        throw InvalidArgument("data", source + ", column \"" + spec.name +
                                          "\": " + FormatNumber(value) +
                                          " is not a number (missing values are NaN)");
      }
    }
    data.clipped[f] = internal::ClipOrCheckColumn(spec, columns[f], [&](std::size_t row) {
      return source + " row " + std::to_string(row) + ", column \"" + spec.name + "\"";
    });
  }
  data.columns = std::move(columns);
  internal::CheckLabels(schema, labels,
                        [&](std::size_t row) { return source + " row " + std::to_string(row); });
  data.labels = std::move(labels);
  return data;
}

std::vector<double> CodesOfCells(const FeatureSpec& spec, const std::vector<std::string>& cells,
                                 const std::string& source) {
  const std::shared_ptr<const internal::CellNames> names =
      spec.categorical && !spec.codes.empty() ? internal::CellNames::Of(spec.codes, "code", nullptr)
                                              : nullptr;
  std::vector<double> values(cells.size());
  for (std::size_t row = 0; row < cells.size(); ++row) {
    if (!internal::csv::ReadSlowField(cells[row], names.get(), values[row])) {
      throw InvalidArgument("data", source + " row " + std::to_string(row) + ", column \"" +
                                        spec.name +
                                        "\": " + internal::BadFeatureFieldText(spec, cells[row]));
    }
  }
  return values;
}

Schema SchemaFromColumns(const std::vector<std::string>& names,
                         const std::vector<std::vector<double>>& columns, Task task) {
  RDPKIT_CHECK(names.size() == columns.size());
  if (names.empty()) throw InvalidArgument("data", "has no feature columns");
  Schema schema;
  schema.task = task;
  schema.bounds_from_data = true;
  for (std::size_t f = 0; f < names.size(); ++f) {
    FeatureSpec spec;
    spec.name = names[f];
    internal::SetBoundsFromValues(columns[f], spec);
    schema.features.push_back(std::move(spec));
  }
  // The names, widths and duplicates are checked as for a schema file.
  Schema checked = Schema::FromJson(schema.ToJson());
  checked.bounds_from_data = true;
  return checked;
}

}  // namespace rdpkit::trees
