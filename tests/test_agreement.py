"""Rules beside their model and their data: ``rule_agreement`` and ``to_text(X=..., y=...)``."""

import numpy as np
import pytest

from randomts import RandomTSRegressor, RuleBase
from randomts.analysis.agreement import NEAREST_ROWS, NOISE_FACTOR, TOLERANCE, rule_agreement


def _data(seed=0, n_samples=400):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 3.0, size=(n_samples, 2))
    return X, np.sin(X[:, 0]) * X[:, 1]


def test_the_figures_are_those_of_their_definitions():
    X, y = _data()
    rb = RandomTSRegressor(n_rules=15, random_state=0, structure="random").fit(X, y).rule_base_
    found = rule_agreement(rb, X, y)
    sd = y.std()
    for i, center in enumerate(rb.centers):
        own = rb.coef[i, 0] @ center + rb.intercept[i, 0]
        model = rb.predict(center[None, :])[0, 0]
        distance = (((X - center) / X.std(axis=0)) ** 2).sum(axis=1)
        nearest = y[np.argsort(distance)[:NEAREST_ROWS]]  # no ties in random data
        data = nearest.mean()
        error = nearest.std(ddof=1) / np.sqrt(NEAREST_ROWS)
        # each is a short sum of rounded terms: within a few ulps of the terms' sizes
        scale = np.abs(rb.coef[i, 0] * center).sum() + abs(rb.intercept[i, 0]) + abs(model)
        assert found.at_center[i, 0] == pytest.approx(own, abs=8 * np.finfo(float).eps * scale)
        assert found.model[i, 0] == pytest.approx(model, rel=1e-12, abs=1e-12 * scale)
        assert found.data[i, 0] == pytest.approx(data, rel=1e-12, abs=1e-15)
        assert found.data_error[i, 0] == pytest.approx(error, rel=1e-10, abs=1e-15)
        assert found.from_model[i, 0] == pytest.approx((own - model) / sd, rel=1e-9, abs=1e-9)
    np.testing.assert_array_equal(found.too_wide, rb.sigmas > np.ptp(X, axis=0))
    np.testing.assert_array_equal(found.off_model, np.abs(found.from_model) > TOLERANCE)
    beyond_noise = np.abs(found.at_center - found.data) > NOISE_FACTOR * found.data_error
    np.testing.assert_array_equal(
        found.off_data, (np.abs(found.from_data) > TOLERANCE) & beyond_noise
    )


def test_the_noise_of_the_data_alone_seldom_raises_a_flag():
    # 50 rules on the true local lines of y = x, under noise of about 0.9 sd of y: the mean of
    # 10 noisy rows lies about 0.29 sd from the truth, so a bare tolerance of 0.25 flags about
    # 4 rules in 10; beyond 2 standard errors (with 9 degrees of freedom) about 8 in 100 are
    # expected. Over 5 seeds x 50 rules the two rates stand many binomial deviations apart.
    centers = np.linspace(-0.95, 0.95, 50)[:, None]
    rules = dict(centers=centers, sigmas=np.full((50, 1), 0.02), coef=np.ones((50, 1, 1)))
    beyond_tolerance = off_data = wrong_found = 0
    for seed in range(5):
        rng = np.random.default_rng(seed)
        X = rng.uniform(-1.0, 1.0, size=(4000, 1))
        y = X[:, 0] + 1.2 * rng.normal(size=4000)
        found = rule_agreement(RuleBase(**rules, normalize=True), X, y)
        beyond_tolerance += int((np.abs(found.from_data) > TOLERANCE).sum())
        off_data += int(found.off_data.sum())
        # rules wrong by much more than the noise are still found
        shifted = RuleBase(**rules, intercept=np.full((50, 1), 2 * y.std()), normalize=True)
        wrong_found += int(rule_agreement(shifted, X, y).off_data.sum())
    assert beyond_tolerance > 0.25 * 250
    assert off_data < 0.2 * 250
    assert wrong_found == 250


@pytest.mark.parametrize("seed", range(3))
def test_a_weighted_sum_of_many_random_rules_is_flagged(seed):
    X, y = _data(seed)
    model = RandomTSRegressor(n_rules=40, random_state=seed, structure="random").fit(X, y)
    text = model.rule_base_.to_text(X=X, y=y, top=5)
    rules = [line for line in text.splitlines() if line.startswith("R")]
    assert len(rules) == 5 and all("# at c: model " in line for line in rules)
    assert any("; ! " in line and "sd from the model" in line for line in rules)


def test_rules_that_say_what_happens_where_they_live_are_not_flagged():
    # narrow rules, a weighted average, each consequent the local line of y = x
    X = np.linspace(-1.0, 1.0, 201)[:, None]
    y = X[:, 0].copy()
    centers = np.linspace(-0.9, 0.9, 7)[:, None]
    rb = RuleBase(
        centers=centers, sigmas=np.full((7, 1), 0.1), coef=np.ones((7, 1, 1)), normalize=True
    )
    found = rule_agreement(rb, X, y)
    assert not found.flagged.any()
    assert np.abs(found.from_model).max() < TOLERANCE and np.abs(found.from_data).max() < TOLERANCE
    rules = [line for line in rb.to_text(X=X, y=y).splitlines() if line.startswith("R")]
    assert len(rules) == 7
    assert all("# at c: model" in line and "; ! " not in line for line in rules)


def test_a_width_beyond_the_data_is_named():
    X, y = _data()
    rb = RuleBase(centers=[[1.5, 1.5]], sigmas=[[10.0, 0.5]], intercept=[[0.5]], normalize=True)
    line = [row for row in rb.to_text(X=X, y=y).splitlines() if row.startswith("R1")][0]
    assert line.endswith("wider than the data: x1")


def test_each_output_gets_its_own_figures():
    X, y = _data()
    Y = np.column_stack([y, -2.0 * y])
    model = RandomTSRegressor(n_rules=5, random_state=0, structure="random").fit(X, Y)
    found = rule_agreement(model.rule_base_, X, Y)
    np.testing.assert_allclose(found.data[:, 1], -2.0 * found.data[:, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        found.from_data[:, 1], -found.from_data[:, 0] * 0.0 + found.from_data[:, 1]
    )
    lines = model.rule_base_.to_text(X=X, y=Y).splitlines()
    assert sum("# at c: model" in line for line in lines) == 2 * model.rule_base_.n_rules


def test_y_needs_X_and_matching_rows():
    X, y = _data()
    rb = RuleBase(centers=[[1.0, 1.0]], sigmas=[[1.0, 1.0]])
    with pytest.raises(ValueError, match="'y' parameter needs the data X"):
        rb.to_text(y=y)
    with pytest.raises(ValueError, match=r"y must have 400 rows \(those of X\) and 1 output"):
        rb.to_text(X=X, y=y[:10])


def test_the_table_has_the_figures_and_the_check():
    X, y = _data()
    model = RandomTSRegressor(n_rules=40, random_state=0, structure="random").fit(X, y)
    rb = model.rule_base_
    found = rule_agreement(rb, X, y)
    table = rb.table(fmt="tsv", precision=None, X=X, y=y)
    header, *rows = [line.split("\t") for line in table.splitlines()]
    header = [cell.strip() for cell in header]
    assert header[-4:] == ["y: model at c", "y: data at c", "y: data se", "check"]
    assert len(rows) == rb.n_rules
    model_at, data_at, data_se, check = (header.index(name) for name in header[-4:])
    for row in rows:
        row = row + [""] * (len(header) - len(row))  # an empty last cell may be left out
        i = int(row[0].strip()[1:]) - 1
        # lossless numbers: the figures read back as they were computed
        assert float(row[model_at]) == found.model[i, 0]  # exact: repr reads back the same float
        assert float(row[data_at]) == found.data[i, 0]  # exact: repr reads back the same float
        assert float(row[data_se]) == found.data_error[i, 0]  # exact: repr reads back
        assert ("sd from the model" in row[check]) == bool(found.off_model[i].any())
        assert ("sd from the data" in row[check]) == bool(found.off_data[i].any())
    with pytest.raises(ValueError, match="'y' parameter needs the data X"):
        rb.table(y=y)


def _system():
    """Two inputs, two outputs; R3 concludes only y2 and fires nowhere on the data below."""
    from randomts import FuzzySystem
    from randomts.fuzzy import InputVariable, OutputVariable
    from randomts.fuzzy.terms import Constant, Linear, Triangle

    return FuzzySystem(
        [
            InputVariable(
                "a",
                {"low": Triangle(0, 0, 2), "high": Triangle(0, 2, 2), "far": Triangle(5, 6, 7)},
                range=(0, 7),
            ),
            InputVariable("b", {"any": Triangle(-1, 0.5, 2)}, range=(-1, 2)),
        ],
        [
            OutputVariable(
                "y1", {"lo": Linear([0.5, 0.0], 0.0), "up": Linear([0.5, 0.0], 0.0)}, range=(0, 1)
            ),
            OutputVariable("y2", {"one": Constant(1.0), "nine": Constant(9.0)}, range=(0, 9)),
        ],
        [
            "if a is low and b is any then y1 is lo and y2 is one",
            "if a is high then y1 is up and y2 is nine",
            "if a is far then y2 is one",
        ],
    )


def test_a_general_system_is_checked_where_its_rules_fire():
    system = _system()
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(0, 2, 500), rng.uniform(0, 1, 500)])
    Y = np.column_stack([X[:, 0] / 2 + 0.1 * rng.normal(size=500), np.ones(500)])
    found = rule_agreement(system, X, Y)
    degrees = system.firing_strengths(X)
    outputs = system.rule_outputs(X)
    predicted = system.predict(X)
    for r in (0, 1):
        w = degrees[:, r] / degrees[:, r].sum()
        for m in range(2):
            data = w @ Y[:, m]
            error = np.sqrt(w**2 @ (Y[:, m] - data) ** 2)
            # weighted means of a few hundred terms of their own size: within 1e-12 of them
            scale = np.abs(Y[:, m]).max() + np.abs(outputs[:, r, m]).max()
            assert found.at_center[r, m] == pytest.approx(w @ outputs[:, r, m], abs=1e-12 * scale)
            assert found.model[r, m] == pytest.approx(w @ predicted[:, m], abs=1e-12 * scale)
            assert found.data[r, m] == pytest.approx(data, abs=1e-12 * scale)
            assert found.data_error[r, m] == pytest.approx(error, rel=1e-9, abs=1e-15)
    # y2 says 9 where the data say 1: off both; y1 follows the data where each rule fires
    assert found.off_data[1, 1] and found.off_model[1, 1] and not found.off_data[:, 0].any()
    # R3 concludes only y2 and fires on no row: NaN everywhere, flagged
    assert np.isnan(found.data[2]).all() and found.flagged[2]
    assert not found.too_wide.any()
    assert found.flagged.tolist() == [True, True, True]  # R1 too: the model there mixes in R2's 9


def test_a_general_system_prints_its_check():
    system = _system()
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.uniform(0, 2, 300), rng.uniform(0, 1, 300)])
    Y = np.column_stack([X[:, 0] / 2, np.ones(300)])
    found = rule_agreement(system, X, Y)
    text = system.to_text(precision=3, X=X, y=Y).splitlines()
    r2 = text.index(next(line for line in text if line.lstrip().startswith("R2")))
    assert text[r2 + 1].startswith("    # y1: rule ") and text[r2 + 2].startswith(
        "    # y2: rule 9,"
    )
    assert "sd from the data" in text[r2 + 2] and "sd from the data" not in text[r2 + 1]
    assert any(line == "    # ! fires on no row of the data" for line in text)
    table = system.table(fmt="tsv", precision=None, X=X, y=Y)
    header, *rows = [[cell.strip() for cell in line.split("\t")] for line in table.splitlines()]
    assert header[-9:] == [
        "y1: rule", "y1: model", "y1: data", "y1: data se",
        "y2: rule", "y2: model", "y2: data", "y2: data se", "check",
    ]  # fmt: skip
    rows = {row[0]: row + [""] * (len(header) - len(row)) for row in rows}
    assert float(rows["R2"][header.index("y2: data")]) == found.data[1, 1]  # exact: repr
    assert rows["R3"][header.index("y1: rule")] == ""  # R3 does not conclude y1
    assert rows["R3"][-1] == "fires on no row of the data"
    with pytest.raises(ValueError, match="'y' parameter needs the data X"):
        system.to_text(y=Y)
