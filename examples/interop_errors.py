"""Round-trip and third-party-engine errors of every file format.

Run: ``python examples/interop_errors.py`` (42 s measured on a shared 2-core machine; needs
``pip install --no-deps pyfuzzylite`` and, for the last line, GNU Octave with the
fuzzy-logic-toolkit). For 40 random models (20 rules, 3 inputs, 2 outputs; seeds 0-9, weighted
sum and average, order 0 and 1) it saves and loads each format, evaluates the FLL file with
pyfuzzylite and the FIS file with Octave's ``evalfis``, and prints the largest error relative to
the sum of absolute rule contributions ``sum_i |w_i(x) (A_i x + b_i)|`` at each point.
"""

import os
import shutil
import subprocess
import tempfile

import numpy as np

import randomts
from randomts import RuleBase
from randomts.io import dumps

CASES = [(s, n, o) for s in range(10) for n in (False, True) for o in (0, 1)]


def model(seed, normalize, order):
    rng = np.random.default_rng(seed)
    rule_base = RuleBase.random(
        3, 2, 20, normalize=normalize, random_state=rng, input_names=["x1(k)", "temp (C)", "a#b"]
    )
    scale = 10.0 ** rng.integers(-3, 4, size=(20, 2, 3))
    return rule_base.replace(
        coef=rng.standard_normal((20, 2, 3)) * scale * order, intercept=rng.standard_normal((20, 2))
    )


def inputs(seed, n_samples=500):
    return np.random.default_rng(seed + 1).normal(scale=1.5, size=(n_samples, 3))


def relative_error(other, rule_base, X):
    scale = np.abs(rule_base.contributions(X)).sum(axis=1)
    return float(np.max(np.abs(other - rule_base.predict(X)) / scale))


def main():
    try:
        import fuzzylite as fl
    except ImportError:
        fl = None
    folder = tempfile.mkdtemp()
    worst, identical = {}, {}
    script = []
    for seed, normalize, order in CASES:
        rule_base, X = model(seed, normalize, order), inputs(seed)
        name = f"m{seed}{int(normalize)}{order}"
        for fmt, extension in (("text", "txt"), ("json", "json"), ("fis", "fis"), ("fll", "fll")):
            path = os.path.join(folder, f"{name}.{extension}")
            randomts.save(rule_base, path)
            predicted = randomts.load(path).predict(X)
            worst[fmt] = max(worst.get(fmt, 0.0), relative_error(predicted, rule_base, X))
            identical[fmt] = identical.get(fmt, True) and np.array_equal(
                predicted, rule_base.predict(X)
            )
        if fl is not None:
            engine = fl.FllImporter().from_string(dumps(rule_base, "fll"))
            for variable, column in zip(engine.input_variables, X.T, strict=True):
                variable.value = column
            engine.process()
            Y = np.stack(
                [np.asarray(v.value, dtype=float) for v in engine.output_variables], axis=1
            )
            key = "pyfuzzylite reading the FLL"
            worst[key] = max(worst.get(key, 0.0), relative_error(Y, rule_base, X))
        np.savetxt(os.path.join(folder, f"{name}_in.txt"), X[:40], fmt="%.17g")
        script.append(
            f"Y = evalfis(load('{name}_in.txt'), readfis('{name}.fis')); "
            f"fid = fopen('{name}.out', 'w'); fprintf(fid, '%.17g %.17g\\n', Y'); fclose(fid);"
        )
    lines = [f"{len(CASES)} models; 500 points each (Octave: the first 40)"]
    if shutil.which("octave"):
        subprocess.run(
            [
                "octave",
                "--no-gui",
                "-q",
                "--eval",
                "pkg load fuzzy-logic-toolkit; " + " ".join(script),
            ],
            cwd=folder,
            check=True,
            capture_output=True,
        )
        key = "Octave evalfis reading the FIS"
        for seed, normalize, order in CASES:
            Y = np.loadtxt(os.path.join(folder, f"m{seed}{int(normalize)}{order}.out"), ndmin=2)
            worst[key] = max(
                worst.get(key, 0.0),
                relative_error(Y, model(seed, normalize, order), inputs(seed)[:40]),
            )
    for key, value in worst.items():
        same = f"  predictions bit-identical: {identical[key]}" if key in identical else ""
        lines.append(f"{key:32s} max relative error {value:.3g}{same}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
