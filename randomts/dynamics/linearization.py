"""Local linearisation of a rule base: its Jacobian, and ``f(s, u) ~ A s + B u + O``.

The paper's section 5.4 reads an SLM as a local linear model of a dynamical
system ``s(k+1) = f(s(k), u(k))``. Near an operating point ``(s0, u0)``,

.. math:: f(s, u) \\approx A s + B u + O, \\quad A = \\partial f / \\partial s,\\;
          B = \\partial f / \\partial u,\\; O = f(s_0, u_0) - A s_0 - B u_0.

The derivatives are analytic. With firing strengths
:math:`w_i = \\exp(-\\tfrac12 \\sum_k (x_k - c_{ik})^2 / \\sigma_{ik}^2)`,
:math:`\\partial w_i / \\partial x_k = w_i d_{ik}` with
:math:`d_{ik} = -(x_k - c_{ik}) / \\sigma_{ik}^2`, and rule outputs
:math:`y_i = A_i x + b_i`:

- weighted sum (the SLM), :math:`f = \\sum_i w_i y_i`:
  :math:`J = \\sum_i w_i (y_i d_i^T + A_i)`;
- weighted average, :math:`f = \\sum_i v_i y_i` with :math:`v_i = w_i / \\sum_l w_l`:
  :math:`J = \\sum_i v_i ((y_i - f) d_i^T + A_i)`.

Both are evaluated for many points at once, in row chunks.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from randomts._validation import check_matrix
from randomts.core.inference import rule_base_jacobian
from randomts.fuzzy.rulebase import as_rule_base

__all__ = ["LinearModel", "jacobian", "linearize", "rule_base_jacobian"]


class LinearModel(NamedTuple):
    """The local linear model ``f(s, u) ~ A s + B u + O`` at an operating point.

    Attributes
    ----------
    A : ndarray of shape (..., n_outputs, n_states)
        Derivative with respect to the state.
    B : ndarray of shape (..., n_outputs, n_inputs)
        Derivative with respect to the input (``n_inputs`` may be 0).
    O : ndarray of shape (..., n_outputs)
        Offset, ``f(s0, u0) - A s0 - B u0``.
    """

    A: np.ndarray
    B: np.ndarray
    O: np.ndarray  # noqa: E741 - the paper's name


def jacobian(model, X):
    """Jacobian of a rule base's outputs with respect to its inputs, at every row of ``X``.

    Parameters
    ----------
    model : RuleBase or fitted RandomTSRegressor
        The model (its ``rule_base_`` for an estimator).
    X : array-like of shape (n_samples, n_features) or (n_features,)
        Points.

    Returns
    -------
    ndarray of shape (n_samples, n_outputs, n_features), or (n_outputs, n_features) for 1-D ``X``

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0, 0.0]], sigmas=[[1.0, 2.0]], coef=[[[3.0, -1.0]]])
    >>> jacobian(rb, [0.0, 0.0])  # at the centre only the slopes remain
    array([[ 3., -1.]])
    """
    rule_base = as_rule_base(model, "jacobian")
    one_point = np.ndim(X) == 1
    X = check_matrix(
        np.atleast_2d(X) if one_point else X,
        "X",
        n_columns=rule_base.n_features,
        owner="this rule base",
    )
    J = rule_base_jacobian(
        X,
        rule_base.centers,
        rule_base.sigmas,
        rule_base.coef,
        rule_base.intercept,
        normalize=rule_base.normalize,
    )
    return J[0] if one_point else J


def linearize(model, state, inputs=None):
    """The local linear model ``f(s, u) ~ A s + B u + O`` at operating points.

    The model's inputs are the state ``s`` followed by the inputs ``u``
    (the layout of :meth:`randomts.dynamics.narx.NARX.regressors`); its outputs are
    the next state (or output).

    Parameters
    ----------
    model : RuleBase or fitted RandomTSRegressor
        The dynamical model ``f``.
    state : array-like of shape (n_states,) or (n_points, n_states)
        Operating state(s) ``s0``.
    inputs : array-like of shape (n_inputs,) or (n_points, n_inputs), optional
        Operating input(s) ``u0``; omit for an autonomous model.

    Returns
    -------
    LinearModel
        ``(A, B, O)``, with a leading ``n_points`` axis when ``state`` is 2-D.
        At the operating point ``A s0 + B u0 + O`` equals ``f(s0, u0)`` to
        rounding, and the error grows as the square of the distance from it.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> rb = RuleBase.random(n_features=2, n_rules=4, random_state=0).replace(
    ...     coef=np.ones((4, 1, 2)), intercept=np.ones((4, 1)))
    >>> A, B, O = linearize(rb, state=[0.5], inputs=[-0.2])
    >>> A.shape, B.shape, O.shape
    ((1, 1), (1, 1), (1,))
    >>> bool(np.allclose(A @ [0.5] + B @ [-0.2] + O, rb.predict([[0.5, -0.2]])[0]))
    True
    """
    rule_base = as_rule_base(model, "linearize")
    one_point = np.ndim(state) == 1
    S = check_matrix(
        np.atleast_2d(state) if one_point else state,
        "state",
        column_label="states",
        owner="linearize",
    )
    if inputs is None:
        U = np.empty((S.shape[0], 0))
    else:
        if (np.ndim(inputs) == 1) != one_point:
            raise ValueError(
                f"state and inputs must both be 1-D (one point) or both 2-D (many points); got "
                f"state of shape {np.shape(state)} and inputs of shape {np.shape(inputs)}."
            )
        U = check_matrix(
            np.atleast_2d(inputs) if one_point else inputs,
            "inputs",
            column_label="inputs",
            owner="linearize",
        )
        if U.shape[0] != S.shape[0]:
            raise ValueError(
                f"state and inputs must hold the same number of points; got {S.shape[0]} and "
                f"{U.shape[0]}."
            )
    X = np.hstack([S, U])
    if X.shape[1] != rule_base.n_features:
        raise ValueError(
            f"state ({S.shape[1]} values) and inputs ({U.shape[1]} values) must together make "
            f"the model's {rule_base.n_features} inputs."
        )
    J = jacobian(rule_base, X)
    n_states = S.shape[1]
    A, B = J[:, :, :n_states], J[:, :, n_states:]
    O = rule_base.predict(X) - np.einsum("jmk,jk->jm", J, X)  # noqa: E741
    if one_point:
        return LinearModel(A[0], B[0], O[0])
    return LinearModel(A, B, O)
