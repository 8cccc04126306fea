"""Whether a rule says what its model does, and what its data do, where the rule lives.

A rule's ``THEN`` part, evaluated at the rule's own centre ``c``, is what a
reader takes the rule to say there. :func:`rule_agreement` sets it beside

- the **model's** prediction at ``c`` (all rules together), and
- the **data's** value there: the mean of ``y`` over the
  :data:`NEAREST_ROWS` training rows nearest ``c`` (distances scaled by each
  input's standard deviation; rows tied with the last one count too), with
  its standard error,

both in standard deviations of ``y``, and marks the inputs whose Gaussian
width exceeds the data's range. A rule whose ``THEN`` part lies more than
:data:`TOLERANCE` standard deviations from the model's prediction does not
say what its model does where it lives: in a weighted sum its ``THEN`` part
is a term of a sum, and with many rules such terms are large and of both
signs. From the data it disagrees when it lies beyond :data:`TOLERANCE`
and beyond :data:`NOISE_FACTOR` standard errors of the data's mean: a mean
of a few noisy rows is itself uncertain (by about the noise over
``sqrt(NEAREST_ROWS)``), and a distance within that uncertainty is not
evidence that the rule is wrong.

A general :class:`~randomts.FuzzySystem` names no centre: its rules are
checked where they fire, each figure a mean over the training rows weighted
by the rule's degree on them.

Examples
--------
>>> import numpy as np
>>> from randomts import RuleBase
>>> X = np.linspace(-1, 1, 41)[:, None]; y = X[:, 0].copy()
>>> honest = RuleBase(centers=[[-0.5], [0.5]], sigmas=[[0.3], [0.3]], normalize=True,
...                   coef=[[[1.0]], [[1.0]]])
>>> found = rule_agreement(honest, X, y)
>>> float(np.abs(found.from_model).max()) < 0.01, float(np.abs(found.from_data).max()) < 0.01
(True, True)
>>> found.flagged
array([False, False])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from randomts._validation import check_matrix
from randomts.core.membership import UNTESTED_WIDTH

__all__ = ["NEAREST_ROWS", "NOISE_FACTOR", "TOLERANCE", "RuleAgreement", "rule_agreement"]

#: Training rows averaged for the data's value at a rule's centre.
NEAREST_ROWS = 10
#: Distance, in standard deviations of ``y``, beyond which a rule's ``THEN`` part disagrees.
TOLERANCE = 0.25
#: Standard errors of the data's mean within which a rule's ``THEN`` part does not disagree
#: with the data (about a two-sided 95 % band).
NOISE_FACTOR = 2.0


@dataclass(frozen=True)
class RuleAgreement:
    """What :func:`rule_agreement` found, rule by rule (arrays indexed by rule, then output).

    Attributes
    ----------
    at_center : ndarray of shape (n_rules, n_outputs)
        The rule's ``THEN`` part at its own centre (a general system: its
        mean where the rule fires; NaN for an output it does not conclude).
    model : ndarray of shape (n_rules, n_outputs)
        The model's prediction at the rule's centre (or where it fires).
    data : ndarray of shape (n_rules, n_outputs)
        The mean of ``y`` over the training rows nearest the centre (or
        weighted by the rule's degree on them).
    data_error : ndarray of shape (n_rules, n_outputs)
        The standard error of ``data``: the standard deviation of those
        rows' ``y`` over the square root of their number.
    from_model, from_data : ndarray of shape (n_rules, n_outputs)
        ``at_center - model`` and ``at_center - data``, in standard deviations of ``y``.
    off_model : ndarray of bool, shape (n_rules, n_outputs)
        ``|from_model| > TOLERANCE``.
    off_data : ndarray of bool, shape (n_rules, n_outputs)
        ``|from_data| > TOLERANCE`` and ``|at_center - data| > NOISE_FACTOR *
        data_error``: farther from the data than the data's own
        uncertainty.
    too_wide : ndarray of bool, shape (n_rules, n_features)
        Inputs whose width (standard deviation) exceeds the data's range; a
        set that holds every value (an input no rule tests) is not one.
    flagged : ndarray of bool, shape (n_rules,)
        Rules off the model or off the data for some output, or with an
        input too wide.
    """

    at_center: np.ndarray
    model: np.ndarray
    data: np.ndarray
    data_error: np.ndarray
    from_model: np.ndarray
    from_data: np.ndarray
    off_model: np.ndarray
    off_data: np.ndarray
    too_wide: np.ndarray
    flagged: np.ndarray

    #: The distance, in standard deviations of ``y``, beyond which a ``THEN`` part disagrees.
    tolerance = TOLERANCE
    #: The standard errors of the data's mean within which it does not disagree with the data.
    noise_factor = NOISE_FACTOR


def rule_agreement(model, X, y):
    """Each rule's ``THEN`` part beside the model's prediction and the data where the rule lives.

    For a :class:`~randomts.RuleBase`, where a rule lives is its centre
    ``c``, the point its text names (``x is about c``): its ``THEN`` part at
    ``c``, the model's prediction at ``c``, and the mean of ``y`` over the
    :data:`NEAREST_ROWS` training rows nearest ``c``. For any other
    Takagi-Sugeno system (a :class:`~randomts.FuzzySystem`: terms of any
    shape, rules that use some inputs), it is where the rule fires on the
    data: each figure is a mean over the training rows weighted by the rule's
    degree there (its ``THEN`` part's value, the model's prediction and
    ``y``), and the data's standard error is that of a weighted mean. A rule
    that does not conclude an output has NaN there, and one that fires on no
    row has NaN everywhere and is flagged.

    Parameters
    ----------
    model : RuleBase or FuzzySystem
        The rules: a rule base's centres, widths and consequents are read; a
        general system is asked its ``firing_strengths``, ``rule_outputs``
        and ``predict``.
    X : array-like of shape (n_samples, n_features)
        The training inputs.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        The training targets.

    Returns
    -------
    RuleAgreement

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> X = np.linspace(-1, 1, 41)[:, None]; y = X[:, 0].copy()
    >>> summed = RuleBase(centers=[[-0.5], [0.5]], sigmas=[[5.0], [5.0]],
    ...                   intercept=[[-3.0], [3.0]])  # a weighted sum of wide rules
    >>> found = rule_agreement(summed, X, y)
    >>> found.flagged, found.too_wide[:, 0]
    (array([ True,  True]), array([ True,  True]))

    A hand-made system whose second rule says ``y = 2`` where the data say
    ``y`` is about ``0.7``:

    >>> from randomts import FuzzySystem
    >>> from randomts.fuzzy import InputVariable, OutputVariable
    >>> from randomts.fuzzy.terms import Constant, Ramp
    >>> system = FuzzySystem(
    ...     [InputVariable("x", {"low": Ramp(0, -1), "high": Ramp(0, 1)}, range=(-1, 1))],
    ...     [OutputVariable("y", {"minus": Constant(-0.7), "two": Constant(2.0)}, range=(-1, 2))],
    ...     ["if x is low then y is minus", "if x is high then y is two"])
    >>> found = rule_agreement(system, X, y)
    >>> found.data.round(2).ravel().tolist(), found.flagged.tolist()
    ([-0.68, 0.68], [False, True])
    """
    rule_base = hasattr(model, "centers")  # else a general system, by what it answers
    owner = "the rule base" if rule_base else "the system"
    X = check_matrix(X, "X", n_columns=model.n_features, owner=owner)
    Y = check_matrix(y, "y", allow_1d=True, column_label="outputs")
    if Y.shape != (X.shape[0], model.n_outputs):
        raise ValueError(
            f"y must have {X.shape[0]} rows (those of X) and {model.n_outputs} output(s); "
            f"got shape {np.shape(y)}."
        )
    if rule_base:
        at_center, predicted, data, data_error = _at_centers(model, X, Y)
        # a set that holds every value tests nothing: it is not a width to check
        too_wide = (model.sigmas > (X.max(axis=0) - X.min(axis=0))) & (
            model.sigmas < UNTESTED_WIDTH
        )
    else:
        at_center, predicted, data, data_error = _where_fired(model, X, Y)
        too_wide = np.zeros((model.n_rules, model.n_features), dtype=bool)
    sd = Y.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    from_model = (at_center - predicted) / sd
    from_data = (at_center - data) / sd
    off_model = np.abs(from_model) > TOLERANCE
    off_data = (np.abs(from_data) > TOLERANCE) & (
        np.abs(at_center - data) > NOISE_FACTOR * data_error
    )
    never_fired = np.isnan(data).all(axis=1)
    flagged = off_model.any(axis=1) | off_data.any(axis=1) | too_wide.any(axis=1) | never_fired
    return RuleAgreement(
        at_center,
        predicted,
        data,
        data_error,
        from_model,
        from_data,
        off_model,
        off_data,
        too_wide,
        flagged,
    )


def _at_centers(rule_base, X, Y):
    """A rule base's figures at its centres: ``THEN`` part, model, data and its standard error."""
    centers = rule_base.centers
    at_center = np.einsum("imk,ik->im", rule_base.coef, centers) + rule_base.intercept
    predicted = rule_base.predict(centers)
    spread = X.std(axis=0)
    scale = np.where(spread > 0, spread, 1.0)
    k = min(NEAREST_ROWS, X.shape[0])
    data = np.empty_like(at_center)
    data_error = np.zeros_like(at_center)
    for i, center in enumerate(centers):
        distance = (((X - center) / scale) ** 2).sum(axis=1)
        # the k nearest rows and any tied with the k-th: no row is chosen among equals
        nearest = distance <= np.partition(distance, k - 1)[k - 1]
        rows = Y[nearest]
        data[i] = rows.mean(axis=0)
        if rows.shape[0] > 1:
            data_error[i] = rows.std(axis=0, ddof=1) / np.sqrt(rows.shape[0])
    return at_center, predicted, data, data_error


def _where_fired(system, X, Y):
    """A general system's figures as means weighted by each rule's degree on the rows."""
    degrees = system.firing_strengths(X)  # (n_samples, n_rules)
    # only the rows where some rule fires weigh (the model has no output where none does)
    rows = degrees.sum(axis=1) > 0
    X, Y, degrees = X[rows], Y[rows], degrees[rows]
    outputs = system.rule_outputs(X)  # (n_samples, n_rules, n_outputs), NaN: no conclusion
    predicted_rows = system.predict(X)
    total = degrees.sum(axis=0)  # (n_rules,)
    fired = total > 0
    share = np.divide(degrees, total, out=np.zeros_like(degrees), where=fired)
    with np.errstate(invalid="ignore"):
        at_rule = np.einsum("nr,nrm->rm", share, np.where(share[:, :, None] > 0, outputs, 0.0))
        concludes = ~np.isnan(outputs).all(axis=0)  # (n_rules, n_outputs)
        at_rule = np.where(concludes & fired[:, None], at_rule, np.nan)
        predicted = np.where(fired[:, None], share.T @ predicted_rows, np.nan)
        data = np.where(fired[:, None], share.T @ Y, np.nan)
        # the standard error of a weighted mean: sqrt(sum w^2 (y - mean)^2) / sum w
        squares = np.einsum("nr,nrm->rm", share**2, (Y[:, None, :] - data[None, :, :]) ** 2)
        data_error = np.where(fired[:, None], np.sqrt(squares), np.nan)
    return at_rule, predicted, data, data_error
