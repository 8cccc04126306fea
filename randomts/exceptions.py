"""Exceptions and warnings of randomts beyond the built-in ``ValueError`` and ``TypeError``.

The warnings all derive from :class:`RandomTSWarning` (a ``UserWarning``), so
one filter silences or escalates them all::

    warnings.simplefilter("error", randomts.exceptions.RandomTSWarning)
"""

from __future__ import annotations

__all__ = [
    "ConstantInputWarning",
    "DivergenceWarning",
    "ExtrapolationWarning",
    "FormatError",
    "NoRuleFiredWarning",
    "RandomTSWarning",
    "UndefinedDegreeWarning",
    "UnderdeterminedWarning",
]

_SHOWN = 80  # characters of the offending text quoted in a message


class FormatError(ValueError):
    """A file or string is not a valid description of a rule base.

    Raised by every reader (:func:`randomts.load`, :func:`randomts.io.text_format.parse_rules`)
    for truncated, inconsistent, unsupported or unreadable input, never a
    partial model.

    Parameters
    ----------
    problem : str
        What is wrong, in words.
    line : int, optional
        1-based line number of the offending text.
    text : str, optional
        The offending text (shortened in the message when long).
    source : str, optional
        The file name, when reading a file.

    Attributes
    ----------
    problem, line, text, source
        As given.

    Examples
    --------
    >>> error = FormatError("expected a number", line=3, text="R1: IF x1 is G(a, 1.0)")
    >>> str(error)
    "line 3: expected a number: 'R1: IF x1 is G(a, 1.0)'"
    >>> isinstance(error, ValueError)
    True
    """

    def __init__(self, problem, *, line=None, text=None, source=None):
        self.problem = problem
        self.line = line
        self.text = text
        self.source = source
        super().__init__(self._message())

    def _message(self):
        parts = []
        if self.source is not None:
            parts.append(str(self.source))
        if self.line is not None:
            parts.append(f"line {self.line}")
        message = self.problem
        if self.text is not None:
            shown = self.text if len(self.text) <= _SHOWN else self.text[: _SHOWN - 3] + "..."
            message += f": {shown!r}"
        return ": ".join(parts + [message])

    def with_source(self, source) -> FormatError:
        """The same error, naming the file it came from.

        Examples
        --------
        >>> str(FormatError("empty file", line=1).with_source("model.txt"))
        'model.txt: line 1: empty file'
        """
        return FormatError(self.problem, line=self.line, text=self.text, source=source)


class RandomTSWarning(UserWarning):
    """Base class of the warnings randomts gives about results that are probably wrong.

    Examples
    --------
    >>> issubclass(UnderdeterminedWarning, RandomTSWarning)
    True
    >>> issubclass(RandomTSWarning, UserWarning)
    True
    """


class UnderdeterminedWarning(RandomTSWarning):
    """A fit without regularisation has at least as many unknowns as rows.

    The consequents then interpolate the training targets, noise included:
    training error near zero, large coefficients of opposite signs that cancel,
    poor predictions between the rows. Give ``alpha="auto"`` (or a positive
    ``alpha``), fewer rules, or more rows.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.linspace(0, 1, 20).reshape(-1, 1)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = RandomTSRegressor(
    ...         n_rules=10, structure="random", alpha=0.0, random_state=0
    ...     ).fit(X, X[:, 0])
    >>> [w.category.__name__ for w in caught]
    ['UnderdeterminedWarning']
    """


class ConstantInputWarning(RandomTSWarning):
    """An input holds one value in every training row, so the model cannot learn its effect.

    ``fit`` issues it naming the columns (by name for a DataFrame, else by
    position) and their values. No rule tests such an input (its set holds
    every value) and no equation uses it, so predictions do not depend on it;
    ``predict`` warns with :class:`ExtrapolationWarning` where it takes
    another value.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.column_stack([np.linspace(0, 1, 20), np.ones(20)])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = RandomTSRegressor(n_rules=5, random_state=0).fit(X, X[:, 0])
    >>> [w.category.__name__ for w in caught]
    ['ConstantInputWarning']
    """


class ExtrapolationWarning(RandomTSWarning):
    """Inputs lie beyond the training data, where the model extrapolates.

    ``predict`` of the estimators issues it for rows with an input beyond
    its training range by more than
    :data:`~randomts.core.ranges.EXTRAPOLATION_MARGIN` (10 %) of the range's
    span, naming the inputs and how far out they are (``predict_interval``
    and ``predict_set`` for every row beyond the range, however little: their
    conformal coverage holds only for rows like the training rows), and for rows outside
    the training box where no rule fires (there the weighted sum decays to 0
    and the weighted average follows the nearest rule's linear model however
    far away it is). :meth:`NARX.simulate <randomts.dynamics.narx.NARX.simulate>`
    issues it when a free run leaves the training range, naming the step.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(200, 2))
    >>> model = RandomTSRegressor(n_rules=20, lock_range=False, random_state=0).fit(
    ...     X, X[:, 0] * X[:, 1])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = model.predict([[0.5, 0.5], [60.0, -60.0]])
    >>> for warning in caught:
    ...     print(warning.message)  # doctest: +ELLIPSIS
    1 of 2 rows (50%) given to predict lie beyond the training range of an input by more than 10% of
    its span, where the model extrapolates: x1 up to 29.8 times its span above its training maximum
    0.99442 (row 1); x2 up to 29.7 times its span below its training minimum -0.999399 (row 1).
    1 of 2 rows (50%) given to predict lie where no rule fires...
    """


class DivergenceWarning(RandomTSWarning):
    """A simulation diverged: its output stopped being a finite number.

    :meth:`NARX.simulate <randomts.dynamics.narx.NARX.simulate>` and
    :meth:`NARXRegressor.simulate <randomts.NARXRegressor.simulate>` issue it,
    naming the first record and step where it happened; the diverged
    records' remaining outputs are NaN.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> from randomts.dynamics.narx import NARX
    >>> unstable = RuleBase(centers=[[0.0]], sigmas=[[1e300]], coef=[[[1e100]]])  # y(k) = 1e100 y(k-1)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     y = NARX(y_lags=1).simulate(unstable, y_init=[1.0], n_steps=6)
    >>> print(caught[0].message)
    The free run diverged at step 4: the output stopped being finite and the rows from there on are NaN (divergence_step of the result).
    """


class NoRuleFiredWarning(RandomTSWarning):
    """No rule fired at some inputs of a weighted-average output, whose value is then NaN.

    A weighted average divides by the sum of the rules' degrees; where every
    degree is 0 the output is undefined. :meth:`randomts.FuzzySystem.predict`
    returns NaN there (or the output's ``default``) and warns with this class,
    so that the case can be filtered or turned into an error.

    Examples
    --------
    >>> import warnings
    >>> issubclass(NoRuleFiredWarning, UserWarning)
    True
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", NoRuleFiredWarning)
    ...     try:
    ...         warnings.warn("no rule fired", NoRuleFiredWarning)
    ...     except NoRuleFiredWarning as caught:
    ...         print(caught)
    no rule fired
    """


class UndefinedDegreeWarning(RandomTSWarning):
    """A hedge met a degree outside its domain [0, 1], and the conclusion was dropped.

    Hedges such as ``seldom`` or ``somewhat`` are defined on [0, 1]; degrees
    above 1 (an unbounded ``sum`` norm, rule weights or term heights above 1)
    or below 0 (``not`` of such a degree) make them undefined (NaN). Like
    fuzzylite, :meth:`randomts.FuzzySystem.predict` then counts the rule as not
    fired for that conclusion, and warns with this class.

    Examples
    --------
    >>> issubclass(UndefinedDegreeWarning, UserWarning)
    True
    """
