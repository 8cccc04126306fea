"""Fitting the candidates of a NARX model and choosing between them by their free runs.

A candidate is a lag structure and a regressor of its lagged rows. Each is
fitted once, on the first part of every record (the one-step least squares),
and, for ``focus="simulation"``, its consequents refined on the model's own
runs and stopped on the held-out end (:class:`~randomts.dynamics.simulation_fit.SimulationProblem`).
When there is a choice, the candidate's free run is also judged on every fold
of a blocked cross-validation: fold ``b`` holds out block ``b`` of every record
and refines, on the rest, the one-step ridge solution of the candidate's rules
(its antecedents and penalty, drawn and chosen once, the start of every fold's
refinement) on the rows of the rest.
Those solutions share their factors: the Gram matrix of the design rows of
every piece of the records is accumulated once (the fitting engine,
:class:`~randomts.core.accumulators.LeastSquaresAccumulator`), and a fold's is
the sum of the pieces it keeps; where the rows number at most half the
columns (:data:`~randomts.core.accumulators.FEW_ROWS`), the pieces keep their
rows instead, and a fold's ridge solution comes from the singular value
decomposition of the rows it keeps. :func:`choose` keeps the simplest candidate
that no more complex one beats beyond the noise of the blocks.

The lagged rows of every record are built once per lag structure
(:class:`LaggedRows`); every fit takes the rows of its stretches from them.
Rules grown from the targets (``structure="grown"``) are refined as the
clustered ones are: from their one-step fit, their consequents and (with
``Settings.antecedents``, as a weighted average of more than one rule) their
centres and widths. They are grown, and their one-step start fitted, on at most
20,000 of the rows, evenly spaced in time; their blocks' starts
are solved on every row the blocks keep.
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from randomts.core.accumulators import FEW_ROWS, LeastSquaresAccumulator
from randomts.core.ranges import span_distance
from randomts.dynamics.narx import FALLBACK_SPAN
from randomts.dynamics.records import blocked_folds, blocks_allowed, earlier_blocks, split_end
from randomts.dynamics.shooting import held_out_runs, run_rmse
from randomts.dynamics.simulation_fit import SimulationFit, SimulationProblem
from randomts.estimators.parameters import resolved
from randomts.estimators.regressor import RandomTSRegressor, fit_quietly
from randomts.estimators.saving import fit_scaling
from randomts.fitting.local_learning import LearningStatistics, solve_learning
from randomts.fuzzy.rulebase import RuleBase

__all__ = [
    "CandidateFit",
    "LaggedRows",
    "Settings",
    "choose",
    "crossed_errors",
    "first_part_model",
    "fit_candidates",
    "fit_estimator",
    "input_only_rules",
    "linear_fallback",
    "refit",
]

# Entries of the design rows formed at once when their Gram matrices are accumulated.
_DESIGN_ELEMENTS = 1 << 21
# Rules grown from the targets are grown on at most this many lagged rows, evenly spaced.
_GROWTH_ROWS = 20_000
# Held-out stretches run in pieces of at most this many horizons (as the refinement's).
_RUN_STEPS = 5
# A more complex option is kept where the mean log-ratio of its errors to the kept one's,
# over the blocks, is below minus this many standard errors.
_NOISE = 1.0


@dataclass(frozen=True)
class Settings:
    """The checked parameters of a fit that every candidate shares.

    ``horizon`` and ``max_iter`` are None with ``focus="prediction"``.
    ``antecedents``: whether the refinement moves the centres and widths of
    a weighted average of more than one rule too.
    """

    n_folds: int
    horizon: int | None
    max_iter: int | None
    validation_fraction: float
    selection_blocks: int
    antecedents: bool = False


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
    start_errors : ndarray of shape (n_blocks,)
        The same of the one-step starts, before their refinement.
    block_iterations : ndarray of int of shape (n_blocks,)
        The refinement steps kept on every block, the held-out end last (0: the start).
    crossed_errors : ndarray of shape (n_blocks,) or None
        The free-run RMSE of the refinement on every block after as many
        steps as the other blocks chose (:func:`crossed_errors`): what
        :meth:`options` judges the refinement by. None with one block.
    whole_errors : (float, float)
        The free-run RMSE over every record whole, from its start, of the
        one-step start and of the refinement fitted on the first part of
        every record; ``inf`` for a run that diverged or left the range of
        the measured outputs by more than :data:`~randomts.dynamics.narx.FALLBACK_SPAN`
        of its span (``whole_run_error``).
    input_only : object or None
        For the candidate of the lagged inputs alone (:func:`input_only_rules`),
        that model fitted on the first part of every record (its ``predict``;
        ``coef`` and ``intercept`` those of the rule); then ``estimator`` is None.
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
    start_errors: np.ndarray | None = None
    block_iterations: np.ndarray | None = None
    whole_errors: tuple = (0.0, 0.0)
    input_only: object = None
    inputs: bool = True
    crossed_errors: np.ndarray | None = None

    def rule_base(self, refined=True):
        """The candidate's rules with the lagged names, refined for simulation if it was.

        ``refined=False``: its one-step start. None for a regressor that is
        not randomts's.
        """
        if self.input_only is not None:
            return _one_rule(self.narx, self.input_only.coef, self.input_only.intercept)
        # a polynomial's refinement starts where its one-step fit stays finite, not always there
        moved = self.refinement is not None and (
            self.refinement.best_iteration > 0 or self.narx.powers
        )
        if refined and moved:
            return self.problem.rules(self.refinement.gamma, named=True)
        rule_base = getattr(self.estimator, "rule_base_", None)
        return None if rule_base is None else self.narx.name_rules(rule_base)

    def options(self, index):
        """``(index, refined, errors by block, sort key)`` of the one-step start and the refinement.

        The refined model is the more complex of the two: it is kept only
        where it beats the start beyond the noise of the blocks (and is an
        option only where the refinement moved from the start on a block).
        Its errors are those after as many steps as the other blocks chose
        (``crossed_errors``): a block that chose its own steps would judge
        them on the run they were chosen on, never worse than the start.
        One whose free run over every record whole diverged or left the data
        (``whole_errors``) has its block errors taken as ``inf``: its runs
        over blocks were too short to show it.
        """
        if self.refinement is None:
            return [(index, False, self.block_errors, (self.n_parameters, 0, index))]
        start_whole, refined_whole = self.whole_errors
        polynomial = self.narx is not None and bool(self.narx.powers)
        if polynomial and not np.any(self.block_iterations):
            return []  # a polynomial's start is where its refinement begins, not an option
        start = (
            index,
            False,
            self.start_errors
            if np.isfinite(start_whole)
            else np.full_like(self.start_errors, np.inf),
            (self.n_parameters, 0, index),
        )
        if not np.any(self.block_iterations):  # the start was best on every block
            return [start]
        errors = self.block_errors if self.crossed_errors is None else self.crossed_errors
        if not np.isfinite(refined_whole):
            errors = np.full_like(errors, np.inf)
        refinement = (index, True, errors, (self.n_parameters, 1, index))
        return [refinement] if polynomial else [start, refinement]

    def steps(self):
        """The refinement steps of the model fitted on every record whole.

        Those kept on the held-out end, the block nearest to what follows;
        where it kept the start, the median of those kept on the other blocks
        where the refinement moved.
        """
        if self.block_iterations[-1] > 0:
            return int(self.block_iterations[-1])
        moved = self.block_iterations[self.block_iterations > 0]
        return max(1, int(round(float(np.median(moved)))))

    def simulation_fit(self, rule_base, refined=True):
        """The :class:`~randomts.dynamics.simulation_fit.SimulationFit` of the refinement, with ``rule_base`` (None without one).

        Not ``refined`` (the start chosen): its error is the start's, its best
        step 0.
        """
        if self.input_only is not None:
            error = float(self.block_errors[-1])
            return SimulationFit(rule_base, error, error, 0, 0)
        if self.refinement is None:
            return None
        result = self.refinement
        if not refined:
            return SimulationFit(rule_base, result.start_error, result.start_error, 0, 0)
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


def _one_step(estimator, X, Y, n_folds, judged=True):
    """Fit ``estimator`` on the rows, ``alpha`` chosen on contiguous blocks when it can be.

    Rules grown from the targets are grown and fitted on at most
    20,000 of the rows, evenly spaced in time (every ``s``-th):
    the growth's cost grows with the rows, and lagged rows of a long record
    repeat its regions many times over. ``judged``: whether held-out free
    runs judge the fit (:func:`fit_estimator`).
    """
    if hasattr(estimator, "default_structure") and resolved(estimator).grown:
        stride = -(-X.shape[0] // _GROWTH_ROWS)
        X, Y = X[::stride], Y[::stride]
    if "folds" in inspect.signature(estimator.fit).parameters:
        fit_estimator(estimator, X, Y, blocked_folds(X.shape[0], n_folds), judged=judged)
    else:
        fit_estimator(estimator, X, Y[:, 0] if Y.shape[1] == 1 else Y, judged=judged)


def fit_estimator(estimator, X, y, folds=None, *, judged):
    """``estimator.fit(X, y)``, with ``folds`` where given.

    A randomts regressor's fit does not name the constant columns of the
    lagged rows, many times over: :meth:`NARXRegressor.fit
    <randomts.NARXRegressor.fit>` names a constant input, once. Where
    held-out free runs judge the fit (``judged``), nor does it warn that the
    rows are too few for its unknowns
    (:func:`~randomts.estimators.regressor.fit_quietly`).
    """
    if type(estimator).fit is RandomTSRegressor.fit:
        fit_quietly(estimator, X, y, folds, judged=judged)
    elif folds is not None:
        estimator.fit(X, y, folds=folds)
    else:
        estimator.fit(X, y)
    return estimator


def _problem(estimator, narx, X, antecedents=False):
    """The estimator's rules in the standardised regressors it was fitted in (as it records them).

    ``antecedents``: the problem refines the centres and widths too where the
    rules are a weighted average (of more than one rule): a weighted sum's
    rules stay as drawn.
    """
    rule_base = estimator.rule_base_
    scaling = fit_scaling(rule_base.metadata, X.shape[1])
    mean, scale = scaling or (np.zeros(X.shape[1]), np.ones(X.shape[1]))
    moved = antecedents and rule_base.normalize
    return SimulationProblem(narx, rule_base, mean, scale, estimator.order, moved)


def _stable_start(problem, start, X, Y, stretches, horizon):
    """A polynomial's start: its one-step fit, or on the way to the linear model's if it runs away.

    The linear model of the lagged values alone (least squares on the rows
    ``X``, ``Y``; the powers' coefficients 0) is where
    :meth:`~randomts.dynamics.simulation_fit.SimulationProblem.stable_start`
    retreats to when the one-step fit's runs over the segments of the
    stretches do not stay finite.
    """
    lagged = problem.narx.n_lagged_columns
    coef, intercept = _least_squares(X[:, :lagged], Y)
    full = np.zeros((1, Y.shape[1], X.shape[1]))
    full[0, :, :lagged] = coef
    linear = problem.consequents(full, intercept[None])
    return problem.stable_start(start, linear, stretches, horizon=horizon)


def _fold_starts(estimator, problem, rows, touched, n_folds):
    """The one-step solution of the candidate's rules on the rows each fold keeps.

    The estimator's penalty ``alpha_`` (and, for local or combined learning,
    its ``learning`` and ``local_weight_``), shrinking toward zero. The rows
    are grouped by the blocks they touch; the statistics of every group's
    design rows are accumulated once, and a fold's are the sum of the groups
    that do not touch its block.
    """
    n_columns, n_outputs = problem.gamma0.shape
    learning = resolved(estimator).learning
    alpha = estimator.alpha_
    chunk = max(1, _DESIGN_ELEMENTS // n_columns)
    groups = {}
    antecedents = problem.antecedents() if learning != "global" else None
    # few rows beside the columns: kept and decomposed (their SVD), no Gram matrix formed
    solver = "pinv" if rows.X.shape[0] <= FEW_ROWS * n_columns else "cholesky"
    for key in np.unique(touched, axis=0):
        where = np.flatnonzero(np.all(touched == key, axis=1))
        if learning == "global":
            group = LeastSquaresAccumulator(n_columns, n_outputs, solver=solver)
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
        starts.append(
            solve_learning(
                total.gram(),
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


def whole_runs(narx, records):
    """Every record whole as one run from its start, and the range of the measured outputs.

    Returns
    -------
    runs : (Y, U, counted)
        As :func:`~randomts.dynamics.shooting.held_out_runs` gives them.
    low, high : ndarray of shape (n_outputs,)
        The least and the greatest output of every record.
    """
    whole = [(index, 0, Y.shape[0]) for index, (_, Y) in enumerate(records)]
    longest = max(Y.shape[0] for _, Y in records)
    outputs = np.concatenate([Y for _, Y in records])
    return (
        held_out_runs(narx, records.take(whole), longest),
        outputs.min(axis=0),
        outputs.max(axis=0),
    )


def whole_run_error(problem, gamma, runs, low, high):
    """Free-run RMSE of the rules of consequents ``gamma`` over :func:`whole_runs`.

    ``inf`` where a run diverges or leaves the range ``[low, high]`` of the
    measured outputs by more than :data:`~randomts.dynamics.narx.FALLBACK_SPAN`
    of its span: a model that leaves the data on the records it was fitted
    on is not one to run on others.
    """
    Y, U, counted = runs
    outputs, _ = problem.run(gamma, Y, U, counted.shape[1], False)
    simulated = outputs[counted]
    if not np.all(np.isfinite(simulated)):
        return np.inf
    if np.any(np.abs(span_distance(simulated, low, high)) > FALLBACK_SPAN):
        return np.inf
    measured = Y[:, problem.narx.max_lag :][counted]
    return run_rmse(simulated - measured)


def _input_only_fit(narx, rows, pairs, held_out, inputs=True):
    """The candidate of the lagged inputs alone: fitted on every fold's rows, its errors on the blocks.

    Its free run is its one-step prediction (no output is fed back), so its
    error on a block is that of the rows of the block. ``pairs``: the
    ``(fitted, held out)`` stretches of every block, the held-out end last.
    """
    errors = []
    for fitted, held in pairs:
        coef, intercept = _input_only_coefficients(narx, *rows.of(fitted), inputs)
        X, Y = rows.of(held)
        errors.append(run_rmse(X @ coef.T + intercept - Y))
    errors = np.array(errors)
    n_outputs = rows.Y.shape[1]
    size = ((rows.X.shape[1] - narx.n_state_columns) * inputs + 1) * n_outputs
    return CandidateFit(
        None,
        narx,
        held_out,
        errors,
        size,
        start_errors=errors,
        block_iterations=np.zeros(errors.size, dtype=int),
        input_only=_Linear(coef, intercept),  # the last: fitted on the first part of every record
        inputs=inputs,
    )


def fit_candidates(structures, candidates, records, settings, progress=None, input_only=False):
    """Every candidate of every structure fitted, with its free-run errors on every block.

    Parameters
    ----------
    structures : list of NARX
        The lag structures to fit.
    candidates : callable
        ``narx -> list of regressors``: fresh, unfitted candidates of a structure.
    records : Records
        The records, every one longer than the largest lag.
    settings : Settings
    progress : callable, optional
        Called with a short description after every candidate's fit.
    input_only : bool, default=False
        With ``focus="simulation"``, one more candidate for every structure
        with inputs, after the others: the linear model of its lagged inputs
        alone (:func:`input_only_rules`), whose free run cannot diverge.

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
    n_blocks = 1
    if simulation:  # as many blocks for every structure: as the largest lag allows
        deepest = max(structures, key=lambda narx: narx.max_lag)
        first, _ = split_end(records, settings.validation_fraction, deepest.max_lag)
        n_blocks = blocks_allowed(first, settings.selection_blocks, deepest.max_lag)
    for narx in structures:
        rows = LaggedRows(narx, records)
        all_rows.append(rows)
        estimators = candidates(narx)
        fitted = [(index, 0, Y.shape[0]) for index, (_, Y) in enumerate(records)]
        held_out, folds = [], []
        if simulation:
            fitted, held_out = split_end(records, settings.validation_fraction, narx.max_lag)
            if (len(structures) > 1 or len(estimators) > 1) and n_blocks > 1:
                folds = earlier_blocks(records, fitted, n_blocks, narx.max_lag)
        X, Y = rows.of(fitted)
        if simulation:
            runs, low, high = whole_runs(narx, records)
        for estimator in estimators:
            _one_step(estimator, X, Y, settings.n_folds, judged=simulation)
            rule_base = getattr(estimator, "rule_base_", None)
            size = np.nan if rule_base is None else rule_base.coef.size + rule_base.intercept.size
            kind = "products" if narx.products else "powers"
            powers = f" and {kind} {narx.powers}" if narx.powers else ""
            described = f"lags {narx.y_lags}, {narx.u_lags}{powers}: " + (
                f"{rule_base.n_rules} rules" if rule_base is not None else type(estimator).__name__
            )
            if not simulation:
                fits.append(CandidateFit(estimator, narx, [], np.array([np.nan]), size))
                if progress is not None:
                    progress(described)
                continue
            problem = _problem(estimator, narx, X, settings.antecedents)
            starts, train, held = [problem.gamma0], [fitted], [held_out]
            if folds:  # the folds refined side by side with the fit on the first part
                touched = rows.blocks_touched(fitted, n_blocks)
                starts = _fold_starts(estimator, problem, rows, touched, len(folds)) + starts
                train = [fold for fold, _ in folds] + train
                held = [block for _, block in folds] + held
            if narx.powers:
                starts = [
                    _stable_start(
                        problem,
                        start,
                        *rows.of(stretches),
                        records.take(stretches),
                        settings.horizon,
                    )
                    for start, stretches in zip(starts, train, strict=True)
                ]
            results = problem.refine_many(
                starts,
                [records.take(stretches) for stretches in train],
                [records.take(stretches) for stretches in held],
                alpha=estimator.alpha_,
                **refine,
            )
            whole = [whole_run_error(problem, starts[-1], runs, low, high)]
            moved = results[-1].best_iteration > 0
            whole.append(
                whole_run_error(problem, results[-1].gamma, runs, low, high) if moved else whole[0]
            )
            fits.append(
                CandidateFit(
                    estimator,
                    narx,
                    held_out,
                    np.array([result.error for result in results]),
                    size,
                    problem,
                    results[-1],
                    np.array([result.start_error for result in results]),
                    np.array([result.best_iteration for result in results]),
                    tuple(whole),
                    crossed_errors=crossed_errors(results) if folds else None,
                )
            )
            if progress is not None:
                progress(described)
        # without inputs it would be the mean; with powers, the same as without
        if simulation and input_only and narx.u_lags and not narx.powers:
            fits.append(_input_only_fit(narx, rows, folds + [(fitted, held_out)], held_out))
            if progress is not None:
                progress(f"lags {narx.y_lags}, {narx.u_lags}: the inputs alone")
    return fits, all_rows


def crossed_errors(results):
    """The held-out error of every block's refinement after the steps the other blocks chose.

    A block's refinement stops where its own held-out run is best, so its
    error there is never above its start's: judged by it, a refinement
    always looks at least as good. Here block ``b`` is judged after the
    median of the steps kept on the other blocks (rounded; 0 where most
    kept their start), taken from its trace; a refinement that stopped
    sooner counts with its last step. So the refinement is judged as the
    model fitted on every record whole is refined: for steps chosen on
    runs other than the one it is scored on.

    Parameters
    ----------
    results : list of Refinement
        The refinements of the blocks, with their traces.

    Returns
    -------
    ndarray of shape (n_blocks,)

    Examples
    --------
    >>> from types import SimpleNamespace as Result
    >>> results = [
    ...     Result(best_iteration=2, trace=(1.0, 0.8, 0.7, 0.75)),
    ...     Result(best_iteration=0, trace=(1.0, 1.2, 1.3)),
    ...     Result(best_iteration=2, trace=(1.0, 0.9, 0.85)),
    ... ]
    >>> crossed_errors(results).tolist()  # steps 1, 2 and 1 chosen by the others
    [0.8, 1.3, 0.9]
    """
    steps = np.array([result.best_iteration for result in results], dtype=float)
    errors = []
    for block, result in enumerate(results):
        step = int(round(float(np.median(np.delete(steps, block)))))
        trace = result.trace
        errors.append(trace[min(step, len(trace) - 1)] if trace else result.error)
    return np.array(errors, dtype=float)


def refit(fit, refined, records, rows, settings):
    """The kept candidate fitted again on every record whole, as the choice chose.

    Its regressor's one-step fit on every row and, if the refined model was
    chosen (``refined``), refined for simulation over every record (nothing
    held out) for as many steps as :meth:`CandidateFit.steps`. That model
    replaces the one fitted on the first part of every record only where
    its free run over every record whole (``whole_run_error``) is
    finite and stays in the data, and, refined, is no worse than that
    one's: refined on everything with no held-out stretch to stop on, a
    model can run away. (A one-step fit is not held to the first part's
    error: on a trending record the whole record's fit follows the latest
    data, which the free run from the start weighs little.)
    The candidate of the inputs alone is fitted again on every row.

    Returns
    -------
    estimator : regressor or None
        The regressor fitted on every row; None for the candidate of the
        inputs alone.
    rule_base : RuleBase or None
        Its rules with the lagged names, refined if the candidate was.
    """
    if fit.input_only is not None:
        return None, input_only_rules(fit.narx, rows.X, rows.Y, inputs=fit.inputs)
    if fit.refinement is None:  # fitted on every row already (focus="prediction")
        return fit.estimator, fit.rule_base()
    estimator = clone(fit.estimator)
    _one_step(estimator, rows.X, rows.Y, settings.n_folds)
    problem = _problem(estimator, fit.narx, rows.X, settings.antecedents)
    gamma = problem.gamma0
    whole = [(index, 0, Y.shape[0]) for index, (_, Y) in enumerate(records)]
    if fit.narx.powers:
        gamma = _stable_start(problem, gamma, rows.X, rows.Y, records.take(whole), settings.horizon)
    if refined:
        gamma = problem.refine(
            gamma,
            records.take(whole),
            [],
            alpha=estimator.alpha_,
            horizon=settings.horizon,
            max_iter=fit.steps(),
        ).gamma
    error = whole_run_error(problem, gamma, *whole_runs(fit.narx, records))
    if not np.isfinite(error) or (refined and error > fit.whole_errors[1]):
        return fit.estimator, fit.rule_base(refined)
    if not refined:
        return estimator, fit.narx.name_rules(estimator.rule_base_)
    return estimator, problem.rules(gamma, named=True)


def first_part_model(fit, refined):
    """The kept option as fitted on the first part of every record: what predicts the held-out ends.

    The regressor fitted there, or, refined, a model whose ``predict`` is the
    refined rules' (no rule base is built for it).
    """
    if fit.input_only is not None:
        return fit.input_only
    if not refined:
        return fit.estimator
    return _Refined(fit.problem, fit.refinement.gamma)


class _Linear:
    """``predict(X) = X coef^T + intercept``: a linear model of the regressor rows."""

    def __init__(self, coef, intercept):
        self.coef, self.intercept = coef, intercept

    def predict(self, X):
        return X @ self.coef.T + self.intercept


class _Refined:
    """``predict(X)`` of a problem's rules with consequents ``gamma``, in the data's units.

    ``run(Y0, U, n_steps)``: their free runs, compiled (:meth:`NARX.run
    <randomts.dynamics.narx.NARX.run>`'s outputs, to rounding).
    """

    def __init__(self, problem, gamma):
        self.problem, self.gamma = problem, gamma

    def predict(self, X):
        return self.problem.predict(X, self.gamma)

    def run(self, Y0, U, n_steps):
        Y = np.concatenate([Y0, np.zeros((Y0.shape[0], n_steps, Y0.shape[2]))], axis=1)
        outputs, _ = self.problem.run(self.gamma, Y, U, n_steps, False)
        return np.concatenate([Y0, outputs], axis=1)


def choose(options):
    """The option kept: a more complex one only where it wins beyond the noise.

    Every option (a candidate's one-step start, or its refinement) has its
    free-run RMSE on every held-out block. From the simplest option on (the
    least sort key: fewest consequent parameters, the start before its
    refinement), in that order, the next one replaces the option kept if it
    is better block by block beyond the noise: the mean over the blocks of
    the logarithm of the ratio of their errors (every block counts alike,
    an easy one as much as a hard one) is below minus its standard error.
    With one block, the least error on it.

    Parameters
    ----------
    options : list of (object, object, ndarray, tuple)
        ``(index, refined, errors by block, sort key)``, as
        :meth:`CandidateFit.options` gives them.

    Returns
    -------
    The option kept.

    Examples
    --------
    >>> import numpy as np
    >>> def option(name, errors, size):
    ...     return (name, True, np.array(errors), (size,))
    >>> simple = [0.66, 0.44, 0.40, 0.29, 0.93]
    >>> choose([option("rules", [e / 2 for e in simple], 30), option("linear", simple, 3)])[0]
    'rules'
    >>> choose([option("rules", [0.69, 0.85, 0.44, 0.84, 0.30], 30), option("linear", simple, 3)])[0]
    'linear'
    """
    if len(options) == 1:
        return options[0]
    errors = np.array([option[2] for option in options], dtype=float)
    errors = np.where(np.isnan(errors), np.inf, errors)
    if errors.shape[1] == 1:
        return options[int(np.argmin(errors[:, 0]))]
    logs = np.log(np.maximum(errors, np.finfo(float).tiny))
    order = sorted(range(len(options)), key=lambda i: options[i][3])
    kept = order[0]
    for index in order[1:]:
        if not np.all(np.isfinite(logs[index])):
            continue  # diverged on a block
        if not np.all(np.isfinite(logs[kept])):
            kept = index
            continue
        ratio = logs[index] - logs[kept]
        if ratio.mean() < -_NOISE * ratio.std(ddof=1) / np.sqrt(ratio.size):
            kept = index
    return options[kept]


def linear_fallback(narx, rows):
    """The linear ARX model of the lagged rows by least squares, as a rule base of one rule.

    Of the lagged values, not their powers (``narx.powers``: coefficients 0). One rule of a weighted average fires fully everywhere: its consequent is
    the model, ``Y ~ X A^T + b`` fitted by the fitting engine (the minimum-norm
    least squares of ``[X 1]``).

    Examples
    --------
    >>> import numpy as np
    >>> from randomts.dynamics.narx import NARX
    >>> from randomts.dynamics.records import read_records
    >>> y = 0.5 ** np.arange(10.0)
    >>> rules = linear_fallback(NARX(1), LaggedRows(NARX(1), read_records(y=y)))
    >>> rules.coef.round(6).tolist(), rules.input_names
    ([[[0.5]]], ('y(k-1)',))
    """
    lagged = narx.n_lagged_columns  # not the powers: a linear model
    coef, intercept = _least_squares(rows.X[:, :lagged], rows.Y)
    coef = np.hstack([coef, np.zeros((coef.shape[0], rows.X.shape[1] - lagged))])
    return _one_rule(narx, coef, intercept)


def input_only_rules(narx, X, Y, inputs=True):
    """The linear model of the lagged inputs alone (a FIR model), as a rule base of one rule.

    ``y(k) ~ B v + b`` by least squares, ``v`` the lagged inputs of the rows
    ``X`` (the lagged outputs have coefficient 0; with increments, the rule
    predicts ``B v + b - y(k-1)``). No output is fed back: its free run is
    its one-step prediction, and cannot diverge. Without inputs, the mean.

    Parameters
    ----------
    narx : NARX
    X : ndarray of shape (n_rows, n_regressors)
        Lagged rows (:meth:`~randomts.dynamics.narx.NARX.regressors`).
    Y : ndarray of shape (n_rows, n_outputs)
        Their targets (outputs, or increments).

    Examples
    --------
    >>> import numpy as np
    >>> from randomts.dynamics.narx import NARX
    >>> u = np.arange(8.0) % 3; y = np.zeros(8); y[1:] = 2 * u[:-1] + 1
    >>> narx = NARX(y_lags=1, u_lags=1, target="increment")
    >>> X, Y = narx.regressors(u, y)
    >>> rules = input_only_rules(narx, X, Y)  # y(k) - y(k-1) = 2 u(k-1) + 1 - y(k-1)
    >>> rules.coef.round(6).tolist(), rules.intercept.round(6).tolist()
    ([[[-1.0, 2.0]]], [[1.0]])
    """
    return _one_rule(narx, *_input_only_coefficients(narx, X, Y, inputs))


def _input_only_coefficients(narx, X, Y, inputs):
    """``(coef, intercept)`` of :func:`input_only_rules`, in the layout of one rule's."""
    state = narx.n_state_columns
    outputs = Y
    previous = narx.previous_output_columns if narx.target == "increment" else None
    if previous is not None:
        outputs = Y + X[:, previous]
    columns = X[:, state:] if inputs else X[:, :0]
    weights, intercept = _least_squares(columns, outputs)
    coef = np.zeros((Y.shape[1], X.shape[1]))
    coef[:, state : state + columns.shape[1]] = weights
    if previous is not None:
        coef[np.arange(Y.shape[1]), previous] = -1.0
    return coef, intercept


def _least_squares(X, Y):
    """``(A, b)`` of ``Y ~ X A^T + b``: the fitting engine's minimum-norm least squares of ``[X 1]``.

    A column that holds one value in every row (of two or more) gets the
    slope 0, as in the rules' fits: the rows cannot tell its effect from the
    intercept's (the minimum norm would share it between them).
    """
    n_rows, n_features = X.shape
    varying = np.ones(n_features, dtype=bool)
    if n_rows > 1:
        varying = X.min(axis=0) < X.max(axis=0)
    if not varying.all():
        A = np.zeros((Y.shape[1], n_features))
        A[:, varying], b = _least_squares(X[:, varying], Y)
        return A, b
    engine = LeastSquaresAccumulator(n_features + 1, Y.shape[1])
    engine.update(np.hstack([X, np.ones((n_rows, 1))]), Y)
    gamma = engine.solve()
    return gamma[:n_features].T, gamma[n_features]


def _one_rule(narx, coef, intercept):
    """The rule base of one rule of a weighted average: the linear model ``coef``, ``intercept``."""
    n_features = coef.shape[1]
    return RuleBase(
        np.zeros((1, n_features)),
        np.ones((1, n_features)),
        coef[None],
        intercept[None],
        normalize=True,
        input_names=narx.regressor_names,
        output_names=narx.target_names,
    )
