"""NARX identification: lagged regressors, one-step prediction and free-run simulation.

A NARX model predicts the outputs at time ``k`` from past outputs and inputs,

.. math:: y(k) = f\\big(y(k - 1), \\ldots, y(k - n_y),\\; u(k - 1), \\ldots, u(k - n_u)\\big),

and any randomts model (a fitted :class:`~randomts.RandomTSRegressor`, a
:class:`~randomts.RuleBase`, or any object with ``predict``) can play ``f``.
:class:`NARX` holds the lag structure and does the bookkeeping:

- :meth:`NARX.regressors` turns trajectories into the pairs ``(X, Y)`` to fit
  on, trajectory by trajectory, so no row mixes two trajectories;
- :meth:`NARX.predict_one_step` predicts every ``y(k)`` from the measured past;
- :meth:`NARX.simulate` runs the model freely from initial outputs, feeding
  its own outputs back, all trajectories at once;
- :meth:`NARX.name_rules` gives a rule base the lagged names, so rules read
  ``IF y1(k-1) is ... AND u(k-2) is ... THEN y1(k) = ...``.

With ``target="increment"`` the model plays the change of the outputs over
one step instead, ``y(k) = y(k - 1) + f(...)``: the regressors' targets are
``y(k) - y(k - 1)``, and one-step prediction, simulation and linearisation add
``y(k - 1)`` back. For a sampled continuous-time system (``y(k) = y(k-1) +
dt g(y(k-1))`` under forward Euler) ``f`` is then the vector field times the
step, so the model spends none of its rules on reproducing the identity.

Data layout: trajectories of equal length, time on the second axis. Outputs
``y`` are ``(n_trajectories, n_steps, n_outputs)`` or, with one output,
``(n_trajectories, n_steps)``; inputs ``u`` likewise with ``n_inputs``.
``u[:, k]`` is the input at the time of ``y[:, k]``.
"""

from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

import numpy as np

from randomts._validation import check_int, check_matrix, check_option
from randomts.core.ranges import EXTRAPOLATION_MARGIN, beyond_range
from randomts.dynamics.linearization import linearize
from randomts.exceptions import DivergenceWarning, ExtrapolationWarning
from randomts.fuzzy.rulebase import as_rule_base

__all__ = ["NARX", "TARGETS", "FreeRun", "check_lags"]

#: What a NARX model predicts: the outputs ``y(k)`` or their increments ``y(k) - y(k-1)``.
TARGETS = ("output", "increment")


class FreeRun(NamedTuple):
    """What :meth:`NARX.free_run` returns: the outputs and where each trajectory went wrong.

    Attributes
    ----------
    outputs : ndarray of shape (n_trajectories, max_lag + n_steps, n_outputs)
        The initial outputs followed by the simulated ones; NaN after a
        divergence.
    divergence_step : ndarray of int of shape (n_trajectories,)
        The first step whose simulated output was not finite, ``-1`` for a
        trajectory that stayed finite.
    extrapolation_step : ndarray of int of shape (n_trajectories,)
        The first step whose regressors lay beyond the model's training
        ranges by more than :data:`~randomts.core.ranges.EXTRAPOLATION_MARGIN`
        of their span, ``-1`` for a trajectory that stayed within them (or
        when the model records no ranges).
    extrapolation_column : ndarray of int of shape (n_trajectories,)
        The regressor column beyond its range at that step, ``-1`` if none.
    """

    outputs: np.ndarray
    divergence_step: np.ndarray
    extrapolation_step: np.ndarray
    extrapolation_column: np.ndarray


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
    if isinstance(lags, (str, bytes)) or not hasattr(lags, "__iter__"):
        raise TypeError(message)
    values = tuple(lags)
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
        raise TypeError(message)
    if len(set(values)) != len(values) or any(v < minimum for v in values):
        raise ValueError(message)
    return tuple(sorted(int(v) for v in values))


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

    Attributes
    ----------
    max_lag : int
        The largest lag: the first ``max_lag`` steps of a trajectory are
        initial conditions, never targets.
    regressor_names : tuple of str
        Names of the columns of ``X``: every output's lags, then every
        input's, e.g. ``("y(k-1)", "y(k-2)", "u(k-1)")``.
    target_names : tuple of str
        Names of the columns of ``Y``, e.g. ``("y(k)",)``, or
        ``("y(k)-y(k-1)",)`` for increments.

    Examples
    --------
    >>> import numpy as np
    >>> narx = NARX(y_lags=2, u_lags=1)
    >>> narx.regressor_names, narx.target_names
    (('y(k-1)', 'y(k-2)', 'u(k-1)'), ('y(k)',))
    >>> y = np.array([[0.0, 1.0, 2.0, 3.0]]); u = np.array([[10.0, 11.0, 12.0, 13.0]])
    >>> X, Y = narx.regressors(y, u)
    >>> X
    array([[ 1.,  0., 11.],
           [ 2.,  1., 12.]])
    >>> Y.ravel()
    array([2., 3.])
    >>> NARX(y_lags=2, u_lags=1, target="increment").regressors(y, u)[1].ravel()  # y(k) - y(k-1)
    array([1., 1.])
    """

    def __init__(self, y_lags=1, u_lags=0, *, output_names="y", input_names="u", target="output"):
        self.y_lags = check_lags(y_lags, "y_lags", minimum=1)
        self.u_lags = check_lags(u_lags, "u_lags", minimum=0)
        if not self.y_lags and not self.u_lags:
            raise ValueError(
                "A NARX model needs at least one lag: y_lags and u_lags are both empty."
            )
        self.output_names = _check_names(output_names, "output_names")
        self.input_names = _check_names(input_names, "input_names") if self.u_lags else ()
        self.max_lag = max(self.y_lags + self.u_lags)
        self.regressor_names = tuple(
            f"{name}(k-{lag})" if lag else f"{name}(k)"
            for names, lags in ((self.output_names, self.y_lags), (self.input_names, self.u_lags))
            for name in names
            for lag in lags
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

    def __repr__(self) -> str:
        return (
            f"NARX(y_lags={self.y_lags}, u_lags={self.u_lags}, output_names={self.output_names}, "
            f"input_names={self.input_names}, target={self.target!r})"
        )

    # ------------------------------------------------------------- checking
    def _trajectories(self, values, name, n_variables, *, min_steps):
        """Return ``values`` as (n_trajectories, n_steps, n_variables) and its own ``ndim``.

        With one variable, a 2-D array is ``(n_trajectories, n_steps)`` and a
        1-D one a single series ``(n_steps,)``.
        """
        if hasattr(values, "to_numpy"):
            values = values.to_numpy()
        try:
            values = np.asarray(values)
        except (TypeError, ValueError) as exc:  # ragged nested sequences
            raise ValueError(f"Input {name} could not be read as a numeric array: {exc}") from None
        ndim = values.ndim
        if n_variables == 1 and ndim in (1, 2):
            values = values.reshape((1,) * (2 - ndim) + values.shape + (1,))
        elif ndim != 3:
            layout = "(n_trajectories, n_steps, n_variables)" + (
                ", (n_trajectories, n_steps) or (n_steps,)" if n_variables == 1 else ""
            )
            raise ValueError(
                f"Input {name} must have the shape {layout} with {n_variables} variable(s); "
                f"got shape {values.shape}."
            )
        arr = check_matrix(
            values,
            name,
            ndim=3,
            n_columns=n_variables,
            column_label="variables",
            owner="this NARX structure",
        )
        if arr.shape[1] < min_steps:
            raise ValueError(
                f"Input {name} has {arr.shape[1]} time steps (shape={arr.shape}) while this NARX "
                f"structure needs at least {min_steps} (max_lag={self.max_lag})."
            )
        return arr, ndim

    def _inputs(self, u, n_trajectories, n_steps):
        if not self.u_lags:
            if u is not None:
                raise ValueError(
                    "This NARX structure has no input lags (u_lags=0), but u was given."
                )
            return None
        if u is None:
            raise ValueError(f"This NARX structure has input lags {self.u_lags}; u is required.")
        U, _ = self._trajectories(u, "u", self.n_inputs, min_steps=1)
        if U.shape[0] != n_trajectories or U.shape[1] < n_steps:
            raise ValueError(
                f"u must hold {n_trajectories} trajectories of at least {n_steps} steps; "
                f"got shape {U.shape[:2]}."
            )
        return U

    def regressor_columns(self, Yt, Ut, start, stop):
        """Regressors of every target time ``k`` in ``[start, stop)``, trajectory by trajectory.

        ``Yt`` of shape (n_trajectories, n_steps, n_outputs), ``Ut`` of
        shape (n_trajectories, n_steps, n_inputs) or None; the result has
        shape (n_trajectories, stop - start, n_regressors).

        Examples
        --------
        >>> import numpy as np
        >>> Y = np.arange(4.0).reshape(1, 4, 1)
        >>> NARX(y_lags=1, u_lags=1).regressor_columns(Y, 10 + Y, 1, 3)[0].tolist()
        [[0.0, 10.0], [1.0, 11.0]]
        """
        blocks = [
            Yt[:, start - lag : stop - lag, m] for m in range(self.n_outputs) for lag in self.y_lags
        ]
        if Ut is not None:
            blocks += [
                Ut[:, start - lag : stop - lag, p]
                for p in range(self.n_inputs)
                for lag in self.u_lags
            ]
        return np.stack(blocks, axis=2)

    def _previous_output_columns(self):
        """Indices of the ``y(k-1)`` regressor columns, one per output."""
        return np.arange(self.n_outputs) * len(self.y_lags) + self.y_lags.index(1)

    def _outputs(self, predict):
        """``X -> y(k)``: the model's predictions, plus ``y(k-1)`` for increments."""
        if self.target == "output":
            return predict

        previous = self._previous_output_columns()  # once, not at every step of a free run

        def outputs(X):
            return X[:, previous] + predict(X)

        return outputs

    # ----------------------------------------------------------------- API
    def regressors(self, y, u=None):
        """The regression pairs ``(X, Y)`` of all trajectories, with no leakage across them.

        Row ``r * (n_steps - max_lag) + (k - max_lag)`` holds the lagged
        values of trajectory ``r`` at time ``k`` and the target ``y[r, k]``
        (``y[r, k] - y[r, k-1]`` with ``target="increment"``).

        Parameters
        ----------
        y : array-like of shape (n_trajectories, n_steps, n_outputs), (n_trajectories, n_steps) or (n_steps,)
            Output trajectories; with one output, 2-D (one row per
            trajectory) or 1-D (a single series).
        u : array-like of shape (n_trajectories, n_steps, n_inputs), (n_trajectories, n_steps) or (n_steps,), optional
            Input trajectories, laid out as ``y`` (2-D or 1-D with one input);
            required when there are input lags.

        Returns
        -------
        X : ndarray of shape (n_trajectories * (n_steps - max_lag), len(regressor_names))
        Y : ndarray of shape (n_trajectories * (n_steps - max_lag), n_outputs)
            The targets, named by ``target_names``.

        Examples
        --------
        >>> import numpy as np
        >>> y = np.array([[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]])  # two trajectories
        >>> X, Y = NARX(y_lags=1).regressors(y)
        >>> np.hstack([X, Y])
        array([[ 0.,  1.],
               [ 1.,  2.],
               [10., 11.],
               [11., 12.]])
        >>> X, Y = NARX(y_lags=2, u_lags=1).regressors([0.0, 1.0, 2.0, 3.0], u=[5.0, 6.0, 7.0, 8.0])
        >>> np.hstack([X, Y])  # one series: y(k-1), y(k-2), u(k-1) -> y(k)
        array([[1., 0., 6., 2.],
               [2., 1., 7., 3.]])
        """
        Yt, _ = self._trajectories(y, "y", self.n_outputs, min_steps=self.max_lag + 1)
        Ut = self._inputs(u, Yt.shape[0], Yt.shape[1])
        n_steps = Yt.shape[1]
        X = self.regressor_columns(Yt, Ut, self.max_lag, n_steps).reshape(
            -1, len(self.regressor_names)
        )
        Y = Yt[:, self.max_lag :, :].reshape(-1, self.n_outputs)
        if self.target == "increment":
            Y = Y - Yt[:, self.max_lag - 1 : -1, :].reshape(-1, self.n_outputs)
        return X, Y

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

    def predict_one_step(self, model, y, u=None):
        """One-step-ahead predictions: every ``y(k)`` from the measured past.

        Parameters
        ----------
        model : fitted RandomTSRegressor, RuleBase, or object with ``predict``
            Maps regressors to targets (outputs, or increments).
        y, u : array-like
            Measured trajectories, as in :meth:`regressors`.

        Returns
        -------
        ndarray of shape (n_trajectories, n_steps - max_lag, n_outputs)
            Predictions of ``y[:, max_lag:]``; 2-D when ``y`` was 2-D, 1-D
            (``y[max_lag:]``) when it was one series.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> identity = RuleBase(centers=[[0.0]], sigmas=[[1e6]], coef=[[[1.0]]])  # f(x) ~ x
        >>> NARX(y_lags=1).predict_one_step(identity, [[1.0, 2.0, 3.0]]).round(6)
        array([[1., 2.]])
        """
        Yt, ndim = self._trajectories(y, "y", self.n_outputs, min_steps=self.max_lag + 1)
        Ut = self._inputs(u, Yt.shape[0], Yt.shape[1])
        n_trajectories, n_steps = Yt.shape[:2]
        X = self.regressor_columns(Yt, Ut, self.max_lag, n_steps).reshape(
            -1, len(self.regressor_names)
        )
        predict = self._outputs(_predictor(model, self.n_outputs))
        predicted = predict(X).reshape(n_trajectories, -1, self.n_outputs)
        return _as_given(predicted, ndim)

    def simulate(self, model, initial_outputs, u=None, *, n_steps=None):
        """Free run: from initial outputs, feed the model's own outputs back.

        All trajectories advance together, one ``predict`` call per time
        step. A trajectory whose simulated output stops being finite is
        marked diverged: its remaining outputs are NaN and the others go on,
        and a :class:`~randomts.exceptions.DivergenceWarning` names the first.
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
        initial_outputs : array-like of shape (n_trajectories, max_lag, n_outputs), (n_trajectories, max_lag) or (max_lag,)
            The first ``max_lag`` outputs of every trajectory (more steps are
            accepted; only the first ``max_lag`` are used).
        u : array-like of shape (n_trajectories, n_total, n_inputs), (n_trajectories, n_total) or (n_total,), optional
            Inputs over the whole run, on the time axis of the outputs, laid
            out as ``initial_outputs``; required when there are input lags.
        n_steps : int, optional
            Number of steps to simulate after the initial outputs. Defaults
            to ``n_total - max_lag`` when ``u`` is given; required otherwise.

        Returns
        -------
        ndarray of shape (n_trajectories, max_lag + n_steps, n_outputs)
            The initial outputs followed by the simulated ones; 2-D or 1-D
            when ``initial_outputs`` was.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> # y(k) = 0.5 y(k-1) + u(k-1), as a one-rule model with a very wide rule
        >>> rb = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1e9, 1e9]], coef=[[[0.5, 1.0]]])
        >>> narx = NARX(y_lags=1, u_lags=1)
        >>> narx.simulate(rb, [[2.0]], u=[[1.0, 1.0, 0.0, 0.0]]).round(9)
        array([[2., 2., 2., 1.]])
        """
        run = self._run(model, initial_outputs, u, n_steps)
        n_trajectories = run.outputs.shape[0]
        exits = np.flatnonzero(run.extrapolation_step >= 0)
        if exits.size:
            # the first step at which any trajectory leaves the data, the lowest trajectory then
            first = exits[np.argmin(run.extrapolation_step[exits])]
            self._warn_left_the_data(
                run.outputs[first : first + 1],
                None if u is None else self._inputs(u, n_trajectories, 1)[first : first + 1],
                int(run.extrapolation_step[first]),
                int(run.extrapolation_column[first]),
                _training_ranges(model),
                trajectory=int(first),
                stacklevel=2,
            )
        diverged = np.flatnonzero(run.divergence_step >= 0)
        if diverged.size:
            first = diverged[np.argmin(run.divergence_step[diverged])]
            warnings.warn(
                f"{diverged.size} of {n_trajectories} trajectories diverged (the output stopped "
                f"being finite), the first at step {int(run.divergence_step[first])} of trajectory "
                f"{int(first)}; their remaining outputs are NaN.",
                DivergenceWarning,
                stacklevel=2,
            )
        return _as_given(run.outputs, run.ndim)

    def free_run(self, model, initial_outputs, u=None, *, n_steps=None, ranges=None):
        """:meth:`simulate` without warnings: the outputs and where each trajectory went wrong.

        Parameters
        ----------
        model, initial_outputs, u, n_steps
            As in :meth:`simulate`.
        ranges : (array-like, array-like), optional
            ``(low, high)`` of each regressor column in the training data,
            the reference of ``extrapolation_step``; by default the ranges
            the model records (none for a model that records none).

        Returns
        -------
        FreeRun
            ``outputs`` of shape ``(n_trajectories, max_lag + n_steps, n_outputs)``
            whatever the layout of ``initial_outputs``, and per trajectory the
            first step of divergence and of extrapolation (``-1``: none).

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1e9]], coef=[[[2.0]]])  # y(k) = 2 y(k-1)
        >>> run = NARX(y_lags=1).free_run(rb, [[1.0], [0.0]], n_steps=3)
        >>> run.outputs[:, :, 0].round(6)
        array([[1., 2., 4., 8.],
               [0., 0., 0., 0.]])
        >>> run.divergence_step.tolist(), run.extrapolation_step.tolist()
        ([-1, -1], [-1, -1])
        """
        if ranges is not None:
            ranges = tuple(
                check_matrix(r, name, ndim=1, n_columns=len(self.regressor_names))
                for r, name in zip(ranges, ("ranges[0]", "ranges[1]"), strict=True)
            )
        run = self._run(model, initial_outputs, u, n_steps, ranges)
        return FreeRun(
            run.outputs, run.divergence_step, run.extrapolation_step, run.extrapolation_column
        )

    def _run(self, model, initial_outputs, u, n_steps, ranges=None):
        """The free run, with the layout of ``initial_outputs`` (``ndim``)."""
        Yt, ndim = self._trajectories(
            initial_outputs, "initial_outputs", self.n_outputs, min_steps=self.max_lag
        )
        n_trajectories = Yt.shape[0]
        if n_steps is None:
            if u is None:
                raise ValueError("n_steps is required when u is not given.")
            n_total = self._inputs(u, n_trajectories, 1).shape[1]
            n_steps = check_int(n_total - self.max_lag, "n_steps (from the length of u)", low=1)
        n_steps = check_int(n_steps, "n_steps", low=1)
        n_total = self.max_lag + n_steps
        Ut = self._inputs(u, n_trajectories, n_total)
        out = np.full((n_trajectories, n_total, self.n_outputs), np.nan)
        out[:, : self.max_lag] = Yt[:, : self.max_lag]
        predict = self._outputs(_predictor(model, self.n_outputs))
        if ranges is None:
            ranges = _training_ranges(model)
        active = np.ones(n_trajectories, dtype=bool)
        divergence = np.full(n_trajectories, -1, dtype=np.int64)
        extrapolation = np.full(n_trajectories, -1, dtype=np.int64)
        column = np.full(n_trajectories, -1, dtype=np.int64)
        everyone = True
        for k in range(self.max_lag, n_total):
            rows = None if everyone else np.flatnonzero(active)
            if everyone:
                X = self.regressor_columns(out, Ut, k, k + 1)[:, 0, :]
            else:
                X = self.regressor_columns(out[rows], None if Ut is None else Ut[rows], k, k + 1)[
                    :, 0, :
                ]
            if ranges is not None:
                beyond = beyond_range(X, *ranges)
                leaving = beyond.any(axis=1)
                which = np.arange(n_trajectories) if rows is None else rows
                new = leaving & (extrapolation[which] < 0)
                if new.any():
                    extrapolation[which[new]] = k
                    column[which[new]] = np.argmax(beyond[new], axis=1)
            with np.errstate(over="ignore", invalid="ignore"):  # a divergence, reported below
                if everyone:
                    out[:, k] = predict(X)
                else:
                    out[rows, k] = predict(X)
            finite = np.isfinite(out[:, k]).all(axis=1)
            if not finite[active].all():
                divergence[active & ~finite] = k
                active &= finite
                out[~active, k] = np.nan
                everyone = False
                if not active.any():
                    break
        return _Run(out, ndim, divergence, extrapolation, column)

    def _warn_left_the_data(self, out, Ut, step, column, ranges, *, trajectory, stacklevel):
        """Warn that ``trajectory`` (one row of ``out``) left the training ranges at ``step``."""
        low, high = ranges
        value = self.regressor_columns(out, Ut, step, step + 1)[0, 0, column]
        warnings.warn(
            f"The free run leaves the training data at step {step}: in trajectory {trajectory}, "
            f"{self.regressor_names[column]} = {value:.6g} lies beyond its training "
            f"range [{low[column]:.6g}, {high[column]:.6g}] by more than "
            f"{100 * EXTRAPOLATION_MARGIN:g}% of its span; the simulation extrapolates from there.",
            ExtrapolationWarning,
            stacklevel=stacklevel + 1,
        )

    def linearize(self, model, regressor):
        """Local linear model ``y(k) ~ A s + B v + O`` at a regressor value.

        ``s`` are the past-output columns of the regressor and ``v`` the
        past-input columns; see :func:`randomts.dynamics.linearization.linearize`.
        With ``target="increment"`` the model's linearisation gets the
        identity added on the ``y(k-1)`` columns of ``A``, so that ``A s + B v
        + O`` is again ``y(k)``.

        Examples
        --------
        >>> from randomts import RuleBase
        >>> rb = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1e9, 1e9]], coef=[[[0.5, 1.0]]])
        >>> A, B, O = NARX(y_lags=1, u_lags=1).linearize(rb, [0.0, 0.0])
        >>> A.round(6), B.round(6)
        (array([[0.5]]), array([[1.]]))
        """
        if not self.y_lags:
            raise ValueError(
                "This NARX structure has no output lags, so no state to linearise in; use "
                "randomts.dynamics.linearization.jacobian for the derivatives with respect to the inputs."
            )
        point = check_matrix(
            regressor,
            "regressor",
            ndim=np.ndim(regressor) or 1,
            n_columns=len(self.regressor_names),
            owner="this NARX structure",
        )
        split = self.n_state_columns
        local = linearize(model, point[..., :split], point[..., split:] if self.u_lags else None)
        if self.target == "increment":
            A = local.A.copy()
            A[..., np.arange(self.n_outputs), self._previous_output_columns()] += 1.0
            local = local._replace(A=A)
        return local


class _Run(NamedTuple):
    outputs: np.ndarray
    ndim: int
    divergence_step: np.ndarray
    extrapolation_step: np.ndarray
    extrapolation_column: np.ndarray


def _as_given(trajectories, ndim):
    """``(n_trajectories, n_steps, n_outputs)`` results in the layout of the given outputs."""
    if ndim == 1:
        return trajectories[0, :, 0]
    return trajectories[:, :, 0] if ndim == 2 else trajectories


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

    A RuleBase, or a fitted randomts estimator's rule base (the same numbers
    as the estimator's ``predict``, without its per-call input checks), is
    called directly; any other object through its ``predict``.
    """
    try:
        rule_base = as_rule_base(model, "NARX")
    except TypeError:
        if not callable(getattr(model, "predict", None)):
            raise TypeError(
                f"model must be a RuleBase or have a predict method; got {type(model).__name__}."
            ) from None

        def predict(X):
            Y = np.asarray(model.predict(X), dtype=float)
            if Y.size != X.shape[0] * n_outputs:
                raise ValueError(
                    f"model.predict returned shape {Y.shape} for {X.shape[0]} rows; expected "
                    f"{n_outputs} output(s) per row."
                )
            return Y.reshape(X.shape[0], n_outputs)

        return predict
    if rule_base.n_outputs != n_outputs:
        raise ValueError(
            f"The model has {rule_base.n_outputs} outputs, but this NARX structure has {n_outputs}."
        )
    return rule_base.predict
