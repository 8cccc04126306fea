"""Rules of a fuzzy system: propositions, connectives, rules, and the rule syntax.

A rule is written in fuzzylite's syntax,
``if <antecedent> then <conclusions> with <weight>``: an antecedent joins
propositions ``variable is [hedges] term`` with ``and`` (binding tighter)
and ``or``, parentheses group; the conclusions are propositions joined by
``and``. Keywords are case-insensitive; names are written as
:func:`randomts.text.numbers.format_name` writes them (plain tokens, or JSON
strings); ``Term^p`` is a power hedge.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from randomts.fuzzy.norms import HEDGES, check_hedges
from randomts.text.numbers import KEYWORDS, format_name, format_number
from randomts.text.scanner import NUMBER, Scanner

__all__ = ["Proposition", "Connective", "FuzzyRule", "parse_rule", "propositions", "power_of"]


def _power_text(power, precision):
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
        hedges = check_hedges(self.hedges)
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
        words = [format_name(self.variable), "is"]
        power = ""
        for hedge in self.hedges:
            if isinstance(hedge, str):
                words.append(hedge)
            else:
                power = _power_text(hedge, precision)
        if self.term is not None:
            words.append(format_name(self.term) + power)
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


def power_of(proposition):
    """The largest power (at least 1) that a proposition's hedges raise a degree to."""
    powers = [h for h in proposition.hedges if not isinstance(h, str)]
    powers += [2.0 for h in proposition.hedges if h == "very"]
    return max([1.0, *powers])


def propositions(node):
    if isinstance(node, Proposition):
        return [node]
    return [p for operand in node.operands for p in propositions(operand)]


@dataclass(frozen=True)
class FuzzyRule:
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
        text = f"if {self.antecedent.to_text(precision)} then " + " and ".join(
            p.to_text(precision) for p in self.consequent
        )
        if self.weight != 1.0:
            text += f" with {format_number(self.weight, precision)}"
        return text


# Deepest nesting of parentheses a rule may have (the parser and evaluation recurse on it).
_MAX_NESTING = 64


class _Tokens:
    def __init__(self, text):
        scan = Scanner(text, line=None)
        self.items = []
        while not scan.at_end():
            self.items.append(scan.word())
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
    if token.lower() in KEYWORDS or token in ("(", ")"):
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
        if not NUMBER.fullmatch(rest[1:]):
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


def parse_rule(text) -> FuzzyRule:
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
        if not NUMBER.fullmatch(token):
            raise ValueError(f"the weight {token!r} is not a number")
        weight = float(token)
    if tokens.peek() is not None:
        raise ValueError(f"unexpected {tokens.peek()!r} after the rule")
    return FuzzyRule(antecedent, tuple(consequent), weight)
