"""The class list of a classifier: public (given as ``classes``, or the binary default 0 and 1)
or read off y, which no epsilon covers (DESIGN.md §4: labels are 0..K-1 with K public)."""
import numbers

import numpy as np
from sklearn.preprocessing import LabelEncoder

from . import _rdpkit
from ._errors import InvalidArgumentError

CLASSES_ACCEPTED = ("None, an integer K >= 2 (the labels 0..K-1) or a list of 2 or more distinct "
                    "labels")


def public_classes(classes):
    """The public class list of the `classes` parameter (an array), or None when not given."""
    if classes is None:
        return None
    if isinstance(classes, numbers.Integral) and not isinstance(classes, (bool, np.bool_)):
        if not 2 <= classes <= _rdpkit.MAX_CLASSES:
            # Before np.arange: classes = 10**9 would build a list of 8 GB first.
            raise InvalidArgumentError(
                f"classes = {classes} is outside [2, {_rdpkit.MAX_CLASSES}]", "classes",
                str(classes), f"the integers [2, {_rdpkit.MAX_CLASSES}] or a list of labels")
        return np.arange(int(classes))
    if isinstance(classes, (str, bytes, dict)) or not hasattr(classes, "__iter__"):
        raise InvalidArgumentError(f"classes = {classes!r} is not a list of labels", "classes",
                                   repr(classes), CLASSES_ACCEPTED)
    values = np.asarray(list(classes))
    if len(values) < 2 or len(np.unique(values)) != len(values):
        raise InvalidArgumentError(
            f"classes = {list(classes)!r} must be at least 2 distinct labels", "classes",
            repr(list(classes)), CLASSES_ACCEPTED)
    return values


def is_binary_default(classes):
    """Whether classes read off y are the public binary default: exactly the numbers 0 and 1
    (ints, floats or bools), whatever y holds (DESIGN.md §4: binary labels are 0 and 1)."""
    if len(classes) != 2 or classes.dtype.kind not in "biuf":
        return False
    return bool(classes[0] == 0 and classes[1] == 1)


def read_off(y):
    """(indices, classes) with the classes read off y, sorted (LabelEncoder)."""
    encoder = LabelEncoder()
    indices = encoder.fit_transform(y)
    return indices, encoder.classes_


def encode(y, classes):
    """y as indices into the public class list `classes` (its order is the model's)."""
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    position = np.clip(np.searchsorted(sorted_classes, y), 0, len(classes) - 1)
    unknown = sorted_classes[position] != y
    if np.any(unknown):
        label = np.asarray(y)[np.argmax(unknown)]
        raise InvalidArgumentError(
            f"y has the label {label!r}, which is not in classes", "y", repr(label),
            f"the labels of classes: {list(classes)!r}")
    return order[position]


def schema_names(classes):
    """The schema's "classes" (the names of classes 0..K-1), when every label is a non-empty
    string; None otherwise (a model file names classes with strings only)."""
    if all(isinstance(c, str) and c for c in classes):
        return [str(c) for c in classes]
    return None


def classes_of_model(n_classes, names, given):
    """classes_ of a loaded model with n_classes classes, named `names` in its file (or None),
    and the estimator's `classes` parameter `given` (public_classes): the given list names the
    model's classes 0..K-1, so its length must be K and it must equal the file's names."""
    if given is None:
        return np.asarray(names) if names else np.arange(n_classes)
    if len(given) != n_classes:
        raise InvalidArgumentError(
            f"classes has {len(given)} labels, the model {n_classes} classes", "classes",
            repr(list(given)), f"{n_classes} labels (the model's classes 0..{n_classes - 1})")
    if names and [str(c) for c in given] != list(names):
        raise InvalidArgumentError(
            f"classes = {list(given)!r} differs from the model's classes {list(names)!r}",
            "classes", repr(list(given)), f"None or the model's classes {list(names)!r}")
    return given
