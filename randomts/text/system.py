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
- Names are written as :func:`randomts.text.numbers.format_name` writes
  them: plain tokens as they are, others as JSON strings.
- ``precision=None`` writes every number with ``repr``: :func:`randomts.io.text_format.parse_system`
  reads that text back to an equal system, bit for bit. With a precision,
  zero coefficients of linear terms are left out, for reading.

Examples
--------
>>> from randomts import FuzzySystem, RuleBase
>>> from randomts.io.text_format import parse_system
>>> system = FuzzySystem.from_rule_base(RuleBase.random(1, 1, 2, random_state=0))
>>> parse_system(format_system(system, None)) == system
True
"""

from __future__ import annotations

import json

import numpy as np

from randomts._validation import check_int
from randomts.text.numbers import format_name, format_number
from randomts.text.rule_base import agreement_problems, ranking
from randomts.text.tables import render_table

__all__ = ["format_system", "format_system_table", "HEADER"]

HEADER = "# Takagi-Sugeno fuzzy system:"


def _system_name(name):
    if name != name.strip() or "\n" in name or name.startswith('"'):
        return json.dumps(name, ensure_ascii=False)
    return name


def _equation(term, input_names, precision):
    if not hasattr(term, "coefficients"):  # a constant
        return format_number(term.value, precision)
    text = format_number(term.constant, precision)
    coefficients = term.coefficients
    skip = precision is not None and any(c != 0 for c in coefficients)
    for c, name in zip(coefficients, input_names, strict=False):
        if skip and c == 0:
            continue
        sign = "-" if c < 0 or (c == 0 and str(float(c)).startswith("-")) else "+"
        text += f" {sign} {format_number(abs(c), precision)}*{format_name(name)}"
    return text


def format_system(system, precision=4, *, on_data=None, top=None) -> str:
    """The text of ``system`` (see the module docstring); ``precision=None`` is lossless.

    Parameters
    ----------
    system : FuzzySystem
        The system.
    precision : int or None, default=4
        Significant digits; None writes every digit (``repr``), which
        :func:`randomts.io.text_format.parse_system` reads back bit for bit.
    on_data : RulesOnData, optional
        What the rules do on data ``X``
        (:func:`randomts.analysis.on_data.rules_on_data`): the rules are
        listed by importance on ``X`` (shown as a percentage after the
        rule's label), most important first, under a ``#`` line that says
        so; with targets ``y``, after each rule, for every output it
        concludes, ``# <output>: rule r, model m, data d (se e)``, the
        rule's ``THEN`` part, the model's prediction and ``y`` averaged
        where the rule fires (weighted by its degree on each row), and ``!``
        with what disagrees.
    top : int, optional
        With ``on_data``: list only the ``top`` most important rules, and
        say in a last ``#`` line how many were left out and their share.

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
    >>> rb = RuleBase(centers=[[0.0], [2.0]], sigmas=[[1.0], [1.0]], intercept=[[1.0], [5.0]])
    >>> from randomts.analysis.on_data import rules_on_data
    >>> system = FuzzySystem.from_rule_base(rb)
    >>> text = format_system(system, on_data=rules_on_data(system, [[0.0], [2.0]]), top=1)
    >>> for line in text.splitlines()[-4:]:
    ...     print(line)
    rules
      # most important first: R<k> (p%) holds p% of the absolute contributions on 2 samples
      R2 (83.3%): if x1 is r2 then y is r2
      # ... 1 less important rules not shown (16.7% of the absolute contributions)
    """
    if precision is not None:
        precision = check_int(precision, "precision", low=1)
    order, importance = ranking(system.n_rules, on_data, top)
    checked = None if on_data is None else on_data.agreement

    def number(value):
        return format_number(value, precision)

    lines = [
        f"{HEADER} {_system_name(system.name)}",
        f"# AND = {system.conjunction}; OR = {system.disjunction}",
    ]
    for variable in system.inputs:
        low, high = (number(v) for v in variable.range)
        head = f"input {format_name(variable.name)} in [{low}, {high}]"
        lines.append(head + (": lock-range" if variable.lock_range else ""))
        for term_name, term in variable.terms.items():
            lines.append(f"  {format_name(term_name)} = {term.to_text(precision)}")
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
            f"output {format_name(variable.name)} in [{number(variable.range[0])}, "
            f"{number(variable.range[1])}]: " + "; ".join(options)
        )
        for term_name, term in variable.terms.items():
            lines.append(
                f"  {format_name(term_name)} = {_equation(term, system.input_names, precision)}"
            )
    lines.append("rules")
    if importance is not None:
        lines.append(
            "  # most important first: R<k> (p%) holds p% of the absolute contributions "
            f"on {on_data.n_samples} samples"
        )
    if checked is not None:
        lines.append(
            "  # where a rule fires (means weighted by its degree on the data): its THEN part, "
            "the model's prediction and the data's mean (its standard error); ! more than "
            f"{format_number(checked.tolerance, 4)} sd of y from the model, or from the data "
            f"beyond that and {format_number(checked.noise_factor, 4)} standard errors"
        )
    for i in order:
        lines.append(f"  {_label(i, importance)}: {system.rules[i].to_text(precision)}")
        if checked is not None:
            lines += _agreement_lines(system, checked, int(i), precision)
    hidden = system.n_rules - len(order)
    if hidden:
        lines.append(f"  # ... {_not_shown(hidden, importance, order)}")
    return "\n".join(lines)


def _agreement_lines(system, checked, i, precision):
    """``# <output>: rule r, model m, data d (se e)`` lines of rule ``i``, with ``!`` problems."""
    if np.isnan(checked.data[i]).all():
        return ["    # ! fires on no row of the data"]
    lines = []
    for m, name in enumerate(system.output_names):
        if np.isnan(checked.at_center[i, m]):
            continue  # the rule does not conclude this output
        line = (
            f"    # {format_name(name)}: rule {format_number(checked.at_center[i, m], precision)}, "
            f"model {format_number(checked.model[i, m], precision)}, "
            f"data {format_number(checked.data[i, m], precision)} "
            f"(se {format_number(checked.data_error[i, m], precision)})"
        )
        problems = agreement_problems(system.input_names, checked, i, m)
        lines.append(line + ("; ! " + "; ".join(problems) if problems else ""))
    return lines


def _label(i, importance):
    """``R<i+1>``, followed by the rule's importance in percent when there is one."""
    if importance is None:
        return f"R{i + 1}"
    return f"R{i + 1} ({format_number(100 * importance[i], 3)}%)"


def _not_shown(hidden, importance, order):
    rest = max(0.0, 100 * (1.0 - float(importance[order].sum())))
    return (
        f"{hidden} less important rules not shown "
        f"({format_number(rest, 3)}% of the absolute contributions)"
    )


def _clauses_by_input(rule):
    """The antecedent's propositions by input, or None when it nests or names an input twice."""
    antecedent = rule.antecedent
    clauses = list(getattr(antecedent, "operands", (antecedent,)))
    by_input = {}
    for clause in clauses:
        if hasattr(clause, "operands") or clause.variable in by_input:
            return None
        by_input[clause.variable] = clause
    return by_input


def _after_is(proposition, precision=None):
    """``not very Low`` of ``x is not very Low``."""
    text = proposition.to_text(precision)
    return text[len(format_name(proposition.variable)) + len(" is ") :]


def format_system_table(system, fmt="plain", precision=4, *, on_data=None, top=None) -> str:
    """The rules of a system as a table: one row per rule, the terms it names in columns.

    Columns: ``rule``; with data, ``importance`` (the rule's share of the
    absolute contributions on ``X``, :func:`randomts.analysis.importance.rule_importance`);
    then the antecedent: when every rule joins at most one proposition per
    input with one connective, a column ``<input> is`` per input (the term
    with its hedges, empty where the rule does not use the input) and, if
    some rule uses ``or``, a column ``connective``; otherwise one column
    ``if`` with the antecedent's text. Then a column ``then <output> is``
    per output (empty where the rule does not conclude it) and, if some
    rule has a weight other than 1, ``weight``. The terms themselves are
    written by :func:`format_system`.

    Parameters
    ----------
    system : FuzzySystem
        The system.
    fmt : str, default="plain"
        A tabulate format (:data:`randomts.text.tables.TABLE_FORMATS`).
    precision : int or None, default=4
        Significant digits of the importances, weights and powers; None
        writes every digit.
    on_data, top
        As in :func:`format_system`. With targets in ``on_data``: for each
        output ``y``, the columns ``y: rule``, ``y: model``, ``y: data`` and
        ``y: data se`` (the rule's ``THEN`` part, the model's prediction,
        the data's mean and its standard error, averaged where the rule
        fires; empty where the rule does not conclude ``y``), and a last
        column ``check``: what disagrees.

    Examples
    --------
    >>> import randomts
    >>> fz, terms = randomts.fuzzy, randomts.fuzzy.terms
    >>> system = randomts.FuzzySystem(
    ...     [fz.InputVariable("food", {"bad": terms.Triangle(0, 0, 6),
    ...                                "good": terms.Triangle(4, 10, 10)}, range=(0, 10))],
    ...     [fz.OutputVariable("tip", {"low": terms.Constant(5.0), "high": terms.Constant(20.0)},
    ...                        range=(0, 30))],
    ...     ["if food is bad then tip is low", "if food is not bad then tip is high with 0.5"])
    >>> from randomts.analysis.on_data import rules_on_data
    >>> on_data = rules_on_data(system, [[1.0], [9.0]])
    >>> print(format_system_table(system, fmt="github", on_data=on_data))
    | rule   |   importance |   food is |   then tip is |   weight |
    |--------|--------------|-----------|---------------|----------|
    | R2     |       0.8276 |   not bad |          high |      0.5 |
    | R1     |       0.1724 |       bad |           low |        1 |
    """
    if precision is not None:
        precision = check_int(precision, "precision", low=1)
    order, importance = ranking(system.n_rules, on_data, top)
    checked = None if on_data is None else on_data.agreement
    clauses = [_clauses_by_input(rule) for rule in system.rules]
    flat = all(by_input is not None for by_input in clauses)
    uses_or = any(getattr(rule.antecedent, "operator", "and") == "or" for rule in system.rules)
    weighted = any(rule.weight != 1.0 for rule in system.rules)
    headers = ["rule"] + (["importance"] if importance is not None else [])
    if flat:
        headers += [f"{format_name(name)} is" for name in system.input_names]
        headers += ["connective"] if uses_or else []
    else:
        headers.append("if")
    headers += [f"then {format_name(name)} is" for name in system.output_names]
    headers += ["weight"] if weighted else []
    if checked is not None:
        for name in system.output_names:
            name = format_name(name)
            headers += [f"{name}: rule", f"{name}: model", f"{name}: data", f"{name}: data se"]
        headers.append("check")
    rows = []
    for i in order:
        rule = system.rules[i]
        row = [f"R{i + 1}"]
        if importance is not None:
            row.append(format_number(importance[i], precision))
        if flat:
            row += [
                _after_is(clauses[i][name], precision) if name in clauses[i] else ""
                for name in system.input_names
            ]
            if uses_or:
                row.append(getattr(rule.antecedent, "operator", ""))
        else:
            row.append(rule.antecedent.to_text(precision))
        concluded = {p.variable: p for p in rule.consequent}
        row += [
            _after_is(concluded[name], precision) if name in concluded else ""
            for name in system.output_names
        ]
        if weighted:
            row.append(format_number(rule.weight, precision))
        if checked is not None:
            problems = []
            for m in range(system.n_outputs):
                figures = (checked.at_center, checked.model, checked.data, checked.data_error)
                concluded = not np.isnan(checked.at_center[i, m])
                row += [format_number(f[i, m], precision) if concluded else "" for f in figures]
                if concluded or m == 0:
                    problems += agreement_problems(system.input_names, checked, int(i), m)
            row.append("; ".join(problems))
        rows.append(row)
    return render_table(headers, rows, fmt)
