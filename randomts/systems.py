"""Nonlinear dynamical systems generated in code, for identification experiments.

Every generator is vectorised over trajectories: it takes an array of
initial states (one row per trajectory) and returns all trajectories at once.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_int, check_matrix, check_option, check_real

__all__ = ["van_der_pol", "VAN_DER_POL_FORMS"]

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
    X0 = check_matrix(initial_states, "initial_states", n_columns=2, column_label="state variables",
                      owner="van_der_pol")
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
