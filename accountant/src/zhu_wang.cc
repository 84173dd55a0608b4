// Zhu–Wang sums at integer orders (docs/math/subsampling.md §2).
#include "zhu_wang.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <vector>

#include "curves_impl.h"
#include "enclosures.h"
#include "rdpkit/accountant/errors.h"
#include "real.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Integer orders (§2): blocks whose bounded mass is below e^{−kLogCut} of the summed mass are
// skipped (and enclosed by their bound on the certified path); blocks of at most kLeaf terms are
// summed term by term.
constexpr double kLogCut = 50.0;
constexpr long kLeaf = 16;

// Integer orders: the Zhu–Wang sums in log space (§2).
//
// Both bounds are 1/(α−1)·log(1 + S) with
//   S = Σ_{k=2}^{m} C(m,k)(1−q)^{m−k} q^k h_k,
//   tight   (S-BDT Thm 14, Zhu & Wang 2019 Thm 8): h_k = e^{(k−1)ρ'(k)} − 1,
//   general (Zhu & Wang 2019, Thm 5):     h_2 = e^{ρ'(2)} − 1, h_k = 3e^{(k−1)ρ'(k)} − 1,
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

}  // namespace

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

template double TightInteger<double>(double, const double&, long);
template Interval TightInteger<Interval>(double, const Interval&, long);
template WideInterval TightInteger<WideInterval>(double, const WideInterval&, long);
template double GeneralInteger<double>(double, const Event&, long);
template Interval GeneralInteger<Interval>(double, const Event&, long);
template WideInterval GeneralInteger<WideInterval>(double, const Event&, long);

}  // namespace rdpkit::accountant::internal
