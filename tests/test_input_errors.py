"""A new user's mistakes get an answer that names the input, before any long work."""

import datetime
import warnings

import numpy as np
import pandas as pd
import pytest

import randomts.core.accumulators
from randomts import (
    ConstantInputWarning,
    ExtrapolationWarning,
    RandomTSClassifier,
    RandomTSRegressor,
    RuleBase,
    UnderdeterminedWarning,
)
from randomts.cli import main
from randomts.core.membership import UNTESTED_WIDTH
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
        RandomTSRegressor(n_rules=5, structure="random").fit(X, y)
    with pytest.raises(ValueError, match="use RandomTSClassifier"):
        RandomTSRegressor(n_rules=5, structure="random").fit(X, list(y))


def test_numbers_written_as_text_are_numbers():
    X, y = data()
    as_text = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(
        X.astype(str), y.astype(str)
    )
    as_numbers = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(X, y)
    np.testing.assert_array_equal(as_text.predict(X), as_numbers.predict(X))


def test_a_text_column_of_a_dataframe_is_named():
    X, y = data()
    frame = pd.DataFrame({"speed": X[:, 0], "colour": ["red", "blue"] * 30})
    for model in (
        RandomTSRegressor(n_rules=5, structure="random"),
        RandomTSClassifier(n_rules=5, structure="random"),
    ):
        target = y if isinstance(model, RandomTSRegressor) else y > 0
        with pytest.raises(ValueError, match=r"column 'colour' of X of Random\w+ must hold "):
            model.fit(frame, target)
    fitted = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(
        frame[["speed"]], y
    )
    with pytest.raises(ValueError, match="column 'speed' of X .* got text: 'fast'"):
        fitted.predict(pd.DataFrame({"speed": ["fast"] * 3}))


def test_a_text_column_of_an_array_is_numbered():
    X, y = data()
    mixed = np.column_stack([X[:, 0].astype(str), np.array(["x", "y"] * 30)])
    with pytest.raises(
        ValueError, match=r"column 1 \(x2\) of X of RandomTSRegressor .* 'x', 'y'\. Encode"
    ):
        RandomTSRegressor(n_rules=5, structure="random").fit(mixed, y)


def test_the_classifier_takes_text_labels():
    X, y = data()
    labels = np.where(y > 0, "up", "down")
    model = RandomTSClassifier(n_rules=10, random_state=0, structure="random").fit(X, labels)
    assert set(model.predict(X)) <= {"up", "down"}


@pytest.mark.parametrize("alpha", ["auto", 0.0, 1e-3])
def test_a_fit_too_large_for_memory_is_refused_before_any_rule_is_drawn(monkeypatch, alpha):
    X, y = data(50)
    monkeypatch.setattr(randomts.core.accumulators, "_available_bytes", lambda: 2**30)

    def no_draw(*args, **kwargs):
        raise AssertionError("rules were drawn before the memory check")

    monkeypatch.setattr(RuleBase, "random", no_draw)
    with pytest.raises(MemoryError, match=r"n_rules=10000000 with 2 inputs and order=1 gives "):
        RandomTSRegressor(n_rules=10**7, alpha=alpha, structure="random").fit(X, y)


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
    model = RandomTSRegressor(n_rules=20, random_state=0, structure="random").fit(X, Y[:, 0])
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


def frame_data(n=40):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"speed": rng.normal(size=n), "load": rng.normal(size=n)})
    return frame, frame["speed"] - frame["load"]


@pytest.mark.parametrize(
    "bad, name", [(np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")]
)
def test_a_non_finite_column_is_named_with_its_first_rows(bad, name):
    frame, y = frame_data()
    frame.loc[[3, 17, 21], "load"] = bad
    message = (
        rf"column 'load' of X of RandomTSRegressor holds {name} in 3 rows \(rows 3, 17 and 21\)"
    )
    with pytest.raises(ValueError, match=message):
        RandomTSRegressor(n_rules=5, structure="random").fit(frame, y)
    with pytest.raises(ValueError, match="SimpleImputer"):
        RandomTSRegressor(n_rules=5, structure="random").fit(frame, y)
    X = frame.to_numpy()  # an array: its columns by position and by the rules' names
    with pytest.raises(
        ValueError, match=rf"column 1 \(x2\) of X of RandomTSRegressor holds {name}"
    ):
        RandomTSRegressor(n_rules=5, structure="random").fit(X, y)
    fitted = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(
        frame.fillna(0.0).clip(-9, 9), y
    )
    with pytest.raises(ValueError, match=rf"column 'load' of X of RandomTSRegressor holds {name}"):
        fitted.predict(frame)


def test_non_finite_targets_are_named_with_their_rows():
    frame, y = frame_data()
    y[[0, 5]] = np.nan
    with pytest.raises(ValueError, match=r"y of RandomTSRegressor holds NaN in 2 rows \(rows 0 an"):
        RandomTSRegressor(n_rules=5, structure="random").fit(frame, y)
    targets = pd.DataFrame({"torque": frame["speed"], "power": frame["load"]})
    targets.loc[9, "power"] = np.inf
    with pytest.raises(ValueError, match=r"column 'power' of y .* infinity in 1 row \(row 9\)"):
        RandomTSRegressor(n_rules=5, structure="random").fit(frame, targets)


@pytest.mark.parametrize(
    "column, found, hint",
    [
        (pd.date_range("2020-01-01", periods=40), "dates", "days since the first date"),
        (pd.to_timedelta(np.arange(40), unit="h"), "durations", "X['when'].dt.total_seconds()"),
        ([datetime.date(2020, 1, 1 + k % 28) for k in range(40)], "dates", "calendar parts"),
    ],
)
def test_dates_and_durations_are_named_with_what_to_do(column, found, hint):
    frame, y = frame_data()
    frame["when"] = column
    for model in (
        RandomTSRegressor(n_rules=5, structure="random"),
        RandomTSClassifier(n_rules=5, structure="random"),
    ):
        target = y if isinstance(model, RandomTSRegressor) else y > 0
        with pytest.raises(TypeError, match=rf"column 'when' of X of \w+ holds {found}") as info:
            model.fit(frame, target)
        assert hint in str(info.value)
    with pytest.raises(TypeError, match=r"X of RandomTSRegressor holds dates \(datetime64\[D\]\)"):
        RandomTSRegressor(n_rules=5, structure="random").fit(
            np.array(["2020-01-01"] * 40, "datetime64[D]")[:, None], y
        )


def test_missing_values_of_other_kinds_are_named():
    frame, y = frame_data()
    frame["count"] = pd.array([1, None] * 20, dtype="Int64")  # read as NaN
    with pytest.raises(ValueError, match=r"column 'count' of X .* NaN in 20 rows \(rows 1, 3,"):
        RandomTSRegressor(n_rules=5, structure="random").fit(frame, y)
    frame["count"] = pd.array([True, None] * 20, dtype="boolean")  # an object column with NA
    with pytest.raises(ValueError, match=r"column 'count' .* missing values \(None or NA\) in 20"):
        RandomTSRegressor(n_rules=5, structure="random").fit(frame, y)


def test_booleans_are_the_numbers_0_and_1():
    frame, y = frame_data()
    flags = frame.assign(fast=frame["speed"] > 0)
    numbers = frame.assign(fast=(frame["speed"] > 0).astype(float))
    with_flags = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(flags, y)
    with_numbers = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(numbers, y)
    # the same float64 array reaches the fit either way
    np.testing.assert_array_equal(with_flags.predict(flags), with_numbers.predict(numbers))


def test_a_constant_input_is_named_untested_and_has_no_effect():
    frame, y = frame_data(200)
    frame["gear"] = 0.1  # with a standard deviation of rounding error, not 0
    with pytest.warns(ConstantInputWarning, match=r"Input 'gear' of RandomTSRegressor is 0.1 in "):
        model = RandomTSRegressor(n_rules=10, random_state=0, structure="random").fit(frame, y)
    text = model.rule_base_.to_text()
    assert "# no rule tests gear (it was 0.1 in every row)" in text
    assert "gear is about" not in text and "gear -" not in text  # no set, no slope
    assert np.all(model.rule_base_.sigmas[:, 2] == UNTESTED_WIDTH)
    # each rule's set on gear holds every value (its membership is exactly 1) and no equation
    # uses gear: another gear gives exactly the same predictions, with a warning
    with pytest.warns(ExtrapolationWarning, match="gear up to"):
        elsewhere = model.predict(frame.assign(gear=7.0))
    np.testing.assert_array_equal(elsewhere, model.predict(frame))
    assert model.score(frame, y) > 0.99
    with pytest.warns(ConstantInputWarning, match=r"x3 \(column 2\)"):
        RandomTSRegressor(n_rules=10, random_state=0, structure="random").fit(frame.to_numpy(), y)
    with pytest.warns(ConstantInputWarning, match=r"^Input 'gear' of RandomTSClassifier is 0.1"):
        classifier = RandomTSClassifier(n_rules=10, random_state=0, structure="random").fit(
            frame, y > 0
        )
    assert "# no rule tests gear (it was 0.1 in every row)" in classifier.rule_base_.to_text()


@pytest.mark.parametrize("settings", [{}, {"standardize": False}, {"refine": 3}, {"alpha": 1e-3}])
def test_a_constant_input_has_no_effect_in_any_setting(settings):
    frame, y = frame_data(200)
    frame["gear"] = 3.0
    with pytest.warns(ConstantInputWarning):
        model = RandomTSRegressor(n_rules=10, random_state=0, **settings, structure="random").fit(
            frame, y
        )
    assert not np.any(model.rule_base_.coef[:, :, 2])
    with pytest.warns(ExtrapolationWarning, match=r"gear up to 53 below 3, its one value in"):
        elsewhere = model.predict(frame.assign(gear=-50.0))
    np.testing.assert_array_equal(elsewhere, model.predict(frame))


def test_fewer_rows_than_unknowns_warns_at_the_defaults_naming_both():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(3, 16)), np.array([1.0, 2.0, 3.0])
    with pytest.warns(UnderdeterminedWarning) as caught:
        RandomTSRegressor(random_state=0, structure="random").fit(X, y)
    message = str(caught[0].message)
    assert message.startswith(
        "RandomTSRegressor fits 1700 unknowns per output (100 rules) to 3 rows, 17 per rule: "
        "no more rows than a linear model in the 16 inputs has coefficients (17)"
    )
    found = []
    for seed in range(3):  # 5 rows: on some data the fit reproduces the targets, on some not
        data = np.random.default_rng(seed)
        X, y = data.normal(size=(5, 2)), data.normal(size=5)
        model = RandomTSRegressor(random_state=0, structure="random")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(X, y)
        interpolates = np.sqrt(np.mean((model.predict(X) - y) ** 2)) <= 1e-6 * y.std()
        said = [w for w in caught if w.category is UnderdeterminedWarning]
        assert bool(said) == bool(interpolates)
        if said:
            assert "reproduces the training targets" in str(said[0].message)
        found.append(bool(said))
    assert any(found) and not all(found)  # both cases met


def test_more_unknowns_than_rows_with_a_penalty_that_shrinks_is_not_a_warning():
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)  # 442 rows, 100 rules of 11 unknowns
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnderdeterminedWarning)
        model = RandomTSRegressor(random_state=0, structure="random").fit(X, y)
    assert model.score(X, y) < 0.9  # shrunk, not interpolating
    with pytest.warns(UnderdeterminedWarning, match="to 442 rows with alpha=0"):
        RandomTSRegressor(n_rules=200, alpha=0.0, random_state=0, structure="random").fit(X, y)
