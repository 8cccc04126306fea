"""A new user's mistakes get an answer that names the input, before any long work."""

import numpy as np
import pandas as pd
import pytest

import randomts.core.accumulators
from randomts import RandomTSClassifier, RandomTSRegressor, RuleBase
from randomts.cli import main
from randomts.dynamics.narx import NARX


def data(n=60):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    return X, X[:, 0] - X[:, 1]


@pytest.mark.parametrize("labels", [["a", "b"], [b"a", b"b"], ["1.5", "oops"]])
def test_text_targets_name_y_and_point_to_the_classifier(labels):
    X, _ = data()
    y = np.array(labels * 30)
    with pytest.raises(ValueError, match=r"y of RandomTSRegressor must hold numbers; got text: "):
        RandomTSRegressor(n_rules=5).fit(X, y)
    with pytest.raises(ValueError, match="use RandomTSClassifier"):
        RandomTSRegressor(n_rules=5).fit(X, list(y))


def test_numbers_written_as_text_are_numbers():
    X, y = data()
    as_text = RandomTSRegressor(n_rules=5, random_state=0).fit(X.astype(str), y.astype(str))
    as_numbers = RandomTSRegressor(n_rules=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(as_text.predict(X), as_numbers.predict(X))


def test_a_text_column_of_a_dataframe_is_named():
    X, y = data()
    frame = pd.DataFrame({"speed": X[:, 0], "colour": ["red", "blue"] * 30})
    for model in (RandomTSRegressor(n_rules=5), RandomTSClassifier(n_rules=5)):
        target = y if isinstance(model, RandomTSRegressor) else y > 0
        with pytest.raises(ValueError, match=r"column 'colour' of X of Random\w+ must hold "):
            model.fit(frame, target)
    fitted = RandomTSRegressor(n_rules=5, random_state=0).fit(frame[["speed"]], y)
    with pytest.raises(ValueError, match="column 'speed' of X .* got text: 'fast'"):
        fitted.predict(pd.DataFrame({"speed": ["fast"] * 3}))


def test_a_text_column_of_an_array_is_numbered():
    X, y = data()
    mixed = np.column_stack([X[:, 0].astype(str), np.array(["x", "y"] * 30)])
    with pytest.raises(
        ValueError, match=r"column 1 of X of RandomTSRegressor .* 'x', 'y'\. Encode"
    ):
        RandomTSRegressor(n_rules=5).fit(mixed, y)


def test_the_classifier_takes_text_labels():
    X, y = data()
    labels = np.where(y > 0, "up", "down")
    model = RandomTSClassifier(n_rules=10, random_state=0).fit(X, labels)
    assert set(model.predict(X)) <= {"up", "down"}


@pytest.mark.parametrize("alpha", ["auto", 0.0, 1e-3])
def test_a_fit_too_large_for_memory_is_refused_before_any_rule_is_drawn(monkeypatch, alpha):
    X, y = data(50)
    monkeypatch.setattr(randomts.core.accumulators, "_available_bytes", lambda: 2**30)

    def no_draw(*args, **kwargs):
        raise AssertionError("rules were drawn before the memory check")

    monkeypatch.setattr(RuleBase, "random", no_draw)
    with pytest.raises(MemoryError, match=r"n_rules=10000000 with 2 inputs and order=1 gives "):
        RandomTSRegressor(n_rules=10**7, alpha=alpha).fit(X, y)


def test_the_row_space_check_counts_the_design_matrix(monkeypatch):
    monkeypatch.setattr(randomts.core.accumulators, "_available_bytes", lambda: 2**30)
    # 50 rows: 30 thousand columns fit in 1 GiB (K is 12 MB), 30 million do not (12 GB)
    randomts.core.accumulators.check_factor_memory(3 * 10**4, 1, n_rows=50, row_space=True)
    with pytest.raises(MemoryError, match="factors of 50 rows"):
        randomts.core.accumulators.check_factor_memory(3 * 10**7, 1, n_rows=50, row_space=True)


def test_the_column_space_check_still_refuses_huge_factors():
    with pytest.raises(MemoryError, match="factors of 3000001 columns"):
        randomts.core.accumulators.check_factor_memory(3 * 10**6, 1)


def test_a_one_dimensional_series_is_one_record():
    t = np.arange(300)
    u = np.sin(t / 7.0)
    y = np.zeros(300)
    for k in range(1, 300):
        y[k] = 0.6 * y[k - 1] + np.tanh(u[k - 1])
    narx = NARX(y_lags=2, u_lags=2)
    X, Y = narx.regressors(u, y)
    for U, Yr in ((u[:, None], y[:, None]), (u[None, :, None], y[None, :, None])):
        X2, Y2 = narx.regressors(U, Yr)  # one column, or a stack of one record
        np.testing.assert_array_equal(X, X2)
        np.testing.assert_array_equal(Y, Y2)
    model = RandomTSRegressor(n_rules=20, random_state=0).fit(X, Y[:, 0])
    one_step = narx.predict_one_step(model, u, y)
    assert one_step.shape == (298,)
    stacked = narx.predict_one_step(model, u[None, :, None], y[None, :, None])
    np.testing.assert_array_equal(one_step, stacked[0, :, 0])
    free = narx.simulate(model, u, y[:2])
    assert free.shape == (300,)
    np.testing.assert_array_equal(
        free, narx.simulate(model, u[None, :, None], y[None, :2, None])[0, :, 0]
    )
    assert np.sqrt(np.mean((free - y) ** 2)) < 0.05 * np.std(y)


def test_a_series_of_one_output_is_refused_by_a_structure_of_two():
    with pytest.raises(
        ValueError, match=r"y has 1 outputs \(time on axis 0: \(n_steps, n_outputs\)\)"
    ):
        NARX(y_lags=1, output_names=["a", "b"]).regressors(y=np.zeros(10))


def test_the_cli_checks_the_output_before_fitting(tmp_path, capsys):
    missing = tmp_path / "no such data.csv"  # the output is refused before the data is read
    assert main(["fit", str(missing), "--target", "y", "-o", str(tmp_path / "m.pkl")]) == 1
    err = capsys.readouterr().err
    assert "Cannot tell the format of" in err and "pass --format one of" in err
    assert main(["fit", str(missing), "--target", "y", "-o", "m.json", "--format", "pkl"]) == 1
    assert "--format must be one of ['fis', 'fll', 'json', 'text']. Got 'pkl'" in (
        capsys.readouterr().err
    )
    absent = tmp_path / "absent" / "m.json"
    assert main(["fit", str(missing), "--target", "y", "-o", str(absent)]) == 1
    assert f"the folder {str(absent.parent)!r} does not exist" in capsys.readouterr().err
    assert main(["convert", str(missing), str(tmp_path / "m.bin")]) == 1
    assert "pass --to one of" in capsys.readouterr().err
