// Traps that earlier DP-GBDT implementations fell into (issue 5, point 14), each shown not to
// happen in rdpkit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "logistic.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/trees/accounting.h"
#include "rdpkit/trees/train.h"
#include "synthetic_data.h"
#include "trees_test_util.h"

namespace rdpkit::trees {
namespace {

using nlohmann::json;

using testing::Quiet;
using testing::QuietWholeTrees;

// Trap 1: a split compares differently in training and prediction (`<` vs `<=`). Every value
// lies exactly on a candidate threshold (integers 0..8 with uniform candidates j·9/9 = j on
// [0, 9]).
// A non-private averaging tree stores in each leaf the mean label of the rows training sent
// there; recomputing that mean over the rows prediction sends to the leaf must agree exactly.
TEST(Traps, TrainingAndPredictionRouteTiesTheSameWay) {
  Dataset d;
  d.schema.task = Task::kRegression;
  FeatureSpec spec;
  spec.name = "x";
  spec.min = 0;
  spec.max = 9;
  d.schema.features = {spec};
  d.feature_names = {"x"};
  d.columns.assign(1, {});
  d.clipped = {0};
  for (int rep = 0; rep < 20; ++rep) {
    for (int v = 0; v <= 8; ++v) {
      d.columns[0].push_back(v);
      d.labels.push_back(v * 10.0 + rep % 3);  // each value has its own label level
    }
  }
  const TrainerConfig config =
      TrainerConfig::FromJson({{"objective", "reg:squarederror"},
                               {"non_private", true},
                               {"n_estimators", 30},
                               {"batch_size", 30},
                               {"max_depth", 3},
                               {"leaf_update", "averaging"},
                               {"max_leaf_value", "inf"},
                               {"gradient_clip", 1000.0},
                               {"split_candidates", {{"method", "uniform"}, {"count", 9}}},
                               {"seed", 3}});
  const Model model = Train(d, config, Quiet());
  int checked_ties = 0;
  for (const Tree& tree : model.trees) {
    std::map<int, std::pair<double, int>> sums;  // leaf → (label sum, rows)
    for (std::size_t i = 0; i < d.labels.size(); ++i) {
      const double x = d.columns[0][i];
      auto& s = sums[tree.LeafIndex(&x)];
      s.first += d.labels[i];
      s.second += 1;
    }
    for (const auto& [leaf, s] : sums) {
      // Averaging leaves hold mean/B (B = 30 trees per batch).
      EXPECT_NEAR(tree.nodes[static_cast<std::size_t>(leaf)].value * 30, s.first / s.second, 1e-9);
    }
    for (const Node& node : tree.nodes) {
      if (!node.is_leaf() && node.threshold == std::round(node.threshold)) ++checked_ties;
    }
  }
  EXPECT_GT(checked_ties, 30);  // the thresholds really coincide with data values
}

// The same check with missing values, five features and depths up to 8 (the trainer routes 32 rows
// at a time with vector compares where the CPU allows, the rest row by row): every leaf holds the
// mean label of exactly the rows that prediction, using GoesLeft on the raw values, sends to it.
TEST(Traps, TrainingRoutesMissingValuesLikePrediction) {
  Dataset d;
  d.schema.task = Task::kRegression;
  const int m = 5;  // several features per level, so the vector kernel blends columns
  for (int f = 0; f < m; ++f) {
    FeatureSpec spec;
    spec.name = "x" + std::to_string(f);
    spec.min = 0;
    spec.max = 1;
    d.schema.features.push_back(spec);
    d.feature_names.push_back(spec.name);
  }
  d.columns.assign(m, {});
  d.clipped.assign(m, 0);
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 1000; ++i) {  // 1000 = 31·32 + 8: both routing paths run
    for (auto& column : d.columns) {
      column.push_back(unit(rng) < 0.15 ? std::nan("") : unit(rng));
    }
    d.labels.push_back(unit(rng) * 10);
  }
  // Depths 3, 6, 7 and 8: 1, 2, 4 and 8 tables of 16 nodes per level in the vector kernel.
  for (const int depth : {3, 6, 7, 8}) {
    const TrainerConfig config = TrainerConfig::FromJson({{"objective", "reg:squarederror"},
                                                          {"non_private", true},
                                                          {"n_estimators", 10},
                                                          {"batch_size", 10},
                                                          {"max_depth", depth},
                                                          {"leaf_update", "averaging"},
                                                          {"max_leaf_value", "inf"},
                                                          {"gradient_clip", 1000.0},
                                                          {"seed", 5}});
    const Model model = Train(d, config, Quiet());
    int missing_routed = 0;
    for (const Tree& tree : model.trees) {
      std::map<int, std::pair<double, int>> sums;  // leaf → (label sum, rows)
      for (std::size_t i = 0; i < d.labels.size(); ++i) {
        double row[m];
        bool any_missing = false;
        for (std::size_t f = 0; f < m; ++f) {
          row[f] = d.columns[f][i];
          any_missing = any_missing || std::isnan(row[f]);
        }
        if (any_missing) ++missing_routed;
        auto& s = sums[tree.LeafIndex(row)];
        s.first += d.labels[i];
        s.second += 1;
      }
      // Labels enter the trainer's exact sums truncated to 2^-14 (2^-24 of the clip 1000, as a
      // power of two, statistics.h): a leaf's mean is within 2^-14 of these double means.
      for (const auto& [leaf, s] : sums) {
        EXPECT_NEAR(tree.nodes[static_cast<std::size_t>(leaf)].value * 10, s.first / s.second,
                    0x1p-14)
            << "depth " << depth;
      }
    }
    EXPECT_GT(missing_routed, 2000);
  }
}

// Trap 2: the noise added differs from the noise the accountant assumed (S-BDT halves its
// Hessian noise in Newton mode). The standard deviation of the noise actually added is compared
// with the one derived by hand from the noise multiplier in the stored event.
// Sample: 400 trees × 16 leaves = 6400 draws per coordinate; the relative standard error of a
// sample standard deviation is 1/√(2·6400) ≈ 0.9 %, so a 5 % tolerance is > 5 standard errors
// (false alarm < 1e-6), while halving the noise (−50 %) or using the wrong sensitivity fails.
double NoiseStd(const std::vector<NoiseRecord>& log, const std::string& query, int coordinate) {
  double sum = 0, sum2 = 0;
  int n = 0;
  for (const auto& r : log) {
    if (r.query != query || r.coordinate != coordinate) continue;
    const double e = r.noisy - r.exact;
    sum += e;
    sum2 += e * e;
    ++n;
  }
  EXPECT_GT(n, 1000) << query;
  const double mean = sum / n;
  return std::sqrt(sum2 / n - mean * mean);
}

double SigmaFromEvent(const json& event) {
  // Depth-first search for the noise multiplier of the first Gaussian-type event.
  if (event.is_object()) {
    for (const auto& [key, value] : event.items()) {
      if ((key == "gaussian" || key == "leaf_balanced_gaussian") && value.is_object()) {
        return value["noise_multiplier"];
      }
      const double s = SigmaFromEvent(value);
      if (s > 0) return s;
    }
  } else if (event.is_array()) {
    for (const auto& e : event) {
      const double s = SigmaFromEvent(e);
      if (s > 0) return s;
    }
  }
  return 0;
}

TEST(Traps, AddedNoiseMatchesTheEventSpherical) {
  const Dataset d = testing::SyntheticData(1000, 3);
  std::vector<NoiseRecord> log;
  const Model model = Train(
      d,
      TrainerConfig::FromJson(
          {{"n_estimators", 400}, {"max_depth", 4}, {"privacy", {{"epsilon", 1.0}}}, {"seed", 11}}),
      Quiet(&log));
  const double sigma = SigmaFromEvent(model.privacy["event"]);
  ASSERT_GT(sigma, 0);
  // Binary cross-entropy, Newton: (g, h) has L2 sensitivity √(1 + 1/16) = √17/4 (Maddock §4.2);
  // both coordinates get N(0, (σ·√17/4)²).
  const double expected = sigma * std::sqrt(17.0) / 4;
  EXPECT_NEAR(NoiseStd(log, "leaf", 0), expected, 0.05 * expected);
  EXPECT_NEAR(NoiseStd(log, "leaf", 1), expected, 0.05 * expected);
}

// The leaf values are a fixed function of the released noisy sums alone (post-processing):
// v = −η·clip(G̃/(max(H̃, c·s_H) + λ), β) with s_H the Hessian noise standard deviation derived
// from the event (noisy_hessian_floor c). Checked leaf by leaf against the noise log, for the
// default c = 2 and for c = 0; the floor must actually bind in some leaves, and the event must
// not depend on c.
TEST(Traps, LeafValuesAreTheFlooredNewtonStepOfTheReleasedSums) {
  const Dataset d = testing::SyntheticData(600, 3);
  json event_json;
  for (const double c : {2.0, 0.0}) {
    std::vector<NoiseRecord> log;
    const double eta = 0.3, beta = 2, lambda = 1;
    const Model model = Train(d,
                              TrainerConfig::FromJson({{"n_estimators", 20},
                                                       {"max_depth", 3},
                                                       {"learning_rate", eta},
                                                       {"max_leaf_value", beta},
                                                       {"reg_lambda", lambda},
                                                       {"noisy_hessian_floor", c},
                                                       {"privacy", {{"epsilon", 0.5}}},
                                                       {"seed", 5}}),
                              QuietWholeTrees(&log));
    if (event_json.is_null()) {
      event_json = model.privacy;
    } else {
      EXPECT_EQ(model.privacy, event_json);  // the floor is post-processing
    }
    const double s_h = SigmaFromEvent(model.privacy["event"]) * std::sqrt(17.0) / 4;
    std::vector<const NoiseRecord*> leaf_records;
    for (const auto& r : log) {
      if (r.query == "leaf") leaf_records.push_back(&r);
    }
    ASSERT_EQ(leaf_records.size(), 20u * 8 * 2);
    int floored = 0;
    for (std::size_t t = 0; t < 20; ++t) {
      const Tree& tree = model.trees[t];
      for (std::size_t l = 0; l < 8; ++l) {
        const NoiseRecord& a = *leaf_records[2 * (t * 8 + l)];
        const NoiseRecord& b = *leaf_records[2 * (t * 8 + l) + 1];
        ASSERT_EQ(a.coordinate, 0);
        ASSERT_EQ(b.coordinate, 1);
        if (b.noisy < c * s_h) ++floored;
        const double den = std::max(b.noisy, c * s_h) + lambda;
        const double expected = -eta * std::min(std::max(a.noisy / den, -beta), beta);
        EXPECT_DOUBLE_EQ(tree.nodes[7 + l].value, expected) << "c=" << c << " tree " << t;
      }
    }
    if (c > 0) {
      EXPECT_GT(floored, 20);
    }
  }
}

// The exact leaf sums of a binary Newton model with trees of depth 2 (4 leaves), recomputed from
// its stored trees: the margins F (base score plus the trees before, kept as floats as the
// trainer keeps them: F + v rounded to float), σ(F) with std::exp, and the clipped statistics
// g = σ(F) − y ∈ [−1, 1], h = σ(F)(1 − σ(F)). sums[t][l] = (G, H) of tree t, leaf l. *returned
// counts rows whose margin passed |F| > 745 (where e^{−F} overflows or underflows a double) and
// came back to |F| < 20 within 31 trees.
std::vector<std::array<std::pair<double, double>, 4>> LeafSumsFromModel(const Model& model,
                                                                        const Dataset& d,
                                                                        int* returned) {
  const std::size_t n = d.labels.size();
  std::vector<float> margin(n, static_cast<float>(model.base_score));
  std::vector<int> last_beyond(n, -1000);
  std::vector<std::array<std::pair<double, double>, 4>> sums(model.trees.size());
  for (std::size_t t = 0; t < model.trees.size(); ++t) {
    const Tree& tree = model.trees[t];
    for (std::size_t i = 0; i < n; ++i) {
      const double row[3] = {d.columns[0][i], d.columns[1][i], d.columns[2][i]};
      const int leaf = tree.LeafIndex(row);
      // σ(F) as the trainer defines it: F clamped to [−700, 700] (so 0 < σ < 1).
      const double f = margin[i];
      const double p = 1 / (1 + std::exp(-std::min(std::max(f, -700.0), 700.0)));
      auto& s = sums[t][static_cast<std::size_t>(leaf - 3)];
      s.first += std::min(std::max(p - d.labels[i], -1.0), 1.0);
      s.second += std::min(std::max(p * (1 - p), 0.0), 1.0);
      if (std::abs(f) > 745) last_beyond[i] = static_cast<int>(t);
      if (std::abs(f) < 20 && static_cast<int>(t) - last_beyond[i] < 32) ++*returned;
      margin[i] = static_cast<float>(f + tree.nodes[static_cast<std::size_t>(leaf)].value);
    }
  }
  return sums;
}

// The leaf sums the noise is added to are the statistics of the model's own margins. The trainer
// keeps F per row as a float and computes e^{−F} with its own polynomial (clamping F to ±700).
TEST(Traps, LeafSumsAreTheStatisticsOfTheModelsMargins) {
  // Leaf values up to ±800 (η = 10, β = 80) at ε = 0.3 move the margins of 300 rows far beyond
  // the range of e^{−F} and back within a few trees, so every path is exercised.
  const Dataset d = testing::SyntheticData(300, 3);
  std::vector<NoiseRecord> log;
  const int trees = 120;
  const Model model = Train(d,
                            TrainerConfig::FromJson({{"n_estimators", trees},
                                                     {"max_depth", 2},
                                                     {"learning_rate", 10.0},
                                                     {"max_leaf_value", 80.0},
                                                     {"noisy_hessian_floor", 0.0},
                                                     {"privacy", {{"epsilon", 0.3}}},
                                                     {"seed", 11}}),
                            QuietWholeTrees(&log));
  std::vector<const NoiseRecord*> leaf_records;
  for (const auto& r : log) {
    if (r.query == "leaf") leaf_records.push_back(&r);
  }
  ASSERT_EQ(leaf_records.size(), static_cast<std::size_t>(trees) * 4 * 2);
  int returned = 0;
  const auto sums = LeafSumsFromModel(model, d, &returned);
  for (std::size_t t = 0; t < static_cast<std::size_t>(trees); ++t) {
    for (std::size_t l = 0; l < 4; ++l) {
      // The trainer's sums are exact sums of each record's value truncated to 2^-23 of its
      // bound (1 and 1/4 here; statistics.h): within 300·2^-23 of these double sums.
      EXPECT_NEAR(leaf_records[2 * (t * 4 + l)]->exact, sums[t][l].first, 300 * 0x1p-23)
          << "tree " << t;
      EXPECT_NEAR(leaf_records[2 * (t * 4 + l) + 1]->exact, sums[t][l].second, 300 * 0x1p-25)
          << "tree " << t;
    }
  }
  EXPECT_GT(returned, 100);
}

// β = inf admits leaf values up to ~1e301 (a noisy Hessian just above 0, reg_lambda 0): the fused
// pass keeps its float margins within ±1e30 (a double beyond the float range does not convert),
// where the statistics are saturated as those of the model's own margins are.
TEST(Traps, HugeLeafValuesKeepTheFloatMarginsInRange) {
  float margin[4] = {0, 0, 1e30f, -1e30f};
  const double add[4] = {1e301, -1e301, 1e300, -1e300};
  internal::AddToFloatMargins(margin, add, 4);
  const auto top = static_cast<float>(internal::kMaxFloatMargin);
  EXPECT_EQ(margin[0], top);
  EXPECT_EQ(margin[1], -top);
  EXPECT_EQ(margin[2], top);
  EXPECT_EQ(margin[3], -top);
  const std::uint8_t labels[4] = {1, 0, 0, 1};
  double gh[8];
  internal::FloatMarginStatistics(margin, labels, 4, 1.0, 0.25, gh);
  // g = σ(F) − y, h = σ(1 − σ); σ(−700) = 1e-304, so 0 only to within that.
  const double expected[8] = {0, 0, 0, 0, 1, 0, -1, 0};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(gh[i], expected[i], 1e-300) << i;
}

TEST(Traps, AddedNoiseMatchesTheEventLeafBalanced) {
  const Dataset d = testing::SyntheticData(1000, 3);
  std::vector<NoiseRecord> log;
  const Model model = Train(d,
                            TrainerConfig::FromJson({{"n_estimators", 400},
                                                     {"max_depth", 4},
                                                     {"leaf_noise_weights", {0.2, 0.8}},
                                                     {"privacy", {{"epsilon", 1.0}}},
                                                     {"seed", 12}}),
                            Quiet(&log));
  const double sigma = SigmaFromEvent(model.privacy["event"]);
  ASSERT_GT(sigma, 0);
  // S-BDT Thm 16 (D = 2): coordinate d gets N(0, s_d²σ²/(2 r_d)); Hessian s = 1/4, r1 = 0.2;
  // gradient s = 1, r2 = 0.8. The Hessian is NOT given half of this.
  const double hessian = 0.25 * sigma / std::sqrt(2 * 0.2);
  const double gradient = 1.0 * sigma / std::sqrt(2 * 0.8);
  EXPECT_NEAR(NoiseStd(log, "leaf", 1), hessian, 0.05 * hessian);
  EXPECT_NEAR(NoiseStd(log, "leaf", 0), gradient, 0.05 * gradient);
}

TEST(Traps, HistogramAndIterativeHessianNoiseMatchTheEvent) {
  const Dataset d = testing::SyntheticData(1000, 3);
  std::vector<NoiseRecord> log;
  const Model model =
      Train(d,
            TrainerConfig::FromJson(
                {{"n_estimators", 40},
                 {"max_depth", 3},
                 {"split_candidates", {{"method", "iterative_hessian"}, {"rounds", 40}}},
                 {"privacy", {{"epsilon", 1.0}}},
                 {"seed", 13}}),
            Quiet(&log));
  const double sigma = SigmaFromEvent(model.privacy["event"]);
  // IH Hessian histograms: each record in one bin, sensitivity 1/4: N(0, (σ/4)²).
  // 40 rounds × 3 features × 33 bins = 3960 draws.
  EXPECT_NEAR(NoiseStd(log, "hessian_histogram", 1), sigma / 4, 0.06 * sigma / 4);
  std::vector<NoiseRecord> hist_log;
  const Model hist = Train(d,
                           TrainerConfig::FromJson({{"n_estimators", 10},
                                                    {"max_depth", 2},
                                                    {"split_method", "histogram"},
                                                    {"privacy", {{"epsilon", 1.0}}},
                                                    {"seed", 14}}),
                           Quiet(&hist_log));
  const double hist_sigma = SigmaFromEvent(hist.privacy["event"]);
  const double expected = hist_sigma * std::sqrt(17.0) / 4;
  // 10 trees × (1 + 2 nodes) × 3 features × 34 cells = 3060 draws per coordinate.
  EXPECT_NEAR(NoiseStd(hist_log, "histogram", 0), expected, 0.06 * expected);
  EXPECT_NEAR(NoiseStd(hist_log, "histogram", 1), expected, 0.06 * expected);
}

// Trap 3: a selection step runs on candidates pre-filtered with exact data (Sarus DP-XGBoost's
// min_child_weight). Every row has x0 = 0, so every candidate of x0 leaves its left child empty;
// a pre-filter on exact child weights would never pick x0. The exponential mechanism scores
// every candidate: with equal utilities (constant gradients, λ large) it picks each of the
// 2 features × 8 candidates with probability 1/16. Over 600 selections, x0 is picked in
// 300 ± 12 (binomial sd); we require ≥ 240 (5 sd, false alarm < 1e-6).
TEST(Traps, ExponentialSelectionIsNotPrefilteredWithExactData) {
  Dataset d = testing::SyntheticData(400, 2);
  std::fill(d.columns[0].begin(), d.columns[0].end(), 0.0);
  std::fill(d.columns[1].begin(), d.columns[1].end(), 0.0);
  const Model model = Train(d,
                            TrainerConfig::FromJson({{"n_estimators", 600},
                                                     {"max_depth", 1},
                                                     {"split_method", "exponential"},
                                                     {"split_candidates", {{"count", 8}}},
                                                     {"privacy", {{"epsilon", 1.0}}},
                                                     {"seed", 15}}),
                            Quiet());
  int x0 = 0;
  std::map<double, int> thresholds;
  for (const Tree& t : model.trees) {
    x0 += t.nodes[0].feature == 0 ? 1 : 0;
    thresholds[t.nodes[0].threshold] += 1;
  }
  EXPECT_GE(x0, 240);
  EXPECT_LE(x0, 360);
  EXPECT_EQ(thresholds.size(), 8u);  // every candidate was chosen at some point
}

// Trap 4: feature ranges or δ silently taken from the data. Two datasets with the same schema
// but very different observed ranges give identical TR tree structures under the same seed
// (candidates come from the schema bounds alone); δ is the power of ten below 1/n and the
// training log says so.
TEST(Traps, BoundsComeFromTheSchemaAndDeltaIsDocumented) {
  Dataset narrow = testing::SyntheticData(500, 3, Task::kBinary, 21);
  Dataset wide = testing::SyntheticData(500, 3, Task::kBinary, 22);
  for (double& x : narrow.columns[0]) x = 0.4 + 0.1 * x;  // observed range [0.4, 0.5]
  const TrainerConfig config = TrainerConfig::FromJson(
      {{"n_estimators", 20}, {"privacy", {{"epsilon", 1.0}}}, {"seed", 77}});
  const Model a = Train(narrow, config, Quiet());
  const Model b = Train(wide, config, Quiet());
  for (std::size_t t = 0; t < a.trees.size(); ++t) {
    for (std::size_t i = 0; i < a.trees[t].nodes.size(); ++i) {
      ASSERT_EQ(a.trees[t].nodes[i].feature, b.trees[t].nodes[i].feature);
      ASSERT_EQ(a.trees[t].nodes[i].threshold, b.trees[t].nodes[i].threshold);
    }
  }
  EXPECT_DOUBLE_EQ(a.privacy["delta"].get<double>(), 1e-3);  // power of ten below 1/500
  EXPECT_THAT(a.training_log["delta_source"].get<std::string>(), ::testing::HasSubstr("1/n"));
}

// Trap 5: a generator seeded from the clock. Without a seed the trainer uses Random::Secure():
// two runs started within the same clock tick still differ, and a seeded run is reproducible.
TEST(Traps, NoSeedMeansSecureRandomnessNotTheClock) {
  const Dataset d = testing::SyntheticData(300, 3);
  const TrainerConfig unseeded =
      TrainerConfig::FromJson({{"n_estimators", 5}, {"privacy", {{"epsilon", 1.0}}}});
  const std::string first = Train(d, unseeded, Quiet()).ToText();
  const std::string second = Train(d, unseeded, Quiet()).ToText();
  EXPECT_NE(first, second);
  TrainerConfig seeded = unseeded;
  seeded.seed = 5;
  EXPECT_EQ(Train(d, seeded, Quiet()).ToText(), Train(d, seeded, Quiet()).ToText());
}

}  // namespace
}  // namespace rdpkit::trees
