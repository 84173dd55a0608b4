"""scikit-learn estimators over rdpkit's private boosted-tree trainer (DESIGN.md §8).

``fit`` turns the array into the trainer's columns in one pass and calls the same C++ ``Train``
as ``rdpkit train``: the same data, schema, config and seed give the same model file.
"""
import json
import math
import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _json, _rdpkit
from ._errors import InvalidArgumentError, PrivacyLeakWarning
from .accounting import Event

# The trainer's config keys (DESIGN.md §5, docs/trees_training.md), each an estimator parameter
# under its config name; None leaves the key out of the config, so the trainer's auto rule chooses
# it (docs/trees_auto.md; defaults="static" keeps the key table's fixed defaults instead).
CONFIG_KEYS = (
    "defaults", "objective", "n_estimators", "max_depth", "categorical_depth", "learning_rate",
    "reg_lambda", "max_leaf_value", "noisy_hessian_floor", "negative_hessian_leaf", "split_method",
    "split_scope", "leaf_update", "split_candidates", "feature_interaction", "batch_size",
    "subsample", "gradient_clip", "hessian_clip", "leaf_noise_weights", "initial_score",
    "renyi_filter", "non_private", "threads",
)

_SEED_WARNING = (
    "random_state makes every noise draw of this fit reproducible: anyone who learns or guesses "
    "it (the trees' random splits let a guess be checked) can remove the noise, and epsilon_ "
    "does not hold against them. The model file does not record the seed. Use random_state for "
    "tests and reproducible experiments; for a model you publish, leave it None (secure "
    "randomness).")

_CLASSES_WARNING = (
    "classes were not given: the classes are read off y. Which classes occur (and so the "
    "number of class trees) is released with the model and no epsilon covers it (a class that "
    "only one record has gives that record away). Pass classes=[...] with the public list of "
    "classes.")

_BOUNDS_WARNING = (
    "bounds were not given: the feature bounds are read off the training data. This leaks "
    "private information (each feature's minimum and maximum are released with the model) and "
    "no epsilon covers it, so the model is marked not private. Pass bounds=[(min, max), ...] "
    "with public bounds for a differentially private model.")


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _is_text_dtype(dtype):
    """Whether a pandas column holds text (object, string or category dtype)."""
    return dtype.kind in "OSU" or str(dtype) in ("category", "string")


def _cell_text(value):
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


class _DPGBTBase(BaseEstimator):
    _default_objective = None  # set by the subclasses

    def _auto_objective(self):
        """The objective when none is given: the subclass's default."""
        return self._default_objective
    _task = None

    def __init__(self, epsilon=1.0, delta=None, bounds=None, random_state=None, *,
                 defaults=None, objective=None, n_estimators=None, max_depth=None,
                 categorical_depth=None, learning_rate=None, reg_lambda=None, max_leaf_value=None,
                 noisy_hessian_floor=None, negative_hessian_leaf=None, split_method=None,
                 split_scope=None, leaf_update=None, split_candidates=None,
                 feature_interaction=None, batch_size=None, subsample=None, gradient_clip=None,
                 hessian_clip=None, leaf_noise_weights=None, initial_score=None, renyi_filter=None,
                 non_private=None, threads=None, allow_large_delta=None, label_bounds=None,
                 classes=None,
                 config=None):
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.random_state = random_state
        self.defaults = defaults
        self.objective = objective
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.categorical_depth = categorical_depth
        self.learning_rate = learning_rate
        self.reg_lambda = reg_lambda
        self.max_leaf_value = max_leaf_value
        self.noisy_hessian_floor = noisy_hessian_floor
        self.negative_hessian_leaf = negative_hessian_leaf
        self.split_method = split_method
        self.split_scope = split_scope
        self.leaf_update = leaf_update
        self.split_candidates = split_candidates
        self.feature_interaction = feature_interaction
        self.batch_size = batch_size
        self.subsample = subsample
        self.gradient_clip = gradient_clip
        self.hessian_clip = hessian_clip
        self.leaf_noise_weights = leaf_noise_weights
        self.initial_score = initial_score
        self.renyi_filter = renyi_filter
        self.non_private = non_private
        self.threads = threads
        self.allow_large_delta = allow_large_delta
        self.label_bounds = label_bounds
        self.classes = classes
        self.config = config

    # ------------------------------------------------------------------ configuration
    def trainer_config(self):
        """The trainer config JSON (a dict) that fit uses: ``config`` (further keys), the
        config-key parameters that are set, privacy from epsilon/delta, seed from random_state.
        ``rdpkit train --config`` with this config trains the same model."""
        config = _plain(dict(self.config or {}))
        for key in CONFIG_KEYS:
            value = getattr(self, key)
            if value is not None:
                config[key] = _plain(value)
        config.setdefault("objective", self._auto_objective())
        if not config.get("non_private", False):  # a non-private run takes no privacy target
            privacy = dict(config.get("privacy", {}))
            if self.epsilon is not None:
                privacy["epsilon"] = float(self.epsilon)
            if self.delta is not None:
                privacy["delta"] = float(self.delta)
            if self.allow_large_delta is not None:
                privacy["allow_large_delta"] = bool(self.allow_large_delta)
            config["privacy"] = privacy
        seed = self._seed()
        if seed is not None:
            config["seed"] = seed
        return config

    def _seed(self):
        if self.random_state is None:
            return None  # the trainer draws secure randomness
        if isinstance(self.random_state, numbers.Integral):
            if self.random_state < 0:
                raise InvalidArgumentError(
                    f"random_state = {self.random_state} is outside [0, 2^64)", "random_state",
                    str(self.random_state), "[0, 2^64)")
            return int(self.random_state)
        return int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))

    def schema(self, n_features, feature_names):
        """The schema JSON (a dict) for the public bounds, or None without bounds."""
        if self.bounds is None:
            return None
        bounds = self.bounds
        is_pair = (isinstance(bounds, (tuple, list, np.ndarray)) and len(bounds) == 2
                   and all(isinstance(b, numbers.Real) for b in bounds))
        if is_pair:  # one (min, max) for every feature
            bounds = [tuple(bounds)] * n_features
        if len(bounds) != n_features:
            raise InvalidArgumentError(
                f"bounds has {len(bounds)} entries, X has {n_features} features", "bounds",
                str(len(bounds)), f"one (min, max) per feature ({n_features})")
        features = []
        for name, entry in zip(feature_names, bounds):
            if isinstance(entry, dict):  # e.g. {"categorical": True, "n_codes": 4}
                feature = {"name": name, **_plain(entry)}
            else:
                if len(entry) != 2:
                    raise InvalidArgumentError(f"bounds entry {entry!r} is not (min, max)",
                                               "bounds", repr(entry), "(min, max) pairs")
                feature = {"name": name, "min": float(entry[0]), "max": float(entry[1])}
            features.append(feature)
        schema = {"task": self._schema_task(), "features": features}
        if self.label_bounds is not None:
            schema["label"] = {"min": float(self.label_bounds[0]),
                               "max": float(self.label_bounds[1])}
        return schema

    def _schema_task(self):
        objective = self.objective or self._auto_objective()
        if objective.startswith("multi:"):
            return "multiclass"
        return "binary" if objective.startswith("binary:") else "regression"

    # ------------------------------------------------------------------ text features
    def _codes_of_text(self, X, features):
        """X with the text columns of its categorical features (pandas object, string or
        category columns, or the columns of an object array) replaced by the values the CSV
        reader gives the same cells (docs/trees.md § CSV): numbers, missing values (None, NaN,
        "", "NA", ...) and the names the feature's "codes" list, as their codes. features: the
        schema's feature entries by position (None: X is returned as it is)."""
        if not features:
            return X
        is_frame = hasattr(X, "iloc") and hasattr(X, "dtypes")
        if not is_frame and not (isinstance(X, np.ndarray) and X.dtype == object and X.ndim == 2):
            return X
        out = None
        for j, feature in enumerate(features[:X.shape[1]]):
            if not feature.get("categorical"):
                continue
            column = X.iloc[:, j] if is_frame else X[:, j]
            if is_frame and not _is_text_dtype(column.dtype):
                continue
            cells = [_cell_text(value) for value in column]
            values = _rdpkit.codes_of_cells(cells, _json.dumps(feature), "X")
            if out is None:
                out = X.copy() if is_frame else np.array(X, dtype=object)
            if is_frame:
                out.isetitem(j, values)
            else:
                out[:, j] = values
        return X if out is None else out

    def _fit_features(self, X):
        """The schema's feature entries for fitting on X (None without bounds)."""
        if self.bounds is None or not hasattr(X, "shape") or len(X.shape) != 2:
            return None
        names = ([str(c) for c in X.columns] if hasattr(X, "columns")
                 else [f"x{i}" for i in range(X.shape[1])])
        try:
            return self.schema(X.shape[1], names)["features"]
        except InvalidArgumentError:
            return None  # fit reports the bad bounds

    # ------------------------------------------------------------------ fitting
    def _check_X_y(self, X, y, y_numeric):
        # float64 arrays as given are used as they are (no copy); other inputs are converted once.
        return self._validate_data(X, y, reset=True, dtype=np.float64,
                                   force_all_finite="allow-nan", y_numeric=y_numeric)

    def _fit(self, X, y_encoded):
        n_features = X.shape[1]
        names = ([str(n) for n in self.feature_names_in_] if hasattr(self, "feature_names_in_")
                 else [f"x{i}" for i in range(n_features)])
        schema = self.schema(n_features, names)
        if schema is None:
            warnings.warn(_BOUNDS_WARNING, PrivacyLeakWarning, stacklevel=3)
        config = self.trainer_config()
        if "seed" in config and not config.get("non_private", False):
            warnings.warn(_SEED_WARNING, PrivacyLeakWarning, stacklevel=3)
        if schema is not None and "n_classes" not in schema and schema["task"] == "multiclass":
            schema["n_classes"] = len(self.classes_)
        self.model_ = _rdpkit.train(X, np.ascontiguousarray(y_encoded, dtype=np.float64), names,
                                    "" if schema is None else _json.dumps(schema),
                                    _json.dumps(config))
        self._set_fitted_attributes()
        return self

    def _set_fitted_attributes(self):
        privacy = json.loads(self.model_.privacy_json)
        self.private_ = privacy.get("private", True) is not False
        if self.private_:
            self.epsilon_ = float(privacy["epsilon"])
            self.delta_ = float(privacy["delta"])
            self.privacy_event_ = Event.from_json(privacy["event"])
        else:
            self.epsilon_ = math.inf
            self.delta_ = None
            self.privacy_event_ = None
        self.privacy_ = privacy
        schema = self.model_.schema_json
        self._schema_features = json.loads(schema)["features"] if schema else None
        self.n_features_in_ = len(self.model_.feature_names)
        self.n_estimators_ = self.model_.n_trees
        # Non-private local log (clipped values, ...): for the operator, never published.
        self.training_log_ = json.loads(self.model_.training_log_json)

    def _raw_predict(self, X):
        check_is_fitted(self, "model_")
        X = self._codes_of_text(X, self._schema_features)
        X = self._validate_data(X, reset=False, dtype=np.float64, force_all_finite="allow-nan")
        return np.asarray(self.model_.predict(X))

    # ------------------------------------------------------------------ model files
    def save_model(self, path):
        """Writes the model file (DESIGN.md §6), the format ``rdpkit train`` writes and
        ``rdpkit predict`` reads."""
        check_is_fitted(self, "model_")
        self.model_.save(str(path))

    def load_model(self, path):
        """Reads a model file written by ``rdpkit train`` or :meth:`save_model`."""
        self.model_ = _rdpkit.Model.load(str(path))
        self._set_fitted_attributes()
        self._after_load()
        return self

    def model_json(self):
        """The model file's JSON (a dict)."""
        check_is_fitted(self, "model_")
        return json.loads(self.model_.to_json_text())

    def _after_load(self):
        pass

    def _more_tags(self):
        return {"allow_nan": True, "non_deterministic": self.random_state is None}


class DPGBTClassifier(ClassifierMixin, _DPGBTBase):
    """Differentially private gradient-boosted trees for classification: binary
    (binary:logistic), or native multiclass when y has more than two classes (multi:softprob, K
    class trees per round; objective="multi:ovr" for one-vs-rest).

    Parameters: epsilon, delta (the run's target; delta defaults to a power of ten below 1/n),
    bounds (public (min, max) per feature, or one pair for all; without it the bounds come from
    the data with a PrivacyLeakWarning and the model is marked not private), classes (the public
    list of class labels, in the model's order; without it the classes are read off y, and with
    more than two a PrivacyLeakWarning says that which classes occur is released), random_state
    (the config's seed; a seed reproduces the noise, see PrivacyLeakWarning) and every trainer
    config key under its config name (docs/trees_training.md).
    After fit: epsilon_, delta_, privacy_event_, n_features_in_, classes_.
    """

    _default_objective = "binary:logistic"

    def _auto_objective(self):
        # More than two classes in y: native multiclass (multi:softprob, docs/trees_training.md).
        if len(getattr(self, "classes_", ())) > 2:
            return "multi:softprob"
        return self._default_objective

    def fit(self, X, y):
        X = self._codes_of_text(X, self._fit_features(X))
        X, y = self._check_X_y(X, y, y_numeric=False)
        check_classification_targets(y)
        if self.classes is None:
            encoder = LabelEncoder()
            y_encoded = encoder.fit_transform(y)
            self.classes_ = encoder.classes_
            if len(self.classes_) > 2 and not self.non_private:
                warnings.warn(_CLASSES_WARNING, PrivacyLeakWarning, stacklevel=2)
        else:
            y_encoded = self._encode_with_public_classes(y)
        objective = self.objective or self._auto_objective()
        if objective.startswith("binary:") and len(self.classes_) != 2:
            raise InvalidArgumentError(
                f"y has {len(self.classes_)} classes; {objective} needs exactly 2", "y",
                str(len(self.classes_)), "2 classes")
        if objective.startswith("multi:") and len(self.classes_) < 2:
            raise InvalidArgumentError(
                f"y has {len(self.classes_)} class; {objective} needs at least 2", "y",
                str(len(self.classes_)), "2 or more classes")
        return self._fit(X, y_encoded)

    def _encode_with_public_classes(self, y):
        """y as indices into the public class list `classes` (its order is the model's)."""
        classes = np.asarray(list(self.classes))
        if len(classes) < 2 or len(np.unique(classes)) != len(classes):
            raise InvalidArgumentError(
                f"classes = {list(self.classes)!r} must be at least 2 distinct labels", "classes",
                repr(list(self.classes)), "a list of 2 or more distinct labels")
        order = np.argsort(classes, kind="stable")
        sorted_classes = classes[order]
        position = np.clip(np.searchsorted(sorted_classes, y), 0, len(classes) - 1)
        unknown = sorted_classes[position] != y
        if np.any(unknown):
            label = np.asarray(y)[np.argmax(unknown)]
            raise InvalidArgumentError(
                f"y has the label {label!r}, which is not in classes", "y", repr(label),
                f"the labels of classes: {list(self.classes)!r}")
        self.classes_ = classes
        return order[position]

    def predict_proba(self, X):
        """Class probabilities, columns in the order of classes_."""
        p = self._raw_predict(X)
        if p.ndim == 2:
            return p
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def _after_load(self):
        # A model file holds class indices (multiclass: n_classes of them; binary: 0 and 1, as in
        # the CSV), not the names y had.
        self.classes_ = np.arange(max(self.model_.n_classes, 2))

    def _more_tags(self):
        # sklearn's multiclass checks are left out (their toy sets are tiny for DP); multiclass is
        # tested in python/tests/test_estimators.py.
        return {**super()._more_tags(), "binary_only": True}


class DPGBTRegressor(RegressorMixin, _DPGBTBase):
    """Differentially private gradient-boosted trees for regression (reg:squarederror).

    Parameters as DPGBTClassifier, plus label_bounds: public (min, max) of the label, from which
    the default label and gradient clips follow (the schema's "label" bounds).
    """

    _default_objective = "reg:squarederror"

    def fit(self, X, y):
        if self.classes is not None:
            raise InvalidArgumentError("classes is given for a regressor (classifiers only)",
                                       "classes", repr(self.classes), "None")
        X = self._codes_of_text(X, self._fit_features(X))
        X, y = self._check_X_y(X, y, y_numeric=True)
        return self._fit(X, y)

    def predict(self, X):
        return self._raw_predict(X)
