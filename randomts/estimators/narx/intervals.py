"""Intervals of a NARX model: held-out residuals, their quantiles by horizon, the bands.

:func:`residual_scores` keeps, from records a model was not fitted on, the
one-step residuals and the free-run residuals by horizon of runs started at
several points; :func:`horizon_quantiles` turns the latter into widths that
grow with the horizon, and :func:`band` puts them around a prediction or run.
"""

from __future__ import annotations

import numpy as np

from randomts.dynamics.records import check_steps
from randomts.fitting.conformal import min_rows, split_quantile

__all__ = ["FREE_RUN_STARTS", "band", "horizon_quantiles", "residual_scores"]

#: Starting points of the held-out free runs that calibrate the bands, per record.
FREE_RUN_STARTS = 24


def residual_scores(narx, model, records):
    """One-step residuals ``(n, n_outputs)``, and free-run residuals by horizon.

    The free runs start from :data:`FREE_RUN_STARTS` measured windows spread
    over the first half of every record and run for half its length, so
    that every horizon up to there has a residual from every start:
    ``(n_runs, horizon, n_outputs)``, NaN past a shorter record's runs and
    ``inf`` where a run diverged.

    Parameters
    ----------
    narx : NARX
        The lag structure.
    model : fitted estimator or RuleBase
        The model of the lagged rows. One with a method ``run(Y0, U,
        n_steps)`` (the outputs of :meth:`NARX.run
        <randomts.dynamics.narx.NARX.run>`) runs the free runs itself.
    records : Records
        Records the model was not fitted on, each longer than ``max_lag``.

    Returns
    -------
    one_step : ndarray of shape (n_rows, n_outputs)
    free_run : ndarray of shape (n_runs, n_horizons, n_outputs)

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> from randomts.dynamics.narx import NARX
    >>> from randomts.dynamics.records import read_records
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1e9]], coef=[[[0.5]]])  # y(k) = 0.5 y(k-1)
    >>> y = 0.5 ** np.arange(30.0)
    >>> one_step, free = residual_scores(NARX(1), rb, read_records(y=y + 0.01))
    >>> one_step.shape, free.shape, bool(np.all(free >= 0))
    ((29, 1), (16, 14, 1), True)
    """
    lag = narx.max_lag
    predict = narx.predictor(model)
    one_step, free = [], []
    for index, (U, Y) in enumerate(records):
        check_steps(Y.shape[0], lag + 1, f"y{records.label(index)}")
        X, _ = narx.regressors(records.take([(index, 0, Y.shape[0])]))
        one_step.append(np.abs(predict(X) - Y[lag:]))
        horizon = max(1, (Y.shape[0] - lag) // 2)
        starts = np.unique(np.linspace(0, Y.shape[0] - lag - horizon, FREE_RUN_STARTS).astype(int))
        windows = np.stack([Y[s : s + lag] for s in starts])
        inputs = None if U is None else np.stack([U[s : s + lag + horizon] for s in starts])
        if callable(getattr(model, "run", None)):
            outputs = model.run(windows, inputs, horizon)
        else:
            outputs = narx.run(predict, windows, inputs, horizon)[0]
        truth = np.stack([Y[s + lag : s + lag + horizon] for s in starts])
        residual = np.abs(outputs[:, lag:] - truth)
        free.append(np.where(np.isfinite(residual), residual, np.inf))
    longest = max(r.shape[1] for r in free)
    padded = [
        np.pad(r, ((0, 0), (0, longest - r.shape[1]), (0, 0)), constant_values=np.nan) for r in free
    ]
    return np.vstack(one_step), np.concatenate(padded)


def band(values, q, n_fixed):
    """``values -+ q`` after their first ``n_fixed`` rows, for one array or a list of them.

    ``q`` is one width per output ``(n_outputs,)``, or one per step after
    ``n_fixed`` and output ``(n_widths, n_outputs)``, the last repeated past
    its end.

    Examples
    --------
    >>> import numpy as np
    >>> lower, upper = band(np.zeros(4), np.array([[1.0], [2.0]]), 1)
    >>> lower.tolist(), upper.tolist()
    ([0.0, -1.0, -2.0, -2.0], [0.0, 1.0, 2.0, 2.0])
    """
    if isinstance(values, list):
        bands = [band(v, q, n_fixed) for v in values]
        return [b[0] for b in bands], [b[1] for b in bands]
    values = np.asarray(values, dtype=float)
    q = np.asarray(q, dtype=float)
    n_steps = values.shape[0] - n_fixed
    if q.ndim == 2:  # by step: the last width past the end
        q = q[np.minimum(np.arange(max(n_steps, 0)), q.shape[0] - 1)]
    width = q[..., 0] if values.ndim == 1 else q
    lower, upper = values.copy(), values.copy()
    lower[n_fixed:] -= width
    upper[n_fixed:] += width
    return lower, upper


def horizon_quantiles(residuals, coverage):
    """Split-conformal quantiles of free-run residuals by horizon, in doubling bins.

    Parameters
    ----------
    residuals : ndarray of shape (n_runs, n_horizons, n_outputs)
        ``|y - y_hat|`` of held-out free runs at every step (NaN where a run
        is shorter).
    coverage : float in (0, 1)

    Returns
    -------
    ndarray of shape (n_horizons, n_outputs)
        Step ``j`` has the quantile of the residuals at steps ``2^b - 1 <= j'
        < 2^(b+1) - 1`` (bin ``b`` of ``j``), pooled with the next bins until
        there are enough for ``coverage``; then the running maximum, so that
        a band never narrows.

    Examples
    --------
    >>> import numpy as np
    >>> residuals = np.abs(np.random.default_rng(0).normal(size=(40, 8, 1))) * np.arange(1, 9)[:, None]
    >>> q = horizon_quantiles(residuals, 0.9)[:, 0]
    >>> q.shape, bool(np.all(np.diff(q) >= 0)), bool(q[-1] > 3 * q[0])
    ((8,), True, True)
    """
    n_runs, n_horizons, n_outputs = residuals.shape
    bins = np.floor(np.log2(np.arange(1, n_horizons + 1))).astype(int)
    out = np.empty((n_horizons, n_outputs))
    needed = min_rows(coverage)
    for b in range(bins[-1] + 1):
        pooled = b
        while True:
            values = residuals[:, (bins >= b) & (bins <= pooled)].reshape(-1, n_outputs)
            enough = np.all(np.sum(~np.isnan(values), axis=0) >= needed)
            if enough or pooled == bins[-1]:
                break
            pooled += 1
        quantile = np.empty(n_outputs)
        for m in range(n_outputs):
            column = values[:, m]
            quantile[m] = split_quantile(column[~np.isnan(column)], coverage)[0]
        out[bins == b] = quantile
    return np.maximum.accumulate(out, axis=0)
