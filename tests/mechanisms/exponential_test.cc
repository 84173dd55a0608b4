#include "rdpkit/mechanisms/exponential.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "exact.h"
#include "rdpkit/accountant/errors.h"
#include "stats.h"

namespace rdpkit::mechanisms {
namespace {

using testing::ChiSquare;
using testing::ChiSquareCritical;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Selection frequencies against softmax(ε·u/(2Δ)): n = 100 000 selections per case, Pearson χ²
// (cells with expectation < 5 pooled) against the χ²(dof) quantile at false-alarm rate 1e-6.
constexpr int kSelections = 100000;
constexpr double kChiSquareAlpha = 1e-6;

// Softmax of ε·u_i/(2Δ) in long double, shifted by the maximum (log-sum-exp). The test cases use
// utilities whose differences are exact, so this is the exact softmax to long-double accuracy.
std::vector<double> Softmax(const std::vector<double>& u, double epsilon, double sensitivity) {
  long double top = -std::numeric_limits<long double>::infinity();
  for (double x : u) top = std::max(top, static_cast<long double>(x));
  std::vector<long double> w(u.size());
  long double total = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    const long double diff = static_cast<long double>(u[i]) - top;
    w[i] = std::exp(static_cast<long double>(epsilon) * diff / (2.0L * sensitivity));
    total += w[i];
  }
  std::vector<double> p(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) p[i] = static_cast<double>(w[i] / total);
  return p;
}

struct Case {
  const char* name;
  std::vector<double> utilities;
  double epsilon, sensitivity;
};
// Names the case in test output and ctest names (not its bytes, which vary between builds).
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ExponentialFrequencies : public ::testing::TestWithParam<Case> {};

TEST_P(ExponentialFrequencies, MatchSoftmax) {
  const Case& c = GetParam();
  const ExponentialMechanism mechanism(c.epsilon, c.sensitivity);
  Random rng = Random::Seeded(2024);
  std::vector<long> counts(c.utilities.size(), 0);
  for (int i = 0; i < kSelections; ++i) ++counts[mechanism.Select(c.utilities, rng)];
  const auto [statistic, dof] = ChiSquare(counts, Softmax(c.utilities, c.epsilon, c.sensitivity));
  ASSERT_GE(dof, 1);
  EXPECT_LE(statistic, ChiSquareCritical(dof, kChiSquareAlpha)) << c.name;
}

std::vector<double> Shifted(std::vector<double> u, double shift) {
  for (double& x : u) x += shift;
  return u;
}

std::string CaseName(const ::testing::TestParamInfo<Case>& param) { return param.param.name; }

INSTANTIATE_TEST_SUITE_P(
    Scales, ExponentialFrequencies,
    ::testing::Values(
        Case{"small", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1.0, 1.0},
        // 2^40 added: exact in double, same probabilities; scores are ~2^39, far beyond exp().
        Case{"offset", Shifted({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 0x1p40), 1.0, 1.0},
        // Utilities of order 1e300 with Δ = 1e300: scores 1, 0.5, −1.
        Case{"huge", {1e300, 0.5e300, -1e300}, 2.0, 1e300},
        Case{"tiny", {3e-300, 1e-300, 0, -2e-300}, 1.0, 1e-300},
        Case{"sharp", {0, 10, 20, 25, 30}, 1.0, 1.0},
        Case{"flat", std::vector<double>(200, 4.5), 0.1, 1.0}),
    CaseName);

TEST(ExponentialMechanism, DominantCandidateIsAlwaysChosenWithoutOverflow) {
  // Scores 0 and 1e6: exp() of either overflows a double; Gumbel-max never evaluates it.
  const ExponentialMechanism mechanism(/*epsilon=*/2, /*sensitivity=*/1);
  Random rng = Random::Seeded(9);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(mechanism.Select({0.0, 1e6, -1e6}, rng), 1u);
}

// 500 selections from the same seed with the floating-point fast path and with the interval
// arithmetic forced everywhere must pick the same candidates.
template <typename Mechanism>
void ExpectFastPathAgreesWithIntervalArithmetic(const Mechanism& mechanism,
                                                const std::vector<double>& u, std::uint64_t seed) {
  Random a = Random::Seeded(seed), b = Random::Seeded(seed);
  for (int i = 0; i < 500; ++i) {
    const std::size_t fast = mechanism.Select(u, a);
    internal::SetForceExactForTesting(true);
    const std::size_t exact = mechanism.Select(u, b);
    internal::SetForceExactForTesting(false);
    ASSERT_EQ(fast, exact) << "selection " << i;
  }
}

TEST(ExponentialMechanism, FastPathAgreesWithIntervalArithmetic) {
  std::vector<double> u(50);
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = std::sin(static_cast<double>(i)) * 3;
  ExpectFastPathAgreesWithIntervalArithmetic(ExponentialMechanism(0.7, 1.5), u, 17);
}

TEST(ExponentialMechanism, ReportsItsEvent) {
  EXPECT_EQ(ExponentialMechanism(0.05, 3).event().ToJson(),
            nlohmann::json::parse(R"({"exponential": {"epsilon": 0.05}})"));
}

TEST(ExponentialMechanism, RejectsBadParametersNamingTheField) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {0.0, -1.0, nan, inf}) {
    EXPECT_THAT([&] { ExponentialMechanism(bad, 1); },
                ThrowsMessage<InvalidArgument>(HasSubstr("epsilon")));
    EXPECT_THAT([&] { ExponentialMechanism(1, bad); },
                ThrowsMessage<InvalidArgument>(HasSubstr("sensitivity")));
  }
  const ExponentialMechanism mechanism(1, 1);
  Random rng = Random::Seeded(1);
  EXPECT_THAT([&] { (void)mechanism.Select(std::vector<double>{}, rng); },
              ThrowsMessage<InvalidArgument>(HasSubstr("utilities")));
  EXPECT_THAT(
      [&] {
        (void)mechanism.Select({1.0, 2.0, nan}, rng);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("utilities[2]")));
  EXPECT_THAT(
      [&] {
        (void)mechanism.Select({inf, 2.0}, rng);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("utilities[0]")));
}

// Permute-and-flip output law (McKenna & Sheldon 2020): with p_r = exp(ε(u_r − max u)/(2Δ)) and
// uniform arrival times T_j, r wins iff it accepts and no earlier candidate accepted, so
// P(r) = p_r ∫_0^1 Π_{j≠r} (1 − p_j t) dt. The integrand is a polynomial of degree n − 1;
// composite Simpson with 2000 panels integrates it to ~1e-13 for the n ≤ 10 used here.
std::vector<double> PermuteAndFlipLaw(const std::vector<double>& u, double epsilon,
                                      double sensitivity) {
  double top = u[0];
  for (double x : u) top = std::max(top, x);
  std::vector<double> p(u.size()), law(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) {
    p[i] = std::exp(epsilon * (u[i] - top) / (2 * sensitivity));
  }
  constexpr int kPanels = 2000;
  for (std::size_t r = 0; r < u.size(); ++r) {
    auto f = [&](double t) {
      double prod = 1;
      for (std::size_t j = 0; j < u.size(); ++j) {
        if (j != r) prod *= 1 - p[j] * t;
      }
      return prod;
    };
    double integral = f(0) + f(1);
    for (int k = 1; k < kPanels; ++k) integral += (k % 2 ? 4 : 2) * f(k / double{kPanels});
    law[r] = p[r] * integral / (3 * kPanels);
  }
  return law;
}

TEST(PermuteAndFlipMechanism, FrequenciesMatchItsLaw) {
  for (const Case& c : {Case{"small", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1.0, 1.0},
                        Case{"offset", Shifted({0, 1, 2, 3, 2, 1}, 0x1p40), 0.8, 1.0},
                        Case{"huge", {1e300, 0.5e300, -1e300, 1e300}, 2.0, 1e300}}) {
    const PermuteAndFlipMechanism mechanism(c.epsilon, c.sensitivity);
    Random rng = Random::Seeded(4242);
    std::vector<long> counts(c.utilities.size(), 0);
    for (int i = 0; i < kSelections; ++i) ++counts[mechanism.Select(c.utilities, rng)];
    const auto law = PermuteAndFlipLaw(c.utilities, c.epsilon, c.sensitivity);
    double total = 0;
    for (double q : law) total += q;
    EXPECT_NEAR(total, 1.0, 1e-9) << c.name;  // the law itself is consistent
    const auto [statistic, dof] = ChiSquare(counts, law);
    EXPECT_LE(statistic, ChiSquareCritical(dof, kChiSquareAlpha)) << c.name;
  }
}

TEST(PermuteAndFlipMechanism, FastPathAgreesWithIntervalArithmetic) {
  std::vector<double> u(30);
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = std::cos(static_cast<double>(i)) * 4;
  ExpectFastPathAgreesWithIntervalArithmetic(PermuteAndFlipMechanism(0.7, 1.5), u, 23);
}

TEST(PermuteAndFlipMechanism, ReportsPureDpAndRejectsBadParameters) {
  EXPECT_EQ(PermuteAndFlipMechanism(0.25, 1).event().ToJson(),
            nlohmann::json::parse(R"({"pure_dp": {"epsilon": 0.25}})"));
  EXPECT_THAT([] { PermuteAndFlipMechanism(-1, 1); },
              ThrowsMessage<InvalidArgument>(HasSubstr("epsilon")));
  EXPECT_THAT([] { PermuteAndFlipMechanism(1, 0); },
              ThrowsMessage<InvalidArgument>(HasSubstr("sensitivity")));
  const PermuteAndFlipMechanism mechanism(1, 1);
  Random rng = Random::Seeded(1);
  EXPECT_THAT([&] { (void)mechanism.Select(std::vector<double>{}, rng); },
              ThrowsMessage<InvalidArgument>(HasSubstr("utilities")));
  EXPECT_THAT(
      [&] {
        (void)mechanism.Select({0.0, std::nan("")}, rng);
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("utilities[1]")));
}

}  // namespace
}  // namespace rdpkit::mechanisms
