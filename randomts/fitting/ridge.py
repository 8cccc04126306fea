"""The one choice of the ridge penalty: one grid, one prior, one criterion per fit.

Every fit of consequents that chooses its penalty (``alpha="auto"``) chooses
it here, the way scikit-learn's ``RidgeCV`` does: one eigendecomposition, of
``K^T K`` (``n_columns x n_columns``) when there are at least as many rows as
unknowns, else of ``K K^T`` (the row space), gives the error of every
``alpha`` of the grid and the coefficients at the best one.

* The grid (:func:`ridge_grid`): :data:`RELATIVE_ALPHAS`, 25 values half a
  decade apart, times the mean eigenvalue of the system's matrix, so the
  choice does not depend on the scale of ``K``.
* The prior (:func:`mean_prior`): the consequents can be shrunk toward the
  rule base that best reproduces the mean of the targets instead of toward
  zero (a weighted sum of rules has no constant term of its own), so that
  the penalty acts on the variation of the targets, not on their offset.
* The criterion: the exact leave-one-out error (:func:`choose_alpha`,
  :func:`choose_consequent_alpha`, :class:`LeaveOneOutRidge` for rows in
  blocks), generalised cross-validation (``criterion="gcv"``), or K-fold
  cross-validation for local and combined learning and for given folds
  (:class:`randomts.fitting.local_learning.LearningStatistics`, on the same
  grid, prior and choice, :func:`best_index`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.linalg

from randomts._validation import check_int, check_int_option, check_matrix, check_option
from randomts.core import membership
from randomts.core.accumulators import (
    LeastSquaresAccumulator,
    check_factor_memory,
    gram_eigh,
)
from randomts.core.design import design_matrix, design_rows_writer
from randomts.fitting.protocol import check_rule_base

__all__ = [
    "AlphaSelection",
    "CRITERIA",
    "LeaveOneOutRidge",
    "RELATIVE_ALPHAS",
    "best_index",
    "check_alphas",
    "choose_alpha",
    "choose_consequent_alpha",
    "design_of",
    "mean_prior",
    "ridge_grid",
]

#: The closed-form criteria of :func:`choose_alpha`: leave-one-out, generalised cross-validation.
CRITERIA = ("loo", "gcv")

#: The grid of every ``alpha="auto"``, in units of the mean eigenvalue of the system's matrix
#: (``K^T K``: the mean squared column norm of ``K``): half decades from nearly no penalty to
#: a penalty that shrinks every consequent to the prior.
RELATIVE_ALPHAS = np.logspace(-10.0, 2.0, 25)
# Penalty of the fit of the constant 1 behind the prior Gamma_0, in units of the mean
# eigenvalue, for outputs whose mean is within one standard deviation of 0 (smaller beyond).
_CONSTANT_PENALTY = 1e-10
# Rows of K formed at once by the passes over the data (2^22 entries, 32 MiB).
_BLOCK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class AlphaSelection:
    """The ridge penalty chosen over a grid, with the curve.

    Attributes
    ----------
    alpha : float
        The grid value with the least error.
    alphas : ndarray of shape (n_alphas,)
        The grid.
    errors : ndarray of shape (n_alphas,)
        LOO or GCV mean squared error at each ``alpha`` (averaged over outputs).
    criterion : str
        ``"loo"`` or ``"gcv"``.
    coefficients : ndarray of shape (n_columns, n_outputs)
        ``Gamma`` at the chosen ``alpha``.
    prior : ndarray of shape (n_columns, n_outputs) or None
        The coefficients the penalty shrinks toward (:func:`choose_alpha` with
        ``toward_mean=True``); zeros or None when it shrinks toward zero.
    """

    alpha: float
    alphas: np.ndarray
    errors: np.ndarray
    criterion: str
    coefficients: np.ndarray
    prior: np.ndarray | None = None


def check_alphas(alphas):
    """``alphas`` as a non-empty 1-D grid of finite values > 0, or ValueError."""
    alphas = np.asarray(alphas, dtype=float)
    if (
        alphas.ndim != 1
        or alphas.size == 0
        or not np.all(np.isfinite(alphas))
        or np.any(alphas <= 0)
    ):
        raise ValueError(
            f"alphas must be a non-empty 1-D grid of finite values > 0; got {alphas!r}."
        )
    return alphas


def ridge_grid(mean_eigenvalue):
    """``(scale, grid)``: the mean eigenvalue (1 if not positive) and ``scale * RELATIVE_ALPHAS``.

    Examples
    --------
    >>> scale, grid = ridge_grid(4.0)
    >>> scale, grid.size, f"{grid[0]:.6g}", f"{grid[-1]:.6g}"
    (4.0, 25, '4e-10', '400')
    """
    scale = mean_eigenvalue if mean_eigenvalue > 0 else 1.0
    return scale, scale * RELATIVE_ALPHAS


def mean_prior(eigenvalues, z_one, y_mean, y_std, scale):
    """Coordinates, in an eigenbasis ``V``, of the consequents that best reproduce each output's mean.

    For each output, its mean times the constant 1 fitted with a penalty of
    ``1e-10 min(1, std / |mean|)`` of ``scale`` (the mean eigenvalue): a
    weighted sum of rules reproduces 1 only approximately, and the penalty
    keeps the error of that approximation, times the mean, small beside the
    spread of the output however far from 0 the output lies.

    Parameters
    ----------
    eigenvalues : ndarray of shape (rank,)
        Of the system's matrix, in the basis ``V``.
    z_one : ndarray of shape (rank,)
        ``V^T`` times the right-hand side of the constant 1 (``K^T 1``).
    y_mean, y_std : ndarray of shape (n_outputs,)
        Each output's mean and standard deviation.
    scale : float
        The mean eigenvalue (:func:`ridge_grid`).

    Returns
    -------
    ndarray of shape (rank, n_outputs)

    Examples
    --------
    >>> import numpy as np
    >>> mean_prior(np.array([2.0]), np.array([2.0]), np.array([3.0]), np.array([0.0]), 1.0)
    array([[3.]])
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.where(np.abs(y_mean) > y_std, y_std / np.abs(y_mean), 1.0)
    penalty = _CONSTANT_PENALTY * scale * relative
    return z_one[:, None] / (eigenvalues[:, None] + penalty[None, :]) * y_mean[None, :]


def best_index(errors):
    """The index of the least error of a grid (errors that are not finite count as ``inf``).

    ``errors`` is changed in place; the first of equal least errors wins.

    Examples
    --------
    >>> import numpy as np
    >>> best_index(np.array([[3.0, np.nan], [1.0, 1.0]]))
    (1, 0)
    """
    errors[~np.isfinite(errors)] = np.inf
    return tuple(int(i) for i in np.unravel_index(int(np.argmin(errors)), errors.shape))


def choose_alpha(K, Y, alphas=None, *, criterion="loo", toward_mean=True, check_input=True):
    """The ridge penalty of least leave-one-out (or GCV) error over a grid, from one eigendecomposition.

    Minimises ``||Y - K Gamma||^2 + alpha ||Gamma - Gamma_0||^2`` for every
    ``alpha`` of the grid and keeps the one of least leave-one-out (LOO)
    error, computed in closed form from the leverages as in scikit-learn's
    ``RidgeCV`` (``gcv_mode="eigen"``): with ``K^T K = V diag(l) V^T`` (or
    ``K K^T`` when ``K`` has more columns than rows) and ``P = K V``, the
    fitted values are ``P a(alpha)`` and the leverages
    ``h_j = sum_k P_jk^2 / (l_k + alpha)``; the LOO residual of row ``j`` is
    ``(y_j - y_hat_j) / (1 - h_j)``. Generalised cross-validation
    (``criterion="gcv"``) divides the mean squared residual by ``(1 -
    tr(H) / n_samples)^2`` instead, ``tr(H) = sum_k l_k / (l_k + alpha)``.
    The cost is one pass forming ``K^T K``, the eigendecomposition, and one
    pass forming ``P``: about one least-squares fit.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_columns)
        Design matrix.
    Y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Targets.
    alphas : array-like of float > 0, optional
        The grid. By default ``RELATIVE_ALPHAS`` times the mean
        eigenvalue of ``K^T K`` (25 values, half a decade apart, from
        ``1e-10`` to ``1e2`` of it), which makes the choice independent of the
        scale of ``K``.
    criterion : {"loo", "gcv"}, default="loo"
        Exact leave-one-out error, or generalised cross-validation.
    toward_mean : bool, default=True
        Shrink toward ``Gamma_0``, the (nearly unpenalised) coefficients that
        best reproduce the mean of each output, instead of toward zero.
    check_input : bool, default=True
        Validate ``K`` and ``Y``; False when the caller has (finite float
        arrays of matching rows, ``Y`` of one or two dimensions).

    Returns
    -------
    AlphaSelection
        ``errors`` are the LOO (or GCV) mean squared errors averaged over
        outputs (one ``alpha`` for all outputs).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> K = rng.normal(size=(60, 8)); y = K @ rng.normal(size=8) + 0.1 * rng.normal(size=60)
    >>> sel = choose_alpha(K, y, [1e-3, 1e-1, 10.0, 1e3], toward_mean=False)
    >>> # the closed form equals refitting without each row in turn
    >>> def ridge(K, y, alpha):
    ...     return np.linalg.solve(K.T @ K + alpha * np.eye(K.shape[1]), K.T @ y)
    >>> loo = [np.mean([(y[j] - K[j] @ ridge(np.delete(K, j, 0), np.delete(y, j), a)) ** 2
    ...                 for j in range(60)]) for a in sel.alphas]
    >>> bool(np.allclose(sel.errors, loo, rtol=1e-8))
    True
    >>> bool(np.allclose(sel.coefficients[:, 0], ridge(K, y, sel.alpha), rtol=1e-8))
    True
    >>> gcv = choose_alpha(K, y, [1e-3, 1e-1, 10.0, 1e3], criterion="gcv", toward_mean=False)
    >>> trace = [np.trace(K @ np.linalg.solve(K.T @ K + a * np.eye(8), K.T)) for a in gcv.alphas]
    >>> mse = [np.mean((y - K @ ridge(K, y, a)) ** 2) for a in gcv.alphas]
    >>> bool(np.allclose(gcv.errors, np.divide(mse, (1 - np.divide(trace, 60)) ** 2), rtol=1e-8))
    True
    """
    if check_input:
        K = check_matrix(K, "K", column_label="columns")
        Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
    elif Y.ndim == 1:
        Y = Y[:, None]
    if Y.shape[0] != K.shape[0]:
        raise ValueError(
            f"K and Y must have the same number of rows; got {K.shape[0]} and {Y.shape[0]}."
        )
    check_option(criterion, "criterion", CRITERIA)
    if alphas is not None:
        alphas = check_alphas(alphas)
    return _choose(
        lambda start, stop: K[start:stop], K.shape[0], K.shape[1], Y, alphas, toward_mean, criterion
    )


class LeaveOneOutRidge:
    """Exact leave-one-out ridge over a grid of penalties, from rows given in blocks.

    What :func:`choose_alpha` computes, for rows that are not in memory at once
    (chunks of a file, the workers of a cluster) or for a design matrix that
    is never formed whole. Two passes over the rows:

    1. :meth:`update` (or :meth:`update_rows`) folds blocks of ``K`` and
       ``Y`` into the Gram matrix of ``[K Y 1]`` through the fitting engine
       (:class:`~randomts.core.accumulators.LeastSquaresAccumulator` with the
       ``"cholesky"`` factor); accumulations of different rows combine with
       :meth:`merge`.
    2. :meth:`squared_errors` gives, for a block of rows, the sum of the
       squared leave-one-out residuals at every ``alpha`` of the grid (from
       the eigendecomposition of ``K^T K``, :meth:`decompose`, computed once);
       the sums of all blocks add up.

    :meth:`select` then picks the ``alpha`` of least error and gives the
    coefficients there.

    Parameters
    ----------
    n_columns : int
        Columns of ``K``.
    n_outputs : int, default=1
        Columns of ``Y``; one ``alpha`` serves all of them.
    alphas : array-like of float > 0, optional
        The grid; by default ``RELATIVE_ALPHAS`` times the mean eigenvalue of
        ``K^T K``, as in :func:`choose_alpha`.
    toward_mean : bool, default=True
        Shrink toward the coefficients that reproduce the mean of each output
        (see :func:`choose_alpha`) instead of toward zero.
    criterion : {"loo", "gcv"}, default="loo"
        Exact leave-one-out error, or generalised cross-validation.
    what : str, optional
        What the columns are, for the error raised when the Gram matrix cannot
        fit in memory.

    Attributes
    ----------
    accumulator : LeastSquaresAccumulator
        The Gram matrix of ``[K Y 1]`` of the rows folded in.
    prior : ndarray of shape (n_columns, n_outputs)
        The coefficients the penalty shrinks toward (zeros unless
        ``toward_mean``); available after :meth:`decompose`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> K = rng.normal(size=(500, 6)); y = K @ rng.normal(size=6) + 0.1 * rng.normal(size=500)
    >>> blocks = np.array_split(np.arange(500), 4)
    >>> loo = LeaveOneOutRidge(6, alphas=[1e-2, 1.0, 1e2])
    >>> for rows in blocks:  # first pass
    ...     _ = loo.update(K[rows], y[rows])
    >>> squares = sum(loo.squared_errors(K[rows], y[rows]) for rows in blocks)  # second pass
    >>> selection = loo.select(squares)
    >>> whole = choose_alpha(K, y, [1e-2, 1.0, 1e2])
    >>> bool(np.allclose(selection.errors, whole.errors, rtol=1e-10))
    True
    >>> bool(np.allclose(selection.coefficients, whole.coefficients, rtol=1e-10))
    True
    """

    def __init__(
        self, n_columns, n_outputs=1, *, alphas=None, toward_mean=True, criterion="loo", what=None
    ):
        self.n_columns = check_int(n_columns, "n_columns", low=1)
        self.criterion = check_option(criterion, "criterion", CRITERIA)
        self.n_outputs = check_int(n_outputs, "n_outputs", low=1)
        self.alphas = None if alphas is None else check_alphas(alphas)
        self.toward_mean = bool(toward_mean)
        self.accumulator = LeastSquaresAccumulator(
            self.n_columns, self.n_outputs + 1, solver="cholesky", what=what
        )
        self._spectrum = None

    @property
    def n_samples(self) -> int:
        """Rows folded in by the first pass."""
        return self.accumulator.n_samples

    def _first_pass(self):
        if self._spectrum is not None:
            raise ValueError(
                "The first pass is over: rows can no longer be added after decompose(), "
                "squared_errors() or select()."
            )

    def update(self, K, Y, *, n_jobs=None):
        """Fold in rows ``K`` (n_rows, n_columns) and their targets ``Y``; returns self."""
        self._first_pass()
        K = check_matrix(K, "K", column_label="columns", n_columns=self.n_columns)
        Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs", n_columns=self.n_outputs)
        if Y.shape[0] != K.shape[0]:
            raise ValueError(
                f"K and Y must have the same number of rows; got {K.shape[0]} and {Y.shape[0]}."
            )
        ones = np.ones((K.shape[0], 1))
        self.accumulator.update(K, np.hstack([Y, ones]), n_jobs=n_jobs)
        return self

    def update_rows(self, fill, n_rows, *, n_jobs=None):
        """Fold in ``n_rows`` rows of ``[K Y]`` written in blocks by ``fill(start, stop, out)``.

        As :meth:`~randomts.core.accumulators.LeastSquaresAccumulator.update_rows`; the column of ones is
        added here. Returns self.
        """
        self._first_pass()
        width = self.n_columns + self.n_outputs

        def write(start, stop, out):
            fill(start, stop, out[:, :width])
            out[:, width] = 1.0

        self.accumulator.update_rows(write, n_rows, n_jobs=n_jobs)
        return self

    def merge(self, other):
        """Fold in the first pass of another instance over other rows; returns self."""
        self._first_pass()
        if not isinstance(other, LeaveOneOutRidge) or other.toward_mean != self.toward_mean:
            raise ValueError("Can only merge a LeaveOneOutRidge with the same toward_mean.")
        self.accumulator.merge(other.accumulator)
        return self

    def decompose(self):
        """End the first pass: the eigendecomposition of ``K^T K`` and the grid; returns self."""
        if self._spectrum is not None:
            return self
        n_samples = self.n_samples
        if n_samples == 0:
            raise ValueError("No rows have been folded in: call update(K, Y) first.")
        p, m = self.n_columns, self.n_outputs
        G = self.accumulator.factor
        eigenvalues, V, above = gram_eigh(G, p, n_samples=n_samples)
        total = float(np.trace(G[:p, :p]))
        eigenvalues, V = eigenvalues[above], V[:, above]
        y_mean = G[p : p + m, p + m] / n_samples
        y_variance = np.diagonal(G[p : p + m, p : p + m]) / n_samples - y_mean**2
        self._spectrum = _Spectrum.of(
            eigenvalues,
            V,
            total / p,
            V.T @ G[:p, p : p + m],
            V.T @ G[:p, p + m],
            y_mean,
            np.sqrt(np.maximum(y_variance, 0.0)),
            self.alphas,
            self.toward_mean,
            self.criterion,
        )
        self.prior = self._spectrum.prior
        return self

    def squared_errors(self, K, Y):
        """Sum over the rows of ``K`` and ``Y`` of the squared leave-one-out residuals.

        Parameters
        ----------
        K : ndarray of shape (n_rows, n_columns)
            Rows of the design matrix folded in by the first pass.
        Y : ndarray of shape (n_rows,) or (n_rows, n_outputs)
            Their targets.

        Returns
        -------
        ndarray of shape (n_alphas,)
            Summed over rows and outputs, one entry per ``alpha`` of the grid
            (``inf`` where a leverage reaches 1).
        """
        K = check_matrix(K, "K", column_label="columns", n_columns=self.n_columns)
        Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs", n_columns=self.n_outputs)
        return self._squared_errors(K, Y)

    def _squared_errors(self, K, Y):
        """:meth:`squared_errors` of checked rows (float64, ``Y`` 2-D)."""
        spectrum = self.decompose()._spectrum
        return spectrum.squared_errors(K @ spectrum.V, Y)

    def select(self, squared_errors):
        """The ``alpha`` of least leave-one-out error and the coefficients there.

        Parameters
        ----------
        squared_errors : array-like of shape (n_alphas,)
            :meth:`squared_errors` summed over every row folded in.

        Returns
        -------
        AlphaSelection
            ``errors`` are the mean squared errors of ``criterion``,
            averaged over rows and outputs; ``prior`` is ``self.prior``.
        """
        spectrum = self.decompose()._spectrum
        squared = np.asarray(squared_errors, dtype=float)
        if squared.shape != spectrum.alphas.shape:
            raise ValueError(
                f"squared_errors must have one entry per alpha ({spectrum.alphas.size}); "
                f"got shape {squared.shape}."
            )
        return spectrum.select(squared, self.n_samples, self.n_outputs, self.prior)


@dataclass(frozen=True)
class _Spectrum:
    """The ridge solutions of every ``alpha`` of a grid in the eigenbasis ``V`` of ``K^T K``."""

    eigenvalues: np.ndarray
    V: np.ndarray
    alphas: np.ndarray
    a_0: np.ndarray
    z_rest: np.ndarray
    criterion: str = "loo"

    @classmethod
    def of(
        cls,
        eigenvalues,
        V,
        mean_eigenvalue,
        z_y,
        z_1,
        y_mean,
        y_std,
        alphas,
        toward_mean,
        criterion="loo",
    ):
        """From ``K^T K``'s eigenpairs above the rank cut, ``z_y = V^T K^T Y``, ``z_1 = V^T K^T 1``.

        The grid is :func:`ridge_grid` of the mean eigenvalue unless
        ``alphas`` are given; the prior ``Gamma_0 = V a_0`` is
        :func:`mean_prior` (``y_mean``, ``y_std``: each output's mean and
        standard deviation), or zero. The ridge then fits the rest, ``Y - K
        Gamma_0``.
        """
        scale, grid = ridge_grid(mean_eigenvalue)
        if alphas is None:
            alphas = grid
        y_mean = np.atleast_1d(np.asarray(y_mean, dtype=float))
        if toward_mean:
            y_std = np.atleast_1d(np.asarray(y_std, dtype=float))
            a_0 = mean_prior(eigenvalues, z_1, y_mean, y_std, scale)
        else:
            a_0 = np.zeros((eigenvalues.size, y_mean.size))
        return cls(eigenvalues, V, alphas, a_0, z_y - eigenvalues[:, None] * a_0, criterion)

    @property
    def prior(self):
        """``Gamma_0`` of shape (n_columns, n_outputs)."""
        return self.V @ self.a_0

    @cached_property
    def inverse(self):  # (rank, n_alphas)
        return 1.0 / (self.eigenvalues[:, None] + self.alphas[None, :])

    @cached_property
    def coordinates(self):
        """Coordinates of ``Gamma(alpha)`` in ``V``, all alphas side by side: (rank, n_alphas, m)."""
        return self.a_0[:, None, :] + self.inverse[:, :, None] * self.z_rest[:, None, :]

    def squared_errors(self, P, Y):
        """Summed squared LOO residuals (GCV: residuals) of the rows ``P = K V``, per alpha."""
        n_alphas, n_outputs = self.alphas.size, Y.shape[1]
        inverse = self.inverse
        coordinates = self.coordinates.reshape(self.eigenvalues.size, -1)
        squared = np.zeros(n_alphas)
        step = max(1, _BLOCK_ELEMENTS // max(P.shape[1] + coordinates.shape[1], 1))
        for start in range(0, P.shape[0], step):
            Pb, Yb = P[start : start + step], Y[start : start + step]
            fitted = (Pb @ coordinates).reshape(Pb.shape[0], n_alphas, n_outputs)
            if self.criterion == "gcv":
                residual = Yb[:, None, :] - fitted
                squared += np.sum(residual * residual, axis=(0, 2))
                continue
            leverage = (Pb * Pb) @ inverse
            with np.errstate(divide="ignore", invalid="ignore"):
                loo = (Yb[:, None, :] - fitted) / (1.0 - leverage)[:, :, None]
                squared += np.sum(loo * loo, axis=(0, 2))
        return squared

    def select(self, squared, n_samples, n_outputs, prior):
        """The :class:`AlphaSelection` of summed squared errors over every row."""
        errors = squared / (n_samples * n_outputs)
        if self.criterion == "gcv":  # the mean squared residual over (1 - tr(H) / n)^2
            trace = self.eigenvalues @ self.inverse
            with np.errstate(divide="ignore", invalid="ignore"):
                errors = errors / (1.0 - trace / n_samples) ** 2
        (best,) = best_index(errors)
        gamma = self.V @ self.coordinates[:, best, :]
        return AlphaSelection(
            float(self.alphas[best]), self.alphas, errors, self.criterion, gamma, prior
        )


def _choose(
    rows, n_samples, n_columns, Y, alphas, toward_mean, criterion="loo", *, fill=None, n_jobs=None
):
    """:func:`choose_alpha` on a design matrix given by blocks: ``rows(start, stop) = K[start:stop]``.

    With at least as many rows as columns, :class:`LeaveOneOutRidge` forms
    ``K`` a block at a time (twice: for the Gram matrix, written by ``fill``
    if given, and for the leave-one-out residuals), never whole. With more
    columns than rows, the row space: the eigendecomposition of ``K K^T``.
    Returns the :class:`AlphaSelection`, with the prior ``Gamma_0`` (zeros
    unless ``toward_mean``).
    """
    n_outputs = Y.shape[1]
    step = max(1, _BLOCK_ELEMENTS // max(n_columns, 1))
    blocks = [(start, min(start + step, n_samples)) for start in range(0, n_samples, step)]
    if n_columns <= n_samples:
        loo = LeaveOneOutRidge(
            n_columns, n_outputs, alphas=alphas, toward_mean=toward_mean, criterion=criterion
        )
        if fill is None:

            def fill(start, stop, out):
                out[:, :n_columns] = rows(start, stop)
                out[:, n_columns:] = Y[start:stop]

        loo.update_rows(fill, n_samples, n_jobs=n_jobs)
        squared = sum(
            loo._squared_errors(rows(start, stop), Y[start:stop]) for start, stop in blocks
        )
        return loo.select(squared)
    # the row space: K K^T = U diag(l) U^T, n_samples x n_samples; then P = K V = U sqrt(l)
    check_factor_memory(n_columns, n_outputs, n_rows=n_samples, row_space=True)
    K = rows(0, n_samples)
    eigenvalues, U = scipy.linalg.eigh(K @ K.T, check_finite=False, driver="evd")
    eigenvalues = np.maximum(eigenvalues, 0.0)
    total = float(np.sum(eigenvalues))
    # numpy.linalg.lstsq's rank cut, as randomts.core.accumulators.gram_eigh makes it
    keep = eigenvalues > max(n_samples, n_columns) * np.finfo(float).eps * eigenvalues[-1]
    eigenvalues, U = eigenvalues[keep], U[:, keep]
    root = np.sqrt(eigenvalues)
    P = U * root
    V = (K.T @ U) / root
    spectrum = _Spectrum.of(
        eigenvalues,
        V,
        total / n_columns,
        P.T @ Y,
        P.T @ np.ones(n_samples),
        Y.mean(axis=0),
        Y.std(axis=0),
        alphas,
        toward_mean,
        criterion,
    )
    return spectrum.select(spectrum.squared_errors(P, Y), n_samples, n_outputs, spectrum.prior)


def design_of(antecedents, X, order):
    """The design matrix ``K`` of the antecedents on the rows ``X``."""
    weights = membership.firing_strengths(
        X, antecedents.centers, antecedents.sigmas, normalize=antecedents.normalize
    )
    return design_matrix(weights, X, order=order)


def choose_consequent_alpha(
    antecedents,
    X,
    Y,
    *,
    order=1,
    alphas=None,
    criterion="loo",
    toward_mean=True,
    n_jobs=None,
    check_input=True,
):
    """The ridge penalty of a rule base's consequents (:func:`choose_alpha`) and the fit there.

    What ``alpha="auto"`` chooses in
    :func:`randomts.fitting.consequents.fit_consequents` and
    :class:`~randomts.RandomTSRegressor`: :func:`choose_alpha` on the design
    matrix ``K`` of the antecedents on ``X``, which is formed a block of
    rows at a time (twice: for the Gram matrix, by ``n_jobs`` threads, and
    for the leave-one-out residuals), never whole; with more unknowns than
    rows, from the eigendecomposition of ``K K^T``.

    Parameters
    ----------
    antecedents : RuleBase
        Fixed antecedents (their consequents are ignored).
    X : array-like of shape (n_samples, n_features)
        Inputs.
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Targets; one ``alpha`` serves every output.
    order : {0, 1}, default=1
        Consequent order.
    alphas : array-like of float > 0, optional
        The grid; by default ``RELATIVE_ALPHAS`` times the mean eigenvalue of
        ``K^T K`` (see :func:`choose_alpha`).
    criterion : {"loo", "gcv"}, default="loo"
        Exact leave-one-out error, or generalised cross-validation.
    toward_mean : bool, default=True
        Shrink toward the coefficients that reproduce the mean of each
        output instead of toward zero.
    n_jobs : int, optional
        Threads forming the Gram matrix (default one; see
        ``randomts._threads.effective_n_jobs``). The result does not depend on it.
    check_input : bool, default=True
        False for checked arguments: ``X`` and a 2-D ``Y`` finite float64
        arrays of matching rows, ``order`` 0 or 1, the grid checked.

    Returns
    -------
    AlphaSelection
        The chosen ``alpha``, the curve, the coefficients ``Gamma`` there
        (stacked as :func:`randomts.core.design.split_coefficients` reads
        them) and the ``prior`` they were shrunk toward.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(300, 2)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=300)
    >>> antecedents = RuleBase.random(n_features=2, n_rules=20, random_state=0)
    >>> selection = choose_consequent_alpha(antecedents, X, y)
    >>> whole = choose_alpha(antecedents.design_matrix(X), y)  # K formed whole
    >>> bool(np.isclose(selection.alpha, whole.alpha, rtol=1e-12))
    True
    >>> round(float(np.sqrt(selection.errors.min())), 2)  # leave-one-out RMSE, about the noise
    0.1
    """
    if check_input:
        check_rule_base(antecedents)
        order = check_int_option(order, "order", (0, 1))
        X = check_matrix(X, "X", n_columns=antecedents.n_features, owner="this rule base")
        Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
        if Y.shape[0] != X.shape[0]:
            raise ValueError(
                f"X and Y must have the same number of samples; got {X.shape[0]} and {Y.shape[0]}."
            )
        check_option(criterion, "criterion", CRITERIA)
        if alphas is not None:
            alphas = check_alphas(alphas)
    n_columns = antecedents.n_rules * (antecedents.n_features + 1 if order == 1 else 1)
    return _choose(
        lambda start, stop: design_of(antecedents, X[start:stop], order),
        X.shape[0],
        n_columns,
        Y,
        alphas,
        bool(toward_mean),
        criterion,
        fill=design_rows_writer(
            X,
            Y,
            antecedents.centers,
            antecedents.sigmas,
            normalize=antecedents.normalize,
            order=order,
        ),
        n_jobs=n_jobs,
    )
