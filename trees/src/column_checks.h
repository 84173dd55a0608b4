// The checks a feature or label column goes through however it was read (a CSV file in data.cc,
// arrays in memory in data_columns.cc), so that the two readers give the same Dataset.
#ifndef RDPKIT_TREES_SRC_COLUMN_CHECKS_H_
#define RDPKIT_TREES_SRC_COLUMN_CHECKS_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "rdpkit/trees/data.h"

namespace rdpkit::trees::internal {

// Names one row of a column in an error message ("\"train.csv\" row 3 (line 4), column \"age\"").
using RowNamer = std::function<std::string(std::size_t row)>;

// A numeric feature: clips every value into [spec.min, spec.max] (NaN stays missing) and returns
// how many were clipped. A categorical feature: every value must be a code 0..n_codes-1 or NaN
// (InvalidArgument "data" naming the row otherwise); returns 0.
std::size_t ClipOrCheckColumn(const FeatureSpec& spec, std::vector<double>& column,
                              const RowNamer& where);

// Labels are never missing; binary labels are 0 or 1, multiclass labels the class indices
// 0..n_classes-1. InvalidArgument "label" naming the row.
void CheckLabels(const Schema& schema, const std::vector<double>& labels, const RowNamer& where);

// spec.min and spec.max from the observed values (--bounds-from-data; LEAKS PRIVACY): the
// smallest and largest non-missing value, [0, 1] when every value is missing, and a constant
// column widened so that the bounds hold distinct split candidates.
void SetBoundsFromValues(const std::vector<double>& values, FeatureSpec& spec);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_COLUMN_CHECKS_H_
