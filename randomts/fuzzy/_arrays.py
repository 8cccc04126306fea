"""The arrays of a rule base: checked when they come from outside, taken as they are from a fit.

The constructor of :class:`~randomts.RuleBase` checks its arrays, names and
recorded ranges here (every message names the parameter); the rule bases a
fit builds from arrays it computed skip the checks of the arrays
(``check_input=False``). Arrays are stored read-only.
"""

from __future__ import annotations

import numpy as np

from randomts._validation import (
    check_int,
    check_matrix,
)
from randomts.core import membership as _membership

__all__ = ["check_names", "check_range", "checked_arrays", "frozen", "trusted_arrays"]


def frozen(array) -> np.ndarray:
    array = np.array(array, dtype=float, copy=True, order="C")
    array.setflags(write=False)
    return array


def check_names(names, count, default_stem, what):
    if names is None:
        if count == 1 and what == "output_names":
            return ("y",)
        return tuple(f"{default_stem}{k + 1}" for k in range(count))
    if isinstance(names, str):
        names = [names]
    names = tuple(names)
    if len(names) != count:
        raise ValueError(
            f"The {what!r} parameter must hold {count} names; got {len(names)}: {names!r}."
        )
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"The {what!r} parameter must hold non-empty strings; got {name!r}.")
    if len(set(names)) != len(names):
        raise ValueError(f"The {what!r} parameter must hold distinct names; got {names!r}.")
    return tuple(str(name) for name in names)


def check_range(value, count, what):
    """``value`` as a read-only (count, 2) array of finite ``[low, high]`` rows, or None."""
    if value is None:
        return None
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"The {what!r} parameter of RuleBase must be [low, high] pairs of numbers; "
            f"got {value!r}."
        ) from None
    if array.shape != (count, 2):
        raise ValueError(
            f"The {what!r} parameter of RuleBase must have shape ({count}, 2), one [low, high] "
            f"per variable; got shape {array.shape}."
        )
    if not np.all(np.isfinite(array)) or np.any(array[:, 0] > array[:, 1]):
        bad = int(np.flatnonzero(~np.isfinite(array).all(axis=1) | (array[:, 0] > array[:, 1]))[0])
        raise ValueError(
            f"The {what!r} parameter of RuleBase must hold finite pairs with low <= high; "
            f"got {array[bad].tolist()} for variable {bad}."
        )
    return frozen(array)


def checked_arrays(centers, sigmas, coef, intercept, n_outputs, normalize):
    """The arrays of a rule base checked, ``(centers, sigmas, coef, intercept, n_outputs)``."""
    owner = "RuleBase"
    centers = check_matrix(centers, "centers", row_label="rule(s)", owner=owner)
    n_rules, n_features = centers.shape
    sigmas = check_matrix(sigmas, "sigmas", owner=owner)
    if sigmas.shape != centers.shape:
        raise ValueError(
            f"sigmas must have the shape of centers, (n_rules, n_features) = {centers.shape}; "
            f"got {sigmas.shape}."
        )
    too_small = ~(sigmas >= _membership.SMALLEST_WIDTH)
    if np.any(too_small):
        i, k = np.argwhere(too_small)[0]
        raise ValueError(
            f"sigmas must all be > 0 and normal floats (>= {_membership.SMALLEST_WIDTH!r}, so that "
            f"1 / sigma is finite); got sigmas[{i}, {k}] = {float(sigmas[i, k])!r} "
            f"(rule {i}, input {k})."
        )
    if n_outputs is None:
        if intercept is not None:
            n_outputs = np.shape(intercept)[-1] if np.ndim(intercept) == 2 else 1
        elif coef is not None and np.ndim(coef) == 3:
            n_outputs = np.shape(coef)[1]
        else:
            n_outputs = 1
    n_outputs = check_int(n_outputs, "n_outputs", low=1, owner=owner)
    if coef is None:
        coef = np.zeros((n_rules, n_outputs, n_features))
    else:
        coef = check_matrix(coef, "coef", ndim=3, owner=owner, column_label="features")
        if coef.shape != (n_rules, n_outputs, n_features):
            raise ValueError(
                "coef must have shape (n_rules, n_outputs, n_features) = "
                f"{(n_rules, n_outputs, n_features)}; got {coef.shape}."
            )
    if intercept is None:
        intercept = np.zeros((n_rules, n_outputs))
    else:
        intercept = check_matrix(intercept, "intercept", owner=owner, column_label="outputs")
        if intercept.shape != (n_rules, n_outputs):
            raise ValueError(
                f"intercept must have shape (n_rules, n_outputs) = {(n_rules, n_outputs)}; "
                f"got {intercept.shape}."
            )
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(
            f"The 'normalize' parameter of RuleBase must be a bool. Got {normalize!r} instead."
        )
    return centers, sigmas, coef, intercept, n_outputs


def trusted_arrays(centers, sigmas, coef, intercept, n_outputs):
    """:func:`checked_arrays` of arrays that randomts made: conversions only."""
    centers, sigmas = np.asarray(centers, dtype=float), np.asarray(sigmas, dtype=float)
    n_rules, n_features = centers.shape
    if n_outputs is None:
        n_outputs = (
            np.shape(intercept)[1]
            if intercept is not None
            else (np.shape(coef)[1] if coef is not None else 1)
        )
    coef = np.zeros((n_rules, n_outputs, n_features)) if coef is None else coef
    intercept = np.zeros((n_rules, n_outputs)) if intercept is None else intercept
    return centers, sigmas, np.asarray(coef, float), np.asarray(intercept, float), n_outputs
