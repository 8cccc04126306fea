"""NARXRegressor's modes: k steps ahead, several outputs, forecasts past the end of a series."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

from randomts import NARXRegressor, RandomTSRegressor
from randomts.dynamics.narx import NARX
from randomts.exceptions import RandomTSWarning


def plant(u, pole=0.8):
    """y(k) = pole y(k-1) + tanh(u(k-1)) + 0.2 y(k-1) u(k-1), from y(0) = 0."""
    y = np.zeros(len(u))
    for k in range(1, len(u)):
        y[k] = pole * y[k - 1] + np.tanh(u[k - 1]) + 0.2 * y[k - 1] * u[k - 1]
    return y


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    u = np.repeat(rng.uniform(-1, 1, size=80), 10)
    y = plant(u) + 0.02 * rng.normal(size=u.size)
    model = NARXRegressor(y_lags=2, u_lags=2, random_state=0).fit(u[:600], y[:600])
    return model, u[600:], y[600:]


@pytest.mark.parametrize("steps", [1, 3, 10])
def test_k_steps_ahead_is_the_free_run_from_the_outputs_k_steps_before(fitted, steps):
    model, u, y = fitted
    ahead = model.predict(u, y, steps_ahead=steps)
    first = model.max_lag_ + steps - 1
    np.testing.assert_array_equal(ahead[:first], y[:first])  # exact: the measured outputs
    for k in (first, first + 37, len(y) - 1):
        start = k - steps - model.max_lag_ + 1  # the run's initial outputs end at k - steps
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RandomTSWarning)
            run = model.simulate(u[start : k + 1], y[start : k - steps + 1])
        # the same steps, run side by side with the other windows there: equal to rounding
        assert ahead[k] == pytest.approx(run[-1], rel=1e-10, abs=1e-12)


def test_one_step_ahead_is_predict_and_far_ahead_is_the_free_run(fitted):
    model, u, y = fitted
    np.testing.assert_array_equal(model.predict(u, y, steps_ahead=1), model.predict(u, y))
    # 150 steps ahead the measured start is forgotten (a pole of 0.8): the free run's outputs
    far = model.predict(u, y, steps_ahead=150)
    run = model.simulate(u, y[:2])
    np.testing.assert_allclose(far[151:], run[151:], rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="'steps_ahead' parameter of NARXRegressor"):
        model.predict(u, y, steps_ahead=0)
    with pytest.raises(ValueError, match="y has 5 steps, but this NARXRegressor needs at least 6"):
        model.predict(u[:5], y[:5], steps_ahead=4)


def test_k_step_intervals_take_the_free_run_width_at_that_horizon(fitted):
    model, u, y = fitted
    lower, upper = model.predict_interval(u, y, coverage=0.9, steps_ahead=5)
    low_run, high_run = model.simulate_interval(u, y[:2], coverage=0.9)
    first = model.max_lag_ + 4
    np.testing.assert_allclose(upper[first:] - lower[first:], (high_run - low_run)[2 + 4])
    inside = (lower[first:] <= y[first:]) & (y[first:] <= upper[first:])
    assert 0.7 < inside.mean() <= 1.0


def coupled(u, seed=1):
    """Two outputs that drive each other, two inputs: a MIMO plant with output noise."""
    rng = np.random.default_rng(seed)
    y = np.zeros((len(u), 2))
    for k in range(1, len(u)):
        a, b = y[k - 1]
        y[k, 0] = 0.7 * a + 0.2 * b + np.tanh(u[k - 1, 0])
        y[k, 1] = 0.6 * b - 0.1 * a * abs(a) + 0.5 * u[k - 1, 1]
    return y + 0.01 * rng.normal(size=y.shape)


def test_several_outputs_fit_predict_and_simulate_better_than_a_linear_model():
    rng = np.random.default_rng(2)
    u = np.repeat(rng.uniform(-1.5, 1.5, size=(90, 2)), 10, axis=0)
    y = coupled(u)
    model = NARXRegressor(y_lags=1, u_lags=1, random_state=0).fit(u[:600], y[:600])
    assert model.n_outputs_ == 2 and model.rule_base_.n_outputs == 2
    assert model.narx_.regressor_names == ("y1(k-1)", "y2(k-1)", "u1(k-1)", "u2(k-1)")
    assert model.predict(u[600:], y[600:], steps_ahead=3).shape == (300, 2)
    run = model.simulate(u[600:], y[600:601])
    assert run.shape == (300, 2) and not run.diverged
    arx = NARX(1, 1, output_names=("y1", "y2"), input_names=("u1", "u2"))
    linear = LinearRegression().fit(*arx.regressors(u[:600], y[:600]))
    linear_run = arx.simulate(linear, u[600:], y[600:601])
    error = np.sqrt(np.mean((run[1:] - y[601:]) ** 2, axis=0))
    linear_error = np.sqrt(np.mean((linear_run[1:] - y[601:]) ** 2, axis=0))
    assert np.all(error < linear_error)  # the second output's |a| a is what a line misses


def test_a_series_is_forecast_past_its_end_with_a_band_that_widens():
    rng = np.random.default_rng(3)
    k = np.arange(400)
    y = np.sin(2 * np.pi * k / 25) + 0.5 * np.sin(2 * np.pi * k / 7) + 0.05 * rng.normal(size=400)
    model = NARXRegressor(
        y_lags=8, estimator=RandomTSRegressor(n_rules=20, structure="random"), random_state=0
    )
    model.fit(y=y[:350])
    forecast = model.simulate(None, y[:350], n_steps=50)  # from the series itself, past its end
    assert forecast.shape == (400,)
    np.testing.assert_array_equal(forecast[:350], y[:350])  # exact: the series given
    assert np.sqrt(np.mean((forecast[350:] - y[350:]) ** 2)) < 0.25  # y spans about 3
    lower, upper = model.simulate_interval(None, y[:350], n_steps=50, coverage=0.9)
    width = (upper - lower)[350:]
    assert np.all(np.diff(width) >= -1e-12) and width[-1] > width[0]  # to rounding
    np.testing.assert_array_equal((upper - lower)[:350], 0.0)  # exact: no width on the data
