import numpy as np
import pytest
from skfuzzy.membership import gaussmf

from randomts.core.membership import (
    firing_strengths,
    gaussian_memberships,
    log_firing_strengths,
    normalize_log_strengths,
)


@pytest.mark.parametrize("seed", range(5))
def test_firing_strengths_equal_product_of_skfuzzy_memberships(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    centers = rng.normal(size=(6, 3))
    sigmas = rng.uniform(0.3, 2.0, size=(6, 3))
    expected = np.ones((40, 6))
    for i in range(6):
        for k in range(3):
            expected[:, i] *= gaussmf(X[:, k], centers[i, k], sigmas[i, k])
    np.testing.assert_allclose(firing_strengths(X, centers, sigmas), expected, rtol=1e-13, atol=0)
    np.testing.assert_allclose(
        gaussian_memberships(X, centers, sigmas).prod(axis=2), expected, rtol=1e-13, atol=0
    )
    np.testing.assert_allclose(
        firing_strengths(X, centers, sigmas, normalize=True),
        expected / expected.sum(axis=1, keepdims=True),
        rtol=1e-13,
    )


def test_log_strengths_are_exact_far_from_centres():
    # exp underflows here, the log domain does not
    X = np.array([[100.0, -100.0]])
    centers = np.zeros((2, 2))
    sigmas = np.array([[1.0, 1.0], [2.0, 2.0]])
    np.testing.assert_allclose(log_firing_strengths(X, centers, sigmas), [[-10000.0, -2500.0]])
    assert np.all(firing_strengths(X, centers, sigmas) == 0.0)


def test_normalised_weights_stay_finite_far_from_every_centre():
    centers = np.array([[0.0], [1.0]])
    sigmas = np.ones((2, 1))
    W = firing_strengths(np.array([[1e3], [-1e3]]), centers, sigmas, normalize=True)
    np.testing.assert_allclose(W.sum(axis=1), 1.0)
    # far right the nearest rule (centre 1) takes all the weight, far left the other
    np.testing.assert_array_equal(W, [[0.0, 1.0], [1.0, 0.0]])


def test_normalised_weights_when_the_squared_distance_overflows():
    # (x - c)^2 / sigma^2 overflows to inf for every rule: the nearest rule wins
    centers = np.array([[0.0], [1e190], [-1e190]])
    sigmas = np.ones((3, 1))
    W = firing_strengths(np.array([[1e200], [-1e200], [0.0]]), centers, sigmas, normalize=True)
    np.testing.assert_array_equal(W, [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])


def test_normalize_log_strengths_is_shift_invariant():
    log_w = np.array([[0.0, -1.0, -2.0]])
    np.testing.assert_allclose(
        normalize_log_strengths(log_w - 1e6), normalize_log_strengths(log_w), rtol=1e-15
    )
