#include "schema_classes.h"

#include <cmath>
#include <set>
#include <string>

#include "csv_line.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {

std::string NameProblem(std::string_view name) {
  if (!IsUtf8(name)) return "is not UTF-8 text (save the file as UTF-8)";
  if (const std::string control = FirstControlCharacter(name); !control.empty()) {
    return "holds a control character (" + control + ")";
  }
  return "";
}

void RequirePrintableName(const std::string& name, const std::string& field) {
  if (const std::string problem = NameProblem(name); !problem.empty()) {
    throw InvalidArgument(field, csv::Quote(name) + " " + problem +
                                     "; names are printed in CSV headers and on terminals");
  }
}

namespace {

// A list of `count` distinct non-empty names at `field` (`whose` says where count comes from).
std::vector<std::string> ReadNames(const nlohmann::json& list, const std::string& field,
                                   const std::string& whose, int count) {
  if (list.is_string() && list.get<std::string>() == "?") {
    throw InvalidArgument(field, "\"?\"",
                          "the lists of " + std::to_string(count) + " names (" + whose +
                              "), known without looking at the data (fill in the drafted schema)");
  }
  if (!list.is_array() || list.size() != static_cast<std::size_t>(count)) {
    throw InvalidArgument(
        field, "must be a list of " + std::to_string(count) + " names (" + whose +
                   (list.is_array() ? "; it has " + std::to_string(list.size()) + ")" : ")"));
  }
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (std::size_t k = 0; k < list.size(); ++k) {
    const auto& name = list[k];
    const std::string at = field + "[" + std::to_string(k) + "]";
    if (!name.is_string() || name.get<std::string>().empty()) {
      throw InvalidArgument(at, "must be a non-empty string");
    }
    RequirePrintableName(name.get<std::string>(), at);
    if (!seen.insert(name.get<std::string>()).second) {
      throw InvalidArgument(at, "\"" + name.get<std::string>() + "\" appears twice");
    }
    names.push_back(name.get<std::string>());
  }
  return names;
}

}  // namespace

void ReadClasses(const nlohmann::json& json, Schema& schema) {
  const auto n_classes = json.find("n_classes");
  const auto classes = json.find("classes");
  schema.classes.clear();
  if (schema.task == Task::kRegression && (n_classes != json.end() || classes != json.end())) {
    throw InvalidArgument(n_classes != json.end() ? "n_classes" : "classes",
                          "given for a regression schema (only binary and multiclass schemas "
                          "have classes)");
  }
  if (schema.task == Task::kBinary) {
    if (n_classes != json.end()) {
      throw InvalidArgument("n_classes",
                            "given for a binary schema (it has 2 classes, labels 0 and 1; "
                            "\"classes\" may name them)");
    }
    if (classes != json.end()) {
      schema.classes = ReadNames(*classes, "classes", "class 0, class 1", 2);
    }
    return;
  }
  if (schema.task != Task::kMulticlass) return;
  const std::string accepted = "the integers [2, " + std::to_string(Schema::kMaxClasses) + "]";
  if (n_classes == json.end()) {
    throw InvalidArgument("n_classes",
                          "missing (a multiclass schema needs the number of classes K; labels "
                          "are 0..K-1)");
  }
  if (n_classes->is_string() && n_classes->get<std::string>() == "?") {
    throw InvalidArgument("n_classes", "\"?\"",
                          accepted +
                              ": the number of classes, known without looking at the "
                              "data (fill in the drafted schema)");
  }
  if (!n_classes->is_number_integer() || n_classes->get<long long>() < 2 ||
      n_classes->get<long long>() > Schema::kMaxClasses) {
    throw InvalidArgument("n_classes", n_classes->dump(), accepted);
  }
  schema.n_classes = n_classes->get<int>();
  if (classes == json.end()) return;
  schema.classes = ReadNames(*classes, "classes", "n_classes = " + std::to_string(schema.n_classes),
                             schema.n_classes);
}

void WriteClasses(const Schema& schema, nlohmann::json& json) {
  if (schema.task == Task::kMulticlass) json["n_classes"] = schema.n_classes;
  if (!schema.classes.empty()) json["classes"] = schema.classes;
}

std::vector<std::string> ReadCodeNames(const nlohmann::json& feature, std::size_t index,
                                       int n_codes) {
  const auto codes = feature.find("codes");
  if (codes == feature.end()) return {};
  return ReadNames(*codes, "features[" + std::to_string(index) + "].codes",
                   "n_codes = " + std::to_string(n_codes), n_codes);
}

bool IsClassLabel(double value, int n_classes) {
  return value >= 0 && value < n_classes && std::floor(value) == value;
}

}  // namespace rdpkit::trees::internal
