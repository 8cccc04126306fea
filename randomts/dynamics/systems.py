"""Nonlinear dynamical systems generated in code, for identification experiments.

Every generator is vectorised over trajectories: it takes an array of
initial conditions (one row per trajectory) and returns all trajectories at
once, a stack of records (:mod:`randomts.dynamics.records`): one per
trajectory, each with time on its own axis 0, ``(n_trajectories, n_steps,
n_variables)``, the last axis left out for a generator of one variable (a
single trajectory is one record, ``(n_steps,)``). ``y[..., None]`` gives the
stack that :class:`~randomts.dynamics.narx.NARX` takes.

====================================  ==========================================================
generator                             system
====================================  ==========================================================
:func:`van_der_pol`                   autonomous oscillator with a limit cycle (the paper's
                                      section 6), forward Euler; state ``(x1, x2)``
:func:`narendra_parthasarathy`        second-order discrete-time plant driven by an input ``u``
                                      (Narendra and Parthasarathy 1990, example 2)
:func:`mackey_glass`                  chaotic delay differential equation, fourth-order
                                      Runge-Kutta, sampled at a fixed period
====================================  ==========================================================
"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_int, check_matrix, check_option, check_real

__all__ = ["van_der_pol", "VAN_DER_POL_FORMS", "narendra_parthasarathy", "mackey_glass"]

#: ``"standard"``: ``dx2/dt = lam (1 - x1^2) x2 - x1`` (attracting limit cycle).
#: ``"paper"``: ``dx2/dt = lam (x1^2 - 1) x2 - x1``, the sign printed in the
#: paper, which is the time-reversed oscillator (its limit cycle repels).
VAN_DER_POL_FORMS = ("standard", "paper")


def van_der_pol(initial_states, n_steps, *, step=0.01, lam=1.0, form="standard"):
    """Van der Pol oscillator integrated by forward Euler, many trajectories at once.

    ``x1' = x2``, ``x2' = lam (1 - x1^2) x2 - x1`` (``form="standard"``) or
    ``x2' = lam (x1^2 - 1) x2 - x1`` (``form="paper"``, as printed in the
    paper: the time-reversed oscillator).

    Parameters
    ----------
    initial_states : array-like of shape (n_trajectories, 2) or (2,)
        Initial ``(x1, x2)`` of each trajectory.
    n_steps : int
        Number of Euler steps; each trajectory has ``n_steps + 1`` states.
    step : float, default=0.01
        Euler step size ``dt > 0``.
    lam : float, default=1.0
        Damping parameter lambda.
    form : {"standard", "paper"}, default="standard"
        Sign convention, see above.

    Returns
    -------
    ndarray of shape (n_trajectories, n_steps + 1, 2)
        ``states[r, t]`` is the state of trajectory ``r`` after ``t`` steps.

    Examples
    --------
    >>> states = van_der_pol([[2.0, 0.0]], n_steps=2, step=0.1)
    >>> states[0].round(12)
    array([[ 2.  ,  0.  ],
           [ 2.  , -0.2 ],
           [ 1.98, -0.34]])
    """
    if np.ndim(initial_states) == 1:
        initial_states = [initial_states]
    X0 = check_matrix(
        initial_states,
        "initial_states",
        n_columns=2,
        column_label="state variables",
        owner="van_der_pol",
    )
    n_steps = check_int(n_steps, "n_steps", low=1)
    step = check_real(step, "step", low=0.0, low_inclusive=False)
    lam = check_real(lam, "lam")
    check_option(form, "form", VAN_DER_POL_FORMS)
    sign = 1.0 if form == "standard" else -1.0
    states = np.empty((X0.shape[0], n_steps + 1, 2))
    states[:, 0] = X0
    x1, x2 = X0[:, 0].copy(), X0[:, 1].copy()
    with np.errstate(over="ignore", invalid="ignore"):
        for t in range(1, n_steps + 1):
            dx1 = x2
            dx2 = sign * lam * (1.0 - x1 * x1) * x2 - x1
            x1, x2 = x1 + step * dx1, x2 + step * dx2
            states[:, t, 0] = x1
            states[:, t, 1] = x2
    return states


def narendra_parthasarathy(u, initial_outputs=None):
    """The Narendra-Parthasarathy plant driven by ``u``, many trajectories at once.

    Example 2 of Narendra and Parthasarathy (1990), a standard benchmark of
    nonlinear identification:

    .. math:: y(k+1) = \\frac{y(k)\\, y(k-1)\\, (y(k) + 2.5)}{1 + y(k)^2 + y(k-1)^2} + u(k).

    The returned outputs share the time axis of ``u``: ``y[:, 0]`` and
    ``y[:, 1]`` are the given initial outputs and ``y[:, k + 1]`` is computed
    from ``y[:, k]``, ``y[:, k - 1]`` and ``u[:, k]`` for ``k >= 1``
    (``u[:, 0]`` and ``u[:, -1]`` are not used): the input and output
    records of :class:`randomts.dynamics.narx.NARX` with ``y_lags=2,
    u_lags=1`` (``NARX(2, 1).regressors(u, y)`` for one trajectory,
    ``regressors(u[..., None], y[..., None])`` for a stack of them).

    Parameters
    ----------
    u : array-like of shape (n_trajectories, n_steps) or (n_steps,)
        Input sequence of each trajectory, ``n_steps >= 2``, finite.
    initial_outputs : array-like of shape (n_trajectories, 2) or (2,), optional
        ``(y(0), y(1))`` of each trajectory; zeros when omitted.

    Returns
    -------
    ndarray of the shape of ``u``
        The outputs ``y(k)``.

    Examples
    --------
    >>> y = narendra_parthasarathy([0.0, 0.5, 1.0, 0.0], initial_outputs=[0.0, 1.0])
    >>> y.tolist()  # y(2) = 1*0*3.5/2 + u(1); y(3) = 0.5*1*3.0/2.25 + u(2)
    [0.0, 1.0, 0.5, 1.6666666666666665]
    """
    one_trajectory = np.ndim(u) == 1
    U = check_matrix(
        np.atleast_2d(u) if one_trajectory else u,
        "u",
        column_label="steps",
        owner="narendra_parthasarathy",
    )
    n_trajectories, n_steps = U.shape
    if n_steps < 2:
        raise ValueError(
            f"Input u must have at least 2 steps (the two initial outputs); got {n_steps}."
        )
    if initial_outputs is None:
        initial = np.zeros((n_trajectories, 2))
    else:
        initial = check_matrix(
            np.atleast_2d(initial_outputs),
            "initial_outputs",
            n_columns=2,
            column_label="initial outputs",
            owner="narendra_parthasarathy",
        )
        if initial.shape[0] == 1:
            initial = np.repeat(initial, n_trajectories, axis=0)
        if initial.shape[0] != n_trajectories:
            raise ValueError(
                f"initial_outputs must have one row per trajectory of u ({n_trajectories}); "
                f"got {initial.shape[0]}."
            )
    Y = np.empty_like(U)
    Y[:, :2] = initial
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(1, n_steps - 1):
            now, before = Y[:, k], Y[:, k - 1]
            Y[:, k + 1] = now * before * (now + 2.5) / (1.0 + now * now + before * before) + U[:, k]
    return Y[0] if one_trajectory else Y


def _mackey_glass_rate(x, delayed, beta, gamma, exponent):
    return beta * delayed / (1.0 + delayed**exponent) - gamma * x


def mackey_glass(
    initial_values,
    n_samples,
    *,
    tau=17.0,
    beta=0.2,
    gamma=0.1,
    exponent=10.0,
    step=0.1,
    sampling_period=1.0,
    history=0.0,
):
    """The Mackey-Glass series, many trajectories at once.

    .. math:: \\frac{dx}{dt} = \\beta \\frac{x(t - \\tau)}{1 + x(t - \\tau)^n} - \\gamma x(t)

    integrated by the classic fourth-order Runge-Kutta scheme with step
    ``step``, the delayed value ``x(t - tau)`` read from the stored grid and
    held over each step (the usual generator of the benchmark), and sampled
    every ``sampling_period``. Before ``t = 0`` the series equals ``history``
    (0 in the classic set-up, with ``x(0) = 1.2``). With ``tau = 17`` the
    series is chaotic.

    Parameters
    ----------
    initial_values : array-like of shape (n_trajectories,) or float
        ``x(0)`` of each trajectory.
    n_samples : int
        Number of samples returned, ``x(0)`` included.
    tau : float, default=17.0
        Delay; must be a positive multiple of ``step``.
    beta, gamma : float, default=(0.2, 0.1)
        Production and decay rates.
    exponent : float, default=10.0
        The exponent ``n``.
    step : float, default=0.1
        Integration step.
    sampling_period : float, default=1.0
        Time between returned samples; a positive multiple of ``step``.
    history : float, default=0.0
        Value of ``x(t)`` for ``-tau <= t < 0``.

    Returns
    -------
    ndarray of shape (n_trajectories, n_samples), or (n_samples,) for a scalar ``initial_values``
        ``x(j * sampling_period)``.

    Examples
    --------
    >>> x = mackey_glass(1.2, n_samples=300)
    >>> x.shape, float(x[0])
    ((300,), 1.2)
    >>> mackey_glass(1.0, n_samples=5, history=1.0).tolist()  # the equilibrium x = 1
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    scalar = np.ndim(initial_values) == 0
    x0 = check_matrix(np.atleast_1d(initial_values), "initial_values", ndim=1, owner="mackey_glass")
    n_samples = check_int(n_samples, "n_samples", low=1)
    step = check_real(step, "step", low=0.0, low_inclusive=False)
    tau = check_real(tau, "tau", low=0.0, low_inclusive=False)
    sampling_period = check_real(sampling_period, "sampling_period", low=0.0, low_inclusive=False)
    beta, gamma = check_real(beta, "beta"), check_real(gamma, "gamma")
    exponent, history = check_real(exponent, "exponent"), check_real(history, "history")
    delay_steps = _whole_steps(tau, step, "tau")
    substeps = _whole_steps(sampling_period, step, "sampling_period")
    n_trajectories = x0.shape[0]
    # ring buffer of the last `delay_steps` grid values: x(t - tau) is buffer[position]
    buffer = np.full((delay_steps, n_trajectories), history)
    out = np.empty((n_trajectories, n_samples))
    out[:, 0] = x0
    x = x0.copy()
    position = 0
    args = (beta, gamma, exponent)
    with np.errstate(over="ignore", invalid="ignore"):
        for sample in range(1, n_samples):
            for _ in range(substeps):
                delayed = buffer[position]
                k1 = step * _mackey_glass_rate(x, delayed, *args)
                k2 = step * _mackey_glass_rate(x + 0.5 * k1, delayed, *args)
                k3 = step * _mackey_glass_rate(x + 0.5 * k2, delayed, *args)
                k4 = step * _mackey_glass_rate(x + k3, delayed, *args)
                buffer[position] = x
                position = (position + 1) % delay_steps
                x = x + (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0
            out[:, sample] = x
    return out[0] if scalar else out


def _whole_steps(duration, step, name):
    """``duration / step`` as a positive int, or raise naming ``name``."""
    ratio = duration / step
    count = int(round(ratio))
    if count < 1 or abs(ratio - count) > 1e-9 * max(ratio, 1.0):
        raise ValueError(
            f"The {name!r} parameter must be a positive whole multiple of step={step!r}. "
            f"Got {duration!r} ({ratio!r} steps) instead."
        )
    return count
