// The auto rule (docs/trees_auto.md): settings from public facts only. Every constant below was
// chosen on all 13 shared data sets together (bench/auto_grid.py; tables in docs/trees_auto.md),
// never on one.
#include "rdpkit/trees/auto_config.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/trees/accounting.h"

namespace rdpkit::trees {
namespace {

using nlohmann::json;

// Rows from which a classification run subsamples (regression always does): with n ≥ 10 000 a
// Poisson rate of 0.1 still gives each tree ≥ 1000 rows, and subsampled runs won on mplsstops and
// diamonds_cut (docs/trees_auto_why.md); below it, unsampled runs of many trees won.
constexpr std::size_t kSubsampleRows = 10000;
// Binary runs subsample (from kSubsampleRows) only below this ε. On three more binary sets of
// 20 000–51 000 rows (bench/derived_binary.py) unsampled runs won at every ε in 74 of 75 splits;
// mplsstops loses 0.022 AUC without subsampling at ε = 0.1, 0.006 at 0.5 (falling below S-BDT's
// own code there) and 0.002 at 1, and gains from ε = 2. From ε = 1 the mean over the four favours
// unsampled runs and no set falls below S-BDT (docs/trees_auto_why.md § Larger binary sets).
constexpr double kUnsampledBinaryEpsilon = 1;
// T of unsampled binary runs (and non-private baselines): without subsampling the margin's noise
// depends on T·η only (T leaf releases, each with noise sd ∝ √T/ε, times η), while more trees
// average more random partitions, so many trees at a small step (docs/trees_auto_why.md § Why).
constexpr int kUnsampledTrees = 1000;
// T of multiclass runs (rounds of K class trees, subsampled or not).
constexpr int kTrees = 300;
// T·η, the total step of the ensemble: η = total step/T for the chosen or given T. 30 for
// multiclass runs and non-private baselines.
constexpr double kTotalStep = 30;
// Subsampled binary and regression runs: as without subsampling, the margin's noise sd grows with
// T·η (σ ∝ √T under composition, T releases of step η), while more trees average more random
// partitions of more Poisson samples. Against S-BDT's T = 300, T·η = 30, T = 2000 lowered the
// mean regret on the 9 data sets that subsample (not in every cell), with the total step that did
// best by n: 60 (η = 0.03) from kSubsampleRows rows, 100 (η = 0.05) below, where only regression
// subsamples (docs/trees_auto_why.md § Why).
constexpr int kSubsampledTrees = 2000;
constexpr double kSubsampledTotalStep = 60;
constexpr double kSmallSubsampledTotalStep = 100;
// Subsampled multiclass runs from this ε sample each row with rate kMulticlassLargerRate and
// step kMulticlassLargerTotalStep in all: on the 3 multiclass sets from kSubsampleRows rows
// (diamonds_cut, letter, shuttle) the pair raised accuracy in all 6 cells at ε = 0.5 and 1 (by
// 0.008 and 0.012 on average; letter +0.023 at ε = 1), and was level at ε = 0.1 (−0.0006;
// letter −0.011); each alone gained in those 6 cells too (docs/trees_auto_why.md § Why this rule).
constexpr double kMulticlassLargerSampleEpsilon = 0.5;
constexpr double kMulticlassLargerRate = 0.2;
constexpr double kMulticlassLargerTotalStep = 42;
// Unsampled binary runs: the margin's noise sd grows as T·η/ε while its signal grows with T·η
// until the model fits, so the best total step grows with ε: measured best 20 at ε = 0.1, 40 at
// 0.5, 40–50 at 1 on the 8 binary sets; T·η = 45·ε^(1/3) fits them (docs/trees_auto_why.md). Above
// ε = 1 the model fits before noise matters: 45 beat 45·ε^(1/3) at ε = 2, 4 and 8 on the 7 sets of
// this branch (the longer step lost AUC as ε grew on two), so the step stays at ε = 1's.
constexpr double kBinaryTotalStepAtEpsilonOne = 45;
// h* of unsampled binary runs (the lower value of S-BDT's grid, its §8): below the Hessian's bound
// 1/4 it lowers the pair's sensitivity √(g*² + h*²) and lengthens the Newton steps of uncertain
// rows; 0.1 beat 0.15, 0.2 and 0.25 at g* = 1/2 on the shared sets (docs/trees_auto_why.md).
// Multiclass takes it in both branches: against the key table's 1 (unsampled) and S-BDT's 1/4
// (subsampled) it raised accuracy in 19 of 21 cells of the 7 sets below 10 000 rows and in 8 of 9
// of the 3 from 10 000, by 0.006 on average in each (0.05: +0.007, 0.2: +0.002;
// docs/trees_auto_why.md).
constexpr double kClassificationHessianClip = 0.1;
// Hessian weight r1 of the leaf-balanced noise [r1, 1 − r1] (S-BDT §5.2): S-BDT's 0.2 for
// classification; regression Hessians are row counts (h* = 1), and moving budget from them to the
// gradient sums (with the count's noise the floored denominator max(H̃, c·s_H) + λ grows, so sparse
// leaves shrink more) lowered RMSE in 22 / 20 / 22 of 26 regression sets at ε = 0.1 / 0.5 / 1, by
// 0.98 / 0.53 / 0.25 % on average, at most 1.7 % worse on a set (0.1: larger mean gain, but up to
// 11.5 % worse on the smallest sets; docs/trees_auto_why.md § Leaf noise weights of regression).
constexpr double kClassificationHessianNoiseWeight = 0.2;
constexpr double kRegressionHessianNoiseWeight = 0.15;
// Split candidates of private binary runs: the union of a uniform and a log grid of 16 each.
// Values crowded near a feature's lower bound (word frequencies, counts, amounts) get thresholds
// where they lie: +0.007 to +0.010 mean AUC over the 7 shared binary sets below 10 000 rows on
// 10 splits (spambase +0.024, aer_creditcard +0.04 to +0.07; satellite, pima_diabetes and
// credit_g lose up to 0.014), within 0.002 on the four from 10 000 rows; regression and
// multiclass lost with it (docs/trees_auto_features.md § Split candidates). Chosen from the task
// and ε only, not n, so that `rdpkit train` can bin the data as it reads it (RunSplitCandidates).
constexpr int kBinaryCandidates = 32;
// Largest learning rate the rule picks (a given small T: T = 25 → 0.3, not 1.2).
constexpr double kMaxLearningRate = 0.3;
// From this ε on, subsampled regression trees split on all features instead of one per tree:
// against S-BDT's one feature per tree, all features lowered RMSE on the 8 regression sets
// measured at ε = 2 and 8 by up to 32 % (diamonds, whose price needs carat × quality) or stayed
// within 0.1 %, and at ε = 1 on 4, with 2 ties and 0.3–0.6 % losses on 2; at ε = 0.5 and 0.1 the
// finer cells cost 4 of 8 up to 23 % (docs/trees_auto_why.md § Larger ε). Binary (mplsstops) lost
// with it up to ε = 2.
constexpr double kAllFeaturesRegressionEpsilon = 1;
// Below kSubsampleRows the same holds only from ε = 2: at ε = 1 one feature per tree had the
// lower RMSE on 13 of the 20 regression sets below 10 000 rows measured (by up to 10 %: psid7682,
// ames), all features on 6 (diamonds_10k by 18 %, boston by 11 %); mean regret 1.7 % against
// 2.2 %. From ε = 2 all features win on average (docs/trees_auto_why.md § Larger ε).
constexpr double kAllFeaturesSmallRegressionEpsilon = 2;

// The ε from which subsampled regression trees split on all features.
double AllFeaturesRegressionEpsilon(const PublicFacts& facts) {
  return facts.n_rows >= kSubsampleRows ? kAllFeaturesRegressionEpsilon
                                        : kAllFeaturesSmallRegressionEpsilon;
}

// Categorical features with more codes than this are "wide" (identifiers: students, lecturers,
// products). Split among Q = 32 thinned code boundaries, a tree lumps more than 8 codes to a cell,
// so per-code effects are lost: on insteval (2 972 and 1 128 codes) the rule's trees reached
// RMSE 1.314 at ε = 1 and AUC 0.590 on insteval_4, against 1.265 and 0.652 with one feature per
// tree grown over every code boundary. The same settings forced on mplsstops (87 codes, under 3
// a cell) lost up to 0.008 AUC and on ticdata (at most 39) up to 0.021 (docs/trees_auto_features.md
// § Wide categorical features).
constexpr int kWideCategoricalCodes = 256;
// Depth of the categorical trees of runs with a wide categorical feature: ⌈log2(codes)⌉ levels
// would give every code its own leaf if the splits were even; at most 11. Time, peak memory and
// model size grow with 2^depth: depth 12 gained 0.002–0.007 AUC on insteval_4 and −0.1 to 0.4 %
// RMSE on insteval over 11, at 1.3–1.5× the time and model size (docs/trees_auto_features.md § Wide
// categorical features).
constexpr int kMaxWideDepth = 11;
// Depth of those runs' other trees, at least: a tree over one numeric feature's 32 candidates
// reaches every cell of its grid at ⌈log2 33⌉ = 6 levels. With one feature per tree, depth 6
// beat the unsampled branch's 4 on ticdata by 0.04 / 0.02 AUC at ε = 0.1 / 1 and tied on
// mplsstops (the rule's settings forced on them; docs/trees_auto_features.md § Wide categorical
// features).
constexpr int kWideOtherDepth = 6;

// feature_interaction of one feature per tree, in the key table's form.
json OneFeaturePerTree() { return {{"method", "cyclical"}, {"k", 1}}; }

// Whether splits are drawn at random, the condition of split_scope "all" and categorical_depth
// (RequireMeaningfulScopes), from the values split_method and feature_interaction will have
// (null: the key table's totally_random and all features).
bool DrawsRandomSplits(const json& split_method, const json& interaction) {
  const std::string method =
      split_method.is_string() ? split_method.get<std::string>() : std::string("totally_random");
  const bool one_feature = interaction.is_object() && interaction.contains("k") &&
                           interaction["k"].is_number_integer() && interaction["k"] == 1;
  return method == "totally_random" || (method == "partially_random" && one_feature);
}

// Whether the rule splits categorical features over every code boundary (RuleCandidates): a
// private run whose schema has a wide categorical feature and whose splits are drawn at random with
// the config's split_method and feature_interaction, if it gives them, else the rule's one feature
// per tree (greedy splits over thousands of candidates at depth 11 would cost histograms, not
// leaves). Never from n: `rdpkit train` bins the data before it counts the rows.
bool WideCategoricalCandidates(const PublicFacts& facts, const json& given) {
  if (!std::isfinite(facts.epsilon) || facts.widest_categorical <= kWideCategoricalCodes) {
    return false;
  }
  return DrawsRandomSplits(given.value("split_method", json()),
                           given.value("feature_interaction", OneFeaturePerTree()));
}

// Whether the rule also grows deep one-feature trees over those codes
// (AddWideCategoricalSettings): where it takes every code boundary, except for regression below
// kSubsampleRows rows. There the other trees' changes (one feature per tree, node scope, depth 6,
// 1000 trees) cost more than the identifier's trees gain: psid7682 (r-cran-aer, 2 916 training
// rows, 595 person codes) 529 / 438 / 394 RMSE at ε = 0.1 / 0.5 / 1 with them, 425 / 361 / 380
// without; insteval cut to 4 900 and 9 800 rows 0.9–4.2 % higher RMSE at ε = 0.1 and 0.5, 0.3–0.7 %
// lower at 1 (docs/trees_auto_features.md § Wide categorical features). Binary runs keep them at
// every n: insteval_4 cut alike gained up to 0.027 AUC with them, psid7682 with a binary label lost
// up to 0.040; n does not separate the two.
bool WideCategoricalApplies(const PublicFacts& facts, const json& given) {
  if (facts.task == Task::kRegression && facts.n_rows < kSubsampleRows) return false;
  return WideCategoricalCandidates(facts, given);
}

// Whether a subsampled run takes the larger multiclass sample and step (kMulticlassLargerRate,
// kMulticlassLargerTotalStep): multiclass from kMulticlassLargerSampleEpsilon.
bool TakesLargerMulticlassSample(const PublicFacts& facts) {
  return facts.task == Task::kMulticlass && facts.epsilon >= kMulticlassLargerSampleEpsilon;
}

// T·η of a run: 45·min(ε, 1)^(1/3) for unsampled private binary runs, kSubsampledTotalStep (or,
// below kSubsampleRows rows, kSmallSubsampledTotalStep) for subsampled binary and regression runs,
// kMulticlassLargerTotalStep for subsampled multiclass runs from kMulticlassLargerSampleEpsilon,
// else kTotalStep.
double TotalStep(const PublicFacts& facts, bool subsampled) {
  if (subsampled && TakesLargerMulticlassSample(facts)) return kMulticlassLargerTotalStep;
  if (facts.task == Task::kMulticlass || !std::isfinite(facts.epsilon)) return kTotalStep;
  if (subsampled) {
    return facts.n_rows >= kSubsampleRows ? kSubsampledTotalStep : kSmallSubsampledTotalStep;
  }
  if (facts.task != Task::kBinary) return kTotalStep;
  return kBinaryTotalStepAtEpsilonOne * std::cbrt(std::min(facts.epsilon, 1.0));
}

// η for T trees: the total step over T, at most kMaxLearningRate.
double LearningRateFor(double total_step, double trees) {
  return std::min(kMaxLearningRate, total_step / trees);
}

// g* of classification runs: the norm of every record's gradient in the first round, so that
// clipping starts only where a prediction has moved the wrong way: binary |σ(0) − y| = 1/2 (S-BDT's
// g*); softprob at p = 1/K, ‖p − e_y‖ = √((K − 1)/K).
double FirstRoundGradientNorm(const PublicFacts& facts) {
  if (facts.task != Task::kMulticlass) return 0.5;
  const double k = std::max(2, facts.n_classes);
  return std::sqrt((k - 1) / k);
}

// S-BDT's setting (S-BDT §8 and its code: Poisson rate 0.1, leaf-balanced noise with Hessian
// weight 0.2, depth 6, λ = 15, one feature per tree drawn from all of its candidates, 10 % of ε
// on the initial score, g* = 0.5) with rdpkit's leaf rule (the floored noisy Hessian), regression's
// Hessian weight kRegressionHessianNoiseWeight, more trees at a smaller step for binary and
// regression (kSubsampledTrees), and regression trees over all features from
// AllFeaturesRegressionEpsilon.
json SubsampledSettings(const PublicFacts& facts) {
  json s = json::object();
  s["n_estimators"] = facts.task == Task::kMulticlass ? kTrees : kSubsampledTrees;
  s["subsample"] = TakesLargerMulticlassSample(facts) ? kMulticlassLargerRate : 0.1;
  const double hessian_weight = facts.task == Task::kRegression ? kRegressionHessianNoiseWeight
                                                                : kClassificationHessianNoiseWeight;
  s["leaf_noise_weights"] = {hessian_weight, 1 - hessian_weight};
  // Below kSubsampleRows (only regression subsamples there) a tree samples ~γn < 1000 rows: depth
  // 4 keeps more of them per leaf (docs/trees_auto_why.md: lower RMSE on all four such sets
  // measured).
  s["max_depth"] = facts.n_rows >= kSubsampleRows ? 6 : 4;
  s["reg_lambda"] = 15;
  if (facts.task == Task::kRegression && facts.epsilon >= AllFeaturesRegressionEpsilon(facts)) {
    s["feature_interaction"] = {{"method", "all"}, {"k", 0}};  // the key table's form
  } else {
    s["feature_interaction"] = {{"method", "cyclical"}, {"k", 1}};
  }
  s["split_scope"] = "all";
  // Regression: S-BDT's 0.5 (half the label range's half); classification: the first round's
  // gradient norm, which is S-BDT's 0.5 for binary (multiclass, diamonds_cut: √(4/5) beat 0.5 by
  // 0.04–0.06 accuracy at every ε, docs/trees_auto.md).
  s["gradient_clip"] = facts.task == Task::kRegression ? 0.5 : FirstRoundGradientNorm(facts);
  // h* = 1/4 bounds the binary Hessian p(1 − p) (S-BDT's h*); regression Hessians are 1.
  // Multiclass clips lower, as without subsampling.
  s["hessian_clip"] = facts.task == Task::kRegression ? 1.0
                      : facts.task == Task::kBinary   ? 0.25
                                                      : kClassificationHessianClip;
  // No initial score for multiclass (refused there: its base margins are public, softmax.h).
  if (facts.task != Task::kMulticlass) {
    s["initial_score"] = {{"epsilon_share", 0.1}, {"label_clip", 1.0}};
    // Regression with public label bounds: g* follows the noisy mean's distance from the nearer
    // bound (labels concentrated near a bound have small residuals; docs/trees_auto_why.md).
    if (facts.task == Task::kRegression && facts.label_bounds) {
      s["initial_score"]["adapt_gradient_clip"] = true;
    }
  }
  return s;
}

// The rule's split candidates (none: the key table's uniform grid): from the task, the widest
// categorical feature, ε and the given split_method only, never n.
json RuleCandidates(const PublicFacts& facts, const json& given) {
  if (!std::isfinite(facts.epsilon)) return json();
  const bool binary = facts.task == Task::kBinary;
  const bool wide = WideCategoricalCandidates(facts, given);
  if (!binary && !wide) return json();
  const TrainerConfig::SplitCandidates key_table;
  // The key table's form (rounds only matter to iterative_hessian).
  json candidates = {{"method", binary ? "uniform_and_log" : "uniform"},
                     {"count", binary ? kBinaryCandidates : key_table.count},
                     {"rounds", key_table.rounds}};
  // Categorical features: every code boundary of the widest (at most the key's limit).
  if (wide) {
    candidates["categorical_count"] =
        std::min(facts.widest_categorical - 1, TrainerConfig::SplitCandidates::kMaxCount);
  }
  return candidates;
}

// Runs with a wide categorical feature: one feature per tree, split within the node's range, trees
// on a categorical feature as deep as the widest one's codes need (kMaxWideDepth at most; other
// trees at least kWideOtherDepth), at most kUnsampledTrees trees, whatever the branch.
void AddWideCategoricalSettings(const PublicFacts& facts, const json& given, json& settings) {
  if (!WideCategoricalApplies(facts, given)) return;
  settings["feature_interaction"] = OneFeaturePerTree();
  settings.erase("split_scope");  // the key table's node scope (models omit the default)
  const int depth = static_cast<int>(std::ceil(std::log2(facts.widest_categorical)));
  settings["categorical_depth"] = std::min(depth, kMaxWideDepth);
  const int branch_depth = settings.value("max_depth", TrainerConfig{}.max_depth);
  settings["max_depth"] = std::max(branch_depth, kWideOtherDepth);
  // At most kUnsampledTrees trees (η follows T): subsampled regression's 2000 trees of depth 11
  // took twice the time and model size of 1000 for RMSE within 0.3 % (insteval: +0.2 % at
  // ε = 0.1, −0.3 % at 0.5 and 1).
  settings["n_estimators"] = std::min(settings["n_estimators"].get<int>(), kUnsampledTrees);
}

// The rule's settings besides the learning rate (set from T in AutoSettings).
json RuleSettings(const PublicFacts& facts, const json& given) {
  // A non-private baseline (ε = ∞) gets no privacy device: subsampling and leaf-balanced noise
  // only trade rows for less noise. Binary runs with a wide categorical feature do not subsample
  // at any ε: their deep one-feature trees did as well or better on all rows (insteval_4 at
  // ε = 0.1 / 0.5: +0.001 / +0.006 AUC) with half the trees, in half the time.
  const bool large_classification =
      facts.n_rows >= kSubsampleRows &&
      (facts.task == Task::kMulticlass ||
       (facts.epsilon < kUnsampledBinaryEpsilon && !WideCategoricalApplies(facts, given)));
  const bool subsample =
      std::isfinite(facts.epsilon) && (facts.task == Task::kRegression || large_classification);
  if (subsample) {
    return SubsampledSettings(facts);
  }
  json s = json::object();
  s["n_estimators"] = facts.task == Task::kMulticlass ? kTrees : kUnsampledTrees;
  if (!std::isfinite(facts.epsilon)) return s;
  // g* = the first round's gradient norm; with h* it cuts the binary pair's sensitivity
  // √(g*² + h*²) from √17/4 ≈ 1.03 to ≈ 0.51, about half the noise.
  s["gradient_clip"] = FirstRoundGradientNorm(facts);
  s["hessian_clip"] = kClassificationHessianClip;
  return s;
}

// split_scope "all" needs data-independent random splits (RequireMeaningfulScopes): drop it when
// the config's own split_method or feature_interaction rules it out.
void DropInapplicable(json& settings, const json& given) {
  if (!settings.contains("split_scope")) return;
  // The value a key will have: the config's, else the rule's, else null (the static default).
  const auto merged = [&](const char* key) {
    if (const auto it = given.find(key); it != given.end()) return *it;
    if (const auto it = settings.find(key); it != settings.end()) return *it;
    return json();
  };
  if (!DrawsRandomSplits(merged("split_method"), merged("feature_interaction"))) {
    settings.erase("split_scope");
  }
}

// Whether the rule fills the keys a config does not give: "defaults" absent or "auto".
bool RuleApplies(const json& config) {
  if (!config.is_object()) throw InvalidArgument("config", "must be a JSON object");
  const auto defaults = config.find("defaults");
  return defaults == config.end() || *defaults == "auto";
}

}  // namespace

PublicFacts PublicFactsOf(const json& config, const Schema& schema, std::size_t n_rows) {
  PublicFacts facts;
  facts.n_rows = n_rows;
  facts.n_features = static_cast<int>(schema.features.size());
  facts.task = schema.task;
  facts.n_classes = schema.task == Task::kMulticlass ? schema.n_classes : 0;
  facts.label_bounds = schema.label.has_value();
  for (const FeatureSpec& feature : schema.features) {
    if (feature.categorical)
      facts.widest_categorical = std::max(facts.widest_categorical, feature.n_codes);
  }
  facts.epsilon = std::numeric_limits<double>::infinity();
  facts.delta = DefaultDelta(n_rows);
  const auto privacy = config.find("privacy");
  if (privacy != config.end() && privacy->is_object()) {
    const auto epsilon = privacy->find("epsilon");
    if (epsilon != privacy->end() && epsilon->is_number()) facts.epsilon = epsilon->get<double>();
    const auto delta = privacy->find("delta");
    if (delta != privacy->end() && delta->is_number()) facts.delta = delta->get<double>();
  }
  return facts;
}

json AutoSettings(const PublicFacts& facts, const json& config) {
  if (!config.is_object() && !config.is_null()) {
    throw InvalidArgument("config", "must be a JSON object");
  }
  const json given = config.is_null() ? json::object() : config;
  json settings = RuleSettings(facts, given);
  AddWideCategoricalSettings(facts, given, settings);
  if (const json candidates = RuleCandidates(facts, given); !candidates.is_null()) {
    settings["split_candidates"] = candidates;
  }
  // The objective of the schema's task (softprob: K class trees per round, docs/trees_training.md).
  settings["objective"] = facts.task == Task::kBinary       ? "binary:logistic"
                          : facts.task == Task::kRegression ? "reg:squarederror"
                                                            : "multi:softprob";
  // η by T: the chosen T, or the one the config gives. A given T outside [1, ∞) sets no η (the
  // config's validation refuses it, naming n_estimators).
  double trees = settings["n_estimators"].get<double>();
  if (const auto t = given.find("n_estimators"); t != given.end()) {
    trees = t->is_number() ? t->get<double>() : 0.0;
  }
  if (trees >= 1) {
    const double total_step = TotalStep(facts, settings.contains("subsample"));
    settings["learning_rate"] = LearningRateFor(total_step, trees);
  }
  // A key the config gives wins (a given object replaces the rule's whole object).
  for (const auto& item : given.items()) settings.erase(item.key());
  // A non-private baseline releases nothing, so no initial score (refused with non_private).
  // The multiclass clip is softprob's gradient norm; one-vs-rest trains binary class trees.
  if (given.value("objective", json()) == "multi:ovr") settings.erase("gradient_clip");
  const auto non_private = given.find("non_private");
  if (non_private != given.end() && *non_private == true) settings.erase("initial_score");
  // Noise shares over ranks take Gaussian releases only (docs/distributed.md): no initial score.
  const auto noise = given.find("distributed_noise");
  if (noise != given.end() && *noise == "shares") settings.erase("initial_score");
  // The adapted clip bounds residuals: not with the averaging update, whose g* clips the labels,
  // and not where the config gives g* (a given key wins).
  const auto leaf = given.find("leaf_update");
  if (settings.contains("initial_score") &&
      ((leaf != given.end() && *leaf == "averaging") || given.contains("gradient_clip"))) {
    settings["initial_score"].erase("adapt_gradient_clip");
  }
  DropInapplicable(settings, given);
  return settings;
}

TrainerConfig GivenConfig(const json& config) {
  if (!RuleApplies(config) || config.contains("n_estimators")) {
    return TrainerConfig::FromJson(config);
  }
  json checked_now = config;
  checked_now.erase("batch_size");
  checked_now["n_estimators"] = 1;
  return TrainerConfig::FromJson(checked_now);
}

TrainerConfig::SplitCandidates RunSplitCandidates(const json& config, const Schema& schema) {
  json merged = config;
  if (RuleApplies(config) && !config.contains("split_candidates")) {
    // n does not enter RuleCandidates; the facts' other fields are those of ResolveConfig.
    const json candidates = RuleCandidates(PublicFactsOf(config, schema, 0), config);
    if (!candidates.is_null()) merged["split_candidates"] = candidates;
  }
  return GivenConfig(merged).split_candidates;
}

TrainerConfig ResolveConfig(const json& config, const Schema& schema, std::size_t n_rows) {
  json merged = config;
  if (RuleApplies(config)) {
    merged["defaults"] = "auto";
    const json settings = AutoSettings(PublicFactsOf(config, schema, n_rows), config);
    for (const auto& item : settings.items()) merged[item.key()] = item.value();
  }
  return TrainerConfig::FromJson(merged);
}

}  // namespace rdpkit::trees
