"""Whatever goes wrong, every subcommand answers with one line on stderr and a non-zero status."""

import numpy as np
import pytest

import randomts
from randomts.cli import main
from randomts.io.csv_data import write_csv

SUBCOMMANDS = ["demo", "generate", "fit", "rules", "predict", "explain", "convert", "plot"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A data file, a model fitted to it, and files that are not what they claim to be."""
    folder = tmp_path_factory.mktemp("errors")
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(60, 2))
    data = folder / "data.csv"
    write_csv(data, ["a", "b", "y"], np.column_stack([X, X[:, 0] * X[:, 1]]))
    model = folder / "model.json"
    randomts.save(
        randomts.RandomTSRegressor(n_rules=4, random_state=0, structure="random").fit(X, X[:, 0]),
        model,
    )
    paths = {"data": data, "model": model, "folder": folder, "missing": folder / "missing.csv"}
    for name, content in {
        "empty.csv": "",
        "ragged.csv": "a,b,y\n1,2,3\n4,5\n",
        "quote.csv": 'a,b,y\n1,"2,3\n',
        "words.csv": "a,b,y\n1,two,3\n4,5,6\n",
        "binary.json": "\x00\x01\x02\xff",
        "not_a_model.json": '{"name": "a JSON file, not a model"}',
        "list.json": "[1, 2, 3]",
        "text.fis": "this is not a FIS file\n",
        "rules.txt": "# not the TXT format either\n",
    }.items():
        path = folder / name
        path.write_bytes(content.encode("latin-1"))
        paths[name.split(".")[0]] = path
    return paths


def _cases():
    m, d = "{model}", "{data}"
    out = "{folder}/out.json"
    bad_models = ["{data}", "{binary}", "{not_a_model}", "{list}", "{text}", "{rules}", "{folder}"]
    bad_models.append("{empty}")
    cases = [
        # missing files, and models that are not models
        *[["rules", path] for path in ["{missing}", *bad_models]],
        *[["predict", path, d] for path in ["{missing}", *bad_models]],
        *[["explain", path, "--x", "0,0"] for path in ["{missing}", *bad_models]],
        *[["convert", path, "{folder}/c.fis"] for path in ["{missing}", *bad_models]],
        *[["plot", path, "-o", "{folder}/p.png"] for path in ["{missing}", *bad_models]],
        # data files that are missing or not CSV tables
        *[
            ["fit", path, "--target", "y", "-o", out]
            for path in ["{missing}", "{empty}", "{ragged}", "{quote}", "{binary}", "{folder}"]
        ],
        *[["predict", m, path] for path in ["{missing}", "{empty}", "{ragged}", "{words}"]],
        ["rules", m, "--data", "{ragged}"],
        ["plot", m, "-o", "{folder}/p.png", "--data", "{missing}"],
        # bad option values
        ["fit", d, "--target", "y", "--rules", "0", "-o", out],
        ["fit", d, "--target", "y", "--rules", "many", "-o", out],
        ["fit", d, "--target", "y", "--alpha", "-1", "-o", out],
        ["fit", d, "--target", "y", "--cv", "1", "-o", out],
        ["fit", d, "--target", "y", "--order", "2", "-o", out],
        ["fit", d, "--target", "nope", "-o", out],
        ["fit", d, "--target", "y", "--input", "nope", "-o", out],
        ["fit", d, "--target", "y", "--task", "classify", "-o", out],
        ["fit", d, "--target", "y", "-o", "{folder}/no/such/folder/m.json"],
        ["fit", d, "--target", "y", "-o", "{folder}/m.xyz"],
        ["fit", d, "--target", "y", "--missing", "fill", "-o", out],
        ["generate", "--inputs", "0"],
        ["generate", "--inputs", "2", "--rules", "-3"],
        ["generate", "--inputs", "2", "-o", "{folder}/g.xyz"],
        ["rules", m, "--precision", "0"],
        ["rules", m, "--top", "2"],
        ["rules", m, "--labels", "9"],
        ["predict", m, d, "--interval", "1.5"],
        ["predict", m, d, "--interval", "0.9"],
        ["predict", m, d, "--calibration", d],
        ["predict", m, d, "--delimiter", "ab"],
        ["explain", m, "--x", "1"],
        ["explain", m, "--x", "a,b"],
        ["explain", m, "--x", "x1=1,nope=2"],
        ["explain", m, "--x", "x1=1"],
        ["convert", m, "{folder}/c.xyz"],
        ["plot", m, "-o", "{folder}/p.xyz"],
        ["plot", m, "-o", "{folder}/p.png", "--dpi", "0"],
        ["plot", m, "-o", "{folder}/p.png", "--inputs", "x1"],
        ["demo", "--repeats", "0"],
        ["demo", "--rules", "-1"],
        ["demo", "--initial-box", "nan"],
        ["demo", "--json", "{folder}/no/such/folder/t.json"],
        ["nonsense"],
        ["fit"],
        # far too large for memory: refused before any work
        ["fit", d, "--target", "y", "--rules", "100000000", "-o", out],
        ["generate", "--inputs", "100000", "--rules", "100000000"],
    ]
    return cases


CASES = _cases()


def test_every_subcommand_is_driven_with_bad_input():
    assert {argv[0] for argv in CASES} >= set(SUBCOMMANDS)


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(argv)[:60] for argv in CASES])
def test_bad_input_is_one_line_and_a_non_zero_status(files, capsys, argv):
    code = main([part.format(**files) for part in argv])
    out, err = capsys.readouterr()
    assert code in (1, 2), (code, err)
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("randomts"), err
    assert "Traceback" not in err and "internal error" not in err, err


def test_a_huge_fit_names_the_memory_it_would_need(files, capsys):
    argv = ["fit", str(files["data"]), "--target", "y", "--rules", "100000000", "-o"]
    assert main(argv + [str(files["folder"] / "m.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("randomts: error: n_rules=100000000 with 2 inputs and order=1 gives ")
    assert "Use fewer rules" in err


def test_a_failure_of_randomts_itself_is_one_line_that_asks_for_a_report(
    files, capsys, monkeypatch
):
    def broken(*args, **kwargs):
        raise RuntimeError("something inside\nwent wrong")

    monkeypatch.setattr(randomts.RuleBase, "to_text", broken)
    assert main(["rules", str(files["model"])]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("randomts: internal error: RuntimeError: something inside went wrong")
    assert "please report it" in err and "--debug" in err
    for argv in (
        ["--debug", "rules", str(files["model"])],
        ["rules", str(files["model"]), "--debug"],
    ):
        with pytest.raises(RuntimeError, match="something inside"):
            main(argv)


def test_an_interrupt_is_one_line(files, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(randomts.RuleBase, "to_text", interrupted)
    assert main(["rules", str(files["model"])]) == 130
    assert capsys.readouterr().err == "randomts: interrupted\n"


def test_the_blas_threads_are_given_back(files, capsys):
    from threadpoolctl import threadpool_info

    before = [pool["num_threads"] for pool in threadpool_info()]
    assert main(["rules", str(files["model"])]) == 0
    assert [pool["num_threads"] for pool in threadpool_info()] == before
    capsys.readouterr()
