#include "model_nodes.h"

#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "text_file.h"

namespace rdpkit::trees::internal {
namespace {

nlohmann::json NodeToJson(const Node& node) {
  if (node.is_leaf()) return {{"leaf", node.value}};
  return {{"feature", node.feature},
          {"threshold", node.threshold},
          {"default_left", node.default_left},
          {"left", node.left},
          {"right", node.right}};
}

// Reading a model's nodes is most of loading a large model, so a node's field names are only
// written out for a refusal, and its members are found in one pass over the object.
bool IsFinite(const nlohmann::json& value) {
  return value.is_number() && std::isfinite(value.get<double>());
}
bool IsNodeIndex(const nlohmann::json& value) {
  return value.is_number_integer() && value.get<long long>() >= -1 &&
         value.get<long long>() <= (1LL << 30);
}

int Index(const nlohmann::json& value, const std::string& field) {
  if (!IsNodeIndex(value))
    throw InvalidArgument(field, value.dump(), "node indices (integers >= -1)");
  return value.get<int>();
}

// A double as JSON text in nlohmann::json's layout (the shortest digits that read back to the same
// double, std::to_chars, placed as nlohmann's dtoa places them: fixed notation with ".0" for
// decimal exponents in (−4, 15], otherwise d.ddde±XX), so that the trees read like the rest of the
// file. Non-finite values are written as null, as nlohmann::json writes them.
void AppendDouble(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  RDPKIT_CHECK(result.ec == std::errc());
  const std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  const std::size_t e = text.find('e');
  std::string_view mantissa = text.substr(0, e);
  if (!mantissa.empty() && mantissa.front() == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  char digit_buffer[32];  // d.ddd without the point (≤ 17 digits; no allocation per number)
  std::size_t count = 0;
  for (char c : mantissa) {
    if (c != '.') digit_buffer[count++] = c;
  }
  const std::string_view digits(digit_buffer, count);
  int exponent = 0;
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(),
                  exponent);
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;  // the value is 0.digits × 10^n
  if (k <= n && n <= 15) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
    out += ".0";
  } else if (0 < n && n <= 15) {
    out.append(digits, 0, static_cast<std::size_t>(n));
    out += '.';
    out.append(digits, static_cast<std::size_t>(n), std::string::npos);
  } else if (-4 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out.append(digits, 1, std::string::npos);
    }
    out += 'e';
    const int shown = n - 1;
    out += shown < 0 ? '-' : '+';
    const int magnitude = shown < 0 ? -shown : shown;
    if (magnitude < 10) out += '0';
    out += std::to_string(magnitude);
  }
}

}  // namespace

std::string NodeField(int tree, std::size_t node, const char* key) {
  std::string field = "trees[" + std::to_string(tree) + "].nodes[" + std::to_string(node) + "]";
  if (key != nullptr) field += std::string(".") + key;
  return field;
}

double FiniteNumber(const nlohmann::json& value, const std::string& field) {
  if (!value.is_number()) throw InvalidArgument(field, value.dump(), "the finite numbers");
  const double number = value.get<double>();
  Require(std::isfinite(number), field, number, "the finite numbers");
  return number;
}

Node NodeFromJson(const nlohmann::json& json, int tree, std::size_t index) {
  const auto field = [&](const char* key = nullptr) { return NodeField(tree, index, key); };
  if (!json.is_object()) throw InvalidArgument(field(), "must be a JSON object");
  Node node;
  const auto& members = json.get_ref<const nlohmann::json::object_t&>();
  if (const auto leaf = members.find("leaf"); leaf != members.end()) {
    if (members.size() != 1) {
      throw InvalidArgument(field(), "a leaf has exactly one key, \"leaf\"; got " + json.dump());
    }
    node.value = IsFinite(leaf->second) ? leaf->second.get<double>()
                                        : FiniteNumber(leaf->second, field("leaf"));
    return node;
  }
  const nlohmann::json* feature = nullptr;
  const nlohmann::json* threshold = nullptr;
  const nlohmann::json* default_left = nullptr;
  const nlohmann::json* left = nullptr;
  const nlohmann::json* right = nullptr;
  for (const auto& [key, value] : members) {
    if (key == "feature") {
      feature = &value;
    } else if (key == "threshold") {
      threshold = &value;
    } else if (key == "default_left") {
      default_left = &value;
    } else if (key == "left") {
      left = &value;
    } else if (key == "right") {
      right = &value;
    } else {
      throw InvalidArgument(JsonPathKey(field(), key), "unknown key in a split node");
    }
  }
  if (feature == nullptr) throw InvalidArgument(field("feature"), "missing");
  if (!feature->is_number_integer() || feature->get<long long>() < 0 ||
      feature->get<long long>() > (1LL << 30)) {
    throw InvalidArgument(field("feature"), feature->dump(), "feature indices (integers >= 0)");
  }
  node.feature = feature->get<int>();
  if (threshold == nullptr) throw InvalidArgument(field("threshold"), "missing");
  node.threshold = IsFinite(*threshold) ? threshold->get<double>()
                                        : FiniteNumber(*threshold, field("threshold"));
  if (default_left == nullptr) throw InvalidArgument(field("default_left"), "missing");
  if (!default_left->is_boolean()) {
    throw InvalidArgument(field("default_left"), default_left->dump(), "{true, false}");
  }
  node.default_left = default_left->get<bool>();
  if (left == nullptr) throw InvalidArgument(field("left"), "missing");
  node.left = IsNodeIndex(*left) ? left->get<int>() : Index(*left, field("left"));
  if (right == nullptr) throw InvalidArgument(field("right"), "missing");
  node.right = IsNodeIndex(*right) ? right->get<int>() : Index(*right, field("right"));
  return node;
}

JsonArrayTaker NodeTaker(TakenNodes& taken) {
  return {{"trees", "*", "nodes"},
          [&taken](const std::vector<std::size_t>& indices, nlohmann::json&& element) {
            if (taken.error) return;
            const std::size_t t = indices[0];
            if (taken.trees.size() <= t) taken.trees.resize(t + 1);
            try {
              taken.trees[t].push_back(NodeFromJson(element, static_cast<int>(t), indices[1]));
            } catch (const InvalidArgument& error) {
              taken.error = error;
              taken.error_tree = t;
            }
          }};
}

nlohmann::json TreeToJson(const Tree& tree) {
  nlohmann::json node_list = nlohmann::json::array();
  for (const Node& node : tree.nodes) node_list.push_back(NodeToJson(node));
  return {{"nodes", std::move(node_list)}};
}
// Keys in nlohmann's sorted order.
void AppendTree(std::string& out, const Tree& tree) {
  out += "{\"nodes\":[";
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const Node& node = tree.nodes[i];
    if (i > 0) out += ',';
    if (node.is_leaf()) {
      out += "{\"leaf\":";
      AppendDouble(out, node.value);
    } else {
      out += node.default_left ? "{\"default_left\":true,\"feature\":"
                               : "{\"default_left\":false,\"feature\":";
      out += std::to_string(node.feature);
      out += ",\"left\":";
      out += std::to_string(node.left);
      out += ",\"right\":";
      out += std::to_string(node.right);
      out += ",\"threshold\":";
      AppendDouble(out, node.threshold);
    }
    out += '}';
  }
  out += "]}";
}

InvalidArgument ModelFileTooLarge(const std::string& what, std::size_t bytes) {
  return InvalidArgument("out", what + " " + std::to_string(bytes) +
                                    " bytes of JSON, more than the " +
                                    std::to_string(kMaxModelBytes >> 20) +
                                    " MiB a model file may have (rdpkit reads no larger one): "
                                    "train fewer or shallower trees (n_estimators, max_depth)");
}

Tree CountedTowardsModelFile(Tree tree, std::size_t* model_bytes) {
  thread_local std::string text;
  text.clear();
  AppendTree(text, tree);
  *model_bytes += text.size() + 1;  // and the comma between trees
  if (*model_bytes > kMaxModelBytes) {
    throw ModelFileTooLarge("the trees trained so far are", *model_bytes);
  }
  return tree;
}

Tree ModelTreeOf(const HeapTree& tree, const BinnedMatrix& bins, bool keep_unreachable,
                 std::size_t* model_bytes) {
  Tree out;
  const std::size_t internal = HeapTree::Internal(tree.depth);
  out.nodes.resize(internal + HeapTree::Leaves(tree.depth));
  for (std::size_t i = 0; i < internal; ++i) {
    Node& node = out.nodes[i];
    node.feature = tree.feature[i];
    node.threshold =
        bins.candidates(static_cast<std::size_t>(tree.feature[i]))[tree.split_bin[i] - 1];
    node.default_left = tree.default_left[i] != 0;
    node.left = static_cast<int>(2 * i + 1);
    node.right = static_cast<int>(2 * i + 2);
  }
  for (std::size_t l = 0; l < HeapTree::Leaves(tree.depth); ++l) {
    out.nodes[internal + l].value = tree.leaf_value[l];  // a leaf: Node's feature −1
  }
  return CountedTowardsModelFile(keep_unreachable ? out : WithoutUnreachableNodes(out),
                                 model_bytes);
}

}  // namespace rdpkit::trees::internal
