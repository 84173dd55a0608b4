// Speed of accounting queries (STYLE.md §8). Run:
//   build/bench/accountant_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/filter.h"
#include "rdpkit/accountant/individual.h"
#include "rdpkit/accountant/pld.h"

namespace {

using namespace rdpkit::accountant;  // NOLINT(build/namespaces): benchmark file

// Issue 2 target: 10⁶ Gaussian and 10³ Laplace events, default orders.
Event GaussianLaplaceComposition() {
  return ComposedEvent({SelfComposedEvent(1000000, GaussianEvent(1500.0)),
                        SelfComposedEvent(1000, LaplaceEvent(200.0))});
}

void BM_Epsilon_GaussianLaplaceFast(benchmark::State& state) {
  const Event event = GaussianLaplaceComposition();
  for (auto _ : state) {
    benchmark::DoNotOptimize(Epsilon(event, /*delta=*/1e-6, {.certified = false}));
  }
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Epsilon_GaussianLaplaceFast)->Unit(benchmark::kMicrosecond);

void BM_Epsilon_GaussianLaplaceCertified(benchmark::State& state) {
  const Event event = GaussianLaplaceComposition();
  for (auto _ : state) benchmark::DoNotOptimize(Epsilon(event, /*delta=*/1e-6));
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Epsilon_GaussianLaplaceCertified)->Unit(benchmark::kMicrosecond);

void BM_Rdp_ExponentialFast(benchmark::State& state) {
  const Event event = ExponentialEvent(0.1);
  double order = 1.5;
  for (auto _ : state) {
    benchmark::DoNotOptimize(RdpFast(event, order));
    order = order < 1e4 ? order * 1.01 : 1.5;
  }
  state.counters["calls"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Rdp_ExponentialFast);

void BM_Rdp_ExponentialCertified(benchmark::State& state) {
  const Event event = ExponentialEvent(0.1);
  for (auto _ : state) benchmark::DoNotOptimize(RdpCertified(event, /*order=*/32.0));
  state.counters["calls"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Rdp_ExponentialCertified)->Unit(benchmark::kMicrosecond);

void BM_Calibrate_GaussianComposition(benchmark::State& state) {
  const auto event = nlohmann::json::parse(
      R"({"self_composed":{"count":1000,"event":{"gaussian":{"noise_multiplier":"?"}}}})");
  for (auto _ : state) {
    benchmark::DoNotOptimize(CalibrateJson(event, /*epsilon=*/1.0, /*delta=*/1e-6));
  }
}
BENCHMARK(BM_Calibrate_GaussianComposition)->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------------------------------------
// Issue 3 (Poisson subsampling, individual RDP, Rényi filter) — owned by the subsampling helper.

// 10⁴ rounds of a Poisson-subsampled Gaussian (q = 0.01, σ = 1), default orders.
Event SampledGaussianRun() { return SampledGaussian(/*sampling_probability=*/0.01, 1.0, 10000); }

void BM_Subsampled_EpsilonFast(benchmark::State& state) {
  const Event event = SampledGaussianRun();
  for (auto _ : state) {
    benchmark::DoNotOptimize(Epsilon(event, /*delta=*/1e-5, {.certified = false}));
  }
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Subsampled_EpsilonFast)->Unit(benchmark::kMicrosecond);

void BM_Subsampled_EpsilonCertified(benchmark::State& state) {
  const Event event = SampledGaussianRun();
  for (auto _ : state) benchmark::DoNotOptimize(Epsilon(event, /*delta=*/1e-5));
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Subsampled_EpsilonCertified)->Unit(benchmark::kMillisecond);

// α = 10⁵, q = 10⁻⁶ (σ = 1), certified: the order range where other accountants overflow.
void BM_Subsampled_RdpCertifiedLargeOrder(benchmark::State& state) {
  const Event event = PoissonSampledEvent(1e-6, GaussianEvent(1.0));
  for (auto _ : state) benchmark::DoNotOptimize(RdpCertified(event, /*order=*/1e5));
  state.counters["calls"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Subsampled_RdpCertifiedLargeOrder)->Unit(benchmark::kMillisecond);

// One fractional order of the sampled Gaussian (exact series), fast and certified.
void BM_Subsampled_RdpFractional(benchmark::State& state) {
  const Event event = PoissonSampledEvent(0.01, GaussianEvent(1.0));
  const bool certified = state.range(0) != 0;
  for (auto _ : state) {
    if (certified) {
      benchmark::DoNotOptimize(RdpCertified(event, /*order=*/4.135));
    } else {
      benchmark::DoNotOptimize(RdpFast(event, /*order=*/4.135));
    }
  }
}
BENCHMARK(BM_Subsampled_RdpFractional)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("certified")
    ->Unit(benchmark::kMicrosecond);

// Filter charging through the per-record table (S-BDT Alg. 1 inner loop): 10⁶ records, D = 2.
void BM_Filter_ChargeRoundTable(benchmark::State& state) {
  const std::size_t records = static_cast<std::size_t>(state.range(0));
  const IndividualRdpTable table(/*noise_multiplier=*/1.0, {0.5, 0.5},
                                 /*sampling_probability=*/0.01, /*order=*/8, /*grid_size=*/512);
  std::vector<double> ratios(2 * records);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (double& r : ratios) r = unit(rng);
  IndividualRenyiFilter filter(8, /*budget=*/1e300, records);  // nobody runs out: steady state
  std::vector<std::uint8_t> admitted;
  for (auto _ : state) benchmark::DoNotOptimize(filter.ChargeRound(table, ratios, &admitted));
  state.counters["record_charges"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(records),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Filter_ChargeRoundTable)
    ->Arg(100000)
    ->Arg(1000000)
    ->ArgName("records")
    ->Unit(benchmark::kMillisecond);

// End of the issue-3 section.

// Issue 13 targets (PLD): ε of T = 1e4 rounds (q = 0.01, σ = 1), of T = 1e6 rounds (q = 1e-4,
// σ = 0.6), both at δ = 1e-5 and the default grid, by the PLD alone and by the default accountant
// (best: exact Gaussian, PLD, RDP), and σ calibrated for 1e4 rounds at ε = 1. The 200 MB bound of
// the T = 1e6 query is a whole-process figure (/usr/bin/time -v rdpkit epsilon …), not measured
// here.
Event PldTargetT1e4() { return SampledGaussian(/*sampling_probability=*/0.01, 1.0, 10000); }
Event PldTargetT1e6() { return SampledGaussian(/*sampling_probability=*/1e-4, 0.6, 1000000); }

void BM_Pld_EpsilonT1e4(benchmark::State& state) {
  const Event event = PldTargetT1e4();
  for (auto _ : state) benchmark::DoNotOptimize(PldEpsilon(event, /*delta=*/1e-5));
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Pld_EpsilonT1e4)->Unit(benchmark::kMillisecond);

void BM_Pld_EpsilonT1e6(benchmark::State& state) {
  const Event event = PldTargetT1e6();
  for (auto _ : state) benchmark::DoNotOptimize(PldEpsilon(event, /*delta=*/1e-5));
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Pld_EpsilonT1e6)->Unit(benchmark::kMillisecond);

void BM_Pld_BestEpsilonT1e4(benchmark::State& state) {
  const Event event = PldTargetT1e4();
  for (auto _ : state) benchmark::DoNotOptimize(Epsilon(event, /*delta=*/1e-5));
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Pld_BestEpsilonT1e4)->Unit(benchmark::kMillisecond);

void BM_Pld_BestEpsilonT1e6(benchmark::State& state) {
  const Event event = PldTargetT1e6();
  for (auto _ : state) benchmark::DoNotOptimize(Epsilon(event, /*delta=*/1e-5));
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Pld_BestEpsilonT1e6)->Unit(benchmark::kMillisecond);

void BM_Pld_CalibrateSigmaT1e4(benchmark::State& state) {
  CalibrationProblem problem;
  problem.make_event = [](double sigma) { return SampledGaussian(0.01, sigma, 10000); };
  problem.parameter = "noise_multiplier";
  problem.lower = 0;
  problem.upper = 1e6;
  for (auto _ : state)
    benchmark::DoNotOptimize(Calibrate(problem, /*epsilon=*/1.0, /*delta=*/1e-5));
  state.counters["calibrations"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Pld_CalibrateSigmaT1e4)->Unit(benchmark::kMillisecond);

// Issue 14 target (point 4): σ of a subsampled trainer run in under 50 ms. The trainer's event
// (trees/src/accounting.cc, auto rule of S-BDT's setting): the initial score as 2 Laplace
// releases spending 10 % of ε (b = 20/ε), then 300 (S-BDT's T) or 2000 (the auto rule's T for
// binary and regression) rounds of a Poisson-sampled (q = 0.1) leaf-balanced Gaussian (weights
// 0.2, 0.8); δ = 1e-3, 1e-4 (spambase, n = 4601) or 1e-5; the default accountant (best).
Event TrainerRunEvent(double epsilon, double sigma, std::uint64_t rounds = 300) {
  const Event round = PoissonSampledEvent(/*sampling_probability=*/0.1,
                                          LeafBalancedGaussianEvent(sigma, {0.2, 0.8}));
  return ComposedEvent(
      {SelfComposedEvent(2, LaplaceEvent(20.0 / epsilon)), SelfComposedEvent(rounds, round)});
}

// One probe of that calibration: the PLD ε of the run at ε = 1's σ on a grid of 2^log2_points.
void BM_Pld_TrainerRunEpsilon(benchmark::State& state) {
  const Event event = TrainerRunEvent(/*epsilon=*/1.0, /*sigma=*/8.156);
  const int log2_points = static_cast<int>(state.range(0));
  const PldOptions options{log2_points, std::max(log2_points, 20)};
  for (auto _ : state) benchmark::DoNotOptimize(PldEpsilon(event, /*delta=*/1e-4, options));
  state.counters["queries"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Pld_TrainerRunEpsilon)
    ->Arg(14)
    ->Arg(16)
    ->ArgName("log2_points")
    ->Unit(benchmark::kMillisecond);

// Calibrates the trainer's noise multiplier σ of the event `make_event(σ)` to (ε, δ), as
// trees/src/accounting.cc does.
void CalibrateNoiseMultiplier(benchmark::State& state, std::function<Event(double)> make_event,
                              double epsilon, double delta) {
  CalibrationProblem problem;
  problem.make_event = std::move(make_event);
  problem.parameter = "noise_multiplier";
  problem.lower = 0;
  problem.upper = 1e12;  // as the trainer
  for (auto _ : state) benchmark::DoNotOptimize(Calibrate(problem, epsilon, delta));
  state.counters["calibrations"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_Calibrate_SubsampledTrainerRun(benchmark::State& state) {
  const double epsilon = static_cast<double>(state.range(0)) / 10;
  const double delta = std::pow(10.0, -static_cast<double>(state.range(1)));
  const auto rounds = static_cast<std::uint64_t>(state.range(2));
  CalibrateNoiseMultiplier(
      state, [epsilon, rounds](double sigma) { return TrainerRunEvent(epsilon, sigma, rounds); },
      epsilon, delta);
}
BENCHMARK(BM_Calibrate_SubsampledTrainerRun)
    ->ArgsProduct({{1, 5, 10}, {3, 4, 5}, {300, 2000}})
    ->ArgNames({"epsilon_x10", "delta_exp", "rounds"})
    ->Unit(benchmark::kMillisecond);

// σ of a trainer run with exponential-mechanism splits (trees/src/query_plan.cc): T trees of depth
// d release T·d exponential selections of ε_s = 2·√(κ_w/κ_s)/σ (κ_w = T leaf queries, κ_s = T·d)
// and T Gaussian leaf queries of σ. Bounded-range parts: PLD probes, compared with RDP at the end.
// Cases: T = 300 of depth 4 at ε = 1, δ = 1e-5; a few trees at a large ε (the fuzzer's slow unit:
// 3 trees of depth 2 at ε = 2513, δ = 1e-9; 2 of depth 1 at ε = 100, δ = 1e-3).
Event ExponentialSplitRunEvent(double sigma, std::uint64_t trees, std::uint64_t depth) {
  const double epsilon_split = 2 * std::sqrt(1.0 / static_cast<double>(depth)) / sigma;
  return ComposedEvent({SelfComposedEvent(trees * depth, ExponentialEvent(epsilon_split)),
                        SelfComposedEvent(trees, GaussianEvent(sigma))});
}

void BM_Calibrate_ExponentialSplitRun(benchmark::State& state) {
  const auto epsilon = static_cast<double>(state.range(0));
  const double delta = std::pow(10.0, -static_cast<double>(state.range(1)));
  const auto trees = static_cast<std::uint64_t>(state.range(2));
  const auto depth = static_cast<std::uint64_t>(state.range(3));
  CalibrateNoiseMultiplier(
      state, [trees, depth](double sigma) { return ExponentialSplitRunEvent(sigma, trees, depth); },
      epsilon, delta);
}
BENCHMARK(BM_Calibrate_ExponentialSplitRun)
    ->Args({1, 5, 300, 4})
    ->Args({100, 3, 2, 1})
    ->Args({2513, 9, 3, 2})
    ->ArgNames({"epsilon", "delta_exp", "trees", "depth"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
