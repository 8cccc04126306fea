"""Model selection: the ridge ``alpha`` of a rule base by a closed-form criterion, the number of rules.

:func:`select_alpha` is the choice that ``alpha="auto"`` makes
(:func:`randomts.fitting.ridge.choose_consequent_alpha`: one grid, one
eigendecomposition), by leave-one-out (LOO) or generalised cross-validation
(GCV) error, with the rule base fitted at the chosen ``alpha`` and the
curve.

:func:`select_n_rules` scores nested rule bases (the first ``h`` rules of the
antecedents) on validation data. For the weighted sum (``normalize=False``)
the columns of ``K`` for the first ``h`` rules are the leading columns of the
whole ``K``, so one accumulated factor of ``[K Y]`` serves every ``h``: its
leading block is the factor of the smaller problem. Both return the curve
they used.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randomts._validation import check_int_option, check_matrix, check_option, check_real
from randomts.core.accumulators import (
    LeastSquaresAccumulator,
    solve_factor,
)
from randomts.core.design import design_rows_writer
from randomts.core.solvers import SOLVERS
from randomts.fitting.protocol import check_rule_base, with_consequents
from randomts.fitting.ridge import CRITERIA, choose_consequent_alpha

__all__ = ["CRITERIA", "RulesSelection", "select_alpha", "select_n_rules"]


@dataclass(frozen=True)
class RulesSelection:
    """The number of rules chosen by validation error, with the curve.

    Attributes
    ----------
    n_rules : int
        The grid value with the least validation error.
    grid : ndarray of int
        The numbers of rules tried.
    validation_mse, training_mse : ndarray
        Mean squared errors (averaged over outputs) for each grid value.
    rule_base : RuleBase
        The first ``n_rules`` rules with their fitted consequents.
    """

    n_rules: int
    grid: np.ndarray
    validation_mse: np.ndarray
    training_mse: np.ndarray
    rule_base: object


def select_alpha(antecedents, X, Y, alphas=None, *, order=1, criterion="loo", toward_mean=False):
    """Choose the ridge ``alpha`` of a rule base's consequents by LOO or GCV error.

    Parameters
    ----------
    antecedents : RuleBase
        Fixed antecedents.
    X : array-like of shape (n_samples, n_features)
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
    alphas : array-like of float > 0, optional
        The grid; by default the one of ``alpha="auto"``
        (:func:`randomts.fitting.ridge.ridge_grid`: 25 values, half a decade
        apart, relative to the mean eigenvalue of ``K^T K``).
    order : {0, 1}, default=1
        Consequent order.
    criterion : {"loo", "gcv"}, default="loo"
        Closed-form leave-one-out or generalised cross-validation error.
    toward_mean : bool, default=False
        Shrink toward the consequents that reproduce each output's mean, as
        ``alpha="auto"`` does, instead of toward zero.

    Returns
    -------
    selection : AlphaSelection
        The chosen ``alpha`` and the curve.
    rule_base : RuleBase
        The antecedents with the consequents fitted at that ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(200, 2)); y = np.sin(X[:, 0]) + 0.05 * rng.normal(size=200)
    >>> antecedents = RuleBase.random(n_features=2, n_rules=30, random_state=0)
    >>> selection, rb = select_alpha(antecedents, X, y, criterion="gcv")
    >>> selection.alphas.size == selection.errors.size, rb.n_rules
    (True, 30)
    """
    selection = choose_consequent_alpha(
        antecedents, X, Y, order=order, alphas=alphas, criterion=criterion, toward_mean=toward_mean
    )
    rule_base = with_consequents(
        antecedents, selection.coefficients, order=order, check_input=False
    )
    return selection, rule_base


def _leading_factor(factor, n_columns, n_total, kind):
    """A factor of ``[K[:, :n_columns] Y]`` from that of ``[K Y]`` (``n_total`` columns).

    It has the same least-squares solutions (for the QR factor its residual
    block differs: the part of ``Y`` along the dropped columns is left out).
    """
    n_outputs = factor.shape[1] - n_total
    keep = np.r_[np.arange(n_columns), n_total + np.arange(n_outputs)]
    if kind == "rows":
        return np.asfortranarray(factor[:, keep])
    return np.asfortranarray(factor[np.ix_(keep, keep)])


def select_n_rules(
    antecedents, X, Y, X_val, Y_val, n_rules=None, *, order=1, solver="lstsq", alpha=0.0
):
    """Pick how many of the rules to keep (the first ``h``) by validation error.

    Parameters
    ----------
    antecedents : RuleBase
        Drawn with the largest number of rules wanted; candidates are its
        first ``h`` rules.
    X, Y : array-like
        Training rows.
    X_val, Y_val : array-like
        Validation rows.
    n_rules : sequence of int, optional
        Candidate numbers of rules, each in ``[1, antecedents.n_rules]``;
        by default 10 values spread over that range.
    order : {0, 1}, default=1
        Consequent order.
    solver : {"lstsq", "pinv", "cholesky"}, default="lstsq"
        Least-squares solver.
    alpha : float, default=0.0
        Ridge penalty.

    Returns
    -------
    RulesSelection
        The chosen number, the validation and training curves and the fitted rule base.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, size=(400, 2)); y = np.sin(2 * X[:, 0]) * X[:, 1]
    >>> antecedents = RuleBase.random(n_features=2, n_rules=40, random_state=0)
    >>> sel = select_n_rules(antecedents, X[:300], y[:300], X[300:], y[300:], [2, 10, 40])
    >>> sel.grid.tolist(), int(sel.n_rules) == len(sel.rule_base)
    ([2, 10, 40], True)
    >>> bool(sel.validation_mse[0] > sel.validation_mse[-1])
    True
    """
    check_rule_base(antecedents)
    order = check_int_option(order, "order", (0, 1))
    check_option(solver, "solver", SOLVERS)
    alpha = check_real(alpha, "alpha", low=0.0)
    owner = "this rule base"
    X = check_matrix(X, "X", n_columns=antecedents.n_features, owner=owner)
    X_val = check_matrix(X_val, "X_val", n_columns=antecedents.n_features, owner=owner)
    Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
    Y_val = check_matrix(
        Y_val, "Y_val", allow_1d=True, column_label="outputs", n_columns=Y.shape[1]
    )
    if X.shape[0] != Y.shape[0] or X_val.shape[0] != Y_val.shape[0]:
        raise ValueError("X and Y (and X_val and Y_val) must have the same number of rows.")
    h_max = antecedents.n_rules
    if n_rules is None:
        n_rules = np.unique(np.linspace(1, h_max, num=min(10, h_max)).round().astype(int))
    grid = np.asarray(n_rules)
    if (
        grid.ndim != 1
        or grid.size == 0
        or not np.issubdtype(grid.dtype, np.integer)
        or (grid.min() < 1 or grid.max() > h_max)
    ):
        raise ValueError(
            f"n_rules must be a non-empty sequence of ints in [1, {h_max}]; got {n_rules!r}."
        )
    per_rule = antecedents.n_features + 1 if order == 1 else 1
    shared = None
    if not antecedents.normalize:  # nested columns: one factor for every h
        shared = LeastSquaresAccumulator(h_max * per_rule, Y.shape[1], solver=solver)
        write = design_rows_writer(
            X, Y, antecedents.centers, antecedents.sigmas, normalize=False, order=order
        )
        shared.update_rows(write, X.shape[0])
    # consequents imports this module (for alpha="auto"): imported when used
    from randomts.fitting.consequents import fit_consequents

    validation, training, fitted = [], [], []
    for h in grid:
        subset = antecedents.subset(np.arange(h))
        if shared is None:
            rb = fit_consequents(subset, X, Y, order=order, solver=solver, alpha=alpha)
        else:  # the solve of fit_consequents on the leading block of the shared factor
            factor = _leading_factor(shared.factor, h * per_rule, h_max * per_rule, shared.kind)
            gamma = solve_factor(
                factor, h * per_rule, kind=shared.kind, alpha=alpha, n_samples=X.shape[0]
            )
            rb = with_consequents(subset, gamma, order=order)
        validation.append(np.mean((rb.predict(X_val) - Y_val) ** 2))
        training.append(np.mean((rb.predict(X) - Y) ** 2))
        fitted.append(rb)
    best = int(np.argmin(validation))
    return RulesSelection(
        int(grid[best]), grid, np.array(validation), np.array(training), fitted[best]
    )
