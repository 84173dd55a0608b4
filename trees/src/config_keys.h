// The one declaration of the trainer's configuration keys (STYLE.md §6, after XGBoost's
// DMLC_DECLARE_FIELD): DeclareTrainerKeys names every key with its accepted range, one-line meaning
// and paper, in the order Validate checks them; the default is TrainerConfig's member initializer.
// FromJson, Validate, ToJson (config.cc) and the docs table (config_keys.cc, ConfigKeyTable) are
// visitors over it, so adding a key means one member in config.h and one line here.
#ifndef RDPKIT_TREES_SRC_CONFIG_KEYS_H_
#define RDPKIT_TREES_SRC_CONFIG_KEYS_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/config.h"

namespace rdpkit::trees::internal {

// Accepted values of a number or integer key: an interval with open or closed ends.
struct Range {
  double lo = 0;
  double hi = 0;
  bool lo_open = false;
  bool hi_open = false;
  // False for NaN.
  bool Contains(double x) const {
    return (lo_open ? x > lo : x >= lo) && (hi_open ? x < hi : x <= hi);
  }
  // "(0, 10]", "[0, inf)", "[1, 100000]".
  std::string Text() const;
};
inline constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr Range Closed(double lo, double hi) { return {lo, hi, false, false}; }
constexpr Range Open(double lo, double hi) { return {lo, hi, true, true}; }
constexpr Range OpenClosed(double lo, double hi) { return {lo, hi, true, false}; }
constexpr Range ClosedOpen(double lo, double hi) { return {lo, hi, false, true}; }

// What a key declares besides its name and member.
struct KeySpec {
  std::optional<Range> range;      // checked by Validate; absent: no range, or checked by a Rule
  const char* accepted = nullptr;  // docs text, when the range alone does not say it
  const char* what = "";           // one-line meaning
  const char* paper = "";
  const char* absent = nullptr;        // docs default of an optional key or group ("absent (…)")
  bool required = false;               // inside an optional group: the group needs it
  bool write_default = true;           // false: ToJson omits the key while it is false / 0 / empty
  const char* default_text = nullptr;  // docs default when it is not the member initializer's
};

// JSON spellings of the enumerations, in declaration order: the only place they are written.
template <class Enum>
struct EnumSpellings;
template <>
struct EnumSpellings<Objective> {
  static constexpr std::array<std::pair<Objective, std::string_view>, 4> kValues{{
      {Objective::kBinaryLogistic, "binary:logistic"},
      {Objective::kRegSquaredError, "reg:squarederror"},
      {Objective::kMultiSoftprob, "multi:softprob"},
      {Objective::kMultiOvr, "multi:ovr"},
  }};
};
template <>
struct EnumSpellings<SplitMethod> {
  static constexpr std::array<std::pair<SplitMethod, std::string_view>, 4> kValues{{
      {SplitMethod::kTotallyRandom, "totally_random"},
      {SplitMethod::kPartiallyRandom, "partially_random"},
      {SplitMethod::kHistogram, "histogram"},
      {SplitMethod::kExponential, "exponential"},
  }};
};
template <>
struct EnumSpellings<LeafUpdate> {
  static constexpr std::array<std::pair<LeafUpdate, std::string_view>, 3> kValues{{
      {LeafUpdate::kNewton, "newton"},
      {LeafUpdate::kGradient, "gradient"},
      {LeafUpdate::kAveraging, "averaging"},
  }};
};
template <>
struct EnumSpellings<CandidateMethod> {
  static constexpr std::array<std::pair<CandidateMethod, std::string_view>, 5> kValues{{
      {CandidateMethod::kUniform, "uniform"},
      {CandidateMethod::kLog, "log"},
      {CandidateMethod::kIterativeHessian, "iterative_hessian"},
      {CandidateMethod::kQuantile, "quantile"},
      {CandidateMethod::kUniformAndLog, "uniform_and_log"},
  }};
};
template <>
struct EnumSpellings<InteractionMethod> {
  static constexpr std::array<std::pair<InteractionMethod, std::string_view>, 3> kValues{{
      {InteractionMethod::kAll, "all"},
      {InteractionMethod::kCyclical, "cyclical"},
      {InteractionMethod::kRandom, "random"},
  }};
};

template <>
struct EnumSpellings<SplitScope> {
  static constexpr std::array<std::pair<SplitScope, std::string_view>, 2> kValues{{
      {SplitScope::kNode, "node"},
      {SplitScope::kAll, "all"},
  }};
};
template <>
struct EnumSpellings<NegativeHessianLeaf> {
  static constexpr std::array<std::pair<NegativeHessianLeaf, std::string_view>, 2> kValues{{
      {NegativeHessianLeaf::kFloor, "floor"},
      {NegativeHessianLeaf::kZero, "zero"},
  }};
};

template <>
struct EnumSpellings<Defaults> {
  static constexpr std::array<std::pair<Defaults, std::string_view>, 2> kValues{{
      {Defaults::kStatic, "static"},
      {Defaults::kAuto, "auto"},
  }};
};
template <>
struct EnumSpellings<DistributedNoise> {
  static constexpr std::array<std::pair<DistributedNoise, std::string_view>, 2> kValues{{
      {DistributedNoise::kCentral, "central"},
      {DistributedNoise::kShares, "shares"},
  }};
};

template <class Enum>
std::optional<Enum> EnumFromString(std::string_view text) {
  for (const auto& [value, name] : EnumSpellings<Enum>::kValues) {
    if (name == text) return value;
  }
  return std::nullopt;
}
template <class Enum>
std::optional<std::string_view> EnumToString(Enum value) {
  for (const auto& [v, name] : EnumSpellings<Enum>::kValues) {
    if (v == value) return name;
  }
  return std::nullopt;
}
// "{a, b, c}", sorted: the accepted set in error messages.
template <class Enum>
std::string EnumAccepted() {
  std::vector<std::string> names;
  for (const auto& value : EnumSpellings<Enum>::kValues) names.emplace_back(value.second);
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return "{" + out + "}";
}

// split_scope "all" needs data-independent random splits (totally_random, or partially_random
// with one feature per tree); negative_hessian_leaf "zero" needs a Newton or gradient leaf.
// Elsewhere they would mean nothing, so they are refused naming the key (config_keys.cc).
void RequireMeaningfulScopes(const TrainerConfig& c);

// The declaration. `v` is a visitor with
//   Key(path, member, KeySpec)                   a key ("group.key" inside an object),
//   Group(name, std::optional<G>&, KeySpec, body) an optional object; body(G&) declares its keys,
//   Rule(check)                                  a check across keys (Validate only),
// and `c` a TrainerConfig (const for ToJson and Validate). DeclareTrainerKeys (below) declares
// them all, in the order of the docs table: first the trees' shape and how they are split.
template <class Visitor, class Config>
void DeclareTreeKeys(Visitor& v, Config& c) {
  using SplitCandidates = TrainerConfig::SplitCandidates;
  v.Key("defaults", c.defaults,
        {.what = "keys the config does not give: chosen from n, m, the task, ε and δ by the auto "
                 "rule (docs/trees_auto.md), or the fixed defaults of this table (`static`); a "
                 "given key always wins",
         .write_default = false,
         .default_text = "`auto` (`rdpkit train`, Python; a TrainerConfig built in C++: "
                         "`static`)"});
  v.Key("objective", c.objective,
        {.what = "loss; must fit the schema's `task`", .paper = "XGBoost names"});
  v.Key("n_estimators", c.n_estimators,
        {.range = Closed(1, 100000),
         .what = "T, number of trees (multiclass: rounds of K class trees)"});
  v.Key("max_depth", c.max_depth,
        {.range = Closed(1, 16),
         .what = "d, depth of every tree (2^d leaves) but those of `categorical_depth`"});
  v.Key(
      "categorical_depth", c.categorical_depth,
      {.range = Closed(0, 16),
       .what = "depth of a tree whose features are all categorical; 0: `max_depth` (random "
               "splits only; identifiers, docs/trees_auto_features.md § Wide categorical features)",
       .write_default = false});
  v.Key("learning_rate", c.learning_rate,
        {.range = OpenClosed(0, 10), .what = "η, shrinkage applied to every leaf value"});
  v.Key("reg_lambda", c.reg_lambda,
        {.range = ClosedOpen(0, kInf), .what = "λ in −G/(H + λ)", .paper = "Maddock §4.4"});
  v.Key("max_leaf_value", c.max_leaf_value,
        {.range = OpenClosed(0, kInf),
         .accepted = "(0, inf] (`\"inf\"`)",
         .what = "β, each leaf value is clipped to [−β, β] before η",
         .paper = "Maddock §4.4.3"});
  v.Key("noisy_hessian_floor", c.noisy_hessian_floor,
        {.range = Closed(0, 100),
         .what = "c, floor of the noisy Hessian in units of its noise sd; 0: max(H̃, 0) "
                 "(post-processing, § Methods)"});
  v.Key("negative_hessian_leaf", c.negative_hessian_leaf,
        {.what = "a Newton/gradient leaf with noisy Hessian H̃ < 0: the floored step, or `zero` "
                 "(post-processing, § Split scope and negative Hessians)",
         .paper = "S-BDT's code",
         .write_default = false});
  v.Key("split_method", c.split_method,
        {.what = "how a node's split is chosen", .paper = "Maddock §4.3; Revisiting §4.2"});
  v.Key("split_scope", c.split_scope,
        {.accepted = "`node`, `all` (`all`: totally_random, or partially_random with "
                     "`feature_interaction.k` 1)",
         .what = "random splits drawn among the node's candidates or all of the feature's "
                 "(public randomness, § Split scope and negative Hessians)",
         .paper = "S-BDT's code",
         .write_default = false});
  v.Key("leaf_update", c.leaf_update, {.what = "leaf value formula", .paper = "Maddock §4.4"});
  v.Rule([&c] {
    // An averaging leaf holds a label average, not a step on the residuals (Maddock §4.4.1): one
    // batch of all trees is the model (a random forest); more batches would add up copies of it.
    if (c.leaf_update == LeafUpdate::kAveraging && c.batch_size != c.n_estimators) {
      throw InvalidArgument("batch_size", std::to_string(c.batch_size),
                            "{n_estimators = " + std::to_string(c.n_estimators) +
                                "} with leaf_update averaging (one batch of all trees: its "
                                "leaves hold label averages, not steps; the default then)");
    }
  });
  v.Key("split_candidates.method", c.split_candidates.method,
        {.what = "candidate thresholds per feature (`uniform_and_log`: both grids, half each; "
                 "`quantile`: non-private, a baseline)",
         .paper = "Maddock §4.5"});
  v.Key("split_candidates.count", c.split_candidates.count,
        {.range = Closed(2, SplitCandidates::kMaxCount),
         .what = "Q, candidates per feature (a bin index and the missing bin fit 16 bits)",
         .paper = "Maddock §4.5"});
  v.Key("split_candidates.categorical_count", c.split_candidates.categorical_count,
        {.range = Closed(0, SplitCandidates::kMaxCount),
         .what = "candidates of a categorical feature (its code boundaries, evenly thinned to "
                 "this many); 0: `count`",
         .write_default = false});
  v.Key("split_candidates.rounds", c.split_candidates.rounds,
        {.range = Closed(1, 100),
         .what = "s, rounds of `iterative_hessian`",
         .paper = "Maddock §4.5.2"});
  v.Key("feature_interaction.method", c.feature_interaction.method,
        {.what = "features a tree may split on", .paper = "Maddock §5.1"});
  v.Key("feature_interaction.k", c.feature_interaction.k,
        {.accepted = "0 with `all`; [1, m] with `cyclical`, `random`",
         .what = "k features per tree",
         .paper = "Maddock §5.1"});
  v.Rule([&c] {
    const int k = c.feature_interaction.k;
    switch (c.feature_interaction.method) {
      case InteractionMethod::kAll:
        if (k != 0) {
          throw InvalidArgument("feature_interaction.k", std::to_string(k),
                                "{0} (k is not used with method \"all\")");
        }
        return;
      case InteractionMethod::kCyclical:
      case InteractionMethod::kRandom:
        if (k < 1)
          throw InvalidArgument("feature_interaction.k", std::to_string(k), "[1, n_features]");
        return;
    }
    throw InvalidArgument("feature_interaction.method", "a value outside the enumeration",
                          EnumAccepted<InteractionMethod>());
  });
  v.Rule([&c] { RequireMeaningfulScopes(c); });
}

// The keys of boosting batches, sampling, clipping, noise and the privacy target.
template <class Visitor, class Config>
void DeclareNoiseKeys(Visitor& v, Config& c) {
  v.Key("batch_size", c.batch_size,
        {.accepted = "[1, n_estimators]",
         .what = "B, trees fit to the same gradients (B = T: random forest)",
         .paper = "Maddock §5.2"});
  v.Rule([&c] {
    if (c.batch_size < 1 || c.batch_size > c.n_estimators) {
      throw InvalidArgument("batch_size", std::to_string(c.batch_size),
                            "[1, n_estimators = " + std::to_string(c.n_estimators) + "]");
    }
  });
  v.Key("subsample", c.subsample,
        {.range = OpenClosed(0, 1),
         .what = "γ, Poisson rate of the rows of each tree",
         .paper = "S-BDT §6.3"});
  v.Key("gradient_clip", c.gradient_clip,
        {.range = Open(0, kInf),
         .what = "g*, gradients clipped to [−g*, g*] (binary: inactive when ≥ 1; multi:softprob: "
                 "the class gradient vector clipped to L2 norm g*, inactive when ≥ √2)",
         .paper = "S-BDT §4.2"});
  v.Key("hessian_clip", c.hessian_clip,
        {.range = Open(0, kInf), .what = "h*, Hessians clipped to [0, h*]", .paper = "S-BDT §4.2"});
  v.Key("leaf_noise_weights", c.leaf_noise_weights,
        {.accepted = "[r1, r2] in (0, 1), r1 + r2 = 1",
         .what = "leaf-balanced noise weights (Hessian, gradient)",
         .paper = "S-BDT §5.2",
         .absent = "absent (spherical)"});
  v.Rule([&c] {
    const auto& w = c.leaf_noise_weights;
    if (w.empty()) return;
    if (w.size() != 2) {
      throw InvalidArgument("leaf_noise_weights", std::to_string(w.size()), "2 weights [r1, r2]");
    }
    for (std::size_t i = 0; i < 2; ++i) {
      Require(Open(0, 1).Contains(w[i]), "leaf_noise_weights[" + std::to_string(i) + "]", w[i],
              "(0, 1)");
    }
    const double sum = w[0] + w[1];
    Require(std::fabs(sum - 1) <= 1e-9, "leaf_noise_weights (sum)", sum, "{1} (r1 + r2 = 1)");
  });
  v.Group("initial_score", c.initial_score,
          {.what = "DP initial score: a noisy mean of the clipped labels",
           .paper = "S-BDT §6.2",
           .absent = "absent (score 0)"},
          [&v](auto& s) {
            v.Key("initial_score.epsilon_share", s.epsilon_share,
                  {.range = Open(0, 1), .what = "share of ε spent on it"});
            v.Key("initial_score.label_clip", s.label_clip,
                  {.range = Open(0, kInf), .what = "m*, labels clipped to [−m*, m*]"});
            v.Key("initial_score.adapt_gradient_clip", s.adapt_gradient_clip,
                  {.what = "regression: g* becomes min(g*, max(2·d̂, sd)), d̂ the noisy mean's "
                           "distance from the nearer clip, sd its noise's standard deviation",
                   .write_default = false});
          });
  v.Group(
      "privacy", c.privacy,
      {.what = "(ε, δ) target of the whole run", .absent = "absent; required unless `non_private`"},
      [&v](auto& p) {
        v.Key("privacy.epsilon", p.epsilon,
              {.range = Open(0, kInf), .what = "ε", .required = true});
        v.Key("privacy.delta", p.delta,
              {.range = Open(0, 1),
               .accepted = "(0, 1), below 1/n (n rows) unless `allow_large_delta`",
               .what = "δ",
               .absent = "the largest power of ten below 1/n"});
        v.Key("privacy.allow_large_delta", p.allow_large_delta,
              {.what = "accept δ ≥ 1/n (admits releasing a whole record)", .write_default = false});
      });
  v.Key("non_private", c.non_private, {.what = "no noise at all (a baseline; the model says so)"});
  v.Rule([&c] {
    if (c.non_private && c.privacy) {
      throw InvalidArgument("non_private",
                            "true together with a privacy target; give one of the two");
    }
    if (!c.non_private && !c.privacy) {
      throw InvalidArgument("privacy",
                            "missing: give {\"epsilon\": ..., \"delta\": ...} (or "
                            "\"non_private\": true for a baseline without any noise)");
    }
    if (c.initial_score && c.initial_score->adapt_gradient_clip) {
      if (c.objective != Objective::kRegSquaredError || c.leaf_update == LeafUpdate::kAveraging) {
        throw InvalidArgument("initial_score.adapt_gradient_clip",
                              "= true needs objective reg:squarederror and leaf_update newton or "
                              "gradient (it bounds regression residuals); give false or leave it "
                              "out");
      }
      if (c.initial_score->label_clip < 1) {
        throw InvalidArgument("initial_score.label_clip", FormatNumber(c.initial_score->label_clip),
                              "[1, inf) with adapt_gradient_clip (the rule needs every scaled "
                              "label, in [-1, 1], inside the clipped range)");
      }
    }
    if (c.non_private && c.initial_score) {
      throw InvalidArgument("initial_score", "is a private release; not used with non_private");
    }
  });
  v.Group("renyi_filter", c.renyi_filter,
          {.what = "individual Rényi filter", .paper = "S-BDT §6.5–6.6", .absent = "absent"},
          [&v](auto& f) {
            v.Key("renyi_filter.extra_rounds", f.extra_rounds,
                  {.range = Closed(0, 100000),
                   .what = "trees trained beyond T while records keep budget"});
          });
  v.Key("seed", c.seed,
        {.accepted = "unsigned 64-bit integer",
         .what = "seed of the noise generator (reproducible runs; it reproduces the noise, so "
                 "never written to the model; warned about; not for published models)",
         .absent = "absent (secure randomness)"});
  v.Key("threads", c.threads,
        {.range = Closed(1, 256),
         .what = "worker threads (the same model for any count: sums are exact)"});
  v.Key("distributed_noise", c.distributed_noise,
        {.what = "runs over several ranks: noise drawn once on rank 0, or K shares N(0, σ²/K) "
                 "under secure aggregation (docs/distributed.md)",
         .write_default = false});
}

// Every trainer key, each once.
template <class Visitor, class Config>
void DeclareTrainerKeys(Visitor& v, Config& c) {
  DeclareTreeKeys(v, c);
  DeclareNoiseKeys(v, c);
}

}  // namespace rdpkit::trees::internal

#endif  // RDPKIT_TREES_SRC_CONFIG_KEYS_H_
