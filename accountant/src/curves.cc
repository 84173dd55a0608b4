#include "rdpkit/accountant/curves.h"

#include <algorithm>
#include <cmath>

#include "certify.h"
#include "curves_impl.h"
#include "rdpkit/accountant/errors.h"
#include "real.h"

namespace rdpkit::accountant {
namespace {

void RequireOrder(double order) {
  Require(std::isfinite(order) && order > 1, "order", order, "(1, inf)");
}

}  // namespace

double RdpFast(const Event& event, double order) {
  RequireOrder(order);
  return internal::Rdp(event, order);
}

Bound RdpCertified(const Event& event, double order) {
  RequireOrder(order);
  return internal::Certify([&](auto zero) { return internal::Rdp(event, decltype(zero)(order)); },
                           [&] { return "certified RDP at order " + FormatNumber(order); });
}

const std::vector<double>& DefaultOrders() {
  static const std::vector<double> orders = [] {
    std::vector<double> out;
    // α − 1 = 10^{k/10}, k = −30..50: 1.001 … 1e5, 81 orders a tenth of a decade apart.
    for (int k = -30; k <= 50; ++k) out.push_back(1.0 + std::pow(10.0, k / 10.0));
    for (int a = 2; a <= 64; ++a) out.push_back(a);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    while (!out.empty() && out.back() > kMaxOrder) out.pop_back();
    return out;
  }();
  return orders;
}

}  // namespace rdpkit::accountant
