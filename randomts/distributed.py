"""Fitting on a dask array with row chunks, on a ``dask.distributed`` cluster.

Optional: needs the ``dask`` extra (``pip install 'randomts[dask]'``). Every
row chunk of ``X`` is turned into the small ``(q, q)`` factor of its rows of
``[K Y]`` on the worker that holds it (the QR factor ``R`` for ``"lstsq"``
and ``"pinv"``, the Gram matrix for ``"cholesky"``; see
:mod:`randomts.core.accumulators`); the factors are then merged by a tree
reduction (``split_every`` at a time, each merge one more Householder QR of
stacked triangles), so only ``q^2`` numbers per chunk cross the network and
``K`` is never gathered. The last solve runs on the client.
:func:`fit_consequents_dask` is
:func:`~randomts.fitting.consequents.fit_consequents` on dask arrays: at a
fixed ``alpha`` the chunks' :class:`~randomts.fitting.consequents.ConsequentStream`
merged, with ``alpha="auto"`` the two passes of
:class:`~randomts.fitting.ridge.LeaveOneOutRidge`, the selection
that :func:`~randomts.fitting.ridge.choose_consequent_alpha` makes in
memory. :func:`fit_estimator_dask` runs a whole :meth:`RandomTSRegressor.fit
<randomts.RandomTSRegressor.fit>` that way, at any of the estimator's
settings, through the estimator's own fit (:meth:`~randomts.RandomTSRegressor.fit_rows`).

Pointing it at a real cluster
-----------------------------
Start a scheduler and workers (``dask scheduler`` on one machine,
``dask worker tcp://SCHEDULER:8786`` on each of the others; every worker
needs randomts installed), then in the client::

    from dask.distributed import Client
    import dask.array as da
    client = Client("tcp://SCHEDULER:8786")          # becomes dask's default scheduler
    X = da.from_zarr("inputs.zarr")                     # or da.from_array / from_npy_stack ...
    Y = da.from_zarr("targets.zarr")
    rule_base = fit_consequents_dask(antecedents, X, Y)

Any dask scheduler works (threads, processes, distributed): the fit uses the
default one, or the ``client`` passed in.
"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_int_option, check_option
from randomts.core.design import design_rows_writer
from randomts.core.scaling import Standardisation
from randomts.core.solvers import SOLVERS
from randomts.estimators.extrapolation import TrainingDomain
from randomts.estimators.parameters import check_hyperparameters, resolved
from randomts.estimators.rows import TrainingRows
from randomts.fitting.consequents import ConsequentFit, ConsequentStream, fit_consequents
from randomts.fitting.local_learning import (
    LEARNING,
    LearningStatistics,
    check_local_weight,
    interleaved_folds,
)
from randomts.fitting.protocol import check_alpha, check_rule_base, with_chosen_consequents
from randomts.fitting.ridge import LeaveOneOutRidge

__all__ = ["fit_consequents_dask", "fit_estimator_dask"]


def _import_dask():
    try:
        import dask
        import dask.array as da
    except ImportError as error:  # pragma: no cover - exercised only without dask
        raise ImportError(
            "randomts.distributed needs dask: pip install 'randomts[dask]'"
        ) from error
    return dask, da


def _chunk_stream(antecedents, X, Y, n_outputs, order, solver, learning="global", weight=None):
    """The accumulated factor of one row chunk (runs on a worker)."""
    stream = ConsequentStream(
        antecedents, n_outputs, order=order, solver=solver, learning=learning, local_weight=weight
    )
    return stream.update(X, Y)


def _chunk_statistics(antecedents, X, Y, order, start):
    """One row chunk's statistics per fold, its rows in the interleaved folds of every row."""
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    statistics = LearningStatistics(antecedents, Y.shape[1], order=order)
    return statistics.update(X, Y, interleaved_folds(X.shape[0], start=start))


def _merge_streams(*streams):
    """One node of the tree reduction: fold the later streams into the first."""
    first, *rest = streams
    for other in rest:
        first.merge(other)
    return first


def _tree_reduce(dask, level, split_every):
    """Merge the delayed partial results of ``level`` by a tree of fan-in ``split_every``."""
    while len(level) > 1:
        level = [
            dask.delayed(_merge_streams, pure=True)(*level[i : i + split_every])
            for i in range(0, len(level), split_every)
        ]
    return level[0]


def _chunk_gram(rules, X, Y, order):
    """The leave-one-out first pass over one row chunk: the Gram matrix of ``[K Y 1]``."""
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    n_columns = rules.n_rules * (rules.n_features + 1 if order == 1 else 1)
    write = design_rows_writer(
        X, Y, rules.centers, rules.sigmas, normalize=rules.normalize, order=order
    )
    return LeaveOneOutRidge(n_columns, Y.shape[1]).update_rows(write, X.shape[0])


# rows of K formed at once by a chunk's leave-one-out pass (2^22 entries, 32 MiB)
_BLOCK_ELEMENTS = 1 << 22


def _chunk_loo(loo, rules, X, Y, order):
    """The leave-one-out second pass over one row chunk: summed squared residuals per alpha."""
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    step = max(1, _BLOCK_ELEMENTS // loo.n_columns)
    return sum(
        loo.squared_errors(rules.design_matrix(X[i : i + step], order=order), Y[i : i + step])
        for i in range(0, X.shape[0], step)
    )


def _chunk_weakest_firing(rules, X):
    """The least over the chunk's rows of the log firing of each row's strongest rule."""
    return float(rules.log_firing_strengths(np.asarray(X, dtype=float)).max(axis=1).min())


def _weakest_firing(dask, rules, U):
    chunks = [
        dask.delayed(_chunk_weakest_firing, pure=True)(rules, block)
        for block in U.to_delayed().ravel()
    ]
    return dask.delayed(min, pure=True)(chunks)


def _fit(
    dask,
    client,
    antecedents,
    X,
    Y,
    order,
    solver,
    alpha,
    split_every,
    also=(),
    learning="global",
    local_weight="auto",
):
    """``(rule base, values of also)``: :func:`fit_consequents_dask` on checked arguments.

    The dask collections ``also`` are computed with the last pass over the rows.
    """
    rules = dask.delayed(antecedents, pure=True)
    weight = local_weight if learning == "combined" else None
    if alpha != "auto" and weight != "auto":
        # each chunk's factor, merged by the tree; the solve on the client
        n_outputs = 1 if Y.ndim == 1 else Y.shape[1]
        level = [
            dask.delayed(_chunk_stream, pure=True)(
                rules, xb, yb, n_outputs, order, solver, learning, weight
            )
            for xb, yb in zip(X.to_delayed().ravel(), Y.to_delayed().ravel(), strict=True)
        ]
        stream, *values = _gather(dask, client, _tree_reduce(dask, level, split_every), *also)
        return stream.rule_base(alpha), [np.asarray(value) for value in values]
    Y = Y.reshape(-1, 1) if Y.ndim == 1 else Y
    if learning != "global":
        # each chunk's statistics per fold, merged by the tree; the choice on the client
        starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]])
        level = [
            dask.delayed(_chunk_statistics, pure=True)(rules, xb, yb, order, int(start))
            for xb, yb, start in zip(
                X.to_delayed().ravel(), Y.to_delayed().ravel(), starts, strict=True
            )
        ]
        statistics, *arrays = _gather(
            dask,
            client,
            _tree_reduce(dask, level, split_every),
            *(_delayed(reduced) for reduced in (X.min(0), X.max(0), Y.min(0), Y.max(0))),
            *also,
        )
        x_low, x_high, y_low, y_high, *values = (np.asarray(value) for value in arrays)
        selection = statistics.select(
            learning, local_weight=local_weight, alpha=alpha, toward_mean=alpha == "auto"
        )
    else:
        # the exact leave-one-out ridge in two passes: the Gram matrix by a tree reduction,
        # then each chunk's squared leave-one-out residuals, summed
        if X.shape[0] < antecedents.n_rules * (antecedents.n_features + 1 if order == 1 else 1):
            # the row space: few rows, fitted where they fit
            X_rows, Y_rows, *values = _compute(dask, client, _delayed(X), _delayed(Y), *also)
            return fit_consequents(antecedents, X_rows, Y_rows, order=order, alpha="auto"), values
        selection, x_low, x_high, y_low, y_high, values = _leave_one_out(
            dask, client, rules, antecedents, X, Y, order, split_every, also
        )
    rule_base = with_chosen_consequents(
        antecedents,
        selection,
        order=order,
        input_range=np.column_stack([x_low, x_high]),
        output_range=np.column_stack([y_low, y_high]),
    )
    return rule_base, values


def _leave_one_out(dask, client, rules, antecedents, X, Y, order, split_every, also):
    """The exact leave-one-out choice of alpha on dask arrays, the ranges, and ``also``."""
    x_blocks, y_blocks = X.to_delayed().ravel(), Y.to_delayed().ravel()
    first = [
        dask.delayed(_chunk_gram, pure=True)(rules, xb, yb, order)
        for xb, yb in zip(x_blocks, y_blocks, strict=True)
    ]
    (loo,) = _gather(dask, client, _tree_reduce(dask, first, split_every))
    loo.decompose()  # once, on the client; the workers receive the eigenbasis
    spectrum = dask.delayed(loo, pure=True)
    second = [
        dask.delayed(_chunk_loo, pure=True)(spectrum, rules, xb, yb, order)
        for xb, yb in zip(x_blocks, y_blocks, strict=True)
    ]
    squared, x_low, x_high, y_low, y_high, *values = _compute(
        dask,
        client,
        dask.delayed(sum, pure=True)(second),
        *(_delayed(reduced) for reduced in (X.min(0), X.max(0), Y.min(0), Y.max(0))),
        *also,
    )
    return loo.select(squared), x_low, x_high, y_low, y_high, values


def _as_row_chunked(da, array, name, n_columns=None):
    array = da.asarray(array)
    if array.ndim not in (1, 2) or (name == "X" and array.ndim != 2):
        raise ValueError(
            f"{name} must be a 2-D dask array (rows, columns); got shape {array.shape}."
        )
    if n_columns is not None and array.shape[1] != n_columns:
        raise ValueError(
            f"X has {array.shape[1]} features, but this rule base is expecting {n_columns} "
            "features as input."
        )
    if array.ndim == 2 and len(array.chunks[1]) > 1:
        array = array.rechunk({1: -1})
    return array


def _aligned_rows(da, X, Y, name, n_features=None):
    """``X`` and the targets as dask arrays chunked by rows, the targets on ``X``'s row chunks."""
    X = _as_row_chunked(da, X, "X", n_features)
    Y = _as_row_chunked(da, Y, name)
    if Y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X and {name} must have the same number of rows; got {X.shape[0]} and {Y.shape[0]}."
        )
    if Y.chunks[0] != X.chunks[0]:
        Y = Y.rechunk({0: X.chunks[0]})
    return X, Y


def fit_consequents_dask(
    antecedents,
    X,
    Y,
    *,
    order=1,
    solver="lstsq",
    alpha=0.0,
    learning="global",
    local_weight="auto",
    split_every=8,
    client=None,
):
    """Fit the consequents of ``antecedents`` to dask arrays chunked by rows.

    Parameters
    ----------
    antecedents : RuleBase
        Fixed antecedents.
    X : dask.array.Array of shape (n_samples, n_features)
        Inputs, chunked along rows (column chunks are merged).
    Y : dask.array.Array of shape (n_samples,) or (n_samples, n_outputs)
        Targets; rechunked to the row chunks of ``X`` if they differ.
    order : {0, 1}, default=1
        Consequent order.
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        Least-squares solver of a float ``alpha``.
    alpha : "auto" or float, default=0.0
        Ridge penalty, or ``"auto"``: its exact leave-one-out choice, as
        :func:`~randomts.fitting.consequents.fit_consequents` makes it (two
        passes over the chunks; with fewer rows than unknowns, the rows are
        gathered and fitted in memory), recorded in ``metadata["alpha"]``.
    learning : {"global", "local", "combined"}, default="global"
        How the consequents are fitted (see
        :func:`~randomts.fitting.consequents.fit_consequents`). Local and
        combined learning accumulate each chunk's statistics per fold, every
        row in the interleaved fold of its index in ``X``, so the choices of
        ``alpha="auto"`` and ``local_weight="auto"`` are those of the
        in-memory fit, in one pass.
    local_weight : "auto" or float > 0, default="auto"
        Weight of the local term of combined learning.
    split_every : int, default=8
        Fan-in of the tree reduction.
    client : dask.distributed.Client, optional
        Where to compute; by default dask's default scheduler (a ``Client``
        created earlier in the session registers itself as the default).

    Returns
    -------
    RuleBase
        The rule base :func:`~randomts.fitting.consequents.fit_consequents`
        gives on all the rows, up to rounding.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(1000, 2)); y = np.tanh(X[:, 0]) * X[:, 1]
    >>> antecedents = RuleBase.random(n_features=2, n_rules=10, random_state=0)
    >>> Xd, yd = da.from_array(X, chunks=(250, 2)), da.from_array(y, chunks=250)
    >>> rb = fit_consequents_dask(antecedents, Xd, yd)
    >>> bool(np.allclose(rb.predict(X), antecedents.fit_consequents(X, y).predict(X)))
    True
    >>> auto = fit_consequents_dask(antecedents, Xd, yd, alpha="auto")
    >>> in_memory = antecedents.fit_consequents(X, y, alpha="auto")
    >>> bool(np.isclose(auto.metadata["alpha"], in_memory.metadata["alpha"], rtol=1e-12))
    True
    """
    dask, da = _import_dask()
    check_rule_base(antecedents)
    order = check_int_option(order, "order", (0, 1))
    check_option(solver, "solver", SOLVERS)
    alpha = check_alpha(alpha)
    check_option(learning, "learning", LEARNING)
    local_weight = check_local_weight(local_weight)
    split_every = check_int(split_every, "split_every", low=2)
    X, Y = _aligned_rows(da, X, Y, "Y", antecedents.n_features)
    return _fit(
        dask,
        client,
        antecedents,
        X,
        Y,
        order,
        solver,
        alpha,
        split_every,
        learning=learning,
        local_weight=local_weight,
    )[0]


def fit_estimator_dask(estimator, X, y, *, split_every=8, client=None):
    """The model ``estimator.fit(X, y)`` gives, computed from dask arrays on the cluster.

    The estimator's own fit (:meth:`RandomTSRegressor.fit_rows`) runs, its
    every step where the rows are:

    1. one pass for the data's statistics: each column's minimum and
       maximum (the recorded ranges) and, with ``standardize=True``, mean
       and standard deviation;
    2. the antecedents, drawn on the (lazily standardised) inputs:
       ``centers="samples"`` reads only the drawn rows, ``centers="data"``
       the columns' bounds;
    3. the consequents, by :func:`fit_consequents_dask`: at a fixed
       ``alpha``, the accumulated factor of each chunk merged by a tree
       reduction; with ``alpha="auto"``, the exact leave-one-out choice of
       :class:`~randomts.fitting.ridge.LeaveOneOutRidge` in two
       passes — the Gram matrix by a tree reduction, then each chunk's
       squared leave-one-out residuals, summed — with the weakest firing of
       a row's strongest rule in the last pass;
    4. the fitted state, on the client.

    Only statistics of size ``q^2`` (``q`` unknowns per output) leave the
    workers. The result equals the in-memory fit up to rounding (the sums
    run in another order). When there are fewer rows than unknowns, the
    rows are few: they are gathered and fitted in memory.

    Parameters
    ----------
    estimator : RandomTSRegressor
        Its parameters define the model; it is left unchanged.
    X : dask.array.Array of shape (n_samples, n_features)
    y : dask.array.Array of shape (n_samples,) or (n_samples, n_outputs)
    split_every, client
        See :func:`fit_consequents_dask`.

    Returns
    -------
    RandomTSRegressor
        A new fitted estimator with the parameters of ``estimator``.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = 50 + 10 * rng.normal(size=(800, 2)); y = np.tanh((X[:, 0] - 50) / 10) - X[:, 1] / 10
    >>> drawn = RandomTSRegressor(n_rules=10, structure="random", random_state=0)
    >>> model = fit_estimator_dask(drawn, da.from_array(X, chunks=(200, 2)),
    ...                            da.from_array(y, chunks=200))
    >>> whole = RandomTSRegressor(n_rules=10, structure="random", random_state=0).fit(X, y)
    >>> bool(np.isclose(model.alpha_, whole.alpha_, rtol=1e-12))  # the same grid point
    True
    >>> bool(np.max(np.abs(model.predict(X) - whole.predict(X))) < 1e-6)
    True
    """
    from sklearn.base import clone

    from randomts.estimators.regressor import RandomTSRegressor

    dask, da = _import_dask()
    if not isinstance(estimator, RandomTSRegressor):
        raise TypeError(f"estimator must be a RandomTSRegressor; got {type(estimator).__name__}.")
    if estimator.refine or estimator.centers == "kmeans":
        raise ValueError(
            "fit_estimator_dask draws the antecedents without holding the rows: k-means centres "
            "and refinement need them all in memory. Got "
            f"centers={estimator.centers!r}, refine={estimator.refine!r}; fit those in "
            "memory (estimator.fit) or use centers='samples' and refine=0."
        )
    split_every = check_int(split_every, "split_every", low=2)
    X, y = _aligned_rows(da, X, y, "y")
    model = clone(estimator)
    check_hyperparameters(model)
    n_samples, n_features = X.shape
    if n_samples < resolved(model).n_rules * (n_features + 1 if model.order == 1 else 1):
        # the row space: few rows, fitted where they fit
        X_rows, y_rows = _compute(dask, client, X, y)
        return model.fit(X_rows, y_rows)
    return model.fit_rows(_DaskRows(dask, client, X, y, split_every))


class _DaskRows(TrainingRows):
    """The training rows of :func:`fit_estimator_dask`: dask arrays, chunked by rows."""

    def __init__(self, dask, client, X, y, split_every):
        self.dask, self.client, self.split_every = dask, client, split_every
        self._X = X
        self.y_ndim = y.ndim
        self._Y = y.reshape(-1, 1) if y.ndim == 1 else y
        self.n_samples, self.n_features = X.shape
        self.n_outputs = self._Y.shape[1]

    checked = False  # the chunks are checked where they are folded in

    def statistics(self, standardize):
        X, Y = self._X, self._Y
        statistics = [X.min(axis=0), X.max(axis=0), Y.min(axis=0), Y.max(axis=0)]
        if standardize:
            statistics += [X.mean(axis=0), X.std(axis=0)]
        x_low, x_high, y_low, y_high, *moments = _compute(self.dask, self.client, *statistics)
        domain = TrainingDomain(np.concatenate([x_low, y_low]), np.concatenate([x_high, y_high]))
        return domain, Standardisation.from_moments(*moments) if moments else None

    def inputs(self, scaling):
        return self._X if scaling is None else scaling.apply(self._X)

    def fit_consequents(self, antecedents, U, settings):
        alpha, learning = settings["alpha"], settings["learning"]
        rule_base, (weakest,) = _fit(
            self.dask,
            self.client,
            antecedents,
            U,
            self._Y,
            settings["order"],
            settings["solver"],
            alpha,
            self.split_every,
            also=(_weakest_firing(self.dask, antecedents, U),),
            learning=learning,
            local_weight=settings["local_weight"],
        )
        metadata = rule_base.metadata
        chosen = metadata["alpha"] if alpha == "auto" else float(alpha)
        local_weight = metadata.get("local_weight")
        if local_weight is None and learning == "combined":
            local_weight = float(settings["local_weight"])  # given, not chosen
        return ConsequentFit(rule_base, chosen, local_weight, None), float(weakest)

    def weakest_log_firing(self, antecedents, U):
        (weakest,) = _gather(self.dask, self.client, _weakest_firing(self.dask, antecedents, U))
        return float(weakest)


def _delayed(array):
    """A dask array as one ``Delayed``, so that a computation holds one kind of collection.

    ``dask.compute`` of arrays and ``Delayed`` objects together may return
    the results in another order than the arguments'.
    """
    (block,) = array.rechunk(-1).to_delayed().ravel()
    return block


def _gather(dask, client, *collections):
    """Compute dask collections together, on ``client`` if given (else dask's default)."""
    if client is not None:
        return client.compute(list(collections), sync=True)
    return list(dask.compute(*collections))


def _compute(dask, client, *collections):
    """:func:`_gather`, each result as a NumPy array."""
    return [np.asarray(value) for value in _gather(dask, client, *collections)]
