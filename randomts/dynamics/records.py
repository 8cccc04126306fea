"""Input/output records: read and checked once, cut into stretches of time.

A **record** is one experiment on a system: its inputs ``u`` and outputs
``y`` sampled together, **time on axis 0**. ``u`` is ``(n_steps,)`` or
``(n_steps, n_inputs)`` (or None for a system without inputs), ``y`` is
``(n_steps,)`` or ``(n_steps, n_outputs)``, and ``u[k]`` is the input at the
time of ``y[k]``. Several records are given

- as lists of arrays, ``u=[u1, u2], y=[y1, y2]``;
- as a list of pairs, ``u=[(u1, y1), (u2, y2)]`` (and ``y`` omitted);
- or, records of one length, as 3-D arrays ``(n_records, n_steps, n_variables)``
  (a stack of records, each with time on its axis 0).

Every function of :mod:`randomts.dynamics` and :class:`~randomts.NARXRegressor`
takes the series in this order and this layout, and reads them with
:func:`read_records` once: what it returns, a :class:`Records`, is accepted
wherever records are (as ``u``) and is not checked again.

This module also cuts records into stretches of time: the held-out end of
every record (:func:`split_end`), the blocks of a blocked cross-validation
(:func:`blocked_folds`, :func:`earlier_blocks`).
"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_matrix, check_real

__all__ = [
    "Records",
    "blocked_folds",
    "blocks_allowed",
    "check_steps",
    "earlier_blocks",
    "read_records",
    "split_end",
    "variable_names",
]

_OWNER = "NARXRegressor"


class Records(list):
    """Records read by :func:`read_records`: a list of ``(u, y)`` pairs of float arrays.

    Every ``y`` is ``(n_steps, n_outputs)`` and every ``u`` ``(n_steps,
    n_inputs)`` or None, C-contiguous float64 and finite. Passed as ``u`` to
    any function that takes records, they are used as they are.

    Attributes
    ----------
    layout : {"one", "list", "stack"}
        How they were given: one record, a list, or 3-D arrays.
    y_ndim : int
        The ``ndim`` of one record's outputs as given (1 or 2).
    n_inputs, n_outputs : int
        Inputs (0 without) and outputs of every record.

    Examples
    --------
    >>> import numpy as np
    >>> records = read_records(u=[np.zeros(5), np.ones(7)], y=[np.zeros(5), np.ones(7)])
    >>> len(records), records.layout, records.n_inputs, records.n_outputs
    (2, 'list', 1, 1)
    >>> [y.shape for _, y in records]
    [(5, 1), (7, 1)]
    >>> read_records(records) is records  # read once
    True
    """

    def __init__(self, pairs, *, layout, y_ndim):
        super().__init__(pairs)
        self.layout = layout
        self.y_ndim = y_ndim
        inputs = {0 if u is None else u.shape[1] for u, _ in self}
        outputs = {y.shape[1] for _, y in self}
        if len(inputs) > 1 or len(outputs) > 1:
            raise ValueError(
                "Every record must have the same inputs and outputs; got "
                f"{sorted(inputs)} inputs and {sorted(outputs)} outputs."
            )
        self.n_inputs = inputs.pop() if inputs else 0
        self.n_outputs = outputs.pop() if outputs else 1

    def label(self, index):
        """`` of record i`` for messages about one of several records, else ``""``."""
        return f" of record {index}" if self.layout != "one" else ""

    def shaped(self, arrays):
        """Per-record results ``(n_steps, n_outputs)`` in the layout the records were given in."""
        arrays = [a[:, 0] if self.y_ndim == 1 else a for a in arrays]
        if self.layout == "one":
            return arrays[0]
        if self.layout == "stack":
            return np.stack([np.asarray(a).view(np.ndarray) for a in arrays])
        return arrays

    def listed(self):
        """The same records, whose results come back as a list of 2-D arrays."""
        return Records(self, layout="list", y_ndim=2)

    def take(self, stretches):
        """The arrays ``(u, y)`` of stretches ``(record, start, stop)`` (views, not copies).

        Examples
        --------
        >>> import numpy as np
        >>> records = read_records(y=np.arange(6.0))
        >>> [y.ravel().tolist() for _, y in records.take([(0, 1, 3), (0, 4, 6)])]
        [[1.0, 2.0], [4.0, 5.0]]
        """
        return Records(
            [
                (None if self[r][0] is None else self[r][0][a:b], self[r][1][a:b])
                for r, a, b in stretches
            ],
            layout="list",
            y_ndim=2,
        )


def _is_series(values):
    """Whether ``values`` is one array-like of numbers (not a list of records)."""
    return np.ndim(values[0]) == 0 if len(values) else True


def _pairs(u, y, y_name):
    """``(pairs, layout)`` of the arrays given, before they are checked."""
    if (
        y is None
        and isinstance(u, (list, tuple))
        and u
        and all(isinstance(pair, tuple) and len(pair) == 2 for pair in u)
    ):
        return list(u), "list"
    if y is None:
        raise ValueError(
            f"{y_name} is required (the series are taken as (u, {y_name}); give {y_name}=..., or "
            f"u as a list of (u, y) pairs); got {y_name}=None."
        )
    if isinstance(y, (list, tuple)) and y and not _is_series(y):
        if u is None:
            return [(None, item) for item in y], "list"
        if isinstance(u, (list, tuple)) and len(u) == len(y) and not _is_series(u):
            return list(zip(u, y, strict=True)), "list"
        raise ValueError(
            f"{y_name} is a list of {len(y)} records, so u must be None or a list of as many "
            f"input arrays; got {type(u).__name__}"
            f"{' of length ' + str(len(u)) if hasattr(u, '__len__') else ''}."
        )
    if np.ndim(y) == 3:
        if u is not None and np.ndim(u) != 3:
            raise ValueError(
                f"{y_name} is a stack of records (n_records, n_steps, n_outputs), so u must be "
                f"None or a stack (n_records, n_steps, n_inputs); got u of shape {np.shape(u)}."
            )
        if u is not None and np.shape(u)[0] != np.shape(y)[0]:
            raise ValueError(
                f"u and {y_name} must stack as many records; got {np.shape(u)[0]} and "
                f"{np.shape(y)[0]}."
            )
        return [(None if u is None else u[i], y[i]) for i in range(np.shape(y)[0])], "stack"
    return [(u, y)], "one"


def read_records(u=None, y=None, *, y_name="y", allow_shorter_y=False, owner=_OWNER):
    """The records given, checked once: :class:`Records`.

    Parameters
    ----------
    u : array-like, list, Records or None
        Inputs, time on axis 0 (see the module): one array, a list of them,
        a 3-D stack, None for no inputs; or a list of ``(u, y)`` pairs with
        ``y`` omitted; or :class:`Records`, returned as they are.
    y : array-like or list
        Outputs, laid out as ``u``.
    y_name : str, default="y"
        The outputs' name in messages (``"y_init"`` for initial outputs).
    allow_shorter_y : bool, default=False
        Accept outputs shorter than the inputs (initial outputs of a run).
    owner : str, default="NARXRegressor"
        What expects the records, for messages.

    Returns
    -------
    Records

    Examples
    --------
    >>> import numpy as np
    >>> records = read_records(u=np.arange(4.0), y=np.arange(4.0) ** 2)
    >>> records.layout, records.y_ndim, records[0][1].ravel().tolist()
    ('one', 1, [0.0, 1.0, 4.0, 9.0])
    >>> read_records(u=np.zeros(3), y=np.zeros(4))
    Traceback (most recent call last):
    ...
    ValueError: u and y must have the same number of steps (time on axis 0); got 3 and 4.
    """
    if isinstance(u, Records):
        return u
    pairs, layout = _pairs(u, y, y_name)
    checked, ndims = [], set()
    for index, (U, Y) in enumerate(pairs):
        label = f" of record {index}" if layout != "one" else ""
        ndims.add(np.ndim(Y))
        Y = check_matrix(Y, f"{y_name}{label}", allow_1d=True, column_label="outputs", owner=owner)
        if U is not None:
            U = check_matrix(U, f"u{label}", allow_1d=True, column_label="inputs", owner=owner)
            if U.shape[0] != Y.shape[0] and not (allow_shorter_y and U.shape[0] > Y.shape[0]):
                raise ValueError(
                    f"u{label} and {y_name}{label} must have the same number of steps "
                    f"(time on axis 0); got {U.shape[0]} and {Y.shape[0]}."
                )
        checked.append((U, Y))
    if len(ndims) > 1:
        raise ValueError(f"The records' {y_name} must all be 1-D or all 2-D; got both.")
    return Records(checked, layout=layout, y_ndim=max(1, min(ndims.pop(), 2)))


def check_steps(n_steps, needed, name, owner=_OWNER):
    """Raise if a record's ``name`` has fewer than ``needed`` steps.

    ``needed`` is the largest lag of the model (initial outputs), plus one
    for outputs that must hold a target too.

    Examples
    --------
    >>> check_steps(1, 2, "y_init")
    Traceback (most recent call last):
    ...
    ValueError: y_init has 1 steps, but this NARXRegressor needs at least 2 (its largest lag, max_lag_).
    """
    if n_steps < needed:
        why = "its largest lag, max_lag_" if owner == _OWNER else "its largest lag, max_lag"
        if not name.startswith("y_init"):
            why += ", plus one target"
        whom = f"this {owner}" if owner == _OWNER else owner
        raise ValueError(f"{name} has {n_steps} steps, but {whom} needs at least {needed} ({why}).")


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


def split_end(records, fraction, lag):
    """Every record cut in two: the first part to fit on, the last ``fraction`` held out.

    Stretches are ``(record, start, stop)``: steps ``start`` to ``stop - 1``
    of a record (:meth:`Records.take` gives their arrays). The held-out
    stretch holds ``fraction`` of the steps, and at least ``lag + 1`` (one
    target past its initial outputs); it starts with the last ``lag`` steps
    of the first part, its initial outputs. The first part needs more than
    ``lag + 1`` steps.

    Returns
    -------
    fitted, held_out : list of (int, int, int)
        One stretch of each per record.

    Examples
    --------
    >>> import numpy as np
    >>> split_end([(None, np.zeros((10, 1)))], 0.3, 2)
    ([(0, 0, 7)], [(0, 5, 10)])
    """
    value = check_real(fraction, "validation_fraction", low=0.0, low_inclusive=False, owner=_OWNER)
    if value >= 1.0:
        raise ValueError(
            f"The 'validation_fraction' parameter of {_OWNER} must be a fraction in (0, 1). "
            f"Got {fraction!r} instead."
        )
    fitted, held_out = [], []
    for index, (_, Y) in enumerate(records):
        n_held = max(int(round(value * Y.shape[0])), lag + 1)
        cut = Y.shape[0] - n_held
        if cut <= lag + 1:
            raise ValueError(
                f"focus='simulation' holds out the last validation_fraction={value} of every "
                f"record to stop on, at least max_lag + 1 = {lag + 1} steps; record {index} has "
                f"{Y.shape[0]} steps, which leaves {n_held} held out and {cut} to fit, and the fit "
                f"needs more than max_lag + 1."
            )
        fitted.append((index, 0, cut))
        held_out.append((index, cut - lag, Y.shape[0]))
    return fitted, held_out


def blocks_allowed(fitted, n_blocks, lag):
    """The most blocks, up to ``n_blocks``, whose earlier blocks are all longer than ``lag``.

    The first part of every record (``fitted``, from :func:`split_end`) is cut
    into ``n_blocks - 1`` blocks; a short record allows fewer (1: the held-out
    end alone).

    Examples
    --------
    >>> blocks_allowed([(0, 0, 37)], 5, 12), blocks_allowed([(0, 0, 400)], 5, 12)
    (3, 5)
    """
    shortest = min(cut for _, _, cut in fitted)
    return max(1, min(n_blocks, 1 + shortest // (lag + 1)))


def earlier_blocks(records, fitted, n_blocks, lag):
    """The folds of the blocked cross-validation of a free run, but the last.

    The part of every record before its held-out end (``fitted``, from
    :func:`split_end`) is cut into ``n_blocks - 1`` contiguous blocks
    (:func:`blocked_folds`); fold ``b`` holds out block ``b`` of every
    record, with the ``lag`` steps before it as its initial outputs (the
    first block: its own first steps), and fits on the rest of every
    record, the held-out end included, as separate stretches (no lagged
    row spans a block). Stretches of ``lag + 1`` steps or fewer are dropped.

    Returns
    -------
    list of (fitted, held_out)
        One pair of lists of stretches ``(record, start, stop)`` per block,
        in time order.

    Examples
    --------
    >>> import numpy as np
    >>> for train, held in earlier_blocks([(None, np.zeros((20, 1)))], [(0, 0, 16)], 3, 1):
    ...     print(train, held)
    [(0, 8, 20)] [(0, 0, 8)]
    [(0, 0, 8), (0, 16, 20)] [(0, 7, 16)]
    """
    folds = []
    for block in range(n_blocks - 1):
        train, held = [], []
        for (index, _, cut), (_, Y) in zip(fitted, records, strict=True):
            labels = blocked_folds(cut, n_blocks - 1)
            where = np.flatnonzero(labels == block)
            start, stop = (int(where[0]), int(where[-1]) + 1) if where.size else (0, 0)
            if stop - start <= lag:
                raise ValueError(
                    f"The 'selection_blocks' parameter of {_OWNER} cuts record {index} "
                    f"({Y.shape[0]} steps) into blocks of {stop - start} steps or fewer; each "
                    f"needs more than max_lag={lag}. Got selection_blocks={n_blocks}; use "
                    "fewer blocks (1: the held-out end alone)."
                )
            held.append((index, max(start - lag, 0), stop))
            for a, b in ((0, start), (stop, Y.shape[0])):
                if b - a > lag + 1:
                    train.append((index, a, b))
        if not train:
            raise ValueError(
                f"The 'selection_blocks' parameter of {_OWNER} leaves nothing to fit on when "
                f"block {block} is held out: the rest of every record has {lag + 1} steps "
                f"or fewer. Got selection_blocks={n_blocks}; use more blocks, or 1."
            )
        folds.append((train, held))
    return folds


def variable_names(names, parameter, stem, count, owner=_OWNER):
    """The variable names: given (str or sequence), or ``stem`` / ``stem1..stemN``.

    Examples
    --------
    >>> variable_names(None, "input_names", "u", 2)
    ('u1', 'u2')
    """
    if names is None:
        return stem if count == 1 else tuple(f"{stem}{j + 1}" for j in range(count))
    given = (names,) if isinstance(names, str) else tuple(names)
    if len(given) != count or not all(isinstance(n, str) and n.strip() for n in given):
        raise ValueError(
            f"The {parameter!r} parameter of {owner} must hold {count} non-empty name(s), one "
            f"per variable. Got {names!r} instead."
        )
    return given
