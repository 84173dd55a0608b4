// RDP → (ε, δ): reference cases, optimality over orders (dense scan), soundness at the reported
// order (recomputed independently at 300 bits), properties and errors.
#include "rdpkit/accountant/convert.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "mp.h"
#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/errors.h"
#include "reference_cases.h"

namespace rdpkit::accountant {
namespace {

using ::rdpkit::testing::DivideRounded;
using ::rdpkit::testing::LoadReferenceCases;
using ::rdpkit::testing::Mp;
using ::rdpkit::testing::ReferenceCase;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// Balle et al. 2020 Thm 21 at one order, from an independently computed 300-bit ρ.
Mp BalleEpsilon(const Mp& rho, double alpha, double delta) {
  const Mp a(alpha);
  return rho + log((a - 1) / a) - (log(Mp(delta)) + log(a)) / (a - 1);
}

Mp NaiveLaplaceRdp(double alpha, double b) {
  const Mp a(alpha);
  const Mp bb(b);
  return log(a / (2 * a - 1) * exp((a - 1) / bb) + (a - 1) / (2 * a - 1) * exp(-a / bb)) / (a - 1);
}

std::vector<ReferenceCase> UnsampledEpsilonCases() {
  std::vector<ReferenceCase> out;
  for (auto& c : LoadReferenceCases("eps_from_rdp_composition")) {
    const std::string mechanism = c.params.at("mechanism").get<std::string>();
    if (mechanism == "gaussian" || mechanism == "laplace") out.push_back(c);
  }
  return out;
}

struct CaseSetup {
  Event event;
  std::vector<double> grid;  // the reference's own grid (empty: continuous)
  double delta;
  std::function<Mp(double)> independent_rdp;  // 300-bit ρ of the whole composition
};

CaseSetup MakeSetup(const ReferenceCase& c) {
  const auto& p = c.params;
  const auto count = p.at("T").get<std::uint64_t>();
  std::vector<double> grid;
  if (p.contains("alpha_grid_values")) grid = p.at("alpha_grid_values").get<std::vector<double>>();
  if (p.at("mechanism") == "gaussian") {
    const double sigma = p.at("sigma").get<double>();
    return {SelfComposedEvent(count, GaussianEvent(sigma)), grid, p.at("delta").get<double>(),
            [=](double alpha) {
              return Mp(static_cast<double>(count)) * Mp(alpha) / (2 * Mp(sigma) * Mp(sigma));
            }};
  }
  // b = 1/ε₀ rounded down: at least the reference's privacy loss, so soundness checks stay valid.
  const double b = DivideRounded(1.0, p.at("eps0").get<double>(), /*round_up=*/false);
  return {SelfComposedEvent(count, LaplaceEvent(b)), grid, p.at("delta").get<double>(),
          [=](double alpha) { return Mp(static_cast<double>(count)) * NaiveLaplaceRdp(alpha, b); }};
}

class EpsilonReference : public ::testing::TestWithParam<ReferenceCase> {};

TEST_P(EpsilonReference, AtLeastAsTightOnItsGridAndSoundAtTheReportedOrder) {
  const ReferenceCase& c = GetParam();
  const CaseSetup s = MakeSetup(c);
  const EpsilonResult ours = Epsilon(s.event, s.delta, {.accountant = Accountant::kRdp});
  EXPECT_TRUE(ours.certified);
  // Sound: ≥ the bound recomputed independently at the order we report.
  const double independent =
      BalleEpsilon(s.independent_rdp(ours.order), ours.order, s.delta).ToDouble();
  EXPECT_GE(ours.epsilon, independent * (1 - 1e-15)) << c.id;
  EXPECT_LE(ours.epsilon, independent * (1 + 1e-12)) << c.id;
  if (s.grid.empty()) {
    // Continuous optimum: nobody can beat it; we must be within 1e-6 relative (target 1e-10).
    EXPECT_GE(ours.epsilon, c.expected_down * (1 - 1e-15)) << c.id;
    EXPECT_LE(ours.epsilon, c.expected_up * (1 + 1e-9)) << c.id;
  } else {
    // On the reference's own grid we are at least as tight; with refinement, tighter or equal.
    const EpsilonResult on_grid =
        Epsilon(s.event, s.delta, {.orders = s.grid, .accountant = Accountant::kRdp});
    EXPECT_LE(on_grid.epsilon, c.expected_up * (1 + 1e-12)) << c.id;
    EXPECT_LE(ours.epsilon, c.expected_up * (1 + 1e-12)) << c.id;
  }
}
INSTANTIATE_TEST_SUITE_P(Reference, EpsilonReference, ::testing::ValuesIn(UnsampledEpsilonCases()),
                         [](const auto& p) { return CaseName(p.param); });

// The reported ε is within 1e-6 relative of the minimum over a dense scan of α ∈ (1, 1e5].
TEST(Epsilon, WithinOneMillionthOfDenseOrderScan) {
  const std::vector<Event> events = {
      SelfComposedEvent(1000000, GaussianEvent(800)),
      ComposedEvent({SelfComposedEvent(1000000, GaussianEvent(2000)),
                     SelfComposedEvent(1000, LaplaceEvent(300))}),
      SelfComposedEvent(50, ExponentialEvent(0.02)),
      ComposedEvent({GaussianEvent(0.8), PureDpEvent(0.3), ZcdpEvent(0.001)}),
      SelfComposedEvent(3, LeafBalancedGaussianEvent(5.0, {0.2, 0.8}))};
  for (const Event& event : events) {
    for (double delta : {1e-3, 1e-6, 1e-10}) {
      double dense = std::numeric_limits<double>::infinity();
      constexpr int kPoints = 20000;
      for (int i = 0; i <= kPoints; ++i) {
        const double alpha = 1 + std::pow(10.0, -4.0 + 9.0 * i / kPoints);
        if (alpha > kMaxOrder) break;
        dense = std::min(dense, EpsilonFromRdp(alpha, RdpFast(event, alpha), delta));
      }
      const EpsilonResult ours = Epsilon(event, delta);
      EXPECT_LE(ours.epsilon, dense * (1 + 1e-6)) << event.ToJson() << " delta=" << delta;
    }
  }
}

TEST(Epsilon, NonIncreasingInDelta) {
  const Event event = ComposedEvent({SelfComposedEvent(100, GaussianEvent(10)), LaplaceEvent(5)});
  double previous = std::numeric_limits<double>::infinity();
  for (double delta : {1e-15, 1e-12, 1e-9, 1e-6, 1e-3, 0.1, 0.5, 0.9}) {
    const double eps = Epsilon(event, delta).epsilon;
    EXPECT_LE(eps, previous) << delta;
    previous = eps;
  }
}

TEST(Epsilon, FastAndCertifiedAgree) {
  const Event event = ComposedEvent({SelfComposedEvent(1000000, GaussianEvent(1500)),
                                     SelfComposedEvent(1000, LaplaceEvent(200))});
  // RDP's fast path (under best, PLD answers this event: its fast path is a coarser grid).
  const EpsilonResult fast =
      Epsilon(event, 1e-5, {.certified = false, .accountant = Accountant::kRdp});
  const EpsilonResult cert = Epsilon(event, 1e-5, {.accountant = Accountant::kRdp});
  EXPECT_FALSE(fast.certified);
  EXPECT_TRUE(cert.certified);
  // The fast ε is raised by a 1e-8 relative margin per term (convert.cc kFastMargin): never below
  // the certified value, never much above it.
  EXPECT_GE(fast.epsilon, cert.epsilon);
  EXPECT_LE(fast.epsilon, cert.epsilon * (1 + 1e-7));
}

TEST(Epsilon, ReportsZeroNotNegative) {
  // A tiny loss at a large δ gives a negative bound; (0, δ) is reported instead.
  const EpsilonResult r = Epsilon(GaussianEvent(1e4), 0.9);
  EXPECT_EQ(r.epsilon, 0.0);
}

TEST(Epsilon, UserOrdersAreUsedExactly) {
  const Event event = SelfComposedEvent(10, GaussianEvent(3));
  const EpsilonResult r =
      Epsilon(event, 1e-5, {.orders = {2.0, 8.0, 32.0}, .accountant = Accountant::kRdp});
  EXPECT_TRUE(r.order == 2.0 || r.order == 8.0 || r.order == 32.0);
  EXPECT_GE(r.epsilon, Epsilon(event, 1e-5, {.accountant = Accountant::kRdp}).epsilon);
}

TEST(Delta, InvertsEpsilon) {
  const Event event = ComposedEvent({SelfComposedEvent(200, GaussianEvent(8)), LaplaceEvent(4)});
  for (double delta : {1e-9, 1e-6, 1e-3}) {
    const EpsilonResult e = Epsilon(event, delta);
    const DeltaResult d = Delta(event, e.epsilon);
    EXPECT_LE(d.delta, delta * (1 + 1e-6)) << delta;
    EXPECT_GE(d.delta, delta * (1 - 1e-3)) << delta;
  }
  EXPECT_EQ(Delta(GaussianEvent(0.01), 0.0).delta, 1.0);
}

TEST(Delta, NonIncreasingInEpsilon) {
  const Event event = SelfComposedEvent(50, GaussianEvent(4));
  double previous = 1.0;
  for (double eps : {0.0, 0.1, 0.5, 1.0, 2.0, 8.0}) {
    const double delta = Delta(event, eps).delta;
    EXPECT_LE(delta, previous);
    previous = delta;
  }
}

TEST(Errors, BadDeltaEpsilonOrdersNameTheField) {
  const Event event = GaussianEvent(1);
  for (double bad : {0.0, 1.0, -1e-5, 2.0, std::nan("")}) {
    EXPECT_THAT([&] { (void)Epsilon(event, bad); },
                ThrowsMessage<InvalidArgument>(HasSubstr("delta")));
  }
  EXPECT_THAT([&] { (void)Delta(event, -1); },
              ThrowsMessage<InvalidArgument>(HasSubstr("epsilon")));
  EXPECT_THAT([&] { (void)Delta(event, std::nan("")); },
              ThrowsMessage<InvalidArgument>(HasSubstr("epsilon")));
  EXPECT_THAT(
      [&] {
        (void)Epsilon(event, 1e-5, {.orders = {2.0, 1.0}});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("orders[1]")));
}

}  // namespace
}  // namespace rdpkit::accountant
