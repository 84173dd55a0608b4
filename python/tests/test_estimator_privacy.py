"""What a fitted estimator releases: classes read off y, pickles, and models loaded from files
(README "Python", "The estimators")."""
import pickle
import warnings

import numpy as np
import pytest

import rdpkit

pd = pytest.importorskip("pandas")



def quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return estimator.fit(X, y)


def test_classes_read_off_y_mark_the_model_not_private(data):
    """Which classes occur in y is data: without a public `classes` the model is marked not
    private (as with bounds read off X), its privacy block says why, and the noise that was
    added is still recorded."""
    X, _ = data
    y3 = np.digitize(X[:, 0], [-.5, .5])
    y3[0] = 7  # one record's class
    with pytest.warns(rdpkit.PrivacyLeakWarning, match="classes"):
        clf = rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=3).fit(X, y3)
    assert list(clf.classes_) == [0, 1, 2, 7]
    assert not clf.private_ and clf.epsilon_ == float("inf") and clf.privacy_event_ is None
    privacy = clf.model_json()["privacy"]
    assert privacy["private"] is False and privacy["classes_from_data"] is True
    assert 0 < privacy["noise_epsilon"] <= 1.0 and "noise_event" in privacy
    # Two labels other than 0 and 1 are read off y as well.
    with pytest.warns(rdpkit.PrivacyLeakWarning, match="classes"):
        clf = rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=3).fit(
            X, np.where(X[:, 0] > 0, "yes", "no"))
    assert not clf.private_
    # multi:softprob with labels 0 and 1 read off y: K = 2 came from y.
    with pytest.warns(rdpkit.PrivacyLeakWarning, match="classes"):
        clf = rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=3,
                                     objective="multi:softprob").fit(X, data[1])
    assert not clf.private_


@pytest.mark.parametrize("labels, classes", [
    ("int01", None), ("bool", None), ("float01", None),
    ("digitized", 3), ("digitized", range(3)), ("names", ["low", "mid", "high"]),
], ids=["0-1", "bools", "0.0-1.0", "K=3", "range(3)", "names"])
def test_public_classes_keep_the_model_private(data, labels, classes):
    """The binary default (labels exactly 0 and 1, or False and True) and a given `classes`
    (a list, or K for the labels 0..K-1) are public: no warning, and epsilon_ holds."""
    X, y = data
    digitized = np.digitize(X[:, 0], [-.5, .5])
    y = {"int01": y, "bool": y.astype(bool), "float01": y.astype(float),
         "digitized": digitized,
         "names": np.array(["low", "mid", "high"])[digitized]}[labels]
    with warnings.catch_warnings():
        warnings.simplefilter("error", rdpkit.PrivacyLeakWarning)
        clf = rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=3, classes=classes).fit(X, y)
    assert clf.private_ and clf.epsilon_ <= 1.0
    assert "private" not in clf.model_json()["privacy"]
    assert set(clf.predict(X[:50])) <= set(clf.classes_)


def test_pickle_leaves_out_the_training_log(data):
    X, y = data
    clf = quiet_fit(rdpkit.DPGBTClassifier(bounds=(-1, 1), n_estimators=3, random_state=5), X, y)
    assert clf.training_log_["n_rows"] == 2000 and clf.training_log_["clipped"]
    text = pickle.dumps(clf)
    for secret in (b"n_rows", b"total_clipped", b"training_log_"):
        assert secret not in text
    again = pickle.loads(text)
    assert not hasattr(again, "training_log_")
    assert hasattr(clf, "training_log_")  # the fitted estimator keeps it
    assert again.random_state == 5  # a parameter: the pickle holds the seed (documented)
    np.testing.assert_array_equal(again.predict_proba(X), clf.predict_proba(X))
    assert again.epsilon_ == clf.epsilon_ and again.privacy_event_ == clf.privacy_event_


def test_load_model_refuses_a_model_of_the_other_task(data, tmp_path):
    X, y = data
    quiet_fit(rdpkit.DPGBTRegressor(bounds=(-5, 5), label_bounds=(-5, 5), n_estimators=2), X,
              X[:, 0]).save_model(tmp_path / "reg.json")
    quiet_fit(rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=2), X, y).save_model(
        tmp_path / "clf.json")
    with pytest.raises(rdpkit.InvalidArgumentError, match="reg:squarederror") as info:
        rdpkit.DPGBTClassifier().load_model(tmp_path / "reg.json")
    assert info.value.field == "objective"
    with pytest.raises(rdpkit.InvalidArgumentError, match="binary:logistic") as info:
        rdpkit.DPGBTRegressor().load_model(tmp_path / "clf.json")
    assert info.value.field == "objective"


def test_load_model_names_classes_only_consistently(data, tmp_path):
    """`classes` names the model's classes 0..K-1: a list of another length, or other names than
    the file's, is refused; a model fitted on named classes loads with them."""
    X, _ = data
    y = np.array(["low", "mid", "high"])[np.digitize(X[:, 0], [-.5, .5])]
    clf = quiet_fit(rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=2,
                                           classes=["low", "mid", "high"]), X, y)
    clf.save_model(tmp_path / "m.json")
    loaded = rdpkit.DPGBTClassifier().load_model(tmp_path / "m.json")
    assert list(loaded.classes_) == ["low", "mid", "high"]
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    same = rdpkit.DPGBTClassifier(classes=["low", "mid", "high"]).load_model(tmp_path / "m.json")
    assert list(same.classes_) == ["low", "mid", "high"]
    for classes in (["low", "mid"], ["a", "b", "c"], 4):
        with pytest.raises(rdpkit.InvalidArgumentError) as info:
            rdpkit.DPGBTClassifier(classes=classes).load_model(tmp_path / "m.json")
        assert info.value.field == "classes"
    # A model without names (integer classes): `classes` gives the labels of 0..K-1.
    quiet_fit(rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=2), X,
              (X[:, 0] > 0).astype(int)).save_model(tmp_path / "b.json")
    named = rdpkit.DPGBTClassifier(classes=[-1, 1]).load_model(tmp_path / "b.json")
    assert list(named.classes_) == [-1, 1]
    assert set(named.predict(X)) <= {-1, 1}


def test_load_model_sets_feature_names_and_leaves_nothing_stale(data, tmp_path):
    X, y = data
    frame = pd.DataFrame(X, columns=["age", "income", "hours"])
    quiet_fit(rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=2), frame, y).save_model(
        tmp_path / "named.json")
    loaded = rdpkit.DPGBTClassifier().load_model(tmp_path / "named.json")
    assert list(loaded.feature_names_in_) == ["age", "income", "hours"]
    assert loaded.n_features_in_ == 3
    loaded.predict(frame)
    with pytest.raises(ValueError, match="feature names"):  # as after fit
        loaded.predict(frame[["income", "age", "hours"]])
    # Loading into a fitted estimator replaces every fitted attribute.
    fitted = quiet_fit(rdpkit.DPGBTClassifier(bounds=(-1, 1), n_estimators=2), frame,
                       np.where(y == 1, "yes", "no"))
    quiet_fit(rdpkit.DPGBTClassifier(bounds=(-5, 5), n_estimators=2), X, y).save_model(
        tmp_path / "plain.json")
    fitted.load_model(tmp_path / "plain.json")
    assert not hasattr(fitted, "feature_names_in_") and not hasattr(fitted, "training_log_")
    assert list(fitted.classes_) == [0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted.predict(X)  # no feature-name warning for the array model
