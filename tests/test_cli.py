"""The randomts command: every subcommand through main(argv), and once as a real process."""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import randomts
from randomts.cli import build_parser, main
from randomts.io.csv_data import read_csv, write_csv

SUBCOMMANDS = ["generate", "fit", "rules", "predict", "explain", "convert", "plot"]


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
    model = randomts.RandomTSRegressor(n_rules=12, random_state=3).fit(X, Y)
    saved = randomts.load(model_json)  # the fitted estimator, with the CSV's column names
    assert (
        isinstance(saved, randomts.RandomTSRegressor) and saved.get_params() == model.get_params()
    )
    assert list(saved.feature_names_in_) == ["x1", "x2"]
    rule_base = saved.rule_base_
    assert rule_base.input_names == ("x1", "x2") and rule_base.output_names == ("y1", "y2")
    frame = pd.DataFrame(X, columns=["x1", "x2"])
    # the same settings and data; the CLI's fit follows its cross-validation folds, and the
    # leave-one-out eigensolver rounds apart by 1e-9 relative
    np.testing.assert_allclose(saved.predict(frame), model.predict(X), rtol=1e-7, atol=1e-9)
    assert rule_base.metadata["params"]["random_state"] == 3
    np.testing.assert_array_equal(rule_base.input_range, np.stack([X.min(0), X.max(0)], axis=1))


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
    model = randomts.RandomTSRegressor(n_rules=5, order=0, normalize=True, random_state=0)
    X = values[:, [0, 1, 3]]  # every column but the target is an input
    rmse = np.sqrt(np.mean((model.fit(X, values[:, 2]).predict(X) - values[:, 2]) ** 2))
    assert code == 0 and f"training RMSE: y1 {rmse:.4g}" in out
    saved = randomts.load(tmp_path / "m.txt")
    assert saved.rule_base_.input_names == ("x1", "x2", "y2")
    assert saved.predict(pd.DataFrame(X, columns=["x1", "x2", "y2"])).shape == (len(X),)


def test_rules_as_text_and_tables(capsys, model_json):
    rule_base = randomts.load(model_json).rule_base_
    code, out, _ = run(capsys, "rules", model_json)
    assert code == 0 and out.rstrip("\n") == rule_base.to_text()
    assert "R1: IF x1 is about " in out
    code, out, _ = run(capsys, "rules", model_json, "--lossless")
    assert code == 0 and randomts.io.loads(out, "text") == rule_base
    code, out, _ = run(capsys, "rules", model_json, "--format", "github", "--precision", 3)
    assert code == 0 and out.rstrip("\n") == rule_base.table(fmt="github", precision=3)
    code, out, _ = run(capsys, "rules", model_json, "--format", "table")
    assert out.rstrip("\n") == rule_base.table()
    code, out, _ = run(capsys, "rules", model_json, "--format", "latex")
    assert out.startswith("\\begin{tabular}")


def test_rules_by_importance_on_data_with_labels(capsys, data_csv, model_json):
    rule_base = randomts.load(model_json).rule_base_
    header, values = read_csv(data_csv)
    X = values[:, :2]
    code, out, _ = run(capsys, "rules", model_json, "--data", data_csv, "--top", 4, "--labels")
    assert code == 0
    assert out.rstrip("\n") == rule_base.to_text(X=X, top=4, labels=True)
    ranked = randomts.analysis.importance.rank_rules(rule_base, X)[:4]
    assert [line.split()[0] for line in out.splitlines() if line.startswith("R")] == [
        f"R{i + 1}" for i in ranked
    ]
    code, out, _ = run(
        capsys,
        "rules",
        model_json,
        "--data",
        data_csv,
        "--top",
        2,
        "--format",
        "github",
        "--labels",
        5,
        "--intercept",
        "--precision",
        6,
    )
    assert out.rstrip("\n") == rule_base.table(
        fmt="github", X=X, top=2, labels=5, centered=False, precision=6
    )


def test_rules_checked_against_the_data(capsys, tmp_path, data_csv, model_json):
    rule_base = randomts.load(model_json).rule_base_
    header, values = read_csv(data_csv)
    X, Y = values[:, :2], values[:, 2:]
    code, out, _ = run(capsys, "rules", model_json, "--data", data_csv, "--top", 3, "--check")
    assert code == 0
    assert out.rstrip("\n") == rule_base.to_text(X=X, y=Y, top=3)
    assert sum("# at c: model " in line for line in out.splitlines()) == 3 * 2  # two outputs
    code, out, _ = run(
        capsys, "rules", model_json, "--data", data_csv, "--check", "--format", "tsv"
    )
    assert out.rstrip("\n") == rule_base.table(fmt="tsv", X=X, y=Y)
    code, _, err = run(capsys, "rules", model_json, "--check")
    assert code == 1 and "--check needs --data" in err
    inputs_only = tmp_path / "inputs.csv"
    write_csv(inputs_only, ["x1", "x2"], X)
    code, _, err = run(capsys, "rules", model_json, "--data", inputs_only, "--check")
    assert code == 1 and "no output column(s) ['y1', 'y2']" in err


def test_rules_of_a_general_system_checked_against_the_data(capsys, tmp_path):
    fis = os.path.join(os.path.dirname(__file__), "..", "docs", "data", "heart_disease_risk.fis")
    system = randomts.load(fis)
    rng = np.random.default_rng(0)
    X = rng.uniform(system.input_range[:, 0], system.input_range[:, 1], size=(200, 2))
    y = system.predict(X)[:, 0] + rng.normal(size=200)
    data = tmp_path / "heart.csv"
    write_csv(data, list(system.input_names) + list(system.output_names), np.column_stack([X, y]))
    code, out, _ = run(capsys, "rules", fis, "--data", data, "--top", 2, "--check")
    assert code == 0
    assert out.rstrip("\n") == system.to_text(X=X, y=y, top=2)
    assert sum(line.startswith("    # Heart-Disease-Risk: rule ") for line in out.splitlines()) == 2


def test_rules_options_that_do_not_go_together_say_so(capsys, data_csv, model_json):
    code, _, err = run(capsys, "rules", model_json, "--top", 3)
    assert code == 1 and "--top needs --data" in err
    code, _, err = run(capsys, "rules", model_json, "--lossless", "--labels")
    assert code == 1 and "--lossless prints the TXT format" in err
    code, _, err = run(capsys, "rules", model_json, "--labels", 9)
    assert code == 1 and "'labels' parameter must be True or a number of labels in [2, 3" in err
    code, _, err = run(capsys, "rules", model_json, "--data", model_json)
    assert code == 1 and "model.json" in err


def _png_size(path):
    """Width and height of a PNG file, from its signature and IHDR chunk (or None)."""
    with open(path, "rb") as stream:
        head = stream.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def test_plot_writes_the_sets_and_the_surface_to_a_png(tmp_path, capsys, data_csv, model_json):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    image = tmp_path / "model.png"
    code, out, err = run(
        capsys,
        "plot",
        model_json,
        "-o",
        image,
        "--inputs",
        "x2,x1",
        "--output-name",
        "y2",
        "--dpi",
        50,
    )
    assert code == 0 and err == "" and out.strip() == f"wrote {image}"
    assert _png_size(image) == (13 * 50, 4 * 50)
    code, out, err = run(
        capsys, "plot", model_json, "-o", tmp_path / "data.png", "--data", data_csv
    )
    assert code == 0 and _png_size(tmp_path / "data.png") == (1300, 400)
    one_input = tmp_path / "one.json"
    randomts.save(randomts.RuleBase.random(n_features=1, n_rules=3, random_state=0), one_input)
    code, _, err = run(capsys, "plot", one_input, "-o", tmp_path / "one.png")
    assert code == 0 and _png_size(tmp_path / "one.png") == (900, 400)


def test_plot_errors_name_the_problem(tmp_path, capsys, model_json):
    pytest.importorskip("matplotlib")
    for argv, message in [
        (["--inputs", "x1"], "--inputs must name two inputs, as A,B; got 'x1'"),
        (["--inputs", "x1,x3"], "Unknown feature 'x3'; the model's features are ['x1', 'x2']"),
        (["--inputs", "1,3"], "--inputs: position 3 is not in 1..2"),
        (["--output-name", "z"], "Unknown output 'z'"),
    ]:
        code, _, err = run(capsys, "plot", model_json, "-o", tmp_path / "m.png", *argv)
        assert code == 1 and message in err, err
    code, _, err = run(capsys, "plot", model_json, "-o", tmp_path / "m.xyz")
    assert code == 1 and "cannot write a .xyz image" in err and "'png'" in err
    assert sorted(os.listdir(tmp_path)) == ["model.json", "vdp.csv"]  # nothing half-written


def test_plot_without_matplotlib_says_how_to_install_it(tmp_path, capsys, model_json, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    code, _, err = run(capsys, "plot", model_json, "-o", tmp_path / "m.png")
    assert code == 1 and "needs matplotlib; install the plot extra" in err
    assert not (tmp_path / "m.png").exists()


def test_predict_prints_or_writes_csv(tmp_path, capsys, data_csv, model_json):
    rule_base = randomts.load(model_json).rule_base_
    _, values = read_csv(data_csv)
    code, out, _ = run(capsys, "predict", model_json, data_csv)
    assert code == 0 and out.splitlines()[0] == "predicted(y1),predicted(y2)"
    printed = np.array([[float(v) for v in line.split(",")] for line in out.splitlines()[1:]])
    assert np.array_equal(printed, rule_base.predict(values[:, :2]))  # repr numbers: lossless
    code, out, _ = run(capsys, "predict", model_json, data_csv, "-o", tmp_path / "out.csv")
    header, written = read_csv(tmp_path / "out.csv")
    assert header == ["predicted(y1)", "predicted(y2)"] and np.array_equal(written, printed)


def test_explain_shows_the_rules_behind_one_prediction(capsys, model_json):
    rule_base = randomts.load(model_json).rule_base_
    code, out, _ = run(capsys, "explain", model_json, "--x=0.5,-1", "--top", 3)
    assert code == 0
    assert out.rstrip("\n") == rule_base.explain([0.5, -1.0], top=3).to_text()
    assert "9 other rules" in out


def test_convert_between_every_pair_of_formats(tmp_path, capsys, model_json):
    model = randomts.load(model_json)
    previous = model_json
    for extension in ("fis", "fll", "txt", "json", "fis"):
        target = tmp_path / f"converted.{extension}"
        code, out, err = run(capsys, "convert", previous, target)
        assert code == 0, err
        converted = randomts.load(target)  # still the fitted estimator, names and all
        assert np.array_equal(converted.rule_base_.coef, model.rule_base_.coef)
        assert converted.rule_base_.input_names == model.rule_base_.input_names
        previous = target
    code, _, _ = run(capsys, "convert", model_json, tmp_path / "plain.dat", "--to", "text")
    back = randomts.load(tmp_path / "plain.dat", format="text")
    assert code == 0 and back.rule_base_ == model.rule_base_
    rules = tmp_path / "rules.json"
    randomts.save(model.rule_base_, rules)
    code, _, _ = run(capsys, "convert", rules, tmp_path / "rules.fll")
    assert code == 0 and isinstance(randomts.load(tmp_path / "rules.fll"), randomts.RuleBase)


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
        "randomts: error: {bad_csv}: line 3: column 'x2' holds 'four', not a number: '3,four'",
    ),
    (["convert", "{model}", "{tmp}/out.xyz"], 1, "randomts: error: Cannot tell the format of"),
    (
        ["fit", "{data}", "--target", "y1", "--cv", "1", "-o", "{tmp}/m.json"],
        2,
        "randomts fit: argument --cv: expected 0 (no cross-validation) or a number of folds >= 2",
    ),
    (
        ["fit", "{data}", "--target", "y1", "--input", "y1", "-o", "{tmp}/m.json"],
        1,
        "randomts: error: The column(s) ['y1'] cannot be both --input and --target.",
    ),
    (
        ["fit", "{bad_csv}", "--target", "x1", "--cv", "2", "--input", "x1", "-o", "{tmp}/m.json"],
        1,
        "randomts: error: The column(s) ['x1'] cannot be both --input and --target.",
    ),
    (
        ["predict", "{model}", "{data}", "--delimiter", "ab"],
        2,
        "randomts predict: argument --delimiter: expected one character",
    ),
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


def test_version_and_a_bare_command(capsys):
    from importlib.metadata import version

    assert version("randomts") == randomts.__version__  # the metadata read it from the package
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    from randomts.core.folds import compiled

    kernel = "compiled kernel" if compiled() else "no compiled kernel: SciPy's LAPACK wrappers"
    assert capsys.readouterr().out == f"randomts {randomts.__version__} ({kernel})\n"
    code, out, err = run(capsys)
    assert code == 2 and out == ""
    assert err.startswith("usage: randomts") and all(name in err for name in SUBCOMMANDS)


@pytest.mark.parametrize("targets", [["y1"], ["y1", "y2"]])
def test_fit_reports_scikit_learns_cross_validated_scores(tmp_path, capsys, data_csv, targets):
    from sklearn.model_selection import KFold, cross_validate

    # random rules: the same antecedents whether the outputs are fitted together or apart
    argv = ["fit", data_csv, "--input", "x1", "--input", "x2", "--rules", 10, "--seed", 2]
    argv += ["--structure", "random", "--cv", 4, "-o", tmp_path / "m.json"]
    code, out, err = run(capsys, *argv, *[a for t in targets for a in ("--target", t)])
    assert code == 0 and err.startswith("randomts: task: regress (") and err.count("\n") == 1
    header, values = read_csv(data_csv)
    X = values[:, :2]
    model = randomts.RandomTSRegressor(n_rules=10, structure="random", random_state=2)
    folds = KFold(n_splits=4, shuffle=True, random_state=2)
    parts = []
    for k, name in enumerate(targets):  # scikit-learn's own scorers, one output at a time
        y = values[:, 2 + k]
        result = cross_validate(
            model, X, y, cv=folds, scoring=("r2", "neg_root_mean_squared_error")
        )
        rmse = -result["test_neg_root_mean_squared_error"]
        parts.append((result["test_r2"], f"{name} {np.mean(rmse):.4g} (sd {np.std(rmse):.2g})"))
    r2 = np.mean([p[0] for p in parts], axis=0)  # R^2 averaged over the outputs, per fold
    expected = (
        f"4-fold cross-validation: R^2 {np.mean(r2):.4g} (sd {np.std(r2):.2g}); "
        f"RMSE {', '.join(p[1] for p in parts)}"
    )
    assert out.splitlines()[1] == expected
    code, out, _ = run(capsys, *argv[:-2], "--cv", 0, "-o", tmp_path / "n.json", "--target", "y1")
    assert code == 0 and "cross-validation" not in out and len(out.splitlines()) == 2


def test_fit_needs_two_rows_per_fold(tmp_path, capsys):
    path = tmp_path / "small.csv"
    path.write_text("a,y\n1,2\n2,3\n3,5\n4,4\n5,6\n")
    code, out, err = run(capsys, "fit", path, "--target", "y", "-o", tmp_path / "m.json")
    assert code == 1 and out == ""
    assert "--cv 5 needs at least 10 rows (2 per fold); " in err and "has 5" in err
    code, out, _ = run(capsys, "fit", path, "--target", "y", "--cv", 2, "-o", tmp_path / "m.json")
    assert code == 0 and "2-fold cross-validation" in out


def test_fit_reads_pandas_csv_files_with_their_index_and_any_delimiter(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.uniform(-1, 1, size=(60, 2)), columns=["speed", "load"])
    frame["torque"] = np.sin(frame["speed"]) * frame["load"]
    frame.index = frame.index + 1000  # an index that is not 0..n-1, written unnamed
    frame.to_csv(tmp_path / "comma.csv")
    frame.to_csv(tmp_path / "semicolon.csv", sep=";")
    frame.to_csv(tmp_path / "tab.tsv", sep="\t", index=False)
    reference = randomts.RandomTSRegressor(n_rules=6, random_state=0).fit(
        frame[["speed", "load"]], frame["torque"]
    )
    for name, delimiter in (("comma.csv", ","), ("semicolon.csv", ";"), ("tab.tsv", "\\t")):
        model = tmp_path / f"{name}.json"
        code, out, err = run(
            capsys, "fit", tmp_path / name, "--target", "torque", "--rules", 6,
            "--delimiter", delimiter, "-o", model,
        )  # fmt: skip
        assert code == 0, err
        assert out.startswith("fitted 6 rules on 60 samples of ['speed', 'load']")
        loaded = randomts.load(model)
        assert np.array_equal(
            loaded.predict(frame[["speed", "load"]]), reference.predict(frame[["speed", "load"]])
        )
    code, out, err = run(capsys, "predict", tmp_path / "comma.csv.json", tmp_path / "semicolon.csv",
                         "--delimiter", ";")  # fmt: skip
    assert code == 0 and out.splitlines()[0] == "predicted(torque)"
    printed = np.array([float(line) for line in out.splitlines()[1:]])
    assert np.array_equal(printed, reference.predict(frame[["speed", "load"]]))
    code, out, err = run(capsys, "fit", tmp_path / "semicolon.csv", "--target", "torque",
                         "-o", tmp_path / "m.json")  # fmt: skip
    assert code == 1 and "is the file separated by ';'? Pass delimiter=';'" in err


def test_a_bad_cell_is_named_by_its_column_and_line(tmp_path, capsys):
    path = tmp_path / "mixed.csv"
    path.write_text("city,a,b,y\nParis,1,2,3\nRome,two,1,3\nOslo,3,nan,4\nNice,4,2,5\n")
    common = ["--target", "y", "--cv", 0, "-o", tmp_path / "m.json"]
    code, _, err = run(capsys, "fit", path, *common)
    assert code == 1  # a missing cell is refused first, naming the option that drops it
    assert "mixed.csv: missing values (empty, NA, NaN, ...) in column 'b' in 1 row (line 4)" in err
    assert "Pass --missing drop" in err
    code, _, err = run(capsys, "fit", path, "--missing", "drop", *common)
    assert code == 1  # text among numbers is not a category
    assert "mixed.csv: line 3: column 'a' holds 'two', not a number: 'Rome,two,1,3'" in err
    code, out, err = run(capsys, "fit", path, "--input", "city", "--input", "b", "--missing",
                         "drop", *common)  # fmt: skip
    assert code == 0 and "samples of ['city_Nice', 'city_Paris', 'city_Rome', 'b']" in out
    assert f"randomts: dropped 1 of 4 rows of {path} with a missing value (b 1)\n" in err
    assert "randomts: one-hot encoded text: city as city_Nice, city_Paris, city_Rome\n" in err


def test_library_warnings_are_printed_as_readable_lines(tmp_path, capsys, data_csv, monkeypatch):
    """Whatever warns during the fits comes out once per message, with its class and count."""
    import warnings

    fit = randomts.RandomTSRegressor.fit

    def fit_that_warns(self, X, y):
        warnings.warn("many unknowns for few rows", UserWarning, stacklevel=2)
        warnings.warn("old argument", DeprecationWarning, stacklevel=2)  # not for the data's owner
        return fit(self, X, y)

    monkeypatch.setattr(randomts.RandomTSRegressor, "fit", fit_that_warns)
    code, out, err = run(
        capsys, "fit", data_csv, "--target", "y1", "--rules", 3, "--cv", 3, "-o", tmp_path / "m.fll"
    )
    assert code == 0 and out.startswith("fitted ")
    lines = err.splitlines()[1:]
    assert "randomts: warning: many unknowns for few rows [UserWarning] (4 times)" in lines
    # the folds' own warnings (test rows past a fold's training range) come as lines too
    others = [line for line in lines if "[UserWarning]" not in line]
    assert all("[ExtrapolationWarning]" in line for line in others)
    assert "DeprecationWarning" not in err


def test_predict_prints_the_estimators_warnings_as_lines(capsys, data_csv, model_json, monkeypatch):
    import warnings

    predict = randomts.RandomTSRegressor.predict

    def predict_that_warns(self, X):
        warnings.warn("12% of the rows lie where no rule fires", RuntimeWarning, stacklevel=2)
        return predict(self, X)

    monkeypatch.setattr(randomts.RandomTSRegressor, "predict", predict_that_warns)
    code, out, err = run(capsys, "predict", model_json, data_csv)
    assert code == 0 and out.splitlines()[0] == "predicted(y1),predicted(y2)"
    assert len(out.splitlines()) == 401
    assert err == "randomts: warning: 12% of the rows lie where no rule fires [RuntimeWarning]\n"


def test_fit_with_combined_learning_saves_what_the_estimator_fits(tmp_path, capsys, data_csv):
    path = tmp_path / "honest.json"
    argv = ["fit", data_csv, "--target", "y1", "--structure", "random", "--rules", 6]
    argv += ["--centers", "kmeans", "--normalize", "--learning", "combined"]
    argv += ["--local-weight", "2.5", "--cv", 0]
    code, _, err = run(capsys, *argv, "-o", path)
    assert code == 0, err
    saved = randomts.load(path)
    assert saved.learning == "combined" and saved.local_weight_ == pytest.approx(2.5, rel=1e-15)
    header, values = read_csv(data_csv)
    X, y = values[:, [0, 1, 3]], values[:, 2]  # every column but the target is an input
    model = randomts.RandomTSRegressor(
        n_rules=6,
        structure="random",
        centers="kmeans",
        normalize=True,
        learning="combined",
        local_weight=2.5,
        random_state=0,
    ).fit(X, y)
    frame = pd.DataFrame(X, columns=["x1", "x2", "y2"])
    np.testing.assert_allclose(saved.predict(frame), model.predict(X), rtol=1e-9, atol=1e-9)
    code, _, err = run(capsys, *argv[:-4], "--local-weight", "0", "-o", path)
    assert code == 2 and "expected 'auto' or a number > 0, got '0'" in err
