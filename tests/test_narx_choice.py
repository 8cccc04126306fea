"""What the free run of NARXRegressor chooses from, and what it never keeps.

Rules grown where the one-step error is are refined for the free run as
random ones are; a model of the lagged inputs alone, whose free run cannot
diverge, is one of the default candidates; a candidate whose free run over the records it was
fitted on diverges or leaves their outputs is never kept; the model fitted
again on every record whole replaces the one fitted on their first part only
where it runs no worse there; a refinement is judged on every block after
the steps the other blocks chose, not those chosen on the block itself.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from randomts import NARXRegressor, RandomTSRegressor, RuleBase, load, save
from randomts.dynamics.narx import FALLBACK_SPAN, NARX
from randomts.dynamics.records import read_records
from randomts.dynamics.simulation_fit import SimulationProblem
from randomts.estimators.narx.selection import (
    Settings,
    crossed_errors,
    fit_candidates,
    input_only_rules,
    refit,
    whole_run_error,
    whole_runs,
)
from randomts.exceptions import RandomTSWarning


def _unstable_plant_in_a_loop(seed, n=1000):
    """An unstable plant (pole 1.05) in a loop ``u = r - 0.3 y`` that moves it to 0.9."""
    rng = np.random.default_rng(seed)
    r = np.repeat(rng.uniform(-1, 1, size=n // 20 + 1), 20)[:n]
    y, u = np.zeros(n), np.zeros(n)
    for k in range(1, n):
        y[k] = 1.05 * y[k - 1] + 0.5 * u[k - 1] + 0.02 * rng.normal()
        u[k] = r[k] - 0.3 * y[k]
    return u, y


def _arx_run(u, y, n_fit, lags):
    """The least-squares ARX model of ``lags`` fitted on the first ``n_fit`` steps, run after them."""
    rows = [np.r_[y[k - lags : k][::-1], u[k - lags : k][::-1], 1.0] for k in range(lags, n_fit)]
    theta = np.linalg.lstsq(np.array(rows), y[lags:n_fit], rcond=None)[0]
    run = y.copy()
    with np.errstate(all="ignore"):
        for k in range(n_fit + lags, y.size):
            run[k] = np.r_[run[k - lags : k][::-1], u[k - lags : k][::-1], 1.0] @ theta
    return run[n_fit + lags :]


@pytest.mark.parametrize("seed", range(4))
def test_a_loop_around_an_unstable_plant_is_run_by_a_model_that_cannot_diverge(seed):
    """The plant's ARX model is unstable: its free run diverges, the default's does not."""
    u, y = _unstable_plant_in_a_loop(seed)
    n_fit, lags = 500, 2
    arx = _arx_run(u, y, n_fit, lags)
    spread = float(np.std(y[n_fit + lags :]))
    # the linear model of the plant runs away (1e7 and more over 500 steps)
    assert not np.all(np.abs(arx) < 100 * spread)
    model = NARXRegressor(lags, lags, random_state=seed).fit(u[:n_fit], y[:n_fit])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomTSWarning)
        run = model.simulate(u[n_fit:], y[n_fit : n_fit + lags])
    assert not run.diverged
    rmse = float(np.sqrt(np.mean((run[lags:] - y[n_fit + lags :]) ** 2)))
    # the model of the lagged inputs alone: -1 on y(k-1) (an increment), 0 on y(k-2), and no
    # fallback (it has no output to leave the data with)
    assert model.rule_base_.coef[0, 0, :2].tolist() == [-1.0, 0.0]  # exact: set, not fitted
    assert model.fallback_ is None
    # two input lags explain part of the loop: 0.89 to 1.04 of the spread over seeds 0-7
    assert rmse < 1.25 * spread


@pytest.mark.parametrize("target", ["increment", "output"])
def test_the_model_of_the_inputs_alone_is_the_least_squares_fir_model(target):
    rng = np.random.default_rng(3)
    u = rng.normal(size=(200, 2))
    y = np.zeros(200)
    y[2:] = 2.0 * u[1:-1, 0] - u[:-2, 0] + 0.5 * u[1:-1, 1] + 0.3
    narx = NARX(y_lags=2, u_lags=2, input_names=["u1", "u2"], target=target)
    X, Y = narx.regressors(u, y)
    rules = input_only_rules(narx, X, Y)
    # the regressors: y(k-1), y(k-2), u1(k-1), u1(k-2), u2(k-1), u2(k-2); exact data, so the
    # least squares recovers the system to rounding
    expected = [-1.0 if target == "increment" else 0.0, 0.0, 2.0, -1.0, 0.5, 0.0]
    np.testing.assert_allclose(rules.coef[0, 0], expected, atol=1e-10)
    np.testing.assert_allclose(rules.intercept[0], [0.3], atol=1e-10)
    # no output fed back: its free run is its one-step prediction, exact to rounding
    run = narx.free_run(rules, u, y[:2])[0]
    np.testing.assert_allclose(run[2:, 0], y[2:], atol=1e-9)


def _linear_problem(pole):
    """``y(k) = pole y(k-1) + u(k-1)`` as the one linear rule of a problem, unstandardised."""
    narx = NARX(y_lags=1, u_lags=1)
    rules = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1e3, 1e3]], coef=[[[pole, 1.0]]])
    rules = rules.replace(normalize=True)
    return narx, SimulationProblem(narx, rules, np.zeros(2), np.ones(2))


def test_a_whole_run_that_leaves_the_outputs_counts_as_diverged():
    rng = np.random.default_rng(0)
    u = rng.uniform(-1, 1, size=300)
    y = np.zeros(300)
    for k in range(1, 300):
        y[k] = 0.5 * y[k - 1] + u[k - 1]
    records = read_records(u, y)
    narx, stable = _linear_problem(0.5)
    runs, low, high = whole_runs(narx, records)
    assert low[0] == y.min() and high[0] == y.max()  # exact: the data's own values
    # the true model runs the record exactly
    assert whole_run_error(stable, stable.gamma0, runs, low, high) == pytest.approx(0.0, abs=1e-9)
    # slightly wrong: finite, and the RMSE of an independent free run
    _, biased = _linear_problem(0.55)
    independent = narx.free_run(biased.rule_base, u, y[:1])[0][1:, 0]
    rmse = float(np.sqrt(np.mean((independent - y[1:]) ** 2)))
    assert whole_run_error(biased, biased.gamma0, runs, low, high) == pytest.approx(rmse, rel=1e-9)
    # a pole of 1.02 leaves the outputs (by far more than FALLBACK_SPAN of a span) before 300
    _, unstable = _linear_problem(1.02)
    independent = narx.free_run(unstable.rule_base, u, y[:1])[0][1:, 0]
    span = y.max() - y.min()
    assert np.max(np.abs(independent)) > y.max() + FALLBACK_SPAN * span
    assert whole_run_error(unstable, unstable.gamma0, runs, low, high) == np.inf  # exact: inf


def test_the_refit_on_every_record_replaces_the_first_part_model_only_where_it_runs_no_worse():
    rng = np.random.default_rng(1)
    u = rng.uniform(-1, 1, size=600)
    y = np.zeros(600)
    for k in range(1, 600):
        y[k] = 0.7 * y[k - 1] + np.tanh(2 * u[k - 1]) + 0.02 * rng.normal()
    records = read_records(u, y)
    narx = NARX(y_lags=1, u_lags=1, target="increment")
    settings = Settings(5, 200, 20, 0.2, 5)
    candidates = [
        RandomTSRegressor(n_rules=10, structure="random", random_state=0),
        RandomTSRegressor(n_rules=1, structure="random", normalize=True, alpha=0.0),
    ]
    fits, rows = fit_candidates([narx], lambda narx: candidates, records, settings)
    fit = fits[0]
    assert np.all(np.isfinite(fit.whole_errors))
    # the refined model is an option where the refinement moved on a block
    assert np.any(fit.block_iterations)
    # the first part's refined model ran perfectly: no refit refined on everything can be as
    # good, and it is kept
    perfect = dataclasses.replace(fit, whole_errors=(0.0, 0.0))
    estimator, _ = refit(perfect, True, records, rows[0], settings)
    assert estimator is fit.estimator
    # a one-step fit on every row is not held to the first part's error
    estimator, _ = refit(perfect, False, records, rows[0], settings)
    assert estimator is not fit.estimator
    for refined in (False, True):
        # the first part's model left the data: the refit, which runs finitely, replaces it
        lost = dataclasses.replace(fit, whole_errors=(np.inf, np.inf))
        estimator, rules = refit(lost, refined, records, rows[0], settings)
        assert estimator is not fit.estimator
        run = narx.free_run(rules, u, y[:1])[0]
        assert np.all(np.isfinite(run)) and np.max(np.abs(run)) < 2 * np.max(np.abs(y))


def test_an_autoregression_has_no_model_of_the_inputs_alone():
    """Without inputs it would be the mean: the four candidates of rules and the polynomial one."""
    rng = np.random.default_rng(2)
    y = np.zeros(400)
    for k in range(2, 400):
        y[k] = 1.2 * y[k - 1] - 0.5 * y[k - 2] + rng.normal()
    model = NARXRegressor(2, random_state=0).fit(None, y)
    assert model.selection_errors_.shape == (5, 5)


def _saturated_tanks(seed, n=1200):
    """Two tanks in cascade, the flows through square roots, the upper one overflowing at 10."""
    rng = np.random.default_rng(seed)
    u = np.repeat(rng.uniform(0.5, 4.0, size=n // 30 + 1), 30)[:n]
    upper, lower = np.zeros(n), np.zeros(n)
    for k in range(1, n):
        upper[k] = min(10.0, upper[k - 1] + 0.3 * u[k - 1] - 0.25 * np.sqrt(upper[k - 1]))
        lower[k] = lower[k - 1] + 0.25 * np.sqrt(upper[k - 1]) - 0.2 * np.sqrt(lower[k - 1])
    return u, lower + 0.02 * rng.normal(size=n)


def test_grown_rules_are_refined_for_the_free_run_with_their_regions_kept():
    u, y = _saturated_tanks(0, n=800)
    records = read_records(u, y)
    narx = NARX(y_lags=2, u_lags=2, target="increment")
    grown = RandomTSRegressor(structure="grown", learning="combined")
    fits, _ = fit_candidates([narx], lambda narx: [grown], records, Settings(5, 200, 20, 0.2, 1))
    fit = fits[0]
    start = fit.estimator.rule_base_
    assert start.normalize and start.n_rules > 1
    # refined on the held-out end: the start's consequents moved, and the model kept runs no
    # worse there than the start
    assert fit.refinement.best_iteration > 0
    assert fit.refinement.error <= fit.refinement.start_error
    refined = fit.rule_base()
    assert not np.allclose(refined.coef, start.coef)
    # the antecedents and the regions they were grown in are the grown ones (the same
    # arrays, not recomputed)
    assert np.array_equal(refined.centers, start.centers)  # exact: not recomputed
    assert np.array_equal(refined.sigmas, start.sigmas)  # exact: not recomputed
    assert refined.metadata["regions"] == start.metadata["regions"]


@pytest.mark.parametrize("seed", range(8))
def test_grown_rules_fitted_for_the_free_run_run_no_worse_than_the_linear_model(seed):
    u, y = _saturated_tanks(seed)
    n_fit, lags = 800, 2
    arx = _arx_run(u, y, n_fit, lags)
    model = NARXRegressor(
        lags,
        lags,
        estimator=RandomTSRegressor(structure="grown", learning="combined"),
        random_state=seed,
    ).fit(u[:n_fit], y[:n_fit])
    assert model.simulation_fit_ is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RandomTSWarning)
        run = model.simulate(u[n_fit:], y[n_fit : n_fit + lags])
    truth = y[n_fit + lags :]
    rmse = float(np.sqrt(np.mean((run[lags:] - truth) ** 2)))
    linear = float(np.sqrt(np.mean((arx - truth) ** 2)))
    # the overflow and the square roots are beyond a linear model: 0.18 to 1.01 times its
    # error over seeds 0-7 (2 or 3 rules grown; the refinement kept on 6 seeds of 8)
    assert rmse < 1.1 * linear


def _second_order(seed, noise, n=400):
    """A linear second-order system, its noise in the equation (``"equation"``) or on the output."""
    rng = np.random.default_rng(seed)
    u = np.repeat(rng.uniform(-1, 1, size=n // 10 + 1), 10)[:n]
    y, x = np.zeros(n), np.zeros(n)
    for k in range(2, n):
        if noise == "equation":
            y[k] = 1.2 * y[k - 1] - 0.5 * y[k - 2] + 0.4 * u[k - 1] + 0.05 * rng.normal()
        else:
            x[k] = 1.2 * x[k - 1] - 0.5 * x[k - 2] + 0.4 * u[k - 1]
            y[k] = x[k] + 0.05 * rng.normal()
    return u, y


def test_a_refinement_is_judged_on_every_block_after_the_steps_the_others_chose():
    u, y = _second_order(5, "output")
    u, y = u[:, None], y[:, None]
    narx, _ = _linear_problem(0.5)
    rules = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1e3, 1e3]], coef=[[[0.5, 0.3]]])
    problem = SimulationProblem(narx, rules.replace(normalize=True), np.zeros(2), np.ones(2))
    cuts = [0, 100, 200, 300, 400]
    blocks = list(zip(cuts[:-1], cuts[1:], strict=True))
    held = [[(u[a:b], y[a:b])] for a, b in blocks]
    fitted = [[(u[s:e], y[s:e]) for s, e in ((0, a), (b, 400)) if e > s] for a, b in blocks]
    results = problem.refine_many(
        [problem.gamma0] * 4, fitted, held, alpha=0.0, horizon=50, max_iter=20
    )
    steps = np.array([result.best_iteration for result in results])
    assert np.any(steps > 0)
    for result in results:
        # the held-out error after every step taken, the start's first; the kept step's is
        # the least
        assert len(result.trace) == result.iterations + 1
        assert result.trace[0] == result.start_error  # exact: the same number
        assert result.trace[result.best_iteration] == result.error  # exact: the same number
        assert result.error == min(result.trace)  # exact: the least of them
    crossed = crossed_errors(results)
    for block, result in enumerate(results):
        step = int(round(float(np.median(np.delete(steps, block)))))
        assert crossed[block] == result.trace[min(step, result.iterations)]  # exact: picked
    # a block judged by its own choice is never above its start; judged by the others' it can be
    assert all(result.error <= result.start_error for result in results)
    assert np.all(crossed >= [result.error for result in results])


def test_the_least_squares_arx_model_of_an_arx_system_is_kept_unrefined():
    """Noise in the equation: least squares is the best fit, and a refinement only follows noise.

    Judged on the steps their own blocks chose, the refinement of the linear model looked
    better than its start beyond the noise of the blocks on seed 5 and was kept. A more
    complex option is kept where its blocks' mean log-ratio is one standard error below the
    kept one's: by chance too. On seed 4 the refined polynomial model wins so (its mean
    log-ratio 1.1 standard errors below) and runs 3.5 times the least-squares model's error
    on the system's noise-free response; over seeds 0-29 of this system and of its
    output-noise twin, that is the one fit of 60 that kept it.
    """
    kept = 0
    for seed in range(8):
        u, y = _second_order(seed, "equation")
        model = NARXRegressor(2, 2, random_state=seed).fit(u, y)
        if model.narx_.powers:
            continue
        assert model.rule_base_.n_rules == 1 and model.simulation_fit_.best_iteration == 0
        # the least-squares ARX model on every row (not the model of the inputs alone)
        X, Y = model.narx_.regressors(u, y)
        rows = np.hstack([X, np.ones((X.shape[0], 1))])
        least_squares = rows @ np.linalg.lstsq(rows, Y, rcond=None)[0]
        assert np.allclose(model.estimator_.predict(X).ravel(), least_squares.ravel(), atol=1e-8)
        kept += 1
    assert kept >= 7


@pytest.mark.parametrize("noise", ["equation", "output"])
def test_a_long_record_of_a_linear_system_keeps_no_polynomial(noise):
    """1,500 steps: the polynomial candidate has every product (12 coefficients, 1,200 rows).

    Its 12 coefficients against the linear model's 5 can follow the noise of the blocks; on
    seeds 0-14 of both noises, at 1,500 and at 3,000 steps, no fit kept it.
    """
    for seed in range(4):
        u, y = _second_order(seed, noise, n=1500)
        model = NARXRegressor(2, 2, random_state=seed).fit(u, y)
        assert not model.narx_.powers, seed


def _duffing(seed, n=3000, noise=0.02):
    """A discrete oscillator with a cubic spring, measured with output noise."""
    rng = np.random.default_rng(seed)
    u = np.repeat(rng.uniform(-1, 1, size=n // 20 + 1), 20)[:n] + 0.3 * rng.normal(size=n)
    y = np.zeros(n)
    for k in range(2, n):
        y[k] = 1.6 * y[k - 1] - 0.8 * y[k - 2] + 0.1 * u[k - 1] - 0.1 * y[k - 1] ** 3
    return u, y, y + noise * rng.normal(size=n)


@pytest.mark.parametrize("seed", range(3))
def test_the_polynomial_model_of_a_cubic_spring_is_kept_and_saved(seed, tmp_path):
    """A polynomial system: the candidate of the lags and their products wins, and round-trips.

    1,998 lagged rows, at least 100 per coefficient of the products of degree 2 and 3 of
    y(k-1), y(k-2) (12 with the lags and the constant): the candidate has every product.
    """
    u, truth, measured = _duffing(seed)
    model = NARXRegressor(2, 2, random_state=seed).fit(u[:2000], measured[:2000])
    assert model.narx_.powers == (2, 3) and model.narx_.products
    assert model.rule_base_.n_rules == 1
    assert model.rule_base_.input_names[4:] == (
        "y(k-1)^2",
        "y(k-1)*y(k-2)",
        "y(k-2)^2",
        "y(k-1)^3",
        "y(k-1)^2*y(k-2)",
        "y(k-1)*y(k-2)^2",
        "y(k-2)^3",
    )
    # the fallback beyond the data is linear in the lags: its powers' coefficients are 0
    assert np.all(model.fallback_.coef[..., model.narx_.n_lagged_columns :] == 0.0)  # exact
    run = model.simulate(u[2000:], truth[2000:2002])
    error = float(np.sqrt(np.mean((run[2:] - truth[2002:]) ** 2)))
    linear = NARXRegressor(
        2,
        2,
        estimator=RandomTSRegressor(n_rules=1, normalize=True, structure="random", alpha=0.0),
        focus="prediction",
    ).fit(u[:2000], measured[:2000])
    linear_error = float(
        np.sqrt(np.mean((linear.simulate(u[2000:], truth[2000:2002])[2:] - truth[2002:]) ** 2))
    )
    # measured over seeds 0-2: 0.0010-0.0022 against a spread of 0.27-0.32
    assert error < 0.1 * linear_error and error < 0.02 * truth[2000:].std()
    path = tmp_path / "duffing.json"
    save(model, path)
    back = load(path)
    assert back.narx_.powers == (2, 3) and back.narx_.products
    np.testing.assert_allclose(
        back.simulate(u[2000:], truth[2000:2002]), run, rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("seed", range(3))
def test_a_short_record_of_a_cubic_spring_gets_the_powers_without_their_products(seed):
    """598 lagged rows, fewer than 100 per coefficient of the products: each lag's powers alone.

    Measured over seeds 0-2: the polynomial kept, 0.0037 to 0.0047 on the noise-free
    response (a spread of 0.29 to 0.31) against the linear model's 0.053 to 0.067.
    """
    u, truth, measured = _duffing(seed, n=1600)
    model = NARXRegressor(2, 2, random_state=seed).fit(u[:600], measured[:600])
    assert model.narx_.powers == (2, 3) and not model.narx_.products
    assert model.rule_base_.input_names[4:] == ("y(k-1)^2", "y(k-2)^2", "y(k-1)^3", "y(k-2)^3")
    run = model.simulate(u[600:], truth[600:602])
    error = float(np.sqrt(np.mean((run[2:] - truth[602:]) ** 2)))
    assert error < 0.02 * truth[600:].std()


@pytest.mark.parametrize("seed", range(4))
def test_the_refinement_of_an_output_error_system_is_kept(seed):
    """Noise on the output: least squares on lagged noisy outputs is biased, the refinement is not."""
    u, y = _second_order(seed, "output")
    model = NARXRegressor(2, 2, random_state=seed).fit(u, y)
    assert model.rule_base_.n_rules == 1 and model.simulation_fit_.best_iteration > 0
