// The multiclass fields of a schema (DESIGN.md §4): "n_classes": K and the optional "classes"
// names, and the rule for a multiclass label (an integer class index in [0, K)).
#ifndef RDPKIT_TREES_SRC_SCHEMA_CLASSES_H_
#define RDPKIT_TREES_SRC_SCHEMA_CLASSES_H_

#include <nlohmann/json.hpp>
#include <string>

#include "rdpkit/trees/data.h"

namespace rdpkit::trees::internal {

// Reads "n_classes" and "classes" into schema (task already set). A multiclass schema needs
// n_classes in [2, Schema::kMaxClasses]; classes, when given, are K distinct non-empty strings.
// Either key in a binary or regression schema is an InvalidArgument naming it.
void ReadClasses(const nlohmann::json& json, Schema& schema);
// Adds "n_classes" (and "classes" when named) to a schema's canonical JSON (multiclass only).
void WriteClasses(const Schema& schema, nlohmann::json& json);
// Whether value is a class index of a K-class schema: an integer in [0, K).
bool IsClassLabel(double value, int n_classes);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_SCHEMA_CLASSES_H_
