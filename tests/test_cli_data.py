"""The command line reads data as its page says: columns by name, text inputs, missing cells."""

import json

import numpy as np
import pandas as pd
import pytest

import randomts
from randomts.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """Sales against price and a shelf location of three values, beside columns of anything."""
    rng = np.random.default_rng(0)
    n = 300
    shelf = rng.choice(["Bad", "Good", "Medium"], size=n)
    price = rng.uniform(50, 150, size=n)
    urban = rng.choice(["No", "Yes"], size=n)
    effect = {"Bad": -2.0, "Medium": 0.0, "Good": 2.5}
    sales = 12 - 0.06 * price + np.array([effect[s] for s in shelf]) + 0.3 * (urban == "Yes")
    sales += 0.1 * rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "store": [f"store {k}" for k in range(n)],  # an identifier
            "opened": pd.date_range("2001-01-01", periods=n, freq="D").astype(str),
            "Price": price.round(2),
            "ShelveLoc": shelf,
            "Urban": urban,
            "Sales": sales.round(3),
        }
    )
    path = tmp_path_factory.mktemp("shop") / "shop.csv"
    frame.to_csv(path, index=False)
    return path, frame


def one_hot(frame):
    """The inputs the CLI fits, built independently with pandas."""
    encoded = frame[["Price"]].copy()
    for level in ("Bad", "Good", "Medium"):
        encoded[f"ShelveLoc_{level}"] = (frame["ShelveLoc"] == level).astype(float)
    encoded["Urban_Yes"] = (frame["Urban"] == "Yes").astype(float)
    return encoded


def test_text_inputs_are_one_hot_and_recorded_for_predict(tmp_path, capsys, shop):
    path, frame = shop
    model = tmp_path / "shop.json"
    argv = ["fit", path, "--target", "Sales", "--rules", 8, "--cv", 0, "-o", model]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    # the identifier and the dates are left out of the default inputs, saying why
    assert "left out of the inputs: column 'store' of" in err and "an identifier" in err
    assert "left out of the inputs: column 'opened' of" in err
    assert "holds dates, e.g. '2001-01-01', not numbers" in err
    assert (
        "one-hot encoded text: ShelveLoc as ShelveLoc_Bad, ShelveLoc_Good, ShelveLoc_Medium; "
        "Urban as Urban_Yes" in err
    )
    inputs = one_hot(frame)
    saved = randomts.load(model)
    assert list(saved.feature_names_in_) == list(inputs.columns)
    assert saved.rule_base_.metadata["text_inputs"]["ShelveLoc"] == {
        "levels": ["Bad", "Good", "Medium"],
        "inputs": {"ShelveLoc_Bad": "Bad", "ShelveLoc_Good": "Good", "ShelveLoc_Medium": "Medium"},
    }
    # the same model as in Python on the one-hot columns, bit for bit
    reference = randomts.RandomTSRegressor(n_rules=8, random_state=0).fit(inputs, frame["Sales"])
    np.testing.assert_array_equal(saved.predict(inputs), reference.predict(inputs))
    assert reference.score(inputs, frame["Sales"]) > 0.95
    # predict reads the same CSV, text columns and all
    code, out, err = run(capsys, "predict", model, path)
    assert code == 0 and err == "" and out.splitlines()[0] == "predicted(Sales)"
    printed = np.array([float(v) for v in out.splitlines()[1:]])
    np.testing.assert_array_equal(printed, reference.predict(inputs))


def test_a_value_fit_did_not_see_is_said_and_encoded_as_none(tmp_path, capsys, shop):
    path, frame = shop
    model = tmp_path / "shop.json"
    argv = ["fit", path, "--target", "Sales", "--input", "Price", "--input", "ShelveLoc"]
    assert run(capsys, *argv, "--rules", 5, "--cv", 0, "-o", model)[0] == 0
    new = tmp_path / "new.csv"
    new.write_text("Price,ShelveLoc\n100,Good\n100,Excellent\n")
    code, out, err = run(capsys, "predict", model, new)
    assert code == 0
    assert err.startswith("randomts: warning: column 'ShelveLoc' of ")
    assert "holds values the model was not fitted to, e.g. 'Excellent', in 1 row (line 3)" in err
    rule_base = randomts.load(model).rule_base_
    expected = rule_base.predict(np.array([[100.0, 0.0, 1.0, 0.0], [100.0, 0.0, 0.0, 0.0]]))
    np.testing.assert_array_equal([float(v) for v in out.splitlines()[1:]], expected[:, 0])


def test_a_named_identifier_or_a_column_of_text_and_numbers_is_refused(tmp_path, capsys, shop):
    path, _ = shop
    argv = ["fit", path, "--target", "Sales", "--cv", 0, "-o", tmp_path / "m.json"]
    code, _, err = run(capsys, *argv, "--input", "Price", "--input", "store")
    assert code == 1 and err.count("\n") == 1
    assert "column 'store' of" in err and "300 different values in 300 rows" in err
    assert "it cannot be an input" in err
    code, _, err = run(capsys, *argv, "--input", "Price", "--input", "opened")
    assert code == 1 and "column 'opened' of" in err and "holds dates" in err
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("a,y\n1,2\nlow,3\n3,4\n")
    code, _, err = run(capsys, "fit", mixed, "--target", "y", "--cv", 0, "-o", tmp_path / "m.json")
    assert code == 1 and "line 3: column 'a' holds 'low', not a number: 'low,3'" in err


def test_columns_neither_inputs_nor_targets_may_hold_anything(tmp_path, capsys, shop):
    path, frame = shop
    model = tmp_path / "price.json"
    argv = ["fit", path, "--target", "Sales", "--input", "Price", "--rules", 4, "--cv", 0]
    assert run(capsys, *argv, "-o", model)[0] == 0
    rule_base = randomts.load(model).rule_base_
    X = frame[["Price"]].to_numpy()
    code, out, err = run(capsys, "rules", model, "--data", path, "--top", 2)
    assert code == 0 and err == ""
    assert out.rstrip("\n") == rule_base.to_text(X=X, top=2)
    code, out, err = run(capsys, "rules", model, "--data", path, "--check", "--top", 1)
    assert code == 0 and out.rstrip("\n") == rule_base.to_text(X=X, y=frame["Sales"], top=1)
    pytest.importorskip("matplotlib")
    code, out, err = run(capsys, "plot", model, "--data", path, "-o", tmp_path / "p.png")
    assert code == 0 and out.strip() == f"wrote {tmp_path / 'p.png'}"


def test_rules_check_a_classifier_fitted_from_the_command_line(tmp_path, capsys, shop):
    path, frame = shop
    model = tmp_path / "urban.json"
    argv = ["fit", path, "--target", "Urban", "--input", "Price", "--input", "Sales"]
    code, _, err = run(capsys, *argv, "--rules", 6, "--cv", 0, "-o", model)
    assert code == 0 and "task: classify (target 'Urban' holds text" in err
    rule_base = randomts.load(model).rule_base_
    assert rule_base.output_names == ("score(Yes)",)
    code, out, err = run(capsys, "rules", model, "--data", path, "--check", "--top", 2)
    assert code == 0, err
    # the data's side of the check: +1 for the second class in sorted order, -1 for the first
    scores = np.where(frame["Urban"] == "Yes", 1.0, -1.0)
    X = frame[["Price", "Sales"]].to_numpy()
    assert out.rstrip("\n") == rule_base.to_text(X=X, y=scores, top=2)
    assert out.count("# at c: model ") == min(2, len(rule_base))
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("Price,Sales,Urban\n100,5,Yes\n90,6,Maybe\n")
    code, _, err = run(capsys, "rules", model, "--data", wrong, "--check")
    assert code == 1 and "line 3: column 'Urban' holds 'Maybe', not one of the classes" in err


def test_missing_cells_are_refused_or_dropped_and_counted(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(40, 2))
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": X[:, 0] - X[:, 1]})
    frame.loc[[3, 7], "a"] = np.nan
    frame.loc[11, "y"] = np.nan
    path = tmp_path / "holes.csv"
    frame.to_csv(path, index=False, na_rep="NA")
    model = tmp_path / "m.json"
    code, _, err = run(capsys, "fit", path, "--target", "y", "--cv", 0, "-o", model)
    assert code == 1 and err.count("\n") == 1
    assert "column 'a' in 2 rows (lines 5 and 9); column 'y' in 1 row (line 13)" in err
    assert "Pass --missing drop to leave those rows out" in err
    code, out, err = run(capsys, "fit", path, "--target", "y", "--missing", "drop", "--rules", 4,
                         "--cv", 0, "-o", model)  # fmt: skip
    assert code == 0 and " rules on 37 samples" in out
    assert f"randomts: dropped 3 of 40 rows of {path} with a missing value (a 2, y 1)" in err
    kept = frame.dropna()
    reference = randomts.RandomTSRegressor(n_rules=4, random_state=0).fit(kept[["a", "b"]], kept.y)
    # predict keeps one line per row: the rows it cannot predict get empty outputs
    code, out, err = run(capsys, "predict", model, path)
    assert code == 1 and "column 'a' in 2 rows (lines 5 and 9)" in err
    code, out, err = run(capsys, "predict", model, path, "--missing", "drop")
    assert code == 0
    assert f"randomts: left the outputs empty for 2 of 40 rows of {path}" in err
    import io

    # an empty cell is written ""; the printed numbers read back exactly (pandas 2 reads
    # faster and to 1 ulp by default)
    printed = pd.read_csv(io.StringIO(out), float_precision="round_trip")["predicted(y)"]
    assert len(printed) == 40 and list(np.flatnonzero(printed.isna())) == [3, 7]
    inputs = frame[["a", "b"]].dropna()
    # the same fit as in Python on the rows kept
    np.testing.assert_array_equal(printed.dropna(), reference.predict(inputs))


def test_explain_takes_names_or_positions(tmp_path, capsys, shop):
    path, _ = shop
    model = tmp_path / "shop.json"
    argv = ["fit", path, "--target", "Sales", "--input", "Price", "--input", "ShelveLoc"]
    assert run(capsys, *argv, "--rules", 5, "--cv", 0, "-o", model)[0] == 0
    code, by_name, _ = run(capsys, "explain", model, "--x", "ShelveLoc=Good,Price=99.5")
    assert code == 0
    code, by_position, _ = run(capsys, "explain", model, "--x", "99.5,0,1,0")
    assert code == 0 and by_name == by_position
    assert by_name.startswith("Price = 99.5, ShelveLoc_Bad = 0, ShelveLoc_Good = 1")
    code, by_input, _ = run(capsys, "explain", model, "--x",
                            "Price=99.5,ShelveLoc_Bad=0,ShelveLoc_Good=1,ShelveLoc_Medium=0")  # fmt: skip
    assert code == 0 and by_input == by_name
    for x, message in [
        ("Price=99.5", "--x gives no value for ['ShelveLoc']"),
        ("Price=99.5,ShelveLoc=Good,Colour=red", "--x names ['Colour'], not inputs of the model"),
        ("Price=cheap,ShelveLoc=Good", "--x: Price='cheap' is not a number"),
        ("Price=1,ShelveLoc=Top", "ShelveLoc takes ['Bad', 'Good', 'Medium']"),
        ("1,2", "--x has 2 value(s) but the model has 4 inputs"),
    ]:
        code, _, err = run(capsys, "explain", model, "--x", x)
        assert code == 1 and message in err and err.count("\n") == 1, err


def test_fold_warnings_name_the_csv_columns(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(50, 2))
    X[0] = [9.0, 0.0]  # one row far out: the fold that tests it extrapolates
    path = tmp_path / "far.csv"
    pd.DataFrame({"speed": X[:, 0], "load": X[:, 1], "y": X[:, 0] * X[:, 1]}).to_csv(
        path, index=False
    )
    code, _, err = run(
        capsys, "fit", path, "--target", "y", "--rules", 5, "-o", tmp_path / "m.json"
    )
    assert code == 0
    beyond = [line for line in err.splitlines() if "beyond the training range" in line]
    assert beyond and all("speed up to" in line for line in beyond)
    assert "x1" not in err and "x2" not in err


def test_a_constant_input_is_named_once(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(40, 1))
    path = tmp_path / "constant.csv"
    pd.DataFrame({"speed": X[:, 0], "gear": 3.0, "y": np.sin(X[:, 0])}).to_csv(path, index=False)
    model = tmp_path / "m.json"
    code, _, err = run(capsys, "fit", path, "--target", "y", "--rules", 5, "-o", model)
    assert code == 0
    constant = [line for line in err.splitlines() if "[ConstantInputWarning]" in line]
    assert constant == [
        "randomts: warning: Input 'gear' of the model is 3 in every one of the 40 training rows: "
        "the model cannot learn its effect, so no rule tests it and no equation uses it "
        "(predictions do not depend on it; predict warns where it takes another value). Leave "
        "it out, or fit on rows where it varies. [ConstantInputWarning]"
    ]
    code, out, _ = run(capsys, "rules", model)
    assert "# no rule tests gear (it was 3 in every row)" in out and "gear is about" not in out


def test_predict_heads_its_columns_with_what_they_hold(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 2))
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": X[:, 0] * X[:, 1]})
    frame["y"] += 0.05 * rng.normal(size=200)
    frame.iloc[:120].to_csv(tmp_path / "train.csv", index=False)
    frame.iloc[120:].to_csv(tmp_path / "cal.csv", index=False)
    model = tmp_path / "m.json"
    argv = ["fit", tmp_path / "train.csv", "--target", "y", "--rules", 5, "--cv", 0, "-o", model]
    assert run(capsys, *argv)[0] == 0
    code, out, err = run(capsys, "predict", model, tmp_path / "cal.csv", "--interval", 0.8,
                         "--calibration", tmp_path / "cal.csv")  # fmt: skip
    assert code == 0, err
    assert out.splitlines()[0] == "predicted(y),lower(y),upper(y)"
    # the rows the model was fitted to are refused as calibration rows, in any order
    frame.iloc[:120].iloc[::-1].to_csv(tmp_path / "shuffled.csv", index=False)
    for calibration in ("train.csv", "shuffled.csv"):
        code, out, err = run(capsys, "predict", model, tmp_path / "cal.csv", "--interval", 0.8,
                             "--calibration", tmp_path / calibration)  # fmt: skip
        assert code == 1 and out == "" and err.count("\n") == 1
        assert "holds the 120 rows that" in err and "Calibrate on rows held out of the fit" in err
    record = randomts.load(model).rule_base_.metadata["training_data"]
    assert record["columns"] == ["a", "b", "y"] and record["rows"] == 120
    assert json.loads(json.dumps(record)) == record
