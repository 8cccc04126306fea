"""A fitted estimator survives saving and pickling; pruning and importance from the estimator."""

import json
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from io_helpers import relative_error
from sklearn.base import clone
from sklearn.decomposition import PCA
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, RobustScaler, StandardScaler

import randomts
from randomts import FormatError, RandomTSRegressor, RuleBase
from randomts.analysis.importance import prune, rule_importance
from randomts.io import dumps, loads

FORMATS = {"json": ".json", "text": ".txt", "fis": ".fis", "fll": ".fll"}


def data(seed=0, n=300, n_outputs=None, offset=0.0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n, 3)) + offset
    Z = X - offset
    y = np.sin(Z[:, 0]) * Z[:, 1] + 0.3 * Z[:, 2]
    if n_outputs is None:
        return X, y
    return X, np.column_stack([y * (k + 1) + k for k in range(n_outputs)])


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("n_outputs", [None, 1, 2])
@pytest.mark.parametrize("standardize", [False, True])
def test_a_saved_estimator_loads_as_the_same_fitted_estimator(
    tmp_path, fmt, n_outputs, standardize
):
    X, y = data(n_outputs=n_outputs)
    model = RandomTSRegressor(
        n_rules=12,
        standardize=standardize,
        normalize=standardize,
        random_state=4,
        structure="random",
    ).fit(X, y)
    path = tmp_path / f"model{FORMATS[fmt]}"
    randomts.save(model, path)
    back = randomts.load(path)
    assert type(back) is RandomTSRegressor
    assert back.get_params() == model.get_params()
    assert back.n_features_in_ == 3 and not hasattr(back, "feature_names_in_")
    X_new = data(seed=1)[0]
    expected, got = model.predict(X_new), back.predict(X_new)
    assert got.shape == expected.shape == ((300,) if n_outputs is None else (300, n_outputs))
    if fmt in ("json", "text"):
        assert np.array_equal(got, expected)
    else:  # repr numbers: the arrays are equal; engines may compute in their own order
        assert relative_error(got.reshape(300, -1), model.rule_base_, X_new) <= 1e-12
    assert back.score(X_new, model.predict(X_new)) == pytest.approx(1.0, abs=1e-12)
    assert back.rule_base_ == model.rule_base_
    assert back.rule_base_.metadata == model.rule_base_.metadata


def test_feature_and_output_names_survive_every_format(tmp_path):
    X, y = data()
    frame = pd.DataFrame(X, columns=["temp (C)", "a#b", "x'3"])
    target = pd.Series(y, name="out put")
    model = RandomTSRegressor(n_rules=6, random_state=0, structure="random").fit(frame, target)
    for fmt, extension in FORMATS.items():
        randomts.save(model, tmp_path / f"m{extension}")
        back = randomts.load(tmp_path / f"m{extension}")
        assert list(back.feature_names_in_) == ["temp (C)", "a#b", "x'3"], fmt
        assert back.rule_base_.input_names == model.rule_base_.input_names, fmt
        assert back.rule_base_.output_names == ("out put",), fmt
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # names as in fit: no warning
            assert np.array_equal(back.predict(frame), model.predict(frame))
        with pytest.raises(ValueError, match="feature names should match"):
            back.predict(frame.rename(columns={"a#b": "b"}))


def test_a_saved_rule_base_still_loads_as_a_rule_base(tmp_path):
    X, y = data()
    model = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(X, y)
    for fmt, extension in FORMATS.items():
        randomts.save(model.rule_base_, tmp_path / f"rb{extension}")
        back = randomts.load(tmp_path / f"rb{extension}")
        assert isinstance(back, RuleBase) and back == model.rule_base_, fmt
        assert back.metadata == model.rule_base_.metadata, fmt  # every format carries it
        assert back.predict(X).shape == (300, 1)


def test_a_loaded_estimator_refits_and_prunes_as_the_original(tmp_path):
    X, y = data()
    model = RandomTSRegressor(
        n_rules=15, standardize=True, alpha=1e-3, random_state=7, structure="random"
    ).fit(X, y)
    back = loads(dumps(model, "text"), "text")
    assert np.array_equal(clone(back).fit(X, y).predict(X), model.predict(X))
    assert np.array_equal(back.prune(5, X, y).predict(X), model.prune(5, X, y).predict(X))
    assert np.array_equal(back.rule_importance(X), model.rule_importance(X))


PIPELINES = [
    (make_pipeline, [StandardScaler()], {}),
    (make_pipeline, [MinMaxScaler(feature_range=(-1, 2)), RobustScaler()], {"standardize": True}),
    (make_pipeline, ["passthrough", MaxAbsScaler(), StandardScaler()], {"normalize": True}),
]


@pytest.mark.parametrize("fmt", ["json", "fis"])
@pytest.mark.parametrize("make, scalers, params", PIPELINES)
def test_a_pipeline_of_scalers_is_folded_into_one_rule_base(tmp_path, fmt, make, scalers, params):
    X, y = data(offset=300.0)  # inputs far from the origin, as raw data often are
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    pipeline = make(
        *scalers, RandomTSRegressor(n_rules=10, random_state=0, **params, structure="random")
    )
    pipeline.fit(frame, y)
    path = tmp_path / f"pipe{FORMATS[fmt]}"
    randomts.save(pipeline, path)
    back = randomts.load(path)
    assert type(back) is RandomTSRegressor and list(back.feature_names_in_) == ["a", "b", "c"]
    assert back.rule_base_.input_names == ("a", "b", "c")
    folded = [type(s).__name__ for s in scalers if s != "passthrough"]
    assert back.rule_base_.metadata["folded_steps"] == folded
    X_new = pd.DataFrame(data(seed=2, offset=300.0)[0], columns=["a", "b", "c"])
    expected = pipeline.predict(X_new)
    scale = np.abs(pipeline[-1].rule_base_.contributions(pipeline[:-1].transform(X_new))).sum(1)
    assert scale.min() > 1e-3  # the rules fire: the test compares numbers that matter
    assert np.max(np.abs(back.predict(X_new) - expected) / scale[:, 0]) <= 1e-11  # 2e-12 seen
    ranges = back.rule_base_.input_range
    np.testing.assert_allclose(ranges, np.column_stack([X.min(0), X.max(0)]), rtol=1e-12)
    # the pruned model refits in the units of the pipeline's estimator
    pruned, reference = (
        back.prune(4, X_new, expected),
        pipeline[-1].prune(4, pipeline[:-1].transform(X_new), expected),
    )
    np.testing.assert_allclose(
        pruned.predict(X_new), reference.predict(pipeline[:-1].transform(X_new)), rtol=1e-8
    )


def test_a_pipeline_step_a_rule_base_cannot_hold_is_named(tmp_path):
    X, y = data()
    pca = make_pipeline(
        StandardScaler(), PCA(n_components=3), RandomTSRegressor(n_rules=3, structure="random")
    )
    with pytest.raises(TypeError, match=r"step 'pca' \(PCA\) is not a per-feature scaling"):
        randomts.save(pca.fit(X, y), tmp_path / "m.json")
    clipped = make_pipeline(
        MinMaxScaler(clip=True), RandomTSRegressor(n_rules=3, structure="random")
    ).fit(X, y)
    with pytest.raises(TypeError, match=r"step 'minmaxscaler' \(MinMaxScaler\) has clip=True"):
        randomts.save(clipped, tmp_path / "m.json")
    with pytest.raises(TypeError, match=r"last step 'randomtsregressor' .* not fitted"):
        randomts.save(
            make_pipeline(StandardScaler(), RandomTSRegressor(structure="random")),
            tmp_path / "m.json",
        )
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(
        RandomTSRegressor(random_state=0, structure="random"), {"n_rules": [2, 3]}, cv=2
    ).fit(X, y)
    with pytest.raises(TypeError, match=r"got GridSearchCV \(save its best_estimator_\)"):
        randomts.save(search, tmp_path / "m.json")
    randomts.save(search.best_estimator_, tmp_path / "best.json")
    assert randomts.load(tmp_path / "best.json").n_rules == search.best_params_["n_rules"]
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("standardize", [False, True])
def test_pickle_round_trips(standardize):
    X, y = data()
    model = RandomTSRegressor(
        n_rules=9, standardize=standardize, random_state=1, structure="random"
    ).fit(X, y)
    model.predict(X)  # fills the rule base's inference cache, which pickle leaves out
    back = pickle.loads(pickle.dumps(model))
    assert np.array_equal(back.predict(X), model.predict(X))
    rule_base = pickle.loads(pickle.dumps(model.rule_base_))
    assert rule_base == model.rule_base_ and rule_base.metadata == model.rule_base_.metadata
    assert not rule_base.centers.flags.writeable and not rule_base.coef.flags.writeable
    streamed = RandomTSRegressor(
        n_rules=9, standardize=standardize, random_state=1, structure="random"
    )
    streamed.partial_fit(X[:150], y[:150])
    resumed = pickle.loads(pickle.dumps(streamed)).partial_fit(X[150:], y[150:])
    assert np.array_equal(resumed.predict(X), streamed.partial_fit(X[150:], y[150:]).predict(X))
    fresh = RandomTSRegressor(
        n_rules=9, standardize=standardize, random_state=1, structure="random"
    )
    fresh = pickle.loads(pickle.dumps(fresh))
    assert np.array_equal(fresh.fit(X, y).predict(X), model.predict(X))


def test_a_damaged_estimator_record_is_a_format_error_on_its_line(tmp_path):
    X, y = data(n_outputs=2)
    model = RandomTSRegressor(n_rules=3, random_state=0, structure="random").fit(X, y)
    document = json.loads(dumps(model, "json"))
    document["metadata"]["estimator_state"]["target_ndim"] = 1
    text = json.dumps(document, indent=1)
    line = next(k for k, raw in enumerate(text.split("\n"), 1) if "estimator_state" in raw)
    path = tmp_path / "m.json"
    path.write_text(text)
    with pytest.raises(
        FormatError, match=rf"m.json: line {line}: .* 'target_ndim' is 1 but .* 2 outputs"
    ):
        randomts.load(path)
    fll = dumps(model, "fll").replace('"class": "RandomTSRegressor"', '"class": "Nope"')
    with pytest.raises(FormatError, match=r"line \d+: the file holds a fitted 'Nope'"):
        loads(fll, "fll")
    document["metadata"]["estimator_state"]["target_ndim"] = 2
    document["metadata"]["estimator_state"]["attributes"] = {"x_": {"array": [1], "dtype": "O"}}
    with pytest.raises(FormatError, match=r"line \d+: .* damaged: attribute 'x_' is not a 1-D"):
        loads(json.dumps(document, indent=1), "json")
    broken = dumps(model, "text").replace("randomts-metadata: {", "randomts-metadata: [")
    with pytest.raises(FormatError, match="the metadata comment is not a JSON object"):
        loads(broken, "text")


def test_prune_returns_a_new_fitted_estimator_by_the_importance_module():
    X, y = data()
    model = RandomTSRegressor.paper(n_rules=30, random_state=0).fit(X, y)
    before = model.rule_base_
    small = model.prune(8, X, y)
    assert small is not model and model.rule_base_ is before and model.n_rules == 30
    assert small.n_rules == 8 and small.rule_base_.metadata["pruned_from"] == 30
    assert small.rule_base_ == prune(before, 8, X, y)  # one implementation, same numbers
    assert small.predict(X).shape == (300,)
    np.testing.assert_array_equal(model.rule_importance(X), rule_importance(before, X))
    # keeping every rule refits the same least-squares problem, columns reordered
    np.testing.assert_allclose(
        model.prune(30, X, y).predict(X), model.predict(X), rtol=1e-7, atol=1e-9
    )


def test_prune_and_importance_validate_their_input():
    X, y = data()
    model = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but RandomTSRegressor is expecting 3"):
        model.rule_importance(X[:, :2])
    with pytest.raises(ValueError, match="The 'k' parameter must be at most n_rules = 5. Got 6"):
        model.prune(6, X, y)
    with pytest.raises(ValueError, match="y has 2 outputs, but RandomTSRegressor is expecting 1"):
        model.prune(2, X, np.column_stack([y, y]))
    with pytest.raises(Exception, match="not fitted"):
        RandomTSRegressor(structure="random").prune(2, X, y)


def test_other_fitted_attributes_survive_saving(tmp_path):
    """Scalars and short arrays an estimator learns in fit (a chosen penalty, say) come back."""
    X, y = data()
    model = RandomTSRegressor.paper(n_rules=4, random_state=0).fit(X, y)
    model.alpha_ = 0.125  # as a fit that chooses its penalty would set it
    model.path_ = np.array([1.0, 0.5, 0.25])
    model.labels_ = np.array(["a", "b"])
    model.matrix_ = np.eye(2)  # 2-D: left out
    for fmt in FORMATS:
        back = loads(dumps(model, fmt), fmt)
        assert back.alpha_ == pytest.approx(0.125, rel=1e-15) and type(back.alpha_) is float
        assert np.array_equal(back.path_, model.path_) and back.path_.dtype == np.float64
        assert back.labels_.tolist() == ["a", "b"] and not hasattr(back, "matrix_")
    pruned = loads(dumps(model, "json"), "json").prune(2, X, y)  # refits with the chosen penalty
    assert pruned.rule_base_ == prune(model.rule_base_, 2, X, y, alpha=0.125)


@pytest.mark.parametrize("standardize", [False, True])
def test_from_rule_base_is_the_second_half_of_fit(standardize):
    """The rule base fit fits, given to from_rule_base, makes the estimator fit makes."""
    X, y = data(offset=100.0 if standardize else 0.0)
    model = RandomTSRegressor(
        n_rules=15, standardize=standardize, random_state=2, structure="random"
    )
    fitted = clone(model).fit(X, y)
    if standardize:
        mean, scale = X.mean(axis=0), X.std(axis=0)
        U = (X - mean) / scale
        scaling = {"input_mean": mean, "input_scale": scale}
    else:
        U, scaling = X, {}
    rules = model.draw_antecedents(U).fit_consequents(U, y, alpha=fitted.alpha_, solver="cholesky")
    ranges = np.column_stack([U.min(axis=0), U.max(axis=0)])
    rules = rules.replace(
        input_range=ranges,
        output_range=[[y.min(), y.max()]],
        metadata={
            "alpha": fitted.alpha_,
            "weakest_log_firing": fitted.rule_base_.metadata["weakest_log_firing"],
        },
    )
    made = RandomTSRegressor.from_rule_base(
        rules, n_samples=len(X), **scaling, **model.get_params()
    )
    # exact: the recorded penalty is read back from its repr
    assert made.get_params() == fitted.get_params() and made.alpha_ == fitted.alpha_
    assert made.rule_base_.metadata.keys() == fitted.rule_base_.metadata.keys()
    np.testing.assert_allclose(made.rule_base_.input_range, fitted.rule_base_.input_range)
    # the same penalty, without fit's shrinkage toward the mean: close, not equal
    assert made.score(X, y) == pytest.approx(fitted.score(X, y), abs=1e-3)
    with pytest.warns(randomts.ExtrapolationWarning):
        made.predict(X[:2] + 1e3)
    assert made.prune(5, X, y).n_rules == 5
    assert clone(made).fit(X, y).rule_base_ == fitted.rule_base_


def test_from_rule_base_of_another_tool_saves_and_loads(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 2))
    y = X[:, 0] * X[:, 1]
    rules = RuleBase.random(2, n_rules=6, random_state=0).fit_consequents(X, y)
    model = RandomTSRegressor.from_rule_base(rules, alpha=0.0)
    assert model.alpha_ == 0.0 and model.n_outputs_ == 1  # exact: the given penalty
    np.testing.assert_array_equal(model.predict(X), rules.predict(X)[:, 0])
    randomts.save(model, tmp_path / "m.json")
    back = randomts.load(tmp_path / "m.json")
    np.testing.assert_array_equal(back.predict(X), model.predict(X))


def test_from_rule_base_errors():
    rules = RuleBase.random(2, n_rules=3, random_state=0)
    with pytest.raises(TypeError, match="rule_base must be a RuleBase; got str"):
        RandomTSRegressor.from_rule_base("rules")
    fitted = rules.fit_consequents(np.eye(3, 2), np.ones(3))
    with pytest.raises(ValueError, match="both input_mean and input_scale"):
        RandomTSRegressor.from_rule_base(fitted, input_mean=[0.0, 0.0])
    with pytest.raises(ValueError, match="input_scale must be > 0"):
        RandomTSRegressor.from_rule_base(fitted, input_mean=[0.0, 0.0], input_scale=[1.0, 0.0])
    with pytest.raises(ValueError, match="input_mean has 3"):
        RandomTSRegressor.from_rule_base(fitted, input_mean=[0.0] * 3, input_scale=[1.0] * 3)
    with pytest.raises(ValueError, match="The 'n_rules' parameter of RandomTSRegressor"):
        RandomTSRegressor.from_rule_base(fitted, n_rules=-1)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_loaded_estimator_warns_where_no_rule_fires(tmp_path, fmt):
    X, y = data()
    model = RandomTSRegressor(n_rules=10, random_state=0, structure="random").fit(X, y)
    randomts.save(model, tmp_path / f"m{FORMATS[fmt]}")
    back = randomts.load(tmp_path / f"m{FORMATS[fmt]}")
    far = X[:4] + [1e3, 0.0, 0.0]
    with pytest.warns(randomts.ExtrapolationWarning, match="4 of 4 rows"):
        back.predict(far)
    with warnings.catch_warnings():
        warnings.simplefilter("error", randomts.ExtrapolationWarning)
        back.predict(X)
