"""What the fitting functions need of a rule base, and the rule base they give back.

The functions of :mod:`randomts.fitting` take the antecedents as any object
with the attributes of a :class:`~randomts.RuleBase` that they read
(:data:`RULE_BASE_ATTRIBUTES`), and build every rule base they return with
that object's own ``replace``: none of them names a model class.
"""

from __future__ import annotations

import numpy as np

from randomts._validation import check_real
from randomts.core.design import split_coefficients

__all__ = [
    "RULE_BASE_ATTRIBUTES",
    "check_alpha",
    "check_rule_base",
    "with_chosen_consequents",
    "with_consequents",
]

#: What the fitting functions read of a rule base: its antecedents, sizes, names and
#: metadata, ``replace``, which builds the rule bases they return, and ``subset``.
RULE_BASE_ATTRIBUTES = (
    "centers",
    "sigmas",
    "normalize",
    "n_rules",
    "n_features",
    "n_outputs",
    "input_names",
    "output_names",
    "metadata",
    "replace",
    "subset",
)
# ``replace`` takes ``check_input=False`` for the arrays the fits compute


def check_rule_base(obj, name="antecedents"):
    """Return ``obj`` if it has the attributes of a rule base, else raise a TypeError.

    Parameters
    ----------
    obj : object
        The object given as a rule base.
    name : str, default="antecedents"
        The parameter it was given as, for the message.

    Returns
    -------
    object
        ``obj`` itself.

    Raises
    ------
    TypeError
        If ``obj`` lacks one of :data:`RULE_BASE_ATTRIBUTES` (``replace``
        and ``subset`` must be callable).

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]])
    >>> check_rule_base(rb) is rb
    True
    >>> check_rule_base("rules", "rule_base")
    Traceback (most recent call last):
    ...
    TypeError: rule_base must be a RuleBase; got str.
    """
    if not all(hasattr(obj, attribute) for attribute in RULE_BASE_ATTRIBUTES) or not (
        callable(obj.replace) and callable(obj.subset)
    ):
        raise TypeError(f"{name} must be a RuleBase; got {type(obj).__name__}.")
    return obj


def check_alpha(alpha, *, owner=None):
    """Return ``"auto"`` or ``alpha`` as a float ``>= 0``, or raise naming ``alpha``.

    Parameters
    ----------
    alpha : "auto" or float
        The ridge penalty, or ``"auto"`` for its leave-one-out choice.
    owner : str, optional
        The object whose parameter it is, for the message.

    Returns
    -------
    "auto" or float

    Raises
    ------
    ValueError
        For a string other than ``"auto"``, a negative or a non-finite number.
    TypeError
        For anything that is neither a string nor a real number.

    Examples
    --------
    >>> check_alpha("auto"), check_alpha(1)
    ('auto', 1.0)
    >>> check_alpha("best")
    Traceback (most recent call last):
    ...
    ValueError: The 'alpha' parameter must be 'auto' or a float >= 0. Got 'best' instead.
    >>> check_alpha(-1.0, owner="RandomTSRegressor")
    Traceback (most recent call last):
    ...
    ValueError: The 'alpha' parameter of RandomTSRegressor must be a finite real number in the range [0.0, inf). Got -1.0 instead.
    """
    if isinstance(alpha, str):
        if alpha == "auto":
            return alpha
        where = f" of {owner}" if owner else ""
        raise ValueError(
            f"The 'alpha' parameter{where} must be 'auto' or a float >= 0. Got {alpha!r} instead."
        )
    return check_real(alpha, "alpha", low=0.0, owner=owner)


def with_consequents(
    antecedents, coefficients, *, order=1, output_names=None, check_input=True, **changes
):
    """The antecedents with the consequents of a stacked solution ``Gamma``.

    Parameters
    ----------
    antecedents : RuleBase
        The rules (their consequents are replaced).
    coefficients : ndarray of shape (n_columns, n_outputs)
        ``Gamma``, laid out as :func:`randomts.core.design.split_coefficients`
        reads it; ``n_outputs`` may differ from the antecedents'.
    order : {0, 1}, default=1
        Consequent order ``Gamma`` was fitted with.
    output_names : sequence of str, optional
        Output names; by default those of the antecedents when their number
        matches, else ``y1..ym``.
    check_input : bool, default=True
        False for coefficients a solver of randomts gave (finite float64):
        the rule base is built from them unchecked.
    **changes
        Other arguments of ``antecedents.replace`` (``input_range``,
        ``output_range``, ``metadata``, ...); the recorded ranges not given
        are kept as ``replace`` keeps them.

    Returns
    -------
    RuleBase
        Built by ``antecedents.replace``.

    Examples
    --------
    >>> import numpy as np
    >>> from randomts import RuleBase
    >>> antecedents = RuleBase(centers=[[0.0], [1.0]], sigmas=[[1.0], [1.0]])
    >>> gamma = np.array([[2.0, 0.0], [0.5, 1.0], [-1.0, 0.0], [3.0, 1.0]])
    >>> rb = with_consequents(antecedents, gamma)
    >>> rb.n_outputs, rb.output_names, rb.coef[:, :, 0].tolist(), rb.intercept.tolist()
    (2, ('y1', 'y2'), [[2.0, 0.0], [-1.0, 0.0]], [[0.5, 1.0], [3.0, 1.0]])
    """
    coefficients = np.asarray(coefficients, dtype=float)
    coef, intercept = split_coefficients(
        coefficients, antecedents.n_rules, antecedents.n_features, order=order
    )
    if output_names is None and coefficients.shape[1] == antecedents.n_outputs:
        output_names = antecedents.output_names
    return antecedents.replace(
        coef=coef,
        intercept=intercept,
        output_names=output_names,
        check_input=check_input,
        **changes,
    )


def with_chosen_consequents(antecedents, selection, *, order, input_range, output_range):
    """The antecedents with the consequents a cross-validated choice fitted, and what it chose.

    ``selection`` is an :class:`~randomts.fitting.ridge.AlphaSelection`
    or a :class:`~randomts.fitting.local_learning.LearningSelection`: its
    ``coefficients`` become the consequents, its ``alpha`` (and
    ``local_weight``, when it chose one) are recorded in the metadata, and
    the ranges are those of the rows it was fitted on.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from randomts import RuleBase
    >>> antecedents = RuleBase(centers=[[0.0]], sigmas=[[1.0]])
    >>> chosen = SimpleNamespace(coefficients=np.array([[2.0], [1.0]]), alpha=0.5)
    >>> rb = with_chosen_consequents(antecedents, chosen, order=1, input_range=[[-1.0, 1.0]],
    ...                              output_range=[[0.0, 3.0]])
    >>> rb.metadata["alpha"], rb.coef.ravel().tolist(), rb.intercept.ravel().tolist()
    (0.5, [2.0], [1.0])
    """
    metadata = antecedents.metadata
    metadata["alpha"] = selection.alpha
    local_weight = getattr(selection, "local_weight", None)
    if local_weight is not None:
        metadata["local_weight"] = local_weight
    return with_consequents(
        antecedents,
        selection.coefficients,
        order=order,
        input_range=input_range,
        output_range=output_range,
        metadata=metadata,
        check_input=False,
    )
