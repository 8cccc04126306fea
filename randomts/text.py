"""Human-readable IF-THEN text of a rule base.

The format, line by line::

    # Takagi-Sugeno rule base: 2 rules, inputs (x1, x2), outputs (y)
    # G(c, s) = exp(-(x - c)^2 / (2 s^2)); AND = product; output = weighted sum
    R1: IF x1 is G(0.42, 0.13) AND x2 is G(-0.8, 0.3) THEN y = 0.12 + 1.3*x1 - 0.4*x2
    R2: ...

- ``G(c, s)`` is the Gaussian set with centre ``c`` and standard deviation
  ``s`` in the data's own units.
- A consequent is written in full: the constant first, then one
  ``coefficient*name`` term per input, joined by ``+`` or ``-`` with a space on each side.
- With several outputs the ``THEN`` is followed by one indented line per
  output: ``    y1 = ...``.
- ``precision=None`` writes every number with ``repr`` (shortest text that
  reads back to the same float: lossless); an integer ``p`` writes ``p``
  significant digits for reading by people.
- A name that is not a plain token (it has spaces, quotes, ``*``, ``,``, ``=``
  or starts with a sign or digit) is written as a JSON string in double
  quotes.

:func:`parse_rules` reads this text back (both ``#`` header lines are
required; other ``#`` lines and blank lines are ignored; rules start at the
beginning of a line and equations on their own lines are indented; an input
missing from an equation has coefficient 0). Text written with ``precision=None``
reads back to the same arrays, bit for bit. :func:`format_table` writes the
same numbers as a table in any `tabulate <https://pypi.org/project/tabulate/>`_
format.
"""

from __future__ import annotations

import json
import re

import numpy as np
from tabulate import tabulate, tabulate_formats

from ._validation import check_option
from .exceptions import FormatError

__all__ = [
    "format_number",
    "format_name",
    "format_rule",
    "format_rules",
    "format_table",
    "render_table",
    "parse_rules",
    "TABLE_FORMATS",
]

#: Table formats accepted by :func:`format_table` (those of tabulate).
TABLE_FORMATS = tuple(tabulate_formats)

_HEADER = "# Takagi-Sugeno rule base:"
_PLAIN_NAME = re.compile(r"^[A-Za-z_][^\s\"'*,=]*\Z")  # \Z: "$" would let a final newline in


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
    """One rule as the line ``R<k>: IF <antecedent> THEN <consequent>`` (``k`` counts from 1).

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
        f"{_HEADER} {rule_base.n_rules} rules, inputs ({inputs}), outputs ({outputs})",
        f"# G(c, s) = exp(-(x - c)^2 / (2 s^2)); AND = product; output = {mode}",
    ]
    shown = rule_base.n_rules if max_rules is None else min(int(max_rules), rule_base.n_rules)
    lines += [format_rule(rule_base, i, precision) for i in range(shown)]
    if shown < rule_base.n_rules:
        lines.append(f"# ... {rule_base.n_rules - shown} more rules not shown")
    return "\n".join(lines)


# ------------------------------------------------------------------ tables
def render_table(headers, rows, fmt="plain") -> str:
    """Rows of already formatted cells as a tabulate table, numbers right-aligned.

    Parameters
    ----------
    headers : sequence of str
        Column titles.
    rows : sequence of sequences of str
        The cells, written as given (no re-parsing of numbers).
    fmt : str, default="plain"
        One of :data:`TABLE_FORMATS`.

    Examples
    --------
    >>> print(render_table(["rule", "w"], [["R1", "0.5"], ["R2", "0.25"]]))
    rule      w
    R1      0.5
    R2     0.25
    """
    check_option(fmt, "fmt", TABLE_FORMATS)
    colalign = ("left",) + ("right",) * (len(headers) - 1)
    return tabulate(
        [list(row) for row in rows],
        headers=list(headers),
        tablefmt=fmt,
        disable_numparse=True,
        colalign=colalign,
    )


def format_table(rule_base, fmt="plain", precision=4) -> str:
    """The rule base as a table: one row per rule, one column per number.

    Columns: ``rule``; for each input ``x``, ``x: c`` (centre) and ``x: s``
    (standard deviation); for each output ``y``, ``y: const`` (the constant
    ``b``) and ``y: x`` (the coefficient of input ``x``).

    Parameters
    ----------
    rule_base : RuleBase
        The rules.
    fmt : str, default="plain"
        A tabulate format (:data:`TABLE_FORMATS`): ``"plain"``, ``"github"``,
        ``"latex"``, ``"html"``, ...
    precision : int or None, default=4
        Significant digits; None writes lossless ``repr`` numbers.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.5], [-1.0]], sigmas=[[0.25], [2.0]],
    ...               coef=[[[1.5]], [[0.0]]], intercept=[[0.1], [3.0]])
    >>> print(format_table(rb, fmt="github"))
    | rule   |   x1: c |   x1: s |   y: const |   y: x1 |
    |--------|---------|---------|------------|---------|
    | R1     |     0.5 |    0.25 |        0.1 |     1.5 |
    | R2     |      -1 |       2 |          3 |       0 |
    """
    names = [format_name(n) for n in rule_base.input_names]
    headers = ["rule"]
    for name in names:
        headers += [f"{name}: c", f"{name}: s"]
    for out in rule_base.output_names:
        headers += [f"{format_name(out)}: const"] + [f"{format_name(out)}: {n}" for n in names]
    rows = []
    for rule in rule_base:
        row = [f"R{rule.index + 1}"]
        for c, s in zip(rule.center, rule.sigma):
            row += [format_number(c, precision), format_number(s, precision)]
        for a, b in zip(rule.coef, rule.intercept):
            row += [format_number(b, precision)] + [format_number(v, precision) for v in a]
        rows.append(row)
    return render_table(headers, rows, fmt)


# ----------------------------------------------------------------- reading
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_PLAIN_TOKEN = re.compile(r"[A-Za-z_][^\s\"'*,=]*")
_SPACES = re.compile(r"\s*")
_DECODER = json.JSONDecoder()
_RULE_START = re.compile(r"R(\d+):")
_MODE = re.compile(r"output = (weighted sum|weighted average)\s*$")
_NOT_SHOWN = re.compile(r"^#\s*\.\.\.\s*\d+ more rules not shown")


class _Scanner:
    """Reads the tokens of one line, raising FormatError with its line number."""

    def __init__(self, text, line):
        self.text, self.line, self.pos = text, line, 0

    def fail(self, what):
        found = self.text[self.pos :] or "end of line"
        raise FormatError(
            f"expected {what} at column {self.pos + 1} (found {found[:30]!r})",
            line=self.line,
            text=self.text,
        )

    def skip(self):
        self.pos = _SPACES.match(self.text, self.pos).end()

    def at_end(self):
        self.skip()
        return self.pos == len(self.text)

    def literal(self, word, what=None):
        self.skip()
        if not self.text.startswith(word, self.pos):
            self.fail(what or repr(word))
        self.pos += len(word)

    def peek(self, word):
        self.skip()
        return self.text.startswith(word, self.pos)

    def number(self, what="a number"):
        self.skip()
        match = _NUMBER.match(self.text, self.pos)
        if not match:
            self.fail(what)
        value = float(match.group())
        if not np.isfinite(value):
            self.fail(f"{what} of finite size")
        self.pos = match.end()
        return value

    def name(self):
        self.skip()
        if self.text.startswith('"', self.pos):
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except ValueError:
                self.fail("a name (a quoted JSON string)")
            if not isinstance(value, str) or not value.strip():
                self.fail("a non-empty name")
            self.pos = end
            return value
        match = _PLAIN_TOKEN.match(self.text, self.pos)
        if not match:
            self.fail("a name")
        self.pos = match.end()
        return match.group()


def _parse_antecedent(scan):
    names, centers, sigmas = [], [], []
    scan.literal("IF")
    while True:
        names.append(scan.name())
        scan.literal("is")
        scan.literal("G(")
        centers.append(scan.number("a centre"))
        scan.literal(",")
        sigma = scan.number("a width")
        if sigma <= 0:
            scan.fail("a width > 0")
        sigmas.append(sigma)
        scan.literal(")")
        if not scan.peek("AND"):
            break
        scan.literal("AND")
    scan.literal("THEN")
    return names, centers, sigmas


def _parse_equation(scan, input_names):
    output = scan.name()
    scan.literal("=")
    constant = scan.number("the constant of the equation")
    slopes = [0.0] * len(input_names)
    seen = set()
    while not scan.at_end():
        if scan.peek("+"):
            sign = 1.0
        elif scan.peek("-"):
            sign = -1.0
        else:
            scan.fail("' + ' or ' - ' and a term")
        scan.pos += 1
        value = scan.number("a coefficient")
        scan.literal("*")
        scan.skip()
        at = scan.pos
        name = scan.name()
        if name not in input_names or name in seen:
            scan.pos = at
            scan.fail(
                f"one of the inputs {list(input_names)} (not {name!r})"
                if name not in input_names
                else f"each input at most once (not {name!r} again)"
            )
        seen.add(name)
        slopes[input_names.index(name)] = sign * value
    return output, constant, slopes


class _RuleText:
    """The parts of one rule, before the sizes are known to agree."""

    def __init__(self, number, line, raw, names, centers, sigmas):
        self.number, self.line, self.raw = number, line, raw
        self.names, self.centers, self.sigmas = names, centers, sigmas
        self.equations = []  # (line_number, output, constant, slopes, raw line)


def parse_rules(text, *, metadata=None):
    """Read the text written by :func:`format_rules` back into a :class:`RuleBase`.

    Parameters
    ----------
    text : str
        The rules, with both ``#`` header lines.
    metadata : dict, optional
        Metadata for the returned rule base (text does not carry any).

    Returns
    -------
    RuleBase

    Raises
    ------
    FormatError
        With the line number and the offending text, if anything is missing,
        malformed or inconsistent (rule numbers, variable names, counts).

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase.random(n_features=2, n_outputs=2, n_rules=3, random_state=0)
    >>> parse_rules(format_rules(rb)) == rb
    True
    >>> parse_rules("# Takagi-Sugeno rule base: 1 rules, inputs (x1), outputs (y)\\n"
    ...             "R1: IF x1 is G(0.0, 1.0) THEN y = 2.0")
    Traceback (most recent call last):
    ...
    randomts.exceptions.FormatError: line 1: missing the header line '# G(c, s) = ...
    """
    from .rulebase import RuleBase

    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}.")
    header = mode = None
    rules = []
    lines = text.split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if _NOT_SHOWN.match(line):
                raise FormatError("the text lists only some of the rules", line=number, text=raw)
            if line.startswith(_HEADER):
                if header is not None:
                    raise FormatError("a second header line", line=number, text=raw)
                header = (number, raw)
            elif _MODE.search(line):
                mode = _MODE.search(line).group(1)
            continue
        if header is None:
            raise FormatError(f"expected the header line {_HEADER!r} first", line=number, text=raw)
        start = None if raw[:1].isspace() else _RULE_START.match(raw)  # equations are indented
        if start:
            scan = _Scanner(raw, number)
            scan.pos = start.end()
            rule = _RuleText(start.group(1), number, raw, *_parse_antecedent(scan))
            if not scan.at_end():
                rule.equations.append((number, *_parse_equation(scan, rule.names), raw))
                rule.inline = True
            else:
                rule.inline = False
            rules.append(rule)
        elif raw[:1].isspace() and rules and not rules[-1].inline:
            scan = _Scanner(raw, number)
            rules[-1].equations.append((number, *_parse_equation(scan, rules[-1].names), raw))
        else:
            raise FormatError(
                "expected a rule 'R<k>: IF ...' or an indented equation", line=number, text=raw
            )
    if header is None:
        raise FormatError(
            f"no header line {_HEADER!r}; the text is empty or not rules", line=1, text=lines[0]
        )
    if mode is None:
        raise FormatError(
            "missing the header line '# G(c, s) = ...; output = ...' (weighted sum or average)",
            line=header[0],
        )
    if not rules:
        raise FormatError("no rules after the header", line=len(lines), text=lines[-1])
    return _assemble(rules, header, mode == "weighted average", metadata, RuleBase)


def _assemble(rules, header, normalize, metadata, RuleBase):
    first = rules[0]
    input_names = first.names
    output_names = [eq[1] for eq in first.equations]
    if not output_names:
        raise FormatError("rule R1 has no equation after THEN", line=first.line, text=first.raw)
    for k, rule in enumerate(rules, start=1):
        if rule.number != str(k):
            raise FormatError(f"expected rule number R{k}", line=rule.line, text=rule.raw)
        if rule.names != input_names:
            raise FormatError(
                f"the inputs must be {input_names} as in R1; got {rule.names}",
                line=rule.line,
                text=rule.raw,
            )
        outputs = [eq[1] for eq in rule.equations]
        if outputs != output_names:
            line, raw = (
                (rule.equations[-1][0], rule.equations[-1][4])
                if rule.equations
                else (rule.line, rule.raw)
            )
            raise FormatError(
                f"rule R{k} must give the outputs {output_names} as R1; got {outputs}",
                line=line,
                text=raw,
            )
    expected = (
        f"{_HEADER} {len(rules)} rules, inputs ({', '.join(format_name(n) for n in input_names)}), "
        f"outputs ({', '.join(format_name(n) for n in output_names)})"
    )
    if " ".join(header[1].split()) != " ".join(expected.split()):
        raise FormatError(
            f"the header does not match the {len(rules)} rules read; expected {expected!r}",
            line=header[0],
            text=header[1],
        )
    if len(set(input_names)) != len(input_names) or len(set(output_names)) != len(output_names):
        raise FormatError("variable names must be distinct", line=first.line, text=first.raw)
    try:
        return RuleBase(
            centers=[r.centers for r in rules],
            sigmas=[r.sigmas for r in rules],
            coef=[[eq[3] for eq in r.equations] for r in rules],
            intercept=[[eq[2] for eq in r.equations] for r in rules],
            normalize=normalize,
            input_names=input_names,
            output_names=output_names,
            metadata=metadata,
        )
    except (ValueError, TypeError) as exc:  # names the rule base rejects
        raise FormatError(
            f"not a valid rule base: {exc}", line=first.line, text=first.raw
        ) from None
