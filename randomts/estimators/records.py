"""The record a fitted estimator keeps in its rule base, which ``save`` writes and ``load`` reads.

A fitted randomts estimator keeps its model as a rule base whose metadata
record how it was fitted (:func:`set_fitted_rule_base`, :func:`fit_metadata`:
the library, the parameters, the penalty, the standardisation, the training
ranges); :func:`set_given_rule_base` makes an estimator of a rule base fitted
elsewhere. It is saved as that rule base, whose metadata gain an
``estimator_state`` record (:func:`estimator_state`):
the estimator's class, the dimension of ``y`` in ``fit``, ``feature_names_in_``
and the variable names; a ``RandomTSClassifier`` adds its parameters, classes
and temperature to its regressor's record. Every format carries the metadata (JSON in its
``metadata`` object, the others on one comment line), so :func:`randomts.estimators.saving.restore`
rebuilds the fitted estimator from any of them. A file without that record
(a saved :class:`~randomts.RuleBase`, or a file of another tool) loads as a
rule base.

"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_matrix
from randomts._version import __version__
from randomts.estimators.intervals import SplitScores

__all__ = [
    "MAX_RECORDED",
    "NOT_RECORDED",
    "STATE_KEY",
    "estimator_state",
    "fit_metadata",
    "fit_scaling",
    "jsonable",
    "recordable_attributes",
    "recorded_number",
    "recorded_params",
    "recorded_ranges",
    "restore_attribute",
    "restore_fitted_state",
    "set_fitted_rule_base",
    "set_given_rule_base",
    "without_untested_slopes",
]

#: Metadata key of the record that makes a saved rule base load as a fitted estimator.
STATE_KEY = "estimator_state"


#: Fitted attributes that saving records elsewhere, or that are the model itself.
NOT_RECORDED = ("rule_base_", "feature_names_in_", "n_features_in_", "n_outputs_")
#: Longest 1-D array attribute recorded with a saved estimator.
MAX_RECORDED = 10_000


def fit_metadata(model, n_samples):
    """The metadata a fitted estimator records in its rule base.

    The library and its version, the estimator's class and parameters
    (:func:`jsonable`), the number of training rows and, when the estimator
    has them, the penalty (``alpha``) and the weakest firing of a training
    row's strongest rule (``weakest_log_firing``, the reference of the
    extrapolation warning).

    Examples
    --------
    >>> from randomts import RandomTSRegressor
    >>> metadata = fit_metadata(RandomTSRegressor(n_rules=5), 100)
    >>> metadata["estimator"], metadata["params"]["n_rules"], metadata["n_samples_fit"]
    ('RandomTSRegressor', 5, 100)
    """
    metadata = {
        "library": "randomts",
        "library_version": __version__,
        "estimator": type(model).__name__,
        "params": jsonable(model.get_params()),
        "n_samples_fit": int(n_samples),
    }
    if getattr(model, "alpha_", None) is not None:
        metadata["alpha"] = float(model.alpha_)
    if getattr(model, "local_weight_", None) is not None:
        metadata["local_weight"] = float(model.local_weight_)
    weakest = getattr(model, "_weakest_log_firing", None)
    if weakest is not None and np.isfinite(weakest):
        metadata["weakest_log_firing"] = float(weakest)
    return metadata


def without_untested_slopes(rule_base, low, high):
    """``rule_base`` with no slope on an input whose training range ``[low, high]`` is one value.

    Such an input is constant in the training rows, so its slopes are not
    learned (with ``alpha="auto"`` they come from the prior, a linear fit that
    splits the constant between them and the intercepts): each moves into its
    rule's constant (``intercept += slope * value``), which leaves every
    training prediction as it was and the predictions elsewhere independent
    of the input.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0, 2.0]], sigmas=[[1.0, 1.0]], coef=[[[1.0, 3.0]]])
    >>> flat = without_untested_slopes(rb, np.array([-1.0, 2.0]), np.array([1.0, 2.0]))
    >>> flat.coef.tolist(), flat.intercept.tolist()
    ([[[1.0, 0.0]]], [[6.0]])
    """
    constant = np.flatnonzero(low[: rule_base.n_features] == high[: rule_base.n_features])
    if constant.size == 0 or not np.any(rule_base.coef[:, :, constant]):
        return rule_base
    coef = rule_base.coef.copy()
    intercept = rule_base.intercept + coef[:, :, constant] @ low[constant]
    coef[:, :, constant] = 0.0
    return rule_base.replace(coef=coef, intercept=intercept)


def set_fitted_rule_base(model, rule_base, n_samples):
    """Store a fitted rule base as ``model.rule_base_``, in the data's units, with its provenance.

    ``rule_base`` is the model of the inputs as ``fit`` saw them (standardised
    when ``model._scaling`` is set, and then expressed back in the data's
    units). It records the training ranges (``input_range``,
    ``output_range``: ``[min, max]`` per variable, from ``model._ranges``),
    which text labels, plots and the FIS and FLL writers use, and in its
    metadata :func:`fit_metadata` and the standardisation (``input_mean``,
    ``input_scale``).

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor, RuleBase
    >>> model = RandomTSRegressor(n_rules=1)
    >>> model._scaling, model._ranges = None, (np.array([-1.0, 0.0]), np.array([1.0, 2.0]))
    >>> set_fitted_rule_base(model, RuleBase(centers=[[0.0]], sigmas=[[1.0]]), 10)
    >>> model.rule_base_.input_range, model.rule_base_.metadata["n_samples_fit"]
    (array([[-1.,  1.]]), 10)
    """
    n_features = rule_base.n_features
    metadata = fit_metadata(model, n_samples)
    if model._scaling is not None:
        mean, scale = model._scaling
        rule_base = rule_base.in_original_units(mean, scale)
        metadata["input_mean"] = mean.tolist()
        metadata["input_scale"] = scale.tolist()
    ranges = {}
    if model._ranges is not None:
        low, high = model._ranges
        ranges = {
            "input_range": np.column_stack([low[:n_features], high[:n_features]]),
            "output_range": np.column_stack([low[n_features:], high[n_features:]]),
        }
        rule_base = without_untested_slopes(rule_base, low, high)
    model.rule_base_ = rule_base.replace(metadata=metadata, **ranges)


def set_given_rule_base(model, rule_base, *, input_mean=None, input_scale=None, n_samples=None):
    """Make the unfitted ``model`` (valid parameters) a fitted one that predicts with ``rule_base``.

    What :meth:`RandomTSRegressor.from_rule_base
    <randomts.RandomTSRegressor.from_rule_base>` does once it has built the
    estimator: the standardisation checked and kept, ``alpha_`` (from the
    metadata with ``alpha="auto"``), the sizes, the recorded ranges and
    weakest firing, then :func:`set_fitted_rule_base`.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor, RuleBase
    >>> model = RandomTSRegressor(alpha=0.5)
    >>> rules = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
    >>> set_given_rule_base(model, rules, n_samples=3)
    >>> model.alpha_, model.n_features_in_, model.predict([[0.0]])
    (0.5, 1, array([2.]))
    """
    n_features = rule_base.n_features
    if (input_mean is None) != (input_scale is None):
        raise ValueError("Give both input_mean and input_scale, or neither.")
    model._scaling = None
    if input_mean is not None:
        mean = check_matrix(input_mean, "input_mean", ndim=1, n_columns=n_features)
        scale = check_matrix(input_scale, "input_scale", ndim=1, n_columns=n_features)
        if np.any(scale <= 0):
            raise ValueError(f"input_scale must be > 0 on every input; got {scale.tolist()}.")
        model._scaling = (mean, scale)
    metadata = rule_base.metadata
    alpha = recorded_number(metadata, "alpha") if isinstance(model.alpha, str) else model.alpha
    model.alpha_ = None if alpha is None else float(alpha)
    local_weight = None
    if getattr(model, "learning", "global") == "combined":
        local_weight = model.local_weight
        if isinstance(local_weight, str):
            local_weight = recorded_number(metadata, "local_weight")
    model.local_weight_ = None if local_weight is None else float(local_weight)
    model.n_features_in_ = n_features
    model.n_outputs_ = rule_base.n_outputs
    model._y_ndim = 1 if rule_base.n_outputs == 1 else 2
    model._stream = None
    # the recorded ranges, in the data's units
    in_data_units = (
        rule_base if model._scaling is None else rule_base.in_original_units(*model._scaling)
    )
    model._ranges = recorded_ranges(in_data_units)
    # the extrapolation warning compares with the training rows' weakest firing, inside
    # their ranges
    model._weakest_log_firing = (
        None if model._ranges is None else recorded_number(metadata, "weakest_log_firing")
    )
    if n_samples is None:
        n_samples = metadata.get("n_samples_fit", 0)
    set_fitted_rule_base(model, rule_base, check_int(n_samples, "n_samples", low=0))


def restore_fitted_state(model, rule_base, state):
    """Make the unfitted ``model`` the fitted regressor that a saved ``estimator_state`` describes.

    ``rule_base`` is the rule base as read, whose metadata no longer hold
    ``state``; it becomes ``rule_base_``. The sizes, ``feature_names_in_``,
    the recorded attributes (:func:`restore_attribute`), the standardisation
    and the recorded ranges are restored.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor, RuleBase
    >>> model = RandomTSRegressor()
    >>> rules = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
    >>> state = {"target_ndim": 1, "feature_names_in": None, "attributes": {"alpha_": 0.1}}
    >>> restore_fitted_state(model, rules, state)
    >>> model.alpha_, model.predict([[0.0]])
    (0.1, array([2.]))
    """
    metadata = rule_base.metadata
    names = state["feature_names_in"]
    if names is not None:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    model.n_features_in_ = rule_base.n_features
    model.n_outputs_ = rule_base.n_outputs
    model._y_ndim = state["target_ndim"]
    for name, value in (state.get("attributes") or {}).items():
        restore_attribute(model, name, value)
    model._stream = None
    model._scaling = fit_scaling(metadata, rule_base.n_features)
    model._ranges = recorded_ranges(rule_base)  # None: a partial_fit records them
    if model._ranges is not None:
        model._weakest_log_firing = recorded_number(metadata, "weakest_log_firing")
    model.rule_base_ = rule_base
    conformity = state.get("conformity")
    if conformity is not None:
        model._conformity = SplitScores(rule_base, _recorded_scores(conformity, rule_base))


def _recorded_scores(record, rule_base):
    """The calibration residuals of a saved ``conformity`` record, or a ValueError."""
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


def estimator_state(model):
    """The ``estimator_state`` record of a fitted regressor, which :func:`~randomts.estimators.saving.restore` reads.

    The class, the dimension of ``y`` in ``fit``, ``feature_names_in_``, the
    variable names of ``rule_base_`` (which some formats must change) and the
    other fitted attributes that JSON holds exactly
    (:func:`recordable_attributes`).

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> model = RandomTSRegressor(n_rules=5, alpha=0.1, random_state=0).fit(X, X[:, 0])
    >>> state = estimator_state(model)
    >>> state["class"], state["target_ndim"], state["input_names"], state["attributes"]
    ('RandomTSRegressor', 1, ['x1', 'x2'], {'alpha_': 0.1, 'local_weight_': None})
    """
    rule_base = model.rule_base_
    names = getattr(model, "feature_names_in_", None)
    state = {
        "class": type(model).__name__,
        "target_ndim": int(model._y_ndim),
        "feature_names_in": None if names is None else [str(n) for n in names],
        "input_names": list(rule_base.input_names),
        "output_names": list(rule_base.output_names),
        "attributes": recordable_attributes(model),
    }
    scores = getattr(model, "_conformity", None)
    if (
        isinstance(scores, SplitScores)
        and scores.rule_base is rule_base
        and scores.scores.size <= MAX_RECORDED
    ):  # the calibration residuals of split-conformal intervals
        state["conformity"] = {"method": "split", "scores": scores.scores.tolist()}
    return state


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
