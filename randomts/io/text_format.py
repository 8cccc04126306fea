"""The ``text`` format (``.txt``): the printed IF-THEN rules, loadable back.

:func:`format_rules` writes a rule base line by line::

    # Takagi-Sugeno rule base: 2 rules, inputs (x1, x2), outputs (y)
    # G(c, s) = exp(-(x - c)^2 / (2 s^2)); AND = product; output = weighted sum
    # input ranges: x1 in [0.0, 1.0], x2 in [-1.0, 1.0]
    # output ranges: y in [-0.5, 0.5]
    R1: IF x1 is G(0.42, 0.13) AND x2 is G(-0.8, 0.3) THEN y = 0.12 + 1.3*x1 - 0.4*x2
    R2: ...

- ``G(c, s)`` is the Gaussian set with centre ``c`` and standard deviation
  ``s`` in the data's own units.
- A consequent is written in full: the constant first, then one
  ``coefficient*name`` term per input, joined by ``+`` or ``-`` with a space on each side.
- With several outputs the ``THEN`` is followed by one indented line per
  output: ``    y1 = ...``.
- The ``ranges`` lines, present when the rule base records them
  (:attr:`RuleBase.input_range`, :attr:`RuleBase.output_range`), give each
  variable's ``[low, high]``.
- ``precision=None`` writes every number with ``repr`` (shortest text that
  reads back to the same float: lossless); an integer ``p`` writes ``p``
  significant digits.
- A name that is not a plain token (it has spaces, quotes, ``*``, ``,``, ``=``
  or starts with a sign or digit) is written as a JSON string in double
  quotes.

:func:`parse_rules` reads this text back (both ``#`` header lines are
required; the ranges lines are optional; other ``#`` lines and blank lines
are ignored; rules start at the beginning of a line and equations on their own
lines are indented; an input missing from an equation has coefficient 0).
Text written with ``precision=None`` reads back to the same arrays and
ranges, bit for bit. A file holds it with lossless numbers and a final
newline; a file without one is taken as truncated. The rule base's
metadata, if any, follow the rules on one comment line
``# randomts-metadata: {...}`` (JSON), which :func:`parse_rules` skips like
any other comment. A :class:`~randomts.FuzzySystem` is written as
:func:`randomts.text.system.format_system` lays it out (every digit, no
metadata), and read back by its header line (:func:`parse_system`).

Examples
--------
>>> from randomts import RuleBase
>>> rb = RuleBase.random(n_features=2, n_rules=2, random_state=0)
>>> fmt = TextFormat()
>>> fmt.from_string(fmt.to_string(rb)) == rb
True
"""

from __future__ import annotations

import json
import re

from randomts.core.membership import SMALLEST_WIDTH
from randomts.exceptions import FormatError
from randomts.fuzzy import FuzzySystem, InputVariable, OutputVariable, parse_rule
from randomts.fuzzy.rulebase import RuleBase
from randomts.fuzzy.terms import Constant, Discrete, Linear, make_term
from randomts.io._base import (
    RuleBaseFormat,
    lock_from_metadata,
    lock_in_metadata,
    metadata_comment,
    read_metadata_comment,
)
from randomts.text.numbers import format_name, format_number
from randomts.text.rule_base import HEADER as RULES_HEADER
from randomts.text.scanner import Scanner
from randomts.text.system import HEADER as SYSTEM_HEADER, format_system

__all__ = [
    "MODE_LINE",
    "NOT_SHOWN_LINE",
    "RANGES_LINE",
    "TextFormat",
    "format_rule",
    "format_rules",
    "parse_rules",
    "parse_system",
]

#: A ``# input ranges:`` or ``# output ranges:`` line.
RANGES_LINE = re.compile(r"^#\s*(input|output) ranges:")
#: The header line that names the mode.
MODE_LINE = re.compile(r"output = (weighted sum|weighted average)\s*$")
#: The line that says rules were left out.
NOT_SHOWN_LINE = re.compile(r"^#\s*\.\.\.\s*\d+ more rules not shown")


def _equation(constant, slopes, input_names, precision):
    text = format_number(constant, precision)
    for slope, name in zip(slopes, input_names, strict=True):
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
        for name, c, s in zip(rule_base.input_names, rule.center, rule.sigma, strict=True)
    )
    equations = [
        f"{format_name(out)} = {_equation(b, a, rule_base.input_names, precision)}"
        for out, a, b in zip(rule_base.output_names, rule.coef, rule.intercept, strict=True)
    ]
    head = f"R{rule.index + 1}: IF {antecedent} THEN"
    if len(equations) == 1:
        return f"{head} {equations[0]}"
    return "\n".join([head] + [f"    {eq}" for eq in equations])


def format_rules(rule_base, precision=None, *, max_rules=None) -> str:
    """The TXT format: all rules after a ``#`` header naming the variables, the mode and the ranges.

    This is the machine form (:func:`randomts.io.text_format.parse_rules` reads it back); people read
    :func:`randomts.text.rule_base.describe_rules`.

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
        f"{RULES_HEADER} {rule_base.n_rules} rules, inputs ({inputs}), outputs ({outputs})",
        f"# G(c, s) = exp(-(x - c)^2 / (2 s^2)); AND = product; output = {mode}",
    ]
    for kind, names, ranges in (
        ("input", rule_base.input_names, rule_base.input_range),
        ("output", rule_base.output_names, rule_base.output_range),
    ):
        if ranges is not None:
            lines.append(
                f"# {kind} ranges: "
                + ", ".join(
                    f"{format_name(name)} in [{format_number(low, precision)}, "
                    f"{format_number(high, precision)}]"
                    for name, (low, high) in zip(names, ranges, strict=True)
                )
            )
    shown = rule_base.n_rules if max_rules is None else min(int(max_rules), rule_base.n_rules)
    lines += [format_rule(rule_base, i, precision) for i in range(shown)]
    if shown < rule_base.n_rules:
        lines.append(f"# ... {rule_base.n_rules - shown} more rules not shown")
    return "\n".join(lines)


_RULE_START = re.compile(r"R(\d+):")
_NORMS_LINE = re.compile(r"^#\s*AND\s*=\s*(\S+)\s*;\s*OR\s*=\s*(\S+)\s*$")
_TERM_TYPE = re.compile(r"[A-Za-z]+")
_DEFUZZIFIERS = {"weighted average": "wtaver", "weighted sum": "wtsum"}


class TextFormat(RuleBaseFormat):
    """Numbered IF-THEN rules (:func:`format_rules`, ``precision=None``)."""

    name = "text"
    extensions = (".txt",)
    needs_final_newline = True

    def to_string(self, rule_base) -> str:
        """The rules and the metadata comment (or a FuzzySystem's text), ending with a newline."""
        if isinstance(rule_base, FuzzySystem):
            return format_system(rule_base, precision=None) + "\n"
        rule_base = lock_in_metadata(rule_base)
        return "\n".join([format_rules(rule_base), *metadata_comment(rule_base, "#")]) + "\n"

    def from_string(self, text):
        """Parse text written by :meth:`to_string` (a RuleBase or a FuzzySystem by its header)."""
        first = next((line for line in text.split("\n") if line.strip()), "")
        if first.startswith(SYSTEM_HEADER):
            return parse_system(text)
        return lock_from_metadata(parse_rules(text, metadata=read_metadata_comment(text, "#")))


# ----------------------------------------------------------- rule base text
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
        if not sigma >= SMALLEST_WIDTH:
            scan.fail(f"a width >= {SMALLEST_WIDTH!r} (a normal float)")
        sigmas.append(sigma)
        scan.literal(")")
        if not scan.peek("AND"):
            break
        scan.literal("AND")
    scan.literal("THEN")
    return names, centers, sigmas


def _linear(scan, input_names):
    """``constant [+ c*input ...]`` (both text formats): the constant and the slopes by input."""
    constant = scan.number("the constant of the equation")
    slopes = {}
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
        if name not in input_names or name in slopes:
            scan.pos = at
            scan.fail(
                f"one of the inputs {list(input_names)} (not {name!r})"
                if name not in input_names
                else f"each input at most once (not {name!r} again)"
            )
        slopes[name] = sign * value
    return constant, slopes


def _parse_equation(scan, input_names):
    output = scan.name()
    scan.literal("=")
    constant, slopes = _linear(scan, input_names)
    return output, constant, [slopes.get(name, 0.0) for name in input_names]


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
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}.")
    header = mode = None
    rules, ranges = [], {}
    lines = text.split("\n")
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if NOT_SHOWN_LINE.match(line):
                raise FormatError("the text lists only some of the rules", line=number, text=raw)
            if line.startswith(RULES_HEADER):
                if header is not None:
                    raise FormatError("a second header line", line=number, text=raw)
                header = (number, raw)
            elif MODE_LINE.search(line):
                mode = MODE_LINE.search(line).group(1)
            elif RANGES_LINE.match(line):
                kind = RANGES_LINE.match(line).group(1)
                if kind in ranges:
                    raise FormatError(f"a second {kind} ranges line", line=number, text=raw)
                ranges[kind] = (number, raw, _parse_ranges(raw, number))
            continue
        if header is None:
            raise FormatError(
                f"expected the header line {RULES_HEADER!r} first", line=number, text=raw
            )
        start = None if raw[:1].isspace() else _RULE_START.match(raw)  # equations are indented
        if start:
            scan = Scanner(raw, number)
            scan.pos = start.end()
            rule = _RuleText(start.group(1), number, raw, *_parse_antecedent(scan))
            if not scan.at_end():
                rule.equations.append((number, *_parse_equation(scan, rule.names), raw))
                rule.inline = True
            else:
                rule.inline = False
            rules.append(rule)
        elif raw[:1].isspace() and rules and not rules[-1].inline:
            scan = Scanner(raw, number)
            rules[-1].equations.append((number, *_parse_equation(scan, rules[-1].names), raw))
        else:
            raise FormatError(
                "expected a rule 'R<k>: IF ...' or an indented equation", line=number, text=raw
            )
    if header is None:
        raise FormatError(
            f"no header line {RULES_HEADER!r}; the text is empty or not rules",
            line=1,
            text=lines[0],
        )
    if mode is None:
        raise FormatError(
            "missing the header line '# G(c, s) = ...; output = ...' (weighted sum or average)",
            line=header[0],
        )
    if not rules:
        raise FormatError("no rules after the header", line=len(lines), text=lines[-1])
    rule_base = _assemble(rules, header, mode == "weighted average", metadata)
    recorded = {}
    for kind, names in (("input", rule_base.input_names), ("output", rule_base.output_names)):
        if kind in ranges:
            number, raw, pairs = ranges[kind]
            if [name for name, _, _ in pairs] != list(names):
                raise FormatError(
                    f"the {kind} ranges must name {list(names)} in order; "
                    f"got {[name for name, _, _ in pairs]}",
                    line=number,
                    text=raw,
                )
            recorded[f"{kind}_range"] = [[low, high] for _, low, high in pairs]
    return rule_base.replace(**recorded) if recorded else rule_base


def _parse_ranges(raw, number):
    """``# input ranges: x1 in [0.0, 1.0], ...`` as (name, low, high) triples."""
    scan = Scanner(raw, number)
    scan.pos = RANGES_LINE.match(raw.strip()).end() + (len(raw) - len(raw.lstrip()))
    pairs = []
    while True:
        name = scan.name()
        scan.literal("in")
        scan.literal("[")
        low = scan.number("the low end of a range")
        scan.literal(",")
        at = scan.pos
        high = scan.number("the high end of a range")
        if high < low:
            scan.pos = at
            scan.fail(f"a high end >= the low end {low!r}")
        scan.literal("]")
        pairs.append((name, low, high))
        if scan.at_end():
            return pairs
        scan.literal(",", "',' and the next range")


def _assemble(rules, header, normalize, metadata):
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
        f"{RULES_HEADER} {len(rules)} rules, inputs ({', '.join(format_name(n) for n in input_names)}), "
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


# ------------------------------------------------------------- system text
def _read_name(text, number, raw):
    """The system's name on the header line: as written, or a JSON string."""
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except ValueError:
            raise FormatError(
                f"{text[:40]!r} is not a valid quoted name", line=number, text=raw
            ) from None
        if not isinstance(value, str):
            raise FormatError("a quoted name must be a string", line=number, text=raw)
        return value
    return text


def _variable(scan):
    """``input|output <name> in [<low>, <high>]`` and the text of the options after ``:``."""
    kind = "input" if scan.peek("input") else "output"
    scan.literal(kind)
    name = scan.name()
    scan.literal("in")
    scan.literal("[")
    low = scan.number("the low end of the range", infinite=True)
    scan.literal(",")
    high = scan.number("the high end of the range", infinite=True)
    scan.literal("]")
    tail = ""
    if not scan.at_end():
        scan.literal(":", "':' and the options, or the end of the line")
        tail = scan.text[scan.pos :]
    return kind, name, (low, high), tail


def _input_term(scan):
    """``Type(p1, p2, ..., height=h)``."""
    kind = scan.match(_TERM_TYPE, "a term 'Type(p1, p2, ...)'")
    scan.literal("(")
    values, height = [], 1.0
    while not scan.peek(")"):
        if values or height != 1.0:
            scan.literal(",", "',' or ')'")
        if scan.peek("height="):
            scan.literal("height=")
            height = scan.number("the height")
            break
        values.append(scan.number("a term parameter"))
    scan.literal(")", "')' (height= comes last)")
    if not scan.at_end():
        scan.fail("the end of the line after the term")
    if kind in ("Constant", "Linear"):
        scan.fail(f"an input term ({kind} is an output term)")
    if kind == "Discrete":
        return Discrete(*values, height=height)
    term = make_term(kind, values)
    return term if height == 1.0 else make_term(kind, values + [height])


def _output_term(scan, input_names):
    """``constant [+ c*input ...]``: a Constant, or a Linear over every input."""
    constant, slopes = _linear(scan, input_names)
    if not slopes:
        return Constant(constant)
    return Linear([slopes.get(name, 0.0) for name in input_names], constant)


def parse_system(text):
    """Read the text of :func:`~randomts.text.system.format_system` back into a :class:`~randomts.FuzzySystem`.

    Raises
    ------
    FormatError
        With the line number and the offending text.

    Examples
    --------
    >>> parse_system("# Takagi-Sugeno fuzzy system: s\\ninput x in [0, 1]\\n")
    Traceback (most recent call last):
    ...
    randomts.exceptions.FormatError: line 2: expected the line '# AND = ...; OR = ...' after ...
    """
    lines = text.split("\n")
    entries = [(n, raw) for n, raw in enumerate(lines, start=1) if raw.strip()]
    if not entries or not entries[0][1].startswith(SYSTEM_HEADER):
        number, raw = entries[0] if entries else (1, "")
        raise FormatError(
            f"expected the header line {SYSTEM_HEADER!r} first", line=number, text=raw
        )
    name = entries[0][1][len(SYSTEM_HEADER) :].strip()
    name = _read_name(name, *entries[0]) if name.startswith('"') else name
    if len(entries) < 2 or not _NORMS_LINE.match(entries[1][1].strip()):
        number, raw = entries[1] if len(entries) > 1 else entries[0]
        raise FormatError(
            "expected the line '# AND = ...; OR = ...' after the header", line=number, text=raw
        )
    conjunction, disjunction = _NORMS_LINE.match(entries[1][1].strip()).groups()
    inputs, outputs, rules, rule_lines = [], [], [], []
    current = None  # (kind, name, terms, range, options, number, raw)
    section = "variables"

    def close():
        if current is None:
            return
        kind, vname, terms, value_range, options, number, raw = current
        try:
            if kind == "input":
                inputs.append(
                    InputVariable(vname, terms, value_range, lock_range="lock-range" in options)
                )
            else:
                outputs.append(OutputVariable(vname, terms, value_range, **options))
        except (TypeError, ValueError) as exc:
            raise FormatError(str(exc).rstrip("."), line=number, text=raw) from None

    for number, raw in entries[2:]:
        stripped = raw.strip()
        if stripped.startswith("#"):
            continue
        scan = Scanner(raw, number)
        indented = raw[:1].isspace()
        if section == "rules":
            if not indented:
                scan.fail("an indented rule '  R<k>: if ... then ...'")
            scan.literal("R", "a rule 'R<k>: if ... then ...'")
            at = scan.pos
            if scan.number("the rule's number") != len(rules) + 1:
                scan.pos = at
                scan.fail(f"rule number R{len(rules) + 1}")
            scan.literal(":")
            try:
                rules.append(parse_rule(scan.text[scan.pos :]))
            except (TypeError, ValueError) as exc:
                raise FormatError(str(exc).rstrip("."), line=number, text=raw) from None
            rule_lines.append((number, raw))
            continue
        if stripped == "rules" and not indented:
            close()
            current = None
            section = "rules"
            continue
        if not indented and (scan.peek("input") or scan.peek("output")):
            close()
            kind, vname, value_range, tail = _variable(scan)
            if kind == "input" and outputs:
                raise FormatError("an input after the outputs", line=number, text=raw)
            current = (kind, vname, [], value_range, _options(kind, tail, number, raw), number, raw)
            continue
        if current is None or not indented:
            scan.fail("'input ...', 'output ...', an indented term or 'rules'")
        term_name = scan.name()
        scan.literal("=")
        try:
            if current[0] == "input":
                value = _input_term(scan)
            else:
                value = _output_term(scan, [v.name for v in inputs])
        except FormatError:
            raise
        except (TypeError, ValueError) as exc:
            raise FormatError(str(exc).rstrip("."), line=number, text=raw) from None
        current[2].append((term_name, value))
    if section != "rules":
        number, raw = entries[-1]
        raise FormatError("no 'rules' section; the text is truncated", line=number, text=raw)
    if not rules:
        number, raw = entries[-1]
        raise FormatError("no rules after 'rules'", line=number, text=raw)
    try:
        return FuzzySystem(
            inputs, outputs, rules, conjunction=conjunction, disjunction=disjunction, name=name
        )
    except (TypeError, ValueError) as exc:
        message = str(exc)
        match = re.match(r"^Rule (\d+): ", message)
        number, raw = rule_lines[int(match.group(1)) - 1] if match else entries[1]
        raise FormatError(message.rstrip("."), line=number, text=raw) from None


def _options(kind, tail, number, raw):
    parts = [p.strip() for p in (tail or "").split(";") if p.strip()]
    if kind == "input":
        if parts not in ([], ["lock-range"]):
            raise FormatError("an input takes only ': lock-range'", line=number, text=raw)
        return parts
    if not parts or parts[0] not in _DEFUZZIFIERS:
        raise FormatError(
            "an output needs ': weighted average' or ': weighted sum'", line=number, text=raw
        )
    options = {"defuzzifier": _DEFUZZIFIERS[parts[0]]}
    for part in parts[1:]:
        key, _, value = part.partition(" ")
        if key == "aggregation" and value:
            options["aggregation"] = value.strip()
        elif key == "default" and value:
            options["default"] = Scanner(value.strip(), number).number("the default")
        elif part == "lock-range":
            options["lock_range"] = True
        else:
            raise FormatError(f"unknown output option {part!r}", line=number, text=raw)
    return options
