"""What :func:`randomts.save` writes for a fitted estimator or pipeline, and how ``load`` rebuilds it.

A fitted randomts estimator is saved as its rule base, whose metadata record
how it was fitted (the library, the parameters, the penalty, the
standardisation, the training ranges) and gain an ``estimator_state``
record: the estimator's class, the dimension of ``y`` in ``fit``,
``feature_names_in_``, the variable names and the fitted attributes that
JSON holds exactly; a ``RandomTSClassifier`` adds its parameters, classes and
temperature. The estimator writes that record
(``estimator.__randomts_saved__()``) and reads it back
(``cls.__randomts_restored__(rule_base)``); this module holds what the
records are made of and :func:`restore`, which finds the class. Every format
carries the metadata (JSON in its ``metadata`` object, the others on one
comment line), so the fitted estimator comes back from any of them. A file
without that record (a saved :class:`~randomts.RuleBase`, or a file of
another tool) loads as a rule base.

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
from randomts.exceptions import FormatError
from randomts.fuzzy.rulebase import RuleBase
from randomts.fuzzy.system import FuzzySystem

__all__ = [
    "MAX_RECORDED",
    "NOT_RECORDED",
    "STATE_KEY",
    "fit_scaling",
    "jsonable",
    "recordable_attributes",
    "recorded_number",
    "recorded_params",
    "recorded_ranges",
    "recorded_scores",
    "restore",
    "restore_attribute",
    "saved_rule_base",
]

#: Metadata key of the record that makes a saved rule base load as a fitted estimator.
STATE_KEY = "estimator_state"
#: Fitted attributes that saving records elsewhere, or that are the model itself.
NOT_RECORDED = ("rule_base_", "feature_names_in_", "n_features_in_", "n_outputs_")
#: Longest 1-D array attribute recorded with a saved estimator.
MAX_RECORDED = 10_000

_SCALERS = ("StandardScaler", "MinMaxScaler", "MaxAbsScaler", "RobustScaler")


def recordable_attributes(model):
    """Public fitted attributes (``name_``) that JSON holds exactly, as ``{name: record}``.

    Python and NumPy scalars (bool, int, float, str) are kept as they are;
    1-D NumPy arrays of up to :data:`MAX_RECORDED` numbers or strings as
    ``{"array": [...], "dtype": "..."}``. Anything else is left out.

    Examples
    --------
    >>> import numpy as np
    >>> class Fitted:
    ...     pass
    >>> model = Fitted()
    >>> model.alpha_, model.classes_, model.n_features_in_ = 0.5, np.array([1, 2]), 3
    >>> recordable_attributes(model)
    {'alpha_': 0.5, 'classes_': {'array': [1, 2], 'dtype': '<i8'}}
    """
    records = {}
    for name, value in vars(model).items():
        if not name.endswith("_") or name.startswith("_") or name in NOT_RECORDED:
            continue
        if isinstance(value, np.generic):
            value = value.item()
        if value is None or isinstance(value, (bool, int, str)):
            records[name] = value
        elif isinstance(value, float) and np.isfinite(value):
            records[name] = value
        elif (
            isinstance(value, np.ndarray)
            and value.ndim == 1
            and value.size <= MAX_RECORDED
            and value.dtype.kind in "biufU"
            and (value.dtype.kind not in "f" or np.all(np.isfinite(value)))
        ):
            records[name] = {"array": value.tolist(), "dtype": value.dtype.str}
    return records


def restore_attribute(model, name, record):
    """Set one attribute recorded by :func:`recordable_attributes`, or raise a ValueError.

    Examples
    --------
    >>> class Fitted:
    ...     pass
    >>> model = Fitted()
    >>> restore_attribute(model, "classes_", {"array": [1, 2], "dtype": "<i8"})
    >>> model.classes_
    array([1, 2])
    >>> restore_attribute(model, "rule_base_", None)
    Traceback (most recent call last):
    ...
    ValueError: 'rule_base_' is not an attribute that is saved
    """
    if (
        not isinstance(name, str)
        or not name.endswith("_")
        or name.startswith("_")
        or name in NOT_RECORDED
    ):
        raise ValueError(f"{name!r} is not an attribute that is saved")
    if isinstance(record, dict):
        try:
            dtype = np.dtype(record["dtype"])
            if dtype.kind not in "biufU":
                raise TypeError(f"dtype {dtype} is not one that is saved")
            record = np.asarray(record["array"], dtype=dtype)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"attribute {name!r} is not a 1-D array record: {exc}") from None
        if record.ndim != 1:
            raise ValueError(f"attribute {name!r} is not a 1-D array record")
    elif not (record is None or isinstance(record, (bool, int, float, str))):
        raise ValueError(f"attribute {name!r} holds {type(record).__name__}")
    setattr(model, name, record)


def recorded_params(recorded, known):
    """The parameters a saved estimator recorded, those of ``known`` (a ``get_params()``).

    Lists become tuples, and a random generator (recorded as ``"<Generator>"``, which JSON
    cannot hold) becomes None; a parameter of another version is left out (the rule base is
    what predicts).

    Examples
    --------
    >>> known = {"n_rules": 100, "width_range": None, "random_state": None}
    >>> recorded_params(
    ...     {"n_rules": 5, "width_range": [0, 1], "random_state": "<Generator>", "old": 1}, known
    ... )
    {'n_rules': 5, 'width_range': (0, 1), 'random_state': None}
    """
    params = {}
    for key, value in (recorded if isinstance(recorded, dict) else {}).items():
        if key not in known:
            continue
        if isinstance(value, list):
            value = tuple(value)
        elif isinstance(value, str) and value.startswith("<") and key == "random_state":
            value = None
        params[key] = value
    return params


def recorded_number(metadata, key):
    """A finite number recorded in the metadata under ``key``, else None.

    Examples
    --------
    >>> recorded_number({"alpha": 0.5}, "alpha"), recorded_number({"alpha": "big"}, "alpha")
    (0.5, None)
    """
    value = metadata.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value):
        return float(value)
    return None


def recorded_ranges(rule_base):
    """``(low, high)`` over the inputs then outputs, from the rule base's ranges, or None.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], input_range=[[-1.0, 2.0]],
    ...               output_range=[[0.0, 5.0]])
    >>> recorded_ranges(rb)
    (array([-1.,  0.]), array([2., 5.]))
    """
    if rule_base.input_range is None or rule_base.output_range is None:
        return None
    ranges = np.concatenate([rule_base.input_range, rule_base.output_range])
    return ranges[:, 0].copy(), ranges[:, 1].copy()


def fit_scaling(metadata, n_features):
    """``(mean, scale)`` of the standardisation recorded in the metadata, or None.

    Examples
    --------
    >>> fit_scaling({"input_mean": [1.0, 2.0], "input_scale": [0.5, 4.0]}, 2)
    (array([1., 2.]), array([0.5, 4. ]))
    >>> fit_scaling({"input_mean": [1.0, 2.0], "input_scale": [0.0, 4.0]}, 2) is None
    True
    """
    mean, scale = metadata.get("input_mean"), metadata.get("input_scale")
    if mean is None or scale is None:
        return None
    try:
        mean, scale = np.asarray(mean, dtype=float), np.asarray(scale, dtype=float)
    except (TypeError, ValueError):
        return None
    if mean.shape != (n_features,) or scale.shape != (n_features,):
        return None
    if not (np.all(np.isfinite(mean)) and np.all((scale > 0) & np.isfinite(scale))):
        return None
    return mean, scale


def jsonable(params):
    """Estimator parameters as JSON holds them: tuples as lists, random generators by name.

    Examples
    --------
    >>> import numpy as np
    >>> jsonable({"width_range": (0.0, 1.0), "random_state": np.random.default_rng(0),
    ...           "n_rules": np.int64(5)})
    {'width_range': [0.0, 1.0], 'random_state': '<Generator>', 'n_rules': 5}
    """
    out = {}
    for key, value in params.items():
        if isinstance(value, (np.random.RandomState, np.random.Generator)):
            value = f"<{type(value).__name__}>"
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, np.generic):
            value = value.item()
        out[key] = value
    return out


def recorded_scores(record, rule_base):
    """The calibration residuals of a saved ``conformity`` record, or a ValueError.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]])
    >>> recorded_scores({"method": "split", "scores": [[0.5], [0.25]]}, rb).tolist()
    [[0.5], [0.25]]
    """
    try:
        scores = np.asarray(record["scores"], dtype=float)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"the 'conformity' record is damaged: {exc!r}") from None
    if (
        record.get("method") != "split"
        or scores.ndim != 2
        or scores.shape[1] != rule_base.n_outputs
        or not np.all(np.isfinite(scores) & (scores >= 0))
    ):
        raise ValueError(
            "the 'conformity' record must hold method 'split' and a list of rows of "
            f"{rule_base.n_outputs} finite scores >= 0"
        )
    return scores


def saved_rule_base(obj):
    """What to write for ``obj``: a RuleBase or FuzzySystem, a fitted estimator or Pipeline."""
    if isinstance(obj, (RuleBase, FuzzySystem)):
        return obj
    if hasattr(obj, "__randomts_saved__"):
        if not any(k.endswith("_") and not k.startswith("_") for k in vars(obj)):
            raise TypeError(
                f"save expects a fitted {type(obj).__name__}; this one is not fitted: "
                "call fit first."
            )
        return obj.__randomts_saved__()
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
    if not hasattr(final, "__randomts_saved__"):
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
    rule_base = final.__randomts_saved__()
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


def restore(rule_base, classes):
    """The fitted estimator a loaded rule base describes, or the rule base itself.

    Parameters
    ----------
    rule_base : RuleBase or FuzzySystem
        As read from a file.
    classes : iterable of type
        The estimator classes a record may name (each with
        ``__randomts_restored__``).

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
    estimators = {cls.__name__: cls for cls in classes}
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
        return cls.__randomts_restored__(rule_base)
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
