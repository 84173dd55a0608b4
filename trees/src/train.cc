// The private GBDT trainer. Methods and accounting: docs/trees_training.md.
#include "rdpkit/trees/train.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "candidates.h"
#include "parallel.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/filter.h"
#include "rdpkit/accountant/individual.h"
#include "rdpkit/mechanisms/exponential.h"
#include "rdpkit/mechanisms/gaussian.h"
#include "rdpkit/mechanisms/laplace.h"
#include "rdpkit/mechanisms/random.h"
#include "rdpkit/trees/accounting.h"

namespace rdpkit::trees {
namespace {

using internal::kMissingBin;
using mechanisms::Random;

struct Pair {
  double a = 0;  // gradient-type statistic (label for averaging)
  double b = 0;  // Hessian-type statistic (count for gradient and averaging)
  Pair& operator+=(const Pair& o) {
    a += o.a;
    b += o.b;
    return *this;
  }
};
Pair operator-(Pair x, const Pair& y) { return {x.a - y.a, x.b - y.b}; }
Pair operator+(Pair x, const Pair& y) { return {x.a + y.a, x.b + y.b}; }

// Uniform integer in [0, n), n ≥ 1, by rejection (no modulo bias).
std::uint64_t UniformIndex(Random& rng, std::uint64_t n) {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t limit = max - (max % n + 1) % n;
  for (;;) {
    const std::uint64_t x = rng.NextU64();
    if (x <= limit) return x % n;
  }
}

int UniformInt(Random& rng, int n) {
  return static_cast<int>(UniformIndex(rng, static_cast<std::uint64_t>(n)));
}

double Clamp(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }

// e^x for the logistic link, branch-free so the statistics loop vectorizes. x is clamped to
// [−700, 700]; x = k·ln 2 + r with |r| ≤ ln 2/2 (k rounded by the 1.5·2^52 shifter), e^r by its
// Taylor polynomial of degree 9 (remainder (ln2/2)^10/10! < 3e-12 relative), 2^k written into
// the exponent bits. Privacy does not depend on this accuracy: g and h are clipped afterwards.
inline __attribute__((always_inline)) double ExpForSigmoid(double x) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 0.693147180369123816490;  // high bits of ln 2 (exact product with k)
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kShifter = 0x1.8p52;
  x = std::min(std::max(x, -700.0), 700.0);
  const double t = x * kLog2e + kShifter;
  const double k = t - kShifter;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p = 1.0 / 362880.0;  // 1/9!
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  std::uint64_t bits;
  std::memcpy(&bits, &t, sizeof bits);  // low bits of t hold k
  bits = (bits + 1023) << 52;           // (k + 1023) in the exponent field, k ∈ [−1010, 1010]
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_ADDRESS__)
// Compiled twice, for x86-64-v3 (AVX2, FMA) and baseline x86-64; the loader picks the one the
// CPU runs.
#define RDPKIT_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RDPKIT_VECTOR_CLONES
#endif

// e^{−F} for |F| ≤ 598: outside it, e^{−F} is recomputed from F (products would lose it, and
// ExpForSigmoid clamps F to [−700, 700]).
constexpr double kExpSafeLow = 1e-260;
constexpr double kExpSafeHigh = 1e260;

// e^{−F} as the fused pass keeps it: the value within [kExpSafeLow, kExpSafeHigh], else 0.
inline __attribute__((always_inline)) double KeptExp(double e) {
  return e >= kExpSafeLow && e <= kExpSafeHigh ? e : 0;
}

// Binary cross-entropy statistics of one row from e = e^{−F} (F its margin): p = σ(F) = 1/(1 + e),
// g = p − y and h = p(1 − p), clipped to [−g*, g*] and [0, h*] (S-BDT §4.2).
inline __attribute__((always_inline)) void LogisticStatistics(double e, std::uint8_t y,
                                                              double g_clip, double h_clip,
                                                              double& g, double& h) {
  const double p = 1 / (1 + e);
  const double gr = p - y;
  const double hr = p * (1 - p);
  g = gr < -g_clip ? -g_clip : (gr > g_clip ? g_clip : gr);
  h = hr < 0 ? 0 : (hr > h_clip ? h_clip : hr);
}

// The statistics of `count` rows from their margins F, (g, h) interleaved: gh[2r] = g,
// gh[2r + 1] = h. Also stores e^{−F} in exp_neg_margin (as the fused pass keeps it: 0 where it
// lies outside [kExpSafeLow, kExpSafeHigh]). Plain arrays and no gathers, so that the loop
// vectorizes.
RDPKIT_VECTOR_CLONES
void BinaryStatistics(const double* __restrict margin, const std::uint8_t* __restrict labels,
                      std::size_t count, double g_clip, double h_clip,
                      double* __restrict exp_neg_margin, double* __restrict gh) {
  for (std::size_t r = 0; r < count; ++r) {
    const double e = ExpForSigmoid(-margin[r]);
    LogisticStatistics(e, labels[r], g_clip, h_clip, gh[2 * r], gh[2 * r + 1]);
    exp_neg_margin[r] = KeptExp(e);
  }
}

// One tree's leaf values entering the fused pass's state, then the statistics: F += v and
// e^{−F} ·= e^{−v} (vw[2r] = v, vw[2r + 1] = e^{−v} for row r's leaf). Returns whether some
// e^{−F} left [kExpSafeLow, kExpSafeHigh]; those rows' e^{−F} and statistics must be recomputed
// from F.
RDPKIT_VECTOR_CLONES
bool AddLeafValuesAndStatistics(double* __restrict margin, double* __restrict exp_neg_margin,
                                const double* __restrict vw, const std::uint8_t* __restrict labels,
                                std::size_t count, double g_clip, double h_clip,
                                double* __restrict gh) {
  int outside = 0;
  for (std::size_t r = 0; r < count; ++r) {
    margin[r] += vw[2 * r];
    const double e = exp_neg_margin[r] * vw[2 * r + 1];
    exp_neg_margin[r] = e;
    outside |= static_cast<int>(!(e >= kExpSafeLow)) | static_cast<int>(!(e <= kExpSafeHigh));
    LogisticStatistics(e, labels[r], g_clip, h_clip, gh[2 * r], gh[2 * r + 1]);
  }
  return outside != 0;
}

// A full binary tree of depth d in heap order: internal nodes 0..2^d−2 (children 2i+1, 2i+2),
// leaves 2^d−1..2^{d+1}−2. A row goes left at node i iff its bin < split_bin[i] (the bin counts
// the candidates at which GoesLeft is false), a missing value iff default_left[i].
struct HeapTree {
  int depth = 0;
  std::vector<int> feature;
  std::vector<std::uint16_t> split_bin;
  std::vector<std::uint8_t> default_left;
  std::vector<double> leaf_value;

  explicit HeapTree(int d)
      : depth(d),
        feature(Internal(d), 0),
        split_bin(Internal(d), 1),
        default_left(Internal(d), 1),
        leaf_value(Leaves(d), 0) {}
  static std::size_t Internal(int d) { return (std::size_t{1} << d) - 1; }
  static std::size_t Leaves(int d) { return std::size_t{1} << d; }
};

constexpr int kMaxCompactCandidates = 253;
constexpr std::uint8_t kMissingByte = 255;

// One internal node for routing over byte bins: row goes right iff bin ≥ split_bin, except that a
// missing bin goes left when default_left (kMissing: some feature of the tree has missing values).
struct CompactStep {
  std::uint32_t feature;
  std::uint8_t split_bin;
  std::uint8_t default_left;
};

template <bool kMissing>
inline __attribute__((always_inline)) std::uint32_t RouteStep(const std::uint8_t* row,
                                                              const CompactStep* steps,
                                                              std::uint32_t node) {
  const CompactStep& step = steps[node];
  const std::uint8_t bin = row[step.feature];
  std::uint32_t right = bin >= step.split_bin ? 1 : 0;
  if constexpr (kMissing) right ^= (bin == kMissingByte ? 1U : 0U) & step.default_left;
  return 2 * node + 1 + right;
}

// Rows are routed kLanes at a time, each lane's path in a register: a path is a chain of
// dependent loads (step, then bin), and independent lanes let the chains overlap.
template <bool kMissing>
void RouteCompactBlock(const std::uint8_t* rows, std::size_t m, std::size_t count,
                       const CompactStep* steps, int depth, std::uint32_t* node) {
  constexpr std::size_t kLanes = 8;
  std::size_t r = 0;
  for (; r + kLanes <= count; r += kLanes) {
    std::uint32_t lane[kLanes] = {};
    const std::uint8_t* base = rows + r * m;
    for (int level = 0; level < depth; ++level) {
#pragma GCC unroll 8
      for (std::size_t k = 0; k < kLanes; ++k) {
        lane[k] = RouteStep<kMissing>(base + k * m, steps, lane[k]);
      }
    }
#pragma GCC unroll 8
    for (std::size_t k = 0; k < kLanes; ++k) node[r + k] = lane[k];
  }
  for (; r < count; ++r) {
    std::uint32_t n = 0;
    for (int level = 0; level < depth; ++level) n = RouteStep<kMissing>(rows + r * m, steps, n);
    node[r] = n;
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RDPKIT_ROUTE_COLUMNS 1
// Routing of 32 rows per AVX2 vector without gathers, for trees of depth ≤ 8. Each row keeps its
// node's index within the level in a byte. At a level, a row's bin is taken from the byte column
// of its node's feature: the level's distinct features are loaded in turn and blended in where a
// 16-entry byte table (one per chunk of 16 nodes, looked up with pshufb on the node index) says
// the node splits on that feature; the node's split bin and default direction are looked up the
// same way. A level costs about 3 vector operations per distinct feature instead of ~6 per node.
struct ColumnLevel {
  int chunks = 1;             // ⌈nodes / 16⌉: 1, 2, 4 or 8 tables per lookup
  int features = 0;           // distinct features at the level
  std::size_t first_feature;  // index of the level's first feature in ColumnPlan::feature
  std::size_t table;          // first 32-byte table: split bins, then default-left, then masks
};

struct ColumnPlan {
  std::vector<ColumnLevel> levels;
  std::vector<std::uint32_t> feature;  // the distinct features, level after level
  std::vector<std::uint8_t> tables;    // 32 bytes each (the 16 entries in both 128-bit lanes)
};

// Builds the plan of a tree (heap order; feature, split bin and default-left per internal node).
ColumnPlan PlanColumnRoute(int depth, const std::vector<int>& feature,
                           const std::vector<std::uint16_t>& split_bin,
                           const std::vector<std::uint8_t>& default_left) {
  ColumnPlan plan;
  std::size_t tables = 0;
  for (int level = 0; level < depth; ++level) {
    const std::size_t first = (std::size_t{1} << level) - 1;
    const std::size_t width = std::size_t{1} << level;
    ColumnLevel lv;
    lv.chunks = static_cast<int>((width + 15) / 16);
    lv.first_feature = plan.feature.size();
    for (std::size_t j = 0; j < width; ++j) {
      const auto f = static_cast<std::uint32_t>(feature[first + j]);
      if (std::find(plan.feature.begin() + static_cast<std::ptrdiff_t>(lv.first_feature),
                    plan.feature.end(), f) == plan.feature.end()) {
        plan.feature.push_back(f);
      }
    }
    lv.features = static_cast<int>(plan.feature.size() - lv.first_feature);
    lv.table = tables;
    const auto chunks = static_cast<std::size_t>(lv.chunks);
    // split bins, default-left and one mask per feature after the first, chunks tables each
    tables += chunks * (2 + static_cast<std::size_t>(lv.features - 1));
    plan.tables.resize(tables * 32, 0);
    auto set = [&](std::size_t table, std::size_t j, std::uint8_t value) {
      std::uint8_t* t = plan.tables.data() + (table + j / 16) * 32;
      t[j % 16] = value;
      t[16 + j % 16] = value;
    };
    for (std::size_t j = 0; j < width; ++j) {
      set(lv.table, j, static_cast<std::uint8_t>(split_bin[first + j]));
      set(lv.table + chunks, j, default_left[first + j] ? 0xFF : 0);
      for (int k = 1; k < lv.features; ++k) {
        if (plan.feature[lv.first_feature + static_cast<std::size_t>(k)] ==
            static_cast<std::uint32_t>(feature[first + j])) {
          set(lv.table + chunks * (1 + static_cast<std::size_t>(k)), j, 0xFF);
        }
      }
    }
    plan.levels.push_back(lv);
  }
  return plan;
}

// The entry of each row's node in a level's tables: pshufb within each chunk of 16 nodes (the
// index's low 4 bits; node < 128 leaves bit 7 clear), then a blend tree on bits 4–6 of the index
// (moved to bit 7 of their byte by the 16-bit shifts in select[]).
// The entry of each row's node in a level's tables (kChunks of them, in registers): pshufb within
// each chunk of 16 nodes (the index's low 4 bits; node < 128 leaves bit 7 clear), then a blend
// tree on bits 4–6 of the index, moved to bit 7 of their byte by 16-bit shifts.
template <int kChunks>
__attribute__((target("avx2"))) inline __m256i LookupNode(const __m256i* table, __m256i node) {
  __m256i v[kChunks];
  for (int c = 0; c < kChunks; ++c) v[c] = _mm256_shuffle_epi8(table[c], node);
  int shift = 3;
  for (int width = kChunks; width > 1; width /= 2, --shift) {
    const __m256i select = _mm256_slli_epi16(node, shift);
    for (int c = 0; c < width / 2; ++c) v[c] = _mm256_blendv_epi8(v[2 * c], v[2 * c + 1], select);
  }
  return v[0];
}

template <int kChunks>
__attribute__((target("avx2"))) inline void LoadTables(const std::uint8_t* bytes, __m256i* table) {
  for (int c = 0; c < kChunks; ++c) {
    table[c] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + 32 * c));
  }
}

// One level for `vectors` vectors of 32 rows (node[v], the index within the level, becomes the
// index within the next level). The level's loop over its features runs outside the loop over
// the rows, so that its tables stay in registers and its branches are the same for every row.
template <int kChunks>
__attribute__((target("avx2"))) void RouteLevelAvx2(const ColumnLevel& lv, const std::uint8_t* t,
                                                    const std::uint8_t* const* col, bool missing,
                                                    std::size_t vectors, __m256i* node,
                                                    __m256i* bin) {
  __m256i table[kChunks];
  for (std::size_t v = 0; v < vectors; ++v) {
    bin[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col[0] + 32 * v));
  }
  for (int k = 1; k < lv.features; ++k) {
    LoadTables<kChunks>(t + 32 * kChunks * (1 + k), table);
    for (std::size_t v = 0; v < vectors; ++v) {
      const __m256i other = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col[k] + 32 * v));
      bin[v] = _mm256_blendv_epi8(bin[v], other, LookupNode<kChunks>(table, node[v]));
    }
  }
  const __m256i one = _mm256_set1_epi8(1);
  const __m256i missing_byte = _mm256_set1_epi8(static_cast<char>(kMissingByte));
  __m256i split[kChunks];
  LoadTables<kChunks>(t, split);
  LoadTables<kChunks>(t + 32 * kChunks, table);  // default-left
  for (std::size_t v = 0; v < vectors; ++v) {
    // bin ≥ split (unsigned) ⇔ max(bin, split) = bin.
    const __m256i s = LookupNode<kChunks>(split, node[v]);
    __m256i goes_right = _mm256_cmpeq_epi8(_mm256_max_epu8(bin[v], s), bin[v]);
    if (missing) {
      goes_right =
          _mm256_xor_si256(goes_right, _mm256_and_si256(_mm256_cmpeq_epi8(bin[v], missing_byte),
                                                        LookupNode<kChunks>(table, node[v])));
    }
    // Index within the next level: 2·j + [right].
    node[v] = _mm256_add_epi8(_mm256_add_epi8(node[v], node[v]), _mm256_and_si256(goes_right, one));
  }
}

// Routes count rows (a multiple of 32, at most 256); columns[k] is the byte column of
// plan.feature[k] at the first row; leaf[r] receives the leaf index (within the last level).
__attribute__((target("avx2"))) void RouteColumnsAvx2(const std::uint8_t* const* columns,
                                                      const ColumnPlan& plan, bool missing,
                                                      std::size_t count, std::uint8_t* leaf) {
  constexpr std::size_t kMaxVectors = 8;
  __m256i node[kMaxVectors];
  __m256i bin[kMaxVectors];
  const std::size_t vectors = count / 32;
  for (std::size_t v = 0; v < vectors; ++v) node[v] = _mm256_setzero_si256();
  for (const ColumnLevel& lv : plan.levels) {
    const std::uint8_t* t = plan.tables.data() + 32 * lv.table;
    const std::uint8_t* const* col = columns + lv.first_feature;
    switch (lv.chunks) {
      case 1:
        RouteLevelAvx2<1>(lv, t, col, missing, vectors, node, bin);
        break;
      case 2:
        RouteLevelAvx2<2>(lv, t, col, missing, vectors, node, bin);
        break;
      case 4:
        RouteLevelAvx2<4>(lv, t, col, missing, vectors, node, bin);
        break;
      default:
        RouteLevelAvx2<8>(lv, t, col, missing, vectors, node, bin);
        break;
    }
  }
  for (std::size_t v = 0; v < vectors; ++v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(leaf + 32 * v), node[v]);
  }
}
#endif

inline bool GoesRightBinned(std::uint16_t bin, std::uint16_t split_bin, bool default_left) {
  return bin == kMissingBin ? !default_left : bin >= split_bin;
}

class Trainer {
 public:
  Trainer(const Dataset& data, const TrainerConfig& config, const TrainOptions& options)
      : data_(data),
        config_(config),
        options_(options),
        n_(data.n_rows()),
        m_(static_cast<int>(data.n_features())),
        rng_(config.seed ? Random::Seeded(*config.seed) : Random::Secure()),
        pool_(config.threads) {}

  Model Run();

 private:
  void ValidateData();
  void SetUpMechanisms();
  void InitCandidates();
  void Rebin(int f);
  double InitialScore();
  // Adds add[i] (or, with leaf_values, the value of the leaf node_of_[i]) to the margins, then
  // recomputes the per-row statistics.
  void ComputeStatistics(const std::vector<double>& add, const double* leaf_values = nullptr);
  void DrawSample();
  std::vector<int> TreeFeatures(int t);
  void RefineCandidatesIh();
  HeapTree BuildTree(int t, const std::vector<int>& features, std::vector<Pair>* root_histogram);
  void AssignRandomSplits(HeapTree& tree, const std::vector<int>& features);
  void LeafQuery(const HeapTree& tree, std::vector<Pair>& sums);
  // Routes every row to its leaf (node_of_) and sums the rows' statistics per leaf. In the fused
  // mode the statistics are computed in the same pass, after the pending leaf values of the
  // previous tree enter the margins.
  void RouteAll(const HeapTree& tree, std::vector<Pair>* sums);
  // Adds the pending leaf values (of the leaves in node_of_) to the margins and renews stats_.
  void FlushPending();
  void RouteLevel(const HeapTree& tree, std::size_t first);
  std::vector<Pair> Histogram(const std::vector<int>& features, std::size_t cells,
                              std::size_t first, std::size_t count,
                              const std::vector<std::vector<std::uint16_t>>* cell_split,
                              bool count_as_b);
  void AddPairNoise(Pair& p, const char* query);
  // max(H̃, c·s_H) + λ, the denominator of leaf values and gains (noisy_hessian_floor).
  double NoisyDenominator(const Pair& p) const;
  double NodeScore(const Pair& p) const;
  double LeafValue(const Pair& p, int batch) const;
  Tree ToModelTree(const HeapTree& tree) const;
  void Log(const char* query, int coordinate, double exact, double noisy);

  const Dataset& data_;
  const TrainerConfig& config_;
  const TrainOptions& options_;
  std::size_t n_;
  int m_;
  Random rng_;
  internal::WorkerPool pool_;

  bool binary_ = true;
  SplitMethod split_ = SplitMethod::kTotallyRandom;
  LeafUpdate leaf_ = LeafUpdate::kNewton;
  int features_per_tree_ = 1;  // k_eff of CountQueries
  bool noisy_ = false;
  double hessian_floor_ = 0;  // c·s_H (noisy_hessian_floor), 0 without noise
  PrivacyPlan plan_;
  Sensitivities sens_;
  std::optional<mechanisms::GaussianMechanism> pair_gaussian_;
  std::optional<mechanisms::LeafBalancedGaussianMechanism> pair_balanced_;
  std::optional<mechanisms::GaussianMechanism> hessian_gaussian_;
  std::optional<mechanisms::ExponentialMechanism> exponential_;

  std::vector<int> splittable_;  // features with at least one candidate
  std::vector<std::vector<double>> candidates_;
  std::vector<std::vector<std::uint16_t>> bins_;
  // The same bins row by row in bytes (kMissingByte for missing), kept when every candidate set
  // has ≤ kMaxCompactCandidates entries: a row's bins share a cache line, which routing favours.
  std::vector<std::uint8_t> row_bins_;
  std::vector<std::uint8_t> column_bins_;  // the byte bins column by column (n per feature)
  std::vector<std::uint8_t> column_has_missing_;
  std::vector<double> margin_;
  std::vector<double> delta_;
  std::vector<Pair> stats_;
  std::vector<std::uint8_t> in_sample_;  // empty: every row
  // Node index within the current level (a leaf index after routing); < 2^16 as max_depth ≤ 16.
  std::vector<std::uint16_t> node_of_;
  std::vector<std::uint8_t> labels01_;  // binary labels as bytes, for BinaryStatistics
  // Fused mode (binary Newton, B = 1, data-independent splits, every row, no filter): one pass
  // per tree adds the previous tree's values to the margins, computes (g, h), routes and sums.
  bool fused_ = false;
  bool have_pending_ = false;  // pending_values_ have not yet entered margin_
  std::vector<double> pending_values_;
  // e^{−F} per row for the fused pass, kept by multiplying with e^{−v} of each tree's leaf value v
  // and recomputed from the margin every kExpRefresh trees (bounds the rounding drift) or after
  // anything else changed the margins (exp_age_ ≥ kExpRefresh). Kept only within [kExpSafeLow,
  // kExpSafeHigh]: 0 marks a row whose e^{−F} lies outside (or was clamped by ExpForSigmoid),
  // whose statistics are then computed from F until it returns.
  static constexpr int kExpRefresh = 32;
  std::vector<double> exp_neg_margin_;
  int exp_age_ = kExpRefresh;
  std::uint64_t exponential_selections_ = 0;
  int total_trees_ = 0;  // n_estimators plus the filter's extra rounds
  // Individual Rényi filter (S-BDT §6.5–6.6), renyi_filter only.
  std::optional<accountant::IndividualRenyiFilter> filter_;
  std::optional<accountant::IndividualRdpTable> filter_table_;
  std::vector<double> filter_ratios_;
  std::vector<std::uint8_t> admitted_;
  std::uint64_t filtered_out_ = 0;
  void ApplyFilter();
};

void Trainer::ValidateData() {
  binary_ = TaskOfObjective(config_.objective) == Task::kBinary;
  if (data_.schema.task != TaskOfObjective(config_.objective)) {
    throw InvalidArgument(
        "objective", "\"" + ToString(config_.objective) + "\"",
        std::string("objectives of a ") + TaskName(data_.schema.task) + " schema {\"" +
            ToString(binary_ ? Objective::kRegSquaredError : Objective::kBinaryLogistic) + "\"}");
  }
  if (n_ == 0) throw InvalidArgument("data", "has no rows");
  if (m_ == 0) throw InvalidArgument("data", "has no features");
  if (data_.labels.size() != n_) {
    throw InvalidArgument("data.labels", "training needs one label per row");
  }
  for (std::size_t i = 0; i < n_; ++i) {
    const double y = data_.labels[i];
    if (!std::isfinite(y) || (binary_ && y != 0 && y != 1)) {
      throw InvalidArgument("data.labels[" + std::to_string(i) + "]", FormatNumber(y),
                            binary_ ? "{0, 1}" : "finite numbers");
    }
  }
  if (config_.feature_interaction.method != InteractionMethod::kAll &&
      config_.feature_interaction.k > m_) {
    throw InvalidArgument("feature_interaction.k", std::to_string(config_.feature_interaction.k),
                          "[1, n_features = " + std::to_string(m_) + "]");
  }
  if (config_.renyi_filter) {
    // S-BDT §6.5–6.6 covers random trees whose only data access is the leaf query.
    const bool leaf_only = config_.split_method == SplitMethod::kTotallyRandom &&
                           config_.split_candidates.method != CandidateMethod::kIterativeHessian;
    if (!leaf_only) {
      throw InvalidArgument(
          "renyi_filter", "not supported yet with split_method = \"" +
                              ToString(config_.split_method) + "\" / split_candidates.method = \"" +
                              ToString(config_.split_candidates.method) +
                              "\" (only totally_random trees without iterative_hessian)");
    }
    if (config_.batch_size != 1) {
      throw InvalidArgument("renyi_filter", "not supported yet with batch_size > 1");
    }
    if (config_.non_private) {
      throw InvalidArgument("renyi_filter", "needs a privacy target, not non_private");
    }
  }
}

void Trainer::SetUpMechanisms() {
  sens_ = StatisticSensitivities(config_);
  if (!noisy_) return;
  const double sigma = plan_.noise_multiplier;
  if (config_.leaf_noise_weights.empty()) {
    // Spherical Gaussian on (a, b): L2 sensitivity √(s_a² + s_b²) (Maddock §4.2: √17/4 for BCE).
    pair_gaussian_.emplace(sens_.pair(), sigma);
  } else {
    // S-BDT §5.2: coordinates ordered (Hessian, gradient) like the weights [r1, r2].
    pair_balanced_.emplace(std::vector<double>{sens_.b, sens_.a}, sigma,
                           config_.leaf_noise_weights);
  }
  hessian_gaussian_.emplace(sens_.b, sigma);
  // c·s_H, the floor of the noisy Hessian (count) in the leaf and gain denominators: below a few
  // noise standard deviations H̃ says little about H and dividing by it amplifies the noise
  // (noisy_hessian_floor; post-processing, docs/trees_training.md §4).
  hessian_floor_ = config_.noisy_hessian_floor *
                   (pair_balanced_ ? pair_balanced_->stddevs()[0] : pair_gaussian_->stddev());
  if (split_ == SplitMethod::kExponential) {
    // Utility Σ_children G²/(n + λ) has sensitivity 3·s_a² (Revisiting DP-XGBoost §4.2, Li et
    // al. 2022 Lemma 2; add/remove derivation in docs/trees_training.md).
    exponential_.emplace(plan_.exponential_epsilon, 3 * sens_.a * sens_.a);
  }
}

void Trainer::InitCandidates() {
  const auto& sc = config_.split_candidates;
  candidates_.resize(static_cast<std::size_t>(m_));
  bins_.resize(static_cast<std::size_t>(m_));
  column_has_missing_.assign(static_cast<std::size_t>(m_), 0);
  // Every candidate set has at most Q entries (IH trims to Q), so with Q ≤ 253 a bin fits a byte.
  if (sc.count <= kMaxCompactCandidates) {
    row_bins_.assign(n_ * static_cast<std::size_t>(m_), 0);
    column_bins_.assign(n_ * static_cast<std::size_t>(m_), 0);
  }
  for (int f = 0; f < m_; ++f) {
    const FeatureSpec& spec = data_.schema.features[static_cast<std::size_t>(f)];
    auto& c = candidates_[static_cast<std::size_t>(f)];
    // Throws, naming features[f].min/max, when public bounds give fewer than 2 candidates.
    c = internal::InitialCandidates(spec, static_cast<std::size_t>(f), sc.method, sc.count,
                                    data_.columns[static_cast<std::size_t>(f)]);
    if (!c.empty()) splittable_.push_back(f);
    Rebin(f);
  }
  if (splittable_.empty()) {
    throw InvalidArgument("data", "no feature has a split candidate (every feature is constant)");
  }
}

void Trainer::Rebin(int f) {
  const auto uf = static_cast<std::size_t>(f);
  RDPKIT_CHECK(candidates_[uf].size() < kMissingBin);
  auto& column = bins_[uf];
  column.resize(n_);
  const auto m = static_cast<std::size_t>(m_);
  const std::vector<double>& values = data_.columns[uf];
  std::vector<std::uint8_t> missing(static_cast<std::size_t>(pool_.threads()), 0);
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int w) {
    bool any_missing = false;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint16_t bin = internal::BinOf(candidates_[uf], f, values[i]);
      column[i] = bin;
      any_missing = any_missing || bin == kMissingBin;
      if (!row_bins_.empty()) {
        const std::uint8_t byte =
            bin == kMissingBin ? kMissingByte : static_cast<std::uint8_t>(bin);
        row_bins_[i * m + uf] = byte;
        column_bins_[uf * n_ + i] = byte;
      }
    }
    missing[static_cast<std::size_t>(w)] = any_missing ? 1 : 0;
  });
  column_has_missing_[uf] = std::find(missing.begin(), missing.end(), 1) != missing.end() ? 1 : 0;
}

double Trainer::InitialScore() {
  if (!config_.initial_score) return 0;
  // S-BDT §6.2 / Alg. 3: mean of clipped labels from a noisy sum and a noisy count, each a
  // Laplace release with half of the initial-score budget.
  const double clip = config_.initial_score->label_clip;
  double sum = 0;
  for (double y : data_.labels) sum += binary_ ? Clamp(y, 0, clip) : Clamp(y, -clip, clip);
  const double count = static_cast<double>(n_);
  const double noise_multiplier = 2 / plan_.initial_score_epsilon;  // 1/(ε_init/2)
  // L1 sensitivities: 1 for the count, the label bound for the sum (binary: min(m*, 1)).
  const double label_bound = binary_ ? std::min(clip, 1.0) : clip;
  const mechanisms::LaplaceMechanism count_mechanism(1, noise_multiplier);
  const mechanisms::LaplaceMechanism sum_mechanism(label_bound, noise_multiplier);
  const double noisy_count = count_mechanism.Add(count, rng_);
  const double noisy_sum = sum_mechanism.Add(sum, rng_);
  Log("initial_score_count", 1, count, noisy_count);
  Log("initial_score_sum", 0, sum, noisy_sum);
  const double mean = noisy_sum / std::max(noisy_count, 1.0);
  if (!binary_) return Clamp(mean, -clip, clip);
  const double p = Clamp(mean / label_bound, 1e-3, 1 - 1e-3);
  return std::log(p / (1 - p));  // S-BDT Alg. 3 line 9: logit of the mean
}

void Trainer::ComputeStatistics(const std::vector<double>& add, const double* leaf_values) {
  exp_age_ = kExpRefresh;  // the fused pass's e^{−F} no longer follows the margins
  const bool apply = !add.empty();
  const double g_clip = config_.gradient_clip;
  const double h_clip = config_.hessian_clip;
  const LeafUpdate leaf = leaf_;
  const bool binary = binary_;
  if (binary && leaf == LeafUpdate::kNewton && !apply) {
    // The common case (binary Newton boosting): the fused pass's kernel, block by block.
    pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
      constexpr std::size_t kBlock = 256;
      alignas(64) double gh[2 * kBlock];
      alignas(64) double exp_neg_margin[kBlock];  // not kept: margins change outside the fused pass
      double* margin = margin_.data();
      const std::uint16_t* leaf_of = node_of_.data();
      if (leaf_values) {
        for (std::size_t i = begin; i < end; ++i) margin[i] += leaf_values[leaf_of[i]];
      }
      for (std::size_t start = begin; start < end; start += kBlock) {
        const std::size_t count = std::min(kBlock, end - start);
        BinaryStatistics(margin + start, labels01_.data() + start, count, g_clip, h_clip,
                         exp_neg_margin, gh);
        for (std::size_t r = 0; r < count; ++r) stats_[start + r] = {gh[2 * r], gh[2 * r + 1]};
      }
    });
    return;
  }
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) {
      if (apply) margin_[i] += add[i];
      if (leaf_values) margin_[i] += leaf_values[node_of_[i]];
      const double y = data_.labels[i];
      Pair s;
      if (leaf == LeafUpdate::kAveraging) {
        s.a = binary ? y : Clamp(y, -g_clip, g_clip);
        s.b = 1;
      } else {
        double g;
        double h;
        if (binary) {
          // Binary cross-entropy on the margin F: g = σ(F) − y, h = σ(F)(1 − σ(F)).
          const double p = 1 / (1 + ExpForSigmoid(-margin_[i]));
          g = p - y;
          h = p * (1 - p);
        } else {
          g = margin_[i] - y;  // squared error ½(F − y)²
          h = 1;
        }
        // S-BDT §4.2: clip g to [−g*, g*] and h to [0, h*].
        s.a = Clamp(g, -g_clip, g_clip);
        s.b = leaf == LeafUpdate::kNewton ? Clamp(h, 0, h_clip) : 1;
      }
      stats_[i] = s;
    }
  });
}

void Trainer::ApplyFilter() {
  // S-BDT Alg. 2 lines 7–8: each record's individual RDP for this round from its sensitivity
  // ratios c_d = |statistic_d|/s_d (Thm 19, Cor. 21; spherical noise: one ratio ‖(a, b)‖/‖s‖);
  // records that cannot afford the round sit it out (Feldman & Zrnic 2021, Alg. 3).
  const std::size_t dims = config_.leaf_noise_weights.empty() ? 1 : 2;
  filter_ratios_.resize(n_ * dims);
  for (std::size_t i = 0; i < n_; ++i) {
    const Pair& s = stats_[i];
    if (dims == 1) {
      filter_ratios_[i] = std::min(1.0, std::sqrt(s.a * s.a + s.b * s.b) / sens_.pair());
    } else {
      filter_ratios_[2 * i] = std::min(1.0, std::fabs(s.b) / sens_.b);      // Hessian, r1
      filter_ratios_[2 * i + 1] = std::min(1.0, std::fabs(s.a) / sens_.a);  // gradient, r2
    }
  }
  const std::size_t taking_part = filter_->ChargeRound(*filter_table_, filter_ratios_, &admitted_);
  filtered_out_ += n_ - taking_part;
  if (in_sample_.empty()) {
    in_sample_ = admitted_;
  } else {
    for (std::size_t i = 0; i < n_; ++i) in_sample_[i] = in_sample_[i] && admitted_[i];
  }
}

void Trainer::DrawSample() {
  if (config_.subsample >= 1) {
    in_sample_.clear();  // every row (the filter, if any, narrows this per round)
    return;
  }
  in_sample_.resize(n_);
  // S-BDT §6.3: Poisson sampling, each row independently with probability γ.
  for (std::size_t i = 0; i < n_; ++i) {
    in_sample_[i] = rng_.Uniform01() < config_.subsample ? 1 : 0;
  }
}

std::vector<int> Trainer::TreeFeatures(int t) {
  const int pool = static_cast<int>(splittable_.size());
  const int k = std::min(features_per_tree_, pool);
  const InteractionMethod method = config_.feature_interaction.method;
  if (method == InteractionMethod::kAll || k >= pool) return splittable_;
  std::vector<int> out;
  RDPKIT_CHECK(method == InteractionMethod::kCyclical || method == InteractionMethod::kRandom);
  if (method == InteractionMethod::kCyclical) {
    // Maddock §5.1: tree t uses the next k features, cycling every m/k trees.
    for (int j = 0; j < k; ++j) {
      const long long index = (static_cast<long long>(t) * k + j) % pool;
      out.push_back(splittable_[static_cast<std::size_t>(index)]);
    }
    return out;
  }
  // Random k-way: k distinct features, chosen uniformly at the start of the tree.
  std::vector<int> all = splittable_;
  for (int j = 0; j < k; ++j) {
    const int r = j + UniformInt(rng_, pool - j);
    std::swap(all[static_cast<std::size_t>(j)], all[static_cast<std::size_t>(r)]);
    out.push_back(all[static_cast<std::size_t>(j)]);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void Trainer::Log(const char* query, int coordinate, double exact, double noisy) {
  if (options_.noise_log) options_.noise_log->push_back({query, coordinate, exact, noisy});
}

void Trainer::AddPairNoise(Pair& p, const char* query) {
  if (!noisy_) return;
  const Pair exact = p;
  if (pair_balanced_) {
    double values[2] = {p.b, p.a};
    pair_balanced_->AddTo(values, rng_);
    p.b = values[0];
    p.a = values[1];
  } else {
    p.a = pair_gaussian_->Add(p.a, rng_);
    p.b = pair_gaussian_->Add(p.b, rng_);
  }
  if (options_.noise_log) {
    Log(query, 0, exact.a, p.a);
    Log(query, 1, exact.b, p.b);
  }
}

void Trainer::RefineCandidatesIh() {
  // Maddock §4.5.2: one noisy Hessian histogram per feature over its current candidate bins
  // (each record in one bin: sensitivity s_b), then a refinement round (post-processing).
  for (int f = 0; f < m_; ++f) {
    const auto uf = static_cast<std::size_t>(f);
    const FeatureSpec& spec = data_.schema.features[uf];
    if (spec.categorical || candidates_[uf].empty()) continue;
    const std::size_t cells = candidates_[uf].size() + 1;
    std::vector<double> hist(cells, 0.0);
    const auto& bins = bins_[uf];
    for (std::size_t i = 0; i < n_; ++i) {
      if (!in_sample_.empty() && !in_sample_[i]) continue;
      if (bins[i] == kMissingBin) continue;
      hist[bins[i]] += stats_[i].b;
    }
    if (noisy_) {
      for (double& h : hist) {
        const double exact = h;
        h = hessian_gaussian_->Add(h, rng_);
        Log("hessian_histogram", 1, exact, h);
      }
    }
    candidates_[uf] = internal::RefineIterativeHessian(spec, candidates_[uf], hist,
                                                       config_.split_candidates.count);
    Rebin(f);
  }
}

double Trainer::NoisyDenominator(const Pair& p) const {
  return std::max(p.b, hessian_floor_) + config_.reg_lambda;  // max(H̃, c·s_H) + λ
}

double Trainer::NodeScore(const Pair& p) const {
  // G²/(H + λ) (Maddock Eq. 5), with the noisy H̃ kept ≥ c·s_H ≥ 0 (Revisiting DP-XGBoost Eq. 3
  // for c = 0; noisy_hessian_floor); a non-positive denominator (λ = 0) carries no information.
  const double den = NoisyDenominator(p);
  if (!(den > 0)) return 0;
  return p.a * p.a / den;
}

double Trainer::LeafValue(const Pair& p, int batch) const {
  const double beta = config_.max_leaf_value;
  double v;
  if (leaf_ == LeafUpdate::kAveraging) {
    // Maddock §4.4.1: the class proportion (mean label for regression); for binary it enters
    // the margin as log-odds, clipped to [−β, β].
    if (binary_) {
      double q = p.b > 0 ? Clamp(p.a / p.b, 0, 1) : 0.5;
      q = Clamp(q, 1e-12, 1 - 1e-12);
      v = Clamp(std::log(q / (1 - q)), -beta, beta);
    } else {
      v = p.b > 0 ? Clamp(p.a / p.b, -beta, beta) : 0;
    }
    return v / batch;  // averaged over the batch (B = T: a random forest), no learning rate
  }
  // Maddock §4.4.3: −η·clip(G̃/(H̃ + λ), β), H̃ kept ≥ c·s_H as in NodeScore; the batch average
  // of §5.2 divides by the batch size.
  const double den = NoisyDenominator(p);
  if (!(den > 0)) return 0;
  v = Clamp(-p.a / den, -beta, beta);
  return config_.learning_rate * v / batch;
}

void Trainer::RouteAll(const HeapTree& tree, std::vector<Pair>* sums) {
  // Rows are routed in blocks, level by level, so that the loads of many rows overlap (a single
  // row's path is a chain of dependent loads). The rule is the binned form of GoesLeft: bins
  // count the candidates at which GoesLeft is false, so x < c_j ⇔ bin < j; a missing value goes
  // right unless default_left.
  struct Step {
    const std::uint16_t* column;
    std::uint16_t split_bin;
    std::uint16_t default_left;
  };
  const std::size_t internal = HeapTree::Internal(tree.depth);
  const std::size_t leaves = HeapTree::Leaves(tree.depth);
  const bool compact = !row_bins_.empty();
  std::vector<Step> steps(compact ? 0 : internal);  // the uint16 column path (Q > 253)
  for (std::size_t node = 0; node < steps.size(); ++node) {
    steps[node] = {bins_[static_cast<std::size_t>(tree.feature[node])].data(), tree.split_bin[node],
                   tree.default_left[node]};
  }
  const int depth = tree.depth;
  std::vector<CompactStep> compact_steps(compact ? internal : 0);
  bool missing = false;
  for (std::size_t node = 0; node < compact_steps.size(); ++node) {
    const auto f = static_cast<std::size_t>(tree.feature[node]);
    compact_steps[node] = {static_cast<std::uint32_t>(f),
                           static_cast<std::uint8_t>(tree.split_bin[node]),
                           tree.default_left[node]};
    missing = missing || column_has_missing_[f] != 0;
  }
  const auto m = static_cast<std::size_t>(m_);
#ifdef RDPKIT_ROUTE_COLUMNS
  static const bool avx2 = __builtin_cpu_supports("avx2") != 0;
  const bool column_route = compact && avx2 && depth <= 8;
  const ColumnPlan column_plan =
      column_route ? PlanColumnRoute(depth, tree.feature, tree.split_bin, tree.default_left)
                   : ColumnPlan{};
#endif
  const int chunks = pool_.Chunks(n_);
  const bool fused = fused_;
  // The fused pass sums into kCopies interleaved copies (row r into copy r mod kCopies), so that
  // rows of the same leaf in a row do not wait on each other's stores; copies are added in order.
  constexpr std::size_t kCopies = 4;
  const std::size_t copies = fused ? kCopies : 1;
  std::vector<std::vector<Pair>> partial(sums ? static_cast<std::size_t>(chunks) : 0,
                                         std::vector<Pair>(copies * leaves));
  const double* pending = fused && have_pending_ ? pending_values_.data() : nullptr;
  // Each pending value v beside its factor of e^{−F}: e^{−(F+v)} = e^{−F}·e^{−v}.
  std::vector<double> pending_vw(pending ? 2 * pending_values_.size() : 0);
  for (std::size_t l = 0; l < pending_vw.size() / 2; ++l) {
    pending_vw[2 * l] = pending[l];
    pending_vw[2 * l + 1] = std::exp(-pending[l]);
  }
  const bool refresh_exp = fused && exp_age_ >= kExpRefresh;
  if (fused) {
    exp_neg_margin_.resize(n_);
    exp_age_ = refresh_exp ? 1 : exp_age_ + 1;
  }
  const double g_clip = config_.gradient_clip;
  const double h_clip = config_.hessian_clip;
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int w) {
    constexpr std::size_t kBlock = 256;
    std::uint32_t node[kBlock];
    alignas(64) double gh[2 * kBlock];
    alignas(32) std::uint8_t leaf8[kBlock];
    std::uint16_t leaf16[kBlock];
    Pair* local = sums ? partial[static_cast<std::size_t>(w)].data() : nullptr;
    double* margin = margin_.data();
    double* exp_neg_margin = exp_neg_margin_.data();
    const std::uint8_t* labels = labels01_.data();
    std::uint16_t* leaf_of = node_of_.data();
    const Step* step_of = steps.data();
    for (std::size_t start = begin; start < end; start += kBlock) {
      const std::size_t count = std::min(kBlock, end - start);
      if (fused) {
        double* e = exp_neg_margin + start;
        if (pending && !refresh_exp) {
          alignas(64) double vw[2 * kBlock];
          const double* table = pending_vw.data();
          for (std::size_t r = 0; r < count; ++r) {
            std::memcpy(vw + 2 * r, table + 2 * leaf_of[start + r], 2 * sizeof(double));
          }
          if (AddLeafValuesAndStatistics(margin + start, e, vw, labels + start, count, g_clip,
                                         h_clip, gh)) {
            for (std::size_t r = 0; r < count; ++r) {
              if (e[r] >= kExpSafeLow && e[r] <= kExpSafeHigh) continue;
              const double exact = ExpForSigmoid(-margin[start + r]);
              LogisticStatistics(exact, labels[start + r], g_clip, h_clip, gh[2 * r],
                                 gh[2 * r + 1]);
              e[r] = KeptExp(exact);  // (not a call to BinaryStatistics: that slows this loop)
            }
          }
        } else {
          // e^{−F} from the margins (ExpForSigmoid clamps F to [−700, 700]).
          if (pending) {
            for (std::size_t r = 0; r < count; ++r)
              margin[start + r] += pending[leaf_of[start + r]];
          }
          BinaryStatistics(margin + start, labels + start, count, g_clip, h_clip, e, gh);
        }
      }
      std::size_t routed = 0;  // rows of the block already routed by the column kernel
#ifdef RDPKIT_ROUTE_COLUMNS
      if (column_route) {
        std::array<const std::uint8_t*, 255> columns;
        for (std::size_t k = 0; k < column_plan.feature.size(); ++k) {
          columns[k] = column_bins_.data() + column_plan.feature[k] * n_ + start;
        }
        routed = count / 32 * 32;
        RouteColumnsAvx2(columns.data(), column_plan, missing, routed, leaf8);
        for (std::size_t r = 0; r < routed; ++r) leaf16[r] = leaf8[r];
      }
#endif
      if (routed == count) {
        // every row routed
      } else if (compact && missing) {
        RouteCompactBlock<true>(row_bins_.data() + (start + routed) * m, m, count - routed,
                                compact_steps.data(), depth, node + routed);
      } else if (compact) {
        RouteCompactBlock<false>(row_bins_.data() + (start + routed) * m, m, count - routed,
                                 compact_steps.data(), depth, node + routed);
      } else {
        for (std::size_t r = 0; r < count; ++r) node[r] = 0;
        for (int level = 0; level < depth; ++level) {
          for (std::size_t r = 0; r < count; ++r) {
            const Step& step = step_of[node[r]];
            const std::uint16_t bin = step.column[start + r];
            const std::uint32_t right =
                static_cast<std::uint32_t>(bin >= step.split_bin) ^
                (static_cast<std::uint32_t>(bin == kMissingBin) & step.default_left);
            node[r] = 2 * node[r] + 1 + right;
          }
        }
      }
      for (std::size_t r = routed; r < count; ++r) {
        leaf16[r] = static_cast<std::uint16_t>(node[r] - internal);
      }
      std::memcpy(leaf_of + start, leaf16, count * sizeof(std::uint16_t));
      if (fused) {
        std::size_t r = 0;
        Pair* copy[kCopies];
        for (std::size_t c = 0; c < kCopies; ++c) copy[c] = local + c * leaves;
        for (; r + kCopies <= count; r += kCopies) {
#pragma GCC unroll 4
          for (std::size_t c = 0; c < kCopies; ++c) {
            Pair& sum = copy[c][leaf16[r + c]];
            sum.a += gh[2 * (r + c)];
            sum.b += gh[2 * (r + c) + 1];
          }
        }
        for (; r < count; ++r) {
          Pair& sum = copy[r % kCopies][leaf16[r]];
          sum.a += gh[2 * r];
          sum.b += gh[2 * r + 1];
        }
        continue;
      }
      for (std::size_t r = 0; r < count; ++r) {
        const std::uint16_t leaf = leaf16[r];
        if (local && (in_sample_.empty() || in_sample_[start + r]))
          local[leaf] += stats_[start + r];
      }
    }
  });
  if (fused) have_pending_ = false;  // the margins now hold every tree before this one
  if (sums) {
    sums->assign(leaves, Pair{});
    for (const auto& p : partial) {
      for (std::size_t c = 0; c < copies; ++c) {
        for (std::size_t l = 0; l < leaves; ++l) (*sums)[l] += p[c * leaves + l];
      }
    }
  }
}

void Trainer::FlushPending() {
  if (!have_pending_) return;
  ComputeStatistics({}, pending_values_.data());
  have_pending_ = false;
}

void Trainer::RouteLevel(const HeapTree& tree, std::size_t first) {
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t node = first + node_of_[i];
      const std::uint16_t bin = bins_[static_cast<std::size_t>(tree.feature[node])][i];
      const std::size_t child =
          2 * node + 1 +
          (GoesRightBinned(bin, tree.split_bin[node], tree.default_left[node] != 0) ? 1 : 0);
      node_of_[i] = static_cast<std::uint16_t>(child - (2 * first + 1));
    }
  });
}

void Trainer::LeafQuery(const HeapTree& tree, std::vector<Pair>& sums) {
  // One query per tree: the leaves partition the rows, so the vector of all leaf sums has the
  // sensitivity of one (a, b) pair (Maddock §4.4.3, κ_w = T).
  const std::size_t leaves = HeapTree::Leaves(tree.depth);
  const int chunks = pool_.Chunks(n_);
  std::vector<std::vector<Pair>> partial(static_cast<std::size_t>(chunks),
                                         std::vector<Pair>(leaves));
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int w) {
    auto& local = partial[static_cast<std::size_t>(w)];
    for (std::size_t i = begin; i < end; ++i) {
      if (in_sample_.empty() || in_sample_[i]) local[node_of_[i]] += stats_[i];
    }
  });
  sums.assign(leaves, Pair{});
  for (const auto& local : partial) {
    for (std::size_t l = 0; l < leaves; ++l) sums[l] += local[l];
  }
}

std::vector<Pair> Trainer::Histogram(const std::vector<int>& features, std::size_t cells,
                                     std::size_t first, std::size_t count,
                                     const std::vector<std::vector<std::uint16_t>>* cell_split,
                                     bool count_as_b) {
  // hist[(feature slot · count + node) · cells + cell]. cell_split == nullptr: cell = bin, and
  // the missing bin is the feature's last cell (Q_f + 1). Otherwise (partially random) the cells
  // are 0: left of the node's random candidate, 1: right, 2: missing.
  const std::size_t k = features.size();
  const std::size_t size = k * count * cells;
  const int chunks = pool_.Chunks(n_);
  std::vector<std::vector<Pair>> partial(static_cast<std::size_t>(chunks), std::vector<Pair>(size));
  pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int w) {
    auto& local = partial[static_cast<std::size_t>(w)];
    for (std::size_t i = begin; i < end; ++i) {
      if (!in_sample_.empty() && !in_sample_[i]) continue;
      const std::size_t node = node_of_[i];
      const Pair s = count_as_b ? Pair{stats_[i].a, 1.0} : stats_[i];
      for (std::size_t slot = 0; slot < k; ++slot) {
        const auto f = static_cast<std::size_t>(features[slot]);
        const std::uint16_t bin = bins_[f][i];
        std::size_t cell;
        if (cell_split == nullptr) {
          cell = bin == kMissingBin ? candidates_[f].size() + 1 : bin;
        } else {
          const std::uint16_t j = (*cell_split)[slot][node];
          cell = bin == kMissingBin ? 2 : (bin < j ? 0 : 1);
        }
        local[(slot * count + node) * cells + cell] += s;
      }
    }
  });
  std::vector<Pair> hist(size);
  for (const auto& local : partial) {
    for (std::size_t c = 0; c < size; ++c) hist[c] += local[c];
  }
  (void)first;
  return hist;
}

// Best split of one node from its (noisy) cells: value cells 0..q and the missing cell q + 1.
// Returns gain, split_bin j ∈ [1, q], default_left and the child sums.
struct SplitChoice {
  double gain = -std::numeric_limits<double>::infinity();
  int slot = 0;
  std::uint16_t split_bin = 1;
  bool default_left = true;
  Pair left, right;
};

HeapTree Trainer::BuildTree(int t, const std::vector<int>& features,
                            std::vector<Pair>* root_histogram) {
  HeapTree tree(config_.max_depth);
  const int depth = config_.max_depth;
  const std::size_t leaves = HeapTree::Leaves(depth);
  std::vector<Pair> leaf_sums(leaves);
  bool leaves_from_splits = false;
  (void)t;

  const bool data_independent_splits =
      split_ == SplitMethod::kTotallyRandom ||
      (split_ == SplitMethod::kPartiallyRandom && features_per_tree_ == 1);
  bool summed = false;
  if (data_independent_splits) {
    AssignRandomSplits(tree, features);
    RouteAll(tree, &leaf_sums);  // routing and the exact leaf sums in one pass
    summed = true;
  } else {
    std::fill(node_of_.begin(), node_of_.end(), 0);
    // Histogram with one feature: the root histogram serves every level (Maddock §5.1).
    const bool root_only = split_ == SplitMethod::kHistogram && features_per_tree_ == 1;
    std::vector<Pair> root;                 // root histogram (root_only)
    std::vector<std::uint16_t> lo, hi;      // value-bin range of each node (root_only)
    std::vector<std::uint8_t> has_missing;  // the node holds the missing cell (root_only)
    std::size_t max_q = 0;
    for (int f : features) max_q = std::max(max_q, candidates_[static_cast<std::size_t>(f)].size());
    for (int level = 0; level < depth; ++level) {
      const std::size_t first = (std::size_t{1} << level) - 1;
      const std::size_t count = std::size_t{1} << level;
      const bool last = level + 1 == depth;
      if (split_ == SplitMethod::kExponential) {
        // Revisiting DP-XGBoost §4.2: exponential mechanism over every (feature, candidate) of
        // the node, utility Σ_children G²/(n + λ) on exact sums of (a, count); missing values go
        // left. Every candidate is scored; nothing is pre-filtered with exact data.
        const std::size_t cells = max_q + 2;
        const std::vector<Pair> hist = Histogram(features, cells, first, count, nullptr, true);
        for (std::size_t node = 0; node < count; ++node) {
          std::vector<double> utilities;
          std::vector<std::pair<int, std::uint16_t>> options;
          for (std::size_t slot = 0; slot < features.size(); ++slot) {
            const auto f = static_cast<std::size_t>(features[slot]);
            const std::size_t q = candidates_[f].size();
            const Pair* h = &hist[(slot * count + node) * cells];
            Pair total = h[q + 1];
            for (std::size_t c = 0; c <= q; ++c) total += h[c];
            Pair left = h[q + 1];
            for (std::size_t j = 1; j <= q; ++j) {
              left += h[j - 1];
              const Pair right = total - left;
              const double lambda = config_.reg_lambda;
              const auto score = [lambda](const Pair& p) {
                return p.b + lambda > 0 ? p.a * p.a / (p.b + lambda) : 0.0;
              };
              utilities.push_back(score(left) + score(right));
              options.emplace_back(static_cast<int>(f), static_cast<std::uint16_t>(j));
            }
          }
          std::size_t pick;
          if (noisy_) {
            pick = exponential_->Select(utilities, rng_);
            ++exponential_selections_;
          } else {
            pick = static_cast<std::size_t>(std::max_element(utilities.begin(), utilities.end()) -
                                            utilities.begin());
          }
          tree.feature[first + node] = options[pick].first;
          tree.split_bin[first + node] = options[pick].second;
          tree.default_left[first + node] = 1;
        }
      } else {
        // Histogram (Maddock §4.3.1) or partially random (§4.3.2) on noisy cells.
        const bool pr = split_ == SplitMethod::kPartiallyRandom;
        std::vector<std::vector<std::uint16_t>> random_bin;
        std::size_t cells = pr ? 3 : max_q + 2;
        std::vector<Pair> hist;
        if (pr) {
          random_bin.assign(features.size(), std::vector<std::uint16_t>(count));
          for (std::size_t node = 0; node < count; ++node) {
            for (std::size_t slot = 0; slot < features.size(); ++slot) {
              const int q =
                  static_cast<int>(candidates_[static_cast<std::size_t>(features[slot])].size());
              random_bin[slot][node] = static_cast<std::uint16_t>(1 + UniformInt(rng_, q));
            }
          }
          hist = Histogram(features, cells, first, count, &random_bin, false);
          for (auto& cell : hist) AddPairNoise(cell, "partially_random");
        } else if (!root_only || level == 0) {
          hist = Histogram(features, cells, first, count, nullptr, false);
          // Noise on every released cell of every node (empty cells too).
          for (std::size_t slot = 0; slot < features.size(); ++slot) {
            const std::size_t q = candidates_[static_cast<std::size_t>(features[slot])].size();
            for (std::size_t node = 0; node < count; ++node) {
              for (std::size_t c = 0; c < q + 2; ++c) {
                AddPairNoise(hist[(slot * count + node) * cells + c], "histogram");
              }
            }
          }
          if (level == 0) {
            if (root_histogram) *root_histogram = hist;
            if (root_only) {
              root = hist;
              lo.assign(1, 0);
              hi.assign(1, static_cast<std::uint16_t>(
                               candidates_[static_cast<std::size_t>(features[0])].size() + 1));
              has_missing.assign(1, 1);
            }
          }
        }
        std::vector<std::uint16_t> next_lo, next_hi;
        std::vector<std::uint8_t> next_missing;
        for (std::size_t node = 0; node < count; ++node) {
          SplitChoice best;
          for (std::size_t slot = 0; slot < features.size(); ++slot) {
            const auto f = static_cast<std::size_t>(features[slot]);
            const std::size_t q = pr ? 1 : candidates_[f].size();
            std::vector<Pair> h(q + 2);
            if (root_only) {
              // The node's histogram is the root histogram restricted to its bin range.
              for (std::size_t c = lo[node]; c < hi[node]; ++c) h[c] = root[c];
              if (has_missing[node]) h[q + 1] = root[q + 1];
            } else {
              const Pair* src = &hist[(slot * count + node) * cells];
              for (std::size_t c = 0; c < q + 1; ++c) h[c] = src[c];
              h[q + 1] = src[pr ? 2 : q + 1];
            }
            Pair values;
            for (std::size_t c = 0; c <= q; ++c) values += h[c];
            const Pair missing = h[q + 1];
            const double parent = NodeScore(values + missing);
            Pair prefix;
            for (std::size_t j = 1; j <= q; ++j) {
              prefix += h[j - 1];
              for (int dl = 1; dl >= 0; --dl) {
                const Pair left = dl ? prefix + missing : prefix;
                const Pair right = dl ? values - prefix : values - prefix + missing;
                const double gain = NodeScore(left) + NodeScore(right) - parent;
                if (gain > best.gain) {
                  best.gain = gain;
                  best.slot = static_cast<int>(slot);
                  best.split_bin = pr ? random_bin[slot][node] : static_cast<std::uint16_t>(j);
                  best.default_left = dl != 0;
                  best.left = left;
                  best.right = right;
                }
              }
            }
          }
          const std::size_t id = first + node;
          tree.feature[id] = features[static_cast<std::size_t>(best.slot)];
          tree.split_bin[id] = best.split_bin;
          tree.default_left[id] = best.default_left ? 1 : 0;
          if (last) {
            // The last level's child sums are the leaf sums (κ_w = 0, Maddock Table 1).
            leaf_sums[2 * node] = best.left;
            leaf_sums[2 * node + 1] = best.right;
          }
          if (root_only) {
            const std::uint16_t j = best.split_bin;
            next_lo.push_back(lo[node]);
            next_hi.push_back(std::max(lo[node], std::min(hi[node], j)));
            next_missing.push_back(has_missing[node] && best.default_left ? 1 : 0);
            next_lo.push_back(std::min(hi[node], std::max(lo[node], j)));
            next_hi.push_back(hi[node]);
            next_missing.push_back(has_missing[node] && !best.default_left ? 1 : 0);
          }
        }
        if (root_only) {
          lo = next_lo;
          hi = next_hi;
          has_missing = next_missing;
        }
        leaves_from_splits = true;
      }
      RouteLevel(tree, first);
    }
  }
  if (!leaves_from_splits) {
    if (!summed) LeafQuery(tree, leaf_sums);
    for (auto& sum : leaf_sums) AddPairNoise(sum, "leaf");
  }
  const int batch =
      std::min(config_.batch_size, total_trees_ - (t / config_.batch_size) * config_.batch_size);
  for (std::size_t l = 0; l < leaves; ++l) tree.leaf_value[l] = LeafValue(leaf_sums[l], batch);
  return tree;
}

void Trainer::AssignRandomSplits(HeapTree& tree, const std::vector<int>& features) {
  // Maddock §4.3.2 TR: a feature uniformly at random, then a candidate uniformly at random. The
  // candidate is drawn among those inside the node's interval of that feature, which its
  // ancestors' splits fix (public, data independent); a candidate outside it would send every row
  // of the node to one side. Features with no such candidate are skipped; if none is left the
  // split is drawn over all candidates (an empty child).
  const std::size_t k = features.size();
  std::vector<int> lo(k, 0), hi(k);
  for (std::size_t slot = 0; slot < k; ++slot) {
    hi[slot] = static_cast<int>(candidates_[static_cast<std::size_t>(features[slot])].size()) + 1;
  }
  std::vector<std::size_t> open;
  open.reserve(k);
  const auto assign = [&](const auto& self, std::size_t node, int level) -> void {
    if (level == tree.depth) return;
    open.clear();
    for (std::size_t slot = 0; slot < k; ++slot) {
      if (hi[slot] - lo[slot] > 1) open.push_back(slot);  // bins lo..hi−1: splits lo+1..hi−1
    }
    std::size_t slot;
    int j;
    if (!open.empty()) {
      slot = open[UniformIndex(rng_, open.size())];
      j = lo[slot] + 1 + UniformInt(rng_, hi[slot] - lo[slot] - 1);
    } else {
      slot = UniformIndex(rng_, k);
      j = 1 + UniformInt(rng_, static_cast<int>(
                                   candidates_[static_cast<std::size_t>(features[slot])].size()));
    }
    tree.feature[node] = features[slot];
    tree.split_bin[node] = static_cast<std::uint16_t>(j);
    tree.default_left[node] = static_cast<std::uint8_t>(rng_.NextU64() & 1);
    const int saved_lo = lo[slot];
    const int saved_hi = hi[slot];
    hi[slot] = std::max(saved_lo, std::min(saved_hi, j));
    self(self, 2 * node + 1, level + 1);
    hi[slot] = saved_hi;
    lo[slot] = std::min(saved_hi, std::max(saved_lo, j));
    self(self, 2 * node + 2, level + 1);
    lo[slot] = saved_lo;
  };
  assign(assign, 0, 0);
}

Tree Trainer::ToModelTree(const HeapTree& tree) const {
  Tree out;
  const std::size_t internal = HeapTree::Internal(tree.depth);
  out.nodes.resize(internal + HeapTree::Leaves(tree.depth));
  for (std::size_t i = 0; i < internal; ++i) {
    Node& node = out.nodes[i];
    node.feature = tree.feature[i];
    node.threshold = candidates_[static_cast<std::size_t>(tree.feature[i])][tree.split_bin[i] - 1];
    node.default_left = tree.default_left[i] != 0;
    node.left = static_cast<int>(2 * i + 1);
    node.right = static_cast<int>(2 * i + 2);
  }
  for (std::size_t l = 0; l < HeapTree::Leaves(tree.depth); ++l) {
    Node& node = out.nodes[internal + l];
    node.feature = -1;
    node.value = tree.leaf_value[l];
  }
  return out;
}

Model Trainer::Run() {
  // The model holds no timings: the same seed must give the same model bytes.
  config_.Validate();
  ValidateData();
  // Refuses, with the estimate, what cannot fit in memory before any of it is allocated.
  RequireTrainableInMemory(config_, data_.schema, n_);
  split_ = config_.split_method;  // Validate() checked both enums
  leaf_ = config_.leaf_update;
  features_per_tree_ = config_.feature_interaction.method == InteractionMethod::kAll
                           ? m_
                           : std::min(config_.feature_interaction.k, m_);
  noisy_ = !config_.non_private && config_.privacy.has_value();
  plan_ = PlanPrivacy(config_, n_, m_);
  SetUpMechanisms();
  InitCandidates();

  margin_.assign(n_, 0.0);
  delta_.assign(n_, 0.0);
  stats_.assign(n_, Pair{});
  node_of_.assign(n_, 0);
  const double base_score = noisy_ ? InitialScore() : 0.0;
  std::fill(margin_.begin(), margin_.end(), base_score);

  Model model;
  model.objective = config_.objective;
  model.base_score = base_score;
  model.feature_names = data_.feature_names;
  model.config = config_.ToJson();
  model.trees.reserve(static_cast<std::size_t>(config_.n_estimators));

  if (config_.renyi_filter) {
    filter_.emplace(plan_.filter_order, plan_.filter_budget, n_);
    filter_table_.emplace(
        plan_.noise_multiplier,
        config_.leaf_noise_weights.empty() ? std::vector<double>{1.0} : config_.leaf_noise_weights,
        config_.subsample, plan_.filter_order);
  }
  // With the filter, extra rounds run on the records that still have budget (S-BDT §6.6).
  const int trees =
      config_.n_estimators + (config_.renyi_filter ? config_.renyi_filter->extra_rounds : 0);
  total_trees_ = trees;
  const int batch = config_.batch_size;
  const bool ih = config_.split_candidates.method == CandidateMethod::kIterativeHessian;
  const auto ih_rounds = static_cast<int>(
      std::min<long long>(config_.split_candidates.rounds, static_cast<long long>(trees)));
  fused_ = binary_ && leaf_ == LeafUpdate::kNewton && batch == 1 && !filter_ &&
           config_.subsample >= 1 &&
           (split_ == SplitMethod::kTotallyRandom ||
            (split_ == SplitMethod::kPartiallyRandom && features_per_tree_ == 1));
  if (binary_) {
    labels01_.resize(n_);  // binary labels are exactly 0 or 1 (checked by the loader)
    for (std::size_t i = 0; i < n_; ++i) labels01_[i] = data_.labels[i] != 0 ? 1 : 0;
  }
  ComputeStatistics({});
  for (int t = 0; t < trees; ++t) {
    DrawSample();
    if (filter_) ApplyFilter();
    if (ih && split_ != SplitMethod::kHistogram && t < ih_rounds) {
      FlushPending();  // the Hessian histogram needs the current statistics
      RefineCandidatesIh();
    }
    const std::vector<int> features = TreeFeatures(t);
    std::vector<Pair> root_histogram;
    const HeapTree tree = BuildTree(t, features, &root_histogram);
    model.trees.push_back(ToModelTree(tree));
    const bool batch_end = (t + 1) % batch == 0 || t + 1 == trees;
    if (batch == 1) {
      // Sequential boosting: the tree's values enter the margins in the statistics pass below.
    } else {
      pool_.ParallelFor(n_, [&](std::size_t begin, std::size_t end, int) {
        for (std::size_t i = begin; i < end; ++i) delta_[i] += tree.leaf_value[node_of_[i]];
      });
    }
    if (ih && split_ == SplitMethod::kHistogram && t < ih_rounds && !root_histogram.empty()) {
      // Maddock §4.5.2 with histogram splits: the root's noisy Hessian histogram refines the
      // candidates for the next tree at no privacy cost.
      const std::size_t count = 1;
      std::size_t max_q = 0;
      for (int f : features) {
        max_q = std::max(max_q, candidates_[static_cast<std::size_t>(f)].size());
      }
      const std::size_t cells = max_q + 2;  // the layout Histogram used for the root
      for (std::size_t slot = 0; slot < features.size(); ++slot) {
        const auto f = static_cast<std::size_t>(features[slot]);
        const std::size_t q = candidates_[f].size();
        const std::size_t stride = slot * count * cells;
        std::vector<double> hessian(q + 1);
        for (std::size_t c = 0; c <= q; ++c) hessian[c] = root_histogram[stride + c].b;
        candidates_[f] = internal::RefineIterativeHessian(data_.schema.features[f], candidates_[f],
                                                          hessian, config_.split_candidates.count);
        Rebin(static_cast<int>(f));
      }
    }
    if (batch_end) {
      // Maddock §5.2: the batch's averaged updates enter the margin, then gradients are renewed.
      if (fused_) {
        pending_values_ = tree.leaf_value;  // enters the margins in the next tree's pass
        have_pending_ = true;
      } else if (batch == 1) {
        ComputeStatistics({}, tree.leaf_value.data());
      } else {
        ComputeStatistics(delta_);
        std::fill(delta_.begin(), delta_.end(), 0.0);
      }
    }
    // One line per tree, not per batch: a random forest (batch_size = n_estimators) would
    // otherwise be silent until its end. The CLI shows at most two lines a second.
    if (options_.progress && options_.progress_stream) {
      *options_.progress_stream << "rdpkit train: " << (t + 1) << "/" << trees << " trees\n";
    }
  }

  FlushPending();  // margins and statistics after the last tree

  nlohmann::json report = {
      {"n_rows", n_},
      {"n_features", m_},
      {"clipped", data_.clipped},
      {"total_clipped", data_.total_clipped()},
      {"queries", plan_.counts.ToJson()},
      {"sensitivities", {{"a", sens_.a}, {"b", sens_.b}, {"pair", sens_.pair()}}},
  };
  const bool quantile = config_.split_candidates.method == CandidateMethod::kQuantile;
  if (noisy_) {
    report["noise_multiplier"] = plan_.noise_multiplier;
    if (plan_.counts.exponential) {
      report["exponential_epsilon"] = plan_.exponential_epsilon;
      report["exponential_selections"] = exponential_selections_;
    }
    if (config_.initial_score) report["initial_score_epsilon"] = plan_.initial_score_epsilon;
    report["delta_source"] = plan_.delta_from_n ? DefaultDeltaSource() : "config";
  }
  if (filter_) {
    report["renyi_filter"] = {{"order", plan_.filter_order},
                              {"budget", plan_.filter_budget},
                              {"rounds", filter_->rounds()},
                              {"records_sitting_out", filtered_out_},
                              {"active_records", filter_->NumActive()}};
  }
  const bool bounds_from_data = data_.schema.bounds_from_data;
  if (noisy_ && !quantile && !bounds_from_data) {
    // With the filter the event holds a renyi_filter (order α̂, budget, max_rounds T + extra):
    // the run is (α̂, budget)-RDP (Feldman & Zrnic 2021, Thm 4.5) and `rdpkit epsilon --event`
    // evaluates it at α̂, giving back exactly plan_.epsilon.
    model.privacy = {
        {"epsilon", plan_.epsilon}, {"delta", plan_.delta}, {"event", plan_.event->ToJson()}};
  } else {
    model.privacy = {
        {"private", false},
        {"reason", config_.non_private ? "non_private: true (no noise was added)"
                   : quantile ? "split_candidates.method = quantile uses exact quantiles of "
                                "the training data"
                              : "the feature bounds were taken from the training data "
                                "(--bounds-from-data): they are released with the model "
                                "and no epsilon covers them"}};
    if (bounds_from_data) model.privacy["bounds_from_data"] = true;
    if (noisy_) {
      model.privacy["noise_event"] = plan_.event->ToJson();
      model.privacy["noise_epsilon"] = plan_.epsilon;
      model.privacy["delta"] = plan_.delta;
    }
  }
  model.training_log = std::move(report);
  return model;
}

}  // namespace

Model Train(const Dataset& data, const TrainerConfig& config, const TrainOptions& options) {
  Trainer trainer(data, config, options);
  return trainer.Run();
}

}  // namespace rdpkit::trees
