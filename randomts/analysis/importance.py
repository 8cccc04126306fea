"""Rule importance, ranking and pruning, for any model of the analysis protocol.

The importance of rule ``i`` on data ``X`` is its **share of the total
absolute contribution**, averaged over outputs:

.. math::

    I_i = \\frac{1}{m} \\sum_{o=1}^{m}
          \\frac{\\sum_j |c_{io}(x_j)|}{\\sum_j \\sum_l |c_{lo}(x_j)|},

where :math:`c_{io}(x)` is the rule's contribution to output ``o``
(``model.contributions``; in a :class:`~randomts.RuleBase`,
:math:`\\tilde w_i(x)\\,(A_i x + b_i)_o`, with :math:`\\tilde w_i` the raw
(weighted sum) or normalised (weighted average) firing strength).
Importances are non-negative and sum to one (an output whose contributions
are all zero counts as zero for every rule), are invariant to the scale of
each output, and a rule that never fires on ``X`` or has a zero consequent
there has importance 0.

These functions import no model class: they use the model's
``n_rules``, ``n_features``, ``n_outputs``, ``contributions(X)`` and
``subset(rules)`` (the analysis protocol,
:class:`~randomts.analysis.protocol.RuleModel`), so they work on a
:class:`~randomts.RuleBase`, on any :class:`~randomts.FuzzySystem` and, for the
importance, on a fitted estimator's rules. :func:`prune` is the one pruning:
it keeps the ``k`` most important rules and, given targets, refits their
consequents by least squares (a model with ``fit_consequents``, the
RuleBase), so the pruned model is the best one on those antecedents; the
``prune`` methods of the models and of the estimators call it.
"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_matrix
from randomts.analysis.protocol import RuleModel, as_model

__all__ = ["rule_importance", "rank_rules", "prune"]

_CHUNK_ROWS = 4096


def rule_importance(model, X) -> np.ndarray:
    """Each rule's share of the total absolute contribution on ``X``.

    Parameters
    ----------
    model : RuleModel or fitted estimator
        Any model of the analysis protocol (:func:`~randomts.analysis.protocol.as_model`).
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
    model = as_model(model, "rule_importance")
    X = check_matrix(X, "X", n_columns=model.n_features, owner="the model")
    totals = np.zeros((model.n_rules, model.n_outputs))
    for start in range(0, X.shape[0], _CHUNK_ROWS):
        totals += np.abs(model.contributions(X[start : start + _CHUNK_ROWS])).sum(axis=0)
    per_output = totals.sum(axis=0)
    shares = np.divide(totals, per_output, out=np.zeros_like(totals), where=per_output > 0)
    return shares.mean(axis=1)


def rank_rules(model, X) -> np.ndarray:
    """Rule indices from most to least important on ``X`` (ties in rule order).

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]] * 3, sigmas=[[1.0]] * 3, intercept=[[1.0], [3.0], [2.0]])
    >>> rank_rules(rb, [[0.0]])
    array([1, 2, 0])
    """
    return np.argsort(-rule_importance(model, X), kind="stable")


def prune(model, k, X, Y=None, *, order=None, solver="lstsq", alpha=0.0):
    """Keep the ``k`` most important rules on ``X``; with targets ``Y``, refit their consequents.

    Parameters
    ----------
    model : RuleBase or FuzzySystem
        Any model of the analysis protocol (a fitted estimator has its own
        ``prune``, which refits where its fit did and returns an estimator).
    k : int
        Number of rules to keep, ``1 <= k <= n_rules``.
    X : array-like of shape (n_samples, n_features)
        Inputs, used both to rank the rules and to refit.
    Y : array-like of shape (n_samples,) or (n_samples, n_outputs), optional
        Targets: refit the kept rules' consequents to ``(X, Y)`` (a model
        with ``fit_consequents``, the RuleBase). None keeps the consequents
        (``model.subset`` of the ``k`` rules), the only choice for a
        FuzzySystem.
    order : {0, 1}, optional
        Consequent order of the refit; defaults to ``model.order``.
    solver, alpha
        As in :meth:`RuleBase.fit_consequents <randomts.RuleBase.fit_consequents>`.

    Returns
    -------
    RuleBase or FuzzySystem
        ``k`` rules, most important first.

    Raises
    ------
    TypeError
        If ``Y`` is given for a model that cannot refit its consequents.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import FuzzySystem, RuleBase
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 2)); y = np.sin(2 * X[:, 0]) + X[:, 1]
    >>> full = RuleBase.random(n_features=2, n_rules=30, random_state=0).fit_consequents(X, y)
    >>> small = prune(full, 10, X, y)
    >>> len(small), bool(np.mean((small.predict(X)[:, 0] - y) ** 2) < 1e-2)
    (10, True)
    >>> len(prune(FuzzySystem.from_rule_base(full), 10, X))
    10
    >>> prune(full, 2, X).intercept.shape  # no targets: the consequents kept
    (2, 1)
    """
    if not isinstance(model, RuleModel):
        raise TypeError(
            f"prune takes a RuleBase or a FuzzySystem; got {type(model).__name__}"
            + (
                " (a fitted estimator prunes itself: estimator.prune(k, X, y))"
                if hasattr(model, "fit")
                else ""
            )
            + "."
        )
    k = check_int(k, "k", low=1)
    if k > model.n_rules:
        raise ValueError(
            f"The 'k' parameter must be at most n_rules = {model.n_rules}. Got {k} instead."
        )
    kept = model.subset(rank_rules(model, X)[:k])
    if Y is None:
        return kept
    if not hasattr(kept, "fit_consequents"):
        raise TypeError(
            f"The 'Y' parameter refits consequents, which a {type(model).__name__} cannot do; "
            "got targets Y. Pass Y=None to keep the k most important rules as they are."
        )
    if order is None:
        order = model.order
    return kept.fit_consequents(X, Y, order=order, solver=solver, alpha=alpha)
