import numpy as np
import pytest

from randomts.core.design import design_matrix, split_coefficients, stack_coefficients


def naive_design_matrix(G, X):
    """The paper's K, entry by entry."""
    n_samples, n_rules = G.shape
    n_features = X.shape[1]
    K = np.zeros((n_samples, n_rules * (n_features + 1)))
    for j in range(n_samples):
        z = np.append(X[j], 1.0)
        for i in range(n_rules):
            K[j, i * (n_features + 1) : (i + 1) * (n_features + 1)] = G[j, i] * z
    return K


@pytest.mark.parametrize("seed", range(3))
def test_design_matrix_matches_the_papers_definition(seed):
    rng = np.random.default_rng(seed)
    G = rng.uniform(size=(13, 5))
    X = rng.normal(size=(13, 3))
    np.testing.assert_array_equal(design_matrix(G, X), naive_design_matrix(G, X))
    np.testing.assert_array_equal(design_matrix(G, X, order=0), G)


def test_split_and_stack_are_inverse():
    rng = np.random.default_rng(0)
    gamma = rng.normal(size=(5 * 4, 2))
    coef, intercept = split_coefficients(gamma, 5, 3)
    assert coef.shape == (5, 2, 3) and intercept.shape == (5, 2)
    np.testing.assert_array_equal(stack_coefficients(coef, intercept), gamma)
    # the layout is the paper's: rows i*(n+1)..i*(n+1)+n-1 hold alpha_i^T, the next beta_i^T
    np.testing.assert_array_equal(coef[1], gamma[4:7].T)
    np.testing.assert_array_equal(intercept[1], gamma[7])


def test_K_gamma_equals_the_rule_outputs():
    rng = np.random.default_rng(1)
    G = rng.uniform(size=(9, 4))
    X = rng.normal(size=(9, 2))
    gamma = rng.normal(size=(4 * 3, 2))
    coef, intercept = split_coefficients(gamma, 4, 2)
    expected = np.einsum("ji,jim->jm", G, np.einsum("imk,jk->jim", coef, X) + intercept)
    np.testing.assert_allclose(design_matrix(G, X) @ gamma, expected, rtol=1e-13)
