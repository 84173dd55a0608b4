// Issue 17: binary training on binned data holds at most 2 bytes per feature and row plus a
// constant (docs/trees.md "Large data"). This binary alone replaces the global allocation
// functions to count the bytes on the heap: the peak of a whole load-and-train, at two sizes of
// the same table, gives the bytes a row as the slope.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <new>
#include <random>
#include <string>

#include "rdpkit/trees/binned_csv.h"
#include "rdpkit/trees/config.h"
#include "rdpkit/trees/data.h"
#include "rdpkit/trees/train.h"

namespace {

std::atomic<std::size_t> g_live{0};
std::atomic<std::size_t> g_peak{0};

// Every block carries its size in a header of `align` bytes (at least 16) before the pointer.
void* Counted(std::size_t size, std::size_t align) {
  align = std::max<std::size_t>(align, 16);
  void* base = std::aligned_alloc(align, (size + 2 * align - 1) / align * align);
  if (base == nullptr) throw std::bad_alloc();
  char* user = static_cast<char*>(base) + align;
  reinterpret_cast<std::size_t*>(user)[-1] = size;
  reinterpret_cast<std::size_t*>(user)[-2] = align;
  const std::size_t live = g_live.fetch_add(size) + size;
  std::size_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return user;
}

void Uncounted(void* p) noexcept {
  if (p == nullptr) return;
  char* user = static_cast<char*>(p);
  const std::size_t size = reinterpret_cast<std::size_t*>(user)[-1];
  const std::size_t align = reinterpret_cast<std::size_t*>(user)[-2];
  g_live.fetch_sub(size);
  std::free(user - align);
}

}  // namespace

void* operator new(std::size_t size) { return Counted(size, 16); }
void* operator new[](std::size_t size) { return Counted(size, 16); }
void* operator new(std::size_t size, std::align_val_t align) {
  return Counted(size, static_cast<std::size_t>(align));
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return Counted(size, static_cast<std::size_t>(align));
}
void operator delete(void* p) noexcept { Uncounted(p); }
void operator delete[](void* p) noexcept { Uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { Uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { Uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { Uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Uncounted(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { Uncounted(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { Uncounted(p); }

namespace rdpkit::trees {
namespace {

constexpr int kFeatures = 7;

Schema MixedSchema() {
  return Schema::FromJson(nlohmann::json::parse(R"({"task": "binary", "features": [
      {"name": "a", "min": 0, "max": 1}, {"name": "b", "min": 0, "max": 1},
      {"name": "c", "min": -5, "max": 5}, {"name": "d", "min": 0, "max": 100},
      {"name": "e", "categorical": true, "n_codes": 11},
      {"name": "f", "categorical": true, "n_codes": 4},
      {"name": "g", "categorical": true, "n_codes": 3}]})"));
}

// n rows of MixedSchema with missing values; label 1 iff a + b > 1 (5 % flipped).
std::string MixedCsv(std::size_t n) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::string text = "a,b,c,d,e,f,g,label\n";
  text.reserve(n * 40);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = unit(rng);
    const double b = unit(rng);
    const auto cell = [&](double x) {
      return unit(rng) < 0.03 ? std::string() : std::to_string(x);
    };
    text += cell(a) + "," + std::to_string(b) + "," + cell(10 * unit(rng) - 5) + "," +
            std::to_string(100 * unit(rng)) + "," +
            std::to_string(static_cast<int>(11 * unit(rng))) + "," +
            std::to_string(static_cast<int>(4 * unit(rng))) + "," +
            std::to_string(static_cast<int>(3 * unit(rng))) + ",";
    text += ((a + b > 1) != (unit(rng) < 0.05)) ? "1\n" : "0\n";
  }
  return text;
}

struct Peaks {
  double data = 0;   // bytes the loaded data set holds
  double total = 0;  // peak bytes of loading and training
};

// The heap of loading the table and training on it, beyond the text itself.
Peaks LoadAndTrain(std::size_t n, const TrainerConfig& config) {
  const std::string text = MixedCsv(n);
  const std::size_t before = g_live.load();
  g_peak.store(before);
  Peaks peaks;
  {
    const Dataset data = ParseCsvBinned(text, MixedSchema(), config.split_candidates, 1);
    peaks.data = static_cast<double>(g_live.load() - before);
    TrainOptions quiet;
    quiet.progress = false;
    const Model model = Train(data, config, quiet);
    EXPECT_EQ(model.trees.size(), static_cast<std::size_t>(config.n_estimators));
  }
  peaks.total = static_cast<double>(g_peak.load() - before);
  return peaks;
}

// The default trainer settings for a binary table (totally random trees, Newton leaves, Poisson
// subsampling); non_private so that no accountant grid enters the peak (the same at any n).
TEST(Memory, BinaryTrainingHoldsTwoBytesPerFeatureAndRowAndTheSampleBit) {
  const TrainerConfig config = TrainerConfig::FromJson({{"non_private", true},
                                                        {"n_estimators", 5},
                                                        {"max_depth", 6},
                                                        {"subsample", 0.5},
                                                        {"threads", 1},
                                                        {"seed", 3}});
  constexpr std::size_t kSmall = 40000;
  constexpr std::size_t kLarge = 200000;
  const Peaks small = LoadAndTrain(kSmall, config);
  const Peaks large = LoadAndTrain(kLarge, config);
  const double rows = static_cast<double>(kLarge - kSmall);
  // The data: a byte per feature (its bin) and one for the label, a row.
  EXPECT_LE((large.data - small.data) / rows, kFeatures + 1.0 + 1e-3);
  // Loading and training: the data, the margin as a float, the row's leaf and the sample's bit
  // (1/8): 14 1/8 bytes a row with 7 features.
  const double per_row = (large.total - small.total) / rows;
  std::cout << "peak heap: " << per_row << " bytes a row + "
            << large.total - per_row * static_cast<double>(kLarge) << " bytes\n";
  EXPECT_LE(per_row, 2.0 * kFeatures + 0.2) << "bytes a row";
  EXPECT_GE(per_row, kFeatures + 1.0);  // the count sees the data itself
  // The constant: under 4 MB beyond the rows.
  EXPECT_LE(large.total - per_row * static_cast<double>(kLarge), 4e6);
}

}  // namespace
}  // namespace rdpkit::trees
