"""A model's rules on data: their importance and, with targets, their agreement with the data.

What the rule texts and tables show when they are given data (``to_text(X=...,
y=...)``, ``table(X=..., y=...)`` of a :class:`~randomts.RuleBase` or a
:class:`~randomts.FuzzySystem`): the text layer lays out what
:func:`rules_on_data` found, and computes nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randomts._validation import check_int, check_matrix
from randomts.analysis.agreement import RuleAgreement, rule_agreement
from randomts.analysis.importance import rule_importance
from randomts.analysis.protocol import as_model

__all__ = ["RulesOnData", "rules_on_data"]


@dataclass(frozen=True, eq=False)
class RulesOnData:
    """A model's rules on data ``X`` (and targets ``y``).

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    importance : ndarray of shape (n_rules,)
        Each rule's share of the absolute contributions on ``X``
        (:func:`~randomts.analysis.importance.rule_importance`).
    agreement : RuleAgreement or None
        With targets, :func:`~randomts.analysis.agreement.rule_agreement`.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0], [2.0]], sigmas=[[1.0], [1.0]], intercept=[[1.0], [5.0]])
    >>> found = rules_on_data(rb, [[0.0], [2.0]])
    >>> found.n_samples, found.order(top=1).tolist(), found.agreement is None
    (2, [1], True)
    """

    X: np.ndarray
    importance: np.ndarray
    agreement: RuleAgreement | None = None

    @property
    def n_samples(self) -> int:
        """Rows of the data."""
        return self.X.shape[0]

    def order(self, top=None):
        """The rules most important first (ties in rule order), the first ``top`` of them."""
        order = np.argsort(-self.importance, kind="stable")
        return order if top is None else order[: check_int(top, "top", low=1)]


def rules_on_data(model, X, y=None, *, top=None):
    """The importance of ``model``'s rules on ``X`` and, given ``y``, their agreement with it.

    Parameters
    ----------
    model : RuleModel or fitted estimator
        Any model of the analysis protocol.
    X : array-like of shape (n_samples, n_features) or None
        The data; None gives None (no data: the texts list the rules in
        order), and then ``y`` and ``top`` are refused.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs), optional
        Its targets.
    top : int, optional
        The number of rules a text will show, most important first: only
        checked here (it needs data to rank the rules).

    Returns
    -------
    RulesOnData or None

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> X = np.linspace(-1, 1, 41)[:, None]
    >>> rb = RuleBase(centers=[[-0.5], [0.5]], sigmas=[[0.3], [0.3]], normalize=True,
    ...               coef=[[[1.0]], [[1.0]]])
    >>> found = rules_on_data(rb, X, X[:, 0])
    >>> found.importance.round(2).tolist(), found.agreement.flagged.tolist()
    ([0.5, 0.5], [False, False])
    """
    if X is None:
        if y is not None:
            raise ValueError("The 'y' parameter needs the data X it goes with; got X=None.")
        if top is not None:
            raise ValueError(
                "The 'top' parameter needs the data X to rank the rules by importance; "
                f"got top={top!r} and X=None."
            )
        return None
    model = as_model(model, "rules_on_data")
    X = check_matrix(X, "X", n_columns=model.n_features, owner="the model")
    agreement = None if y is None else rule_agreement(model, X, y)
    return RulesOnData(X, rule_importance(model, X), agreement)
