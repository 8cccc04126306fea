"""Ridge alpha by closed-form LOO/GCV from one eigendecomposition; n_rules by validation error."""

import numpy as np
import pytest
from sklearn.linear_model import RidgeCV

from randomts import RuleBase
from randomts.fitting.model_selection import select_alpha, select_n_rules
from randomts.fitting.ridge import (
    LeaveOneOutRidge,
    choose_alpha,
    choose_consequent_alpha,
)

ALPHAS = np.logspace(-6, 2, 9)


def problem(seed, n=60, p=12, m=2):
    rng = np.random.default_rng(seed)
    K = rng.normal(size=(n, p)) * rng.uniform(0.01, 3.0, size=p)
    Y = K @ rng.normal(size=(p, m)) + 0.3 * rng.normal(size=(n, m))
    return K, Y


def brute_force_loo(K, Y, alpha):
    """Leave each row out, refit the ridge, predict it: the definition."""
    errors = []
    for j in range(K.shape[0]):
        keep = np.arange(K.shape[0]) != j
        A = K[keep]
        gamma = np.linalg.solve(A.T @ A + alpha * np.eye(K.shape[1]), A.T @ Y[keep])
        errors.append((Y[j] - K[j] @ gamma) ** 2)
    return np.mean(errors)


def explicit_gcv(K, Y, alpha):
    H = K @ np.linalg.solve(K.T @ K + alpha * np.eye(K.shape[1]), K.T)
    residual = Y - H @ Y
    return np.mean(residual**2) / (1 - np.trace(H) / K.shape[0]) ** 2


@pytest.mark.parametrize("seed", range(4))
def test_loo_curve_equals_leaving_each_row_out(seed):
    K, Y = problem(seed)
    selection = choose_alpha(K, Y, ALPHAS, criterion="loo", toward_mean=False)
    expected = [brute_force_loo(K, Y, alpha) for alpha in ALPHAS]
    np.testing.assert_allclose(selection.errors, expected, rtol=1e-8)
    assert selection.alpha == pytest.approx(ALPHAS[np.argmin(expected)], rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_loo_curve_equals_scikit_learns_efficient_loo(seed):
    K, Y = problem(seed, n=80, p=20, m=1)
    ridge = RidgeCV(alphas=ALPHAS, fit_intercept=False, store_cv_results=True, gcv_mode="svd")
    ridge.fit(K, Y[:, 0])
    sklearn_curve = ridge.cv_results_.mean(axis=0)  # squared LOO errors, (n_samples, n_alphas)
    selection = choose_alpha(K, Y[:, 0], ALPHAS, toward_mean=False)
    np.testing.assert_allclose(selection.errors, sklearn_curve, rtol=1e-7)
    assert selection.alpha == pytest.approx(ridge.alpha_, rel=1e-12)  # both pick from the grid
    np.testing.assert_allclose(selection.coefficients[:, 0], ridge.coef_, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_gcv_curve_equals_the_explicit_hat_matrix(seed):
    K, Y = problem(seed)
    selection = choose_alpha(K, Y, ALPHAS, criterion="gcv", toward_mean=False)
    np.testing.assert_allclose(selection.errors, [explicit_gcv(K, Y, a) for a in ALPHAS], rtol=1e-8)
    best = selection.alpha
    expected = np.linalg.solve(K.T @ K + best * np.eye(K.shape[1]), K.T @ Y)
    np.testing.assert_allclose(selection.coefficients, expected, rtol=1e-8, atol=1e-12)


def test_select_alpha_on_a_rule_base_returns_the_fit_at_the_chosen_alpha():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(300, 2))
    y = np.sin(2 * X[:, 0]) * X[:, 1] + 0.1 * rng.normal(size=300)
    antecedents = RuleBase.random(n_features=2, n_rules=40, random_state=0)
    selection, rb = select_alpha(antecedents, X, y, ALPHAS)
    refit = antecedents.fit_consequents(X, y, solver="lstsq", alpha=selection.alpha)
    np.testing.assert_allclose(rb.predict(X), refit.predict(X), rtol=1e-7, atol=1e-9)
    # noisy targets, 120 parameters on 300 rows: the smallest penalty is not the LOO optimum
    assert selection.alpha > ALPHAS[0]
    assert selection.errors.min() < selection.errors[0]


@pytest.mark.parametrize("solver, alpha", [("lstsq", 0.0), ("pinv", 0.0), ("cholesky", 1e-4)])
def test_select_n_rules_from_one_factor_equals_refitting_each_subset(solver, alpha):
    rng = np.random.default_rng(1)
    X = rng.uniform(-2, 2, size=(500, 2))
    y = np.sin(2 * X[:, 0]) * np.cos(X[:, 1]) + 0.05 * rng.normal(size=500)
    antecedents = RuleBase.random(n_features=2, n_rules=60, random_state=1)
    # up to 40 rules (120 columns, 350 rows); at 60 rules K is numerically rank-deficient and the
    # validation errors of two minimum-norm solutions differ by 7.6e-4 relative (measured)
    grid = [1, 5, 20, 40]
    sel = select_n_rules(
        antecedents, X[:350], y[:350], X[350:], y[350:], grid, solver=solver, alpha=alpha
    )
    expected = []
    for h in grid:
        rb = antecedents.subset(np.arange(h)).fit_consequents(
            X[:350], y[:350], solver=solver, alpha=alpha
        )
        expected.append(np.mean((rb.predict(X[350:])[:, 0] - y[350:]) ** 2))
    np.testing.assert_allclose(sel.validation_mse, expected, rtol=1e-6)
    assert sel.n_rules == grid[int(np.argmin(expected))]
    assert len(sel.rule_base) == sel.n_rules
    assert sel.training_mse[0] > sel.training_mse[-1]


def test_select_n_rules_with_the_weighted_average_refits_each_subset():
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, size=(300, 2))
    y = np.tanh(X[:, 0] * X[:, 1])
    antecedents = RuleBase.random(n_features=2, n_rules=30, normalize=True, random_state=2)
    sel = select_n_rules(antecedents, X[:200], y[:200], X[200:], y[200:], [3, 30])
    rb = antecedents.subset(np.arange(3)).fit_consequents(X[:200], y[:200])
    np.testing.assert_allclose(
        sel.validation_mse[0], np.mean((rb.predict(X[200:])[:, 0] - y[200:]) ** 2), rtol=1e-10
    )


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda K, Y: choose_alpha(K, Y, [0.0, 1.0]),
            ValueError,
            "alphas must be a non-empty 1-D grid of finite values > 0",
        ),
        (
            lambda K, Y: choose_alpha(K, Y, criterion="kfold"),
            ValueError,
            "The 'criterion' parameter must be a str among",
        ),
        (lambda K, Y: choose_alpha(K, Y[:5]), ValueError, "same number of rows"),
        (lambda K, Y: select_alpha("rules", K, Y), TypeError, "antecedents must be a RuleBase"),
    ],
)
def test_alpha_selection_errors(call, error, message):
    K, Y = problem(0)
    with pytest.raises(error, match=message):
        call(K, Y)


def test_n_rules_selection_errors():
    antecedents = RuleBase.random(n_features=2, n_rules=5, random_state=0)
    X, y = np.zeros((10, 2)), np.zeros(10)
    with pytest.raises(
        ValueError, match=r"n_rules must be a non-empty sequence of ints in \[1, 5\]"
    ):
        select_n_rules(antecedents, X, y, X, y, [0, 3])
    with pytest.raises(
        ValueError, match=r"n_rules must be a non-empty sequence of ints in \[1, 5\]"
    ):
        select_n_rules(antecedents, X, y, X, y, [6])
    with pytest.raises(ValueError, match="X_val has 3 features, but this rule base is expecting 2"):
        select_n_rules(antecedents, X, y, np.zeros((4, 3)), np.zeros(4))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("toward_mean", [False, True])
def test_leave_one_out_ridge_in_blocks_equals_it_in_memory(seed, toward_mean):
    """Two passes over uneven blocks, one accumulation merged from two: choose_alpha's numbers."""
    rng = np.random.default_rng(seed)
    K = rng.normal(size=(700, 15)) * rng.uniform(0.1, 3.0, size=15)
    Y = 2.0 + K @ rng.normal(size=(15, 2)) + 0.2 * rng.normal(size=(700, 2))
    blocks = np.array_split(np.arange(700), [90, 400, 420])
    halves = [LeaveOneOutRidge(15, 2, toward_mean=toward_mean) for _ in range(2)]
    for i, rows in enumerate(blocks):
        halves[i % 2].update(K[rows], Y[rows])
    loo = halves[0].merge(halves[1])
    assert loo.n_samples == 700
    squared = sum(loo.squared_errors(K[rows], Y[rows]) for rows in blocks)
    selection = loo.select(squared)
    whole = choose_alpha(K, Y, toward_mean=toward_mean)
    np.testing.assert_allclose(selection.alphas, whole.alphas, rtol=1e-12)
    np.testing.assert_allclose(selection.errors, whole.errors, rtol=1e-9)
    # the same grid point, whose value (the grid times the spectrum's mean) is computed in both
    assert np.argmin(selection.errors) == np.argmin(whole.errors)
    assert selection.alpha == pytest.approx(whole.alpha, rel=1e-12)
    np.testing.assert_allclose(selection.coefficients, whole.coefficients, rtol=1e-9, atol=1e-12)


def test_the_chosen_ridge_is_the_engines_ridge_fit_at_that_alpha():
    """The coefficients of the LOO choice are the fitting engine's ridge solution there."""
    rng = np.random.default_rng(4)
    X = rng.uniform(-2, 2, size=(500, 2))
    y = np.sin(2 * X[:, 0]) * X[:, 1] + 0.5 * rng.normal(size=500)
    antecedents = RuleBase.random(2, n_rules=30, random_state=0, width_range=(0, 0.5))
    K = antecedents.design_matrix(X, order=1)
    # a grid of penalties that keep K^T K + alpha I well conditioned (cond < 1e6), so that
    # every solver's rounding stays below the tolerance
    alphas = np.trace(K.T @ K) / K.shape[1] * np.logspace(-5, 0, 6)
    selection = choose_alpha(K, y, alphas, toward_mean=False)
    assert selection.alpha > alphas[0]  # an interior choice
    for solver in ("cholesky", "lstsq", "pinv"):
        fitted = antecedents.fit_consequents(X, y, solver=solver, alpha=selection.alpha)
        np.testing.assert_allclose(
            K @ selection.coefficients[:, 0], fitted.predict(X)[:, 0], rtol=1e-8, atol=1e-8
        )


@pytest.mark.parametrize("n_samples", [400, 40])  # 40 rows < 60 unknowns: the row space
@pytest.mark.parametrize("normalize", [False, True])
def test_choose_consequent_alpha_is_choose_alpha_of_the_design_matrix(n_samples, normalize):
    """K written block by block into the Gram matrix, or formed whole: the same arithmetic."""
    rng = np.random.default_rng(5)
    X = rng.uniform(-2, 2, size=(n_samples, 2))
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] ** 2]) + 0.1 * rng.normal(size=(n_samples, 2))
    antecedents = RuleBase.random(2, n_rules=20, normalize=normalize, random_state=5)
    selection = choose_consequent_alpha(antecedents, X, Y)
    whole = choose_alpha(antecedents.design_matrix(X), Y)
    assert abs(selection.alpha - whole.alpha) <= np.spacing(whole.alpha)
    for got, expected in [
        (selection.errors, whole.errors),
        (selection.coefficients, whole.coefficients),
        (selection.prior, whole.prior),
    ]:
        assert np.abs(got - expected).max() <= np.spacing(np.abs(expected).max())
    # the prior reproduces each output's mean (the targets' constant part)
    K = antecedents.design_matrix(X)
    assert np.abs((K @ selection.prior).mean(axis=0) - Y.mean(axis=0)).max() < 1e-3


def test_fitting_takes_any_object_with_a_rule_bases_attributes():
    """The fitting functions check attributes, not a class, and build through ``replace``."""

    class Wrapped:  # a rule base seen through another object
        def __init__(self, rule_base):
            self.rule_base = rule_base

        def __getattr__(self, name):
            return getattr(self.rule_base, name)

    X = np.random.default_rng(0).uniform(-1, 1, size=(100, 2))
    rules = RuleBase(centers=[[0.0, 0.0], [1.0, 1.0]], sigmas=[[1.0, 1.0]] * 2)
    selection, fitted = select_alpha(Wrapped(rules), X, X[:, 0])
    assert isinstance(fitted, RuleBase) and fitted.n_rules == 2
    assert not np.any(selection.prior)  # shrunk toward zero
    with pytest.raises(TypeError, match=r"antecedents must be a RuleBase; got dict\."):
        choose_consequent_alpha({"centers": 0}, X, X[:, 0])


def test_leave_one_out_ridge_errors():
    loo = LeaveOneOutRidge(3)
    with pytest.raises(ValueError, match="No rows have been folded in"):
        loo.decompose()
    with pytest.raises(ValueError, match="K has 2 columns"):
        loo.update(np.ones((4, 2)), np.ones(4))
    with pytest.raises(ValueError, match="same number of rows; got 4 and 3"):
        loo.update(np.ones((4, 3)), np.ones(3))
    rng = np.random.default_rng(0)
    K = rng.normal(size=(20, 3))
    loo.update(K, K.sum(axis=1))
    with pytest.raises(ValueError, match="one entry per alpha"):
        loo.select(np.ones(3))
    with pytest.raises(ValueError, match="rows can no longer be added"):
        loo.update(K, K.sum(axis=1))
    with pytest.raises(ValueError, match="alphas must be a non-empty 1-D grid"):
        LeaveOneOutRidge(3, alphas=[0.0, 1.0])
    with pytest.raises(ValueError, match="same toward_mean"):
        LeaveOneOutRidge(3).merge(LeaveOneOutRidge(3, toward_mean=False))
