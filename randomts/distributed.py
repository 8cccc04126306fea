"""Fitting on a dask array with row chunks, on a ``dask.distributed`` cluster.

Optional: needs the ``dask`` extra (``pip install 'randomts[dask]'``). Every
row chunk of ``X`` is turned into the small ``(q, q)`` factor of its rows of
``[K Y]`` on the worker that holds it (the QR factor ``R`` for ``"lstsq"``
and ``"pinv"``, the Gram matrix for ``"cholesky"``; see
:mod:`randomts.accumulators`); the factors are then merged by a tree
reduction (``split_every`` at a time, each merge one more Householder QR of
stacked triangles), so only ``q^2`` numbers per chunk cross the network and
``K`` is never gathered. The last solve runs on the client.

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

from ._validation import check_int, check_int_option, check_option, check_real
from .rulebase import RuleBase
from .solvers import SOLVERS
from .streaming import ConsequentStream

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


def _chunk_stream(antecedents, X, Y, n_outputs, order, solver):
    """The accumulated factor of one row chunk (runs on a worker)."""
    return ConsequentStream(antecedents, n_outputs, order=order, solver=solver).update(X, Y)


def _merge_streams(*streams):
    """One node of the tree reduction: fold the later streams into the first."""
    first, *rest = streams
    for other in rest:
        first.merge(other)
    return first


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


def fit_consequents_dask(
    antecedents, X, Y, *, order=1, solver="lstsq", alpha=0.0, split_every=8, client=None
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
        Least-squares solver.
    alpha : float, default=0.0
        Ridge penalty.
    split_every : int, default=8
        Fan-in of the tree reduction.
    client : dask.distributed.Client, optional
        Where to compute; by default dask's default scheduler (a ``Client``
        created earlier in the session registers itself as the default).

    Returns
    -------
    RuleBase
        The rule base :meth:`RuleBase.fit_consequents` gives on all the rows,
        up to rounding.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(1000, 2)); y = np.tanh(X[:, 0]) * X[:, 1]
    >>> antecedents = RuleBase.random(n_features=2, n_rules=10, random_state=0)
    >>> rb = fit_consequents_dask(antecedents, da.from_array(X, chunks=(250, 2)),
    ...                           da.from_array(y, chunks=250))
    >>> bool(np.allclose(rb.predict(X), antecedents.fit_consequents(X, y).predict(X)))
    True
    """
    dask, da = _import_dask()
    if not isinstance(antecedents, RuleBase):
        raise TypeError(f"antecedents must be a RuleBase; got {type(antecedents).__name__}.")
    order = check_int_option(order, "order", (0, 1))
    check_option(solver, "solver", SOLVERS)
    alpha = check_real(alpha, "alpha", low=0.0)
    split_every = check_int(split_every, "split_every", low=2)
    X = _as_row_chunked(da, X, "X", antecedents.n_features)
    Y = _as_row_chunked(da, Y, "Y")
    if Y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X and Y must have the same number of rows; got {X.shape[0]} and {Y.shape[0]}."
        )
    if Y.chunks[0] != X.chunks[0]:
        Y = Y.rechunk({0: X.chunks[0]})
    n_outputs = 1 if Y.ndim == 1 else Y.shape[1]

    rules = dask.delayed(antecedents, pure=True)
    x_blocks = X.to_delayed().ravel()
    y_blocks = Y.to_delayed().ravel()
    level = [
        dask.delayed(_chunk_stream, pure=True)(rules, xb, yb, n_outputs, order, solver)
        for xb, yb in zip(x_blocks, y_blocks, strict=True)
    ]
    while len(level) > 1:
        level = [
            dask.delayed(_merge_streams, pure=True)(*level[i : i + split_every])
            for i in range(0, len(level), split_every)
        ]
    stream = client.compute(level[0]).result() if client is not None else level[0].compute()
    return stream.rule_base(alpha)


def fit_estimator_dask(estimator, X, y, *, split_every=8, client=None):
    """``estimator.fit(X, y)`` for dask arrays: the same model, computed on the cluster.

    The antecedents are drawn exactly as :meth:`RandomTSRegressor.fit` draws
    them, so the result equals the in-memory fit up to rounding. Supported
    for ``standardize=False`` and ``centers`` in ``{"normal", "uniform"}``
    (the others need statistics of the data before the draw).

    Parameters
    ----------
    estimator : RandomTSRegressor
        Unfitted or fitted; it is refitted in place.
    X : dask.array.Array of shape (n_samples, n_features)
    y : dask.array.Array of shape (n_samples,) or (n_samples, n_outputs)
    split_every, client
        See :func:`fit_consequents_dask`.

    Returns
    -------
    RandomTSRegressor
        The fitted ``estimator``.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(800, 2)); y = X[:, 0] ** 2 - X[:, 1]
    >>> model = fit_estimator_dask(RandomTSRegressor.paper(n_rules=10, random_state=0),
    ...                            da.from_array(X, chunks=(200, 2)), da.from_array(y, chunks=200))
    >>> whole = RandomTSRegressor.paper(n_rules=10, random_state=0).fit(X, y)
    >>> bool(np.allclose(model.predict(X), whole.predict(X), rtol=1e-10, atol=1e-12))
    True
    """
    from .estimator import RandomTSRegressor

    dask, da = _import_dask()
    if not isinstance(estimator, RandomTSRegressor):
        raise TypeError(f"estimator must be a RandomTSRegressor; got {type(estimator).__name__}.")
    estimator._validate_hyperparameters()
    if (
        estimator.standardize
        or estimator.centers not in ("normal", "uniform")
        or isinstance(estimator.alpha, str)
    ):
        raise ValueError(
            "fit_estimator_dask supports standardize=False, centers in {'normal', 'uniform'} and "
            f"a fixed alpha (as RandomTSRegressor.paper() has); got standardize="
            f"{estimator.standardize!r}, centers={estimator.centers!r}, alpha={estimator.alpha!r}. "
            "Standardise the dask array first and give a fixed alpha, or draw the antecedents "
            "yourself and call fit_consequents_dask."
        )
    X = _as_row_chunked(da, X, "X")
    y = _as_row_chunked(da, y, "y")
    n_outputs = 1 if y.ndim == 1 else y.shape[1]
    n_features = X.shape[1]
    # The draw needs only the shapes: give _draw_antecedents empty arrays of the right width.
    import numpy as np

    for name in ("feature_names_in_",):
        if hasattr(estimator, name):
            delattr(estimator, name)
    estimator.n_features_in_ = n_features
    _, antecedents = estimator._draw_antecedents(
        np.empty((0, n_features)), np.empty((0, n_outputs)), None
    )
    rule_base = fit_consequents_dask(
        antecedents,
        X,
        y,
        order=estimator.order,
        solver=estimator.solver,
        alpha=estimator.alpha,
        split_every=split_every,
        client=client,
    )
    Y = y.reshape(-1, 1) if y.ndim == 1 else y
    x_low, x_high, y_low, y_high = dask.compute(
        X.min(axis=0), X.max(axis=0), Y.min(axis=0), Y.max(axis=0)
    )
    estimator._stream = None
    estimator._y_ndim = y.ndim
    # the ranges of two rows, the columnwise minima and maxima, are the data's ranges
    estimator._record_ranges(np.vstack([x_low, x_high]), np.vstack([y_low, y_high]), reset=True)
    estimator._set_rule_base(rule_base, X.shape[0])
    return estimator
