"""Variables of a fuzzy system: inputs with named membership terms, outputs with consequent terms."""

from __future__ import annotations

import math

import numpy as np

from randomts.fuzzy.norms import NORMS
from randomts.fuzzy.terms import Constant, Linear, Term

__all__ = ["InputVariable", "OutputVariable", "variable_ranges", "declared_ranges"]


def _check_range(value, owner):
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise TypeError(
            f"The range of {owner} must be a pair (low, high); got {value!r}."
        ) from None
    if math.isnan(low) or math.isnan(high) or low > high:
        raise ValueError(f"The range of {owner} must be low <= high; got {value!r}.")
    return (low, high)


def _check_terms(terms, owner, allowed):
    items = list(terms.items()) if isinstance(terms, dict) else list(terms)
    out = {}
    for item in items:
        try:
            name, term = item
        except (TypeError, ValueError):
            raise TypeError(
                f"The terms of {owner} must be name -> Term pairs; got {item!r}."
            ) from None
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"A term name of {owner} must be a non-empty str; got {name!r}.")
        if not isinstance(term, allowed):
            kinds = (
                " or ".join(a.__name__ for a in allowed)
                if isinstance(allowed, tuple)
                else (allowed.__name__)
            )
            raise TypeError(f"Term {name!r} of {owner} must be a {kinds}; got {term!r}.")
        if name in out:
            raise ValueError(f"{owner} has two terms named {name!r}.")
        out[name] = term
    return out


class _Variable:
    _fields: tuple = ()

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return all(_same(getattr(self, f), getattr(other, f)) for f in self._fields)

    __hash__ = None

    def __repr__(self):
        return (
            f"{type(self).__name__}({self.name!r}, terms=[{', '.join(map(repr, self.terms))}], "
            f"range={self.range!r})"
        )


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


class InputVariable(_Variable):
    """An input: a name, named membership-function terms and a range.

    Parameters
    ----------
    name : str
    terms : dict of str -> Term, or sequence of (name, Term)
        Input terms of :mod:`randomts.fuzzy.terms` (not Constant or Linear).
    range : (float, float)
        The nominal range ``low <= high``.
    lock_range : bool, default False
        Clip inputs to the range before evaluating (fuzzylite's ``lock-range``).

    Examples
    --------
    >>> from randomts.fuzzy.terms import Triangle
    >>> x = InputVariable("x", {"low": Triangle(0, 0, 1)}, range=(0, 1))
    >>> x
    InputVariable('x', terms=['low'], range=(0.0, 1.0))
    """

    _fields = ("name", "terms", "range", "lock_range")

    def __init__(self, name, terms, range, *, lock_range=False):
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"A variable's name must be a non-empty str; got {name!r}.")
        self.name = name
        owner = f"input {name!r}"
        input_terms = tuple(t for t in Term.__subclasses__() if t not in (Constant, Linear))
        self.terms = _check_terms(terms, owner, input_terms)
        self.range = _check_range(range, owner)
        self.lock_range = bool(lock_range)


class OutputVariable(_Variable):
    """An output: a name, named Constant or Linear terms, a range and how rules combine.

    Parameters
    ----------
    name : str
    terms : dict of str -> Constant or Linear, or sequence of (name, term)
    range : (float, float)
    defuzzifier : {"wtaver", "wtsum"}, default "wtaver"
        Weighted average or weighted sum of the concluded terms.
    aggregation : str, default "sum"
        The S-norm that combines the degrees of rules concluding the same
        term (a name of ``NORMS``).
    default : float, default nan
        The output where no rule fires (fuzzylite's ``default``); without
        it, NaN for ``wtaver`` and 0 for ``wtsum``.
    lock_range : bool, default False
        Clip the output to the range (fuzzylite's ``lock-range``).

    Examples
    --------
    >>> from randomts.fuzzy.terms import Constant
    >>> OutputVariable("y", {"a": Constant(1.0)}, range=(0, 1)).defuzzifier
    'wtaver'
    """

    _fields = ("name", "terms", "range", "defuzzifier", "aggregation", "default", "lock_range")

    def __init__(
        self,
        name,
        terms,
        range,
        *,
        defuzzifier="wtaver",
        aggregation="sum",
        default=float("nan"),
        lock_range=False,
    ):
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"A variable's name must be a non-empty str; got {name!r}.")
        self.name = name
        owner = f"output {name!r}"
        self.terms = _check_terms(terms, owner, (Constant, Linear))
        self.range = _check_range(range, owner)
        if defuzzifier not in ("wtaver", "wtsum"):
            raise ValueError(
                f"The 'defuzzifier' of {owner} must be 'wtaver' or 'wtsum'; got {defuzzifier!r}."
            )
        if aggregation not in NORMS:
            raise ValueError(
                f"The 'aggregation' of {owner} must be one of {sorted(NORMS)}; got {aggregation!r}."
            )
        self.defuzzifier, self.aggregation = defuzzifier, aggregation
        self.default = float(default)
        if math.isinf(self.default):
            raise ValueError(f"The 'default' of {owner} must be finite or NaN; got {default!r}.")
        self.lock_range = bool(lock_range)


# ---------------------------------------------------------------- ranges
def variable_ranges(rule_base):
    """Ranges of the inputs and outputs, for formats that declare them.

    The recorded ranges (:attr:`RuleBase.input_range`, :attr:`RuleBase.output_range`:
    the training data's, or those read from a file) when the rule base has
    them. Otherwise, inputs: every centre plus and minus three widths;
    outputs: the span of the rules' consequents at their own centres. A range
    that is one point (a constant variable) is widened, as MATLAB requires
    ``low < high``: an input's to also cover every centre plus and minus three
    widths, an output's by 1 on each side. Ranges never change outputs.

    Returns
    -------
    inputs : ndarray of shape (n_features, 2)
    outputs : ndarray of shape (n_outputs, 2)

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
    >>> variable_ranges(rb)
    (array([[-3.,  3.]]), array([[1., 3.]]))
    >>> variable_ranges(rb.replace(input_range=[[-0.5, 1.0]]))[0]
    array([[-0.5,  1. ]])
    """
    centers, sigmas = rule_base.centers, rule_base.sigmas
    spans = np.stack(
        [(centers - 3 * sigmas).min(axis=0), (centers + 3 * sigmas).max(axis=0)], axis=1
    )
    inputs = spans if rule_base.input_range is None else rule_base.input_range.copy()
    flat = inputs[:, 0] == inputs[:, 1]  # a constant input: MATLAB wants low < high
    inputs[flat] = np.stack(
        [np.minimum(inputs[flat, 0], spans[flat, 0]), np.maximum(inputs[flat, 1], spans[flat, 1])],
        axis=1,
    )
    outputs = rule_base.output_range
    if outputs is None:
        at_centers = np.einsum("imk,ik->im", rule_base.coef, centers) + rule_base.intercept
        outputs = np.stack([at_centers.min(axis=0), at_centers.max(axis=0)], axis=1)
    else:
        outputs = outputs.copy()
    flat = outputs[:, 0] == outputs[:, 1]
    outputs[flat] += [-1.0, 1.0]
    return inputs, outputs


def declared_ranges(values):
    """A list of ``[low, high]`` pairs read from a file, as a (n, 2) array, or None.

    None unless every pair is finite with ``low <= high``: such ranges are
    kept as the rule base's recorded ranges, others are not.

    Examples
    --------
    >>> declared_ranges([[0.0, 1.0], [-2.0, 2.0]]).shape
    (2, 2)
    >>> declared_ranges([[0.0, float("inf")]]) is None
    True
    """
    return _recorded_range(values, len(values))


def _recorded_range(value, count):
    """``value`` as a (count, 2) array of finite low <= high pairs, or None if it is not one."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if (
        array.shape != (count, 2)
        or not np.all(np.isfinite(array))
        or np.any(array[:, 0] > array[:, 1])
    ):
        return None
    return array
