"""The paper's closed form, written out independently of randomts, for the tests."""

import numpy as np


def slm_parameters(seed, n_rules=7, n_features=3, n_outputs=2):
    """Random SLM parameters (a, b, alpha, beta) drawn as in the paper."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0.0, np.sqrt(2.0), size=(n_rules, n_features))
    b = 1.0 - rng.uniform(size=n_rules)
    alpha = rng.normal(size=(n_rules, n_outputs, n_features))
    beta = rng.normal(size=(n_rules, n_outputs))
    return a, b, alpha, beta


def slm_closed_form(X, a, b, alpha, beta):
    """``sum_i exp(-b_i ||x - a_i||^2) (alpha_i x + beta_i)``, written out with a loop over rules.

    Also returns the sum of absolute terms, the scale for relative tolerances.
    """
    out = np.zeros((X.shape[0], beta.shape[1]))
    scale = np.zeros_like(out)
    for i in range(a.shape[0]):
        g = np.exp(-b[i] * np.sum((X - a[i]) ** 2, axis=1))
        term = g[:, None] * (X @ alpha[i].T + beta[i])
        out += term
        scale += np.abs(term)
    return out, scale
