"""The power columns of a polynomial NARX structure: products of its lagged outputs.

A structure's power columns (:class:`~randomts.dynamics.narx.NARX`'s ``powers`` and
``products``) are monomials of its state columns, the lagged outputs. Each is
described by its factors: the state columns it multiplies and their exponents
(:func:`factor_table`). :func:`power_values` computes them and :func:`power_slopes`
their derivatives, in NumPy; the compiled runs of the refinement compute the same
products in the same order.
"""

from __future__ import annotations

import collections
import itertools

import numpy as np

__all__ = ["factor_table", "monomials", "power_slopes", "power_values"]


def monomials(n_state, powers, products):
    """The power columns as terms ``((column, exponent), ...)``: per degree, per state column.

    Without ``products``, every state column alone to every power; with
    them, every monomial of each degree, in lexicographic order of its
    factors.

    Examples
    --------
    >>> monomials(2, (2,), products=False)
    (((0, 2),), ((1, 2),))
    >>> monomials(2, (2,), products=True)
    (((0, 2),), ((0, 1), (1, 1)), ((1, 2),))
    """
    if not products:
        return tuple(((column, power),) for power in powers for column in range(n_state))
    terms = []
    for power in powers:
        for factors in itertools.combinations_with_replacement(range(n_state), power):
            counts = collections.Counter(factors)
            terms.append(tuple(sorted(counts.items())))
    return tuple(terms)


def factor_table(terms):
    """``(sources, exponents)`` of :attr:`NARX.power_columns <randomts.dynamics.narx.NARX.power_columns>`, from :func:`monomials`' terms.

    Examples
    --------
    >>> sources, exponents = factor_table((((0, 2),), ((0, 1), (1, 1))))
    >>> sources.tolist(), exponents.tolist()
    ([[0, 0], [0, 1]], [[2, 0], [1, 1]])
    """
    width = max((len(term) for term in terms), default=1)
    sources = np.zeros((len(terms), width), dtype=np.intp)
    exponents = np.zeros((len(terms), width), dtype=np.intp)
    for row, term in enumerate(terms):
        for factor, (column, exponent) in enumerate(term):
            sources[row, factor], exponents[row, factor] = column, exponent
    return sources, exponents


def power_values(state, sources, exponents):
    """The power columns of lagged outputs ``state`` (..., n_state): shape (..., n_powers).

    ``(sources, exponents)`` as :func:`factor_table` gives them: the
    product of every factor's state column to its exponent, factor by
    factor (the compiled runs multiply in the same order).

    Examples
    --------
    >>> import numpy as np
    >>> power_values(np.array([2.0, 3.0]), np.array([[0, 0], [0, 1]]), np.array([[3, 0], [1, 2]]))
    array([ 8., 18.])
    """
    # every state column's powers once, then the factors' looked up (as the compiled runs do)
    table = state[..., None] ** np.arange(int(exponents.max(initial=0)) + 1)
    values = table[..., sources[:, 0], exponents[:, 0]]
    for factor in range(1, sources.shape[1]):  # an unused factor's power 0 multiplies by 1
        values = values * table[..., sources[:, factor], exponents[:, factor]]
    return values


def power_slopes(state, sources, exponents):
    """d (power column) / d (its factors' state columns): shape (..., n_powers, n_factors).

    Entry ``[..., t, f]`` is the derivative of column ``t`` with respect to
    state column ``sources[t, f]``, 0 for an unused factor (each factor of a
    column is another state column: :func:`monomials` gathers repeats into
    one exponent).

    Examples
    --------
    >>> import numpy as np
    >>> power_slopes(np.array([2.0, 3.0]), np.array([[0, 1]]), np.array([[1, 2]]))  # x y^2
    array([[ 9., 12.]])
    """
    factors = state[..., sources]  # (..., n_powers, n_factors)
    values = factors**exponents  # an unused factor's: 1
    slopes = exponents * factors ** np.maximum(exponents - 1, 0)  # an unused factor's: 0
    for factor in range(sources.shape[1]):
        for other in range(sources.shape[1]):
            if other != factor:
                slopes[..., factor] = slopes[..., factor] * values[..., other]
    return slopes
