import numpy as np
import pytest

from randomts.core.solvers import SOLVERS, solve_least_squares


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", range(4))
def test_overdetermined_full_rank_matches_numpy(solver, seed):
    rng = np.random.default_rng(seed)
    K = rng.normal(size=(60, 12))
    Y = rng.normal(size=(60, 3))
    expected = np.linalg.lstsq(K, Y, rcond=None)[0]
    np.testing.assert_allclose(
        solve_least_squares(K, Y, solver=solver), expected, rtol=1e-9, atol=1e-11
    )


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
    np.testing.assert_allclose(
        solve_least_squares(K, Y, solver=solver, alpha=alpha), expected, rtol=1e-9
    )


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
        (
            {"alpha": -1.0},
            ValueError,
            "The 'alpha' parameter must be a finite real number in the range",
        ),
        ({"alpha": "big"}, TypeError, "The 'alpha' parameter"),
    ],
)
def test_bad_solver_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        solve_least_squares(np.eye(2), np.ones(2), **kwargs)


def test_mismatched_rows():
    with pytest.raises(ValueError, match="same number of rows"):
        solve_least_squares(np.eye(3), np.ones(2))
