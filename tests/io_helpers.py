"""Helpers shared by the text, I/O and engine tests (not a test module)."""

import numpy as np

from randomts import RuleBase

NAMES = ["x1(k)", "temp (C)", "a#b"]  # a plain name, one with a space, one with a comment sign


def random_model(seed, n_rules=6, n_features=3, n_outputs=2, normalize=False, order=1, spread=6):
    """Random antecedents and consequents; slopes span ``10**-spread .. 10**spread``."""
    rng = np.random.default_rng(seed)
    rule_base = RuleBase.random(
        n_features,
        n_outputs,
        n_rules,
        normalize=normalize,
        random_state=rng,
        input_names=NAMES[:n_features],
    )
    scale = 10.0 ** rng.integers(-spread, spread + 1, size=(n_rules, n_outputs, n_features))
    coef = rng.standard_normal((n_rules, n_outputs, n_features)) * scale * order
    return rule_base.replace(
        coef=coef, intercept=rng.standard_normal((n_rules, n_outputs)), metadata={"seed": seed}
    )


def relative_error(other, rule_base, X):
    """max |other - prediction| relative to the sum of absolute rule contributions (its scale)."""
    scale = np.abs(rule_base.contributions(X)).sum(axis=1)
    error = np.abs(other - rule_base.predict(X))
    return float(np.max(error / np.maximum(scale, np.finfo(float).tiny)))


def fuzzylite_outputs(engine, X):
    """Outputs of a pyfuzzylite engine for every row of ``X``."""
    for variable, column in zip(engine.input_variables, X.T, strict=True):
        variable.value = column
    engine.process()
    return np.stack([np.asarray(v.value, dtype=float) for v in engine.output_variables], axis=1)
