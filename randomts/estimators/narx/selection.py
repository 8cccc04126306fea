"""Fitting the candidates of a NARX model and choosing between them by their free runs.

A candidate is a lag structure and a regressor of its lagged rows. Each is
fitted once, on the first part of every record (the one-step least squares),
and, for ``focus="simulation"``, its consequents refined on the model's own
runs and stopped on the held-out end (:class:`~randomts.dynamics.simulation_fit.SimulationProblem`).
When there is a choice, the candidate's free run is also judged on every fold
of a blocked cross-validation: fold ``b`` holds out block ``b`` of every record
and refines, on the rest, the one-step ridge solution of the candidate's rules
(its antecedents and penalty, drawn and chosen once) on the rows of the rest.
Those solutions share their factors: the Gram matrix of the design rows of
every piece of the records is accumulated once (the fitting engine,
:class:`~randomts.core.accumulators.LeastSquaresAccumulator`), and a fold's is
the sum of the pieces it keeps. :func:`choose` keeps the simplest candidate
that no more complex one beats beyond the noise of the blocks.

The lagged rows of every record are built once per lag structure
(:class:`LaggedRows`); every fit takes the rows of its stretches from them.
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass

import numpy as np

from randomts.core.accumulators import LeastSquaresAccumulator
from randomts.dynamics.records import blocked_folds, earlier_blocks, split_end
from randomts.dynamics.simulation_fit import SimulationFit, SimulationProblem
from randomts.estimators.rules import standardise
from randomts.fitting.local_learning import LearningStatistics, solve_learning

__all__ = ["CandidateFit", "LaggedRows", "Settings", "choose", "fit_candidates"]

# Entries of the design rows formed at once when their Gram matrices are accumulated.
_DESIGN_ELEMENTS = 1 << 21


@dataclass(frozen=True)
class Settings:
    """The checked parameters of a fit that every candidate shares.

    ``horizon`` and ``max_iter`` are None with ``focus="prediction"``.
    """

    n_folds: int
    horizon: int | None
    max_iter: int | None
    validation_fraction: float
    selection_blocks: int


@dataclass
class CandidateFit:
    """One candidate, fitted: what :func:`choose` reads and the estimator keeps.

    Attributes
    ----------
    estimator : regressor
        The regressor fitted on the lagged rows of the first part of every record.
    narx : NARX
        The lag structure.
    held_out : list of (int, int, int)
        The held-out end of every record (``focus="simulation"``), else empty.
    block_errors : ndarray of shape (n_blocks,)
        The free-run RMSE on every earlier block of the cross-validation,
        then on the held-out end (NaN without refinement).
    n_parameters : int
        Consequent parameters, the candidate's complexity.
    problem : SimulationProblem or None
        The rules in standardised units (``focus="simulation"``).
    refinement : Refinement or None
        What the refinement on the first part of every record did.
    """

    estimator: object
    narx: object
    held_out: list
    block_errors: np.ndarray
    n_parameters: int
    problem: SimulationProblem | None = None
    refinement: object = None

    def rule_base(self):
        """The candidate's rules with the lagged names, refined for simulation if it was.

        None for a regressor that is not randomts's.
        """
        if self.refinement is not None and self.refinement.best_iteration > 0:
            return self.problem.rules(self.refinement.gamma, named=True)
        rule_base = getattr(self.estimator, "rule_base_", None)
        return None if rule_base is None else self.narx.name_rules(rule_base)

    def simulation_fit(self, rule_base):
        """The :class:`SimulationFit` of the refinement, with ``rule_base`` (None without one)."""
        if self.refinement is None:
            return None
        result = self.refinement
        return SimulationFit(
            rule_base, result.start_error, result.error, result.iterations, result.best_iteration
        )


class LaggedRows:
    """The lagged rows of every record, built once; the rows of stretches picked from them.

    Parameters
    ----------
    narx : NARX
        The lag structure.
    records : Records
        Every record longer than ``max_lag``.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts.dynamics.narx import NARX
    >>> from randomts.dynamics.records import read_records
    >>> rows = LaggedRows(NARX(y_lags=1), read_records(y=np.arange(6.0)))
    >>> X, Y = rows.of([(0, 2, 5)])  # the rows whose lags and target lie in steps 2..4
    >>> X.ravel().tolist(), Y.ravel().tolist()
    ([2.0, 3.0], [3.0, 4.0])
    """

    def __init__(self, narx, records):
        self.lag = narx.max_lag
        self.X, self.Y = narx.regressors(records)
        self.record = np.concatenate(
            [np.full(Y.shape[0] - self.lag, i) for i, (_, Y) in enumerate(records)]
        )
        self.step = np.concatenate([np.arange(self.lag, Y.shape[0]) for _, Y in records])

    def of(self, stretches):
        """``(X, Y)`` of the rows whose lags and target lie in the stretches ``(record, start, stop)``."""
        mask = np.zeros(self.step.size, dtype=bool)
        for record, start, stop in stretches:
            mask |= (self.record == record) & (self.step >= start + self.lag) & (self.step < stop)
        return self.X[mask], self.Y[mask]

    def blocks_touched(self, fitted, n_blocks):
        """The earlier blocks (:func:`~randomts.dynamics.records.earlier_blocks`) each row's lags touch.

        A row's steps ``k - max_lag .. k`` lie in one block, or two in a row
        (a block is longer than ``max_lag``), or in the held-out end (-1).

        Returns
        -------
        ndarray of int of shape (n_rows, 2)
            The block of step ``k`` and that of step ``k - max_lag``, ``-1``
            past the first part of the record.
        """
        touched = np.full((self.step.size, 2), -1, dtype=np.int64)
        for record, _, cut in fitted:
            rows = np.flatnonzero(self.record == record)
            labels = np.append(blocked_folds(cut, n_blocks - 1), -1)  # -1: the held-out end
            steps = self.step[rows]
            touched[rows, 0] = labels[np.minimum(steps, cut)]
            touched[rows, 1] = labels[np.minimum(steps - self.lag, cut)]
        return touched


def _one_step(estimator, X, Y, n_folds):
    """Fit ``estimator`` on the rows, ``alpha`` chosen on contiguous blocks when it can be."""
    if "folds" in inspect.signature(estimator.fit).parameters:
        estimator.fit(X, Y, folds=blocked_folds(X.shape[0], n_folds))
    else:
        estimator.fit(X, Y[:, 0] if Y.shape[1] == 1 else Y)


def _problem(estimator, narx, X):
    """The estimator's rules in the standardised regressors it was fitted in."""
    if estimator.get_params().get("standardize", False):
        _, (mean, scale) = standardise(X)
    else:
        mean, scale = np.zeros(X.shape[1]), np.ones(X.shape[1])
    return SimulationProblem(narx, estimator.rule_base_, mean, scale, estimator.order)


def _fold_starts(estimator, problem, rows, touched, n_folds):
    """The one-step solution of the candidate's rules on the rows each fold keeps.

    The estimator's penalty ``alpha_`` (and, for local or combined learning,
    its ``learning`` and ``local_weight_``), shrinking toward zero. The rows
    are grouped by the blocks they touch; the statistics of every group's
    design rows are accumulated once, and a fold's are the sum of the groups
    that do not touch its block.
    """
    n_columns, n_outputs = problem.gamma0.shape
    learning = estimator.get_params().get("learning", "global")
    alpha = estimator.alpha_
    chunk = max(1, _DESIGN_ELEMENTS // n_columns)
    groups = {}
    antecedents = problem.antecedents() if learning != "global" else None
    for key in np.unique(touched, axis=0):
        where = np.flatnonzero(np.all(touched == key, axis=1))
        if learning == "global":
            group = LeastSquaresAccumulator(n_columns, n_outputs, solver="cholesky")
            for start in range(0, where.size, chunk):
                part = where[start : start + chunk]
                group.update(problem.design(rows.X[part]), rows.Y[part])
        else:
            group = LearningStatistics(antecedents, n_outputs, order=problem.order, n_folds=1)
            for start in range(0, where.size, chunk):
                part = where[start : start + chunk]
                group.update(problem.standardise(rows.X[part]), rows.Y[part])
        groups[tuple(int(b) for b in key)] = group
    starts = []
    for fold in range(n_folds):
        kept = [group for key, group in groups.items() if fold not in key]
        total = copy.deepcopy(kept[0])  # the groups stay as accumulated, for the other folds
        for group in kept[1:]:
            total.merge(group)
        if learning == "global":
            starts.append(total.solve(alpha))
            continue
        gram = total.grams[0].gram()
        starts.append(
            solve_learning(
                gram,
                total.local[0],
                total.n_samples,
                n_columns,
                n_outputs,
                learning,
                getattr(estimator, "local_weight_", None),
                alpha,
                None,
            )
        )
    return starts


def fit_candidates(structures, candidates, records, settings, progress=None):
    """Every candidate of every structure fitted, with its free-run errors on every block.

    Parameters
    ----------
    structures : list of NARX
        The lag structures to fit.
    candidates : callable
        ``() -> list of regressors``: fresh, unfitted candidates.
    records : Records
        The records, every one longer than the largest lag.
    settings : Settings
    progress : callable, optional
        Called with a short description after every candidate's fit.

    Returns
    -------
    fits : list of CandidateFit
        Structure by structure, candidate by candidate.
    rows : list of LaggedRows
        The lagged rows of every structure.
    """
    fits, all_rows = [], []
    simulation = settings.horizon is not None
    refine = dict(horizon=settings.horizon, max_iter=settings.max_iter)
    for narx in structures:
        rows = LaggedRows(narx, records)
        all_rows.append(rows)
        estimators = candidates()
        fitted = [(index, 0, Y.shape[0]) for index, (_, Y) in enumerate(records)]
        held_out, folds = [], []
        if simulation:
            fitted, held_out = split_end(records, settings.validation_fraction, narx.max_lag)
            if len(structures) * len(estimators) > 1 and settings.selection_blocks > 1:
                folds = earlier_blocks(records, fitted, settings.selection_blocks, narx.max_lag)
        X, Y = rows.of(fitted)
        for estimator in estimators:
            _one_step(estimator, X, Y, settings.n_folds)
            rule_base = getattr(estimator, "rule_base_", None)
            size = np.nan if rule_base is None else rule_base.coef.size + rule_base.intercept.size
            described = f"lags {narx.y_lags}, {narx.u_lags}: " + (
                f"{rule_base.n_rules} rules" if rule_base is not None else type(estimator).__name__
            )
            if not simulation:
                fits.append(CandidateFit(estimator, narx, [], np.array([np.nan]), size))
                if progress is not None:
                    progress(described)
                continue
            problem = _problem(estimator, narx, X)
            starts, train, held = [problem.gamma0], [fitted], [held_out]
            if folds:  # the folds refined side by side with the fit on the first part
                touched = rows.blocks_touched(fitted, settings.selection_blocks)
                starts = _fold_starts(estimator, problem, rows, touched, len(folds)) + starts
                train = [fold for fold, _ in folds] + train
                held = [block for _, block in folds] + held
            results = problem.refine_many(
                starts,
                [records.take(stretches) for stretches in train],
                [records.take(stretches) for stretches in held],
                alpha=estimator.alpha_,
                **refine,
            )
            errors = [result.error for result in results]
            result = results[-1]
            fits.append(
                CandidateFit(estimator, narx, held_out, np.array(errors), size, problem, result)
            )
            if progress is not None:
                progress(described)
    return fits, all_rows


def choose(fits):
    """The index of the candidate kept: a more complex one only where it wins beyond the noise.

    Every candidate has its free-run RMSE on every held-out block. From the
    candidate of fewest consequent parameters on, in that order, the next
    one replaces the candidate kept if it is better block by block beyond
    the noise: the mean over the blocks of the logarithm of the ratio of
    their errors (every block counts alike, an easy one as much as a hard
    one) is below minus its standard error. With one block, the least error
    on it.

    Parameters
    ----------
    fits : list of CandidateFit
        Read: ``block_errors`` and ``n_parameters``.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> def fit(errors, n_rules):
    ...     return SimpleNamespace(n_parameters=3 * n_rules, block_errors=np.array(errors))
    >>> simple = [0.66, 0.44, 0.40, 0.29, 0.93]
    >>> choose([fit([e / 2 for e in simple], 10), fit(simple, 1)])  # better on every block
    0
    >>> choose([fit([0.69, 0.85, 0.44, 0.84, 0.30], 10), fit(simple, 1)])  # lucky on one
    1
    """
    if len(fits) == 1:
        return 0
    errors = np.array([fit.block_errors for fit in fits], dtype=float)
    errors = np.where(np.isnan(errors), np.inf, errors)
    if errors.shape[1] == 1:
        return int(np.argmin(errors[:, 0]))
    logs = np.log(np.maximum(errors, np.finfo(float).tiny))
    size = [fit.n_parameters for fit in fits]
    order = sorted(range(len(fits)), key=lambda i: (size[i], i))
    kept = order[0]
    for index in order[1:]:
        if not np.all(np.isfinite(logs[index])):
            continue  # diverged on a block
        if not np.all(np.isfinite(logs[kept])):
            kept = index
            continue
        ratio = logs[index] - logs[kept]
        if ratio.mean() < -ratio.std(ddof=1) / np.sqrt(ratio.size):
            kept = index
    return kept
