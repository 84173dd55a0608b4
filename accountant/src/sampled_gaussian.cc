// Mironov, Talwar, Zhang 2019, §3.3: the sampled Gaussian mechanism at fractional orders
// (docs/math/subsampling.md §3).
#include "sampled_gaussian.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "enclosures.h"
#include "rdpkit/accountant/errors.h"
#include "real.h"
#include "series.h"

namespace rdpkit::accountant::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Fractional orders of a Gaussian base (§3): the series is used while it converges within
// kMaxSeriesTerms terms and α ≤ kMaxSeriesOrder; beyond, the convexity bound (§4).
constexpr long kMaxSeriesTerms = 4096;
constexpr double kMaxSeriesOrder = 256.0;
// The exponents (i²−i)c of the series must stay far inside MPFR's exponent range (2^30 bits).
constexpr double kMaxSeriesExponent = 1e8;
// Relative width of the enclosure of A_α − 1 accepted on the certified series path.
constexpr double kSeriesRelativeWidth = 1e-14;
// At 100 digits a looser series enclosure is still used (its width then comes from the working
// precision, not from the truncation); one wider than this is not.
constexpr double kWideSeriesRelativeWidth = 1e-10;
// The fast series falls back to the certified one when its rounding-error estimate exceeds this
// (relative to A_α − 1).
constexpr double kFastRelativeError = 1e-10;

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

double Phi(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// (1−q)^α − 1 + αq without cancellation: Σ_{k≥2} C(α,k)(−q)^k when αq is small.
double PowerMinusLinear(double q, double alpha) {
  if (alpha * q >= 0.5) return std::expm1(alpha * std::log1p(-q)) + alpha * q;
  double term = alpha * (-q);  // k = 1
  return SumSeries(
      "binomial series of (1-q)^alpha", /*first=*/2, /*sum=*/0.0,
      [&](long k) {
        return term *= (alpha - static_cast<double>(k - 1)) / static_cast<double>(k) * (-q);
      },
      [](double t, double sum) { return std::abs(t) <= 1e-18 * std::abs(sum); });
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

}  // namespace

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

namespace {

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

}  // namespace

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
  return RelativeWidth(*rho) <= kWideSeriesRelativeWidth;
}

template bool SgmFractionalCertified<Interval>(double, const Interval&, double,
                                               const FractionalFast&, Interval*);
template bool SgmFractionalCertified<WideInterval>(double, const WideInterval&, double,
                                                   const FractionalFast&, WideInterval*);

}  // namespace rdpkit::accountant::internal
