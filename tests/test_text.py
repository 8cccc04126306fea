"""The human text of a rule base: writing, tables, and reading it back."""

import re

import io_helpers
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from randomts import FormatError, RuleBase
from randomts.text import TABLE_FORMATS, format_rules, parse_rules


def random_model(seed, n_rules=5, n_features=3, n_outputs=2, normalize=False, names=None):
    """Random rules whose slopes span 16 orders of magnitude, with default or given names."""
    rule_base = io_helpers.random_model(seed, n_rules, n_features, n_outputs, normalize, spread=8)
    return rule_base.replace(**(names or {"input_names": None}))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_outputs", [1, 3])
@pytest.mark.parametrize("normalize", [False, True])
def test_parse_inverts_format_bit_for_bit(seed, n_outputs, normalize):
    rule_base = random_model(seed, n_outputs=n_outputs, normalize=normalize)
    back = parse_rules(format_rules(rule_base))
    assert back == rule_base  # every array equal, names and mode too
    X = np.random.default_rng(seed).normal(size=(50, 3))
    assert np.array_equal(back.predict(X), rule_base.predict(X))


def test_str_is_the_lossless_text_and_names_are_quoted_when_needed():
    names = {"input_names": ["x1(k)", "temp (C)", "a*b"], "output_names": ["y=1", "y2"]}
    rule_base = random_model(0, names=names)
    text = str(rule_base)
    assert text == rule_base.to_text()
    assert '"temp (C)" is G(' in text and '"a*b"' in text and '    "y=1" = ' in text
    assert "x1(k) is G(" in text
    assert parse_rules(text) == rule_base


def test_every_antecedent_and_full_equation_is_shown():
    rule_base = RuleBase(
        centers=[[0.42, -0.8]], sigmas=[[0.13, 0.3]], coef=[[[1.3, -0.4]]], intercept=[[0.12]]
    )
    assert rule_base.to_text(precision=2).splitlines()[-1] == (
        "R1: IF x1 is G(0.42, 0.13) AND x2 is G(-0.8, 0.3) THEN y = 0.12 + 1.3*x1 - 0.4*x2"
    )


def test_zero_coefficients_are_left_out_and_read_back_as_zero():
    rule_base = RuleBase(
        centers=[[0.0, 1.0]], sigmas=[[1.0, 2.0]], coef=[[[0.0, 5.0]]], intercept=[[0.0]]
    )
    text = rule_base.to_text()
    assert "THEN y = 0.0 + 5.0*x2" in text
    assert parse_rules(text) == rule_base


def test_precision_rounds_to_significant_digits():
    rule_base = RuleBase(centers=[[1 / 3]], sigmas=[[2 / 3]], intercept=[[123456.789]])
    assert "G(0.333, 0.667) THEN y = 1.23e+05" in rule_base.to_text(precision=3)
    rounded = parse_rules(rule_base.to_text(precision=3))
    assert rounded.centers[0, 0] == 0.333 and rounded.intercept[0, 0] == 123000.0


@pytest.mark.parametrize("fmt", ["plain", "github", "latex", "html", "grid", "tsv"])
def test_table_holds_every_number_in_every_format(fmt):
    rule_base = random_model(1, n_rules=3, n_features=2, n_outputs=1)
    table = rule_base.table(fmt=fmt, precision=None)
    numbers = np.concatenate(
        [
            rule_base.centers.ravel(),
            rule_base.sigmas.ravel(),
            rule_base.coef.ravel(),
            rule_base.intercept.ravel(),
        ]
    )
    for value in numbers:
        assert repr(float(value)) in table
    for header in ("x1: c", "x1: s", "y: const", "y: x2"):
        assert header in table


def test_table_rows_are_rules_in_order():
    rule_base = random_model(2, n_rules=4, n_features=1, n_outputs=1)
    lines = rule_base.table(fmt="plain", precision=4).splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["R1", "R2", "R3", "R4"]
    first = lines[1].split()
    assert float(first[1]) == pytest.approx(rule_base.centers[0, 0], rel=1e-3)
    assert float(first[2]) == pytest.approx(rule_base.sigmas[0, 0], rel=1e-3)


def test_table_rejects_an_unknown_format():
    with pytest.raises(ValueError, match=r"The 'fmt' parameter must be a str among \{'asciidoc'"):
        RuleBase(centers=[[0.0]], sigmas=[[1.0]]).table(fmt="excel")
    assert "latex" in TABLE_FORMATS and "github" in TABLE_FORMATS


HEAD = (
    "# Takagi-Sugeno rule base: 2 rules, inputs (x1, x2), outputs (y)\n"
    "# G(c, s) = exp(-(x - c)^2 / (2 s^2)); AND = product; output = weighted sum\n"
)
R1 = "R1: IF x1 is G(0.0, 1.0) AND x2 is G(1.0, 2.0) THEN y = 1.0 + 2.0*x1\n"
R2 = "R2: IF x1 is G(0.5, 1.0) AND x2 is G(1.5, 2.0) THEN y = -1.0 - 3.0*x2\n"

BAD_TEXTS = [
    ("", 1, "no header line"),
    ("R1: IF x1 is G(0, 1) THEN y = 1\n", 1, "expected the header line"),
    (HEAD.splitlines()[0] + "\n" + R1 + R2, 1, "missing the header line '# G(c, s)"),
    (HEAD, 3, "no rules after the header"),
    (HEAD + R1, 1, "the header does not match the 1 rules read"),
    (HEAD + R1 + R2.replace("R2", "R3"), 4, "expected rule number R2"),
    (HEAD + R1 + R2.replace("G(0.5", "G(abc"), 4, "expected a centre at column 16"),
    (HEAD + R1 + R2.replace("2.0) THEN", "-2.0) THEN"), 4, "expected a width > 0"),
    (HEAD + R1 + R2.replace("1.5, 2.0", "1e999, 2.0"), 4, "of finite size"),
    (
        HEAD + R1 + R2.replace("x2 is", "x3 is").replace("*x2", "*x1"),
        4,
        "the inputs must be ['x1', 'x2'] as in R1",
    ),
    (HEAD + R1 + R2.replace("*x2", "*x9"), 4, "one of the inputs ['x1', 'x2'] (not 'x9')"),
    (HEAD + R1 + R2.replace("*x2", "*x2 + 1.0*x2"), 4, "each input at most once"),
    (HEAD + R1 + R2.replace("THEN y =", "THEN z ="), 4, "must give the outputs ['y'] as R1"),
    (HEAD + R1 + R2.replace(" THEN y = -1.0 - 3.0*x2", ""), 4, "expected 'THEN'"),
    (HEAD + R1 + "    y = 1.0\n" + R2, 4, "expected a rule 'R<k>: IF ...' or an indented equation"),
    (HEAD + R1 + R2 + "# ... 3 more rules not shown\n", 5, "lists only some of the rules"),
    (HEAD + R1 + "garbage\n" + R2, 4, "expected a rule"),
    (HEAD + HEAD + R1 + R2, 3, "a second header line"),
]


@pytest.mark.parametrize("text, line, message", BAD_TEXTS)
def test_bad_text_names_the_line_and_the_problem(text, line, message):
    with pytest.raises(FormatError, match=re.escape(message)) as info:
        parse_rules(text)
    assert info.value.line == line
    assert str(info.value).startswith(f"line {line}: ")


def test_the_good_text_of_the_error_table_parses():
    rule_base = parse_rules(HEAD + R1 + R2)
    assert rule_base.coef.tolist() == [[[2.0, 0.0]], [[0.0, -3.0]]]
    assert rule_base.intercept.tolist() == [[1.0], [-1.0]]


def test_parse_rules_rejects_non_strings():
    with pytest.raises(TypeError, match="text must be a str; got bytes"):
        parse_rules(b"R1")


_VALID = format_rules(random_model(3, n_rules=3, n_features=2, n_outputs=2)) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corrupted_text_raises_format_error_or_reads_a_whole_model(data):
    text = _VALID
    kind = data.draw(st.sampled_from(["delete", "insert", "replace", "swap_lines", "drop_line"]))
    lines = text.split("\n")
    if kind in ("swap_lines", "drop_line"):
        i = data.draw(st.integers(0, len(lines) - 2))
        if kind == "swap_lines":
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        else:
            del lines[i]
        text = "\n".join(lines)
    else:
        start = data.draw(st.integers(0, len(text) - 1))
        stop = data.draw(st.integers(start, min(len(text), start + 12)))
        junk = data.draw(st.text(max_size=6)) if kind != "delete" else ""
        text = text[:start] + junk + text[stop if kind != "insert" else start :]
    try:
        rule_base = parse_rules(text)
    except FormatError as error:
        assert error.line is not None and error.line >= 1
        return
    # Whatever parses is a whole, consistent rule base with the counts its header states.
    header = re.search(r"(\d+) rules", text)
    assert header and len(rule_base) == int(header.group(1))
    assert rule_base.coef.shape == (len(rule_base), rule_base.n_outputs, rule_base.n_features)


_NAME = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=8).filter(
    str.strip
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(_NAME, min_size=3, max_size=3, unique=True),
    st.lists(_NAME, min_size=1, max_size=2, unique=True),
)
def test_any_names_read_back(input_names, output_names):
    rule_base = random_model(
        0,
        n_rules=2,
        n_features=3,
        n_outputs=len(output_names),
        names={"input_names": input_names, "output_names": output_names},
    )
    assert parse_rules(format_rules(rule_base)) == rule_base


def test_names_that_look_like_rule_labels_or_comments_read_back():
    names = {"input_names": ["R1:", "a#b", "x"], "output_names": ["R2:", "#"]}
    rule_base = random_model(4, n_rules=3, names=names)
    assert parse_rules(format_rules(rule_base)) == rule_base
