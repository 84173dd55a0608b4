"""DPGBTClassifier / DPGBTRegressor: scikit-learn conventions, privacy attributes, and the same
model as `rdpkit train` for the same data, settings and seed."""
import json
import pickle
import subprocess
import warnings

import numpy as np
import pytest

import rdpkit

pd = pytest.importorskip("pandas")
sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402

BOUNDS = [(-3.0, 3.0)] * 4
SETTINGS = dict(n_estimators=20, max_depth=3, split_method="histogram",
                leaf_noise_weights=[0.3, 0.7], split_candidates={"method": "uniform", "count": 16})


def write_csv(path, X, y, names):
    with open(path, "w") as out:
        out.write(",".join(names + ["label"]) + "\n")
        for row, label in zip(X, y):
            # repr() is the shortest text that reads back to the same double; NaN stays empty.
            out.write(",".join("" if np.isnan(v) else repr(float(v)) for v in row))
            out.write("," + repr(label.item()) + "\n")


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_same_model_as_rdpkit_train(cli, tmp_path, kind, binary_data, regression_data):
    if kind == "classifier":
        X, y = binary_data
        model = rdpkit.DPGBTClassifier(epsilon=2.0, delta=1e-5, bounds=BOUNDS, random_state=11,
                                       **SETTINGS)
    else:
        X, y = regression_data
        model = rdpkit.DPGBTRegressor(epsilon=2.0, bounds=[(-2.0, 2.0)] * 3, random_state=12,
                                      label_bounds=(-5.0, 5.0), n_estimators=15,
                                      initial_score={"epsilon_share": 0.1, "label_clip": 5.0})
    model.fit(X, y)
    names = [f"x{i}" for i in range(X.shape[1])]
    write_csv(tmp_path / "train.csv", X, y, names)
    (tmp_path / "schema.json").write_text(json.dumps(model.schema(X.shape[1], names)))
    (tmp_path / "config.json").write_text(json.dumps(model.trainer_config()))
    subprocess.run([cli, "train", "--data", str(tmp_path / "train.csv"),
                    "--schema", str(tmp_path / "schema.json"),
                    "--config", str(tmp_path / "config.json"),
                    "--out", str(tmp_path / "cli.json"), "--quiet"],
                   check=True, capture_output=True)
    model.save_model(tmp_path / "py.json")
    assert (tmp_path / "py.json").read_bytes() == (tmp_path / "cli.json").read_bytes()
    cli_model = json.loads((tmp_path / "cli.json").read_text())
    assert cli_model["privacy"]["epsilon"] == model.epsilon_
    # And the CLI predicts what predict/predict_proba give.
    out = subprocess.run([cli, "predict", "--model", str(tmp_path / "py.json"),
                          "--data", str(tmp_path / "train.csv")],
                         check=True, capture_output=True, text=True).stdout
    cli_pred = np.array([float(v) for v in out.split()[1:]])
    ours = model.predict_proba(X)[:, 1] if kind == "classifier" else model.predict(X)
    np.testing.assert_array_equal(ours, cli_pred)


def test_classifier_fit_predict_and_privacy_attributes(binary_data):
    X, y = binary_data
    clf = rdpkit.DPGBTClassifier(epsilon=1.0, bounds=BOUNDS, random_state=3, **SETTINGS)
    assert clf.fit(X, y) is clf
    assert clf.n_features_in_ == 4 and list(clf.classes_) == [0, 1]
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(clf.predict(X)) <= {0, 1}
    assert clf.score(X, y) > 0.8
    assert clf.private_ and clf.epsilon_ <= 1.0
    assert clf.delta_ == 1e-4  # the largest power of ten below 1/n (n = 3000)
    # The recorded event gives back the recorded ε.
    again = rdpkit.epsilon(clf.privacy_event_, clf.delta_, accountant=clf.privacy_["accountant"])
    assert again.epsilon == clf.epsilon_


def test_labels_are_any_two_classes_and_pandas_names_are_kept(binary_data):
    X, y = binary_data
    frame = pd.DataFrame(X, columns=["age", "income", "hours", "score"])
    labels = np.where(y == 1, "yes", "no")
    clf = rdpkit.DPGBTClassifier(bounds=BOUNDS, random_state=1, n_estimators=10).fit(frame,
                                                                                     labels)
    assert list(clf.classes_) == ["no", "yes"]
    assert list(clf.feature_names_in_) == ["age", "income", "hours", "score"]
    assert clf.model_json()["feature_names"] == ["age", "income", "hours", "score"]
    assert set(clf.predict(frame)) <= {"no", "yes"}
    with pytest.raises(rdpkit.InvalidArgumentError) as info:  # one class: nothing to learn
        rdpkit.DPGBTClassifier(bounds=BOUNDS).fit(X, np.zeros(len(X), dtype=int))
    assert info.value.field == "y"


def test_text_categories_are_read_as_their_codes(binary_data, tmp_path):
    """A pandas text (or category) column, or an object array's column, of a categorical feature
    whose bounds name its codes trains and predicts exactly as the codes do; an unknown name is
    refused by name."""
    X, y = binary_data
    names = ["rent", "own, \"mine\"", "free"]  # a name may hold a comma and quotes
    codes = np.floor((X[:, 0] + 3) / 2).clip(0, 2)
    codes[::17] = np.nan
    frame = pd.DataFrame({"housing": codes, "income": X[:, 1]})
    text = frame.assign(housing=[None if np.isnan(c) else names[int(c)] for c in codes])
    bounds = [{"categorical": True, "n_codes": 3, "codes": names}, (-3.0, 3.0)]
    fit = dict(bounds=bounds, random_state=2, n_estimators=10, max_depth=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rdpkit.PrivacyLeakWarning)  # the seed's warning
        by_codes = rdpkit.DPGBTClassifier(**fit).fit(frame, y)
        by_names = rdpkit.DPGBTClassifier(**fit).fit(text, y)
        by_category = rdpkit.DPGBTClassifier(**fit).fit(
            text.astype({"housing": "category"}), y)
    assert by_names.model_json() == by_codes.model_json()
    assert by_category.model_json() == by_codes.model_json()
    assert by_codes.model_json()["schema"]["features"][0]["codes"] == names
    np.testing.assert_array_equal(by_names.predict_proba(text), by_codes.predict_proba(frame))
    np.testing.assert_array_equal(by_codes.predict_proba(text.to_numpy(dtype=object)),
                                  by_codes.predict_proba(frame))
    with pytest.raises(rdpkit.InvalidArgumentError, match='"shared" is neither a number'):
        by_codes.predict(text.assign(housing="shared"))
    # A model loaded from its file reads the names from the schema it records.
    by_codes.save_model(tmp_path / "housing.json")
    loaded = rdpkit.DPGBTClassifier().load_model(tmp_path / "housing.json")
    np.testing.assert_array_equal(loaded.predict_proba(text), by_codes.predict_proba(frame))


def test_a_seed_warns_and_is_not_in_the_model(binary_data):
    """A seed reproduces the noise: fitting with one warns, and the model file never holds it."""
    X, y = binary_data
    with pytest.warns(rdpkit.PrivacyLeakWarning, match="random_state"):
        clf = rdpkit.DPGBTClassifier(bounds=BOUNDS, random_state=4, n_estimators=3).fit(X, y)
    assert "seed" not in clf.model_json()["config"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", rdpkit.PrivacyLeakWarning)
        rdpkit.DPGBTClassifier(bounds=BOUNDS, n_estimators=3).fit(X, y)  # secure: no warning


def test_public_classes_fix_the_model_and_read_off_ones_warn():
    """Which classes occur in y is data: with more than two read off y, fit warns; a public
    `classes` list fixes K (a class absent from y still gets its trees) and refuses others."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-3, 3, size=(300, 4))
    y = np.where(X[:, 0] > 1, "c", np.where(X[:, 0] > -1, "b", "a"))
    with pytest.warns(rdpkit.PrivacyLeakWarning, match="classes"):
        rdpkit.DPGBTClassifier(bounds=BOUNDS, n_estimators=3).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rdpkit.PrivacyLeakWarning)
        clf = rdpkit.DPGBTClassifier(bounds=BOUNDS, n_estimators=3,
                                     classes=["c", "a", "b", "d"]).fit(X, y)
    assert list(clf.classes_) == ["c", "a", "b", "d"]
    assert clf.model_json()["schema"]["n_classes"] == 4
    proba = clf.predict_proba(X[:5])
    assert proba.shape == (5, 4)
    assert set(clf.predict(X)) <= {"a", "b", "c", "d"}
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.DPGBTClassifier(bounds=BOUNDS, n_estimators=3, classes=["a", "b"]).fit(X, y)
    assert info.value.field == "y" and "'c'" in str(info.value)
    with pytest.raises(rdpkit.InvalidArgumentError) as info:
        rdpkit.DPGBTClassifier(bounds=BOUNDS, classes=["a", "a"]).fit(X, y)
    assert info.value.field == "classes"
    with pytest.raises(rdpkit.InvalidArgumentError):
        rdpkit.DPGBTRegressor(bounds=BOUNDS, classes=["a", "b"]).fit(X, X[:, 0])


def test_same_seed_same_model_other_seed_other_model(binary_data):
    X, y = binary_data
    a = rdpkit.DPGBTClassifier(bounds=BOUNDS, random_state=5, n_estimators=5).fit(X, y)
    b = rdpkit.DPGBTClassifier(bounds=BOUNDS, random_state=5, n_estimators=5).fit(X, y)
    c = rdpkit.DPGBTClassifier(bounds=BOUNDS, random_state=6, n_estimators=5).fit(X, y)
    assert a.model_json() == b.model_json()
    assert a.model_json()["trees"] != c.model_json()["trees"]


def test_without_bounds_warns_and_is_not_private(regression_data):
    X, y = regression_data
    with pytest.warns(rdpkit.PrivacyLeakWarning, match="bounds"):
        reg = rdpkit.DPGBTRegressor(random_state=0, n_estimators=5).fit(X, y)
    assert not reg.private_ and reg.epsilon_ == float("inf") and reg.privacy_event_ is None
    assert reg.privacy_["private"] is False and reg.privacy_["bounds_from_data"] is True
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # public bounds and secure randomness: no warning
        rdpkit.DPGBTRegressor(bounds=(-2, 2), n_estimators=5, label_bounds=(-5, 5)).fit(X, y)


def test_values_outside_the_bounds_are_clipped_and_counted(regression_data):
    X, y = regression_data
    reg = rdpkit.DPGBTRegressor(bounds=[(-1, 1)] * 3, label_bounds=(-5, 5), random_state=0,
                                n_estimators=3).fit(X, y)
    expected = {f"x{f}": int(np.sum(np.abs(X[:, f]) > 1)) for f in range(3)}
    assert reg.training_log_["clipped"] == expected
    assert "clipped" not in reg.model_json()  # a local log, never in the model


@pytest.mark.parametrize("params, field", [
    (dict(epsilon=-1.0), "privacy.epsilon"),
    (dict(max_depth=0), "max_depth"),
    (dict(categorical_depth=17), "categorical_depth"),
    (dict(split_method="best"), "split_method"),
    (dict(bounds=[(0, 1)] * 3), "bounds"),
    (dict(bounds=[(1, 0)] * 4), "features[0]"),
    (dict(random_state=-1), "random_state"),
    (dict(epsilon=float("nan")), "privacy.epsilon"),
    (dict(epsilon=float("inf")), "privacy.epsilon"),
    (dict(learning_rate=float("inf")), "learning_rate"),
    (dict(bounds=[(0, float("nan"))] * 4), "features[0].max"),
])
def test_bad_parameters_raise_value_errors_naming_them(binary_data, params, field):
    X, y = binary_data
    with pytest.raises(ValueError) as info:
        rdpkit.DPGBTClassifier(**{"bounds": BOUNDS, **params}).fit(X, y)
    assert info.value.field.startswith(field), str(info.value)


def test_every_trainer_key_is_an_estimator_parameter():
    """The key table of docs/trees_training.md is generated from the trainer's declaration (and
    checked against it by ctest): each of its top-level keys is a parameter, but privacy (epsilon,
    delta, allow_large_delta), seed (random_state) and distributed_noise (MPI runs only)."""
    from conftest import ROOT
    text = (ROOT / "docs" / "trees_training.md").read_text()
    table = text[text.index("<!-- BEGIN config-keys"):text.index("<!-- END config-keys")]
    keys = {line.split("|")[1].strip().strip("`") for line in table.splitlines()
            if line.startswith("| `")}
    top = {key for key in keys if "." not in key}
    assert "max_depth" in top and "categorical_depth" in top
    missing = top - set(rdpkit.estimators.CONFIG_KEYS) - {"privacy", "seed", "distributed_noise"}
    assert not missing, f"trainer keys without an estimator parameter: {sorted(missing)}"
    params = rdpkit.DPGBTClassifier().get_params()
    assert all(key in params for key in rdpkit.estimators.CONFIG_KEYS)


def test_infinite_values_are_refused(binary_data):
    X, y = binary_data
    X = X.copy()
    X[3, 1] = np.inf
    with pytest.raises(ValueError):
        rdpkit.DPGBTClassifier(bounds=BOUNDS).fit(X, y)


def test_save_load_pickle_and_clone(tmp_path, binary_data):
    X, y = binary_data
    clf = rdpkit.DPGBTClassifier(bounds=BOUNDS, random_state=2, n_estimators=5).fit(X, y)
    clf.save_model(tmp_path / "m.json")
    loaded = rdpkit.DPGBTClassifier().load_model(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    assert loaded.epsilon_ == clf.epsilon_ and loaded.privacy_event_ == clf.privacy_event_
    unpickled = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(unpickled.predict_proba(X), clf.predict_proba(X))
    fresh = clone(clf)
    assert fresh.get_params() == clf.get_params() and not hasattr(fresh, "model_")
    fresh.set_params(n_estimators=3, epsilon=0.5)
    assert fresh.fit(X, y).n_estimators_ == 3 and fresh.epsilon_ <= 0.5


def test_pipeline_and_cross_val_score(binary_data):
    X, y = binary_data
    pipe = make_pipeline(FunctionTransformer(lambda a: np.clip(a, -3, 3)),
                         rdpkit.DPGBTClassifier(bounds=BOUNDS, random_state=0, **SETTINGS))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and scores.min() > 0.75


def test_more_than_two_classes_train_natively(tmp_path):
    # Three classes of points in the unit square; native multiclass (multi:softprob) by default.
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 1, (3000, 3))
    index = np.where(X[:, 0] + X[:, 1] < 0.8, 0, np.where(X[:, 0] > 0.6, 2, 1))
    y = np.array(["low", "mid", "high"])[index]
    # The class list is public (classes read off y would mark the model not private).
    clf = rdpkit.DPGBTClassifier(epsilon=4.0, bounds=[(0, 1)] * 3, random_state=3,
                                 n_estimators=30, classes=["high", "low", "mid"])
    clf.fit(X[:2000], y[:2000])
    assert list(clf.classes_) == ["high", "low", "mid"]
    assert clf.trainer_config()["objective"] == "multi:softprob"
    assert clf.epsilon_ <= 4.0
    proba = clf.predict_proba(X[2000:])
    assert proba.shape == (1000, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert set(clf.predict(X[2000:])) <= set(clf.classes_)
    assert clf.score(X[2000:], y[2000:]) > 0.6  # chance is about 0.4
    # The model file is the CLI's: it loads back with the same probabilities.
    path = tmp_path / "multi.json"
    clf.save_model(str(path))
    again = rdpkit.DPGBTClassifier().load_model(str(path))
    assert list(again.classes_) == ["high", "low", "mid"]  # the file names the classes
    np.testing.assert_array_equal(again.predict_proba(X[2000:]), proba)
    with pytest.raises(rdpkit.InvalidArgumentError):
        rdpkit.DPGBTClassifier(epsilon=1.0, bounds=[(0, 1)] * 3,
                               objective="binary:logistic").fit(X[:2000], y[:2000])
