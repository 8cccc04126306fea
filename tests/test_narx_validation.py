"""NARXRegressor checks its records once per call, and fits each candidate's regressor once.

The array validations counted are scikit-learn's ``check_array`` and randomts's
``check_matrix``, by the code object that runs (whatever name a module imported
them under), split between those inside ``RandomTSRegressor.fit`` and the rest.
"""

import sys

import numpy as np
import pytest
import sklearn.utils.validation

from randomts import NARXRegressor, RandomTSRegressor
from randomts._validation import check_matrix

VALIDATIONS = {sklearn.utils.validation.check_array.__code__, check_matrix.__code__}


class Counter:
    """Array validations during a call, and those inside the regressor's fits.

    A fit is a call of the regressor's checked fit, the one of ``fit`` and
    of the fits of NARX's candidates (``fit_quietly``).
    """

    def __init__(self):
        self.fit_code = RandomTSRegressor._fit_checked.__code__
        self.total = self.in_fits = self.fits = self.depth = 0

    def __call__(self, frame, event, arg):
        if event == "call":
            if frame.f_code is self.fit_code:
                self.depth += 1
                self.fits += 1
            elif frame.f_code in VALIDATIONS:
                self.total += 1
                self.in_fits += self.depth > 0
        elif event == "return" and frame.f_code is self.fit_code:
            self.depth -= 1

    def count(self, function, *args, **kwargs):
        previous = sys.getprofile()
        sys.setprofile(self)
        try:
            return function(*args, **kwargs)
        finally:
            sys.setprofile(previous)


def record(n=600, seed=0):
    rng = np.random.default_rng(seed)
    u = rng.uniform(-1, 1, n)
    y = np.zeros(n)
    for k in range(2, n):
        y[k] = 0.6 * y[k - 1] - 0.1 * y[k - 2] + np.tanh(u[k - 1]) + 0.3 * u[k - 2] * y[k - 1]
    return u, y + 0.02 * rng.normal(size=n)


def test_the_counter_sees_validations_inside_and_outside_the_regressors_fit():
    X = np.random.default_rng(0).normal(size=(50, 2))
    counter = Counter()
    counter.count(RandomTSRegressor(n_rules=3, random_state=0, structure="random").fit, X, X[:, 0])
    counter.count(check_matrix, X)
    assert counter.fits == 1 and counter.in_fits >= 1
    assert counter.total - counter.in_fits == 1


def test_a_default_fit_reads_its_records_once_and_fits_each_candidate_once():
    u, y = record()
    counter = Counter()
    model = counter.count(NARXRegressor(y_lags=2, u_lags=2, random_state=0).fit, u, y)
    assert model.selection_errors_.shape == (6, 5)  # six candidates, five blocks
    # one one-step fit per candidate of rules, the polynomial one's included (the blocks share
    # its rules and their factors; the model of the inputs alone is a least squares of its
    # own), and the one kept fitted again on every record whole
    assert counter.fits == 5 + 1
    # the records read once (u, y), the rules kept built once, the linear fallback once, the
    # antecedents of the blocks of each candidate of combined learning (the clustered and the
    # grown rules) once: 14 measured
    assert counter.total - counter.in_fits <= 14
    # with the regressor's own checks (once per fit): 21 measured
    assert counter.total <= 40


@pytest.mark.parametrize("method", ["predict", "simulate"])
def test_predict_and_simulate_check_the_records_once(method):
    u, y = record(n=300)
    model = NARXRegressor(
        y_lags=2,
        u_lags=2,
        estimator=RandomTSRegressor(n_rules=10, structure="random"),
        random_state=0,
    ).fit(u, y)
    counter = Counter()
    second = y[:2] if method == "simulate" else y
    counter.count(getattr(model, method), u, second)
    assert counter.total == 2  # u and y, once
    outputs = [y[:2], y[150:152]] if method == "simulate" else [y[:150], y[150:]]
    counter = Counter()
    counter.count(getattr(model, method), [u[:150], u[150:]], outputs)
    assert counter.total == 4  # two records, once each


def test_score_checks_the_records_once_and_sklearn_its_two_columns():
    u, y = record(n=300)
    model = NARXRegressor(
        y_lags=2,
        u_lags=2,
        estimator=RandomTSRegressor(n_rules=10, structure="random"),
        focus="prediction",
    ).fit(u, y)
    counter = Counter()
    counter.count(model.score, u, y)
    assert counter.total == 4  # u and y once, and r2_score's own checks of its two arrays
