"""The estimators' hyperparameters, and what a fit checks and warns about in the data.

The hyperparameters of :class:`~randomts.RandomTSRegressor` and
:class:`~randomts.RandomTSClassifier` (every message names the parameter,
the value received and what is allowed), the memory a fit needs, the
targets a weighted sum reproduces poorly, inputs that hold one value and an
underdetermined fit.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from randomts._threads import effective_n_jobs
from randomts._validation import (
    check_int,
    check_int_option,
    check_option,
    check_pair,
    check_real,
    constant_columns,
)
from randomts.core.accumulators import check_factor_memory
from randomts.core.sampling import PAPER_CENTER_SCALE
from randomts.core.solvers import SOLVERS
from randomts.exceptions import ConstantInputWarning, RandomTSWarning, UnderdeterminedWarning
from randomts.fitting.growth import check_width_factor
from randomts.fitting.local_learning import LEARNING, check_local_weight
from randomts.fitting.protocol import check_alpha

__all__ = [
    "CENTERS",
    "FAR_OFFSET",
    "GROWN_RULES",
    "INTERPOLATION_TOLERANCE",
    "INTERPRETABLE",
    "RANDOM_ONLY",
    "STRUCTURES",
    "Resolved",
    "auto_alpha",
    "check_fit_memory",
    "check_hyperparameters",
    "n_unknowns",
    "output_names",
    "random_only_settings",
    "resolved",
    "structure_of",
    "warn_constant_inputs",
    "warn_if_far_offset",
    "warn_if_underdetermined",
    "without_refinement",
]

#: The ``centers`` a RandomTSRegressor accepts.
CENTERS = ("samples", "normal", "uniform", "data", "kmeans")
#: ``fit`` warns when a weighted sum with ``alpha="auto"`` is to reproduce targets whose mean
#: exceeds this many standard deviations (the error of a constant's reproduction, times the
#: mean, reaches a few thousandths of the spread there).
FAR_OFFSET = 1e4


#: The structures of the rules: grown where the data need them, or drawn at random.
STRUCTURES = ("grown", "random")
#: The most rules ``structure="grown"`` grows when ``n_rules`` is None.
GROWN_RULES = 40
#: The parameters that only random rules read: set with ``structure="grown"``, they are refused.
RANDOM_ONLY = ("centers", "center_scale", "center_bounds", "width_range")

#: The parameters of ``interpretable()``: rules grown where the data need them, each line a
#: fit of the data under its rule.
INTERPRETABLE = {"structure": "grown"}


@dataclass(frozen=True)
class Resolved:
    """The parameters of an estimator with ``None`` ("follow the structure") resolved.

    Attributes
    ----------
    structure : {"grown", "random"}
    n_rules : int
        The rules drawn, or the most rules grown.
    normalize : bool
        The weighted average (True) or the weighted sum.
    learning : {"global", "local", "combined"}
    centers : str or None
        The centre distribution of random rules (None for grown rules).
    center_scale : float or None
        The standard deviation of ``centers="normal"`` (None for grown rules).
    """

    structure: str
    n_rules: int
    normalize: bool
    learning: str
    centers: str | None
    center_scale: float | None

    @property
    def grown(self) -> bool:
        """Whether the rules are grown."""
        return self.structure == "grown"


def random_only_settings(model):
    """The parameters set on ``model`` that only random rules read, by name.

    Examples
    --------
    >>> from randomts import RandomTSRegressor
    >>> random_only_settings(RandomTSRegressor(centers="kmeans", refine=5, normalize=False))
    ['centers', 'refine', 'normalize']
    >>> random_only_settings(RandomTSRegressor(n_rules=10, normalize=True))
    []
    """
    found = [name for name in RANDOM_ONLY if getattr(model, name) is not None]
    if isinstance(model.refine, numbers.Integral) and model.refine > 0:
        found.append("refine")
    if model.normalize is not None and not model.normalize:
        found.append("normalize")
    return found


def structure_of(model):
    """``"grown"`` or ``"random"``: what ``model.structure`` makes of the estimator's rules.

    A structure given is the structure. ``None`` is the estimator's
    ``default_structure`` (``"grown"`` for the regressor, ``"random"`` for
    the classifier), except that a parameter only random rules read
    (:func:`random_only_settings`: ``centers``, ``center_scale``,
    ``center_bounds``, ``width_range``, ``refine > 0``, ``normalize=False``)
    asks for random rules: those settings keep the model they have always
    given. With ``structure="grown"`` they are refused instead
    (:func:`check_hyperparameters`).

    Examples
    --------
    >>> from randomts import RandomTSClassifier, RandomTSRegressor
    >>> structure_of(RandomTSRegressor()), structure_of(RandomTSClassifier())
    ('grown', 'random')
    >>> structure_of(RandomTSRegressor(centers="kmeans")), structure_of(RandomTSRegressor(refine=10))
    ('random', 'random')
    >>> structure_of(RandomTSRegressor(structure="grown", centers="kmeans"))
    'grown'
    """
    if model.structure is not None:
        return model.structure
    if model.default_structure == "grown" and random_only_settings(model):
        return "random"
    return model.default_structure


def resolved(model):
    """The :class:`Resolved` parameters of an estimator whose parameters are valid.

    ``structure=None`` is the estimator's ``default_structure`` (grown rules
    for the regressor, random ones for the classifier). ``None`` elsewhere
    means the structure's default: grown rules are up to
    :data:`GROWN_RULES`, averaged and fitted locally; random rules are
    ``model.random_rules`` (100 for the regressor), summed and fitted
    globally, their centres training rows (``"samples"``) and ``center_scale``
    the paper's ``sqrt(2)``.

    Examples
    --------
    >>> from randomts import RandomTSClassifier, RandomTSRegressor
    >>> grown = resolved(RandomTSRegressor(structure="grown"))
    >>> grown.structure, grown.n_rules, grown.normalize, grown.learning, grown.centers
    ('grown', 40, True, 'local', None)
    >>> drawn = resolved(RandomTSRegressor(structure="random"))
    >>> drawn.n_rules, drawn.normalize, drawn.learning, drawn.centers
    (100, False, 'global', 'samples')
    >>> resolved(RandomTSClassifier(structure="random")).n_rules
    150
    >>> resolved(RandomTSRegressor()).structure, resolved(RandomTSClassifier()).structure
    ('grown', 'random')
    """
    structure = structure_of(model)
    grown = structure == "grown"
    n_rules = model.n_rules
    if n_rules is None:
        n_rules = GROWN_RULES if grown else model.random_rules
    normalize = grown if model.normalize is None else bool(model.normalize)
    learning = model.learning
    if learning is None:
        learning = "local" if grown else "global"
    centers = center_scale = None
    if not grown:
        centers = "samples" if model.centers is None else model.centers
        center_scale = PAPER_CENTER_SCALE if model.center_scale is None else model.center_scale
    return Resolved(structure, n_rules, normalize, learning, centers, center_scale)


def check_hyperparameters(model):
    """Raise naming the first parameter of a RandomTSRegressor that is out of range.

    ``None`` follows the structure (see :func:`resolved`). With
    ``structure="grown"`` the parameters that only random rules read
    (:data:`RANDOM_ONLY`, ``refine``) are refused when set, and so is the
    weighted sum: grown rules are a weighted average by construction.

    Examples
    --------
    >>> from randomts import RandomTSRegressor
    >>> check_hyperparameters(RandomTSRegressor(structure="random", centers="grid"))
    Traceback (most recent call last):
    ...
    ValueError: The 'centers' parameter of RandomTSRegressor must be a str among {'samples', 'normal', 'uniform', 'data', 'kmeans'}. Got 'grid' instead.
    >>> check_hyperparameters(RandomTSRegressor(structure="grown", centers="kmeans"))
    Traceback (most recent call last):
    ...
    ValueError: The 'centers' parameter of RandomTSRegressor places random rules; the rules of structure='grown' place themselves where the data need them. Got centers='kmeans': leave it None, or use structure='random'.
    """
    owner = type(model).__name__
    if model.structure is not None:
        check_option(model.structure, "structure", STRUCTURES, owner=owner)
    if model.n_rules is not None:
        check_int(model.n_rules, "n_rules", low=1, owner=owner)
    check_int_option(model.order, "order", (0, 1), owner=owner)
    for flag, optional in (("normalize", True), ("standardize", False)):
        value = getattr(model, flag)
        if not (isinstance(value, (bool, np.bool_)) or (optional and value is None)):
            allowed = "a bool or None" if optional else "a bool"
            raise TypeError(
                f"The {flag!r} parameter of {owner} must be {allowed}. Got {value!r} instead."
            )
    check_option(model.solver, "solver", SOLVERS, owner=owner)
    alpha = check_alpha(model.alpha, owner=owner)
    if model.learning is not None:
        check_option(model.learning, "learning", LEARNING, owner=owner)
    check_local_weight(model.local_weight, owner=owner)
    if model.centers is not None:
        check_option(model.centers, "centers", CENTERS, owner=owner)
    if model.center_scale is not None:
        check_real(model.center_scale, "center_scale", low=0.0, low_inclusive=False, owner=owner)
    if model.center_bounds is not None:
        check_pair(model.center_bounds, "center_bounds", owner=owner)
    if model.width_range is not None:
        check_pair(model.width_range, "width_range", low=0.0, owner=owner)
    width_factor = check_width_factor(model.width_factor, owner=owner)
    check_int(model.refine, "refine", low=0, owner=owner)
    if model.lock_range is not None and not isinstance(model.lock_range, (bool, np.bool_)):
        raise TypeError(
            f"The 'lock_range' parameter of {owner} must be a bool or None. "
            f"Got {model.lock_range!r} instead."
        )
    if structure_of(model) == "grown":
        _check_grown(model, owner)
    else:
        if width_factor != "auto":
            raise ValueError(
                f"The 'width_factor' parameter of {owner} sizes grown rules; random rules "
                "draw their widths (width_range). Got "
                f"width_factor={model.width_factor!r}: leave it 'auto', or use structure='grown'."
            )
        if model.centers == "uniform" and model.center_bounds is None:
            raise ValueError(
                f"The 'center_bounds' parameter of {owner} is required when centers='uniform'; "
                "give a pair (low, high)."
            )
        if model.refine > 0 and alpha == 0.0:
            raise ValueError(
                f"The 'refine' parameter of {owner} needs a ridge penalty: alpha='auto' or "
                f"alpha > 0. Got refine={model.refine!r} with alpha={model.alpha!r}."
            )
    effective_n_jobs(model.n_jobs, owner=owner)


def _check_grown(model, owner):
    """Refuse the settings that contradict ``structure="grown"``."""
    for name in RANDOM_ONLY:
        value = getattr(model, name)
        if value is not None:
            raise ValueError(
                f"The {name!r} parameter of {owner} places random rules; the rules of "
                "structure='grown' place themselves where the data need them. Got "
                f"{name}={value!r}: leave it None, or use structure='random'."
            )
    if model.refine != 0:
        raise ValueError(
            f"The 'refine' parameter of {owner} moves random rules; the rules of "
            f"structure='grown' are placed by their growth. Got refine={model.refine!r}: "
            "leave it 0, or use structure='random'."
        )
    if model.normalize is not None and not model.normalize:
        raise ValueError(
            f"The 'normalize' parameter of {owner} must be True or None with "
            "structure='grown': grown rules are a weighted average (each rule's line is "
            "what the model does where the rule lives). Got normalize=False: use "
            "structure='random' for a weighted sum."
        )


def auto_alpha(model):
    """Whether the (validated) ``alpha`` of ``model`` is ``"auto"``.

    Examples
    --------
    >>> from randomts import RandomTSRegressor
    >>> auto_alpha(RandomTSRegressor()), auto_alpha(RandomTSRegressor(alpha=0.1))
    (True, False)
    """
    return isinstance(model.alpha, str)


def without_refinement(model):
    """``partial_fit`` exists only with ``refine=0``: refining needs all the rows at once.

    Examples
    --------
    >>> from randomts import RandomTSRegressor
    >>> without_refinement(RandomTSRegressor())
    True
    >>> without_refinement(RandomTSRegressor(refine=3))
    Traceback (most recent call last):
    ...
    ValueError: The 'refine' parameter of RandomTSRegressor must be 0 for partial_fit: ...
    """
    if model.refine != 0:
        raise ValueError(
            f"The 'refine' parameter of {type(model).__name__} must be 0 for partial_fit: "
            f"refining the antecedents needs all rows at once. Got refine={model.refine!r}; "
            "use fit, or refine=0."
        )
    return True


def n_unknowns(n_rules, n_features, order):
    """Columns of ``K``: the unknowns of each output's least-squares problem.

    Examples
    --------
    >>> n_unknowns(100, 2, 1), n_unknowns(100, 2, 0)
    (300, 100)
    """
    return n_rules * (n_features + 1 if order == 1 else 1)


def check_fit_memory(model, n_samples, n_features, n_outputs):
    """Refuse, before drawing anything, a fit whose factors cannot fit in memory.

    Examples
    --------
    >>> from randomts import RandomTSRegressor
    >>> check_fit_memory(RandomTSRegressor(), 1000, 2, 1)
    >>> check_fit_memory(RandomTSRegressor(n_rules=10**6, structure="random"), 1000, 10, 1)
    Traceback (most recent call last):
    ...
    MemoryError: n_rules=1000000 with 10 inputs and order=1 gives 11000000 unknowns: ...
    """
    n_rules = resolved(model).n_rules
    n_columns = n_unknowns(n_rules, n_features, model.order)
    row_space = auto_alpha(model) and n_columns > n_samples  # the LOO through K K^T
    check_factor_memory(
        n_columns,
        n_outputs,
        n_rows=n_samples if row_space else 0,
        row_space=row_space,
        what=f"n_rules={n_rules} with {n_features} inputs and order={model.order}",
    )


def warn_if_far_offset(model, Y, *, stacklevel=3):
    """Warn when a weighted sum is to reproduce targets whose mean dwarfs their spread.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_far_offset(RandomTSRegressor(structure="random"), np.array([[1e6], [1e6 + 1.0]]))
    >>> caught[0].category.__name__
    'RandomTSWarning'
    """
    if resolved(model).normalize or not auto_alpha(model):
        return
    mean, spread = np.abs(Y.mean(axis=0)), Y.std(axis=0)
    far = (spread > 0) & (mean > FAR_OFFSET * spread)  # a constant target is exact enough
    if np.any(far):
        k = int(np.argmax(np.where(far, mean, 0.0) / np.where(far, spread, 1.0)))
        warnings.warn(
            f"The mean of {'the targets' if Y.shape[1] == 1 else f'output {k}'} "
            f"({Y[:, k].mean():.6g}) is more than {FAR_OFFSET:.0e} "
            f"times their standard deviation ({spread[k]:.3g}): a weighted sum of rules "
            "reproduces a constant only approximately, and that error, times the mean, "
            "may show in the predictions. Subtract a constant from y before fitting (and "
            "add it to the predictions), or use normalize=True (weighted average).",
            RandomTSWarning,
            stacklevel=stacklevel,
        )


#: A fit reproduces its training targets when its residuals' root mean square is within this
#: fraction of their standard deviation.
INTERPOLATION_TOLERANCE = 1e-6


def warn_if_underdetermined(model, rule_base, U, Y, *, stacklevel=3):
    """Warn when the training rows leave the model's unknowns undetermined.

    With at least as many unknowns per output as rows, an
    :class:`~randomts.exceptions.UnderdeterminedWarning` names both when

    - ``alpha`` is 0: the consequents interpolate the training targets;
    - the fit reproduces the training targets anyway (the root mean square
      of its residuals within :data:`INTERPOLATION_TOLERANCE` of their
      standard deviation): the penalty, e.g. chosen by leave-one-out on few
      rows, did not shrink it, and the training error says nothing;
    - there are no more rows than a linear model in the inputs has
      coefficients (``n_features + 1``): no penalty can tell the inputs'
      effects apart.

    More unknowns than rows alone is not a warning: with a penalty chosen by
    leave-one-out the fit then behaves as kernel ridge regression, and on
    small data sets it predicts as well as fewer rules.

    Parameters
    ----------
    model : RandomTSRegressor
        The estimator being fitted.
    rule_base : RuleBase
        The fitted rules, on the inputs as ``fit`` saw them.
    U, Y : ndarray
        Those inputs, and the targets (2-D).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor, RuleBase
    >>> rules = RuleBase.random(n_features=2, n_rules=10, random_state=0)
    >>> U, Y = np.zeros((20, 2)), np.zeros((20, 1))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_underdetermined(RandomTSRegressor(alpha=0.0), rules, U, Y)
    >>> str(caught[0].message)[:53]
    'RandomTSRegressor fits 30 unknowns per output (10 rul'
    """
    n_samples, n_features = U.shape
    unknowns = n_unknowns(rule_base.n_rules, n_features, model.order)
    if unknowns < n_samples:
        return
    fits = (
        f"{type(model).__name__} fits {unknowns} unknowns per output ({rule_base.n_rules} "
        f"rules) to {n_samples} rows"
    )
    most = (n_samples - 1) // (unknowns // rule_base.n_rules)
    fewer = (
        f"fewer rules (n_rules <= {most} gives fewer unknowns than rows)"
        if most >= 1
        else "fewer inputs"
    )
    remedy = (
        f"Use {fewer}, order=0 or more rows, and judge the model by cross-validation, not by "
        "its training error."
    )
    if not auto_alpha(model) and float(model.alpha) == 0.0:
        why = (
            " with alpha=0: the consequents interpolate the training targets, noise "
            "included, and predict poorly between them. Use alpha='auto' (or alpha > 0), "
            "fewer rules or more rows."
        )
        remedy = ""
    elif n_samples <= n_features + 1:
        why = (
            f", {unknowns // rule_base.n_rules} per rule: no more rows than a linear model in "
            f"the {n_features} inputs has coefficients "
            f"({n_features + 1}), so no penalty can tell the inputs' effects apart."
        )
    else:
        predicted = rule_base.predict(U, check_input=False)
        residual = np.sqrt(np.mean((predicted.reshape(Y.shape) - Y) ** 2, axis=0))
        spread = Y.std(axis=0)
        if not np.any((spread > 0) & (residual <= INTERPOLATION_TOLERANCE * spread)):
            return
        why = (
            f", {unknowns // rule_base.n_rules} per rule: the fit reproduces the training "
            "targets (to within "
            f"{INTERPOLATION_TOLERANCE:g} of their standard deviation), noise included, so "
            "its training error says nothing about new rows."
        )
    warnings.warn(
        f"{fits}{why} {remedy}".rstrip(),
        UnderdeterminedWarning,
        stacklevel=stacklevel,
    )


def warn_constant_inputs(owner, X, names=None, *, rows="training rows", stacklevel=2):
    """Warn (:class:`~randomts.exceptions.ConstantInputWarning`) about the constant columns of ``X``.

    ``fit`` and the first ``partial_fit`` call it, where the model leaves
    such inputs out (:func:`randomts.estimators.antecedents.untested_constant_inputs`).

    Parameters
    ----------
    owner : str
        The estimator being fitted, for the message.
    X : ndarray of shape (n_samples, n_features)
        The training inputs, as numbers.
    names : sequence of str, optional
        The columns' names (a DataFrame's); by default they are named by
        position and by the name the rules give them (``x1``, ``x2``, ...).
    rows : str, default="training rows"
        What the rows of ``X`` are, for the message.
    stacklevel : int, default=2
        As for ``warnings.warn``.

    Returns
    -------
    ndarray of int
        The positions of the constant columns.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = warn_constant_inputs("RandomTSRegressor", X, ["speed", "gear"])
    >>> print(caught[0].message)
    Input 'gear' of RandomTSRegressor is 1 in every one of the 3 training rows: the model cannot learn its effect, so no rule tests it and no equation uses it (predictions do not depend on it; predict warns where it takes another value). Leave it out, or fit on rows where it varies.
    """
    constant = constant_columns(X)
    if constant.size == 0:
        return constant
    shown = [
        (repr(str(names[k])) if names is not None else f"x{k + 1} (column {k})", X[0, k])
        for k in constant
    ]
    if len(shown) == 1:
        label, value = shown[0]
        message = (
            f"Input {label} of {owner} is {value:.6g} in every one of the {X.shape[0]} "
            f"{rows}: the model cannot learn its effect, so no rule tests it and no "
            "equation uses it (predictions do not depend on it; predict warns where it takes "
            "another value). Leave it out, or fit on rows where it varies."
        )
    else:
        listed = ", ".join(f"{label} is {value:.6g}" for label, value in shown)
        message = (
            f"Inputs of {owner} are constant in every one of the {X.shape[0]} {rows} "
            f"({listed}): the model cannot learn their effect, so no rule tests them and no "
            "equation uses them (predictions do not depend on them; predict warns where one "
            "takes another value). Leave them out, or fit on rows where they vary."
        )
    warnings.warn(message, ConstantInputWarning, stacklevel=stacklevel + 1)
    return constant


def output_names(y):
    """Names of the targets from a pandas Series or DataFrame, if any.

    Examples
    --------
    >>> import pandas as pd
    >>> output_names(pd.Series([1.0, 2.0], name="price")), output_names([1.0, 2.0])
    (['price'], None)
    """
    columns = getattr(y, "columns", None)
    if columns is not None:
        names = [str(c) for c in columns]
    elif getattr(y, "name", None) is not None and hasattr(y, "to_numpy"):
        names = [str(y.name)]
    else:
        return None
    if len(set(names)) != len(names) or not all(n.strip() for n in names):
        return None
    return names
