"""Fitting the candidates of a NARX model and choosing between them by their free runs.

A candidate is a lag structure and a regressor of its lagged rows. Each is
fitted on the first part of every record (the one-step least squares, then,
for ``focus="simulation"``, the consequents refined on the model's own runs
and stopped on the held-out end), and, when there is a choice, on every fold
of a blocked cross-validation of the free run (:func:`fit_candidates`).
:func:`choose` keeps the simplest candidate that no more complex one beats
beyond the noise of the blocks.

The lagged rows of every record are built once per lag structure
(:class:`LaggedRows`); every fit takes the rows of its stretches from them.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from randomts.dynamics.records import blocked_folds, earlier_blocks, split_end
from randomts.dynamics.simulation_fit import SimulationFit, refine_for_simulation
from randomts.estimators.rules import standardise

__all__ = ["CandidateFit", "LaggedRows", "Settings", "choose", "fit_candidates"]


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
    rule_base : RuleBase or None
        Its rules, refined for simulation with ``focus="simulation"``; None
        for a regressor that is not randomts's.
    refinement : SimulationFit or None
        What the refinement did (``focus="simulation"``).
    narx : NARX
        The lag structure.
    held_out : list of (int, int, int)
        The held-out end of every record (``focus="simulation"``), else empty.
    block_errors : ndarray of shape (n_blocks,)
        The free-run RMSE on every earlier block of the cross-validation,
        then on the held-out end (NaN without refinement).
    """

    estimator: object
    rule_base: object
    refinement: SimulationFit | None
    narx: object
    held_out: list
    block_errors: np.ndarray


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


def _fit_one(estimator, narx, records, rows, fitted, held_out, settings):
    """One candidate fitted on the stretches ``fitted`` (and refined, stopped on ``held_out``)."""
    X, Y = rows.of(fitted)
    if "folds" in inspect.signature(estimator.fit).parameters:
        estimator.fit(X, Y, folds=blocked_folds(X.shape[0], settings.n_folds))
    else:
        estimator.fit(X, Y[:, 0] if Y.shape[1] == 1 else Y)
    rule_base, result = getattr(estimator, "rule_base_", None), None
    if settings.horizon is not None:
        if estimator.get_params().get("standardize", False):
            _, (mean, scale) = standardise(X)
        else:
            mean, scale = np.zeros(X.shape[1]), np.ones(X.shape[1])
        result = refine_for_simulation(
            narx,
            rule_base,
            records.take(fitted),
            records.take(held_out),
            mean=mean,
            scale=scale,
            alpha=estimator.alpha_,
            order=estimator.order,
            horizon=settings.horizon,
            max_iter=settings.max_iter,
        )
        rule_base = result.rule_base
    return estimator, rule_base, result


def fit_candidates(structures, candidates, records, settings):
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

    Returns
    -------
    fits : list of CandidateFit
        Structure by structure, candidate by candidate.
    rows : list of LaggedRows
        The lagged rows of every structure.
    """
    fits, all_rows = [], []
    simulation = settings.horizon is not None
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
        for estimator in estimators:
            errors = []  # the free-run RMSE on every earlier block, then on the end
            for train, held in folds:
                _, _, block = _fit_one(clone(estimator), narx, records, rows, train, held, settings)
                errors.append(block.error)
            estimator, rule_base, result = _fit_one(
                estimator, narx, records, rows, fitted, held_out, settings
            )
            errors.append(np.nan if result is None else result.error)
            fits.append(
                CandidateFit(estimator, rule_base, result, narx, held_out, np.array(errors))
            )
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
        Read: ``block_errors`` and the size of ``rule_base``.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from randomts import RuleBase
    >>> def fit(errors, n_rules):
    ...     rules = RuleBase.random(n_features=2, n_rules=n_rules, random_state=0)
    ...     return SimpleNamespace(rule_base=rules, block_errors=np.array(errors))
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
    size = [fit.rule_base.coef.size + fit.rule_base.intercept.size for fit in fits]
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
