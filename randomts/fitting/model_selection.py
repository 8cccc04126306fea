"""Model selection from one factorisation: the ridge ``alpha`` and the number of rules.

:func:`ridge_alpha_curve` scores every ``alpha`` of a grid by the closed-form
leave-one-out (LOO) or generalised cross-validation (GCV) error, from one QR
factorisation of ``[K Y]`` and the SVD of its small triangle
``R11 = U S V^T``: with ``P = K V`` and ``d = S U^T C`` (``= V^T K^T Y``),

* fitted values ``Y_hat(alpha) = P diag(1 / (s^2 + alpha)) d``;
* leverages ``h_jj(alpha) = sum_i P_ji^2 / (s_i^2 + alpha)``;
* LOO error ``mean_j ||(y_j - y_hat_j) / (1 - h_jj)||^2``, GCV error
  ``mean ||Y - Y_hat||^2 / (1 - tr(H) / N)^2``, ``tr(H) = sum s^2 / (s^2 + alpha)``.

:func:`select_n_rules` scores nested rule bases (the first ``h`` rules of the
antecedents) on validation data. For the weighted sum (``normalize=False``)
the columns of ``K`` for the first ``h`` rules are the leading columns of the
whole ``K``, so one accumulated factor of ``[K Y]`` serves every ``h``: its
leading block is the factor of the smaller problem. Both return the curve
they used.

:func:`ridge_loo` is what :class:`~randomts.RandomTSRegressor` does at its
default ``alpha="auto"``, the way scikit-learn's ``RidgeCV`` does it: one
eigendecomposition, of ``K^T K`` (``n_columns x n_columns``) when there are at
least as many rows as unknowns, else of ``K K^T`` (``n_samples x
n_samples``, the row space), gives the exact leave-one-out error of every
``alpha`` of a grid and the coefficients at the best one. It can shrink the
consequents toward the rule base that best reproduces the mean of the
targets instead of toward zero (a weighted sum of rules has no constant term
of its own), so that the penalty acts on the variation of the targets, not on
their offset.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.linalg

from randomts._validation import check_int, check_int_option, check_matrix, check_option, check_real
from randomts.core.accumulators import (
    LeastSquaresAccumulator,
    _rank_tolerance,
    check_factor_memory,
    gram_eigh,
    solve_factor,
)
from randomts.core.design import design_rows_writer, split_coefficients
from randomts.core.solvers import SOLVERS
from randomts.fuzzy.rulebase import RuleBase

__all__ = [
    "AlphaSelection",
    "LeaveOneOutRidge",
    "RulesSelection",
    "ridge_alpha_curve",
    "ridge_loo",
    "select_alpha",
    "select_n_rules",
]

CRITERIA = ("loo", "gcv")


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
    """

    alpha: float
    alphas: np.ndarray
    errors: np.ndarray
    criterion: str
    coefficients: np.ndarray


@dataclass(frozen=True)
class RulesSelection:
    """The number of rules chosen by validation error, with the curve.

    Attributes
    ----------
    n_rules : int
        The grid value with the least validation error.
    grid : ndarray of int
        The numbers of rules tried.
    validation_mse, training_mse : ndarray
        Mean squared errors (averaged over outputs) for each grid value.
    rule_base : RuleBase
        The first ``n_rules`` rules with their fitted consequents.
    """

    n_rules: int
    grid: np.ndarray
    validation_mse: np.ndarray
    training_mse: np.ndarray
    rule_base: RuleBase


def _check_alphas(alphas):
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


def ridge_alpha_curve(K, Y, alphas=None, *, criterion="loo"):
    """LOO or GCV error of the ridge solution for every ``alpha``, from one factorisation.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_columns)
        Design matrix.
    Y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Targets.
    alphas : array-like of float > 0, default=np.logspace(-12, 2, 29)
        The grid.
    criterion : {"loo", "gcv"}, default="loo"
        Closed-form leave-one-out or generalised cross-validation error.

    Returns
    -------
    AlphaSelection

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> K = rng.normal(size=(80, 10)); Y = K @ rng.normal(size=10) + 0.1 * rng.normal(size=80)
    >>> sel = ridge_alpha_curve(K, Y, [1e-3, 1e-1, 10.0, 1e3])
    >>> sel.errors.shape, sel.alpha in sel.alphas
    ((4,), True)
    >>> bool(sel.errors[-1] > sel.errors[0])  # a huge penalty underfits
    True
    """
    check_option(criterion, "criterion", CRITERIA)
    alphas = _check_alphas(np.logspace(-12, 2, 29) if alphas is None else alphas)
    K = check_matrix(K, "K", column_label="columns")
    Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
    if Y.shape[0] != K.shape[0]:
        raise ValueError(
            f"K and Y must have the same number of rows; got {K.shape[0]} and {Y.shape[0]}."
        )
    n_samples, n_columns = K.shape
    factor = LeastSquaresAccumulator(n_columns, Y.shape[1]).update(K, Y).factor
    R11 = np.triu(factor[:n_columns, :n_columns])
    U, s, Vt = scipy.linalg.svd(R11, check_finite=False, lapack_driver="gesdd")
    d = s[:, None] * (U.T @ factor[:n_columns, n_columns:])  # V^T K^T Y
    P = K @ Vt.T
    inverse = 1.0 / (s[:, None] ** 2 + alphas[None, :])  # (n_columns, n_alphas)
    leverage = (P * P) @ inverse if criterion == "loo" else None
    errors = np.empty(alphas.size)
    for a in range(alphas.size):
        residual = Y - P @ (inverse[:, a, None] * d)
        if criterion == "loo":
            errors[a] = np.mean((residual / (1.0 - leverage[:, a, None])) ** 2)
        else:
            trace = np.sum(s * s * inverse[:, a])
            errors[a] = np.mean(residual**2) / (1.0 - trace / n_samples) ** 2
    best = int(np.argmin(errors))
    gamma = Vt.T @ (inverse[:, best, None] * d)
    return AlphaSelection(float(alphas[best]), alphas, errors, criterion, gamma)


#: Default grid of :func:`ridge_loo`, in units of the mean eigenvalue of ``K^T K``
#: (the mean squared column norm of ``K``): half decades from nearly no penalty to
#: a penalty that shrinks every consequent to the prior.
RELATIVE_ALPHAS = np.logspace(-10.0, 2.0, 25)
# Penalty of the fit of the constant 1 behind the prior Gamma_0, in units of the mean
# eigenvalue, for outputs whose mean is within one standard deviation of 0 (smaller beyond).
_CONSTANT_PENALTY = 1e-10
# Rows of K formed at once by ridge_loo's passes over the data (2^22 entries, 32 MiB).
_BLOCK_ELEMENTS = 1 << 22


def ridge_loo(K, Y, alphas=None, *, toward_mean=True):
    """Exact leave-one-out ridge over a grid, from one eigendecomposition.

    Minimises ``||Y - K Gamma||^2 + alpha ||Gamma - Gamma_0||^2`` for every
    ``alpha`` of the grid and keeps the one of least leave-one-out (LOO)
    error, computed in closed form from the leverages as in scikit-learn's
    ``RidgeCV`` (``gcv_mode="eigen"``): with ``K^T K = V diag(l) V^T`` (or
    ``K K^T`` when ``K`` has more columns than rows) and ``P = K V``, the
    fitted values are ``P a(alpha)`` and the leverages
    ``h_j = sum_k P_jk^2 / (l_k + alpha)``; the LOO residual of row ``j`` is
    ``(y_j - y_hat_j) / (1 - h_j)``. The cost is one pass forming ``K^T K``,
    the eigendecomposition, and one pass forming ``P``: about one
    least-squares fit.

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
    toward_mean : bool, default=True
        Shrink toward ``Gamma_0``, the (nearly unpenalised) coefficients that
        best reproduce the mean of each output, instead of toward zero.

    Returns
    -------
    AlphaSelection
        ``criterion="loo"``; ``errors`` are LOO mean squared errors averaged
        over outputs (one ``alpha`` for all outputs).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> K = rng.normal(size=(60, 8)); y = K @ rng.normal(size=8) + 0.1 * rng.normal(size=60)
    >>> sel = ridge_loo(K, y, [1e-3, 1e-1, 10.0, 1e3], toward_mean=False)
    >>> # the closed form equals refitting without each row in turn
    >>> def ridge(K, y, alpha):
    ...     return np.linalg.solve(K.T @ K + alpha * np.eye(K.shape[1]), K.T @ y)
    >>> loo = [np.mean([(y[j] - K[j] @ ridge(np.delete(K, j, 0), np.delete(y, j), a)) ** 2
    ...                 for j in range(60)]) for a in sel.alphas]
    >>> bool(np.allclose(sel.errors, loo, rtol=1e-8))
    True
    >>> bool(np.allclose(sel.coefficients[:, 0], ridge(K, y, sel.alpha), rtol=1e-8))
    True
    """
    K = check_matrix(K, "K", column_label="columns")
    Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
    if Y.shape[0] != K.shape[0]:
        raise ValueError(
            f"K and Y must have the same number of rows; got {K.shape[0]} and {Y.shape[0]}."
        )
    if alphas is not None:
        alphas = _check_alphas(alphas)
    selection, _ = _ridge_loo(
        lambda start, stop: K[start:stop], K.shape[0], K.shape[1], Y, alphas, toward_mean
    )
    return selection


class LeaveOneOutRidge:
    """Exact leave-one-out ridge over a grid of penalties, from rows given in blocks.

    What :func:`ridge_loo` computes, for rows that are not in memory at once
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
        ``K^T K``, as in :func:`ridge_loo`.
    toward_mean : bool, default=True
        Shrink toward the coefficients that reproduce the mean of each output
        (see :func:`ridge_loo`) instead of toward zero.
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
    >>> whole = ridge_loo(K, y, [1e-2, 1.0, 1e2])
    >>> bool(np.allclose(selection.errors, whole.errors, rtol=1e-10))
    True
    >>> bool(np.allclose(selection.coefficients, whole.coefficients, rtol=1e-10))
    True
    """

    def __init__(self, n_columns, n_outputs=1, *, alphas=None, toward_mean=True, what=None):
        self.n_columns = check_int(n_columns, "n_columns", low=1)
        self.n_outputs = check_int(n_outputs, "n_outputs", low=1)
        self.alphas = None if alphas is None else _check_alphas(alphas)
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
            ``criterion="loo"``; ``errors`` are mean squared errors averaged
            over rows and outputs.
        """
        spectrum = self.decompose()._spectrum
        squared = np.asarray(squared_errors, dtype=float)
        if squared.shape != spectrum.alphas.shape:
            raise ValueError(
                f"squared_errors must have one entry per alpha ({spectrum.alphas.size}); "
                f"got shape {squared.shape}."
            )
        return spectrum.select(squared, self.n_samples * self.n_outputs)


@dataclass(frozen=True)
class _Spectrum:
    """The ridge solutions of every ``alpha`` of a grid in the eigenbasis ``V`` of ``K^T K``."""

    eigenvalues: np.ndarray
    V: np.ndarray
    alphas: np.ndarray
    a_0: np.ndarray
    z_rest: np.ndarray

    @classmethod
    def of(cls, eigenvalues, V, mean_eigenvalue, z_y, z_1, y_mean, y_std, alphas, toward_mean):
        """From ``K^T K``'s eigenpairs above the rank cut, ``z_y = V^T K^T Y``, ``z_1 = V^T K^T 1``.

        The default grid is ``RELATIVE_ALPHAS`` times the mean eigenvalue. The
        prior ``Gamma_0 = V a_0`` is, for each output, its mean times the
        constant 1 fitted with a penalty of ``1e-10 min(1, std / |mean|)`` of
        that scale (``y_mean``, ``y_std``: each output's mean and standard
        deviation): a weighted sum of rules reproduces 1 only approximately,
        and the penalty keeps the error of that approximation, times the
        mean, small beside the spread of the output however far from 0 the
        output lies. The ridge then fits the rest, ``Y - K Gamma_0``.
        """
        scale = mean_eigenvalue if mean_eigenvalue > 0 else 1.0
        if alphas is None:
            alphas = scale * RELATIVE_ALPHAS
        y_mean = np.atleast_1d(np.asarray(y_mean, dtype=float))
        if toward_mean:
            y_std = np.atleast_1d(np.asarray(y_std, dtype=float))
            with np.errstate(divide="ignore", invalid="ignore"):
                relative = np.where(np.abs(y_mean) > y_std, y_std / np.abs(y_mean), 1.0)
            penalty = _CONSTANT_PENALTY * scale * relative
            a_0 = z_1[:, None] / (eigenvalues[:, None] + penalty[None, :]) * y_mean[None, :]
        else:
            a_0 = np.zeros((eigenvalues.size, y_mean.size))
        return cls(eigenvalues, V, alphas, a_0, z_y - eigenvalues[:, None] * a_0)

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
        """Summed squared LOO residuals of the rows ``P = K V`` with targets ``Y``, per alpha."""
        n_alphas, n_outputs = self.alphas.size, Y.shape[1]
        inverse = self.inverse
        coordinates = self.coordinates.reshape(self.eigenvalues.size, -1)
        squared = np.zeros(n_alphas)
        step = max(1, _BLOCK_ELEMENTS // max(P.shape[1] + coordinates.shape[1], 1))
        for start in range(0, P.shape[0], step):
            Pb, Yb = P[start : start + step], Y[start : start + step]
            fitted = (Pb @ coordinates).reshape(Pb.shape[0], n_alphas, n_outputs)
            leverage = (Pb * Pb) @ inverse
            with np.errstate(divide="ignore", invalid="ignore"):
                loo = (Yb[:, None, :] - fitted) / (1.0 - leverage)[:, :, None]
                squared += np.sum(loo * loo, axis=(0, 2))
        return squared

    def select(self, squared, n_values):
        errors = squared / n_values
        errors[~np.isfinite(errors)] = np.inf
        best = int(np.argmin(errors))
        gamma = self.V @ self.coordinates[:, best, :]
        return AlphaSelection(float(self.alphas[best]), self.alphas, errors, "loo", gamma)


def _ridge_loo(rows, n_samples, n_columns, Y, alphas, toward_mean, *, fill=None, n_jobs=None):
    """:func:`ridge_loo` on a design matrix given by blocks: ``rows(start, stop) = K[start:stop]``.

    With at least as many rows as columns, :class:`LeaveOneOutRidge` forms
    ``K`` a block at a time (twice: for the Gram matrix, written by ``fill``
    if given, and for the leave-one-out residuals), never whole. With more
    columns than rows, the row space: the eigendecomposition of ``K K^T``.
    Returns the :class:`AlphaSelection` and the prior ``Gamma_0`` (zeros
    unless ``toward_mean``).
    """
    n_outputs = Y.shape[1]
    step = max(1, _BLOCK_ELEMENTS // max(n_columns, 1))
    blocks = [(start, min(start + step, n_samples)) for start in range(0, n_samples, step)]
    if n_columns <= n_samples:
        loo = LeaveOneOutRidge(n_columns, n_outputs, alphas=alphas, toward_mean=toward_mean)
        if fill is None:

            def fill(start, stop, out):
                out[:, :n_columns] = rows(start, stop)
                out[:, n_columns:] = Y[start:stop]

        loo.update_rows(fill, n_samples, n_jobs=n_jobs)
        squared = sum(
            loo.squared_errors(rows(start, stop), Y[start:stop]) for start, stop in blocks
        )
        return loo.select(squared), loo.prior
    # the row space: K K^T = U diag(l) U^T, n_samples x n_samples; then P = K V = U sqrt(l)
    check_factor_memory(n_columns, n_outputs, n_rows=n_samples, row_space=True)
    K = rows(0, n_samples)
    eigenvalues, U = scipy.linalg.eigh(K @ K.T, check_finite=False, driver="evd")
    eigenvalues = np.maximum(eigenvalues, 0.0)
    total = float(np.sum(eigenvalues))
    keep = eigenvalues > _rank_tolerance(eigenvalues[::-1], n_samples, n_columns)
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
    )
    selection = spectrum.select(spectrum.squared_errors(P, Y), n_samples * n_outputs)
    return selection, spectrum.prior


def select_alpha(antecedents, X, Y, alphas=None, *, order=1, criterion="loo"):
    """Choose the ridge ``alpha`` of a rule base's consequents by LOO or GCV error.

    Parameters
    ----------
    antecedents : RuleBase
        Fixed antecedents.
    X : array-like of shape (n_samples, n_features)
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
    alphas, criterion
        See :func:`ridge_alpha_curve`.
    order : {0, 1}, default=1
        Consequent order.

    Returns
    -------
    selection : AlphaSelection
        The chosen ``alpha`` and the curve.
    rule_base : RuleBase
        The antecedents with the consequents fitted at that ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(200, 2)); y = np.sin(X[:, 0]) + 0.05 * rng.normal(size=200)
    >>> antecedents = RuleBase.random(n_features=2, n_rules=30, random_state=0)
    >>> selection, rb = select_alpha(antecedents, X, y, criterion="gcv")
    >>> selection.alphas.size == selection.errors.size, rb.n_rules
    (True, 30)
    """
    if not isinstance(antecedents, RuleBase):
        raise TypeError(f"antecedents must be a RuleBase; got {type(antecedents).__name__}.")
    order = check_int_option(order, "order", (0, 1))
    X = check_matrix(X, "X", n_columns=antecedents.n_features, owner="this rule base")
    Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
    selection = ridge_alpha_curve(
        antecedents.design_matrix(X, order=order), Y, alphas, criterion=criterion
    )
    coef, intercept = split_coefficients(
        selection.coefficients, antecedents.n_rules, antecedents.n_features, order=order
    )
    names = antecedents.output_names if Y.shape[1] == antecedents.n_outputs else None
    return selection, antecedents.replace(coef=coef, intercept=intercept, output_names=names)


def _leading_factor(factor, n_columns, n_total, kind):
    """A factor of ``[K[:, :n_columns] Y]`` from that of ``[K Y]`` (``n_total`` columns).

    It has the same least-squares solutions (for the QR factor its residual
    block differs: the part of ``Y`` along the dropped columns is left out).
    """
    n_outputs = factor.shape[1] - n_total
    keep = np.r_[np.arange(n_columns), n_total + np.arange(n_outputs)]
    if kind == "rows":
        return np.asfortranarray(factor[:, keep])
    return np.asfortranarray(factor[np.ix_(keep, keep)])


def select_n_rules(
    antecedents, X, Y, X_val, Y_val, n_rules=None, *, order=1, solver="lstsq", alpha=0.0
):
    """Pick how many of the rules to keep (the first ``h``) by validation error.

    Parameters
    ----------
    antecedents : RuleBase
        Drawn with the largest number of rules wanted; candidates are its
        first ``h`` rules.
    X, Y : array-like
        Training rows.
    X_val, Y_val : array-like
        Validation rows.
    n_rules : sequence of int, optional
        Candidate numbers of rules, each in ``[1, antecedents.n_rules]``;
        by default 10 values spread over that range.
    order : {0, 1}, default=1
        Consequent order.
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        Least-squares solver.
    alpha : float, default=0.0
        Ridge penalty.

    Returns
    -------
    RulesSelection
        The chosen number, the validation and training curves and the fitted rule base.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(400, 2)); y = np.sin(2 * X[:, 0]) * X[:, 1]
    >>> antecedents = RuleBase.random(n_features=2, n_rules=40, random_state=0)
    >>> sel = select_n_rules(antecedents, X[:300], y[:300], X[300:], y[300:], [2, 10, 40])
    >>> sel.grid.tolist(), int(sel.n_rules) == len(sel.rule_base)
    ([2, 10, 40], True)
    >>> bool(sel.validation_mse[0] > sel.validation_mse[-1])
    True
    """
    if not isinstance(antecedents, RuleBase):
        raise TypeError(f"antecedents must be a RuleBase; got {type(antecedents).__name__}.")
    order = check_int_option(order, "order", (0, 1))
    check_option(solver, "solver", SOLVERS)
    alpha = check_real(alpha, "alpha", low=0.0)
    owner = "this rule base"
    X = check_matrix(X, "X", n_columns=antecedents.n_features, owner=owner)
    X_val = check_matrix(X_val, "X_val", n_columns=antecedents.n_features, owner=owner)
    Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
    Y_val = check_matrix(
        Y_val, "Y_val", allow_1d=True, column_label="outputs", n_columns=Y.shape[1]
    )
    if X.shape[0] != Y.shape[0] or X_val.shape[0] != Y_val.shape[0]:
        raise ValueError("X and Y (and X_val and Y_val) must have the same number of rows.")
    h_max = antecedents.n_rules
    if n_rules is None:
        n_rules = np.unique(np.linspace(1, h_max, num=min(10, h_max)).round().astype(int))
    grid = np.asarray(n_rules)
    if (
        grid.ndim != 1
        or grid.size == 0
        or not np.issubdtype(grid.dtype, np.integer)
        or (grid.min() < 1 or grid.max() > h_max)
    ):
        raise ValueError(
            f"n_rules must be a non-empty sequence of ints in [1, {h_max}]; got {n_rules!r}."
        )
    per_rule = antecedents.n_features + 1 if order == 1 else 1
    shared = None
    if not antecedents.normalize:  # nested columns: one factor for every h
        shared = LeastSquaresAccumulator(h_max * per_rule, Y.shape[1], solver=solver)
        write = design_rows_writer(
            X, Y, antecedents.centers, antecedents.sigmas, normalize=False, order=order
        )
        shared.update_rows(write, X.shape[0])
    validation, training, fitted = [], [], []
    for h in grid:
        subset = antecedents.subset(np.arange(h))
        if shared is None:
            rb = subset.fit_consequents(X, Y, order=order, solver=solver, alpha=alpha)
        else:
            factor = _leading_factor(shared.factor, h * per_rule, h_max * per_rule, shared.kind)
            gamma = solve_factor(
                factor, h * per_rule, kind=shared.kind, alpha=alpha, n_samples=X.shape[0]
            )
            coef, intercept = split_coefficients(gamma, int(h), subset.n_features, order=order)
            names = subset.output_names if Y.shape[1] == subset.n_outputs else None
            rb = subset.replace(coef=coef, intercept=intercept, output_names=names)
        validation.append(np.mean((rb.predict(X_val) - Y_val) ** 2))
        training.append(np.mean((rb.predict(X) - Y) ** 2))
        fitted.append(rb)
    best = int(np.argmin(validation))
    return RulesSelection(
        int(grid[best]), grid, np.array(validation), np.array(training), fitted[best]
    )
