"""Output terms: the constant and linear consequents of a Sugeno system."""

from __future__ import annotations

import numpy as np

from randomts.fuzzy.terms._base import Term


class Constant(Term):
    """A constant consequent ``y = value`` (MATLAB ``constant``).

    Examples
    --------
    >>> import numpy as np
    >>> Constant(2.5).evaluate(np.zeros((3, 2)))
    array([2.5, 2.5, 2.5])
    """

    names = ("value",)
    matlab = "constant"
    has_height = False

    @property
    def value(self) -> float:
        """The constant."""
        return self._parameters[0]

    def evaluate(self, X) -> np.ndarray:
        """The consequent at every row of ``X`` (n_samples, n_features)."""
        return np.full(np.shape(X)[0], self.value)

    def __call__(self, x):
        return np.full(np.shape(x), self.value)


class Linear(Term):
    """A linear consequent ``y = c_1 x_1 + c_2 x_2 + constant`` and so on (MATLAB ``linear``).

    Parameters
    ----------
    coefficients : sequence of float
        One per input, in the inputs' order.
    constant : float, optional
        The intercept (0 unless given).

    Examples
    --------
    >>> import numpy as np
    >>> term = Linear([1.0, -2.0], 0.5)
    >>> term.evaluate(np.array([[1.0, 1.0]]))
    array([-0.5])
    >>> term.to_matlab()
    ('linear', [1.0, -2.0, 0.5])
    """

    matlab = "linear"
    has_height = False

    def __init__(self, coefficients, constant=0.0):
        coefficients = list(np.atleast_1d(np.asarray(coefficients, dtype=object)))
        self.names = tuple(f"c{k + 1}" for k in range(len(coefficients))) + ("constant",)
        super().__init__(*coefficients, constant)

    @property
    def coefficients(self) -> np.ndarray:
        """The input coefficients, shape (n_features,)."""
        return np.array(self._parameters[:-1])

    @property
    def constant(self) -> float:
        """The intercept."""
        return self._parameters[-1]

    def evaluate(self, X) -> np.ndarray:
        """The consequent at every row of ``X`` (n_samples, n_features)."""
        return np.asarray(X, dtype=float) @ self.coefficients + self.constant

    def __call__(self, x):
        raise TypeError("A Linear term is evaluated on the inputs: use evaluate(X).")

    def to_text(self, precision=None) -> str:
        """``Linear(c_1, ..., c_n, constant)``.

        Examples
        --------
        >>> Linear([1.0], 2.0).to_text()
        'Linear(1.0, 2.0)'
        """
        return super().to_text(precision)
