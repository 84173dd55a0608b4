"""Checks of the estimators' parameters that the C++ library cannot make itself (it sees JSON,
not Python values): the forms of ``bounds``, numbers given as text or bools, integers beyond the
64-bit JSON range, the seed. Each error names the parameter, the value and the accepted range,
as the library's errors do (InvalidArgumentError: field, value, accepted)."""
import copy
import math
import numbers

import numpy as np

from . import _json, _rdpkit
from ._errors import InvalidArgumentError

# The keys of a feature dict in `bounds` (the schema's feature entry, DESIGN.md §4, without the
# name, which is the column's).
FEATURE_KEYS = ("categorical", "codes", "max", "min", "n_codes")

BOUNDS_ACCEPTED = (
    "one (min, max) pair for every feature; a list with one (min, max) pair or feature dict "
    "(keys " + ", ".join(FEATURE_KEYS) + ") per feature, in the order of X's columns; or "
    "diffprivlib's (mins, maxs), each a number or a list of one number per feature")

_INT32 = (-2 ** 31, 2 ** 31 - 1)  # the trainer's integer keys are C ints
_SEED_RANGE = "the integers [0, 2^64)"


def invalid(field, value, accepted, message=None):
    text = message or f"{field} = {value} is outside {accepted}"
    return InvalidArgumentError(text, field, str(value), accepted)


def is_number(value):
    """A real number that is not a bool (True is not an epsilon), text nor a numpy time (numpy
    counts timedelta64 as an integer)."""
    return isinstance(value, numbers.Real) and not isinstance(
        value, (bool, np.bool_, np.timedelta64, np.datetime64))


def as_float(field, value, accepted):
    """float(value) for a number; a Python int beyond the doubles (10**400) is refused as 1e999
    in JSON is, instead of float()'s bare OverflowError."""
    try:
        return float(value)
    except OverflowError:
        digits = str(value)
        shown = digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits)} digits)"
        raise invalid(field, shown, accepted,
                      f"{field} = {shown} is outside the finite numbers (magnitude below "
                      f"1.8e308; accepted: {accepted})") from None


def check_number(field, value, accepted):
    """float(value) when it is a real number (not a bool, not a string, not beyond the doubles);
    else the error. The range is the library's to check (it names `accepted` too)."""
    if not is_number(value):
        raise invalid(field, repr(value), accepted,
                      f"{field} = {value!r} is not a number (accepted: {accepted})")
    return as_float(field, value, accepted)


def check_whole(field, value, lowest, highest):
    """int(value) for a whole number in [lowest, highest] (an int, or a float such as 1e3 with no
    fraction); else the error. Nothing is truncated: 2.7 steps is no number of steps."""
    accepted = f"the whole numbers [{lowest}, {highest}]"
    whole = (isinstance(value, numbers.Integral) and is_number(value)) or (
        is_number(value) and math.isfinite(float(value)) and float(value).is_integer())
    if not whole:
        raise invalid(field, repr(value), accepted,
                      f"{field} = {value!r} is not a whole number (accepted: {accepted})")
    if not lowest <= int(value) <= highest:
        raise invalid(field, value, accepted)
    return int(value)


def config_dict(config):
    """The ``config`` parameter as plain JSON data (a new dict): None is {}; anything but a dict,
    or a "privacy" that is not a dict, is refused naming the key."""
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise invalid("config", repr(config), "None or a dict of trainer config keys",
                      f"config = {config!r} is not a dict of trainer config keys")
    if "privacy" in config and not isinstance(config["privacy"], dict):
        raise invalid("config.privacy", repr(config["privacy"]), "a dict (epsilon, delta, ...)",
                      f"config.privacy = {config['privacy']!r} is not a dict")
    return _json.plain(config)


def seed_of(random_state):
    """The trainer's seed for random_state: None (secure randomness), an integer in [0, 2^64), or
    a numpy RandomState/Generator, from which one integer is drawn."""
    if random_state is None:
        return None
    accepted = f"None, {_SEED_RANGE} or a numpy RandomState/Generator"
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state,
                                                                     (bool, np.bool_)):
        if not 0 <= random_state < 2 ** 64:
            raise invalid("random_state", random_state, _SEED_RANGE)
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    raise invalid("random_state", repr(random_state), accepted,
                  f"random_state = {random_state!r} is not one of {accepted}")


def _large_ints(value, path, found):
    """(path, value) of every int beyond the C int range in the config (JSON paths)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _large_ints(item, f"{path}.{key}" if path else str(key), found)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _large_ints(item, f"{path}[{index}]", found)
    elif isinstance(value, int) and not isinstance(value, bool):
        if not _INT32[0] <= value <= _INT32[1]:
            found.append((path, value))
    return found


def _set_path(config, path, value):
    node, keys = config, path.replace("]", "").replace("[", ".").split(".")
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node[key]
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def check_config_integers(config):
    """Refuses integers the trainer cannot read, naming the key's own accepted range: JSON
    integers beyond 64 bits would reach the library as doubles ("must be an integer, got
    1.18e+21"), and beyond the C int range it only says "the int range". The range is the
    library's: the value is replaced by the nearest int and the config checked again."""
    seed = config.get("seed")
    if isinstance(seed, int) and not isinstance(seed, bool) and not 0 <= seed < 2 ** 64:
        raise invalid("seed", seed, _SEED_RANGE)
    found = [(path, value) for path, value in _large_ints(config, "", []) if path != "seed"]
    if not found:
        return
    probe = copy.deepcopy(config)
    for path, value in found:
        _set_path(probe, path, _INT32[1] if value > 0 else _INT32[0])
    originals = dict(found)
    try:
        _rdpkit.check_config(_json.dumps(probe))
    except InvalidArgumentError as error:
        if error.field in originals and error.accepted:
            raise invalid(error.field, originals[error.field], error.accepted) from None
        if error.field not in originals:
            raise
    path, value = found[0]
    raise invalid(path, value, f"the integers [{_INT32[0]}, {_INT32[1]}]")


def _is_sequence(value):
    if isinstance(value, np.ndarray):
        return value.ndim > 0
    return isinstance(value, (list, tuple))


def _scalar(value):
    """A 0-d numpy array as its number (np.array(0.) is a number, not a list)."""
    return value.item() if isinstance(value, np.ndarray) and value.ndim == 0 else value


def _is_pair(entry):
    return _is_sequence(entry) and len(entry) == 2 and all(is_number(b) for b in entry)


def _pairs_valid(entries, n_features):
    """Whether bounds read as one (min, max) or feature dict per feature is valid."""
    if len(entries) != n_features:
        return False
    return all(isinstance(e, dict) or (_is_pair(e) and e[0] < e[1]) for e in entries)


def _mins_maxs(entries, n_features):
    """diffprivlib's reading of bounds, (mins, maxs) with a number or one number per feature
    each (at least one a list): the per-feature pairs, or None when bounds is not of that form."""
    if len(entries) != 2 or not any(_is_sequence(e) for e in entries):
        return None
    sides = []
    for side in entries:
        if is_number(side):
            sides.append([side] * n_features)
        elif _is_sequence(side) and len(side) == n_features and all(is_number(v) for v in side):
            sides.append(list(side))
        else:
            return None
    return list(zip(sides[0], sides[1]))


def lo_below_hi(pair):
    return bool(pair[0] < pair[1])


def _dicts_text(pairs):
    return "[" + ", ".join(f'{{"min": {lo!r}, "max": {hi!r}}}' for lo, hi in pairs) + "]"


def _per_feature(bounds, n_features):
    """bounds as one entry per feature ((min, max) pairs or feature dicts), refusing a bounds
    that both the per-feature and diffprivlib's (mins, maxs) reading accept differently."""
    if isinstance(bounds, dict) or not _is_sequence(bounds):
        hint = (" (a dict by feature name is not read: give a list in the order of X's columns)"
                if isinstance(bounds, dict) else "")
        raise invalid("bounds", repr(bounds), BOUNDS_ACCEPTED,
                      f"bounds = {bounds!r} is not one of the accepted forms{hint}; accepted: "
                      f"{BOUNDS_ACCEPTED}")
    entries = [_scalar(entry) for entry in bounds]
    if len(entries) == 2 and all(is_number(b) for b in entries):
        return [tuple(entries)] * n_features  # one (min, max) for every feature
    if len(entries) == 2 and not any(_is_sequence(e) or isinstance(e, dict) for e in entries):
        # The one (min, max) form with a value that is no number ("0", True, None).
        index = next(i for i, e in enumerate(entries) if not is_number(e))
        raise invalid(f"bounds[{index}]", repr(entries[index]), "a number",
                      f"bounds[{index}] = {entries[index]!r} is not a number (bounds = (min, "
                      f"max) for every feature; accepted: {BOUNDS_ACCEPTED})")
    as_pairs = _pairs_valid(entries, n_features)
    mins_maxs = _mins_maxs(entries, n_features)
    as_mins_maxs = mins_maxs is not None and all(lo_below_hi(p) for p in mins_maxs)
    if as_pairs and as_mins_maxs and [tuple(e) for e in entries] != mins_maxs:
        # Two features and a 2×2 bounds: never guess which reading was meant.
        pairs = [tuple(e) for e in entries]
        raise invalid(
            "bounds", repr(bounds), "an unambiguous form",
            f"bounds = {bounds!r} is ambiguous for X's {n_features} features: read as one "
            f"(min, max) per feature it is {pairs}, read as diffprivlib's (mins, maxs) it is "
            f"{mins_maxs}. Write it with feature dicts: {_dicts_text(pairs)} for the first "
            f"reading, {_dicts_text(mins_maxs)} for the second")
    if as_mins_maxs and not as_pairs:
        return mins_maxs
    if mins_maxs is not None and not as_pairs:
        # diffprivlib's (mins, maxs) with a pair that is no interval (NaN, min >= max).
        index, (lo, hi) = next((i, p) for i, p in enumerate(mins_maxs) if not lo_below_hi(p))
        raise invalid(f"bounds (feature {index})", f"min {lo!r}, max {hi!r}", "min < max",
                      f"bounds read as (mins, maxs) gives feature {index} min {lo!r} and max "
                      f"{hi!r}, which is no interval (accepted: min < max)")
    if len(entries) != n_features:
        raise invalid("bounds", f"{len(entries)} entries", BOUNDS_ACCEPTED,
                      f"bounds has {len(entries)} entries for the {n_features} features of X; "
                      f"accepted: {BOUNDS_ACCEPTED}")
    return entries


def feature_entries(bounds, feature_names):
    """The schema's feature entries (DESIGN.md §4) for `bounds` and the columns' names. The
    library checks the values (min < max, n_codes, ...), naming features[i]."""
    features = []
    for index, (name, entry) in enumerate(zip(feature_names,
                                              _per_feature(bounds, len(feature_names)))):
        field = f"bounds[{index}]"
        if isinstance(entry, dict):  # e.g. {"categorical": True, "n_codes": 4}
            entry = {str(k): v for k, v in entry.items()}
            for key in entry:
                if key == "name":
                    if entry[key] == name:
                        continue  # a schema's entry copied whole names its column again
                    raise invalid(f"{field}.name", repr(entry[key]), repr(name),
                                  f"{field}.name = {entry[key]!r} differs from the name of "
                                  f"column {index}, {name!r} (a feature dict may repeat its "
                                  "column's name, or leave it out)")
                if key not in FEATURE_KEYS:
                    accepted = ", ".join(FEATURE_KEYS)
                    raise invalid(f"{field}.{key}", repr(entry[key]), accepted,
                                  f"{field}.{key}: unknown key of a feature dict (column "
                                  f"{name!r}; accepted keys: {accepted})")
            features.append({**entry, "name": name})
        elif _is_pair(entry):
            features.append({"name": name,
                             "min": as_float(f"{field}[0]", entry[0], "the finite numbers"),
                             "max": as_float(f"{field}[1]", entry[1], "the finite numbers")})
        else:
            raise invalid(field, repr(entry), "(min, max) of numbers, or a feature dict",
                          f"{field} = {entry!r} (column {name!r}) is not a (min, max) pair of "
                          "numbers nor a feature dict")
    return features


def label_bounds_entry(label_bounds):
    """The schema's "label" entry for label_bounds (min, max)."""
    if not _is_pair(label_bounds):
        raise invalid("label_bounds", repr(label_bounds), "(min, max) of numbers",
                      f"label_bounds = {label_bounds!r} is not a (min, max) pair of numbers")
    return {"min": as_float("label_bounds[0]", label_bounds[0], "the finite numbers"),
            "max": as_float("label_bounds[1]", label_bounds[1], "the finite numbers")}
