"""Models that the C and ONNX exports are tested on, the rows they are evaluated at, the tolerance.

Each exported model computes what randomts's predict computes, in float64,
with the same formula and the same order of the sums over inputs; only the
order of the sums over rules (NumPy's matrix product against a loop, or the
runtime's reduction) differs. Each such sum of ``n_rules`` terms is exact to
``n_rules * eps`` times the sum of their absolute values, and so is ``exp`` of a
log strength to a few ulps; with at most 40 rules and sums whose absolute terms
stay within 1e3 times the output's scale on these models, the outputs agree to
about 1e-11 of that scale. ``close`` asks for 1e-9, relative to each output and
to the largest output on the data, which leaves two decades of margin and still
catches any wrong term (a changed weight, centre, width or slope moves the
output by far more).
"""

import os
import shutil
import subprocess

import numpy as np
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from randomts import FuzzySystem, NARXRegressor, RandomTSClassifier, RandomTSRegressor, RuleBase

TOLERANCE = 1e-9

COMPILER = next((shutil.which(c) for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
NO_COMPILER = "no C compiler (cc, gcc or clang) on the PATH"
FLAGS = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-O2"]


def gcc_or_clang():
    """Whether COMPILER is GCC or Clang (whose warnings the tests know), from its --version."""
    if COMPILER is None:
        return False
    result = subprocess.run([COMPILER, "--version"], capture_output=True, text=True)
    text = result.stdout.lower()
    return "free software foundation" in text or "clang" in text


def compile_c(source, folder, name, *extra):
    """Build ``source`` into the program ``folder/name``; its path and the compiler's messages."""
    path = os.path.join(folder, f"{name}.c")
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(source)
    program = os.path.join(folder, name)
    result = subprocess.run(
        [COMPILER, *FLAGS, *extra, path, "-o", program, "-lm"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return program, result.stderr


def run_program(program, text):
    """Run ``program`` with ``text`` on stdin."""
    return subprocess.run([program], input=text, capture_output=True, text=True)


def csv(X):
    """Rows as the C program reads them: every digit."""
    return "".join(",".join(repr(float(v)) for v in row) + "\n" for row in X)


def training_data():
    """Two inputs on different scales, so that a standardisation matters."""
    rng = np.random.default_rng(7)
    X = np.column_stack([rng.uniform(250, 350, 300), rng.uniform(-1, 1, 300)])
    y = np.sin(X[:, 0] / 20) * X[:, 1] + 0.01 * rng.normal(size=300)
    return X, y


def rows(X):
    """Rows to compare at: some of the data, points between, and points far from every rule."""
    rng = np.random.default_rng(8)
    low, high = X.min(axis=0), X.max(axis=0)
    span = high - low
    inside = rng.uniform(low, high, size=(20, X.shape[1]))
    far = np.array(
        [
            high + 50 * span,  # strengths underflow in the weighted sum: 0
            low - 1e3 * span,
            np.full(X.shape[1], 1e200),  # every log strength overflows to -inf
            np.where(np.arange(X.shape[1]) % 2, -1e200, 1e200),
        ]
    )
    return np.vstack([X[:10], inside, far])


def models():
    """``(name, model, predict, X)``: a model to export, what its export must compute, and where."""
    X, y = training_data()
    two = np.column_stack([y, np.cos(X[:, 0] / 30) - X[:, 1] ** 2])
    labels3 = np.where(y > 0.3, "high", np.where(y < -0.3, "low", "mid"))
    found = [
        ("default", RandomTSRegressor().fit(X, y)),  # rules grown where the data need them
        ("random rules", RandomTSRegressor(random_state=0, structure="random").fit(X, y)),
        ("grown, two outputs", RandomTSRegressor(n_rules=30).fit(X, two)),
        ("interpretable", RandomTSRegressor.interpretable(random_state=0).fit(X, y)),
        (
            "two outputs",
            RandomTSRegressor(n_rules=30, random_state=1, structure="random").fit(X, two),
        ),
        (
            "order 0",
            RandomTSRegressor(n_rules=30, order=0, random_state=2, structure="random").fit(X, y),
        ),
        (
            "weighted sum",
            RandomTSRegressor(
                n_rules=25, structure="random", normalize=False, alpha=1e-6, random_state=3
            ).fit(X, y),
        ),
        (
            "weighted average",
            RandomTSRegressor(n_rules=25, structure="random", normalize=True, random_state=4).fit(
                X, two
            ),
        ),
        (
            "average, order 0",
            RandomTSRegressor(
                n_rules=20, structure="random", normalize=True, order=0, random_state=5
            ).fit(X, y),
        ),
        (
            "classifier, 2 classes",
            RandomTSClassifier(n_rules=20, random_state=0, structure="random").fit(X, y > 0),
        ),
        (
            "classifier, 3 classes",
            RandomTSClassifier.interpretable(random_state=0).fit(X, labels3),
        ),
        (
            "pipeline",
            make_pipeline(
                StandardScaler(), RandomTSRegressor(n_rules=20, random_state=6, structure="random")
            ).fit(X, y),
        ),
    ]
    at = rows(X)
    out = [(name, model, _reference(model), at) for name, model in found]
    rule_base = RuleBase.random(n_features=2, n_outputs=2, n_rules=8, random_state=3).replace(
        coef=np.random.default_rng(3).normal(size=(8, 2, 2)),
        intercept=np.random.default_rng(4).normal(size=(8, 2)),
        input_names=["speed (m/s)", 'say "hi"'],
        output_names=["a,b", "ü"],
    )
    system = FuzzySystem.from_rule_base(rule_base.replace(normalize=True))
    around = rows(np.random.default_rng(5).normal(scale=2.0, size=(300, 2)))  # its centres
    out += [
        ("rule base", rule_base, rule_base.predict, around),
        ("fuzzy system", system, system.predict, around),
        ("narx", *_narx()),
    ]
    return out


def _reference(model):
    if hasattr(model, "decision_function"):
        return lambda X: _two_d(model.decision_function(X))
    return lambda X: _two_d(model.predict(X))


def _two_d(Y):
    return Y.reshape(len(Y), -1)


def _narx():
    """A NARX model: its export is the one-step map from the regressors, its estimator's predict."""
    rng = np.random.default_rng(9)
    u = rng.uniform(-1, 1, 400)
    y = np.zeros(400)
    for k in range(2, 400):
        y[k] = 0.6 * y[k - 1] - 0.1 * y[k - 2] + np.sin(u[k - 1])
    model = NARXRegressor(
        y_lags=2,
        u_lags=1,
        estimator=RandomTSRegressor(n_rules=15, structure="random", random_state=0),
    )
    model.fit(u, y)
    R, _ = model.regressors(u, y)
    return model, lambda R: _two_d(model.estimator_.predict(R)), rows(R)


def labels_of(model):
    """What a classifier predicts (else None), as the C program prints it."""
    return getattr(model, "classes_", None)


def decided(expected):
    """The rows whose label ``expected`` (a classifier's decision values) fixes beyond TOLERANCE.

    A label is the sign of a two-class decision, the largest of several
    otherwise; where they tie to within the tolerance that
    :func:`assert_close` allows, another engine's rounding may choose the
    other class.
    """
    expected = np.asarray(expected, dtype=float)
    scale = np.abs(expected[:30]).max()
    if expected.shape[1] == 1:
        margin = np.abs(expected[:, 0])
    else:
        top = np.sort(expected, axis=1)
        margin = top[:, -1] - top[:, -2]
    return margin > 2 * TOLERANCE * (np.abs(expected).max(axis=1) + scale)


def assert_close(found, expected):
    """``found`` within TOLERANCE of ``expected``, relative to each value and to the largest
    output on the rows that are not far away (the first 30 of :func:`rows`)."""
    found, expected = np.asarray(found, dtype=float), np.asarray(expected, dtype=float)
    scale = np.abs(expected[:30]).max()
    assert found.shape == expected.shape
    assert np.all(np.isfinite(found) == np.isfinite(expected))
    np.testing.assert_allclose(found, expected, rtol=TOLERANCE, atol=TOLERANCE * scale)
