"""The benchmark systems against hand-written scalar loops, closed forms and known behaviour."""

import numpy as np
import pytest

from randomts.dynamics.systems import mackey_glass, narendra_parthasarathy, van_der_pol

# ------------------------------------------------------------------ Van der Pol


def van_der_pol_loop(x0, n_steps, step, lam, sign):
    """Forward Euler written out for one trajectory."""
    x1, x2 = x0
    out = [(x1, x2)]
    for _ in range(n_steps):
        x1, x2 = x1 + step * x2, x2 + step * (sign * lam * (1 - x1 * x1) * x2 - x1)
        out.append((x1, x2))
    return np.array(out)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("form, sign", [("standard", 1.0), ("paper", -1.0)])
def test_van_der_pol_is_the_euler_loop_for_every_trajectory(seed, form, sign):
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-1, 1, size=(4, 2))
    lam = rng.uniform(0.5, 2.0)
    states = van_der_pol(x0, 200, step=0.02, lam=lam, form=form)
    assert states.shape == (4, 201, 2)
    for r in range(4):
        np.testing.assert_allclose(
            states[r], van_der_pol_loop(x0[r], 200, 0.02, lam, sign), rtol=1e-14, atol=1e-14
        )


def test_standard_form_limit_cycle_attracts_with_amplitude_two():
    """lambda = 1: the limit cycle has max |x1| = 2.0086 (a classical value); both sides converge."""
    states = van_der_pol([[0.1, 0.0], [4.0, 0.0]], n_steps=40000, step=0.001)
    last_period = states[:, -7000:, 0]  # the period is 6.66 time units
    np.testing.assert_allclose(np.abs(last_period).max(axis=1), 2.0086, atol=5e-3)


def test_paper_form_is_the_time_reversed_oscillator():
    """lambda (x1^2 - 1) x2 - x1 is the standard field with t -> -t and x2 -> -x2."""
    x0 = np.array([[1.2, -0.7], [0.3, 1.1]])
    step, n_steps = 1e-4, 5000
    forward = van_der_pol(x0, n_steps, step=step)[:, -1]
    mirrored = forward * [1.0, -1.0]
    back = van_der_pol(mirrored, n_steps, step=step, form="paper")[:, -1] * [1.0, -1.0]
    # two Euler runs of global error O(step) each
    np.testing.assert_allclose(back, x0, atol=2e-3)


def test_paper_form_repels_its_limit_cycle():
    states = van_der_pol([[0.5, 0.0], [2.5, 0.0]], n_steps=3000, step=0.01, form="paper")
    assert np.abs(states[0, -1]).max() < 1e-2  # inside: spirals to the origin
    assert (
        not np.all(np.isfinite(states[1, -1])) or np.abs(states[1, -1]).max() > 1e3
    )  # outside: escapes


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            dict(initial_states=[[0.0, 0.0, 0.0]], n_steps=5),
            ValueError,
            "3 state variables, but van_der_pol",
        ),
        (dict(initial_states=[[0.0, 0.0]], n_steps=0), ValueError, "'n_steps' parameter"),
        (dict(initial_states=[[0.0, 0.0]], n_steps=5, step=0.0), ValueError, "'step' parameter"),
        (
            dict(initial_states=[[0.0, 0.0]], n_steps=5, form="reversed"),
            ValueError,
            "'form' parameter",
        ),
    ],
)
def test_van_der_pol_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        van_der_pol(**kwargs)


# ------------------------------------------------------ Narendra-Parthasarathy


def narendra_loop(u, y0, y1):
    y = [y0, y1]
    for k in range(1, len(u) - 1):
        y.append(y[k] * y[k - 1] * (y[k] + 2.5) / (1 + y[k] ** 2 + y[k - 1] ** 2) + u[k])
    return np.array(y)


@pytest.mark.parametrize("seed", range(3))
def test_narendra_parthasarathy_is_the_difference_equation(seed):
    rng = np.random.default_rng(seed)
    u = rng.uniform(-2, 2, size=(5, 300))
    initial = rng.uniform(-1, 1, size=(5, 2))
    y = narendra_parthasarathy(u, initial)
    assert y.shape == u.shape
    for r in range(5):
        np.testing.assert_allclose(y[r], narendra_loop(u[r], *initial[r]), rtol=1e-14, atol=1e-14)


def test_narendra_parthasarathy_defaults_and_one_trajectory():
    k = np.arange(500)
    u = np.sin(2 * np.pi * k / 25)  # the classic test input
    y = narendra_parthasarathy(u)
    assert y.shape == (500,) and y[0] == 0.0 and y[1] == 0.0
    np.testing.assert_array_equal(y, narendra_parthasarathy(u[None], [[0.0, 0.0]])[0])
    assert np.all(np.isfinite(y)) and np.abs(y).max() < 10  # bounded input, bounded output


@pytest.mark.parametrize(
    "args, match",
    [
        (([1.0],), "at least 2 steps"),
        ((np.zeros((2, 5)), np.zeros((3, 2))), "one row per trajectory"),
        ((np.zeros((2, 5)), np.zeros((2, 3))), "3 initial outputs"),
        ((np.full((1, 4), np.nan),), "Input u contains NaN"),
    ],
)
def test_narendra_parthasarathy_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        narendra_parthasarathy(*args)


# ----------------------------------------------------------------- Mackey-Glass


def mackey_glass_loop(x0, n_samples, tau=17.0, step=0.1, period=1.0, beta=0.2, gamma=0.1, n=10.0):
    """The classic generator: RK4, x(t - tau) from the stored grid held over the step, x = 0 before 0."""
    delay, sub = round(tau / step), round(period / step)
    grid = [x0]

    def rate(x, xd):
        return beta * xd / (1 + xd**n) - gamma * x

    while len(grid) < (n_samples - 1) * sub + 1:
        i = len(grid) - 1
        xd = grid[i - delay] if i >= delay else 0.0
        x = grid[i]
        k1 = step * rate(x, xd)
        k2 = step * rate(x + k1 / 2, xd)
        k3 = step * rate(x + k2 / 2, xd)
        k4 = step * rate(x + k3, xd)
        grid.append(x + (k1 + 2 * k2 + 2 * k3 + k4) / 6)
    return np.array(grid[::sub])


def test_mackey_glass_is_the_classic_generator():
    x = mackey_glass([1.2, 0.5], n_samples=400)
    assert x.shape == (2, 400)
    for r, x0 in enumerate([1.2, 0.5]):
        np.testing.assert_allclose(x[r], mackey_glass_loop(x0, 400), rtol=1e-12)
    np.testing.assert_allclose(
        mackey_glass(0.9, 60, tau=3.0, step=0.05, sampling_period=0.5),
        mackey_glass_loop(0.9, 60, tau=3.0, step=0.05, period=0.5),
        rtol=1e-12,
    )


def test_mackey_glass_equilibrium_and_chaotic_range():
    np.testing.assert_array_equal(mackey_glass([1.0], 50, history=1.0), np.ones((1, 50)))
    x = mackey_glass(1.2, n_samples=3000)[500:]  # after the transient
    # the tau = 17 attractor lives in about [0.2, 1.4] and never settles
    assert 0.15 < x.min() < 0.5 and 1.2 < x.max() < 1.45
    assert x[-500:].std() > 0.1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(tau=17.05), "'tau' parameter must be a positive whole multiple of step=0.1"),
        (dict(sampling_period=0.25), "'sampling_period' parameter"),
        (dict(step=-0.1), "'step' parameter"),
        (dict(n_samples=0), "'n_samples' parameter"),
    ],
)
def test_mackey_glass_bad_input(kwargs, match):
    arguments = dict(initial_values=1.2, n_samples=10) | kwargs
    with pytest.raises(ValueError, match=match):
        mackey_glass(**arguments)
