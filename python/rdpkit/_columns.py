"""The columns of X as the trainer reads them: text cells of categorical features as their codes
(as the CSV reader reads the same cells, docs/trees.md § CSV), and an error that names the column
when a text cell of another feature is not a number."""
import math

import numpy as np

from . import _json, _rdpkit
from ._errors import InvalidArgumentError


def is_text_dtype(dtype):
    """Whether a pandas column holds text (object, string or category dtype)."""
    return dtype.kind in "OSU" or str(dtype) in ("category", "string")


def cell_text(value):
    """A value of a text column as the text of a CSV cell ("" for None and NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, str):
        return value
    try:
        import pandas  # only reached for a pandas column or an object array
        if pandas.isna(value):
            return ""
    except (ImportError, TypeError, ValueError):
        pass
    return str(value)


def _require_utf8_cells(cells, j, name):
    """Refuses a cell that is not UTF-8 text (a lone surrogate), naming its column and row: the
    binding would otherwise fail with a TypeError that prints every cell of the column."""
    try:
        "\n".join(cells).encode("utf-8")
    except UnicodeEncodeError:
        for row, cell in enumerate(cells):
            _json.check_text(f"X column {name!r} (feature {j}), row {row}", cell)


def _is_frame(X):
    return hasattr(X, "iloc") and hasattr(X, "dtypes")


def codes_of_text(X, features):
    """X with the text columns of its categorical features (pandas object, string or category
    columns, or the columns of an object array) replaced by the values the CSV reader gives the
    same cells: numbers, missing values (None, NaN, "", "NA", ...) and the names the feature's
    "codes" list, as their codes. features: the schema's feature entries by position (None: X is
    returned as it is)."""
    if not features:
        return X
    is_frame = _is_frame(X)
    if not is_frame and not (isinstance(X, np.ndarray) and X.dtype == object and X.ndim == 2):
        return X
    out = features_json = None
    for j, feature in enumerate(features[:X.shape[1]]):
        if not feature.get("categorical"):
            continue
        column = X.iloc[:, j] if is_frame else X[:, j]
        if is_frame and not is_text_dtype(column.dtype):
            continue
        cells = [cell_text(value) for value in column]
        _require_utf8_cells(cells, j, feature.get("name", f"x{j}"))
        if features_json is None:  # all of them, checked as a schema's: errors name features[j]
            features_json = _json.dumps(features)
        values = _rdpkit.codes_of_cells(cells, features_json, j, "X")
        if out is None:
            out = X.copy() if is_frame else np.array(X, dtype=object)
        if is_frame:
            out.isetitem(j, values)
        else:
            out[:, j] = values
    return X if out is None else out


def _first_non_number(column):
    """(row, value) of the first cell of a column that float() refuses, or None."""
    for row, value in enumerate(column):
        try:
            float(value)
        except (TypeError, ValueError):
            return row, value
    return None


def text_column_error(X):
    """InvalidArgumentError naming the column, row and cell of X that is not a number (a text
    column of a feature that bounds does not declare categorical with named codes), or None."""
    if _is_frame(X):
        columns = [(str(name), X.iloc[:, j]) for j, name in enumerate(X.columns)]
    elif isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "OSU":
        columns = [(f"x{j}", X[:, j]) for j in range(X.shape[1])]
    else:
        return None
    for j, (name, column) in enumerate(columns):
        if _is_frame(X) and not is_text_dtype(column.dtype):
            continue
        bad = _first_non_number(column)
        if bad is None:
            continue
        row, value = bad
        accepted = ("numbers, or the names of a categorical feature's codes: "
                    f'bounds[{j}] = {{"categorical": True, "n_codes": K, "codes": [names]}}')
        return InvalidArgumentError(
            f"X column {name!r} (feature {j}), row {row}: {value!r} is not a number; a column of "
            f"names needs bounds[{j}] = {{\"categorical\": True, \"n_codes\": K, \"codes\": "
            "[names]}", "X", repr(value), accepted)
    return None
