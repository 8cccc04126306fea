"""Input/output records for :class:`~randomts.NARXRegressor`: experiments, lagged rows, folds.

The data side of the NARX estimator: reading one record or a list of them
(:func:`read_experiments`), their lagged rows (:func:`lagged_rows`), the
contiguous folds of time (:func:`blocked_folds`), the held-out ends of
:func:`split_off`, and the outputs of a free run that say where it went wrong
(:class:`SimulatedOutputs`).
"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_matrix, check_real
from randomts.fitting.conformal import min_rows, split_quantile

__all__ = [
    "Several",
    "SimulatedOutputs",
    "band",
    "blocked_folds",
    "check_length",
    "earlier_blocks",
    "horizon_quantiles",
    "is_series",
    "lagged_rows",
    "read_experiments",
    "sizes",
    "split_off",
    "variable_names",
]

_OWNER = "NARXRegressor"


def blocked_folds(n_rows, n_folds=5):
    """Fold labels of ``n_folds`` contiguous blocks of rows in time order.

    Block ``f`` holds rows ``floor(f n / k)`` to ``floor((f + 1) n / k) - 1``:
    every fold is a stretch of time, held out whole, so that its rows'
    near-copies (their neighbours in time) are not in the fit that predicts
    them.

    Parameters
    ----------
    n_rows : int
        Number of rows.
    n_folds : int, default=5
        Number of blocks, at most ``n_rows``.

    Returns
    -------
    ndarray of int of shape (n_rows,)

    Examples
    --------
    >>> blocked_folds(7, 3).tolist()
    [0, 0, 0, 1, 1, 2, 2]
    """
    n_rows = check_int(n_rows, "n_rows", low=1)
    n_folds = min(check_int(n_folds, "n_folds", low=1), n_rows)
    return (np.arange(n_rows, dtype=np.int64) * n_folds) // n_rows


class SimulatedOutputs(np.ndarray):
    """The outputs of one free run, which also say whether it left the data or diverged.

    An ndarray shaped like the outputs given to
    :meth:`NARXRegressor.simulate` (time on axis 0); arithmetic on it gives
    plain arrays. Slices keep the attributes of the run they come from.

    Attributes
    ----------
    left_data_step : int or None
        The first step (row) whose regressors lay beyond the training range
        of a lagged output or input by more than
        :data:`~randomts.core.ranges.EXTRAPOLATION_MARGIN` of its span: from
        there on the run extrapolates. None if it never did.
    left_data_variable : str or None
        The regressor beyond its range at that step, e.g. ``"y(k-1)"``.
    divergence_step : int or None
        The first step whose output was not finite (the rows from there on
        are NaN), or None.

    Examples
    --------
    >>> import numpy as np
    >>> run = SimulatedOutputs([1.0, 2.0, np.nan], divergence_step=2)
    >>> run.diverged, run.left_data, run.divergence_step
    (True, False, 2)
    >>> type(run - 1.0).__name__
    'ndarray'
    """

    def __new__(
        cls, outputs, *, left_data_step=None, left_data_variable=None, divergence_step=None
    ):
        run = np.asarray(outputs, dtype=float).view(cls)
        run.left_data_step = left_data_step
        run.left_data_variable = left_data_variable
        run.divergence_step = divergence_step
        return run

    def __array_finalize__(self, obj):
        self.left_data_step = getattr(obj, "left_data_step", None)
        self.left_data_variable = getattr(obj, "left_data_variable", None)
        self.divergence_step = getattr(obj, "divergence_step", None)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        plain = np.asarray(array).view(np.ndarray)
        return plain[()] if return_scalar else plain

    def __reduce__(self):  # pickled as a plain array with the attributes
        return (_rebuild_simulated, (np.asarray(self).view(np.ndarray), self._report()))

    def _report(self):
        return {
            "left_data_step": self.left_data_step,
            "left_data_variable": self.left_data_variable,
            "divergence_step": self.divergence_step,
        }

    @property
    def left_data(self) -> bool:
        """Whether the run left the training ranges (see ``left_data_step``)."""
        return self.left_data_step is not None

    @property
    def diverged(self) -> bool:
        """Whether the output stopped being finite (see ``divergence_step``)."""
        return self.divergence_step is not None


def _rebuild_simulated(array, report):
    return SimulatedOutputs(array, **report)


class Several(list):
    """Experiments given as a list (results are returned as a list)."""


def is_series(values):
    """Whether ``values`` is one array-like of numbers (not a list of experiments)."""
    return np.ndim(values[0]) == 0 if len(values) else True


def read_experiments(u, y, y_name, *, allow_shorter_y=False):
    """``[(U or None, Y), ...]`` as 2-D float arrays, and the ``ndim`` of the outputs given."""
    if (
        y is None
        and isinstance(u, (list, tuple))
        and u
        and all(isinstance(pair, tuple) and len(pair) == 2 for pair in u)
    ):
        pairs = Several(u)
    elif isinstance(y, (list, tuple)) and y and not is_series(y):
        if u is None:
            pairs = Several((None, item) for item in y)
        elif isinstance(u, (list, tuple)) and len(u) == len(y) and not is_series(u):
            pairs = Several(zip(u, y, strict=True))
        else:
            raise ValueError(
                f"{y_name} is a list of {len(y)} experiments, so u must be None or a list of "
                f"as many input arrays; got {type(u).__name__}"
                f"{' of length ' + str(len(u)) if hasattr(u, '__len__') else ''}."
            )
    elif y is None:
        raise ValueError(f"{y_name} is required (or give u as a list of (u, y) pairs); got y=None.")
    else:
        pairs = [(u, y)]
    experiments = type(pairs)()
    ndims = set()
    for index, (U, Y) in enumerate(pairs):
        label = f" of experiment {index}" if isinstance(pairs, Several) else ""
        ndims.add(np.ndim(Y))
        Y = check_matrix(Y, f"{y_name}{label}", allow_1d=True, column_label="outputs", owner=_OWNER)
        Y = Y.reshape(-1, 1) if Y.ndim == 1 else Y
        if U is not None:
            U = check_matrix(U, f"u{label}", allow_1d=True, column_label="inputs", owner=_OWNER)
            U = U.reshape(-1, 1) if U.ndim == 1 else U
            if U.shape[0] != Y.shape[0] and not (allow_shorter_y and U.shape[0] > Y.shape[0]):
                raise ValueError(
                    f"u{label} and {y_name}{label} must have the same number of steps "
                    f"(time on axis 0); got {U.shape[0]} and {Y.shape[0]}."
                )
        experiments.append((U, Y))
    if len(ndims) > 1:
        raise ValueError(f"The experiments' {y_name} must all be 1-D or all 2-D; got both.")
    return experiments, ndims.pop()


def sizes(experiments):
    """``(n_inputs, n_outputs)``, the same in every experiment, else a ValueError."""
    inputs = {0 if U is None else U.shape[1] for U, _ in experiments}
    outputs = {Y.shape[1] for _, Y in experiments}
    if len(inputs) > 1 or len(outputs) > 1:
        raise ValueError(
            "Every experiment must have the same inputs and outputs; got "
            f"{sorted(inputs)} inputs and {sorted(outputs)} outputs."
        )
    return inputs.pop(), outputs.pop()


def check_length(n_steps, needed, name):
    if n_steps < needed:
        raise ValueError(
            f"{name} has {n_steps} steps, but this {_OWNER} needs at least {needed} "
            "(its largest lag, max_lag_" + (", plus one target" if name == "y" else "") + ")."
        )


def band(values, q, n_fixed):
    """``values -+ q`` after their first ``n_fixed`` rows, for one array or a list of them.

    ``q`` is one width per output ``(n_outputs,)``, or one per step after
    ``n_fixed`` and output ``(n_widths, n_outputs)``, the last repeated past
    its end.
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


def split_off(experiments, fraction, lag):
    """Every experiment cut in two: the first part to fit on, the last ``fraction`` to stop on."""
    value = check_real(fraction, "validation_fraction", low=0.0, low_inclusive=False, owner=_OWNER)
    if value >= 1.0:
        raise ValueError(
            f"The 'validation_fraction' parameter of {_OWNER} must be a fraction in (0, 1). "
            f"Got {fraction!r} instead."
        )
    fraction = value
    fitted, held_out = [], []
    for index, (U, Y) in enumerate(experiments):
        n_held = int(round(fraction * Y.shape[0]))
        cut = Y.shape[0] - n_held
        if n_held <= lag or cut <= lag + 1:
            raise ValueError(
                f"focus='simulation' holds out the last validation_fraction={fraction} of every "
                f"experiment to stop on; experiment {index} has {Y.shape[0]} steps, which leaves "
                f"{n_held} held out and {cut} to fit, and each needs more than max_lag={lag}."
            )
        # the held-out stretch starts with the last max_lag fitted steps, its initial outputs
        fitted.append((None if U is None else U[:cut], Y[:cut]))
        held_out.append((None if U is None else U[cut - lag :], Y[cut - lag :]))
    return fitted, held_out


def earlier_blocks(experiments, fitted, n_blocks, lag):
    """The folds of the blocked cross-validation of a free run, but the last.

    The part of every experiment before its held-out end (``fitted``, from
    :func:`split_off`) is cut into ``n_blocks - 1`` contiguous blocks
    (:func:`blocked_folds`); fold ``b`` holds out block ``b`` of every
    experiment, with the ``lag`` steps before it as its initial outputs (the
    first block: its own first steps), and fits on the rest of every
    experiment, the held-out end included, as separate stretches (no lagged
    row spans a block). Stretches of ``lag + 1`` steps or fewer are dropped.

    Returns
    -------
    list of (fitted, held_out)
        One pair of lists of ``(U, Y)`` per block, in time order.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.arange(20.0)[:, None]
    >>> folds = earlier_blocks([(None, y)], [(None, y[:16])], 3, 1)
    >>> for train, held in folds:  # first and last step of every stretch
    ...     print([Y[[0, -1], 0].tolist() for _, Y in train], [Y[[0, -1], 0].tolist() for _, Y in held])
    [[8.0, 19.0]] [[0.0, 7.0]]
    [[0.0, 7.0], [16.0, 19.0]] [[7.0, 15.0]]
    """
    folds = []
    for block in range(n_blocks - 1):
        train, held = [], []
        for index, ((U, Y), (_, Y_fit)) in enumerate(zip(experiments, fitted, strict=True)):
            labels = blocked_folds(Y_fit.shape[0], n_blocks - 1)
            where = np.flatnonzero(labels == block)
            start, stop = (int(where[0]), int(where[-1]) + 1) if where.size else (0, 0)
            if stop - start <= lag:
                raise ValueError(
                    f"The 'selection_blocks' parameter of {_OWNER} cuts experiment {index} "
                    f"({Y.shape[0]} steps) into blocks of {stop - start} steps or fewer; each "
                    f"needs more than max_lag={lag}. Got selection_blocks={n_blocks}; use "
                    "fewer blocks (1: the held-out end alone)."
                )
            first = max(start - lag, 0)
            held.append((None if U is None else U[first:stop], Y[first:stop]))
            for a, b in ((0, start), (stop, Y.shape[0])):
                if b - a > lag + 1:
                    train.append((None if U is None else U[a:b], Y[a:b]))
        if not train:
            raise ValueError(
                f"The 'selection_blocks' parameter of {_OWNER} leaves nothing to fit on when "
                f"block {block} is held out: the rest of every experiment has {lag + 1} steps "
                f"or fewer. Got selection_blocks={n_blocks}; use more blocks, or 1."
            )
        folds.append((train, held))
    return folds


def lagged_rows(narx, experiments):
    """The lagged rows of every experiment, stacked in order."""
    blocks = []
    for U, Y in experiments:
        check_length(Y.shape[0], narx.max_lag + 1, "y")
        blocks.append(narx.regressors(Y[None], None if U is None else U[None]))
    return np.vstack([X for X, _ in blocks]), np.vstack([Y for _, Y in blocks])


def variable_names(names, parameter, stem, count):
    """The variable names: given (str or sequence), or ``stem`` / ``stem1..stemN``."""
    if names is None:
        return stem if count == 1 else tuple(f"{stem}{j + 1}" for j in range(count))
    given = (names,) if isinstance(names, str) else tuple(names)
    if len(given) != count or not all(isinstance(n, str) and n.strip() for n in given):
        raise ValueError(
            f"The {parameter!r} parameter of {_OWNER} must hold {count} non-empty name(s), one "
            f"per variable. Got {names!r} instead."
        )
    return given
