"""The base of every term: parameters stored, checked and printed."""

from __future__ import annotations

import math

import numpy as np


def _number(value, owner, name):
    try:
        number = float(value)
    except OverflowError:  # an integer beyond the floats
        number = math.inf if value > 0 else -math.inf
    except (TypeError, ValueError):
        raise TypeError(
            f"The {name!r} parameter of {owner} must be a real number; got {value!r}."
        ) from None
    if not math.isfinite(number):
        raise ValueError(f"The {name!r} parameter of {owner} must be finite; got {number!r}.")
    return number


class Term:
    """Base class of the terms: a type name, parameters, and a membership function.

    Subclasses set ``names`` (the parameters in order), ``matlab`` (MATLAB's
    name, if any), ``fuzzylite_fis`` (the name fuzzylite's FIS files give a
    function MATLAB lacks, if any) and ``_evaluate``. Terms are immutable and equal by type and
    parameters.

    Examples
    --------
    >>> from randomts.fuzzy.terms import Gaussian
    >>> Gaussian(0.0, 1.0) == Gaussian(0.0, 1.0), Gaussian(0.0, 1.0).parameters
    (True, (0.0, 1.0, 1.0))
    """

    names: tuple = ()
    matlab: str | None = None
    fuzzylite_fis: str | None = None
    has_height = True

    def __init__(self, *parameters, height=1.0):
        kind = type(self).__name__
        if len(parameters) != len(self.names):
            raise ValueError(
                f"{kind} takes {len(self.names)} parameters ({', '.join(self.names)}); "
                f"got {len(parameters)}."
            )
        values = tuple(_number(v, kind, n) for v, n in zip(parameters, self.names, strict=False))
        if self.has_height:
            values += (_number(height, kind, "height"),)
        self._parameters = values
        self._check()

    def _check(self):
        """Raise ValueError for parameters outside the function's domain."""

    def _fail(self, condition):
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(self.names, self._parameters, strict=False))
        raise ValueError(f"{type(self).__name__} needs {condition}; got {shown}.")

    @property
    def parameters(self) -> tuple:
        """The parameters in order (``height`` last, for terms that have one)."""
        return self._parameters

    @property
    def height(self) -> float:
        """The term's height (its largest membership), 1 unless given."""
        return self._parameters[-1] if self.has_height else 1.0

    def __call__(self, x) -> np.ndarray:
        """Membership of every value of ``x`` (an array of finite numbers), in its shape."""
        x = np.asarray(x, dtype=float)
        y = self._evaluate(np.atleast_1d(x).ravel(), *self._parameters[: len(self.names)])
        y = np.asarray(y, dtype=float).reshape(x.shape)
        return y if self.height == 1.0 else self.height * y

    def __eq__(self, other):
        if not isinstance(other, Term):
            return NotImplemented
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def _key(self):
        return self._parameters

    def _shown_parameters(self):
        values = list(self._parameters[: len(self.names)])
        return values, (self.height if self.has_height and self.height != 1.0 else None)

    def __repr__(self) -> str:
        return self.to_text()

    def to_text(self, precision=None) -> str:
        """``Type(p1, p2, ...)``, with ``height=h`` when it is not 1.

        Examples
        --------
        >>> from randomts.fuzzy.terms import Gaussian
        >>> Gaussian(0.123456, 1.0, height=0.5).to_text(precision=3)
        'Gaussian(0.123, 1, height=0.5)'
        """
        from randomts.text.numbers import format_number

        values, height = self._shown_parameters()
        parts = [format_number(v, precision) for v in values]
        if height is not None:
            parts.append(f"height={format_number(height, precision)}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def to_fll(self):
        """fuzzylite's type name and parameters, ``height`` last when it is not 1.

        Examples
        --------
        >>> from randomts.fuzzy.terms import Linear, Ramp
        >>> Ramp(0.0, 2.0, height=0.5).to_fll()
        ('Ramp', [0.0, 2.0, 0.5])
        >>> Linear([1.0], 2.0).to_fll()
        ('Linear', [1.0, 2.0])
        """
        values, height = self._shown_parameters()
        return type(self).__name__, values + ([] if height is None else [height])

    def to_matlab(self):
        """MATLAB's type and parameter vector, or ValueError if MATLAB has no such function.

        Examples
        --------
        >>> from randomts.fuzzy.terms import Bell
        >>> Bell(5.0, 2.0, 3.0).to_matlab()
        ('gbellmf', [2.0, 3.0, 5.0])
        """
        kind = type(self).__name__
        if self.matlab is None:
            raise ValueError(f"MATLAB has no membership function like fuzzylite's {kind}.")
        if self.height != 1.0:
            raise ValueError(
                f"MATLAB's {self.matlab} has height 1; this {kind} has height {self.height!r}."
            )
        return self.matlab, self._matlab_parameters()

    def _matlab_parameters(self):
        return list(self._parameters[: len(self.names)])


# ----------------------------------------------------------------- input terms
