// Poisson-subsampled RDP curves. Derivations, the truncation bounds and the argument for each
// rounding side are in docs/math/subsampling.md; section numbers below refer to it.
#include "subsampled.h"

#include <mpfi.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "curves_impl.h"
#include "rdpkit/accountant/errors.h"
#include "real.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Integer orders (§2): blocks whose bounded mass is below e^{−kLogCut} of the summed mass are
// skipped (and enclosed by their bound on the certified path); blocks of at most kLeaf terms are
// summed term by term.
constexpr double kLogCut = 50.0;
constexpr long kLeaf = 16;

// Fractional orders of a Gaussian base (§3): the series is used while it converges within
// kMaxSeriesTerms terms and α ≤ kMaxSeriesOrder; beyond, the convexity bound (§4).
constexpr long kMaxSeriesTerms = 4096;
constexpr double kMaxSeriesOrder = 256.0;
// The exponents (i²−i)c of the series must stay far inside MPFR's exponent range (2^30 bits).
constexpr double kMaxSeriesExponent = 1e8;
// Relative width of the enclosure of A_α − 1 accepted on the certified series path.
constexpr double kSeriesRelativeWidth = 1e-14;
// The fast series falls back to the certified one when its rounding-error estimate exceeds this
// (relative to A_α − 1).
constexpr double kFastRelativeError = 1e-10;

// ---------------------------------------------------------------------------------------------
// Helpers whose meaning differs between double and interval.

template <class I>
mpfr_prec_t PrecisionOf() {
  const I x(0);
  return mpfi_get_prec(x.backend().data());
}

template <class I>
I FromEndpoints(mpfr_srcptr lo, mpfr_srcptr hi) {
  I out;
  mpfi_interv_fr(out.backend().data(), lo, hi);
  return out;
}

// min(a, b); for intervals endpoint-wise (encloses min(x, y) for x ∈ a, y ∈ b).
inline double Smaller(double a, double b) { return std::min(a, b); }
template <class I>
I Smaller(const I& a, const I& b) {
  return Min(a, b);
}

// Relative diameter of an interval (rounded up), at the interval's own precision.
template <class I>
double RelativeWidth(const I& x) {
  mpfr_t d;
  mpfr_init2(d, 64);
  mpfi_diam_rel(d, x.backend().data());
  const double out = mpfr_get_d(d, MPFR_RNDU);
  mpfr_clear(d);
  return std::abs(out);
}

// [min(0, t), max(0, t)]: a remainder known to lie between 0 and t.
inline double ZeroHull(double t) { return t; }
template <class I>
I ZeroHull(const I& t) {
  return Hull(Smaller(I(0), t), Max(I(0), t));
}

// log Γ(n) for an exact double n > 0. MPFR's lngamma is correctly rounded, so rounding the two
// ends down and up encloses the true value (no Boost.Math special function is involved).
inline double LogGamma(double n) {
  int sign = 0;
  return lgamma_r(n, &sign);
}
template <class I>
I LogGammaEnclosure(double n) {
  const mpfr_prec_t prec = PrecisionOf<I>();
  mpfr_t x, lo, hi;
  mpfr_init2(x, 64);
  mpfr_init2(lo, prec);
  mpfr_init2(hi, prec);
  mpfr_set_d(x, n, MPFR_RNDN);  // exact: n is a double
  mpfr_lngamma(lo, x, MPFR_RNDD);
  mpfr_lngamma(hi, x, MPFR_RNDU);
  I out = FromEndpoints<I>(lo, hi);
  mpfr_clear(x);
  mpfr_clear(lo);
  mpfr_clear(hi);
  return out;
}

// log C(m, k) for integers 0 ≤ k ≤ m.
template <class Real>
Real LogBinomial(long m, long k) {
  const double md = static_cast<double>(m);
  const double kd = static_cast<double>(k);
  if constexpr (kIsInterval<Real>) {
    return LogGammaEnclosure<Real>(md + 1) - LogGammaEnclosure<Real>(kd + 1) -
           LogGammaEnclosure<Real>(md - kd + 1);
  } else {
    return LogGamma(md + 1) - LogGamma(kd + 1) - LogGamma(md - kd + 1);
  }
}

// log(e^x − 1) for x ≥ 0 (−inf at 0): log(expm1(x)) near 0, x + log1p(−e^{−x}) above 1 so that
// nothing overflows (x reaches c·α² ≈ 1e10).
template <class Real>
Real LogExpm1Stable(const Real& x) {
  using std::exp;
  using std::expm1;
  using std::log;
  using std::log1p;
  if (LowerDouble(x) > 1) return x + log1p(-exp(-x));
  return log(expm1(x));
}

// log(1 + e^y) without overflow.
template <class Real>
Real Softplus(const Real& y) {
  using std::exp;
  using std::log1p;
  if (LowerDouble(y) > 0) return y + log1p(exp(-y));
  return log1p(exp(y));
}

// log erfc(x). Double: erfc itself below 26, beyond the asymptotic series (A&S 7.1.23, five
// terms; relative error < 1e-13 for x ≥ 26) because erfc underflows there.
inline double LogErfc(double x) {
  if (x < 26) return std::log(std::erfc(x));
  const double inv = 1 / (x * x);
  return -x * x - std::log(x) - 0.5 * std::log(M_PI) +
         std::log1p(inv * (-0.5 + inv * (0.75 + inv * (-1.875 + inv * 6.5625))));
}
// Interval erfc without Boost.Math or MPFR's erfc (whose cost explodes near x = 10): for
// 0 ≤ x ≤ 5, erfc = 1 − (2/√π)e^{−x²}Σ_n 2^n x^{2n+1}/(2n+1)!! (A&S 7.1.6, positive terms; once
// n > x² the ratio 2x²/(2n+3) < 1 bounds the remainder geometrically); for x > 5 the continued
// fraction erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))) (A&S 7.1.14), whose
// successive approximants bracket the value (positive partial numerators), deepened until two
// agree; x < 0 uses erfc(x) = 2 − erfc(−x). Every step is an MPFI operation on the whole interval
// x, so the result encloses erfc over x.
template <class I>
I ErfcEnclosure(const I& x) {
  using std::atan;
  using std::exp;
  using std::sqrt;
  if (UpperDouble(x) < 0) return 2 - ErfcEnclosure(I(-x));
  if (LowerDouble(x) < 0) {
    // Straddles 0: erfc is decreasing, enclose the two ends separately.
    const I lo = ErfcEnclosure(I(UpperDouble(x)));
    return Hull(lo, 2 - ErfcEnclosure(I(-LowerDouble(x))));
  }
  const I sqrt_pi = sqrt(4 * atan(I(1)));
  // Target relative accuracy: 30 bits short of the working precision.
  const double precision = std::ldexp(1.0, -static_cast<int>(PrecisionOf<I>()) + 30);
  const I x2 = x * x;
  if (UpperDouble(x) <= 5) {
    I term = x;
    I sum = x;
    const double x2_hi = UpperDouble(x2);
    for (int n = 1; n < 10000; ++n) {
      term = term * (2 * x2) / (2 * n + 1);
      sum += term;
      const double ratio = 2 * x2_hi / (2 * n + 3);
      if (n > x2_hi && ratio < 0.5 && UpperDouble(term) <= precision * LowerDouble(sum)) {
        // Remainder ≤ term·r/(1−r) with r the ratio bound of the following terms.
        const I remainder = term * ratio / (1 - ratio);
        const I erf = 2 / sqrt_pi * exp(-x2) * Hull(sum, sum + remainder);
        return 1 - erf;
      }
    }
    throw NumericalError("erfc series did not converge");
  }
  double previous_width = kInf;
  for (int depth = 16; depth < (1 << 16); depth *= 2) {
    I f1 = x;
    for (int k = depth; k >= 1; --k) f1 = x + I(k / 2.0) / f1;
    I f2 = x;
    for (int k = depth + 1; k >= 1; --k) f2 = x + I(k / 2.0) / f2;
    const I a = 1 / f1;
    const I b = 1 / f2;
    const I both = Hull(Smaller(a, b), Max(a, b));
    // Done when precise enough, or when the width no longer shrinks (it is then the width
    // inherited from x; the hull of two approximants encloses the value either way).
    const double width = RelativeWidth(both);
    if (width <= precision || width >= previous_width / 2) return exp(-x2) / sqrt_pi * both;
    previous_width = width;
  }
  throw NumericalError("erfc continued fraction did not converge");
}

// Interval log erfc. Above 26000 erfc would underflow MPFR's exponent range; there the bounds
// (2/√π)e^{−x²}/(x+√(x²+2)) < erfc(x) ≤ (2/√π)e^{−x²}/(x+√(x²+4/π)) (A&S 7.1.13) are used; their
// ratio is 1 + O(1/x²) < 1 + 3e-10.
template <class I>
I LogErfc(const I& x) {
  using std::atan;
  using std::log;
  using std::sqrt;
  if (LowerDouble(x) > 26000) {
    const I pi = 4 * atan(I(1));
    const I log_c = log(I(2)) - log(pi) / 2;
    const I x2 = x * x;
    const I lower = log_c - x2 - log(x + sqrt(x2 + 2));
    const I upper = log_c - x2 - log(x + sqrt(x2 + 4 / pi));
    return Hull(lower, upper);
  }
  return log(ErfcEnclosure(x));
}

// ---------------------------------------------------------------------------------------------
// Classification of the base event.

// True when the base is a Gaussian-type mechanism whose curve is c·α (Gaussian, leaf-balanced
// Gaussian and their compositions); adds c to `c`. gaussian stays true only if every part is a
// Gaussian mechanism (then the subsampled mechanism is exactly a sampled one-dimensional Gaussian
// with σ² = 1/(2c), §1).
template <class Real>
bool LinearCoefficient(const Event& event, Real& c, bool& gaussian) {
  return std::visit(
      [&](const auto& e) -> bool {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          c += GaussianRdp(Real(1), e.noise_multiplier());
          return true;
        } else if constexpr (std::is_same_v<T, LeafBalancedGaussianEvent>) {
          c += LeafBalancedGaussianRdp(Real(1), e);
          return true;
        } else if constexpr (std::is_same_v<T, ZcdpEvent>) {
          // A ρ-zCDP event is only *bounded* by ρα: it may be randomized response or a Laplace
          // mechanism in disguise, whose Pearson–Vajda pseudo-divergences can be negative, so the
          // tight bound (S-BDT Lem. 15 needs the pair's curve to equal α·t) is not proven for it.
          // It takes the general Zhu–Wang bound (Thm 5), which holds for every mechanism.
          (void)gaussian;
          return false;
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          if (e.count() == 0) return true;
          Real inner(0);
          if (!LinearCoefficient(e.event(), inner, gaussian)) return false;
          c += static_cast<double>(e.count()) * inner;
          return true;
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          for (const Event& inner : e.events()) {
            if (!LinearCoefficient(inner, c, gaussian)) return false;
          }
          return true;
        } else {
          return false;
        }
      },
      event.variant());
}

// Amplification by Poisson sampling of an ε-DP mechanism: log(1 + q(e^ε − 1)) (Balle, Barthe,
// Gaboardi 2018, Thm 8; Li, Qardaji, Su 2012). In double, e^ε overflows for ε > 709: there
// log(1 + q(e^ε − 1)) = ε + log q + log1p(e^{log1p(−q) − log q − ε}), which does not.
template <class Real>
Real AmplifiedEpsilon(double q, const Real& eps) {
  using std::expm1;
  using std::log1p;
  if constexpr (!kIsInterval<Real>) {
    const double direct = std::log1p(q * std::expm1(eps));
    if (std::isfinite(direct) || q == 0) return direct;
    return eps + std::log(q) + std::log1p(std::exp(std::log1p(-q) - std::log(q) - eps));
  } else {
    return log1p(q * expm1(eps));
  }
}

// ε such that the base is ε-DP, when it is pure-DP (Laplace: 1/b; exponential: ε; pure_dp: ε;
// compositions add; a nested Poisson sample amplifies, AmplifiedEpsilon).
template <class Real>
bool PureEpsilon(const Event& event, Real& eps) {
  return std::visit(
      [&](const auto& e) -> bool {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, LaplaceEvent>) {
          eps += 1 / Real(e.noise_multiplier());
          return true;
        } else if constexpr (std::is_same_v<T, ExponentialEvent> ||
                             std::is_same_v<T, PureDpEvent>) {
          eps += Real(e.epsilon());
          return true;
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          if (e.count() == 0) return true;
          Real inner(0);
          if (!PureEpsilon(e.event(), inner)) return false;
          eps += static_cast<double>(e.count()) * inner;
          return true;
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          for (const Event& inner : e.events()) {
            if (!PureEpsilon(inner, eps)) return false;
          }
          return true;
        } else if constexpr (std::is_same_v<T, PoissonSampledEvent>) {
          Real inner(0);
          if (!PureEpsilon(e.event(), inner)) return false;
          eps += AmplifiedEpsilon(e.sampling_probability(), inner);
          return true;
        } else {
          return false;
        }
      },
      event.variant());
}

// RDP of any ε-DP mechanism (randomized response, Bun–Steinke 2016 Prop. 3.3; the same formula as
// PureDpRdp in curves_impl.h, here for an ε that is itself an enclosure).
// The double path goes through PureDpRdp's fast path, which guards the cancellation at small ε.
template <class Real>
Real RandomizedResponseRdp(const Real& alpha, const Real& eps) {
  using std::exp;
  using std::log1p;
  if constexpr (!kIsInterval<Real>) {
    if (!(eps >= 0)) return kInf;  // not a usable ε: no bound from this side
    return PureDpRdp(alpha, eps);
  } else {
    return eps + (log1p(exp(-(2 * alpha - 1) * eps)) - log1p(exp(-eps))) / (alpha - 1);
  }
}

// ---------------------------------------------------------------------------------------------
// Integer orders: the Zhu–Wang sums in log space (§2).
//
// Both bounds are 1/(α−1)·log(1 + S) with
//   S = Σ_{k=2}^{m} C(m,k)(1−q)^{m−k} q^k h_k,
//   tight   (S-BDT Thm 14, Zhu & Wang 2019 Thm 8):  h_k = e^{(k−1)ρ'(k)} − 1,
//   general (Zhu & Wang 2019, Thm 5):                h_2 = e^{ρ'(2)} − 1, h_k = 3e^{(k−1)ρ'(k)} −
//   1,
// obtained by subtracting Σ_k C(m,k)(1−q)^{m−k}q^k = 1 from the published sums (their k = 0, 1
// terms are (1−q)^{m−1}(mq−q+1)). Every term is ≥ 0, so S carries no cancellation.
template <class Real>
class IntegerSum {
 public:
  // Linear base: ρ'(k) = c·k, tight bound. General base: the general bound with ρ' = Rdp(base).
  IntegerSum(long m, double q, const Real* c, const Event* base) : m_(m), c_(c), base_(base) {
    using std::log;
    using std::log1p;
    log_q_ = log(Real(q));
    log_1mq_ = log1p(Real(-q));
  }

  long m() const { return m_; }

  // log h_k.
  Real LogH(long k) const {
    using std::exp;
    using std::log;
    const double kd = static_cast<double>(k);
    if (c_ != nullptr) return LogExpm1Stable(Real(kd * (kd - 1)) * *c_);
    const Real y = (kd - 1) * Rdp(*base_, Real(kd));
    if (k == 2) return LogExpm1Stable(y);
    return y + log(3 - exp(-y));
  }

  Real LogTerm(long k, const Real& log_binomial) const {
    return log_binomial + static_cast<double>(m_ - k) * log_1mq_ + static_cast<double>(k) * log_q_ +
           LogH(k);
  }

  // log C(m,k) ≤ m·log m − k·log k − (m−k)·log(m−k) (C(m,k)p^k(1−p)^{m−k} ≤ 1 at p = k/m).
  Real LogBinomialBound(long k) const {
    using std::log;
    const double md = static_cast<double>(m_);
    const double kd = static_cast<double>(k);
    Real out = md * log(Real(md));
    if (k > 0) out -= kd * log(Real(kd));
    if (k < m_) out -= (md - kd) * log(Real(md - kd));
    return out;
  }

  // Upper bound of log Σ_{k=s}^{e} term_k: each factor is maximised on its own. C(m,k) peaks at
  // ⌊m/2⌋, (q/(1−q))^k is monotone, h_k is non-decreasing (ρ' is non-decreasing in the order).
  Real RegionLogBound(long s, long e) const {
    const long kc = std::clamp(m_ / 2, s, e);
    const Real slope = log_q_ - log_1mq_;
    const Real q_part = Max(static_cast<double>(s) * slope, static_cast<double>(e) * slope);
    using std::log;
    return LogBinomialBound(kc) + static_cast<double>(m_) * log_1mq_ + q_part + LogH(e) +
           log(Real(static_cast<double>(e - s + 1)));
  }

  // log Σ_{k=s}^{e} term_k / e^{scale}, summed term by term; the binomial coefficient is updated
  // by the exact ratio (m−k+1)/k.
  Real RangeSum(long s, long e, const Real& scale) const {
    using std::exp;
    using std::log;
    Real log_binomial = LogBinomial<Real>(m_, s);
    Real sum(0);
    for (long k = s; k <= e; ++k) {
      if (k > s) {
        log_binomial += log(Real(static_cast<double>(m_ - k + 1)) / static_cast<double>(k));
      }
      sum += exp(LogTerm(k, log_binomial) - scale);
    }
    return sum;
  }

  // Σ_{k=s}^{e} term_k / e^{scale}; *log_binomial holds log C(m,s) on entry and log C(m,e) on exit.
  Real RangeSumFrom(long s, long e, const Real& scale, Real* log_binomial) const {
    using std::exp;
    using std::log;
    Real sum(0);
    for (long k = s; k <= e; ++k) {
      if (k > s) {
        *log_binomial += log(Real(static_cast<double>(m_ - k + 1)) / static_cast<double>(k));
      }
      sum += exp(LogTerm(k, *log_binomial) - scale);
    }
    return sum;
  }

  // log Σ_{k=s}^{e} term_k in double, scaled by the largest term (terms reach e^{1e10}).
  double LogRangeSum(long s, long e) const {
    static_assert(!kIsInterval<Real>);
    std::vector<double> logs;
    double log_binomial = LogBinomial<double>(m_, s);
    double top = -kInf;
    for (long k = s; k <= e; ++k) {
      if (k > s) log_binomial += std::log(static_cast<double>(m_ - k + 1) / static_cast<double>(k));
      logs.push_back(LogTerm(k, log_binomial));
      top = std::max(top, logs.back());
    }
    if (!(top > -kInf)) return top;
    double sum = 0;
    for (const double l : logs) sum += std::exp(l - top);
    return top + std::log(sum);
  }

 private:
  long m_;
  const Real* c_;
  const Event* base_;
  Real log_q_;
  Real log_1mq_;
};

struct Range {
  long s;
  long e;
};

struct IntegerPlan {
  std::vector<Range> summed;
  std::vector<Range> skipped;
  double log_sum = -kInf;  // log Σ of the summed terms (double)
};

// Best-first refinement: the block with the largest bound is split (or summed when small) until
// all remaining blocks together are below e^{−kLogCut} of the summed mass.
IntegerPlan PlanIntegerSum(const IntegerSum<double>& sum) {
  struct Block {
    long s;
    long e;
    double log_bound;
    bool operator<(const Block& o) const { return log_bound < o.log_bound; }
  };
  IntegerPlan plan;
  std::priority_queue<Block> queue;
  auto push = [&](long s, long e) {
    const double b = sum.RegionLogBound(s, e);
    if (std::isnan(b)) {
      queue.push({s, e, kInf});  // cannot bound: must be looked at
    } else if (b > -kInf) {
      queue.push({s, e, b});
    }
  };
  push(2, sum.m());
  while (!queue.empty()) {
    const Block top = queue.top();
    if (plan.log_sum > -kInf &&
        top.log_bound + std::log(static_cast<double>(queue.size())) < plan.log_sum - kLogCut) {
      break;
    }
    queue.pop();
    if (top.e - top.s + 1 <= kLeaf) {
      plan.summed.push_back({top.s, top.e});
      plan.log_sum = LogAddExp(plan.log_sum, sum.LogRangeSum(top.s, top.e));
    } else {
      const long mid = top.s + (top.e - top.s) / 2;
      push(top.s, mid);
      push(mid + 1, top.e);
    }
  }
  while (!queue.empty()) {
    plan.skipped.push_back({queue.top().s, queue.top().e});
    queue.pop();
  }
  return plan;
}

// 1/(m−1)·log(1 + S) for a plan. Double: the summed terms only (skipped mass < e^{−50}·S).
// Interval: summed terms plus [0, bound] for every skipped block, so the result encloses the sum.
template <class Real>
Real EvaluateIntegerSum(const IntegerSum<Real>& sum, const IntegerPlan& plan) {
  using std::exp;
  using std::log;
  const double md = static_cast<double>(sum.m());
  if (plan.summed.empty()) {
    if (plan.skipped.empty()) return Real(0);  // every term is exactly 0
    throw NumericalError("subsampled RDP: no term of the binomial sum could be evaluated");
  }
  if constexpr (!kIsInterval<Real>) {
    return Softplus(plan.log_sum) / (md - 1);
  } else {
    const Real scale(plan.log_sum);
    Real total(0);
    std::vector<Range> summed = plan.summed;
    std::sort(summed.begin(), summed.end(),
              [](const Range& a, const Range& b) { return a.s < b.s; });
    // Contiguous leaves continue the running log C(m,k) instead of a fresh lngamma.
    Real log_binomial(0);
    long next = -1;
    for (const Range& r : summed) {
      if (r.s != next) log_binomial = LogBinomial<Real>(sum.m(), r.s);
      total += sum.RangeSumFrom(r.s, r.e, scale, &log_binomial);
      next = r.e + 1;
      log_binomial += log(Real(static_cast<double>(sum.m() - r.e)) / static_cast<double>(r.e + 1));
    }
    for (const Range& r : plan.skipped)
      total += ZeroHull(exp(sum.RegionLogBound(r.s, r.e) - scale));
    return Softplus(scale + log(total)) / (md - 1);
  }
}

// Tight Zhu–Wang value at integer m for a linear base c·α (S-BDT Thm 14 with Lem. 15).
template <class Real>
Real TightInteger(double q, const Real& c, long m) {
  const double c_double = UpperDouble(c);
  const IntegerSum<double> plan_sum(m, q, &c_double, nullptr);
  const IntegerPlan plan = PlanIntegerSum(plan_sum);
  if constexpr (!kIsInterval<Real>) {
    return EvaluateIntegerSum(plan_sum, plan);
  } else {
    const IntegerSum<Real> sum(m, q, &c, nullptr);
    return EvaluateIntegerSum(sum, plan);
  }
}

// General Zhu–Wang value at integer m (Zhu & Wang 2019, Thm 5).
template <class Real>
Real GeneralInteger(double q, const Event& base, long m) {
  const IntegerSum<double> plan_sum(m, q, nullptr, &base);
  const IntegerPlan plan = PlanIntegerSum(plan_sum);
  if constexpr (!kIsInterval<Real>) {
    return EvaluateIntegerSum(plan_sum, plan);
  } else {
    const IntegerSum<Real> sum(m, q, nullptr, &base);
    return EvaluateIntegerSum(sum, plan);
  }
}

// ---------------------------------------------------------------------------------------------
// Convexity bound at fractional orders (§4): (α−1)ρ(α) = log E[(p/p')^α] is convex in α (Hölder),
// so with a = ⌊α⌋, t = α − a:  (α−1)ρ(α) ≤ (1−t)(a−1)ρ(a) + t·a·ρ(a+1); for α < 2 the left point
// is (1, 0), giving ρ(α) ≤ ρ(2). Valid for upper bounds at the integers (the coefficients are ≥ 0).
template <class Real, class AtInteger>
Real Interpolate(double order, const AtInteger& at_integer) {
  const double a = std::floor(order);
  if (a < 2) return at_integer(2);
  const double t = order - a;  // exact (Sterbenz)
  const long ai = static_cast<long>(a);
  return ((1 - t) * (a - 1) * at_integer(ai) + t * a * at_integer(ai + 1)) / (Real(order) - 1);
}

// ---------------------------------------------------------------------------------------------
// Fractional orders of a Gaussian base: Mironov, Talwar, Zhang 2019, §3.3 (§3).
//
// With σ² = 1/(2c), z0 = σ² log(1/q − 1) + 1/2 and Φ the normal CDF, A_α = exp((α−1)ρ(α)) is
//   A_α = Σ_{i≥0} C(α,i)(1−q)^{α−i} q^i e^{(i²−i)c} Φ((z0−i)/σ)                    (z ≤ z0)
//       + Σ_{i≥0} C(α,i)(1−q)^i q^{α−i} e^{(β²−β)c} Φ((β−z0)/σ),  β = α − i        (z > z0).
// For i ≥ N0 = ⌊α⌋ + 2 the terms alternate in sign and their magnitudes g_i form a moment
// sequence g_i = ∫₀¹ sⁱ dν(s) (§3.2), so the tail after N ≥ N0 terms is
//   sign(C(α,N))·Σ_{j≥0} (−1)^j g_{N+j} = sign·∫ s^N/(1+s) dν,
// and its Euler transform Σ_k D_k/2^{k+1}, D_k = (−1)^k Δ^k g_N ≥ 0, converges from below with
// remainder in [0, D_K/2^K] after K terms. The tail near s = 1 decays only like N^{−α−1}, which
// is why the plain alternating-series bound is not enough for α near 1.

constexpr int kEulerTermsFast = 6;
constexpr int kEulerTermsCertified = 24;

enum class SeriesStatus { kOk, kInaccurate, kTooManyTerms };

struct FractionalFast {
  SeriesStatus status = SeriesStatus::kTooManyTerms;
  long terms = 0;  // N: terms 0..N−1 are summed, the tail from N is Euler-transformed
  double rho = kNan;
};

double Phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// (1−q)^α − 1 + αq without cancellation: Σ_{k≥2} C(α,k)(−q)^k when αq is small.
double PowerMinusLinear(double q, double alpha) {
  if (alpha * q >= 0.5) return std::expm1(alpha * std::log1p(-q)) + alpha * q;
  double term = 1;
  double sum = 0;
  for (int k = 1; k < 400; ++k) {
    term *= (alpha - (k - 1)) / k * (-q);
    if (k >= 2) {
      sum += term;
      if (std::abs(term) <= 1e-18 * std::abs(sum)) break;
    }
  }
  return sum;
}

// Terms of both series (log magnitudes and the sign of C(α, i)), i = 0, 1, ...
template <class Real>
class SgmSeries {
 public:
  SgmSeries(double q, const Real& c, double alpha) : c_(c), alpha_(alpha) {
    using std::log;
    using std::log1p;
    using std::sqrt;
    const Real s2 = 1 / (2 * c);
    sqrt2sigma_ = sqrt(2 * s2);
    lq_ = log(Real(q));
    l1q_ = log1p(Real(-q));
    z0_ = s2 * (l1q_ - lq_) + 0.5;
    log2_ = log(Real(2));
  }
  const Real& z0() const { return z0_; }
  const Real& log2() const { return log2_; }

  // Advances to the next i and returns its two log magnitudes; sign() is sign C(α, i).
  void Next(Real* log_a, Real* log_b) {
    Real xa, xb;
    NextParts(log_a, log_b, &xa, &xb);
    *log_a += LogErfc(xa) - log2_;
    *log_b += LogErfc(xb) - log2_;
  }
  // The same split into the log magnitude without the factor erfc(x)/2 and the argument x.
  void NextParts(Real* log_a, Real* log_b, Real* xa, Real* xb) {
    using std::log;
    const double id = static_cast<double>(i_);
    if (i_ > 0) {
      const Real factor = Real(alpha_) - (id - 1);
      if (UpperDouble(factor) < 0) {
        sign_ = -sign_;
        log_abs_binomial_ += log(-factor) - log(Real(id));
      } else {
        RDPKIT_CHECK(LowerDouble(factor) > 0);
        log_abs_binomial_ += log(factor) - log(Real(id));
      }
    }
    const Real beta = Real(alpha_) - id;
    *log_a = log_abs_binomial_ + (Real(alpha_) - id) * l1q_ + id * lq_ + Real(id * id - id) * c_;
    *log_b = log_abs_binomial_ + id * l1q_ + beta * lq_ + (beta * beta - beta) * c_;
    *xa = (id - z0_) / sqrt2sigma_;
    *xb = (z0_ - beta) / sqrt2sigma_;
    ++i_;
  }
  double sign() const { return sign_; }

 private:
  Real c_;
  double alpha_;
  Real sqrt2sigma_, lq_, l1q_, z0_, log2_;
  Real log_abs_binomial_{0};
  double sign_ = 1;
  long i_ = 0;
};

// Euler transform of the tail from magnitudes g_0..g_K: (sum of K terms, error bound D_K/2^K).
template <class Real>
void EulerTail(const std::vector<Real>& g, Real* sum, Real* error) {
  const int k_max = static_cast<int>(g.size()) - 1;
  std::vector<Real> diff(g.begin(), g.end());  // diff[j] = (−1)^k Δ^k g_j after k rounds
  *sum = Real(0);
  double scale = 0.5;
  for (int k = 0; k < k_max; ++k) {
    *sum += diff[0] * scale;
    for (int j = 0; j + 1 < static_cast<int>(diff.size()) - k; ++j) diff[j] = diff[j] - diff[j + 1];
    scale /= 2;
  }
  *error = diff[0] * (2 * scale);  // D_K / 2^K
}

// Fast path. The sum is A_α − 1 written without the cancellation of its leading 1 (§3.3):
// subtracting E[1 + αq(L−1)] = 1 over both regions turns the i = 0, 1 terms of the first series
// into [(1−q)^α − 1 + αq]Φ(z0/σ) + αq[(1−q)^{α−1} − 1]Φ((z0−1)/σ) and removes
// (1−αq)Φ(−z0/σ) + αqΦ((1−z0)/σ) from the second. A rounding-error estimate decides whether the
// double result is good to kFastRelativeError; otherwise the caller uses the certified series.
FractionalFast SgmFractionalFast(double q, double c, double alpha) {
  FractionalFast out;
  if (alpha > kMaxSeriesOrder || alpha * alpha * c > kMaxSeriesExponent) return out;
  SgmSeries<double> series(q, c, alpha);
  const long n0 = static_cast<long>(std::floor(alpha)) + 2;
  std::vector<double> log_a, log_b;
  std::vector<double> sign;
  auto extend = [&](long upto) {
    while (static_cast<long>(log_a.size()) <= upto) {
      double la = 0, lb = 0;
      series.Next(&la, &lb);
      log_a.push_back(la);
      log_b.push_back(lb);
      sign.push_back(series.sign());
    }
  };
  extend(n0 + kEulerTermsFast);
  double max_log = -kInf;
  for (std::size_t i = 0; i < log_a.size(); ++i) max_log = std::max({max_log, log_a[i], log_b[i]});
  const bool log_mode = max_log > 600;  // A_α ≫ 1: no cancellation against the 1
  const double scale = log_mode ? max_log : 0.0;
  const double l1q = std::log1p(-q);
  const double sigma = std::sqrt(1 / (2 * c));
  const double z0 = series.z0();
  // Head (i < N) sum and magnitude, grown as N increases.
  double head = 0;
  double magnitude = 0;
  if (!log_mode) {
    const double c0 = PowerMinusLinear(q, alpha) * Phi(z0 / sigma);
    const double c1 = alpha * q * std::expm1((alpha - 1) * l1q) * Phi((z0 - 1) / sigma);
    const double sub = (1 - alpha * q) * Phi(-z0 / sigma) + alpha * q * Phi((1 - z0) / sigma);
    head = c0 + c1 - sub;
    magnitude = std::abs(c0) + std::abs(c1) + std::abs(sub);
  }
  long summed = 0;  // terms 0..summed−1 are in head
  auto add_term = [&](long i) {
    const bool skip_a = !log_mode && i < 2;  // replaced by c0, c1 above
    const double a = skip_a ? 0.0 : std::exp(log_a[i] - scale);
    const double b = std::exp(log_b[i] - scale);
    head += sign[i] * (a + b);
    magnitude += a + b;
  };
  for (long n = n0; n <= kMaxSeriesTerms; ++n) {
    extend(n + kEulerTermsFast);
    while (summed < n) add_term(summed++);
    std::vector<double> g;
    for (long j = n; j <= n + kEulerTermsFast; ++j) {
      g.push_back(std::exp(log_a[j] - scale) + std::exp(log_b[j] - scale));
    }
    double tail = 0, tail_error = 0;
    EulerTail(g, &tail, &tail_error);
    const double total = head + sign[n] * tail;  // A − 1 (linear mode) or A/e^{scale}
    const double rounding =
        (magnitude + std::ldexp(g[0], kEulerTermsFast)) * static_cast<double>(n + 8) * 0x1p-52;
    const double target = total;
    if (!(target > 0)) continue;
    if (tail_error > kFastRelativeError * target) continue;
    out.terms = n;
    if (rounding > kFastRelativeError * target) {
      out.status = SeriesStatus::kInaccurate;
      out.rho =
          log_mode ? (scale + std::log(total)) / (alpha - 1) : std::log1p(total) / (alpha - 1);
      return out;
    }
    out.status = SeriesStatus::kOk;
    const double with_half = total + sign[n] * tail_error / 2;
    out.rho = log_mode ? (scale + std::log(with_half)) / (alpha - 1)
                       : std::log1p(with_half) / (alpha - 1);
    return out;
  }
  return out;  // kTooManyTerms
}

// Upper bound of log(erfc(x)/2) without evaluating erfc: log(1) for x < 0, log(1/2) up to 1, and
// Mills' ratio erfc(x) ≤ e^{−x²}/(x√π) beyond (A&S 7.1.13).
template <class I>
double CheapLogHalfErfcUpper(const I& x) {
  const double lo = LowerDouble(x);
  if (lo < 0) return 0;
  if (lo <= 1) return -std::log(2.0);
  const I xl(lo);
  using std::log;
  return UpperDouble(-xl * xl - log(xl) - log(I(2)) - log(I(M_PI_2 * 2)) / 2 + 1e-12);
}

// Certified series with N head terms and a kEulerTermsCertified-term Euler tail: encloses
// A_α − 1; false when the enclosure is wider than kSeriesRelativeWidth. log_scale estimates
// log(A_α − 1) (NaN when unknown): terms below e^{log_scale − 70} by the cheap bound above are
// enclosed by [0, bound] instead of evaluating erfc, and so is the whole tail when it is that
// small.
template <class I>
bool SgmFractionalEnclosure(double q, const I& c, double alpha, long n, double log_scale, I* rho,
                            bool* tight) {
  using std::exp;
  using std::log1p;
  const double negligible = std::isnan(log_scale) ? -kInf : log_scale - 70;
  SgmSeries<I> series(q, c, alpha);
  I sum(0);
  std::vector<I> g;
  double tail_sign = 1;
  bool tail_negligible = false;
  for (long i = 0; i <= n + kEulerTermsCertified; ++i) {
    I la, lb, xa, xb;
    series.NextParts(&la, &lb, &xa, &xb);
    const double cheap_a = UpperDouble(la) + CheapLogHalfErfcUpper(xa);
    const double cheap_b = UpperDouble(lb) + CheapLogHalfErfcUpper(xb);
    if (i == n && std::max(cheap_a, cheap_b) < negligible) {
      // Alternating tail with decreasing magnitudes: between 0 and the first omitted term.
      sum += ZeroHull(series.sign() * (exp(I(cheap_a)) + exp(I(cheap_b))));
      tail_negligible = true;
      break;
    }
    const I ta =
        cheap_a < negligible ? ZeroHull(exp(I(cheap_a))) : exp(la + LogErfc(xa) - series.log2());
    const I tb =
        cheap_b < negligible ? ZeroHull(exp(I(cheap_b))) : exp(lb + LogErfc(xb) - series.log2());
    const I magnitude = ta + tb;
    if (i < n) {
      sum += series.sign() * magnitude;
    } else {
      if (i == n) tail_sign = series.sign();
      g.push_back(magnitude);
    }
  }
  I am1 = sum - 1;
  if (!tail_negligible) {
    I tail, tail_error;
    EulerTail(g, &tail, &tail_error);
    // The true tail lies in [tail, tail + D_K/2^K] (D_K ≥ 0 exactly; its enclosure may dip
    // below 0).
    am1 += tail_sign * Hull(tail, tail + Max(tail_error, I(0)));
  }
  if (!(LowerDouble(am1) > 0)) return false;
  *rho = log1p(am1) / (I(alpha) - 1);
  *tight = RelativeWidth(*rho) <= kSeriesRelativeWidth;
  return LowerDouble(*rho) > 0 && std::isfinite(UpperDouble(*rho));
}

// Certified fractional value: N terms, then 2N and 4N while the enclosure is not tight. When only
// the working precision limits it (A_α − 1 ≪ 1 cancels against the 1), the last valid enclosure
// is returned at 40 digits (RdpCertified and the conversions then retry at 100 digits, where c is
// recomputed); at 100 digits an enclosure wider than 1e-10 is not used. False: use §4.
template <class I>
bool SgmFractionalCertified(double q, const I& c, double alpha, const FractionalFast& plan,
                            I* rho) {
  if (plan.status == SeriesStatus::kTooManyTerms) return false;
  const double log_scale =
      std::isnan(plan.rho) ? kNan : LogExpm1((alpha - 1) * std::max(plan.rho, 1e-300));
  bool valid = false;
  for (long n = plan.terms; n <= std::min(4 * plan.terms, kMaxSeriesTerms); n *= 2) {
    bool tight = false;
    I attempt;
    if (SgmFractionalEnclosure(q, c, alpha, n, log_scale, &attempt, &tight)) {
      *rho = attempt;
      valid = true;
      if (tight) return true;
    }
  }
  if (!valid) return false;
  if constexpr (std::is_same_v<I, Interval>) return true;
  return RelativeWidth(*rho) <= 1e-10;
}

// ---------------------------------------------------------------------------------------------

bool IsInteger(double order) { return std::floor(order) == order; }

// Orders above this are answered with +inf (a valid upper bound; every such order is an integer
// and its binomial sum would not fit the index type).
constexpr double kMaxFiniteOrder = 0x1p50;

}  // namespace

template <class Real>
Real SampledLinearRdp(double q, const Real& c, bool gaussian, double order) {
  if (q == 0 || UpperDouble(c) == 0) return Real(0);
  if (q == 1) return c * Real(order);
  if (order > kMaxFiniteOrder) return Real(kInf);
  if (IsInteger(order)) return TightInteger(q, c, static_cast<long>(order));
  const auto at_integer = [&](long m) { return TightInteger(q, c, m); };
  if (gaussian) {
    const FractionalFast fast = SgmFractionalFast(q, UpperDouble(c), order);
    if constexpr (!kIsInterval<Real>) {
      if (fast.status == SeriesStatus::kOk) return fast.rho;
      if (fast.status == SeriesStatus::kInaccurate) {
        // The double sum lost digits to cancellation: use the certified series instead.
        Interval rho;
        if (SgmFractionalCertified(q, Interval(c), order, fast, &rho)) {
          if (RelativeWidth(rho) <= 1e-12) return UpperDouble(rho);
          WideInterval wide;
          if (SgmFractionalCertified(q, WideInterval(c), order, fast, &wide)) {
            return UpperDouble(wide);
          }
        }
      }
    } else {
      Real rho;
      if (SgmFractionalCertified(q, c, order, fast, &rho)) return rho;
    }
  }
  // Not a Gaussian base, or the series converges too slowly: convexity bound, and the base
  // curve itself (subsampling never increases the divergence).
  return Smaller(Interpolate<Real>(order, at_integer), c * Real(order));
}

namespace {

// q₁·q₂ rounded up (never below the exact product).
double MultiplyUp(double a, double b) {
  const double p = a * b;
  if (p == 0 && a != 0 && b != 0) return std::numeric_limits<double>::denorm_min();
  if (p < std::numeric_limits<double>::min()) return std::nextafter(p, 1.0);  // inexact fma
  return std::fma(a, b, -p) > 0 ? std::nextafter(p, 1.0) : p;
}

// A Poisson sample (rate q₁) of a Poisson sample (rate q₂) of a dataset holds each record
// independently with probability q₁q₂, so poisson_sampled(q₁, poisson_sampled(q₂, E)) is the same
// mechanism as poisson_sampled(q₁q₂, E) (same output distribution on every dataset; thinning of a
// Bernoulli process, e.g. Kallenberg, Foundations of Modern Probability, Ch. 12 (thinning)).
// The product is rounded up: every bound used here is non-decreasing in q (the Zhu–Wang sums are
// E[h_K] with K ~ Bin(m, q) and h non-decreasing; docs/math/subsampling.md §2). A composed list
// of one event and a self_composed count of 1 are the event itself and are looked through.
// Flattening makes directly nested sampling cost one level, not one level per nesting.
struct FlatSample {
  double q;
  const Event* base;
};
FlatSample Flatten(const PoissonSampledEvent& event) {
  FlatSample flat{event.sampling_probability(), &event.event()};
  for (;;) {
    if (const auto* inner = flat.base->get_if<PoissonSampledEvent>()) {
      flat.q = MultiplyUp(flat.q, inner->sampling_probability());
      flat.base = &inner->event();
    } else if (const auto* self = flat.base->get_if<SelfComposedEvent>();
               self != nullptr && self->count() == 1) {
      flat.base = &self->event();
    } else if (const auto* list = flat.base->get_if<ComposedEvent>();
               list != nullptr && list->events().size() == 1) {
      flat.base = &list->events().front();
    } else {
      return flat;
    }
  }
}

// Largest number of Poisson samplings on one path of the event tree after flattening (0: no
// sampling). The general Zhu–Wang sum evaluates its base at up to m orders, so a base that itself
// needs a sum at each of them costs a product over the levels.
int SamplingDepth(const Event& event) {
  return std::visit(
      [](const auto& e) -> int {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, PoissonSampledEvent>) {
          return 1 + SamplingDepth(*Flatten(e).base);
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          return SamplingDepth(e.event());
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          int depth = 0;
          for (const Event& inner : e.events()) depth = std::max(depth, SamplingDepth(inner));
          return depth;
        } else {
          return 0;
        }
      },
      event.variant());
}

// A base with this many levels of (non-flattenable) sampling inside is not summed over: the
// general sum would evaluate it at up to m orders, each a sum itself (cost exponential in depth).
// Such a sample takes the bounds that need the base at one order only (the base curve and the
// amplified pure-DP guarantee), so the cost of every event is linear in its size (one level of
// summing over a summed base is kept: cost N², as before).
constexpr int kMaxSummedSamplingDepth = 1;

}  // namespace

template <class Real>
Real PoissonSampledRdpWith(const PoissonSampledEvent& event, const Real& alpha,
                           SubsamplingBound bound) {
  const double order = UpperDouble(alpha);
  RDPKIT_CHECK(LowerDouble(alpha) == order);
  const FlatSample flat = Flatten(event);
  const double q = flat.q;
  const Event& base = *flat.base;
  if (q == 0) return Real(0);
  Real c(0);
  bool gaussian = true;
  const bool linear = LinearCoefficient(base, c, gaussian);
  if (bound == SubsamplingBound::kTightZhuWang && !linear) {
    throw InvalidArgument("bound", "tight_zhu_wang",
                          "Gaussian-type events (gaussian, leaf_balanced_gaussian and their "
                          "compositions)");
  }
  // q = 1: the sample is the whole dataset.
  if (q == 1) return Rdp(base, alpha);
  if (linear && bound != SubsamplingBound::kGeneralZhuWang) {
    return SampledLinearRdp(q, c, gaussian && bound == SubsamplingBound::kAuto, order);
  }
  const bool summed = SamplingDepth(base) <= kMaxSummedSamplingDepth;
  if (!summed && bound == SubsamplingBound::kGeneralZhuWang) {
    throw InvalidArgument("bound", "general_zhu_wang",
                          "events with at most " + std::to_string(kMaxSummedSamplingDepth) +
                              " level of poisson_sampled inside the sampled event (deeper "
                              "nesting would cost exponential time)");
  }
  if (order > kMaxFiniteOrder) return Real(kInf);
  const bool tightest = bound == SubsamplingBound::kAuto;
  Real eps(0);
  const bool pure = tightest && PureEpsilon(base, eps);
  // Every one of these is a sound upper bound at integer order m; the minimum is too.
  const auto cheap = [&](const Real& a) -> Real {
    Real value = Rdp(base, a);  // subsampling never increases the divergence
    if (pure) value = Smaller(value, RandomizedResponseRdp(a, AmplifiedEpsilon(q, eps)));
    return value;
  };
  if (!summed) return cheap(alpha);
  const auto at_integer = [&](long m) -> Real {
    Real value = GeneralInteger<Real>(q, base, m);
    if (tightest) value = Smaller(value, cheap(Real(static_cast<double>(m))));
    return value;
  };
  if (IsInteger(order)) return at_integer(static_cast<long>(order));
  Real value = Interpolate<Real>(order, at_integer);
  if (tightest) value = Smaller(value, cheap(alpha));
  return value;
}

bool PoissonSampledHasContinuousOrders(const PoissonSampledEvent&) { return true; }

// The fast value is used when it is a number ≥ 0; otherwise (a failure of the double sums at an
// extreme rate or order) the interval evaluation's upper end, and +∞ when that fails too.
template <class Real>
Real PoissonSampledRdp(const PoissonSampledEvent& event, const Real& alpha) {
  if constexpr (kIsInterval<Real>) {
    return PoissonSampledRdpWith(event, alpha, SubsamplingBound::kAuto);
  } else {
    const double fast = PoissonSampledRdpWith(event, alpha, SubsamplingBound::kAuto);
    if (fast >= 0) return fast;
    try {
      const double upper = UpperByIntervals([&](auto zero) {
        return PoissonSampledRdpWith(event, decltype(zero)(alpha), SubsamplingBound::kAuto);
      });
      return upper >= 0 ? upper : (std::isnan(upper) ? kInf : 0.0);
    } catch (const NumericalError&) {
      return kInf;
    }
  }
}

template double PoissonSampledRdp<double>(const PoissonSampledEvent&, const double&);
template Interval PoissonSampledRdp<Interval>(const PoissonSampledEvent&, const Interval&);
template WideInterval PoissonSampledRdp<WideInterval>(const PoissonSampledEvent&,
                                                      const WideInterval&);
template double PoissonSampledRdpWith<double>(const PoissonSampledEvent&, const double&,
                                              SubsamplingBound);
template Interval PoissonSampledRdpWith<Interval>(const PoissonSampledEvent&, const Interval&,
                                                  SubsamplingBound);
template WideInterval PoissonSampledRdpWith<WideInterval>(const PoissonSampledEvent&,
                                                          const WideInterval&, SubsamplingBound);
template double SampledLinearRdp<double>(double, const double&, bool, double);
template Interval SampledLinearRdp<Interval>(double, const Interval&, bool, double);
template WideInterval SampledLinearRdp<WideInterval>(double, const WideInterval&, bool, double);

}  // namespace rdpkit::accountant::internal

namespace rdpkit::accountant {
namespace {

void RequireOrder(double order) {
  Require(std::isfinite(order) && order > 1, "order", order, "(1, inf)");
}

template <class I>
Bound EncloseWith(const PoissonSampledEvent& event, double order, SubsamplingBound bound) {
  const I rho = internal::PoissonSampledRdpWith(event, I(order), bound);
  return Bound{internal::LowerDouble(rho), internal::UpperDouble(rho)};
}

bool Narrow(const Bound& b) {
  if (std::isnan(b.lower) || std::isnan(b.upper)) return false;
  if (b.upper == b.lower) return true;
  if (std::isinf(b.upper)) return std::isinf(b.lower);
  return b.upper - b.lower <= 1e-9 * std::max(std::abs(b.upper), 1e-300);
}

}  // namespace

double PoissonSampledRdpFast(const PoissonSampledEvent& event, double order,
                             SubsamplingBound bound) {
  RequireOrder(order);
  return internal::PoissonSampledRdpWith(event, order, bound);
}

Bound PoissonSampledRdpCertified(const PoissonSampledEvent& event, double order,
                                 SubsamplingBound bound) {
  RequireOrder(order);
  const Bound narrow = EncloseWith<internal::Interval>(event, order, bound);
  if (Narrow(narrow)) return narrow;
  const Bound wide = EncloseWith<internal::WideInterval>(event, order, bound);
  if (Narrow(wide)) return wide;
  throw NumericalError("certified subsampled RDP at order " + FormatNumber(order) +
                       " is enclosed only in [" + FormatNumber(wide.lower) + ", " +
                       FormatNumber(wide.upper) + "]");
}

}  // namespace rdpkit::accountant
