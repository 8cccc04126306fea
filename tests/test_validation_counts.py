"""Input is validated once per public call: the private cores under it trust their caller.

The count is of the calls of scikit-learn's array checks (``validate_data``
and the helpers under it: ``check_X_y``, ``check_array``, ``_check_y``,
``column_or_1d``) and of ``randomts._validation.check_matrix``, seen at
their source: a profile hook counts every call of their code objects,
however the function was imported. The budgets of scikit-learn's checks
leave room for another version of scikit-learn calling ``check_array``
once more; randomts's own checks are counted exactly.
"""

import sys
from collections import Counter
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from sklearn.utils import validation as sklearn_validation

from randomts import RandomTSClassifier, RandomTSRegressor
from randomts._validation import check_matrix

_CHECKS = {
    sklearn_validation.validate_data.__code__: "validate_data",
    sklearn_validation.check_X_y.__code__: "check_X_y",
    sklearn_validation.check_array.__code__: "check_array",
    sklearn_validation._check_y.__code__: "_check_y",
    sklearn_validation.column_or_1d.__code__: "column_or_1d",
    check_matrix.__code__: "check_matrix",
}


@contextmanager
def counted_checks():
    """The calls of the array checks made in the ``with`` block, by name."""
    counts = Counter()
    previous = sys.getprofile()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in _CHECKS:
            counts[_CHECKS[frame.f_code]] += 1

    sys.setprofile(profile)
    try:
        yield counts
    finally:
        sys.setprofile(previous)


def _data(n_rows, n_features=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(n_rows, n_features))
    return X, np.sin(X[:, 0]) * X[:, 1] + 0.05 * rng.normal(size=n_rows)


# 300 rows: fewer than the 400 unknowns of 100 rules on 3 inputs (the leave-one-out in the
# row space); 2000 rows: more (the column space, K formed in blocks)
@pytest.mark.parametrize("n_rows", [300, 2000])
@pytest.mark.parametrize(
    "params, budget",
    [
        ({}, 4),  # the defaults: rules grown where the data need them
        ({"structure": "random"}, 4),
        ({"refine": 10}, 6),  # random rules (refine reads them), refined
        ({"refine": 10, "n_rules": 6}, 6),
        ({"alpha": 1e-3, "solver": "cholesky"}, 4),
        ({"learning": "combined", "n_rules": 10, "normalize": True}, 4),
    ],
)
def test_a_fit_validates_its_data_once(n_rows, params, budget):
    X, y = _data(n_rows)
    model = RandomTSRegressor(random_state=0, **params)
    with counted_checks() as counts:
        model.fit(X, y)
    assert counts["check_matrix"] == 0
    assert sum(counts.values()) <= budget


def test_interpretable_fit_validates_once():
    X, y = _data(300)
    with counted_checks() as counts:
        RandomTSRegressor.interpretable(random_state=0).fit(X, y)
    assert counts["check_matrix"] == 0 and sum(counts.values()) <= 4
    with counted_checks() as counts:
        RandomTSRegressor(
            10, structure="random", centers="kmeans", normalize=True, learning="combined"
        ).fit(X, y)
    # k-means checks its input once more (scikit-learn's own KMeans.fit)
    assert counts["check_matrix"] == 0 and sum(counts.values()) <= 5


def test_predict_validates_at_most_once():
    X, y = _data(300)
    model = RandomTSRegressor(n_rules=20, random_state=0).fit(X, y)
    with counted_checks() as counts:
        model.predict(X)  # a finite float64 matrix of the right width: nothing to convert
    assert sum(counts.values()) == 0
    for rows in (X.tolist(), pd.DataFrame(X), X.astype(np.float32)):
        with counted_checks() as counts:
            model.predict(rows)
        assert counts["check_matrix"] == 0 and sum(counts.values()) <= 2


def test_streaming_validates_each_chunk_once():
    X, y = _data(600)
    for model in (
        RandomTSRegressor.paper(n_rules=20, alpha=1e-3, random_state=0),
        RandomTSRegressor(n_rules=20, structure="random", random_state=0),
        RandomTSRegressor(n_rules=20),  # grown on the first chunk
    ):
        with counted_checks() as counts:
            model.partial_fit(X[:300], y[:300])
        # the first chunk of alpha="auto" checks the prior it hands to the stream
        assert counts["check_matrix"] <= 1 and sum(counts.values()) <= 5
        with counted_checks() as counts:
            model.partial_fit(X[300:], y[300:])
        assert counts["check_matrix"] == 0 and sum(counts.values()) <= 4


def test_conformal_fit_validates_once():
    X, y = _data(300)
    with counted_checks() as counts:
        model = RandomTSRegressor(n_rules=20, structure="random").fit_conformalize(X, y)
    assert counts["check_matrix"] == 0 and sum(counts.values()) <= 4
    with counted_checks() as counts:
        model.predict_interval(X)
    assert sum(counts.values()) == 0


def test_the_classifier_validates_once():
    X, y = _data(300)
    labels = np.where(y > 0, "up", "down")
    model = RandomTSClassifier(random_state=0)
    with counted_checks() as counts:
        model.fit(X, labels)
    # the labels go through scikit-learn's own path (check_X_y, _check_y, column_or_1d: a
    # column vector of labels warns as scikit-learn's classifiers do) and are read once more
    # by check_classification_targets
    assert counts["check_matrix"] == 0 and sum(counts.values()) <= 8
    for method in (model.predict, model.predict_proba, model.decision_function):
        with counted_checks() as counts:
            method(X)
        assert sum(counts.values()) == 0


def test_the_counter_sees_checks_however_they_are_imported():
    from randomts._validation import check_matrix as imported

    with counted_checks() as counts:
        imported(np.zeros((2, 2)))
        sklearn_validation.check_array(np.zeros((2, 2)))
    assert counts == {"check_matrix": 1, "check_array": 1}
