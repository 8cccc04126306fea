"""The stretches of multiple shooting: segments of the records, held-out runs, their errors.

A free-run refinement (:mod:`randomts.dynamics.simulation_fit`) fits its steps on
the runs of short segments of the records, each from the measured outputs before
it (:func:`segments`), and stops on free runs over held-out stretches, run in
pieces side by side (:func:`held_out_runs`); :func:`run_rmse` scores a run, a
run that ran away as ``inf``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "MAX_RESIDUALS",
    "MAX_SENSITIVITIES",
    "MIN_RESIDUALS",
    "held_out_runs",
    "run_rmse",
    "segments",
    "sum_of_squares",
]

#: Residuals (segments x steps x outputs) of one Gauss-Newton system at the most: segments
#: beyond are subsampled evenly.
MAX_RESIDUALS = 12_000
#: Entries of its Jacobian (residuals x parameters) at the most, but no fewer residuals than
#: :data:`MIN_RESIDUALS`. The Jacobian's Gram matrix costs residuals x parameters^2: 100 rules
#: on 12 regressors (1,300 parameters) and 12,000 residuals were 20 GFLOP a step.
MAX_SENSITIVITIES = 2_500_000
#: The fewest residuals of a Gauss-Newton system, whatever its parameters.
MIN_RESIDUALS = 500


def run_rmse(error):
    """The root mean square of a run's errors; ``inf`` where one is not finite or their squares overflow.

    A run that ran away is a model's worst error, not a number to warn
    about: no ``RuntimeWarning`` leaves here. No errors: NaN.

    Examples
    --------
    >>> run_rmse(np.array([3.0, -4.0]))
    3.5355339059327378
    >>> run_rmse(np.array([1e200, 0.0])), run_rmse(np.array([np.nan, 0.0])), run_rmse(np.zeros(0))
    (inf, inf, nan)
    """
    if error.size == 0:
        return np.nan
    return float(np.sqrt(sum_of_squares(error) / error.size))


def sum_of_squares(values):
    """``sum(values ** 2)``, ``inf`` where a value is not finite or the sum overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(np.sum(np.square(values)))
    return total if np.isfinite(total) else np.inf


def segments(narx, records, horizon, n_parameters=None, *, residuals=None, entries=None):
    """Windows ``(Y, U)`` of ``max_lag + horizon`` steps, one after another in every record.

    At most ``residuals`` residuals (12,000 by default), and with
    ``n_parameters`` (the columns of the Jacobian) at most ``entries``
    entries of the Jacobian (2,500,000 by default) but no fewer than 500
    residuals: more segments are subsampled evenly (first and last kept).
    ``(None, None)`` when no record holds one.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts.dynamics.narx import NARX
    >>> Y, U = segments(NARX(y_lags=1), [(None, np.arange(7.0)[:, None])], 3)
    >>> Y[:, :, 0].tolist(), U
    ([[0.0, 1.0, 2.0, 3.0], [3.0, 4.0, 5.0, 6.0]], None)
    """
    lag = narx.max_lag
    Ys, Us = [], []
    for U, Y in records:
        for start in range(lag, Y.shape[0] - horizon + 1, horizon):
            Ys.append(Y[start - lag : start + horizon])
            Us.append(None if U is None else U[start - lag : start + horizon])
    if not Ys:
        return None, None
    Y = np.stack(Ys)
    U = None if Us[0] is None else np.stack(Us)
    n_outputs = Y.shape[2]
    residuals = MAX_RESIDUALS if residuals is None else residuals
    entries = MAX_SENSITIVITIES if entries is None else entries
    if n_parameters is not None:
        residuals = min(residuals, max(MIN_RESIDUALS, entries // n_parameters))
    most = max(1, residuals // (horizon * n_outputs))
    if Y.shape[0] > most:  # evenly spread, first and last kept
        keep = np.unique(np.linspace(0, Y.shape[0] - 1, most).round().astype(int))
        Y = Y[keep]
        U = None if U is None else U[keep]
    return Y, U


def held_out_runs(narx, held_out, longest):
    """The held-out stretches as runs of at most ``longest`` steps, to be run side by side.

    Returns ``(Y, U, counted)``: windows of ``max_lag`` measured initial
    outputs and as many steps as the longest run (``Y`` of shape ``(n_runs,
    max_lag + n_steps, n_outputs)``, ``U`` alike or None), a stretch cut into
    runs of nearly equal length, every run from the measured outputs before
    it; ``counted`` ``(n_runs, n_steps)`` marks the steps that are data
    (a shorter run's inputs are padded with its last input, not counted).

    Examples
    --------
    >>> import numpy as np
    >>> from randomts.dynamics.narx import NARX
    >>> Y, U, counted = held_out_runs(NARX(y_lags=1), [(None, np.arange(6.0)[:, None])], 3)
    >>> Y[:, :, 0].tolist(), counted.tolist()
    ([[0.0, 1.0, 2.0, 0.0], [2.0, 3.0, 4.0, 5.0]], [[True, True, False], [True, True, True]])
    """
    lag = narx.max_lag
    pieces = []
    for U, Y in held_out:
        n_steps = Y.shape[0] - lag
        n_runs = -(-n_steps // longest)
        edges = (np.arange(n_runs + 1) * n_steps) // n_runs
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            pieces.append((None if U is None else U[a : b + lag], Y[a : b + lag]))
    n_total = max(Y.shape[0] for _, Y in pieces)
    counted = np.zeros((len(pieces), n_total - lag), dtype=bool)
    Ys = np.zeros((len(pieces), n_total, pieces[0][1].shape[1]))
    Us = None if pieces[0][0] is None else np.zeros((len(pieces), n_total, pieces[0][0].shape[1]))
    for i, (U, Y) in enumerate(pieces):
        counted[i, : Y.shape[0] - lag] = True
        Ys[i, : Y.shape[0]] = Y
        if Us is not None:
            Us[i] = np.pad(U, ((0, n_total - U.shape[0]), (0, 0)), mode="edge")
    return Ys, Us, counted
