// Model prediction, validation and the model file (DESIGN.md §6).
#include "rdpkit/trees/model.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "config_keys.h"
#include "forest_margins.h"
#include "model_nodes.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "rdpkit/trees/file_output.h"
#include "schema_classes.h"
#include "softmax.h"
#include "text_file.h"
#include "training_report.h"

namespace rdpkit::trees {
namespace {

constexpr const char* kFormat = "rdpkit-model";
constexpr int kVersion = 1;

const nlohmann::json& Member(const nlohmann::json& object, const char* key,
                             const std::string& field) {
  const auto it = object.find(key);
  if (it == object.end()) throw InvalidArgument(field, "missing");
  return *it;
}

// "n_classes" and "classes" of a model file: required by a multiclass objective (the rules of a
// schema's, schema_classes.h), refused by the others (a binary schema's names stay in "schema").
void ReadModelClasses(const nlohmann::json& json, Model& model) {
  Schema classes;
  classes.task = TaskOfObjective(model.objective);
  if (classes.task != Task::kMulticlass &&
      (json.contains("n_classes") || json.contains("classes"))) {
    throw InvalidArgument(json.contains("n_classes") ? "n_classes" : "classes",
                          "given for a " + TaskName(classes.task) +
                              " model (only a multiclass model lists its classes; a binary "
                              "schema's class names are in \"schema\")");
  }
  internal::ReadClasses(json, classes);
  model.n_classes = classes.n_classes;
  model.classes = classes.classes;
}

}  // namespace

double Sigmoid(double margin) {
  // Written on the side where exp() cannot overflow.
  if (margin >= 0) return 1.0 / (1.0 + std::exp(-margin));
  const double e = std::exp(margin);
  return e / (1.0 + e);
}

int Tree::LeafIndex(const double* row) const {
  int index = 0;
  while (true) {
    const Node& node = nodes[static_cast<std::size_t>(index)];
    if (node.is_leaf()) return index;
    index = GoesLeft(node, row[node.feature]) ? node.left : node.right;
  }
}

double Tree::Predict(const double* row) const {
  return nodes[static_cast<std::size_t>(LeafIndex(row))].value;
}

void Tree::Validate(int n_features, int tree_index) const {
  if (nodes.empty()) {
    throw InvalidArgument("trees[" + std::to_string(tree_index) + "].nodes",
                          "empty (a tree has at least its root)");
  }
  const int n_nodes = static_cast<int>(nodes.size());
  std::vector<char> seen(nodes.size(), 0);
  std::vector<int> stack = {0};
  seen[0] = 1;
  while (!stack.empty()) {
    const int index = stack.back();
    stack.pop_back();
    const auto i = static_cast<std::size_t>(index);
    const Node& node = nodes[i];
    if (node.is_leaf()) {
      if (node.feature != -1) {
        throw InvalidArgument(internal::NodeField(tree_index, i, "feature"),
                              std::to_string(node.feature),
                              "[0, " + std::to_string(n_features) + ") or -1 for a leaf");
      }
      if (!std::isfinite(node.value)) {  // the field's name only for a refusal (large models)
        Require(false, internal::NodeField(tree_index, i, "leaf"), node.value,
                "the finite numbers");
      }
      continue;
    }
    if (node.feature >= n_features) {
      throw InvalidArgument(internal::NodeField(tree_index, i, "feature"),
                            std::to_string(node.feature),
                            "[0, " + std::to_string(n_features) + ") (the model has " +
                                std::to_string(n_features) + " features)");
    }
    if (!std::isfinite(node.threshold)) {
      Require(false, internal::NodeField(tree_index, i, "threshold"), node.threshold,
              "the finite numbers");
    }
    for (const auto& [key, child] :
         {std::pair{"left", node.left}, std::pair{"right", node.right}}) {
      if (child < 1 || child >= n_nodes) {
        throw InvalidArgument(
            internal::NodeField(tree_index, i, key), std::to_string(child),
            "[1, " + std::to_string(n_nodes - 1) + "] (node indices; 0 is the root)");
      }
      const auto c = static_cast<std::size_t>(child);
      if (seen[c]) {
        throw InvalidArgument(internal::NodeField(tree_index, i, key),
                              "node " + std::to_string(child) +
                                  " is reached twice (a cycle or a shared node; trees are trees)");
      }
      seen[c] = 1;
      stack.push_back(child);
    }
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!seen[i]) {
      throw InvalidArgument(internal::NodeField(tree_index, i), "is not reachable from the root");
    }
  }
}

double Model::PredictMargin(const double* row) const {
  double margin = base_score;
  for (const Tree& tree : trees) margin += tree.Predict(row);
  return margin;
}

namespace {

// A binary or regression model's output for a margin: σ(margin) or the margin itself.
double OutputOfMargin(Objective objective, double margin) {
  switch (TaskOfObjective(objective)) {
    case Task::kBinary:
      return Sigmoid(margin);
    case Task::kRegression:
      return margin;
    case Task::kMulticlass:
      break;  // PredictMargins / PredictProbabilities
  }
  RDPKIT_CHECK(false);  // a value outside the enumeration
  return margin;
}

// margins[r·k + c] for rows first..first+count−1 of data (k = 1 or the K classes); `rows` is
// scratch.
void BlockMargins(const internal::ForestMargins& forest, double base_score, const Dataset& data,
                  std::size_t first, std::size_t count, std::size_t k, std::vector<double>& rows,
                  double* margins) {
  const std::size_t m = data.n_features();
  rows.resize(count * m);
  for (std::size_t r = 0; r < count; ++r) {
    for (std::size_t f = 0; f < m; ++f) rows[r * m + f] = data.columns[f][first + r];
  }
  std::fill(margins, margins + count * k, base_score);
  forest.Add(rows.data(), count, k, margins);
}

// Calls on_block(first, count, margins) for each block of data's rows, margins[r·k + c] being
// row first + r's margin of class c (k = 1 or the K classes): the one loop of Predict and
// PredictProbabilities.
template <class OnBlock>
void ForEachMarginBlock(const Model& model, const Dataset& data, std::size_t k,
                        OnBlock&& on_block) {
  if (data.feature_names != model.feature_names) {
    throw InvalidArgument("data", "the data's features do not match the model's " +
                                      std::to_string(model.feature_names.size()) +
                                      " features (same names, same order)");
  }
  const internal::ForestMargins forest(model);
  constexpr std::size_t kBlock = internal::ForestMargins::kBlock;
  std::vector<double> rows;
  std::vector<double> margins(kBlock * k);
  for (std::size_t first = 0; first < data.n_rows(); first += kBlock) {
    const std::size_t count = std::min(kBlock, data.n_rows() - first);
    BlockMargins(forest, model.base_score, data, first, count, k, rows, margins.data());
    on_block(first, count, margins.data());
  }
}

}  // namespace

double Model::PredictRow(const double* row) const {
  return OutputOfMargin(objective, PredictMargin(row));
}

std::vector<double> Model::PredictMargins(const double* row) const {
  RDPKIT_CHECK(n_classes >= 2);
  std::vector<double> margins(static_cast<std::size_t>(n_classes), base_score);
  for (std::size_t t = 0; t < trees.size(); ++t) {
    margins[t % margins.size()] += trees[t].Predict(row);
  }
  return margins;
}

std::vector<double> Model::PredictProbabilities(const Dataset& data) const {
  if (n_classes < 2) throw InvalidArgument("model", "is not a multiclass model");
  const auto k = static_cast<std::size_t>(n_classes);
  std::vector<double> out(data.n_rows() * k);
  ForEachMarginBlock(*this, data, k, [&](std::size_t first, std::size_t count, double* margins) {
    for (std::size_t r = 0; r < count; ++r) {
      internal::ClassProbabilities(objective, &margins[r * k], n_classes, &out[(first + r) * k]);
    }
  });
  return out;
}

std::vector<double> Model::Predict(const Dataset& data) const {
  if (n_classes >= 2) {
    const auto k = static_cast<std::size_t>(n_classes);
    const std::vector<double> p = PredictProbabilities(data);
    std::vector<double> labels(data.n_rows());
    for (std::size_t r = 0; r < labels.size(); ++r) {
      const auto first = p.begin() + static_cast<std::ptrdiff_t>(r * k);
      labels[r] = static_cast<double>(
          std::max_element(first, first + static_cast<std::ptrdiff_t>(k)) - first);
    }
    return labels;
  }
  std::vector<double> predictions(data.n_rows());
  ForEachMarginBlock(*this, data, 1, [&](std::size_t first, std::size_t count, double* margins) {
    for (std::size_t r = 0; r < count; ++r) {
      predictions[first + r] = OutputOfMargin(objective, margins[r]);
    }
  });
  return predictions;
}

nlohmann::json Model::ToJson(bool with_trees) const {
  nlohmann::json tree_list = nlohmann::json::array();
  if (with_trees) {
    for (const Tree& tree : trees) tree_list.push_back(internal::TreeToJson(tree));
  }
  nlohmann::json json = {{"format", kFormat},
                         {"version", kVersion},
                         {"objective", ToString(objective)},
                         {"base_score", base_score},
                         {"feature_names", feature_names},
                         {"trees", std::move(tree_list)},
                         {"config", config},
                         {"privacy", privacy}};
  if (!schema.features.empty()) json["schema"] = schema.ToJson();
  if (!label_column.empty()) json["label_column"] = label_column;
  if (n_classes >= 2) {
    json["n_classes"] = n_classes;
    if (!classes.empty()) json["classes"] = classes;
  }
  return json;
}

namespace {

// FromJson; with taken, the nodes come from there (the document's node arrays hold nulls).
Model FromJsonTaken(const nlohmann::json& json, internal::TakenNodes* taken) {
  if (!json.is_object()) throw InvalidArgument("model", "not a JSON object");
  const auto format = json.find("format");
  if (format == json.end() || *format != kFormat) {
    throw InvalidArgument("format",
                          (format == json.end() ? std::string("missing") : format->dump()) +
                              ": not an rdpkit model (expected \"format\": \"rdpkit-model\")");
  }
  const auto& version = Member(json, "version", "version");
  if (version != kVersion) {
    throw InvalidArgument("version", version.dump(),
                          "{1} (this rdpkit reads model files of version 1)");
  }
  // "report": files written before the training log left the model file carried one; it is
  // accepted and ignored (never read into the model, never written again).
  static const std::set<std::string> kKeys = {
      "format",  "version", "objective", "base_score", "trees",   "feature_names", "config",
      "privacy", "schema",  "report",    "n_classes",  "classes", "label_column"};
  for (const auto& item : json.items()) {
    if (kKeys.count(item.key()) == 0) throw InvalidArgument(item.key(), "unknown model key");
  }
  Model model;
  const auto& objective = Member(json, "objective", "objective");
  const auto parsed = objective.is_string()
                          ? internal::EnumFromString<Objective>(objective.get<std::string>())
                          : std::nullopt;
  if (!parsed) {
    throw InvalidArgument(
        "objective", objective.dump(),
        "{\"binary:logistic\", \"reg:squarederror\", \"multi:softprob\", \"multi:ovr\"}");
  }
  model.objective = *parsed;
  ReadModelClasses(json, model);
  model.base_score = internal::FiniteNumber(Member(json, "base_score", "base_score"), "base_score");

  const auto& names = Member(json, "feature_names", "feature_names");
  if (!names.is_array() || names.empty()) {
    throw InvalidArgument("feature_names", "must be a non-empty list of strings");
  }
  std::set<std::string> unique;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!names[i].is_string()) {
      throw InvalidArgument("feature_names[" + std::to_string(i) + "]", "must be a string");
    }
    model.feature_names.push_back(names[i].get<std::string>());
    internal::RequirePrintableName(model.feature_names.back(),
                                   "feature_names[" + std::to_string(i) + "]");
    if (!unique.insert(model.feature_names.back()).second) {
      throw InvalidArgument("feature_names[" + std::to_string(i) + "]",
                            "\"" + model.feature_names.back() + "\" appears twice");
    }
  }
  const int n_features = static_cast<int>(model.feature_names.size());

  const auto& trees = Member(json, "trees", "trees");
  if (!trees.is_array()) throw InvalidArgument("trees", "must be a list");
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const std::string field = "trees[" + std::to_string(t) + "]";
    if (!trees[t].is_object() || !trees[t].contains("nodes") || !trees[t]["nodes"].is_array()) {
      throw InvalidArgument(field, "must be {\"nodes\": [...]}");
    }
    Tree tree;
    const auto& nodes = trees[t]["nodes"];
    if (taken != nullptr) {
      if (taken->error && taken->error_tree == t) throw *taken->error;
      if (t < taken->trees.size()) tree.nodes = std::move(taken->trees[t]);
      if (tree.nodes.size() != nodes.size()) {
        throw std::logic_error("model: the nodes taken while parsing do not match the document");
      }
    } else {
      tree.nodes.reserve(nodes.size());
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        tree.nodes.push_back(internal::NodeFromJson(nodes[i], static_cast<int>(t), i));
      }
    }
    tree.Validate(n_features, static_cast<int>(t));
    model.trees.push_back(std::move(tree));
  }
  model.config = Member(json, "config", "config");
  if (!model.config.is_object()) throw InvalidArgument("config", "must be a JSON object");
  model.privacy = Member(json, "privacy", "privacy");
  if (!model.privacy.is_object()) throw InvalidArgument("privacy", "must be a JSON object");
  internal::CheckPrivacyBlock(model.privacy);
  if (json.contains("label_column")) {
    const nlohmann::json& label = json["label_column"];
    // A CSV header cell: not empty, no line break or NUL (rdpkit reads one row per line).
    if (!label.is_string() || label.get<std::string>().empty() ||
        label.get<std::string>().find_first_of(std::string("\r\n\0", 3)) != std::string::npos) {
      throw InvalidArgument("label_column", label.dump(),
                            "the names of a CSV column (a non-empty string without line breaks)");
    }
    model.label_column = label.get<std::string>();
    if (std::find(model.feature_names.begin(), model.feature_names.end(), model.label_column) !=
        model.feature_names.end()) {
      throw InvalidArgument("label_column", label.dump() +
                                                " is also a feature name (the label column must "
                                                "be one that is not a feature)");
    }
  }
  if (json.contains("schema")) {
    model.schema = Schema::FromJson(json["schema"]);
    std::vector<std::string> schema_names;
    for (const auto& spec : model.schema.features) schema_names.push_back(spec.name);
    if (schema_names != model.feature_names) {
      throw InvalidArgument("schema.features", "do not match feature_names");
    }
  }
  return model;
}

}  // namespace

Model Model::FromJson(const nlohmann::json& json) { return FromJsonTaken(json, nullptr); }

std::string Model::ToText() const {
  // The JSON of ToJson() + "\n", with the trees written directly: a JSON tree of the whole model
  // costs ~0.5 KB per node (a 1000-tree depth-6 model: ~60 MB), the text ~50 B. The trees are
  // spliced in where the key "trees" holds a placeholder. Its unescaped quotes cannot occur inside
  // a string, but the same key and value can inside another object (a loaded model's config):
  // the placeholder is numbered until the marker occurs exactly once.
  nlohmann::json json = ToJson(/*with_trees=*/false);
  std::string head;
  std::string marker;
  std::size_t at = std::string::npos;
  for (int k = 0; at == std::string::npos; ++k) {
    const std::string placeholder = "@rdpkit-trees-" + std::to_string(k) + "@";
    json["trees"] = placeholder;
    head = json.dump();
    marker = "\"trees\":\"" + placeholder + "\"";
    const std::size_t first = head.find(marker);
    RDPKIT_CHECK(first != std::string::npos);
    if (head.find(marker, first + 1) == std::string::npos) at = first;
  }
  std::string text = head.substr(0, at) + "\"trees\":[";
  std::size_t nodes = 0;
  for (const Tree& tree : trees) nodes += tree.nodes.size();
  text.reserve(head.size() + 64 * nodes);
  for (std::size_t t = 0; t < trees.size(); ++t) {
    if (t > 0) text += ',';
    internal::AppendTree(text, trees[t]);
  }
  text += ']';
  text.append(head, at + marker.size(), std::string::npos);
  text += '\n';
  return text;
}

void Model::Save(const std::string& path) const {
  const std::string text = ToText();
  // A file that Load would refuse is not written.
  if (text.size() > internal::kMaxModelBytes) {
    throw internal::ModelFileTooLarge("the model is", text.size());
  }
  WriteFileAtomically(path, text, "out");
}

Model Model::Parse(std::string_view text, const std::string& origin) {
  internal::TakenNodes taken;
  const nlohmann::json json =
      ParseJsonTaking(text, "model", origin, {}, internal::NodeTaker(taken));
  return FromJsonTaken(json, &taken);
}

Model Model::Load(const std::string& path) {
  const std::string text =
      internal::ReadDocumentText(path, "model", internal::kMaxModelBytes, "a model file");
  // Strict: duplicate keys, 1e999, invalid UTF-8, trailing text are refused (json_input.h).
  internal::TakenNodes taken;
  const nlohmann::json json = ParseJsonTaking(
      text, "model", "model file \"" + Abbreviate(path) + "\" (corrupt or truncated?)", {},
      internal::NodeTaker(taken));
  try {
    return FromJsonTaken(json, &taken);
  } catch (const InvalidArgument& error) {
    throw InvalidArgument("model", "\"" + path + "\": " + error.what());
  }
}

}  // namespace rdpkit::trees
