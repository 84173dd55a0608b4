// The multiclass fields of a schema (DESIGN.md §4): "n_classes": K and the optional "classes"
// names, the rule for a multiclass label (an integer class index in [0, K)), and the names of a
// categorical feature's codes ("codes"), which are read the same way as the classes' names.
#ifndef RDPKIT_TREES_SRC_SCHEMA_CLASSES_H_
#define RDPKIT_TREES_SRC_SCHEMA_CLASSES_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "rdpkit/trees/data.h"

namespace rdpkit::trees::internal {

// Reads "n_classes" and "classes" into schema (task already set). A multiclass schema needs
// n_classes in [2, Schema::kMaxClasses]; classes, when given, are K distinct non-empty strings. A
// binary schema may name its 2 classes (labels 0 and 1), without n_classes. Either key in a
// regression schema is an InvalidArgument naming it.
void ReadClasses(const nlohmann::json& json, Schema& schema);
// Adds "n_classes" (multiclass) and "classes" (when named) to a schema's canonical JSON.
void WriteClasses(const Schema& schema, nlohmann::json& json);
// Reads a categorical feature's optional "codes" (features[index]): n_codes distinct strings, the
// names of codes 0..n_codes−1; empty when absent. InvalidArgument naming "features[i].codes…".
std::vector<std::string> ReadCodeNames(const nlohmann::json& feature, std::size_t index,
                                       int n_codes);
// What makes text unfit for a name, which goes into JSON files (UTF-8 text), CSV headers and onto
// terminals (no control character, FirstControlCharacter): "is not UTF-8 text (save the file as
// UTF-8)", "holds a control character (\x1B)", or "" when nothing does.
std::string NameProblem(std::string_view name);
// A feature's, code's or class's name of a schema or model has no NameProblem; InvalidArgument
// naming field otherwise.
void RequirePrintableName(const std::string& name, const std::string& field);
// Whether value is a class index of a K-class schema: an integer in [0, K).
bool IsClassLabel(double value, int n_classes);

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_SCHEMA_CLASSES_H_
