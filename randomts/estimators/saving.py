"""What :func:`randomts.save` writes for an estimator or a pipeline, and how ``load`` rebuilds it.

A fitted randomts estimator is saved as its rule base with the record of
:mod:`randomts.estimators.records`; :func:`restore` rebuilds the fitted
estimator from it. A file without that record (a saved
:class:`~randomts.RuleBase`, or a file of another tool) loads as a rule base.

A fitted scikit-learn ``Pipeline`` whose steps before the estimator are
per-feature affine scalers (``StandardScaler``, ``MinMaxScaler`` without
``clip``, ``MaxAbsScaler``, ``RobustScaler``, or ``"passthrough"``) is folded
into one rule base in the data's own units with
:meth:`~randomts.RuleBase.in_original_units`: Gaussian sets stay Gaussian
and linear consequents stay linear under ``u = (x - m) / s``, so the saved
model predicts as the pipeline does, to rounding. Any other step raises a
``TypeError`` naming it.
"""

from __future__ import annotations

import numpy as np

from randomts._version import __version__
from randomts.estimators.classifier import RandomTSClassifier
from randomts.estimators.narx import NARXRegressor
from randomts.estimators.records import STATE_KEY, fit_scaling
from randomts.estimators.regressor import RandomTSRegressor
from randomts.exceptions import FormatError
from randomts.fuzzy.rulebase import RuleBase
from randomts.fuzzy.system import FuzzySystem

__all__ = ["restore", "saved_rule_base"]

_SCALERS = ("StandardScaler", "MinMaxScaler", "MaxAbsScaler", "RobustScaler")


def saved_rule_base(obj):
    """What to write for ``obj``: a RuleBase or FuzzySystem, a fitted estimator or Pipeline."""
    if isinstance(obj, (RuleBase, FuzzySystem)):
        return obj
    if hasattr(obj, "_saved_rule_base"):
        if not any(k.endswith("_") and not k.startswith("_") for k in vars(obj)):
            raise TypeError(
                f"save expects a fitted {type(obj).__name__}; this one is not fitted: "
                "call fit first."
            )
        return obj._saved_rule_base()
    rule_base = getattr(obj, "rule_base_", None)
    if isinstance(rule_base, RuleBase):  # another fitted randomts model: its rules
        return rule_base
    steps = getattr(obj, "steps", None)
    if isinstance(steps, list) and steps and hasattr(obj, "get_params"):
        return _folded_pipeline(obj, steps)
    hint = " (save its best_estimator_)" if hasattr(obj, "best_estimator_") else ""
    raise TypeError(
        "save expects a RuleBase, a FuzzySystem, a fitted RandomTSRegressor or "
        "RandomTSClassifier, or a fitted Pipeline ending with one; "
        f"got {type(obj).__name__}{hint}."
    )


def _folded_pipeline(pipeline, steps):
    name, final = steps[-1]
    if not hasattr(final, "_saved_rule_base"):
        raise TypeError(
            f"Cannot save the Pipeline: its last step {name!r} ({type(final).__name__}) is not a "
            "randomts estimator."
        )
    if not hasattr(final, "rule_base_"):
        raise TypeError(
            f"save expects a fitted Pipeline; its last step {name!r} ({type(final).__name__}) is "
            "not fitted: call fit first."
        )
    n_features = final.rule_base_.n_features
    mean, scale = np.zeros(n_features), np.ones(n_features)
    folded = []
    for step_name, step in steps[:-1]:
        if step is None or (isinstance(step, str) and step == "passthrough"):
            continue
        shift, factor = _affine(step_name, step, n_features)
        mean, scale = mean + shift * scale, scale * factor  # (x - mean) / scale, then this step
        folded.append(type(step).__name__)
    rule_base = final._saved_rule_base()
    metadata = rule_base.metadata
    state = dict(metadata[STATE_KEY])
    names = next(  # the names that the first step which looked at any was given
        (s.feature_names_in_ for _, s in steps if hasattr(s, "feature_names_in_")), None
    )
    input_names = rule_base.input_names
    if names is not None:
        state["feature_names_in"] = input_names = [str(n) for n in names]
    state["input_names"] = list(input_names)
    metadata[STATE_KEY] = state
    metadata["folded_steps"] = folded  # provenance: the scalers now inside the rules
    recorded = fit_scaling(metadata, n_features)
    if recorded is not None:  # the estimator's own standardisation, after the pipeline's
        metadata["input_mean"] = (mean + recorded[0] * scale).tolist()
        metadata["input_scale"] = (scale * recorded[1]).tolist()
    elif folded:
        metadata["input_mean"], metadata["input_scale"] = mean.tolist(), scale.tolist()
    # in_original_units maps the recorded input ranges too
    return rule_base.in_original_units(mean, scale).replace(
        input_names=input_names, metadata=metadata
    )


def _affine(name, step, n_features):
    """``(m, s)`` with ``step.transform(x) == (x - m) / s``, or a TypeError naming the step."""
    kind = type(step).__name__
    what = f"step {name!r} ({kind})"
    if kind not in _SCALERS or not type(step).__module__.startswith("sklearn."):
        raise TypeError(
            f"Cannot save the Pipeline as a rule base: {what} is not a per-feature scaling. A rule "
            f"base holds only {', '.join(_SCALERS)} or 'passthrough' before the estimator; save "
            "the estimator alone, or pickle the Pipeline."
        )
    if getattr(step, "n_features_in_", None) is None:
        raise TypeError(f"save expects a fitted Pipeline; {what} is not fitted: call fit first.")
    ones, zeros = np.ones(n_features), np.zeros(n_features)
    if kind == "StandardScaler":
        m = zeros if step.mean_ is None else step.mean_
        s = ones if step.scale_ is None else step.scale_
    elif kind == "RobustScaler":
        m = zeros if step.center_ is None else step.center_
        s = ones if step.scale_ is None else step.scale_
    elif kind == "MaxAbsScaler":
        m, s = zeros, step.scale_
    else:  # MinMaxScaler: x * scale_ + min_
        if step.clip:
            raise TypeError(
                f"Cannot save the Pipeline as a rule base: {what} has clip=True, which is not a "
                "linear map."
            )
        m, s = -step.min_ / step.scale_, 1.0 / step.scale_
    m, s = np.asarray(m, dtype=float), np.asarray(s, dtype=float)
    if m.shape != (n_features,) or s.shape != (n_features,) or not np.all(s > 0):
        raise TypeError(
            f"Cannot save the Pipeline as a rule base: {what} does not map {n_features} features "
            "one to one with positive scales."
        )
    return m, s


def restore(rule_base):
    """The fitted estimator a loaded rule base describes, or the rule base itself.

    Raises
    ------
    FormatError
        If the ``estimator_state`` record is damaged or names a class this
        version of randomts does not have (without a line number: the caller
        adds it).
    """
    state = rule_base.metadata.get(STATE_KEY) if isinstance(rule_base, RuleBase) else None
    if state is None:
        return rule_base

    name = state.get("class") if isinstance(state, dict) else None
    estimators = {
        cls.__name__: cls for cls in (RandomTSRegressor, RandomTSClassifier, NARXRegressor)
    }
    cls = estimators.get(name) if isinstance(name, str) else None
    if cls is None:
        version = rule_base.metadata.get("library_version", "unknown")
        raise FormatError(
            f"the file holds a fitted {name!r}, which randomts {__version__} cannot "
            f"rebuild (it was written by randomts {version})"
        )
    problem = _state_problem(state, rule_base)
    if problem:
        raise FormatError(f"the {STATE_KEY!r} record is damaged: {problem}")
    recorded = {key: tuple(state[key]) for key in ("input_names", "output_names")}
    if (recorded["input_names"], recorded["output_names"]) != (
        rule_base.input_names,
        rule_base.output_names,
    ):  # names that the format had to change (FIS, FLL)
        rule_base = rule_base.replace(**recorded)
    try:
        return cls._from_saved(rule_base)
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise FormatError(f"the {STATE_KEY!r} record is damaged: {exc}") from None


def _state_problem(state, rule_base):
    """What is wrong with an ``estimator_state`` record, or an empty string."""
    ndim = state.get("target_ndim")
    if ndim not in (1, 2) or isinstance(ndim, bool):
        return f"'target_ndim' must be 1 or 2; got {ndim!r}"
    attributes = state.get("attributes")
    if attributes is not None and not isinstance(attributes, dict):
        return f"'attributes' must be an object of attribute names; got {attributes!r}"
    if ndim == 1 and rule_base.n_outputs != 1:
        return f"'target_ndim' is 1 but the rule base has {rule_base.n_outputs} outputs"
    for key, count in (
        ("feature_names_in", rule_base.n_features),
        ("input_names", rule_base.n_features),
        ("output_names", rule_base.n_outputs),
    ):
        names = state.get(key)
        if names is None and key == "feature_names_in":
            continue
        if (
            not isinstance(names, list)
            or len(names) != count
            or not all(isinstance(n, str) and n.strip() for n in names)
            or len(set(names)) != count
        ):
            return f"{key!r} must be a list of {count} distinct non-empty names; got {names!r}"
    return ""
