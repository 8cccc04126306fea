"""The estimators with ``structure="grown"``: what every fitted model answers, grown rules too."""

import numpy as np
import pytest

import randomts
from randomts import RandomTSClassifier, RandomTSRegressor
from randomts.analysis.agreement import rule_agreement
from randomts.cli import main
from randomts.estimators.parameters import resolved
from randomts.fitting.growth import WIDTH_FACTORS


def _data(n_rows=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n_rows, 2))
    y = np.sin(1.5 * X[:, 0]) + 0.3 * X[:, 1] ** 2 + 0.05 * rng.normal(size=n_rows)
    return X, y


@pytest.fixture(scope="module")
def grown():
    X, y = _data()
    return RandomTSRegressor(structure="grown").fit(X, y), X, y


def test_random_rules_are_the_random_rules_of_before():
    # the parameters that follow the structure resolve to the explicit values of the
    # random rules, so the two fits run the same arithmetic: equal exactly
    X, y = _data(200)
    drawn = RandomTSRegressor(random_state=0, structure="random").fit(X, y)
    explicit = RandomTSRegressor(
        100,
        normalize=False,
        learning="global",
        centers="samples",
        random_state=0,
        structure="random",
    ).fit(X, y)
    assert resolved(drawn).structure == "random"
    np.testing.assert_array_equal(drawn.predict(X), explicit.predict(X))


def test_the_defaults_grow_the_regressors_rules_and_draw_the_classifiers():
    X, y = _data(200)
    # the same arithmetic with structure left None and named: equal exactly
    default = RandomTSRegressor().fit(X, y)
    named = RandomTSRegressor(structure="grown").fit(X, y)
    assert resolved(default).structure == "grown" and default.rule_base_.normalize
    np.testing.assert_array_equal(default.predict(X), named.predict(X))
    assert resolved(RandomTSClassifier()).structure == "random"
    interpretable = RandomTSRegressor.interpretable().fit(X, y)
    np.testing.assert_array_equal(interpretable.predict(X), default.predict(X))


def test_grown_rules_fit_the_curve_and_describe_it_where_they_live(grown):
    model, X, y = grown
    rules = model.rule_base_
    assert rules.normalize and 2 <= rules.n_rules <= resolved(model).n_rules
    assert model.score(X, y) > 0.95
    # a rule's line at its own centre, against the model there, in standard deviations of y
    assert np.abs(rule_agreement(rules, X, y).from_model).max() < 0.25
    # no rule wider than its input's range
    span = X.max(axis=0) - X.min(axis=0)
    assert np.all(rules.sigmas <= span)


def test_text_and_explanations_of_grown_rules(grown):
    model, X, y = grown
    text = model.rule_base_.to_text(X=X, y=y, top=3)
    assert text.count("IF ") == 3 and "THEN" in text
    explanation = model.explain(X[0])
    assert np.isclose(explanation.prediction, model.predict(X[:1])[0], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("suffix", [".json", ".fis", ".fll"])
def test_grown_models_save_and_load(grown, tmp_path, suffix):
    model, X, _ = grown
    path = tmp_path / f"model{suffix}"
    randomts.save(model, path)
    loaded = randomts.load(path)
    # text formats keep every bit (repr of floats); the sums run in the same order
    np.testing.assert_allclose(loaded.predict(X), model.predict(X), rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore::randomts.exceptions.ExtrapolationWarning")
def test_intervals_of_grown_rules_cover_by_split_conformal():
    X, y = _data(1500, seed=1)
    model = RandomTSRegressor(structure="grown").fit(X[:700], y[:700])
    model.conformalize(X[700:1000], y[700:1000])
    low, high = model.predict_interval(X[1000:], coverage=0.9)
    covered = np.mean((low <= y[1000:]) & (y[1000:] <= high))
    # split conformal: 0.9 on average; 500 test rows and 300 calibration rows hold its
    # spread well within 0.06
    assert covered > 0.84
    with pytest.raises(ValueError, match="conformalize\\(X_calibration, y_calibration\\)"):
        RandomTSRegressor(structure="grown").fit_conformalize(X[:200], y[:200])


def test_the_command_line_reads_grown_rules(grown, tmp_path, capsys):
    model, X, y = grown
    path = tmp_path / "model.json"
    randomts.save(model, path)
    data = tmp_path / "data.csv"
    np.savetxt(data, np.column_stack([X, y]), delimiter=",", header="x1,x2,y", comments="")
    assert main(["rules", str(path), "--data", str(data), "--top", "3", "--check"]) == 0
    out = capsys.readouterr().out
    assert out.count("IF ") == 3


def test_the_classifier_grows_per_class_scores():
    X, y = _data(300)
    labels = np.where(y > 0.5, "high", "low")
    clf = RandomTSClassifier(structure="grown").fit(X, labels)
    assert clf.rule_base_.normalize and clf.score(X, labels) > 0.9
    probabilities = clf.predict_proba(X)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-9)


def test_a_stream_grows_on_its_first_chunk_then_updates_the_lines():
    X, y = _data(600)
    model = RandomTSRegressor(structure="grown").partial_fit(X[:300], y[:300])
    n_rules = model.rule_base_.n_rules
    model.partial_fit(X[300:], y[300:])
    assert model.rule_base_.n_rules == n_rules
    assert model.score(X, y) > 0.9


def test_a_width_factor_grows_the_rules_once_as_auto_grows_them_at_that_factor(grown):
    model, X, y = grown
    auto = model.rule_base_.metadata["growth"]
    assert len(auto["width_criteria"]) == 4  # "auto" grew the rules at every factor
    once = RandomTSRegressor(structure="grown", width_factor=auto["width_factor"]).fit(X, y)
    growth = once.rule_base_.metadata["growth"]
    assert growth["width_factor"] == auto["width_factor"] and "width_criteria" not in growth
    # the growth at the factor "auto" kept is the same arithmetic, step for step: equal exactly
    np.testing.assert_array_equal(once.rule_base_.centers, model.rule_base_.centers)
    np.testing.assert_array_equal(once.rule_base_.sigmas, model.rule_base_.sigmas)
    np.testing.assert_array_equal(once.predict(X), model.predict(X))
    other = max(set(WIDTH_FACTORS) - {auto["width_factor"]})
    wider = RandomTSRegressor(structure="grown", width_factor=other).fit(X, y).rule_base_
    assert wider.metadata["growth"]["width_factor"] == other


@pytest.mark.parametrize("learning", ["combined", "global"])
def test_local_lines_grow_from_the_ridge_line_and_refitted_lines_from_least_squares(
    grown, learning
):
    model, X, y = grown
    # the leave-one-out choice shrinks the first line of the local lines kept
    assert model.rule_base_.metadata["growth"]["root_alpha"] > 0.0
    # lines fitted again get the ridge of that fit: the growth starts from least squares
    refitted = RandomTSRegressor(structure="grown", learning=learning).fit(X, y)
    assert refitted.rule_base_.metadata["growth"]["root_alpha"] == 0.0  # exact: passed as 0.0


@pytest.mark.parametrize(
    "params, name",
    [
        ({"centers": "kmeans"}, "centers"),
        ({"refine": 5}, "refine"),
        ({"normalize": False}, "normalize"),
    ],
)
def test_what_grown_rules_do_not_read_is_refused(params, name):
    X, y = _data(100)
    with pytest.raises(ValueError, match=f"'{name}' parameter of RandomTSRegressor"):
        RandomTSRegressor(structure="grown", **params).fit(X, y)


def test_dask_rows_refuse_grown_rules():
    da = pytest.importorskip("dask.array")
    from randomts.distributed import fit_estimator_dask

    X, y = _data(2000)
    with pytest.raises(ValueError, match="structure='random'"):
        fit_estimator_dask(
            RandomTSRegressor(structure="grown"),
            da.from_array(X, chunks=(500, 2)),
            da.from_array(y, chunks=500),
        )


_FUNCTIONS = {
    "sine": lambda X: np.sin(2 * X[:, 0]) + np.cos(X[:, 1]),
    "product": lambda X: X[:, 0] * X[:, 1],
    "hinge": lambda X: np.maximum(X[:, 0] + 0.5 * X[:, 1], 0.0),
    "bump": lambda X: np.exp(-2.0 * (X**2).sum(axis=1)),
}


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", list(_FUNCTIONS))
def test_every_grown_rule_is_honest_on_nonlinear_functions(name, seed):
    # three inputs, the third unused; noise at 5 % of the target's spread
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(400, 3))
    target = _FUNCTIONS[name](X)
    y = target + 0.05 * target.std() * rng.normal(size=400)
    model = RandomTSRegressor(structure="grown").fit(X, y)
    rules = model.rule_base_
    # every rule, not only the strongest: its line at its centre against the model there,
    # in standard deviations of y (measured: medians <= 0.02, maxima <= 0.1 on these)
    away = np.abs(rule_agreement(rules, X, y).from_model)
    assert np.median(away) < 0.05 and away.max() < 0.25
    assert np.all(rules.sigmas <= X.max(axis=0) - X.min(axis=0))
    assert model.score(X, y) > 0.8


def _swing(t):
    """Flat, then a sharp damped swing from t = 14 (like the motorcycle-crash curve)."""
    s = np.clip(t - 14, 0, None)
    return -120 * np.sin(s / 6) * np.exp(-s / 10)


@pytest.mark.filterwarnings("ignore::randomts.exceptions.ExtrapolationWarning")
@pytest.mark.parametrize("seed", range(4))
def test_grown_rules_stay_calm_just_beyond_a_curve_with_a_sharp_feature(seed):
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, 60, 133))[:, None]
    y = _swing(t[:, 0]) + 8 * rng.normal(size=133)
    span = np.ptp(t)
    edges = np.array([[t.min() - 0.02 * span], [t.max() + 0.047 * span]])
    model = RandomTSRegressor(structure="grown").fit(t, y)
    # measured: at most 0.15 of the data's range from the curve on seeds 0-7 (the noise
    # alone has an sd of about 0.08 of that range)
    off = np.abs(model.predict(edges) - _swing(edges[:, 0]))
    assert off.max() < 0.25 * np.ptp(y)


def test_narx_takes_grown_rules_for_one_step_and_refuses_local_lines_for_the_free_run():
    from randomts import NARXRegressor

    rng = np.random.default_rng(0)
    u = rng.uniform(-1, 1, size=300)
    y = np.zeros(300)
    for k in range(1, 300):
        y[k] = 0.6 * y[k - 1] + np.tanh(2 * u[k - 1])
    one_step = NARXRegressor(
        estimator=RandomTSRegressor(), y_lags=1, u_lags=1, focus="prediction"
    ).fit(u, y)
    assert one_step.estimator_.rule_base_.normalize
    assert np.sqrt(np.mean((one_step.predict(u, y)[1:] - y[1:]) ** 2)) < 0.05 * y.std()
    # the grown lines, fitted rule by rule, have no one fit to shrink a refinement toward
    with pytest.raises(ValueError, match="learning='local'"):
        NARXRegressor(estimator=RandomTSRegressor(), y_lags=1, u_lags=1).fit(u, y)
