"""Interoperability proved by third-party engines: pyfuzzylite reads our FLL, GNU Octave our FIS.

pyfuzzylite must be installed with ``pip install --no-deps pyfuzzylite`` (it
declares numpy<2 but works with numpy 2). The Octave test runs when ``octave``
and its fuzzy-logic-toolkit are installed (Debian: ``octave
octave-fuzzy-logic-toolkit``).
"""

import shutil
import subprocess

import numpy as np
import pytest
from io_helpers import fuzzylite_outputs, random_model, relative_error

import randomts
from randomts.io import dumps


def model(seed, normalize, order):
    return random_model(seed, n_rules=12, normalize=normalize, order=order, spread=0)


def inputs(seed, rule_base, n_samples=200):
    """Points where every rule's firing strength is well above underflow."""
    return np.random.default_rng(seed + 1000).normal(
        scale=1.5, size=(n_samples, rule_base.n_features)
    )


CASES = [
    (seed, normalize, order) for seed in range(3) for normalize in (False, True) for order in (0, 1)
]


@pytest.mark.parametrize("seed, normalize, order", CASES)
def test_pyfuzzylite_evaluates_our_fll_to_our_outputs(seed, normalize, order):
    fl = pytest.importorskip("fuzzylite", reason="pip install --no-deps pyfuzzylite")
    rule_base = model(seed, normalize, order)
    engine = fl.FllImporter().from_string(dumps(rule_base, "fll"))
    X = inputs(seed, rule_base)
    Y = fuzzylite_outputs(engine, X)
    assert relative_error(Y, rule_base, X) <= 1e-12
    expected = "WeightedAverage" if normalize else "WeightedSum"
    assert all(type(v.defuzzifier).__name__ == expected for v in engine.output_variables)


def test_pyfuzzylite_export_is_read_back_to_the_same_engine(tmp_path):
    """FllExporter's text (3 decimals) read by randomts evaluates as pyfuzzylite evaluates it."""
    fl = pytest.importorskip("fuzzylite", reason="pip install --no-deps pyfuzzylite")
    rule_base = model(5, normalize=True, order=1)
    text = fl.FllExporter().to_string(fl.FllImporter().from_string(dumps(rule_base, "fll")))
    engine = fl.FllImporter().from_string(text)
    ours = randomts.io.loads(text, "fll")
    assert ours.input_names == rule_base.input_names  # restored from the descriptions
    X = inputs(5, rule_base)
    Y = fuzzylite_outputs(engine, X)
    assert relative_error(Y, ours, X) <= 1e-12


@pytest.fixture(scope="module")
def octave():
    """Skip unless GNU Octave and its fuzzy-logic-toolkit are installed (probed once, lazily)."""
    if shutil.which("octave") is None:
        pytest.skip("GNU Octave is not installed (Debian: octave octave-fuzzy-logic-toolkit)")
    probe = subprocess.run(
        ["octave", "--no-gui", "-q", "--eval", "pkg load fuzzy-logic-toolkit"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if probe.returncode != 0:
        pytest.skip("Octave's fuzzy-logic-toolkit is not installed: " + probe.stderr.strip()[:200])


def test_octave_evalfis_gives_our_outputs(tmp_path, octave):
    """One Octave session evaluates every case (Octave starts in ~0.3 s; the cases share it)."""
    script, expected = [], {}
    for seed, normalize, order in CASES:
        rule_base = model(seed, normalize, order)
        name = f"m{seed}{int(normalize)}{order}"
        randomts.save(rule_base, tmp_path / f"{name}.fis")
        X = inputs(seed, rule_base, n_samples=15)  # Octave's evalfis is interpreted: ~12 ms a point
        np.savetxt(tmp_path / f"{name}_in.txt", X, fmt="%.17g")
        expected[name] = (rule_base, X)
        script.append(
            f"fis = readfis('{name}.fis'); Y = evalfis(load('{name}_in.txt'), fis); "
            f"fid = fopen('{name}.out', 'w'); fprintf(fid, '%.17g %.17g\\n', Y'); fclose(fid);"
        )
    run = subprocess.run(
        ["octave", "--no-gui", "-q", "--eval", "pkg load fuzzy-logic-toolkit; " + " ".join(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    for name, (rule_base, X) in expected.items():
        Y = np.loadtxt(tmp_path / f"{name}.out", ndmin=2)
        assert Y.shape == (len(X), 2)
        assert relative_error(Y, rule_base, X) <= 1e-12, name


def test_octave_writefis_output_is_read_back(tmp_path, octave):
    rule_base = model(0, normalize=True, order=1)
    randomts.save(rule_base, tmp_path / "ours.fis")
    run = subprocess.run(
        [
            "octave",
            "--no-gui",
            "-q",
            "--eval",
            "pkg load fuzzy-logic-toolkit; writefis(readfis('ours.fis'), 'theirs.fis');",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    theirs = randomts.load(tmp_path / "theirs.fis")  # Octave writes 15 significant digits
    X = inputs(0, rule_base)
    assert theirs.normalize and relative_error(theirs.predict(X), rule_base, X) < 1e-13


def test_declared_data_ranges_and_the_engines(tmp_path, octave):
    """The data's ranges, written as the variables' ranges: pyfuzzylite evaluates outside
    them as inside; Octave's evalfis refuses inputs outside a FIS's ranges, and evaluates
    them once the ranges are widened (``replace(input_range=...)`` before saving)."""
    fl = pytest.importorskip("fuzzylite", reason="pip install --no-deps pyfuzzylite")
    rule_base = model(7, normalize=True, order=1).replace(
        input_range=[[-0.5, 0.5]] * 3, output_range=[[-0.1, 0.1]] * 2
    )
    X = inputs(7, rule_base, n_samples=15)
    assert np.mean(np.abs(X) > 0.5) > 0.5  # mostly outside the declared ranges
    engine = fl.FllImporter().from_string(dumps(rule_base, "fll"))
    assert relative_error(fuzzylite_outputs(engine, X), rule_base, X) <= 1e-12
    inside = np.clip(X, -0.5, 0.5)
    widened = rule_base.replace(input_range=[[-10.0, 10.0]] * 3)
    for name, saved, points in [
        ("inside", rule_base, inside),
        ("outside", rule_base, X),
        ("widened", widened, X),
    ]:
        randomts.save(saved, tmp_path / f"{name}.fis")
        np.savetxt(tmp_path / f"{name}.txt", points, fmt="%.17g")
    script = " ".join(
        f"try, Y = evalfis(load('{name}.txt'), readfis('{name}.fis')); "
        f"fid = fopen('{name}.out', 'w'); fprintf(fid, '%.17g %.17g\\n', Y'); fclose(fid); "
        "catch, end;"
        for name in ("inside", "outside", "widened")
    )
    run = subprocess.run(
        ["octave", "--no-gui", "-q", "--eval", "pkg load fuzzy-logic-toolkit; " + script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "outside.out").exists()  # refused: outside the Range
    for name, points in (("inside", inside), ("widened", X)):
        Y = np.loadtxt(tmp_path / f"{name}.out", ndmin=2)
        assert relative_error(Y, rule_base, points) <= 1e-12, name
