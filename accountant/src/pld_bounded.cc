// Connect-the-dots discretisation of the pairs with bounded privacy loss: Laplace, randomized
// response (the dominating pair of every ε-DP mechanism) and the ε-bounded-range pair (exponential
// mechanism), each optionally Poisson-subsampled (docs/math/pld.md §3b).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "pld_internal.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kU = kUnitRoundoff;
// Relative margin on every mass for the placement of the computed cell boundaries (pld.md §3).
constexpr double kMassMargin = 1e-12;
// A support of at most this many grid steps is discretised on every grid point.
constexpr std::int64_t kMaxUniformCells = std::int64_t{1} << 20;
// Beyond this loss bound E the pair is left to RDP (e^E would overflow; ε is huge anyway).
constexpr double kMaxLossBound = 700;

// The base pair in base-loss coordinates ℓ = log dP/dQ ∈ [−E, E] (pld.md eq. 3.4):
// μ_Q = A₋·δ_{−E} + κ·e^{−(ℓ+E)/2}·dℓ on (−E, E) + A₊·δ_{E}, dμ_P = e^ℓ·dμ_Q. Every field is
// an upper bound of the exact value (relative rounding ≤ 8u, charged by kPairMargin).
struct BoundedPair {
  double e;          // E, the loss bound
  double kappa;      // κ, the density's scale (0: atoms only)
  double atom_low;   // A₋, Q-mass at ℓ = −E
  double atom_high;  // A₊, Q-mass at ℓ = E
};
constexpr double kPairMargin = 1 + 8 * kU;

BoundedPair PairOf(PldMechanism mechanism, double e) {
  switch (mechanism) {
    case PldMechanism::kLaplace:
      // Lap(1, b) against Lap(0, b), E = 1/b: Q-mass ½ at x ≤ 0 (loss −E), ½e^{−E} at x ≥ 1
      // (loss E), density ¼e^{−(ℓ+E)/2} between (x = (ℓ/E + 1)/2; pld.md §3b).
      return {e, 0.25, 0.5, 0.5 * std::exp(-e) * kPairMargin};
    case PldMechanism::kRandomizedResponse:
      // Randomized response, the dominating pair of ε-DP (Kairouz, Oh & Viswanath 2015):
      // Q-masses e^ε/(1+e^ε) at loss −ε and 1/(1+e^ε) at loss ε.
      return {e, 0, kPairMargin / (1 + std::exp(-e)), kPairMargin / (1 + std::exp(e))};
    case PldMechanism::kBoundedRange:
      // The pair whose privacy profile is that of every ε-bounded-range mechanism,
      // δ(ε') = (1 − e^{(ε'−ε)/2})²/(1 − e^{−ε}) (Dong, Durfee & Rogers 2020): P-density
      // e^{(ℓ−ε)/2}/(2(1 − e^{−ε})) on [−ε, ε] (pld.md §3b).
      return {e, kPairMargin / (-2 * std::expm1(-e)), 0, 0};
    case PldMechanism::kGaussian:
      break;
  }
  RDPKIT_CHECK(false);
  return {};
}

struct Value {
  double val;  // computed value
  double err;  // bound on |val − exact|
};

// Integrals of the continuous part over J = [j1, j2] ⊆ [−E, E], w = j2 − j1 (pld.md eq. 3.5):
//   μ(J)                   = 2κ·e^{−(j1+E)/2}·(1 − e^{−w/2}),
//   ∫_J (e^ℓ − e^{j1}) dμ = 8κ·e^{(j1−E)/2}·sinh²(w/4),
//   ∫_J (e^{j2} − e^ℓ) dμ = 8κ·e^{(j2−E)/2}·sinh²(w/4),
// products of positive factors, so the relative error is ≤ (32 + 2E)u (the exponent's rounding,
// ≤ u·E, amplified by exp).
struct CellIntegrals {
  double mass;
  double up;    // ∫_J (e^ℓ − e^{j1}) dμ
  double down;  // ∫_J (e^{j2} − e^ℓ) dμ
  double rel_err;
};

CellIntegrals Integrals(const BoundedPair& pair, double j1, double j2) {
  const double w = j2 - j1;
  const double sh = std::sinh(w / 4);
  const double sh2 = 8 * pair.kappa * sh * sh;
  return {2 * pair.kappa * std::exp(-(j1 + pair.e) / 2) * -std::expm1(-w / 2),
          sh2 * std::exp((j1 - pair.e) / 2), sh2 * std::exp((j2 - pair.e) / 2),
          (32 + 2 * pair.e) * kU};
}

// Splits mass p at loss l ∈ [l_low, l_high] (an enclosure of the computed loss) onto the grid
// points l_a < l_b that bracket it (pld.md §3): b = p(1 − e^{l_a − l})/(1 − e^{−Δ}) is increasing
// in l and a = p(e^{l_b − l} − 1)/(e^Δ − 1) decreasing, so b at l_high and a at l_low are upper
// bounds of both.
void SplitAtom(double p, double l_low, double l_high, const std::vector<std::int64_t>& grid,
               double h, std::vector<double>& mass) {
  // The cell [l_a, l_b) holding l_high.
  const auto it = std::upper_bound(grid.begin(), grid.end(), l_high, [h](double l, std::int64_t k) {
    return l < static_cast<double>(k) * h;
  });
  RDPKIT_CHECK(it != grid.begin() && it != grid.end());
  const std::size_t ib = static_cast<std::size_t>(it - grid.begin());
  const double la = static_cast<double>(grid[ib - 1]) * h;
  const double lb = static_cast<double>(grid[ib]) * h;
  const double delta = lb - la;
  const double b = p * -std::expm1(la - l_high) / -std::expm1(-delta);
  const double a = p * std::expm1(lb - std::max(l_low, la)) / std::expm1(delta);
  // Each ≤ 6 roundings: 16u.
  mass[ib - 1] += std::max(0.0, a) * (1 + 16 * kU);
  mass[ib] += std::max(0.0, b) * (1 + 16 * kU);
}

// The grid of a bounded pair (pld.md §3b): every grid point of the support [kmin, kmax] (its loss
// is bounded, and the cells near its ends decide ε at small δ), unless that is more than
// kMaxUniformCells: then cells widen away from 0; atoms only (randomized response): the grid
// points that bracket each atom's loss enclosure [l − slack, l + slack] (and the one above, in
// case l + slack is a grid point).
std::vector<std::int64_t> BoundedGrid(const BoundedPair& pair, std::int64_t kmin, std::int64_t kmax,
                                      double h, double low_atom, double low_slack, double high_atom,
                                      double high_slack) {
  std::vector<std::int64_t> grid;
  if (pair.kappa == 0) {
    for (const auto& [l, slack] :
         {std::pair{low_atom, low_slack}, std::pair{high_atom, high_slack}}) {
      const auto below = static_cast<std::int64_t>(std::floor((l - slack) / h));
      const auto above = static_cast<std::int64_t>(std::ceil((l + slack) / h));
      grid.insert(grid.end(), {below, above, above + 1});
    }
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  } else if (kmax - kmin <= kMaxUniformCells) {
    for (std::int64_t k = kmin; k <= kmax; ++k) grid.push_back(k);
  } else {
    grid = GridIndices(kmin, kmax, h);
  }
  return grid;
}

}  // namespace

SparsePld DiscretizeBoundedFactor(const PldFactor& factor, PldDirection direction, double h) {
  const double q = factor.q;
  const bool remove = direction == PldDirection::kRemove;
  if (!(factor.parameter <= kMaxLossBound)) {
    throw NumericalError("pld: a loss bound of " + FormatNumber(factor.parameter) + " is beyond " +
                         FormatNumber(kMaxLossBound) + " (left to RDP)");
  }
  const BoundedPair pair = PairOf(factor.mechanism, factor.parameter);
  const double e = pair.e;
  // The subsampled loss of base loss ℓ: g(ℓ) = log(1 − q + q·e^ℓ) (remove; −g for add) and
  // V(l) = e^{g⁻¹(l)} = 1 + expm1(l)/q, the base likelihood ratio at loss l (pld.md eq. 3.6).
  const auto g = [q](double l) { return SubsampledLoss(l, q); };
  const auto ratio_at = [q](double l) { return q == 1 ? std::exp(l) : 1 + std::expm1(l) / q; };
  // Losses of the atoms at −E and E, with enclosures (g: ≤ 4 roundings, relative 8u of |l|).
  const double g_low = g(-e);
  const double g_high = g(e);
  const double slack_low = 8 * kU * std::abs(g_low) + 1e-300;
  const double slack_high = 8 * kU * std::abs(g_high) + 1e-300;
  double l_lo = remove ? g_low - slack_low : -g_high - slack_high;
  double l_hi = remove ? g_high + slack_high : -g_low + slack_low;
  if (std::fabs(l_lo / h) > 1e15 || std::fabs(l_hi / h) > 1e15) {
    throw NumericalError("pld: the loss range of a bounded pair cannot be put on a grid");
  }
  const std::int64_t kmin = static_cast<std::int64_t>(std::floor(l_lo / h)) - 1;
  const std::int64_t kmax = static_cast<std::int64_t>(std::ceil(l_hi / h)) + 1;
  const std::vector<std::int64_t> grid =
      BoundedGrid(pair, kmin, kmax, h, remove ? g_low : -g_high, remove ? slack_low : slack_high,
                  remove ? g_high : -g_low, remove ? slack_high : slack_low);
  std::vector<double> mass(grid.size(), 0.0);

  if (pair.kappa > 0) {
    // Base-loss boundaries of the grid points, clipped to [−E, E]: remove l ↦ g⁻¹(l); add
    // l ↦ g⁻¹(−l) (decreasing). V is the unclipped e^{g⁻¹}, possibly ≤ 0 below the support.
    std::vector<double> ratio(grid.size());
    std::vector<double> base(grid.size());
    for (std::size_t i = 0; i < grid.size(); ++i) {
      const double l = static_cast<double>(grid[i]) * h * (remove ? 1 : -1);
      ratio[i] = ratio_at(l);
      base[i] = ratio[i] > 0 ? std::clamp(std::log(ratio[i]), -e, e) : -e;
    }
    for (std::size_t i = 0; i + 1 < grid.size(); ++i) {
      const double la = static_cast<double>(grid[i]) * h;
      const double lb = static_cast<double>(grid[i + 1]) * h;
      const double delta = lb - la;
      // The cell's base-loss interval [j1, j2] and the virtual ends' ratios v1 ≤ e^{j1},
      // v2 ≥ e^{j2} (equal but for rounding unless the cell is clipped by the support).
      const std::size_t i1 = remove ? i : i + 1;
      const std::size_t i2 = remove ? i + 1 : i;
      const double j1 = base[i1];
      const double j2 = base[i2];
      if (!(j2 > j1)) continue;
      const CellIntegrals c = Integrals(pair, j1, j2);
      // ∫_J (e^ℓ − v1) dμ and ∫_J (v2 − e^ℓ) dμ (pld.md eq. 3.7): the clipped parts add
      // (e^{j1} − v1)·μ(J) ≥ 0 and (v2 − e^{j2})·μ(J) ≥ 0, each with its rounding.
      double up = c.up * (1 + c.rel_err);
      double down = c.down * (1 + c.rel_err);
      const double m_up = c.mass * (1 + c.rel_err);
      if (j1 == -e && ratio[i1] < std::exp(-e)) {
        up += ((std::exp(-e) - ratio[i1]) + 8 * kU * (std::exp(-e) + std::abs(ratio[i1]))) * m_up;
      }
      if (j2 == e && ratio[i2] > std::exp(e)) {
        down += ((ratio[i2] - std::exp(e)) + 8 * kU * (std::exp(e) + ratio[i2])) * m_up;
      }
      // Connect-the-dots weights (pld.md eq. 3.2 in base coordinates): remove b(1 − e^{−Δ}) =
      // q·up, a(e^Δ − 1) = q·down; add b(1 − e^{−Δ}) = e^{l_a}·q·down, a(e^Δ − 1) = e^{l_b}·q·up.
      double b_mass;
      double a_mass;
      if (remove) {
        b_mass = q * up / -std::expm1(-delta);
        a_mass = q * down / std::expm1(delta);
      } else {
        b_mass = std::exp(la) * q * down / -std::expm1(-delta);
        a_mass = std::exp(lb) * q * up / std::expm1(delta);
      }
      // The products, divisions and exp: ≤ 8 roundings (16u); the boundary placement: kMassMargin.
      mass[i] += a_mass * (1 + 16 * kU + kMassMargin);
      mass[i + 1] += b_mass * (1 + 16 * kU + kMassMargin);
    }
  }
  // The atoms at ℓ = ∓E: remove, loss g(ℓ) with P-mass (1 + q·expm1(ℓ))·A; add, loss −g(ℓ) with
  // Q-mass A.
  for (const auto& [ell, atom, g_value, slack] :
       {std::tuple{-e, pair.atom_low, g_low, slack_low},
        std::tuple{e, pair.atom_high, g_high, slack_high}}) {
    if (atom <= 0) continue;
    const double p = remove ? (1 + q * std::expm1(ell)) * atom * (1 + 8 * kU) : atom;
    const double l = remove ? g_value : -g_value;
    SplitAtom(p, l - slack, l + slack, grid, h, mass);
  }

  SparsePld out;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    if (!(mass[i] >= 0) || !std::isfinite(mass[i])) {
      throw NumericalError("pld: no finite mass at grid point " +
                           FormatNumber(static_cast<double>(grid[i]) * h));
    }
    if (mass[i] > 0) {
      out.index.push_back(grid[i]);
      out.mass.push_back(mass[i]);
    }
  }
  return out;
}

LossMoments BoundedMoments(const PldFactor& factor, PldDirection direction) {
  // The continuous part by the midpoint rule in 4096 steps of ℓ, plus the atoms; only used to
  // plan the grid, never in a bound.
  const BoundedPair pair = PairOf(factor.mechanism, std::min(factor.parameter, kMaxLossBound));
  const double q = factor.q;
  const bool remove = direction == PldDirection::kRemove;
  double m0 = 0;
  double m1 = 0;
  double m2 = 0;
  double mabs = 0;
  const auto add = [&](double ell, double q_mass) {
    const double g = SubsampledLoss(ell, q);
    const double p = remove ? q_mass * (1 + q * std::expm1(ell)) : q_mass;
    const double l = remove ? g : -g;
    m0 += p;
    m1 += p * l;
    m2 += p * l * l;
    mabs += p * std::abs(l);
  };
  constexpr int kSteps = 4096;
  const double step = 2 * pair.e / kSteps;
  for (int i = 0; i < kSteps && pair.kappa > 0; ++i) {
    const double ell = -pair.e + step * (i + 0.5);
    add(ell, step * pair.kappa * std::exp(-(ell + pair.e) / 2));
  }
  add(-pair.e, pair.atom_low);
  add(pair.e, pair.atom_high);
  const double mean = m1 / m0;
  const double g_range = SubsampledLoss(pair.e, q) - SubsampledLoss(-pair.e, q);
  return {mean, std::max(0.0, m2 / m0 - mean * mean), mabs / m0, g_range};
}

}  // namespace rdpkit::accountant::internal
