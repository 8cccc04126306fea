"""Bad files raise FormatError with the line and the offending text, and nothing else."""

import os
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import randomts
from randomts import FormatError, RuleBase
from randomts.io import MAX_FILE_BYTES

DATA = os.path.join(os.path.dirname(__file__), "data")
EXTENSIONS = {"text": "txt", "json": "json", "fis": "fis", "fll": "fll"}


def committed(fmt):
    with open(os.path.join(DATA, f"model.{EXTENSIONS[fmt]}"), encoding="utf-8") as stream:
        return stream.read()


def load_text(tmp_path, fmt, text, name="bad"):
    path = tmp_path / f"{name}.{EXTENSIONS[fmt]}"
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return randomts.load(path)


# (format, text to replace, replacement, line of the error, words of the message)
EDITS = [
    # text
    ("text", "R3:", "R7:", 9, "expected rule number R3"),
    ("text", "G(-0.643001590804674,", "G(-0.64x,", 9, "expected ','"),
    (
        "text",
        "y2 = -0.8088372394255993",
        "y3 = -0.8088372394255993",
        11,
        "rule R3 must give the outputs ['y1', 'y2'] as R1",
    ),
    ("text", "4 rules,", "5 rules,", 1, "the header does not match the 4 rules read"),
    ("text", "output = weighted sum", "output = product", 1, "missing the header line"),
    # json
    ("json", '"version": 1', '"version": 2', 3, "version 2 is not one this randomts reads (1)"),
    ("json", '"n_rules": 4', '"n_rules": 5', 10, "centers must be a list of 5 items"),
    ("json", '"n_features": 2', '"n_features": 3', 10, "centers[0] must be a list of 3 items"),
    (
        "json",
        '"format": "randomts-rulebase"',
        '"format": "other"',
        2,
        "'format' must be 'randomts-rulebase'",
    ),
    (
        "json",
        "[0.001739699561950655,",
        '["0.0017",',
        10,
        "centers[0][0] must be a number; got '0.0017'",
    ),
    ("json", "[0.001739699561950655,", "[1e999,", 10, "centers[0][0] must be a finite number"),
    ("json", "[0.001739699561950655,", "[NaN,", 11, "invalid JSON: NaN is not a finite number"),
    ("json", "[0.001739699561950655,", "[0.0017,,", 11, "invalid JSON: Expecting value"),
    ("json", '"normalize": false', '"normalize": 0', 7, "'normalize' must be true or false"),
    (
        "json",
        '"metadata": {',
        '"extra": 1, "metadata": {',
        34,
        "unknown key(s) ['extra'] in a version 1",
    ),
    (
        "json",
        '"output_names": ["y1", "y2"]',
        '"output_names": ["y1", "y1"]',
        9,
        "'output_names' must hold distinct names",
    ),
    (
        "json",
        "[0.8469908443257933, 0.8469908443257933]",
        "[0.8469908443257933, -1.0]",
        16,
        "not a valid rule base: sigmas must all be > 0",
    ),
    # fis
    ("fis", "NumRules=4", "NumRules=5", 7, "NumRules=5 but the [Rules] section holds 4 rule(s)"),
    (
        "fis",
        "NumRules=4",
        "NumRules=1000000000000",
        7,
        "NumRules=1000000000000 but the [Rules] section",
    ),
    ("fis", "NumInputs=2", "NumInputs=3", 5, "NumInputs=3 but no [Input3] section"),
    (
        "fis",
        "NumMFs=4\nMF1='r1':'gaussmf',[1.5696805003966714 0.001739699561950655]",
        "NumMFs=5\nMF1='r1':'gaussmf',[1.5696805003966714 0.001739699561950655]",
        17,
        "NumMFs=5 but [Input1] defines 4 MF(s)",
    ),
    (
        "fis",
        "'gaussmf',[1.5696805003966714 0.001739699561950655]",
        "'gaussmf',[1.5x 0.0017]",
        18,
        "MF parameters: '1.5x' is not a number",
    ),
    (
        "fis",
        "'gaussmf',[1.5696805003966714 0.001739699561950655]",
        "'gaussmf',[-1.0 0.0017]",
        18,
        "gaussmf takes [sigma center] with sigma > 0",
    ),
    (
        "fis",
        "4 4, 4 4 (1) : 1",
        "4 5, 4 4 (1) : 1",
        54,
        "input 2 has 4 MFs; index 5 is out of range",
    ),
    ("fis", "4 4, 4 4 (1) : 1", "4 4, 4 (1) : 1", 54, "a rule needs 2 output MF index(es); got 1"),
    (
        "fis",
        "Type='sugeno'",
        "Type='mamdani'",
        3,
        "unsupported system type Type='mamdani'; randomts evaluates Sugeno (Takagi-Sugeno) "
        "systems, not Mamdani ones",
    ),
    ("fis", "AndMethod='prod'", "AndMethod='lukasiewicz'", 8, "unsupported AND method"),
    ("fis", "4 4, 4 4 (1) : 1", "0 0, 4 4 (1) : 1", 54, "a rule must use at least one input"),
    ("fis", "4 4, 4 4 (1) : 1", "4 4, 4 4 (-1) : 1", 54, "the rule weight must be one number >= 0"),
    ("fis", "DefuzzMethod='wtsum'", "DefuzzMethod='centroid'", 12, "unsupported defuzzification"),
    (
        "fis",
        "'linear',[0.10541424899789856 -0.9304680447082047 -0.048500945401071985]",
        "'linear',[0.1 -0.9]",
        36,
        "a 'linear' output takes 3 parameter(s); got 2",
    ),
    ("fis", "Name='y1'", "Name=y1", 33, "Name must be a quoted string"),
    ("fis", "NumRules=4", "NumRules=" + "9" * 5000, 7, "NumRules must be a positive integer"),
    ("fis", "4 4, 4 4 (1) : 1", "4 " + "4" * 5000 + ", 4 4 (1) : 1", 54, "is absurdly large"),
    ("fis", "[Input2]", "[Input" + "2" * 5000 + "]", 23, "expected 'Key=value'"),
    ("json", '"version": 1', '"version": ' + "1" * 5000, 3, "'version' must be a positive integer"),
    # fll
    (
        "fll",
        "term: r1 Gaussian 0.001739699561950655",
        "term: r1 Gaussian zero",
        7,
        "term parameter 'zero' is not a number",
    ),
    (
        "fll",
        "defuzzifier: WeightedSum TakagiSugeno",
        "defuzzifier: Centroid 100",
        25,
        "unsupported defuzzifier 'Centroid 100'; randomts evaluates Takagi-Sugeno outputs "
        "(WeightedSum or WeightedAverage; Mamdani and Tsukamoto are not supported)",
    ),
    (
        "fll",
        "if x1_k_ is r4 and speed_m_s is r4",
        "if x1_k_ is r4 and and speed_m_s is r4",
        53,
        "expected a variable name, found 'and'",
    ),
    (
        "fll",
        "if x1_k_ is r4 and speed_m_s is r4",
        "if x1_k_ is r4",
        53,
        "unsupported rule without the input speed_m_s",
    ),
    (
        "fll",
        "if x1_k_ is r4 and speed_m_s is r4",
        "if x1_k_ is r4 and speed_m_s is r9",
        53,
        "speed_m_s has no term 'r9'",
    ),
    (
        "fll",
        "  rule: if x1_k_ is r4 and speed_m_s is r4 then y1 is r4 and y2 is r4",
        "",
        10,
        "term 'r4' of x1_k_ is used by no rule (is the file truncated?)",
    ),
    (
        "fll",
        "RuleBlock: rules",
        "RuleBlock: rules\nRuleBlock: more",
        45,
        "unsupported second RuleBlock",
    ),
]


@pytest.mark.parametrize("fmt, old, new, line, message", EDITS)
def test_each_defect_is_reported_with_its_line(tmp_path, fmt, old, new, line, message):
    good = committed(fmt)
    assert good.count(old) >= 1
    bad = good.replace(old, new, 1)
    with pytest.raises(FormatError, match=re.escape(message)) as info:
        load_text(tmp_path, fmt, bad)
    error = info.value
    assert error.line == line, str(error)
    assert str(error).startswith(f"{tmp_path / ('bad.' + EXTENSIONS[fmt])}: line {line}: ")
    assert error.text == bad.split("\n")[line - 1] or error.text is None


# Edits that once made a file unreadable and now describe a general Takagi-Sugeno system:
# (format, text to replace, replacement, what the loaded FuzzySystem must show).
GENERAL = [
    (
        "fis",
        [("'gaussmf',[1.5696805003966714 0.001739699561950655]", "'trimf',[0 1 2]")],
        "Triangle(0.0, 1.0, 2.0)",
    ),
    ("fis", [("4 4, 4 4 (1) : 1", "4 0, 4 4 (1) : 1")], "R4: if x1(k) is r4 then"),
    ("fis", [("4 4, 4 4 (1) : 1", "4 -4, 4 4 (1) : 1")], "speed_m/s is not r4"),
    ("fis", [("4 4, 4 4 (1) : 1", "4 4, 4 4 (0.5) : 1")], "with 0.5"),
    ("fis", [("4 4, 4 4 (1) : 1", "4 4, 4 4 (1) : 2")], "x1(k) is r4 or speed_m/s is r4"),
    ("fis", [("4 4, 4 4 (1) : 1", "4.5 4, 4 4 (1) : 1")], "x1(k) is r4^5.0"),
    ("fis", [("AndMethod='prod'", "AndMethod='min'")], "# AND = min"),
    (
        "fis",
        [("AggMethod='sum'", "AggMethod='max'"), ("4 4, 4 4 (1) : 1", "3 4, 3 4 (1) : 1")],
        "aggregation max",
    ),
    (
        "fll",
        [("term: r1 Gaussian 0.001739699561950655", "term: r1 Triangle -2.0 0.0017")],
        "Triangle(-2.0, 0.0017, 1.5696805003966714)",
    ),
    ("fll", [("conjunction: AlgebraicProduct", "conjunction: Minimum")], "# AND = min"),
    (
        "fll",
        [
            ("if x1_k_ is r4 and speed_m_s is r4", "if x1_k_ is r4 or speed_m_s is r4"),
            ("disjunction: none", "disjunction: Maximum"),
        ],
        'x1(k) is r4 or "speed m/s" is r4',
    ),
    (
        "fll",
        [("if x1_k_ is r4 and speed_m_s is r4", "if x1_k_ is very r4 and speed_m_s is r4")],
        "x1(k) is very r4",
    ),
    ("fll", [("then y1 is r4 and y2 is r4", "then y1 is r4 and y2 is r4 with 0.5")], "with 0.5"),
    ("fll", [("lock-range: false", "lock-range: true")], "lock-range"),
]


@pytest.mark.parametrize("fmt, edits, shown", GENERAL)
def test_general_sugeno_files_load_as_fuzzy_systems(tmp_path, fmt, edits, shown):
    """A triangle, a skipped input, NOT, weights, OR, hedges, min, max: a FuzzySystem."""
    text = committed(fmt)
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    system = load_text(tmp_path, fmt, text)
    assert isinstance(system, randomts.FuzzySystem)
    assert shown in system.to_text(precision=None)
    assert system.predict([[0.1, 0.2]]).shape == (1, 2)


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_empty_and_blank_files(tmp_path, fmt):
    for content in (b"", b"\n\n  \n"):
        with pytest.raises(FormatError, match="line 1: the file is empty"):
            load_text(tmp_path, fmt, content)


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_binary_garbage(tmp_path, fmt):
    garbage = bytes(range(256)) * 4
    with pytest.raises(FormatError, match=r"line 2: not UTF-8 text \(byte 0x80 at offset 128\)"):
        load_text(tmp_path, fmt, garbage)
    with pytest.raises(FormatError, match=r"line 3: not UTF-8 text"):
        load_text(
            tmp_path, fmt, committed(fmt).encode()[:40].replace(b"\n", b" ") + b"\n\n\xff\xfe\n"
        )


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_absurdly_large_file_is_refused_before_reading(tmp_path, fmt):
    path = tmp_path / f"huge.{EXTENSIONS[fmt]}"
    with open(path, "wb") as stream:  # a sparse file: no disk space is used
        stream.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(FormatError, match=f"the file holds {MAX_FILE_BYTES + 1} bytes, more than"):
        randomts.load(path)


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_other_text_is_not_mistaken_for_a_model(tmp_path, fmt):
    for other in ("hello world\n", "{}\n", "[1, 2, 3]\n", "a,b\n1,2\n"):
        with pytest.raises(FormatError):
            load_text(tmp_path, fmt, other)


def test_json_nesting_and_huge_integers(tmp_path):
    with pytest.raises(FormatError, match="line 1: invalid JSON: nested too deeply"):
        load_text(tmp_path, "json", "[" * 100000 + "]" * 100000)
    huge = committed("json").replace("[0.001739699561950655,", "[" + "9" * 5000 + ",", 1)
    with pytest.raises(FormatError, match=r"line 10: centers\[0\]\[0\] must be a finite number"):
        load_text(tmp_path, "json", huge)


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_every_truncation_is_detected(tmp_path, fmt):
    """Cut a valid file anywhere (every 7th byte and every line end): always a FormatError."""
    good = committed(fmt)
    cuts = set(range(0, len(good) - 1, 7)) | {i for i, c in enumerate(good[:-1]) if c == "\n"}
    for cut in sorted(cuts):
        with pytest.raises(FormatError):
            load_text(tmp_path, fmt, good[:cut] if cut else "x")


def _corrupt(data, text):
    kind = data.draw(
        st.sampled_from(
            ["delete", "insert", "replace", "swap_lines", "drop_line", "duplicate_line", "bytes"]
        )
    )
    lines = text.split("\n")
    if kind in ("swap_lines", "drop_line", "duplicate_line"):
        i = data.draw(st.integers(0, len(lines) - 2))
        if kind == "swap_lines":
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif kind == "drop_line":
            del lines[i]
        else:
            lines.insert(i, lines[i])
        return "\n".join(lines).encode()
    raw = text.encode()
    start = data.draw(st.integers(0, len(raw) - 1))
    stop = data.draw(st.integers(start, min(len(raw), start + 16)))
    if kind == "delete":
        return raw[:start] + raw[stop:]
    junk = data.draw(
        st.binary(max_size=8) if kind == "bytes" else st.text(max_size=8).map(str.encode)
    )
    return raw[:start] + junk + raw[(start if kind == "insert" else stop) :]


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_corrupted_files_raise_format_error_or_load_a_whole_model(tmp_path, fmt, data):
    good = committed(fmt)
    bad = _corrupt(data, good)
    try:
        rule_base = load_text(tmp_path, fmt, bad)
    except FormatError as error:
        assert error.source is not None and str(error).startswith(error.source)
        return
    # A corruption that still describes a model (say, one digit changed) gives a whole one:
    # a RuleBase, or a general FuzzySystem (say, a rule index negated: NOT).
    if isinstance(rule_base, randomts.FuzzySystem):
        assert rule_base.predict([[0.1, 0.2]]).shape == (1, rule_base.n_outputs)
        return
    assert isinstance(rule_base, RuleBase)
    assert rule_base.centers.shape == rule_base.sigmas.shape
    assert rule_base.coef.shape == (len(rule_base), rule_base.n_outputs, rule_base.n_features)


FOREIGN_FIS = """% A FIS laid out by hand, as other tools write them: keys out of order,
% comments, spaces, shared membership functions and a constant output.
[System]
Name = 'shared'
Type = 'sugeno'
Version = 2.0
NumInputs = 2
NumOutputs = 1
NumRules = 3
AndMethod = 'prod'
OrMethod = 'max'
ImpMethod = 'min'
AggMethod = 'sum'
DefuzzMethod = 'wtaver'

[Input1]
NumMFs = 2
Name = 'a'
Range = [0 1]
MF1 = 'low':'gaussmf', [0.5 0]
MF2 = 'high':'gaussmf', [0.25 1]

[Input2]
Name = 'b'
Range = [0 1]
NumMFs = 1
MF1 = 'mid':'gaussmf', [2 0.5]

[Output1]
Name = 'out'
Range = [0 10]
NumMFs = 2
MF1 = 'flat':'constant', [3]
MF2 = 'slope':'linear', [1 -2 0.5]

[Rules]
1 1, 1 (1) : 1
2 1, 2 (1) : 1
1 1, 2 (1) : 1
"""


def test_reads_a_fis_written_by_hand_with_shared_mfs(tmp_path):
    rule_base = load_text(tmp_path, "fis", FOREIGN_FIS, name="foreign")
    assert (
        rule_base.normalize
        and rule_base.input_names == ("a", "b")
        and rule_base.output_names == ("out",)
    )
    assert rule_base.centers.tolist() == [[0.0, 0.5], [1.0, 0.5], [0.0, 0.5]]
    assert rule_base.sigmas.tolist() == [[0.5, 2.0], [0.25, 2.0], [0.5, 2.0]]
    assert rule_base.coef.tolist() == [[[0.0, 0.0]], [[1.0, -2.0]], [[1.0, -2.0]]]
    assert rule_base.intercept.tolist() == [[3.0], [0.5], [0.5]]


FOREIGN_FLL = """Engine: shared
InputVariable: a
  enabled: true
  range: 0.000 1.000
  term: low Gaussian 0.000 0.500
  term: high Gaussian 1.000 0.250 1.0
OutputVariable: out
  enabled: true
  range: 0.000 10.000
  aggregation: none
  defuzzifier: WeightedAverage
  default: nan
  term: flat Constant 3.000
  term: slope Linear 1.000 0.500
RuleBlock:
  enabled: true
  activation: General
  rule: if a is low then out is flat
  rule: if a is high then out is slope
  rule: if a is low then out is slope
"""


def test_reads_an_fll_written_by_hand_with_shared_terms(tmp_path):
    rule_base = load_text(tmp_path, "fll", FOREIGN_FLL, name="foreign")
    assert rule_base.normalize and rule_base.input_names == ("a",)
    assert rule_base.centers.tolist() == [[0.0], [1.0], [0.0]]
    assert rule_base.coef.tolist() == [[[0.0]], [[1.0]], [[1.0]]]
    assert rule_base.intercept.tolist() == [[3.0], [0.5], [0.5]]


def test_octave_toolkit_mamdani_example_is_rejected_naming_mamdani():
    """Octave's Sugeno examples load (tests/test_fuzzy_engines.py); its Mamdani one does not."""
    folder = "/usr/share/octave/packages/fuzzy-logic-toolkit-0.4.6"
    if not os.path.isdir(folder):
        pytest.skip("GNU Octave's fuzzy-logic-toolkit is not installed")
    with pytest.raises(
        FormatError,
        match="line 27: unsupported system type Type='mamdani'; randomts evaluates Sugeno",
    ):
        randomts.load(os.path.join(folder, "investment_portfolio.fis"))


@pytest.mark.parametrize(
    "old, new, line, message",
    [
        ("  conjunction: AlgebraicProduct", "  conjunction:", 46, "unsupported conjunction ''"),
        (
            "  defuzzifier: WeightedSum TakagiSugeno",
            "  defuzzifier:",
            25,
            "unsupported defuzzifier ''",
        ),
        (
            "InputVariable: speed_m_s",
            "OutputVariable: early\nInputVariable: speed_m_s",
            12,
            "unsupported InputVariable after an OutputVariable",
        ),
    ],
)
def test_fll_empty_settings_and_variable_order(tmp_path, old, new, line, message):
    bad = committed("fll").replace(old, new, 1)
    with pytest.raises(FormatError, match=re.escape(message)) as info:
        load_text(tmp_path, "fll", bad)
    assert info.value.line == line and info.value.text == bad.split("\n")[line - 1]


@pytest.mark.parametrize("fmt", list(EXTENSIONS))
def test_long_digit_runs_are_rejected_in_linear_time(tmp_path, fmt):
    """A 200 000-digit token must fail fast (a backtracking number pattern would take hours)."""
    import time

    good = committed(fmt)
    anchor = {
        "text": "0.001739699561950655",
        "json": "0.001739699561950655",
        "fis": "0.001739699561950655",
        "fll": "0.001739699561950655",
    }[fmt]
    bad = good.replace(anchor, "1" * 200_000 + "x", 1)
    start = time.perf_counter()
    with pytest.raises(FormatError):
        load_text(tmp_path, fmt, bad)
    assert time.perf_counter() - start < 5.0
