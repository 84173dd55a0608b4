// The accountant for Python: events travel as JSON text (DESIGN.md §1), so every event kind and
// accountant name the C++ library knows passes through unchanged, and the Python side stays a
// thin layer of dp_accounting-style names (python/rdpkit/accounting.py).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "rdpkit/accountant/calibrate.h"
#include "rdpkit/accountant/convert.h"
#include "rdpkit/accountant/curves.h"
#include "rdpkit/accountant/event.h"
#include "rdpkit/accountant/json_input.h"
#include "rdpkit/accountant/privacy_curve.h"

namespace py = pybind11;

namespace rdpkit::python {
namespace {

using accountant::Accountant;
using accountant::ConversionOptions;
using accountant::Event;

nlohmann::json ParseEventText(const std::string& text, const std::string& field) {
  return ParseJson(text, field, "JSON text", kEventJsonLimits);
}

Event EventOf(const std::string& text) { return Event::FromJson(ParseEventText(text, "event")); }

ConversionOptions OptionsOf(const std::vector<double>& orders, bool certified,
                            const std::string& accountant) {
  ConversionOptions options;
  options.orders = orders;
  options.certified = certified;
  options.accountant = accountant::AccountantFromName(accountant);
  options.Validate();
  return options;
}

// The fields that say how a value was obtained, as `rdpkit epsilon` prints them: the RDP order
// and conversion, or μ of the exact Gaussian accountant.
py::dict AccountingFields(Accountant accountant, double order, accountant::Conversion conversion,
                          double mu) {
  py::dict fields;
  fields["accountant"] = accountant::AccountantName(accountant);
  // As the command line prints them: order and conversion for rdp, mu for gaussian, neither for
  // pld.
  const bool rdp = accountant == Accountant::kRdp;
  fields["mu"] = accountant == Accountant::kGaussian ? py::cast(mu) : py::none();
  fields["order"] = rdp ? py::cast(order) : py::none();
  fields["conversion"] = rdp ? py::cast(accountant::ConversionName(conversion)) : py::none();
  return fields;
}

// An EpsilonResult or DeltaResult as the dict `rdpkit epsilon|delta` prints.
template <typename Result>
py::dict ResultFields(const Result& r) {
  py::dict out = AccountingFields(r.accountant, r.order, r.conversion, r.mu);
  out["epsilon"] = r.epsilon;
  out["delta"] = r.delta;
  out["certified"] = r.certified;
  return out;
}

py::dict EpsilonOf(const std::string& event, double delta, const std::vector<double>& orders,
                   bool certified, const std::string& accountant) {
  const Event parsed = EventOf(event);
  const ConversionOptions options = OptionsOf(orders, certified, accountant);
  accountant::EpsilonResult r;
  {
    py::gil_scoped_release release;
    r = accountant::Epsilon(parsed, delta, options);
  }
  return ResultFields(r);
}

py::dict DeltaOf(const std::string& event, double epsilon, const std::vector<double>& orders,
                 bool certified, const std::string& accountant) {
  const Event parsed = EventOf(event);
  const ConversionOptions options = OptionsOf(orders, certified, accountant);
  accountant::DeltaResult r;
  {
    py::gil_scoped_release release;
    r = accountant::Delta(parsed, epsilon, options);
  }
  return ResultFields(r);
}

// (steps, ε fields) at each point of the curve (privacy_curve.h).
py::list PrivacyCurveOf(const std::string& step, std::uint64_t steps, double delta, int points,
                        const std::vector<double>& orders, bool certified,
                        const std::string& accountant) {
  const Event parsed = EventOf(step);
  const ConversionOptions options = OptionsOf(orders, certified, accountant);
  std::vector<accountant::CurvePoint> curve;
  {
    py::gil_scoped_release release;
    curve = accountant::PrivacyCurve(parsed, steps, delta, points, options);
  }
  py::list out;
  for (const auto& point : curve) {
    const accountant::EpsilonResult& r = point.epsilon;
    py::dict fields = AccountingFields(r.accountant, r.order, r.conversion, r.mu);
    fields["epsilon"] = r.epsilon;
    fields["delta"] = r.delta;
    fields["certified"] = r.certified;
    out.append(py::make_tuple(point.steps, fields));
  }
  return out;
}

// ρ(α) at each order: the certified upper bound, or the double-precision value.
std::vector<double> RdpOf(const std::string& event, const std::vector<double>& orders,
                          bool certified) {
  const Event parsed = EventOf(event);
  std::vector<double> rdp;
  rdp.reserve(orders.size());
  py::gil_scoped_release release;
  for (const double order : orders) {
    rdp.push_back(certified ? accountant::RdpCertified(parsed, order).upper
                            : accountant::RdpFast(parsed, order));
  }
  return rdp;
}

py::dict CalibrationFields(const accountant::CalibrationResult& r) {
  py::dict out = AccountingFields(r.accountant, r.order, r.conversion, r.mu);
  out["parameter"] = r.parameter;
  out["value"] = r.value;
  out["epsilon"] = r.epsilon;
  out["delta"] = r.delta;
  out["certified"] = true;
  return out;
}

// The "?" form: the event's one placeholder field is solved for (accountant::CalibrateJson).
py::dict CalibrateText(const std::string& event, double epsilon, double delta,
                       const std::vector<double>& orders, const std::string& accountant) {
  const nlohmann::json json = ParseEventText(event, "event");
  const ConversionOptions options = OptionsOf(orders, true, accountant);
  accountant::JsonCalibrationResult solved = [&] {
    py::gil_scoped_release release;
    return accountant::CalibrateJson(json, epsilon, delta, options);
  }();
  py::dict out = CalibrationFields(solved.result);
  out["event"] = solved.event.dump();
  return out;
}

// The callable form (dp_accounting's calibrate_dp_mechanism): make_event(value) returns the
// event's JSON text for a parameter value. It runs Python, so the GIL stays held.
py::dict CalibrateFunction(const std::function<std::string(double)>& make_event,
                           const std::string& parameter, bool increasing, bool integer,
                           double lower, double upper, bool lower_inclusive, double epsilon,
                           double delta, const std::vector<double>& orders,
                           const std::string& accountant) {
  accountant::CalibrationProblem problem;
  problem.make_event = [make_event](double value) { return EventOf(make_event(value)); };
  problem.parameter = parameter;
  problem.increasing = increasing;
  problem.integer = integer;
  problem.lower = lower;
  problem.upper = upper;
  problem.lower_inclusive = lower_inclusive;
  return CalibrationFields(
      accountant::Calibrate(problem, epsilon, delta, OptionsOf(orders, true, accountant)));
}

}  // namespace

void BindAccountant(py::module_& m) {
  m.def(
      "canonical_event", [](const std::string& event) { return EventOf(event).ToJson().dump(); },
      py::arg("event"),
      "Validates event JSON text (DESIGN.md §1) and returns its canonical JSON text.");
  m.def(
      "check_event_json_text",
      [](const std::string& text) { static_cast<void>(ParseEventText(text, "event")); },
      py::arg("text"),
      "Refuses event JSON text as the command line does (json_input.h: duplicate keys, nesting "
      "deeper than an event's, NaN, 1e999, invalid UTF-8, trailing text), naming the JSON path.");
  m.def("epsilon", &EpsilonOf, py::arg("event"), py::arg("delta"), py::arg("orders"),
        py::arg("certified"), py::arg("accountant"));
  m.def("delta", &DeltaOf, py::arg("event"), py::arg("epsilon"), py::arg("orders"),
        py::arg("certified"), py::arg("accountant"));
  m.def("rdp", &RdpOf, py::arg("event"), py::arg("orders"), py::arg("certified"));
  m.def("calibrate_text", &CalibrateText, py::arg("event"), py::arg("epsilon"), py::arg("delta"),
        py::arg("orders"), py::arg("accountant"));
  m.def("calibrate_function", &CalibrateFunction, py::arg("make_event"), py::arg("parameter"),
        py::arg("increasing"), py::arg("integer"), py::arg("lower"), py::arg("upper"),
        py::arg("lower_inclusive"), py::arg("epsilon"), py::arg("delta"), py::arg("orders"),
        py::arg("accountant"));
  m.def("privacy_curve", &PrivacyCurveOf, py::arg("step"), py::arg("steps"), py::arg("delta"),
        py::arg("points"), py::arg("orders"), py::arg("certified"), py::arg("accountant"));
  m.def("default_orders", [] { return accountant::DefaultOrders(); });
}

}  // namespace rdpkit::python
