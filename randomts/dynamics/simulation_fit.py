"""Fitting a NARX rule base for simulation: the consequents refined on the free-run error.

A NARX model fitted by least squares predicts one step ahead from measured
past outputs. A simulator feeds back its own outputs instead, and a small
one-step error can grow along the run: a good predictor can be a poor
simulator. :func:`refine_for_simulation` starts from the one-step solution
and refines the consequents ``Gamma`` on the error of the model's own
multi-step runs, as MATLAB's ``nlarx`` does with ``Focus="simulation"``:

- **multiple shooting** over truncated horizons: the estimation record is cut
  into segments of ``horizon`` steps; each segment's run starts from the
  measured outputs before it and is compared with the measured outputs along
  it. Short segments keep the problem well conditioned (an unstable model
  cannot run away for long) while every step's error counts the feedback of
  the steps before it;
- **analytic sensitivities**: the derivative of every simulated output with
  respect to ``Gamma`` is carried along the run by the chain rule, the model's
  own Jacobian with respect to its lagged outputs (the formula of
  :func:`randomts.core.inference.rule_base_jacobian`, on those columns only)
  times their sensitivities, plus the design row; the inputs' part of every
  firing strength is computed once for the whole run;
- **Levenberg-Marquardt** steps on ``||r(Gamma)||^2 + alpha ||Gamma -
  Gamma_0||^2``, shrinking toward the one-step solution ``Gamma_0``, solved in
  the space of the residuals when they are fewer than the parameters
  (``(J J^T + mu I)``, by the Woodbury identity);
- **early stopping on a held-out stretch**: the last part of every
  record is not fitted; after every step the model runs freely over it
  from measured initial outputs, and the best model on it is kept, the
  one-step start included, so that the result is never worse than the start
  on that stretch. A stretch longer than five segments runs in pieces of
  nearly equal length, at most five segments each, every piece from the
  measured outputs before it and all side by side: the steps of one long
  run cost far more than the width of several.

The antecedents stay as drawn, unless asked (``antecedents=True``, of a rule
base of more than one rule): then the centres and the logarithms of the
widths are refined with the consequents, their sensitivities carried along
the run as the consequents' are (the derivative of the output with respect to
a rule's log-weight, ``w_r y_r`` summed or ``w_r (y_r - f)`` averaged, times
that of the log-weight, ``(z_j - c_rj) / sigma_rj^2`` for a centre and
``(z_j - c_rj)^2 / sigma_rj^2`` for a log width). The runs are then nonlinear
in every parameter, and a step may hold more residuals: up to 12,000 on as
many as 4.5 million Jacobian entries, against 2.5 million. The work is done
in standardised regressors (those the estimators fit in), where the penalty
``alpha`` has its meaning.
:class:`SimulationProblem` holds a rule base in those units, so that several
refinements of the same antecedents (the folds of a cross-validation) share it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from randomts._threads import one_blas_thread
from randomts._validation import check_int, check_real
from randomts.core.design import design_matrix, split_coefficients, stack_coefficients
from randomts.core.membership import UNTESTED_WIDTH, firing_strengths
from randomts.dynamics import _steps
from randomts.dynamics.shooting import (
    MAX_RESIDUALS,
    MAX_SENSITIVITIES,
    held_out_runs,
    run_rmse,
    segments,
    sum_of_squares,
)

try:
    from randomts.dynamics._runs import run_steps
except ImportError:  # installed without a C compiler: the same steps in NumPy
    run_steps = _steps.run_steps
from randomts.fuzzy.rulebase import RuleBase

__all__ = [
    "Refinement",
    "SimulationFit",
    "SimulationProblem",
    "in_units",
    "refine_for_simulation",
]

# Entries of the Jacobians of the problems refined side by side at the most, or one problem's:
# problems beyond are refined in groups, one after another (each holds its Jacobian through its
# steps). Five refinements of 6,400 consequents of 6 outputs, one 200-step segment each, held
# 1.8 GB side by side.
_MAX_SIDE_BY_SIDE = 8 * MAX_SENSITIVITIES
# A held-out stretch runs freely in pieces of at most this many segments' steps, side by side.
_RUN_SEGMENTS = 5
# The bound on the Jacobian's entries where the antecedents are refined too: the runs are then
# nonlinear in the parameters, and steps fitted on fewer residuals follow the segments they
# were fitted on. Ten rules on 12 regressors (370 parameters) keep 12,000 residuals. On the
# Wiener-Hammerstein record (lags "auto", 6, 6 kept) the bound above gave 6.2 mV, this one 5.1
# and 24,000 residuals 4.6 (fits of 74 and 91 s, against 56 s and 6.1 mV for the consequents
# alone); the Silverbox's fits took 54 to 59 s and 66 to 73 s, against 46 s.
_MAX_ANTECEDENT_SENSITIVITIES = 4_500_000


@dataclass(frozen=True)
class SimulationFit:
    """What :func:`refine_for_simulation` did.

    Attributes
    ----------
    rule_base : RuleBase
        The refined rules, in the units of the data (the start if nothing was
        better on the held-out stretch).
    start_error, error : float
        Free-run RMSE on the held-out stretch (in pieces of at most five
        segments) of the one-step start and of the result (``error <=
        start_error``); NaN without a held-out stretch.
    iterations : int
        Levenberg-Marquardt steps taken.
    best_iteration : int
        The step whose model was kept (0: the start).
    """

    rule_base: object
    start_error: float
    error: float
    iterations: int
    best_iteration: int


@dataclass(frozen=True)
class Refinement:
    """What :meth:`SimulationProblem.refine` did, in standardised units.

    Attributes
    ----------
    gamma : ndarray of shape (n_columns, n_outputs)
        The consequents kept (the start if nothing was better on the held-out stretch).
    start_error, error, iterations, best_iteration
        As in :class:`SimulationFit`.
    trace : tuple of float
        The held-out error of the consequents after every step taken, the
        start's first (a step that lowered nothing repeats the error before
        it); empty without a held-out stretch.
    """

    gamma: np.ndarray
    start_error: float
    error: float
    iterations: int
    best_iteration: int
    trace: tuple = ()


class SimulationProblem:
    """A NARX rule base in standardised regressors: its free runs, their sensitivities, its refinement.

    Parameters
    ----------
    narx : NARX
        The lag structure (its ``target`` says whether the rules predict
        outputs or increments).
    rule_base : RuleBase
        The rules, in the units of the regressors.
    mean, scale : ndarray of shape (n_regressors,)
        The standardisation ``z = (x - mean) / scale`` the work is done in (``scale > 0``).
    order : {0, 1}, default=1
        Consequent order of ``rule_base``.
    antecedents : bool, default=False
        Whether the refinement moves the rules' centres and widths too (of
        a rule base of more than one rule). Its parameters are then
        :meth:`pack`'s vectors: the consequents, then the centres and the
        logarithms of the widths, all in standardised units.

    Attributes
    ----------
    gamma0 : ndarray of shape (n_columns, n_outputs)
        The consequents of ``rule_base``, stacked as the columns of the design
        matrix of the standardised regressors (:func:`~randomts.core.design.stack_coefficients`).
    refines_antecedents : bool
        Whether the parameters refined include the antecedents.
    n_parameters : int
        The number of parameters refined.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> from randomts.dynamics.narx import NARX
    >>> rules = RuleBase(centers=[[0.0]], sigmas=[[1e3]], coef=[[[0.5]]])  # y(k) ~ 0.5 y(k-1)
    >>> problem = SimulationProblem(NARX(y_lags=1), rules, np.zeros(1), np.ones(1))
    >>> outputs, _ = problem.run(problem.gamma0, np.ones((1, 3, 1)), None, 2, False)
    >>> outputs[0, :, 0].round(4)
    array([0.5 , 0.25])
    """

    def __init__(self, narx, rule_base, mean, scale, order=1, antecedents=False):
        mean, scale = np.asarray(mean, dtype=float), np.asarray(scale, dtype=float)
        self.narx, self.mean, self.scale, self.order = narx, mean, scale, order
        self.normalize = rule_base.normalize
        self.rule_base = rule_base
        # the same model of z = (x - mean) / scale: x = mean + scale z
        self.centers, self.sigmas, coef, intercept = in_units(
            rule_base.centers,
            rule_base.sigmas,
            rule_base.coef,
            rule_base.intercept,
            -mean / scale,
            1.0 / scale,
        )
        self.gamma0 = stack_coefficients(coef, intercept, order=order)
        # squared after the division: an untested input (width 1e300) gives 0, no overflow
        self.inverse_variances = (1.0 / self.sigmas) ** 2
        self.refines_antecedents = bool(antecedents) and rule_base.n_rules > 1
        self.n_parameters = self.gamma0.size + (
            2 * self.centers.size if self.refines_antecedents else 0
        )
        # the residuals and Jacobian entries of one step at the most (see segments)
        self.budget = {
            "residuals": MAX_RESIDUALS,
            "entries": (
                _MAX_ANTECEDENT_SENSITIVITIES if self.refines_antecedents else MAX_SENSITIVITIES
            ),
        }
        n_lags = len(narx.y_lags)
        # the regressor columns that are lagged outputs come first: their output and lag
        self.state_outputs = np.repeat(np.arange(narx.n_outputs, dtype=np.intp), n_lags)
        self.state_lags = np.tile(np.array(narx.y_lags, dtype=np.intp), narx.n_outputs)
        self.n_state = self.state_lags.size
        self.inputs = [(p, lag) for p in range(narx.n_inputs) for lag in narx.u_lags]
        # the power columns of the lagged outputs, last: their state column and exponent
        self.power_sources, self.power_exponents = narx.power_columns
        self.power_columns = slice(narx.n_lagged_columns, None)
        previous = narx.previous_output_columns if narx.target == "increment" else None
        # the state column of every output's y(k-1), added back to an increment (none: empty)
        self.previous_columns = np.asarray([] if previous is None else previous, dtype=np.intp)

    def pack(self, gamma):
        """The parameters refined of consequents ``gamma`` and the rules' own antecedents.

        ``gamma`` itself when the antecedents stay; else one vector: the
        consequents column by column (an output's after another's), then the
        centres rule by rule, then the logarithms of the widths, all in
        standardised units. A vector already packed is returned as it is.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> from randomts.dynamics.narx import NARX
        >>> rules = RuleBase(centers=[[0.0], [1.0]], sigmas=[[1.0], [2.0]], coef=[[[1.0]], [[3.0]]],
        ...                  intercept=[[0.5], [0.0]], normalize=True)
        >>> problem = SimulationProblem(NARX(y_lags=1), rules, np.zeros(1), np.ones(1),
        ...                             antecedents=True)
        >>> theta = problem.pack(problem.gamma0)
        >>> theta.round(3).tolist()  # slopes and constants, centres, log widths
        [1.0, 0.5, 3.0, 0.0, 0.0, 1.0, 0.0, 0.693]
        >>> gamma, centers, sigmas = problem.unpack(theta)
        >>> sigmas.ravel().tolist()
        [1.0, 2.0]
        """
        gamma = np.asarray(gamma, dtype=float)
        if not self.refines_antecedents or gamma.shape != self.gamma0.shape:
            return gamma
        # a set wider than the widest (an untested input over a small scale) is as wide: its
        # logarithm stays finite, and its step zero
        widths = np.log(np.minimum(self.sigmas, UNTESTED_WIDTH))
        return np.concatenate([gamma.ravel(order="F"), self.centers.ravel(), widths.ravel()])

    def unpack(self, theta):
        """``(gamma, centers, sigmas)`` of parameters ``theta`` (:meth:`pack`'s), standardised."""
        theta = np.asarray(theta, dtype=float)
        if theta.shape == self.gamma0.shape:
            return theta, self.centers, self.sigmas
        q = self.gamma0.size
        size = self.centers.size
        gamma = theta[:q].reshape(self.gamma0.shape, order="F")
        centers = theta[q : q + size].reshape(self.centers.shape)
        sigmas = np.exp(theta[q + size :]).reshape(self.centers.shape)
        return gamma, centers, sigmas

    def _stacked(self, gamma):
        """Consequents, centres and inverse variances of one or several parameters, stacked."""
        gamma = np.asarray(gamma, dtype=float)
        if gamma.shape[-self.gamma0.ndim :] == self.gamma0.shape:
            gammas = gamma.reshape(-1, *self.gamma0.shape)
            centers = np.broadcast_to(self.centers, (gammas.shape[0], *self.centers.shape))
            inverse = np.broadcast_to(self.inverse_variances, centers.shape)
            return gammas, centers, inverse
        parts = [self.unpack(theta) for theta in gamma.reshape(-1, self.n_parameters)]
        gammas = np.stack([part[0] for part in parts])
        centers = np.stack([part[1] for part in parts])
        inverse = np.stack([(1.0 / part[2]) ** 2 for part in parts])
        return gammas, centers, inverse

    def predict(self, X, gamma):
        """What the rules of parameters ``gamma`` predict for regressor rows ``X`` (data units)."""
        gamma, centers, sigmas = self.unpack(gamma)
        Z = self.standardise(X)
        weights = firing_strengths(Z, centers, sigmas, normalize=self.normalize)
        return design_matrix(weights, Z, order=self.order) @ gamma

    def rules(self, gamma, *, named=False):
        """The rule base of consequents ``gamma``, in the units of the data.

        ``rule_base`` with those consequents (and, for parameters that move
        the antecedents, those centres and widths); ``named``: with the
        lagged names of the structure
        (:meth:`~randomts.dynamics.narx.NARX.name_rules`) too.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> from randomts.dynamics.narx import NARX
        >>> rules = RuleBase(centers=[[1.0]], sigmas=[[2.0]], coef=[[[0.5]]], intercept=[[0.1]])
        >>> problem = SimulationProblem(NARX(y_lags=1), rules, np.array([1.0]), np.array([3.0]))
        >>> back = problem.rules(problem.gamma0, named=True)
        >>> bool(np.allclose(back.coef, rules.coef) and np.allclose(back.intercept, rules.intercept))
        True
        >>> back.input_names, back.output_names
        (('y(k-1)',), ('y(k)',))
        """
        gamma, centers, sigmas = self.unpack(gamma)
        coef, intercept = split_coefficients(
            gamma, self.centers.shape[0], self.centers.shape[1], order=self.order
        )
        moved = centers is not self.centers
        centers, sigmas, coef, intercept = in_units(
            centers if moved else None, sigmas, coef, intercept, self.mean, self.scale
        )
        changes = {"coef": coef, "intercept": intercept}
        if moved:
            # a set that holds every value (its input held one in training) has no derivative
            # and stays that set, to the bit: exp(log(1e300)) is not 1e300
            untested = self.rule_base.sigmas >= UNTESTED_WIDTH
            centers[untested] = self.rule_base.centers[untested]
            sigmas[untested] = self.rule_base.sigmas[untested]
            changes.update(centers=centers, sigmas=sigmas)
        if named:
            changes.update(
                input_names=self.narx.regressor_names, output_names=self.narx.target_names
            )
        return self.rule_base.replace(**changes)

    def antecedents(self):
        """The rules' antecedents in standardised units, as a rule base of zero consequents."""
        return RuleBase(self.centers, self.sigmas, normalize=self.normalize)

    def design(self, X):
        """The design matrix ``K`` of regressor rows ``X`` (data units) in standardised units.

        ``K @ gamma0`` is what ``rule_base`` predicts for ``X``.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> from randomts.dynamics.narx import NARX
        >>> rules = RuleBase(centers=[[0.0]], sigmas=[[1.0]], coef=[[[2.0]]], intercept=[[1.0]])
        >>> problem = SimulationProblem(NARX(y_lags=1), rules, np.zeros(1), np.ones(1))
        >>> X = np.array([[0.5]])
        >>> bool(np.allclose(problem.design(X) @ problem.gamma0, rules.predict(X)))
        True
        """
        Z = self.standardise(X)
        weights = firing_strengths(Z, self.centers, self.sigmas, normalize=self.normalize)
        return design_matrix(weights, Z, order=self.order)

    def standardise(self, X):
        """Regressor rows ``X`` (data units) in the standardised units of the work."""
        return (np.asarray(X, dtype=float) - self.mean) / self.scale

    def _input_columns(self, U, horizon):
        """Standardised input columns ``(n, horizon, n_input_columns)`` of every step."""
        lag = self.narx.max_lag
        columns = [
            (U[:, lag - back : lag + horizon - back, p] - self.mean[self.n_state + offset])
            / self.scale[self.n_state + offset]
            for offset, (p, back) in enumerate(self.inputs)
        ]
        return np.ascontiguousarray(np.stack(columns, axis=2))

    def run(self, gamma, Y, U, horizon, sensitivities, owner=None):
        """Run every segment ``horizon`` steps; the outputs and their sensitivities to ``Gamma``.

        Parameters
        ----------
        gamma : ndarray of shape (n_columns, n_outputs), or (n_gammas, n_columns, n_outputs)
            The consequents; several, with ``owner``, for segments that run
            different ones side by side. Or :meth:`pack`'s parameters, of
            shape (n_parameters,) or (n_gammas, n_parameters).
        Y : ndarray of shape (n_segments, max_lag + horizon, n_outputs)
            The measured outputs; those after ``max_lag`` are replaced by the run's.
        U : ndarray of shape (n_segments, max_lag + horizon, n_inputs) or None
            The inputs over the same steps.
        horizon : int
        sensitivities : bool
            Whether to carry the derivatives along.
        owner : ndarray of int of shape (n_segments,), optional
            The consequents of every segment, an index of ``gamma``'s first axis.

        Returns
        -------
        outputs : ndarray of shape (n_segments, horizon, n_outputs)
        S : ndarray of shape (n_segments, horizon, n_outputs, n_parameters) or None
            ``S[i, k, m, m' * n_columns + c]`` is the derivative of output
            ``m`` at step ``k`` with respect to ``gamma[c, m']`` (of the
            segment's own consequents); where the antecedents are refined,
            the derivatives with respect to the rest of :meth:`pack`'s
            vector follow.
        """
        lag = self.narx.max_lag
        n_segments, _, n_outputs = Y.shape
        n_rules, n_features = self.centers.shape
        gammas, centers, inverse_variances = (
            np.ascontiguousarray(part) for part in self._stacked(gamma)
        )
        if owner is None:
            owner = np.zeros(n_segments, dtype=np.intp)
        q = gammas.shape[1]
        Y = np.array(Y[:, : lag + horizon], dtype=float, order="C")
        if self.inputs:
            Zu = self._input_columns(U, horizon)
        else:
            Zu = np.empty((n_segments, horizon, 0))
        ns = self.n_state
        if sensitivities:
            S = np.empty((n_segments, horizon, n_outputs, self.n_parameters))
        else:
            S = np.empty((1, 1, 1, 1))
        run_steps(
            Y,
            Zu,
            centers,
            inverse_variances,
            np.ascontiguousarray(self.mean[:ns]),
            np.ascontiguousarray(self.scale[:ns]),
            self.state_lags,
            self.state_outputs,
            self.previous_columns,
            self.power_sources,
            self.power_exponents,
            np.ascontiguousarray(self.mean[self.power_columns]),
            np.ascontiguousarray(self.scale[self.power_columns]),
            gammas,
            np.ascontiguousarray(owner, dtype=np.intp),
            lag,
            horizon,
            bool(self.normalize),
            int(self.order),
            S,
            bool(sensitivities),
            self.refines_antecedents,
            np.empty(n_features + 1),
            np.empty(n_rules),
            np.empty(q),
            np.empty(n_outputs),
            np.empty((n_outputs, max(ns, 1))),
            np.empty((n_rules, n_outputs)),
            np.empty((max(ns, 1), int(self.power_exponents.max(initial=0)) + 1)),
        )
        return Y[:, lag:], (S if sensitivities else None)

    def consequents(self, coef, intercept):
        """``gamma`` of consequents given in the data's units, those of ``rule_base``'s layout.

        The inverse of :meth:`rules`: ``coef`` (n_rules, n_outputs,
        n_features), ``intercept`` (n_rules, n_outputs).
        """
        _, _, coef, intercept = in_units(
            None,
            None,
            np.asarray(coef, float),
            np.asarray(intercept, float),
            -self.mean / self.scale,
            1.0 / self.scale,
        )
        return stack_coefficients(coef, intercept, order=self.order)

    def stable_start(self, start, toward, fitted, *, horizon=200, halvings=6):
        """The start nearest ``start`` on the way to ``toward`` whose runs stay finite.

        The first of ``start``, ``toward + (start - toward) / 2``, ``/ 4``,
        ... (``halvings`` of them), and ``toward`` itself, whose runs over
        the segments of the stretches ``fitted`` (as :meth:`refine` cuts
        them) stay finite: ``toward`` when none does. A one-step fit can run
        away in a few steps (a polynomial's high powers); the refinement,
        whose steps need finite runs, then starts from the nearest that
        does not.

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> from randomts.dynamics.narx import NARX
        >>> cubic = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1.0, 1.0]], coef=[[[0.5, 1e3]]],
        ...                  normalize=True)  # one rule of a weighted average: a linear model
        >>> problem = SimulationProblem(NARX(y_lags=1, powers=(3,)), cubic, np.zeros(2), np.ones(2))
        >>> y = np.linspace(1.0, 2.0, 40)[:, None]  # y(k) = 0.5 y + 1000 y^3 runs away
        >>> linear = problem.consequents([[[0.5, 0.0]]], [[0.0]])
        >>> problem.stable_start(problem.gamma0, linear, [(None, y)], horizon=30).ravel().tolist()
        [0.5, 0.0, 0.0]
        """
        start, toward = np.asarray(start, dtype=float), np.asarray(toward, dtype=float)
        shares = [0.5**j for j in range(halvings + 1)] + [0.0]
        gammas = [toward + share * (start - toward) for share in shares]
        folds = _Folds(self, gammas, [fitted] * len(gammas), [None] * len(gammas), horizon, 0.0)
        if not folds.has_segments(0):
            return start
        values = folds.objectives(np.arange(len(gammas)), gammas)
        finite = [j for j, value in enumerate(values) if np.isfinite(value)]
        return gammas[finite[0]] if finite else toward

    def held_out_error(self, gamma, runs):
        """Free-run RMSE over held-out runs, ``inf`` if one diverged.

        ``runs`` as :func:`~randomts.dynamics.shooting.held_out_runs` gives them.
        """
        return _Folds(self, [gamma], [[]], [runs], 1, 0.0).held_out_errors(np.array([0]), [gamma])[
            0
        ]

    def refine(self, gamma0, fitted, held_out, *, alpha, horizon=200, max_iter=20, patience=4):
        """Levenberg-Marquardt on the multiple-shooting error from ``gamma0`` (see the module).

        Parameters
        ----------
        gamma0 : ndarray of shape (n_columns, n_outputs)
            The start, and what the penalty shrinks toward.
        fitted, held_out : list of (u, y)
            The stretches to fit on and to stop on (see :func:`refine_for_simulation`).
        alpha : float
            Penalty ``>= 0`` on the distance from ``gamma0``.
        horizon, max_iter, patience : int
            As in :func:`refine_for_simulation`.

        Returns
        -------
        Refinement
        """
        return self.refine_many(
            [gamma0],
            [fitted],
            [held_out],
            alpha=alpha,
            horizon=horizon,
            max_iter=max_iter,
            patience=patience,
        )[0]

    def refine_many(self, starts, fitted, held_out, *, alpha, horizon=200, max_iter=20, patience=4):
        """:meth:`refine` of several problems of these rules at once (the folds of a cross-validation).

        Every problem has its start, its stretches to fit on and to stop on,
        and its own Levenberg-Marquardt steps; their runs advance side by side,
        so that the steps of one loop serve them all. Problems whose Jacobians
        together would hold more than 20 million entries are refined in
        groups, one after another. The result of every problem is that of
        :meth:`refine` on it alone (to rounding).

        Parameters
        ----------
        starts : list of ndarray of shape (n_columns, n_outputs)
        fitted, held_out : list of list of (u, y)
            The stretches of every problem.
        alpha, horizon, max_iter, patience
            As in :meth:`refine`.

        Returns
        -------
        list of Refinement

        Examples
        --------
        >>> import numpy as np
        >>> from randomts import RuleBase
        >>> from randomts.dynamics.narx import NARX
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(-1, 1, size=(300, 1)); y = np.zeros((300, 1))
        >>> for k in range(1, 300):
        ...     y[k] = 0.8 * y[k - 1] + np.tanh(u[k - 1])
        >>> rules = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1e3, 1e3]], coef=[[[0.7, 0.9]]])
        >>> problem = SimulationProblem(NARX(1, 1), rules, np.zeros(2), np.ones(2))
        >>> halves = [[(u[:150], y[:150])], [(u[150:], y[150:])]]
        >>> results = problem.refine_many([problem.gamma0] * 2, halves, halves[::-1], alpha=0.0)
        >>> [bool(r.error < r.start_error) for r in results]
        [True, True]
        """
        narx = self.narx
        n_problems = len(starts)
        starts = [self.pack(start) for start in starts]
        runs = [
            held_out_runs(narx, held, _RUN_SEGMENTS * horizon) if held else None
            for held in held_out
        ]
        folds = _Folds(self, starts, fitted, runs, horizon, alpha)
        groups = _side_by_side(folds.jacobian_entries())
        if len(groups) > 1:  # too large to hold every Jacobian at once: group after group
            settings = dict(alpha=alpha, horizon=horizon, max_iter=max_iter, patience=patience)
            results = [None] * n_problems
            for group in groups:
                refined = self.refine_many(
                    [starts[f] for f in group],
                    [fitted[f] for f in group],
                    [held_out[f] for f in group],
                    **settings,
                )
                for f, result in zip(group, refined, strict=True):
                    results[f] = result
            return results
        everyone = np.arange(n_problems)
        start_errors = folds.held_out_errors(everyone, starts)
        gammas = [np.array(start, dtype=float) for start in starts]
        best = [(start_errors[f], gammas[f], 0) for f in everyone]
        traces = [[float(start_errors[f])] if folds.has_held_out(f) else [] for f in everyone]
        iterations = np.zeros(n_problems, dtype=int)
        stale = np.zeros(n_problems, dtype=int)
        active = np.array([folds.has_segments(f) and max_iter > 0 for f in everyone])
        current = np.full(n_problems, np.inf)
        if active.any():
            current[active] = folds.objectives(
                everyone[active], [gammas[f] for f in everyone[active]]
            )
        damping = [None] * n_problems
        for iteration in range(1, max_iter + 1):
            running = everyone[active]
            if running.size == 0:
                break
            steps = folds.steps(running, gammas)
            accepted = []
            searching = []
            for f in running:
                iterations[f] = iteration
                if steps[f] is None:  # not finite
                    active[f] = False
                    continue
                if damping[f] is None:
                    damping[f] = 1e-3 * steps[f].mean_diagonal or 1e-3
                searching.append(f)
            while searching:
                trials, candidates = [], []
                for f in searching:
                    limit = 1e12 * (steps[f].mean_diagonal + 1.0)
                    delta = None
                    while damping[f] < limit:
                        delta = steps[f].solve(damping[f])
                        if delta is not None:
                            break
                        damping[f] *= 10.0
                    if delta is None:
                        active[f] = False  # no step lowers the objective
                        continue
                    trials.append(f)
                    candidates.append(gammas[f] + delta.reshape(gammas[f].shape, order="F"))
                searching = []
                if not trials:
                    break
                values = folds.objectives(np.array(trials), candidates)
                for f, candidate, value in zip(trials, candidates, values, strict=True):
                    if value < current[f]:
                        gammas[f], current[f] = candidate, value
                        damping[f] /= 3.0
                        accepted.append(f)
                    else:
                        damping[f] *= 10.0
                        if damping[f] < 1e12 * (steps[f].mean_diagonal + 1.0):
                            searching.append(f)
                        else:
                            active[f] = False
            if accepted:
                accepted = np.array(sorted(accepted))
                errors = folds.held_out_errors(accepted, [gammas[f] for f in accepted])
            else:
                errors = []
            for f in running:  # the held-out error after this step; unchanged where none was taken
                if traces[f]:
                    traces[f].append(traces[f][-1])
            for f, error in zip(accepted, errors, strict=True):
                if traces[f]:
                    traces[f][-1] = float(error)
                if not folds.has_held_out(f):  # nothing to stop on: every step is taken
                    best[f] = (np.nan, gammas[f], iteration)
                elif error < best[f][0]:
                    best[f], stale[f] = (error, gammas[f], iteration), 0
                else:
                    stale[f] += 1
                    if stale[f] >= patience:
                        active[f] = False
        return [
            Refinement(
                best[f][1],
                start_errors[f],
                best[f][0],
                int(iterations[f]),
                best[f][2],
                tuple(traces[f]),
            )
            for f in everyone
        ]


class _Folds:
    """The segments and held-out runs of several refinements of one problem, run side by side."""

    def __init__(self, problem, starts, fitted, runs, horizon, alpha):
        self.problem, self.starts, self.alpha = problem, starts, alpha
        narx = problem.narx
        self.lag = narx.max_lag
        self.segments, self.horizons, self.runs = [], [], runs
        for stretches in fitted:
            # no longer than the shortest stretch to fit on
            h = min([horizon] + [Y.shape[0] - self.lag for _, Y in stretches]) if stretches else 0
            Y, U = (
                segments(narx, stretches, h, problem.n_parameters, **problem.budget)
                if h >= 1
                else (None, None)
            )
            self.segments.append((Y, U))
            self.horizons.append(h)

    def has_segments(self, f):
        return self.segments[f][0] is not None

    def jacobian_entries(self):
        """Entries of every problem's Jacobian (residuals x parameters), 0 without segments."""
        n_parameters = self.problem.n_parameters
        return [
            0 if Y is None else Y.shape[0] * h * Y.shape[2] * n_parameters
            for (Y, _), h in zip(self.segments, self.horizons, strict=True)
        ]

    def has_held_out(self, f):
        return self.runs[f] is not None

    @staticmethod
    def _stack(parts):
        """Windows of several problems padded to the longest, with their owner and steps."""
        longest = max(Y.shape[1] for _, Y, _, _ in parts)
        Ys, Us, owner = [], [], []
        for index, Y, U, _ in parts:
            pad = ((0, 0), (0, longest - Y.shape[1]), (0, 0))
            Ys.append(np.pad(Y, pad))
            Us.append(None if U is None else np.pad(U, pad, mode="edge"))
            owner.append(np.full(Y.shape[0], index))
        U = None if Us[0] is None else np.concatenate(Us)
        return np.concatenate(Ys), U, np.concatenate(owner), longest

    def _run(self, which, gammas, windows, sensitivities):
        """Run the windows ``(Y, U, steps)`` of the problems ``which`` with ``gammas``."""
        parts = [(j, *windows[f]) for j, f in enumerate(which)]
        Y, U, owner, longest = self._stack(parts)
        outputs, S = self.problem.run(
            np.stack(gammas), Y, U, longest - self.lag, sensitivities, owner=owner
        )
        pieces, start = [], 0
        for _, Yf, _, steps in parts:
            stop = start + Yf.shape[0]
            sensitivity = None if S is None else S[start:stop, :steps]
            pieces.append(
                (outputs[start:stop, :steps], Yf[:, self.lag : self.lag + steps], sensitivity)
            )
            start = stop
        return pieces

    def objectives(self, which, gammas):
        """``||r||^2 + alpha ||gamma - start||^2`` of every problem in ``which``."""
        windows = {f: (*self.segments[f], self.horizons[f]) for f in which}
        values = []
        for (simulated, measured, _), f, gamma in zip(
            self._run(which, gammas, windows, False), which, gammas, strict=True
        ):
            values.append(
                sum_of_squares(simulated - measured)
                + self.alpha * sum_of_squares(gamma - self.starts[f])
            )
        return values

    def steps(self, which, gammas):
        """The Levenberg-Marquardt system of every problem in ``which`` (None where not finite)."""
        windows = {f: (*self.segments[f], self.horizons[f]) for f in which}
        steps = {}
        pieces = self._run(which, [gammas[f] for f in which], windows, True)
        for (simulated, measured, S), f in zip(pieces, which, strict=True):
            residual = (simulated - measured).reshape(-1)
            Jac = S.reshape(residual.size, -1)
            if not (np.all(np.isfinite(residual)) and np.all(np.isfinite(Jac))):
                steps[f] = None
                continue
            from_start = (gammas[f] - self.starts[f]).reshape(-1, order="F")
            steps[f] = _LevenbergMarquardt(Jac, residual, from_start, self.alpha)
        return steps

    def held_out_errors(self, which, gammas):
        """Free-run RMSE over the held-out runs of every problem in ``which`` (NaN without)."""
        with_runs = [j for j, f in enumerate(which) if self.runs[f] is not None]
        errors = [np.nan] * len(which)
        if not with_runs:
            return errors
        windows = {
            which[j]: (
                self.runs[which[j]][0],
                self.runs[which[j]][1],
                self.runs[which[j]][2].shape[1],
            )
            for j in with_runs
        }
        pieces = self._run(
            [which[j] for j in with_runs], [gammas[j] for j in with_runs], windows, False
        )
        for j, (simulated, measured, _) in zip(with_runs, pieces, strict=True):
            counted = self.runs[which[j]][2]
            errors[j] = run_rmse((simulated - measured)[counted])
        return errors


def _side_by_side(entries, most=None):
    """Consecutive groups of problems whose Jacobians' entries add up to at most ``most`` (or one).

    ``most`` defaults to the module's bound on the entries held side by side.

    Examples
    --------
    >>> _side_by_side([4, 4, 4, 9, 1], most=8)
    [[0, 1], [2], [3], [4]]
    >>> _side_by_side([1, 2, 3])
    [[0, 1, 2]]
    """
    most = _MAX_SIDE_BY_SIDE if most is None else most
    groups, total = [], 0
    for f, size in enumerate(entries):
        if not groups or total + size > most:
            groups.append([])
            total = 0
        groups[-1].append(f)
        total += size
    return groups


def in_units(centers, sigmas, coef, intercept, mean, scale):
    """The parameters of a rule base of ``u`` in the units of ``x = u * scale + mean``.

    The map of :meth:`RuleBase.in_original_units <randomts.RuleBase.in_original_units>`,
    on arrays (the centres and widths may be None): centres ``c * scale + mean``,
    widths ``sigma * scale``, slopes ``A / scale``, constants ``b - A (mean / scale)``.
    With ``-mean / scale`` and ``1 / scale`` it gives the rules of the standardised
    inputs ``(x - mean) / scale``.

    Examples
    --------
    >>> import numpy as np
    >>> c, s, A, b = in_units(np.zeros((1, 1)), np.ones((1, 1)), np.full((1, 1, 1), 2.0),
    ...                       np.ones((1, 1)), np.array([10.0]), np.array([4.0]))
    >>> c.item(), s.item(), A.item(), b.item()
    (10.0, 4.0, 0.5, -4.0)
    """
    coef = coef / scale
    intercept = intercept - coef @ mean
    if centers is None:
        return None, None, coef, intercept
    return centers * scale + mean, sigmas * scale, coef, intercept


class _LevenbergMarquardt:
    """The damped Gauss-Newton step ``-(J^T J + (alpha + damping) I)^-1 g`` at one point.

    With fewer residuals than parameters, solved in the space of the residuals:
    ``(J^T J + mu I)^-1 = (I - J^T (J J^T + mu I)^-1 J) / mu``.
    """

    def __init__(self, Jac, residual, from_start, alpha):
        self.Jac, self.alpha = Jac, alpha
        self.gradient = Jac.T @ residual + alpha * from_start
        self.rows = Jac.shape[0] < Jac.shape[1]
        self.gram = Jac @ Jac.T if self.rows else Jac.T @ Jac
        # the mean of the diagonal of J^T J + alpha I, the scale of the damping
        self.mean_diagonal = float(np.trace(self.gram)) / Jac.shape[1] + alpha
        if self.rows:
            self.projected = Jac @ self.gradient

    def solve(self, damping):
        """The step, or None if the shifted matrix is not positive definite in floating point."""
        mu = self.alpha + damping
        shifted = self.gram.copy()
        shifted[np.diag_indices_from(shifted)] += mu
        try:
            # Cholesky, without a condition estimate: an ill-conditioned step is judged by its
            # objective like any other (a matrix not positive definite raises)
            factor = scipy.linalg.cho_factor(shifted, check_finite=False)
            if not self.rows:
                return scipy.linalg.cho_solve(factor, -self.gradient, check_finite=False)
            inner = scipy.linalg.cho_solve(factor, self.projected, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            return None
        return -(self.gradient - self.Jac.T @ inner) / mu


def refine_for_simulation(
    narx,
    rule_base,
    fitted,
    held_out,
    *,
    mean,
    scale,
    alpha,
    order=1,
    horizon=200,
    max_iter=20,
    patience=4,
    antecedents=False,
):
    """Refine the consequents of a NARX rule base on its free-run error (see the module).

    Parameters
    ----------
    narx : NARX
        The lag structure (its ``target`` says whether ``rule_base`` predicts
        outputs or increments).
    rule_base : RuleBase
        The one-step solution, in the units of the regressors.
    fitted, held_out : list of (u, y)
        The records' stretches to fit on and to stop on: ``y`` of shape
        ``(n_steps, n_outputs)``, ``u`` ``(n_steps, n_inputs)`` or None
        (:class:`~randomts.dynamics.records.Records`, or its ``take``).
        A held-out stretch needs more than ``max_lag`` steps. With no
        held-out stretch, ``max_iter`` steps are taken (as many as an earlier
        run with one chose) and the errors are NaN.
    mean, scale : ndarray of shape (n_regressors,)
        The standardisation of the regressors the work is done in (``scale > 0``).
    alpha : float
        Penalty ``>= 0`` on the distance from the start, in standardised units.
    order : {0, 1}, default=1
        Consequent order of ``rule_base``.
    horizon : int, default=200
        Steps of every segment of the multiple shooting (at most those of
        the shortest stretch to fit on).
    max_iter : int, default=20
        Levenberg-Marquardt steps at the most.
    patience : int, default=4
        Steps without a better held-out error before stopping.
    antecedents : bool, default=False
        Refine the rules' centres and widths too (of a rule base of more than
        one rule), the penalty ``alpha`` on their distance from the start as
        well, in standardised units (the widths' logarithms).

    Returns
    -------
    SimulationFit

    Examples
    --------
    A one-step fit from noisy outputs, refined for simulation:

    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> from randomts.dynamics.narx import NARX
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(-1, 1, size=(900, 1)); y = np.zeros((900, 1))
    >>> for k in range(1, 900):
    ...     y[k] = 0.9 * y[k - 1] + 0.5 * np.tanh(2 * u[k - 1])
    >>> measured = y + 0.05 * rng.normal(size=y.shape)
    >>> narx = NARX(y_lags=1, u_lags=1)
    >>> X, Y = narx.regressors(u[:700], measured[:700])
    >>> rules = RuleBase.random(n_features=2, n_rules=10, normalize=True, random_state=0)
    >>> mean, scale = X.mean(axis=0), X.std(axis=0)
    >>> rules = rules.replace(centers=mean + scale * rules.centers, sigmas=scale * rules.sigmas)
    >>> start = rules.fit_consequents(X, Y, alpha=1e-6)
    >>> result = refine_for_simulation(
    ...     narx, start, [(u[:600], measured[:600])], [(u[600:700], measured[600:700])],
    ...     mean=mean, scale=scale, alpha=1e-6)
    >>> bool(result.error <= result.start_error)
    True
    """
    horizon = check_int(horizon, "horizon", low=1)
    max_iter = check_int(max_iter, "max_iter", low=0)
    patience = check_int(patience, "patience", low=1)
    alpha = check_real(alpha, "alpha", low=0.0)
    with one_blas_thread():  # many small steps and solves: BLAS threads only spin
        problem = SimulationProblem(narx, rule_base, mean, scale, order, antecedents)
        result = problem.refine(
            problem.gamma0,
            fitted,
            held_out,
            alpha=alpha,
            horizon=horizon,
            max_iter=max_iter,
            patience=patience,
        )
    refined = rule_base if result.best_iteration == 0 else problem.rules(result.gamma)
    return SimulationFit(
        refined, result.start_error, result.error, result.iterations, result.best_iteration
    )
