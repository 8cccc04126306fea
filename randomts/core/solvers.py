"""Least-squares solvers for ``K Gamma = Y`` (pure functions over arrays).

One public function, :func:`solve_least_squares`, for a ``K`` held in memory.
All solvers minimise ``||K Gamma - Y||_F^2 + alpha ||Gamma||_F^2``; with
``alpha = 0`` the answer is the paper's minimum-norm least-squares solution
``Gamma = K^+ Y``. ``K`` is ``n_samples x n_columns`` with
``n_columns = n_rules * (n_features + 1)`` (``n_rules`` for zero order).

========== ========================================== =====================================
solver     method and cost                            accuracy
========== ========================================== =====================================
"lstsq"    Householder QR of ``[K Y]``, 512 rows at a Backward stable. Minimum norm, with
           time (LAPACK ``tpqrt``: ``2 N q^2``        the rank decided as
           flops, ``q = p + n_outputs``), then a      :func:`numpy.linalg.lstsq` decides
           triangular solve on the ``p x p``          it (singular values below
           triangle ``R11`` when ``trcon`` shows it   ``max(N, p) * eps * s_max`` are
           surely of full rank, else LAPACK           zero): on the paper's Van der Pol
           ``gelsy`` (pivoted QR, minimum norm);      data (cond ~ 1e16) the training MSE
           ``min ||R11 Gamma - Q^T Y||`` has the      is about 1e-22.
           minimisers of ``min ||K Gamma - Y||``.
"pinv"     The paper's algorithm, as MATLAB's         Forming the pseudo-inverse rounds
           ``pinv(K) * Y``: the SVD of ``K`` (its     entries of size ``1/s_min``, so the
           rows are kept), MATLAB's tolerance         fit stops near 1e-12 on the Van der
           ``max(N, p) * eps * s_max``, ``K^+``       Pol data (the paper reports 2.4e-11).
           formed, then applied to ``Y``.
"cholesky" Normal equations ``(K^T K + alpha I)``:    Squares the condition number: use
           BLAS ``syrk`` on blocks of rows            with ``alpha > 0`` (ridge). Falls back
           (``N p^2`` flops), then Cholesky           to the eigendecomposition of
           (``p^3/3``); the fastest.                  ``K^T K`` when the factorisation fails.
========== ========================================== =====================================

Every solver works on the small factor of ``[K Y]`` accumulated by the fitting
engine, :mod:`randomts.core.accumulators` (the only place least squares are solved),
so ``K`` is read once, a block of rows at a time, and never copied whole.
"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_option, check_real
from randomts.core.accumulators import SOLVER_FACTOR, LeastSquaresAccumulator

__all__ = ["SOLVERS", "solve_least_squares"]

#: Names accepted by :func:`solve_least_squares`.
SOLVERS = tuple(SOLVER_FACTOR)


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
    gamma = LeastSquaresAccumulator(K.shape[1], Y2.shape[1], solver=solver).update(K, Y2)
    gamma = gamma.solve(alpha)
    return gamma[:, 0] if one_output else gamma
