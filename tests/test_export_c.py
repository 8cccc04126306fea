"""The C export (randomts.io.to_c): compiled with the system's C compiler, it predicts as randomts.

The programs are built with ``-std=c99 -pedantic`` and run on the rows of
``export_helpers.rows``: data, points between, points so far away that every
strength underflows. Tests that compile skip, saying so, where no C compiler
is found.
"""

import math
import os
import warnings

import numpy as np
import pytest
from export_helpers import (
    COMPILER,
    NO_COMPILER,
    assert_close,
    compile_c,
    csv,
    gcc_or_clang,
    labels_of,
    models,
    run_program,
)

from randomts import RandomTSRegressor, RuleBase
from randomts.io import to_c

needs_compiler = pytest.mark.skipif(COMPILER is None, reason=NO_COMPILER)
MODELS = models()
NAMES = [name for name, *_ in MODELS]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """Each model's C program, compiled once."""
    if COMPILER is None:
        pytest.skip(NO_COMPILER)
    folder = str(tmp_path_factory.mktemp("c_models"))
    built = {}
    for index, (name, model, _, _) in enumerate(MODELS):
        built[name] = compile_c(to_c(model), folder, f"model{index}", "-DRANDOMTS_MAIN")
    return built


@needs_compiler
@pytest.mark.parametrize("index", range(len(MODELS)), ids=NAMES)
def test_the_c_program_predicts_as_randomts(programs, index):
    name, model, reference, X = MODELS[index]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # predicting far from the data warns; the C does not
        expected = reference(X)
    result = run_program(programs[name][0], csv(X))
    assert result.returncode == 0 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == len(X)
    fields = [line.split(",") for line in lines]
    n_outputs = expected.shape[1]
    found = np.array([[float(v) for v in row[:n_outputs]] for row in fields])
    assert not np.isnan(found).any()
    assert_close(found, expected)
    classes = labels_of(model)
    if classes is None:
        assert all(len(row) == n_outputs for row in fields)
    else:  # the scores, then the predicted class
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            predicted = model.predict(X)
        assert [row[n_outputs] for row in fields] == [str(c) for c in predicted]


@needs_compiler
@pytest.mark.skipif(not gcc_or_clang(), reason="warnings are checked with GCC and Clang only")
def test_the_c_compiles_without_a_warning(programs):
    """-std=c99 -pedantic -Wall -Wextra: every model's file, program and functions alike."""
    for name, (_, messages) in programs.items():
        assert messages == "", f"{name}: {messages}"


@needs_compiler
def test_the_functions_link_into_a_program_of_ones_own(tmp_path):
    """Two models in one program (their prefixes), the return codes, no -DRANDOMTS_MAIN."""
    name, classifier, reference, X = next(m for m in MODELS if m[0] == "classifier, 3 classes")
    regressor = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(
        X[:10], X[:10, 0]
    )
    driver = (
        to_c(regressor, prefix="first")
        + to_c(classifier, prefix="second")
        + f"""
int main(void)
{{
    double x[2] = {{{float(X[3, 0])!r}, {float(X[3, 1])!r}}}, y[3], bad[2] = {{1.0, NAN}};
    int code = first_predict(x, y);
    printf("%d %.17g\\n", code, y[0]);
    code = second_predict(x, y);
    printf("%d %.17g %.17g %.17g\\n", code, y[0], y[1], y[2]);
    code = second_predict_class(x);
    printf("%d %s\\n", code, second_classes[code]);
    y[0] = 7.0;
    printf("%d %d %d %g\\n", first_predict(bad, y), second_predict(bad, y),
           second_predict_class(bad), y[0]);
    return FIRST_N_FEATURES + SECOND_N_OUTPUTS == 5 ? 0 : 1;
}}
"""
    )
    program, _ = compile_c(driver, str(tmp_path), "driver")
    result = run_program(program, "")
    assert result.returncode == 0, result.stderr
    first, second, label, bad = result.stdout.splitlines()
    code, value = first.split()
    assert code == "0"
    assert_close([[float(value)]], regressor.predict(X[3:4]).reshape(1, 1))
    code, *scores = second.split()
    assert code == "0"
    assert_close([[float(s) for s in scores]], reference(X[3:4]))
    index, text = label.split()
    assert text == str(classifier.predict(X[3:4])[0]) == str(classifier.classes_[int(index)])
    assert bad.split() == ["1", "1", "-1", "7"]  # a NaN input: an error code, y untouched


def test_numbers_are_written_losslessly():
    rb = RuleBase(
        centers=[[0.1, -1e-300], [math.pi, 5e-324]],
        sigmas=[[1 / 3, 1e300], [2.0, math.e]],
        coef=[[[1e-17, -0.0]], [[123456789.123456789, 1.0]]],
        intercept=[[0.30000000000000004], [-2.5]],
    )
    code = to_c(rb)
    for array in (rb.centers, rb.sigmas, rb.coef, rb.intercept):
        for value in array.ravel():
            assert repr(float(value)) in code


def test_names_and_labels_cannot_break_the_c():
    """Quotes, backslashes, trigraphs and comment ends in names are escaped."""
    rb = RuleBase(
        centers=[[0.0]],
        sigmas=[[1.0]],
        intercept=[[1.0]],
        input_names=['a "quoted" */ name ??/'],
        output_names=["back\\slash é"],
    )
    code = to_c(rb)
    comment = code[: code.index("*/") + 2]
    assert comment.count("*/") == 1 and "??" not in comment
    assert '"a \\"quoted\\" */ name \\?\\?/"' in code


@needs_compiler
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1.0,2.0\n3.0\n", "line 2: 1 comma-separated fields; expected 2, the inputs x1, x2"),
        ("1.0,2.0,3.0\n", "line 1: 3 comma-separated fields; expected 2"),
        ("1.0,abc\n", "line 1: input 2 (x2) is not a number: 'abc'"),
        ("1.0,2.0\n\n1.0, 2.0x\n", "line 3: input 2 (x2) is not a number: '2.0x'"),
        ("1.0,\n", "line 1: input 2 (x2) is not a number: ''"),
        ("nan,1.0\n", "line 1: input 1 (x1) is 'nan', not a finite number"),
        ("1.0,-inf\n", "line 1: input 2 (x2) is '-inf', not a finite number"),
        ("1e999,1.0\n", "line 1: input 1 (x1) is '1e999', not a finite number"),
    ],
)
def test_a_bad_line_stops_the_program_with_a_message_naming_it(tmp_path, text, message):
    model = RandomTSRegressor(n_rules=3, random_state=0, structure="random").fit(
        [[0.0, 0.0], [1.0, 1.0]], [0.0, 1.0]
    )
    program, _ = compile_c(to_c(model), str(tmp_path), "model", "-DRANDOMTS_MAIN")
    result = run_program(program, text)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and message in result.stderr
    assert result.stderr.startswith(program + ": ")


@needs_compiler
def test_headers_blank_lines_crlf_blanks_and_long_lines_are_read(tmp_path):
    X = np.array([[0.25, -0.5], [1.5, 2.0]])
    model = RandomTSRegressor(n_rules=3, random_state=0, structure="random").fit(
        np.vstack([X, X + 1]), [0, 1, 2, 3]
    )
    model.rule_base_ = model.rule_base_.replace(input_names=["speed", "a b"])
    program, _ = compile_c(to_c(model), str(tmp_path), "model", "-DRANDOMTS_MAIN")
    padding = " " * 600  # longer than the first buffer
    text = (
        '\ufeffspeed, "a b"\r\n'
        f"0.25,{padding}-0.5\r\n"
        "\n"
        "  \t\n"
        "1.5e0 , 2\n"  # the last line without its line end
    )
    result = run_program(program, text.rstrip("\n"))
    assert result.returncode == 0, result.stderr
    found = np.array([[float(v)] for v in result.stdout.split()])
    assert_close(found, model.predict(X).reshape(-1, 1))
    empty = run_program(program, "")
    assert empty.returncode == 0 and empty.stdout == "" and empty.stderr == ""


def test_what_cannot_be_converted_is_refused():
    from randomts import FuzzySystem, load

    with pytest.raises(TypeError, match="Converting to C takes a RuleBase, .*; got str"):
        to_c("model.json")
    with pytest.raises(TypeError, match=r"got RandomTSRegressor \(not fitted: call fit first\)"):
        to_c(RandomTSRegressor(structure="random"))
    system = load(
        os.path.join(os.path.dirname(__file__), "..", "docs", "data", "heart_disease_risk.fis")
    )
    assert isinstance(system, FuzzySystem)
    with pytest.raises(ValueError, match="Cannot convert this FuzzySystem to C: input 'LDL-Level'"):
        to_c(system)
    with pytest.raises(ValueError, match="'prefix' parameter of to_c must be a C identifier"):
        to_c(RuleBase(centers=[[0.0]], sigmas=[[1.0]]), prefix="my-model")
