// Privacy events: what a computation releases (DESIGN.md §1). Names follow Google dp_accounting's
// DpEvent vocabulary. Every mechanism is for sensitivity 1; scale the noise by the sensitivity.
//
// Each event validates its parameters in its constructor and throws rdpkit::InvalidArgument
// naming the field, the value and the accepted range. Events are immutable values.
#ifndef RDPKIT_ACCOUNTANT_EVENT_H_
#define RDPKIT_ACCOUNTANT_EVENT_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

namespace rdpkit::accountant {

class Event;

// Gaussian mechanism, noise standard deviation = noise_multiplier × L2 sensitivity.
class GaussianEvent {
 public:
  explicit GaussianEvent(double noise_multiplier);  // (0, inf)
  double noise_multiplier() const noexcept { return noise_multiplier_; }

 private:
  double noise_multiplier_;
};

// Leaf-balanced (non-spherical) Gaussian, S-BDT §5.2: D coordinates, coordinate d has sensitivity
// s_d and noise N(0, s_d²σ²/(D r_d)). weights r_d > 0 sum to 1; sensitivity_ratios
// c_d = s_d⁽ⁱ⁾/s_d ∈ [0, 1] describe one record (empty means the worst case, all 1).
class LeafBalancedGaussianEvent {
 public:
  LeafBalancedGaussianEvent(double noise_multiplier, std::vector<double> weights,
                            std::vector<double> sensitivity_ratios = {});
  double noise_multiplier() const noexcept { return noise_multiplier_; }
  const std::vector<double>& weights() const noexcept { return weights_; }
  // Empty when every ratio is 1 (the worst case).
  const std::vector<double>& sensitivity_ratios() const noexcept { return sensitivity_ratios_; }
  // D · Σ_d r_d c_d², the factor by which the curve exceeds α/(2σ²) (S-BDT Thm 16).
  double EffectiveScale() const noexcept;

 private:
  double noise_multiplier_;
  std::vector<double> weights_;
  std::vector<double> sensitivity_ratios_;
};

// Laplace mechanism, noise scale b = noise_multiplier × L1 sensitivity (pure ε =
// 1/noise_multiplier).
class LaplaceEvent {
 public:
  explicit LaplaceEvent(double noise_multiplier);  // (0, inf)
  double noise_multiplier() const noexcept { return noise_multiplier_; }

 private:
  double noise_multiplier_;
};

// Exponential mechanism analysed as ε-bounded range (Revisiting DP-XGBoost Thm 1).
class ExponentialEvent {
 public:
  explicit ExponentialEvent(double epsilon);  // (0, inf)
  double epsilon() const noexcept { return epsilon_; }

 private:
  double epsilon_;
};

// Any ε-DP mechanism.
class PureDpEvent {
 public:
  explicit PureDpEvent(double epsilon);  // [0, inf)
  double epsilon() const noexcept { return epsilon_; }

 private:
  double epsilon_;
};

// ρ-zero-concentrated DP (Bun–Steinke 2016): RDP curve ρα.
class ZcdpEvent {
 public:
  explicit ZcdpEvent(double rho);  // [0, inf)
  double rho() const noexcept { return rho_; }

 private:
  double rho_;
};

// The inner event run on a Poisson sample: each record included independently with probability q.
class PoissonSampledEvent {
 public:
  PoissonSampledEvent(double sampling_probability, Event event);  // q ∈ [0, 1]
  double sampling_probability() const noexcept { return sampling_probability_; }
  const Event& event() const noexcept { return *event_; }

 private:
  double sampling_probability_;
  std::shared_ptr<const Event> event_;
};

// The inner event run count times (adaptive composition).
class SelfComposedEvent {
 public:
  SelfComposedEvent(std::uint64_t count, Event event);  // count ∈ [0, 2^53]
  std::uint64_t count() const noexcept { return count_; }
  const Event& event() const noexcept { return *event_; }

 private:
  std::uint64_t count_;
  std::shared_ptr<const Event> event_;
};

// Several events, one after the other (adaptive composition).
class ComposedEvent {
 public:
  explicit ComposedEvent(std::vector<Event> events);
  const std::vector<Event>& events() const noexcept { return events_; }

 private:
  std::vector<Event> events_;
};

// Up to max_rounds adaptive rounds of the inner event under an individual Rényi filter at one
// order (Feldman & Zrnic 2021, Thm 4.5; S-BDT §6.5–6.6): a record takes part in a round only while
// its individual RDP at `order`, summed over the rounds it took part in, stays within `budget`.
// The run is (order, budget)-RDP and nothing is claimed at any other order, so its curve is
// `budget` at `order` and +inf elsewhere; ε is evaluated at `order` (convert.h). The inner event
// and max_rounds describe what ran; they do not enter the curve.
class RenyiFilterEvent {
 public:
  // order ∈ (1, 1e5], budget ∈ [0, inf), max_rounds ∈ [1, 2^53]. The inner event may not contain
  // another renyi_filter.
  RenyiFilterEvent(double order, double budget, std::uint64_t max_rounds, Event event);
  double order() const noexcept { return order_; }
  double budget() const noexcept { return budget_; }
  std::uint64_t max_rounds() const noexcept { return max_rounds_; }
  const Event& event() const noexcept { return *event_; }

 private:
  double order_;
  double budget_;
  std::uint64_t max_rounds_;
  std::shared_ptr<const Event> event_;
};

class Event {
 public:
  using Variant = std::variant<GaussianEvent, LeafBalancedGaussianEvent, LaplaceEvent,
                               ExponentialEvent, PureDpEvent, ZcdpEvent, PoissonSampledEvent,
                               SelfComposedEvent, ComposedEvent, RenyiFilterEvent>;

  template <class Alternative,
            class = std::enable_if_t<std::is_constructible_v<Variant, Alternative&&> &&
                                     !std::is_same_v<std::decay_t<Alternative>, Event>>>
  Event(Alternative&& alternative)  // NOLINT(google-explicit-constructor): events nest freely.
      : variant_(std::forward<Alternative>(alternative)) {}

  const Variant& variant() const noexcept { return variant_; }
  template <class Alternative>
  const Alternative* get_if() const noexcept {
    return std::get_if<Alternative>(&variant_);
  }

  // DESIGN.md §1 JSON. Unknown keys, wrong types, missing fields, non-finite numbers and
  // placeholders ("?") are InvalidArgument naming the JSON path of the field.
  static Event FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;

 private:
  Variant variant_;
};

// For visitors of Event::Variant: a dependent false, so that a visitor's last branch
// `else { static_assert(kAlwaysFalse<T>, "unhandled event kind"); }` fails to compile when a new
// event kind is added and the visitor does not handle it.
template <class T>
inline constexpr bool kAlwaysFalse = false;

// The orders of every renyi_filter inside the event (sorted, unique); empty when there is none.
// Where this is non-empty the event's curve is finite at these orders at most.
std::vector<double> FilterOrders(const Event& event);

// Convenience builders (these validate like the constructors).
Event SampledGaussian(double sampling_probability, double noise_multiplier, std::uint64_t count);

}  // namespace rdpkit::accountant

#endif  // RDPKIT_ACCOUNTANT_EVENT_H_
