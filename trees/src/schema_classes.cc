#include "schema_classes.h"

#include <cmath>
#include <set>
#include <string>

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {

void ReadClasses(const nlohmann::json& json, Schema& schema) {
  const auto n_classes = json.find("n_classes");
  const auto classes = json.find("classes");
  if (schema.task != Task::kMulticlass) {
    if (n_classes != json.end() || classes != json.end()) {
      throw InvalidArgument(n_classes != json.end() ? "n_classes" : "classes",
                            "given for a " + TaskName(schema.task) +
                                " schema (only \"task\": \"multiclass\" has classes)");
    }
    return;
  }
  const std::string accepted = "the integers [2, " + std::to_string(Schema::kMaxClasses) + "]";
  if (n_classes == json.end()) {
    throw InvalidArgument("n_classes",
                          "missing (a multiclass schema needs the number of classes K; labels "
                          "are 0..K-1)");
  }
  if (!n_classes->is_number_integer() || n_classes->get<long long>() < 2 ||
      n_classes->get<long long>() > Schema::kMaxClasses) {
    throw InvalidArgument("n_classes", n_classes->dump(), accepted);
  }
  schema.n_classes = n_classes->get<int>();
  schema.classes.clear();
  if (classes == json.end()) return;
  if (!classes->is_array() || classes->size() != static_cast<std::size_t>(schema.n_classes)) {
    throw InvalidArgument(
        "classes", "must be a list of n_classes = " + std::to_string(schema.n_classes) + " names");
  }
  std::set<std::string> seen;
  for (std::size_t k = 0; k < classes->size(); ++k) {
    const auto& name = (*classes)[k];
    const std::string field = "classes[" + std::to_string(k) + "]";
    if (!name.is_string() || name.get<std::string>().empty()) {
      throw InvalidArgument(field, "must be a non-empty string");
    }
    if (!seen.insert(name.get<std::string>()).second) {
      throw InvalidArgument(field, "\"" + name.get<std::string>() + "\" appears twice");
    }
    schema.classes.push_back(name.get<std::string>());
  }
}

void WriteClasses(const Schema& schema, nlohmann::json& json) {
  if (schema.task != Task::kMulticlass) return;
  json["n_classes"] = schema.n_classes;
  if (!schema.classes.empty()) json["classes"] = schema.classes;
}

bool IsClassLabel(double value, int n_classes) {
  return value >= 0 && value < n_classes && std::floor(value) == value;
}

}  // namespace rdpkit::trees::internal
