"""Conformal prediction: intervals and sets whose coverage holds for exchangeable rows.

Pure functions over arrays of scores, with no model in sight:

* :func:`split_quantile`, the split-conformal quantile: with ``n`` scores of
  held-out rows (e.g. absolute residuals ``|y_j - mu(x_j)|``), the
  ``ceil(coverage (n + 1))``-th smallest. The interval ``mu(x) +- q`` covers
  a new row's target with probability at least ``coverage`` when the
  calibration rows and the new row are exchangeable and the model was
  fitted without the calibration rows (Vovk, Gammerman & Shafer 2005; Lei et
  al. 2018).
* :func:`jackknife_plus_bounds`, the jackknife+ of Barber, Candès, Ramdas &
  Tibshirani (2021, *Ann. Statist.* 49(1)): from the ``n`` leave-one-out
  models ``mu_{-j}`` of the training rows and their leave-one-out residuals
  ``R_j``, the interval of ``x`` runs from the ``floor((1 - coverage)
  (n + 1))``-th smallest of ``mu_{-j}(x) - R_j`` to the ``ceil(coverage (n +
  1))``-th smallest of ``mu_{-j}(x) + R_j``. Its coverage is at least ``1 -
  2 (1 - coverage)`` for exchangeable rows and any fitting method symmetric
  in them; for stable fits (ridge regression among them) it is close to
  ``coverage`` in practice.
* :func:`jackknife_plus_sets`, the same for classification (Romano, Sesia &
  Candès 2020, the CV+ with one row per fold): a class enters the set of
  ``x`` when its nonconformity under the model without row ``j`` exceeds the
  nonconformity of row ``j`` itself for fewer than ``coverage (n + 1)`` rows.

The jackknife+ of a ridge fit of consequents reads its leave-one-out models
in closed form (:class:`LeaveOneOutTerms`, from :func:`leave_one_out_terms`
of a rule base's rows or :func:`ridge_loo_terms` of a design matrix in
memory): no model is refitted.

Time series, rows sampled differently from the training rows, or a model
refitted on other rows after the scores were computed break exchangeability,
and with it the guarantee.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from randomts._validation import check_int_option, check_matrix, check_real
from randomts.core.accumulators import LeastSquaresAccumulator, check_factor_memory, gram_eigh
from randomts.core.design import design_rows_writer
from randomts.fitting.protocol import check_rule_base
from randomts.fitting.ridge import design_of

# Rows of K formed at once by the passes over the data (2^22 entries, 32 MiB).
_BLOCK_ELEMENTS = 1 << 22

__all__ = [
    "LeaveOneOutTerms",
    "check_coverage",
    "conformal_rank",
    "jackknife_plus_bounds",
    "jackknife_plus_sets",
    "leave_one_out_terms",
    "min_rows",
    "ridge_loo_terms",
    "split_quantile",
]


def check_coverage(coverage, owner=None):
    """``coverage`` as a float in the open interval (0, 1), or a ValueError naming it.

    Examples
    --------
    >>> check_coverage(0.9)
    0.9
    >>> check_coverage(90, owner="predict_interval")
    Traceback (most recent call last):
    ...
    ValueError: The 'coverage' parameter of predict_interval must be a float in the open interval (0, 1). Got 90 instead.
    """
    of = f" of {owner}" if owner else ""
    if (
        isinstance(coverage, (bool, np.bool_))
        or not isinstance(coverage, numbers.Real)
        or not 0.0 < float(coverage) < 1.0
    ):
        raise ValueError(
            f"The 'coverage' parameter{of} must be a float in the open interval (0, 1). "
            f"Got {coverage!r} instead."
        )
    return float(coverage)


def _ceil(value):
    """``ceil`` that ignores the rounding of a product meant to be an integer (0.9 * 10)."""
    return math.ceil(round(value, 9))


def min_rows(coverage):
    """The fewest rows with which a conformal bound at ``coverage`` is finite.

    The ``ceil(coverage (n + 1))``-th smallest of ``n`` scores exists when
    ``n >= coverage / (1 - coverage)``.

    Examples
    --------
    >>> min_rows(0.9), min_rows(0.95), min_rows(0.5)
    (9, 19, 1)
    """
    coverage = check_coverage(coverage)
    return max(1, _ceil(coverage / (1.0 - coverage)))


def conformal_rank(n_rows, coverage, *, what="calibration rows"):
    """``ceil(coverage (n_rows + 1))``: the rank of the conformal quantile among ``n_rows`` scores.

    Raises
    ------
    ValueError
        If that rank exceeds ``n_rows``: with so few rows the interval at that
        coverage is infinite.

    Examples
    --------
    >>> conformal_rank(99, 0.9)
    90
    >>> conformal_rank(10, 0.95)
    Traceback (most recent call last):
    ...
    ValueError: A coverage of 0.95 needs at least 19 calibration rows (the bound is the ceil(coverage (n + 1))-th smallest of n scores); got 10.
    """
    coverage = check_coverage(coverage)
    rank = _ceil(coverage * (n_rows + 1))
    if rank > n_rows:
        need = min_rows(coverage)
        raise ValueError(
            f"A coverage of {coverage!r} needs at least {need} {what} (the bound is the "
            f"ceil(coverage (n + 1))-th smallest of n scores); got {n_rows}."
        )
    return rank


def split_quantile(scores, coverage):
    """The split-conformal quantile of each column of ``scores``.

    Parameters
    ----------
    scores : array-like of shape (n_rows,) or (n_rows, n_outputs)
        Nonconformity scores of the calibration rows (absolute residuals).
    coverage : float in (0, 1)
        Target coverage.

    Returns
    -------
    ndarray of shape (n_outputs,)
        The ``ceil(coverage (n_rows + 1))``-th smallest score of each column.

    Examples
    --------
    >>> import numpy as np
    >>> split_quantile(np.arange(1.0, 20.0), 0.9)  # the 18th smallest of 19
    array([18.])
    """
    scores = check_matrix(scores, "scores", allow_1d=True, column_label="outputs")
    rank = conformal_rank(scores.shape[0], coverage)
    return np.partition(scores, rank - 1, axis=0)[rank - 1]


def jackknife_plus_bounds(predictions, shifts, loo_residuals, coverage):
    """Jackknife+ intervals from the leave-one-out models in closed form.

    The leave-one-out model without training row ``j`` predicts
    ``predictions - shifts[:, j] * loo_residuals[j]`` (the form of an exact
    linear leave-one-out, :class:`randomts.fitting.conformal.LeaveOneOutTerms`);
    its residual on row ``j`` is ``R_j = |loo_residuals[j]|``.

    Parameters
    ----------
    predictions : ndarray of shape (n_rows, n_outputs)
        The full model's predictions at the new rows.
    shifts : ndarray of shape (n_rows, n_samples)
        How the model without row ``j`` moves per unit of its residual.
    loo_residuals : ndarray of shape (n_samples, n_outputs)
        Leave-one-out residuals of the training rows.
    coverage : float in (0, 1)
        Nominal coverage ``1 - a``; the guarantee is ``1 - 2a``.

    Returns
    -------
    lower, upper : ndarray of shape (n_rows, n_outputs)

    Examples
    --------
    With shifts of zero every leave-one-out model is the full model, and the
    interval is the prediction plus or minus a quantile of ``|R_j|``:

    >>> import numpy as np
    >>> R = np.arange(1.0, 20.0)[:, None]
    >>> lower, upper = jackknife_plus_bounds(np.zeros((1, 1)), np.zeros((1, 19)), R, 0.9)
    >>> float(lower[0, 0]), float(upper[0, 0])
    (-18.0, 18.0)
    """
    n_samples = loo_residuals.shape[0]
    rank = conformal_rank(n_samples, coverage, what="training rows")
    lower = np.empty(predictions.shape)
    upper = np.empty(predictions.shape)
    for m in range(predictions.shape[1]):
        residual = loo_residuals[:, m]
        loo = predictions[:, m, None] - shifts * residual[None, :]
        radius = np.abs(residual)[None, :]
        upper[:, m] = np.partition(loo + radius, rank - 1, axis=1)[:, rank - 1]
        # the floor((1 - coverage) (n + 1))-th smallest: the rank-th largest
        lower[:, m] = -np.partition(radius - loo, rank - 1, axis=1)[:, rank - 1]
    return lower, upper


def jackknife_plus_sets(test_scores, train_scores, coverage):
    """Jackknife+ prediction sets from the nonconformity under each leave-one-out model.

    Parameters
    ----------
    test_scores : ndarray of shape (n_rows, n_samples, n_classes)
        Nonconformity of each class at each new row under the model without
        training row ``j``.
    train_scores : ndarray of shape (n_samples,)
        Nonconformity of each training row's own class under the model
        without it.
    coverage : float in (0, 1)
        Nominal coverage ``1 - a``; the guarantee is ``1 - 2a``.

    Returns
    -------
    ndarray of bool, shape (n_rows, n_classes)
        Class ``c`` is in the set of row ``i`` when ``train_scores[j] <
        test_scores[i, j, c]`` for fewer than ``coverage (n_samples + 1)`` rows.

    Examples
    --------
    >>> import numpy as np
    >>> train = np.linspace(0.0, 0.5, 19)
    >>> test = np.broadcast_to([0.2, 0.9], (1, 19, 2))  # one likely class, one unlikely
    >>> jackknife_plus_sets(test, train, 0.9)
    array([[ True, False]])
    """
    n_samples = train_scores.shape[0]
    conformal_rank(n_samples, coverage, what="training rows")
    above = np.count_nonzero(train_scores[None, :, None] < test_scores, axis=1)
    return above < coverage * (n_samples + 1)


@dataclass(frozen=True)
class LeaveOneOutTerms:
    """The exact leave-one-out models of a ridge fit, as the jackknife+ reads them.

    Removing row ``j`` from the ridge fit ``Gamma`` of ``K Gamma = Y`` (penalty
    ``alpha``, shrinking toward a prior ``Gamma_0`` held fixed) changes it to
    ``Gamma_{-j} = Gamma - S k_j e_j``, with ``S = (K^T K + alpha I)^{-1}``,
    ``k_j`` the row of ``K`` and ``e_j = r_j / (1 - h_j)`` its leave-one-out
    residual (``r_j`` the residual of the fit, ``h_j = k_j^T S k_j`` the
    leverage). At a new row ``k`` the ``n_samples`` leave-one-out predictions
    are therefore ``k^T Gamma - (k^T S k_j) e_j``: one product of ``k`` with
    ``basis`` and ``influence`` (``shifts``), no refit.

    With ``K^T K = V diag(l) V^T`` (eigenvalues above the rank cut) and
    ``P = K V``, ``k^T S k_j = (k^T V) diag(1 / (l + alpha)) P_j^T``.

    Attributes
    ----------
    alpha : float
        The ridge penalty.
    basis : ndarray of shape (n_columns, rank)
        ``V``.
    influence : ndarray of shape (rank, n_samples)
        ``diag(1 / (l + alpha)) P^T``: ``8 rank n_samples`` bytes, the bulk
        of the memory.
    leverages : ndarray of shape (n_samples,)
        ``h_j``, each below 1.
    residuals : ndarray of shape (n_samples, n_outputs)
        The leave-one-out residuals ``e_j = y_j - k_j^T Gamma_{-j}``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> K = rng.normal(size=(30, 4)); y = K @ rng.normal(size=4) + 0.1 * rng.normal(size=30)
    >>> gamma = np.linalg.solve(K.T @ K + np.eye(4), K.T @ y)
    >>> terms = ridge_loo_terms(K, y - K @ gamma, 1.0)
    >>> without_first = np.linalg.solve(K[1:].T @ K[1:] + np.eye(4), K[1:].T @ y[1:])
    >>> loo = K @ gamma - terms.shifts(K)[:, 0] * terms.residuals[0, 0]
    >>> bool(np.allclose(loo, K @ without_first, rtol=1e-10))
    True
    >>> terms.influence.shape, round(float(terms.leverages.sum()), 2) < 4
    ((4, 30), True)
    """

    alpha: float
    basis: np.ndarray
    influence: np.ndarray
    leverages: np.ndarray
    residuals: np.ndarray

    @property
    def n_samples(self) -> int:
        """Rows of the fit."""
        return self.influence.shape[1]

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays."""
        return sum(a.nbytes for a in (self.basis, self.influence, self.leverages, self.residuals))

    def shifts(self, K):
        """``k^T S k_j`` for every row ``k`` of ``K`` and every fitted row ``j``.

        Parameters
        ----------
        K : ndarray of shape (n_rows, n_columns)
            Rows of the design matrix, made as those of the fit.

        Returns
        -------
        ndarray of shape (n_rows, n_samples)
            The leave-one-out prediction of the model without row ``j`` at
            row ``i`` is the prediction of the fit minus ``shifts[i, j] *
            residuals[j]``.
        """
        return (K @ self.basis) @ self.influence


# Leverage past which a leave-one-out model is taken as undetermined (the row is interpolated).
_LEVERAGE_LIMIT = 1.0 - 1e-12


def ridge_loo_terms(K, residuals, alpha):
    """The leave-one-out terms of a ridge fit with the design matrix ``K`` in memory.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_columns)
        Design matrix.
    residuals : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        ``Y - K Gamma``, the residuals of the ridge fit ``Gamma`` at ``alpha``
        (shrunk toward zero or toward a prior held fixed).
    alpha : float
        Its penalty, ``>= 0``.

    Returns
    -------
    LeaveOneOutTerms

    Raises
    ------
    ValueError
        If a leverage reaches 1 (``alpha=0`` with at least as many unknowns as
        rows): the model without that row is not determined by the others.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[0.0, 1.0], [0.0, 2.0], [1.0, 0.0]])  # column 0: row 2 alone
    >>> ridge_loo_terms(K, np.zeros(3), 0.0)
    Traceback (most recent call last):
    ...
    ValueError: The leave-one-out model without row 2 is undetermined: its leverage is 1 ...
    """
    K = check_matrix(K, "K", column_label="columns")
    residuals = check_matrix(residuals, "residuals", allow_1d=True, column_label="outputs")
    if residuals.shape[0] != K.shape[0]:
        raise ValueError(
            "K and residuals must have the same number of rows; "
            f"got {K.shape[0]} and {residuals.shape[0]}."
        )
    alpha = check_real(alpha, "alpha", low=0.0)
    return _loo_terms(lambda start, stop: K[start:stop], K.shape[0], K.shape[1], residuals, alpha)


def leave_one_out_terms(
    antecedents, X, residuals, alpha, *, order=1, n_jobs=None, check_input=True
):
    """The leave-one-out terms of the consequents of fixed antecedents fitted by ridge.

    What the jackknife+ intervals of :class:`~randomts.RandomTSRegressor`
    read: :func:`ridge_loo_terms` of the design matrix of ``antecedents`` on
    ``X``, formed a block of rows at a time (twice: for ``K^T K``, by
    ``n_jobs`` threads, and for ``P = K V``), never whole; with more unknowns
    than rows, from the eigendecomposition of ``K K^T``. The cost is about
    one fit with ``alpha="auto"``; the memory, ``8 rank n_samples`` bytes for
    ``LeaveOneOutTerms.influence``, ``rank <= min(n_columns, n_samples)``.

    Parameters
    ----------
    antecedents : RuleBase
        Fixed antecedents.
    X : array-like of shape (n_samples, n_features)
        The inputs of the fit.
    residuals : array-like of shape (n_samples,) or (n_samples, n_outputs)
        The residuals of the fitted consequents on ``X``.
    alpha : float
        The ridge penalty of the fit (e.g. the one ``alpha="auto"`` chose).
    order : {0, 1}, default=1
        Consequent order.
    n_jobs : int, optional
        Threads forming ``K^T K``; the result does not depend on it.
    check_input : bool, default=True
        False for checked arguments: ``X`` and a 2-D ``residuals`` finite
        float64 arrays of matching rows, ``order`` 0 or 1, ``alpha >= 0``.

    Returns
    -------
    LeaveOneOutTerms

    Raises
    ------
    ValueError
        If a leverage reaches 1 (see :func:`ridge_loo_terms`).
    MemoryError
        If ``LeaveOneOutTerms.influence`` cannot be allocated.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> from randomts.fitting.consequents import fit_consequents
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(200, 2)); y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=200)
    >>> antecedents = RuleBase.random(n_features=2, n_rules=10, random_state=0)
    >>> fitted = fit_consequents(antecedents, X, y, alpha="auto")
    >>> terms = leave_one_out_terms(antecedents, X, y - fitted.predict(X)[:, 0],
    ...                             fitted.metadata["alpha"])
    >>> from randomts.fitting.ridge import choose_consequent_alpha
    >>> selection = choose_consequent_alpha(antecedents, X, y)
    >>> bool(np.isclose(np.mean(terms.residuals**2), selection.errors.min(), rtol=1e-6))
    True
    """
    if check_input:
        check_rule_base(antecedents)
        order = check_int_option(order, "order", (0, 1))
        X = check_matrix(X, "X", n_columns=antecedents.n_features, owner="this rule base")
        residuals = check_matrix(residuals, "residuals", allow_1d=True, column_label="outputs")
        if residuals.shape[0] != X.shape[0]:
            raise ValueError(
                "X and residuals must have the same number of samples; "
                f"got {X.shape[0]} and {residuals.shape[0]}."
            )
        alpha = check_real(alpha, "alpha", low=0.0)
    n_columns = antecedents.n_rules * (antecedents.n_features + 1 if order == 1 else 1)
    return _loo_terms(
        lambda start, stop: design_of(antecedents, X[start:stop], order),
        X.shape[0],
        n_columns,
        residuals,
        alpha,
        fill=design_rows_writer(
            X,
            residuals,
            antecedents.centers,
            antecedents.sigmas,
            normalize=antecedents.normalize,
            order=order,
        ),
        n_jobs=n_jobs,
    )


def _loo_terms(rows, n_samples, n_columns, residuals, alpha, *, fill=None, n_jobs=None):
    """:class:`LeaveOneOutTerms` of a design matrix given by blocks ``rows(start, stop)``."""
    n_outputs = residuals.shape[1]
    if n_columns <= n_samples:
        accumulator = LeastSquaresAccumulator(n_columns, n_outputs, solver="cholesky")
        if fill is None:

            def fill(start, stop, out):
                out[:, :n_columns] = rows(start, stop)
                out[:, n_columns:] = residuals[start:stop]

        accumulator.update_rows(fill, n_samples, n_jobs=n_jobs)
        eigenvalues, V, above = gram_eigh(accumulator.factor, n_columns, n_samples=n_samples)
        eigenvalues, V = eigenvalues[above], V[:, above]
        influence = _empty_influence(eigenvalues.size, n_samples, n_columns)
        step = max(1, _BLOCK_ELEMENTS // max(n_columns, 1))
        for start in range(0, n_samples, step):
            stop = min(start + step, n_samples)
            influence[:, start:stop] = (rows(start, stop) @ V).T
    else:  # the row space: K K^T = U diag(l) U^T, V = K^T U / sqrt(l), P = U sqrt(l)
        check_factor_memory(n_columns, n_outputs, n_rows=n_samples, row_space=True)
        K = rows(0, n_samples)
        eigenvalues, U = scipy.linalg.eigh(K @ K.T, check_finite=False, driver="evd")
        eigenvalues = np.maximum(eigenvalues, 0.0)
        keep = eigenvalues > max(n_samples, n_columns) * np.finfo(float).eps * eigenvalues[-1]
        eigenvalues, U = eigenvalues[keep], U[:, keep]
        root = np.sqrt(eigenvalues)
        V = (K.T @ U) / root
        influence = np.ascontiguousarray((U * root).T)
    inverse = 1.0 / (eigenvalues + alpha)
    leverages = inverse @ (influence * influence)
    influence *= inverse[:, None]
    worst = int(np.argmax(leverages)) if leverages.size else 0
    if leverages.size and not leverages[worst] < _LEVERAGE_LIMIT:
        raise ValueError(
            f"The leave-one-out model without row {worst} is undetermined: its leverage is 1 "
            f"to {1 - leverages[worst]:.2g} (alpha={alpha!r} with {n_columns} unknowns and "
            f"{n_samples} rows fits that row exactly whatever its target). Use a penalty "
            "alpha > 0 (or alpha='auto'), or fewer unknowns than rows."
        )
    return LeaveOneOutTerms(
        float(alpha), V, influence, leverages, residuals / (1.0 - leverages)[:, None]
    )


def _empty_influence(rank, n_samples, n_columns):
    """The ``(rank, n_samples)`` array of ``LeaveOneOutTerms.influence``, or a clear error."""
    try:
        return np.empty((rank, n_samples))
    except MemoryError:
        raise MemoryError(
            f"The leave-one-out terms of {n_samples} rows and {n_columns} unknowns need "
            f"{8 * rank * n_samples / 2**30:.3g} GiB ({rank} x {n_samples} numbers), more than "
            "can be allocated. Fit on part of the rows and calibrate on the rest "
            "(split conformal: conformalize(X_calibration, y_calibration)), which keeps one "
            "number per calibration row and output."
        ) from None
