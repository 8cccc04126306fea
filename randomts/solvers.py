"""Least-squares solvers for ``K Gamma = Y`` (pure functions over arrays).

Three private solvers, one public dispatcher, :func:`solve_least_squares`.
All minimise ``||K Gamma - Y||_F^2 + alpha ||Gamma||_F^2``; with
``alpha = 0`` the answer is the paper's minimum-norm least-squares solution
``Gamma = K^+ Y``. ``K`` is ``n_samples x n_columns`` with
``n_columns = n_rules * (n_features + 1)`` (``n_rules`` for zero order).

========== ========================================== =====================================
solver     method and cost                            accuracy
========== ========================================== =====================================
"lstsq"    Householder QR of ``[K Y]``, 512 rows at a Backward stable. Rank decided at
           time (LAPACK ``tpqrt``: ``2 N q^2``        ``eps * s_max``, so on rank-deficient,
           flops, ``q = p + n_outputs``, never a      ill-conditioned ``K`` (the paper's
           copy of ``K``), then LAPACK ``gelsy``      Van der Pol data, cond ~ 1e16) it
           (QR with column pivoting, minimum norm)    reaches the residual floor: training
           on the ``p x p`` triangle ``R11``:         MSE ~ 1e-28.
           ``min ||R11 Gamma - Q^T Y||`` has the
           minimisers of ``min ||K Gamma - Y||``;
           a triangular solve instead when ``trcon``
           shows ``R11`` surely of full rank.
"pinv"     The paper's algorithm, as MATLAB's         Forming ``K^+`` explicitly rounds
           ``pinv(K) * Y``: the Moore-Penrose         entries of size ``1/s_min``, so the
           pseudo-inverse by SVD with MATLAB's        fit stops near 1e-12 on the Van der
           tolerance ``max(N, p) * eps * s_max`` is   Pol data (the paper reports 2.4e-11).
           formed, then applied. About ``6 N p^2 +
           8 p^3`` flops; the slowest.
"cholesky" Normal equations ``(K^T K + alpha I)``:    Squares the condition number: use
           one BLAS ``syrk`` on ``K`` where it lies   with ``alpha > 0`` (ridge). Falls back
           (``N p^2`` flops), then Cholesky           to the SVD (factors applied to ``Y``)
           (``p^3/3``); the fastest.                  when the factorisation fails.
========== ========================================== =====================================

The QR and Gram accumulations are those of :mod:`randomts.accumulators`, which
also fit rows streamed in chunks or spread over a cluster, and fold row
blocks in one thread per core (:func:`randomts.accumulators.fold_rows`).
:meth:`randomts.RuleBase.fit_consequents` (hence
:class:`randomts.RandomTSRegressor`) does not call these solvers with a whole
``K`` for ``"lstsq"`` and ``"cholesky"``: it writes each block of rows of
``K`` straight into the factor's update, so ``K`` is never held in memory
(peak memory 0.02 to 0.71 times the size of ``K``, ``benchmarks/bench_fit.py``).

With ``alpha > 0``, ``"lstsq"`` solves the augmented system
``[R11; sqrt(alpha) I] Gamma = [Q^T Y; 0]`` by QR and ``"pinv"`` filters the singular
values, ``s / (s^2 + alpha)``: both give the exact ridge solution.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ._validation import check_option, check_real
from .accumulators import cholesky_gram, solve_r, update_gram, update_r

__all__ = ["SOLVERS", "solve_least_squares"]

#: Names accepted by :func:`solve_least_squares`.
SOLVERS = ("lstsq", "pinv", "cholesky")


def _solve_lstsq(K, Y, alpha):
    """QR of ``[K Y]`` block by block (``tpqrt``), then ``gelsy`` on the small triangle."""
    R = np.zeros((K.shape[1] + Y.shape[1],) * 2, order="F")
    R = update_r(R, K, Y)
    return solve_r(R, K.shape[1], solver="lstsq", alpha=alpha, n_samples=K.shape[0])


def _filtered_inverse_singular_values(s, alpha, shape):
    """``1/s`` above MATLAB's rank tolerance (``alpha = 0``), else the ridge filter ``s/(s^2+alpha)``."""
    if alpha > 0:
        return s / (s * s + alpha)
    filtered = np.zeros_like(s)
    if s.size:
        keep = s > max(shape) * np.finfo(float).eps * s[0]
        filtered[keep] = 1.0 / s[keep]
    return filtered


def _solve_svd(K, Y, alpha):
    """Minimum-norm (``alpha = 0``) or ridge solution, the SVD factors applied to ``Y``."""
    U, s, Vt = scipy.linalg.svd(K, full_matrices=False, check_finite=False, lapack_driver="gesdd")
    filtered = _filtered_inverse_singular_values(s, alpha, K.shape)
    return Vt.T @ (filtered[:, None] * (U.T @ Y))


def _solve_pinv(K, Y, alpha):
    """The paper's ``pinv(K) * Y``: the pseudo-inverse is formed, then applied.

    Forming ``K^+`` explicitly (as MATLAB's ``pinv(K)*Y`` does) rounds entries
    of size ``1/s_min`` before the product, which is what limits the paper's
    training error; :func:`_solve_svd` applies the same factors to ``Y``
    directly and is far more accurate.
    """
    U, s, Vt = scipy.linalg.svd(K, full_matrices=False, check_finite=False, lapack_driver="gesdd")
    pseudo_inverse = (Vt.T * _filtered_inverse_singular_values(s, alpha, K.shape)) @ U.T
    return pseudo_inverse @ Y


def _solve_cholesky(K, Y, alpha):
    """Gram matrix by one BLAS ``syrk`` on ``K`` where it lies, then Cholesky."""
    q = K.shape[1] + Y.shape[1]
    G = update_gram(np.zeros((q, q), order="F"), np.ascontiguousarray(K), np.ascontiguousarray(Y))
    try:
        return cholesky_gram(G, K.shape[1], alpha=alpha)
    except np.linalg.LinAlgError:
        return _solve_svd(K, Y, alpha)


_DISPATCH = {"lstsq": _solve_lstsq, "pinv": _solve_pinv, "cholesky": _solve_cholesky}


def solve_least_squares(K, Y, *, solver="lstsq", alpha=0.0):
    """Solve ``min ||K Gamma - Y||_F^2 + alpha ||Gamma||_F^2`` for ``Gamma``.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_columns)
        Design matrix, finite.
    Y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Targets.
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        See the module docstring for cost and accuracy of each.
    alpha : float, default=0.0
        Ridge penalty, ``>= 0``. With 0 the solution is ``K^+ Y``
        (minimum-norm least squares).

    Returns
    -------
    ndarray of shape (n_columns, n_outputs) or (n_columns,)
        Matches the dimensionality of ``Y``.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> Y = K @ np.array([3.0, -1.0])
    >>> np.allclose(solve_least_squares(K, Y), [3.0, -1.0])
    True
    >>> np.allclose(solve_least_squares(K, Y, solver="pinv"), [3.0, -1.0])
    True
    """
    check_option(solver, "solver", SOLVERS)
    alpha = check_real(alpha, "alpha", low=0.0)
    K = np.asarray(K, dtype=float)
    Y = np.asarray(Y, dtype=float)
    one_output = Y.ndim == 1
    Y2 = Y.reshape(-1, 1) if one_output else Y
    if K.ndim != 2 or Y2.ndim != 2 or K.shape[0] != Y2.shape[0]:
        raise ValueError(
            f"K and Y must have the same number of rows; got K of shape {K.shape} and Y of "
            f"shape {Y.shape}."
        )
    gamma = _DISPATCH[solver](K, Y2, alpha)
    return gamma[:, 0] if one_output else gamma
