"""Random general Takagi-Sugeno systems for the engine and round-trip tests (not a test module)."""

import numpy as np

from randomts import FuzzySystem
from randomts.fuzzy import Connective, FuzzyRule, InputVariable, OutputVariable, Proposition
from randomts.fuzzy.terms import (
    Bell,
    Concave,
    Constant,
    Cosine,
    Discrete,
    Gaussian,
    GaussianProduct,
    Linear,
    PiShape,
    Ramp,
    Rectangle,
    Sigmoid,
    SigmoidDifference,
    SigmoidProduct,
    Spike,
    SShape,
    Trapezoid,
    Triangle,
    ZShape,
)

MATLAB_KINDS = [
    "trimf",
    "trapmf",
    "gaussmf",
    "gauss2mf",
    "gbellmf",
    "sigmf",
    "dsigmf",
    "psigmf",
    "smf",
    "zmf",
    "pimf",
]
FLL_ONLY_KINDS = ["Ramp", "Rectangle", "Cosine", "Concave", "Spike", "Discrete"]


def random_term(rng, kind, low, high, height=1.0):
    """A term of ``kind`` (MATLAB or fuzzylite name) living in ``[low, high]``."""
    span = high - low
    points = np.sort(rng.uniform(low - 0.2 * span, high + 0.2 * span, size=4))
    a, b, c, d = (float(v) for v in points)
    center = float(rng.uniform(low, high))
    width = float(rng.uniform(0.1, 0.6) * span)
    slope = float(rng.choice([-1.0, 1.0]) * rng.uniform(2.0, 12.0) / span)
    h = {"height": height}
    if kind in ("trimf", "Triangle"):
        return Triangle(a, b, d, **h)
    if kind in ("trapmf", "Trapezoid"):
        return Trapezoid(a, b, c, d, **h)
    if kind in ("gaussmf", "Gaussian"):
        return Gaussian(center, width, **h)
    if kind in ("gauss2mf", "GaussianProduct"):
        return GaussianProduct(b, 0.3 * width, c, 0.5 * width, **h)
    if kind in ("gbellmf", "Bell"):
        return Bell(center, width, float(rng.integers(1, 4)), **h)
    if kind in ("sigmf", "Sigmoid"):
        return Sigmoid(center, slope, **h)
    if kind in ("dsigmf", "SigmoidDifference"):  # a bump: f1 >= f2 everywhere (MATLAB = Octave)
        rise = abs(slope)
        return SigmoidDifference(b, rise, rise, c, **h)
    if kind in ("psigmf", "SigmoidProduct"):
        rise = abs(slope)
        return SigmoidProduct(b, rise, -rise, c, **h)
    if kind in ("smf", "SShape"):
        return SShape(a, c, **h)
    if kind in ("zmf", "ZShape"):
        return ZShape(b, d, **h)
    if kind in ("pimf", "PiShape"):
        return PiShape(a, b, c, d, **h)
    if kind == "Ramp":
        return Ramp(*((a, c) if rng.random() < 0.5 else (c, a)), **h)
    if kind == "Rectangle":
        return Rectangle(b, c, **h)
    if kind == "Cosine":
        return Cosine(center, width, **h)
    if kind == "Concave":
        return Concave(*((a, c) if rng.random() < 0.5 else (c, a)), **h)
    if kind == "Spike":
        return Spike(center, width, **h)
    if kind == "Discrete":
        xs = np.sort(rng.uniform(low, high, size=4))
        ys = rng.uniform(0, 1, size=4)
        return Discrete(*[float(v) for pair in zip(xs, ys, strict=True) for v in pair], **h)
    raise ValueError(kind)


def random_system(
    seed,
    *,
    flavour="fis",
    conjunctions=("min", "prod"),
    disjunctions=("max", "probor"),
    aggregations=("sum", "max"),
):
    """A random Sugeno system that the FIS (``flavour="fis"``) or FLL format can hold.

    FIS: MATLAB's functions; rules use a subset of the inputs, NOT, powers
    (Octave's fractional indices), weights and one connective. FLL:
    fuzzylite's terms with heights, nested and/or, every hedge in
    antecedents, hedges but NOT in conclusions (fuzzylite concludes ``not``
    of a rule that did not fire, randomts concludes nothing), lock-range
    inputs and default values.
    """
    rng = np.random.default_rng(seed)
    n_inputs = int(rng.integers(1, 4))
    n_outputs = int(rng.integers(1, 3))
    fis = flavour == "fis"
    inputs = []
    for k in range(n_inputs):
        low = float(rng.uniform(-5, 5))
        high = low + float(rng.uniform(1, 10))
        kinds = MATLAB_KINDS if fis else MATLAB_KINDS + FLL_ONLY_KINDS
        terms = []
        for j in range(int(rng.integers(2, 5))):
            height = 1.0 if fis or rng.random() < 0.7 else float(rng.uniform(0.5, 1.0))
            terms.append((f"t{j}", random_term(rng, str(rng.choice(kinds)), low, high, height)))
        lock = (not fis) and rng.random() < 0.2
        inputs.append(InputVariable(f"x{k}", terms, (low, high), lock_range=lock))
    outputs = []
    defuzzifier = str(rng.choice(["wtaver", "wtsum"]))
    aggregation = str(rng.choice(aggregations))
    for m in range(n_outputs):
        terms = []
        for j in range(int(rng.integers(2, 4))):
            if rng.random() < 0.5:
                term = Constant(float(rng.normal(0, 5)))
            else:
                term = Linear(rng.normal(0, 2, size=n_inputs).tolist(), float(rng.normal(0, 5)))
            terms.append((f"o{j}", term))
        options = {"defuzzifier": defuzzifier, "aggregation": aggregation}
        if not fis:
            options["defuzzifier"] = str(rng.choice(["wtaver", "wtsum"]))
            options["aggregation"] = str(rng.choice(aggregations))
            if rng.random() < 0.3:
                options["default"] = float(rng.normal())
        outputs.append(OutputVariable(f"y{m}", terms, (-20.0, 20.0), **options))
    rules = [_random_rule(rng, inputs, outputs, fis) for _ in range(int(rng.integers(3, 9)))]
    for variable in outputs:  # every output is concluded by some rule
        if not any(p.variable == variable.name for rule in rules for p in rule.consequent):
            rules.append(_random_rule(rng, inputs, [variable], fis))
    return FuzzySystem(
        inputs,
        outputs,
        rules,
        conjunction=str(rng.choice(conjunctions)),
        disjunction=str(rng.choice(disjunctions)),
        name=f"random_{flavour}_{seed}",
    )


def _random_rule(rng, inputs, outputs, fis):
    def proposition(variable, conclusion=False):
        term = str(rng.choice(list(variable.terms)))
        hedges = []
        if fis:
            if rng.random() < 0.25:
                hedges.append("not")
            if rng.random() < 0.3:
                tenths = float(rng.choice([2, 5, 15, 20, 30]) / 10)  # index j.02 ... j.3
                hedges.append(tenths if not conclusion else 1.0 / tenths)
        else:
            names = ["very", "somewhat", "seldom", "extremely"]
            if not conclusion:
                names = names + ["not", "any"]
            for _ in range(int(rng.integers(0, 3))):
                hedges.append(str(rng.choice(names)))
            if "any" in hedges:
                hedges = hedges[: hedges.index("any") + 1]
                return Proposition(variable.name, None, tuple(hedges))
        return Proposition(variable.name, term, tuple(hedges))

    if fis:
        used = [v for v in inputs if rng.random() < 0.7] or [inputs[0]]
        props = tuple(proposition(v) for v in used)
        operator = str(rng.choice(["and", "or"]))
        antecedent = props[0] if len(props) == 1 else Connective(operator, props)
    else:
        props = [proposition(inputs[int(rng.integers(len(inputs)))]) for _ in range(4)]
        props = props[: int(rng.integers(1, 5))]
        antecedent = props[0]
        for p in props[1:]:
            operator = str(rng.choice(["and", "or"]))
            antecedent = Connective(operator, (antecedent, p))
    concluded = [v for v in outputs if rng.random() < 0.7] or [outputs[0]]
    weight = 1.0 if rng.random() < 0.5 else float(rng.uniform(0.1, 1.0))
    return FuzzyRule(antecedent, tuple(proposition(v, True) for v in concluded), weight)


def inputs_in_range(system, n_samples, seed, margin=0.1):
    """Uniform inputs over each input's range, widened by ``margin`` of its span."""
    rng = np.random.default_rng(seed)
    columns = []
    for variable in system.inputs:
        low, high = variable.range
        span = high - low
        columns.append(rng.uniform(low - margin * span, high + margin * span, size=n_samples))
    return np.column_stack(columns)


def assert_close(ours, theirs, what, tol=1e-9):
    """Equal to ``tol`` relative to 1 + |theirs|, with NaN where the other has NaN."""
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    assert ours.shape == theirs.shape, (what, ours.shape, theirs.shape)
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan), f"{what}: NaN at different places"
    error = np.abs(ours[~nan] - theirs[~nan]) / (1.0 + np.abs(theirs[~nan]))
    assert error.size == 0 or error.max() <= tol, f"{what}: relative error {error.max():.3g}"
