"""Norms and hedges of a fuzzy system: small functions over arrays of degrees.

Norms (``conjunction``, ``disjunction``, ``aggregation``) fold left to right
over their operands: ``min``, ``prod``, ``bounded_difference``,
``drastic_product``, ``einstein_product``, ``hamacher_product``,
``nilpotent_minimum``, ``max``, ``probor``, ``bounded_sum``, ``drastic_sum``,
``einstein_sum``, ``hamacher_sum``, ``nilpotent_maximum``, ``normalized_sum``
and ``sum``. Hedges (fuzzylite's) modify a degree ``m``: ``not`` (1 - m),
``very`` (m^2), ``somewhat`` (sqrt m), ``seldom``, ``extremely``, ``any``
(always 1); a float ``p`` is the power ``m^p``.

Examples
--------
>>> import numpy as np
>>> fold("prod", [np.array([0.5]), np.array([0.5])])
array([0.25])
>>> apply_hedges(check_hedges("not very"), np.array([0.5]))
array([0.75])
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["NORMS", "HEDGES", "fold", "apply_hedges", "check_hedges"]


def _drastic_product(a, b):
    return np.where(np.maximum(a, b) == 1.0, np.minimum(a, b), 0.0)


def _drastic_sum(a, b):
    return np.where(np.minimum(a, b) == 0.0, np.maximum(a, b), 1.0)


def _hamacher_product(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a + b != 0.0, (a * b) / (a + b - a * b), 0.0)


def _hamacher_sum(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(a * b != 1.0, (a + b - 2.0 * a * b) / (1.0 - a * b), 1.0)


#: Binary norms by name; a norm of several operands folds from the left.
NORMS = {
    "min": np.minimum,
    "prod": lambda a, b: a * b,
    "bounded_difference": lambda a, b: np.maximum(0.0, a + b - 1.0),
    "drastic_product": _drastic_product,
    "einstein_product": lambda a, b: (a * b) / (2.0 - (a + b - a * b)),
    "hamacher_product": _hamacher_product,
    "nilpotent_minimum": lambda a, b: np.where(a + b > 1.0, np.minimum(a, b), 0.0),
    "max": np.maximum,
    "probor": lambda a, b: a + b - a * b,
    "bounded_sum": lambda a, b: np.minimum(1.0, a + b),
    "drastic_sum": _drastic_sum,
    "einstein_sum": lambda a, b: (a + b) / (1.0 + a * b),
    "hamacher_sum": _hamacher_sum,
    "nilpotent_maximum": lambda a, b: np.where(a + b < 1.0, np.maximum(a, b), 1.0),
    "normalized_sum": lambda a, b: (a + b) / np.maximum(1.0, a + b),
    "sum": lambda a, b: a + b,
}


def fold(name, values):
    """The norm ``name`` folded from the left over ``values`` (arrays of degrees)."""
    norm = NORMS[name]
    result = values[0]
    for value in values[1:]:
        result = norm(result, value)
    return result


# ---------------------------------------------------------------------- hedges


def _seldom(x):
    return np.where(x <= 0.5, np.sqrt(0.5 * x), 1.0 - np.sqrt(0.5 * (1.0 - x)))


def _extremely(x):
    return np.where(x <= 0.5, 2.0 * x**2, 1.0 - 2.0 * (1.0 - x) ** 2)


#: Named hedges (fuzzylite's); a float ``p`` is the power ``m^p``.
HEDGES = {
    "not": lambda x: 1.0 - x,
    "very": np.square,
    "somewhat": np.sqrt,
    "seldom": _seldom,
    "extremely": _extremely,
    "any": np.ones_like,
}
_CANONICAL_POWERS = {2.0: "very", 0.5: "somewhat"}


def apply_hedges(hedges, values):
    """``values`` modified by ``hedges``, innermost (last) first."""
    for hedge in reversed(hedges):
        values = HEDGES[hedge](values) if isinstance(hedge, str) else np.power(values, hedge)
    return values


def check_hedges(hedges):
    """``hedges`` (names or one final power, or a str of names) as a tuple, checked."""
    if isinstance(hedges, str):
        hedges = hedges.split()
    out = []
    for k, hedge in enumerate(hedges):
        if isinstance(hedge, str):
            if hedge not in HEDGES:
                raise ValueError(
                    f"Unknown hedge {hedge!r}; hedges are {', '.join(HEDGES)} or a power > 0."
                )
            out.append(hedge)
            continue
        if isinstance(hedge, bool) or not isinstance(hedge, (int, float, np.floating)):
            raise TypeError(f"A hedge is a name or a number; got {hedge!r}.")
        power = float(hedge)
        if not (math.isfinite(power) and power > 0):
            raise ValueError(f"A power hedge must be finite and > 0; got {power!r}.")
        if k != len(hedges) - 1:
            raise ValueError("A power hedge applies to the term itself: it must come last.")
        out.append(_CANONICAL_POWERS.get(power, power))
    if "any" in out[:-1]:
        raise ValueError("The hedge 'any' must come last (it replaces the term).")
    return tuple(out)
