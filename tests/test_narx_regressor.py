"""NARXRegressor: lagged rows of input/output records, one-step prediction, free run, saving."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LinearRegression

import randomts
from randomts import (
    ConstantInputWarning,
    DivergenceWarning,
    ExtrapolationWarning,
    NARXRegressor,
    RandomTSRegressor,
    RandomTSWarning,
)
from randomts.dynamics.narx import NARX, SimulatedOutputs
from randomts.dynamics.records import blocked_folds
from randomts.dynamics.systems import narendra_parthasarathy


def small(**params):
    """A quick NARXRegressor: 20 rules."""
    return NARXRegressor(estimator=RandomTSRegressor(n_rules=20, structure="random"), **params)


def first_order(u, gain=1.0, pole=0.8):
    """y(k) = pole y(k-1) + gain tanh(u(k-1)), from y(0) = 0."""
    y = np.zeros(len(u))
    for k in range(1, len(u)):
        y[k] = pole * y[k - 1] + gain * np.tanh(u[k - 1])
    return y


def held_steps(rng, n, hold, low=-1.0, high=1.0):
    return np.repeat(rng.uniform(low, high, size=n // hold + 1), hold)[:n]


# --------------------------------------------------------------------------- shapes
@pytest.mark.parametrize("y_2d", [False, True])
@pytest.mark.parametrize("u_2d", [False, True])
def test_shapes_follow_the_outputs_given(u_2d, y_2d):
    rng = np.random.default_rng(0)
    u = rng.normal(size=300)
    y = first_order(u)
    U = u[:, None] if u_2d else u
    Y = y[:, None] if y_2d else y
    model = small(y_lags=2, u_lags=2, random_state=0).fit(U, Y)
    assert model.predict(U, Y).shape == Y.shape
    run = model.simulate(U, Y[:5])
    assert isinstance(run, SimulatedOutputs) and run.shape == Y.shape
    np.testing.assert_array_equal(np.asarray(run[:5]), Y[:5])
    assert model.n_inputs_ == 1 and model.n_outputs_ == 1 and model.max_lag_ == 2


def test_several_outputs_and_inputs_are_named():
    rng = np.random.default_rng(1)
    u = rng.normal(size=(400, 2))
    y = np.column_stack([first_order(u[:, 0]), first_order(u[:, 1], pole=0.5)])
    model = small(y_lags=1, u_lags=1, random_state=0).fit(u, y)
    assert model.narx_.regressor_names == ("y1(k-1)", "y2(k-1)", "u1(k-1)", "u2(k-1)")
    assert model.rule_base_.output_names == ("y1(k)-y1(k-1)", "y2(k)-y2(k-1)")
    assert model.predict(u, y).shape == (400, 2)
    assert model.simulate(u, y[:1]).shape == (400, 2)
    assert model.score(u, y) > 0.99


def test_pure_autoregression_needs_n_steps():
    t = np.arange(600)
    y = np.sin(2 * np.pi * t / 50)
    model = small(y_lags=2, random_state=0).fit(None, y)
    assert model.n_inputs_ == 0 and model.narx_.regressor_names == ("y(k-1)", "y(k-2)")
    run = model.simulate(None, y[:2], n_steps=98)
    assert run.shape == (100,)
    assert np.sqrt(np.mean((run - y[:100]) ** 2)) < 0.05
    with pytest.raises(ValueError, match="n_steps is required"):
        model.simulate(None, y[:2])


# ---------------------------------------------------------------- rows, records, lags
def test_rows_of_several_records_never_mix_and_match_a_hand_built_lag_matrix():
    rng = np.random.default_rng(2)
    lengths = (9, 12, 7)
    us = [rng.normal(size=(n, 2)) for n in lengths]
    ys = [rng.normal(size=n) for n in lengths]
    model = NARXRegressor(
        y_lags=(1, 3),
        u_lags=(0, 2),
        target="output",
        estimator=LinearRegression(),
        focus="prediction",
    )
    X, Y = model.fit(us, ys).regressors(us, ys)
    rows, targets = [], []
    for u, y in zip(us, ys, strict=True):
        for k in range(3, len(y)):
            rows.append([y[k - 1], y[k - 3], u[k, 0], u[k - 2, 0], u[k, 1], u[k - 2, 1]])
            targets.append([y[k]])
    np.testing.assert_array_equal(X, rows)
    np.testing.assert_array_equal(Y, targets)
    assert model.narx_.regressor_names == (
        "y(k-1)",
        "y(k-3)",
        "u1(k)",
        "u1(k-2)",
        "u2(k)",
        "u2(k-2)",
    )
    # the same rows from a list of (u, y) pairs
    pairs = list(zip(us, ys, strict=True))
    X_pairs, Y_pairs = model.regressors(pairs)
    np.testing.assert_array_equal(X_pairs, X)
    np.testing.assert_array_equal(Y_pairs, Y)


def test_several_records_predict_and_simulate_each():
    rng = np.random.default_rng(3)
    us = [rng.normal(size=n) for n in (300, 250)]
    ys = [first_order(u) for u in us]
    model = small(y_lags=1, u_lags=1, random_state=0).fit(us, ys)
    predicted = model.predict(us, ys)
    assert [p.shape for p in predicted] == [(300,), (250,)]
    runs = model.simulate(us, [y[:3] for y in ys])
    assert [r.shape for r in runs] == [(300,), (250,)]
    for run, y in zip(runs, ys, strict=True):
        np.testing.assert_array_equal(np.asarray(run[:3]), y[:3])
        assert np.sqrt(np.mean((run - y) ** 2)) < 0.05 * np.std(y)


def test_input_lag_zero_is_direct_feedthrough():
    rng = np.random.default_rng(4)
    u = rng.normal(size=500)
    y = np.zeros(500)
    for k in range(1, 500):
        y[k] = 0.5 * y[k - 1] + 2.0 * u[k]  # u(k) acts on y(k)
    with_zero = small(y_lags=1, u_lags=(0, 1), random_state=0).fit(u, y)
    without = small(y_lags=1, u_lags=1, random_state=0).fit(u, y)
    assert with_zero.narx_.regressor_names == ("y(k-1)", "u(k)", "u(k-1)")
    assert with_zero.score(u, y) > 0.999 > without.score(u, y)
    run = with_zero.simulate(u, y[:1])
    assert np.sqrt(np.mean((run - y) ** 2)) < 0.02 * np.std(y)


def test_blocked_folds_are_contiguous_and_cover_every_row():
    folds = blocked_folds(103, 5)
    assert folds[0] == 0 and folds[-1] == 4
    assert np.all(np.diff(folds) >= 0)
    assert set(np.bincount(folds).tolist()) <= {20, 21}


# --------------------------------------------------------------------- rules and names
def test_rules_read_with_lagged_names():
    rng = np.random.default_rng(5)
    u = rng.normal(size=300)
    y = first_order(u)
    model = NARXRegressor(
        y_lags=2,
        u_lags=1,
        estimator=RandomTSRegressor(n_rules=3, structure="random"),
        output_names="T",
        input_names="Q",
        random_state=0,
    ).fit(u, y)
    text = model.rule_base_.to_text()
    assert "T(k-1)" in text and "T(k-2)" in text and "Q(k-1)" in text
    assert "T(k)-T(k-1)" in text
    explanation = model.explain({"T(k-1)": 0.1, "T(k-2)": 0.0, "Q(k-1)": 0.2})
    assert explanation.input_names == ("T(k-1)", "T(k-2)", "Q(k-1)")


def test_linearize_adds_the_identity_to_increments():
    rng = np.random.default_rng(6)
    u = rng.normal(size=800)
    y = np.zeros(800)
    for k in range(1, 800):
        y[k] = 0.6 * y[k - 1] + 0.8 * u[k - 1]
    for target in ("increment", "output"):
        model = small(y_lags=1, u_lags=1, target=target, random_state=0).fit(u, y)
        A, B, _ = model.linearize([0.0, 0.0])
        np.testing.assert_allclose([A[0, 0], B[0, 0]], [0.6, 0.8], atol=0.02)


# -------------------------------------------------------------------- predict, simulate
def test_simulate_equals_predict_for_one_step_from_the_true_outputs():
    rng = np.random.default_rng(7)
    u = rng.normal(size=400)
    y = first_order(u) + 0.01 * rng.normal(size=400)
    model = small(y_lags=3, u_lags=2, random_state=0).fit(u, y)
    predicted = model.predict(u, y)
    for k in (3, 50, 399):
        run = model.simulate(u[: k + 1], y[:k])  # one step after the true outputs
        np.testing.assert_allclose(run[k], predicted[k], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nonlinear_plant_is_simulated_better_than_by_a_linear_arx(seed):
    rng = np.random.default_rng(seed)
    u_train = rng.uniform(-2, 2, size=(1, 2000))
    y_train = narendra_parthasarathy(u_train)[0]
    u_test = rng.uniform(-2, 2, size=(1, 800))
    y_test = narendra_parthasarathy(u_test)[0]
    u_train, u_test = u_train[0], u_test[0]
    model = NARXRegressor(y_lags=2, u_lags=1, random_state=seed).fit(u_train, y_train)
    run = model.simulate(u_test, y_test[:2])
    arx = NARX(y_lags=2, u_lags=1)
    linear = LinearRegression().fit(*arx.regressors(u_train, y_train))
    linear_run = arx.simulate(linear, u_test, y_test[:2])
    rmse = np.sqrt(np.mean((run - y_test) ** 2))
    linear_rmse = np.sqrt(np.mean((linear_run - y_test) ** 2))
    assert not run.diverged
    assert rmse < 0.5 * linear_rmse


def test_raw_engineering_units_hold_their_level_in_a_long_free_run():
    """A temperature near 440 K varying by about 1 K: the free run stays near the data."""
    rng = np.random.default_rng(8)
    n = 3000
    u = held_steps(rng, n, 60)
    T = np.full(n, 440.0)
    for k in range(1, n):
        T[k] = T[k - 1] + 0.05 * (440.0 + np.tanh(2 * u[k - 1]) - T[k - 1])
    model = NARXRegressor(y_lags=1, u_lags=1, random_state=0).fit(u[:2000], T[:2000])
    run = model.simulate(u[2000:], T[2000:2001])
    assert not run.left_data and not run.diverged
    assert np.max(np.abs(run - T[2000:])) < 0.1


# ------------------------------------------------------------------------- warnings
def test_leaving_the_training_range_is_warned_and_reported_with_its_step():
    rng = np.random.default_rng(9)
    u = rng.uniform(-1, 1, size=500)
    y = first_order(u)
    model = small(y_lags=1, u_lags=1, random_state=0).fit(u, y)
    u_test = np.zeros(200)
    u_test[120:] = 3.0  # far beyond [-1, 1]
    with pytest.warns(ExtrapolationWarning, match=r"at step 121: u\(k-1\)"):
        run = model.simulate(u_test, np.zeros(1))
    assert run.left_data and run.left_data_step == 121
    assert run.left_data_variable == "u(k-1)" and not run.diverged
    inside = model.simulate(u_test[:100], np.zeros(1))
    assert not inside.left_data and inside.left_data_step is None


@pytest.mark.filterwarnings("ignore::randomts.ExtrapolationWarning")
def test_divergence_is_warned_and_reported_per_record():
    rng = np.random.default_rng(10)
    u = rng.normal(size=60)
    y = np.zeros(60)
    for k in range(1, 60):
        y[k] = 1.5 * y[k - 1] + u[k - 1]  # unstable: grows without bound
    model = NARXRegressor(y_lags=1, u_lags=1, estimator=LinearRegression(), focus="prediction").fit(
        u, y
    )
    quiet = np.zeros(30)
    loud = np.ones(3000)
    with pytest.warns(DivergenceWarning, match=r"of record 1 diverged at step \d+"):
        runs = model.simulate([quiet, loud], [np.zeros(1), np.ones(1)])
    assert not runs[0].diverged and not runs[0].left_data
    assert runs[1].diverged and runs[1].left_data
    step = runs[1].divergence_step
    assert np.all(np.isfinite(runs[1][:step])) and np.all(np.isnan(runs[1][step:]))
    assert runs[1].left_data_step < step


def test_a_run_that_stays_in_the_data_is_silent():
    rng = np.random.default_rng(11)
    u = rng.uniform(-1, 1, size=600)
    y = first_order(u)
    model = small(y_lags=1, u_lags=1, random_state=0).fit(u, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RandomTSWarning)
        run = model.simulate(u[300:], y[300:301])
    assert not run.left_data and not run.diverged


# --------------------------------------------------------------- alpha by blocked CV
def colored_noise_record(seed, n=600):
    """A smooth input, a first-order plant and strongly autocorrelated output noise."""
    rng = np.random.default_rng(seed)
    u = 5 * np.convolve(rng.normal(size=n + 50), np.ones(50) / 50, mode="valid")[:n]
    x, e, w = np.zeros(n), np.zeros(n), rng.normal(size=n)
    for k in range(1, n):
        x[k] = 0.9 * x[k - 1] + 0.3 * np.tanh(2 * u[k - 1])
        e[k] = 0.98 * e[k - 1] + 0.05 * w[k]
    return u, x + e


@pytest.mark.filterwarnings("ignore::randomts.ExtrapolationWarning")
def test_blocked_cross_validation_penalises_more_than_leave_one_out_on_autocorrelated_rows():
    larger, blocked_errors, loo_errors = 0, [], []
    seeds = range(6)
    for seed in seeds:
        u, y = colored_noise_record(seed)
        u_new, y_new = colored_noise_record(100 + seed)
        model = small(y_lags=2, u_lags=2, focus="prediction", random_state=seed).fit(u, y)
        X, Y = model.regressors(u, y)
        loo = RandomTSRegressor(n_rules=20, random_state=seed, structure="random").fit(X, Y)
        assert model.alpha_ >= loo.alpha_ * (1 - 1e-9)
        larger += model.alpha_ > 3 * loo.alpha_
        X_new, Y_new = model.regressors(u_new, y_new)
        blocked_errors.append(np.sqrt(np.mean((model.estimator_.predict(X_new) - Y_new) ** 2)))
        loo_errors.append(np.sqrt(np.mean((loo.predict(X_new) - Y_new) ** 2)))
    assert larger >= len(seeds) // 2
    ratios = np.array(blocked_errors) / np.array(loo_errors)
    assert np.max(ratios) < 1.05 and np.mean(ratios) < 1.0


# -------------------------------------------------------------- sklearn, save, load
def test_clone_and_get_params():
    model = NARXRegressor(
        y_lags=(1, 2, 4), u_lags=(0, 1), estimator=RandomTSRegressor(n_rules=7, structure="random")
    )
    params = model.get_params()
    assert params["y_lags"] == (1, 2, 4) and params["estimator__n_rules"] == 7
    copy = clone(model)
    assert copy.get_params()["estimator__n_rules"] == 7 and copy.estimator is not model.estimator
    copy.set_params(estimator__n_rules=9, u_lags=3)
    assert copy.estimator.n_rules == 9 and copy.u_lags == 3 and model.u_lags == (0, 1)


def test_random_state_gives_the_same_model_bit_for_bit():
    rng = np.random.default_rng(12)
    u = rng.normal(size=300)
    y = first_order(u)
    a = small(random_state=3).fit(u, y).simulate(u, y[:2])
    b = small(random_state=3).fit(u, y).simulate(u, y[:2])
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("extension", ["json", "txt"])
def test_save_load_round_trip(tmp_path, extension):
    rng = np.random.default_rng(13)
    u = rng.uniform(-1, 1, size=(400, 2))
    y = first_order(u[:, 0]) + first_order(u[:, 1], pole=0.3)
    model = NARXRegressor(
        y_lags=2,
        u_lags=(0, 1),
        estimator=RandomTSRegressor(n_rules=10, structure="random"),
        output_names="level",
        random_state=0,
    ).fit(u, y)
    path = tmp_path / f"model.{extension}"
    randomts.save(model, path)
    back = randomts.load(path)
    assert isinstance(back, NARXRegressor)
    assert back.get_params()["estimator__n_rules"] == 10
    assert back.narx_.regressor_names == model.narx_.regressor_names
    np.testing.assert_allclose(back.predict(u, y), model.predict(u, y), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        back.simulate(u, y[:2]), model.simulate(u, y[:2]), rtol=1e-9, atol=1e-12
    )
    u_far = u.copy()
    u_far[300:, 0] = 5.0
    with pytest.warns(ExtrapolationWarning):
        assert back.simulate(u_far, y[:2]).left_data_step == 300


def test_simulated_outputs_pickle_with_their_report():
    run = SimulatedOutputs(np.arange(3.0), left_data_step=1, left_data_variable="y(k-1)")
    back = pickle.loads(pickle.dumps(run))
    assert back.left_data_step == 1 and back.left_data_variable == "y(k-1)"
    np.testing.assert_array_equal(back, run)
    assert type(np.mean(run)) is not SimulatedOutputs


# ---------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("params", "error", "match"),
    [
        ({"y_lags": -1}, ValueError, r"'y_lags' parameter of NARXRegressor .* Got -1"),
        ({"y_lags": (0, 1)}, ValueError, r"'y_lags' parameter of NARXRegressor .* >= 1"),
        ({"u_lags": "two"}, TypeError, r"'u_lags' parameter of NARXRegressor"),
        ({"target": "level"}, ValueError, r"target"),
        ({"y_lags": (2, 3)}, ValueError, r"'y_lags' .* must include lag 1"),
        ({"y_lags": 0, "u_lags": 0}, ValueError, r"at least one lag"),
        ({"n_folds": 1}, ValueError, r"'n_folds' parameter of NARXRegressor"),
        ({"output_names": ["a", "b"]}, ValueError, r"'output_names' .* 1 non-empty"),
        ({"estimator": "ridge"}, TypeError, r"'estimator' parameter of NARXRegressor"),
        ({"progress": "yes"}, ValueError, r"'progress' parameter of NARXRegressor"),
        ({"extrapolation": "flat"}, ValueError, r"'extrapolation' parameter of NARXRegressor"),
    ],
)
def test_bad_parameters_are_named(params, error, match):
    u = np.linspace(-1, 1, 50)
    with pytest.raises(error, match=match):
        NARXRegressor(**params).fit(u, np.sin(u))


def test_bad_data_is_named():
    u = np.linspace(-1, 1, 50)
    y = np.sin(u)
    with pytest.raises(ValueError, match="same number of steps"):
        small().fit(u[:40], y)
    with pytest.raises(ValueError, match="needs at least 3"):
        small(focus="prediction").fit(u[:2], y[:2])
    with pytest.raises(ValueError, match="record 0 has 6 steps, which leaves 3 held out"):
        small().fit(u[:6], y[:6])
    model = small(random_state=0).fit(u, y)
    with pytest.raises(ValueError, match="y_init has 1 steps, but this NARXRegressor needs"):
        model.simulate(u, y[:1])
    with pytest.raises(ValueError, match="expecting 1 inputs"):
        model.predict(np.column_stack([u, u]), y)
    with pytest.raises(ValueError, match="u is required"):
        model.simulate(None, y[:2], n_steps=3)
    with pytest.raises(TypeError, match="pickle it instead"):
        randomts.save(
            NARXRegressor(estimator=LinearRegression(), focus="prediction").fit(u, y),
            "unused.json",
        )


def test_progress_shows_a_tick_per_candidate_on_stderr_when_asked(capsys):
    rng = np.random.default_rng(14)
    u = rng.uniform(-1, 1, size=300)
    y = first_order(u)
    NARXRegressor(1, 1, random_state=0, progress=True).fit(u, y)
    shown = capsys.readouterr().err
    assert "NARXRegressor.fit" in shown and "6/6" in shown  # six candidates
    assert "powers (2, 3)" in shown  # the polynomial one named
    NARXRegressor(1, 1, random_state=0).fit(u, y)  # "auto": stderr here is not a terminal
    NARXRegressor(1, 1, random_state=0, progress=False).fit(u, y)
    assert capsys.readouterr().err == ""


def trend_and_season(n=160, seed=15):
    """A level rising by 0.5 a step, a season of 8 steps, noise."""
    rng = np.random.default_rng(seed)
    k = np.arange(n)
    return 0.5 * k + 5 * np.sin(2 * np.pi * k / 8) + 0.3 * rng.normal(size=n)


def test_a_forecast_past_the_data_is_no_worse_than_the_linear_model_it_falls_back_on():
    y = trend_and_season()
    lags, cut = 8, 112
    model = NARXRegressor(y_lags=lags, random_state=0).fit(y=y[:cut])
    forecast = model.simulate(None, y[cut - lags : cut], n_steps=len(y) - cut)
    assert forecast.left_data  # the rising level leaves the training range
    arx = NARX(lags)
    linear = LinearRegression().fit(*arx.regressors(y=y[:cut]))
    linear_run = arx.simulate(linear, y_init=y[cut - lags : cut], n_steps=len(y) - cut)
    error = np.sqrt(np.mean((forecast[lags:] - y[cut:]) ** 2))
    linear_error = np.sqrt(np.mean((linear_run[lags:] - y[cut:]) ** 2))
    assert error <= 1.05 * linear_error
    # the model's own extrapolation holds the level it left the data at
    own = NARXRegressor(y_lags=lags, random_state=0, extrapolation="model").fit(y=y[:cut])
    assert own.fallback_ is None
    run = own.simulate(None, y[cut - lags : cut], n_steps=len(y) - cut)
    np.testing.assert_array_equal(run[: run.left_data_step], forecast[: run.left_data_step])


def test_the_fallback_is_saved_and_loaded(tmp_path):
    y = trend_and_season(n=120)
    model = NARXRegressor(
        y_lags=4, estimator=RandomTSRegressor(n_rules=10, structure="random"), random_state=0
    )
    model.fit(y=y)
    assert model.fallback_.n_rules == 1 and model.fallback_.input_names[0] == "y(k-1)"
    randomts.save(model, tmp_path / "model.json")
    back = randomts.load(tmp_path / "model.json")
    np.testing.assert_allclose(back.fallback_.coef, model.fallback_.coef, rtol=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        ours = model.simulate(None, y[-4:] + 100.0, n_steps=30)
        theirs = back.simulate(None, y[-4:] + 100.0, n_steps=30)
    np.testing.assert_allclose(theirs, ours, rtol=1e-9)


def test_a_run_driven_far_beyond_the_data_is_the_linear_fallbacks():
    rng = np.random.default_rng(16)
    u = held_steps(rng, 600, 20)
    y = first_order(u) + 0.01 * rng.normal(size=600)
    model = NARXRegressor(
        1, 1, estimator=RandomTSRegressor(n_rules=20, structure="random"), random_state=0
    )
    model.fit(u, y)
    far = np.full(50, 40.0)  # 20 spans past the inputs' range from the first step
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        run = model.simulate(far, y[:1])
        alone = model.narx_.simulate(model.fallback_, far, y[:1])
        own = (
            NARXRegressor(
                1,
                1,
                estimator=RandomTSRegressor(n_rules=20, structure="random"),
                random_state=0,
                extrapolation="model",
            )
            .fit(u, y)
            .simulate(far, y[:1])
        )
    np.testing.assert_allclose(run, alone, rtol=1e-12)
    # the weighted sum holds its level out there; the linear model follows its input
    assert abs(own[-1] - run[-1]) > 1.0


def test_a_constant_input_is_named_once_and_another_value_of_it_changes_no_run():
    rng = np.random.default_rng(17)
    u = np.column_stack([held_steps(rng, 400, 20), np.zeros(400)])  # the law, never in force
    y = first_order(u[:, 0], gain=2.0) + 0.01 * rng.normal(size=400)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = NARXRegressor(2, 2, input_names=["flow", "law"], random_state=0).fit(u, y)
    constant = [w for w in caught if issubclass(w.category, ConstantInputWarning)]
    assert len(constant) == 1, [str(w.message) for w in constant]  # not once per candidate
    assert str(constant[0].message).startswith(
        "Input 'law' of NARXRegressor is 0 in every one of the 400 steps of the records"
    )
    assert constant[0].filename == __file__
    assert model.fallback_ is not None  # a model of rules, with a linear fallback
    in_force = u.copy()
    in_force[200:, 1] = 1.0
    with pytest.warns(ExtrapolationWarning, match=r"law\(k-1\)"):
        run = model.simulate(in_force, y[:2])
    as_fitted = model.simulate(u, y[:2])
    span = np.ptp(y)
    # the model leaves the law out (slopes 0 to the rounding of their solve), and its value
    # calls no fallback: the fallback's run, which the law's 1 set off before, differs
    np.testing.assert_allclose(run, as_fitted, rtol=0, atol=1e-9 * span)
    fallback = model.narx_.simulate(model.fallback_, in_force, y[:2])
    assert np.max(np.abs(fallback[200:] - as_fitted[200:])) > 1e-3 * span


def test_a_record_too_short_for_the_polynomial_of_its_lags_is_fitted_without_it():
    rng = np.random.default_rng(3)
    seasonal = 10 + np.sin(2 * np.pi * np.arange(400) / 12) + 0.1 * rng.normal(size=400)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RandomTSWarning)  # no candidate interpolates its rows
        short = NARXRegressor(12, random_state=0).fit(y=seasonal[:50])
    # 38 lagged rows, 37 coefficients of the lags with their squares and cubes: no polynomial
    assert short.candidate_errors_.size == 4
    assert not short.narx_.powers
    # 388 rows: ten per coefficient and more
    assert NARXRegressor(12, random_state=0).fit(y=seasonal).candidate_errors_.size == 5


def test_a_constant_input_is_left_untested_without_numerical_warnings():
    rng = np.random.default_rng(17)
    u = np.column_stack([held_steps(rng, 400, 20), np.zeros(400)])  # the second never moves
    y = first_order(u[:, 0]) + 0.01 * rng.normal(size=400)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # numpy's overflow and the like
        warnings.simplefilter("ignore", RandomTSWarning)  # the constant input is named
        model = NARXRegressor(1, 1, random_state=0).fit(u, y)
        run = model.simulate(u, y[:1])
    assert np.sqrt(np.mean((run - y) ** 2)) < 0.05
