"""Fitting NARX rules for simulation: sensitivities, the held-out guard, the estimator's option."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest

from randomts import ConstantInputWarning, NARXRegressor, RandomTSRegressor, RuleBase
from randomts.core.membership import UNTESTED_WIDTH
from randomts.dynamics import simulation_fit
from randomts.dynamics.narx import NARX
from randomts.dynamics.records import blocked_folds, earlier_blocks, read_records, split_end
from randomts.dynamics.simulation_fit import SimulationProblem, refine_for_simulation
from randomts.estimators.narx.intervals import residual_scores
from randomts.estimators.narx.selection import CandidateFit, choose, first_part_model
from randomts.exceptions import RandomTSWarning


def _system(seed, n=900, noise=0.05):
    """A first-order nonlinear system measured with output noise (an output-error model)."""
    rng = np.random.default_rng(seed)
    u = np.repeat(rng.uniform(-1, 1, size=n // 10 + 1), 10)[:n, None]
    y = np.zeros((n, 1))
    for k in range(1, n):
        y[k] = 0.85 * y[k - 1] + 0.6 * np.tanh(2 * u[k - 1]) - 0.1 * y[k - 1] ** 3
    return u, y, y + noise * rng.normal(size=y.shape)


def _rules_on_data(X, normalize, seed, n_rules):
    """Random rules placed on the standardised data: the data's mean and spread, and the rules."""
    mean, scale = X.mean(axis=0), X.std(axis=0)
    rules = RuleBase.random(
        n_features=X.shape[1], n_rules=n_rules, normalize=normalize, random_state=seed
    )
    rules = rules.replace(centers=mean + scale * rules.centers, sigmas=2 * scale * rules.sigmas)
    return rules, mean, scale


def _check_sensitivities(problem, parameters, indices, windows, inputs, S):
    """The sensitivities ``S`` of the parameters at ``indices`` against central differences."""
    for index in indices:
        h = 1e-6 * max(1.0, abs(parameters.flat[index]))
        plus, minus = parameters.copy(), parameters.copy()
        plus.flat[index] += h
        minus.flat[index] -= h
        difference = (
            problem.run(plus, windows, inputs, 10, False)[0]
            - problem.run(minus, windows, inputs, 10, False)[0]
        ) / (2 * h)
        # central differences: error of order h^2 times the third derivative, and rounding
        # eps * |y| / h, both far below 1e-5 of the sensitivities' scale here
        scale_of = max(1.0, float(np.max(np.abs(S[..., index]))))
        assert np.max(np.abs(S[..., index] - difference)) <= 1e-5 * scale_of


@pytest.mark.parametrize("powers", [(), (2, 3), "products"])
@pytest.mark.parametrize("target", ["increment", "output"])
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_sensitivities_are_the_derivatives_of_the_runs(powers, target, normalize, seed):
    u, _, measured = _system(seed, n=200)
    products = powers == "products"  # every monomial of degree 2 and 3 of the lagged outputs
    powers = (2, 3) if products else powers
    narx = NARX(y_lags=2, u_lags=2, target=target, powers=powers, products=products)
    X, Y = narx.regressors(u, measured)
    rules, mean, scale = _rules_on_data(X, normalize, seed, n_rules=5)
    rules = rules.fit_consequents(X, Y, alpha=1e-3)
    problem = SimulationProblem(narx, rules, mean, scale, 1)
    windows = np.stack([measured[s : s + 12] for s in (0, 40, 90)])
    inputs = np.stack([u[s : s + 12] for s in (0, 40, 90)])
    gamma = problem.gamma0
    _, S = problem.run(gamma, windows, inputs, 10, True)
    indices = np.random.default_rng(seed).choice(gamma.size, size=6, replace=False)
    _check_sensitivities(problem, gamma, indices, windows, inputs, S)


@pytest.mark.parametrize("powers", [(), (2, 3)])
@pytest.mark.parametrize("target", ["increment", "output"])
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("n_outputs", [1, 2])
def test_sensitivities_to_the_antecedents_are_the_derivatives_of_the_runs(
    powers, target, normalize, seed, n_outputs
):
    """Every centre and log width, and some consequents, against central differences.

    With two outputs the sets are shared: each output's run depends on every set.
    """
    u, _, measured = _system(seed, n=200)
    if n_outputs == 2:  # a second output fed by the first
        measured = np.column_stack([measured[:, 0], np.tanh(np.roll(measured[:, 0], 1))])
    names = ("a", "b")[:n_outputs]
    narx = NARX(y_lags=2, u_lags=2, target=target, powers=powers, output_names=names)
    X, Y = narx.regressors(u, measured)
    rules, mean, scale = _rules_on_data(X, normalize, seed, n_rules=4)
    rules = rules.fit_consequents(X, Y, alpha=1e-3)
    problem = SimulationProblem(narx, rules, mean, scale, 1, antecedents=True)
    assert problem.n_parameters == problem.gamma0.size + 2 * rules.centers.size
    windows = np.stack([measured[s : s + 12] for s in (0, 40, 90)])
    inputs = np.stack([u[s : s + 12] for s in (0, 40, 90)])
    theta = problem.pack(problem.gamma0)
    assert problem.unpack(theta)[0].shape == (problem.gamma0.shape[0], n_outputs)
    _, S = problem.run(theta, windows, inputs, 10, True)
    assert S.shape[-1] == theta.size
    consequents = np.random.default_rng(seed).choice(problem.gamma0.size, size=4, replace=False)
    indices = [*consequents, *range(problem.gamma0.size, theta.size)]
    _check_sensitivities(problem, theta, indices, windows, inputs, S)
    # an antecedent moves the run: its sensitivities are not all zero
    assert np.max(np.abs(S[..., problem.gamma0.size :])) > 1e-3 * np.max(np.abs(S))


@pytest.mark.parametrize("normalize", [False, True])
def test_packed_parameters_are_the_rules_and_predict_as_they_do(normalize):
    """pack, unpack, rules and predict agree: the start is the rule base, a move moves its sets."""
    u, _, measured = _system(3, n=200)
    narx = NARX(y_lags=2, u_lags=1)
    X, Y = narx.regressors(u, measured)
    rules, mean, scale = _rules_on_data(X, normalize, 3, n_rules=4)
    rules = rules.fit_consequents(X, Y, alpha=1e-3)
    problem = SimulationProblem(narx, rules, mean, scale, 1, antecedents=True)
    theta = problem.pack(problem.gamma0)
    assert theta.shape == (problem.n_parameters,)
    assert np.array_equal(problem.pack(theta), theta)  # exact: a packed vector is returned as is
    back = problem.rules(theta)
    for name in ("centers", "sigmas", "coef", "intercept"):
        original = getattr(rules, name)
        # standardised and back: a few roundings of the regressors' scale
        tolerance = 1e-12 * max(1.0, float(np.abs(original).max())) * max(1.0, scale.max())
        assert np.max(np.abs(getattr(back, name) - original)) <= tolerance
    moved = theta.copy()
    moved[problem.gamma0.size :] += 0.1 * np.random.default_rng(0).normal(
        size=theta.size - problem.gamma0.size
    )
    changed = problem.rules(moved)
    assert np.max(np.abs(changed.centers - rules.centers)) > 1e-3 * scale.min()
    expected = changed.predict(X).reshape(-1, 1)
    np.testing.assert_allclose(
        problem.predict(X, moved), expected, rtol=1e-10, atol=1e-12 * np.abs(expected).max()
    )
    # a problem that keeps its antecedents has the consequents alone as its parameters
    fixed = SimulationProblem(narx, rules, mean, scale, 1)
    assert fixed.pack(fixed.gamma0).shape == fixed.gamma0.shape
    assert fixed.n_parameters == fixed.gamma0.size


@pytest.mark.parametrize("products", [False, True])
@pytest.mark.parametrize("target", ["increment", "output"])
def test_the_runs_raise_the_lagged_outputs_to_the_powers_of_the_regressors(target, products):
    """The refinement's runs compute the power columns as the structure's regressors do."""
    u, _, measured = _system(3, n=200)
    narx = NARX(y_lags=2, u_lags=1, target=target, powers=(2, 3), products=products)
    X, Y = narx.regressors(u, measured)
    rules = RandomTSRegressor(n_rules=4, structure="random", random_state=0).fit(X, Y[:, 0])
    mean, scale = X.mean(axis=0), X.std(axis=0)
    problem = SimulationProblem(narx, rules.rule_base_, mean, scale, 1)
    starts = (0, 60, 130)
    windows = np.stack([measured[s : s + 12] for s in starts])
    inputs = np.stack([u[s : s + 12] for s in starts])
    outputs, _ = problem.run(problem.gamma0, windows, inputs, 10, False)
    # the same steps through the structure's regressor columns and the rule base's predict
    expected, *_ = narx.run(narx.predictor(rules.rule_base_), windows[:, :2], inputs, 10)
    assert np.all(np.isfinite(outputs))
    # two evaluations of one model in other units: rounding, grown over ten steps of feedback
    np.testing.assert_allclose(outputs, expected[:, 2:], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("products", [False, True])
def test_the_compiled_runs_of_a_refined_model_calibrate_its_intervals_as_its_steps_do(products):
    """The held-out free runs of the intervals: compiled, and step by step through ``predict``."""
    u, _, measured = _system(4, n=300)
    narx = NARX(y_lags=2, u_lags=1, target="increment", powers=(2, 3), products=products)
    X, Y = narx.regressors(u[:200], measured[:200])
    rules = RandomTSRegressor(n_rules=4, structure="random", random_state=0).fit(X, Y[:, 0])
    problem = SimulationProblem(narx, rules.rule_base_, X.mean(axis=0), X.std(axis=0), 1)
    refined = problem.rules(problem.gamma0)  # the rule base, as a fit without a run
    refinement = types.SimpleNamespace(gamma=problem.gamma0)  # what the model reads of one
    compiled = first_part_model(
        CandidateFit(None, narx, [], np.zeros(1), 0, problem, refinement), refined=True
    )
    assert callable(compiled.run)
    held_out = read_records(u[200:], measured[200:])
    one_step, free = residual_scores(narx, compiled, held_out)
    one_step_rules, free_rules = residual_scores(narx, refined, held_out)
    assert np.all(np.isfinite(free)) and free.shape == free_rules.shape
    # one model in two units and two loops: rounding, grown along 49 steps of feedback
    np.testing.assert_allclose(one_step, one_step_rules, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(free, free_rules, rtol=1e-9, atol=1e-12)


def test_gamma_round_trips_through_the_standardised_parameters():
    u, _, measured = _system(2, n=150)
    narx = NARX(y_lags=1, u_lags=1, target="increment")
    X, Y = narx.regressors(u, measured)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    rules = RuleBase.random(n_features=2, n_rules=4, normalize=True, random_state=0)
    rules = rules.replace(centers=mean + scale * rules.centers, sigmas=scale * rules.sigmas)
    rules = rules.fit_consequents(X, Y, alpha=1e-4)
    problem = SimulationProblem(narx, rules, mean, scale, 1)
    again = problem.rules(problem.gamma0)
    assert np.allclose(again.predict(X), rules.predict(X), rtol=1e-10, atol=1e-12)
    assert np.array_equal(again.input_range, rules.input_range)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_never_worse_than_the_start_on_the_held_out_stretch(seed):
    u, _, measured = _system(seed)
    narx = NARX(y_lags=1, u_lags=1, target="increment")
    X, Y = narx.regressors(u[:700], measured[:700])
    mean, scale = X.mean(axis=0), X.std(axis=0)
    rules = RuleBase.random(n_features=2, n_rules=8, normalize=True, random_state=seed)
    rules = rules.replace(centers=mean + scale * rules.centers, sigmas=scale * rules.sigmas)
    start = rules.fit_consequents(X, Y, alpha=1e-6)
    result = refine_for_simulation(
        narx,
        start,
        [(u[:600], measured[:600])],
        [(u[599:700], measured[599:700])],
        mean=mean,
        scale=scale,
        alpha=1e-6,
    )
    # the start is kept unless a step does better: the comparison is of the same numbers
    assert result.error <= result.start_error
    if result.best_iteration == 0:
        assert result.rule_base is start


def test_simulation_focus_simulates_better_under_output_noise():
    """With noise on the measured outputs, one-step least squares is biased; the free run shows it."""
    errors = {"prediction": [], "simulation": []}
    for seed in range(5):
        u, truth, measured = _system(seed, n=1200, noise=0.15)
        for focus in errors:
            model = NARXRegressor(
                y_lags=1,
                u_lags=1,
                focus=focus,
                estimator=RandomTSRegressor(n_rules=10, normalize=True, structure="random"),
                random_state=seed,
            ).fit(u[:900], measured[:900])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RandomTSWarning)
                run = model.simulate(u[900:], truth[900:901])
            errors[focus].append(float(np.sqrt(np.mean((run[1:] - truth[901:]) ** 2))))
    ratios = np.array(errors["simulation"]) / np.array(errors["prediction"])
    # measured over these seeds: 0.72, 0.61, 0.67, 0.61, 0.85
    assert np.mean(ratios) < 0.85 and np.max(ratios) < 1.1


def test_parameters_and_records():
    u, _, measured = _system(3, n=400)
    model = NARXRegressor(y_lags=2, u_lags=1, focus="simulation", random_state=0)
    model.fit(u, measured)
    fit = model.simulation_fit_
    assert fit.error <= fit.start_error and fit.iterations >= fit.best_iteration >= 0
    assert model.rule_base_.input_names == ("y(k-1)", "y(k-2)", "u(k-1)")
    with pytest.raises(ValueError, match="The 'focus' parameter of NARXRegressor must be"):
        NARXRegressor(focus="both").fit(u, measured)
    with pytest.raises(ValueError, match="validation_fraction"):
        NARXRegressor(focus="simulation", validation_fraction=1.0).fit(u, measured)
    with pytest.raises(ValueError, match="'horizon' parameter of NARXRegressor"):
        NARXRegressor(focus="simulation", horizon=0).fit(u, measured)
    from sklearn.linear_model import Ridge

    with pytest.raises(ValueError, match="only with a randomts estimator"):
        NARXRegressor(focus="simulation", estimator=Ridge()).fit(u, measured)
    with (
        pytest.raises(ValueError, match="record 0 has 6 steps, which leaves 3 held out"),
        pytest.warns(ConstantInputWarning, match="Input 'u' of NARXRegressor"),  # a held step
    ):
        NARXRegressor(y_lags=2, focus="simulation").fit(u[:6], measured[:6])


@pytest.mark.parametrize("refine_antecedents", [False, True])
def test_saved_model_simulates_as_fitted(tmp_path, refine_antecedents):
    from randomts.io import load, save

    u, _, measured = _system(4, n=500)
    model = NARXRegressor(
        y_lags=1,
        u_lags=1,
        focus="simulation",
        random_state=0,
        refine_antecedents=refine_antecedents,
    )
    model.fit(u, measured)
    path = tmp_path / "narx.json"
    save(model, path)
    loaded = load(path)
    assert loaded.focus == "simulation"
    assert loaded.refine_antecedents is refine_antecedents
    # exact: a float is written as its shortest repr, which reads back to the same bits
    np.testing.assert_array_equal(loaded.rule_base_.centers, model.rule_base_.centers)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomTSWarning)
        ours, theirs = model.simulate(u, measured[:1]), loaded.simulate(u, measured[:1])
    assert np.allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def _off_rules(seed, X, Y):
    """Three rules along the input of a first-order system, their sets too narrow and off."""
    mean, scale = X.mean(axis=0), X.std(axis=0)
    centers = np.column_stack([np.zeros(3), [-1.5, 0.2, 1.5]]) * scale + mean
    sigmas = np.column_stack([np.full(3, UNTESTED_WIDTH), np.full(3, 0.3 * scale[1])])
    return RuleBase(centers, sigmas, normalize=True).fit_consequents(X, Y, alpha=1e-6), mean, scale


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_refining_the_antecedents_mends_sets_that_are_off(seed):
    """Sets placed off the nonlinearity: moving them runs closer to the noise-free response.

    Measured over seeds 0-7, the run with the sets refined has 0.62 to 0.79 of the error of
    the run with the consequents alone refined, from the same start.
    """
    u, y, measured = _system(seed)
    narx = NARX(1, 1)
    X, Y = narx.regressors(u[:700], measured[:700])
    rules, mean, scale = _off_rules(seed, X, Y)
    errors, results = [], []
    for antecedents in (False, True):
        result = refine_for_simulation(
            narx,
            rules,
            [(u[:600], measured[:600])],
            [(u[600:700], measured[600:700])],
            mean=mean,
            scale=scale,
            alpha=1e-6,
            horizon=100,
            max_iter=30,
            antecedents=antecedents,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RandomTSWarning)
            run = np.asarray(narx.simulate(result.rule_base, u[699:], y[699:700]))
        errors.append(float(np.sqrt(np.mean((run[1:] - y[700:]) ** 2))))
        results.append(result)
    fixed, moved = results
    assert np.array_equal(fixed.rule_base.centers, rules.centers)  # exact: kept as given
    assert moved.best_iteration > 0
    assert np.max(np.abs(moved.rule_base.centers - rules.centers)[:, 1]) > 0.01 * scale[1]
    # exact: y(k-1), untested (its width's derivative is zero), stays untested, set for set
    assert np.all(moved.rule_base.sigmas[:, 0] == UNTESTED_WIDTH)
    assert np.array_equal(moved.rule_base.centers[:, 0], rules.centers[:, 0])
    assert moved.error < fixed.error
    assert errors[1] < 0.9 * errors[0]


@pytest.mark.parametrize("seed", [5, 6])
def test_narx_refines_the_antecedents_of_averaged_rules_unless_told_not_to(seed):
    """Grown rules (the growth draws nothing at random): the same sets grown, then moved or not.

    Measured: the free run from the start of the noise-free response ran 0.19 to 0.47 times
    the error with the sets as grown over seeds 5-10 (seed 5: 0.026 against 0.077).
    """
    u, y, measured = _system(seed, n=800)
    grown = RandomTSRegressor(structure="grown", n_rules=4, learning="combined")
    fixed = NARXRegressor(1, 1, estimator=grown, refine_antecedents=False).fit(u, measured)
    moved = NARXRegressor(1, 1, estimator=grown).fit(u, measured)  # the default
    assert moved.simulation_fit_.best_iteration > 0
    assert moved.rule_base_.n_rules == fixed.rule_base_.n_rules
    assert not np.allclose(moved.rule_base_.centers, fixed.rule_base_.centers)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomTSWarning)
        errors = [np.sqrt(np.mean((m.simulate(u, y[:1]) - y) ** 2)) for m in (fixed, moved)]
    assert errors[1] < errors[0]


def test_refine_antecedents_is_checked():
    u, _, measured = _system(0, n=300)
    with pytest.raises(TypeError, match="'refine_antecedents' parameter of NARXRegressor"):
        NARXRegressor(1, 1, refine_antecedents="yes").fit(u, measured)


def _noisy_record(seed, n):
    rng = np.random.default_rng(seed)
    u = rng.normal(size=n)
    x = np.zeros(n)
    for k in range(1, n):
        x[k] = 0.8 * x[k - 1] + np.tanh(u[k - 1])
    return u, x + 0.1 * rng.normal(size=n)


def test_one_step_intervals_cover_as_asked_on_a_stationary_system():
    """White measurement noise on a stationary system: one-step residuals nearly exchangeable."""
    covered = []
    for seed in range(4):
        u, y = _noisy_record(seed, 3000)
        model = NARXRegressor(y_lags=1, u_lags=1, random_state=seed).fit(u[:1500], y[:1500])
        lower, upper = model.predict_interval(u[1500:], y[1500:], coverage=0.9)
        covered.append(np.mean((lower[1:] <= y[1501:]) & (y[1501:] <= upper[1:])))
        assert lower[0] == upper[0] == y[1500]  # the initial output: measured, no width
    # 1,499 rows each: the binomial spread of one coverage is 0.008; the calibration's
    # own (300 held-out rows) about 0.017; the mean over four runs stays within 0.04
    assert abs(np.mean(covered) - 0.9) < 0.04


def test_free_run_bands_and_their_shapes():
    u, y = _noisy_record(7, 1600)
    model = NARXRegressor(y_lags=2, u_lags=1, random_state=0).fit(u[:1200], y[:1200])
    lower, upper = model.simulate_interval(u[1200:], y[1200:1205], coverage=0.8)
    run = model.simulate(u[1200:], y[1200:1205])
    assert lower.shape == upper.shape == run.shape == (400,)
    assert np.array_equal(lower[:5], y[1200:1205]) and np.array_equal(upper[:5], y[1200:1205])
    widths = upper[5:] - lower[5:]
    # held-out quantiles by horizon: positive, never narrowing (up to the rounding of
    # run -+ width, a few eps of |run|), the last held past the end
    assert np.all(widths > 0)
    assert np.all(np.diff(widths) >= -8 * np.finfo(float).eps * np.abs(run).max())
    assert np.allclose((lower + upper) / 2, run, rtol=1e-12, atol=1e-12)
    wider = model.simulate_interval(u[1200:], y[1200:1205], coverage=0.95)
    assert wider[1][5] - wider[0][5] >= widths[0]
    several = model.simulate_interval([u[1200:1300], u[1300:]], [y[1200:1202], y[1300:1303]])
    assert [band.shape for band in several[0]] == [(100,), (300,)]


def test_intervals_need_held_out_residuals():
    u, y = _noisy_record(8, 600)
    model = NARXRegressor(y_lags=1, u_lags=1, focus="prediction", random_state=0)
    model.fit(u[:400], y[:400])
    with pytest.raises(ValueError, match="keeps no residuals to build intervals from"):
        model.predict_interval(u[400:], y[400:])
    model.conformalize(u[400:500], y[400:500])
    lower, upper = model.predict_interval(u[500:], y[500:])
    assert np.all(upper[1:] > lower[1:])
    with pytest.raises(ValueError, match="'coverage' parameter of predict_interval"):
        model.predict_interval(u[500:], y[500:], coverage=1.5)
    with pytest.raises(ValueError, match="needs at least"):
        model.predict_interval(u[500:505], y[500:505], coverage=0.9999)


def test_lags_chosen_by_the_free_run():
    """A second-order system: one lag cannot represent it, and the held-out runs say so."""
    rng = np.random.default_rng(11)
    n = 1200
    u = np.repeat(rng.uniform(-1, 1, size=n // 8 + 1), 8)[:n]
    y = np.zeros(n)
    for k in range(2, n):
        y[k] = 1.5 * y[k - 1] - 0.7 * y[k - 2] + 0.4 * np.tanh(u[k - 1])
    model = NARXRegressor(
        y_lags="auto",
        u_lags="auto",
        estimator=RandomTSRegressor(n_rules=10, normalize=True, structure="random"),
        random_state=0,
    ).fit(u, y)
    assert len(model.narx_.y_lags) >= 2 and model.narx_.y_lags == model.narx_.u_lags
    from randomts.estimators.narx import LAG_CHOICES

    assert len(model.candidate_errors_) == len(LAG_CHOICES)
    assert model.selection_errors_.shape == (len(LAG_CHOICES), 5)
    with pytest.raises(ValueError, match="Lags 'auto' are chosen by the held-out free run"):
        NARXRegressor(y_lags="auto", focus="prediction").fit(u, y)
    only_outputs = NARXRegressor(
        y_lags="auto",
        u_lags=1,
        estimator=RandomTSRegressor(n_rules=5, structure="random"),
        random_state=0,
    ).fit(u, y)
    assert only_outputs.narx_.u_lags == (1,)


def test_earlier_blocks_hold_out_each_block_and_fit_on_the_rest():
    rng = np.random.default_rng(0)
    records = read_records([(rng.normal(size=(n, 1)), rng.normal(size=(n, 1))) for n in (103, 61)])
    lag = 2
    fitted, _ = split_end(records, 0.2, lag)
    folds = earlier_blocks(records, fitted, 5, lag)
    assert len(folds) == 4
    for index, ((_, Y), (_, _, cut)) in enumerate(zip(records, fitted, strict=True)):
        labels = blocked_folds(cut, 4)
        covered = []
        for block, (train, held) in enumerate(folds):
            steps = np.flatnonzero(labels == block)
            # the held-out block of this record, after its initial outputs
            _, Y_held = records.take(held)[index]
            first = max(int(steps[0]) - lag, 0)
            assert np.array_equal(Y_held, Y[first : steps[-1] + 1])
            covered.extend(steps.tolist())
            # no fitted stretch holds a step of any held-out block
            for _, Y_train in records.take(train):
                for _, Y_other in records.take(held):
                    shared = np.isin(Y_train[:, 0], Y_other[lag:, 0])
                    assert not shared.any()
        assert covered == list(range(cut))
    with pytest.raises(ValueError, match="'selection_blocks' parameter of NARXRegressor"):
        earlier_blocks(records, fitted, 40, lag)
    # two blocks of a record whose held-out end is too short to fit on
    short = read_records(y=np.arange(8.0))
    with pytest.raises(ValueError, match="leaves nothing to fit on when block 0 is held out"):
        earlier_blocks(short, [(0, 0, 5)], 2, lag)


def test_a_long_held_out_stretch_runs_in_pieces_from_measured_outputs():
    u, _, measured = _system(4, n=700)
    narx = NARX(y_lags=2, u_lags=1, target="increment")
    X, Y = narx.regressors(u[:300], measured[:300])
    mean, scale = X.mean(axis=0), X.std(axis=0)
    rules = RuleBase.random(n_features=3, n_rules=6, normalize=True, random_state=0)
    rules = rules.replace(centers=mean + scale * rules.centers, sigmas=scale * rules.sigmas)
    rules = rules.fit_consequents(X, Y, alpha=1e-4)
    horizon = 20  # pieces of at most 5 * 20 steps: the 300 held-out steps are 3 runs of 100
    held = (u[398:700], measured[398:700])
    result = refine_for_simulation(
        narx,
        rules,
        [(u[:300], measured[:300])],
        [held],
        mean=mean,
        scale=scale,
        alpha=1e-4,
        horizon=horizon,
        max_iter=0,
    )
    squares = []
    for start in (0, 100, 200):
        window = slice(start, start + 2 + 100)
        run = narx.free_run(rules, held[0][window], held[1][window][:2])[0]
        squares.append((run[2:] - held[1][window][2:]) ** 2)
    expected = float(np.sqrt(np.mean(squares)))
    # the same runs in standardised units: equal up to rounding
    assert result.start_error == pytest.approx(expected, rel=1e-9)


def _linear_system(seed, n=500, noise=0.05):
    rng = np.random.default_rng(seed)
    u = np.repeat(rng.uniform(-1, 1, size=n // 10 + 1), 10)[:n]
    y = np.zeros(n)
    for k in range(1, n):
        y[k] = 0.8 * y[k - 1] + 0.3 * u[k - 1]
    return u, y, y + noise * rng.normal(size=n)


def test_the_free_run_on_blocks_chooses_no_worse_than_the_linear_model_of_a_linear_system():
    """A flexible estimator is kept only where it wins beyond the noise of the blocks."""
    kept, ratios = [], []
    for seed in range(4):
        u, truth, measured = _linear_system(seed)
        model = NARXRegressor(1, 1, random_state=seed).fit(u[:400], measured[:400])
        # four candidates, the inputs alone, the polynomial twin; five blocks
        assert model.selection_errors_.shape == (6, 5)
        assert np.array_equal(model.selection_errors_[:, -1], model.candidate_errors_)
        linear = NARXRegressor(
            1,
            1,
            estimator=RandomTSRegressor(n_rules=1, normalize=True, structure="random"),
            random_state=seed,
        ).fit(u[:400], measured[:400])
        errors = []
        for fitted in (model, linear):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RandomTSWarning)
                run = fitted.simulate(u[400:], truth[400:401])
            errors.append(float(np.sqrt(np.mean((run[1:] - truth[401:]) ** 2))))
        kept.append((model.rule_base_.n_rules, model.narx_.powers))
        ratios.append(errors[0] / errors[1])
    assert max(ratios) < 1.5 and np.mean(ratios) < 1.2
    assert kept.count((1, ())) >= 3  # the linear model itself


def test_one_selection_block_keeps_the_least_error_on_the_held_out_end():
    u, _, measured = _system(5, n=500)
    model = NARXRegressor(1, 1, selection_blocks=1, random_state=0).fit(u, measured)
    assert model.selection_errors_ is None
    assert model.simulation_fit_.error == np.min(model.candidate_errors_)  # exact: same float
    with pytest.raises(ValueError, match="'selection_blocks' parameter of NARXRegressor"):
        NARXRegressor(1, 1, selection_blocks=0).fit(u, measured)


def _options(errors, n_rules):
    """Options as choose reads them: their index, errors by block and size (the sort key)."""
    return [
        (index, True, np.array(row, dtype=float), (3 * rules, 1, index))
        for index, (row, rules) in enumerate(zip(errors, n_rules, strict=True))
    ]


def _kept(errors, n_rules):
    return choose(_options(errors, n_rules))[0]


def test_a_more_complex_option_is_kept_only_where_it_wins_beyond_the_noise():
    simple = [0.66, 0.44, 0.40, 0.29, 0.93]
    # better on every block, by a factor about 2: kept, whatever the order given
    better = [e / 2 for e in simple]
    assert _kept([better, simple], [10, 1]) == 0
    assert _kept([simple, better], [1, 10]) == 1
    # far better on the last block only, worse on every other: the simple one is kept
    lucky = [0.69, 0.85, 0.44, 0.84, 0.30]
    assert _kept([lucky, simple], [10, 1]) == 1
    # a run that diverged on one block is not kept
    diverged = [e / 2 for e in simple[:4]] + [np.inf]
    assert _kept([diverged, simple], [10, 1]) == 1
    # one block: the least error on it
    assert _kept([[0.5], [0.6]], [10, 1]) == 0
    # each step up is judged against the option kept so far
    middle = [e / 2 for e in simple]
    large = [e / 1.9 for e in simple]  # no better than the middle one
    assert _kept([large, middle, simple], [100, 10, 1]) == 1


def test_a_refinement_is_kept_only_where_it_beats_its_start_beyond_the_noise():
    start = [0.50, 0.40, 0.45, 0.30, 0.42]
    fit = CandidateFit(
        None,
        None,
        [],
        np.array([0.52, 0.41, 0.47, 0.31, 0.30]),
        30,
        None,
        object(),
        np.array(start),
        np.array([1, 2, 1, 1, 3]),
    )
    index, refined, _, _ = choose(fit.options(0))
    assert index == 0 and not refined  # better on the held-out end only: noise
    fit.block_errors = np.array(start) / 2
    assert choose(fit.options(0))[1]  # better on every block
    assert fit.steps() == 3  # as many steps as the held-out end kept
    fit.block_iterations = np.array([1, 4, 0, 2, 0])
    assert fit.steps() == 2  # the end kept the start: the median where the others moved
    fit.block_iterations = np.zeros(5, dtype=int)  # the start was best on every block
    assert [option[1] for option in fit.options(0)] == [False]


@pytest.mark.parametrize("powers", [(), (2, 3), "products"])
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("target", ["increment", "output"])
@pytest.mark.parametrize("n_rules", [6, 1])
@pytest.mark.parametrize("antecedents", [False, True])
def test_the_compiled_steps_are_the_numpy_steps(
    powers, normalize, order, target, n_rules, antecedents, monkeypatch
):
    """Two implementations of one step: the compiled loop and NumPy's, to rounding.

    One rule of a weighted average weighs 1 without its distance in the compiled loop,
    and its weight computed in NumPy's.
    """
    compiled = pytest.importorskip("randomts.dynamics._runs")
    from randomts.dynamics import _steps, simulation_fit

    rng = np.random.default_rng(7)
    products = powers == "products"
    narx = NARX(
        y_lags=(1, 3),
        u_lags=(0, 2),
        output_names=("a", "b"),
        target=target,
        powers=(2, 3) if products else powers,
        products=products,
    )
    n_features = len(narx.regressor_names)
    # the power columns standardised as the data's would be: of the order of 1
    scale = np.ones(n_features)
    scale[narx.n_lagged_columns :] = 5.0
    # one rule of a weighted average is its line everywhere (no other takes over far out):
    # smaller slopes keep the cubic's run of 20 steps finite
    size = 0.1 if n_rules > 1 else 0.03
    rules = RuleBase(
        rng.normal(size=(n_rules, n_features)),
        rng.uniform(0.8, 2.0, size=(n_rules, n_features)),
        size * rng.normal(size=(n_rules, 2, n_features)) * (scale == 1.0) if order else None,
        0.1 * rng.normal(size=(n_rules, 2)),
        normalize=normalize,
    )
    problem = SimulationProblem(narx, rules, np.zeros(n_features), scale, order, antecedents)
    Y, U = rng.normal(size=(5, 3 + 20, 2)), rng.normal(size=(5, 3 + 20, 1))
    gammas = problem.gamma0[None] + 0.01 * rng.normal(size=(2,) + problem.gamma0.shape)
    if problem.refines_antecedents:  # two owners with antecedents of their own
        gammas = np.stack([problem.pack(gamma) for gamma in gammas])
        gammas[:, problem.gamma0.size :] += 0.05 * rng.normal(
            size=(2, problem.n_parameters - problem.gamma0.size)
        )
    owner = np.array([0, 1, 1, 0, 1])
    results = {}
    for name, steps in (("compiled", compiled.run_steps), ("numpy", _steps.run_steps)):
        monkeypatch.setattr(simulation_fit, "run_steps", steps)
        results[name] = problem.run(gammas, Y, U, 20, True, owner=owner)
    (out_c, S_c), (out_n, S_n) = results["compiled"], results["numpy"]
    assert np.all(np.isfinite(out_n)) and np.all(np.isfinite(S_n))
    # sums in another order: rounding of a few ulps, grown along 20 steps of feedback
    np.testing.assert_allclose(out_c, out_n, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(S_c, S_n, rtol=1e-8, atol=1e-10 * np.abs(S_n).max())


@pytest.mark.parametrize("seed", range(3))
def test_problems_too_large_to_refine_side_by_side_are_refined_one_after_another(seed, monkeypatch):
    """Grouped by the bound on the Jacobians held at once: each problem refined as side by side."""
    rng = np.random.default_rng(seed)
    u = rng.uniform(-1, 1, size=(400, 2))
    y = np.zeros((400, 2))
    for k in range(1, 400):
        y[k] = 0.6 * y[k - 1] + np.tanh(u[k - 1] + 0.3 * y[k - 1, ::-1])
    narx = NARX(2, 2, input_names=["u0", "u1"], output_names=["y0", "y1"])
    rules = RuleBase.random(n_features=8, n_outputs=2, n_rules=6, random_state=seed)
    problem = SimulationProblem(narx, rules, np.zeros(8), np.ones(8))
    cuts = [0, 100, 200, 300, 400]
    blocks = list(zip(cuts[:-1], cuts[1:], strict=True))
    held = [[(u[a:b], y[a:b])] for a, b in blocks]
    fitted = [[(u[s:e], y[s:e]) for s, e in ((0, a), (b, 400)) if e - s > 60] for a, b in blocks]
    starts = [problem.gamma0] * 4
    together = problem.refine_many(starts, fitted, held, alpha=1e-3, horizon=50)
    monkeypatch.setattr(simulation_fit, "_MAX_SIDE_BY_SIDE", 1)  # every problem alone
    alone = problem.refine_many(starts, fitted, held, alpha=1e-3, horizon=50)
    assert any(result.best_iteration > 0 for result in together)
    for a, b in zip(together, alone, strict=True):
        assert a.best_iteration == b.best_iteration
        # the same arithmetic on each problem's windows (bit for bit here); a BLAS may round a
        # product of stacked windows by their number, eps-sized, grown by a few steps. A problem
        # refined wrongly or given another's result is off by what the steps move: here the
        # consequents' whole size, and the blocks' results differ by a third of it or more
        scale = np.abs(a.gamma).max()
        assert np.abs(a.gamma - b.gamma).max() <= 1e-9 * scale
        assert b.error == pytest.approx(a.error, rel=1e-9)
