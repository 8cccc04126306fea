"""The randomts command: every subcommand through main(argv), and once as a real process."""

import os
import subprocess
import sys

import numpy as np
import pytest

import randomts
from randomts.cli import build_parser, main
from randomts.io.csv_data import read_csv, write_csv

SUBCOMMANDS = ["generate", "fit", "rules", "predict", "explain", "convert"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def data_csv(tmp_path, van_der_pol_data):
    X, Y = van_der_pol_data
    path = tmp_path / "vdp.csv"
    write_csv(path, ["x1", "x2", "y1", "y2"], np.hstack([X, Y])[::25])
    return path


@pytest.fixture
def model_json(tmp_path, capsys, data_csv):
    path = tmp_path / "model.json"
    code, _, err = run(
        capsys,
        "fit",
        data_csv,
        "--target",
        "y1",
        "--target",
        "y2",
        "--rules",
        12,
        "--seed",
        3,
        "-o",
        path,
    )
    assert code == 0, err
    return path


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_has_help(capsys, name):
    with pytest.raises(SystemExit) as exit_info:
        main([name, "--help"])
    assert exit_info.value.code == 0
    assert f"usage: randomts {name}" in capsys.readouterr().out


def test_generate_prints_the_same_rules_as_the_library(capsys):
    code, out, err = run(
        capsys, "generate", "--inputs", 2, "--outputs", 2, "--rules", 4, "--seed", 5
    )
    assert code == 0 and err == ""
    expected = randomts.RuleBase.random(2, 2, 4, random_state=5)
    assert randomts.io.loads(out, "text") == expected


def test_generate_saves_and_random_consequents_are_seeded(tmp_path, capsys):
    paths = [tmp_path / "a.fll", tmp_path / "b.fll"]
    for path in paths:
        code, out, _ = run(
            capsys,
            "generate",
            "--inputs",
            3,
            "--rules",
            5,
            "--seed",
            1,
            "--random-consequents",
            "--normalize",
            "-o",
            path,
        )
        assert code == 0 and out.startswith(f"wrote {path} (5 rules, 3 inputs, 1 outputs)")
    a, b = (randomts.load(p) for p in paths)
    assert a.normalize and a.order == 1 and np.array_equal(a.coef, b.coef)


def test_fit_saves_a_model_that_predicts_like_the_estimator(tmp_path, capsys, data_csv, model_json):
    header, values = read_csv(data_csv)
    X, Y = values[:, :2], values[:, 2:]
    # the settings `randomts fit` passes explicitly (no --standardize, --alpha 0)
    model = randomts.RandomTSRegressor(
        n_rules=12, standardize=False, alpha=0.0, random_state=3
    ).fit(X, Y)
    saved = randomts.load(model_json)
    assert saved.input_names == ("x1", "x2") and saved.output_names == ("y1", "y2")
    assert np.array_equal(saved.predict(X), model.predict(X))
    assert saved.metadata["params"]["random_state"] == 3
    np.testing.assert_array_equal(
        saved.metadata["input_range"], np.stack([X.min(0), X.max(0)], axis=1)
    )


def test_fit_reports_the_training_error(tmp_path, capsys, data_csv):
    code, out, _ = run(
        capsys,
        "fit",
        data_csv,
        "--target",
        "y1",
        "--rules",
        5,
        "--order",
        "0",
        "--normalize",
        "-o",
        tmp_path / "m.txt",
    )
    header, values = read_csv(data_csv)
    model = randomts.RandomTSRegressor(
        n_rules=5, order=0, normalize=True, standardize=False, alpha=0.0, random_state=0
    )
    X = values[:, [0, 1, 3]]  # every column but the target is an input
    rmse = np.sqrt(np.mean((model.fit(X, values[:, 2]).predict(X) - values[:, 2]) ** 2))
    assert code == 0 and f"training RMSE: y1 {rmse:.4g}" in out
    assert randomts.load(tmp_path / "m.txt").input_names == ("x1", "x2", "y2")


def test_rules_as_text_and_tables(capsys, model_json):
    rule_base = randomts.load(model_json)
    code, out, _ = run(capsys, "rules", model_json)
    assert code == 0 and out.rstrip("\n") == rule_base.to_text()
    code, out, _ = run(capsys, "rules", model_json, "--format", "github", "--precision", 3)
    assert code == 0 and out.rstrip("\n") == rule_base.table(fmt="github", precision=3)
    code, out, _ = run(capsys, "rules", model_json, "--format", "table")
    assert out.rstrip("\n") == rule_base.table()
    code, out, _ = run(capsys, "rules", model_json, "--format", "latex")
    assert out.startswith("\\begin{tabular}")


def test_predict_prints_or_writes_csv(tmp_path, capsys, data_csv, model_json):
    rule_base = randomts.load(model_json)
    _, values = read_csv(data_csv)
    code, out, _ = run(capsys, "predict", model_json, data_csv)
    assert code == 0 and out.splitlines()[0] == "y1,y2"
    printed = np.array([[float(v) for v in line.split(",")] for line in out.splitlines()[1:]])
    assert np.array_equal(printed, rule_base.predict(values[:, :2]))  # repr numbers: lossless
    code, out, _ = run(capsys, "predict", model_json, data_csv, "-o", tmp_path / "out.csv")
    header, written = read_csv(tmp_path / "out.csv")
    assert header == ["y1", "y2"] and np.array_equal(written, printed)


def test_explain_shows_the_rules_behind_one_prediction(capsys, model_json):
    rule_base = randomts.load(model_json)
    code, out, _ = run(capsys, "explain", model_json, "--x=0.5,-1", "--top", 3)
    assert code == 0
    assert out.rstrip("\n") == rule_base.explain([0.5, -1.0], top=3).to_text()
    assert "9 other rules" in out


def test_convert_between_every_pair_of_formats(tmp_path, capsys, model_json):
    rule_base = randomts.load(model_json)
    previous = model_json
    for extension in ("fis", "fll", "txt", "json", "fis"):
        target = tmp_path / f"converted.{extension}"
        code, out, err = run(capsys, "convert", previous, target)
        assert code == 0, err
        assert np.array_equal(randomts.load(target).coef, rule_base.coef)
        previous = target
    code, _, _ = run(capsys, "convert", model_json, tmp_path / "plain.dat", "--to", "text")
    assert code == 0 and randomts.load(tmp_path / "plain.dat", format="text") == rule_base.replace(
        metadata={}
    )


ERRORS = [
    (
        ["generate", "--inputs", "0"],
        2,
        "randomts generate: argument --inputs: expected a positive integer, got '0'",
    ),
    (["generate"], 2, "randomts generate: the following arguments are required: --inputs"),
    (["rules", "{missing}"], 1, "randomts: error: [Errno 2] No such file or directory"),
    (
        ["rules", "{bad}"],
        1,
        "randomts: error: {bad}: line 2: invalid JSON: Expecting property name",
    ),
    (["rules", "{model}", "--format", "excel"], 2, "argument --format: invalid choice: 'excel'"),
    (
        ["explain", "{model}", "--x", "1"],
        1,
        "randomts: error: --x has 1 value(s) but the model has 2 inputs",
    ),
    (
        ["explain", "{model}", "--x", "a,b"],
        1,
        "randomts: error: --x must be comma-separated numbers",
    ),
    (
        ["fit", "{data}", "--target", "nope", "-o", "{tmp}/m.json"],
        1,
        "randomts: error: The data has no target column(s) ['nope']; "
        "its columns are ['x1', 'x2', 'y1', 'y2'].",
    ),
    (
        ["predict", "{model}", "{bad_csv}"],
        1,
        "randomts: error: {bad_csv}: line 3: not a number in this row",
    ),
    (["convert", "{model}", "{tmp}/out.xyz"], 1, "randomts: error: Cannot tell the format of"),
    ([], 2, "randomts: the following arguments are required: command"),
]


@pytest.mark.parametrize("argv, code, message", ERRORS)
def test_errors_are_one_line_on_stderr(tmp_path, capsys, data_csv, model_json, argv, code, message):
    bad = tmp_path / "bad.json"
    bad.write_text("{\n")
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("x1,x2\n1,2\n3,four\n")
    names = {
        "missing": tmp_path / "missing.json",
        "bad": bad,
        "model": model_json,
        "data": data_csv,
        "tmp": tmp_path,
        "bad_csv": bad_csv,
    }
    status, out, err = run(capsys, *[a.format(**names) for a in argv])
    assert status == code and out == ""
    assert err.count("\n") == 1 and message.format(**names) in err and "Traceback" not in err


def test_the_console_script_runs_end_to_end(tmp_path, data_csv):
    """Real processes: a fit that saves a model, and an error that must not show a traceback."""
    model = tmp_path / "model.fis"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    script = os.path.join(os.path.dirname(sys.executable), "randomts")  # the console script
    command = [script] if os.path.exists(script) else [sys.executable, "-m", "randomts.cli"]
    fit = subprocess.run(
        command
        + [
            "fit",
            str(data_csv),
            "--target",
            "y1",
            "--target",
            "y2",
            "--rules",
            "8",
            "-o",
            str(model),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert fit.returncode == 0, fit.stderr
    assert randomts.load(model).n_rules == 8 and fit.stdout.startswith(
        "fitted 8 rules on 400 samples"
    )
    failed = subprocess.run(
        command + ["rules", str(tmp_path / "missing.fis")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert failed.returncode == 1 and failed.stderr.startswith("randomts: error: ")
    assert "Traceback" not in failed.stderr


def test_parser_lists_every_subcommand():
    text = build_parser().format_help()
    for name in SUBCOMMANDS + ["demo"]:
        assert name in text
