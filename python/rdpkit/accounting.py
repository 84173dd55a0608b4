"""The accountant in dp_accounting's vocabulary: events, epsilon, delta, rdp, calibrate.

An event is plain data, the JSON of DESIGN.md §1; the C++ library validates it on construction
and does all the accounting. Any numeric field may be the string ``"?"`` for :func:`calibrate`.
"""
import json
import math
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Tuple, Union

from . import _json, _params, _rdpkit

PLACEHOLDER = "?"


def _has_placeholder(value):
    if isinstance(value, str):
        return value == PLACEHOLDER
    if isinstance(value, dict):
        return any(_has_placeholder(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_placeholder(v) for v in value)
    return False


# Arrays and objects nested deeper than this are refused, as the library refuses event text
# (kEventJsonLimits, json_input.h: 64 event levels of 2 JSON levels, plus the outer object).
MAX_EVENT_DEPTH = 2 * 64 + 2


def _to_plain(value, depth=1):
    """Nested Events as their JSON, tuples as lists, the depth checked; leaves as they are
    (_json.plain converts numpy values and refuses what JSON cannot hold, naming the path)."""
    if isinstance(value, Event):
        return value.to_json()
    if isinstance(value, (dict, list, tuple)) and depth > MAX_EVENT_DEPTH:
        # Before Python's own recursion limit: an InvalidArgumentError, not a RecursionError.
        raise _invalid("event", f"arrays and objects nested deeper than {MAX_EVENT_DEPTH} "
                       "levels (the limit for an event)")
    if isinstance(value, dict):
        return {str(k): _to_plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_plain(v, depth + 1) for v in value]
    return value


class Event:
    """A privacy event (DESIGN.md §1): what a computation releases.

    Build one with a constructor (``GaussianEvent(1.1)``, ``PoissonSampledEvent(0.01, ...)``)
    or from JSON (``Event.from_json('{"gaussian": {"noise_multiplier": 1.1}}')``). Event kinds
    without a constructor here (the library's newer ones) pass through ``from_json`` unchanged.
    """

    kind = None  # the JSON key of the event kind

    def __init__(self, json_data):
        data = _json.plain(_to_plain(json_data))
        if not isinstance(data, dict) or len(data) != 1:
            raise _invalid("event", "must be a JSON object with exactly one key (the event kind)")
        self._json = data
        if not _has_placeholder(data):
            # Validates every field (InvalidArgumentError naming its JSON path).
            _rdpkit.canonical_event(_json.dumps(data))

    @classmethod
    def from_json(cls, value: Union[str, bytes, dict]) -> "Event":
        """An event from JSON text or already parsed JSON (a dict), validated. Text is read as
        the command line reads it (json_input.h): a key given twice in one object, nesting
        deeper than an event's, NaN, 1e999, invalid UTF-8 or trailing text is refused
        (InvalidArgumentError naming the JSON path), never resolved by a guess."""
        if isinstance(value, (str, bytes)):
            if isinstance(value, str):
                _json.check_text("event", value)
            # Privacy: Python's json would keep the last of duplicate keys silently (e.g. a
            # second, larger noise_multiplier); the library's strict reader refuses them.
            _rdpkit.check_event_json_text(value)
            try:
                value = json.loads(value)
            except (ValueError, RecursionError) as error:
                raise _invalid("event", f"is not JSON: {error}") from None
        return Event(value)

    def to_json(self) -> dict:
        """The event's JSON (a new dict each call)."""
        return json.loads(json.dumps(self._json))

    def to_json_text(self) -> str:
        return _json.dumps(self._json, sort_keys=True)

    @property
    def event_kind(self) -> str:
        return next(iter(self._json))

    @property
    def has_placeholder(self) -> bool:
        """True when some field is "?" (an event to :func:`calibrate`)."""
        return _has_placeholder(self._json)

    def __eq__(self, other):
        return isinstance(other, Event) and self.to_json_text() == other.to_json_text()

    def __hash__(self):
        return hash(self.to_json_text())

    def __repr__(self):
        return f"Event.from_json({self.to_json_text()!r})"


def _invalid(field, message):
    from ._errors import InvalidArgumentError

    return InvalidArgumentError(f"{field}: {message}", field)


def _kind(name, fields, doc):
    """An Event subclass whose constructor takes `fields` and writes {name: {field: value}}."""

    def __init__(self, *args, **kwargs):
        params = dict(zip(fields, args))
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__} takes at most {len(fields)} arguments")
        for key, value in kwargs.items():
            if key not in fields or key in params:
                raise TypeError(f"{cls.__name__}: unexpected or repeated argument {key!r}")
            params[key] = value
        Event.__init__(self, {name: {k: v for k, v in params.items() if v is not None}})

    def getter(key):
        return property(lambda self: self._json[name].get(key))

    namespace = {"__init__": __init__, "__doc__": doc, "kind": name}
    for key in fields:
        namespace[key] = getter(key)
    cls = type("".join(part.title() for part in name.split("_")) + "Event", (Event,), namespace)
    return cls


GaussianEvent = _kind("gaussian", ("noise_multiplier",),
                      "Gaussian mechanism; noise standard deviation = noise_multiplier × L2 "
                      "sensitivity (dp_accounting's GaussianDpEvent).")
LaplaceEvent = _kind("laplace", ("noise_multiplier",),
                     "Laplace mechanism; scale = noise_multiplier × L1 sensitivity.")
ExponentialEvent = _kind("exponential", ("epsilon",),
                         "Exponential mechanism, analysed as epsilon-bounded range.")
PureDpEvent = _kind("pure_dp", ("epsilon",), "Any epsilon-DP mechanism.")
ZcdpEvent = _kind("zcdp", ("rho",), "rho-zero-concentrated DP.")
LeafBalancedGaussianEvent = _kind(
    "leaf_balanced_gaussian", ("noise_multiplier", "weights", "sensitivity_ratios"),
    "Leaf-balanced (non-spherical) Gaussian of S-BDT §5.2.")


class PoissonSampledEvent(Event):
    """The inner event run on a Poisson sample with rate sampling_probability
    (dp_accounting's PoissonSampledDpEvent(sampling_probability, event))."""

    kind = "poisson_sampled"

    def __init__(self, sampling_probability, event: Event):
        super().__init__({"poisson_sampled": {"sampling_probability": sampling_probability,
                                              "event": _event_json(event)}})

    sampling_probability = property(lambda self: self._json[self.kind]["sampling_probability"])
    event = property(lambda self: Event(self._json[self.kind]["event"]))


class SelfComposedEvent(Event):
    """The inner event run count times (dp_accounting's SelfComposedDpEvent(event, count))."""

    kind = "self_composed"

    def __init__(self, event: Event, count):
        super().__init__({"self_composed": {"count": count, "event": _event_json(event)}})

    count = property(lambda self: self._json[self.kind]["count"])
    event = property(lambda self: Event(self._json[self.kind]["event"]))


class ComposedEvent(Event):
    """Several events one after the other (dp_accounting's ComposedDpEvent(events))."""

    kind = "composed"

    def __init__(self, events: Sequence[Event]):
        super().__init__({"composed": [_event_json(e) for e in events]})

    events = property(lambda self: [Event(e) for e in self._json[self.kind]])


class RenyiFilterEvent(Event):
    """Up to max_rounds rounds of the inner event under an individual Rényi filter at one order."""

    kind = "renyi_filter"

    def __init__(self, order, budget, max_rounds, event: Event):
        super().__init__({"renyi_filter": {"order": order, "budget": budget,
                                           "max_rounds": max_rounds, "event": _event_json(event)}})


def _event_json(event):
    if isinstance(event, Event):
        return event.to_json()
    if isinstance(event, (dict, str)):
        return Event.from_json(event).to_json()
    raise TypeError(f"expected an Event, got {type(event).__name__}")


def _as_event(event) -> Event:
    return event if isinstance(event, Event) else Event.from_json(event)


@dataclass(frozen=True)
class EpsilonResult:
    """ε (or δ) of an event and how it was obtained. float(result) is the ε of an
    :func:`epsilon` result and the δ of a :func:`delta` result."""

    epsilon: float
    delta: float
    accountant: str  # "rdp", "gaussian", ... (the one that gave the value)
    certified: bool  # True: a guaranteed upper bound (outward-rounded)
    order: Optional[float] = None  # rdp: the Rényi order
    conversion: Optional[str] = None  # rdp: "mironov2017" or "balle2020"
    mu: Optional[float] = None  # gaussian: μ of the composition
    _value: str = field(default="epsilon", repr=False, compare=False)

    def __float__(self):
        return float(getattr(self, self._value))


@dataclass(frozen=True)
class CalibrationResult:
    """The solved parameter: ε(value) ≤ the target, certified."""

    parameter: str
    value: float
    epsilon: float
    delta: float
    accountant: str
    event: Optional[Event] = None  # the completed event ("?" form)
    order: Optional[float] = None
    conversion: Optional[str] = None
    mu: Optional[float] = None
    certified: bool = True

    def __float__(self):
        return float(self.value)


def _orders(orders):
    """The orders parameter as a list of floats: None (the default grid) or numbers."""
    if orders is None:
        return []
    if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__"):
        raise _params.invalid("orders", repr(orders), "None or a list of numbers in (1, inf)",
                              f"orders = {orders!r} is not a list of numbers")
    return [_params.check_number(f"orders[{i}]", o, "(1, inf)") for i, o in enumerate(orders)]


def _number(field, value, accepted):
    return _params.check_number(field, value, accepted)


def _result(fields, value="epsilon"):
    return EpsilonResult(epsilon=fields["epsilon"], delta=fields["delta"],
                         accountant=fields["accountant"], certified=fields["certified"],
                         order=fields["order"], conversion=fields["conversion"],
                         mu=fields["mu"], _value=value)


def epsilon(event, delta: float, *, orders=None, certified: bool = True,
            accountant: str = "best") -> EpsilonResult:
    """Smallest ε such that the event is (ε, δ)-DP (``rdpkit epsilon``). accountant: "best"
    (the smallest certified value of those that apply), "rdp", "gaussian", or any other name
    the library knows."""
    fields = _rdpkit.epsilon(_as_event(event).to_json_text(), _number("delta", delta, "[0, 1]"),
                             _orders(orders),
                             bool(certified), str(accountant))
    return _result(fields)


def delta(event, epsilon: float, *, orders=None, certified: bool = True,
          accountant: str = "best") -> EpsilonResult:
    """Smallest δ such that the event is (ε, δ)-DP (``rdpkit delta``); float() gives δ."""
    fields = _rdpkit.delta(_as_event(event).to_json_text(), _number("epsilon", epsilon, "[0, inf)"),
                           _orders(orders),
                           bool(certified), str(accountant))
    return _result(fields, value="delta")


def rdp(event, orders: Sequence[float], *, certified: bool = True):
    """ρ(α) at each order (``rdpkit rdp``): certified upper bounds, or double precision."""
    return _rdpkit.rdp(_as_event(event).to_json_text(), _orders(orders), bool(certified))


def calibrate(event: Union[Event, dict, str, Callable[[float], Event]], epsilon: float,
              delta: float, *, orders=None, accountant: str = "best",
              bracket: Optional[Tuple[float, float]] = None, increasing: Optional[bool] = None,
              integer: bool = False, parameter: str = "value",
              lower_inclusive: bool = False) -> CalibrationResult:
    """Solves for one parameter so that the event meets (ε, δ); the returned value never gives
    an ε above the target (``rdpkit calibrate``).

    Two forms:

    * an event with exactly one field ``"?"`` (``GaussianEvent("?")``): that field is solved;
    * a callable ``make_event(value) -> Event`` with ``bracket=(lower, upper)`` (the open lower
      and closed upper end of the domain), as dp_accounting's ``calibrate_dp_mechanism``:
      ``increasing`` says whether ε grows with the value (found by evaluating the two ends of
      the bracket when not given), ``integer`` whether the value is a whole number.
    """
    if callable(event) and not isinstance(event, Event):
        return _calibrate_callable(event, _number("epsilon", epsilon, "(0, inf)"),
                                   _number("delta", delta, "[0, 1)"), orders, accountant,
                                   bracket, increasing, integer, parameter, lower_inclusive)
    fields = _rdpkit.calibrate_text(_as_event_or_placeholder(event),
                                    _number("epsilon", epsilon, "(0, inf)"),
                                    _number("delta", delta, "[0, 1)"), _orders(orders),
                                    str(accountant))
    return CalibrationResult(parameter=fields["parameter"], value=fields["value"],
                             epsilon=fields["epsilon"], delta=fields["delta"],
                             accountant=fields["accountant"],
                             event=Event.from_json(fields["event"]), order=fields["order"],
                             conversion=fields["conversion"], mu=fields["mu"])


def _as_event_or_placeholder(event):
    if isinstance(event, Event):
        return event.to_json_text()
    if isinstance(event, dict):
        return _json.dumps(_to_plain(event))
    return _json.check_text("event", str(event))


def _calibrate_callable(make_event, target_epsilon, target_delta, orders, accountant, bracket,
                        increasing, integer, parameter, lower_inclusive):
    if not isinstance(bracket, (list, tuple)) or len(bracket) != 2:
        raise _invalid("bracket", "the callable form needs bracket=(lower, upper)")
    lower = _number("bracket[0]", bracket[0], "finite numbers below bracket[1]")
    upper = _number("bracket[1]", bracket[1], "finite numbers above bracket[0]")
    if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
        raise _invalid("bracket", f"({lower}, {upper}) must be finite with lower < upper")

    def event_text(value):
        return _as_event(make_event(int(value) if integer else value)).to_json_text()

    if increasing is None:
        # Compare ε at the middle and the upper end of the bracket (fast path: only the
        # direction is needed; the solver certifies its answer).
        middle = lower + (upper - lower) / 2
        if integer:
            middle = math.ceil(middle) if math.ceil(middle) < upper else math.floor(middle)
        low_eps = _rdpkit.epsilon(event_text(middle), target_delta, [], False, "rdp")["epsilon"]
        high_eps = _rdpkit.epsilon(event_text(upper), target_delta, [], False, "rdp")["epsilon"]
        if low_eps == high_eps:
            raise _invalid("increasing", "epsilon is the same at the middle and the upper end of "
                           "the bracket; say whether it grows with the parameter")
        increasing = high_eps > low_eps
    fields = _rdpkit.calibrate_function(event_text, parameter, bool(increasing), bool(integer),
                                        lower, upper, bool(lower_inclusive), target_epsilon,
                                        target_delta, _orders(orders), str(accountant))
    value = int(fields["value"]) if integer else fields["value"]
    return CalibrationResult(parameter=fields["parameter"], value=value,
                             epsilon=fields["epsilon"], delta=fields["delta"],
                             accountant=fields["accountant"], event=_as_event(make_event(value)),
                             order=fields["order"], conversion=fields["conversion"],
                             mu=fields["mu"])


def calibrate_dp_mechanism(make_event_from_param: Callable[[float], Event], target_epsilon: float,
                           target_delta: float, bracket_interval: Tuple[float, float],
                           discrete: bool = False, **options):
    """dp_accounting's name and argument order (without make_fresh_accountant: rdpkit's
    accountant is chosen with accountant=...). Returns the parameter value."""
    return calibrate(make_event_from_param, target_epsilon, target_delta,
                     bracket=bracket_interval, integer=discrete, **options).value
