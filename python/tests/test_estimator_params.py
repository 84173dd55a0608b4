"""The estimators' parameters: forms of bounds, label bounds, objectives, and errors that name the
parameter, the value and the accepted range; warnings for clipped values and missing label
bounds."""
import warnings

import numpy as np
import pytest

import rdpkit

pd = pytest.importorskip("pandas")



def test_label_bounds_are_kept_without_feature_bounds(data):
    X, _ = data
    with pytest.warns(rdpkit.PrivacyLeakWarning, match="bounds"):
        reg = rdpkit.DPGBTRegressor(label_bounds=(0, 2000), n_estimators=3).fit(
            X, 1000 + 500 * X[:, 0])
    assert reg.model_json()["schema"]["label"] == {"min": 0.0, "max": 2000.0}
    assert not reg.private_  # the feature bounds still came from the data


def test_a_private_regressor_without_label_bounds_warns(data):
    X, _ = data
    with pytest.warns(UserWarning, match="label_bounds were not given") as record:
        rdpkit.DPGBTRegressor(bounds=(-5, 5), n_estimators=3).fit(X, X[:, 0])
    assert any("gradient_clip" in str(w.message) for w in record)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rdpkit.DPGBTRegressor(bounds=(-5, 5), label_bounds=(-5, 5), n_estimators=3).fit(
            X, X[:, 0])
        rdpkit.DPGBTRegressor(bounds=(-5, 5), non_private=True, n_estimators=3).fit(X, X[:, 0])


def test_clipped_values_are_reported_per_feature(data):
    X, y = data
    expected = {f"x{f}": int(np.sum(np.abs(X[:, f]) > 1)) for f in range(3)}
    with pytest.warns(UserWarning, match="clipped") as record:
        clf = rdpkit.DPGBTClassifier(bounds=(-1, 1), n_estimators=2).fit(X, y)
    message = next(str(w.message) for w in record if "clipped" in str(w.message))
    for name, count in expected.items():
        assert f"{name}: {count}" in message
    assert "NOT differentially private" in message
    assert clf.training_log_["clipped"] == expected
    labels = X[:, 0] * 10
    with pytest.warns(UserWarning, match="clipped") as record:
        rdpkit.DPGBTRegressor(bounds=(-5, 5), label_bounds=(-5, 5), n_estimators=2).fit(
            X, labels)
    message = next(str(w.message) for w in record if "clipped" in str(w.message))
    assert f"label: {int(np.sum(np.abs(labels) > 5))}" in message


def _clipped_message(record):
    messages = [str(w.message) for w in record
                if w.category is UserWarning and "clipped" in str(w.message)]
    assert len(messages) == 1, messages
    return messages[0]


def test_predict_warns_of_values_clipped_into_the_training_bounds(data, tmp_path):
    """predict and predict_proba name the values of X clipped into the model's bounds, per
    feature, as fit does; NaN is missing, not clipped; a model loaded from a file warns too."""
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = rdpkit.DPGBTClassifier(bounds=[(-3, 3), (-2, 2), (-20, 20)], n_estimators=2).fit(X, y)
        reg = rdpkit.DPGBTRegressor(bounds=[(-3, 3), (-2, 2), (-20, 20)], label_bounds=(-5, 5),
                                    n_estimators=2).fit(X, X[:, 0])
    test = X[:100] * 4
    test[:10, 1] = np.nan  # missing: not counted
    expected = {"x0": int(np.sum(np.abs(test[:, 0]) > 3)),
                "x1": int(np.sum(np.abs(test[:, 1]) > 2))}  # NaN > 2 is False
    assert expected["x0"] > 0 and expected["x1"] > 0 and np.all(np.abs(test[:, 2]) <= 20)
    clf.save_model(tmp_path / "clf.json")
    loaded = rdpkit.DPGBTClassifier().load_model(tmp_path / "clf.json")
    for predict in (clf.predict, clf.predict_proba, reg.predict, loaded.predict):
        with pytest.warns(UserWarning, match="clipped") as record:
            predict(test)
        message = _clipped_message(record)
        assert "x0: {x0}, x1: {x1} of 100 rows".format(**expected) in message, message
        assert "x2" not in message and "training bounds" in message
        assert record[0].filename == __file__  # the caller's line (stacklevel)
    # The same predictions as the clipped values give.
    clipped = np.clip(test, [-3, -2, -20], [3, 2, 20])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(clf.predict_proba(test), clf.predict_proba(clipped))


def test_predict_within_the_bounds_does_not_warn(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=2).fit(X, y)
        reg = rdpkit.DPGBTRegressor(bounds=(-5, 5), label_bounds=(-5, 5), n_estimators=2).fit(
            X, X[:, 0])
    test = np.clip(X[:100], -5, 5)
    test[0] = [-5, 5, np.nan]  # the bounds themselves are inside; NaN is missing
    test[1:20, 2] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.predict(test)
        clf.predict_proba(test)
        reg.predict(test)


def test_ambiguous_bounds_are_refused_with_both_readings(data):
    X, y = data
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.DPGBTClassifier(bounds=([0, 100], [10, 200])).fit(X[:, :2], y)
    message = str(info.value)
    assert info.value.field == "bounds" and "ambiguous" in message
    assert "[(0, 100), (10, 200)]" in message and "[(0, 10), (100, 200)]" in message
    assert '{"min": 0, "max": 100}' in message and '{"min": 0, "max": 10}' in message


def test_unambiguous_bounds_forms_give_the_same_model(data):
    """diffprivlib's (mins, maxs), per-feature pairs and feature dicts of the same bounds train
    the same model; a 2x2 bounds with one valid reading is read that way."""
    X, y = data
    settings = dict(n_estimators=3, random_state=1)
    forms = [([-4, -3, -2], [4, 3, 2]), [(-4, 4), (-3, 3), (-2, 2)],
             [{"min": -4, "max": 4}, {"min": -3, "max": 3}, {"min": -2, "max": 2}],
             (np.array([-4, -3, -2]), np.array([4, 3, 2]))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = [rdpkit.DPGBTClassifier(bounds=b, **settings).fit(X, y).model_json()
                  for b in forms]
        # (-5, [1, 2, 3]): a number and a list, diffprivlib's form.
        mixed = rdpkit.DPGBTClassifier(bounds=(-5, [1, 2, 3]), **settings).fit(X, y)
        two = rdpkit.DPGBTClassifier(bounds=[(0, 1), (0, 1)], **settings).fit(X[:, :2], y)
    assert all(m == models[0] for m in models)
    assert [(f["min"], f["max"]) for f in mixed.model_json()["schema"]["features"]] == [
        (-5, 1), (-5, 2), (-5, 3)]
    # Read as (mins, maxs) it would be min = max: only the per-feature reading is valid.
    assert [(f["min"], f["max"]) for f in two.model_json()["schema"]["features"]] == [
        (0, 1), (0, 1)]


@pytest.mark.parametrize("estimator, objective, accepted", [
    (rdpkit.DPGBTClassifier, "reg:squarederror", "binary:logistic, multi:softprob, multi:ovr"),
    (rdpkit.DPGBTRegressor, "binary:logistic", "reg:squarederror"),
    (rdpkit.DPGBTRegressor, "multi:softprob", "reg:squarederror"),
])
def test_objectives_of_the_other_estimator_are_refused(data, estimator, objective, accepted):
    X, y = data
    for params in (dict(objective=objective), dict(config={"objective": objective})):
        with pytest.raises(rdpkit.InvalidArgumentError) as info:
            estimator(bounds=(-5, 5), **params).fit(X, y)
        assert info.value.field == "objective" and accepted in str(info.value)


def test_multiclass_without_bounds_trains(data):
    X, _ = data
    y = np.digitize(X[:, 0], [-.5, .5])
    clf = rdpkit.DPGBTClassifier(non_private=True, n_estimators=5).fit(X, y)
    assert clf.predict_proba(X).shape == (2000, 3)
    assert clf.model_json()["schema"]["n_classes"] == 3
    with pytest.warns(rdpkit.PrivacyLeakWarning):
        clf = rdpkit.DPGBTClassifier(n_estimators=3, classes=3).fit(X, y)
    assert not clf.private_ and clf.privacy_["bounds_from_data"] is True


def test_unknown_feature_dict_keys_are_refused(data):
    X, y = data
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.DPGBTClassifier(bounds=[{"min": 0, "max": 2, "categorial": True}] * 3).fit(X, y)
    assert info.value.field == "bounds[0].categorial"
    assert "categorical, codes, max, min, n_codes" in str(info.value)


@pytest.mark.parametrize("params, field, text", [
    (dict(bounds=5), "bounds", "bounds = 5"),
    (dict(bounds={"a": (0, 1)}), "bounds", "a dict by feature name"),
    (dict(bounds=[(0, 1), (0, 1)]), "bounds", "2 entries for the 3 features"),
    (dict(bounds=[(0, 1), "a", (0, 1)]), "bounds[1]", "'a' (column 'x1')"),
    (dict(bounds=[(0, 1), ("a", 1), (0, 1)]), "bounds[1]", "not a (min, max) pair of numbers"),
    (dict(n_estimators=2**70), "n_estimators", "1180591620717411303424 is outside [1, 100000]"),
    (dict(n_estimators=2**40), "n_estimators", "1099511627776 is outside [1, 100000]"),
    (dict(split_candidates={"method": "uniform", "count": 2**70}), "split_candidates.count",
     "is outside [2, 65534]"),
    (dict(random_state=2**64), "random_state", "18446744073709551616 is outside"),
    (dict(random_state=True), "random_state", "True"),
    (dict(epsilon="1"), "epsilon", "'1' is not a number (accepted: (0, inf))"),
    (dict(epsilon=True), "epsilon", "True is not a number"),
    (dict(delta="1e-5"), "delta", "(0, 1)"),
    (dict(classes="ab"), "classes", "not a list"),
    (dict(label_bounds=5), "label_bounds", "label_bounds = 5"),
])
def test_errors_name_the_parameter_value_and_range(data, params, field, text):
    X, y = data
    estimator = (rdpkit.DPGBTRegressor if "label_bounds" in params else rdpkit.DPGBTClassifier)
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        estimator(**{"bounds": (-5, 5), **params}).fit(X, y)
    assert info.value.field == field and text in str(info.value), str(info.value)
    assert info.value.value and info.value.accepted


@pytest.mark.parametrize("params, field, text", [
    (dict(n_estimators=1e30), "n_estimators",
     "n_estimators = 1e+30 is outside the integers [1, 100000]"),
    (dict(n_estimators=2.5), "n_estimators",
     "n_estimators = 2.5 is outside the integers [1, 100000]"),
    (dict(n_estimators=float("nan")), "n_estimators", "nan is outside the finite numbers"),
    (dict(n_estimators=float("inf")), "n_estimators", "inf is outside the finite numbers"),
    (dict(n_estimators=True), "n_estimators", "true is outside the integers [1, 100000]"),
    (dict(n_estimators=np.float64(2.5)), "n_estimators", "2.5 is outside the integers [1, 100000]"),
    (dict(n_estimators="3"), "n_estimators", '"3" is outside the integers [1, 100000]'),
    (dict(n_estimators=1e6), "n_estimators", "is outside [1, 100000]"),
    (dict(max_depth=1e10), "max_depth",
     "max_depth = 10000000000.0 is outside the integers [1, 16]"),
    (dict(threads=1.5), "threads", "threads = 1.5 is outside the integers [1, 256]"),
    (dict(batch_size=1.5), "batch_size", "the integers [1, n_estimators]"),
    (dict(split_candidates={"method": "uniform", "count": 7.5}), "split_candidates.count",
     "split_candidates.count = 7.5 is outside the integers [2, 65534]"),
    (dict(config={"max_depth": 2.5}), "max_depth", "the integers [1, 16]"),
    (dict(n_estimators=2**70, max_depth=2.5), "max_depth", "the integers [1, 16]"),
])
def test_integer_keys_refuse_non_integers_naming_their_range(data, params, field, text):
    """An integer key given a float (not a whole number, or one beyond its range), a bool or text
    is refused before training, with the key's range (the library's message, as the CLI gives)."""
    X, y = data
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.DPGBTClassifier(bounds=(-5, 5), **params).fit(X, y)
    assert info.value.field == field and text in str(info.value), str(info.value)
    assert info.value.value and info.value.accepted


def test_whole_number_floats_of_integer_keys_are_taken_within_their_range(data):
    """As the library reads 100.0 as 100: the same model as the ints give."""
    X, y = data
    settings = dict(bounds=(-5, 5), random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ints = rdpkit.DPGBTClassifier(n_estimators=3, max_depth=2, threads=1, **settings)
        floats = rdpkit.DPGBTClassifier(n_estimators=3.0, max_depth=np.float64(2.0),
                                        threads=1.0, **settings)
        assert floats.fit(X, y).model_json() == ints.fit(X, y).model_json()
    assert floats.n_estimators_ == 3


def test_a_text_column_not_declared_categorical_is_named(data):
    X, y = data
    frame = pd.DataFrame({"age": X[:, 0], "housing": ["own", "rent"] * 1000, "c": X[:, 2]})
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.DPGBTClassifier(bounds=(-5, 5)).fit(frame, y)
    message = str(info.value)
    assert info.value.field == "X" and "'housing'" in message and "'own'" in message
    assert "categorical" in message
    with pytest.raises(rdpkit.InvalidArgumentError, match="'x1' \\(feature 1\\), row 0: 'own'"):
        rdpkit.DPGBTClassifier(bounds=(-5, 5)).fit(frame.to_numpy(dtype=object), y)
    clf = rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=2).fit(X, y)
    with pytest.raises(rdpkit.InvalidArgumentError, match="'own'"):
        clf.predict(frame.to_numpy(dtype=object))
