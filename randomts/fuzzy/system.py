"""A general Takagi-Sugeno fuzzy system: named variables and terms, rules that name them.

:class:`FuzzySystem` holds what a MATLAB/Octave ``.fis`` or a fuzzylite ``.fll``
Sugeno system holds: input variables with named membership-function terms
(:mod:`randomts.fuzzy.terms`) and ranges, output variables with constant or linear
terms, and rules such as ::

    if service is poor or food is very rancid then tip is cheap with 0.5

An antecedent joins propositions with ``and`` (the ``conjunction`` norm) and
``or`` (the ``disjunction`` norm); ``and`` binds tighter than ``or`` and
parentheses group. A rule need not use every input (MATLAB's index 0) and a
proposition may carry hedges: ``not`` (1 - m), ``very`` (m^2), ``somewhat``
(sqrt m), ``seldom``, ``extremely`` (fuzzylite's), ``any`` (always 1, no term)
and a numeric power ``Term^p`` (GNU Octave's fractional rule indices: ``1.3``
is ``m^3``). Hedges apply from the term outwards: ``not very A`` is
``1 - A^2``.

Inference, for every row ``x`` of ``X``:

1. A rule's degree ``w`` is its weight times its antecedent's value.
2. A rule with ``w > 0`` concludes each of its output propositions with the
   degree ``w`` modified by that proposition's own hedges (fuzzylite
   ``then y is very T`` gives ``w^2``; Octave's consequent index ``1.2``
   gives ``w^(1/2)``). A rule with ``w = 0`` concludes nothing.
3. For each output, the degrees of rules that conclude the same term are
   combined by the output's ``aggregation`` S-norm (``"sum"`` by default).
   GNU Octave and pyfuzzylite 8 do this; MATLAB ignores ``AggMethod`` in Sugeno
   systems, which equals ``"sum"``.
4. ``wtsum``: ``y = sum_T d_T z_T(x)``; ``wtaver``: the same divided by
   ``sum_T d_T``. Where no rule fires a weighted average is undefined: the
   output is NaN (or the output's ``default``) and a
   :class:`~randomts.exceptions.NoRuleFiredWarning` is issued. A weighted
   sum is then 0, the empty sum, as in GNU Octave (pyfuzzylite 8 returns NaN
   there), or the output's ``default`` if it has one.

Hedges are defined on [0, 1]; a degree outside it (an unbounded ``sum``
norm, weights or heights above 1) can make a hedge undefined: that rule then
concludes nothing for that output, as in fuzzylite, with an
:class:`~randomts.exceptions.UndefinedDegreeWarning`.

Norms (``conjunction``, ``disjunction``, ``aggregation``) fold left to right
over their operands: ``min``, ``prod``, ``bounded_difference``,
``drastic_product``, ``einstein_product``, ``hamacher_product``,
``nilpotent_minimum``, ``max``, ``probor``, ``bounded_sum``, ``drastic_sum``,
``einstein_sum``, ``hamacher_sum``, ``nilpotent_maximum``, ``normalized_sum``
and ``sum``. (GNU Octave's drastic norms treat a rule of one proposition, or
more than two, other than this fold does; MATLAB and fuzzylite fold.)

:class:`~randomts.RuleBase` is the fast special case (a Gaussian on every
input, product, one consequent per rule): :meth:`FuzzySystem.from_rule_base`
and :meth:`FuzzySystem.to_rule_base` convert without loss.

Examples
--------
>>> import numpy as np
>>> from randomts import FuzzySystem
>>> from randomts.fuzzy.terms import Constant, Linear, Trapezoid
>>> system = FuzzySystem(
...     inputs=[InputVariable("food", {"bad": Trapezoid(0, 0, 3, 7),
...                                    "good": Trapezoid(3, 7, 10, 10)}, range=(0, 10))],
...     outputs=[OutputVariable("tip", {"low": Constant(10.0),
...                                     "high": Linear([1.0], 10.0)}, range=(10, 20))],
...     rules=["if food is bad then tip is low", "if food is good then tip is high"],
... )
>>> system.predict([[2.0], [5.0], [9.0]])
array([[10. ],
       [12.5],
       [19. ]])
"""

from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import dataclass

import numpy as np

from randomts._validation import check_matrix
from randomts.exceptions import NoRuleFiredWarning, UndefinedDegreeWarning
from randomts.fuzzy.terms import Constant, Gaussian, Linear, Term

__all__ = [
    "FuzzySystem",
    "InputVariable",
    "OutputVariable",
    "Proposition",
    "Connective",
    "Rule",
    "parse_rule",
    "NORMS",
    "HEDGES",
]


# ----------------------------------------------------------------------- norms


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


def _fold(name, values):
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
_KEYWORDS = {"if", "then", "is", "and", "or", "with", *HEDGES}


def _apply_hedges(hedges, values):
    for hedge in reversed(hedges):
        values = HEDGES[hedge](values) if isinstance(hedge, str) else np.power(values, hedge)
    return values


def _check_hedges(hedges):
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


# ----------------------------------------------------------------------- rules


def _name_text(name):
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]*", name) and name.lower() not in _KEYWORDS:
        return name
    return json.dumps(name, ensure_ascii=False)


def _power_text(power, precision):
    from randomts.text.rules import format_number

    return "^" + format_number(power, precision)


@dataclass(frozen=True)
class Proposition:
    """``variable is [hedges] term``: one clause of a rule.

    Parameters
    ----------
    variable : str
        The variable's name.
    term : str or None
        The term's name; None only with the hedge ``any``.
    hedges : tuple, default ()
        Hedge names (outermost first) and, last, an optional power.

    Examples
    --------
    >>> Proposition("food", "bad", ("not", "very")).to_text()
    'food is not very bad'
    >>> Proposition("x", "Low", (3.0,)).to_text()
    'x is Low^3.0'
    """

    variable: str
    term: str | None
    hedges: tuple = ()

    def __post_init__(self):
        if not isinstance(self.variable, str) or not self.variable:
            raise TypeError(
                f"A proposition's variable must be a non-empty str; got {self.variable!r}."
            )
        hedges = _check_hedges(self.hedges)
        object.__setattr__(self, "hedges", hedges)
        if hedges and hedges[-1] == "any":
            if self.term is not None:
                raise ValueError(f"'{self.variable} is any' takes no term; got {self.term!r}.")
        elif not isinstance(self.term, str) or not self.term:
            raise TypeError(
                f"The proposition on {self.variable!r} needs a term name; got {self.term!r}."
            )

    def to_text(self, precision=None) -> str:
        """The proposition as rule text."""
        words = [_name_text(self.variable), "is"]
        power = ""
        for hedge in self.hedges:
            if isinstance(hedge, str):
                words.append(hedge)
            else:
                power = _power_text(hedge, precision)
        if self.term is not None:
            words.append(_name_text(self.term) + power)
        return " ".join(words)


@dataclass(frozen=True)
class Connective:
    """Operands joined by ``and`` or ``or`` (nested connectives of the same kind are flattened).

    Examples
    --------
    >>> a, b, c = (Proposition(v, "T") for v in "abc")
    >>> Connective("or", (a, Connective("and", (b, c)))).to_text()
    'a is T or b is T and c is T'
    >>> Connective("and", (Connective("or", (a, b)), c)).to_text()
    '(a is T or b is T) and c is T'
    """

    operator: str
    operands: tuple

    def __post_init__(self):
        if self.operator not in ("and", "or"):
            raise ValueError(f"A connective is 'and' or 'or'; got {self.operator!r}.")
        flat = []
        for operand in self.operands:
            if not isinstance(operand, (Proposition, Connective)):
                raise TypeError(f"An operand must be a Proposition or Connective; got {operand!r}.")
            if isinstance(operand, Connective) and operand.operator == self.operator:
                flat.extend(operand.operands)
            else:
                flat.append(operand)
        if len(flat) < 2:
            raise ValueError(f"'{self.operator}' needs at least two operands; got {len(flat)}.")
        object.__setattr__(self, "operands", tuple(flat))

    def to_text(self, precision=None) -> str:
        """The expression as rule text, with parentheses only where needed."""
        parts = []
        for operand in self.operands:
            text = operand.to_text(precision)
            if isinstance(operand, Connective) and self.operator == "and":
                text = f"({text})"
            parts.append(text)
        return f" {self.operator} ".join(parts)


def _power_of(proposition):
    """The largest power (at least 1) that a proposition's hedges raise a degree to."""
    powers = [h for h in proposition.hedges if not isinstance(h, str)]
    powers += [2.0 for h in proposition.hedges if h == "very"]
    return max([1.0, *powers])


def _propositions(node):
    if isinstance(node, Proposition):
        return [node]
    return [p for operand in node.operands for p in _propositions(operand)]


@dataclass(frozen=True)
class Rule:
    """``if antecedent then consequent [with weight]``.

    Parameters
    ----------
    antecedent : Proposition or Connective
    consequent : tuple of Proposition
        One proposition per concluded output (each output at most once).
    weight : float, default 1.0
        Multiplies the antecedent's value; finite and >= 0.

    Examples
    --------
    >>> rule = parse_rule("if x is A and y is not B then z is C with 0.5")
    >>> rule.weight, rule.to_text()
    (0.5, 'if x is A and y is not B then z is C with 0.5')
    """

    antecedent: Proposition | Connective
    consequent: tuple
    weight: float = 1.0

    def __post_init__(self):
        if not isinstance(self.antecedent, (Proposition, Connective)):
            raise TypeError(
                f"A rule's antecedent must be a Proposition or Connective; got {self.antecedent!r}."
            )
        consequent = tuple(self.consequent)
        if not consequent or not all(isinstance(p, Proposition) for p in consequent):
            raise ValueError("A rule's consequent must be one or more Propositions.")
        names = [p.variable for p in consequent]
        if len(set(names)) != len(names):
            raise ValueError(f"A rule concludes each output at most once; got {names}.")
        if any(p.term is None for p in consequent):
            raise ValueError("A conclusion needs a term ('any' concludes nothing).")
        weight = float(self.weight)
        if not (math.isfinite(weight) and weight >= 0):
            raise ValueError(f"A rule's weight must be finite and >= 0; got {self.weight!r}.")
        object.__setattr__(self, "consequent", consequent)
        object.__setattr__(self, "weight", weight)

    def to_text(self, precision=None) -> str:
        """The rule in fuzzylite's syntax (names quoted as JSON when they are not plain)."""
        from randomts.text.rules import format_number

        text = f"if {self.antecedent.to_text(precision)} then " + " and ".join(
            p.to_text(precision) for p in self.consequent
        )
        if self.weight != 1.0:
            text += f" with {format_number(self.weight, precision)}"
        return text


_TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"(?:\^[^\s()]+)?|\(|\)|[^\s()]+)')
_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")
# Deepest nesting of parentheses a rule may have (the parser and evaluation recurse on it).
_MAX_NESTING = 64


class _Tokens:
    def __init__(self, text):
        self.items, position = [], 0
        text = text.rstrip()
        while position < len(text):
            match = _TOKEN.match(text, position)
            if not match:
                raise ValueError(f"cannot read the rule from {text[position : position + 20]!r}")
            self.items.append(match.group(1))
            position = match.end()
        self.index = 0
        self.depth = 0  # of open parentheses

    def peek(self):
        return self.items[self.index] if self.index < len(self.items) else None

    def word(self):
        token = self.peek()
        return token.lower() if token is not None and not token.startswith('"') else token

    def take(self, what):
        token = self.peek()
        if token is None:
            raise ValueError(f"the rule ends where {what} was expected")
        self.index += 1
        return token

    def expect(self, keyword):
        token = self.take(f"'{keyword}'")
        if token.lower() != keyword:
            raise ValueError(f"expected '{keyword}', found {token!r}")


def _name(token, what):
    if token.startswith('"'):
        try:
            value = json.loads(token)
        except ValueError:
            raise ValueError(f"{what} {token!r} is not a valid quoted name") from None
        return value
    if token.lower() in _KEYWORDS or token in ("(", ")"):
        raise ValueError(f"expected {what}, found {token!r}")
    return token


def _term_and_power(token):
    power = None
    if token.startswith('"'):
        end = token.rfind('"')
        name_token, rest = token[: end + 1], token[end + 1 :]
    else:
        name_token, _, rest = token.rpartition("^") if "^" in token else (token, "", "")
        rest = "^" + rest if rest else ""
    if rest:
        if not _NUMBER.match(rest[1:]):
            raise ValueError(f"the power after '^' in {token!r} is not a number")
        power = float(rest[1:])
    return _name(name_token, "a term name"), power


def _proposition(tokens):
    variable = _name(tokens.take("a variable name"), "a variable name")
    tokens.expect("is")
    hedges = []
    while tokens.word() in HEDGES:
        hedge = tokens.take("a hedge").lower()
        hedges.append(hedge)
        if hedge == "any":
            return Proposition(variable, None, tuple(hedges))
    term, power = _term_and_power(tokens.take("a term name"))
    if power is not None:
        hedges.append(power)
    return Proposition(variable, term, tuple(hedges))


def _expression(tokens):
    operands = [_conjunction(tokens)]
    while tokens.word() == "or":
        tokens.take("'or'")
        operands.append(_conjunction(tokens))
    return operands[0] if len(operands) == 1 else Connective("or", tuple(operands))


def _conjunction(tokens):
    operands = [_factor(tokens)]
    while tokens.word() == "and":
        tokens.take("'and'")
        operands.append(_factor(tokens))
    return operands[0] if len(operands) == 1 else Connective("and", tuple(operands))


def _factor(tokens):
    if tokens.peek() == "(":
        tokens.take("'('")
        tokens.depth += 1
        if tokens.depth > _MAX_NESTING:
            raise ValueError(f"the rule nests parentheses more than {_MAX_NESTING} deep")
        node = _expression(tokens)
        if tokens.take("')'") != ")":
            raise ValueError("expected ')'")
        tokens.depth -= 1
        return node
    return _proposition(tokens)


def parse_rule(text) -> Rule:
    """Read a rule written in fuzzylite's syntax: ``if <antecedent> then <conclusions> with <w>``.

    Keywords are case-insensitive; names that are not plain words are written
    as JSON strings (``"temp (C)" is high``); ``Term^p`` is a power hedge.

    Raises
    ------
    ValueError
        Naming what was expected and what was found.

    Examples
    --------
    >>> parse_rule("IF x is A OR (y is B AND z is any) THEN out is very T").to_text()
    'if x is A or y is B and z is any then out is very T'
    >>> parse_rule("if x is A then")
    Traceback (most recent call last):
    ...
    ValueError: the rule ends where a variable name was expected
    """
    if not isinstance(text, str):
        raise TypeError(f"A rule must be a str; got {type(text).__name__}.")
    tokens = _Tokens(text)
    tokens.expect("if")
    antecedent = _expression(tokens)
    tokens.expect("then")
    consequent = [_proposition(tokens)]
    while tokens.word() == "and":
        tokens.take("'and'")
        consequent.append(_proposition(tokens))
    weight = 1.0
    if tokens.word() == "with":
        tokens.take("'with'")
        token = tokens.take("a weight")
        if not _NUMBER.match(token):
            raise ValueError(f"the weight {token!r} is not a number")
        weight = float(token)
    if tokens.peek() is not None:
        raise ValueError(f"unexpected {tokens.peek()!r} after the rule")
    return Rule(antecedent, tuple(consequent), weight)


# ------------------------------------------------------------------- variables


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


# ---------------------------------------------------------------------- system


class FuzzySystem:
    """A Takagi-Sugeno fuzzy inference system with arbitrary terms, rules and norms.

    Parameters
    ----------
    inputs : sequence of InputVariable
    outputs : sequence of OutputVariable
    rules : sequence of Rule or str
        Strings are read with ``parse_rule``.
    conjunction : str, default "prod"
        The norm of ``and`` (a name of ``NORMS``).
    disjunction : str, default "probor"
        The norm of ``or``.
    name : str, default "fuzzy_system"
    metadata : dict, optional
        Provenance (kept by JSON files; not compared by ``==``).

    Attributes
    ----------
    n_features, n_outputs, n_rules : int
    input_names, output_names : tuple of str

    Examples
    --------
    >>> from randomts.fuzzy.terms import Constant, Gaussian
    >>> system = FuzzySystem(
    ...     [InputVariable("x", {"low": Gaussian(0.0, 1.0), "high": Gaussian(2.0, 1.0)},
    ...                    range=(-1, 3))],
    ...     [OutputVariable("y", {"a": Constant(0.0), "b": Constant(1.0)}, range=(0, 1))],
    ...     ["if x is low then y is a", "if x is high then y is b"])
    >>> system
    FuzzySystem('fuzzy_system', n_features=1, n_outputs=1, n_rules=2)
    >>> float(system.predict([[1.0]])[0, 0])
    0.5
    """

    def __init__(
        self,
        inputs,
        outputs,
        rules,
        *,
        conjunction="prod",
        disjunction="probor",
        name="fuzzy_system",
        metadata=None,
    ):
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        for variable in self.inputs:
            if not isinstance(variable, InputVariable):
                raise TypeError(f"inputs must hold InputVariables; got {variable!r}.")
        for variable in self.outputs:
            if not isinstance(variable, OutputVariable):
                raise TypeError(f"outputs must hold OutputVariables; got {variable!r}.")
        if not self.inputs or not self.outputs:
            raise ValueError("A FuzzySystem needs at least one input and one output.")
        names = [v.name for v in self.inputs + self.outputs]
        if len(set(names)) != len(names):
            raise ValueError(f"Variable names must be distinct; got {names}.")
        for key, value in (("conjunction", conjunction), ("disjunction", disjunction)):
            if value not in NORMS:
                raise ValueError(
                    f"The {key!r} parameter must be one of {sorted(NORMS)}; got {value!r}."
                )
        self.conjunction, self.disjunction = conjunction, disjunction
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"The 'name' parameter must be a non-empty str; got {name!r}.")
        self.name = name
        self.metadata = dict(metadata or {})
        self._input_index = {v.name: k for k, v in enumerate(self.inputs)}
        self._output_index = {v.name: m for m, v in enumerate(self.outputs)}
        checked = []
        for k, rule in enumerate(rules, start=1):
            try:
                rule = parse_rule(rule) if isinstance(rule, str) else rule
                if not isinstance(rule, Rule):
                    raise TypeError(f"expected a Rule or a str, got {type(rule).__name__}")
                self._check_rule(rule)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"Rule {k}: {exc}") from None
            checked.append(rule)
        if not checked:
            raise ValueError("A FuzzySystem needs at least one rule.")
        self.rules = tuple(checked)
        n = self.n_features
        for variable in self.outputs:
            for term_name, term in variable.terms.items():
                if isinstance(term, Linear) and len(term.coefficients) != n:
                    raise ValueError(
                        f"Term {term_name!r} of output {variable.name!r} has "
                        f"{len(term.coefficients)} coefficients; the system has {n} inputs."
                    )

    def _check_rule(self, rule):
        for proposition in _propositions(rule.antecedent):
            if proposition.variable not in self._input_index:
                raise ValueError(f"{proposition.variable!r} is not an input variable")
            variable = self.inputs[self._input_index[proposition.variable]]
            if proposition.term is not None and proposition.term not in variable.terms:
                raise ValueError(f"input {variable.name!r} has no term {proposition.term!r}")
        for proposition in rule.consequent:
            if proposition.variable not in self._output_index:
                raise ValueError(f"{proposition.variable!r} is not an output variable")
            variable = self.outputs[self._output_index[proposition.variable]]
            if proposition.term not in variable.terms:
                raise ValueError(f"output {variable.name!r} has no term {proposition.term!r}")

    # --------------------------------------------------------------- sizes
    @property
    def n_features(self) -> int:
        """Number of inputs."""
        return len(self.inputs)

    @property
    def n_outputs(self) -> int:
        """Number of outputs."""
        return len(self.outputs)

    @property
    def n_rules(self) -> int:
        """Number of rules."""
        return len(self.rules)

    @property
    def input_names(self) -> tuple:
        """The inputs' names, in order."""
        return tuple(v.name for v in self.inputs)

    @property
    def output_names(self) -> tuple:
        """The outputs' names, in order."""
        return tuple(v.name for v in self.outputs)

    def __len__(self) -> int:
        return self.n_rules

    def __eq__(self, other):
        if not isinstance(other, FuzzySystem):
            return NotImplemented
        return (
            self.name == other.name
            and self.inputs == other.inputs
            and self.outputs == other.outputs
            and self.rules == other.rules
            and self.conjunction == other.conjunction
            and self.disjunction == other.disjunction
        )

    __hash__ = None

    def __repr__(self) -> str:
        return (
            f"FuzzySystem({self.name!r}, n_features={self.n_features}, "
            f"n_outputs={self.n_outputs}, n_rules={self.n_rules})"
        )

    def __str__(self) -> str:
        return self.to_text()

    def replace(self, **changes) -> FuzzySystem:
        """A copy with some constructor arguments changed.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> system = FuzzySystem.from_rule_base(RuleBase.random(1, 1, 2, random_state=0))
        >>> system.replace(name="copy").name
        'copy'
        """
        arguments = {
            "inputs": self.inputs,
            "outputs": self.outputs,
            "rules": self.rules,
            "conjunction": self.conjunction,
            "disjunction": self.disjunction,
            "name": self.name,
            "metadata": self.metadata,
        }
        unknown = sorted(set(changes) - set(arguments))
        if unknown:
            raise TypeError(
                f"replace() got unknown argument(s) {unknown}; allowed: {sorted(arguments)}."
            )
        arguments.update(changes)
        inputs, outputs, rules = (arguments.pop(k) for k in ("inputs", "outputs", "rules"))
        return FuzzySystem(inputs, outputs, rules, **arguments)

    # ----------------------------------------------------------- inference
    def _check_X(self, X):
        X = check_matrix(X, n_columns=self.n_features, owner="FuzzySystem")
        locked = [k for k, variable in enumerate(self.inputs) if variable.lock_range]
        if locked:
            X = X.copy()
            for k in locked:
                X[:, k] = np.clip(X[:, k], *self.inputs[k].range)
        return X

    def _output_bounds(self):
        """Per output, an upper bound of what inference sums, and the numbers that dominate it.

        Over the finite part of the declared input ranges (an infinite end
        bounds nothing), a rule's degree is at most its weight times the
        number of its propositions times the largest term height (at least 1)
        to the sum of their powers, and a conclusion's power hedge raises it
        to that power; a term's value is at most ``|constant| + sum_k |c_k|
        max|x_k|``. The bound is the larger of the sums of ``degree * |value|``
        and of the degrees over the rules that conclude the output: ``inf``
        where that overflows. Returns a list of ``(bound, numbers)``,
        ``numbers`` being the weight and parameters of the largest
        ``degree * |value|``.
        """
        box = np.array(
            [
                max((abs(v) for v in var.range if math.isfinite(v)), default=0.0)
                for var in self.inputs
            ]
        )
        heights = [term.height for var in self.inputs for term in var.terms.values()]
        log_height = math.log(max([1.0, *heights]))
        bounds = []
        with np.errstate(over="ignore"):
            for variable in self.outputs:
                total, degrees, largest, numbers = 0.0, 0.0, -1.0, ()
                for rule in self.rules:
                    clauses = _propositions(rule.antecedent)
                    exponent = sum(_power_of(p) for p in clauses)
                    degree = rule.weight * len(clauses) * np.exp(exponent * log_height)
                    for proposition in rule.consequent:
                        if proposition.variable != variable.name:
                            continue
                        term = variable.terms[proposition.term]
                        if isinstance(term, Linear):
                            value = abs(term.constant) + float(np.abs(term.coefficients) @ box)
                        else:
                            value = abs(term.value)
                        power = _power_of(proposition)  # of the conclusion's hedges
                        concluded = degree**power if degree > 1 else degree
                        part = concluded * value
                        total, degrees = total + part, degrees + concluded
                        if not part <= largest:
                            largest, numbers = part, (rule.weight, *term.parameters)
                bounds.append((max(float(total), float(degrees)), numbers))
        return bounds

    def _firing(self, X):
        cache = {}

        def value(node):
            if isinstance(node, Proposition):
                k = self._input_index[node.variable]
                if node.term is None:
                    base = np.ones(len(X))
                else:
                    key = (k, node.term)
                    if key not in cache:
                        cache[key] = self.inputs[k].terms[node.term](X[:, k])
                    base = cache[key]
                with np.errstate(invalid="ignore"):
                    return _apply_hedges(node.hedges, base)
            norm = self.conjunction if node.operator == "and" else self.disjunction
            return _fold(norm, [value(operand) for operand in node.operands])

        return np.stack([rule.weight * value(rule.antecedent) for rule in self.rules], axis=1)

    def firing_strengths(self, X) -> np.ndarray:
        """Each rule's degree (weight times antecedent) at every row of ``X``.

        Returns
        -------
        ndarray of shape (n_samples, n_rules)

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
        >>> FuzzySystem.from_rule_base(rb).firing_strengths([[0.0], [1.0]]).round(4)
        array([[1.    ],
               [0.6065]])
        """
        return self._firing(self._check_X(X))

    def rule_outputs(self, X) -> np.ndarray:
        """What each rule concludes for each output at every row of ``X`` (NaN: no conclusion).

        Returns
        -------
        ndarray of shape (n_samples, n_rules, n_outputs)

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], coef=[[[3.0]]], intercept=[[2.0]])
        >>> FuzzySystem.from_rule_base(rb).rule_outputs([[1.0]])
        array([[[5.]]])
        """
        X = self._check_X(X)
        out = np.full((len(X), self.n_rules, self.n_outputs), np.nan)
        values = {}
        for r, rule in enumerate(self.rules):
            for proposition in rule.consequent:
                m = self._output_index[proposition.variable]
                key = (m, proposition.term)
                if key not in values:
                    values[key] = self.outputs[m].terms[proposition.term].evaluate(X)
                out[:, r, m] = values[key]
        return out

    def predict(self, X) -> np.ndarray:
        """The outputs at every row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite inputs, columns in the order of :attr:`input_names`.

        Returns
        -------
        ndarray of shape (n_samples, n_outputs)
            NaN (or the output's ``default``) where no rule fires under a
            weighted average, with a :class:`~randomts.exceptions.NoRuleFiredWarning`.

        Examples
        --------
        >>> import warnings
        >>> from randomts.fuzzy.terms import Constant, Triangle
        >>> system = FuzzySystem(
        ...     [InputVariable("x", {"mid": Triangle(0, 1, 2)}, range=(0, 2))],
        ...     [OutputVariable("y", {"one": Constant(1.0)}, range=(0, 1))],
        ...     ["if x is mid then y is one"])
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     Y = system.predict([[0.5], [3.0]])
        >>> Y
        array([[ 1.],
               [nan]])
        >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
        No rule fired at 1 of 2 input row(s) (first: row 1) for the weighted-average
        output 'y'; it is NaN there.
        """
        X = self._check_X(X)
        W = self._firing(X)
        undefined = set()
        Y = np.empty((len(X), self.n_outputs))
        for m, variable in enumerate(self.outputs):
            groups = {}
            for r, rule in enumerate(self.rules):
                for proposition in rule.consequent:
                    if proposition.variable == variable.name:
                        w = W[:, r]
                        with np.errstate(invalid="ignore"):
                            degree = np.where(w > 0, _apply_hedges(proposition.hedges, w), 0.0)
                        if np.isnan(w).any() or np.isnan(degree).any():
                            undefined.add(r + 1)
                        degree = np.nan_to_num(degree, nan=0.0, neginf=0.0, posinf=1.0)
                        groups.setdefault(proposition.term, []).append(degree)
            numerator = np.zeros(len(X))
            denominator = np.zeros(len(X))
            for term_name, degrees in groups.items():
                degree = _fold(variable.aggregation, degrees)
                numerator = numerator + degree * variable.terms[term_name].evaluate(X)
                denominator = denominator + degree
            empty = denominator == 0
            if variable.defuzzifier == "wtsum":
                y = (
                    numerator
                    if math.isnan(variable.default)
                    else np.where(empty, variable.default, numerator)
                )
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    y = np.where(empty, np.nan, numerator / np.where(empty, 1.0, denominator))
                if np.any(empty):
                    if math.isnan(variable.default):
                        rows = np.flatnonzero(empty)
                        warnings.warn(
                            f"No rule fired at {len(rows)} of {len(X)} input row(s) (first: row "
                            f"{rows[0]}) for the weighted-average output {variable.name!r}; it "
                            "is NaN there.",
                            NoRuleFiredWarning,
                            stacklevel=2,
                        )
                    else:
                        y = np.where(empty, variable.default, y)
            if variable.lock_range:
                y = np.clip(y, *variable.range)
            Y[:, m] = y
        if undefined:
            warnings.warn(
                f"A hedge met degrees outside [0, 1] in rule(s) {sorted(undefined)}; those "
                "conclusions count as not fired (as in fuzzylite).",
                UndefinedDegreeWarning,
                stacklevel=2,
            )
        return Y

    # --------------------------------------------------------- conversions
    @classmethod
    def from_rule_base(cls, rule_base) -> FuzzySystem:
        """The general form of a :class:`~randomts.RuleBase`: equal outputs wherever a rule fires.

        Each rule ``i`` gets a Gaussian term ``r<i>`` on every input and a
        Linear (Constant for order 0) term ``r<i>`` on every output; AND is
        ``prod``; ranges are those written to FIS and FLL files. Where no
        rule fires (all degrees underflow) a weighted-average RuleBase
        answers with its nearest rule, the FuzzySystem with NaN.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase.random(n_features=2, n_rules=3, random_state=0)
        >>> system = FuzzySystem.from_rule_base(rb)
        >>> print(system.rules[0].to_text())
        if x1 is r1 and x2 is r1 then y is r1
        >>> system.to_rule_base() == rb
        True
        """
        from randomts.fuzzy.rulebase import RuleBase
        from randomts.io._base import variable_ranges

        if not isinstance(rule_base, RuleBase):
            raise TypeError(f"from_rule_base expects a RuleBase; got {type(rule_base).__name__}.")
        input_ranges, output_ranges = variable_ranges(rule_base)
        H = rule_base.n_rules
        inputs = [
            InputVariable(
                name,
                [
                    (f"r{i + 1}", Gaussian(rule_base.centers[i, k], rule_base.sigmas[i, k]))
                    for i in range(H)
                ],
                range=input_ranges[k],
            )
            for k, name in enumerate(rule_base.input_names)
        ]
        defuzzifier = "wtaver" if rule_base.normalize else "wtsum"
        outputs = []
        for m, name in enumerate(rule_base.output_names):
            terms = []
            for i in range(H):
                if rule_base.order == 0:
                    term = Constant(rule_base.intercept[i, m])
                else:
                    term = Linear(rule_base.coef[i, m], rule_base.intercept[i, m])
                terms.append((f"r{i + 1}", term))
            outputs.append(OutputVariable(name, terms, output_ranges[m], defuzzifier=defuzzifier))
        rules = []
        for i in range(H):
            props = tuple(Proposition(name, f"r{i + 1}") for name in rule_base.input_names)
            antecedent = props[0] if len(props) == 1 else Connective("and", props)
            rules.append(
                Rule(antecedent, tuple(Proposition(n, f"r{i + 1}") for n in rule_base.output_names))
            )
        return cls(inputs, outputs, rules, name="randomts", metadata=rule_base.metadata)

    def rule_base_mismatch(self) -> str | None:
        """Why this system is not a :class:`~randomts.RuleBase`, or None if it is one.

        Examples
        --------
        >>> from randomts.fuzzy.terms import Constant, Triangle
        >>> system = FuzzySystem(
        ...     [InputVariable("x", {"mid": Triangle(0, 1, 2)}, range=(0, 2))],
        ...     [OutputVariable("y", {"one": Constant(1.0)}, range=(0, 1))],
        ...     ["if x is mid then y is one"])
        >>> system.rule_base_mismatch()
        "input 'x' term 'mid' is a Triangle, not a Gaussian of height 1 and standard deviation > 0"
        """
        for variable in self.inputs:
            if variable.lock_range:
                return f"input {variable.name!r} has lock_range=True"
            for term_name, term in variable.terms.items():
                if not (
                    isinstance(term, Gaussian) and term.height == 1.0 and term.parameters[1] > 0
                ):
                    return (
                        f"input {variable.name!r} term {term_name!r} is a {type(term).__name__}, "
                        "not a Gaussian of height 1 and standard deviation > 0"
                    )
        defuzzifiers = {v.defuzzifier for v in self.outputs}
        if len(defuzzifiers) > 1:
            return "the outputs mix 'wtaver' and 'wtsum'"
        for variable in self.outputs:
            if variable.lock_range:
                return f"output {variable.name!r} has lock_range=True"
            if not math.isnan(variable.default):
                return f"output {variable.name!r} has a default value"
        if self.n_features > 1 and self.conjunction != "prod":
            return f"the conjunction is {self.conjunction!r}, not 'prod'"
        for k, rule in enumerate(self.rules, start=1):
            antecedent = rule.antecedent
            props = (
                [antecedent] if isinstance(antecedent, Proposition) else list(antecedent.operands)
            )
            if isinstance(antecedent, Connective) and antecedent.operator != "and":
                if self.n_features > 1 or any(not isinstance(p, Proposition) for p in props):
                    return f"rule {k} uses 'or'"
            if not all(isinstance(p, Proposition) for p in props):
                return f"rule {k} nests 'and' and 'or'"
            if sorted(p.variable for p in props) != sorted(self.input_names):
                return f"rule {k} does not use every input once"
            if rule.weight != 1.0:
                return f"rule {k} has weight {rule.weight!r}"
            if any(p.hedges for p in props) or any(p.hedges for p in rule.consequent):
                return f"rule {k} has hedges"
            if sorted(p.variable for p in rule.consequent) != sorted(self.output_names):
                return f"rule {k} does not conclude every output"
        for variable in self.outputs:
            if variable.aggregation != "sum":
                used = [
                    p.term for r in self.rules for p in r.consequent if p.variable == variable.name
                ]
                if len(set(used)) != len(used):
                    return (
                        f"output {variable.name!r} aggregates rules that share a term with "
                        f"{variable.aggregation!r}, not 'sum'"
                    )
        return None

    def to_rule_base(self):
        """This system as a :class:`~randomts.RuleBase`, or ValueError saying what differs.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase.random(n_features=1, n_rules=2, random_state=0)
        >>> FuzzySystem.from_rule_base(rb).to_rule_base() == rb
        True
        """
        from randomts.fuzzy.rulebase import RuleBase
        from randomts.io._base import declared_ranges

        problem = self.rule_base_mismatch()
        if problem is not None:
            raise ValueError(f"This FuzzySystem is not a RuleBase: {problem}.")
        centers, sigmas, coef, intercept = [], [], [], []
        for rule in self.rules:
            props = (
                [rule.antecedent]
                if isinstance(rule.antecedent, Proposition)
                else rule.antecedent.operands
            )
            by_input = {p.variable: p.term for p in props}  # the product commutes
            terms = [v.terms[by_input[v.name]] for v in self.inputs]
            centers.append([t.parameters[0] for t in terms])
            sigmas.append([t.parameters[1] for t in terms])
            by_output = {p.variable: p.term for p in rule.consequent}
            row_coef, row_intercept = [], []
            for variable in self.outputs:
                term = variable.terms[by_output[variable.name]]
                if isinstance(term, Constant):
                    row_coef.append([0.0] * self.n_features)
                    row_intercept.append(term.value)
                else:
                    row_coef.append(list(term.coefficients))
                    row_intercept.append(term.constant)
            coef.append(row_coef)
            intercept.append(row_intercept)
        return RuleBase(
            centers=centers,
            sigmas=sigmas,
            coef=coef,
            intercept=intercept,
            normalize=self.outputs[0].defuzzifier == "wtaver",
            input_names=self.input_names,
            output_names=self.output_names,
            metadata=self.metadata,
            # the variables' ranges (a file's declared ones) become the recorded ranges
            input_range=declared_ranges([variable.range for variable in self.inputs]),
            output_range=declared_ranges([variable.range for variable in self.outputs]),
        )

    # ---------------------------------------------------------------- text
    def to_text(self, precision=4) -> str:
        """The system as text: variables with their terms and ranges, then the rules.

        Parameters
        ----------
        precision : int or None, default 4
            Significant digits of the numbers; None writes every digit (the
            ``.txt`` format, which reads back bit for bit).

        Examples
        --------
        >>> from randomts.fuzzy.terms import Constant, Linear, Trapezoid
        >>> system = FuzzySystem(
        ...     [InputVariable("food", {"bad": Trapezoid(0, 0, 3, 7),
        ...                             "good": Trapezoid(3, 7, 10, 10)}, range=(0, 10))],
        ...     [OutputVariable("tip", {"low": Constant(10.0), "high": Linear([1.0], 10.0)},
        ...                     range=(10, 20))],
        ...     ["if food is bad then tip is low", "if food is not bad then tip is high"],
        ...     name="tipper")
        >>> print(system.to_text())
        # Takagi-Sugeno fuzzy system: tipper
        # AND = prod; OR = probor
        input food in [0, 10]
          bad = Trapezoid(0, 0, 3, 7)
          good = Trapezoid(3, 7, 10, 10)
        output tip in [10, 20]: weighted average
          low = 10
          high = 10 + 1*food
        rules
          R1: if food is bad then tip is low
          R2: if food is not bad then tip is high
        """
        from randomts.text.system import format_system

        return format_system(self, precision)
