"""The analytic Jacobian against finite differences and closed forms; linearize's A, B, O."""

import numpy as np
import pytest

from randomts import RandomTSRegressor, RuleBase
from randomts.dynamics.linearization import LinearModel, jacobian, linearize
from randomts.dynamics.systems import van_der_pol


def random_rule_base(seed, *, n_rules=6, n_features=3, n_outputs=2, normalize=False, order=1):
    rng = np.random.default_rng(seed)
    centers = rng.normal(0.0, 1.0, size=(n_rules, n_features))
    sigmas = rng.uniform(0.4, 2.0, size=(n_rules, n_features))  # per-input widths, not isotropic
    coef = rng.normal(size=(n_rules, n_outputs, n_features)) if order else None
    intercept = rng.normal(size=(n_rules, n_outputs))
    return RuleBase(centers, sigmas, coef, intercept, normalize=normalize)


def central_differences(rule_base, X, h=1e-5):
    """d f / d x_k by the second-order central difference, column by column."""
    J = np.empty((X.shape[0], rule_base.n_outputs, X.shape[1]))
    for k in range(X.shape[1]):
        step = np.zeros(X.shape[1])
        step[k] = h
        J[:, :, k] = (rule_base.predict(X + step) - rule_base.predict(X - step)) / (2 * h)
    return J


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("order", [0, 1])
def test_jacobian_matches_central_differences(seed, normalize, order):
    rule_base = random_rule_base(seed, normalize=normalize, order=order)
    X = np.random.default_rng(100 + seed).normal(0.0, 1.5, size=(40, 3))
    analytic = jacobian(rule_base, X)
    numeric = central_differences(rule_base, X)
    # central differences: truncation ~ h^2 f''' ~ 1e-10, rounding ~ eps |f| / h ~ 1e-11
    scale = 1.0 + np.abs(analytic)
    assert np.max(np.abs(analytic - numeric) / scale) < 1e-7


@pytest.mark.parametrize("x", [-2.0, -0.3, 0.0, 0.7, 3.1])
def test_one_rule_closed_form(x):
    """f(x) = exp(-(x - c)^2 / (2 s^2)) (a x + b): f' = exp(...) (a - (x - c)(a x + b) / s^2)."""
    c, s, a, b = 0.4, 0.8, 1.7, -0.6
    rule_base = RuleBase(centers=[[c]], sigmas=[[s]], coef=[[[a]]], intercept=[[b]])
    g = np.exp(-((x - c) ** 2) / (2 * s * s))
    expected = g * (a - (x - c) * (a * x + b) / (s * s))
    np.testing.assert_allclose(jacobian(rule_base, [x])[0, 0], expected, rtol=1e-14, atol=1e-16)


def test_weighted_average_of_two_rules_closed_form():
    """v1 = w1 / (w1 + w2) with equal widths is a logistic in x: f = y2 + v1 (y1 - y2)."""
    rule_base = RuleBase(
        centers=[[-1.0], [1.0]],
        sigmas=[[1.0], [1.0]],
        coef=[[[2.0]], [[-1.0]]],
        intercept=[[0.5], [3.0]],
        normalize=True,
    )
    x = np.linspace(-3, 3, 13)
    v1 = 1.0 / (1.0 + np.exp(2.0 * x))  # log w1 - log w2 = -2 x
    y1, y2 = 2.0 * x + 0.5, -x + 3.0
    dv1 = -2.0 * v1 * (1.0 - v1)
    expected = dv1 * (y1 - y2) + v1 * 2.0 + (1.0 - v1) * (-1.0)
    np.testing.assert_allclose(
        jacobian(rule_base, x[:, None])[:, 0, 0], expected, rtol=1e-13, atol=1e-15
    )


def test_far_from_every_centre_weighted_average_tends_to_the_nearest_slopes():
    rule_base = RuleBase(
        centers=[[0.0, 0.0], [1e159, 1e159]],
        sigmas=[[0.1, 0.1], [0.1, 0.1]],
        coef=[[[1.0, 2.0]], [[3.0, 4.0]]],
        normalize=True,
    )
    # the squared scaled distances overflow: log w = -inf for every rule, the nearest takes all
    assert np.isneginf(rule_base.log_firing_strengths([[1e160, 1e160]])).all()
    J = jacobian(rule_base, [[1e160, 1e160], [50.0, 50.0]])
    np.testing.assert_array_equal(J, [[[3.0, 4.0]], [[1.0, 2.0]]])


def test_rule_base_method_and_estimator_delegate():
    X = np.random.default_rng(0).uniform(-1, 1, size=(80, 2))
    model = RandomTSRegressor(n_rules=10, random_state=0, structure="random").fit(
        X, np.sin(X[:, 0]) * X[:, 1]
    )
    points = X[:5]
    np.testing.assert_array_equal(model.rule_base_.jacobian(points), jacobian(model, points))
    assert jacobian(model, points[0]).shape == (1, 2)


@pytest.mark.parametrize("seed", range(4))
def test_linearize_offset_and_second_order_error(seed):
    rule_base = random_rule_base(seed)
    rng = np.random.default_rng(seed)
    s0, u0 = rng.normal(size=2), rng.normal(size=1)
    A, B, O = linearize(rule_base, s0, u0)  # noqa: E741
    assert A.shape == (2, 2) and B.shape == (2, 1) and O.shape == (2,)
    x0 = np.concatenate([s0, u0])
    f0 = rule_base.predict(x0[None])[0]
    np.testing.assert_allclose(A @ s0 + B @ u0 + O, f0, rtol=1e-13, atol=1e-13)
    direction = rng.normal(size=3)
    errors = []
    for r in (1e-2, 5e-3):
        x = x0 + r * direction
        errors.append(np.max(np.abs(A @ x[:2] + B @ x[2:] + O - rule_base.predict(x[None])[0])))
    # a first-order model: halving the distance quarters the error
    assert 3.5 < errors[0] / errors[1] < 4.5


def test_linearize_many_points_and_autonomous_model():
    rule_base = random_rule_base(3, n_features=2)
    states = np.random.default_rng(3).normal(size=(7, 2))
    model = linearize(rule_base, states)
    assert isinstance(model, LinearModel)
    assert model.A.shape == (7, 2, 2) and model.B.shape == (7, 2, 0) and model.O.shape == (7, 2)
    for j in range(7):
        single = linearize(rule_base, states[j])
        np.testing.assert_allclose(model.A[j], single.A, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(model.O[j], single.O, rtol=1e-12, atol=1e-15)


def test_identified_van_der_pol_model_linearises_to_the_euler_map():
    """Near the origin the fitted SLM's A is the Jacobian of the Euler map, [[1, dt], [-dt, 1 + dt]]."""
    dt = 0.01
    rng = np.random.default_rng(7)
    states = van_der_pol(rng.uniform(-2, 2, size=(10, 2)), 1000, step=dt)
    X, Y = states[:, :-1].reshape(-1, 2), states[:, 1:].reshape(-1, 2)
    model = RandomTSRegressor.paper(n_rules=100, random_state=7).fit(X, Y)
    A, B, O = linearize(model, np.zeros(2))  # noqa: E741
    exact = np.array([[1.0, dt], [-dt, 1.0 + dt]])
    # the fit is exact to ~1e-13 on the data; derivatives are good to ~1e-6 near it
    np.testing.assert_allclose(A, exact, atol=1e-5)
    np.testing.assert_allclose(O, 0.0, atol=1e-6)
    assert B.shape == (2, 0)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda rb: jacobian(rb, [[0.0, 1.0]]),
            ValueError,
            "X has 2 features, but this rule base is expecting 3",
        ),
        (
            lambda rb: jacobian("model", [[0.0]]),
            TypeError,
            "jacobian needs a RuleBase or a fitted randomts estimator; got str",
        ),
        (
            lambda rb: linearize(rb, [0.0, 1.0]),
            ValueError,
            "must together make the model's 3 inputs",
        ),
        (lambda rb: linearize(rb, [[0.0, 1.0]], [0.0]), ValueError, "both be 1-D"),
        (
            lambda rb: linearize(rb, [[0.0, 1.0]], [[0.0], [1.0]]),
            ValueError,
            "same number of points",
        ),
        (lambda rb: linearize(rb, [np.nan, 0.0], [0.0]), ValueError, "Input state contains NaN"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call(random_rule_base(0))
