#include "rdpkit/accountant/event.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "rdpkit/accountant/errors.h"
#include "rdpkit/accountant/json_input.h"

namespace rdpkit::accountant {
namespace {

using nlohmann::json;

// Largest count accepted: every integer up to 2^53 is an exact double.
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 53;
// Leaf weights must sum to 1 up to this slack, which admits weights written with 4-5 decimals.
// The curve uses the weights exactly as given (never renormalised): it is exact for noise drawn
// with these weights whatever their sum, so the slack only catches typing mistakes.
constexpr double kWeightSumSlack = 1e-4;
// Largest filter order: the accountant's largest order (curves.h kMaxOrder).
constexpr double kMaxFilterOrder = 1e5;

void RequirePositiveFinite(double value, const char* field) {
  Require(std::isfinite(value) && value > 0, field, value, "(0, inf)");
}

// Events nest at most this deep, and one document holds at most kMaxEvents events: checked
// before any recursive code runs (CheckShape), so no input can exhaust the stack or the memory
// (docs/cli.md, "Inputs that are refused").
constexpr int kMaxEventDepth = 64;
constexpr std::size_t kMaxEvents = 10000;

// Path of a JSON member, in the one style of every rdpkit message (json_input.h).
std::string Join(const std::string& path, const std::string& key) { return JsonPathKey(path, key); }

std::string TypeName(const json& j) { return j.type_name(); }

// Reads a finite number; names the JSON path on failure.
double ReadNumber(const json& object, const std::string& key, const std::string& path) {
  const std::string field = Join(path, key);
  if (!object.contains(key)) throw InvalidArgument(field, "missing required field");
  const json& value = object.at(key);
  if (value.is_string() && value.get<std::string>() == "?") {
    throw InvalidArgument(field, "placeholder \"?\" is only accepted by calibrate");
  }
  if (!value.is_number()) {
    throw InvalidArgument(field, "expected a number, got " + TypeName(value));
  }
  const double number = value.get<double>();
  if (!std::isfinite(number)) {
    throw InvalidArgument(field, FormatNumber(number), "finite numbers");
  }
  return number;
}

std::vector<double> ReadNumberArray(const json& object, const std::string& key,
                                    const std::string& path, bool required) {
  const std::string field = Join(path, key);
  if (!object.contains(key)) {
    if (required) throw InvalidArgument(field, "missing required field");
    return {};
  }
  const json& value = object.at(key);
  if (!value.is_array()) throw InvalidArgument(field, "expected an array, got " + TypeName(value));
  std::vector<double> out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string item = field + "[" + std::to_string(i) + "]";
    if (!value[i].is_number()) {
      throw InvalidArgument(item, "expected a number, got " + TypeName(value[i]));
    }
    out.push_back(value[i].get<double>());
  }
  return out;
}

// A whole number in [min, 2^53]. JSON integers are read exactly (2^53 + 1 is not silently 2^53);
// a number with a fraction or exponent (1e6, 1000.0) only below 2^52, where a double still tells
// a whole number from its neighbours.
std::uint64_t ReadWholeNumber(const json& object, const std::string& key, const std::string& path,
                              std::uint64_t min) {
  const std::string field = Join(path, key);
  const std::string accepted = "whole numbers in [" + std::to_string(min) + ", 2^53]";
  (void)ReadNumber(object, key, path);  // present, a number, finite, not "?"
  const json& value = object.at(key);
  if (value.is_number_unsigned()) {
    const std::uint64_t whole = value.get<std::uint64_t>();
    if (whole < min || whole > kMaxCount) throw InvalidArgument(field, value.dump(), accepted);
    return whole;
  }
  if (value.is_number_integer()) {  // signed: JSON built in code ({"count", 30}); text gives
                                    // unsigned
    const std::int64_t whole = value.get<std::int64_t>();
    if (whole < 0 || static_cast<std::uint64_t>(whole) < min ||
        static_cast<std::uint64_t>(whole) > kMaxCount) {
      throw InvalidArgument(field, value.dump(), accepted);
    }
    return static_cast<std::uint64_t>(whole);
  }
  const double number = value.get<double>();
  if (!(number >= static_cast<double>(min) && std::floor(number) == number)) {
    throw InvalidArgument(field, FormatNumber(number), accepted);
  }
  if (!(number < static_cast<double>(kMaxCount / 2))) {
    throw InvalidArgument(field, FormatNumber(number),
                          accepted + " (from 2^52 up, write the number as a plain integer)");
  }
  return static_cast<std::uint64_t>(number);
}

std::uint64_t ReadCount(const json& object, const std::string& path) {
  return ReadWholeNumber(object, "count", path, /*min=*/0);
}

void RequireKeys(const json& object, const std::string& path,
                 std::initializer_list<const char*> allowed) {
  if (!object.is_object()) {
    throw InvalidArgument(path, "expected an object, got " + TypeName(object));
  }
  for (const auto& item : object.items()) {
    bool known = false;
    for (const char* key : allowed) known = known || item.key() == key;
    if (!known) {
      std::string list;
      for (const char* key : allowed) list += (list.empty() ? "" : ", ") + std::string(key);
      throw InvalidArgument(Join(path, item.key()), "unknown key (accepted: " + list + ")");
    }
  }
}

// Rethrows a constructor's InvalidArgument with the JSON path in front of the field.
template <class Build>
Event WithPath(const std::string& path, Build&& build) {
  try {
    return build();
  } catch (const InvalidArgument& error) {
    if (!error.accepted().empty()) {
      // The constructor's field is already a path ("weights[0]", "sum(weights)"): append as is.
      const std::string field = path.empty() ? error.field() : path + "." + error.field();
      throw InvalidArgument(field, error.value(), error.accepted());
    }
    throw;
  }
}

// Refuses documents that nest events deeper than kMaxEventDepth or hold more than kMaxEvents
// events. Iterative (explicit queue), so it runs safely on any json value, however deep; Parse's
// recursion then never goes deeper than kMaxEventDepth. Only the nesting is looked at here (an
// event is an object {kind: body}; its inner events are body.event and the elements of an array
// body); Parse reports every other problem.
void CheckShape(const json& root) {
  struct Node {
    const json* event;
    std::size_t parent;  // index in `nodes`; the root is its own parent
    std::size_t index;   // element index in a composed list, or kNotInList
    int depth;
  };
  constexpr std::size_t kNotInList = static_cast<std::size_t>(-1);
  std::vector<Node> nodes{{&root, 0, kNotInList, 1}};
  // Path of nodes[at], rebuilt only for the error message.
  const auto path_of = [&nodes](std::size_t at) {
    std::vector<std::size_t> chain;
    for (std::size_t i = at; i != 0; i = nodes[i].parent) chain.push_back(i);
    std::string path;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const json& parent = *nodes[nodes[*it].parent].event;
      path = Join(path, parent.items().begin().key());
      path = nodes[*it].index == kNotInList ? Join(path, "event")
                                            : path + "[" + std::to_string(nodes[*it].index) + "]";
    }
    return path.empty() ? std::string("event") : path;
  };
  for (std::size_t at = 0; at < nodes.size(); ++at) {
    const json& event = *nodes[at].event;
    if (!event.is_object() || event.size() != 1) continue;
    const json& body = event.items().begin().value();
    const int depth = nodes[at].depth + 1;
    const auto add = [&](const json* inner, std::size_t index) {
      nodes.push_back(Node{inner, at, index, depth});
      if (depth > kMaxEventDepth) {
        throw InvalidArgument(path_of(nodes.size() - 1), "events nest deeper than " +
                                                             std::to_string(kMaxEventDepth) +
                                                             " levels (the limit for an event)");
      }
      if (nodes.size() > kMaxEvents) {
        throw InvalidArgument(path_of(nodes.size() - 1),
                              "the event holds more than " + std::to_string(kMaxEvents) +
                                  " events (the limit for one event; write repeated events as "
                                  "self_composed with a count)");
      }
    };
    if (body.is_object()) {
      const auto inner = body.find("event");
      if (inner != body.end()) add(&*inner, kNotInList);
    } else if (body.is_array()) {
      for (std::size_t i = 0; i < body.size(); ++i) add(&body[i], i);
    }
  }
}

Event Parse(const json& j, const std::string& path);

Event ParseKind(const std::string& kind, const json& body, const std::string& path) {
  if (kind == "gaussian") {
    RequireKeys(body, path, {"noise_multiplier"});
    const double sigma = ReadNumber(body, "noise_multiplier", path);
    return WithPath(path, [&] { return Event(GaussianEvent(sigma)); });
  }
  if (kind == "leaf_balanced_gaussian") {
    RequireKeys(body, path, {"noise_multiplier", "weights", "sensitivity_ratios"});
    const double sigma = ReadNumber(body, "noise_multiplier", path);
    auto weights = ReadNumberArray(body, "weights", path, /*required=*/true);
    auto ratios = ReadNumberArray(body, "sensitivity_ratios", path, /*required=*/false);
    if (body.contains("sensitivity_ratios") && ratios.size() != weights.size()) {
      throw InvalidArgument(Join(path, "sensitivity_ratios"),
                            "has " + std::to_string(ratios.size()) + " entries, weights has " +
                                std::to_string(weights.size()) + "; they must match");
    }
    return WithPath(path, [&] {
      return Event(LeafBalancedGaussianEvent(sigma, std::move(weights), std::move(ratios)));
    });
  }
  if (kind == "laplace") {
    RequireKeys(body, path, {"noise_multiplier"});
    const double b = ReadNumber(body, "noise_multiplier", path);
    return WithPath(path, [&] { return Event(LaplaceEvent(b)); });
  }
  if (kind == "exponential") {
    RequireKeys(body, path, {"epsilon"});
    const double epsilon = ReadNumber(body, "epsilon", path);
    return WithPath(path, [&] { return Event(ExponentialEvent(epsilon)); });
  }
  if (kind == "pure_dp") {
    RequireKeys(body, path, {"epsilon"});
    const double epsilon = ReadNumber(body, "epsilon", path);
    return WithPath(path, [&] { return Event(PureDpEvent(epsilon)); });
  }
  if (kind == "zcdp") {
    RequireKeys(body, path, {"rho"});
    const double rho = ReadNumber(body, "rho", path);
    return WithPath(path, [&] { return Event(ZcdpEvent(rho)); });
  }
  if (kind == "poisson_sampled") {
    RequireKeys(body, path, {"sampling_probability", "event"});
    const double q = ReadNumber(body, "sampling_probability", path);
    if (!body.contains("event"))
      throw InvalidArgument(Join(path, "event"), "missing required field");
    Event inner = Parse(body.at("event"), Join(path, "event"));
    return WithPath(path, [&] { return Event(PoissonSampledEvent(q, std::move(inner))); });
  }
  if (kind == "self_composed") {
    RequireKeys(body, path, {"count", "event"});
    const std::uint64_t count = ReadCount(body, path);
    if (!body.contains("event"))
      throw InvalidArgument(Join(path, "event"), "missing required field");
    Event inner = Parse(body.at("event"), Join(path, "event"));
    return Event(SelfComposedEvent(count, std::move(inner)));
  }
  if (kind == "renyi_filter") {
    RequireKeys(body, path, {"order", "budget", "max_rounds", "event"});
    const double order = ReadNumber(body, "order", path);
    const double budget = ReadNumber(body, "budget", path);
    const std::uint64_t rounds = ReadWholeNumber(body, "max_rounds", path, /*min=*/1);
    if (!body.contains("event"))
      throw InvalidArgument(Join(path, "event"), "missing required field");
    Event inner = Parse(body.at("event"), Join(path, "event"));
    return WithPath(
        path, [&] { return Event(RenyiFilterEvent(order, budget, rounds, std::move(inner))); });
  }
  if (kind == "composed") {
    if (!body.is_array()) {
      throw InvalidArgument(path, "expected an array of events, got " + TypeName(body));
    }
    std::vector<Event> events;
    events.reserve(body.size());
    for (std::size_t i = 0; i < body.size(); ++i) {
      events.push_back(Parse(body[i], path + "[" + std::to_string(i) + "]"));
    }
    return Event(ComposedEvent(std::move(events)));
  }
  throw InvalidArgument(
      path.empty() ? kind : path,
      "unknown event \"" + Abbreviate(kind) +
          "\" (accepted: gaussian, leaf_balanced_gaussian, laplace, exponential, "
          "pure_dp, zcdp, poisson_sampled, self_composed, composed, renyi_filter)");
}

Event Parse(const json& j, const std::string& path) {
  const std::string where = path.empty() ? "event" : path;
  if (!j.is_object()) throw InvalidArgument(where, "expected an object, got " + TypeName(j));
  if (j.size() != 1) {
    throw InvalidArgument(where, "an event is an object with exactly one key (its kind), got " +
                                     std::to_string(j.size()));
  }
  const auto item = j.items().begin();
  return ParseKind(item.key(), item.value(), Join(path, item.key()));
}

json NumberArray(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(v);
  return out;
}

}  // namespace

GaussianEvent::GaussianEvent(double noise_multiplier) : noise_multiplier_(noise_multiplier) {
  RequirePositiveFinite(noise_multiplier, "noise_multiplier");
}

LeafBalancedGaussianEvent::LeafBalancedGaussianEvent(double noise_multiplier,
                                                     std::vector<double> weights,
                                                     std::vector<double> sensitivity_ratios)
    : noise_multiplier_(noise_multiplier),
      weights_(std::move(weights)),
      sensitivity_ratios_(std::move(sensitivity_ratios)) {
  RequirePositiveFinite(noise_multiplier, "noise_multiplier");
  if (weights_.empty()) throw InvalidArgument("weights", "must hold at least one weight");
  double sum = 0;
  for (std::size_t d = 0; d < weights_.size(); ++d) {
    Require(std::isfinite(weights_[d]) && weights_[d] > 0, "weights[" + std::to_string(d) + "]",
            weights_[d], "(0, 1]");
    sum += weights_[d];
  }
  Require(std::abs(sum - 1.0) <= kWeightSumSlack, "sum(weights)", sum, "[1 - 1e-4, 1 + 1e-4]");
  if (!sensitivity_ratios_.empty()) {
    if (sensitivity_ratios_.size() != weights_.size()) {
      throw InvalidArgument("sensitivity_ratios",
                            "has " + std::to_string(sensitivity_ratios_.size()) +
                                " entries, weights has " + std::to_string(weights_.size()));
    }
    for (std::size_t d = 0; d < sensitivity_ratios_.size(); ++d) {
      Require(sensitivity_ratios_[d] >= 0 && sensitivity_ratios_[d] <= 1,
              "sensitivity_ratios[" + std::to_string(d) + "]", sensitivity_ratios_[d], "[0, 1]");
    }
  }
}

double LeafBalancedGaussianEvent::EffectiveScale() const noexcept {
  double sum = 0;
  for (std::size_t d = 0; d < weights_.size(); ++d) {
    const double c = sensitivity_ratios_.empty() ? 1.0 : sensitivity_ratios_[d];
    sum += weights_[d] * c * c;
  }
  return static_cast<double>(weights_.size()) * sum;
}

LaplaceEvent::LaplaceEvent(double noise_multiplier) : noise_multiplier_(noise_multiplier) {
  RequirePositiveFinite(noise_multiplier, "noise_multiplier");
}

ExponentialEvent::ExponentialEvent(double epsilon) : epsilon_(epsilon) {
  RequirePositiveFinite(epsilon, "epsilon");
}

PureDpEvent::PureDpEvent(double epsilon) : epsilon_(epsilon) {
  Require(std::isfinite(epsilon) && epsilon >= 0, "epsilon", epsilon, "[0, inf)");
}

ZcdpEvent::ZcdpEvent(double rho) : rho_(rho) {
  Require(std::isfinite(rho) && rho >= 0, "rho", rho, "[0, inf)");
}

PoissonSampledEvent::PoissonSampledEvent(double sampling_probability, Event event)
    : sampling_probability_(sampling_probability),
      event_(std::make_shared<const Event>(std::move(event))) {
  Require(sampling_probability >= 0 && sampling_probability <= 1, "sampling_probability",
          sampling_probability, "[0, 1]");
  if (!FilterOrders(*event_).empty()) {
    // The subsampling bounds need the inner curve at many orders; a filter gives it at one.
    throw InvalidArgument("event", "a renyi_filter cannot be Poisson-sampled");
  }
}

SelfComposedEvent::SelfComposedEvent(std::uint64_t count, Event event)
    : count_(count), event_(std::make_shared<const Event>(std::move(event))) {
  Require(count <= kMaxCount, "count", static_cast<double>(count), "[0, 2^53]");
}

ComposedEvent::ComposedEvent(std::vector<Event> events) : events_(std::move(events)) {}

RenyiFilterEvent::RenyiFilterEvent(double order, double budget, std::uint64_t max_rounds,
                                   Event event)
    : order_(order),
      budget_(budget),
      max_rounds_(max_rounds),
      event_(std::make_shared<const Event>(std::move(event))) {
  Require(std::isfinite(order) && order > 1 && order <= kMaxFilterOrder, "order", order,
          "(1, 1e5]");
  Require(std::isfinite(budget) && budget >= 0, "budget", budget, "[0, inf)");
  Require(max_rounds >= 1 && max_rounds <= kMaxCount, "max_rounds", static_cast<double>(max_rounds),
          "[1, 2^53]");
  if (!FilterOrders(*event_).empty()) {
    throw InvalidArgument("event", "a renyi_filter cannot run inside another renyi_filter");
  }
}

namespace {
void CollectFilterOrders(const Event& event, std::vector<double>& out) {
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, RenyiFilterEvent>) {
          out.push_back(e.order());
          CollectFilterOrders(e.event(), out);
        } else if constexpr (std::is_same_v<T, PoissonSampledEvent> ||
                             std::is_same_v<T, SelfComposedEvent>) {
          CollectFilterOrders(e.event(), out);
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          for (const Event& inner : e.events()) CollectFilterOrders(inner, out);
        } else if constexpr (std::is_same_v<T, GaussianEvent> ||
                             std::is_same_v<T, LeafBalancedGaussianEvent> ||
                             std::is_same_v<T, LaplaceEvent> ||
                             std::is_same_v<T, ExponentialEvent> ||
                             std::is_same_v<T, PureDpEvent> || std::is_same_v<T, ZcdpEvent>) {
          // A mechanism holds no filter.
        } else {
          static_assert(kAlwaysFalse<T>, "unhandled event kind");
        }
      },
      event.variant());
}
}  // namespace

std::vector<double> FilterOrders(const Event& event) {
  std::vector<double> out;
  CollectFilterOrders(event, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Event Event::FromJson(const json& j) {
  CheckShape(j);
  return Parse(j, "");
}

json Event::ToJson() const {
  return std::visit(
      [](const auto& e) -> json {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, GaussianEvent>) {
          return {{"gaussian", {{"noise_multiplier", e.noise_multiplier()}}}};
        } else if constexpr (std::is_same_v<T, LeafBalancedGaussianEvent>) {
          json body = {{"noise_multiplier", e.noise_multiplier()},
                       {"weights", NumberArray(e.weights())}};
          if (!e.sensitivity_ratios().empty()) {
            body["sensitivity_ratios"] = NumberArray(e.sensitivity_ratios());
          }
          return {{"leaf_balanced_gaussian", body}};
        } else if constexpr (std::is_same_v<T, LaplaceEvent>) {
          return {{"laplace", {{"noise_multiplier", e.noise_multiplier()}}}};
        } else if constexpr (std::is_same_v<T, ExponentialEvent>) {
          return {{"exponential", {{"epsilon", e.epsilon()}}}};
        } else if constexpr (std::is_same_v<T, PureDpEvent>) {
          return {{"pure_dp", {{"epsilon", e.epsilon()}}}};
        } else if constexpr (std::is_same_v<T, ZcdpEvent>) {
          return {{"zcdp", {{"rho", e.rho()}}}};
        } else if constexpr (std::is_same_v<T, PoissonSampledEvent>) {
          return {{"poisson_sampled",
                   {{"sampling_probability", e.sampling_probability()},
                    {"event", e.event().ToJson()}}}};
        } else if constexpr (std::is_same_v<T, SelfComposedEvent>) {
          return {{"self_composed", {{"count", e.count()}, {"event", e.event().ToJson()}}}};
        } else if constexpr (std::is_same_v<T, RenyiFilterEvent>) {
          return {{"renyi_filter",
                   {{"order", e.order()},
                    {"budget", e.budget()},
                    {"max_rounds", e.max_rounds()},
                    {"event", e.event().ToJson()}}}};
        } else if constexpr (std::is_same_v<T, ComposedEvent>) {
          json list = json::array();
          for (const Event& inner : e.events()) list.push_back(inner.ToJson());
          return {{"composed", list}};
        } else {
          static_assert(kAlwaysFalse<T>, "unhandled event kind");
        }
      },
      variant_);
}

Event SampledGaussian(double sampling_probability, double noise_multiplier, std::uint64_t count) {
  return SelfComposedEvent(
      count, PoissonSampledEvent(sampling_probability, GaussianEvent(noise_multiplier)));
}

}  // namespace rdpkit::accountant
