"""RandomTSClassifier: scikit-learn's checks, label types, scores, probabilities, files."""

import numpy as np
import pytest
import scipy.special
from sklearn.datasets import load_iris, make_classification
from sklearn.utils.estimator_checks import parametrize_with_checks

import randomts
from randomts import RandomTSClassifier, RandomTSRegressor
from randomts.estimators.parameters import resolved

# Settings under which the scores are well posed on small data (used where the test is not
# about the defaults): standardised inputs, a ridge, few rules.
SMALL = dict(n_rules=12, standardize=True, alpha=1e-2)


@parametrize_with_checks(
    [
        RandomTSClassifier(
            structure="random"
        ),  # the defaults: rules grown where the data need them
        RandomTSClassifier(random_state=0, structure="random"),
        RandomTSClassifier(
            n_rules=50,
            order=0,
            normalize=True,
            standardize=True,
            alpha=1e-3,
            random_state=0,
            structure="random",
        ),
    ]
)
def test_scikit_learn_compatible(estimator, check):
    check(estimator)


def iris():
    X, y = load_iris(return_X_y=True)
    return X, load_iris().target_names[y]


@pytest.mark.parametrize(
    "labels",
    [
        np.array(["setosa", "versicolor", "virginica"]),
        np.array([-3, 7, 10]),
        np.array([3.0, -1.0, 0.0]),
        np.array(["only", "two", "two"]),
    ],
    ids=["str", "int", "float", "binary-str"],
)
def test_labels_of_any_type_come_back(labels):
    X, _ = load_iris(return_X_y=True)
    y = labels[load_iris().target]
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, y)
    assert clf.classes_.tolist() == sorted(set(y.tolist()))
    predicted = clf.predict(X)
    assert predicted.dtype == clf.classes_.dtype
    assert set(predicted.tolist()) <= set(y.tolist())
    assert np.mean(predicted == y) > 0.9


def test_bool_labels_are_binary():
    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, y.astype(bool))
    assert clf.classes_.tolist() == [False, True]
    assert clf.decision_function(X).shape == (200,)
    assert clf.predict(X).dtype == bool
    assert clf.rule_base_.output_names == ("score(True)",)


def test_multiclass_scores_are_the_regression_of_one_hot_targets():
    X, y = iris()
    clf = RandomTSClassifier(**SMALL, random_state=3, structure="random").fit(X, y)
    one_hot = (y[:, None] == clf.classes_[None, :]).astype(float)
    # the classifier's default widths for the weighted sum: b_i ~ U(0, 2 / n_features]
    widths = (0.0, 2.0 / X.shape[1])
    # the classifier's scores are not held in a range (lock_range=False, its default)
    regressor = RandomTSRegressor(
        **SMALL, width_range=widths, random_state=3, structure="random", lock_range=False
    ).fit(X, one_hot)
    np.testing.assert_allclose(
        clf.decision_function(X), regressor.predict(X), rtol=1e-10, atol=1e-12
    )
    assert np.array_equal(clf.predict(X), clf.classes_[regressor.predict(X).argmax(axis=1)])


def test_binary_score_is_the_difference_of_one_hot_scores():
    # Least squares is linear in the targets: the fit of +-1 is fit(e1) - fit(e0).
    X, y = make_classification(
        n_samples=150, n_features=3, n_informative=3, n_redundant=0, random_state=1
    )
    clf = RandomTSClassifier(**SMALL, random_state=1, structure="random").fit(X, y)
    one_hot = np.column_stack([y == 0, y == 1]).astype(float)
    widths = (0.0, 2.0 / X.shape[1])
    regressor = RandomTSRegressor(
        **SMALL, width_range=widths, random_state=1, structure="random", lock_range=False
    )
    scores = regressor.fit(X, one_hot).predict(X)
    np.testing.assert_allclose(
        clf.decision_function(X), scores[:, 1] - scores[:, 0], rtol=1e-8, atol=1e-10
    )
    assert np.array_equal(clf.predict(X), clf.classes_[(scores[:, 1] > scores[:, 0]).astype(int)])


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_probabilities_are_a_softmax_consistent_with_predict(n_classes):
    X, y = make_classification(
        n_samples=300, n_features=6, n_informative=4, n_classes=n_classes, random_state=n_classes
    )
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.shape == (300, n_classes)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert np.array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), proba, rtol=1e-10)
    scores = clf.decision_function(X)
    if n_classes == 2:
        np.testing.assert_allclose(
            proba[:, 1], scipy.special.expit(scores / clf.temperature_), rtol=1e-10
        )


def test_temperature_minimises_the_smoothed_cross_entropy():
    X, y = iris()
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, y)
    scores = clf.decision_function(X)
    index = np.searchsorted(clf.classes_, y)
    counts = np.bincount(index)
    on = (counts + 1.0) / (counts + 2.0)
    targets = np.tile(((1 - on) / 2)[index, None], (1, 3))
    targets[np.arange(y.size), index] = on[index]

    def cross_entropy(t):
        return -np.mean(np.sum(targets * scipy.special.log_softmax(scores / t, axis=1), axis=1))

    grid = clf.temperature_ * np.exp(np.linspace(-1, 1, 201))
    values = [cross_entropy(t) for t in grid]
    assert cross_entropy(clf.temperature_) <= min(values) + 1e-9


def test_separable_training_data_keep_a_finite_temperature():
    # Platt's smoothed targets: a perfect training fit does not send T to 0.
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(-5, 1, (40, 2)), rng.normal(5, 1, (40, 2))])
    y = np.repeat([0, 1], 40)
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, y)
    assert clf.score(X, y) == 1.0  # exact: every label right is a fraction of 1
    proba = clf.predict_proba(X)
    assert 0.9 < proba.max(axis=1).min() and proba.max() < 1.0 - 1e-6


def test_rules_name_the_classes_and_the_features():
    pd = pytest.importorskip("pandas")
    data = load_iris(as_frame=True)
    X = data.data.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
    y = pd.Series(data.target_names[data.target], name="species")
    clf = RandomTSClassifier(
        n_rules=3, standardize=True, alpha=1.0, random_state=0, structure="random"
    ).fit(X, y)
    text = clf.rule_base_.to_text(precision=3)
    assert "\n    score(setosa) = " in text and "THEN\n" in text
    assert "\n    score(versicolor) = " in text and "\n    score(virginica) = " in text
    assert "IF sepal_length is about " in text
    assert clf.rule_base_.metadata["classes"] == ["setosa", "versicolor", "virginica"]
    assert clf.rule_base_.metadata["estimator"] == "RandomTSClassifier"


@pytest.mark.parametrize("extension", [".txt", ".json", ".fis", ".fll"])
@pytest.mark.parametrize(
    "labels",
    [
        np.array(["setosa", "versicolor", "virginica"]),
        np.array([-3, 7, 10]),
        np.array([3.0, -1.0, 0.0]),
        np.array([False, True, True]),
    ],
    ids=["str", "int", "float", "bool"],
)
def test_load_gives_back_the_fitted_classifier(tmp_path, extension, labels):
    X, target = load_iris(return_X_y=True)
    y = labels[target]
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, y)
    path = tmp_path / f"model{extension}"
    randomts.save(clf, path)
    loaded = randomts.load(path)
    assert isinstance(loaded, RandomTSClassifier)
    assert loaded.get_params() == clf.get_params()
    assert loaded.classes_.dtype == clf.classes_.dtype
    assert np.array_equal(loaded.classes_, clf.classes_)
    assert loaded.temperature_ == clf.temperature_
    assert np.array_equal(loaded.predict(X), clf.predict(X))
    assert loaded.predict(X).dtype == clf.predict(X).dtype
    # the formats are lossless: the same scores and probabilities to rounding
    np.testing.assert_allclose(loaded.predict_proba(X), clf.predict_proba(X), rtol=1e-12)
    assert loaded.rule_base_.output_names == clf.rule_base_.output_names
    # what the loaded classifier saves loads again as the same classifier
    randomts.save(loaded, tmp_path / "again.json")
    again = randomts.load(tmp_path / "again.json")
    assert np.array_equal(again.predict(X), clf.predict(X))


def test_a_loaded_classifier_keeps_the_feature_names(tmp_path):
    pd = pytest.importorskip("pandas")
    data = load_iris(as_frame=True)
    X = data.data.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
    y = pd.Series(data.target_names[data.target], name="species").astype(object)
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, y)
    assert clf.classes_.dtype == object
    randomts.save(clf, tmp_path / "iris.fis")
    loaded = randomts.load(tmp_path / "iris.fis")
    assert list(loaded.feature_names_in_) == list(X.columns)
    assert loaded.rule_base_.input_names == tuple(X.columns)
    assert loaded.classes_.tolist() == ["setosa", "versicolor", "virginica"]
    assert np.array_equal(loaded.predict(X), clf.predict(X))
    with pytest.raises(ValueError, match="feature names"):
        loaded.predict(X.rename(columns={"sepal_length": "other"}))


def test_a_saved_pipeline_with_a_scaler_loads_as_the_classifier(tmp_path):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    X, y = iris()
    pipeline = make_pipeline(
        MinMaxScaler(), RandomTSClassifier(**SMALL, random_state=0, structure="random")
    )
    pipeline.fit(X, y)
    randomts.save(pipeline, tmp_path / "pipeline.json")
    loaded = randomts.load(tmp_path / "pipeline.json")
    assert isinstance(loaded, RandomTSClassifier)
    np.testing.assert_allclose(
        loaded.decision_function(X), pipeline.decision_function(X), rtol=1e-9, atol=1e-9
    )
    assert np.array_equal(loaded.predict(X), pipeline.predict(X))


def test_a_damaged_classifier_record_is_a_format_error(tmp_path):
    import json

    X, y = iris()
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, y)
    randomts.save(clf, tmp_path / "model.json")
    document = json.loads((tmp_path / "model.json").read_text())
    record = document["metadata"]["estimator_state"]["classifier"]
    record["classes"]["array"] = ["a", "b", "c", "d"]
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(randomts.FormatError, match="4 classes .* a rule base of 3 scores"):
        randomts.load(tmp_path / "bad.json")
    del document["metadata"]["estimator_state"]["classifier"]
    (tmp_path / "bad.json").write_text(json.dumps(document))
    with pytest.raises(randomts.FormatError, match="'classifier' record is missing"):
        randomts.load(tmp_path / "bad.json")


def test_string_labels_in_an_object_array_are_saved_as_strings(tmp_path):
    X, y = iris()
    y = y.astype(object)
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, y)
    assert clf.classes_.dtype == object  # strings in an object array: saved as str
    randomts.save(clf, tmp_path / "ok.json")
    loaded = randomts.load(tmp_path / "ok.json")
    assert loaded.classes_.tolist() == ["setosa", "versicolor", "virginica"]
    assert np.array_equal(loaded.predict(X), clf.predict(X))


def test_saved_binary_rule_base_gives_labels_by_sign(tmp_path):
    X, y = make_classification(
        n_samples=120, n_features=3, n_informative=2, n_redundant=0, random_state=0
    )
    labels = np.array(["benign", "malignant"])[y]
    clf = RandomTSClassifier(**SMALL, random_state=0, structure="random").fit(X, labels)
    randomts.save(clf, tmp_path / "model.json")
    rule_base = randomts.load(tmp_path / "model.json").rule_base_
    score = np.asarray(rule_base.predict(X)).reshape(-1)
    assert rule_base.output_names == ("score(malignant)",)
    assert " THEN score(malignant) = " in rule_base.to_text(precision=4)
    assert np.array_equal(clf.classes_[(score > 0).astype(int)], clf.predict(X))


def test_one_class_is_refused_with_a_clear_message():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="at least 2 classes in y; got 1 class: \\['a'\\]"):
        RandomTSClassifier(structure="random").fit(X, ["a"] * 10)


def test_continuous_targets_are_refused():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="Unknown label type"):
        RandomTSClassifier(structure="random").fit(X, np.linspace(0, 1, 10))


@pytest.mark.parametrize(
    "params, error, message",
    [
        (dict(n_rules=0), ValueError, "'n_rules' parameter of RandomTSClassifier must be an int"),
        (dict(alpha=-1.0), ValueError, "'alpha' parameter of RandomTSClassifier"),
        (dict(solver="qr"), ValueError, "'solver' parameter of RandomTSClassifier"),
        (dict(standardize="yes"), TypeError, "'standardize' parameter of RandomTSClassifier"),
    ],
)
def test_bad_hyperparameters_name_the_classifier(params, error, message):
    X, y = iris()
    with pytest.raises(error, match=message):
        RandomTSClassifier(**params, structure="random").fit(X, y)


def test_the_classifier_takes_the_regressor_parameters_and_defaults_but_two():
    own = RandomTSClassifier(structure="random").get_params()
    defaults = RandomTSRegressor(structure="random").get_params()
    assert set(own) == set(defaults)
    assert all(own[name] == defaults[name] for name in defaults if name != "n_rules")
    assert (
        own["n_rules"] is None and resolved(RandomTSClassifier(structure="random")).n_rules == 150
    )
    # the widths the classifier draws by default for the weighted sum: b up to 2 / n_features,
    # four times the regressor's; the rules are the regressor's given that range (the same
    # draws from the same generator, so the arrays are equal exactly)
    X, y = iris()
    scores = np.where(y == 1, 1.0, 0.0)
    narrow = (0.0, 2.0 / X.shape[1])
    for params, regressor_params in [
        ({}, {"width_range": narrow}),
        ({"normalize": True}, {"normalize": True}),
        ({"width_range": (0.1, 0.2)}, {"width_range": (0.1, 0.2)}),
    ]:
        clf = RandomTSClassifier(n_rules=10, random_state=0, **params, structure="random").fit(X, y)
        reg = RandomTSRegressor(
            n_rules=10, random_state=0, **regressor_params, structure="random"
        ).fit(X, scores)
        assert np.array_equal(clf.rule_base_.sigmas, reg.rule_base_.sigmas)
        assert np.array_equal(clf.rule_base_.centers, reg.rule_base_.centers)


def test_same_seed_same_model():
    X, y = iris()
    first = RandomTSClassifier(**SMALL, random_state=5, structure="random").fit(X, y)
    second = RandomTSClassifier(**SMALL, random_state=5, structure="random").fit(X, y)
    assert first.rule_base_ == second.rule_base_
    assert first.temperature_ == second.temperature_


def test_held_out_accuracy_on_iris():
    X, y = iris()
    rng = np.random.default_rng(0)
    order = rng.permutation(y.size)
    train, test = order[:100], order[100:]
    clf = RandomTSClassifier(
        n_rules=20, standardize=True, alpha=1.0, random_state=0, structure="random"
    )
    assert clf.fit(X[train], y[train]).score(X[test], y[test]) >= 0.9
