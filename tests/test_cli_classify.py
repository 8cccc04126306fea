"""The randomts command on class labels: --task, stratified accuracy, labels, score rules."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.model_selection import StratifiedKFold, cross_val_score

import randomts
from randomts import RandomTSClassifier, RandomTSRegressor
from randomts.cli import main
from randomts.estimators.parameters import resolved
from randomts.io.csv_data import read_csv_text

SPECIES = ["setosa", "versicolor", "virginica"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write_table(path, header, columns):
    rows = zip(*columns, strict=True)
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


@pytest.fixture
def iris_csv(tmp_path):
    X, y = load_iris(return_X_y=True)
    labels = np.array(SPECIES)[y]
    header = ["sl", "sw", "pl", "pw", "species", "code"]
    return write_table(tmp_path / "iris.csv", header, [*X.T, labels, y + 1])


def test_text_labels_are_classified_and_the_choice_is_said(tmp_path, capsys, iris_csv):
    model = tmp_path / "iris.json"
    code, out, err = run(
        capsys, "fit", iris_csv, "--target", "species", "--input", "sl", "--input", "sw",
        "--input", "pl", "--input", "pw", "--rules", 20, "--seed", 1, "--cv", 3, "-o", model,
    )  # fmt: skip
    assert code == 0, err
    assert err == (
        "randomts: task: classify (target 'species' holds text, e.g. 'setosa'; "
        "3 classes: setosa, versicolor, virginica)\n"
    )
    X, y = load_iris(return_X_y=True)
    labels = np.array(SPECIES)[y]
    # the CLI fits as on a DataFrame of the CSV's columns
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    clf = RandomTSClassifier(n_rules=20, random_state=1)
    training = np.mean(clf.fit(frame, labels).predict(frame) == labels)
    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=1)
    accuracy = cross_val_score(clf, frame, labels, cv=folds)  # scikit-learn's own scorer
    n_rules = len(clf.rule_base_)  # grown: at most --rules 20
    assert n_rules <= 20
    lines = out.splitlines()
    assert lines[0] == (
        f"fitted {n_rules} rules on 150 samples of ['sl', 'sw', 'pl', 'pw'] to the 3 classes of "
        f"'species' (setosa, versicolor, virginica); training accuracy: {training:.4g}"
    )
    assert lines[1] == (
        f"3-fold stratified cross-validation: accuracy {np.mean(accuracy):.4g} "
        f"(sd {np.std(accuracy):.2g})"
    )
    assert lines[2] == f"wrote {model} ({n_rules} rules, 4 inputs, 3 outputs)"
    loaded = randomts.load(model)
    assert isinstance(loaded, RandomTSClassifier)
    assert list(loaded.feature_names_in_) == ["sl", "sw", "pl", "pw"]
    # the command runs BLAS on one thread, this process on its default threads: their sums
    # round in other orders, and the ridge solve amplifies that by its condition number (the
    # slopes of combined learning differ by up to 2e-7 with scikit-learn 1.7, in directions the
    # data barely pin down; the decisions by 1e-11 of their largest)
    expected = clf.decision_function(frame)
    np.testing.assert_allclose(
        loaded.decision_function(frame), expected, rtol=0, atol=1e-9 * np.abs(expected).max()
    )


def test_few_distinct_integers_are_classes_and_keep_their_type(tmp_path, capsys, iris_csv):
    model = tmp_path / "codes.fis"
    argv = ["fit", iris_csv, "--target", "code", "--input", "pl", "--input", "pw"]
    code, out, err = run(capsys, *argv, "--rules", 10, "--cv", 0, "-o", model)
    assert code == 0, err
    assert err == (
        "randomts: task: classify (target 'code' holds few distinct integers; 3 classes: 1, 2, 3)\n"
    )
    assert "to the 3 classes of 'code' (1, 2, 3)" in out and "cross-validation" not in out
    loaded = randomts.load(model)
    assert loaded.classes_.tolist() == [1, 2, 3] and loaded.classes_.dtype.kind == "i"
    code, out, err = run(capsys, "predict", model, iris_csv)
    assert code == 0, err
    lines = out.splitlines()
    X, y = load_iris(return_X_y=True)
    assert lines[0] == "predicted(code)" and len(lines) == 151
    expected = loaded.predict(pd.DataFrame(X[:, 2:], columns=["pl", "pw"]))
    assert lines[1:] == [str(v) for v in expected]
    assert np.mean(np.array(lines[1:], dtype=int) == y + 1) > 0.9


def test_predict_prints_labels_and_rules_print_class_scores(tmp_path, capsys, iris_csv):
    model = tmp_path / "iris.txt"
    code, _, err = run(
        capsys, "fit", iris_csv, "--target", "species", "--input", "pl", "--input", "pw",
        "--rules", 8, "--cv", 0, "-o", model,
    )  # fmt: skip
    assert code == 0, err
    out_csv = tmp_path / "labels.csv"
    code, out, err = run(capsys, "predict", model, iris_csv, "-o", out_csv)
    assert code == 0 and err == "" and out.strip() == f"wrote {out_csv} (150 rows)"
    header, labels = read_csv_text(out_csv)
    X, y = load_iris(return_X_y=True)
    assert header == ["predicted(species)"]
    frame = pd.DataFrame(X[:, 2:], columns=["pl", "pw"])
    assert labels[:, 0].tolist() == randomts.load(model).predict(frame).tolist()
    assert np.mean(labels[:, 0] == np.array(SPECIES)[y]) > 0.9
    code, out, err = run(capsys, "rules", model)
    assert code == 0, err
    assert out.count(" THEN\n") == 8
    for name in SPECIES:
        assert out.count(f"\n    score({name}) = ") == 8
    assert "IF pl is about " in out


def test_two_classes_give_one_score(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    labels = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
    data = write_table(tmp_path / "two.csv", ["a", "b", "answer"], [*X.T, labels])
    code, out, err = run(capsys, "fit", data, "--target", "answer", "--rules", 5, "-o",
                         tmp_path / "two.fll")  # fmt: skip
    assert code == 0 and "2 classes: no, yes" in err
    n_rules = len(randomts.load(tmp_path / "two.fll").rule_base_)
    assert 1 <= n_rules <= 5
    code, out, _ = run(capsys, "rules", tmp_path / "two.fll")
    assert out.count(" THEN score(yes) = ") + out.count("\n    score(yes) = ") == n_rules
    assert "score(no)" not in out


def test_many_integers_and_fractions_are_regressed(tmp_path, capsys):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, size=60)
    counts = np.round(3 * x).astype(int)  # 0..30: a count, not a class
    fractions = np.round(x % 1, 2) + 1  # few values, not integers
    data = write_table(tmp_path / "d.csv", ["x", "count", "share"], [x, counts, fractions])
    code, out, err = run(capsys, "fit", data, "--target", "count", "--input", "x",
                         "--rules", 5, "-o", tmp_path / "c.json")  # fmt: skip
    assert code == 0 and "training RMSE: count " in out
    distinct = np.unique(counts).size
    assert err == (
        f"randomts: task: regress (target 'count' holds {distinct} distinct integers in 60 "
        "rows; 'auto' classifies at most 10, with 5 rows each on average (--task classify to "
        "classify))\n"
    )
    assert isinstance(randomts.load(tmp_path / "c.json"), randomts.RandomTSRegressor)
    code, out, err = run(capsys, "fit", data, "--target", "share", "--input", "x",
                         "--rules", 5, "-o", tmp_path / "s.json")  # fmt: skip
    assert code == 0
    assert (
        err == "randomts: task: regress (target 'share' holds numbers that are not all integers)\n"
    )


def test_too_few_rows_per_distinct_integer_are_regressed(tmp_path, capsys):
    data = tmp_path / "small.csv"
    data.write_text("a,y\n1,2\n2,3\n3,5\n4,4\n5,6\n6,2\n7,3\n8,5\n9,4\n10,6\n")
    code, out, err = run(capsys, "fit", data, "--target", "y", "--cv", 2, "-o", tmp_path / "m.json")
    assert code == 0 and "task: regress (target 'y' holds 5 distinct integers in 10 rows" in err
    code, out, err = run(capsys, "fit", data, "--target", "y", "--task", "classify", "--cv", 2,
                         "-o", tmp_path / "m.json")  # fmt: skip
    assert code == 0 and "to the 5 classes of 'y' (2, 3, 4, 5, 6)" in out
    # two folds of 10 rows: a test row can lie past its fold's training range, and says so
    assert all("[ExtrapolationWarning]" in line for line in err.splitlines())


def test_task_overrides_the_rule(tmp_path, capsys, iris_csv):
    argv = ["fit", iris_csv, "--input", "pl", "--input", "pw", "--rules", 5, "--cv", 0]
    code, out, err = run(capsys, *argv, "--target", "code", "--task", "regress",
                         "-o", tmp_path / "r.json")  # fmt: skip
    assert code == 0 and err == "" and "training RMSE: code " in out
    assert isinstance(randomts.load(tmp_path / "r.json"), randomts.RandomTSRegressor)
    code, out, err = run(capsys, *argv, "--target", "sl", "--task", "classify",
                         "-o", tmp_path / "c.json")  # fmt: skip
    assert code == 0 and err == ""
    loaded = randomts.load(tmp_path / "c.json")
    assert isinstance(loaded, RandomTSClassifier)
    # fractional numbers as classes: the labels are the text of the cells
    assert loaded.classes_.dtype.kind == "U" and "5.1" in loaded.classes_.tolist()


def test_the_default_rules_are_the_estimators(tmp_path, capsys, iris_csv):
    argv = ["fit", iris_csv, "--input", "pl", "--input", "pw", "--cv", 0]
    X = pd.read_csv(iris_csv)
    for target, estimator in (("species", RandomTSClassifier()), ("sl", RandomTSRegressor())):
        code, out, _ = run(capsys, *argv, "--target", target, "-o", tmp_path / "m.json")
        fitted = estimator.fit(X[["pl", "pw"]], X[target])
        assert code == 0 and out.startswith(f"fitted {len(fitted.rule_base_)} rules")
        assert (
            resolved(randomts.load(tmp_path / "m.json")).structure == resolved(estimator).structure
        )


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--target", "species", "--target", "sl", "--task", "classify"],
            "--task classify takes one --target column; got 2: ['species', 'sl'].",
        ),
        (
            ["--target", "species", "--target", "sl"],
            "column 'species' holds 'setosa', not a number",
        ),
        (
            ["--target", "species", "--task", "regress"],
            "column 'species' holds 'setosa', not a number",
        ),
        (
            ["--target", "species", "--cv", 60],
            "--cv 60 needs at least 60 rows of every class (stratified folds); class setosa of "
            "'species' has 50; pass a smaller --cv, or --cv 0.",
        ),
    ],
)
def test_errors_name_the_task_and_the_column(tmp_path, capsys, iris_csv, argv, message):
    code, out, err = run(capsys, "fit", iris_csv, "--input", "pl", *argv, "-o",
                         tmp_path / "m.json")  # fmt: skip
    assert code == 1 and out == "" and message in err and "Traceback" not in err
    assert not (tmp_path / "m.json").exists()


def test_one_class_and_empty_labels_are_refused(tmp_path, capsys):
    data = tmp_path / "one.csv"
    data.write_text("a,label\n" + "".join(f"{k},same\n" for k in range(10)))
    code, out, err = run(capsys, "fit", data, "--target", "label", "--cv", 0, "-o",
                         tmp_path / "m.json")  # fmt: skip
    assert code == 1 and "holds one class (same); a classifier needs at least 2" in err
    data.write_text("a,label\n1,x\n2,\n3,y\n")
    code, out, err = run(capsys, "fit", data, "--target", "label", "-o", tmp_path / "m.json")
    assert (
        code == 1
        and "missing values (empty, NA, NaN, ...) in column 'label' in 1 row (line 3)" in err
    )
    assert "Pass --missing drop to leave those rows out" in err


def test_the_help_names_the_estimators_default_rules(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    regress = resolved(randomts.RandomTSRegressor(structure="random")).n_rules
    classify = resolved(RandomTSClassifier(structure="random")).n_rules
    assert f"{regress} to regress, {classify} to classify" in text


def test_predict_heads_the_labels_of_a_classifier_saved_in_python_class(tmp_path, capsys):
    X, y = load_iris(return_X_y=True)
    clf = RandomTSClassifier(n_rules=10, random_state=0, structure="random").fit(
        X, np.array(SPECIES)[y]
    )
    randomts.save(clf, tmp_path / "model.json")
    data = write_table(tmp_path / "x.csv", ["x1", "x2", "x3", "x4"], list(X.T))
    code, out, err = run(capsys, "predict", tmp_path / "model.json", data)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "predicted(class)" and lines[1:] == clf.predict(X).tolist()
