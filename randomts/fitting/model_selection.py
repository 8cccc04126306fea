"""Model selection from one factorisation: the ridge ``alpha`` and the number of rules.

:func:`ridge_alpha_curve` scores every ``alpha`` of a grid by the closed-form
leave-one-out (LOO) or generalised cross-validation (GCV) error, from one QR
factorisation of ``[K Y]`` and the SVD of its small triangle
``R11 = U S V^T``: with ``P = K V`` and ``d = S U^T C`` (``= V^T K^T Y``),

* fitted values ``Y_hat(alpha) = P diag(1 / (s^2 + alpha)) d``;
* leverages ``h_jj(alpha) = sum_i P_ji^2 / (s_i^2 + alpha)``;
* LOO error ``mean_j ||(y_j - y_hat_j) / (1 - h_jj)||^2``, GCV error
  ``mean ||Y - Y_hat||^2 / (1 - tr(H) / N)^2``, ``tr(H) = sum s^2 / (s^2 + alpha)``.

:func:`select_n_rules` scores nested rule bases (the first ``h`` rules of the
antecedents) on validation data. For the weighted sum (``normalize=False``)
the columns of ``K`` for the first ``h`` rules are the leading columns of the
whole ``K``, so one accumulated factor of ``[K Y]`` serves every ``h``: its
leading block is the factor of the smaller problem. Both return the curve
they used.

The leave-one-out ridge that ``alpha="auto"`` chooses is in
:mod:`randomts.fitting.leave_one_out`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from randomts._validation import check_int_option, check_matrix, check_option, check_real
from randomts.core.accumulators import (
    LeastSquaresAccumulator,
    solve_factor,
)
from randomts.core.design import design_rows_writer
from randomts.core.solvers import SOLVERS
from randomts.fitting.protocol import check_rule_base, with_consequents

__all__ = ["CRITERIA", "RulesSelection", "ridge_alpha_curve", "select_alpha", "select_n_rules"]

from randomts.fitting.leave_one_out import AlphaSelection, check_alphas, design_of

CRITERIA = ("loo", "gcv")


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


def ridge_alpha_curve(K, Y, alphas=None, *, criterion="loo"):
    """LOO or GCV error of the ridge solution for every ``alpha``, from one factorisation.

    Parameters
    ----------
    K : ndarray of shape (n_samples, n_columns)
        Design matrix.
    Y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Targets.
    alphas : array-like of float > 0, default=np.logspace(-12, 2, 29)
        The grid.
    criterion : {"loo", "gcv"}, default="loo"
        Closed-form leave-one-out or generalised cross-validation error.

    Returns
    -------
    AlphaSelection

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> K = rng.normal(size=(80, 10)); Y = K @ rng.normal(size=10) + 0.1 * rng.normal(size=80)
    >>> sel = ridge_alpha_curve(K, Y, [1e-3, 1e-1, 10.0, 1e3])
    >>> sel.errors.shape, sel.alpha in sel.alphas
    ((4,), True)
    >>> bool(sel.errors[-1] > sel.errors[0])  # a huge penalty underfits
    True
    """
    check_option(criterion, "criterion", CRITERIA)
    alphas = check_alphas(np.logspace(-12, 2, 29) if alphas is None else alphas)
    K = check_matrix(K, "K", column_label="columns")
    Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
    if Y.shape[0] != K.shape[0]:
        raise ValueError(
            f"K and Y must have the same number of rows; got {K.shape[0]} and {Y.shape[0]}."
        )
    n_samples, n_columns = K.shape
    factor = LeastSquaresAccumulator(n_columns, Y.shape[1]).update(K, Y).factor
    R11 = np.triu(factor[:n_columns, :n_columns])
    U, s, Vt = scipy.linalg.svd(R11, check_finite=False, lapack_driver="gesdd")
    d = s[:, None] * (U.T @ factor[:n_columns, n_columns:])  # V^T K^T Y
    P = K @ Vt.T
    inverse = 1.0 / (s[:, None] ** 2 + alphas[None, :])  # (n_columns, n_alphas)
    leverage = (P * P) @ inverse if criterion == "loo" else None
    errors = np.empty(alphas.size)
    for a in range(alphas.size):
        residual = Y - P @ (inverse[:, a, None] * d)
        if criterion == "loo":
            errors[a] = np.mean((residual / (1.0 - leverage[:, a, None])) ** 2)
        else:
            trace = np.sum(s * s * inverse[:, a])
            errors[a] = np.mean(residual**2) / (1.0 - trace / n_samples) ** 2
    best = int(np.argmin(errors))
    gamma = Vt.T @ (inverse[:, best, None] * d)
    return AlphaSelection(float(alphas[best]), alphas, errors, criterion, gamma)


def select_alpha(antecedents, X, Y, alphas=None, *, order=1, criterion="loo"):
    """Choose the ridge ``alpha`` of a rule base's consequents by LOO or GCV error.

    Parameters
    ----------
    antecedents : RuleBase
        Fixed antecedents.
    X : array-like of shape (n_samples, n_features)
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
    alphas, criterion
        See :func:`ridge_alpha_curve`.
    order : {0, 1}, default=1
        Consequent order.

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
    check_rule_base(antecedents)
    order = check_int_option(order, "order", (0, 1))
    X = check_matrix(X, "X", n_columns=antecedents.n_features, owner="this rule base")
    Y = check_matrix(Y, "Y", allow_1d=True, column_label="outputs")
    selection = ridge_alpha_curve(design_of(antecedents, X, order), Y, alphas, criterion=criterion)
    return selection, with_consequents(antecedents, selection.coefficients, order=order)


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
