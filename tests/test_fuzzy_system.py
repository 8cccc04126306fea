"""The general Takagi-Sugeno system: closed forms, conversions, round trips, errors, CLI."""

import math
import os
import re
import warnings

import numpy as np
import pytest
from fuzzy_helpers import inputs_in_range, random_system

import randomts
from randomts import FormatError, FuzzySystem, RuleBase
from randomts.cli import main
from randomts.exceptions import NoRuleFiredWarning
from randomts.fuzzy import InputVariable, OutputVariable, parse_rule
from randomts.fuzzy.terms import (
    Bell,
    Constant,
    Gaussian,
    Linear,
    Ramp,
    SigmoidDifference,
    Trapezoid,
    Triangle,
    from_matlab,
)
from randomts.io import dumps, loads

OCTAVE_TOOLKIT = "/usr/share/octave/packages/fuzzy-logic-toolkit-0.4.6"


def tipper(**output_options):
    return FuzzySystem(
        [
            InputVariable(
                "food",
                {"bad": Trapezoid(0, 0, 3, 7), "good": Trapezoid(3, 7, 10, 10)},
                range=(0, 10),
            ),
            InputVariable("service", {"poor": Triangle(0, 0, 10)}, range=(0, 10)),
        ],
        [
            OutputVariable(
                "tip",
                {"low": Constant(10.0), "high": Linear([1.0, 0.5], 10.0)},
                range=(10, 20),
                **output_options,
            )
        ],
        [
            "if food is bad or service is poor then tip is low",
            "if food is very good and service is not poor then tip is high with 0.5",
        ],
        conjunction="min",
        disjunction="max",
        name="tipper",
    )


def test_inference_equals_the_closed_form():
    """Degrees by hand (min, max, very, not, weight), then the weighted average."""
    system = tipper()
    X = np.array([[2.0, 4.0], [5.0, 1.0], [9.0, 8.0]])
    food_bad = np.clip((7 - X[:, 0]) / 4, 0, 1)
    food_good = np.clip((X[:, 0] - 3) / 4, 0, 1)
    poor = 1 - X[:, 1] / 10
    w1 = np.maximum(food_bad, poor)
    w2 = 0.5 * np.minimum(food_good**2, 1 - poor)
    high = X[:, 0] + 0.5 * X[:, 1] + 10
    expected = (w1 * 10 + w2 * high) / (w1 + w2)
    np.testing.assert_allclose(system.predict(X)[:, 0], expected, rtol=1e-14)
    np.testing.assert_allclose(system.firing_strengths(X), np.stack([w1, w2], 1), rtol=1e-14)
    outputs = system.rule_outputs(X)
    np.testing.assert_allclose(outputs[:, :, 0], np.stack([np.full(3, 10.0), high], 1))


def test_weighted_sum_and_aggregation_of_rules_that_share_a_term():
    base = tipper()
    rules = [*base.rules, parse_rule("if food is good then tip is high")]
    X = np.array([[6.0, 3.0]])
    w = base.replace(rules=rules).firing_strengths(X)[0]
    z_high = 6.0 + 1.5 + 10.0
    summed = base.replace(rules=rules, outputs=[tipper(defuzzifier="wtsum").outputs[0]])
    assert summed.predict(X)[0, 0] == pytest.approx(w[0] * 10 + (w[1] + w[2]) * z_high, rel=1e-14)
    maxed = base.replace(
        rules=rules, outputs=[tipper(defuzzifier="wtsum", aggregation="max").outputs[0]]
    )
    assert maxed.predict(X)[0, 0] == pytest.approx(w[0] * 10 + max(w[1], w[2]) * z_high, rel=1e-14)


def test_no_rule_fired_is_nan_with_a_warning_or_the_default():
    system = tipper()
    far = np.array([[10.0, 10.0]])  # food is not bad, service not poor, "very good and not poor"
    system = system.replace(rules=system.rules[:1])
    with pytest.warns(NoRuleFiredWarning, match="No rule fired at 1 of 1 input row"):
        assert np.isnan(system.predict(far)[0, 0])
    with_default = system.replace(outputs=[tipper(default=15.0).outputs[0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert with_default.predict(far)[0, 0] == 15.0
        summed = system.replace(outputs=[tipper(defuzzifier="wtsum").outputs[0]])
        assert summed.predict(far)[0, 0] == 0.0  # the empty sum


def test_rule_base_converts_without_loss_and_predicts_the_same():
    rng = np.random.default_rng(0)
    for normalize in (False, True):
        for order in (0, 1):
            rule_base = RuleBase.random(3, 2, 6, normalize=normalize, random_state=rng)
            if order:
                rule_base = rule_base.replace(coef=rng.normal(size=(6, 2, 3)))
            system = FuzzySystem.from_rule_base(rule_base)
            assert system.rule_base_mismatch() is None
            assert system.to_rule_base() == rule_base
            X = rng.normal(size=(50, 3))
            np.testing.assert_allclose(system.predict(X), rule_base.predict(X), rtol=1e-12)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"conjunction": "min"}, "the conjunction is 'min', not 'prod'"),
        ({"rules": ["if x1 is r1 then y is r1"]}, "rule 1 does not use every input once"),
        ({"rules": ["if x1 is r1 and x1 is r2 then y is r1"]}, "rule 1 does not use every input"),
        ({"rules": ["if x1 is r1 and x2 is r1 then y is r1 with 0.5"]}, "rule 1 has weight 0.5"),
        ({"rules": ["if x1 is very r1 and x2 is r1 then y is r1"]}, "rule 1 has hedges"),
        ({"rules": ["if x1 is r1 or x2 is r1 then y is r1"]}, "rule 1 uses 'or'"),
    ],
)
def test_to_rule_base_says_what_differs(change, message):
    system = FuzzySystem.from_rule_base(RuleBase.random(2, 1, 2, random_state=0))
    changed = system.replace(**change)
    with pytest.raises(ValueError, match=re.escape(f"not a RuleBase: {message}")):
        changed.to_rule_base()


def test_inputs_in_another_order_are_still_a_rule_base():
    rule_base = RuleBase.random(2, 1, 2, random_state=0)
    system = FuzzySystem.from_rule_base(rule_base)
    swapped = system.replace(rules=["if x2 is r1 and x1 is r1 then y is r1", *system.rules[1:]])
    assert swapped.to_rule_base() == rule_base
    assert loads(dumps(swapped, "fll"), "fll") == rule_base


def test_a_triangle_is_not_a_rule_base():
    with pytest.raises(ValueError, match="term 'bad' is a Trapezoid, not a Gaussian"):
        tipper().to_rule_base()


@pytest.mark.parametrize("seed", range(12))
def test_random_systems_round_trip_through_every_format(tmp_path, seed):
    """Saved and read back equal (==), predicting bit for bit; FIS-shaped and FLL-shaped ones."""
    for flavour in ("fis", "fll"):
        system = random_system(seed, flavour=flavour)
        X = inputs_in_range(system, 50, seed=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = system.predict(X)
        for fmt in (flavour, "json", "text"):  # FIS powers and fuzzylite terms stay apart
            path = tmp_path / f"system.{ {'text': 'txt'}.get(fmt, fmt) }"
            randomts.save(system, path)
            back = randomts.load(path, system=True)
            assert back == system, (flavour, fmt)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                np.testing.assert_array_equal(back.predict(X), expected)


def test_fuzzylite_terms_cannot_be_written_to_fis():
    system = tipper().replace(
        inputs=[
            InputVariable("food", {"bad": Ramp(7, 3), "good": Ramp(3, 7)}, range=(0, 10)),
            tipper().inputs[1],
        ]
    )
    with pytest.raises(ValueError, match="Term 'bad' of 'food': MATLAB has no membership"):
        dumps(system, "fis")
    assert loads(dumps(system, "fll"), "fll") == system


def test_load_returns_a_rule_base_for_its_shape_and_a_system_otherwise(tmp_path):
    rule_base = RuleBase.random(2, 1, 3, random_state=0)
    randomts.save(rule_base, tmp_path / "rb.fis")
    assert randomts.load(tmp_path / "rb.fis") == rule_base
    system = randomts.load(tmp_path / "rb.fis", system=True)
    assert isinstance(system, FuzzySystem) and system.to_rule_base() == rule_base
    randomts.save(tipper(), tmp_path / "tipper.fis")
    assert randomts.load(tmp_path / "tipper.fis") == tipper()


def test_names_with_spaces_and_keywords_survive_every_format(tmp_path):
    system = FuzzySystem(
        [InputVariable("temp (C)", {"is hot": Gaussian(30.0, 5.0)}, range=(0, 50))],
        [OutputVariable("and", {"then": Constant(1.0)}, range=(0, 1))],
        ['if "temp (C)" is "is hot" then "and" is "then"'],
        name="odd names",
    )
    for fmt in ("json", "text", "fll"):
        assert loads(dumps(system, fmt), fmt, system=True) == system, fmt


def test_octave_hedge_indices_read_as_powers():
    text = """[System]
Name='h'
Type='sugeno'
NumInputs=1
NumOutputs=1
NumRules=2
AndMethod='prod'
OrMethod='max'
AggMethod='sum'
DefuzzMethod='wtsum'
[Input1]
Name='x'
Range=[0 1]
NumMFs=1
MF1='a':'trimf',[0 1 2]
[Output1]
Name='y'
Range=[0 1]
NumMFs=1
MF1='c':'constant',[1]
[Rules]
1.3, 1.2 (1) : 1
-1.05, -1 (0.5) : 1
"""
    system = loads(text, "fis")
    assert system.rules[0].to_text() == "if x is a^3.0 then y is somewhat c"
    assert system.rules[1].to_text() == "if x is not somewhat a then y is not c with 0.5"
    x = 0.5
    expected = (x**3) ** 0.5 + (1 - 0.5 * (1 - x**0.5))
    assert system.predict([[x]])[0, 0] == pytest.approx(expected, rel=1e-14)
    assert loads(dumps(system, "fis"), "fis") == system


def test_sigmoid_difference_is_the_absolute_difference():
    """MATLAB and fuzzylite: |f1 - f2|; GNU Octave clamps f1 - f2 at 0 (not followed)."""
    term = SigmoidDifference(0.0, 2.0, 1.0, 1.0)
    x = np.linspace(-5, 5, 11)
    f1, f2 = 1 / (1 + np.exp(-2 * x)), 1 / (1 + np.exp(-(x - 1)))
    np.testing.assert_allclose(term(x), np.abs(f1 - f2), rtol=1e-14)
    assert np.any(f1 < f2)  # where Octave's dsigmf would give 0


def test_matlab_parameters_map_to_terms_and_back():
    for kind, params in [
        ("trimf", [0.0, 1.0, 2.0]),
        ("trapmf", [0.0, 1.0, 2.0, 3.0]),
        ("gaussmf", [0.5, 1.0]),
        ("gauss2mf", [0.5, 1.0, 0.25, 2.0]),
        ("gbellmf", [2.0, 3.0, 1.0]),
        ("sigmf", [2.0, 1.0]),
        ("dsigmf", [2.0, 1.0, 3.0, 4.0]),
        ("psigmf", [2.0, 1.0, -3.0, 4.0]),
        ("smf", [0.0, 1.0]),
        ("zmf", [0.0, 1.0]),
        ("pimf", [0.0, 1.0, 2.0, 3.0]),
    ]:
        assert from_matlab(kind, params).to_matlab() == (kind, params)
    assert Bell(1.0, 2.0, 3.0)(np.array([3.0]))[0] == pytest.approx(1 / (1 + 1.0**6))
    x = np.array([-1.0, 0.0, 0.5, 1.0])
    np.testing.assert_allclose(Gaussian(0.0, 2.0)(x), np.exp(-(x**2) / 8), rtol=1e-15)


@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: Triangle(2, 1, 3), ValueError, "Triangle needs left <= top <= right"),
        (lambda: Gaussian(0, 0), ValueError, "Gaussian needs standard_deviation >= "),
        (lambda: Gaussian(0, float("nan")), ValueError, "must be finite"),
        (lambda: parse_rule("if x is then y is a"), ValueError, "expected a term name"),
        (lambda: parse_rule("if x is a then y is b with w"), ValueError, "the weight 'w'"),
        (
            lambda: tipper().replace(rules=["if food is tasty then tip is low"]),
            ValueError,
            "Rule 1: input 'food' has no term 'tasty'",
        ),
        (
            lambda: tipper().replace(conjunction="lukasiewicz"),
            ValueError,
            "The 'conjunction' parameter must be one of",
        ),
        (lambda: tipper().predict([[1.0]]), ValueError, "X has 1 features"),
    ],
)
def test_bad_arguments_are_named(build, error, message):
    with pytest.raises(error, match=re.escape(message)):
        build()


def test_mamdani_files_are_refused_saying_so(tmp_path):
    fis = dumps(tipper(), "fis").replace("Type='sugeno'", "Type='mamdani'")
    with pytest.raises(FormatError, match="line 3: unsupported system type Type='mamdani'; "):
        loads(fis, "fis")
    fll = dumps(tipper(), "fll").replace("WeightedAverage TakagiSugeno", "Centroid 100")
    with pytest.raises(FormatError, match="Mamdani and Tsukamoto are not supported"):
        loads(fll, "fll")
    fll = dumps(tipper(), "fll").replace("term: low Constant 10.0", "term: low Triangle 0 1 2")
    with pytest.raises(FormatError, match="Mamdani and Tsukamoto outputs are not supported"):
        loads(fll, "fll")
    fll = dumps(tipper(), "fll").replace("term: low Constant 10.0", "term: low Function x*2")
    with pytest.raises(FormatError, match="unsupported Function term 'low' of tip"):
        loads(fll, "fll")


@pytest.mark.parametrize(
    "fmt, old, new, line, message",
    [
        ("text", "  R2: if food", "  R3: if food", 13, "expected rule number R2"),
        (
            "text",
            "Trapezoid(0.0, 0.0, 3.0, 7.0)",
            "Trapezoid(0.0, x, 3.0, 7.0)",
            4,
            "expected a term parameter at column",
        ),
        ("text", "then tip is low", "then tip is lower", 12, "output 'tip' has no term 'lower'"),
        ("text", "# AND = min; OR = max", "# AND = min", 2, "expected the line '# AND"),
        ("json", '"conjunction": "min"', '"conjunction": "minimum"', 5, "not a valid fuzzy"),
        ("json", '"Trapezoid"', '"Trapezium"', 8, "Unknown term type 'Trapezium'"),
        ("fll", "rule: if food is bad", "rule: if food is bad bad", 29, "expected 'then'"),
        ("fis", "1 1, 1 (1.0) : 2", "1 1, 1 (1.0) : 3", 35, "the connection after ':'"),
    ],
)
def test_bad_system_files_name_the_line(tmp_path, fmt, old, new, line, message):
    good = dumps(tipper(), fmt)
    assert old in good, good
    bad = good.replace(old, new, 1)
    path = tmp_path / f"bad.{ {'text': 'txt'}.get(fmt, fmt) }"
    path.write_text(bad)
    with pytest.raises(FormatError, match=re.escape(message)) as info:
        randomts.load(path)
    assert info.value.line == line, str(info.value)


def test_text_rounds_for_people_and_keeps_every_digit_for_files():
    system = tipper().replace(
        outputs=[
            OutputVariable(
                "tip", {"low": Constant(math.pi), "high": Linear([1.0, 0.5], 10.0)}, range=(10, 20)
            )
        ]
    )
    assert "low = 3.142\n" in system.to_text()
    assert "low = 3.14159265\n" in system.to_text(precision=9)
    assert f"low = {math.pi!r}\n" in dumps(system, "text")


def test_cli_rules_prints_a_loaded_system_with_its_own_names(tmp_path, capsys):
    path = tmp_path / "tipper.fis"
    randomts.save(tipper(), path)
    assert main(["rules", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip("\n") == tipper().to_text()
    assert "if food is bad or service is poor then tip is low" in out


def test_cli_rules_shows_the_term_names_of_a_gaussian_file(tmp_path, capsys):
    """A file of RuleBase shape whose sets have names of their own is printed with them."""
    named = FuzzySystem(
        [InputVariable("x", {"low": Gaussian(0.0, 1.0), "high": Gaussian(2.0, 1.0)}, (-3, 5))],
        [OutputVariable("y", {"a": Constant(0.0), "b": Constant(1.0)}, (0, 1))],
        ["if x is low then y is a", "if x is high then y is b"],
        name="named",
    )
    path = tmp_path / "named.fis"
    randomts.save(named, path)
    assert isinstance(randomts.load(path), RuleBase)
    assert main(["rules", str(path)]) == 0
    assert capsys.readouterr().out.rstrip("\n") == named.to_text()


def test_cli_predict_and_explain_evaluate_a_system(tmp_path, capsys):
    path = tmp_path / "tipper.fll"
    randomts.save(tipper(), path)
    data = tmp_path / "data.csv"
    data.write_text("food,service\n2,4\n9,8\n")
    assert main(["predict", str(path), str(data)]) == 0
    out = capsys.readouterr().out.split()
    expected = tipper().predict([[2.0, 4.0], [9.0, 8.0]])[:, 0]
    assert out[0] == "predicted(tip)" and np.allclose(
        [float(v) for v in out[1:]], expected, rtol=1e-12
    )
    assert main(["explain", str(path), "--x=2,4"]) == 0
    assert capsys.readouterr().out.strip() == tipper().explain([2.0, 4.0]).to_text().strip()


def test_cli_rules_ranks_a_systems_rules_on_data(tmp_path, capsys):
    path = tmp_path / "tipper.fll"
    randomts.save(tipper(), path)
    data = tmp_path / "data.csv"
    rows = np.random.default_rng(0).uniform(0, 10, size=(40, 2))
    data.write_text("food,service\n" + "\n".join(f"{a},{b}" for a, b in rows) + "\n")
    X = rows
    assert main(["rules", str(path), "--data", str(data), "--top", "2"]) == 0
    assert capsys.readouterr().out.strip() == tipper().to_text(X=X, top=2).strip()
    assert main(["rules", str(path), "--data", str(data), "--format", "github"]) == 0
    table = capsys.readouterr().out
    assert table.strip() == tipper().table(fmt="github", X=X).strip()
    assert "importance" in table
    assert main(["rules", str(path), "--lossless", "--data", str(data)]) == 1
    assert "--lossless" in capsys.readouterr().err


def test_cli_convert_keeps_names_and_ranges(tmp_path, capsys):
    if not os.path.isdir(OCTAVE_TOOLKIT):
        pytest.skip("GNU Octave's fuzzy-logic-toolkit is not installed")
    source = os.path.join(OCTAVE_TOOLKIT, "heart_disease_risk.fis")
    target = tmp_path / "heart.fll"
    assert main(["convert", source, str(target)]) == 0
    capsys.readouterr()
    original, converted = randomts.load(source), randomts.load(target)
    assert converted.input_names == ("LDL-Level", "HDL-Level")
    assert list(converted.inputs[0].terms) == list(original.inputs[0].terms)
    assert converted.inputs[0].range == (0.0, 300.0)
    X = inputs_in_range(original, 100, seed=0, margin=0.0)
    np.testing.assert_array_equal(converted.predict(X), original.predict(X))
