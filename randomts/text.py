"""Human-readable IF-THEN text of a rule base.

The format, line by line::

    # Takagi-Sugeno rule base: 2 rules, inputs (x1, x2), outputs (y)
    # G(c, s) = exp(-(x - c)^2 / (2 s^2)); AND = product; output = weighted sum
    R1: IF x1 is G(0.42, 0.13) AND x2 is G(-0.8, 0.3) THEN y = 0.12 + 1.3*x1 - 0.4*x2
    R2: ...

- ``G(c, s)`` is the Gaussian set with centre ``c`` and standard deviation
  ``s`` in the data's own units.
- A consequent is written in full: the constant first, then one
  ``coefficient*name`` term per input, joined by `` + `` or `` - ``.
- With several outputs the ``THEN`` is followed by one indented line per
  output: ``    y1 = ...``.
- ``precision=None`` writes every number with ``repr`` (shortest text that
  reads back to the same float: lossless); an integer ``p`` writes ``p``
  significant digits for reading by people.
- A name that is not a plain token (it has spaces, quotes, ``*``, ``,``, ``=``
  or starts with a sign or digit) is written as a JSON string in double
  quotes.
"""

from __future__ import annotations

import json
import re

__all__ = ["format_number", "format_name", "format_rule", "format_rules"]

_PLAIN_NAME = re.compile(r"^[A-Za-z_][^\s\"'*,=]*$")


def format_number(value, precision=None) -> str:
    """A float as text: ``repr`` when ``precision`` is None, else ``precision`` significant digits.

    Examples
    --------
    >>> format_number(0.1 + 0.2)
    '0.30000000000000004'
    >>> format_number(0.1 + 0.2, precision=3)
    '0.3'
    """
    value = float(value)
    if precision is None:
        return repr(value)
    return f"{value:.{int(precision)}g}"


def format_name(name) -> str:
    """A variable name, JSON-quoted unless it is a plain token.

    Examples
    --------
    >>> format_name("y1(k-1)")
    'y1(k-1)'
    >>> format_name("temp (C)")
    '"temp (C)"'
    """
    return name if _PLAIN_NAME.match(name) else json.dumps(name)


def _equation(constant, slopes, input_names, precision):
    text = format_number(constant, precision)
    for slope, name in zip(slopes, input_names):
        if slope == 0:
            continue
        sign = "-" if slope < 0 else "+"
        text += f" {sign} {format_number(abs(slope), precision)}*{format_name(name)}"
    return text


def format_rule(rule_base, index, precision=None) -> str:
    """One rule as ``R<k>: IF ... THEN ...`` (``k`` counts from 1).

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.5, -1.0]], sigmas=[[0.25, 2.0]],
    ...               coef=[[[1.5, -2.0]]], intercept=[[0.1]])
    >>> print(format_rule(rb, 0))
    R1: IF x1 is G(0.5, 0.25) AND x2 is G(-1.0, 2.0) THEN y = 0.1 + 1.5*x1 - 2.0*x2
    """
    rule = rule_base[index]
    antecedent = " AND ".join(
        f"{format_name(name)} is G({format_number(c, precision)}, {format_number(s, precision)})"
        for name, c, s in zip(rule_base.input_names, rule.center, rule.sigma)
    )
    equations = [
        f"{format_name(out)} = {_equation(b, a, rule_base.input_names, precision)}"
        for out, a, b in zip(rule_base.output_names, rule.coef, rule.intercept)
    ]
    head = f"R{rule.index + 1}: IF {antecedent} THEN"
    if len(equations) == 1:
        return f"{head} {equations[0]}"
    return "\n".join([head] + [f"    {eq}" for eq in equations])


def format_rules(rule_base, precision=None, *, max_rules=None) -> str:
    """All rules, after a two-line ``#`` header that names the variables and the mode.

    Parameters
    ----------
    rule_base : RuleBase
        The rules.
    precision : int, optional
        Significant digits; None (default) writes lossless ``repr`` numbers.
    max_rules : int, optional
        Write only the first ``max_rules`` rules and say how many were left out.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0], [1.0]], sigmas=[[1.0], [0.5]], intercept=[[2.0], [-1.0]])
    >>> print(format_rules(rb))
    # Takagi-Sugeno rule base: 2 rules, inputs (x1), outputs (y)
    # G(c, s) = exp(-(x - c)^2 / (2 s^2)); AND = product; output = weighted sum
    R1: IF x1 is G(0.0, 1.0) THEN y = 2.0
    R2: IF x1 is G(1.0, 0.5) THEN y = -1.0
    """
    mode = "weighted average" if rule_base.normalize else "weighted sum"
    inputs = ", ".join(format_name(n) for n in rule_base.input_names)
    outputs = ", ".join(format_name(n) for n in rule_base.output_names)
    lines = [
        f"# Takagi-Sugeno rule base: {rule_base.n_rules} rules, inputs ({inputs}), outputs ({outputs})",
        f"# G(c, s) = exp(-(x - c)^2 / (2 s^2)); AND = product; output = {mode}",
    ]
    shown = rule_base.n_rules if max_rules is None else min(int(max_rules), rule_base.n_rules)
    lines += [format_rule(rule_base, i, precision) for i in range(shown)]
    if shown < rule_base.n_rules:
        lines.append(f"# ... {rule_base.n_rules - shown} more rules not shown")
    return "\n".join(lines)
