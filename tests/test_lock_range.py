"""Rule bases and regressors that hold their inputs and outputs in the training ranges."""

import pickle
import warnings

import numpy as np
import pytest

import randomts
from randomts import FuzzySystem, NARXRegressor, RandomTSClassifier, RandomTSRegressor, RuleBase
from randomts.exceptions import ExtrapolationWarning, FormatError
from randomts.io._base import lock_from_metadata, lock_in_metadata


def rule_base(lock_range=True, normalize=True, seed=0):
    """Three rules on two inputs with steep lines, ranges [-1, 1] and an output range."""
    rng = np.random.default_rng(seed)
    return RuleBase(
        centers=rng.uniform(-1, 1, size=(3, 2)),
        sigmas=rng.uniform(0.3, 0.8, size=(3, 2)),
        coef=rng.normal(scale=3.0, size=(3, 1, 2)),
        intercept=rng.normal(size=(3, 1)),
        normalize=normalize,
        input_range=[[-1.0, 1.0], [-1.0, 1.0]],
        output_range=[[-2.0, 2.0]],
        lock_range=lock_range,
    )


def far_rows(seed=1):
    rng = np.random.default_rng(seed)
    return rng.uniform(-4.0, 4.0, size=(200, 2))


@pytest.mark.parametrize("normalize", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_a_locked_rule_base_predicts_the_held_rows_then_holds_the_output(normalize, seed):
    locked, free = rule_base(True, normalize, seed), rule_base(False, normalize, seed)
    X = far_rows(seed)
    held = np.clip(X, -1.0, 1.0)
    # the same operations on the same rows, then a clip: exact by construction
    np.testing.assert_array_equal(locked.predict(X), np.clip(free.predict(held), -2.0, 2.0))
    assert locked.predict(X).min() >= -2.0 and locked.predict(X).max() <= 2.0
    inside = np.abs(X).max(axis=1) <= 1.0
    unclipped = np.abs(free.predict(X[inside])[:, 0]) < 2.0
    np.testing.assert_array_equal(
        locked.predict(X[inside])[unclipped], free.predict(X[inside])[unclipped]
    )
    # the rule-by-rule views see the held rows too
    np.testing.assert_array_equal(locked.firing_strengths(X), free.firing_strengths(held))
    np.testing.assert_array_equal(locked.contributions(X), free.contributions(held))


def test_the_jacobian_of_a_locked_rule_base_is_zero_where_it_holds():
    locked, free = rule_base(True), rule_base(False)
    X = far_rows()
    J = locked.jacobian(X)
    held = np.clip(X, -1.0, 1.0)
    moved = held != X
    assert np.all(J[:, 0, :][moved] == 0.0)  # exact: multiplied by zero
    output_held = np.abs(free.predict(held)[:, 0]) > 2.0
    assert np.all(J[output_held] == 0.0)
    # elsewhere the free rules' derivatives at the held rows, as central differences say
    keep = ~moved.any(axis=1) & ~output_held
    step = 1e-6
    for k in range(2):
        shift = np.zeros(2)
        shift[k] = step
        numeric = (locked.predict(X[keep] + shift) - locked.predict(X[keep] - shift))[:, 0] / (
            2 * step
        )
        near_edge = (np.abs(X[keep]).max(axis=1) > 1 - 2 * step) | (
            np.abs(locked.predict(X[keep])[:, 0]) > 2 - 1e-3
        )
        scale = np.abs(locked.coef).max() * 10
        np.testing.assert_allclose(
            J[keep, 0, k][~near_edge], numeric[~near_edge], atol=1e-6 * scale
        )


def test_a_lock_needs_both_ranges_and_a_bool():
    rb = rule_base(False)
    with pytest.raises(ValueError, match="lock_range' parameter of RuleBase can be True only with"):
        RuleBase(centers=[[0.0]], sigmas=[[1.0]], input_range=[[0.0, 1.0]], lock_range=True)
    with pytest.raises(TypeError, match="'lock_range' parameter of RuleBase must be a bool"):
        rb.replace(lock_range="yes")


def test_the_lock_is_part_of_the_model():
    locked, free = rule_base(True), rule_base(False)
    assert locked != free and locked == rule_base(True)
    assert locked != locked.replace(output_range=[[-3.0, 3.0]])
    assert free == free.replace(output_range=[[-3.0, 3.0]])  # ranges describe an unlocked model
    assert locked.subset([0, 2]).lock_range and locked.replace(normalize=False).lock_range
    assert pickle.loads(pickle.dumps(locked)) == locked
    assert "range locked" in repr(locked)
    # new sizes drop the ranges, and the lock with them
    wider = locked.replace(
        centers=np.zeros((3, 3)),
        sigmas=np.ones((3, 3)),
        coef=np.zeros((3, 1, 3)),
        input_names=["a", "b", "c"],
    )
    assert wider.input_range is None and not wider.lock_range


@pytest.mark.parametrize("fmt", ["json", "fis", "fll", "txt"])
def test_every_format_keeps_the_lock(tmp_path, fmt):
    locked = rule_base(True)
    path = tmp_path / f"model.{fmt}"
    randomts.save(locked, path)
    back = randomts.load(path)
    assert back == locked and back.lock_range and back.metadata == locked.metadata
    X = far_rows()
    np.testing.assert_allclose(back.predict(X), locked.predict(X), rtol=1e-12, atol=1e-12)


def test_the_fis_file_itself_is_matlabs_and_says_the_lock_in_its_metadata(tmp_path):
    text = randomts.io.dumps(rule_base(True), "fis")
    assert "LockRange" not in text  # MATLAB and Octave read the file; their Range declares it
    assert '"lock_range": true' in text.splitlines()[-1]


def test_the_fll_file_locks_every_variable_and_fuzzylite_evaluates_it_so():
    fl = pytest.importorskip("fuzzylite", reason="pip install --no-deps pyfuzzylite")
    locked = rule_base(True)
    text = randomts.io.dumps(locked, "fll")
    assert text.count("lock-range: true") == 3
    engine = fl.FllImporter().from_string(text)
    X = far_rows()
    for variable, column in zip(engine.input_variables, X.T, strict=True):
        variable.value = column
    engine.process()
    theirs = np.asarray(engine.output_variables[0].value, dtype=float)
    np.testing.assert_allclose(theirs, locked.predict(X)[:, 0], rtol=1e-10, atol=1e-12)


def test_a_fuzzy_system_locks_all_variables_or_is_no_rule_base():
    system = FuzzySystem.from_rule_base(rule_base(True))
    assert system.rule_base_mismatch() is None and system.to_rule_base() == rule_base(True)
    # the general engine sums in its own order: equal to rounding
    np.testing.assert_allclose(
        system.predict(far_rows()), rule_base(True).predict(far_rows()), rtol=1e-12, atol=1e-12
    )
    # a FIS file's system: unlocked variables, the lock in the metadata
    written = FuzzySystem.from_rule_base(lock_in_metadata(rule_base(True)))
    assert not any(v.lock_range for v in written.inputs + written.outputs)
    read = lock_from_metadata(written)
    assert (
        all(v.lock_range for v in read.inputs + read.outputs) and "lock_range" not in read.metadata
    )
    unlocked_output = FuzzySystem.from_rule_base(rule_base(True))
    unlocked_output.outputs[0].lock_range = False
    assert "only some variables have lock_range=True" in unlocked_output.rule_base_mismatch()


def test_a_lock_the_metadata_cannot_hold_is_a_format_error():
    rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], metadata={"lock_range": "yes"})
    with pytest.raises(FormatError, match="'lock_range' must be true or false; got 'yes'"):
        lock_from_metadata(rb)
    rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], metadata={"lock_range": True})
    with pytest.raises(FormatError, match="records no input and output ranges"):
        lock_from_metadata(rb)


def test_the_printed_rules_say_the_lock():
    assert "# range locked: beyond the data each input is held" in rule_base(True).to_text()
    assert "range locked" not in rule_base(False).to_text()


# ------------------------------------------------------------------------ the estimators


def curve_data(seed, n=133):
    """A swinging curve with its steepest parts at the ends of the data."""
    rng = np.random.default_rng(seed)
    t = np.sort(rng.uniform(0, 60, n))[:, None]
    s = np.clip(t[:, 0] - 14, 0, None)
    y = -120 * np.sin(s / 6) * np.exp(-s / 10) + 8 * rng.normal(size=n) + 0.5 * t[:, 0]
    return t, y


@pytest.mark.parametrize("structure", ["grown", "random"])
@pytest.mark.parametrize("seed", range(3))
def test_the_regressor_holds_its_ranges_by_default(structure, seed):
    t, y = curve_data(seed)
    model = RandomTSRegressor(structure=structure, random_state=seed).fit(t, y)
    rb = model.rule_base_
    assert rb.lock_range
    np.testing.assert_array_equal(rb.input_range, [[t.min(), t.max()]])
    np.testing.assert_array_equal(rb.output_range, [[y.min(), y.max()]])
    beyond = np.array([[t.min() - 5.0], [t.min() - 500.0], [t.max() + 5.0], [t.max() + 500.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        held = model.predict(beyond)
        edges = model.predict(np.array([[t.min()], [t.max()]]))
    # beyond the data, the model's value at the data's edge (to the rounding of another batch)
    np.testing.assert_allclose(held, edges[[0, 0, 1, 1]], rtol=1e-9, atol=1e-9 * np.std(y))
    assert np.all((held >= y.min()) & (held <= y.max()))


def test_lock_range_false_and_the_paper_evaluate_the_rules_anywhere():
    t, y = curve_data(0)
    free = RandomTSRegressor(lock_range=False, random_state=0).fit(t, y)
    assert not free.rule_base_.lock_range
    assert not RandomTSRegressor.paper(n_rules=20, random_state=0).fit(t, y).rule_base_.lock_range
    with pytest.raises(TypeError, match="'lock_range' parameter of RandomTSRegressor must be"):
        RandomTSRegressor(lock_range="yes").fit(t, y)


def test_the_classifier_holds_nothing_unless_asked():
    t, y = curve_data(0)
    labels = y > np.median(y)
    assert not RandomTSClassifier(random_state=0).fit(t, labels).rule_base_.lock_range
    asked = RandomTSClassifier(lock_range=True, random_state=0).fit(t, labels)
    assert asked.rule_base_.lock_range


def test_a_regressor_from_given_rules_keeps_their_lock_unless_told():
    for lock in (False, True):
        given = rule_base(lock)
        model = RandomTSRegressor.from_rule_base(given, alpha=0.0)
        assert model.rule_base_.lock_range is lock
        np.testing.assert_array_equal(
            model.predict(np.zeros((1, 2))), given.predict(np.zeros((1, 2)))[:, 0]
        )
    told = RandomTSRegressor.from_rule_base(rule_base(False), alpha=0.0, lock_range=True)
    assert told.rule_base_.lock_range


def test_partial_fit_holds_the_union_of_the_chunks_ranges():
    t, y = curve_data(0, n=400)
    model = RandomTSRegressor(structure="random", n_rules=20, random_state=0)
    order = np.argsort(t[:, 0])
    model.partial_fit(t[order[:200]], y[order[:200]])
    assert model.rule_base_.input_range[0, 1] == t[order[199], 0]
    model.partial_fit(t[order[200:]], y[order[200:]])
    np.testing.assert_array_equal(model.rule_base_.input_range, [[t.min(), t.max()]])
    assert model.rule_base_.lock_range


def test_narx_runs_unlocked_rules_and_refuses_a_locked_estimator():
    rng = np.random.default_rng(0)
    u = rng.uniform(-1, 1, 300)
    y = np.zeros(300)
    for k in range(1, 300):
        y[k] = 0.6 * y[k - 1] + np.tanh(u[k - 1])
    model = NARXRegressor(
        estimator=RandomTSRegressor(structure="random", n_rules=10, random_state=0),
        y_lags=1,
        u_lags=1,
        focus="prediction",
    ).fit(u, y)
    assert not model.estimator_.rule_base_.lock_range
    default = NARXRegressor(y_lags=1, u_lags=1, random_state=0).fit(u, y)  # its candidates
    assert not default.estimator_.rule_base_.lock_range
    locked = NARXRegressor(
        estimator=RandomTSRegressor(n_rules=10, lock_range=True), y_lags=1, u_lags=1
    )
    with pytest.raises(ValueError, match=r"must not hold its rules in a range \(lock_range=True\)"):
        locked.fit(u, y)


@pytest.mark.parametrize("flag, locked", [(None, True), ("--no-lock-range", False)])
def test_the_command_line_fits_held_or_free_rules(tmp_path, capsys, flag, locked):
    from randomts.cli import main

    t, y = curve_data(0)
    data = tmp_path / "data.csv"
    data.write_text(
        "t,y\n" + "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(t[:, 0], y, strict=True))
    )
    model = tmp_path / "model.json"
    argv = ["fit", str(data), "--target", "y", "-o", str(model)] + ([flag] if flag else [])
    assert main(argv) == 0
    capsys.readouterr()
    assert randomts.load(model).rule_base_.lock_range is locked


@pytest.mark.parametrize("method", ["jackknife+", "split"])
def test_intervals_beyond_the_data_are_those_of_the_held_rows(method):
    t, y = curve_data(1, n=300)
    model = RandomTSRegressor(structure="random", n_rules=20, random_state=0)
    if method == "jackknife+":
        model.fit_conformalize(t, y)
    else:
        model.fit(t[:200], y[:200]).conformalize(t[200:], y[200:])
    low, high = model.rule_base_.input_range[0]
    beyond = np.array([[low - 3.0], [high + 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        far = np.column_stack(model.predict_interval(beyond, coverage=0.8))
        edge = np.column_stack(model.predict_interval(np.array([[low], [high]]), coverage=0.8))
    np.testing.assert_allclose(far, edge, rtol=1e-9, atol=1e-9 * np.std(y))
