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

Time series, rows sampled differently from the training rows, or a model
refitted on other rows after the scores were computed break exchangeability,
and with it the guarantee.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from randomts._validation import check_matrix

__all__ = [
    "check_coverage",
    "conformal_rank",
    "jackknife_plus_bounds",
    "jackknife_plus_sets",
    "min_rows",
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
    linear leave-one-out, :class:`randomts.fitting.leave_one_out.LeaveOneOutTerms`);
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
