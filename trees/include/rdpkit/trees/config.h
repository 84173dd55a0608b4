// Trainer configuration (DESIGN.md §5). Field names equal JSON keys; FromJson rejects unknown keys
// naming them; Validate() throws rdpkit::InvalidArgument naming the field, the value and the
// accepted range. Defaults follow Maddock et al. 2022 (DP-TR Newton) where a paper gives one.
//
// Each key is declared once, in trees/src/config_keys.h (DeclareTrainerKeys: name, accepted range,
// one-line meaning, paper; the default is the member initializer below): FromJson, Validate,
// ToJson, their error messages and the key table of docs/trees_training.md all come from that
// declaration.
#ifndef RDPKIT_TREES_CONFIG_H_
#define RDPKIT_TREES_CONFIG_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rdpkit/trees/data.h"

namespace rdpkit::trees {

// The enumerated keys. Their JSON spellings (ToString) are declared once, in config_keys.h, and
// parsed there only; code compares the enums, never the text.
// XGBoost's names: binary:logistic, reg:squarederror, multi:softprob; multi:ovr is K binary
// one-vs-rest models trained together (docs/trees_training.md "Multiclass").
enum class Objective { kBinaryLogistic, kRegSquaredError, kMultiSoftprob, kMultiOvr };
// Maddock §4.3; Revisiting DP-XGBoost §4.2.
enum class SplitMethod { kTotallyRandom, kPartiallyRandom, kHistogram, kExponential };
enum class LeafUpdate { kNewton, kGradient, kAveraging };  // Maddock §4.4
// Maddock §4.5; quantile is non-private (a baseline); uniform_and_log is the union of the
// uniform and log grids (docs/trees_training.md § Methods).
enum class CandidateMethod { kUniform, kLog, kIterativeHessian, kQuantile, kUniformAndLog };
enum class InteractionMethod { kAll, kCyclical, kRandom };  // Maddock §5.1
// Candidates a data-independent random split is drawn from: those inside the node's interval of
// the feature (Maddock §4.3.2 as rdpkit reads it), or all of the feature's (S-BDT's code).
enum class SplitScope { kNode, kAll };
// A Newton/gradient leaf whose noisy Hessian sum is negative: the floored step (rdpkit), or 0
// (S-BDT's code).
enum class NegativeHessianLeaf { kFloor, kZero };
// Keys a config does not give: chosen by the auto rule from public facts (auto_config.h), or the
// fixed defaults of the key table (static).
enum class Defaults { kStatic, kAuto };
// Where the noise of a release over several ranks is drawn (docs/distributed.md): once, on rank 0,
// or as K independent shares N(0, σ²/K) under secure aggregation.
enum class DistributedNoise { kCentral, kShares };

// The JSON spelling of a value ("binary:logistic", "totally_random", ...). A value outside the
// enumeration (a cast) → InternalError.
std::string ToString(Objective value);
std::string ToString(SplitMethod value);
std::string ToString(LeafUpdate value);
std::string ToString(CandidateMethod value);
std::string ToString(InteractionMethod value);
std::string ToString(SplitScope value);
std::string ToString(NegativeHessianLeaf value);
std::string ToString(Defaults value);
std::string ToString(DistributedNoise value);
// Task of the schemas an objective trains on.
Task TaskOfObjective(Objective objective);

struct TrainerConfig {
  // Ranges, meanings and papers of the keys: config_keys.h (and docs/trees_training.md).
  // How the keys below that a config does not give were set: by the auto rule (ResolveConfig,
  // auto_config.h: `rdpkit train` and the Python estimators) or at the member initializers here
  // (static; FromJson alone, or a config built in C++).
  Defaults defaults = Defaults::kStatic;
  Objective objective = Objective::kBinaryLogistic;
  // T, number of trees, [1, 100000].
  int n_estimators = 100;
  // d, depth of every tree (2^d leaves), [1, 16], except as below.
  int max_depth = 4;
  // Depth of a tree whose features are all categorical, [0, 16]; 0: max_depth. Deep trees over
  // every code boundary learn per-code effects of identifiers (docs/trees_auto_features.md § Wide
  // categorical features). Data-independent random splits only (else refused).
  int categorical_depth = 0;
  // η, shrinkage applied to every leaf value, (0, 10].
  double learning_rate = 0.3;
  // λ, L2 regulariser in the Newton leaf −G/(H + λ), [0, inf). Maddock §4.4.
  double reg_lambda = 1;
  // β, each leaf value is clipped to [−β, β] before the learning rate. (0, inf]. Maddock §4.4.3.
  double max_leaf_value = 2;
  // c: in the Newton and gradient leaves −G̃/(max(H̃, c·s_H) + λ) and in the split gains
  // G̃²/(max(H̃, c·s_H) + λ), a noisy Hessian (count) is not trusted below c times the standard
  // deviation s_H of the noise added to it. Post-processing of released values only (the privacy
  // event does not change). [0, 100]; 0 = max(H̃, 0), the plain rule. docs/trees_training.md §4.
  double noisy_hessian_floor = 2;
  // kZero: a Newton or gradient leaf whose noisy Hessian sum H̃ is negative gets the value 0 (as in
  // S-BDT's code, kirschte/sbdt); other leaves keep the floored step above. kFloor: every leaf
  // takes the floored step. Post-processing only. Refused with leaf_update averaging.
  NegativeHessianLeaf negative_hessian_leaf = NegativeHessianLeaf::kFloor;
  SplitMethod split_method = SplitMethod::kTotallyRandom;
  // Data-independent random splits (totally_random; partially_random with one feature per tree)
  // draw a node's candidate among those inside the node's interval of the feature (kNode) or
  // among all of the feature's candidates, so that a child may be empty (kAll, S-BDT's code).
  // Public randomness only: the privacy event does not change. Refused with other split methods.
  SplitScope split_scope = SplitScope::kNode;
  LeafUpdate leaf_update = LeafUpdate::kNewton;

  // Split candidate sets, Maddock §4.5.
  struct SplitCandidates {
    CandidateMethod method = CandidateMethod::kUniform;
    // Q, candidates per feature, [2, kMaxCount]. A value's bin (0..Q) and the missing bin must fit
    // 16 bits, hence 65534.
    static constexpr int kMaxCount = 65534;
    int count = 32;
    // Q_c, candidates of a categorical feature: its code boundaries, evenly thinned to Q_c when it
    // has more. [0, kMaxCount]; 0: Q.
    int categorical_count = 0;
    // The candidate count of a categorical feature (Q_c, or Q), and the larger of the two: a
    // value's bin is a byte when it is at most 253.
    int categorical() const { return categorical_count > 0 ? categorical_count : count; }
    int widest() const { return categorical() > count ? categorical() : count; }
    // s, rounds of iterative_hessian, [1, 100].
    int rounds = 5;
  } split_candidates;

  // Which features a tree may split on, Maddock §5.1.
  struct FeatureInteraction {
    InteractionMethod method = InteractionMethod::kAll;
    // k features per tree, [1, n_features] for cyclical/random; ignored (0) for all.
    int k = 0;
  } feature_interaction;

  // B, trees per batch: the trees of one batch are fit to the same gradients and their leaf values
  // are divided by B (Maddock §5.2). [1, n_estimators]; 1 = sequential boosting, T = random forest.
  int batch_size = 1;
  // γ, Poisson sampling rate of the rows used by each tree, (0, 1]. S-BDT §6.3.
  double subsample = 1;
  // g*: gradients are clipped to [−g*, g*] (S-BDT §4.2). (0, inf). Binary cross-entropy
  // gradients lie in (−1, 1), so a value ≥ 1 is inactive there.
  double gradient_clip = 1;
  // h*: Hessians are clipped to [0, h*] (S-BDT §4.2). (0, inf). Regression Hessians are 1;
  // binary cross-entropy Hessians lie in [0, 1/4].
  double hessian_clip = 1;
  // [r1, r2] (Hessian, gradient) noise weights of the leaf-balanced Gaussian (S-BDT §5.2), each
  // > 0, summing to 1. Empty: spherical noise.
  std::vector<double> leaf_noise_weights;

  // DP initial score (S-BDT §6.2): a share of ε spent on a noisy mean of the clipped labels.
  struct InitialScore {
    double epsilon_share = 0.05;  // (0, 1)
    double label_clip = 1;        // m*, labels clipped to [−m*, m*], (0, inf)
    // Regression only: after the release, g* becomes min(g*, max(2·d̂, sd)), d̂ the noisy mean's
    // distance from the nearer clip ±m* and sd its noise's standard deviation
    // (docs/trees_training.md, "Adapted gradient clip"). Post-processing of the release: the event
    // does not depend on g*.
    bool adapt_gradient_clip = false;
  };
  std::optional<InitialScore> initial_score;

  // Target (ε, δ) of the whole training run.
  struct Privacy {
    double epsilon = 1;  // (0, inf)
    // (0, 1) and below 1/n (n training rows) unless allow_large_delta; absent: the largest power
    // of ten below 1/n (accounting.h DefaultDelta).
    std::optional<double> delta;
    // true accepts δ ≥ 1/n: such a δ admits releasing a whole record (docs/trees_training.md).
    bool allow_large_delta = false;
  };
  // Required unless non_private is true.
  std::optional<Privacy> privacy;
  // true: train without any noise (a non-private baseline); the model records {"private": false}.
  bool non_private = false;

  // Individual Rényi filter (S-BDT §6.5–6.6): extra_rounds more trees are trained while records
  // whose individual budget is not yet exhausted remain. [0, 100000].
  struct RenyiFilter {
    int extra_rounds = 0;
  };
  std::optional<RenyiFilter> renyi_filter;

  // Seed of the noise generator; absent → secure randomness (never the clock).
  std::optional<std::uint64_t> seed;
  // Worker threads, [1, 256].
  int threads = 1;
  // Runs over several ranks (MPI, or the in-process simulation) only; docs/distributed.md.
  DistributedNoise distributed_noise = DistributedNoise::kCentral;

  // Throws rdpkit::InvalidArgument naming the key of the first invalid field.
  void Validate() const;
  // Unknown keys and wrong types → InvalidArgument naming the key; the result is validated.
  static TrainerConfig FromJson(const nlohmann::json& json);
  // Every field, with defaults filled in (absent optionals are omitted).
  nlohmann::json ToJson() const;
};

// The key table of docs/trees_training.md (Markdown, one row per key), rendered from the
// declaration; tests/trees/config_test.cc checks that the docs hold exactly this.
std::string ConfigKeyTable();

// Estimated peak memory of Train (and of writing its model) for a configuration on n_rows rows of
// a schema, in bytes, by part (docs/trees_training.md "What the trainer refuses"): meant to refuse
// what cannot fit (measured peaks lie below it), not to account for every allocation.
struct MemoryEstimate {
  // The trees held in memory ((n_estimators + extra_rounds) · K of them, `nodes` nodes in all:
  // 2^(d+1) − 1 a tree at the deepest depth d, fewer for one-feature trees over few candidates)
  // and the model text built from them when the model is written.
  double model = 0;
  double trees = 0;
  double nodes = 0;
  double tree_nodes = 0;  // of the largest tree
  // The data set and the trainer's per-row state (margins, statistics, bins).
  double rows = 0;
  // The per-thread histograms of a tree's deepest level (split methods other than totally_random)
  // and the candidate sets.
  double histograms = 0;
  double total() const { return model + rows + histograms; }
};
MemoryEstimate EstimateTrainingMemory(const TrainerConfig& config, const Schema& schema,
                                      std::size_t n_rows);
// The memory a training run may use: physical memory (sysconf), lowered by a cgroup memory limit
// or an address-space rlimit when one is set. `source` (optional) receives which one it was.
double AvailableMemoryBytes(std::string* source = nullptr);
// Throws InvalidArgument when EstimateTrainingMemory(...).total() > limit_bytes, naming the key to
// reduce (n_estimators/max_depth for the model, split_candidates.count/max_depth for histograms,
// the data for the rows) and giving the estimate, its parts and the limit.
void RequireTrainableInMemory(const TrainerConfig& config, const Schema& schema, std::size_t n_rows,
                              double limit_bytes, const std::string& limit_source);
// Same, against AvailableMemoryBytes(). Train calls it before allocating anything.
void RequireTrainableInMemory(const TrainerConfig& config, const Schema& schema,
                              std::size_t n_rows);

}  // namespace rdpkit::trees

#endif  // RDPKIT_TREES_CONFIG_H_
