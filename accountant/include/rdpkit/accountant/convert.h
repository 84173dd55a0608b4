// ε at a given δ and δ at a given ε of an event (DESIGN.md §1), by the smallest certified value
// over the accountants that apply: the exact one for compositions of Gaussian-type events
// (analytic_gaussian.h, Balle & Wang 2018), the privacy-loss-distribution accountant for
// compositions of (Poisson-subsampled) Gaussian-type events (pld.h) and RDP for every event. The
// RDP accountant converts
// the curve to (ε, δ)-DP minimised over orders:
//
// At each order the smaller of two valid conversions is used:
//  - Mironov 2017, Prop. 3:          ε = ρ(α) + log(1/δ)/(α−1);
//  - Balle et al. 2020, Thm 21 (= Canonne–Kamath–Steinke 2020, Prop. 12; S-BDT Cor. 6):
//                                    ε = ρ(α) + log((α−1)/α) − (log δ + log α)/(α−1).
// The optimiser scans an order grid in double precision and refines the best order with a
// one-dimensional search; the certified path then re-evaluates the bound at the chosen order with
// outward rounding, so the reported ε is a guaranteed upper bound (any order gives a valid bound).
// Without given orders the search also has order ∞, where the curve of an event made only of
// pure-DP mechanisms is its pure ε and either conversion gives ε = ρ(∞) at every δ; `order` is
// then +inf (docs/math/pure_dp_order.md).
#ifndef RDPKIT_ACCOUNTANT_CONVERT_H_
#define RDPKIT_ACCOUNTANT_CONVERT_H_

#include <string>
#include <vector>

#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant {

enum class Conversion {
  kMironov,  // "mironov2017"
  kBalle,    // "balle2020"
};
std::string ConversionName(Conversion conversion);

// Which accountant answers. kBest: the smallest certified value of those that apply.
enum class Accountant {
  kBest,      // "best"
  kRdp,       // "rdp": Rényi DP, any event
  kGaussian,  // "gaussian": exact, compositions of gaussian / leaf_balanced_gaussian only
  kPld,       // "pld": privacy loss distribution, (subsampled) Gaussian-type compositions
};
std::string AccountantName(Accountant accountant);
// "best", "rdp", "gaussian" or "pld"; anything else → InvalidArgument naming the field
// "accountant".
Accountant AccountantFromName(const std::string& name);

struct ConversionOptions {
  // Orders to minimise over, each in (1, inf). Empty: DefaultOrders() plus a one-dimensional
  // refinement (continuous orders where the curve allows, integers otherwise).
  std::vector<double> orders;
  // true: certified (MPFI) evaluation of the reported value; false: double only (RDP; the exact
  // Gaussian accountant is always certified, it costs microseconds).
  bool certified = true;
  Accountant accountant = Accountant::kBest;
  // pld: at least 2^pld_log2_points grid points (PldOptions::log2_points, pld.h); the fast path
  // (certified = false) uses kPldProbeOptions instead. In [10, 20].
  int pld_log2_points = 16;
  void Validate() const;
};

struct EpsilonResult {
  double epsilon;  // ≥ 0; +inf when no order gives a finite bound
  double delta;
  double order;           // rdp: the order at which epsilon is attained
  Conversion conversion;  // rdp: the conversion used there
  bool certified;
  Accountant accountant = Accountant::kRdp;  // the one that gave epsilon (never kBest)
  double mu = 0;                             // gaussian: μ of the composition (rounded up)
  // Non-empty when the accountant asked for could not answer and another one did (e.g. a PLD
  // whose grid would not fit in memory falls back to RDP).
  std::string note;
};

struct DeltaResult {
  double delta;  // in [0, 1]
  double epsilon;
  double order;
  Conversion conversion;
  bool certified;
  Accountant accountant = Accountant::kRdp;
  double mu = 0;
  std::string note;
};

// Smallest ε such that the event is (ε, δ)-DP by options.accountant. δ ∈ (0, 1). kGaussian on an
// event that is not a Gaussian composition, or kPld on one PldSupports rejects → InvalidArgument
// naming "accountant". kBest skips the accountants that do not apply (and PLD where the exact
// Gaussian one applies: it is never smaller than the exact value).
[[nodiscard]] EpsilonResult Epsilon(const Event& event, double delta,
                                    const ConversionOptions& options = {});

// Smallest δ such that the event is (ε, δ)-DP by options.accountant. ε ∈ [0, inf).
[[nodiscard]] DeltaResult Delta(const Event& event, double epsilon,
                                const ConversionOptions& options = {});

// ε at one order from an RDP value (double; the smaller of the two conversions). rdp ≥ 0.
[[nodiscard]] double EpsilonFromRdp(double order, double rdp, double delta) noexcept;

}  // namespace rdpkit::accountant

#endif  // RDPKIT_ACCOUNTANT_CONVERT_H_
