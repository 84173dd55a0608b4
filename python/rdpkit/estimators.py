"""scikit-learn estimators over rdpkit's private boosted-tree trainer (DESIGN.md §8).

``fit`` turns the array into the trainer's columns in one pass and calls the same C++ ``Train``
as ``rdpkit train``: the same data, schema, config and seed give the same model file.

What is public: the parameters (bounds, label_bounds, classes, the config). What is read off the
data and so not covered by epsilon, making the model "not private" (``private_`` False,
``epsilon_`` inf, a PrivacyLeakWarning): feature bounds when ``bounds`` is None, and the class
list when ``classes`` is None, except the binary default (labels exactly 0 and 1, or False and
True), which is public. A pickle of a fitted estimator holds its parameters (random_state too)
and what predict needs, but not ``training_log_`` (exact counts of the training data).
"""
import json
import math
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _classes, _columns, _json, _params, _rdpkit
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
    "does not hold against them. The model file does not record the seed, but a pickle of the "
    "estimator does (random_state is a parameter). Use random_state for tests and reproducible "
    "experiments; for a model you publish, leave it None (secure randomness).")

_CLASSES_WARNING = (
    "classes were not given and y's labels are not the binary default 0 and 1: the classes are "
    "read off y. Which classes occur (their number, and their labels in classes_) is released "
    "with the model and no epsilon covers it (a class that only one record has gives that "
    "record away), so the model is marked not private (epsilon_ = inf). Pass classes=[...] with "
    "the public list of classes, or classes=K for the labels 0..K-1.")

_BOUNDS_WARNING = (
    "bounds were not given: the feature bounds are read off the training data. This leaks "
    "private information (each feature's minimum and maximum are released with the model) and "
    "no epsilon covers it, so the model is marked not private. Pass bounds=[(min, max), ...] "
    "with public bounds for a differentially private model.")

_LABEL_BOUNDS_WARNING = (
    "label_bounds were not given, so labels are used as they are and every residual is clipped "
    "to +-gradient_clip = {clip} in label units (as rdpkit train notes without the schema's "
    "\"label\" bounds); give public label_bounds=(min, max) (docs/trees.md) or set "
    "gradient_clip.")

_FIT_CLIPPED_NOTE = (
    "These are exact counts of the training data, NOT differentially private: for you, not for "
    "publication (training_log_ holds them; the model does not).")

_PREDICT_CLIPPED_NOTE = (
    "The bounds are the model's training bounds (bounds, or those read off the training data): "
    "its trees see a value beyond them as the nearest bound.")


def _warn_clipped(clipped, n_rows, note, stacklevel):
    """A UserWarning naming the values clipped into the model's bounds ({name: count}, features
    with none left out; "label" for labels), as `rdpkit train` summarises them on stderr; nothing
    when none was. NaN is a missing value, never clipped. stacklevel: as warnings.warn's, from
    the caller of this function."""
    if not clipped:
        return
    parts = ", ".join(f"{name}: {count}" for name, count in clipped.items())
    warnings.warn(f"values outside the bounds were clipped into them ({parts} of {n_rows} rows). "
                  + note, UserWarning, stacklevel=stacklevel + 1)


# The objectives of each estimator (DESIGN.md §5).
_OBJECTIVES = {
    "DPGBTClassifier": ("binary:logistic", "multi:softprob", "multi:ovr"),
    "DPGBTRegressor": ("reg:squarederror",),
}

# Attributes that a fit or load_model sets besides those ending in "_".
_FITTED_PRIVATE = ("_schema_features",)


def _default_names(n_features):
    return [f"x{i}" for i in range(n_features)]


class _DPGBTBase(BaseEstimator):
    _default_objective = None  # set by the subclasses

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
    def _auto_objective(self):
        """The objective when none is given: the subclass's default."""
        return self._default_objective

    def _objective(self):
        """The objective of a fit (the parameter, else config's, else the automatic one),
        refused when it is not one of this estimator's."""
        objective = self.objective
        if objective is None:
            objective = _params.config_dict(self.config).get("objective") or self._auto_objective()
        accepted = _OBJECTIVES[type(self).__name__]
        if objective not in accepted:
            raise InvalidArgumentError(
                f"objective = {objective!r} is not an objective of {type(self).__name__} "
                f"(accepted: {', '.join(accepted)})", "objective", repr(objective),
                ", ".join(accepted))
        return objective

    def trainer_config(self):
        """The trainer config JSON (a dict) that fit uses: ``config`` (further keys), the
        config-key parameters that are set, privacy from epsilon/delta, seed from random_state.
        ``rdpkit train --config`` with this config trains the same model."""
        config = _params.config_dict(self.config)
        for key in CONFIG_KEYS:
            value = getattr(self, key)
            if value is not None:
                config[key] = _json.plain(value, key)
        config["objective"] = self._objective()
        if not config.get("non_private", False):  # a non-private run takes no privacy target
            privacy = dict(config.get("privacy", {}))
            if self.epsilon is not None:
                privacy["epsilon"] = _params.check_number("epsilon", self.epsilon, "(0, inf)")
            if self.delta is not None:
                privacy["delta"] = _params.check_number("delta", self.delta, "(0, 1)")
            if self.allow_large_delta is not None:
                privacy["allow_large_delta"] = _json.plain(self.allow_large_delta)  # the library
            config["privacy"] = privacy                                        # refuses non-bools
        else:
            # A non-private run takes no privacy target, but a bad one is still refused.
            for field, value, lowest, highest in (("epsilon", self.epsilon, 0, math.inf),
                                                  ("delta", self.delta, 0, 1)):
                accepted = f"({lowest}, {highest})"
                if value is not None and not (
                        lowest < _params.check_number(field, value, accepted) < highest):
                    raise _params.invalid(field, value, accepted)
        seed = _params.seed_of(self.random_state)
        if seed is not None:
            config["seed"] = seed
        _params.check_config_integers(config)
        return config

    def _task_schema(self):
        """The schema's keys besides "features": task, and public label bounds or classes."""
        objective = self._objective()
        task = ("multiclass" if objective.startswith("multi:")
                else "binary" if objective.startswith("binary:") else "regression")
        schema = {"task": task}
        if self.label_bounds is not None:
            schema["label"] = _params.label_bounds_entry(self.label_bounds)
        classes = self._schema_classes()
        if classes is not None and task != "regression":
            if task == "multiclass":
                schema["n_classes"] = len(classes)
            names = _classes.schema_names(classes)
            if names is not None:
                schema["classes"] = names
        return schema

    def _schema_classes(self):
        return None  # the classifier's classes

    def schema(self, n_features, feature_names):
        """The schema JSON (a dict) for the public bounds, or None without bounds (then fit reads
        the feature bounds off the data and keeps the other keys: label bounds, classes)."""
        if self.bounds is None:
            return None
        if len(feature_names) != n_features:
            raise InvalidArgumentError(f"{len(feature_names)} feature names for {n_features} "
                                       "features", "feature_names", str(len(feature_names)),
                                       f"{n_features} names")
        return {**self._task_schema(),
                "features": _params.feature_entries(self.bounds, list(feature_names))}

    # ------------------------------------------------------------------ input
    def _fit_features(self, X):
        """The schema's feature entries for fitting on X (None without bounds)."""
        if self.bounds is None or not hasattr(X, "shape") or len(X.shape) != 2:
            return None
        names = ([str(c) for c in X.columns] if hasattr(X, "columns")
                 else _default_names(X.shape[1]))
        try:
            return _params.feature_entries(self.bounds, names)
        except InvalidArgumentError:
            return None  # fit reports the bad bounds

    def _validated(self, X, **options):
        """_validate_data, with a text cell that is not a number named by column and row."""
        try:
            return self._validate_data(X, dtype=np.float64, force_all_finite="allow-nan",
                                       **options)
        except ValueError as error:
            if isinstance(error, InvalidArgumentError):
                raise
            better = _columns.text_column_error(X)
            if better is None:
                raise
            raise better from error

    def _check_X_y(self, X, y, y_numeric):
        # float64 arrays as given are used as they are (no copy); other inputs are converted once.
        X = _columns.codes_of_text(X, self._fit_features(X))
        return self._validated(X, y=y, reset=True, y_numeric=y_numeric)

    def _reset_fitted(self):
        """Removes the attributes of an earlier fit or load_model, so none is left stale."""
        for name in [n for n in vars(self) if n.endswith("_") and not n.startswith("__")]:
            delattr(self, name)
        for name in _FITTED_PRIVATE:
            self.__dict__.pop(name, None)

    # ------------------------------------------------------------------ fitting
    def _fit(self, X, y_encoded, classes_from_data=False):
        n_features = X.shape[1]
        names = ([str(n) for n in self.feature_names_in_] if hasattr(self, "feature_names_in_")
                 else _default_names(n_features))
        for index, name in enumerate(names):
            _json.check_text(f"X column {index} (its name)", name)
        schema = self.schema(n_features, names)
        if schema is None:
            warnings.warn(_BOUNDS_WARNING, PrivacyLeakWarning, stacklevel=3)
            schema = self._task_schema()  # the trainer reads the bounds off the data
        config = self.trainer_config()
        non_private = bool(config.get("non_private", False))
        if "seed" in config and not non_private:
            warnings.warn(_SEED_WARNING, PrivacyLeakWarning, stacklevel=3)
        if classes_from_data and not non_private:
            warnings.warn(_CLASSES_WARNING, PrivacyLeakWarning, stacklevel=3)
        # Privacy: classes read off y mark the model not private (the binding rewrites its
        # privacy block), as bounds read off X do.
        self.model_ = _rdpkit.train(X, np.ascontiguousarray(y_encoded, dtype=np.float64), names,
                                    _json.dumps(schema), _json.dumps(config),
                                    bool(classes_from_data))
        self._set_fitted_attributes()
        log = getattr(self, "training_log_", {})
        clipped = dict(log.get("clipped") or {})
        if log.get("labels_clipped", 0):
            clipped["label"] = log["labels_clipped"]
        _warn_clipped(clipped, log.get("n_rows", "?"), _FIT_CLIPPED_NOTE, stacklevel=3)
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
        # Non-private local log (clipped values, ...): for the operator, never published; a model
        # read from a file has none. Privacy: left out of pickles (__getstate__).
        log = json.loads(self.model_.training_log_json)
        if log:
            self.training_log_ = log

    def __getstate__(self):
        # Privacy: training_log_ holds exact counts of the training data (rows, clipped values)
        # that no epsilon covers; a pickle is often shared with the model, so it is left out.
        state = dict(super().__getstate__())  # a copy: it may be the object's own __dict__
        state.pop("training_log_", None)
        return state

    def _raw_predict(self, X):
        """The model's predictions for X, warning (stacklevel: the caller of predict or
        predict_proba) when values outside the model's bounds were clipped into them."""
        check_is_fitted(self, "model_")
        X = _columns.codes_of_text(X, self._schema_features)
        X = self._validated(X, reset=False)
        predictions, clipped = self.model_.predict(X)
        _warn_clipped(clipped, X.shape[0], _PREDICT_CLIPPED_NOTE, stacklevel=3)
        return np.asarray(predictions)

    # ------------------------------------------------------------------ model files
    def save_model(self, path):
        """Writes the model file (DESIGN.md §6), the format ``rdpkit train`` writes and
        ``rdpkit predict`` reads."""
        check_is_fitted(self, "model_")
        self.model_.save(str(path))

    def load_model(self, path):
        """Reads a model file written by ``rdpkit train`` or :meth:`save_model`, replacing what
        an earlier fit or load set. A model of the other estimator's task is refused.
        ``n_features_in_`` and ``feature_names_in_`` come from the model's feature names (the
        latter unless they are the defaults x0, x1, ... of an array), so predict checks a
        DataFrame's columns as after fit."""
        model = _rdpkit.Model.load(str(path))
        accepted = _OBJECTIVES[type(self).__name__]
        if model.objective not in accepted:
            raise InvalidArgumentError(
                f"the model's objective {model.objective!r} is not one of "
                f"{type(self).__name__}'s ({', '.join(accepted)})", "objective",
                repr(model.objective), ", ".join(accepted))
        fitted = self._loaded_attributes(model)  # checked before anything is replaced
        self._reset_fitted()
        self.model_ = model
        self._set_fitted_attributes()
        names = list(model.feature_names)
        if names != _default_names(len(names)):
            self.feature_names_in_ = np.asarray(names, dtype=object)
        for name, value in fitted.items():
            setattr(self, name, value)
        return self

    def _loaded_attributes(self, model):
        return {}

    def model_json(self):
        """The model file's JSON (a dict)."""
        check_is_fitted(self, "model_")
        return json.loads(self.model_.to_json_text())

    def _more_tags(self):
        return {"allow_nan": True, "non_deterministic": self.random_state is None}


class DPGBTClassifier(ClassifierMixin, _DPGBTBase):
    """Differentially private gradient-boosted trees for classification: binary
    (binary:logistic), or native multiclass when y has more than two classes (multi:softprob, K
    class trees per round; objective="multi:ovr" for one-vs-rest).

    Parameters: epsilon, delta (the run's target; delta defaults to a power of ten below 1/n),
    bounds (public (min, max) per feature, one pair for all, or diffprivlib's (mins, maxs);
    without it the bounds come from the data with a PrivacyLeakWarning and the model is marked
    not private), classes (the public list of class labels, in the model's order, or K for the
    labels 0..K-1; without it the classes are read off y: labels exactly 0 and 1 (or False and
    True) are the public binary default, any other labels give a PrivacyLeakWarning and a model
    marked not private, since which classes occur is released), random_state (the config's seed;
    a seed reproduces the noise, see PrivacyLeakWarning) and every trainer config key under its
    config name (docs/trees_training.md).
    After fit: epsilon_, delta_, privacy_event_, private_, n_features_in_, classes_.
    """

    _default_objective = "binary:logistic"

    def _auto_objective(self):
        # More than two classes: native multiclass (multi:softprob, docs/trees_training.md).
        classes = getattr(self, "classes_", None)
        if classes is None:
            classes = _classes.public_classes(self.classes)
        if classes is not None and len(classes) > 2:
            return "multi:softprob"
        return self._default_objective

    def _schema_classes(self):
        classes = getattr(self, "classes_", None)
        return classes if classes is not None else _classes.public_classes(self.classes)

    def fit(self, X, y):
        self._reset_fitted()
        public = _classes.public_classes(self.classes)
        X, y = self._check_X_y(X, y, y_numeric=False)
        check_classification_targets(y)
        if public is not None:
            y_encoded = _classes.encode(y, public)
            self.classes_ = public
        else:
            y_encoded, self.classes_ = _classes.read_off(y)
        objective = self._objective()
        # Privacy: classes read off y are data, covered by no epsilon, unless they are the public
        # binary default (labels 0 and 1 for binary:logistic; DESIGN.md §4).
        classes_from_data = public is None and not (
            objective.startswith("binary:") and _classes.is_binary_default(self.classes_))
        if objective.startswith("binary:") and len(self.classes_) != 2:
            raise InvalidArgumentError(
                f"y has {len(self.classes_)} classes; {objective} needs exactly 2", "y",
                str(len(self.classes_)), "2 classes")
        if objective.startswith("multi:") and len(self.classes_) < 2:
            raise InvalidArgumentError(
                f"y has {len(self.classes_)} class; {objective} needs at least 2", "y",
                str(len(self.classes_)), "2 or more classes")
        return self._fit(X, y_encoded, classes_from_data)

    def predict_proba(self, X):
        """Class probabilities, columns in the order of classes_."""
        return self._probabilities(self._raw_predict(X))

    def predict(self, X):
        proba = self._probabilities(self._raw_predict(X))  # a warning names predict's caller
        return self.classes_[np.argmax(proba, axis=1)]

    @staticmethod
    def _probabilities(p):
        return p if p.ndim == 2 else np.column_stack([1.0 - p, p])

    def _loaded_attributes(self, model):
        # A model file holds class indices (multiclass: n_classes of them; binary: 0 and 1, as in
        # the CSV) and maybe their names; `classes` names them when given and must agree.
        schema = json.loads(model.schema_json) if model.schema_json else {}
        names = list(model.classes) or schema.get("classes")
        n_classes = max(model.n_classes, 2)
        given = _classes.public_classes(self.classes)
        return {"classes_": _classes.classes_of_model(n_classes, names, given)}


class DPGBTRegressor(RegressorMixin, _DPGBTBase):
    """Differentially private gradient-boosted trees for regression (reg:squarederror).

    Parameters as DPGBTClassifier, plus label_bounds: public (min, max) of the label, from which
    the default label and gradient clips follow (the schema's "label" bounds; kept when bounds is
    None). A private fit without label_bounds warns (UserWarning), as ``rdpkit train`` notes.
    """

    _default_objective = "reg:squarederror"

    def fit(self, X, y):
        self._reset_fitted()
        if self.classes is not None:
            raise InvalidArgumentError("classes is given for a regressor (classifiers only)",
                                       "classes", repr(self.classes), "None")
        X, y = self._check_X_y(X, y, y_numeric=True)
        self._fit(X, y)
        config = json.loads(self.model_.config_json)
        if self.label_bounds is None and not config.get("non_private", False):
            warnings.warn(_LABEL_BOUNDS_WARNING.format(clip=config.get("gradient_clip")),
                          UserWarning, stacklevel=2)
        return self

    def predict(self, X):
        return self._raw_predict(X)
