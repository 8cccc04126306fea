"""Rule importance, ranking and pruning.

The importance of rule ``i`` on data ``X`` is its **share of the total
absolute contribution**, averaged over outputs:

.. math::

    I_i = \\frac{1}{m} \\sum_{o=1}^{m}
          \\frac{\\sum_j |c_{io}(x_j)|}{\\sum_j \\sum_l |c_{lo}(x_j)|},
    \\qquad c_{io}(x) = \\tilde w_i(x)\\,(A_i x + b_i)_o,

where :math:`\\tilde w_i` is the raw (weighted sum) or normalised (weighted
average) firing strength. Importances are non-negative and sum to one (an
output whose contributions are all zero counts as zero for every rule), are
invariant to the scale of each output, and a rule that never fires on ``X``
or has a zero consequent there has importance 0.

:func:`prune` keeps the ``k`` most important rules and refits their
consequents by least squares, so the pruned model is the best one on those
antecedents.
"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_matrix

__all__ = ["rule_importance", "rank_rules", "top_rules", "prune"]

_CHUNK_ROWS = 4096


def rule_importance(rule_base, X) -> np.ndarray:
    """Each rule's share of the total absolute contribution on ``X``.

    Parameters
    ----------
    rule_base : RuleBase
        The model.
    X : array-like of shape (n_samples, n_features)
        The data on which importance is measured (e.g. the training inputs).

    Returns
    -------
    ndarray of shape (n_rules,)
        Non-negative; sums to 1 unless every contribution is zero.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0], [0.0]], sigmas=[[1.0], [1.0]],
    ...               intercept=[[3.0], [1.0]])
    >>> rule_importance(rb, [[0.0], [1.0]])
    array([0.75, 0.25])
    """
    X = check_matrix(X, "X", n_columns=rule_base.n_features, owner="this rule base")
    totals = np.zeros((rule_base.n_rules, rule_base.n_outputs))
    for start in range(0, X.shape[0], _CHUNK_ROWS):
        totals += np.abs(rule_base.contributions(X[start : start + _CHUNK_ROWS])).sum(axis=0)
    per_output = totals.sum(axis=0)
    shares = np.divide(totals, per_output, out=np.zeros_like(totals), where=per_output > 0)
    return shares.mean(axis=1)


def rank_rules(rule_base, X) -> np.ndarray:
    """Rule indices from most to least important on ``X`` (ties in rule order).

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]] * 3, sigmas=[[1.0]] * 3, intercept=[[1.0], [3.0], [2.0]])
    >>> rank_rules(rb, [[0.0]])
    array([1, 2, 0])
    """
    return np.argsort(-rule_importance(rule_base, X), kind="stable")


def top_rules(rule_base, k, X):
    """The ``k`` most important rules on ``X``, in order of importance, consequents unchanged.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]] * 3, sigmas=[[1.0]] * 3, intercept=[[1.0], [3.0], [2.0]])
    >>> top_rules(rb, 2, [[0.0]]).intercept
    array([[3.],
           [2.]])
    """
    k = check_int(k, "k", low=1)
    if k > rule_base.n_rules:
        raise ValueError(
            f"The 'k' parameter must be at most n_rules = {rule_base.n_rules}. Got {k} instead."
        )
    return rule_base.subset(rank_rules(rule_base, X)[:k])


def prune(rule_base, k, X, Y, *, order=None, solver="lstsq", alpha=0.0):
    """Keep the ``k`` most important rules on ``X`` and refit their consequents to ``(X, Y)``.

    Parameters
    ----------
    rule_base : RuleBase
        The model.
    k : int
        Number of rules to keep, ``1 <= k <= n_rules``.
    X : array-like of shape (n_samples, n_features)
        Inputs, used both to rank the rules and to refit.
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Targets.
    order : {0, 1}, optional
        Consequent order of the refit; defaults to ``rule_base.order``.
    solver, alpha
        As in :meth:`RuleBase.fit_consequents`.

    Returns
    -------
    RuleBase
        ``k`` rules, most important first.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 2)); y = np.sin(2 * X[:, 0]) + X[:, 1]
    >>> full = RuleBase.random(n_features=2, n_rules=30, random_state=0).fit_consequents(X, y)
    >>> small = prune(full, 10, X, y)
    >>> len(small), bool(np.mean((small.predict(X)[:, 0] - y) ** 2) < 1e-2)
    (10, True)
    """
    kept = top_rules(rule_base, k, X)
    if order is None:
        order = rule_base.order
    return kept.fit_consequents(X, Y, order=order, solver=solver, alpha=alpha)
