#include "rdpkit/trees/config.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "candidates.h"
#include "config_keys.h"
#include "heap_tree.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "rdpkit/trees/model.h"

namespace rdpkit::trees {
namespace {

using internal::EnumAccepted;
using internal::EnumToString;
using internal::KeySpec;
using internal::Range;
using nlohmann::json;

// Rejects keys of object `j` (at path `where`) that are not in `allowed`, naming the first.
void RejectUnknownKeys(const json& j, const std::string& where,
                       const std::set<std::string>& allowed) {
  if (!j.is_object()) throw InvalidArgument(where.empty() ? "config" : where, "must be an object");
  for (const auto& item : j.items()) {
    if (allowed.count(item.key()) == 0) {
      std::string accepted;
      for (const auto& key : allowed) accepted += (accepted.empty() ? "" : ", ") + key;
      throw InvalidArgument(JsonPathKey(where, item.key()),
                            "unknown key (accepted keys: " + accepted + ")");
    }
  }
}

// "split_candidates.count" → {"split_candidates", "count"}; "seed" → {"seed", ""}.
std::pair<std::string_view, std::string_view> SplitPath(std::string_view path) {
  const auto dot = path.find('.');
  if (dot == std::string_view::npos) return {path, {}};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

double GetNumber(const json& j, const std::string& path) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "inf" || s == "Infinity") return std::numeric_limits<double>::infinity();
  }
  throw InvalidArgument(path, "must be a number, got " + j.dump());
}

// The int a JSON value holds: an integer in the int range, or a whole number written as a float
// (3.0); nullopt for anything else (2.5, 1e30, true, "3"), which the reader refuses naming the
// key's own range.
std::optional<int> IntOf(const json& j) {
  // An unsigned value above the long long range would wrap (2^64 − 1 read as −1).
  if (j.is_number_unsigned()) {
    const auto value = j.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) return std::nullopt;
    return static_cast<int>(value);
  }
  if (j.is_number_integer()) {
    const auto value = j.get<long long>();
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
      return std::nullopt;
    }
    return static_cast<int>(value);
  }
  if (j.is_number_float()) {
    const double value = j.get<double>();
    if (std::floor(value) == value && std::fabs(value) < 2e9) return static_cast<int>(value);
  }
  return std::nullopt;
}

std::string GetString(const json& j, const std::string& path) {
  if (!j.is_string()) throw InvalidArgument(path, "must be a string, got " + j.dump());
  return j.get<std::string>();
}

// JSON value → member, one overload per member type of the declaration.
void Read(const json& j, const std::string& path, double& out) { out = GetNumber(j, path); }
void Read(const json& j, const std::string& path, bool& out) {
  if (!j.is_boolean()) throw InvalidArgument(path, "must be true or false, got " + j.dump());
  out = j.get<bool>();
}
// An enum's spelling that names no value, by path: reported by Validate at the key's place in
// the declaration (after type errors and the keys declared before it, as for any range).
using UnknownSpellings = std::map<std::string, std::string, std::less<>>;
template <class Enum>
void ReadEnum(const json& j, const std::string& path, Enum& out, UnknownSpellings& unknown) {
  const std::string text = GetString(j, path);
  if (const auto value = internal::EnumFromString<Enum>(text)) {
    out = *value;
  } else {
    unknown[path] = text;
  }
}
void Read(const json& j, const std::string& path, std::optional<double>& out) {
  if (!j.is_null()) out = GetNumber(j, path);
}
void Read(const json& j, const std::string& path, std::optional<std::uint64_t>& out) {
  if (j.is_null()) return;
  if (j.is_number_unsigned() || (j.is_number_integer() && j.get<long long>() >= 0)) {
    out = j.get<std::uint64_t>();
    return;
  }
  // A whole number written as a float (1e3), up to 2^53 where doubles hold every integer, as
  // the command line's --seed 6e4 is.
  if (j.is_number_float()) {
    const double value = j.get<double>();
    if (value >= 0 && value <= 9007199254740992.0 && std::floor(value) == value) {
      out = static_cast<std::uint64_t>(value);
      return;
    }
  }
  throw InvalidArgument(path, j.dump(), "the integers [0, 2^64 - 1] (up to 2^53 as 1e3)");
}
void Read(const json& j, const std::string& path, std::vector<double>& out) {
  if (j.is_null()) return;
  if (!j.is_array()) throw InvalidArgument(path, "must be an array [r1, r2] or null");
  out.clear();
  for (std::size_t i = 0; i < j.size(); ++i) {
    out.push_back(GetNumber(j[i], path + "[" + std::to_string(i) + "]"));
  }
}

// Member → JSON value; nullopt: the key is omitted.
std::optional<json> Write(int value) { return json(value); }
std::optional<json> Write(double value) { return std::isinf(value) ? json("inf") : json(value); }
std::optional<json> Write(bool value) { return json(value); }
template <class Enum, class = std::enable_if_t<std::is_enum_v<Enum>>>
std::optional<json> Write(Enum value) {
  return json(ToString(value));
}
template <class T>
std::optional<json> Write(const std::optional<T>& value) {
  if (!value) return std::nullopt;
  return json(*value);
}
std::optional<json> Write(const std::vector<double>& value) {
  if (value.empty()) return std::nullopt;
  return json(value);
}

// Range check of one member (keys without a range are checked by Rules).
void Check(const std::string& path, int value, const Range& range) {
  if (!range.Contains(value)) throw InvalidArgument(path, std::to_string(value), range.Text());
}
void Check(const std::string& path, double value, const Range& range) {
  Require(range.Contains(value), path, value, range.Text());
}
void Check(const std::string& path, const std::optional<double>& value, const Range& range) {
  if (value) Check(path, *value, range);
}
template <class T>
void Check(const std::string&, const T&, const Range&) {}

// Visitors over DeclareTrainerKeys (config_keys.h).

// The declared names: top-level keys, the keys inside each object, the optional objects.
struct KeyNames {
  std::set<std::string> top;
  std::map<std::string, std::set<std::string>, std::less<>> inner;
  std::set<std::string, std::less<>> optional_groups;

  template <class T>
  void Key(std::string_view path, T&, const KeySpec&) {
    const auto [top_key, sub] = SplitPath(path);
    top.emplace(top_key);
    if (!sub.empty()) inner[std::string(top_key)].emplace(sub);
  }
  template <class G, class Body>
  void Group(std::string_view name, std::optional<G>&, const KeySpec&, Body body) {
    top.emplace(name);
    optional_groups.emplace(name);
    G group{};
    body(group);
  }
  template <class F>
  void Rule(F&&) {}
};

const KeyNames& DeclaredNames() {
  static const KeyNames names = [] {
    KeyNames n;
    TrainerConfig c;
    internal::DeclareTrainerKeys(n, c);
    return n;
  }();
  return names;
}

// Reads the keys under one top-level key `top` of `root` (present in root).
class Reader {
 public:
  Reader(const json& root, std::string_view top, UnknownSpellings& unknown)
      : root_(root), top_(top), unknown_(unknown) {}
  template <class T>
  void Key(std::string_view path, T& member, const KeySpec& spec) {
    const auto [top, sub] = SplitPath(path);
    if (top != top_) return;
    const json& value = root_.at(std::string(top));
    if (sub.empty()) return ReadMember(value, std::string(path), member, spec);
    const auto it = value.find(std::string(sub));
    if (it != value.end()) return ReadMember(*it, std::string(path), member, spec);
    if (spec.required) throw InvalidArgument(std::string(path), "missing");
  }
  template <class G, class Body>
  void Group(std::string_view name, std::optional<G>& group, const KeySpec&, Body body) {
    if (name != top_ || root_.at(std::string(name)).is_null()) return;
    // Not group.emplace(): clang 14 judges a nested aggregate with default member initialisers not
    // default-constructible (its enclosing class was incomplete where optional<G> was
    // instantiated); moving a value in needs only the move constructor.
    group = G{};
    body(*group);
  }
  template <class F>
  void Rule(F&&) {}

 private:
  template <class T>
  void ReadMember(const json& j, const std::string& path, T& member, const KeySpec& spec) {
    if constexpr (std::is_enum_v<T>) {
      ReadEnum(j, path, member, unknown_);
    } else if constexpr (std::is_same_v<T, int>) {
      const std::optional<int> value = IntOf(j);
      if (!value) {
        // The key's own range: its docs text without the Markdown quotes, in parentheses unless
        // it is an interval.
        std::string range = spec.range ? spec.range->Text() : "the int range";
        if (spec.accepted != nullptr) {
          range = spec.accepted;
          range.erase(std::remove(range.begin(), range.end(), '`'), range.end());
          if (range.front() != '[' && range.front() != '(') range = "(" + range + ")";
        }
        throw InvalidArgument(path, j.dump(), "the integers " + range);
      }
      member = *value;
    } else {
      Read(j, path, member);
    }
  }
  const json& root_;
  std::string_view top_;
  UnknownSpellings& unknown_;
};

class Writer {
 public:
  template <class T>
  void Key(std::string_view path, const T& member, const KeySpec& spec) {
    if (!spec.write_default && member == T{}) return;
    std::optional<json> value = Write(member);
    if (!value) return;
    std::string pointer = "/" + std::string(path);
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    json_[json::json_pointer(pointer)] = std::move(*value);
  }
  template <class G, class Body>
  void Group(std::string_view, const std::optional<G>& group, const KeySpec&, Body body) {
    if (group) body(*group);
  }
  template <class F>
  void Rule(F&&) {}
  json Take() { return std::move(json_); }

 private:
  json json_ = json::object();
};

struct Validator {
  const UnknownSpellings* unknown = nullptr;  // FromJson's unknown enum spellings

  template <class T>
  void Key(std::string_view path, const T& member, const KeySpec& spec) {
    if constexpr (std::is_enum_v<T>) {
      if (unknown != nullptr) {
        if (const auto it = unknown->find(path); it != unknown->end()) {
          throw InvalidArgument(it->first, "\"" + it->second + "\"", EnumAccepted<T>());
        }
      }
      if (!EnumToString(member)) {
        throw InvalidArgument(std::string(path), std::to_string(static_cast<int>(member)),
                              EnumAccepted<T>());
      }
    }
    if (spec.range) Check(std::string(path), member, *spec.range);
  }
  template <class G, class Body>
  void Group(std::string_view, const std::optional<G>& group, const KeySpec&, Body body) {
    if (group) body(*group);
  }
  template <class F>
  void Rule(F&& check) {
    check();
  }
};

}  // namespace

void TrainerConfig::Validate() const {
  Validator validator;
  internal::DeclareTrainerKeys(validator, *this);
}

TrainerConfig TrainerConfig::FromJson(const json& j) {
  const KeyNames& names = DeclaredNames();
  RejectUnknownKeys(j, "", names.top);
  TrainerConfig c;
  UnknownSpellings unknown;
  // Keys in the JSON object's (sorted) order; each top-level key reads its declared keys.
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    if (names.optional_groups.count(key) != 0 && item.value().is_null()) continue;
    if (const auto inner = names.inner.find(key); inner != names.inner.end()) {
      RejectUnknownKeys(item.value(), key, inner->second);
    }
    Reader reader(j, key, unknown);
    internal::DeclareTrainerKeys(reader, c);
  }
  // batch_size's default: 1 (sequential boosting), but one batch of all trees with averaging
  // leaves, the only batch size they allow (config_keys.h).
  if (c.leaf_update == LeafUpdate::kAveraging && !j.contains("batch_size")) {
    c.batch_size = c.n_estimators;
  }
  Validator validator{.unknown = &unknown};
  internal::DeclareTrainerKeys(validator, std::as_const(c));
  return c;
}

json TrainerConfig::ToJson() const {
  Writer writer;
  internal::DeclareTrainerKeys(writer, *this);
  return writer.Take();
}

namespace {

// Bytes per tree node in memory (model.h Node) and in the model text (the reserve of
// Model::ToText: ~50 bytes are written per node, 64 are reserved).
constexpr double kNodeTextBytes = 64;
// Per-row trainer state besides the bins: margins, batch deltas and e^{−F} (3 doubles), the
// statistics pair (2 doubles), node index, label byte, sample byte, filter state (2 doubles).
constexpr double kRowStateBytes = 3 * 8 + 2 * 8 + 2 + 1 + 1 + 2 * 8;
// The process itself (code, libraries, allocator arenas): ~6 MB measured for a tiny run.
constexpr double kProcessBytes = 8e6;

// The depth of the deepest tree a run can grow (TreeDepth, heap_tree.h: categorical_depth for
// trees over categorical features only, else max_depth).
int DeepestTree(const TrainerConfig& config) {
  return std::max(config.max_depth, config.categorical_depth);
}

// Sets e.nodes, the nodes the kept trees of a run hold at most over its `rounds` rounds of
// `classes` trees with k features per tree, and e.tree_nodes, the most one tree holds
// (model_prune.cc keeps only nodes some row reaches). A tree over one feature of q candidates has
// at most q + 1 leaves that present values reach (one per interval between thresholds) and one
// that only NaN reaches: 2(q + 2) − 1 nodes, besides the 2^(d+1) − 1 of its depth. With k = 1,
// cycled, tree t takes splittable feature t mod S, each at most ⌈rounds/S⌉ times; drawn at random,
// any of them each time. Otherwise (and for quantile candidates, whose count the schema does not
// tell) every tree is counted full at the deepest depth.
void KeptNodes(const TrainerConfig& config, const Schema& schema, double rounds, double classes,
               double k, MemoryEstimate& e) {
  const auto full = static_cast<double>(internal::HeapTree::Nodes(DeepestTree(config)));
  e.tree_nodes = full;
  e.nodes = classes * rounds * full;
  if (k != 1 || config.split_candidates.method == CandidateMethod::kQuantile) return;
  std::vector<double> nodes;  // of each splittable feature's trees
  for (std::size_t f = 0; f < schema.features.size(); ++f) {
    // A numeric feature has ≥ 2 private candidates or the run is refused (InitialCandidates); a
    // categorical one without codes to split is not splittable.
    const double q = internal::MostCandidates(config.split_candidates, schema.features[f]);
    if (q == 0) continue;
    const int depth = internal::TreeDepth(config, schema, {static_cast<int>(f)});
    nodes.push_back(
        std::min(static_cast<double>(internal::HeapTree::Nodes(depth)), 2 * (q + 2) - 1));
  }
  if (nodes.empty()) return;
  e.tree_nodes = *std::max_element(nodes.begin(), nodes.end());
  e.nodes = classes * rounds * e.tree_nodes;
  if (config.feature_interaction.method != InteractionMethod::kCyclical) return;
  double total = 0;
  for (const double n : nodes) total += std::ceil(rounds / static_cast<double>(nodes.size())) * n;
  e.nodes = std::min(e.nodes, classes * total);
}

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) {
    bytes /= 1000;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof(text), u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}

// A limit in bytes read from a file holding one number ("max" or unreadable: none).
double ReadLimitFile(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text)) return std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(value > 0)) {
    return std::numeric_limits<double>::infinity();
  }
  return value;
}

}  // namespace

MemoryEstimate EstimateTrainingMemory(const TrainerConfig& config, const Schema& schema,
                                      std::size_t n_rows) {
  // Every term is a double: 100000 trees of depth 16 overflow no integer type here, and the
  // estimate only needs a few digits.
  const double n = static_cast<double>(n_rows);
  const double m = static_cast<double>(schema.features.size());
  const double q = config.split_candidates.widest();
  // Multiclass: K class trees per round, and K margins and (g, h) pairs per row.
  const double classes = schema.task == Task::kMulticlass ? std::max(schema.n_classes, 1) : 1;
  const double rounds =
      static_cast<double>(config.n_estimators) +
      (config.renyi_filter ? static_cast<double>(config.renyi_filter->extra_rounds) : 0.0);
  const double k = config.feature_interaction.method == InteractionMethod::kAll
                       ? m
                       : std::min(m, static_cast<double>(config.feature_interaction.k));
  MemoryEstimate e;
  e.trees = classes * rounds;
  KeptNodes(config, schema, rounds, classes, k, e);
  e.model = e.nodes * (static_cast<double>(sizeof(Node)) + kNodeTextBytes);
  // Data columns and labels (8 bytes a value), 16-bit bins per value and, for Q ≤ 253, the byte
  // bins row by row and column by column.
  const double bin_bytes = 2 + (q <= 253 ? 2 : 0);
  e.rows = n * (m * (8 + bin_bytes) + 8 + kRowStateBytes + (classes > 1 ? classes * 24 : 0)) +
           kProcessBytes;
  e.histograms = 2 * m * q * 8;  // candidates and their refinement
  const SplitMethod split = config.split_method;
  const bool data_independent =
      split == SplitMethod::kTotallyRandom || (split == SplitMethod::kPartiallyRandom && k == 1);
  if (!data_independent) {
    // Histogram(): k features × 2^(d−1) nodes × cells pairs of 16 bytes, one copy per thread, the
    // sum, and the previous level's (half the size) until it is replaced; cells = Q + 2
    // (histogram, exponential) or 3 (partially_random).
    const double cells = split == SplitMethod::kPartiallyRandom ? 3 : q + 2;
    const double level_nodes = std::ldexp(1.0, DeepestTree(config) - 1);
    const double copies = config.threads + 2;
    e.histograms += k * level_nodes * cells * 16 * copies;
  }
  return e;
}

double AvailableMemoryBytes(std::string* source) {
  double limit = std::numeric_limits<double>::infinity();
  std::string from = "memory";
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    limit = static_cast<double>(pages) * static_cast<double>(page_size);
    from = "physical memory";
  }
  // cgroup v2, then v1: a container's limit is what the kernel enforces.
  for (const char* path :
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const double cgroup = ReadLimitFile(path);
    if (cgroup < limit) {
      limit = cgroup;
      from = std::string("the cgroup memory limit (") + path + ")";
    }
  }
  rlimit address_space{};
  if (getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY &&
      static_cast<double>(address_space.rlim_cur) < limit) {
    limit = static_cast<double>(address_space.rlim_cur);
    from = "the address-space limit (ulimit -v)";
  }
  if (source != nullptr) *source = from;
  return limit;
}

void RequireTrainableInMemory(const TrainerConfig& config, const Schema& schema, std::size_t n_rows,
                              double limit_bytes, const std::string& limit_source) {
  const MemoryEstimate e = EstimateTrainingMemory(config, schema, n_rows);
  if (e.total() <= limit_bytes) return;
  const std::string estimate =
      "an estimated " + FormatBytes(e.total()) + " (model " + FormatBytes(e.model) + ": " +
      std::to_string(static_cast<long long>(e.trees)) + " trees of up to " +
      std::to_string(static_cast<long long>(e.tree_nodes)) + " nodes" +
      (e.nodes < e.trees * e.tree_nodes
           ? ", " + std::to_string(static_cast<long long>(std::ceil(e.nodes / e.trees))) +
                 " on average"
           : std::string()) +
      "; data and per-row state " + FormatBytes(e.rows) + "; histograms and candidates " +
      FormatBytes(e.histograms) + "), more than the " + FormatBytes(limit_bytes) + " of " +
      limit_source;
  // Name the key that governs the largest part.
  if (e.model >= e.rows && e.model >= e.histograms) {
    throw InvalidArgument(
        "n_estimators",
        std::to_string(config.n_estimators) + " (max_depth = " + std::to_string(config.max_depth) +
            (config.categorical_depth > 0
                 ? ", categorical_depth = " + std::to_string(config.categorical_depth)
                 : std::string()) +
            ")",
        "the sizes that fit in memory: training needs " + estimate +
            "; reduce n_estimators or max_depth" +
            (config.categorical_depth > 0 ? " (categorical_depth)" : ""));
  }
  if (e.histograms >= e.rows) {
    throw InvalidArgument(
        "max_depth",
        std::to_string(config.max_depth) + " (split_method = \"" + ToString(config.split_method) +
            "\", split_candidates.count = " + std::to_string(config.split_candidates.count) + ")",
        "the sizes that fit in memory: training needs " + estimate +
            "; reduce max_depth, split_candidates.count, feature_interaction.k "
            "or threads, or use split_method \"totally_random\"");
  }
  throw InvalidArgument(
      "data",
      std::to_string(n_rows) + " rows × " + std::to_string(schema.features.size()) + " features",
      "the sizes that fit in memory: training needs " + estimate +
          "; train on fewer rows or features");
}

void RequireTrainableInMemory(const TrainerConfig& config, const Schema& schema,
                              std::size_t n_rows) {
  std::string source;
  const double limit = AvailableMemoryBytes(&source);
  RequireTrainableInMemory(config, schema, n_rows, limit, source);
}

}  // namespace rdpkit::trees
