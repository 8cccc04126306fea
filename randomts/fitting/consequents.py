"""The fit of the consequents of fixed antecedents: in one shot, or from rows that arrive in chunks.

The antecedents are fixed, so the least-squares system ``K Gamma = Y`` can be
accumulated chunk by chunk in a ``(q, q)`` factor (see
:mod:`randomts.core.accumulators`), ``q = n_rules * (n_features + 1) + n_outputs``:
memory does not grow with the number of rows and time grows linearly with it.
Within a chunk, the rows of ``K`` are written a block of 512 (QR) or 2048
(Gram) rows at a time straight into the factor's update
(:func:`randomts.core.design.design_rows_writer`,
:func:`randomts.core.accumulators.fold_rows`), by ``n_jobs`` threads: ``K`` is
never materialised, whatever the chunk size.

:func:`fit_consequents` is the one fit of the consequents of rows in memory,
which :meth:`randomts.RuleBase.fit_consequents`, the estimators and the
refinement call: at a fixed ``alpha`` it is one :class:`ConsequentStream`
fed all the rows at once; with ``alpha="auto"`` the exact leave-one-out
ridge of :func:`randomts.fitting.ridge.choose_consequent_alpha`.

The result is the model one ``fit`` on all the rows gives: the ``"lstsq"``
and ``"pinv"`` solvers accumulate the QR factor of ``[K Y]`` (Householder
updates, backward stable), ``"cholesky"`` the Gram matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randomts._threads import effective_n_jobs
from randomts._validation import check_int, check_int_option, check_matrix, check_option, check_real
from randomts.core import membership
from randomts.core.accumulators import LeastSquaresAccumulator
from randomts.core.design import design_rows_writer
from randomts.core.solvers import SOLVERS
from randomts.fitting.local_learning import (
    LEARNING,
    N_FOLDS,
    LearningStatistics,
    check_folds,
    check_local_weight,
    interleaved_folds,
    local_grams,
    solve_learning,
)
from randomts.fitting.protocol import (
    check_alpha,
    check_rule_base,
    with_chosen_consequents,
    with_consequents,
)
from randomts.fitting.ridge import choose_consequent_alpha

__all__ = [
    "ConsequentFit",
    "ConsequentStream",
    "consequent_fit",
    "fit_consequents",
    "fit_consequents_streaming",
]


@dataclass(frozen=True, eq=False)
class ConsequentFit:
    """What the fit of the consequents gives: the rule base, and what it chose.

    Attributes
    ----------
    rule_base : RuleBase
        The antecedents with the fitted consequents.
    alpha : float
        The ridge penalty used (chosen, with ``alpha="auto"``).
    local_weight : float or None
        The weight of the local term of combined learning, else None.
    prior : ndarray of shape (n_columns, n_outputs) or None
        The coefficients the ridge shrank toward (the rule base that best
        reproduces each output's mean, with ``alpha="auto"``), or None for
        zero: what a stream of further rows shrinks toward
        (:class:`ConsequentStream`).
    """

    rule_base: object
    alpha: float
    local_weight: float | None
    prior: np.ndarray | None


def fit_consequents(
    antecedents,
    X,
    Y,
    *,
    order=1,
    alpha=0.0,
    solver="lstsq",
    learning="global",
    local_weight="auto",
    folds=None,
    n_jobs=None,
):
    """Fit the consequents of fixed antecedents to data, in one shot.

    Solves ``min ||K Gamma - Y||^2 + alpha ||Gamma||^2`` (``K`` the design
    matrix of the antecedents on ``X``), with ``alpha`` given or chosen by
    exact leave-one-out error, and returns the rule base with those
    consequents. ``K`` is never formed whole: its rows are written a block
    at a time into the factor the solve needs.

    With ``learning="local"`` or ``"combined"``, each rule's consequent is
    (also) fitted to the data under that rule alone, so that it describes
    its neighbourhood of the data (:mod:`randomts.fitting.local_learning`).

    Parameters
    ----------
    antecedents : RuleBase
        The rules whose consequents are fitted (their consequents are ignored).
    X : array-like of shape (n_samples, n_features)
        Inputs.
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Targets; 1-D means one output.
    order : {0, 1}, default=1
        0: constant consequents (an ELM with RBF nodes); 1: linear.
    alpha : "auto" or float, default=0.0
        A float ``>= 0``: that ridge penalty, shrinking toward zero, solved
        by ``solver`` (one :class:`ConsequentStream` fed every row).
        ``"auto"``: the penalty of least leave-one-out error on a grid of 25
        values from ``1e-10`` to ``1e2`` times the mean eigenvalue of
        ``K^T K``, the consequents shrunk toward those that best reproduce
        the targets' mean
        (:func:`randomts.fitting.ridge.choose_consequent_alpha`); it
        is recorded in the result's ``metadata["alpha"]``.
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        Least-squares solver of a float ``alpha`` with global learning (see
        :mod:`randomts.core.solvers`); ``"auto"`` and local or combined
        learning, which solve the normal equations by an eigendecomposition,
        do not use it.
    learning : {"global", "local", "combined"}, default="global"
        ``"global"``: the least squares of the model's output above.
        ``"local"``: each rule's consequent is the weighted least-squares fit
        of the data under that rule, weighted by the rule's column of the
        firing strengths (normalised for a weighted average).
        ``"combined"``: global error plus ``local_weight`` times the sum of
        the local errors (Yen, Wang & Gillespie, 1998). With ``"local"`` or
        ``"combined"``, ``alpha="auto"`` is chosen by K-fold
        cross-validation (:class:`~randomts.fitting.local_learning.LearningStatistics`).
    local_weight : "auto" or float > 0, default="auto"
        Weight of the local term of ``learning="combined"``; ``"auto"``
        chooses it by cross-validation on
        :data:`~randomts.fitting.local_learning.LOCAL_WEIGHTS`, together
        with ``alpha``. Recorded in ``metadata["local_weight"]``.
    folds : array-like of int of shape (n_samples,), optional
        The fold of each row for the cross-validation (labels ``0..k-1``),
        e.g. contiguous blocks for rows in time order, where leave-one-out
        is optimistic. Given with global learning and ``alpha="auto"``, it
        replaces the leave-one-out choice. By default 5 interleaved folds
        (row ``j`` in fold ``j mod 5``).
    n_jobs : int, optional
        Threads folding stripes of rows at once (default one; see
        ``randomts._threads.effective_n_jobs``). The result does not depend on it.

    Returns
    -------
    RuleBase
        Built by ``antecedents.replace``: the same antecedents, the fitted
        consequents, :attr:`~randomts.RuleBase.input_range` and
        :attr:`~randomts.RuleBase.output_range` those of ``X`` and ``Y``, and
        the output names of the antecedents when their number matches
        (else ``y1..ym``).

    Raises
    ------
    TypeError
        If ``antecedents`` is not a rule base.
    ValueError
        For a parameter out of range, or with a float ``alpha`` if no rule
        fires on any row (every firing strength is 0).
    MemoryError
        Before allocating, if the least-squares factor cannot fit in memory.

    See Also
    --------
    fit_consequents_streaming : the same fit from rows in chunks.
    randomts.distributed.fit_consequents_dask : from dask arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 2)); y = np.sin(3 * X[:, 0]) + 0.05 * rng.normal(size=200)
    >>> antecedents = RuleBase.random(n_features=2, n_rules=10, random_state=0)
    >>> K = antecedents.design_matrix(X)

    A fixed penalty is the ridge solution:

    >>> ridge = fit_consequents(antecedents, X, y, alpha=1e-2)
    >>> gamma = np.linalg.solve(K.T @ K + 1e-2 * np.eye(K.shape[1]), K.T @ y)
    >>> round(float(np.max(np.abs(ridge.predict(X)[:, 0] - K @ gamma))), 10)
    0.0

    ``"auto"`` picks a point of the grid, in units of the mean eigenvalue of ``K^T K``:

    >>> from randomts.fitting.ridge import RELATIVE_ALPHAS
    >>> auto = fit_consequents(antecedents, X, y, alpha="auto")
    >>> relative = auto.metadata["alpha"] / (len(X) * np.mean(K**2))
    >>> bool(np.isclose(RELATIVE_ALPHAS, relative, rtol=1e-9).any())
    True
    >>> exact = fit_consequents(antecedents, X, y)  # alpha=0: least squares
    >>> [round(float(np.sqrt(np.mean((rb.predict(X)[:, 0] - y) ** 2))), 3)
    ...  for rb in (exact, ridge, auto)]
    [0.045, 0.082, 0.047]
    """
    return consequent_fit(
        antecedents,
        X,
        Y,
        order=order,
        alpha=alpha,
        solver=solver,
        learning=learning,
        local_weight=local_weight,
        folds=folds,
        n_jobs=n_jobs,
    ).rule_base


def consequent_fit(
    antecedents,
    X,
    Y,
    *,
    order=1,
    alpha=0.0,
    solver="lstsq",
    learning="global",
    local_weight="auto",
    folds=None,
    n_jobs=None,
    check_input=True,
):
    """:func:`fit_consequents`, with what it chose: the one fit of the consequents.

    Every fit of consequents in randomts runs here: the estimators (their
    ``fit``, the first chunk of ``partial_fit``, the penalty of
    refinement), :meth:`RuleBase.fit_consequents
    <randomts.RuleBase.fit_consequents>` and the pruning that refits.

    Parameters
    ----------
    antecedents, X, Y, order, alpha, solver, learning, local_weight, folds, n_jobs
        As in :func:`fit_consequents`.
    check_input : bool, default=True
        False for callers that pass checked arguments: a rule base, ``X``
        and ``Y`` finite float64 arrays of shapes ``(n_samples,
        n_features)`` and ``(n_samples, n_outputs)``, the options valid (as
        scikit-learn's ``ridge_regression(check_input=False)``).

    Returns
    -------
    ConsequentFit

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 2)); y = np.sin(3 * X[:, 0]) + 0.05 * rng.normal(size=200)
    >>> antecedents = RuleBase.random(n_features=2, n_rules=10, random_state=0)
    >>> fit = consequent_fit(antecedents, X, y, alpha="auto")
    >>> fit.alpha == fit.rule_base.metadata["alpha"]  # exact: the same float, recorded
    True
    >>> fit.prior.shape, fit.local_weight
    ((30, 1), None)
    """
    if check_input:
        check_rule_base(antecedents)
        X = check_matrix(X, "X", n_columns=antecedents.n_features, owner="this rule base")
        Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
        if Y.shape[0] != X.shape[0]:
            raise ValueError(
                f"X and Y must have the same number of samples; got {X.shape[0]} and {Y.shape[0]}."
            )
        order = check_int_option(order, "order", (0, 1))
        check_option(solver, "solver", SOLVERS)
        alpha = check_alpha(alpha)
        check_option(learning, "learning", LEARNING)
        local_weight = check_local_weight(local_weight)
    elif Y.ndim == 1:
        Y = Y.reshape(-1, 1)
    if learning != "global" or (alpha == "auto" and folds is not None):
        return _fit_learning(antecedents, X, Y, order, alpha, learning, local_weight, folds, n_jobs)
    if alpha != "auto":
        # the fitting engine (randomts.core.accumulators) folds the rows of K, written block by
        # block, into the factor of [K Y]; the stream also records the ranges of X and Y
        stream = ConsequentStream(
            antecedents, Y.shape[1], order=order, solver=solver, n_jobs=n_jobs
        )
        rule_base = stream.update(X, Y, check_input=False).rule_base(alpha)
        return ConsequentFit(rule_base, float(alpha), None, None)
    selection = choose_consequent_alpha(
        antecedents, X, Y, order=order, n_jobs=n_jobs, check_input=False
    )
    rule_base = with_chosen_consequents(
        antecedents, selection, order=order, input_range=_data_range(X), output_range=_data_range(Y)
    )
    return ConsequentFit(rule_base, selection.alpha, None, selection.prior)


def _fit_learning(antecedents, X, Y, order, alpha, learning, local_weight, folds, n_jobs):
    """:func:`fit_consequents` through :class:`LearningStatistics` (local, combined, or given folds)."""
    n_samples = X.shape[0]
    choose = alpha == "auto" or (learning == "combined" and local_weight == "auto")
    # a given alpha shrinks toward zero, as in global learning; "auto" toward the mean
    if not choose:
        folds = np.zeros(n_samples, dtype=np.int64)
    elif folds is None:
        folds = interleaved_folds(n_samples, min(N_FOLDS, n_samples))
    else:
        folds = check_folds(folds, n_samples)
    n_folds = int(folds.max()) + 1 if n_samples else 1
    statistics = LearningStatistics(antecedents, Y.shape[1], order=order, n_folds=n_folds)
    statistics.update(X, Y, folds, n_jobs=n_jobs)
    if not statistics.fires():
        raise ValueError(_nothing_fires(n_samples))
    selection = statistics.select(
        learning, local_weight=local_weight, alpha=alpha, toward_mean=alpha == "auto"
    )
    rule_base = with_chosen_consequents(
        antecedents, selection, order=order, input_range=_data_range(X), output_range=_data_range(Y)
    )
    return ConsequentFit(rule_base, selection.alpha, selection.local_weight, selection.prior)


class ConsequentStream:
    """The consequents of fixed antecedents, fitted from chunks of rows.

    Parameters
    ----------
    antecedents : RuleBase
        The rules whose consequents are fitted (their consequents are ignored).
    n_outputs : int, default=1
        Columns of the targets.
    order : {0, 1}, default=1
        Consequent order (see :meth:`RuleBase.fit_consequents`).
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        ``"lstsq"``/``"pinv"`` keep the QR factor of ``[K Y]``, ``"cholesky"``
        the Gram matrix.
    n_jobs : int, optional
        Threads folding each chunk (default one; see
        ``randomts._threads.effective_n_jobs``). The result does not depend on it.
    prior : ndarray of shape (n_columns, n_outputs), optional
        Coefficients ``Gamma_0`` the ridge shrinks toward instead of zero (e.g.
        the ``prior`` of
        :func:`~randomts.fitting.ridge.choose_consequent_alpha`): the
        stream fits ``Y - K Gamma_0`` and adds ``Gamma_0`` to the solution.
    learning : {"global", "local", "combined"}, default="global"
        The objective (see :func:`fit_consequents`). Local and combined
        learning also accumulate the rules' local Gram matrices
        (:func:`~randomts.fitting.local_learning.local_grams`) and solve the
        normal equations from the Gram matrix of ``[K Y]``.
    local_weight : float, optional
        Weight ``> 0`` of the local term; required with ``learning="combined"``.

    Attributes
    ----------
    n_samples : int
        Rows seen so far.
    accumulator : LeastSquaresAccumulator
        The accumulated factor.
    input_range, output_range : ndarray of shape (n_variables, 2) or None
        ``[min, max]`` of every input and output over the rows seen so far,
        recorded in the fitted rule base.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(300, 2)); y = np.sin(3 * X[:, 0]) * X[:, 1]
    >>> antecedents = RuleBase.random(n_features=2, n_rules=10, random_state=0)
    >>> stream = ConsequentStream(antecedents)
    >>> for rows in np.array_split(np.arange(300), 4):
    ...     _ = stream.update(X[rows], y[rows])
    >>> streamed = stream.rule_base()
    >>> whole = antecedents.fit_consequents(X, y)
    >>> bool(np.allclose(streamed.predict(X), whole.predict(X), rtol=1e-10, atol=1e-12))
    True
    """

    def __init__(
        self,
        antecedents,
        n_outputs=1,
        *,
        order=1,
        solver="lstsq",
        n_jobs=None,
        prior=None,
        learning="global",
        local_weight=None,
    ):
        self.antecedents = check_rule_base(antecedents)
        self.learning = check_option(learning, "learning", LEARNING)
        if learning == "combined":
            if local_weight is None or local_weight == "auto":
                raise ValueError(
                    "A ConsequentStream with learning='combined' needs a float local_weight > 0 "
                    f"(the cross-validated choice reads every row first); got {local_weight!r}."
                )
            local_weight = check_local_weight(local_weight)
        self.local_weight = local_weight
        self.n_outputs = check_int(n_outputs, "n_outputs", low=1)
        self.order = check_int_option(order, "order", (0, 1))
        self.solver = check_option(solver, "solver", SOLVERS)
        self.n_jobs = effective_n_jobs(n_jobs)
        n_rules, n_features = antecedents.n_rules, antecedents.n_features
        n_columns = n_rules * (n_features + 1) if self.order == 1 else n_rules
        self.prior = self._prior_model = None
        if prior is not None:
            self.prior = check_matrix(prior, "prior", allow_1d=True, column_label="outputs")
            if self.prior.shape != (n_columns, self.n_outputs):
                raise ValueError(
                    f"prior must have shape (n_columns, n_outputs) = ({n_columns}, "
                    f"{self.n_outputs}); got {np.shape(prior)}."
                )
            self._prior_model = with_consequents(
                antecedents, self.prior, order=self.order, check_input=False
            )
        self.accumulator = LeastSquaresAccumulator(
            n_columns,
            self.n_outputs,
            solver=solver,
            what=f"n_rules={n_rules} with {n_features} inputs and order={self.order}",
        )
        self.input_range = self.output_range = None
        p = n_features + 1 if self.order == 1 else 1
        self.local = None if learning == "global" else np.zeros((n_rules, p, p))

    @property
    def n_samples(self) -> int:
        """Rows seen so far."""
        return self.accumulator.n_samples

    def update(self, X, Y, *, check_input=True):
        """Fold in a chunk of rows; returns self.

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features)
            Inputs (a slice of a memmap is read here, once).
        Y : array-like of shape (n_rows,) or (n_rows, n_outputs)
            Targets.
        check_input : bool, default=True
            False for rows already checked: finite float64 arrays ``X`` of
            ``n_features`` columns and ``Y`` of ``n_outputs`` columns.
        """
        if check_input:
            X = check_matrix(X, "X", n_columns=self.antecedents.n_features, owner="this rule base")
            Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
        elif Y.ndim == 1:
            Y = Y.reshape(-1, 1)
        if Y.shape != (X.shape[0], self.n_outputs):
            raise ValueError(
                f"Y must have shape (n_rows, n_outputs) = ({X.shape[0]}, {self.n_outputs}); "
                f"got {Y.shape}."
            )
        ranges = _data_range(X), _data_range(Y)
        if self._prior_model is not None:  # the part of Y that the prior leaves
            Y = Y - self._prior_model.predict(X, check_input=False)
        rb = self.antecedents
        write = design_rows_writer(
            X, Y, rb.centers, rb.sigmas, normalize=rb.normalize, order=self.order
        )
        self.accumulator.update_rows(write, X.shape[0], n_jobs=self.n_jobs)
        if self.local is not None:
            weights = membership.firing_strengths(X, rb.centers, rb.sigmas, normalize=rb.normalize)
            local_grams(weights, X, order=self.order, out=self.local)
        self._widen_ranges(*ranges)
        return self

    def _widen_ranges(self, input_range, output_range):
        if self.input_range is not None:
            input_range = _union(self.input_range, input_range)
            output_range = _union(self.output_range, output_range)
        self.input_range, self.output_range = input_range, output_range

    def merge(self, other):
        """Fold in another stream over the same antecedents and prior (other rows); returns self."""
        if (
            not isinstance(other, ConsequentStream)
            or other.antecedents != self.antecedents
            or (other.prior is None) != (self.prior is None)
            or (self.prior is not None and not np.array_equal(other.prior, self.prior))
            or (other.learning, other.local_weight) != (self.learning, self.local_weight)
        ):
            raise ValueError(
                "Can only merge a ConsequentStream over the same antecedents, prior and learning."
            )
        self.accumulator.merge(other.accumulator)
        if self.local is not None:
            self.local += other.local
        if other.input_range is not None:
            self._widen_ranges(other.input_range, other.output_range)
        return self

    def coefficients(self, alpha=0.0):
        """The stacked solution ``Gamma`` of the rows seen so far, shape (n_columns, n_outputs).

        With a ``prior``, the ridge solution shrunk toward it: ``Gamma_0`` plus
        the ridge solution of ``Y - K Gamma_0``.
        """
        if self.n_samples == 0:
            raise ValueError("No rows have been seen yet: call update(X, Y) first.")
        if not self.accumulator.fires():
            raise ValueError(_nothing_fires(self.n_samples))
        alpha = _check_stream_alpha(alpha)
        if self.local is None:
            gamma = self.accumulator.solve(alpha)
            return gamma if self.prior is None else gamma + self.prior
        G = self.accumulator.gram()
        p = self.accumulator.n_columns
        if (
            self.prior is not None
        ):  # the stream holds Y - K Gamma_0: K^T Y is K^T (...) + K^T K Gamma_0
            G[:p, p:] += G[:p, :p] @ self.prior
        return solve_learning(
            G,
            self.local,
            self.n_samples,
            p,
            self.n_outputs,
            self.learning,
            self.local_weight,
            alpha,
            self.prior,
        )

    def rule_base(self, alpha=0.0, *, output_names=None):
        """The antecedents with the consequents fitted to every row seen so far.

        Parameters
        ----------
        alpha : float, default=0.0
            Ridge penalty.
        output_names : sequence of str, optional
            Output names; by default those of the antecedents when their
            number matches, else ``y1..ym``.

        Returns
        -------
        RuleBase
        """
        return with_consequents(
            self.antecedents,
            self.coefficients(alpha),
            order=self.order,
            output_names=output_names,
            input_range=self.input_range,
            output_range=self.output_range,
            check_input=False,
        )

    def __repr__(self):
        return (
            f"ConsequentStream({self.antecedents!r}, n_outputs={self.n_outputs}, "
            f"order={self.order}, solver={self.solver!r}, learning={self.learning!r}, "
            f"n_samples={self.n_samples})"
        )


def _nothing_fires(n_samples):
    return (
        f"No rule fires on any of the {n_samples} rows seen: every firing strength "
        "underflows to 0, so every consequent would be 0. The inputs lie far from every "
        "rule's centre (in units of its width): standardise them (e.g. "
        "RandomTSRegressor(standardize=True)) or draw centres and widths on their scale."
    )


def _check_stream_alpha(alpha):
    """``alpha`` as a float ``>= 0``; ``"auto"`` is refused with the way to it."""
    if isinstance(alpha, str) and alpha == "auto":
        raise ValueError(
            "The 'alpha' parameter must be a float >= 0 for consequents accumulated in a stream. "
            "Got 'auto' instead: the leave-one-out choice reads the rows twice; use "
            "fit_consequents(antecedents, X, Y, alpha='auto') on rows in memory, or "
            "randomts.distributed.fit_consequents_dask on dask arrays."
        )
    return check_real(alpha, "alpha", low=0.0)


def _data_range(values):
    """The ``[min, max]`` of each column of a 2-D array, shape (n_columns, 2)."""
    if values.shape[0] == 0:
        return None
    return np.column_stack([values.min(axis=0), values.max(axis=0)])


def _union(a, b):
    if a is None or b is None:
        return b if a is None else a
    return np.column_stack([np.minimum(a[:, 0], b[:, 0]), np.maximum(a[:, 1], b[:, 1])])


def fit_consequents_streaming(antecedents, chunks, *, order=1, solver="lstsq", alpha=0.0):
    """Fit the consequents of ``antecedents`` to rows given as chunks.

    Parameters
    ----------
    antecedents : RuleBase
        Fixed antecedents.
    chunks : iterable of (X, Y)
        Row chunks: from :func:`randomts.io.chunks.iter_chunks` (arrays,
        memmaps), :func:`randomts.io.chunks.npy_chunks` (``.npy`` files, with
        :func:`randomts.io.chunks.with_progress` for a progress bar) or any
        generator. The number of outputs is read from the first chunk.
    order : {0, 1}, default=1
        Consequent order.
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        Least-squares solver (see :mod:`randomts.core.accumulators`).
    alpha : float, default=0.0
        Ridge penalty.

    Returns
    -------
    RuleBase
        The rule base :meth:`RuleBase.fit_consequents` gives on all the rows,
        up to rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(1000, 2)); y = X[:, 0] * X[:, 1]
    >>> antecedents = RuleBase.random(n_features=2, n_rules=8, random_state=0)
    >>> chunks = [(X[i : i + 256], y[i : i + 256]) for i in range(0, 1000, 256)]
    >>> rb = fit_consequents_streaming(antecedents, chunks)
    >>> bool(np.allclose(rb.predict(X), antecedents.fit_consequents(X, y).predict(X)))
    True
    """
    alpha = _check_stream_alpha(alpha)
    stream = None
    for X, Y in chunks:
        if stream is None:
            n_outputs = 1 if np.ndim(Y) == 1 else np.shape(Y)[1]
            stream = ConsequentStream(antecedents, n_outputs, order=order, solver=solver)
        stream.update(X, Y)
    if stream is None:
        raise ValueError("chunks yielded no rows: nothing to fit.")
    return stream.rule_base(alpha)
