"""The human text of a rule base: writing, tables, and reading it back."""

import re

import io_helpers
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import randomts
from randomts import FormatError, RuleBase
from randomts.io.text_format import format_rules, parse_rules
from randomts.text import LABELS, TABLE_FORMATS, linguistic_labels


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


def test_lossless_text_is_the_txt_format_and_names_are_quoted_when_needed():
    names = {"input_names": ["x1(k)", "temp (C)", "a*b"], "output_names": ["y=1", "y2"]}
    rule_base = random_model(0, names=names)
    text = format_rules(rule_base)
    # the file adds the metadata on a comment line after the rules
    assert randomts.io.dumps(rule_base, "text") == text + '\n# randomts-metadata: {"seed": 0}\n'
    assert '"temp (C)" is G(' in text and '"a*b"' in text and '    "y=1" = ' in text
    assert "x1(k) is G(" in text
    assert parse_rules(text) == rule_base
    readable = str(rule_base)
    assert readable == rule_base.to_text() and '"temp (C)" is about ' in readable
    assert '    "y=1" = ' in readable


def test_machine_text_shows_every_antecedent_and_full_equation():
    rule_base = RuleBase(
        centers=[[0.42, -0.8]], sigmas=[[0.13, 0.3]], coef=[[[1.3, -0.4]]], intercept=[[0.12]]
    )
    assert format_rules(rule_base, precision=2).splitlines()[-1] == (
        "R1: IF x1 is G(0.42, 0.13) AND x2 is G(-0.8, 0.3) THEN y = 0.12 + 1.3*x1 - 0.4*x2"
    )


def test_readable_rule_is_centred_where_the_rule_lives():
    """y = b + A x written as y(c) + A (x - c): the constant is the output at the centre."""
    rule_base = RuleBase(
        centers=[[374.83081048352096, 317.5433192712619]],
        sigmas=[[44.11600535796192, 44.547332417278]],
        coef=[[[0.021974998577963575, 0.3]]],
        intercept=[[-100.87619270576518]],
    )
    at_centre = (
        -100.87619270576518 + 0.021974998577963575 * 374.83081048352096 + 0.3 * (317.5433192712619)
    )
    line = rule_base.to_text().splitlines()[-1]
    assert line == (
        "R1: IF x1 is about 374.8 (±44.12) AND x2 is about 317.5 (±44.55) THEN "
        f"y = {at_centre:.4g} + 0.02197·(x1 - 374.8) + 0.3·(x2 - 317.5)"
    )
    assert (
        rule_base.to_text(centered=False)
        .splitlines()[-1]
        .endswith("THEN y = -100.9 + 0.02197·x1 + 0.3·x2")
    )
    # every digit on request, and the centred equation predicts as the rule does
    full = rule_base.to_text(precision=None).splitlines()[-1]
    constant = float(full.split("THEN y = ")[1].split(" ")[0])
    assert constant == pytest.approx(rule_base.rule_outputs(rule_base.centers)[0, 0, 0], rel=1e-15)


def test_readable_text_of_negative_and_zero_centres_and_several_outputs():
    rule_base = RuleBase(
        centers=[[-2.5, 0.0]],
        sigmas=[[1.0, 2.0]],
        coef=[[[1.0, -2.0], [0.0, 0.0]]],
        intercept=[[0.0, 7.0]],
    )
    lines = rule_base.to_text().splitlines()
    assert lines[-3] == "R1: IF x1 is about -2.5 (±1) AND x2 is about 0 (±2) THEN"
    assert lines[-2] == "    y1 = -2.5 + 1·(x1 + 2.5) - 2·x2"
    assert lines[-1] == "    y2 = 7"


@pytest.mark.parametrize("n_labels", sorted(LABELS))
def test_labels_cut_the_recorded_range_into_equal_parts(n_labels):
    grid = np.linspace(0.0, 10.0, 101)
    rule_base = RuleBase(
        centers=np.concatenate([grid, [-0.1, 10.1]])[:, None],
        sigmas=np.ones((103, 1)),
        input_range=[[0.0, 10.0]],
    )
    labels = [row[0] for row in linguistic_labels(rule_base, n_labels)]
    assert labels[-2:] == ["below range", "above range"]
    for c, label in zip(grid, labels[:-2], strict=True):
        part = min(int(c / 10.0 * n_labels), n_labels - 1)
        assert label == LABELS[n_labels][part], c
    text = rule_base.to_text(labels=n_labels).splitlines()
    assert text[3].startswith(f"R1: IF x1 is {LABELS[n_labels][0]} (about 0 ±1) THEN")


def test_labels_need_a_range_from_the_rule_base_or_the_data():
    rule_base = RuleBase(centers=[[0.0], [5.0]], sigmas=[[1.0], [1.0]])
    with pytest.raises(ValueError, match="need the inputs' ranges.*input_range is None"):
        rule_base.to_text(labels=True)
    assert linguistic_labels(rule_base, 2, X=[[0.0], [4.0]]) == [["low"], ["above range"]]
    with pytest.raises(ValueError, match=r"'labels' parameter must be True or a number .* got 9"):
        rule_base.to_text(labels=9)


def test_rules_by_importance_follow_rule_importance():
    rule_base = random_model(3, n_rules=6, n_features=3, n_outputs=2)
    X = np.random.default_rng(3).normal(size=(200, 3))
    importance = randomts.analysis.importance.rule_importance(rule_base, X)
    order = np.argsort(-importance, kind="stable")
    lines = [line for line in rule_base.to_text(X=X).splitlines() if line.startswith("R")]
    assert [int(line.split()[0][1:]) - 1 for line in lines] == order.tolist()
    for line, i in zip(lines, order, strict=True):
        assert f"({100 * importance[i]:.3g}%)" in line
    top = rule_base.to_text(X=X, top=2).splitlines()
    assert [line.split()[0] for line in top if line.startswith("R")] == [
        f"R{i + 1}" for i in order[:2]
    ]
    rest = 100 * importance[order[2:]].sum()
    assert (
        top[-1]
        == f"# ... 4 less important rules not shown ({rest:.3g}% of the absolute contributions)"
    )
    table = rule_base.table(X=X, top=3).splitlines()
    assert [row.split()[0] for row in table[1:]] == [f"R{i + 1}" for i in order[:3]]
    with pytest.raises(ValueError, match="'top' parameter needs the data X"):
        rule_base.to_text(top=2)


def test_precision_rounds_to_significant_digits():
    rule_base = RuleBase(centers=[[1 / 3]], sigmas=[[2 / 3]], intercept=[[123456.789]])
    assert "x1 is about 0.333 (±0.667) THEN y = 1.23e+05" in rule_base.to_text(precision=3)
    assert "x1 is about 0.3333 (±0.6667) THEN y = 1.235e+05" in str(rule_base)
    assert "G(0.333, 0.667) THEN y = 1.23e+05" in format_rules(rule_base, precision=3)
    rounded = parse_rules(format_rules(rule_base, precision=3))
    # exact: the parser reads the printed digits as Python reads the literals
    assert rounded.centers[0, 0] == 0.333 and rounded.intercept[0, 0] == 123000.0


@pytest.mark.parametrize("fmt", ["plain", "github", "latex", "html", "grid", "tsv"])
def test_table_holds_every_number_in_every_format(fmt):
    rule_base = random_model(1, n_rules=3, n_features=2, n_outputs=1)
    table = rule_base.table(fmt=fmt, precision=None, centered=False)
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
    centred = rule_base.table(fmt=fmt, precision=None)
    at_centres = rule_base.intercept[:, 0] + np.einsum(
        "ik,ik->i", rule_base.coef[:, 0], rule_base.centers
    )
    assert "y: at c" in centred and all(repr(float(v)) in centred for v in at_centres)


def test_table_rows_are_rules_in_order():
    rule_base = random_model(2, n_rules=4, n_features=1, n_outputs=1)
    lines = rule_base.table(fmt="plain", precision=4).splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["R1", "R2", "R3", "R4"]
    first = lines[1].split()
    assert float(first[1]) == pytest.approx(rule_base.centers[0, 0], rel=1e-3)
    assert float(first[2]) == pytest.approx(rule_base.sigmas[0, 0], rel=1e-3)


def test_html_is_a_compact_escaped_table_with_rounded_numbers():
    rule_base = random_model(4, n_rules=30, n_features=2, n_outputs=1).replace(
        input_names=["<b>", "a & b"]
    )
    page = rule_base._repr_html_()
    assert page.startswith('<table class="randomts-rules">') and page.endswith("</table>")
    assert "&lt;b&gt;" in page and "a &amp; b" in page and "<b>" not in page
    assert page.count("<tr>") == 1 + 20 + 1  # header, 20 rules, "... 10 more rules"
    assert "10 more rules" in page and "30 rules, 2 inputs, 1 output, weighted sum" in page
    c = rule_base.centers[0, 0]
    assert f"<td>about {c:.4g} (±{rule_base.sigmas[0, 0]:.4g})</td>" in page
    assert repr(float(c)) not in page


def test_text_and_table_reject_a_bad_precision():
    rule_base = RuleBase(centers=[[0.0]], sigmas=[[1.0]])
    with pytest.raises(ValueError, match="The 'precision' parameter must be an int in the range"):
        rule_base.to_text(precision=0)
    with pytest.raises(ValueError, match="The 'precision' parameter must be an int in the range"):
        rule_base.table(precision=0)
    with pytest.raises(TypeError, match="The 'centered' parameter must be a bool; got 'no'"):
        rule_base.to_text(centered="no")


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
    (
        HEAD + R1 + R2.replace("2.0) THEN", "-2.0) THEN"),
        4,
        "expected a width >= 2.2250738585072014e-308",
    ),
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


def test_txt_ranges_lines_round_trip_and_bad_ones_name_their_line():
    rule_base = random_model(5, n_rules=2, n_features=2, n_outputs=1).replace(
        input_range=[[-1 / 3, 2.0], [0.1, 0.7]], output_range=[[-5.5, 1e-300]]
    )
    text = format_rules(rule_base)
    assert "# input ranges: x1 in [-0.3333333333333333, 2.0], x2 in [0.1, 0.7]" in text
    back = parse_rules(text)
    assert back == rule_base
    assert np.array_equal(back.input_range, rule_base.input_range)
    assert np.array_equal(back.output_range, rule_base.output_range)
    lines = text.splitlines()
    for old, new, message in [
        ("x2 in [0.1, 0.7]", "x3 in [0.1, 0.7]", r"the input ranges must name \['x1', 'x2'\]"),
        ("x2 in [0.1, 0.7]", "x2 in [0.7, 0.1]", "expected a high end >= the low end 0.7"),
        ("x2 in [0.1, 0.7]", "x2 in [0.1 0.7]", "expected ','"),
        ("x2 in [0.1, 0.7]", "x2 [0.1, 0.7]", "expected 'in'"),
    ]:
        bad = "\n".join(line.replace(old, new) for line in lines)
        with pytest.raises(FormatError, match=f"line 3: {message}"):
            parse_rules(bad)
    twice = "\n".join(lines[:3] + [lines[2]] + lines[3:])
    with pytest.raises(FormatError, match="line 4: a second input ranges line"):
        parse_rules(twice)
