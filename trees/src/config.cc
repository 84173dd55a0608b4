#include "rdpkit/trees/config.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"
#include "rdpkit/trees/model.h"

namespace rdpkit::trees {
namespace {

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

std::string Path(const std::string& where, const std::string& key) {
  return JsonPathKey(where, key);
}

double GetNumber(const json& j, const std::string& path) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "inf" || s == "Infinity") return std::numeric_limits<double>::infinity();
  }
  throw InvalidArgument(path, "must be a number, got " + j.dump());
}

int GetInt(const json& j, const std::string& path) {
  if (j.is_number_integer() || j.is_number_unsigned()) {
    const auto value = j.get<long long>();
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
      throw InvalidArgument(path, j.dump(), "the int range");
    }
    return static_cast<int>(value);
  }
  if (j.is_number_float()) {
    const double value = j.get<double>();
    if (std::floor(value) == value && std::fabs(value) < 2e9) return static_cast<int>(value);
  }
  throw InvalidArgument(path, "must be an integer, got " + j.dump());
}

std::string GetString(const json& j, const std::string& path) {
  if (!j.is_string()) throw InvalidArgument(path, "must be a string, got " + j.dump());
  return j.get<std::string>();
}

bool GetBool(const json& j, const std::string& path) {
  if (!j.is_boolean()) throw InvalidArgument(path, "must be true or false, got " + j.dump());
  return j.get<bool>();
}

void RequireOneOf(const std::string& value, const std::string& field,
                  const std::set<std::string>& accepted) {
  if (accepted.count(value) == 0) {
    std::string list;
    for (const auto& a : accepted) list += (list.empty() ? "" : ", ") + a;
    throw InvalidArgument(field, "\"" + value + "\"", "{" + list + "}");
  }
}

void RequireInt(bool ok, const std::string& field, long long value, const std::string& accepted) {
  if (!ok) throw InvalidArgument(field, std::to_string(value), accepted);
}

}  // namespace

void TrainerConfig::Validate() const {
  RequireOneOf(objective, "objective", {"binary:logistic", "reg:squarederror"});
  RequireInt(n_estimators >= 1 && n_estimators <= 100000, "n_estimators", n_estimators,
             "[1, 100000]");
  RequireInt(max_depth >= 1 && max_depth <= 16, "max_depth", max_depth, "[1, 16]");
  Require(std::isfinite(learning_rate) && learning_rate > 0 && learning_rate <= 10, "learning_rate",
          learning_rate, "(0, 10]");
  Require(std::isfinite(reg_lambda) && reg_lambda >= 0, "reg_lambda", reg_lambda, "[0, inf)");
  Require(!std::isnan(max_leaf_value) && max_leaf_value > 0, "max_leaf_value", max_leaf_value,
          "(0, inf]");
  Require(
      std::isfinite(noisy_hessian_floor) && noisy_hessian_floor >= 0 && noisy_hessian_floor <= 100,
      "noisy_hessian_floor", noisy_hessian_floor, "[0, 100]");
  RequireOneOf(split_method, "split_method",
               {"totally_random", "partially_random", "histogram", "exponential"});
  RequireOneOf(leaf_update, "leaf_update", {"newton", "gradient", "averaging"});
  RequireOneOf(split_candidates.method, "split_candidates.method",
               {"uniform", "log", "iterative_hessian", "quantile"});
  RequireInt(split_candidates.count >= 2 && split_candidates.count <= SplitCandidates::kMaxCount,
             "split_candidates.count", split_candidates.count,
             "[2, " + std::to_string(SplitCandidates::kMaxCount) + "]");
  RequireInt(split_candidates.rounds >= 1 && split_candidates.rounds <= 100,
             "split_candidates.rounds", split_candidates.rounds, "[1, 100]");
  RequireOneOf(feature_interaction.method, "feature_interaction.method",
               {"all", "cyclical", "random"});
  if (feature_interaction.method == "all") {
    RequireInt(feature_interaction.k == 0, "feature_interaction.k", feature_interaction.k,
               "{0} (k is not used with method \"all\")");
  } else {
    RequireInt(feature_interaction.k >= 1, "feature_interaction.k", feature_interaction.k,
               "[1, n_features]");
  }
  RequireInt(batch_size >= 1 && batch_size <= n_estimators, "batch_size", batch_size,
             "[1, n_estimators = " + std::to_string(n_estimators) + "]");
  Require(std::isfinite(subsample) && subsample > 0 && subsample <= 1, "subsample", subsample,
          "(0, 1]");
  Require(std::isfinite(gradient_clip) && gradient_clip > 0, "gradient_clip", gradient_clip,
          "(0, inf)");
  Require(std::isfinite(hessian_clip) && hessian_clip > 0, "hessian_clip", hessian_clip,
          "(0, inf)");
  if (!leaf_noise_weights.empty()) {
    RequireInt(leaf_noise_weights.size() == 2, "leaf_noise_weights",
               static_cast<long long>(leaf_noise_weights.size()), "2 weights [r1, r2]");
    for (std::size_t i = 0; i < 2; ++i) {
      Require(std::isfinite(leaf_noise_weights[i]) && leaf_noise_weights[i] > 0 &&
                  leaf_noise_weights[i] < 1,
              "leaf_noise_weights[" + std::to_string(i) + "]", leaf_noise_weights[i], "(0, 1)");
    }
    const double sum = leaf_noise_weights[0] + leaf_noise_weights[1];
    Require(std::fabs(sum - 1) <= 1e-9, "leaf_noise_weights (sum)", sum, "{1} (r1 + r2 = 1)");
  }
  if (initial_score) {
    Require(std::isfinite(initial_score->epsilon_share) && initial_score->epsilon_share > 0 &&
                initial_score->epsilon_share < 1,
            "initial_score.epsilon_share", initial_score->epsilon_share, "(0, 1)");
    Require(std::isfinite(initial_score->label_clip) && initial_score->label_clip > 0,
            "initial_score.label_clip", initial_score->label_clip, "(0, inf)");
  }
  if (privacy) {
    Require(std::isfinite(privacy->epsilon) && privacy->epsilon > 0, "privacy.epsilon",
            privacy->epsilon, "(0, inf)");
    if (privacy->delta) {
      Require(std::isfinite(*privacy->delta) && *privacy->delta > 0 && *privacy->delta < 1,
              "privacy.delta", *privacy->delta, "(0, 1)");
    }
  }
  if (non_private && privacy) {
    throw InvalidArgument("non_private",
                          "true together with a privacy target; give one of the two");
  }
  if (!non_private && !privacy) {
    throw InvalidArgument("privacy",
                          "missing: give {\"epsilon\": ..., \"delta\": ...} (or "
                          "\"non_private\": true for a baseline without any noise)");
  }
  if (non_private && initial_score) {
    throw InvalidArgument("initial_score", "is a private release; not used with non_private");
  }
  if (renyi_filter) {
    RequireInt(renyi_filter->extra_rounds >= 0 && renyi_filter->extra_rounds <= 100000,
               "renyi_filter.extra_rounds", renyi_filter->extra_rounds, "[0, 100000]");
  }
  RequireInt(threads >= 1 && threads <= 256, "threads", threads, "[1, 256]");
}

TrainerConfig TrainerConfig::FromJson(const json& j) {
  RejectUnknownKeys(
      j, "", {"objective",        "n_estimators",        "max_depth",          "learning_rate",
              "reg_lambda",       "max_leaf_value",      "split_method",       "leaf_update",
              "split_candidates", "feature_interaction", "batch_size",         "subsample",
              "gradient_clip",    "hessian_clip",        "leaf_noise_weights", "initial_score",
              "privacy",          "non_private",         "renyi_filter",       "seed",
              "threads",          "noisy_hessian_floor"});
  TrainerConfig c;
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    const json& v = item.value();
    if (key == "objective") {
      c.objective = GetString(v, key);
    } else if (key == "n_estimators") {
      c.n_estimators = GetInt(v, key);
    } else if (key == "max_depth") {
      c.max_depth = GetInt(v, key);
    } else if (key == "learning_rate") {
      c.learning_rate = GetNumber(v, key);
    } else if (key == "reg_lambda") {
      c.reg_lambda = GetNumber(v, key);
    } else if (key == "max_leaf_value") {
      c.max_leaf_value = GetNumber(v, key);
    } else if (key == "noisy_hessian_floor") {
      c.noisy_hessian_floor = GetNumber(v, key);
    } else if (key == "split_method") {
      c.split_method = GetString(v, key);
    } else if (key == "leaf_update") {
      c.leaf_update = GetString(v, key);
    } else if (key == "split_candidates") {
      RejectUnknownKeys(v, key, {"method", "count", "rounds"});
      if (v.contains("method"))
        c.split_candidates.method = GetString(v["method"], Path(key, "method"));
      if (v.contains("count")) c.split_candidates.count = GetInt(v["count"], Path(key, "count"));
      if (v.contains("rounds"))
        c.split_candidates.rounds = GetInt(v["rounds"], Path(key, "rounds"));
    } else if (key == "feature_interaction") {
      RejectUnknownKeys(v, key, {"method", "k"});
      if (v.contains("method")) {
        c.feature_interaction.method = GetString(v["method"], Path(key, "method"));
      }
      if (v.contains("k")) c.feature_interaction.k = GetInt(v["k"], Path(key, "k"));
    } else if (key == "batch_size") {
      c.batch_size = GetInt(v, key);
    } else if (key == "subsample") {
      c.subsample = GetNumber(v, key);
    } else if (key == "gradient_clip") {
      c.gradient_clip = GetNumber(v, key);
    } else if (key == "hessian_clip") {
      c.hessian_clip = GetNumber(v, key);
    } else if (key == "leaf_noise_weights") {
      if (v.is_null()) continue;
      if (!v.is_array()) throw InvalidArgument(key, "must be an array [r1, r2] or null");
      c.leaf_noise_weights.clear();
      for (std::size_t i = 0; i < v.size(); ++i) {
        c.leaf_noise_weights.push_back(GetNumber(v[i], key + "[" + std::to_string(i) + "]"));
      }
    } else if (key == "initial_score") {
      if (v.is_null()) continue;
      RejectUnknownKeys(v, key, {"epsilon_share", "label_clip"});
      InitialScore s;
      if (v.contains("epsilon_share")) {
        s.epsilon_share = GetNumber(v["epsilon_share"], Path(key, "epsilon_share"));
      }
      if (v.contains("label_clip")) {
        s.label_clip = GetNumber(v["label_clip"], Path(key, "label_clip"));
      }
      c.initial_score = s;
    } else if (key == "privacy") {
      if (v.is_null()) continue;
      RejectUnknownKeys(v, key, {"epsilon", "delta", "allow_large_delta"});
      if (!v.contains("epsilon")) throw InvalidArgument("privacy.epsilon", "missing");
      Privacy p;
      p.epsilon = GetNumber(v["epsilon"], "privacy.epsilon");
      if (v.contains("delta") && !v["delta"].is_null()) {
        p.delta = GetNumber(v["delta"], "privacy.delta");
      }
      if (v.contains("allow_large_delta")) {
        p.allow_large_delta = GetBool(v["allow_large_delta"], "privacy.allow_large_delta");
      }
      c.privacy = p;
    } else if (key == "non_private") {
      c.non_private = GetBool(v, key);
    } else if (key == "renyi_filter") {
      if (v.is_null()) continue;
      RejectUnknownKeys(v, key, {"extra_rounds"});
      RenyiFilter f;
      if (v.contains("extra_rounds")) {
        f.extra_rounds = GetInt(v["extra_rounds"], Path(key, "extra_rounds"));
      }
      c.renyi_filter = f;
    } else if (key == "seed") {
      if (v.is_null()) continue;
      if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<long long>() >= 0)) {
        throw InvalidArgument("seed", "must be a non-negative integer, got " + v.dump());
      }
      c.seed = v.get<std::uint64_t>();
    } else if (key == "threads") {
      c.threads = GetInt(v, key);
    }
  }
  c.Validate();
  return c;
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
  const double q = config.split_candidates.count;
  const double trees =
      static_cast<double>(config.n_estimators) +
      (config.renyi_filter ? static_cast<double>(config.renyi_filter->extra_rounds) : 0.0);
  const double nodes_per_tree = std::ldexp(1.0, config.max_depth + 1) - 1;
  MemoryEstimate e;
  e.model = trees * nodes_per_tree * (static_cast<double>(sizeof(Node)) + kNodeTextBytes);
  // Data columns and labels (8 bytes a value), 16-bit bins per value and, for Q ≤ 253, the byte
  // bins row by row and column by column.
  const double bin_bytes = 2 + (q <= 253 ? 2 : 0);
  e.rows = n * (m * (8 + bin_bytes) + 8 + kRowStateBytes) + kProcessBytes;
  e.histograms = 2 * m * q * 8;  // candidates and their refinement
  const std::string& split = config.split_method;
  const double k = config.feature_interaction.method == "all"
                       ? m
                       : std::min(m, static_cast<double>(config.feature_interaction.k));
  const bool data_independent =
      split == "totally_random" || (split == "partially_random" && k == 1);
  if (!data_independent) {
    // Histogram(): k features × 2^(d−1) nodes × cells pairs of 16 bytes, one copy per thread, the
    // sum, and the previous level's (half the size) until it is replaced; cells = Q + 2
    // (histogram, exponential) or 3 (partially_random).
    const double cells = split == "partially_random" ? 3 : q + 2;
    const double level_nodes = std::ldexp(1.0, config.max_depth - 1);
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
  const double trees =
      static_cast<double>(config.n_estimators) +
      (config.renyi_filter ? static_cast<double>(config.renyi_filter->extra_rounds) : 0.0);
  const std::string estimate =
      "an estimated " + FormatBytes(e.total()) + " (model " + FormatBytes(e.model) + ": " +
      std::to_string(static_cast<long long>(trees)) + " trees of " +
      std::to_string((2LL << config.max_depth) - 1) + " nodes; data and per-row state " +
      FormatBytes(e.rows) + "; histograms and candidates " + FormatBytes(e.histograms) +
      "), more than the " + FormatBytes(limit_bytes) + " of " + limit_source;
  // Name the key that governs the largest part.
  if (e.model >= e.rows && e.model >= e.histograms) {
    throw InvalidArgument("n_estimators",
                          std::to_string(config.n_estimators) +
                              " (max_depth = " + std::to_string(config.max_depth) + ")",
                          "the sizes that fit in memory: training needs " + estimate +
                              "; reduce n_estimators or max_depth");
  }
  if (e.histograms >= e.rows) {
    throw InvalidArgument(
        "max_depth",
        std::to_string(config.max_depth) + " (split_method = \"" + config.split_method +
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

json TrainerConfig::ToJson() const {
  json j = {
      {"objective", objective},
      {"n_estimators", n_estimators},
      {"max_depth", max_depth},
      {"learning_rate", learning_rate},
      {"reg_lambda", reg_lambda},
      {"noisy_hessian_floor", noisy_hessian_floor},
      {"split_method", split_method},
      {"leaf_update", leaf_update},
      {"split_candidates",
       {{"method", split_candidates.method},
        {"count", split_candidates.count},
        {"rounds", split_candidates.rounds}}},
      {"feature_interaction",
       {{"method", feature_interaction.method}, {"k", feature_interaction.k}}},
      {"batch_size", batch_size},
      {"subsample", subsample},
      {"gradient_clip", gradient_clip},
      {"hessian_clip", hessian_clip},
      {"non_private", non_private},
      {"threads", threads},
  };
  if (std::isinf(max_leaf_value)) {
    j["max_leaf_value"] = "inf";
  } else {
    j["max_leaf_value"] = max_leaf_value;
  }
  if (!leaf_noise_weights.empty()) j["leaf_noise_weights"] = leaf_noise_weights;
  if (initial_score) {
    j["initial_score"] = {{"epsilon_share", initial_score->epsilon_share},
                          {"label_clip", initial_score->label_clip}};
  }
  if (privacy) {
    j["privacy"] = {{"epsilon", privacy->epsilon}};
    if (privacy->delta) j["privacy"]["delta"] = *privacy->delta;
    if (privacy->allow_large_delta) j["privacy"]["allow_large_delta"] = true;
  }
  if (renyi_filter) j["renyi_filter"] = {{"extra_rounds", renyi_filter->extra_rounds}};
  if (seed) j["seed"] = *seed;
  return j;
}

}  // namespace rdpkit::trees
