// Pure-DP ε of an event (pure_dp.h). Laplace, exponential and pure_dp events and their
// compositions are summed as exact rationals (GMP), so that ten Laplace steps of noise
// multiplier 10 are ε = 1 exactly, not 1 + 2^-52; Poisson sampling is evaluated in MPFR with
// every operation rounded toward +inf (each is increasing in its argument) and its result kept as
// the rational value of that rounded-up float. The final double is rounded up.
#include "pure_dp.h"

#include <gmp.h>
#include <mpfr.h>

#include <cstddef>
#include <limits>
#include <type_traits>
#include <variant>

namespace rdpkit::accountant::internal {
namespace {

constexpr mpfr_prec_t kBits = 128;
// A rational whose numerator or denominator grows past this many bits (a composition of many
// different noise multipliers) is replaced by an upper bound with a kBits-bit mantissa.
constexpr std::size_t kMaxRationalBits = 4096;

// An exact rational upper bound of a pure ε, or +inf.
class Bound {
 public:
  Bound() { mpq_init(value_); }
  Bound(const Bound&) = delete;
  Bound& operator=(const Bound&) = delete;
  ~Bound() { mpq_clear(value_); }

  bool infinite = false;
  mpq_ptr get() { return value_; }

  void SetDouble(double x) { mpq_set_d(value_, x); }  // exact: every double is a rational
  // Keeps the size bounded: rounds up to kBits bits when the rational has grown too long.
  void Trim() {
    if (mpz_sizeinbase(mpq_numref(value_), 2) + mpz_sizeinbase(mpq_denref(value_), 2) <=
        kMaxRationalBits) {
      return;
    }
    mpfr_t x;
    mpfr_init2(x, kBits);
    mpfr_set_q(x, value_, MPFR_RNDU);
    mpfr_get_q(value_, x);
    mpfr_clear(x);
  }

 private:
  mpq_t value_;
};

// Sets out to an upper bound of the event's pure ε (infinite where it has none).
void PureEpsilon(const Event& event, Bound& out) {
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, LaplaceEvent>) {
          // b = noise_multiplier × sensitivity: ε = 1/noise_multiplier (Dwork & Roth 2014,
          // Thm 3.6).
          out.SetDouble(e.noise_multiplier());
          mpq_inv(out.get(), out.get());
        } else if constexpr (std::is_same_v<T, ExponentialEvent>) {
          // ε-bounded range implies ε-DP: the loss's range holds 0 and is ε wide (Durfee &
          // Rogers 2019; docs/math/pure_dp_order.md).
          out.SetDouble(e.epsilon());
        } else if constexpr (std::is_same_v<T, PureDpEvent>) {
          out.SetDouble(e.epsilon());
        } else if constexpr (std::is_same_v<T, PoissonSampledEvent>) {
          // Poisson sampling at rate q of an ε-DP mechanism is log(1 + q(e^ε − 1))-DP, adding or
          // removing a record (Balle, Barthe & Gaboardi 2018; docs/math/pure_dp_order.md).
          PureEpsilon(e.event(), out);
          if (out.infinite) return;
          mpfr_t x;
          mpfr_init2(x, kBits);
          mpfr_set_q(x, out.get(), MPFR_RNDU);
          mpfr_expm1(x, x, MPFR_RNDU);
          mpfr_mul_d(x, x, e.sampling_probability(), MPFR_RNDU);
          mpfr_log1p(x, x, MPFR_RNDU);
          // e^ε past MPFR's exponent range is +inf: no bound (mpfr_get_q would give 0).
          out.infinite = mpfr_number_p(x) == 0;
          if (!out.infinite) mpfr_get_q(out.get(), x);
          mpfr_clear(x);
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          // Basic composition: pure ε adds (Dwork & Roth 2014, Thm 3.16).
          if (e.count() == 0) {
            out.infinite = false;
            mpq_set_ui(out.get(), 0, 1);
            return;
          }
          PureEpsilon(e.event(), out);
          if (out.infinite) return;
          Bound count;
          count.SetDouble(static_cast<double>(e.count()));  // exact: count ≤ 2^53
          mpq_mul(out.get(), out.get(), count.get());
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          mpq_set_ui(out.get(), 0, 1);
          Bound part;
          for (const Event& inner : e.events()) {
            PureEpsilon(inner, part);
            if (part.infinite) {
              out.infinite = true;
              return;
            }
            mpq_add(out.get(), out.get(), part.get());
            out.Trim();
          }
        } else if constexpr (std::is_same_v<T, GaussianEvent> ||
                             std::is_same_v<T, LeafBalancedGaussianEvent> ||
                             std::is_same_v<T, ZcdpEvent> || std::is_same_v<T, RenyiFilterEvent>) {
          out.infinite = true;
        } else {
          static_assert(kAlwaysFalse<T>, "unhandled event kind");
        }
      },
      event.variant());
}

}  // namespace

double PureEpsilonUpper(const Event& event) {
  Bound epsilon;
  PureEpsilon(event, epsilon);
  if (epsilon.infinite) return std::numeric_limits<double>::infinity();
  mpfr_t x;
  mpfr_init2(x, 64);
  mpfr_set_q(x, epsilon.get(), MPFR_RNDU);
  const double out = mpfr_get_d(x, MPFR_RNDU);
  mpfr_clear(x);
  return out;
}

bool HasBoundedRange(const Event& event) {
  if (event.get_if<ExponentialEvent>()) return true;
  if (const auto* sampled = event.get_if<PoissonSampledEvent>()) {
    return HasBoundedRange(sampled->event());
  }
  if (const auto* self = event.get_if<SelfComposedEvent>()) return HasBoundedRange(self->event());
  if (const auto* composed = event.get_if<ComposedEvent>()) {
    for (const Event& part : composed->events()) {
      if (HasBoundedRange(part)) return true;
    }
  }
  return false;
}

}  // namespace rdpkit::accountant::internal
