"""What the exporters to other runtimes (C, ONNX) share: the model as arrays, and what it is.

:func:`deployed` turns whatever :func:`randomts.save` accepts (a rule base, a
fitted estimator or pipeline, a fuzzy system of the rule base's shape) into a
:class:`Deployed`: the rule base in the data's own units (a fitted estimator's
standardisation is already inside it) and, for a classifier, its classes.
Both exporters compute what :func:`randomts.core.inference.predict` computes
from those arrays.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from randomts._version import __version__
from randomts.estimators.saving import STATE_KEY, saved_rule_base
from randomts.fuzzy.rulebase import RuleBase
from randomts.fuzzy.system import FuzzySystem

__all__ = ["Deployed", "deployed", "SUPPORTED"]

#: What the exporters convert, for error messages.
SUPPORTED = (
    "a RuleBase, a fitted RandomTSRegressor, RandomTSClassifier or NARXRegressor, a fitted "
    "Pipeline of scalers ending with one, or a FuzzySystem of a RuleBase's shape (a Gaussian "
    "set on every input, the product, constant or linear consequents, weighted sum or average)"
)


@dataclasses.dataclass(frozen=True)
class Deployed:
    """A model ready for export.

    Attributes
    ----------
    rule_base : RuleBase
        The rules, in the data's units: ``rule_base.predict(X)`` is the
        model's ``predict`` (a classifier's ``decision_function``).
    kind : str
        ``"regressor"``, ``"classifier"``, ``"NARX one-step map"`` or ``"rule base"``.
    classes : ndarray or None
        A classifier's classes (their recorded type), else None.
    labels : tuple of str or None
        Those classes as text.
    """

    rule_base: RuleBase
    kind: str
    classes: np.ndarray | None = None
    labels: tuple | None = None

    def describe(self) -> str:
        """One sentence saying what the model is, for the exported file's header.

        Examples
        --------
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
        >>> deployed(rb, "C").describe()
        'A Takagi-Sugeno rule base: 1 rules, 1 inputs, 1 outputs (randomts ...).'
        """
        rb = self.rule_base
        what = {
            "classifier": "A RandomTSClassifier's class scores",
            "regressor": "A RandomTSRegressor",
            "NARX one-step map": "A NARXRegressor's one-step-ahead map from its regressors",
        }.get(self.kind, "A Takagi-Sugeno rule base")
        return (
            f"{what}: {rb.n_rules} rules, {rb.n_features} inputs, {rb.n_outputs} outputs "
            f"(randomts {__version__})."
        )


def deployed(model, target) -> Deployed:
    """``model`` as a :class:`Deployed`, or a TypeError/ValueError saying what is supported.

    Parameters
    ----------
    model : RuleBase, FuzzySystem, fitted estimator or fitted Pipeline
        What to export.
    target : str
        What ``model`` is exported to, for messages (``"C"``, ``"ONNX"``).

    Examples
    --------
    >>> from randomts.fuzzy.terms import Constant, Triangle
    >>> from randomts.fuzzy import InputVariable, OutputVariable
    >>> system = FuzzySystem(
    ...     [InputVariable("x", {"mid": Triangle(0, 1, 2)}, range=(0, 2))],
    ...     [OutputVariable("y", {"one": Constant(1.0)}, range=(0, 1))],
    ...     ["if x is mid then y is one"])
    >>> deployed(system, "C")
    Traceback (most recent call last):
    ...
    ValueError: Cannot convert this FuzzySystem to C: input 'x' term 'mid' is a Triangle, ...
    """
    try:
        rule_base = saved_rule_base(model)
    except TypeError as exc:
        message = str(exc)
        if message.startswith("save expects"):
            message = f"Converting to {target} takes {SUPPORTED}; got {type(model).__name__}" + (
                " (not fitted: call fit first)." if "not fitted" in message else "."
            )
        raise TypeError(message) from None
    if isinstance(rule_base, FuzzySystem):
        problem = rule_base.rule_base_mismatch()
        if problem is not None:
            raise ValueError(
                f"Cannot convert this FuzzySystem to {target}: {problem}. Converting to "
                f"{target} takes {SUPPORTED}."
            )
        rule_base = rule_base.to_rule_base()
    state = rule_base.metadata.get(STATE_KEY)
    name = state.get("class") if isinstance(state, dict) else None
    if name == "RandomTSClassifier" or "classes" in rule_base.metadata:
        return _classifier(rule_base, state)
    kind = {"RandomTSRegressor": "regressor", "NARXRegressor": "NARX one-step map"}
    return Deployed(rule_base, kind.get(name, "rule base"))


def _classifier(rule_base, state):
    """The classifier's classes, typed as recorded (as text when the record is missing)."""
    labels = rule_base.metadata.get("classes")
    record = state.get("classifier") if isinstance(state, dict) else None
    classes = None
    if isinstance(record, dict):
        try:
            recorded = record["classes"]
            classes = np.asarray(recorded["array"], dtype=np.dtype(recorded["dtype"]))
        except (KeyError, TypeError, ValueError):
            classes = None
    if classes is None and isinstance(labels, list):
        classes = np.asarray([str(label) for label in labels])
    if classes is None or classes.ndim != 1:
        raise ValueError("The classifier's rule base does not record its classes.")
    n_scores = 1 if classes.size == 2 else classes.size
    if classes.size < 2 or n_scores != rule_base.n_outputs:
        raise ValueError(
            f"The classifier records {classes.size} classes, which do not fit a rule base of "
            f"{rule_base.n_outputs} scores."
        )
    return Deployed(rule_base, "classifier", classes, tuple(str(c) for c in classes.tolist()))
