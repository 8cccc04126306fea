"""The paper's block design matrix ``K`` and the layout of its coefficients.

Row ``j`` of ``K`` is ``[g_1(x_j) z_j^T, ..., g_h(x_j) z_j^T]`` with
``z_j = [x_j; 1]`` (paper, Lemma 1): a row-wise Khatri-Rao (face-splitting)
product of the firing strengths ``G`` (n_samples, n_rules) and ``Z``
(n_samples, n_features + 1). The least-squares solution
``Gamma = K^+ Y`` stacks, rule after rule, ``n_features`` rows of ``alpha_i^T``
followed by one row ``beta_i^T``.

For a zero-order (constant-consequent) model ``K`` is ``G`` itself: the
hidden-layer output matrix of an Extreme Learning Machine with RBF nodes.
"""

from __future__ import annotations

import numpy as np

from randomts.core import membership as _membership

__all__ = ["design_matrix", "design_rows_writer", "split_coefficients", "stack_coefficients"]


def design_matrix(weights, X, *, order=1, out=None):
    """Build ``K`` from firing strengths and inputs, without a loop over samples.

    Parameters
    ----------
    weights : ndarray of shape (n_samples, n_rules)
        Firing strengths ``g_i(x_j)`` (raw or normalised).
    X : ndarray of shape (n_samples, n_features)
        Inputs.
    order : {0, 1}, default=1
        1: linear consequents, ``K`` has ``n_rules * (n_features + 1)``
        columns. 0: constant consequents, ``K = weights``.
    out : ndarray, optional
        Preallocated array of the result's shape, in any layout (e.g. the
        columns of a Fortran-ordered block that LAPACK will read).

    Returns
    -------
    ndarray of shape (n_samples, n_rules * (n_features + 1)) or (n_samples, n_rules)

    Examples
    --------
    >>> import numpy as np
    >>> design_matrix(np.array([[2.0, 3.0]]), np.array([[10.0]]))
    array([[20.,  2., 30.,  3.]])
    >>> design_matrix(np.array([[2.0, 3.0]]), np.array([[10.0]]), order=0)
    array([[2., 3.]])
    """
    weights = np.asarray(weights, dtype=float)
    if order == 0:
        if out is None:
            return weights.copy()
        out[...] = weights
        return out
    X = np.asarray(X, dtype=float)
    n_samples, n_rules = weights.shape
    n_features = X.shape[1]
    if out is None:
        out = np.empty((n_samples, n_rules * (n_features + 1)))
    # Splitting the last axis is always a view, whatever the layout of out: writes land in out.
    blocks = out.reshape(n_samples, n_rules, n_features + 1)
    # Row blocks small enough to stay in cache while each strided column of
    # the block is written (5x faster than one broadcast over all rows for
    # n_features = 2, h = 100, N = 10^4; see benchmarks/).
    rows = max(1, _membership.BLOCK_ELEMENTS // (n_rules * (n_features + 1)))
    for start in range(0, n_samples, rows):
        stop = min(start + rows, n_samples)
        block, w = blocks[start:stop], weights[start:stop]
        for k in range(n_features):
            np.multiply(w, X[start:stop, k, None], out=block[:, :, k])
        block[:, :, n_features] = w
    return out


def design_rows_writer(X, Y, centers, sigmas, *, normalize=False, order=1):
    """A function writing any rows of ``[K Y]`` straight from the inputs, ``K`` never whole.

    For :func:`randomts.core.accumulators.fold_rows`: the returned
    ``write(start, stop, out)`` computes the firing strengths of rows
    ``start:stop`` of ``X`` and writes those rows of ``K``, then of ``Y``,
    into ``out`` (shape ``(stop - start, n_columns + n_outputs)``, typically
    Fortran-ordered for LAPACK), with the same arithmetic as
    :func:`design_matrix` applied to :func:`randomts.core.membership.firing_strengths`.
    It may be called from several threads on disjoint rows.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_outputs)
    centers, sigmas : ndarray of shape (n_rules, n_features)
        The antecedents.
    normalize : bool, default=False
        Normalised (weighted-average) strengths.
    order : {0, 1}, default=1
        Consequent order.

    Returns
    -------
    callable

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0]]); Y = np.array([[1.0], [2.0], [3.0]])
    >>> c, s = np.array([[0.0], [1.0]]), np.ones((2, 1))
    >>> out = np.empty((2, 5), order="F")
    >>> design_rows_writer(X, Y, c, s)(1, 3, out)
    >>> K = design_matrix(_membership.firing_strengths(X, c, s), X)
    >>> bool(np.array_equal(out, np.hstack([K, Y])[1:3]))
    True
    """
    n_columns = centers.shape[0] * (X.shape[1] + 1 if order == 1 else 1)

    def write(start, stop, out):
        rows = X[start:stop]
        if normalize:
            weights = _membership.firing_strengths(rows, centers, sigmas, normalize=True)
        else:
            # strengths in the layout of out, so that writing K's columns runs contiguously
            layout = "F" if out.flags.f_contiguous else "C"
            weights = np.empty((stop - start, centers.shape[0]), order=layout)
            _membership.log_firing_strengths(rows, centers, sigmas, out=weights)
            np.exp(weights, out=weights)
        design_matrix(weights, rows, order=order, out=out[:, :n_columns])
        out[:, n_columns:] = Y[start:stop]

    return write


def split_coefficients(gamma, n_rules, n_features, *, order=1):
    """Split the stacked solution ``Gamma`` into consequent coefficients and intercepts.

    Parameters
    ----------
    gamma : ndarray of shape (n_columns, n_outputs)
        Solution of ``K Gamma = Y``.
    n_rules, n_features : int
        Model sizes.
    order : {0, 1}
        Consequent order used to build ``K``.

    Returns
    -------
    coef : ndarray of shape (n_rules, n_outputs, n_features)
        ``alpha_i`` of every rule (zeros when ``order == 0``).
    intercept : ndarray of shape (n_rules, n_outputs)
        ``beta_i`` of every rule.

    Examples
    --------
    >>> import numpy as np
    >>> coef, intercept = split_coefficients(np.array([[1.0], [2.0], [3.0], [4.0]]), 2, 1)
    >>> coef[:, :, 0], intercept
    (array([[1.],
           [3.]]), array([[2.],
           [4.]]))
    """
    gamma = np.asarray(gamma, dtype=float)
    n_outputs = gamma.shape[1]
    if order == 0:
        return np.zeros((n_rules, n_outputs, n_features)), gamma.copy()
    blocks = gamma.reshape(n_rules, n_features + 1, n_outputs)
    coef = np.ascontiguousarray(blocks[:, :n_features, :].transpose(0, 2, 1))
    intercept = np.ascontiguousarray(blocks[:, n_features, :])
    return coef, intercept


def stack_coefficients(coef, intercept, *, order=1):
    """Inverse of :func:`split_coefficients`: the ``Gamma`` of given consequents.

    Examples
    --------
    >>> import numpy as np
    >>> coef = np.array([[[1.0]], [[3.0]]]); intercept = np.array([[2.0], [4.0]])
    >>> stack_coefficients(coef, intercept).ravel()
    array([1., 2., 3., 4.])
    """
    coef = np.asarray(coef, dtype=float)
    intercept = np.asarray(intercept, dtype=float)
    if order == 0:
        return intercept.copy()
    n_rules, n_outputs, n_features = coef.shape
    blocks = np.concatenate([coef.transpose(0, 2, 1), intercept[:, None, :]], axis=1)
    return blocks.reshape(n_rules * (n_features + 1), n_outputs)
