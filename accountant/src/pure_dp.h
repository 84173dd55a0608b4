// The pure-DP ε of an event, where it has one: the Rényi curve at order ∞ (D_∞), which the RDP
// accountant takes as one more order (convert.cc); and whether it holds a bounded-range part.
#ifndef RDPKIT_ACCOUNTANT_SRC_PURE_DP_H_
#define RDPKIT_ACCOUNTANT_SRC_PURE_DP_H_

#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant::internal {

// An upper bound, rounded up, of ε such that the event is ε-DP (its privacy loss never exceeds ε);
// +inf when the event contains a mechanism without one (gaussian, leaf_balanced_gaussian, zcdp)
// or a renyi_filter (whose claim is at its order only). docs/math/pure_dp_order.md.
[[nodiscard]] double PureEpsilonUpper(const Event& event);

// True when the event holds an exponential (bounded-range) mechanism: the one pair that
// dominates every ε-BR mechanism composes less tightly than RDP's supremum over the family
// (docs/math/pld.md §3b), so RDP may be the smaller there (calibrate.cc).
[[nodiscard]] bool HasBoundedRange(const Event& event);

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_PURE_DP_H_
