// The pure-DP ε of an event, where it has one: the Rényi curve at order ∞ (D_∞), which the RDP
// accountant takes as one more order (convert.cc).
#ifndef RDPKIT_ACCOUNTANT_SRC_PURE_DP_H_
#define RDPKIT_ACCOUNTANT_SRC_PURE_DP_H_

#include "rdpkit/accountant/event.h"

namespace rdpkit::accountant::internal {

// An upper bound, rounded up, of ε such that the event is ε-DP (its privacy loss never exceeds ε);
// +inf when the event contains a mechanism without one (gaussian, leaf_balanced_gaussian, zcdp)
// or a renyi_filter (whose claim is at its order only). docs/math/pure_dp_order.md.
[[nodiscard]] double PureEpsilonUpper(const Event& event);

}  // namespace rdpkit::accountant::internal

#endif  // RDPKIT_ACCOUNTANT_SRC_PURE_DP_H_
