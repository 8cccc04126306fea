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
  own Jacobian (:func:`randomts.core.inference.rule_base_jacobian`) times the
  sensitivities of its lagged outputs, plus the design row;
- **Levenberg-Marquardt** steps on ``||r(Gamma)||^2 + alpha ||Gamma -
  Gamma_0||^2``, shrinking toward the one-step solution ``Gamma_0``;
- **early stopping on a held-out stretch**: the last part of every
  experiment is not fitted; after every step the model runs freely over it
  from measured initial outputs, and the best model on it is kept, the
  one-step start included, so that the result is never worse than the start
  on that stretch. A stretch longer than five segments runs in pieces of
  nearly equal length, at most five segments each, every piece from the
  measured outputs before it and all side by side: the steps of one long
  run cost far more than the width of several.

The antecedents stay as drawn. The work is done in standardised regressors
(those the estimators fit in), where the penalty ``alpha`` has its meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from randomts._validation import check_int, check_real
from randomts.core.design import design_matrix, split_coefficients, stack_coefficients
from randomts.core.inference import rule_base_jacobian
from randomts.core.membership import firing_strengths

__all__ = ["SimulationFit", "refine_for_simulation"]

# Residuals (segments x steps x outputs) of one Gauss-Newton system at the most: segments
# beyond are subsampled evenly.
_MAX_RESIDUALS = 12_000
# A held-out stretch runs freely in pieces of at most this many segments' steps, side by side.
_RUN_SEGMENTS = 5


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


class _Problem:
    """The rule base in standardised regressors, its segments, and their runs."""

    def __init__(self, narx, rule_base, mean, scale, order):
        self.narx, self.mean, self.scale, self.order = narx, mean, scale, order
        self.normalize = rule_base.normalize
        # the same model of z = (x - mean) / scale: x = mean + scale z
        self.standardised = rule_base.in_original_units(-mean / scale, 1.0 / scale)
        self.centers, self.sigmas = self.standardised.centers, self.standardised.sigmas
        self.gamma0 = stack_coefficients(
            self.standardised.coef, self.standardised.intercept, order=order
        )
        self.rule_base = rule_base
        n_lags = len(narx.y_lags)
        # the regressor columns that are lagged outputs: (column, output, lag)
        self.state = [
            (m * n_lags + i, m, lag)
            for m in range(narx.n_outputs)
            for i, lag in enumerate(narx.y_lags)
        ]
        self.previous = (
            [m * n_lags + narx.y_lags.index(1) for m in range(narx.n_outputs)]
            if narx.target == "increment"
            else []
        )

    def in_data_units(self, gamma):
        coef, intercept = split_coefficients(
            gamma, self.centers.shape[0], self.centers.shape[1], order=self.order
        )
        refined = self.standardised.replace(coef=coef, intercept=intercept, input_range=None)
        in_data_units = refined.in_original_units(self.mean, self.scale)
        return in_data_units.replace(input_range=self.rule_base.input_range)

    def run(self, gamma, Y, U, horizon, sensitivities):
        """Run every segment ``horizon`` steps; the outputs and their sensitivities to ``Gamma``.

        ``Y`` (n_segments, max_lag + horizon, n_outputs) holds the measured
        outputs (those after ``max_lag`` are replaced by the run's), ``U`` the
        inputs over the same steps (or None).
        """
        narx, lag = self.narx, self.narx.max_lag
        n_segments, _, n_outputs = Y.shape
        q = gamma.shape[0]
        n_parameters = q * n_outputs
        Y = Y.copy()
        coef, intercept = split_coefficients(
            gamma, self.centers.shape[0], self.centers.shape[1], order=self.order
        )
        S = (
            np.zeros((n_segments, lag + horizon, n_outputs, n_parameters))
            if sensitivities
            else None
        )
        with np.errstate(over="ignore", invalid="ignore"):
            for k in range(lag, lag + horizon):
                x = narx.regressor_columns(Y, U, k, k + 1)[:, 0, :]
                z = (x - self.mean) / self.scale
                W = firing_strengths(z, self.centers, self.sigmas, normalize=self.normalize)
                K = design_matrix(W, z, order=self.order)
                out = K @ gamma
                if self.previous:
                    out = out + x[:, self.previous]
                Y[:, k] = out
                if S is None:
                    continue
                dX = np.zeros((n_segments, x.shape[1], n_parameters))
                for column, m, back in self.state:
                    dX[:, column] = S[:, k - back, m]
                J = (
                    rule_base_jacobian(
                        z, self.centers, self.sigmas, coef, intercept, normalize=self.normalize
                    )
                    / self.scale[None, None, :]
                )
                dY = np.einsum("nmd,ndp->nmp", J, dX)
                for m in range(n_outputs):
                    dY[:, m, m * q : (m + 1) * q] += K
                for m, column in enumerate(self.previous):
                    dY[:, m] += dX[:, column]
                S[:, k] = dY
        return Y[:, lag:], (None if S is None else S[:, lag:])


def _segments(narx, experiments, horizon):
    """Windows ``(Y, U)`` of ``max_lag + horizon`` steps, one after another in every experiment."""
    lag = narx.max_lag
    Ys, Us = [], []
    for U, Y in experiments:
        for start in range(lag, Y.shape[0] - horizon + 1, horizon):
            Ys.append(Y[start - lag : start + horizon])
            Us.append(None if U is None else U[start - lag : start + horizon])
    if not Ys:
        return None, None
    Y = np.stack(Ys)
    U = None if Us[0] is None else np.stack(Us)
    n_outputs = Y.shape[2]
    most = max(1, _MAX_RESIDUALS // (horizon * n_outputs))
    if Y.shape[0] > most:  # evenly spread, first and last kept
        keep = np.unique(np.linspace(0, Y.shape[0] - 1, most).round().astype(int))
        Y = Y[keep]
        U = None if U is None else U[keep]
    return Y, U


def _held_out_runs(narx, held_out, longest):
    """The held-out stretches as runs of at most ``longest`` steps, to be run side by side.

    Returns ``(Y, U, counted)``: windows of ``max_lag`` measured initial
    outputs and as many steps as the longest run (``Y`` of shape ``(n_runs,
    max_lag + n_steps, n_outputs)``, ``U`` alike or None), a stretch cut into
    runs of nearly equal length, every run from the measured outputs before
    it; ``counted`` ``(n_runs, n_steps)`` marks the steps that are data
    (a shorter run's inputs are padded with its last input, not counted).
    """
    lag = narx.max_lag
    pieces = []
    for U, Y in held_out:
        n_steps = Y.shape[0] - lag
        n_runs = -(-n_steps // longest)
        edges = (np.arange(n_runs + 1) * n_steps) // n_runs
        for a, b in zip(edges[:-1], edges[1:], strict=True):
            pieces.append((None if U is None else U[a : b + lag], Y[a : b + lag]))
    n_total = max(Y.shape[0] for _, Y in pieces)
    counted = np.zeros((len(pieces), n_total - lag), dtype=bool)
    Ys = np.zeros((len(pieces), n_total, pieces[0][1].shape[1]))
    Us = None if pieces[0][0] is None else np.zeros((len(pieces), n_total, pieces[0][0].shape[1]))
    for i, (U, Y) in enumerate(pieces):
        counted[i, : Y.shape[0] - lag] = True
        Ys[i, : Y.shape[0]] = Y
        if Us is not None:
            Us[i] = np.pad(U, ((0, n_total - U.shape[0]), (0, 0)), mode="edge")
    return Ys, Us, counted


def _held_out_error(problem, gamma, runs):
    """Free-run RMSE over the held-out runs (:func:`_held_out_runs`), ``inf`` if one diverged."""
    Y, U, counted = runs
    simulated, _ = problem.run(gamma, Y, U, counted.shape[1], False)
    error = (simulated - Y[:, problem.narx.max_lag :])[counted]
    if not np.all(np.isfinite(error)):
        return np.inf
    return float(np.sqrt(np.mean(error**2)))


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
):
    """Refine the consequents of a NARX rule base on its free-run error (see the module).

    Parameters
    ----------
    narx : NARX
        The lag structure (its ``target`` says whether ``rule_base`` predicts
        outputs or increments).
    rule_base : RuleBase
        The one-step solution, in the units of the regressors.
    fitted, held_out : list of (U, Y)
        The experiments' stretches to fit on and to stop on: ``Y`` of shape
        ``(n_steps, n_outputs)``, ``U`` ``(n_steps, n_inputs)`` or None.
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
    >>> X, Y = narx.regressors(measured[None, :700, 0], u[None, :700, 0])
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
    alpha = check_real(alpha, "alpha", low=0.0)
    problem = _Problem(narx, rule_base, np.asarray(mean, float), np.asarray(scale, float), order)
    gamma0 = problem.gamma0
    runs = _held_out_runs(narx, held_out, _RUN_SEGMENTS * horizon) if held_out else None
    start_error = _held_out_error(problem, gamma0, runs) if held_out else np.nan
    best = (start_error, rule_base, 0)
    # no longer than the shortest stretch to fit on
    horizon = min(horizon, min(Y.shape[0] for _, Y in fitted) - narx.max_lag)
    Y, U = _segments(narx, fitted, horizon) if horizon >= 1 else (None, None)
    if Y is None or max_iter == 0:
        return SimulationFit(rule_base, start_error, start_error, 0, 0)
    measured = Y[:, narx.max_lag :]

    def objective(gamma):
        simulated, _ = problem.run(gamma, Y, U, horizon, False)
        residual = simulated - measured
        if not np.all(np.isfinite(residual)):
            return np.inf
        return float(np.sum(residual**2) + alpha * np.sum((gamma - gamma0) ** 2))

    gamma, damping, stale, iterations = gamma0.copy(), None, 0, 0
    current = objective(gamma)
    for iterations in range(1, max_iter + 1):
        simulated, S = problem.run(gamma, Y, U, horizon, True)
        residual = (simulated - measured).reshape(-1)
        Jac = S.reshape(residual.size, -1)
        if not (np.all(np.isfinite(residual)) and np.all(np.isfinite(Jac))):
            break
        step_from = (gamma - gamma0).reshape(-1, order="F")
        gradient = Jac.T @ residual + alpha * step_from
        H = Jac.T @ Jac
        H[np.diag_indices_from(H)] += alpha
        if damping is None:
            damping = 1e-3 * float(np.mean(np.diag(H))) or 1e-3
        accepted = False
        while damping < 1e12 * (float(np.mean(np.diag(H))) + 1.0):
            shifted = H.copy()
            shifted[np.diag_indices_from(shifted)] += damping
            try:
                # Cholesky, without a condition estimate: an ill-conditioned step is judged
                # by its objective like any other (a matrix not positive definite raises)
                factor = scipy.linalg.cho_factor(shifted, check_finite=False)
                delta = scipy.linalg.cho_solve(factor, -gradient, check_finite=False)
            except (np.linalg.LinAlgError, ValueError):
                damping *= 10.0
                continue
            candidate = gamma + delta.reshape(gamma.shape, order="F")
            value = objective(candidate)
            if value < current:
                gamma, current, accepted = candidate, value, True
                damping /= 3.0
                break
            damping *= 10.0
        if not accepted:
            break
        refined = problem.in_data_units(gamma)
        if not held_out:  # nothing to stop on: every step is taken
            best = (np.nan, refined, iterations)
            continue
        error = _held_out_error(problem, gamma, runs)
        if error < best[0]:
            best, stale = (error, refined, iterations), 0
        else:
            stale += 1
            if stale >= patience:
                break
    return SimulationFit(best[1], start_error, best[0], iterations, best[2])
