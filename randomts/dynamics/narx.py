"""NARX identification: lagged regressors, one-step prediction and free-run simulation.

A NARX model predicts the outputs at time ``k`` from past outputs and inputs,

.. math:: y(k) = f\\big(y(k - 1), \\ldots, y(k - n_y),\\; u(k - 1), \\ldots, u(k - n_u)\\big),

and any randomts model (a fitted :class:`~randomts.RandomTSRegressor`, a
:class:`~randomts.RuleBase`, or any object with ``predict``) can play ``f``.
:class:`NARX` holds the lag structure and does the bookkeeping:

- :meth:`NARX.regressors` turns records into the pairs ``(X, Y)`` to fit on,
  record by record, so no row mixes two records;
- :meth:`NARX.predict_one_step` predicts every ``y(k)`` from the measured past;
- :meth:`NARX.simulate` runs the model freely from initial outputs, feeding
  its own outputs back, records of one length side by side;
- :meth:`NARX.name_rules` gives a rule base the lagged names, so rules read
  ``IF y1(k-1) is ... AND u(k-2) is ... THEN y1(k) = ...``.

With ``target="increment"`` the model plays the change of the outputs over
one step instead, ``y(k) = y(k - 1) + f(...)``: the regressors' targets are
``y(k) - y(k - 1)``, and one-step prediction, simulation and linearisation add
``y(k - 1)`` back. For a sampled continuous-time system (``y(k) = y(k-1) +
dt g(y(k-1))`` under forward Euler) ``f`` is then the vector field times the
step, so the model spends none of its rules on reproducing the identity.

The series are records (:mod:`randomts.dynamics.records`), taken in the order
``u, y`` everywhere, time on axis 0: ``y`` is ``(n_steps,)`` or ``(n_steps,
n_outputs)``, ``u`` likewise with ``n_inputs`` (None without input lags), and
``u[k]`` is the input at the time of ``y[k]``. Several records are lists of
such arrays, or 3-D stacks ``(n_records, n_steps, n_variables)``; results come
back in the layout given.

**The initial window.** The first output a free run computes is at step
``max_lag`` of the initial outputs' time axis: its regressors reach back
``max(y_lags)`` outputs and ``max(u_lags)`` inputs, so ``max_lag`` initial
outputs are needed (more are accepted: the run then starts after the last
of them, from their last ``max_lag`` rows), and the inputs must cover the
initial window and every step simulated.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from randomts._threads import one_blas_thread
from randomts._validation import check_int, check_matrix, check_option
from randomts.core.inference import inference_constants, predict
from randomts.core.ranges import EXTRAPOLATION_MARGIN, beyond_range, span_distance
from randomts.dynamics.linearization import linearize
from randomts.dynamics.polynomial import factor_table, monomials, power_slopes, power_values
from randomts.dynamics.records import check_steps, read_records
from randomts.exceptions import DivergenceWarning, ExtrapolationWarning
from randomts.fuzzy.rulebase import as_rule_base

__all__ = ["FALLBACK_SPAN", "NARX", "TARGETS", "SimulatedOutputs", "check_lags", "check_powers"]

#: What a NARX model predicts: the outputs ``y(k)`` or their increments ``y(k) - y(k-1)``.
TARGETS = ("output", "increment")

#: How far beyond its training ranges (in spans) a free run switches to a fallback model.
FALLBACK_SPAN = 0.5

_OWNER = "this NARX structure"


class SimulatedOutputs(np.ndarray):
    """The outputs of one free run, which also say whether it left the data or diverged.

    An ndarray shaped like the initial outputs given (time on axis 0); the
    first rows are those initial outputs. Arithmetic on it gives plain
    arrays; slices keep the attributes of the run they come from.

    Attributes
    ----------
    left_data_step : int or None
        The first step (row) whose regressors lay beyond the training range
        of a lagged output or input by more than
        :data:`~randomts.core.ranges.EXTRAPOLATION_MARGIN` of its span: from
        there on the run extrapolates. None if it never did (or if the model
        records no training ranges).
    left_data_variable : str or None
        The regressor beyond its range at that step, e.g. ``"y(k-1)"``.
    divergence_step : int or None
        The first step whose output was not finite (the rows from there on
        are NaN), or None.

    Examples
    --------
    >>> import numpy as np
    >>> run = SimulatedOutputs([1.0, 2.0, np.nan], divergence_step=2)
    >>> run.diverged, run.left_data, run.divergence_step
    (True, False, 2)
    >>> type(run - 1.0).__name__
    'ndarray'
    """

    def __new__(
        cls, outputs, *, left_data_step=None, left_data_variable=None, divergence_step=None
    ):
        run = np.asarray(outputs, dtype=float).view(cls)
        run.left_data_step = left_data_step
        run.left_data_variable = left_data_variable
        run.divergence_step = divergence_step
        return run

    def __array_finalize__(self, obj):
        self.left_data_step = getattr(obj, "left_data_step", None)
        self.left_data_variable = getattr(obj, "left_data_variable", None)
        self.divergence_step = getattr(obj, "divergence_step", None)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        plain = np.asarray(array).view(np.ndarray)
        return plain[()] if return_scalar else plain

    def __reduce__(self):  # pickled as a plain array with the attributes
        return (_rebuild_simulated, (np.asarray(self).view(np.ndarray), self._report()))

    def _report(self):
        return {
            "left_data_step": self.left_data_step,
            "left_data_variable": self.left_data_variable,
            "divergence_step": self.divergence_step,
        }

    @property
    def left_data(self) -> bool:
        """Whether the run left the training ranges (see ``left_data_step``)."""
        return self.left_data_step is not None

    @property
    def diverged(self) -> bool:
        """Whether the output stopped being finite (see ``divergence_step``)."""
        return self.divergence_step is not None


def _rebuild_simulated(array, report):
    return SimulatedOutputs(array, **report)


def check_lags(lags, name, *, minimum, owner="NARX"):
    """``lags`` as a sorted tuple of distinct ints: an int ``n`` means ``1..n``.

    Parameters
    ----------
    lags : int or sequence of int
        ``n >= 0`` for the lags ``1..n`` (none for 0), or the lags themselves.
    name : str
        The parameter's name, for the error message.
    minimum : int
        The smallest lag allowed in a sequence (1 for outputs, 0 for inputs).
    owner : str, default="NARX"
        The class whose parameter it is, for the error message.

    Examples
    --------
    >>> check_lags(3, "y_lags", minimum=1), check_lags([4, 0], "u_lags", minimum=0)
    ((1, 2, 3), (0, 4))
    >>> check_lags([0, 1], "y_lags", minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: The 'y_lags' parameter of NARX must be an int n >= 0 (lags 1..n) or a sequence of distinct ints >= 1. Got [0, 1] instead.
    """
    if isinstance(lags, numbers.Integral) and not isinstance(lags, bool):
        count = check_int(lags, name, low=0, owner=owner)
        return tuple(range(1, count + 1))
    message = (
        f"The {name!r} parameter of {owner} must be an int n >= 0 (lags 1..n) or a sequence of "
        f"distinct ints >= {minimum}. Got {lags!r} instead."
    )
    return _distinct_ints(lags, minimum, message)


def _distinct_ints(values, minimum, message):
    """A sequence of distinct ints ``>= minimum``, sorted; else ``message`` as the error."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(message)
    values = tuple(values)
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
        raise TypeError(message)
    if len(set(values)) != len(values) or any(v < minimum for v in values):
        raise ValueError(message)
    return tuple(sorted(int(v) for v in values))


def check_powers(powers, name, *, owner="NARX"):
    """``powers`` as a sorted tuple of distinct ints ``>= 2``.

    Examples
    --------
    >>> check_powers([3, 2], "powers")
    (2, 3)
    >>> check_powers([1], "powers")
    Traceback (most recent call last):
    ...
    ValueError: The 'powers' parameter of NARX must be a sequence of distinct ints >= 2 (powers of the lagged outputs). Got [1] instead.
    """
    message = (
        f"The {name!r} parameter of {owner} must be a sequence of distinct ints >= 2 (powers of "
        f"the lagged outputs). Got {powers!r} instead."
    )
    return _distinct_ints(powers, 2, message)


def _check_names(names, name):
    if isinstance(names, str):
        names = (names,)
    names = tuple(names)
    if not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise ValueError(
            f"The {name!r} parameter of NARX must hold non-empty strings; got {names!r}."
        )
    if len(set(names)) != len(names):
        raise ValueError(f"The {name!r} parameter of NARX must hold distinct names; got {names!r}.")
    return names


class NARX:
    """The lag structure of a NARX model, and what to do with it.

    Parameters
    ----------
    y_lags : int or sequence of int, default=1
        Output lags: ``n`` means ``y(k-1) ... y(k-n)``; a sequence gives the
        lags themselves (each ``>= 1``), e.g. ``(6, 12, 18)``.
    u_lags : int or sequence of int, default=0
        Input lags: ``n`` means ``u(k-1) ... u(k-n)``; a sequence may include
        ``0`` (direct feed-through of ``u(k)``). 0 or ``()`` for no input.
    output_names : str or sequence of str, default="y"
        Names of the outputs; their number is ``n_outputs``.
    input_names : str or sequence of str, default="u"
        Names of the inputs (ignored without input lags).
    target : {"output", "increment"}, default="output"
        What the model predicts: the outputs ``y(k)``, or their increments
        ``y(k) - y(k-1)`` (then ``y_lags`` must include 1). Either way
        :meth:`predict_one_step`, :meth:`simulate` and :meth:`linearize`
        return the outputs ``y(k)``.
    powers : sequence of int, default=()
        Powers of the lagged outputs added as regressors after the inputs,
        each ``>= 2``: with ``(2, 3)``, ``y(k-1)^2, y(k-2)^2, ...`` then
        ``y(k-1)^3, ...``. A model linear in its regressors is then a
        polynomial NARX model in the lagged outputs, e.g. the cubic spring
        of a Duffing oscillator, which it also follows beyond the data.
    products : bool, default=False
        With ``powers``, every product of that many lagged outputs (every
        monomial of that degree) instead of the powers of each alone:
        ``(2,)`` then gives ``y(k-1)^2, y(k-1)*y(k-2), ..., y(k-n)^2``. The
        number of columns grows as the binomial coefficient
        ``C(n_state + p - 1, p)`` for the degree ``p``.

    Attributes
    ----------
    max_lag : int
        The largest lag: the first ``max_lag`` steps of a record are
        initial conditions, never targets.
    regressor_names : tuple of str
        Names of the columns of ``X``: every output's lags, then every
        input's, e.g. ``("y(k-1)", "y(k-2)", "u(k-1)")``, then the powers,
        e.g. ``"y(k-1)^3"`` (products: ``"y(k-1)^2*y(k-2)"``).
    target_names : tuple of str
        Names of the columns of ``Y``, e.g. ``("y(k)",)``, or
        ``("y(k)-y(k-1)",)`` for increments.

    Examples
    --------
    >>> import numpy as np
    >>> narx = NARX(y_lags=2, u_lags=1)
    >>> narx.regressor_names, narx.target_names
    (('y(k-1)', 'y(k-2)', 'u(k-1)'), ('y(k)',))
    >>> X, Y = narx.regressors(u=[10.0, 11.0, 12.0, 13.0], y=[0.0, 1.0, 2.0, 3.0])
    >>> X
    array([[ 1.,  0., 11.],
           [ 2.,  1., 12.]])
    >>> Y.ravel()
    array([2., 3.])
    >>> NARX(y_lags=2, u_lags=1, target="increment").regressors(
    ...     u=[10.0, 11.0, 12.0, 13.0], y=[0.0, 1.0, 2.0, 3.0])[1].ravel()  # y(k) - y(k-1)
    array([1., 1.])
    >>> cubic = NARX(y_lags=1, u_lags=1, powers=(3,))
    >>> cubic.regressor_names
    ('y(k-1)', 'u(k-1)', 'y(k-1)^3')
    >>> cubic.regressors(u=[10.0, 11.0, 12.0], y=[1.0, 2.0, 3.0])[0]
    array([[ 1., 10.,  1.],
           [ 2., 11.,  8.]])
    >>> NARX(y_lags=2, powers=(2,), products=True).regressor_names
    ('y(k-1)', 'y(k-2)', 'y(k-1)^2', 'y(k-1)*y(k-2)', 'y(k-2)^2')
    """

    def __init__(
        self,
        y_lags=1,
        u_lags=0,
        *,
        output_names="y",
        input_names="u",
        target="output",
        powers=(),
        products=False,
    ):
        self.y_lags = check_lags(y_lags, "y_lags", minimum=1)
        self.u_lags = check_lags(u_lags, "u_lags", minimum=0)
        if not self.y_lags and not self.u_lags:
            raise ValueError(
                "A NARX model needs at least one lag: y_lags and u_lags are both empty."
            )
        self.output_names = _check_names(output_names, "output_names")
        self.input_names = _check_names(input_names, "input_names") if self.u_lags else ()
        self.max_lag = max(self.y_lags + self.u_lags)
        self.powers = check_powers(powers, "powers")
        if self.powers and not self.y_lags:
            raise ValueError(
                f"The 'powers' parameter of NARX raises lagged outputs to powers; got "
                f"powers={self.powers} without output lags."
            )
        if not isinstance(products, (bool, np.bool_)):
            raise TypeError(
                f"The 'products' parameter of NARX must be True or False. Got {products!r} instead."
            )
        if products and not self.powers:
            raise ValueError(
                "The 'products' parameter of NARX multiplies lagged outputs to the degrees in "
                "'powers'; got products=True without powers."
            )
        self.products = bool(products)
        lagged = tuple(
            f"{name}(k-{lag})" if lag else f"{name}(k)"
            for names, lags in ((self.output_names, self.y_lags), (self.input_names, self.u_lags))
            for name in names
            for lag in lags
        )
        self._terms = monomials(self.n_state_columns, self.powers, self.products)
        self._power_columns = factor_table(self._terms)
        self.regressor_names = lagged + tuple(
            "*".join(f"{lagged[column]}^{e}" if e > 1 else lagged[column] for column, e in term)
            for term in self._terms
        )
        self.target = check_option(target, "target", TARGETS, owner="NARX")
        if self.target == "increment" and 1 not in self.y_lags:
            raise ValueError(
                f"NARX(target='increment') predicts y(k) - y(k-1), so y_lags must include 1; got "
                f"y_lags={self.y_lags}."
            )
        self.target_names = tuple(
            f"{name}(k)-{name}(k-1)" if self.target == "increment" else f"{name}(k)"
            for name in self.output_names
        )

    @property
    def n_outputs(self) -> int:
        """Number of outputs."""
        return len(self.output_names)

    @property
    def n_inputs(self) -> int:
        """Number of inputs (0 without input lags)."""
        return len(self.input_names)

    @property
    def n_state_columns(self) -> int:
        """Number of regressor columns that are past outputs (they come first)."""
        return self.n_outputs * len(self.y_lags)

    @property
    def n_lagged_columns(self) -> int:
        """Number of regressor columns that are lagged values (before the powers)."""
        return len(self.regressor_names) - len(self._terms)

    @property
    def power_columns(self):
        """``(sources, exponents)`` of the power columns, in order, each of shape (n_powers, n_factors).

        A power column is the product over its factors ``f`` of state column
        ``sources[:, f]`` raised to ``exponents[:, f]``; a column of fewer
        factors than the widest has exponent 0 (and source 0) in the rest.

        Examples
        --------
        >>> sources, exponents = NARX(y_lags=2, powers=(2, 3)).power_columns
        >>> sources.tolist(), exponents.tolist()
        ([[0], [1], [0], [1]], [[2], [2], [3], [3]])
        >>> sources, exponents = NARX(y_lags=2, powers=(2,), products=True).power_columns
        >>> sources.tolist(), exponents.tolist()  # y1^2, y1 y2, y2^2
        ([[0, 0], [0, 1], [1, 0]], [[2, 0], [1, 1], [2, 0]])
        """
        sources, exponents = self._power_columns
        return sources.copy(), exponents.copy()

    @property
    def previous_output_columns(self):
        """Indices of the ``y(k-1)`` regressor columns, one per output (None without lag 1)."""
        if 1 not in self.y_lags:
            return None
        return np.arange(self.n_outputs) * len(self.y_lags) + self.y_lags.index(1)

    def __repr__(self) -> str:
        powers = f", powers={self.powers}" if self.powers else ""
        powers += ", products=True" if self.products else ""
        return (
            f"NARX(y_lags={self.y_lags}, u_lags={self.u_lags}, output_names={self.output_names}, "
            f"input_names={self.input_names}, target={self.target!r}{powers})"
        )

    # ------------------------------------------------------------- records
    def read(self, u=None, y=None, *, y_name="y", min_steps=None, allow_shorter_y=False):
        """The records ``(u, y)`` checked against this structure (:func:`~randomts.dynamics.records.read_records`).

        Records already read are checked for their sizes only.

        Parameters
        ----------
        u, y
            The records, as in :meth:`regressors`.
        y_name : str, default="y"
            The outputs' name in messages.
        min_steps : int, optional
            The fewest steps of every record's outputs.
        allow_shorter_y : bool, default=False
            Accept outputs shorter than the inputs (initial outputs).

        Returns
        -------
        Records

        Examples
        --------
        >>> NARX(y_lags=1, u_lags=1).read(y=[1.0, 2.0])
        Traceback (most recent call last):
        ...
        ValueError: This NARX structure has input lags (1,); u is required.
        """
        records = read_records(u, y, y_name=y_name, allow_shorter_y=allow_shorter_y, owner=_OWNER)
        if records.n_outputs != self.n_outputs:
            raise ValueError(
                f"{y_name} has {records.n_outputs} outputs (time on axis 0: (n_steps, n_outputs)), "
                f"but {_OWNER} is expecting {self.n_outputs}."
            )
        if not self.u_lags and records.n_inputs:
            raise ValueError("This NARX structure has no input lags (u_lags=0), but u was given.")
        if self.u_lags and not records.n_inputs:
            raise ValueError(f"This NARX structure has input lags {self.u_lags}; u is required.")
        if self.u_lags and records.n_inputs != self.n_inputs:
            raise ValueError(
                f"u has {records.n_inputs} inputs, but {_OWNER} is expecting {self.n_inputs}."
            )
        if min_steps is not None:
            for index, (_, Y) in enumerate(records):
                check_steps(Y.shape[0], min_steps, f"{y_name}{records.label(index)}", _OWNER)
        return records

    def regressor_columns(self, Y, U, start, stop):
        """Regressors of every target time ``k`` in ``[start, stop)`` of stacked records.

        Parameters
        ----------
        Y : ndarray of shape (n_records, n_steps, n_outputs)
        U : ndarray of shape (n_records, n_steps, n_inputs) or None
        start, stop : int
            Target times, ``max_lag <= start <= stop <= n_steps``.

        Returns
        -------
        ndarray of shape (n_records, stop - start, n_regressors)

        Examples
        --------
        >>> import numpy as np
        >>> NARX(y_lags=2).regressor_columns(np.arange(5.0).reshape(1, 5, 1), None, 2, 4)[0]
        array([[1., 0.],
               [2., 1.]])
        """
        blocks = [
            Y[:, start - lag : stop - lag, m] for m in range(self.n_outputs) for lag in self.y_lags
        ]
        if U is not None and self.u_lags:
            blocks += [
                U[:, start - lag : stop - lag, p]
                for p in range(self.n_inputs)
                for lag in self.u_lags
            ]
        if self._terms:
            state = np.stack(blocks[: self.n_state_columns], axis=2)
            powers = power_values(state, *self._power_columns)
            blocks += [powers[..., column] for column in range(powers.shape[-1])]
        return np.stack(blocks, axis=2)

    def predictor(self, model):
        """``X -> y(k)``: the model's predictions of the regressor rows, as outputs.

        A RuleBase, or a fitted randomts estimator's rule base, runs the
        inference kernel directly (the numbers of its ``predict``, without the
        per-call input checks); any other object runs through its
        ``predict``. With increments, ``y(k-1)`` is added back.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1e9]], intercept=[[1.0]])  # f = 1
        >>> NARX(target="increment").predictor(rb)(np.array([[2.0]]))  # y(k-1) + 1
        array([[3.]])
        """
        predict = _predictor(model, self.n_outputs)
        if self.target == "increment":
            previous = self.previous_output_columns  # once, not at every step of a free run
            increment = predict

            def predict(X):
                return X[:, previous] + increment(X)

        return predict

    # ----------------------------------------------------------------- API
    def regressors(self, u=None, y=None):
        """The regression pairs ``(X, Y)`` of all records, with no leakage across them.

        The rows of every record from its step ``max_lag`` on, record after
        record: a row holds the lagged values at time ``k`` and the target
        ``y[k]`` (``y[k] - y[k-1]`` with ``target="increment"``).

        Parameters
        ----------
        u : array-like of shape (n_steps,) or (n_steps, n_inputs), a list, a stack, Records or None
            Inputs (time on axis 0), required when there are input lags;
            several records as a list, a 3-D stack ``(n_records, n_steps,
            n_inputs)``, or a list of ``(u, y)`` pairs with ``y`` omitted.
        y : array-like of shape (n_steps,) or (n_steps, n_outputs), a list or a stack
            Outputs, laid out as ``u``.

        Returns
        -------
        X : ndarray of shape (n_rows, len(regressor_names))
        Y : ndarray of shape (n_rows, n_outputs)
            The targets, named by ``target_names``.

        Examples
        --------
        >>> import numpy as np
        >>> X, Y = NARX(y_lags=1).regressors(y=[[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]])  # two records
        >>> np.hstack([X, Y])
        array([[ 0.,  1.],
               [ 1.,  2.],
               [10., 11.],
               [11., 12.]])
        >>> X, Y = NARX(y_lags=2, u_lags=1).regressors(u=[5.0, 6.0, 7.0, 8.0], y=[0.0, 1.0, 2.0, 3.0])
        >>> np.hstack([X, Y])  # one record: y(k-1), y(k-2), u(k-1) -> y(k)
        array([[1., 0., 6., 2.],
               [2., 1., 7., 3.]])
        """
        records = self.read(u, y, min_steps=self.max_lag + 1)
        rows, targets = [], []
        for U, Y in records:
            n_steps = Y.shape[0]
            X = self.regressor_columns(
                Y[None], None if U is None else U[None], self.max_lag, n_steps
            )
            rows.append(X.reshape(-1, len(self.regressor_names)))
            T = Y[self.max_lag :]
            if self.target == "increment":
                T = T - Y[self.max_lag - 1 : -1]
            targets.append(T)
        if len(rows) == 1:
            return rows[0], np.ascontiguousarray(targets[0])
        return np.vstack(rows), np.vstack(targets)

    def name_rules(self, rule_base):
        """The rule base with the lagged input names and ``(k)`` output names.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase.random(n_features=3, n_rules=1, random_state=0)
        >>> NARX(y_lags=2, u_lags=1).name_rules(rb).input_names
        ('y(k-1)', 'y(k-2)', 'u(k-1)')
        """
        rule_base = as_rule_base(rule_base, "NARX.name_rules")
        if (
            rule_base.n_features != len(self.regressor_names)
            or rule_base.n_outputs != self.n_outputs
        ):
            raise ValueError(
                f"The rule base has {rule_base.n_features} inputs and {rule_base.n_outputs} outputs; "
                f"this NARX structure has {len(self.regressor_names)} regressors and "
                f"{self.n_outputs} outputs."
            )
        return rule_base.replace(input_names=self.regressor_names, output_names=self.target_names)

    def predict_one_step(self, model, u=None, y=None):
        """One-step-ahead predictions: every ``y(k)`` from the measured past.

        Parameters
        ----------
        model : fitted RandomTSRegressor, RuleBase, or object with ``predict``
            Maps regressors to targets (outputs, or increments).
        u, y
            Measured records, as in :meth:`regressors`.

        Returns
        -------
        ndarray of shape (n_steps - max_lag, n_outputs), or a list or stack of them
            Predictions of ``y[max_lag:]`` of every record, laid out as ``y``.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> identity = RuleBase(centers=[[0.0]], sigmas=[[1e6]], coef=[[[1.0]]])  # f(x) ~ x
        >>> NARX(y_lags=1).predict_one_step(identity, y=[1.0, 2.0, 3.0]).round(6)
        array([1., 2.])
        """
        records = self.read(u, y, min_steps=self.max_lag + 1)
        X, _ = self.regressors(records)
        predicted = self.predictor(model)(X)
        sizes = np.cumsum([Y.shape[0] - self.max_lag for _, Y in records])[:-1]
        return records.shaped(np.split(predicted, sizes))

    def predict_ahead(self, model, u=None, y=None, *, steps=1, fallback=None, ranges=None):
        """``steps``-step-ahead predictions: every ``y(k)`` from the outputs measured ``steps`` before.

        The prediction of ``y(k)`` runs the model freely from the measured
        outputs up to ``y(k - steps)`` (and the inputs up to ``u(k)``, as in
        a free run): ``steps=1`` is :meth:`predict_one_step`; as ``steps``
        grows it becomes the free run of :meth:`simulate`. All the runs of a
        record advance side by side.

        Parameters
        ----------
        model
            As in :meth:`simulate`.
        u, y
            Measured records, as in :meth:`regressors`.
        steps : int, default=1
            How far ahead, ``>= 1``.
        fallback, ranges
            As in :meth:`free_run` (the ranges default to the model's own).

        Returns
        -------
        ndarray of shape (n_steps - max_lag - steps + 1, n_outputs), or a list or stack of them
            Predictions of ``y[max_lag + steps - 1:]`` of every record, laid out as ``y``.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> halves = RuleBase(centers=[[0.0]], sigmas=[[1e9]], coef=[[[0.5]]])  # y(k) = y(k-1) / 2
        >>> NARX(y_lags=1).predict_ahead(halves, y=[8.0, 0.0, 8.0, 0.0], steps=2).round(6)
        array([2., 0.])
        """
        steps = check_int(steps, "steps", low=1)
        records = self.read(u, y, min_steps=self.max_lag + steps)
        if ranges is None:
            ranges = _training_ranges(model)
        predict = self.predictor(model)
        fallback = None if fallback is None else self.predictor(fallback)
        lag, results = self.max_lag, []
        for U, Y in records:
            starts = np.arange(Y.shape[0] - lag - steps + 1)
            window = np.arange(lag)[None, :] + starts[:, None]
            Y0 = Y[window]
            U_runs = None
            if U is not None:
                U_runs = U[np.arange(lag + steps)[None, :] + starts[:, None]]
            outputs = self.run(predict, Y0, U_runs, steps, ranges, fallback)[0]
            results.append(outputs[:, -1])
        return records.shaped(results)

    def simulate(self, model, u=None, y_init=None, *, n_steps=None, fallback=None):
        """Free run: from initial outputs, feed the model's own outputs back.

        Records of one length advance together, one ``predict`` call per time
        step. A record whose simulated output stops being finite is marked
        diverged: its remaining outputs are NaN and the others go on, and a
        :class:`~randomts.exceptions.DivergenceWarning` names the first.
        When the model records its training ranges (a fitted estimator, or a
        rule base fitted with :meth:`~randomts.RuleBase.fit_consequents`), an
        :class:`~randomts.exceptions.ExtrapolationWarning` names the first
        step whose regressors lie beyond them by more than
        :data:`~randomts.core.ranges.EXTRAPOLATION_MARGIN` of their span: from
        there on the run extrapolates.

        Parameters
        ----------
        model : fitted RandomTSRegressor, RuleBase, or object with ``predict``
            Maps regressors to targets (outputs, or increments).
        u : array-like of shape (n_total,) or (n_total, n_inputs), a list, a stack, or None
            Inputs over the whole run (the initial window included), time on
            axis 0; required when there are input lags.
        y_init : array-like of shape (n_init,) or (n_init, n_outputs), a list or a stack
            The initial outputs, ``n_init >= max_lag`` (see the module: the
            initial window); the run starts after them, from their last
            ``max_lag`` rows.
        n_steps : int, optional
            Steps to simulate after the initial outputs: ``n_total - n_init``
            when ``u`` is given; required otherwise.
        fallback : model, optional
            A model of the same regressors (e.g. a linear ARX) that takes
            over a run far beyond the training data: from the first step
            whose regressors lie more than :data:`FALLBACK_SPAN` of a span
            beyond their training ranges (the farthest column), the rest of
            that record's run is the fallback's. A run that stays nearer the
            data is the model's alone. A column that held one value in
            training has no span: another value there is reported (the run
            leaves the data) but does not call the fallback, since a fitted
            model leaves such a column out.

        Returns
        -------
        ndarray of shape (n_init + n_steps, n_outputs), or a list or stack of them
            The initial outputs followed by the simulated ones, laid out as
            ``y_init``.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> # y(k) = 0.5 y(k-1) + u(k-1), as a one-rule model with a very wide rule
        >>> rb = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1e9, 1e9]], coef=[[[0.5, 1.0]]])
        >>> narx = NARX(y_lags=1, u_lags=1)
        >>> narx.simulate(rb, u=[1.0, 1.0, 0.0, 0.0], y_init=[2.0]).round(9)
        array([2., 2., 2., 1.])
        """
        records = self.read(
            u, y_init, y_name="y_init", min_steps=self.max_lag, allow_shorter_y=True
        )
        runs = self.free_run(model, records, n_steps=n_steps, fallback=fallback)
        self.warn(runs, _training_ranges(model), several=len(runs) > 1, stacklevel=2)
        return records.shaped(runs)

    def free_run(self, model, u=None, y_init=None, *, n_steps=None, ranges=None, fallback=None):
        """:meth:`simulate` without warnings: every record's run, which says where it went wrong.

        Parameters
        ----------
        model, u, y_init, n_steps, fallback
            As in :meth:`simulate`.
        ranges : (ndarray, ndarray), optional
            ``(low, high)`` of each regressor column in the training data,
            the reference of ``left_data_step`` (and of the fallback); by
            default the ranges the model records (none for a model that
            records none).

        Returns
        -------
        list of SimulatedOutputs
            One per record, ``(n_init + n_steps, n_outputs)`` whatever the
            layout given.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1e9]], coef=[[[2.0]]])  # y(k) = 2 y(k-1)
        >>> runs = NARX(y_lags=1).free_run(rb, y_init=[[1.0], [0.0]], n_steps=3)  # stack of 2
        >>> [run[:, 0].round(6).tolist() for run in runs]
        [[1.0, 2.0, 4.0, 8.0], [0.0, 0.0, 0.0, 0.0]]
        >>> [run.diverged for run in runs], [run.left_data for run in runs]
        ([False, False], [False, False])
        """
        records = self.read(
            u, y_init, y_name="y_init", min_steps=self.max_lag, allow_shorter_y=True
        )
        if not records.n_inputs:
            if n_steps is None:
                raise ValueError("n_steps is required when u is not given.")
            n_steps = check_int(n_steps, "n_steps", low=1)
        elif n_steps is not None:
            raise ValueError(
                "n_steps is for a run without inputs; with inputs the run lasts as long as u. "
                f"Got n_steps={n_steps!r}."
            )
        if ranges is None:
            ranges = _training_ranges(model)
        predict = self.predictor(model)
        fallback = None if fallback is None else self.predictor(fallback)
        groups = {}  # records of one length run side by side
        for index, (U, Y) in enumerate(records):
            n_init = Y.shape[0]
            steps = n_steps if U is None else U.shape[0] - n_init
            if steps < 1:
                raise ValueError(
                    f"u{records.label(index)} must run past the initial outputs: it has "
                    f"{U.shape[0]} steps and y_init {n_init}."
                )
            groups.setdefault((n_init, steps), []).append(index)
        runs = [None] * len(records)
        for (n_init, steps), members in groups.items():
            shift = n_init - self.max_lag
            Y0 = np.stack([records[i][1][shift:] for i in members])
            U = None
            if records[members[0]][0] is not None:
                U = np.stack([records[i][0][shift:] for i in members])
            out, divergence, left, column = self.run(predict, Y0, U, steps, ranges, fallback)
            for j, i in enumerate(members):
                runs[i] = SimulatedOutputs(
                    np.concatenate([records[i][1][:shift], out[j]]),
                    left_data_step=None if left[j] < 0 else int(left[j]) + shift,
                    left_data_variable=(
                        None if left[j] < 0 else self.regressor_names[int(column[j])]
                    ),
                    divergence_step=None if divergence[j] < 0 else int(divergence[j]) + shift,
                )
        return runs

    def run(self, predict, Y0, U, n_steps, ranges=None, fallback=None):
        """The free run of stacked records (the core of :meth:`free_run`, on checked arrays).

        Parameters
        ----------
        predict : callable
            ``X -> y(k)`` of shape ``(n_records, n_outputs)`` (the outputs,
            increments already added back; :meth:`predictor`).
        Y0 : ndarray of shape (n_records, max_lag, n_outputs)
            The initial outputs.
        U : ndarray of shape (n_records, max_lag + n_steps, n_inputs) or None
        n_steps : int
        ranges : (ndarray, ndarray), optional
            Training ranges of the regressors.
        fallback : callable, optional
            ``X -> y(k)`` of the fallback model, which runs a record from its
            first step beyond :data:`FALLBACK_SPAN` on (needs ``ranges``).

        Returns
        -------
        outputs : ndarray of shape (n_records, max_lag + n_steps, n_outputs)
        divergence_step, left_data_step, left_data_column : ndarray of int of shape (n_records,)
            ``-1`` where none.

        Examples
        --------
        >>> import numpy as np
        >>> out = NARX(y_lags=1).run(lambda X: 0.5 * X, np.ones((1, 1, 1)), None, 2)[0]
        >>> out.ravel().tolist()
        [1.0, 0.5, 0.25]
        """
        n_records = Y0.shape[0]
        n_total = self.max_lag + n_steps
        out = np.full((n_records, n_total, self.n_outputs), np.nan)
        out[:, : self.max_lag] = Y0[:, : self.max_lag]
        active = np.ones(n_records, dtype=bool)
        divergence = np.full(n_records, -1, dtype=np.int64)
        extrapolation = np.full(n_records, -1, dtype=np.int64)
        column = np.full(n_records, -1, dtype=np.int64)
        if fallback is not None and ranges is None:
            raise ValueError(
                "A fallback takes over beyond the training ranges; this model records none: "
                "give ranges=(low, high)."
            )
        state = (active, divergence, extrapolation, column, np.zeros(n_records, dtype=bool))
        with one_blas_thread():  # one small predict a step: BLAS threads only spin
            self._steps(predict, out, U, ranges, state, fallback)
        return out, divergence, extrapolation, column

    def _steps(self, predict, out, U, ranges, state, fallback):
        """The steps of :meth:`run`, filling ``out`` and the per-record ``state`` in place."""
        active, divergence, extrapolation, column, fallen = state
        n_records, n_total = out.shape[:2]
        everyone = True
        # the data's ranges are the lagged values': a power's follows from its lag's, and one
        # sided (a square's from 0) it would count a small step out as a long way
        lagged = self.n_lagged_columns
        if ranges is not None:
            ranges = (ranges[0][:lagged], ranges[1][:lagged])
            # a value the training data never varied is left out by the model (no rule tests
            # it): another value is reported, but no step beyond what the model knows
            spanned = np.flatnonzero(ranges[0] < ranges[1])
        for k in range(self.max_lag, n_total):
            rows = None if everyone else np.flatnonzero(active)
            if everyone:
                X = self.regressor_columns(out, U, k, k + 1)[:, 0, :]
            else:
                X = self.regressor_columns(out[rows], None if U is None else U[rows], k, k + 1)[
                    :, 0, :
                ]
            if ranges is not None:
                beyond = beyond_range(X[:, :lagged], *ranges)
                leaving = beyond.any(axis=1)
                which = np.arange(n_records) if rows is None else rows
                new = leaving & (extrapolation[which] < 0)
                if new.any():
                    extrapolation[which[new]] = k
                    column[which[new]] = np.argmax(beyond[new], axis=1)
            which = np.arange(n_records) if rows is None else rows
            if fallback is not None:  # far beyond the data: the fallback, for good
                distance = span_distance(X[:, spanned], ranges[0][spanned], ranges[1][spanned])
                far = (np.abs(distance) >= FALLBACK_SPAN).any(axis=1)
                fallen[which[far]] = True
            with np.errstate(over="ignore", invalid="ignore"):  # a divergence, reported below
                if fallback is not None and fallen[which].any():
                    mine = fallen[which]
                    values = np.empty((X.shape[0], self.n_outputs))
                    values[mine] = fallback(X[mine])
                    if not mine.all():
                        values[~mine] = predict(X[~mine])
                else:
                    values = predict(X)
                out[which, k] = values
            finite = np.isfinite(out[:, k]).all(axis=1)
            if not finite[active].all():
                divergence[active & ~finite] = k
                active &= finite
                out[~active, k] = np.nan
                everyone = False
                if not active.any():
                    break

    def warn(self, runs, ranges, *, several, stacklevel=2):
        """Warn where the first of ``runs`` left the data, and where the first diverged.

        Parameters
        ----------
        runs : list of SimulatedOutputs
        ranges : (ndarray, ndarray) or None
            The training ranges the runs were judged against.
        several : bool
            Whether the runs are of several records (their index is named).
        stacklevel : int, default=2
            Of the warnings, from the caller of this method.

        Examples
        --------
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     NARX().warn([SimulatedOutputs([1.0, float("nan")], divergence_step=1)], None,
        ...                 several=False)
        >>> str(caught[0].message)
        'The free run diverged at step 1: the output stopped being finite and the rows from there on are NaN (divergence_step of the result).'
        """
        for attribute, category in (
            ("left_data_step", ExtrapolationWarning),
            ("divergence_step", DivergenceWarning),
        ):
            which = [i for i, run in enumerate(runs) if getattr(run, attribute) is not None]
            if not which:
                continue
            first = min(which, key=lambda i: getattr(runs[i], attribute))
            run, step = runs[first], getattr(runs[first], attribute)
            if not several:
                where = "The free run"
            elif len(which) == 1:
                where = f"The free run of record {first}"
            else:
                where = f"{len(which)} of {len(runs)} free runs; the first, of record {first},"
            if category is ExtrapolationWarning:
                low, high = ranges
                column = self.regressor_names.index(run.left_data_variable)
                message = (
                    f"{where} leaves the training data at step {step}: "
                    f"{run.left_data_variable} lies beyond its training range "
                    f"[{low[column]:.6g}, {high[column]:.6g}] by more than "
                    f"{100 * EXTRAPOLATION_MARGIN:g}% of its span, and the model extrapolates "
                    "from there (left_data_step of the result)."
                )
            else:
                message = (
                    f"{where} diverged at step {step}: the output stopped being finite and the "
                    "rows from there on are NaN (divergence_step of the result)."
                )
            warnings.warn(message, category, stacklevel=stacklevel + 1)

    def linearize(self, model, regressor):
        """Local linear model ``y(k) ~ A s + B v + O`` at a regressor value.

        ``s`` are the past-output columns of the regressor and ``v`` the
        past-input columns; see :func:`randomts.dynamics.linearization.linearize`.
        With ``target="increment"`` the model's linearisation gets the
        identity added on the ``y(k-1)`` columns of ``A``, so that ``A s + B v
        + O`` is again ``y(k)``. With ``powers``, the regressor is its lagged
        columns (its powers follow from them; a whole regressor row is
        accepted when its powers are those of its lags), and the powers'
        derivatives are folded into ``A`` by the chain rule.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1e9, 1e9]], coef=[[[0.5, 1.0]]])
        >>> A, B, O = NARX(y_lags=1, u_lags=1).linearize(rb, [0.0, 0.0])
        >>> A.round(6), B.round(6)
        (array([[0.5]]), array([[1.]]))
        >>> cubic = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1e9, 1e9]], coef=[[[0.5, -0.1]]])
        >>> A, B, O = NARX(y_lags=1, powers=(3,)).linearize(cubic, [2.0])  # 0.5 - 0.3 * 2^2
        >>> A.round(6), O.round(6)
        (array([[-0.7]]), array([1.6]))
        """
        if not self.y_lags:
            raise ValueError(
                "This NARX structure has no output lags, so no state to linearise in; use "
                "randomts.dynamics.linearization.jacobian for the derivatives with respect to the inputs."
            )
        lagged = self.n_lagged_columns
        widths = {lagged, len(self.regressor_names)}
        columns = np.shape(regressor)[-1] if np.ndim(regressor) else None
        point = check_matrix(
            regressor,
            "regressor",
            ndim=np.ndim(regressor) or 1,
            n_columns=columns if columns in widths else len(self.regressor_names),
            owner=_OWNER,
        )
        split = self.n_state_columns
        state = point[..., :split]
        sources, exponents = self.power_columns
        powers = power_values(state, sources, exponents)
        if point.shape[-1] > lagged and not np.allclose(point[..., lagged:], powers):
            raise ValueError(
                f"The regressor's power columns {self.regressor_names[lagged:]} must be the "
                "powers of its lagged outputs; give the lagged columns alone "
                f"{self.regressor_names[:lagged]}."
            )
        rest = np.concatenate([point[..., split:lagged], powers], axis=-1)
        local = linearize(model, state, rest if rest.shape[-1] else None)
        A, B, offset = local
        if self.powers:  # w(s) ~ w(s0) + sum_f dw/ds_f (s_f - s0_f)
            B, slopes = B[..., : lagged - split], B[..., lagged - split :]
            A = A.copy()
            chain = power_slopes(state, sources, exponents)
            for column in range(sources.shape[0]):
                constant = powers[..., column]
                for factor in range(sources.shape[1]):
                    source, d = sources[column, factor], chain[..., column, factor]
                    A[..., source] += slopes[..., column] * d[..., None]
                    constant = constant - d * state[..., source]
                offset = offset + slopes[..., column] * constant[..., None]
            local = local._replace(A=A, B=B, O=offset)
        if self.target == "increment":
            A = local.A.copy()
            A[..., np.arange(self.n_outputs), self.previous_output_columns] += 1.0
            local = local._replace(A=A)
        return local


def _training_ranges(model):
    """``(low, high)`` of the regressors in the data ``model`` was fitted on, or None if unknown."""
    try:
        rule_base = as_rule_base(model, "NARX")
    except TypeError:
        return None
    ranges = rule_base.input_range
    return None if ranges is None else (ranges[:, 0], ranges[:, 1])


def _predictor(model, n_outputs):
    """A function ``X -> (n_samples, n_outputs)`` array for ``model``.

    A RuleBase, or a fitted randomts estimator's rule base, runs the inference
    kernel directly (the numbers of its ``predict``, without the per-call
    input checks); any other object runs through its ``predict``.
    """
    try:
        rule_base = as_rule_base(model, "NARX")
    except TypeError:
        if not callable(getattr(model, "predict", None)):
            raise TypeError(
                f"model must be a RuleBase or have a predict method; got {type(model).__name__}."
            ) from None

        def predict_rows(X):
            Y = np.asarray(model.predict(X), dtype=float)
            if Y.size != X.shape[0] * n_outputs:
                raise ValueError(
                    f"model.predict returned shape {Y.shape} for {X.shape[0]} rows; expected "
                    f"{n_outputs} output(s) per row."
                )
            return Y.reshape(X.shape[0], n_outputs)

        return predict_rows
    if rule_base.n_outputs != n_outputs:
        raise ValueError(
            f"The model has {rule_base.n_outputs} outputs, but this NARX structure has {n_outputs}."
        )
    constants = inference_constants(rule_base.coef, rule_base.intercept, rule_base.sigmas)
    centers, sigmas, normalize = rule_base.centers, rule_base.sigmas, rule_base.normalize

    def predict_rule_base(X):
        return predict(X, centers, sigmas, constants, normalize=normalize)

    return predict_rule_base
