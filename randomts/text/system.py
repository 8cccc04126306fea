"""Text of a :class:`~randomts.FuzzySystem`: printed for people, and read back when lossless.

The layout, line by line::

    # Takagi-Sugeno fuzzy system: tipper
    # AND = prod; OR = probor
    input food in [0, 10]
      bad = Trapezoid(0, 0, 3, 7)
    output tip in [10, 20]: weighted average; aggregation max
      low = 10                       # a Constant
      high = 10 + 1*food             # a Linear: constant, then coefficient*input
    rules
      R1: if food is bad then tip is low with 0.5

- Term types and parameter orders are those of :mod:`randomts.fuzzy.terms`; a
  height other than 1 is written ``height=h``.
- After ``input ...`` may follow ``: lock-range``; after ``output ...`` the
  defuzzifier (``weighted average`` or ``weighted sum``), then optionally
  ``; aggregation <norm>``, ``; default <number>`` and ``; lock-range``.
- Names that are not plain words (letters, digits, ``_``, ``.``, ``-``) are
  JSON strings.
- ``precision=None`` writes every number with ``repr``: :func:`parse_system`
  reads that text back to an equal system, bit for bit. With a precision,
  zero coefficients of linear terms are left out, for reading.

Examples
--------
>>> from randomts import FuzzySystem, RuleBase
>>> system = FuzzySystem.from_rule_base(RuleBase.random(1, 1, 2, random_state=0))
>>> parse_system(format_system(system, None)) == system
True
"""

from __future__ import annotations

import json
import re

from randomts.exceptions import FormatError
from randomts.text.rules import format_number

__all__ = ["format_system", "parse_system", "HEADER"]

HEADER = "# Takagi-Sugeno fuzzy system:"
_NORMS_LINE = re.compile(r"^#\s*AND\s*=\s*(\S+)\s*;\s*OR\s*=\s*(\S+)\s*$")
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_NAME = rf"(?:{_QUOTED}|[^\s\"]+)"
_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_VARIABLE = re.compile(
    rf"^(input|output)\s+({_NAME})\s+in\s+\[\s*({_NUM}|-?inf)\s*,\s*({_NUM}|-?inf)\s*\]\s*(?::\s*(.*))?$"
)
_TERM = re.compile(rf"^\s+({_NAME})\s*=\s*(.*)$")
_CALL = re.compile(r"^([A-Za-z]+)\((.*)\)$")
_SLOPE = re.compile(rf"\s*([+-])\s*({_NUM})\*({_QUOTED}|\S+)")
_RULE = re.compile(r"^\s+R(\d+):\s*(.*)$")
_DEFUZZIFIERS = {"weighted average": "wtaver", "weighted sum": "wtsum"}


def _name(name):
    from randomts.fuzzy.system import _name_text

    return _name_text(name)


def _system_name(name):
    if name != name.strip() or "\n" in name or name.startswith('"'):
        return json.dumps(name, ensure_ascii=False)
    return name


def _equation(term, input_names, precision):
    from randomts.fuzzy.terms import Constant

    if isinstance(term, Constant):
        return format_number(term.value, precision)
    text = format_number(term.constant, precision)
    coefficients = term.coefficients
    skip = precision is not None and any(c != 0 for c in coefficients)
    for c, name in zip(coefficients, input_names, strict=False):
        if skip and c == 0:
            continue
        sign = "-" if c < 0 or (c == 0 and str(float(c)).startswith("-")) else "+"
        text += f" {sign} {format_number(abs(c), precision)}*{_name(name)}"
    return text


def format_system(system, precision=4) -> str:
    """The text of ``system`` (see the module docstring); ``precision=None`` is lossless.

    Examples
    --------
    >>> from randomts import FuzzySystem, RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], coef=[[[0.5]]], intercept=[[2.0]])
    >>> print(format_system(FuzzySystem.from_rule_base(rb)))
    # Takagi-Sugeno fuzzy system: randomts
    # AND = prod; OR = probor
    input x1 in [-3, 3]
      r1 = Gaussian(0, 1)
    output y in [1, 3]: weighted sum
      r1 = 2 + 0.5*x1
    rules
      R1: if x1 is r1 then y is r1
    """

    def number(value):
        return format_number(value, precision)

    lines = [
        f"{HEADER} {_system_name(system.name)}",
        f"# AND = {system.conjunction}; OR = {system.disjunction}",
    ]
    for variable in system.inputs:
        low, high = (number(v) for v in variable.range)
        head = f"input {_name(variable.name)} in [{low}, {high}]"
        lines.append(head + (": lock-range" if variable.lock_range else ""))
        for term_name, term in variable.terms.items():
            lines.append(f"  {_name(term_name)} = {term.to_text(precision)}")
    for variable in system.outputs:
        mode = "weighted average" if variable.defuzzifier == "wtaver" else "weighted sum"
        options = [mode]
        if variable.aggregation != "sum":
            options.append(f"aggregation {variable.aggregation}")
        if variable.default == variable.default:  # not NaN
            options.append(f"default {number(variable.default)}")
        if variable.lock_range:
            options.append("lock-range")
        lines.append(
            f"output {_name(variable.name)} in [{number(variable.range[0])}, "
            f"{number(variable.range[1])}]: " + "; ".join(options)
        )
        for term_name, term in variable.terms.items():
            lines.append(f"  {_name(term_name)} = {_equation(term, system.input_names, precision)}")
    lines.append("rules")
    for k, rule in enumerate(system.rules, start=1):
        lines.append(f"  R{k}: {rule.to_text(precision)}")
    return "\n".join(lines)


def _read_name(text, number, raw):
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


def _float(text, number, raw, what):
    try:
        value = float(text)
    except ValueError:
        raise FormatError(f"{what}: {text[:30]!r} is not a number", line=number, text=raw) from None
    return value


def _input_term(text, number, raw):
    from randomts.fuzzy.terms import make_term

    match = _CALL.match(text.strip())
    if not match:
        raise FormatError("expected a term 'Type(p1, p2, ...)'", line=number, text=raw)
    kind, body = match.groups()
    values, height = [], 1.0
    parts = [p.strip() for p in body.split(",")] if body.strip() else []
    for k, part in enumerate(parts):
        if part.startswith("height="):
            if k != len(parts) - 1:
                raise FormatError("height= must come last", line=number, text=raw)
            height = _float(part[len("height=") :].strip(), number, raw, "height")
        else:
            if not re.fullmatch(_NUM, part):
                raise FormatError(
                    f"term parameter {part[:30]!r} is not a number", line=number, text=raw
                )
            values.append(float(part))
    if kind in ("Constant", "Linear"):
        raise FormatError(f"{kind} is an output term, not an input term", line=number, text=raw)
    try:
        if kind == "Discrete":
            from randomts.fuzzy.terms import Discrete

            return Discrete(*values, height=height)
        term = make_term(kind, values)
        return term if height == 1.0 else make_term(kind, values + [height])
    except (TypeError, ValueError) as exc:
        raise FormatError(str(exc).rstrip("."), line=number, text=raw) from None


def _output_term(text, number, raw, input_names):
    from randomts.fuzzy.terms import Constant, Linear

    text = text.strip()
    match = re.match(_NUM, text)
    if not match:
        raise FormatError(
            "expected an output term 'constant [+ c*input ...]'", line=number, text=raw
        )
    constant = float(match.group(0))
    position, slopes = match.end(), {}
    while position < len(text):
        slope = _SLOPE.match(text, position)
        if not slope:
            raise FormatError(
                f"expected '+ coefficient*input' at {text[position : position + 20]!r}",
                line=number,
                text=raw,
            )
        sign, value, name = slope.groups()
        name = _read_name(name, number, raw)
        if name not in input_names:
            raise FormatError(f"{name!r} is not an input", line=number, text=raw)
        if name in slopes:
            raise FormatError(f"{name!r} appears twice", line=number, text=raw)
        slopes[name] = -float(value) if sign == "-" else float(value)
        position = slope.end()
    try:
        if not slopes:
            return Constant(constant)
        return Linear([slopes.get(name, 0.0) for name in input_names], constant)
    except (TypeError, ValueError) as exc:
        raise FormatError(str(exc).rstrip("."), line=number, text=raw) from None


def parse_system(text):
    """Read the text of :func:`format_system` back into a :class:`~randomts.FuzzySystem`.

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
    from randomts.fuzzy.system import FuzzySystem, InputVariable, OutputVariable, parse_rule

    lines = text.split("\n")
    entries = [(n, raw) for n, raw in enumerate(lines, start=1) if raw.strip()]
    if not entries or not entries[0][1].startswith(HEADER):
        number, raw = entries[0] if entries else (1, "")
        raise FormatError(f"expected the header line {HEADER!r} first", line=number, text=raw)
    name = entries[0][1][len(HEADER) :].strip()
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
        if section == "rules":
            match = _RULE.match(raw)
            if not match:
                raise FormatError(
                    "expected a rule '  R<k>: if ... then ...'", line=number, text=raw
                )
            if int(match.group(1)) != len(rules) + 1:
                raise FormatError(f"expected rule number R{len(rules) + 1}", line=number, text=raw)
            try:
                rules.append(parse_rule(match.group(2)))
            except (TypeError, ValueError) as exc:
                raise FormatError(str(exc).rstrip("."), line=number, text=raw) from None
            rule_lines.append((number, raw))
            continue
        if stripped == "rules" and not raw[:1].isspace():
            close()
            current = None
            section = "rules"
            continue
        variable = None if raw[:1].isspace() else _VARIABLE.match(stripped)
        if variable:
            close()
            kind, vname, low, high, tail = variable.groups()
            vname = _read_name(vname, number, raw)
            if kind == "input" and outputs:
                raise FormatError("an input after the outputs", line=number, text=raw)
            value_range = (_float(low, number, raw, "range"), _float(high, number, raw, "range"))
            options = _options(kind, tail, number, raw)
            current = (kind, vname, [], value_range, options, number, raw)
            continue
        term = _TERM.match(raw) if current is not None else None
        if not term:
            raise FormatError(
                "expected 'input ...', 'output ...', an indented term or 'rules'",
                line=number,
                text=raw,
            )
        term_name = _read_name(term.group(1), number, raw)
        if current[0] == "input":
            value = _input_term(term.group(2), number, raw)
        else:
            value = _output_term(term.group(2), number, raw, [v.name for v in inputs])
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
            options["default"] = _float(value.strip(), number, raw, "default")
        elif part == "lock-range":
            options["lock_range"] = True
        else:
            raise FormatError(f"unknown output option {part!r}", line=number, text=raw)
    return options
