"""``randomts convert MODEL OUT.c | OUT.onnx``: a thin shell over randomts.io.to_c and to_onnx."""

import os

import numpy as np
import pytest
from export_helpers import COMPILER, NO_COMPILER, assert_close, compile_c, csv, run_program

import randomts
from randomts import RandomTSClassifier, RandomTSRegressor
from randomts.cli import main

HEART = os.path.join(os.path.dirname(__file__), "..", "docs", "data", "heart_disease_risk.fis")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, size=(300, 2))
    return X, np.sin(X[:, 0]) * X[:, 1]


@pytest.fixture
def model_json(tmp_path, data):
    path = tmp_path / "model.json"
    randomts.save(
        RandomTSRegressor(n_rules=12, random_state=0, structure="random").fit(*data), path
    )
    return path


@pytest.mark.skipif(COMPILER is None, reason=NO_COMPILER)
def test_convert_to_c_writes_a_program_that_predicts_as_the_model(tmp_path, capsys, data):
    X, y = data
    for name, model in [
        ("regressor", RandomTSRegressor.interpretable(random_state=0).fit(X, y)),
        (
            "classifier",
            RandomTSClassifier(n_rules=10, random_state=0, structure="random").fit(X, y > 0),
        ),
    ]:
        source = tmp_path / f"{name}.json"
        randomts.save(model, source)
        target = tmp_path / f"{name}.c"
        code, out, err = run(capsys, "convert", source, target)
        assert code == 0 and err == ""
        assert out.startswith(f"wrote {target} (") and "C99; compile with: cc" in out
        program, _ = compile_c(target.read_text(), str(tmp_path), name, "-DRANDOMTS_MAIN")
        result = run_program(program, csv(X[:20]))
        assert result.returncode == 0, result.stderr
        rows = [line.split(",") for line in result.stdout.splitlines()]
        if name == "classifier":
            assert_close([[float(r[0])] for r in rows], model.decision_function(X[:20])[:, None])
            assert [r[1] for r in rows] == [str(c) for c in model.predict(X[:20])]
        else:
            assert_close([[float(r[0])] for r in rows], model.predict(X[:20])[:, None])


def test_convert_to_c_with_a_prefix_and_to_c_by_name(tmp_path, capsys, model_json):
    target = tmp_path / "model.txt"  # an extension of another format: --to decides
    code, _, err = run(capsys, "convert", model_json, target, "--to", "C", "--prefix", "plant")
    assert code == 0, err
    text = target.read_text()
    assert (
        "int plant_predict(const double *x, double *y)" in text
        and "#define PLANT_N_RULES 12" in text
    )


def test_convert_to_onnx(tmp_path, capsys, model_json, data):
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    pytest.importorskip("onnx", reason="onnx is not installed (pip install 'randomts[onnx]')")
    target = tmp_path / "model.onnx"
    code, out, err = run(capsys, "convert", model_json, target)
    assert code == 0 and err == ""
    assert "ONNX opset 18; input X, outputs Y)" in out
    X = data[0][:30]
    Y = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"]).run(["Y"], {"X": X})
    assert_close(Y[0], randomts.load(model_json).predict(X)[:, None])


def test_a_fuzzy_system_of_rule_base_shape_converts_and_another_is_refused(tmp_path, capsys):
    rule_base = randomts.RuleBase.random(n_features=2, n_rules=4, random_state=0)
    fis = tmp_path / "rules.fis"
    randomts.save(randomts.FuzzySystem.from_rule_base(rule_base), fis)
    code, _, err = run(capsys, "convert", fis, tmp_path / "rules.c")
    assert code == 0, err
    target = tmp_path / "heart.c"
    code, out, err = run(capsys, "convert", HEART, target)
    assert code == 1 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(
        "randomts: error: Cannot convert this FuzzySystem to C: input 'LDL-Level' term 'Low' is a "
        "Trapezoid, not a Gaussian"
    )
    assert "Converting to C takes a RuleBase" in err
    assert not target.exists()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["{model}", "{tmp}/model.xyz"],
            "randomts: error: Cannot tell the format of '{tmp}/model.xyz' from its extension; "
            "pass --to one of {c,fis,fll,json,onnx,text} or use one of the extensions "
            "['.c', '.fis', '.fll', '.json', '.onnx', '.txt'].",
        ),
        (
            ["{model}", "{tmp}/model.c", "--to", "java"],
            "randomts: error: --to must be one of {c,fis,fll,json,onnx,text}. Got 'java' instead.",
        ),
        (
            ["{tmp}/missing.json", "{tmp}/model.c"],
            "randomts: error: [Errno 2] No such file or directory",
        ),
        (["{bad}", "{tmp}/model.c"], "randomts: error: {bad}: line 1: invalid JSON"),
        (
            ["{model}", "{tmp}/nowhere/model.c"],
            "randomts: error: Cannot write '{tmp}/nowhere/model.c': the folder",
        ),
        (
            ["{model}", "{tmp}/model.onnx", "--prefix", "plant"],
            "randomts: error: --prefix applies to C output only",
        ),
        (
            ["{model}", "{tmp}/model.c", "--prefix", "my model"],
            "randomts: error: The 'prefix' parameter of to_c must be a C identifier",
        ),
    ],
)
def test_errors_are_one_line_and_leave_no_file(tmp_path, capsys, model_json, arguments, message):
    bad = tmp_path / "bad.json"
    bad.write_text("{oops\n")
    existing = tmp_path / "model.c"
    existing.write_text("kept\n")

    def fill(text):
        for key, value in (("{model}", model_json), ("{tmp}", tmp_path), ("{bad}", bad)):
            text = text.replace(key, str(value))
        return text

    code, out, err = run(capsys, "convert", *[fill(a) for a in arguments])
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith(fill(message))
    assert existing.read_text() == "kept\n"  # not replaced, not truncated
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    assert leftovers == ["bad.json", "model.c", "model.json"]


def test_onnx_without_onnx_is_a_one_line_error(tmp_path, capsys, model_json, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "onnx", None)
    code, out, err = run(capsys, "convert", model_json, tmp_path / "model.onnx")
    assert code == 1 and err.count("\n") == 1
    assert "needs the onnx package: pip install 'randomts[onnx]'" in err
    assert not (tmp_path / "model.onnx").exists()
