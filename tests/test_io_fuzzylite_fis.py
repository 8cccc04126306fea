"""FIS files as fuzzylite writes them read as pyfuzzylite evaluates the same engine.

fuzzylite's FIS exporter (C++ fuzzylite 6, ``FisExporter``) extends MATLAB's
format: ``'rampmf'`` terms, ``Enabled=``, ``LockRange=``, ``LockPrevious=``
and ``Default=`` lines, empty methods (``AndMethod=''`` where the engine has
no conjunction) and rules that skip an output (index 0). pyfuzzylite 8 has no
FIS exporter, so :func:`fuzzylite_fis` below writes a pyfuzzylite engine the
way that exporter lays a file out: numbers with fuzzylite's 3 decimals
(``Op::str``), booleans as ``1``/``0``, every index as a number
(``1.000 0.000 , 2.000 (1.000) : 1``). Each engine is written in FLL, built
by pyfuzzylite's ``FllImporter``, exported to FIS, read by randomts, and both
evaluate a grid. Parameters lie on a grid of 1/8, which 3 decimals hold
exactly, so both engines evaluate the same numbers.

The tolerance: both compute the same memberships, norms and weighted sums,
in orders that may differ, and pyfuzzylite's weighted sum is ``(s / w) * w``;
each degree then carries a few roundings (relative error ``k * eps``) and an
output of ``n`` terms ``z`` an absolute error below ``n * k * eps * max|z|``.
The tests use ``k = 16`` and ``rtol=1e-12`` on top.
"""

import math
import re
import warnings

import numpy as np
import pytest

from randomts import FormatError, FuzzySystem, RuleBase
from randomts.exceptions import NoRuleFiredWarning
from randomts.fuzzy.terms import Ramp
from randomts.io import dumps, loads

fl = pytest.importorskip("fuzzylite", reason="pip install --no-deps pyfuzzylite")

EPS = float(np.finfo(float).eps)

# ------------------------------------------------------- fuzzylite's FIS exporter

_NORMS = {
    "Minimum": "min",
    "AlgebraicProduct": "prod",
    "BoundedDifference": "bounded_difference",
    "DrasticProduct": "drastic_product",
    "EinsteinProduct": "einstein_product",
    "HamacherProduct": "hamacher_product",
    "NilpotentMinimum": "nilpotent_minimum",
    "Maximum": "max",
    "AlgebraicSum": "probor",
    "BoundedSum": "bounded_sum",
    "NormalizedSum": "normalized_sum",
    "DrasticSum": "drastic_sum",
    "EinsteinSum": "einstein_sum",
    "HamacherSum": "hamacher_sum",
    "NilpotentMaximum": "nilpotent_maximum",
    "UnboundedSum": "sum",
}
_HEDGE_CODES = {"very": 0.2, "somewhat": 0.05, "extremely": 0.3, "seldom": 0.01, "any": 0.99}


def _str(value, decimals=3):
    """fuzzylite's ``Op::str``: fixed decimals, ``nan`` and ``inf`` by name."""
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{decimals}f}"


def _join(values):
    return " ".join(_str(v) for v in values)


def _translate(norm):
    return "" if norm is None else _NORMS[type(norm).__name__]


def _term(term):
    kind = type(term).__name__
    if kind == "Ramp":
        return f"'rampmf',[{_join([term.start, term.end])}]"
    if kind == "Triangle":
        return f"'trimf',[{_join([term.left, term.top, term.right])}]"
    if kind == "Trapezoid":
        vertices = [term.bottom_left, term.top_left, term.top_right, term.bottom_right]
        return f"'trapmf',[{_join(vertices)}]"
    if kind == "Gaussian":
        return f"'gaussmf',[{_join([term.standard_deviation, term.mean])}]"
    if kind == "Sigmoid":
        return f"'sigmf',[{_join([term.slope, term.inflection])}]"
    if kind == "SShape":
        return f"'smf',[{_join([term.start, term.end])}]"
    if kind == "ZShape":
        return f"'zmf',[{_join([term.start, term.end])}]"
    if kind == "Rectangle":
        return f"'rectmf',[{_join([term.start, term.end])}]"
    if kind == "Cosine":
        return f"'cosinemf',[{_join([term.center, term.width])}]"
    if kind == "Concave":
        return f"'concavemf',[{_join([term.inflection, term.end])}]"
    if kind == "Spike":
        return f"'spikemf',[{_join([term.center, term.width])}]"
    if kind == "Constant":
        return f"'constant',[{_str(term.value)}]"
    if kind == "Linear":
        return f"'linear',[{_join(term.coefficients)}]"
    raise NotImplementedError(kind)


def _codes(propositions, variables):
    """One code per variable: term index plus hedge code, negative for ``not``, 0 if absent."""
    codes = []
    for variable in variables:
        index, hedge, sign = 0, 0.0, ""
        for proposition in propositions:
            if proposition.variable is not variable:
                continue
            index = next(j + 1 for j, t in enumerate(variable.terms) if t is proposition.term)
            for h in proposition.hedges:
                if h.name == "not":
                    sign = "-" if not sign else ""
                else:
                    hedge += _HEDGE_CODES[h.name]
            break
        codes.append(sign + _str(index + hedge) + " ")
    return "".join(codes)


def _antecedent(expression):
    """The propositions and operators of an antecedent, breadth first (as fuzzylite walks it)."""
    propositions, operators, queue = [], [], [expression]
    while queue:
        node = queue.pop(0)
        if isinstance(node, fl.Operator):
            queue += [node.left, node.right]
            operators.append(node.name)
        else:
            propositions.append(node)
    assert len(set(operators)) <= 1, "a FIS rule has one connective"
    return propositions, operators


def fuzzylite_fis(engine):
    """``engine`` as a FIS file laid out as fuzzylite 6's ``FisExporter`` writes it."""
    block = engine.rule_blocks[0]
    first = engine.output_variables[0]
    for variable in engine.output_variables:  # the exporter writes the first output's
        assert type(variable.defuzzifier) is type(first.defuzzifier)
        assert _translate(variable.aggregation) == _translate(first.aggregation)
    defuzzifier = {"WeightedAverage": "wtaver", "WeightedSum": "wtsum"}
    lines = [
        "[System]",
        f"Name='{engine.name}'",
        "Type='sugeno'",
        "Version=6.0",
        f"NumInputs={len(engine.input_variables)}",
        f"NumOutputs={len(engine.output_variables)}",
        f"NumRules={len(block.rules)}",
        f"AndMethod='{_translate(block.conjunction)}'",
        f"OrMethod='{_translate(block.disjunction)}'",
        f"ImpMethod='{_translate(block.implication)}'",
        f"AggMethod='{_translate(first.aggregation)}'",
        f"DefuzzMethod='{defuzzifier[type(first.defuzzifier).__name__]}'",
        "",
    ]
    for k, variable in enumerate(engine.input_variables, start=1):
        lines += [
            f"[Input{k}]",
            f"Name='{variable.name}'",
            f"Enabled={int(variable.enabled)}",
            f"Range=[{_join([variable.minimum, variable.maximum])}]",
            f"LockRange={int(variable.lock_range)}",
            f"NumMFs={len(variable.terms)}",
        ]
        lines += [f"MF{j}='{t.name}':{_term(t)}" for j, t in enumerate(variable.terms, start=1)]
        lines.append("")
    for k, variable in enumerate(engine.output_variables, start=1):
        lines += [
            f"[Output{k}]",
            f"Name='{variable.name}'",
            f"Enabled={int(variable.enabled)}",
            f"Range=[{_join([variable.minimum, variable.maximum])}]",
            f"LockRange={int(variable.lock_range)}",
            f"Default={_str(variable.default_value)}",
            f"LockPrevious={int(variable.lock_previous)}",
            f"NumMFs={len(variable.terms)}",
        ]
        lines += [f"MF{j}='{t.name}':{_term(t)}" for j, t in enumerate(variable.terms, start=1)]
        lines.append("")
    lines.append("[Rules]")
    for rule in block.rules:
        propositions, operators = _antecedent(rule.antecedent.expression)
        connection = "2" if operators[:1] == ["or"] else "1"
        lines.append(
            _codes(propositions, engine.input_variables)
            + ", "
            + _codes(rule.consequent.conclusions, engine.output_variables)
            + f"({_str(rule.weight)}) : {connection}"
        )
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ evaluation


def grid(engine, points_per_input, margin=0.125):
    """A grid over every input's range, widened by ``margin`` of its span on both sides."""
    axes = []
    for variable in engine.input_variables:
        low, high = variable.minimum, variable.maximum
        span = high - low
        axes.append(np.linspace(low - margin * span, high + margin * span, points_per_input))
    return np.stack([a.ravel() for a in np.meshgrid(*axes, indexing="ij")], axis=1)


def fuzzylite_outputs(engine, X):
    for variable in engine.output_variables:
        variable.clear()  # lock-previous would read the last call's value
    for variable, column in zip(engine.input_variables, X.T, strict=True):
        variable.value = column
    engine.process()
    return np.stack(
        [np.broadcast_to(np.asarray(v.value, float), len(X)) for v in engine.output_variables],
        axis=1,
    )


def predict(system, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoRuleFiredWarning)
        return system.predict(X)


def tolerance(system, X):
    """``16 * n * eps * max|z|``: n terms of size at most max|z| (see the module docstring)."""
    values = np.abs(system.rule_outputs(X))
    largest = float(np.nanmax(values)) if np.isfinite(values).any() else 1.0
    n_terms = sum(len(v.terms) for v in system.outputs)
    return 16 * n_terms * EPS * max(largest, 1.0)


def compare(system, engine, X):
    """randomts' outputs against pyfuzzylite's on ``X``; the largest absolute difference.

    Where no rule fires, pyfuzzylite 8 gives a weighted sum NaN and randomts 0,
    the empty sum (see :mod:`randomts.fuzzy`): there randomts must be 0.
    """
    ours, theirs = predict(system, X), fuzzylite_outputs(engine, X)
    for m, variable in enumerate(system.outputs):
        if variable.defuzzifier == "wtsum" and math.isnan(variable.default):
            empty = np.isnan(theirs[:, m]) & ~np.isnan(ours[:, m])
            assert np.all(ours[empty, m] == 0.0)  # exact: the empty sum
            theirs[empty, m] = 0.0
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=tolerance(system, X))
    both = ~np.isnan(theirs)
    return float(np.max(np.abs(ours[both] - theirs[both]), initial=0.0))


# --------------------------------------------------------------------- engines

RAMPS = """\
Engine: ramps
InputVariable: service
  enabled: true
  range: 0.000 10.000
  lock-range: true
  term: poor Ramp 5.000 0.000
  term: good Ramp 4.000 10.000
  term: mid Triangle 2.000 5.000 8.000
InputVariable: food
  enabled: true
  range: 0.000 10.000
  lock-range: false
  term: rancid Ramp 6.000 1.000
  term: tasty Ramp 3.500 9.000
OutputVariable: tip
  enabled: true
  range: 0.000 30.000
  lock-range: true
  aggregation: none
  defuzzifier: WeightedAverage TakagiSugeno
  default: 2.500
  lock-previous: false
  term: cheap Constant 5.000
  term: generous Linear 1.500 2.000 3.000
  term: average Constant 15.000
OutputVariable: bonus
  enabled: true
  range: -5.000 5.000
  lock-range: false
  aggregation: none
  defuzzifier: WeightedAverage TakagiSugeno
  default: -1.000
  lock-previous: false
  term: nothing Constant 0.000
  term: some Linear 0.250 -0.500 1.000
RuleBlock: rules
  enabled: true
  conjunction: Minimum
  disjunction: none
  implication: none
  activation: General
  rule: if service is poor and food is rancid then tip is cheap and bonus is nothing
  rule: if service is good and food is tasty then tip is generous
  rule: if service is mid then tip is average and bonus is some
  rule: if food is not tasty then bonus is some with 0.500
"""

NO_AND = """\
Engine: no_and
InputVariable: x
  enabled: true
  range: -1.000 1.000
  lock-range: false
  term: low Ramp 0.500 -1.000
  term: high Ramp -0.500 1.000
  term: zero Triangle -0.500 0.000 0.500
InputVariable: z
  enabled: true
  range: 0.000 4.000
  lock-range: false
  term: small ZShape 0.000 4.000
  term: large SShape 0.000 4.000
OutputVariable: y
  enabled: true
  range: -3.000 3.000
  lock-range: false
  aggregation: Maximum
  defuzzifier: WeightedSum TakagiSugeno
  default: nan
  lock-previous: false
  term: a Linear 1.000 -1.000 0.500
  term: b Constant 2.000
RuleBlock: rules
  enabled: true
  conjunction: none
  disjunction: Maximum
  implication: none
  activation: General
  rule: if x is low or z is large then y is a
  rule: if x is high then y is b
  rule: if z is small then y is b
  rule: if x is zero or z is small then y is a with 0.500
"""

DISABLED = """\
Engine: disabled
InputVariable: a
  enabled: true
  range: 0.000 1.000
  lock-range: false
  term: lo Ramp 1.000 0.000
  term: hi Ramp 0.000 1.000
InputVariable: b
  enabled: false
  range: 0.000 1.000
  lock-range: false
  term: lo Ramp 1.000 0.000
  term: hi Ramp 0.000 1.000
OutputVariable: y
  enabled: true
  range: 0.000 4.000
  lock-range: false
  aggregation: none
  defuzzifier: WeightedAverage TakagiSugeno
  default: nan
  lock-previous: false
  term: p Constant 1.000
  term: q Constant 3.000
  term: r Linear 2.000 0.500 -1.000
RuleBlock: rules
  enabled: true
  conjunction: AlgebraicProduct
  disjunction: AlgebraicSum
  implication: none
  activation: General
  rule: if a is lo and b is hi then y is p
  rule: if a is hi or b is lo then y is q
  rule: if a is lo or b is not hi then y is r
  rule: if b is lo then y is p
"""

ENGINES = {"ramps": RAMPS, "no_and": NO_AND, "disabled": DISABLED}


def engine_and_fis(fll):
    engine = fl.FllImporter().from_string(fll)
    return engine, fuzzylite_fis(engine)


def test_the_exporter_writes_fuzzylites_dialect():
    """The files under test hold what the reader must understand."""
    text = engine_and_fis(RAMPS)[1]
    for line in (
        "MF1='poor':'rampmf',[5.000 0.000]",
        "Enabled=1",
        "LockRange=1",
        "Default=2.500",
        "LockPrevious=0",
        "OrMethod=''",
        "AggMethod=''",
        "2.000 2.000 , 2.000 0.000 (1.000) : 1",  # bonus skipped: index 0
        "0.000 -2.000 , 0.000 2.000 (0.500) : 1",  # not tasty
    ):
        assert line in text.split("\n"), line
    assert "AndMethod=''" in engine_and_fis(NO_AND)[1]
    assert "Enabled=0" in engine_and_fis(DISABLED)[1]


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_fuzzylite_fis_files_evaluate_as_pyfuzzylite(name):
    engine, text = engine_and_fis(ENGINES[name])
    system = loads(text, "fis")
    assert isinstance(system, FuzzySystem)
    X = grid(engine, 41)
    compare(system, engine, X)
    from_fll = loads(ENGINES[name], "fll")  # the FLL reader reads the same engine
    np.testing.assert_allclose(
        predict(from_fll, X), predict(system, X), rtol=1e-12, atol=tolerance(system, X)
    )


def test_what_each_dialect_line_becomes():
    system = loads(engine_and_fis(RAMPS)[1], "fis")
    service, food = system.inputs
    tip, bonus = system.outputs
    assert service.terms["poor"] == Ramp(5.0, 0.0) and service.lock_range
    assert not food.lock_range
    assert tip.lock_range and tip.default == 2.5 and bonus.default == -1.0  # exact: 3 decimals
    assert tip.aggregation == "sum"  # AggMethod='': fuzzylite's none, the sum
    assert [p.variable for p in system.rules[1].consequent] == ["tip"]  # index 0: no bonus
    assert [p.variable for p in system.rules[3].consequent] == ["bonus"]
    X = np.array([[1.0, 9.5], [12.0, 9.0], [-3.0, 1.0]])
    Y = predict(system, X)
    # row 0: no rule fires for either output: the defaults; row 1: service clipped to 10 and
    # tip = 1.5*10 + 2*9 + 3 = 36 clipped to 30; row 2: service clipped to 0, poor and rancid
    # (rule 1, degree 1), not tasty (rule 4, degree 0.5, bonus = 0.25*0 - 0.5*1 + 1 = 0.5).
    np.testing.assert_allclose(Y[0], [2.5, -1.0], rtol=0, atol=0)
    np.testing.assert_allclose(Y[1, 0], 30.0, rtol=0, atol=0)
    np.testing.assert_allclose(Y[2], [5.0, (0.5 * 0.5) / 1.5], rtol=4 * EPS, atol=0)


def test_a_disabled_input_drops_out_as_in_fuzzylite():
    """b is disabled: its propositions are 0, even under 'not'; rules 1 and 4 never fire."""
    for text, fmt in ((engine_and_fis(DISABLED)[1], "fis"), (DISABLED, "fll")):
        system = loads(text, fmt)
        assert [rule.to_text() for rule in system.rules] == [
            "if a is lo and b is hi then y is p with 0.0",
            "if a is hi then y is q",
            "if a is lo then y is r",
            "if b is lo then y is p with 0.0",
        ]
        assert system.input_names == ("a", "b")  # the input stays: X keeps its column


def test_where_every_rule_needs_a_disabled_input_no_rule_fires_as_in_fuzzylite():
    """Every rule ANDs b: fuzzylite's outputs are NaN everywhere, and so are randomts'."""
    fll = DISABLED.replace(" or ", " and ")
    engine, text = engine_and_fis(fll)
    system = loads(text, "fis")
    assert all(rule.weight == 0.0 for rule in system.rules)  # exact: set to 0
    X = grid(engine, 11)
    assert np.isnan(fuzzylite_outputs(engine, X)).all()
    compare(system, engine, X)


# ---------------------------------------------------------------- random engines

_TERMS = [
    *("Ramp", "Ramp", "Triangle", "Trapezoid", "Gaussian", "Sigmoid", "SShape", "ZShape"),
    *("Rectangle", "Cosine", "Concave", "Spike"),  # fuzzylite's own FIS names
]
_CONJUNCTIONS = [None, "Minimum", "AlgebraicProduct", "EinsteinProduct", "HamacherProduct"]
_DISJUNCTIONS = [None, "Maximum", "AlgebraicSum", "EinsteinSum", "HamacherSum", "UnboundedSum"]
_AGGREGATIONS = ["none", "Maximum", "AlgebraicSum", "EinsteinSum"]


def _eighths(rng, low, high, size=None):
    """Multiples of 1/8 in [low, high]: exact in fuzzylite's 3 decimals."""
    return np.round(rng.uniform(low, high, size=size) * 8) / 8


def _random_term(rng, kind, low, high):
    points = np.sort(_eighths(rng, low, high, size=4))
    while len(set(points)) < 4:
        points = np.sort(_eighths(rng, low, high, size=4))
    a, b, c, d = (float(p) for p in points)
    if kind == "Ramp":
        return f"Ramp {a:.3f} {c:.3f}" if rng.random() < 0.5 else f"Ramp {c:.3f} {a:.3f}"
    if kind == "Triangle":
        return f"Triangle {a:.3f} {b:.3f} {d:.3f}"
    if kind == "Trapezoid":
        return f"Trapezoid {a:.3f} {b:.3f} {c:.3f} {d:.3f}"
    if kind == "Gaussian":
        return f"Gaussian {b:.3f} {max(c - b, 0.25):.3f}"
    if kind == "Sigmoid":
        return f"Sigmoid {b:.3f} {float(rng.choice([-2.0, -0.5, 1.0, 4.0])):.3f}"
    if kind == "SShape":
        return f"SShape {a:.3f} {c:.3f}"
    if kind == "Rectangle":
        return f"Rectangle {a:.3f} {c:.3f}"
    if kind == "Cosine":
        return f"Cosine {b:.3f} {d - a:.3f}"
    if kind == "Concave":
        return f"Concave {b:.3f} {c:.3f}" if rng.random() < 0.5 else f"Concave {c:.3f} {b:.3f}"
    if kind == "Spike":
        return f"Spike {b:.3f} {d - a:.3f}"
    return f"ZShape {b:.3f} {d:.3f}"


def random_engine(seed):
    """A random Sugeno engine that fuzzylite's FIS holds, in FLL.

    Ramps and MATLAB's terms on a 1/8 grid, disabled and locked inputs,
    locked outputs with defaults, empty (none) norms, rules skipping inputs
    and outputs, NOT, very and somewhat in antecedents, weights. Norms with
    thresholds (bounded, drastic, nilpotent) are left out: a rounding of a
    degree would move an output across their steps.
    """
    rng = np.random.default_rng(seed)
    n_inputs, n_outputs = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    disabled = set(np.flatnonzero(rng.random(n_inputs) < 0.25))
    if len(disabled) == n_inputs:
        disabled = set()
    lines = [f"Engine: random{seed}"]
    inputs = []
    for k in range(n_inputs):
        low = float(_eighths(rng, -4, 0))
        high = low + float(_eighths(rng, 2, 8))
        terms = [f"t{j}" for j in range(int(rng.integers(2, 5)))]
        inputs.append((f"x{k}", terms))
        lines += [
            f"InputVariable: x{k}",
            f"  enabled: {'false' if k in disabled else 'true'}",
            f"  range: {low:.3f} {high:.3f}",
            f"  lock-range: {'true' if rng.random() < 0.3 else 'false'}",
        ]
        lines += [f"  term: {t} {_random_term(rng, rng.choice(_TERMS), low, high)}" for t in terms]
    defuzzifier = str(rng.choice(["WeightedAverage", "WeightedSum"]))
    aggregation = str(rng.choice(_AGGREGATIONS))
    outputs = []
    for m in range(n_outputs):
        terms = [f"o{j}" for j in range(int(rng.integers(2, 4)))]
        outputs.append((f"y{m}", terms))
        default = f"{float(_eighths(rng, -2, 2)):.3f}" if rng.random() < 0.4 else "nan"
        lines += [
            f"OutputVariable: y{m}",
            "  enabled: true",
            "  range: -10.000 10.000",
            f"  lock-range: {'true' if rng.random() < 0.3 else 'false'}",
            f"  aggregation: {aggregation}",
            f"  defuzzifier: {defuzzifier} TakagiSugeno",
            f"  default: {default}",
            "  lock-previous: false",
        ]
        for t in terms:
            if rng.random() < 0.5:
                lines.append(f"  term: {t} Constant {float(_eighths(rng, -5, 5)):.3f}")
            else:
                numbers = _eighths(rng, -2, 2, size=n_inputs + 1)
                lines.append(f"  term: {t} Linear " + " ".join(f"{v:.3f}" for v in numbers))
    conjunction = _CONJUNCTIONS[int(rng.integers(len(_CONJUNCTIONS)))]
    disjunction = _DISJUNCTIONS[int(rng.integers(len(_DISJUNCTIONS)))]
    connectives = [c for c, norm in (("and", conjunction), ("or", disjunction)) if norm]
    lines += [
        "RuleBlock: rules",
        "  enabled: true",
        f"  conjunction: {conjunction or 'none'}",
        f"  disjunction: {disjunction or 'none'}",
        "  implication: none",
        "  activation: General",
    ]
    for _ in range(int(rng.integers(3, 8))):
        used = [v for v in inputs if rng.random() < 0.6] or [inputs[int(rng.integers(n_inputs))]]
        if not connectives:
            used = used[:1]
        propositions = []
        for name, terms in used:
            hedges = ["not"] if rng.random() < 0.2 else []
            if rng.random() < 0.25:
                hedges.append(str(rng.choice(["very", "somewhat"])))
            propositions.append(" ".join([name, "is", *hedges, str(rng.choice(terms))]))
        connective = str(rng.choice(connectives)) if connectives else "and"
        concluded = [v for v in outputs if rng.random() < 0.6] or [outputs[0]]
        conclusions = " and ".join(f"{name} is {rng.choice(terms)}" for name, terms in concluded)
        weight = float(rng.choice([1.0, 1.0, 0.5, 0.75, 0.25]))
        lines.append(
            f"  rule: if {f' {connective} '.join(propositions)} then {conclusions}"
            + ("" if weight == 1.0 else f" with {weight:.3f}")  # exact: drawn from a list
        )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(40))
def test_random_fuzzylite_fis_files_evaluate_as_pyfuzzylite(seed):
    engine, text = engine_and_fis(random_engine(seed))
    system = loads(text, "fis")
    compare(system, engine, grid(engine, {1: 401, 2: 25, 3: 9}[system.n_features]))


# ---------------------------------------------------------------- refusals


def edited(fll, *edits):
    """The FIS of ``fll`` with each (old, new) replaced once."""
    text = engine_and_fis(fll)[1]
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def line_of(text, fragment):
    return next(k for k, line in enumerate(text.split("\n"), start=1) if fragment in line)


@pytest.mark.parametrize(
    "fll, edits, fragment, message",
    [
        (
            RAMPS,
            [("LockPrevious=0", "LockPrevious=1")],
            "LockPrevious=1",
            "unsupported LockPrevious=1 in [Output1]: fuzzylite then replaces a NaN output by "
            "the previous input row's value",
        ),
        (
            RAMPS,
            [("Name='bonus'\nEnabled=1", "Name='bonus'\nEnabled=0")],
            "Enabled=0",
            "unsupported Enabled=0 in [Output2]: fuzzylite leaves a disabled output's value",
        ),
        (
            RAMPS,
            [("Enabled=1", "Enabled=true")],
            "Enabled=true",
            "Enabled must be 1 (true) or 0 (false), as fuzzylite writes it; got 'true'",
        ),
        (
            RAMPS,
            [("Default=2.500", "Default=inf")],
            "Default=inf",
            "Default must be a finite number or nan; got 'inf'",
        ),
        (
            RAMPS,
            [("LockRange=1\nNumMFs=3", "LockRange=1\nDefault=1\nNumMFs=3")],
            "Default=1",
            "Default= belongs in [Output<k>] sections (fuzzylite's), not in [Input1]",
        ),
        (
            RAMPS,
            [("'rampmf',[5.000 0.000]", "'rampmf',[5.000 5.000]")],
            "rampmf',[5.000 5.000]",
            "rampmf takes [start end] with start != end (fuzzylite's Ramp)",
        ),
        (
            RAMPS,
            [("'rampmf',[5.000 0.000]", "'rampmf',[5.000 0.000 1.000]")],
            "rampmf',[5.000 0.000 1.000]",
            "rampmf takes [start end]",
        ),
        (
            RAMPS,
            [("'constant',[5.000]", "'rampmf',[0.000 1.000]")],
            "rampmf',[0.000 1.000]",
            "unsupported output membership function 'rampmf'",
        ),
        (
            NO_AND,
            [("2.000 0.000 , 2.000 (1.000) : 1", "2.000 1.000 , 2.000 (1.000) : 1")],
            "2.000 1.000 , 2.000",
            "the rule joins 2 inputs with connection 1 (AND) but AndMethod='' gives no method",
        ),
        (
            RAMPS,
            [("1.000 1.000 , 1.000 1.000 (1.000) : 1", "1.000 1.000 , 1.000 1.000 (1.000) : 2")],
            "1.000 1.000 , 1.000 1.000 (1.000) : 2",
            "the rule joins 2 inputs with connection 2 (OR) but OrMethod='' gives no method",
        ),
        (
            RAMPS,
            [("2.000 2.000 , 2.000 0.000", "2.000 2.000 , 0.000 0.000")],
            "2.000 2.000 , 0.000 0.000",
            "a rule must conclude at least one output",
        ),
    ],
)
def test_what_randomts_cannot_represent_is_refused_naming_the_line(fll, edits, fragment, message):
    text = edited(fll, *edits)
    with pytest.raises(FormatError, match=re.escape(message)) as info:
        loads(text, "fis")
    assert info.value.line == line_of(text, fragment), str(info.value)


def test_a_bare_empty_method_and_explicit_defaults_read_as_fuzzylite_reads_them():
    """``AndMethod=`` without quotes is empty too; LockPrevious=0, Default=nan are no-ops."""
    text = edited(NO_AND, ("AndMethod=''", "AndMethod="))
    engine = fl.FllImporter().from_string(NO_AND)
    compare(loads(text, "fis"), engine, grid(engine, 21))
    system = loads(edited(RAMPS, ("Default=-1.000", "Default=NaN")), "fis")
    assert math.isnan(system.outputs[1].default)


def test_fll_refuses_a_disabled_output_naming_the_line():
    text = RAMPS.replace(
        "OutputVariable: bonus\n  enabled: true", "OutputVariable: bonus\n  enabled: false"
    )
    with pytest.raises(FormatError, match="unsupported disabled output bonus") as info:
        loads(text, "fll")
    assert info.value.line == line_of(text, "enabled: false")


def test_a_rule_base_exported_by_fuzzylite_loads_as_the_same_rule_base():
    """fuzzylite's extra lines say nothing a RuleBase lacks (enabled, no lock, no default)."""
    rng = np.random.default_rng(0)
    rule_base = RuleBase(
        centers=_eighths(rng, -2, 2, size=(5, 2)),
        sigmas=_eighths(rng, 0.25, 2, size=(5, 2)),
        coef=_eighths(rng, -2, 2, size=(5, 1, 2)),
        intercept=_eighths(rng, -2, 2, size=(5, 1)),
        normalize=True,
        input_names=["u", "v"],
    )
    engine, text = engine_and_fis(dumps(rule_base, "fll"))
    assert "Enabled=1" in text and "AggMethod=''" in text and "OrMethod=''" in text
    back = loads(text, "fis")
    assert isinstance(back, RuleBase) and back == rule_base
    compare(FuzzySystem.from_rule_base(back), engine, grid(engine, 21))
