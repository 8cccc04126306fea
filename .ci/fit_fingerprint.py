"""Fit a few models and print them with every digit: run in two installs, compare the texts.

CI runs this in the compiled install and in the one built without a C compiler (SciPy's
wrappers of the same LAPACK/BLAS routines): the two outputs must be identical, byte for byte,
because the same routines of the same library get the same arrays. Run both with the same
BLAS thread count (CI sets one).
"""

import numpy as np

import randomts
from randomts.io import dumps


def main():
    rng = np.random.default_rng(2024)
    X = rng.uniform([250.0, -1.0, 0.0], [350.0, 1.0, 5.0], size=(30_000, 3))
    y = np.sin(X[:, 0] / 20) * X[:, 1] + np.log1p(X[:, 2])
    Y = np.column_stack([y, np.cos(X[:, 2]) * X[:, 1]])
    models = {
        "default (Gram, alpha by leave-one-out)": randomts.RandomTSRegressor(random_state=0).fit(
            X, y
        ),
        "QR factor, two outputs, two threads": randomts.RandomTSRegressor(
            n_rules=60, alpha=0.0, n_jobs=2, random_state=1
        ).fit(X, Y),
        "cholesky": randomts.RandomTSRegressor(
            n_rules=40, solver="cholesky", alpha=1e-6, random_state=2
        ).fit(X, y),
        "interpretable": randomts.RandomTSRegressor.interpretable(random_state=3).fit(X, y),
        "classifier": randomts.RandomTSClassifier(n_rules=30, random_state=4).fit(X, y > 0.5),
    }
    streamed = randomts.RandomTSRegressor(n_rules=30, alpha=1e-8, random_state=5)
    for rows in np.array_split(np.arange(len(X)), 4):
        streamed.partial_fit(X[rows], Y[rows])
    models["partial_fit"] = streamed
    for name, model in models.items():
        print(f"# {name}")
        print(dumps(model.rule_base_, "json"), end="")
        predictions = model.predict(X[::997])
        print(" ".join(repr(float(v)) for v in np.ravel(predictions)))


if __name__ == "__main__":
    main()
