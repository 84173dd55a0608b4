// Connect-the-dots discretisation of a Poisson-subsampled Gaussian pair (docs/math/pld.md §2–3),
// and the grid every pair is discretised on.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "pld_internal.h"
#include "rdpkit/accountant/errors.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = kUnitRoundoff;
// Cells are at most |l|/kCellsPerOctave wide in loss, and at most kMaxCellLoss (pld.md §2).
constexpr std::int64_t kCellsPerOctave = 64;
constexpr double kMaxCellLoss = 0x1p-7;
// The widest loss range a factor is discretised over (pld.md §2): 4096 (its ε is then in the
// thousands; RDP answers, and the grid's work stays bounded).
constexpr double kMaxLossRange = 0x1p12;
// Relative margin added to every mass: covers the Gauss–Legendre remainder (≤ 1e-13, pld.md §3)
// and the placement of the computed cell boundaries.
constexpr double kMassMargin = 1e-12;
// A cell is integrated by 8-point Gauss–Legendre when d·(|x1| + |x2| + s + 2) ≤ this (pld.md §3).
constexpr double kNarrowCell = 0.25;

struct Value {
  double val;  // computed value
  double err;  // bound on |val − exact|
};

// Φc(x) = erfc(x/√2)/2 and a bound on its relative error: the erfc evaluation (≤ 5 ulp, glibc's
// documented maximum) plus the rounding of its argument amplified by 2t² + 2 (d log erfc/d log t
// ≤ 2t² + 2), with a 2× margin: (16 + 4t²)u, t = x/√2 (pld.md §3).
double PhiC(double x) { return 0.5 * std::erfc(x * M_SQRT1_2); }
double PhiCRelErr(double x) { return std::isfinite(x) ? (16 + 2 * x * x) * kU : 0.0; }

// N(0,1) mass of [a, b] (a < b, either may be infinite), by the tail that avoids cancellation.
Value GaussMass(double a, double b) {
  if (!(a < b)) return {0, 0};
  if (a >= 0) {  // both in the upper tail
    const double pa = PhiC(a);
    const double pb = b == kInf ? 0 : PhiC(b);
    return {pa - pb, pa * PhiCRelErr(a) + pb * PhiCRelErr(b) + kU * (pa + pb)};
  }
  if (b <= 0) {  // both in the lower tail: Φ(b) − Φ(a) = Φc(−b) − Φc(−a)
    const double pb = PhiC(-b);
    const double pa = a == -kInf ? 0 : PhiC(-a);
    return {pb - pa, pa * PhiCRelErr(a) + pb * PhiCRelErr(b) + kU * (pa + pb)};
  }
  const double lo = a == -kInf ? 0 : PhiC(-a);
  const double hi = b == kInf ? 0 : PhiC(b);
  return {1 - lo - hi, lo * PhiCRelErr(a) + hi * PhiCRelErr(b) + 3 * kU};
}

// 8-point Gauss–Legendre nodes and weights on [−1, 1] (Abramowitz & Stegun, Table 25.4).
constexpr double kNodes[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                              0.9602898564975363};
constexpr double kWeights[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                0.1012285362903763};

// q·∫_{x1}^{x2} φ(x)·|u(x) − u(c)| dx with u(x) = e^{sx − s²/2} and c ∈ {x1, x2}: the cell
// integrals of pld.md §3 (eq. 3.2). Narrow cells by quadrature of the cancellation-free form
// q·u(c)·φ(x)·|expm1(s(x − c))|; wide cells by the closed form q·|N_s(J) − u(c)·N_0(J)|.
Value CellIntegral(double x1, double x2, double c, double s, double q) {
  if (!(x1 < x2)) return {0, 0};
  const double d = x2 - x1;
  if (std::isfinite(x1) && std::isfinite(x2) &&
      d * (std::abs(x1) + std::abs(x2) + s + 2) <= kNarrowCell) {
    const double mid = x1 + d / 2;
    const double log_scale = std::log(q) + s * c - s * s / 2;
    double sum = 0;
    for (int i = 0; i < 4; ++i) {
      for (const double x : {mid - d / 2 * kNodes[i], mid + d / 2 * kNodes[i]}) {
        const double f = std::exp(log_scale - x * x / 2) * std::abs(std::expm1(s * (x - c)));
        sum += kWeights[i] * f;
      }
    }
    const double val = sum * (d / 2) / std::sqrt(2 * M_PI);
    // All terms ≥ 0: 64 ulps cover exp/expm1 (≤ 2 ulp each), the nodes and the sum.
    return {val, val * (64 * kU + 1e-13)};
  }
  const Value ns = GaussMass(x1 - s, x2 - s);
  const Value n0 = GaussMass(x1, x2);
  double uc = 0;
  if (std::isfinite(c)) uc = std::exp(s * c - s * s / 2);
  const double val = q * std::abs(ns.val - uc * n0.val);
  const double err = q * (ns.err + uc * n0.err + 8 * kU * (ns.val + uc * n0.val)) + 4 * kU * val;
  return {val, err};
}

// A cell reaching to x = −∞ at the finite end of the support (pld.md eq. 3.3):
// scale·q·N_s(J) + c0·N_0(J) with J = (−∞, x2] and c0 ≥ 0 (clamped: it is ≥ 0 exactly, and a
// value computed below 0 is within rounding of 0), all terms ≥ 0.
Value EndCell(double x2, double s, double q, double scale, double c0) {
  const Value ns = GaussMass(-kInf, x2 - s);
  const Value n0 = GaussMass(-kInf, x2);
  const double c = std::max(0.0, c0) + 8 * kU * (1 + std::abs(c0) + scale);
  const double val = scale * q * ns.val + c * n0.val;
  return {val, scale * q * ns.err + c * n0.err + 8 * kU * val};
}

// The x-boundary of grid loss l (pld.md eq. 2.2): remove, L(x) = log(1 − q + q·u(x));
// add, L(x) = −log(1 − q + q·u(x)). −∞ where no x has that loss (beyond the end of the range).
double Boundary(double l, double s, double q, PldDirection direction) {
  const double e = std::expm1(direction == PldDirection::kRemove ? l : -l);
  if (e <= -q) return -kInf;
  return (std::log1p(e / q) + s * s / 2) / s;
}

// Loss at x (for choosing the grid's range only; not part of any bound).
double LossAt(double x, double s, double q, PldDirection direction) {
  const double t = s * x - s * s / 2;
  // The base loss t (pld.md eq. 2.1) subsampled; beyond 700, where e^t nears overflow, log q + t.
  const double v = t > 700 ? std::log(q) + t : SubsampledLoss(t, q);
  return direction == PldDirection::kRemove ? v : -v;
}

// z with Φc(z) ≤ τ.
double TailPoint(double tau) {
  double z = std::sqrt(2 * std::log(1 / tau));
  while (PhiC(z) * (1 + PhiCRelErr(z)) > tau) z += 0.05;
  return z;
}

}  // namespace

std::vector<std::int64_t> GridIndices(std::int64_t kmin, std::int64_t kmax, double h) {
  const std::int64_t cap = std::max<std::int64_t>(1, static_cast<std::int64_t>(kMaxCellLoss / h));
  std::vector<std::int64_t> pos{0};
  for (std::int64_t k = 0, step = 1; k < kmax;) {
    while (2 * step <= cap && 2 * step * kCellsPerOctave <= k && k % (2 * step) == 0) step *= 2;
    k += step;
    pos.push_back(k);
  }
  std::vector<std::int64_t> neg;
  for (std::int64_t k = 0, step = 1; k > kmin;) {
    while (2 * step <= cap && 2 * step * kCellsPerOctave <= -k && (-k) % (2 * step) == 0) {
      step *= 2;
    }
    k -= step;
    neg.push_back(k);
  }
  std::vector<std::int64_t> all(neg.rbegin(), neg.rend());
  all.insert(all.end(), pos.begin(), pos.end());
  // Keep [kmin, kmax] (kmin may lie above 0, kmax below 0) with both ends present.
  std::vector<std::int64_t> out{kmin};
  for (const std::int64_t k : all) {
    if (k > kmin && k < kmax) out.push_back(k);
  }
  if (kmax > kmin) out.push_back(kmax);
  return out;
}

SparsePld DiscretizeFactor(const PldFactor& factor, PldDirection direction, double h,
                           double tail_mass) {
  const double s = factor.parameter;
  const double q = factor.q;
  const bool remove = direction == PldDirection::kRemove;
  const double z = TailPoint(tail_mass);
  // Loss range (pld.md §2): the finite end of the support where q < 1, else a tail point.
  double l_lo;
  double l_hi;
  if (remove) {
    l_lo = q < 1 ? std::log1p(-q) : LossAt(s - z, s, q, direction);
    l_hi = LossAt(s + z, s, q, direction);
  } else {
    l_lo = LossAt(z, s, q, direction);
    l_hi = q < 1 ? -std::log1p(-q) : LossAt(-z, s, q, direction);
  }
  // A shift so large that the loss range overflows (σ below about 1e-150) has no grid here:
  // NumericalError, so that best answers with RDP (+inf there).
  // Cells are at most kMaxCellLoss wide, so a loss range wider than kMaxLossRange would need more
  // than about 2^21 cells (and ε is then far beyond any useful value): the same error.
  if (!std::isfinite(l_lo) || !std::isfinite(l_hi) || l_hi - l_lo > kMaxLossRange ||
      std::fabs(l_lo / h) > 1e15 || std::fabs(l_hi / h) > 1e15) {
    throw NumericalError("pld: the loss range [" + FormatNumber(l_lo) + ", " + FormatNumber(l_hi) +
                         "] of shift " + FormatNumber(s) +
                         " cannot be put on a grid (the noise multiplier is too small for PLD)");
  }
  // One extra index beyond a finite end keeps the end inside the first/last cell.
  const std::int64_t kmin = static_cast<std::int64_t>(std::floor(l_lo / h)) - 1;
  const std::int64_t kmax = static_cast<std::int64_t>(std::ceil(l_hi / h)) + 1;
  const std::vector<std::int64_t> grid = GridIndices(kmin, kmax, h);

  std::vector<double> x(grid.size());
  for (std::size_t i = 0; i < grid.size(); ++i) {
    x[i] = Boundary(static_cast<double>(grid[i]) * h, s, q, direction);
  }
  // The finite ends of the support reach to x = −∞ (remove: the bottom; add: the top).
  if (q < 1) (remove ? x.front() : x.back()) = -kInf;

  std::vector<double> mass(grid.size(), 0.0);
  for (std::size_t i = 0; i + 1 < grid.size(); ++i) {
    const double la = static_cast<double>(grid[i]) * h;
    const double lb = static_cast<double>(grid[i + 1]) * h;
    const double delta = lb - la;
    // Weights of the split (pld.md eq. 3.1): b → upper point, a → lower point.
    double a_mass;
    double b_mass;
    if (remove) {
      const double x1 = x[i];
      const double x2 = x[i + 1];
      const Value b = x1 == -kInf ? EndCell(x2, s, q, 1, -(std::expm1(la) + q))
                                  : CellIntegral(x1, x2, x1, s, q);
      const Value a = CellIntegral(x1, x2, x2, s, q);
      b_mass = (b.val + b.err) / -std::expm1(-delta);
      a_mass = (a.val + a.err) / std::expm1(delta);
    } else {
      const double x1 = x[i + 1];
      const double x2 = x[i];
      const double elb = std::exp(lb);
      Value a =
          x1 == -kInf ? EndCell(x2, s, q, elb, elb * (1 - q) - 1) : CellIntegral(x1, x2, x1, s, q);
      if (x1 != -kInf) a = {elb * a.val, elb * a.err};
      const Value b = CellIntegral(x1, x2, x2, s, q);
      a_mass = (a.val + a.err) / std::expm1(delta);
      b_mass = std::exp(la) * (b.val + b.err) / -std::expm1(-delta);
    }
    // The divisions and exp: ≤ 6 ulps; the margin covers them.
    mass[i] += a_mass * (1 + kMassMargin);
    mass[i + 1] += b_mass * (1 + kMassMargin);
  }
  SparsePld out;
  // Tails beyond the grid (pld.md §2): the upper one to +∞, the lower one up to the first point.
  const auto mixture_upper = [&](double xb) {  // remove: P(x > xb)
    return (1 - q) * PhiC(xb) * (1 + PhiCRelErr(xb)) + q * PhiC(xb - s) * (1 + PhiCRelErr(xb - s));
  };
  if (remove) {
    out.infinity = mixture_upper(x.back()) * (1 + 4 * kU);
    if (q == 1) mass.front() += PhiC(s - x.front()) * (1 + PhiCRelErr(s - x.front()));
  } else {
    if (q == 1) out.infinity = PhiC(-x.back()) * (1 + PhiCRelErr(x.back()));
    mass.front() += PhiC(x.front()) * (1 + PhiCRelErr(x.front()));
  }
  for (std::size_t i = 0; i < grid.size(); ++i) {
    if (!(mass[i] >= 0) || !std::isfinite(mass[i])) {
      throw NumericalError("pld: no finite mass at grid point " +
                           FormatNumber(static_cast<double>(grid[i]) * h) + " (shift " +
                           FormatNumber(s) + ", q " + FormatNumber(q) + ")");
    }
    if (mass[i] > 0) {
      out.index.push_back(grid[i]);
      out.mass.push_back(mass[i]);
    }
  }
  return out;
}

LossMoments GaussianMoments(const PldFactor& factor, PldDirection direction) {
  // Trapezoid rule over x ∈ [−12, s + 12] in 4096 steps under P: remove (1−q)φ(x) + qφ(x − s),
  // add φ(x). Only used to plan the grid, never in a bound.
  const double s = factor.parameter;
  const double q = factor.q;
  const bool remove = direction == PldDirection::kRemove;
  constexpr int kSteps = 4096;
  const double lo = -12;
  const double step = (s + 24) / kSteps;
  double m0 = 0;
  double m1 = 0;
  double m2 = 0;
  double mabs = 0;
  for (int i = 0; i <= kSteps; ++i) {
    const double x = lo + step * i;
    const double weight = (i == 0 || i == kSteps) ? 0.5 : 1.0;
    const double p = remove ? (1 - q) * std::exp(-x * x / 2) + q * std::exp(-(x - s) * (x - s) / 2)
                            : std::exp(-x * x / 2);
    const double l = LossAt(x, s, q, direction);
    m0 += weight * p;
    m1 += weight * p * l;
    m2 += weight * p * l * l;
    mabs += weight * p * std::abs(l);
  }
  const double mean = m1 / m0;
  const double range = std::abs(LossAt(s + 12, s, q, direction) - LossAt(-12, s, q, direction));
  return {mean, std::max(0.0, m2 / m0 - mean * mean), mabs / m0, range};
}

double LogMoment(const SparsePld& pld, double h, double lambda) {
  double top = -kInf;
  for (std::size_t i = 0; i < pld.index.size(); ++i) {
    top = std::max(top, lambda * static_cast<double>(pld.index[i]) * h);
  }
  double sum = 0;
  for (std::size_t i = 0; i < pld.index.size(); ++i) {
    const double exponent = lambda * static_cast<double>(pld.index[i]) * h - top;
    // Below −745 the term is below the smallest double (and the sum ≥ 1): it is left out, and
    // the 1e-10 margin of MassAbove covers the (relative ≤ masses·e^{−745}) loss.
    if (exponent > -745) sum += pld.mass[i] * std::exp(exponent);
  }
  return top + std::log(sum);
}

}  // namespace rdpkit::accountant::internal
