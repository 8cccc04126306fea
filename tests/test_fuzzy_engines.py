"""General Takagi-Sugeno systems evaluated by randomts and by the reference engines.

GNU Octave's fuzzy-logic-toolkit (``evalfis``) for ``.fis`` files, pyfuzzylite 8
for ``.fll`` files: every Sugeno example each ships, and random systems, agree
to 1e-9 (relative to 1 + |y|). Where the engines read a file differently the
comparison avoids the disagreement and says how (see the helpers and the
notes in :mod:`randomts.fuzzy.system`):

- dsigmf: MATLAB and fuzzylite take ``|f1 - f2|``, Octave clamps at 0; random
  dsigmf terms are bumps (``f1 >= f2`` everywhere), where both agree.
- Octave has no ``probor`` function: the FIS given to Octave names it
  ``algebraic_sum`` (the same norm).
- Octave's drastic norms are not the fold of the binary norm for one or
  more than two operands; random FIS systems do not use them.
- fuzzylite lets one conclusion's hedge modify the next conclusion of the same
  rule; randomts gives each conclusion the rule's own degree. pyfuzzylite is
  given the rules split into one rule per conclusion, which means the same
  thing without the leak.
"""

import glob
import os
import re
import shutil
import subprocess
import warnings

import numpy as np
import pytest
from fuzzy_helpers import assert_close, inputs_in_range, random_system

import randomts
from randomts import FormatError, FuzzySystem
from randomts.exceptions import NoRuleFiredWarning, UndefinedDegreeWarning
from randomts.io import dumps

OCTAVE_TOOLKIT = "/usr/share/octave/packages/fuzzy-logic-toolkit-0.4.6"


def predict(system, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoRuleFiredWarning)
        warnings.simplefilter("ignore", UndefinedDegreeWarning)
        return system.predict(X)


# ------------------------------------------------------------------ Octave


@pytest.fixture(scope="module")
def octave():
    """A function that runs Octave code in ``folder`` (skips without Octave and its toolkit)."""
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

    def run(code, folder):
        result = subprocess.run(
            ["octave", "--no-gui", "-q", "--eval", "pkg load fuzzy-logic-toolkit; " + code],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, result.stderr[-2000:]

    return run


def octave_sugeno_examples():
    if not os.path.isdir(OCTAVE_TOOLKIT):
        return []
    found = []
    for path in sorted(glob.glob(os.path.join(OCTAVE_TOOLKIT, "*.fis"))):
        with open(path, encoding="utf-8") as stream:
            if re.search(r"Type\s*=\s*'sugeno'", stream.read()):
                found.append(path)
    return found


def evaluate_in_octave(octave, folder, cases):
    """Octave's evalfis of every (name, FIS text, X) case, in one Octave session.

    evalfis stops with an error at a row where no rule concludes an output;
    that row is NaN here.
    """
    script = []
    for name, text, X in cases:
        (folder / f"{name}.fis").write_text(text.replace("'probor'", "'algebraic_sum'"))
        np.savetxt(folder / f"{name}_in.txt", X, fmt="%.17g")
        script.append(
            f"fis = readfis('{name}.fis'); X = load('{name}_in.txt'); "
            "Y = nan(rows(X), columns(fis.output)); for i = 1:rows(X) "
            "try Y(i, :) = evalfis(X(i, :), fis); catch end; end; "
            f"save('-ascii', '-double', '{name}.out', 'Y');"
        )
    octave(" ".join(script), folder)
    return {name: np.loadtxt(folder / f"{name}.out", ndmin=2) for name, _, _ in cases}


def test_octave_sugeno_examples_agree_with_evalfis(tmp_path, octave):
    paths = octave_sugeno_examples()
    assert len(paths) >= 4  # cubic_approximator, heart_disease_risk, linear and sugeno tips
    cases, systems = [], {}
    for k, path in enumerate(paths):
        system = randomts.load(path)
        assert isinstance(system, FuzzySystem)
        X = inputs_in_range(system, 40, seed=k, margin=0.0)
        with open(path, encoding="utf-8") as stream:
            cases.append((f"example{k}", stream.read(), X))
        systems[f"example{k}"] = (system, X)
    theirs = evaluate_in_octave(octave, tmp_path, cases)
    for name, (system, X) in systems.items():
        assert_close(predict(system, X), theirs[name], name)


def test_random_fis_systems_agree_with_evalfis(tmp_path, octave):
    """Trimf ... pimf, skipped inputs, NOT, hedge indices, weights, OR, min/prod/..., max/sum."""
    cases, systems = [], {}
    for seed in range(24):
        system = random_system(
            seed,
            conjunctions=(
                "min",
                "prod",
                "bounded_difference",
                "einstein_product",
                "hamacher_product",
            ),
            disjunctions=("max", "probor", "bounded_sum", "einstein_sum", "hamacher_sum", "sum"),
            aggregations=("sum", "max", "probor", "einstein_sum"),
        )
        X = inputs_in_range(system, 25, seed=seed, margin=0.0)  # evalfis refuses other inputs
        cases.append((f"random{seed}", dumps(system, "fis"), X))
        systems[f"random{seed}"] = (system, X)
    theirs = evaluate_in_octave(octave, tmp_path, cases)
    compared = []
    for name, (system, X) in systems.items():
        ours, reference = predict(system, X), theirs[name]
        # Octave stops at a row where no rule concludes some output; there randomts gives
        # NaN (weighted average) or 0 (weighted sum) for that output.
        failed = np.isnan(reference).all(axis=1)
        nothing = [
            np.isnan(ours[:, m]) | ((ours[:, m] == 0.0) & (v.defuzzifier == "wtsum"))
            for m, v in enumerate(system.outputs)
        ]
        assert np.all(np.any(nothing, axis=0)[failed]), name
        assert_close(ours[~failed], reference[~failed], name)
        compared.append(np.isfinite(reference).mean())
    assert np.mean(compared) > 0.6  # most outputs are numbers, not "no rule fired"


def test_membership_functions_equal_octaves(tmp_path, octave):
    """Each MATLAB membership function (scikit-fuzzy's where they agree) against Octave's evalmf."""
    rng = np.random.default_rng(7)
    from fuzzy_helpers import MATLAB_KINDS, random_term

    script, terms = [], {}
    x = np.linspace(-8, 8, 161)
    np.savetxt(tmp_path / "x.txt", x, fmt="%.17g")
    for kind in MATLAB_KINDS:
        for repeat in range(3):
            term = random_term(rng, kind, -5.0, 5.0)
            name = f"{kind}_{repeat}"
            mf_type, params = term.to_matlab()
            assert mf_type == kind
            vector = " ".join(repr(v) for v in params)
            script.append(
                f"y = {kind}(load('x.txt'), [{vector}]); "
                f"save('-ascii', '-double', '{name}.out', 'y');"
            )
            terms[name] = term
    octave(" ".join(script), tmp_path)
    for name, term in terms.items():
        assert_close(term(x), np.loadtxt(tmp_path / f"{name}.out").ravel(), name, tol=1e-12)


# -------------------------------------------------------------- pyfuzzylite


def fuzzylite_outputs(fl, text, X):
    engine = fl.FllImporter().from_string(text)
    for variable, column in zip(engine.input_variables, X.T, strict=True):
        variable.value = column
    engine.process()
    return np.stack([np.asarray(v.value, dtype=float) for v in engine.output_variables], axis=1)


def one_conclusion_per_rule(text):
    """The same engine with every rule split into one rule per conclusion (no hedge leak)."""
    lines = []
    for line in text.split("\n"):
        match = re.match(r"^(\s*rule:\s*if .*?) then (.*?)( with \S+)?\s*$", line)
        if not match:
            lines.append(line)
            continue
        head, conclusions, weight = match.group(1), match.group(2), match.group(3) or ""
        for conclusion in conclusions.split(" and "):
            lines.append(f"{head} then {conclusion}{weight}")
    return "\n".join(lines)


def fuzzylite_examples():
    try:
        import fuzzylite
    except ImportError:
        return []
    folder = os.path.join(os.path.dirname(fuzzylite.__file__), "examples")
    return sorted(glob.glob(os.path.join(folder, "**", "*.fll"), recursive=True))


def test_every_fuzzylite_example_loads_or_is_refused_naming_why():
    paths = fuzzylite_examples()
    if not paths:
        pytest.skip("pyfuzzylite is not installed (pip install --no-deps pyfuzzylite)")
    loaded = []
    for path in paths:
        try:
            randomts.load(path)
        except FormatError as error:
            assert re.search(r"Mamdani|Tsukamoto|Function term|Binary", str(error)), str(error)
            assert "takagi_sugeno" not in path or "Function term" in str(error), str(error)
        else:
            loaded.append(os.path.basename(path))
    assert len(loaded) >= 20 and "sugeno_tip_calculator.fll" in loaded


def test_fuzzylite_sugeno_examples_agree_with_pyfuzzylite():
    fl = pytest.importorskip("fuzzylite", reason="pip install --no-deps pyfuzzylite")
    compared = 0
    for k, path in enumerate(fuzzylite_examples()):
        try:
            system = randomts.load(path, system=True)
        except FormatError:
            continue
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        X = inputs_in_range(system, 300, seed=k)
        theirs = fuzzylite_outputs(fl, one_conclusion_per_rule(text), X)
        assert_close(predict(system, X), theirs, os.path.basename(path))
        compared += 1
    assert compared >= 20


def test_fuzzylite_leaks_a_conclusions_hedge_into_the_next_randomts_does_not():
    """``then A is extremely L and B is very L``: fuzzylite gives B very(extremely(w))."""
    fl = pytest.importorskip("fuzzylite", reason="pip install --no-deps pyfuzzylite")
    path = next(p for p in fuzzylite_examples() if p.endswith("sugeno_tip_calculator.fll"))
    system = randomts.load(path)
    text = open(path, encoding="utf-8").read()
    X = inputs_in_range(system, 200, seed=1, margin=0.0)
    ours = predict(system, X)
    assert_close(ours, fuzzylite_outputs(fl, one_conclusion_per_rule(text), X), "split")
    leaked = fuzzylite_outputs(fl, text, X)
    assert np.abs(leaked[:, 1] - ours[:, 1]).max() > 1e-3  # AverageTip follows CheapTip's hedge
    assert_close(ours[:, 0], leaked[:, 0], "the first conclusion is not affected")


@pytest.mark.parametrize("seed", range(40))
def test_random_fll_systems_agree_with_pyfuzzylite(seed):
    """Every fuzzylite term with heights, nested and/or, hedges, every norm, lock-range, default."""
    fl = pytest.importorskip("fuzzylite", reason="pip install --no-deps pyfuzzylite")
    system = random_system(
        seed,
        flavour="fll",
        conjunctions=(
            "min",
            "prod",
            "bounded_difference",
            "drastic_product",
            "einstein_product",
            "hamacher_product",
            "nilpotent_minimum",
        ),
        disjunctions=(
            "max",
            "probor",
            "bounded_sum",
            "drastic_sum",
            "einstein_sum",
            "hamacher_sum",
            "nilpotent_maximum",
            "normalized_sum",
            "sum",
        ),
        aggregations=("sum", "max", "probor", "einstein_sum", "bounded_sum"),
    )
    X = inputs_in_range(system, 200, seed=seed)
    text = dumps(system, "fll")
    ours = predict(system, X)
    theirs = fuzzylite_outputs(fl, one_conclusion_per_rule(text), X)
    # Where no rule fires a weighted sum is 0 (the empty sum, as in Octave); pyfuzzylite 8
    # marks it NaN. Accept either reading there.
    for m, variable in enumerate(system.outputs):
        if variable.defuzzifier == "wtsum":
            either = np.isnan(theirs[:, m]) & (ours[:, m] == 0.0)
            theirs[either, m] = 0.0
    assert_close(ours, theirs, f"seed {seed}")


def test_every_example_reads_back_equal_from_every_format_that_holds_it():
    """Octave's and fuzzylite's Sugeno examples: FIS, FLL, JSON, TXT; refusals name the feature."""
    written = 0
    for path in octave_sugeno_examples() + fuzzylite_examples():
        try:
            system = randomts.load(path, system=True)
        except FormatError:
            continue
        for fmt in ("fis", "fll", "json", "text"):
            try:
                text = dumps(system, fmt)
            except ValueError as error:  # e.g. a Ramp in FIS, Octave's power 3 in FLL
                assert re.search(r"MATLAB has no|no MATLAB rule index|no power hedge", str(error))
                continue
            assert randomts.io.loads(text, fmt, system=True) == system, (path, fmt)
            written += 1
    if not written:
        pytest.skip("neither Octave's toolkit nor pyfuzzylite is installed")
    assert written >= 80
