#include "routing.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "rdpkit/accountant/errors.h"

namespace rdpkit::trees::internal {
namespace {

template <bool kMissing>
inline __attribute__((always_inline)) std::uint32_t RouteStep(const std::uint8_t* const* columns,
                                                              std::size_t row,
                                                              const CompactStep* steps,
                                                              std::uint32_t node) {
  const CompactStep& step = steps[node];
  const std::uint8_t bin = columns[step.feature][row];
  std::uint32_t right = bin >= step.split_bin ? 1 : 0;
  if constexpr (kMissing) right ^= (bin == kMissingByte ? 1U : 0U) & step.default_left;
  return 2 * node + 1 + right;
}

// Rows first..first+count−1 are routed kLanes at a time, each lane's path in a register: a path is
// a chain of dependent loads (step, then bin), and independent lanes let the chains overlap.
template <bool kMissing>
void RouteCompactBlock(const std::uint8_t* const* columns, std::size_t first, std::size_t count,
                       const CompactStep* steps, int depth, std::uint32_t* node) {
  constexpr std::size_t kLanes = 8;
  std::size_t r = 0;
  for (; r + kLanes <= count; r += kLanes) {
    std::uint32_t lane[kLanes] = {};
    for (int level = 0; level < depth; ++level) {
#pragma GCC unroll 8
      for (std::size_t k = 0; k < kLanes; ++k) {
        lane[k] = RouteStep<kMissing>(columns, first + r + k, steps, lane[k]);
      }
    }
#pragma GCC unroll 8
    for (std::size_t k = 0; k < kLanes; ++k) node[r + k] = lane[k];
  }
  for (; r < count; ++r) {
    std::uint32_t n = 0;
    for (int level = 0; level < depth; ++level) {
      n = RouteStep<kMissing>(columns, first + r, steps, n);
    }
    node[r] = n;
  }
}

}  // namespace

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RDPKIT_ROUTE_COLUMNS 1
// Routing of 32 rows per AVX2 vector without gathers, for trees of depth ≤ 8. Each row keeps its
// node's index within the level in a byte. At a level, a row's bin is taken from the byte column
// of its node's feature: the level's distinct features are loaded in turn and blended in where a
// 16-entry byte table (one per chunk of 16 nodes, looked up with pshufb on the node index) says
// the node splits on that feature; the node's split bin and default direction are looked up the
// same way. A level costs about 3 vector operations per distinct feature instead of ~6 per node.
namespace {

struct ColumnLevel {
  int chunks = 1;             // ⌈nodes / 16⌉: 1, 2, 4 or 8 tables per lookup
  int features = 0;           // distinct features at the level
  std::size_t first_feature;  // index of the level's first feature in ColumnPlan::feature
  std::size_t table;          // first 32-byte table: split bins, then default-left, then masks
};

}  // namespace

struct ColumnPlan {
  std::vector<ColumnLevel> levels;
  std::vector<std::uint32_t> feature;  // the distinct features, level after level
  std::vector<std::uint8_t> tables;    // 32 bytes each (the 16 entries in both 128-bit lanes)
};

namespace {

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

}  // namespace
#else
struct ColumnPlan {};
#endif

namespace {

// Whether every internal node of the tree splits the same feature (a tree of depth 0 has none).
bool SplitsOneFeature(const HeapTree& tree) {
  return !tree.feature.empty() && std::all_of(tree.feature.begin(), tree.feature.end(),
                                              [&](int f) { return f == tree.feature.front(); });
}

// The leaf (index within the last level) that a value of bin `bin` reaches.
std::uint16_t LeafOfBin(const HeapTree& tree, std::uint16_t bin) {
  std::size_t node = 0;
  for (int level = 0; level < tree.depth; ++level) {
    node = 2 * node + 1 +
           (GoesRightBinned(bin, tree.split_bin[node], tree.default_left[node] != 0) ? 1 : 0);
  }
  return static_cast<std::uint16_t>(node - HeapTree::Internal(tree.depth));
}

}  // namespace

bool TreeRouter::Supports(RouteKernel kernel, const BinnedMatrix& bins, const HeapTree& tree) {
  switch (kernel) {
    case RouteKernel::kAuto:
      return true;
    case RouteKernel::kWideBins:
      return !bins.compact();
    case RouteKernel::kScalarBytes:
      return bins.compact();
    case RouteKernel::kColumnBytes:
#ifdef RDPKIT_ROUTE_COLUMNS
    {
      static const bool avx2 = __builtin_cpu_supports("avx2") != 0;
      return bins.compact() && avx2 && tree.depth <= 8;
    }
#else
      return false;
#endif
    case RouteKernel::kOneFeature:
      return SplitsOneFeature(tree);
  }
  return false;
}

TreeRouter::TreeRouter(const BinnedMatrix& bins, const HeapTree& tree, RouteKernel kernel)
    : bins_(bins), depth_(tree.depth), kernel_(kernel) {
  if (kernel_ == RouteKernel::kAuto) {
    kernel_ = Supports(RouteKernel::kOneFeature, bins, tree)    ? RouteKernel::kOneFeature
              : Supports(RouteKernel::kColumnBytes, bins, tree) ? RouteKernel::kColumnBytes
              : bins.compact()                                  ? RouteKernel::kScalarBytes
                                                                : RouteKernel::kWideBins;
  }
  RDPKIT_CHECK(Supports(kernel_, bins, tree));
  const std::size_t internal = HeapTree::Internal(depth_);
  if (kernel_ == RouteKernel::kOneFeature) {
    const auto f = static_cast<std::size_t>(tree.feature.front());
    if (bins.compact()) {
      one_feature_bytes_ = bins.column_bytes(f);
    } else {
      one_feature_wide_ = bins.bins(f);
    }
    leaf_of_bin_.resize(bins.candidates(f).size() + 1);
    for (std::size_t bin = 0; bin < leaf_of_bin_.size(); ++bin) {
      leaf_of_bin_[bin] = LeafOfBin(tree, static_cast<std::uint16_t>(bin));
    }
    leaf_of_missing_ = LeafOfBin(tree, kMissingBin);
    return;
  }
  if (kernel_ == RouteKernel::kWideBins) {
    wide_steps_.resize(internal);
    for (std::size_t node = 0; node < internal; ++node) {
      wide_steps_[node] = {bins.bins(static_cast<std::size_t>(tree.feature[node])),
                           tree.split_bin[node], tree.default_left[node]};
    }
    return;
  }
  compact_steps_.resize(internal);
  for (std::size_t f = 0; f < bins.n_features(); ++f)
    feature_columns_.push_back(bins.column_bytes(f));
  for (std::size_t node = 0; node < internal; ++node) {
    const auto f = static_cast<std::size_t>(tree.feature[node]);
    compact_steps_[node] = {static_cast<std::uint32_t>(f),
                            static_cast<std::uint8_t>(tree.split_bin[node]),
                            tree.default_left[node]};
    missing_ = missing_ || bins.has_missing(f);
  }
#ifdef RDPKIT_ROUTE_COLUMNS
  if (kernel_ == RouteKernel::kColumnBytes) {
    column_plan_ = std::make_unique<ColumnPlan>(
        PlanColumnRoute(depth_, tree.feature, tree.split_bin, tree.default_left));
  }
#endif
}

TreeRouter::~TreeRouter() = default;

void TreeRouter::RouteBlock(std::size_t start, std::size_t count, std::uint16_t* leaf) const {
  RDPKIT_CHECK(count <= kBlock);
  if (kernel_ == RouteKernel::kOneFeature) {
    const std::uint16_t* table = leaf_of_bin_.data();
    if (one_feature_bytes_ != nullptr) {
      const std::uint8_t* column = one_feature_bytes_ + start;
      for (std::size_t r = 0; r < count; ++r) {
        leaf[r] = column[r] == kMissingByte ? leaf_of_missing_ : table[column[r]];
      }
    } else {
      const std::uint16_t* column = one_feature_wide_ + start;
      for (std::size_t r = 0; r < count; ++r) {
        leaf[r] = column[r] == kMissingBin ? leaf_of_missing_ : table[column[r]];
      }
    }
    return;
  }
  const std::size_t internal = HeapTree::Internal(depth_);
  std::uint32_t node[kBlock];
  if (kernel_ == RouteKernel::kWideBins) {
    // Level by level, so that the loads of many rows overlap (one row's path is a chain of
    // dependent loads).
    for (std::size_t r = 0; r < count; ++r) node[r] = 0;
    for (int level = 0; level < depth_; ++level) {
      for (std::size_t r = 0; r < count; ++r) {
        const WideStep& step = wide_steps_[node[r]];
        const std::uint16_t bin = step.column[start + r];
        const std::uint32_t right =
            static_cast<std::uint32_t>(bin >= step.split_bin) ^
            (static_cast<std::uint32_t>(bin == kMissingBin) & step.default_left);
        node[r] = 2 * node[r] + 1 + right;
      }
    }
    for (std::size_t r = 0; r < count; ++r)
      leaf[r] = static_cast<std::uint16_t>(node[r] - internal);
    return;
  }
  std::size_t routed = 0;  // rows already routed by the column kernel
#ifdef RDPKIT_ROUTE_COLUMNS
  if (kernel_ == RouteKernel::kColumnBytes) {
    std::array<const std::uint8_t*, 255> columns;
    for (std::size_t k = 0; k < column_plan_->feature.size(); ++k) {
      columns[k] = bins_.column_bytes(column_plan_->feature[k]) + start;
    }
    alignas(32) std::uint8_t leaf8[kBlock];
    routed = count / 32 * 32;
    RouteColumnsAvx2(columns.data(), *column_plan_, missing_, routed, leaf8);
    for (std::size_t r = 0; r < routed; ++r) leaf[r] = leaf8[r];
  }
#endif
  if (routed == count) return;
  const std::uint8_t* const* columns = feature_columns_.data();
  if (missing_) {
    RouteCompactBlock<true>(columns, start + routed, count - routed, compact_steps_.data(), depth_,
                            node + routed);
  } else {
    RouteCompactBlock<false>(columns, start + routed, count - routed, compact_steps_.data(), depth_,
                             node + routed);
  }
  for (std::size_t r = routed; r < count; ++r) {
    leaf[r] = static_cast<std::uint16_t>(node[r] - internal);
  }
}

void RouteLevel(const BinnedMatrix& bins, const HeapTree& tree, std::size_t first,
                std::vector<std::uint16_t>& node_of, WorkerPool& pool) {
  pool.ParallelFor(node_of.size(), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t node = first + node_of[i];
      const std::uint16_t bin = bins.bin(static_cast<std::size_t>(tree.feature[node]), i);
      const std::size_t child =
          2 * node + 1 +
          (GoesRightBinned(bin, tree.split_bin[node], tree.default_left[node] != 0) ? 1 : 0);
      node_of[i] = static_cast<std::uint16_t>(child - (2 * first + 1));
    }
  });
}

}  // namespace rdpkit::trees::internal
