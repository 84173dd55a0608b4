"""Python values the C++ library never sees as such: text that is not UTF-8 (lone surrogates),
numpy scalars and arrays, ints beyond the doubles, numpy times, huge class counts, non-dict
configs. Each is refused with an InvalidArgumentError naming the parameter (before, several gave
a pybind11 TypeError that printed the whole training array), or converted as JSON would be."""
from decimal import Decimal

import numpy as np
import pytest

import rdpkit

pd = pytest.importorskip("pandas")

SURROGATE = "\udcff"  # what os.fsdecode makes of the byte 0xFF
CATEGORICAL = {"categorical": True, "n_codes": 2, "codes": ["hi", "lo"]}


def _frame(X, third):
    return pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": third})


def _refusal(call):
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        call()
    return info.value


@pytest.mark.parametrize("make, field, text", [
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=(-5, 5)).fit(
        pd.DataFrame(X, columns=[SURROGATE, "b", "c"]), y), "X column 0 (its name)",
     "is not UTF-8 text"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=[(-5, 5), (-5, 5), CATEGORICAL]).fit(
        _frame(X, np.where(X[:, 2] > 0, "hi", SURROGATE)), y),
     "X column 'c' (feature 2), row ", "is not UTF-8 text"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=(-5, 5), classes=["a", SURROGATE]).fit(
        X, np.where(y == 1, SURROGATE, "a")), "classes[1]", "is not UTF-8 text"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=(-5, 5), classes=10**8).fit(X, y), "classes",
     "classes = 100000000 is outside [2, 1000]"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=(-5, 5), epsilon=10**400).fit(X, y), "epsilon",
     "(401 digits) is outside the finite numbers"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=(0, 10**400)).fit(X, y), "bounds[0][1]",
     "is outside the finite numbers"),
    (lambda X, y: rdpkit.DPGBTRegressor(bounds=(-5, 5), label_bounds=(0, 10**400)).fit(X, y),
     "label_bounds[1]", "is outside the finite numbers"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=(-5, 5), epsilon=np.timedelta64(1)).fit(X, y),
     "epsilon", "is not a number"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=(-5, 5), non_private=True,
                                         epsilon=float("nan")).fit(X, y),
     "epsilon", "nan is outside (0, inf)"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=(-5, 5), config="notadict").fit(X, y), "config",
     "is not a dict"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=(-5, 5), config={"privacy": "x"}).fit(X, y),
     "config.privacy", "is not a dict"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=("0", "1")).fit(X, y), "bounds[0]",
     "'0' is not a number"),
    (lambda X, y: rdpkit.DPGBTClassifier(bounds=([np.nan, 0, 0], [1, 1, 1])).fit(X, y),
     "bounds (feature 0)", "min nan and max 1, which is no interval"),
    (lambda X, y: rdpkit.DPGBTClassifier(
        bounds=[{"min": 0, "max": 1, "name": "zzz"}, (0, 1), (0, 1)]).fit(X, y),
     "bounds[0].name", "differs from the name of column 0, 'x0'"),
    # The text path checks a categorical feature alone; its errors name its own position.
    (lambda X, y: rdpkit.DPGBTClassifier(
        bounds=[(-5, 5), (-5, 5), {**CATEGORICAL, "codes": ["hi", "hi"]}]).fit(
        _frame(X, np.where(X[:, 2] > 0, "hi", "lo")), y),
     "features[2].codes[1]", '"hi" appears twice'),
])
def test_estimator_values_are_refused_naming_the_parameter(data, make, field, text):
    X, y = data
    error = _refusal(lambda: make(X, y))
    assert error.field.startswith(field) and text in str(error), str(error)
    assert "array(" not in str(error)  # never the data itself


def test_numpy_values_in_feature_dicts_and_zero_d_bounds_are_numbers(data):
    X, y = data
    plain = rdpkit.DPGBTClassifier(bounds=[(-5, 5), (-5, 5), {"min": -5, "max": 5}],
                                   random_state=3, n_estimators=3).fit(X, y)
    for bounds in ([(-5, 5), (-5, 5), {"min": np.float32(-5), "max": np.int64(5)}],
                   (np.array(-5.0), np.array(5.0))):
        other = rdpkit.DPGBTClassifier(bounds=bounds, random_state=3, n_estimators=3).fit(X, y)
        assert other.model_json()["schema"] == plain.model_json()["schema"]
        np.testing.assert_array_equal(other.predict_proba(X), plain.predict_proba(X))


GAUSSIAN = rdpkit.GaussianEvent(1.0)
STEP = rdpkit.PoissonSampledEvent(0.01, GAUSSIAN)


@pytest.mark.parametrize("call, field, text", [
    (lambda: rdpkit.Event.from_json('{"gaussian": {"' + SURROGATE + '": 1}}'), "event",
     "is not UTF-8 text"),
    (lambda: rdpkit.calibrate('{"gaussian": {"' + SURROGATE + '": "?"}}', 1, 1e-5), "event",
     "is not UTF-8 text"),
    (lambda: rdpkit.GaussianEvent(1j), "gaussian.noise_multiplier", "is a complex"),
    (lambda: rdpkit.GaussianEvent(Decimal("1")), "gaussian.noise_multiplier", "is a Decimal"),
    (lambda: rdpkit.GaussianEvent(np.timedelta64(1)), "gaussian.noise_multiplier",
     "timedelta64"),
    (lambda: rdpkit.GaussianEvent(np.array([1.0, 2.0])), "gaussian.noise_multiplier",
     "expected a number"),
    (lambda: rdpkit.epsilon(GAUSSIAN, 10**400), "delta", "is outside the finite numbers"),
    (lambda: rdpkit.delta(GAUSSIAN, epsilon=True), "epsilon", "True is not a number"),
    (lambda: rdpkit.epsilon(GAUSSIAN, "1e-5"), "delta", "'1e-5' is not a number"),
    (lambda: rdpkit.epsilon(GAUSSIAN, None), "delta", "None is not a number"),
    (lambda: rdpkit.calibrate(rdpkit.GaussianEvent("?"), "1", 1e-5), "epsilon",
     "'1' is not a number"),
    (lambda: rdpkit.epsilon(GAUSSIAN, 1e-5, orders="2,4"), "orders", "is not a list"),
    (lambda: rdpkit.epsilon(GAUSSIAN, 1e-5, orders=["a"]), "orders[0]", "is not a number"),
    (lambda: rdpkit.calibrate(rdpkit.GaussianEvent, 1, 1e-5, bracket=("a", 2)), "bracket[0]",
     "is not a number"),
    (lambda: rdpkit.privacy_curve(STEP, 1e-5, -1), "steps", "is outside the whole numbers"),
    (lambda: rdpkit.privacy_curve(STEP, 1e-5, 2.7, points=5), "steps", "not a whole number"),
    (lambda: rdpkit.privacy_curve(STEP, 1e-5, 100, points=1.9), "points", "not a whole number"),
    (lambda: rdpkit.privacy_curve(STEP, 1e-5, 100, points=2**31), "points", "is outside"),
])
def test_accountant_values_are_refused_naming_the_parameter(call, field, text):
    error = _refusal(call)
    assert error.field == field and text in str(error), str(error)


def test_whole_floats_and_numpy_numbers_are_taken_by_the_accountant():
    assert rdpkit.privacy_curve(STEP, 1e-5, 100.0, points=np.int64(5)) == \
        rdpkit.privacy_curve(STEP, 1e-5, 100, points=5)
    assert float(rdpkit.epsilon(GAUSSIAN, np.float64(1e-5))) == \
        float(rdpkit.epsilon(GAUSSIAN, 1e-5))
    assert rdpkit.GaussianEvent(np.float32(0.5)) == rdpkit.GaussianEvent(0.5)
