"""Unit tests of randomts.core.accumulators, the fitting engine (its kernel: tests/test_folds.py).

Every path folds the same rows into the same factor and solves it alike."""

import numpy as np
import pytest

from randomts import RandomTSRegressor, RuleBase
from randomts.core import accumulators
from randomts.core.accumulators import LeastSquaresAccumulator, fold_rows, stripe_bounds
from randomts.core.design import design_matrix, design_rows_writer
from randomts.core.membership import firing_strengths
from randomts.core.solvers import solve_least_squares
from randomts.fitting.consequents import fit_consequents_streaming
from randomts.io.chunks import iter_chunks

EPS = np.finfo(float).eps


def rows_of(A):
    def fill(start, stop, out):
        out[...] = A[start:stop]

    return fill


# ------------------------------------------------------------------ stripes and folds
def test_stripes_depend_on_the_problem_only():
    assert stripe_bounds(1000, 300) == [0, 1000]
    assert len(stripe_bounds(10**7, 30)) == 9  # at most 8 stripes
    assert stripe_bounds(20_000, 300, kind="gram") == [0, 5000, 10000, 15000, 20000]


@pytest.mark.parametrize("kind", ["r", "gram"])
@pytest.mark.parametrize("seed", range(3))
def test_folds_are_bitwise_the_same_whatever_the_threads_and_right_to_rounding(kind, seed):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(20_000, 12)) * np.logspace(0, 3, 12)
    folds = [
        fold_rows(np.zeros((12, 12), order="F"), rows_of(A), len(A), kind=kind, n_jobs=n_jobs)
        for n_jobs in (1, 2, 3, 2)
    ]
    for other in folds[1:]:
        assert np.array_equal(other, folds[0])
    one = np.abs(folds[0]) if kind == "r" else folds[0]  # R is unique up to row signs
    reference = np.abs(np.linalg.qr(A, mode="r")) if kind == "r" else np.triu(A.T @ A)
    assert np.abs(np.triu(one) - reference).max() < 1e-12 * np.abs(reference).max()


def test_an_error_in_a_thread_reaches_the_caller():
    A = np.ones((20_000, 3))

    def fill(start, stop, out):
        if start >= 10_000:
            raise KeyError(f"row {start}")
        out[...] = A[start:stop]

    with pytest.raises(KeyError, match="row"):
        fold_rows(np.zeros((3, 3), order="F"), fill, len(A), n_jobs=2)


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("order", [0, 1])
def test_rows_written_in_place_equal_the_design_matrix_bitwise(normalize, order):
    rng = np.random.default_rng(2)
    X, Y = rng.uniform(-2, 2, size=(700, 3)), rng.normal(size=(700, 2))
    rb = RuleBase.random(n_features=3, n_rules=7, normalize=normalize, random_state=0)
    K = design_matrix(
        firing_strengths(X, rb.centers, rb.sigmas, normalize=normalize), X, order=order
    )
    out = np.empty((650, K.shape[1] + 2), order="F")
    design_rows_writer(X, Y, rb.centers, rb.sigmas, normalize=normalize, order=order)(50, 700, out)
    assert np.array_equal(out, np.hstack([K, Y])[50:])


# ------------------------------------------------------------------ every path, one answer
@pytest.mark.parametrize("solver", ["lstsq", "pinv", "cholesky"])
def test_every_path_gives_the_same_consequents(solver):
    """In memory, from an explicit K, streamed in chunks, by partial_fit: one engine."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-2, 2, size=(6000, 2))
    Y = np.column_stack([np.sin(X.sum(1)), np.cos(X[:, 0]) * X[:, 1]])
    antecedents = RuleBase.random(n_features=2, n_outputs=2, n_rules=15, random_state=1)
    # the normal equations amplify rounding by cond(K^T K + alpha I): a ridge that bounds it
    alpha = 1e-4 if solver == "cholesky" else 0.0
    fitted = antecedents.fit_consequents(X, Y, solver=solver, alpha=alpha)
    K = antecedents.design_matrix(X)
    from_k = solve_least_squares(K, Y, solver=solver, alpha=alpha)
    # the same rows in the same stripes: the same factor, bit for bit
    stacked = np.concatenate([fitted.coef.transpose(0, 2, 1), fitted.intercept[:, None, :]], 1)
    assert np.array_equal(stacked.reshape(-1, 2), from_k)
    streamed = fit_consequents_streaming(
        antecedents, iter_chunks(X, Y, chunk_rows=1000), solver=solver, alpha=alpha
    )
    scale = np.abs(Y).max()
    assert np.abs(streamed.predict(X) - fitted.predict(X)).max() < 1e-10 * scale
    model = RandomTSRegressor.paper(n_rules=15, solver=solver, alpha=alpha, random_state=1)
    whole = model.fit(X, Y).predict(X)
    assert np.abs(whole - fitted.predict(X)).max() < 1e-10 * scale
    parts = RandomTSRegressor.paper(n_rules=15, solver=solver, alpha=alpha, random_state=1)
    for rows in np.array_split(np.arange(6000), 4):
        parts.partial_fit(X[rows], Y[rows])
    assert np.abs(parts.predict(X) - whole).max() < 1e-10 * scale


@pytest.mark.parametrize("seed", range(3))
def test_a_ridge_on_few_rows_is_the_same_from_the_rows_and_from_the_gram_matrix(seed):
    """Fewer rows than columns: the SVD of the rows and the Cholesky factor solve one system."""
    rng = np.random.default_rng(seed)
    K, Y = rng.normal(size=(40, 120)), rng.normal(size=(40, 2))
    largest = np.linalg.eigvalsh(K.T @ K)[-1]
    for alpha in (1e-3 * largest, 1e-1 * largest):
        rows = LeastSquaresAccumulator(120, 2, solver="pinv").update(K, Y).solve(alpha)
        gram = LeastSquaresAccumulator(120, 2, solver="cholesky").update(K, Y).solve(alpha)
        # the normal equations round by columns x eps, amplified by cond(K^T K + alpha I)
        bound = 120 * np.finfo(float).eps * (largest + alpha) / alpha * np.abs(gram).max()
        assert np.abs(rows - gram).max() <= 10 * bound


# ------------------------------------------------------------------ minimum norm
def _repeated_rows_problem(seed):
    rng = np.random.default_rng(seed)
    rb = RuleBase.random(n_features=2, n_rules=10, random_state=seed)
    X = np.vstack([rng.normal(size=(20, 2)), np.repeat(rng.normal(size=(1, 2)), 50, axis=0)])
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=70)
    return rb, X, y


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("solver", ["lstsq", "pinv"])
def test_rank_deficient_fits_are_the_minimum_norm_solution(seed, solver):
    """50 copies of one row: K (70 x 30) has rank 21; the answer is numpy's lstsq and pinv."""
    rb, X, y = _repeated_rows_problem(seed)
    K = rb.design_matrix(X)
    expected = np.linalg.lstsq(K, y, rcond=None)[0]
    assert np.abs(np.linalg.pinv(K) @ y - expected).max() < 1e-10 * np.abs(expected).max()
    gamma = solve_least_squares(K, y, solver=solver)
    assert np.abs(gamma - expected).max() < 1e-10 * np.abs(expected).max()
    fitted = rb.fit_consequents(X, y, solver=solver)
    X_new = np.random.default_rng(seed + 10).normal(size=(20, 2))
    new_K = rb.design_matrix(X_new)
    scale = np.abs(new_K) @ np.abs(expected)  # the sum of absolute terms, row by row
    assert np.all(np.abs(fitted.predict(X_new)[:, 0] - new_K @ expected) <= 1e-10 * scale)


def test_inconsistent_targets_on_repeated_inputs_stay_bounded():
    rb, X, y = _repeated_rows_problem(0)
    y = y.copy()
    y[20:] = np.random.default_rng(1).normal(size=50)  # the same input, 50 different targets
    K = rb.design_matrix(X)
    expected = np.linalg.lstsq(K, y, rcond=None)[0]
    gamma = rb.fit_consequents(X, y).predict(X)[:, 0]
    assert np.abs(gamma - K @ expected).max() < 1e-9 * np.abs(y).max()


def test_duplicated_columns_give_the_minimum_norm_solution():
    rng = np.random.default_rng(2)
    base = rng.normal(size=(200, 5))
    K = np.hstack([base, base[:, :2]])  # two columns twice
    y = base @ rng.normal(size=5)
    expected = np.linalg.pinv(K) @ y
    gamma = solve_least_squares(K, y)
    assert np.abs(gamma - expected).max() < 1e-10 * np.abs(expected).max()


# ------------------------------------------------------------------ sizes and scales
@pytest.mark.filterwarnings("ignore::randomts.exceptions.UnderdeterminedWarning")
def test_a_factor_too_large_for_memory_is_refused_before_allocating():
    rb = RuleBase.random(n_features=2, n_rules=200_000, random_state=0)
    X = np.zeros((10, 2))
    with pytest.raises(MemoryError, match=r"n_rules=200000 with 2 inputs.*GiB"):
        rb.fit_consequents(X, np.zeros(10))
    with pytest.raises(MemoryError, match="n_rules=200000"):
        RandomTSRegressor.paper(n_rules=200_000, random_state=0).fit(np.ones((10, 2)), np.ones(10))


def test_inputs_where_no_rule_fires_are_an_error_not_a_zero_model():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2)) * 1e300
    with pytest.raises(ValueError, match="No rule fires on any of the 100 rows"):
        RuleBase.random(n_features=2, n_rules=10, random_state=0).fit_consequents(X, X[:, 0])
    with pytest.raises(ValueError, match="No rule fires"):
        RandomTSRegressor.paper(n_rules=10, random_state=0).fit(X + 1e5, X[:, 0] / 1e300)


# ------------------------------------------------------ lstsq's triangular fast path
def _triangle(q, seed, *, scale=None):
    R = np.linalg.qr(np.random.default_rng(seed).normal(size=(2 * q, q)), mode="r")
    return R if scale is None else R * scale  # columns scaled: cond grows with the scale's range


@pytest.mark.parametrize("seed", range(5))
def test_full_rank_check_accepts_well_conditioned_and_rejects_singular_triangles(seed):
    R = _triangle(40, seed)  # cond ~ 10
    assert accumulators._numerically_full_rank(R, EPS)
    singular = R.copy()
    singular[7, 7] = 0.0
    assert not accumulators._numerically_full_rank(singular, EPS)
    assert not accumulators._numerically_full_rank(R[:30], EPS)  # not square
    # columns scaled over 17 decades: singular values below eps * s_max
    assert not accumulators._numerically_full_rank(
        _triangle(40, seed, scale=np.logspace(0, -17, 40)), EPS
    )
    assert not accumulators._numerically_full_rank(np.zeros((0, 0)), EPS)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("decades", [0, 4, 7])
def test_triangular_fast_path_agrees_with_gelsy(seed, decades, monkeypatch):
    """Where R11 is of full rank the solve skips gelsy; the answer is gelsy's to cond * eps."""
    import scipy.linalg

    rng = np.random.default_rng(seed)
    K = rng.normal(size=(500, 60)) * np.logspace(0, -decades, 60)
    Y = rng.normal(size=(500, 2))
    R = np.linalg.qr(np.hstack([K, Y]), mode="r")
    R11, C = np.triu(R[:60, :60]), R[:60, 60:]
    expected = scipy.linalg.lstsq(R11, C, lapack_driver="gelsy", check_finite=False)[0]

    def no_gelsy(*args, **kwargs):
        raise AssertionError("gelsy called on a full-rank triangle")

    monkeypatch.setattr(accumulators.scipy.linalg, "lstsq", no_gelsy)
    gamma = accumulators.solve_r(R, 60, n_samples=500)
    cond = np.linalg.cond(R11)
    assert np.max(np.abs(gamma - expected)) <= 1e3 * cond * np.finfo(float).eps * np.max(
        np.abs(expected)
    )
    np.testing.assert_allclose(K @ gamma, K @ expected, rtol=0, atol=1e-10 * np.abs(Y).max())


def test_rank_deficient_triangle_still_goes_to_gelsy():
    import scipy.linalg

    rng = np.random.default_rng(0)
    K = rng.normal(size=(200, 8)) * np.logspace(0, -20, 8)  # singular values below eps * s_max
    Y = rng.normal(size=(200, 1))
    R = np.linalg.qr(np.hstack([K, Y]), mode="r")
    R11 = np.triu(R[:8, :8])
    assert not accumulators._numerically_full_rank(R11, 200 * EPS)
    gelsy = scipy.linalg.lstsq(
        R11, R[:8, 8:], cond=200 * EPS, lapack_driver="gelsy", check_finite=False
    )
    assert gelsy[2] < 8  # gelsy finds the rank deficiency
    np.testing.assert_array_equal(accumulators.solve_r(R, 8, n_samples=200), gelsy[0])
