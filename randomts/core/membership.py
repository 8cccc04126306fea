"""Gaussian memberships and rule firing strengths (pure functions over arrays).

A rule ``i`` has one Gaussian membership function per input ``k``,

.. math:: \\mu_{ik}(x_k) = \\exp\\left(-\\frac{(x_k - c_{ik})^2}{2\\sigma_{ik}^2}\\right),

and fires with the product t-norm of its memberships,
:math:`w_i(x) = \\prod_k \\mu_{ik}(x_k)`. With isotropic widths
:math:`\\sigma_{ik} = 1/\\sqrt{2 b_i}` this is the paper's RBF node
:math:`g_i(x) = e^{-b_i \\lVert x - a_i \\rVert^2}`.

The product is computed in the log domain, :math:`\\log w_i = \\sum_k \\log
\\mu_{ik}`, which costs one ``exp`` per rule instead of one per input and lets
normalised (weighted-average) strengths be formed with the log-sum-exp shift,
so they are never ``0/0`` far from every centre.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "SMALLEST_WIDTH",
    "UNTESTED_WIDTH",
    "gaussian",
    "gaussian_memberships",
    "log_firing_strengths",
    "firing_strengths",
    "normalize_log_strengths",
]

#: Smallest Gaussian width: the smallest normal float, so that ``1 / sigma`` (which the
#: kernels multiply by) is finite.
SMALLEST_WIDTH = float(np.finfo(np.float64).tiny)

#: Width of a set that holds every value: a rule whose set on an input is this wide does not
#: test that input (the membership is 1 for any value within 1e142 of the centre), which is
#: how a fitted model leaves out an input that held one value in every training row.
UNTESTED_WIDTH = 1e300

#: Entries of the (n_rows, n_rules) work arrays computed at once, in every layer
#: (1 MiB: blocks that stay in cache, and memory bounded whatever n_samples).
BLOCK_ELEMENTS = 1 << 17


def gaussian(x, mean, sd):
    """The Gaussian ``exp(-z^2 / 2)`` with ``z = (x - mean) / sd``, finite for finite parameters.

    MATLAB's and scikit-fuzzy's ``gaussmf``, to rounding. ``sd^2`` is never
    formed, so that a width near the largest float does not overflow: the
    membership is 1 at the mean and 0 far from it. Arguments broadcast.

    Examples
    --------
    >>> gaussian(np.array([0.0, 1.0, 1e300]), 0.0, 1.0).round(4)
    array([1.    , 0.6065, 0.    ])
    >>> float(gaussian(3.0, 0.0, 1e200))
    1.0
    """
    with np.errstate(over="ignore"):
        z = (np.asarray(x, dtype=float) - mean) / sd
        return np.exp(-0.5 * (z * z))


def gaussian_memberships(X, centers, sigmas):
    """Membership grade of every input in every rule's Gaussian set (:func:`gaussian`).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Inputs.
    centers : ndarray of shape (n_rules, n_features)
        Gaussian centres :math:`c_{ik}`.
    sigmas : ndarray of shape (n_rules, n_features)
        Gaussian standard deviations :math:`\\sigma_{ik} > 0`.

    Returns
    -------
    ndarray of shape (n_samples, n_rules, n_features)
        ``mu[j, i, k]`` is the membership of ``X[j, k]`` in rule ``i``.

    Examples
    --------
    >>> import numpy as np
    >>> mu = gaussian_memberships(np.array([[0.0, 1.0]]), np.zeros((1, 2)), np.ones((1, 2)))
    >>> np.round(mu, 4)
    array([[[1.    , 0.6065]]])
    """
    X = np.asarray(X, dtype=float)
    return gaussian(X[:, None, :], centers[None, :, :], sigmas[None, :, :])


def log_firing_strengths(X, centers, sigmas, *, out=None):
    """Natural logarithm of the product-t-norm firing strength of every rule.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Inputs.
    centers : ndarray of shape (n_rules, n_features)
        Gaussian centres.
    sigmas : ndarray of shape (n_rules, n_features)
        Gaussian standard deviations, all positive.
    out : ndarray of shape (n_samples, n_rules), optional
        Where to write the result, in C or Fortran order.

    Returns
    -------
    ndarray of shape (n_samples, n_rules)
        :math:`\\log w_i(x_j) = -\\tfrac12\\sum_k ((x_{jk} - c_{ik})/\\sigma_{ik})^2`,
        accumulated one input at a time (memory ``n_samples * n_rules``, no
        cancellation from expanding the square).

    Examples
    --------
    >>> import numpy as np
    >>> log_firing_strengths(np.array([[1.0, 2.0]]), np.zeros((1, 2)), np.ones((1, 2)))
    array([[-2.5]])
    """
    X = np.asarray(X, dtype=float)
    n_samples, n_features = X.shape
    n_rules = centers.shape[0]
    if out is None:
        out = np.empty((n_samples, n_rules))
    inv_sigmas = 1.0 / sigmas
    # Row blocks that stay in cache across the n_features passes: twice as
    # fast as whole-array passes for N = 10^4, h = 100 (see benchmarks/).
    rows = max(1, min(n_samples, BLOCK_ELEMENTS // max(n_rules, 1)))
    # Work in the layout of ``out`` (column-major when it is), so every pass runs contiguously.
    column_major = out.flags.f_contiguous and not out.flags.c_contiguous
    scaled = np.empty((rows, n_rules), order="F" if column_major else "C")
    with np.errstate(over="ignore"):  # an overflow gives log w = -inf, i.e. w = 0: exact
        for start in range(0, n_samples, rows):
            stop = min(start + rows, n_samples)
            _log_strengths_block(
                X[start:stop], centers, inv_sigmas, out[start:stop], scaled[: stop - start]
            )
    return out


def _log_strengths_block(X, centers, inv_sigmas, out, work):
    """The loop body of :func:`log_firing_strengths`: one block of rows, into ``out``.

    ``work`` is scratch of ``out``'s shape; the caller sets ``np.errstate(over="ignore")``.
    """
    if X.shape[1] == 0:  # no inputs: every rule fires fully
        out[...] = 0.0
        return
    for k in range(X.shape[1]):
        np.subtract(X[:, k, None], centers[None, :, k], out=work)
        work *= inv_sigmas[None, :, k]
        if k == 0:
            np.multiply(work, work, out=out)
        else:
            work *= work
            out += work
    out *= -0.5


def normalize_log_strengths(log_w):
    """Weighted-average weights ``w_i / sum_l w_l`` from log strengths, stably.

    Rows are shifted by their maximum before exponentiation (log-sum-exp), so
    the weights sum to one and stay finite however small every ``w_i`` is.

    Parameters
    ----------
    log_w : ndarray of shape (n_samples, n_rules)
        Log firing strengths; every row must hold at least one finite value.

    Returns
    -------
    ndarray of shape (n_samples, n_rules)
        Normalised weights; each row sums to one.

    Examples
    --------
    >>> import numpy as np
    >>> normalize_log_strengths(np.array([[-1000.0, -1000.0 - np.log(3.0)]]))
    array([[0.75, 0.25]])
    """
    weights = np.exp(log_w - log_w.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights


def _nearest_rule_weights(X, centers, sigmas):
    """Weights of the limit of the weighted average when every ``w_i`` is 0.

    Used only for inputs so far from every centre that the squared scaled
    distance overflows: the weighted average then tends to the consequent of
    the rule nearest in the scaled metric (ties share the weight equally).
    The distance is compared through its logarithm so nothing overflows.
    """
    scaled = np.abs((X[:, None, :] - centers[None, :, :]) / sigmas[None, :, :])
    largest = scaled.max(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_distance = np.log(largest) + 0.5 * np.log(
            np.sum((scaled / largest[:, :, None]) ** 2, axis=2)
        )
    nearest = log_distance == log_distance.min(axis=1, keepdims=True)
    return nearest / nearest.sum(axis=1, keepdims=True)


def firing_strengths(X, centers, sigmas, *, normalize=False):
    """Firing strengths of every rule, raw (weighted sum) or normalised.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Inputs.
    centers : ndarray of shape (n_rules, n_features)
        Gaussian centres.
    sigmas : ndarray of shape (n_rules, n_features)
        Gaussian standard deviations, all positive.
    normalize : bool, default=False
        If True, return ``w_i / sum_l w_l`` (classic Takagi-Sugeno weighted
        average); otherwise the raw product-t-norm strengths ``w_i`` (the
        paper's weighted sum), which decay to 0 far from every centre.

    Returns
    -------
    ndarray of shape (n_samples, n_rules)

    Examples
    --------
    >>> import numpy as np
    >>> c = np.array([[0.0], [1.0]]); s = np.ones((2, 1))
    >>> np.round(firing_strengths(np.array([[0.0]]), c, s), 4)
    array([[1.    , 0.6065]])
    >>> np.round(firing_strengths(np.array([[0.0]]), c, s, normalize=True), 4)
    array([[0.6225, 0.3775]])
    """
    log_w = log_firing_strengths(X, centers, sigmas)
    if not normalize:
        return np.exp(log_w, out=log_w)
    lost = np.isneginf(log_w.max(axis=1))
    if lost.any():
        log_w[lost] = 0.0
    weights = normalize_log_strengths(log_w)
    if lost.any():
        weights[lost] = _nearest_rule_weights(np.asarray(X, dtype=float)[lost], centers, sigmas)
    return weights
