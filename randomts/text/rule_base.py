"""The text of a rule base for people: readable rules, tables and the notebook's HTML.

**Readable rules** (:func:`describe_rules`, :meth:`RuleBase.to_text`,
``str(rule_base)``), numbers to 4 significant digits by default::

    # Takagi-Sugeno rule base: 2 rules, inputs (x1, x2), outputs (y)
    # x is about c (±s): exp(-(x - c)^2 / (2 s^2)); AND = product; output = weighted sum
    # equations: the rule's output at its centre + slope·(x - c) + ...
    # weighted sum: a THEN part is its rule's term of the sum over the rules, not the model's output where the rule fires
    R1: IF x1 is about 375 (±44) AND x2 is about 318 (±45) THEN y = 5.6 + 0.022·(x1 - 375) + ...

Each consequent is written where its rule lives, as the rule's output at its
own centre plus one slope per input (``centered=False`` writes the constant
``b`` at x = 0 instead); inputs can carry a linguistic label from the centre's
place in the input's recorded range (``labels``). Given what the rules do on
data (:func:`randomts.analysis.on_data.rules_on_data`: their importance and,
with targets, their agreement with the data), the rules come in order of
importance, ``top`` keeps the most important ones and each equation says
where it disagrees. A set that holds every value (width
:data:`~randomts.core.membership.UNTESTED_WIDTH`, which a fit gives an input
that was constant in training) tests nothing: its clause is left out of the
rule and a header line names the input. :func:`format_table` gives the same
numbers as a table in any `tabulate <https://pypi.org/project/tabulate/>`_
format, :func:`format_html` as the HTML table notebooks show.

The machine form of a rule base, lossless and read back, is the TXT format
of :mod:`randomts.io.text_format`.
"""

from __future__ import annotations

import html

import numpy as np

from randomts.core.membership import UNTESTED_WIDTH
from randomts.text.numbers import format_name, format_number
from randomts.text.tables import render_table

__all__ = [
    "agreement_problems",
    "ranking",
    "describe_rules",
    "format_table",
    "format_html",
    "linguistic_labels",
    "LABELS",
    "HEADER",
    "WEIGHTED_SUM_NOTE",
]

#: Linguistic labels by number of labels: the range of an input is cut into that many equal parts.
LABELS = {
    2: ("low", "high"),
    3: ("low", "medium", "high"),
    4: ("very low", "low", "high", "very high"),
    5: ("very low", "low", "medium", "high", "very high"),
    6: ("extremely low", "very low", "low", "high", "very high", "extremely high"),
    7: ("extremely low", "very low", "low", "medium", "high", "very high", "extremely high"),
}
_BELOW, _ABOVE = "below range", "above range"

#: First words of the header line of a rule base's text (readable, and the TXT format's).
HEADER = "# Takagi-Sugeno rule base:"
#: What readable text says of a weighted sum, whose THEN parts are terms of a sum, not outputs.
WEIGHTED_SUM_NOTE = (
    "# weighted sum: a THEN part is its rule's term of the sum over the rules, "
    "not the model's output where the rule fires"
)


# ------------------------------------------------------------ readable rules
def linguistic_labels(rule_base, n_labels=3, *, X=None):
    """A label for the centre of every rule on every input, from its place in the input's range.

    The range of input ``k`` (:attr:`RuleBase.input_range`, else the range of
    ``X``) is cut into ``n_labels`` equal parts named by :data:`LABELS`
    (``low``, ``medium``, ``high`` for 3); a centre outside the range is
    ``"below range"`` or ``"above range"``; an input whose range is one point
    gets the middle label (the upper middle for an even count).

    Parameters
    ----------
    rule_base : RuleBase
        The rules.
    n_labels : int, default=3
        Number of labels, 2 to 7.
    X : array-like of shape (n_samples, n_features), optional
        Data whose range is used when the rule base records none.

    Returns
    -------
    list of n_rules lists of n_features str

    Raises
    ------
    ValueError
        If the rule base records no input range and no ``X`` is given.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.5], [9.0], [12.0]], sigmas=[[1.0]] * 3,
    ...               input_range=[[0.0, 10.0]])
    >>> linguistic_labels(rb)
    [['low'], ['high'], ['above range']]
    >>> linguistic_labels(rb, 5)[1]
    ['very high']
    """
    from randomts._validation import check_matrix

    if isinstance(n_labels, bool) or n_labels not in LABELS:
        raise ValueError(
            f"The 'labels' parameter must be True or a number of labels in {sorted(LABELS)}; "
            f"got {n_labels!r}."
        )
    names = LABELS[n_labels]
    ranges = rule_base.input_range
    if ranges is None:
        if X is None:
            raise ValueError(
                "Linguistic labels need the inputs' ranges, but this rule base records none "
                "(input_range is None): pass the data X, or set input_range."
            )
        X = check_matrix(X, "X", n_columns=rule_base.n_features, owner="this rule base")
        ranges = np.column_stack([X.min(axis=0), X.max(axis=0)])
    low, high = ranges[:, 0], ranges[:, 1]
    span = high - low
    place = np.where(span > 0, (rule_base.centers - low) / np.where(span > 0, span, 1.0), 0.5)
    labels = []
    for i in range(rule_base.n_rules):
        row = []
        for k in range(rule_base.n_features):
            c = rule_base.centers[i, k]
            if c < low[k]:
                row.append(_BELOW)
            elif c > high[k]:
                row.append(_ABOVE)
            else:
                row.append(names[min(int(place[i, k] * n_labels), n_labels - 1)])
        labels.append(row)
    return labels


def _signed_terms(slopes, terms, precision):
    """`` + a·term - b·term`` for the non-zero slopes."""
    text = ""
    for slope, term in zip(slopes, terms, strict=True):
        if slope == 0:
            continue
        sign = "-" if slope < 0 else "+"
        text += f" {sign} {format_number(abs(slope), precision)}·{term}"
    return text


def _centred_terms(rule, input_names, precision):
    """``(x1 - c1)`` (or ``x1`` for c = 0) for every input of a rule."""
    terms = []
    for name, c in zip(input_names, rule.center, strict=True):
        name = format_name(name)
        if c == 0:
            terms.append(name)
        else:
            sign = "-" if c > 0 else "+"
            terms.append(f"({name} {sign} {format_number(abs(c), precision)})")
    return terms


def _readable_equations(rule_base, rule, precision, centered):
    """``(output name, equation text)`` of a rule, centred or with the constant at x = 0."""
    names = rule_base.input_names
    if centered:
        constants = rule.intercept + rule.coef @ rule.center
        terms = _centred_terms(rule, names, precision)
    else:
        constants = rule.intercept
        terms = [format_name(n) for n in names]
    return [
        (out, format_number(b, precision) + _signed_terms(a, terms, precision))
        for out, a, b in zip(rule_base.output_names, rule.coef, constants, strict=True)
    ]


def _untested_note(rule_base, precision):
    """The header line naming the inputs that no rule tests (sets that hold every value), or None."""
    untested = np.flatnonzero(np.all(rule_base.sigmas >= UNTESTED_WIDTH, axis=0))
    if untested.size == 0:
        return None
    ranges = rule_base.input_range
    parts = []
    for k in untested:
        name = format_name(rule_base.input_names[k])
        if ranges is not None and ranges[k, 0] == ranges[k, 1]:
            parts.append(f"{name} (it was {format_number(ranges[k, 0], precision)} in every row)")
        else:
            parts.append(name)
    return (
        f"# no rule tests {', '.join(parts)}: the model did not learn "
        f"{'its' if untested.size == 1 else 'their'} effect, and its output does not depend on "
        f"{'it' if untested.size == 1 else 'them'}"
    )


def _set_text(c, s, precision):
    """``about c (±s)``, or ``any value`` for a set that holds every value."""
    if s >= UNTESTED_WIDTH:
        return "any value"
    return f"about {format_number(c, precision)} (±{format_number(s, precision)})"


def _readable_antecedents(rule_base, rule, precision, labels):
    parts = []
    rows = zip(rule_base.input_names, rule.center, rule.sigma, strict=True)
    for k, (name, c, s) in enumerate(rows):
        if s >= UNTESTED_WIDTH:  # the set holds every value: the rule does not test the input
            continue
        where = f"{format_number(c, precision)} ±{format_number(s, precision)}"
        if labels is None:
            parts.append(
                f"{format_name(name)} is about {format_number(c, precision)} "
                f"(±{format_number(s, precision)})"
            )
        else:
            parts.append(f"{format_name(name)} is {labels[rule.index][k]} (about {where})")
    return parts


def _check_options(rule_base, precision, labels, on_data, top, centered):
    """Validated ``(precision, n_labels or None, order of the rules, importances or None)``."""
    from randomts._validation import check_int

    if not isinstance(centered, (bool, np.bool_)):
        raise TypeError(f"The 'centered' parameter must be a bool; got {centered!r}.")
    if precision is not None:
        precision = check_int(precision, "precision", low=1)
    if labels is None or labels is False:
        n_labels = None
    elif labels is True:
        n_labels = 3
    else:
        n_labels = labels
    return precision, n_labels, *ranking(rule_base.n_rules, on_data, top)


def ranking(n_rules, on_data, top):
    """``(order of the rules, importances or None)``: most important first on data, cut at ``top``.

    Without data (``on_data`` None) the rules keep their order and ``top``
    is refused.

    Examples
    --------
    >>> ranking(3, None, None)
    (array([0, 1, 2]), None)
    """
    if on_data is None:
        if top is not None:
            raise ValueError(
                "The 'top' parameter needs the data X to rank the rules by importance; "
                f"got top={top!r} and X=None."
            )
        return np.arange(n_rules), None
    return on_data.order(top), on_data.importance


def describe_rules(rule_base, precision=4, *, labels=None, centered=True, on_data=None, top=None):
    """The rules in words, for people: centres and spreads, equations where the rules live.

    Parameters
    ----------
    rule_base : RuleBase
        The rules.
    precision : int or None, default=4
        Significant digits; None writes every digit (``repr``).
    labels : bool or int, optional
        Name each antecedent by the place of its centre in the input's range
        (:func:`linguistic_labels`): True for ``low``/``medium``/``high``, or
        a number of labels (2 to 7).
    centered : bool, default=True
        Write each consequent as the rule's output at its own centre plus
        ``slope·(x - c)`` terms; False writes the constant ``b`` at x = 0 and
        ``slope·x`` terms.
    on_data : RulesOnData, optional
        What the rules do on data ``X``
        (:func:`randomts.analysis.on_data.rules_on_data`): the rules are
        listed by importance on ``X`` (shown as a percentage after the
        rule's number), most important first; with targets ``y``, each
        equation is followed by ``# at c: model m, data d (se e)``, the
        model's prediction at the rule's centre and the data's value there
        with its standard error, and ``!`` with what disagrees when the
        rule's ``THEN`` part lies more than
        :data:`randomts.analysis.agreement.TOLERANCE` standard deviations of
        ``y`` from the model, or from the data by more than that and more
        than :data:`randomts.analysis.agreement.NOISE_FACTOR` standard
        errors, or a width exceeds its input's range in ``X``.
        :meth:`RuleBase.to_text(X=..., y=...) <randomts.RuleBase.to_text>`
        passes it.
    top : int, optional
        With ``on_data``: list only the ``top`` most important rules.

    Returns
    -------
    str

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[375.0], [250.0]], sigmas=[[44.0], [50.0]],
    ...               coef=[[[0.022]], [[0.0]]], intercept=[[-2.65], [1.0]],
    ...               input_range=[[250.0, 400.0]], input_names=["speed"])
    >>> print(describe_rules(rb))
    # Takagi-Sugeno rule base: 2 rules, inputs (speed), outputs (y)
    # x is about c (±s): exp(-(x - c)^2 / (2 s^2)); AND = product; output = weighted sum
    # equations: the rule's output at its centre + slope·(x - c) + ...
    # weighted sum: a THEN part is its rule's term of the sum over the rules, not the model's output where the rule fires
    R1: IF speed is about 375 (±44) THEN y = 5.6 + 0.022·(speed - 375)
    R2: IF speed is about 250 (±50) THEN y = 1
    >>> print(describe_rules(rb, labels=True, centered=False).splitlines()[-2])
    R1: IF speed is high (about 375 ±44) THEN y = -2.65 + 0.022·speed
    >>> from randomts.analysis.on_data import rules_on_data
    >>> on_data = rules_on_data(rb, [[375.0], [250.0]])
    >>> for line in describe_rules(rb, on_data=on_data, top=1).splitlines()[4:]:
    ...     print(line)
    # most important first: R<k> (p%) holds p% of the absolute contributions on 2 samples
    R1 (84.4%): IF speed is about 375 (±44) THEN y = 5.6 + 0.022·(speed - 375)
    # ... 1 less important rules not shown (15.6% of the absolute contributions)
    """
    precision, n_labels, order, importance = _check_options(
        rule_base, precision, labels, on_data, top, centered
    )
    X = None if on_data is None else on_data.X
    names = None if n_labels is None else linguistic_labels(rule_base, n_labels, X=X)
    mode = "weighted average" if rule_base.normalize else "weighted sum"
    inputs = ", ".join(format_name(n) for n in rule_base.input_names)
    outputs = ", ".join(format_name(n) for n in rule_base.output_names)
    lines = [
        f"{HEADER} {rule_base.n_rules} rules, inputs ({inputs}), outputs ({outputs})",
        f"# x is about c (±s): exp(-(x - c)^2 / (2 s^2)); AND = product; output = {mode}",
    ]
    if centered and rule_base.order == 1:
        lines.append("# equations: the rule's output at its centre + slope·(x - c) + ...")
    if not rule_base.normalize:
        lines.append(WEIGHTED_SUM_NOTE)
    if rule_base.lock_range:
        held = ", ".join(
            f"{format_name(name)} in [{format_number(low, precision)}, "
            f"{format_number(high, precision)}]"
            for name, (low, high) in zip(
                rule_base.output_names, rule_base.output_range, strict=True
            )
        )
        lines.append(
            "# range locked: beyond the data each input is held at the edge of its range, "
            f"and the output in its range ({held})"
        )
    untested = _untested_note(rule_base, precision)
    if untested is not None:
        lines.append(untested)
    if importance is not None:
        lines.append(
            "# most important first: R<k> (p%) holds p% of the absolute contributions "
            f"on {on_data.n_samples} samples"
        )
    checked = None if on_data is None else on_data.agreement
    if checked is not None:
        lines.append(
            "# at c: the model's prediction and the data's mean (its standard error) at the "
            f"rule's centre; ! a THEN part more than {format_number(checked.tolerance)} sd of y "
            "from the model, or from the data beyond that and "
            f"{format_number(checked.noise_factor, 4)} standard errors, or a width beyond the "
            "data's range"
        )
    for i in order:
        rule = rule_base[int(i)]
        head = f"R{rule.index + 1}"
        if importance is not None:
            head += f" ({format_number(100 * importance[i], 3)}%)"
        antecedent = " AND ".join(_readable_antecedents(rule_base, rule, precision, names))
        antecedent = antecedent or "any input"
        equations = [
            f"{format_name(out)} = {eq}"
            for out, eq in _readable_equations(rule_base, rule, precision, centered)
        ]
        if checked is not None:
            equations = [
                eq + _agreement_note(rule_base, checked, int(i), m, precision)
                for m, eq in enumerate(equations)
            ]
        head = f"{head}: IF {antecedent} THEN"
        if len(equations) == 1:
            lines.append(f"{head} {equations[0]}")
        else:
            lines += [head] + [f"    {eq}" for eq in equations]
    hidden = rule_base.n_rules - len(order)
    if hidden:
        rest = max(0.0, 100 * (1.0 - float(importance[order].sum())))
        lines.append(
            f"# ... {hidden} less important rules not shown "
            f"({format_number(rest, 3)}% of the absolute contributions)"
        )
    return "\n".join(lines)


def _sd(distance):
    """A distance in standard deviations, as people read it: ``0.31``, ``2.4``, ``210``."""
    distance = abs(float(distance))
    return f"{distance:.0f}" if distance >= 10 else format_number(distance, 2)


def agreement_problems(input_names, checked, i, m):
    """What disagrees for rule ``i`` and output ``m`` of a :class:`~randomts.analysis.agreement.RuleAgreement`.

    The distances found off the model or the data, the inputs too wide (with
    ``m == 0``) and, for a rule that fires on no row, that it does not.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> from randomts.analysis.agreement import rule_agreement
    >>> X = np.linspace(-1, 1, 41)[:, None]
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[5.0]], intercept=[[3.0]])
    >>> agreement_problems(rb.input_names, rule_agreement(rb, X, X[:, 0]), 0, 0)
    ['5.1 sd from the data', 'wider than the data: x1']
    """
    problems = [
        f"{_sd(distance)} sd from the {what}"
        for what, distance, off in (
            ("model", checked.from_model[i, m], checked.off_model[i, m]),
            ("data", checked.from_data[i, m], checked.off_data[i, m]),
        )
        if off
    ]
    if m == 0 and np.isnan(checked.data[i]).all():
        problems.append("fires on no row of the data")
    if m == 0 and checked.too_wide[i].any():
        names = zip(input_names, checked.too_wide[i], strict=True)
        wide = [format_name(n) for n, w in names if w]
        problems.append("wider than the data: " + ", ".join(wide))
    return problems


def _agreement_note(rule_base, checked, i, m, precision):
    """``  # at c: model m, data d (se e)`` for rule ``i``, output ``m``; ``!`` what disagrees."""
    note = (
        f"  # at c: model {format_number(checked.model[i, m], precision)}, "
        f"data {format_number(checked.data[i, m], precision)} "
        f"(se {format_number(checked.data_error[i, m], precision)})"
    )
    problems = agreement_problems(rule_base.input_names, checked, i, m)
    return note + ("; ! " + "; ".join(problems) if problems else "")


# ------------------------------------------------------------------ tables


def format_table(
    rule_base, fmt="plain", precision=4, *, centered=True, labels=None, on_data=None, top=None
) -> str:
    """The rule base as a table: one row per rule, one column per number.

    Columns: ``rule``; with data, ``importance`` (the rule's share of the
    absolute contributions on ``X``); for each input ``x``, ``x: c``
    (centre), ``x: s`` (standard deviation; ``any`` for a set that holds every value) and,
    with ``labels``, ``x: label``;
    for each output ``y``, ``y: at c`` (the rule's output at its own centre;
    ``y: const``, the constant ``b`` at x = 0, when ``centered=False``) and
    ``y: x`` (the slope of input ``x``).

    Parameters
    ----------
    rule_base : RuleBase
        The rules.
    fmt : str, default="plain"
        A tabulate format (:data:`randomts.text.tables.TABLE_FORMATS`): ``"plain"``, ``"github"``,
        ``"latex"``, ``"html"``, ...
    precision : int or None, default=4
        Significant digits; None writes lossless ``repr`` numbers.
    centered, labels, on_data, top
        As in :func:`describe_rules`. With targets in ``on_data``: for each
        output ``y``, the columns ``y: model at c``, ``y: data at c`` and
        ``y: data se`` (the model's prediction and the data's value at the
        rule's centre, and that value's standard error), and a last column
        ``check``: what disagrees, as :func:`describe_rules` writes it after
        ``!``.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.5], [-1.0]], sigmas=[[0.25], [2.0]],
    ...               coef=[[[1.5]], [[0.0]]], intercept=[[0.1], [3.0]])
    >>> print(format_table(rb, fmt="github"))
    | rule   |   x1: c |   x1: s |   y: at c |   y: x1 |
    |--------|---------|---------|-----------|---------|
    | R1     |     0.5 |    0.25 |      0.85 |     1.5 |
    | R2     |      -1 |       2 |         3 |       0 |
    >>> from randomts.analysis.on_data import rules_on_data
    >>> print(format_table(rb, centered=False, on_data=rules_on_data(rb, [[0.5]])))
    rule      importance    x1: c    x1: s    y: const    y: x1
    R2            0.7271       -1        2           3        0
    R1            0.2729      0.5     0.25         0.1      1.5
    """
    precision, n_labels, order, importance = _check_options(
        rule_base, precision, labels, on_data, top, centered
    )
    X = None if on_data is None else on_data.X
    label_names = None if n_labels is None else linguistic_labels(rule_base, n_labels, X=X)
    names = [format_name(n) for n in rule_base.input_names]
    headers = ["rule"] + (["importance"] if importance is not None else [])
    for name in names:
        headers += [f"{name}: c", f"{name}: s"] + ([f"{name}: label"] if label_names else [])
    constant = "at c" if centered else "const"
    for out in rule_base.output_names:
        headers += [f"{format_name(out)}: {constant}"] + [f"{format_name(out)}: {n}" for n in names]
    checked = None if on_data is None else on_data.agreement
    if checked is not None:
        for out in rule_base.output_names:
            headers += [
                f"{format_name(out)}: model at c",
                f"{format_name(out)}: data at c",
                f"{format_name(out)}: data se",
            ]
        headers.append("check")
    rows = []
    for i in order:
        rule = rule_base[int(i)]
        row = [f"R{rule.index + 1}"]
        if importance is not None:
            row.append(format_number(importance[i], precision))
        for k, (c, s) in enumerate(zip(rule.center, rule.sigma, strict=True)):
            width = "any" if s >= UNTESTED_WIDTH else format_number(s, precision)
            row += [format_number(c, precision), width]
            if label_names:
                row.append(label_names[rule.index][k])
        constants = rule.intercept + rule.coef @ rule.center if centered else rule.intercept
        for a, b in zip(rule.coef, constants, strict=True):
            row += [format_number(b, precision)] + [format_number(v, precision) for v in a]
        if checked is not None:
            problems = []
            for m in range(rule_base.n_outputs):
                row += [
                    format_number(checked.model[i, m], precision),
                    format_number(checked.data[i, m], precision),
                    format_number(checked.data_error[i, m], precision),
                ]
                problems += agreement_problems(rule_base.input_names, checked, int(i), m)
            row.append("; ".join(problems))
        rows.append(row)
    return render_table(headers, rows, fmt)


def format_html(rule_base, precision=4, *, max_rules=20) -> str:
    """A compact HTML table of the rules, as notebooks show a :class:`RuleBase`.

    One row per rule: each input's set as ``about c (±s)`` and each output's
    equation in centred form (as :func:`describe_rules` writes them), under a
    caption with the sizes and the mode. Names and numbers are HTML-escaped.

    Parameters
    ----------
    rule_base : RuleBase
        The rules.
    precision : int or None, default=4
        Significant digits.
    max_rules : int, default=20
        Rows shown; a last row says how many more rules there are.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.5], [-1.0]], sigmas=[[0.25], [2.0]],
    ...               coef=[[[1.5]], [[0.0]]], intercept=[[0.1], [3.0]],
    ...               input_names=["a<b"])
    >>> html_text = format_html(rb, max_rules=1)
    >>> "<td>about 0.5 (±0.25)</td>" in html_text, "a&lt;b" in html_text
    (True, True)
    >>> "1 more rule" in html_text
    True
    """
    from randomts._validation import check_int

    if precision is not None:
        precision = check_int(precision, "precision", low=1)
    max_rules = check_int(max_rules, "max_rules", low=1)
    mode = "weighted average" if rule_base.normalize else "weighted sum"
    esc = html.escape
    sizes = ", ".join(
        f"{count} {word}{'' if count == 1 else 's'}"
        for count, word in (
            (rule_base.n_rules, "rule"),
            (rule_base.n_features, "input"),
            (rule_base.n_outputs, "output"),
        )
    )
    caption = (
        f"Takagi-Sugeno rule base: {sizes}, {mode}; x is about c (±s): Gaussian set, "
        "y = output at the rule's centre + slope·(x - c)"
    )
    if not rule_base.normalize:
        caption += "; " + WEIGHTED_SUM_NOTE[2:]
    head = ["rule"] + [f"IF {n} is" for n in rule_base.input_names]
    head += [f"THEN {n} =" for n in rule_base.output_names]
    out = [
        '<table class="randomts-rules">',
        f"<caption>{esc(caption)}</caption>",
        "<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr></thead>",
        "<tbody>",
    ]
    shown = min(max_rules, rule_base.n_rules)
    for i in range(shown):
        rule = rule_base[i]
        cells = [f"R{i + 1}"] + [
            _set_text(c, s, precision) for c, s in zip(rule.center, rule.sigma, strict=True)
        ]
        cells += [eq for _, eq in _readable_equations(rule_base, rule, precision, True)]
        out.append("<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in cells) + "</tr>")
    hidden = rule_base.n_rules - shown
    if hidden:
        more = f"… {hidden} more rule{'s' if hidden > 1 else ''}"
        out.append(f'<tr><td colspan="{len(head)}">{esc(more)}</td></tr>')
    out += ["</tbody>", "</table>"]
    return "\n".join(out)
