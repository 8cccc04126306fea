import numpy as np
import pytest

from randomts.solvers import SOLVERS, solve_least_squares


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(4))
def test_overdetermined_full_rank_matches_numpy(solver, seed):
    rng = np.random.default_rng(seed)
    K = rng.normal(size=(60, 12))
    Y = rng.normal(size=(60, 3))
    expected = np.linalg.lstsq(K, Y, rcond=None)[0]
    np.testing.assert_allclose(solve_least_squares(K, Y, solver=solver), expected, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("solver", ["lstsq", "pinv"])
def test_underdetermined_gives_the_minimum_norm_solution(solver):
    rng = np.random.default_rng(0)
    K = rng.normal(size=(8, 20))
    Y = rng.normal(size=(8, 2))
    expected = np.linalg.pinv(K) @ Y
    gamma = solve_least_squares(K, Y, solver=solver)
    np.testing.assert_allclose(K @ gamma, Y, atol=1e-12)
    np.testing.assert_allclose(gamma, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("alpha", [1e-6, 0.1, 10.0])
def test_ridge_matches_the_closed_form(solver, alpha):
    rng = np.random.default_rng(3)
    K = rng.normal(size=(40, 10))
    Y = rng.normal(size=(40, 2))
    expected = np.linalg.solve(K.T @ K + alpha * np.eye(10), K.T @ Y)
    np.testing.assert_allclose(solve_least_squares(K, Y, solver=solver, alpha=alpha), expected, rtol=1e-9)


def test_cholesky_falls_back_to_svd_when_the_gram_matrix_is_singular():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(30, 3))
    K = np.hstack([base, base])  # rank 3 of 6: K^T K is exactly singular
    Y = base @ np.array([[1.0], [2.0], [3.0]])
    gamma = solve_least_squares(K, Y, solver="cholesky")
    assert np.all(np.isfinite(gamma))
    np.testing.assert_allclose(K @ gamma, Y, atol=1e-9)
    np.testing.assert_allclose(gamma, np.linalg.pinv(K) @ Y, atol=1e-8)


def test_one_dimensional_targets_give_a_one_dimensional_solution():
    K = np.eye(3)
    assert solve_least_squares(K, np.ones(3)).shape == (3,)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"solver": "qr"}, ValueError, "The 'solver' parameter must be a str among"),
        ({"alpha": -1.0}, ValueError, "The 'alpha' parameter must be a finite real number in the range"),
        ({"alpha": "big"}, TypeError, "The 'alpha' parameter"),
    ],
)
def test_bad_solver_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        solve_least_squares(np.eye(2), np.ones(2), **kwargs)


def test_mismatched_rows():
    with pytest.raises(ValueError, match="same number of rows"):
        solve_least_squares(np.eye(3), np.ones(2))


# ------------------------------------------------------ lstsq's triangular fast path
def _triangle(q, seed, *, scale=None):
    R = np.linalg.qr(np.random.default_rng(seed).normal(size=(2 * q, q)), mode="r")
    return R if scale is None else R * scale  # columns scaled: cond grows with the scale's range


@pytest.mark.parametrize("seed", range(5))
def test_full_rank_check_accepts_well_conditioned_and_rejects_singular_triangles(seed):
    from randomts.accumulators import _numerically_full_rank

    R = _triangle(40, seed)  # cond ~ 10
    assert _numerically_full_rank(R)
    singular = R.copy()
    singular[7, 7] = 0.0
    assert not _numerically_full_rank(singular)
    assert not _numerically_full_rank(R[:30])  # not square
    # columns scaled over 17 decades: singular values below eps * s_max
    assert not _numerically_full_rank(_triangle(40, seed, scale=np.logspace(0, -17, 40)))
    assert not _numerically_full_rank(np.zeros((0, 0)))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("decades", [0, 6, 10])
def test_triangular_fast_path_agrees_with_gelsy(seed, decades, monkeypatch):
    """Where R11 is of full rank the solve skips gelsy; the answer is gelsy's to cond * eps."""
    import scipy.linalg

    from randomts import accumulators

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
    assert np.max(np.abs(gamma - expected)) <= 1e3 * cond * np.finfo(float).eps * np.max(np.abs(expected))
    np.testing.assert_allclose(K @ gamma, K @ expected, rtol=0, atol=1e-10 * np.abs(Y).max())


def test_rank_deficient_triangle_still_goes_to_gelsy():
    import scipy.linalg

    from randomts import accumulators

    rng = np.random.default_rng(0)
    K = rng.normal(size=(200, 8)) * np.logspace(0, -20, 8)  # singular values below eps * s_max
    Y = rng.normal(size=(200, 1))
    R = np.linalg.qr(np.hstack([K, Y]), mode="r")
    R11 = np.triu(R[:8, :8])
    assert not accumulators._numerically_full_rank(R11)
    gelsy = scipy.linalg.lstsq(R11, R[:8, 8:], lapack_driver="gelsy", check_finite=False)
    assert gelsy[2] < 8  # gelsy finds the rank deficiency
    np.testing.assert_array_equal(accumulators.solve_r(R, 8, n_samples=200), gelsy[0])
