"""JSON text for the C++ library, which reads standard JSON only. Values are made plain first
(numpy scalars and arrays become Python numbers and lists); what JSON cannot hold (a complex
number, a date, an object), a NaN or an infinity (which Python's json module would write as the
non-standard NaN / Infinity) and text that is not UTF-8 (a lone surrogate) are refused here,
naming their JSON path as the library names fields ("gaussian.noise_multiplier",
"privacy.epsilon", "features[0].min")."""
import json
import math
import numbers

import numpy as np

from ._errors import InvalidArgumentError

JSON_VALUES = "numbers, text, true/false, null, lists and dicts with text keys"


def _refuse(path, value, why):
    shown = repr(value)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return InvalidArgumentError(f"{path or 'value'} = {shown} {why}", path, shown, JSON_VALUES)


def check_text(path, text):
    """text itself when it is UTF-8 text; InvalidArgumentError naming path otherwise (a lone
    surrogate, as os.fsdecode makes of bytes that are not UTF-8). The message shows the text's
    first 40 characters only: it may be a cell of private data."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(
            f"{path or 'text'}: {ascii(text[:40])}{'...' if len(text) > 40 else ''} is not UTF-8 "
            f"text ({ascii(text[error.start])} at position {error.start}: a lone surrogate, as "
            "os.fsdecode makes of bytes that are not UTF-8)", path, ascii(text[:40]),
            "UTF-8 text") from None
    return text


def plain(value, path=""):
    """value as the plain Python data json.dumps writes: dicts with text keys, lists (from lists,
    tuples and numpy arrays), str, bool, None, int and float (numpy scalars converted). Anything
    else, a non-finite float and text that is not UTF-8 → InvalidArgumentError naming its path."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            key = check_text(path or "key", str(key))
            out[key] = plain(item, f"{path}.{key}" if path else key)
        return out
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [plain(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, (np.datetime64, np.timedelta64)):
        raise _refuse(path, value, f"is a {type(value).__name__}, not a number")
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return check_text(path, value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            # The library's own wording for a number beyond the doubles (e.g. 1e999 in a file).
            raise InvalidArgumentError(
                f"{path} = {value!r} is outside the finite numbers (magnitude below 1.8e308)",
                path, repr(value), "the finite numbers")
        return number
    raise _refuse(path, value, f"is a {type(value).__name__}, which JSON cannot hold "
                  f"(accepted: {JSON_VALUES})")


def dumps(data, **options):
    """json.dumps of plain(data) for the library: InvalidArgumentError naming the path of a value
    JSON cannot hold, a non-finite number or text that is not UTF-8."""
    return json.dumps(plain(data), allow_nan=False, **options)
