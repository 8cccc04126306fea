"""Why a prediction came out as it did: the rules that fire and their shares.

For one input ``x`` the output of a Takagi-Sugeno model is a sum over its
rules, :math:`y(x) = \\sum_i c_i(x)`, the contributions of the rules
(``model.contributions``). For a :class:`~randomts.RuleBase`

.. math:: c_i(x) = \\tilde w_i(x)\\,(A_i x + b_i),

with :math:`\\tilde w_i = w_i` (weighted sum) or :math:`\\tilde w_i = w_i /
\\sum_l w_l` (weighted average); for a :class:`~randomts.FuzzySystem`, the
rule's degree (or its part of its term's aggregated degree) times its term's
value, over the sum of the degrees for a weighted average
(:meth:`FuzzySystem.contributions <randomts.FuzzySystem.contributions>`).
:func:`explain` lists the rules by their share of the output with their
contributions :math:`c_i`; the rules not listed are summed into one
remainder, so the listed contributions plus the remainder add up to the
prediction (to rounding: within ``1e-12`` of ``sum_i |c_i|``). A model that
holds its ranges (``lock_range``) is explained at ``x`` held in its input
ranges; where it also holds the output at its range, the prediction is that
bound and the contributions add up to the rules' output before it.

A rule's **share** is its contribution over the total absolute contribution,
:math:`s_i = c_i / \\sum_l |c_l|` (per output): signed, and the shares of the
listed rules and the share of the rest (:math:`\\sum_{\\text{rest}} |c_l| /
\\sum_l |c_l|`) add up to 1 in absolute value.

The model explained is any model of the analysis protocol
(:class:`~randomts.analysis.protocol.RuleModel`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from randomts._validation import check_int, check_matrix, check_option
from randomts.text import TABLE_FORMATS, format_name, format_number, render_table

__all__ = ["Explanation", "explain"]


@dataclass(frozen=True)
class Explanation:
    """The rules behind one prediction.

    Attributes
    ----------
    x : ndarray of shape (n_features,)
        The input explained.
    rules : ndarray of int, shape (k,)
        The listed rules (0-based), largest absolute share first.
    strengths : ndarray of shape (k,)
        Their raw firing strengths ``w_i(x)`` (``firing_strengths(X,
        normalize=False)``: the product of a RuleBase's Gaussian memberships,
        a FuzzySystem rule's weight times its antecedent).
    normalized_strengths : ndarray of shape (k,)
        ``w_i / sum_l w_l`` over **all** rules.
    rule_outputs : ndarray of shape (k, n_outputs)
        Their consequents (``A_i x + b_i`` in a RuleBase; NaN for an output a
        FuzzySystem's rule does not conclude).
    contributions : ndarray of shape (k, n_outputs)
        Their contributions ``c_i`` to the output (``model.contributions``:
        they and ``remainder`` sum to ``prediction``, unless the model holds
        the output at its range: see the module docstring).
    shares : ndarray of shape (k, n_outputs)
        Their contributions divided by the sum of the absolute contributions
        of all rules, ``c_i / sum_l |c_l|``: signed, in [-1, 1] (zeros for an
        output whose contributions are all zero).
    remainder : ndarray of shape (n_outputs,)
        The summed contributions of the rules not listed (zeros if all are).
    remainder_share : ndarray of shape (n_outputs,)
        The absolute contributions of the rules not listed over the same sum,
        so that ``abs(shares).sum(axis=0) + remainder_share`` is 1.
    prediction : ndarray of shape (n_outputs,)
        The model's output at ``x`` (``model.predict``).
    input_names, output_names : tuple of str
        Variable names.
    n_rules : int
        Number of rules in the model.
    normalize : bool or None
        Weighted average (True) or weighted sum (False); None when the
        outputs of a FuzzySystem mix the two.
    interval : (ndarray, ndarray) of shape (n_outputs,) each, or None
        Lower and upper bounds of a prediction interval at ``x``, when the
        model has one (a fitted estimator's ``explain`` after
        ``fit_conformalize`` or ``conformalize``; see :meth:`with_interval`).
    coverage : float or None
        The interval's nominal coverage.
    interval_method : str or None
        How the interval was made (``"jackknife+"``, ``"split"``).
    """

    x: np.ndarray
    rules: np.ndarray
    strengths: np.ndarray
    normalized_strengths: np.ndarray
    rule_outputs: np.ndarray
    contributions: np.ndarray
    shares: np.ndarray
    remainder: np.ndarray
    remainder_share: np.ndarray
    prediction: np.ndarray
    input_names: tuple
    output_names: tuple
    n_rules: int
    normalize: bool
    interval: tuple | None = None
    coverage: float | None = None
    interval_method: str | None = None

    def with_interval(self, lower, upper, coverage, method):
        """This explanation with a prediction interval at ``x``.

        Parameters
        ----------
        lower, upper : array-like of shape (n_outputs,)
            The bounds.
        coverage : float
            Their nominal coverage.
        method : str
            How they were made, e.g. ``"jackknife+"``.

        Returns
        -------
        Explanation

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
        >>> e = explain(rb, [0.0]).with_interval([1.5], [2.5], 0.9, "split")
        >>> print(e.to_text().splitlines()[0])
        x1 = 0: y = 2, 90% interval [1.5, 2.5] (split) (weighted sum of 1 rules)
        """
        n_outputs = len(self.output_names)
        lower = check_matrix(lower, "lower", ndim=1, n_columns=n_outputs, owner="the model")
        upper = check_matrix(upper, "upper", ndim=1, n_columns=n_outputs, owner="the model")
        return dataclasses.replace(
            self, interval=(lower, upper), coverage=float(coverage), interval_method=str(method)
        )

    def to_table(self, fmt="plain", precision=4) -> str:
        """The explanation as a table: one row per listed rule, then the rest and the total.

        Columns: ``rule``, ``w`` (firing strength), ``w/sum(w)``, and for each
        output ``y``: ``y: rule`` (the rule's consequent, ``A_i x + b_i`` in a
        RuleBase; empty where a rule does not conclude ``y``),
        ``y: contribution`` (``w (A_i x + b_i)`` in a RuleBase, with ``w``
        normalised for a weighted average) and ``y: share`` (the
        contribution over the sum of the absolute contributions, ``shares``).

        Parameters
        ----------
        fmt : str, default="plain"
            A tabulate format (:data:`randomts.text.tables.TABLE_FORMATS`).
        precision : int or None, default=4
            Significant digits; None for lossless ``repr``.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0], [2.0]], sigmas=[[1.0], [1.0]], intercept=[[1.0], [5.0]])
        >>> print(explain(rb, [2.0], top=1).to_table(fmt="github"))
        | rule          |   w |   w/sum(w) |   y: rule |   y: contribution |   y: share |
        |---------------|-----|------------|-----------|-------------------|------------|
        | R2            |   1 |     0.8808 |         5 |                 5 |     0.9736 |
        | 1 other rules |     |            |           |            0.1353 |    0.02635 |
        | total         |     |            |           |             5.135 |            |
        """
        check_option(fmt, "fmt", TABLE_FORMATS)
        number = lambda v: format_number(v, precision)  # noqa: E731
        headers = ["rule", "w", "w/sum(w)"]
        for out in self.output_names:
            headers += [f"{format_name(out)}: {h}" for h in ("rule", "contribution", "share")]
        rows = []
        for k, index in enumerate(self.rules):
            row = [f"R{index + 1}", number(self.strengths[k]), number(self.normalized_strengths[k])]
            for m in range(len(self.output_names)):
                consequent = self.rule_outputs[k, m]
                row += [
                    "" if np.isnan(consequent) else number(consequent),
                    number(self.contributions[k, m]),
                    number(self.shares[k, m]),
                ]
            rows.append(row)
        hidden = self.n_rules - len(self.rules)
        if hidden:
            row = [f"{hidden} other rules", "", ""]
            for value, share in zip(self.remainder, self.remainder_share, strict=True):
                row += ["", number(value), number(share)]
            rows.append(row)
        row = ["total", "", ""]
        for value in self.prediction:
            row += ["", number(value), ""]
        rows.append(row)
        return render_table(headers, rows, fmt)

    def to_text(self, fmt="plain", precision=4) -> str:
        """A one-line summary of the prediction followed by :meth:`to_table`.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0], [2.0]], sigmas=[[1.0], [1.0]],
        ...               coef=[[[1.0]], [[0.0]]], intercept=[[0.0], [5.0]])
        >>> print(explain(rb, [1.0]).to_text())
        x1 = 1: y = 3.639 (weighted sum of 2 rules)
        rule         w    w/sum(w)    y: rule    y: contribution    y: share
        R2      0.6065         0.5          5              3.033      0.8333
        R1      0.6065         0.5          1             0.6065      0.1667
        total                                              3.639
        """
        mode = {True: "weighted average", False: "weighted sum"}.get(
            self.normalize, "weighted sums and averages"
        )
        where = ", ".join(
            f"{format_name(n)} = {format_number(v, precision)}"
            for n, v in zip(self.input_names, self.x, strict=True)
        )
        outputs = [
            f"{format_name(n)} = {format_number(v, precision)}"
            for n, v in zip(self.output_names, self.prediction, strict=True)
        ]
        if self.interval is not None:
            percent = format_number(100 * self.coverage, precision)
            outputs = [
                f"{text}, {percent}% interval [{format_number(low, precision)}, "
                f"{format_number(high, precision)}]"
                for text, low, high in zip(outputs, *self.interval, strict=True)
            ]
            mode = f"{self.interval_method}) ({mode}"
        summary = f"{where}: {', '.join(outputs)} ({mode} of {self.n_rules} rules)"
        return summary + "\n" + self.to_table(fmt, precision)

    def __str__(self) -> str:
        return self.to_text()


def explain(model, x, top=None) -> Explanation:
    """Explain the prediction of ``model`` at one input ``x``.

    Parameters
    ----------
    model : RuleBase or FuzzySystem
        Any model of the analysis protocol (see the module docstring).
    x : array-like of shape (n_features,) or (1, n_features), dict, Series or DataFrame
        One input: values in the order of the model's ``input_names``, or a
        dict, a pandas Series or a one-row DataFrame whose names are exactly
        the input names (in any order).
    top : int, optional
        List only the ``top`` rules with the largest shares of the output
        (absolute contributions over their sum, added over the outputs; ties
        by firing strength, then in rule order); the others are summed into
        ``Explanation.remainder``, with their share in
        ``Explanation.remainder_share``. None lists every rule, in that
        order.

    Returns
    -------
    Explanation

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import FuzzySystem, RuleBase
    >>> rb = RuleBase.random(n_features=2, n_rules=6, random_state=0).replace(
    ...     intercept=np.arange(6.0).reshape(6, 1))
    >>> e = explain(rb, [0.2, -0.1], top=2)
    >>> e.rules.shape, e.contributions.shape
    ((2,), (2, 1))
    >>> total = e.contributions.sum(axis=0) + e.remainder
    >>> bool(np.allclose(total, e.prediction, rtol=1e-12))
    True
    >>> bool(np.isclose(np.abs(e.shares).sum() + e.remainder_share[0], 1.0))
    True
    >>> explain(rb, {"x2": -0.1, "x1": 0.2}, top=2).rules.tolist() == e.rules.tolist()
    True

    Any Sugeno system answers the same way:

    >>> general = explain(FuzzySystem.from_rule_base(rb), [0.2, -0.1], top=2)
    >>> general.rules.tolist() == e.rules.tolist()
    True
    >>> bool(np.allclose(general.contributions, e.contributions, rtol=1e-12))
    True
    """
    x = _one_input(model, x)
    X = x[None, :]
    if top is not None:
        top = min(check_int(top, "top", low=1), model.n_rules)
    raw = model.firing_strengths(X, normalize=False)[0]
    normalized = model.firing_strengths(X, normalize=True)[0]
    outputs = model.rule_outputs(X)[0]
    contributions = model.contributions(X)[0]
    total = np.abs(contributions).sum(axis=0)
    shares = np.divide(contributions, total, out=np.zeros_like(contributions), where=total > 0)
    order = np.lexsort((-normalized, -np.abs(shares).sum(axis=1)))  # last key first; stable
    cut = model.n_rules if top is None else top
    shown, hidden = order[:cut], order[cut:]
    return Explanation(
        x=x,
        rules=shown,
        strengths=raw[shown],
        normalized_strengths=normalized[shown],
        rule_outputs=outputs[shown],
        contributions=contributions[shown],
        shares=shares[shown],
        remainder=contributions[hidden].sum(axis=0),
        remainder_share=np.abs(shares[hidden]).sum(axis=0),
        prediction=model.predict(X)[0],
        input_names=tuple(model.input_names),
        output_names=tuple(model.output_names),
        n_rules=model.n_rules,
        normalize=model.normalize,
    )


def _one_input(model, x):
    """One input as a float vector in the model's input order.

    A mapping (dict), a pandas Series or a one-row DataFrame is matched to
    the model's ``input_names`` by name (labels that are not all strings,
    such as a DataFrame's default 0..n-1 columns, are taken in order);
    anything else is read as an array.
    """
    names = list(model.input_names)
    labels = values = None
    if isinstance(x, Mapping):
        labels, values = list(x.keys()), list(x.values())
    elif hasattr(x, "columns") and hasattr(x, "iloc"):  # a pandas DataFrame
        if len(x) != 1:
            raise ValueError(
                f"x must be one input; got a DataFrame of {len(x)} rows (pass one row, "
                "e.g. frame.iloc[[i]])."
            )
        labels, values = list(x.columns), x.to_numpy()[0].tolist()
    elif hasattr(x, "index") and hasattr(x, "to_numpy") and np.ndim(x) == 1:  # a pandas Series
        labels, values = list(x.index), x.to_numpy().tolist()
    if labels is not None and all(isinstance(label, str) for label in labels):
        if len(set(labels)) != len(labels):
            raise ValueError(f"x names an input more than once: {labels}.")
        missing = [n for n in names if n not in labels]
        extra = [label for label in labels if label not in names]
        if missing or extra:
            problems = []
            if missing:
                problems.append(f"misses {missing}")
            if extra:
                problems.append(f"has unknown name(s) {extra}")
            raise ValueError(f"x {' and '.join(problems)}; the model's inputs are {names}.")
        by_name = dict(zip(labels, values, strict=True))
        x = [by_name[n] for n in names]
    elif labels is not None:
        if isinstance(x, Mapping):
            raise ValueError(
                f"x as a mapping must be keyed by the input names {names}; got keys {labels}."
            )
        x = values
    try:
        return check_matrix(x, "x", ndim=1, n_columns=model.n_features, owner="the model")
    except TypeError:
        raise TypeError(f"x must hold numbers (one per input {names}); got {x!r}.") from None
