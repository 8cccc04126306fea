"""The analysis protocol: what every Takagi-Sugeno model answers, and how to get the model.

:func:`~randomts.analysis.explain.explain`, :mod:`randomts.analysis.importance`
(importance, ranking, pruning), :mod:`randomts.analysis.agreement`, the rule
texts and tables with data and the pictures of :mod:`randomts.plotting`
import no model class: they ask the model for what :class:`RuleModel`
declares, which :class:`~randomts.RuleBase` and :class:`~randomts.FuzzySystem`
both answer, and take a fitted estimator through :func:`as_model`.

Rule ``i`` (0-based) is ``R<i+1>`` in every table, text and picture;
``to_text()`` writes it on the line ``R<i+1>: ...``. ``to_text(X=X, top=k)``
and ``table(X=X, top=k)`` list the rules most important first. Both model
classes have the methods ``explain(x, top)``, ``rule_importance(X)`` and
``prune(k, X, Y=None)`` that call the analysis on themselves.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["RuleModel", "as_model"]


@runtime_checkable
class RuleModel(Protocol):
    """What the analysis asks of a model: sizes, names, ranges, and what its rules do at rows.

    Attributes
    ----------
    n_rules, n_features, n_outputs : int
        Sizes.
    input_names, output_names : tuple of str
        Variable names.
    input_range, output_range : ndarray of shape (n, 2) or None
        ``[low, high]`` of each variable, or None when the model records
        none (a RuleBase not fitted to data). A FuzzySystem gives its
        variables' ranges.
    normalize : bool or None
        True for a weighted average, False for a weighted sum; None for a
        FuzzySystem whose outputs mix the two.

    Examples
    --------
    >>> from randomts import FuzzySystem, RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]])
    >>> isinstance(rb, RuleModel), isinstance(FuzzySystem.from_rule_base(rb), RuleModel)
    (True, True)
    >>> isinstance("rules", RuleModel)
    False
    """

    n_rules: int
    n_features: int
    n_outputs: int
    input_names: tuple
    output_names: tuple
    input_range: np.ndarray | None
    output_range: np.ndarray | None
    normalize: bool | None

    def firing_strengths(self, X, *, normalize=None) -> np.ndarray:
        """Shape (n_samples, n_rules): each rule's degree, raw or normalised to sum one per row.

        The degree is the product of Gaussian memberships in a RuleBase, the
        weight times the antecedent in a FuzzySystem. The analysis passes
        ``normalize`` explicitly: a RuleBase's default is the weights its
        output uses (normalised for a weighted average), a FuzzySystem's the
        raw degrees, since its outputs can weigh the rules differently
        (hedged conclusions, aggregation, rules that do not conclude every
        output). The weight each rule has in each output is in
        :meth:`contributions`.
        """

    def rule_outputs(self, X) -> np.ndarray:
        """Shape (n_samples, n_rules, n_outputs): what each rule concludes (NaN where it does not)."""

    def contributions(self, X) -> np.ndarray:
        """Shape (n_samples, n_rules, n_outputs): each rule's part of each output.

        Summed over the rules, the output of :meth:`predict` (to rounding;
        for the exceptions of a FuzzySystem, an output's ``default`` and
        ``lock_range``, see its ``contributions``).
        """

    def predict(self, X) -> np.ndarray:
        """Shape (n_samples, n_outputs): the model's output."""

    def subset(self, rules) -> RuleModel:
        """The model made of the given rules (0-based indices), in that order."""


def as_model(model, caller="this function"):
    """The model to analyse: ``model`` itself, or a fitted estimator's ``rule_base_``.

    Parameters
    ----------
    model : RuleModel or fitted estimator
        A model of the protocol (a RuleBase, a FuzzySystem), or anything with
        a ``rule_base_`` attribute holding one.
    caller : str
        What asks, for the error message.

    Returns
    -------
    RuleModel

    Raises
    ------
    TypeError
        If ``model`` is neither (an unfitted estimator says so).

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor, RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]])
    >>> as_model(rb) is rb
    True
    >>> X = np.random.default_rng(0).normal(size=(20, 1))
    >>> model = RandomTSRegressor(n_rules=2, random_state=0).fit(X, X[:, 0])
    >>> as_model(model) is model.rule_base_
    True
    >>> as_model(RandomTSRegressor(), "plot_surface")
    Traceback (most recent call last):
    ...
    TypeError: plot_surface needs a RuleBase, a FuzzySystem or a fitted randomts estimator; got RandomTSRegressor (not fitted: call fit first).
    """
    if isinstance(model, RuleModel):
        return model
    rule_base = getattr(model, "rule_base_", None)
    if isinstance(rule_base, RuleModel):
        return rule_base
    unfitted = hasattr(model, "get_params") and hasattr(model, "fit")
    raise TypeError(
        f"{caller} needs a RuleBase, a FuzzySystem or a fitted randomts estimator; got "
        f"{type(model).__name__}" + (" (not fitted: call fit first)" if unfitted else "") + "."
    )
