// The PLD accountant's default grid against its finest one (tests/data/pld_fine_reference.json,
// written by bench/pld_fine_reference.cc: 2^20 points whatever the resolution rule says) on
// Poisson-subsampled Gaussians across q ∈ [1e-6, 1], σ ∈ [0.3, 100], T ∈ [1, 10⁶],
// δ ∈ [1e-12, 1e-2]: the default ε is within the bound docs/math/pld.md §5 states, and where the
// PLD declines (its grid would not fit) best answers with RDP.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/pld.h"

namespace rdpkit::accountant {
namespace {

using nlohmann::json;

// pld.md §5: the default grid's ε is at most kRelativeBound above the finest grid's, plus
// kAbsoluteBound (one step of a coarse grid, where ε is a few steps).
constexpr double kRelativeBound = 5e-3;
constexpr double kAbsoluteBound = 1e-4;
// Under the sanitizers (10× slower) every eighth case; all of them in the Release run.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kEvery = 8;
#else
constexpr int kEvery = 1;
#endif

// One test per sampling probability, so that ctest spreads the table over its jobs.
class PldFineReference : public ::testing::TestWithParam<double> {};

TEST_P(PldFineReference, DefaultGridIsWithinItsBound) {
  std::ifstream in(std::string(RDPKIT_REFERENCE_DIR) + "/pld_fine_reference.json");
  ASSERT_TRUE(in) << "tests/data/pld_fine_reference.json";
  const json file = json::parse(in);
  double worst = 0;
  int checked = 0;
  int index = 0;
  for (const json& c : file.at("cases")) {
    if (c.at("q").get<double>() != GetParam()) continue;
    if (index++ % kEvery != 0) continue;
    const Event event = SampledGaussian(c.at("q").get<double>(), c.at("sigma").get<double>(),
                                        c.at("count").get<std::uint64_t>());
    const double delta = c.at("delta").get<double>();
    SCOPED_TRACE(c.dump());
    if (c.contains("declined")) {
      // The finest grid would not fit; the default one may or may not, and best answers anyway.
      const EpsilonResult best = Epsilon(event, delta);
      EXPECT_TRUE(best.epsilon >= 0) << best.epsilon;
      continue;
    }
    const double fine = c.at("fine_epsilon").get<double>();
    const double standard = PldEpsilon(event, delta);
    EXPECT_LE(standard, fine * (1 + kRelativeBound) + kAbsoluteBound);
    if (std::isfinite(fine) && fine > 0) worst = std::max(worst, standard / fine - 1);
    ++checked;
  }
  EXPECT_GT(checked, 0);
  std::printf("q %g: checked %d cases, largest relative excess over the finest grid %.3g\n",
              GetParam(), checked, worst);
}

INSTANTIATE_TEST_SUITE_P(SamplingProbabilities, PldFineReference,
                         ::testing::Values(1e-6, 1e-4, 1e-2, 0.3, 1.0));

}  // namespace
}  // namespace rdpkit::accountant
