"""NARX regressors, one-step prediction and free-run simulation of records."""

import warnings

import numpy as np
import pytest

from randomts import (
    DivergenceWarning,
    ExtrapolationWarning,
    RandomTSRegressor,
    RandomTSWarning,
    RuleBase,
)
from randomts.dynamics.narx import NARX
from randomts.dynamics.systems import narendra_parthasarathy, van_der_pol


class NarendraPlant:
    """The true plant as a 'model' of the regressors [y(k-1), y(k-2), u(k-1)]."""

    def predict(self, X):
        y1, y2, u1 = X.T
        return y1 * y2 * (y1 + 2.5) / (1 + y1**2 + y2**2) + u1


class EulerVanDerPol:
    """The true Euler map as a 'model' of the regressors [x1(k-1), x2(k-1)]."""

    def predict(self, X):
        x1, x2 = X.T
        return np.column_stack([x1 + 0.01 * x2, x2 + 0.01 * ((1 - x1 * x1) * x2 - x1)])


def test_regressors_match_a_loop_over_records_and_times():
    rng = np.random.default_rng(0)
    y = rng.normal(size=(3, 12, 2))
    u = rng.normal(size=(3, 12, 1))
    narx = NARX(y_lags=2, u_lags=(0, 3), output_names=["a", "b"], input_names="v")
    X, Y = narx.regressors(u, y)  # stacks of 3 records
    rows, targets = [], []
    for r in range(3):
        for k in range(3, 12):
            rows.append(
                [
                    y[r, k - 1, 0],
                    y[r, k - 2, 0],
                    y[r, k - 1, 1],
                    y[r, k - 2, 1],
                    u[r, k, 0],
                    u[r, k - 3, 0],
                ]
            )
            targets.append(y[r, k])
    np.testing.assert_array_equal(X, rows)
    np.testing.assert_array_equal(Y, targets)
    assert narx.regressor_names == ("a(k-1)", "a(k-2)", "b(k-1)", "b(k-2)", "v(k)", "v(k-3)")
    assert narx.target_names == ("a(k)", "b(k)") and narx.max_lag == 3


def test_no_row_mixes_two_records():
    """Record r holds values 1000 r + k: every regressor of a row comes from its target's record."""
    k = np.arange(20.0)
    y = 1000.0 * np.arange(4)[:, None] + k  # 4 records of 20 steps, one output
    u = -y
    X, Y = NARX(y_lags=3, u_lags=2).regressors(list(u), list(y))
    np.testing.assert_array_equal(
        X, NARX(y_lags=3, u_lags=2).regressors(u[..., None], y[..., None])[0]
    )
    assert X.shape == (4 * 17, 5)
    trajectory = np.floor(Y[:, 0] / 1000)
    np.testing.assert_array_equal(
        np.floor(X[:, :3] / 1000), np.repeat(trajectory[:, None], 3, axis=1)
    )
    np.testing.assert_array_equal(
        np.floor(-X[:, 3:] / 1000), np.repeat(trajectory[:, None], 2, axis=1)
    )
    np.testing.assert_array_equal(Y[:, 0] - X[:, 0], 1.0)  # y(k) - y(k-1)


def test_simulating_the_true_plant_reproduces_it():
    rng = np.random.default_rng(1)
    u = rng.uniform(-2, 2, size=(6, 400))
    y = narendra_parthasarathy(u, rng.uniform(-1, 1, size=(6, 2)))
    narx = NARX(y_lags=2, u_lags=1)
    u, y = u[..., None], y[..., None]  # stacks of 6 records
    simulated = narx.simulate(NarendraPlant(), u, y[:, :2])
    assert simulated.shape == y.shape
    np.testing.assert_allclose(simulated, y, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(
        narx.predict_one_step(NarendraPlant(), u, y), y[:, 2:], rtol=1e-13, atol=1e-13
    )


def test_simulating_the_true_euler_map_reproduces_van_der_pol():
    states = van_der_pol(np.random.default_rng(2).uniform(-2, 2, size=(5, 2)), 300)
    narx = NARX(y_lags=1, output_names=("x1", "x2"))
    simulated = narx.simulate(EulerVanDerPol(), y_init=states[:, :1], n_steps=300)
    np.testing.assert_allclose(simulated, states, rtol=1e-13, atol=1e-13)


def test_simulate_with_a_rule_base_is_the_step_by_step_loop():
    rng = np.random.default_rng(3)
    rb = RuleBase(
        rng.normal(size=(5, 3)),
        np.full((5, 3), 2.0),
        0.3 * rng.normal(size=(5, 1, 3)),
        0.1 * rng.normal(size=(5, 1)),
    )
    narx = NARX(y_lags=2, u_lags=1)
    u = rng.normal(size=(4, 30))
    initial = rng.normal(size=(4, 2))
    simulated = narx.simulate(rb, list(u), list(initial))  # 4 records
    for r in range(4):
        y = list(initial[r])
        for k in range(2, 30):
            y.append(rb.predict([[y[k - 1], y[k - 2], u[r, k - 1]]])[0, 0])
        np.testing.assert_allclose(simulated[r], y, rtol=1e-15, atol=1e-15)


def test_diverging_trajectories_become_nan_and_the_others_go_on():
    class Doubling:
        def predict(self, X):
            with np.errstate(over="ignore"):
                return 1e200 * X

    narx = NARX(y_lags=1)
    with pytest.warns(DivergenceWarning, match=r"^The free run of record 0 diverged at step 2"):
        out = narx.simulate(Doubling(), y_init=[np.ones(1), np.zeros(1)], n_steps=4)
    assert out[0].diverged and out[0].divergence_step == 2 and not out[1].diverged
    assert np.isnan(out[0][2:]).all() and out[0][1] == 1e200  # exact: 1e200 * 1.0
    np.testing.assert_array_equal(out[1], 0.0)


def _fitted_on_a_stable_system():
    """y(k) = 0.8 y(k-1) + u(k-1) identified on inputs in [-1, 1]: outputs within about [-5, 5]."""
    rng = np.random.default_rng(0)
    u = rng.uniform(-1, 1, size=(4, 300))
    y = np.zeros_like(u)
    for k in range(1, u.shape[1]):
        y[:, k] = 0.8 * y[:, k - 1] + u[:, k - 1]
    u, y = u[..., None], y[..., None]  # stacks of 4 records
    narx = NARX(y_lags=1, u_lags=1)
    X, Y = narx.regressors(u, y)
    model = RandomTSRegressor(n_rules=20, random_state=0, structure="random").fit(X, Y)
    return narx, model, y, u


def test_a_free_run_inside_the_data_does_not_warn():
    narx, model, y, u = _fitted_on_a_stable_system()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RandomTSWarning)
        narx.simulate(model, u, y[:, :1])


@pytest.mark.parametrize("step", [5, 40])
def test_a_free_run_that_leaves_the_data_names_the_step(step):
    narx, model, y, u = _fitted_on_a_stable_system()
    u_test = np.zeros((2, 60, 1))
    u_test[1, step - 1 :] = 6.0  # a step input far past [-1, 1], from u(k-1) at step k
    with pytest.warns(ExtrapolationWarning) as caught:
        narx.simulate(model, u_test, np.zeros((2, 1, 1)))
    message = str(caught[0].message)
    assert message.startswith(
        f"The free run of record 1 leaves the training data at step {step}: u(k-1) lies beyond "
        "its training range"
    )
    runs = narx.free_run(model, u_test, np.zeros((2, 1, 1)))
    assert runs[0].left_data_step is None and runs[1].left_data_step == step


@pytest.mark.parametrize("seed", range(3))
def test_identify_the_narendra_plant_with_an_slm(seed):
    """Fit on random-input trajectories; simulate the classic sine test input."""
    rng = np.random.default_rng(4)
    u_train = rng.uniform(-2, 2, size=(6, 400))
    y_train = narendra_parthasarathy(u_train)
    narx = NARX(y_lags=2, u_lags=1)
    model = RandomTSRegressor.paper(n_rules=60, random_state=seed).fit(
        *narx.regressors(list(u_train), list(y_train))
    )
    k = np.arange(500)
    u_test = np.sin(2 * np.pi * k / 25)
    y_test = narendra_parthasarathy(u_test)
    one_step = narx.predict_one_step(model, u_test, y_test)
    simulated = narx.simulate(model, u_test, y_test[:2])
    variance = y_test.var()
    # measured, seeds 0-3: one-step NMSE 4e-5 to 9e-5, free-run NMSE 6e-5 to 2.3e-4
    assert np.mean((one_step - y_test[2:]) ** 2) / variance < 1e-3
    assert np.mean((simulated - y_test) ** 2) / variance < 1e-2
    rules = narx.name_rules(model).to_text(precision=3)
    assert "IF y(k-1) is about " in rules and "AND u(k-1) is about " in rules
    assert "THEN y(k) = " in rules and "·(y(k-1) " in rules  # centred at the rule's y(k-1)


def test_estimator_and_its_rule_base_give_the_same_simulation():
    states = van_der_pol(np.random.default_rng(5).uniform(-2, 2, size=(4, 2)), 200)
    narx = NARX(y_lags=1, output_names=("x1", "x2"))
    model = RandomTSRegressor(n_rules=20, random_state=0, structure="random").fit(
        *narx.regressors(y=states)
    )
    np.testing.assert_array_equal(
        narx.simulate(model, y_init=states[:, :1], n_steps=200),
        narx.simulate(model.rule_base_, y_init=states[:, :1], n_steps=200),
    )


def test_linearize_splits_state_and_input_columns():
    # y(k) = 0.5 y(k-1) - 0.2 y(k-2) + 3 u(k-1), a linear system: A, B exact everywhere
    rb = RuleBase(centers=[[0.0, 0.0, 0.0]], sigmas=[[1e9] * 3], coef=[[[0.5, -0.2, 3.0]]])
    A, B, O = NARX(y_lags=2, u_lags=1).linearize(rb, [0.3, -0.1, 0.2])  # noqa: E741
    np.testing.assert_allclose(A, [[0.5, -0.2]], atol=1e-12)
    np.testing.assert_allclose(B, [[3.0]], atol=1e-12)
    np.testing.assert_allclose(O, [0.0], atol=1e-12)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: NARX(y_lags=0, u_lags=0), ValueError, "needs at least one lag"),
        (
            lambda: NARX(y_lags=-1),
            ValueError,
            "'y_lags' parameter of NARX must be an int in the range",
        ),
        (lambda: NARX(y_lags=(0, 1)), ValueError, "distinct ints >= 1"),
        (lambda: NARX(y_lags="2"), TypeError, "'y_lags' parameter of NARX"),
        (lambda: NARX(output_names=["y", "y"]), ValueError, "distinct names"),
        (lambda: NARX(y_lags=2).regressors(y=[1.0, 2.0]), ValueError, "needs at least 3"),
        (
            lambda: NARX(output_names=("a", "b")).regressors(y=np.zeros((5, 3))),
            ValueError,
            r"y has 3 outputs \(time on axis 0: \(n_steps, n_outputs\)\), but this NARX "
            "structure is expecting 2",
        ),
        (lambda: NARX().regressors(np.zeros(5), np.zeros(5)), ValueError, "no input lags"),
        # the outputs alone, given where the inputs go: the order is (u, y)
        (lambda: NARX().regressors(np.zeros(5)), ValueError, r"taken as \(u, y\)"),
        (lambda: NARX(u_lags=1).regressors(y=np.zeros(5)), ValueError, "u is required"),
        (
            lambda: NARX(u_lags=1).regressors(np.zeros(4), np.zeros(5)),
            ValueError,
            "u and y must have the same number of steps",
        ),
        (
            lambda: NARX().simulate(RuleBase([[0.0]], [[1.0]]), y_init=[1.0]),
            ValueError,
            "n_steps is required",
        ),
        (
            lambda: NARX().simulate(object(), y_init=[1.0], n_steps=2),
            TypeError,
            "have a predict method",
        ),
        (
            lambda: NARX().simulate(
                RuleBase([[0.0]], [[1.0]], n_outputs=2), y_init=[1.0], n_steps=2
            ),
            ValueError,
            "The model has 2 outputs, but this NARX structure has 1",
        ),
        (
            lambda: NARX(y_lags=3).simulate(
                RuleBase([[0.0] * 3], [[1.0] * 3]), y_init=[1.0, 2.0], n_steps=2
            ),
            ValueError,
            r"y_init has 2 steps, but this NARX structure needs at least 3 \(its largest lag, max_lag\)",
        ),
        (
            lambda: NARX().regressors(y=[1.0, np.inf]),
            ValueError,
            "Input y contains NaN or infinity",
        ),
        (
            lambda: NARX(target="delta"),
            ValueError,
            r"The 'target' parameter of NARX must be a str among \{'output', 'increment'\}. Got 'delta'",
        ),
        (
            lambda: NARX(y_lags=(2, 3), target="increment"),
            ValueError,
            r"so y_lags must include 1; got y_lags=\(2, 3\)",
        ),
    ],
)
def test_bad_input(make, error, match):
    with pytest.raises(error, match=match):
        make()


class EulerVanDerPolIncrement:
    """The true Euler increment x(k) - x(k-1) as a 'model' of the regressors [x1(k-1), x2(k-1)]."""

    def predict(self, X):
        x1, x2 = X.T
        return 0.01 * np.column_stack([x2, (1 - x1 * x1) * x2 - x1])


def test_increment_targets_are_the_output_targets_minus_the_previous_outputs():
    rng = np.random.default_rng(6)
    y, u = rng.normal(size=(3, 15, 2)), rng.normal(size=(3, 15, 1))
    outputs = NARX(y_lags=(1, 3), u_lags=2, output_names=("a", "b"))
    increments = NARX(y_lags=(1, 3), u_lags=2, output_names=("a", "b"), target="increment")
    X, Y = outputs.regressors(u, y)
    X_increment, Y_increment = increments.regressors(u, y)
    np.testing.assert_array_equal(X_increment, X)
    np.testing.assert_array_equal(Y_increment, Y - y[:, 2:-1].reshape(-1, 2))  # y(k) - y(k-1)
    np.testing.assert_array_equal(Y_increment, Y - X[:, [0, 2]])  # the a(k-1), b(k-1) columns
    assert increments.target_names == ("a(k)-a(k-1)", "b(k)-b(k-1)")
    assert "target='increment'" in repr(increments)


def test_increment_model_predicts_and_simulates_outputs():
    states = van_der_pol(np.random.default_rng(7).uniform(-2, 2, size=(5, 2)), 300)
    increments = NARX(y_lags=1, output_names=("x1", "x2"), target="increment")
    simulated = increments.simulate(EulerVanDerPolIncrement(), y_init=states[:, :1], n_steps=300)
    np.testing.assert_allclose(simulated, states, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(
        increments.predict_one_step(EulerVanDerPolIncrement(), y=states),
        states[:, 1:],
        rtol=1e-13,
        atol=1e-13,
    )


def test_increment_model_fitted_by_a_rule_base_simulates_as_the_step_by_step_loop():
    states = van_der_pol(np.random.default_rng(8).uniform(-2, 2, size=(4, 2)), 200)
    narx = NARX(y_lags=1, output_names=("x1", "x2"), target="increment")
    rb = RuleBase.random(n_features=2, n_outputs=2, n_rules=30, random_state=0)
    rb = narx.name_rules(rb.fit_consequents(*narx.regressors(y=states)))
    assert "\n    x1(k)-x1(k-1) = " in rb.to_text(precision=3)
    x, expected = states[:, 0], [states[:, 0]]
    for _ in range(200):
        x = x + rb.predict(x)
        expected.append(x)
    np.testing.assert_array_equal(
        narx.simulate(rb, y_init=states[:, :1], n_steps=200), np.stack(expected, axis=1)
    )


def test_linearize_an_increment_model_adds_the_identity_on_the_previous_outputs():
    # increments y(k) - y(k-1) = M [a(k-1), a(k-2), b(k-1), b(k-2), u(k-1)] + c, exactly linear
    M = np.array([[0.1, -0.2, 0.3, 0.0, 1.5], [0.0, 0.4, -0.1, 0.2, -2.0]])
    c = np.array([0.5, -0.25])
    rb = RuleBase(
        centers=np.zeros((1, 5)), sigmas=np.full((1, 5), 1e9), coef=M[None], intercept=c[None]
    )
    narx = NARX(y_lags=2, u_lags=1, output_names=("a", "b"), target="increment")
    A, B, O = narx.linearize(rb, [0.3, -0.1, 0.2, 0.7, -0.4])  # noqa: E741
    expected_A = M[:, :4] + np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0]])
    np.testing.assert_allclose(A, expected_A, atol=1e-12)
    np.testing.assert_allclose(B, M[:, 4:], atol=1e-12)
    np.testing.assert_allclose(O, c, atol=1e-12)
    A_many, _, _ = narx.linearize(rb, np.zeros((3, 5)))  # many points: the same on each
    np.testing.assert_allclose(A_many, np.broadcast_to(expected_A, (3, 2, 4)), atol=1e-12)


def test_a_fallback_takes_over_a_run_far_beyond_the_training_ranges():
    """Increments 0 (the model) and 1 (the fallback); y(k-1) trained within [0, 10]."""
    holds = RuleBase(centers=[[5.0]], sigmas=[[1e9]], normalize=True)  # f = 0
    climbs = RuleBase(centers=[[5.0]], sigmas=[[1e9]], intercept=[[1.0]], normalize=True)
    falls = RuleBase(centers=[[5.0]], sigmas=[[1e9]], intercept=[[-1.0]], normalize=True)
    narx = NARX(y_lags=1, target="increment")
    ranges = (np.array([0.0]), np.array([10.0]))
    inside = narx.free_run(climbs, y_init=[8.0], n_steps=20, ranges=ranges, fallback=holds)[0]
    # the model climbs 1 a step; at y(k-1) = 15, half a span past 10, the fallback holds
    np.testing.assert_array_equal(inside[:, 0], [8.0 + min(k, 7) for k in range(21)])
    near = narx.free_run(holds, y_init=[14.0], n_steps=5, ranges=ranges, fallback=falls)[0]
    np.testing.assert_array_equal(near[:, 0], 14.0)  # 0.4 of a span past: the model's
    # once switched, the run stays with the fallback, back inside the data too
    back = narx.free_run(holds, y_init=[16.0], n_steps=10, ranges=ranges, fallback=falls)[0]
    np.testing.assert_array_equal(back[:, 0], 16.0 - np.arange(11))
    with pytest.raises(ValueError, match="give ranges"):
        narx.free_run(holds, y_init=[8.0], n_steps=2, fallback=climbs)


@pytest.mark.parametrize("products", [False, True])
@pytest.mark.parametrize("target", ["output", "increment"])
def test_the_linearisation_of_a_structure_with_powers_is_the_derivative_of_its_step(
    target, products
):
    """Powers of the lags folded into A by the chain rule: A s + B v + O is the step's tangent."""
    narx = NARX(y_lags=2, u_lags=1, target=target, powers=(2, 3), products=products)
    rng = np.random.default_rng(0)
    n_features = len(narx.regressor_names)
    rules = RuleBase(
        rng.normal(size=(3, n_features)),
        rng.uniform(1.0, 3.0, size=(3, n_features)),
        0.3 * rng.normal(size=(3, 1, n_features)),
        rng.normal(size=(3, 1)),
    )
    lagged = np.array([0.4, -0.3, 0.2])  # y(k-1), y(k-2), u(k-1)

    def monomials(state):  # written out: the columns the names say
        a, b = state
        if products:
            return [a * a, a * b, b * b, a**3, a * a * b, a * b * b, b**3]
        return [a * a, b * b, a**3, b**3]

    assert narx.regressor_names[3:] == (
        ("y(k-1)^2", "y(k-1)*y(k-2)", "y(k-2)^2", "y(k-1)^3", "y(k-1)^2*y(k-2)")
        + ("y(k-1)*y(k-2)^2", "y(k-2)^3")
        if products
        else ("y(k-1)^2", "y(k-2)^2", "y(k-1)^3", "y(k-2)^3")
    )

    def step(point):  # y(k) from the lagged values, powers computed
        row = np.concatenate([point, monomials(point[:2])])[None]
        return narx.predictor(rules)(row)[0]

    A, B, offset = narx.linearize(rules, lagged)
    h = 1e-6
    numeric = np.column_stack(
        [(step(lagged + h * e) - step(lagged - h * e)) / (2 * h) for e in np.eye(3)]
    )
    # central differences: truncation h^2 and rounding eps / h, far below 1e-7 here
    np.testing.assert_allclose(np.hstack([A, B]), numeric, atol=1e-7)
    np.testing.assert_allclose(A @ lagged[:2] + B @ lagged[2:] + offset, step(lagged), atol=1e-12)
    # a whole regressor row gives the same; one whose powers are not its lags' is refused
    whole = np.concatenate([lagged, monomials(lagged[:2])])
    np.testing.assert_allclose(
        narx.regressors(u=[0.0, 0.2, 0.0], y=[-0.3, 0.4, 0.0])[0][0], whole, rtol=1e-15
    )
    np.testing.assert_allclose(narx.linearize(rules, whole).A, A, atol=1e-14)
    whole[-1] += 1.0
    with pytest.raises(ValueError, match="must be the powers of its lagged outputs"):
        narx.linearize(rules, whole)


def test_powers_need_output_lags_and_integers_of_at_least_two():
    with pytest.raises(ValueError, match="without output lags"):
        NARX(y_lags=0, u_lags=2, powers=(2,))
    with pytest.raises(ValueError, match="distinct ints >= 2"):
        NARX(y_lags=1, powers=(1, 2))
    with pytest.raises(TypeError, match="distinct ints >= 2"):
        NARX(y_lags=1, powers=2)
    assert "powers=(2, 3)" in repr(NARX(y_lags=1, powers=(3, 2)))
    with pytest.raises(ValueError, match="products=True without powers"):
        NARX(y_lags=1, products=True)
    with pytest.raises(TypeError, match="'products' parameter of NARX must be True or False"):
        NARX(y_lags=1, powers=(2,), products="yes")
    assert "products=True" in repr(NARX(y_lags=1, powers=(2,), products=True))
