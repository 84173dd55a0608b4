"""JSON text for the C++ library, which reads standard JSON only: a NaN or an infinity (which
Python's json module would write as the non-standard NaN / Infinity) is refused here, naming its
JSON path as the library names fields ("gaussian.noise_multiplier", "privacy.epsilon",
"features[0].min")."""
import json
import math

from ._errors import InvalidArgumentError


def _check_finite(value, path):
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_finite(item, f"{path}[{index}]")
    elif isinstance(value, float) and not math.isfinite(value):
        # The library's own wording for a number beyond the doubles (e.g. 1e999 in a file).
        raise InvalidArgumentError(
            f"{path} = {value!r} is outside the finite numbers (magnitude below 1.8e308)",
            path, repr(value), "the finite numbers")


def dumps(data, **options):
    """json.dumps for data the library parses: every number finite, else InvalidArgumentError."""
    _check_finite(data, "")
    return json.dumps(data, allow_nan=False, **options)
