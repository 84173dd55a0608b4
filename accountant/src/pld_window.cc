// The window of a composition (docs/math/pld.md §5): the grid indices outside which the composed
// mass is at most about β on each side, by Chernoff bounds over λ, and the bound on the mass above
// it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "pld_internal.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

constexpr double kSummaryBlocks = 4096;
// Up to this many fine blocks in all, every λ is tried on them.
constexpr std::size_t kFullScanBlocks = std::size_t{1} << 16;

// A coarse summary of one discrete PLD for choosing the window: consecutive masses merged into
// blocks at most max_width wide in loss, each with its total mass and loss range, so that
// Σ_blocks mass·e^{λ·(λ > 0 ? high : low)} ≥ M(λ). Choosing the window is a question of
// tightness only; the mass above it is bounded on the exact masses (MassAbove).
struct Summary {
  std::vector<double> mass;
  std::vector<double> low;
  std::vector<double> high;
};

Summary Summarize(const SparsePld& pld, double h, double max_width) {
  Summary out;
  const std::size_t n = pld.index.size();
  for (std::size_t start = 0; start < n;) {
    const double low = static_cast<double>(pld.index[start]) * h;
    double mass = 0;
    std::size_t end = start;
    while (end < n &&
           (end == start || static_cast<double>(pld.index[end]) * h - low <= max_width)) {
      mass += pld.mass[end++];
    }
    out.mass.push_back(mass);
    out.low.push_back(low);
    out.high.push_back(static_cast<double>(pld.index[end - 1]) * h);
    start = end;
  }
  return out;
}

double LogSummaryMoment(const Summary& summary, double lambda) {
  const std::vector<double>& at = lambda > 0 ? summary.high : summary.low;
  double top = -kInf;
  for (const double l : at) top = std::max(top, lambda * l);
  double sum = 0;
  for (std::size_t i = 0; i < at.size(); ++i) {
    const double exponent = lambda * at[i] - top;
    if (exponent > -745) sum += summary.mass[i] * std::exp(exponent);  // else it underflows to 0
  }
  return top + std::log(sum);
}

}  // namespace

const std::vector<double>& Lambdas() {
  static const std::vector<double> lambdas = [] {
    std::vector<double> v;
    for (int i = -32; i <= 80; ++i) v.push_back(std::exp2(i / 4.0));
    return v;
  }();
  return lambdas;
}

Window ChernoffWindow(const std::vector<SparsePld>& plds, const std::vector<std::uint64_t>& counts,
                      double h, double tail, bool every_lambda) {
  // Blocks narrow enough that over T rounds they move the bound by about e^{T·λ·width} with
  // T·λ·width ≤ 1e-3 at the λ near the optimum (≈ 10/σ of the composition).
  double variance = 0;
  for (std::size_t j = 0; j < plds.size(); ++j) {
    const SparsePld& pld = plds[j];
    double m1 = 0;
    double m2 = 0;
    for (std::size_t i = 0; i < pld.index.size(); ++i) {
      const double l = static_cast<double>(pld.index[i]) * h;
      m1 += pld.mass[i] * l;
      m2 += pld.mass[i] * l * l;
    }
    variance += static_cast<double>(counts[j]) * std::max(0.0, m2 - m1 * m1);
  }
  // The λ grid on the fine summary; or, beyond kFullScanBlocks blocks (bounded work: a factor
  // with a million cells is not summed for every λ), a coarse summary (blocks at least
  // 1/kSummaryBlocks of a factor's range) finds the λ near the best, and the fine one decides
  // among the λ within 2^{±1} of those.
  const auto max_width = [&](std::size_t j) {
    return 1e-4 * std::sqrt(variance) / static_cast<double>(counts[j]);
  };
  std::vector<Summary> fine;
  for (std::size_t j = 0; j < plds.size(); ++j) fine.push_back(Summarize(plds[j], h, max_width(j)));
  const auto log_moment = [&](const std::vector<Summary>& summaries, double lambda) {
    double sum = 0;
    for (std::size_t j = 0; j < summaries.size(); ++j) {
      sum += static_cast<double>(counts[j]) * LogSummaryMoment(summaries[j], lambda);
    }
    return sum;
  };
  const double log_tail = std::log(tail);
  // The window from λ in `lambdas` (ascending) on `summaries`, and the λ of its top and of its
  // bottom: as if every λ were tried, keeping the first that gives the lowest top (highest
  // bottom). The top's (C(λ) − log β)/λ, C = Σ T log M convex, decreases then increases in λ (its
  // derivative has the sign of λC' − C + log β, whose derivative λC'' ≥ 0), and so does the
  // bottom's (log β − C(−λ))/λ negated: a descent finds their minima in a few λ (pld.md §5).
  const double guess = std::sqrt(-2 * log_tail / variance);
  struct Found {
    Window window;
    double lambda_bottom;
  };
  const auto search = [&](const std::vector<Summary>& summaries,
                          const std::vector<double>& lambdas) {
    const std::size_t size = lambdas.size();
    // A side's cost (C(±λ) − log β)/(λh), +inf where its moment is not finite, once per λ: the
    // top is ⌈cost⌉, the bottom −⌈cost⌉ (pld.md eq. 5.1).
    const auto first_minimum = [&](double sign) {
      std::vector<double> cost(size, kNan);
      const auto at = [&](std::size_t i) {
        if (std::isnan(cost[i])) {
          const double lambda = lambdas[i];
          const double moment = log_moment(summaries, sign * lambda);
          cost[i] = std::isfinite(moment) ? (moment - log_tail) / (lambda * h) : kInf;
        }
        return cost[i];
      };
      if (every_lambda) {
        std::size_t first = 0;
        for (std::size_t i = 1; i < size; ++i) {
          if (std::ceil(at(i)) < std::ceil(at(first))) first = i;
        }
        return std::pair<double, double>{std::ceil(at(first)), lambdas[first]};
      }
      // From the λ nearest the Gaussian optimum √(2·log(1/β))/σ_S, down to the first finite cost,
      // then downhill one λ at a time: a local minimum is the minimum.
      std::size_t best = static_cast<std::size_t>(
          std::lower_bound(lambdas.begin(), lambdas.end(), guess) - lambdas.begin());
      best = std::min(best, size - 1);
      while (best > 0 && at(best) == kInf) --best;
      while (best > 0 && at(best - 1) < at(best)) --best;
      while (best + 1 < size && at(best + 1) < at(best)) ++best;
      // The first λ whose top rounds to the lowest: lower λ round the same only next to the
      // minimum (the cost is monotone there).
      const double lowest = std::ceil(at(best));
      while (best > 0 && std::ceil(at(best - 1)) == lowest) --best;
      return std::pair<double, double>{lowest, lambdas[best]};
    };
    Found out{{-kInf, kInf, 1}, 1};
    if (size == 0) return out;
    const auto [top, lambda_top] = first_minimum(1);
    if (top < kInf) out.window = {out.window.bottom, top, lambda_top};
    const auto [bottom, lambda_bottom] = first_minimum(-1);
    if (bottom < kInf) {
      out.window.bottom = -bottom;
      out.lambda_bottom = lambda_bottom;
    }
    return out;
  };
  std::size_t blocks = 0;
  for (const Summary& summary : fine) blocks += summary.mass.size();
  if (blocks <= kFullScanBlocks) return search(fine, Lambdas()).window;
  std::vector<Summary> coarse;
  for (std::size_t j = 0; j < plds.size(); ++j) {
    const SparsePld& pld = plds[j];
    const double range =
        pld.index.empty() ? 0 : static_cast<double>(pld.index.back() - pld.index.front()) * h;
    coarse.push_back(Summarize(pld, h, std::max(max_width(j), range / kSummaryBlocks)));
  }
  const Found rough = search(coarse, Lambdas());
  std::vector<double> near;
  for (const double centre : {rough.window.lambda_top, rough.lambda_bottom}) {
    for (int i = -4; i <= 4; ++i) near.push_back(centre * std::exp2(i / 4.0));
  }
  std::sort(near.begin(), near.end());
  near.erase(std::unique(near.begin(), near.end()), near.end());
  return search(fine, near).window;
}

// Upper bound of the composed finite mass at indices ≥ end (pld.md eq. 5.1) at λ near the
// window's, on the exact masses, rounded up.
double MassAbove(const std::vector<SparsePld>& plds, const std::vector<std::uint64_t>& counts,
                 double h, double end, double lambda_top) {
  double best = kInf;
  for (const double lambda :
       {lambda_top * 0.8408964152537145, lambda_top, lambda_top * 1.189207115002721}) {
    double log_m = 0;
    for (std::size_t j = 0; j < plds.size(); ++j) {
      log_m += static_cast<double>(counts[j]) * LogMoment(plds[j], h, lambda);
    }
    const double exponent = log_m - lambda * end * h;
    // The double evaluation of Σ T log M: a relative 1e-10 of its terms covers its rounding.
    best = std::min(best, exponent + 1e-10 * (std::abs(log_m) + lambda * std::abs(end) * h));
  }
  return std::min(1.0, std::exp(best) * (1 + 1e-10));
}

}  // namespace rdpkit::accountant::internal
