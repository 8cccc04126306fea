"""Membership-function terms of a general Takagi-Sugeno system: each stores its parameters.

A term is a small immutable object: its type, its parameters, and its
membership function. Printing, export and evaluation read the same numbers.

Input terms (the names are fuzzylite's; MATLAB's name is given where MATLAB
has the same function, and :func:`from_matlab` reads MATLAB's parameter order;
fuzzylite's own FIS files also name ``Ramp`` ``rampmf``, parameters
``[start end]``, which :func:`from_fis` reads and MATLAB does not):

=====================  ============  ==========================================
term                   FIS           parameters (``height`` is optional, 1)
=====================  ============  ==========================================
``Triangle``           ``trimf``     left, top, right
``Trapezoid``          ``trapmf``    bottom_left, top_left, top_right, bottom_right
``Gaussian``           ``gaussmf``   mean, standard_deviation
``GaussianProduct``    ``gauss2mf``  mean_a, standard_deviation_a, mean_b, standard_deviation_b
``Bell``               ``gbellmf``   center, width, slope
``Sigmoid``            ``sigmf``     inflection, slope
``SigmoidDifference``  ``dsigmf``    left, rising, falling, right
``SigmoidProduct``     ``psigmf``    left, rising, falling, right
``SShape``             ``smf``       start, end
``ZShape``             ``zmf``       start, end
``PiShape``            ``pimf``      bottom_left, top_left, top_right, bottom_right
``Ramp``               (``rampmf``)  start, end
``Rectangle``                        start, end
``Cosine``                           center, width
``Concave``                          inflection, end
``Spike``                            center, width
``Discrete``                         x_1, y_1, ..., x_k, y_k
=====================  ============  ==========================================

Output terms: ``Constant`` (MATLAB ``constant``) and ``Linear`` (MATLAB
``linear``: the coefficients of the inputs, then the constant).

Where scikit-fuzzy's functions (``skfuzzy.membership``) equal MATLAB's
definitions they are used (trimf, trapmf, gaussmf, gbellmf, sigmf, psigmf,
smf, zmf, pimf; the tests compare them with GNU Octave's); the others are
written here after fuzzylite's definitions. ``SigmoidDifference`` is
``|f1 - f2|`` as in MATLAB and fuzzylite (GNU Octave's ``dsigmf`` clamps
``f1 - f2`` at 0 instead; the two agree wherever ``f1 >= f2``, as for the usual
bump with ``rising, falling > 0`` and ``left < right``).

Examples
--------
>>> import numpy as np
>>> term = Triangle(0.0, 1.0, 3.0)
>>> term(np.array([0.5, 1.0, 2.0, 4.0]))
array([0.5, 1. , 0.5, 0. ])
>>> from_matlab("gaussmf", [2.0, 5.0])
Gaussian(5.0, 2.0)
"""

from __future__ import annotations

import math

import numpy as np
from skfuzzy import membership as _skfuzzy

from randomts.core.membership import SMALLEST_WIDTH, gaussian

__all__ = [
    "Term",
    "Triangle",
    "Trapezoid",
    "Gaussian",
    "GaussianProduct",
    "Bell",
    "Sigmoid",
    "SigmoidDifference",
    "SigmoidProduct",
    "SShape",
    "ZShape",
    "PiShape",
    "Ramp",
    "Rectangle",
    "Cosine",
    "Concave",
    "Spike",
    "Discrete",
    "Constant",
    "Linear",
    "INPUT_TERMS",
    "OUTPUT_TERMS",
    "MATLAB_TERMS",
    "FIS_TERMS",
    "from_matlab",
    "from_fis",
    "make_term",
]


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


class Triangle(Term):
    """Triangle: 0 outside ``[left, right]``, 1 at ``top`` (MATLAB ``trimf``).

    Examples
    --------
    >>> Triangle(0.0, 1.0, 2.0)([0.25, 1.5])
    array([0.25, 0.5 ])
    """

    names = ("left", "top", "right")
    matlab = "trimf"

    def _check(self):
        a, b, c = self._parameters[:3]
        if not a <= b <= c:
            self._fail("left <= top <= right")

    def _evaluate(self, x, a, b, c):
        return _skfuzzy.trimf(x, [a, b, c])


class Trapezoid(Term):
    """Trapezoid: 1 on ``[top_left, top_right]``, 0 outside the bottom (MATLAB ``trapmf``).

    Examples
    --------
    >>> Trapezoid(0.0, 1.0, 2.0, 4.0)([0.5, 1.5, 3.0])
    array([0.5, 1. , 0.5])
    """

    names = ("bottom_left", "top_left", "top_right", "bottom_right")
    matlab = "trapmf"

    def _check(self):
        a, b, c, d = self._parameters[:4]
        if not a <= b <= c <= d:
            self._fail("bottom_left <= top_left <= top_right <= bottom_right")

    def _evaluate(self, x, a, b, c, d):
        return _skfuzzy.trapmf(x, [a, b, c, d])


class Gaussian(Term):
    """Gaussian ``exp(-(x - mean)^2 / (2 sd^2))`` (MATLAB ``gaussmf``, parameters ``[sd mean]``).

    Examples
    --------
    >>> Gaussian(0.0, 1.0)([0.0, 1.0]).round(4)
    array([1.    , 0.6065])
    """

    names = ("mean", "standard_deviation")
    matlab = "gaussmf"

    def _check(self):
        if not self._parameters[1] >= SMALLEST_WIDTH:
            self._fail(f"standard_deviation >= {SMALLEST_WIDTH!r} (a normal float)")

    def _evaluate(self, x, mean, sd):
        return gaussian(x, mean, sd)

    def _matlab_parameters(self):
        return [self._parameters[1], self._parameters[0]]


class GaussianProduct(Term):
    """Two Gaussian shoulders: 1 between ``mean_a`` and ``mean_b`` (MATLAB ``gauss2mf``).

    MATLAB's parameters are ``[sd_a mean_a sd_b mean_b]``; the function is
    the product of the left shoulder (1 right of ``mean_a``) and the right one.

    Examples
    --------
    >>> GaussianProduct(0.0, 1.0, 2.0, 1.0)([1.0, 3.0]).round(4)
    array([1.    , 0.6065])
    """

    names = ("mean_a", "standard_deviation_a", "mean_b", "standard_deviation_b")
    matlab = "gauss2mf"

    def _check(self):
        if not (self._parameters[1] >= SMALLEST_WIDTH and self._parameters[3] >= SMALLEST_WIDTH):
            self._fail(f"standard deviations >= {SMALLEST_WIDTH!r} (normal floats)")

    def _evaluate(self, x, mean_a, sd_a, mean_b, sd_b):
        left = np.where(x < mean_a, gaussian(x, mean_a, sd_a), 1.0)
        right = np.where(x > mean_b, gaussian(x, mean_b, sd_b), 1.0)
        return left * right

    def _matlab_parameters(self):
        m_a, s_a, m_b, s_b = self._parameters[:4]
        return [s_a, m_a, s_b, m_b]


class Bell(Term):
    """Generalised bell ``1 / (1 + |(x - center) / width|^(2 slope))`` (MATLAB ``gbellmf``).

    MATLAB's parameters are ``[width slope center]``.

    Examples
    --------
    >>> Bell(0.0, 2.0, 1.0)([0.0, 2.0])
    array([1. , 0.5])
    """

    names = ("center", "width", "slope")
    matlab = "gbellmf"

    def _check(self):
        if self._parameters[1] == 0:
            self._fail("width != 0")

    def _evaluate(self, x, center, width, slope):
        return _skfuzzy.gbellmf(x, width, slope, center)

    def _matlab_parameters(self):
        c, w, s = self._parameters[:3]
        return [w, s, c]


class Sigmoid(Term):
    """Sigmoid ``1 / (1 + exp(-slope (x - inflection)))`` (MATLAB ``sigmf``).

    MATLAB's parameters are ``[slope inflection]``.

    Examples
    --------
    >>> Sigmoid(1.0, 2.0)([1.0])
    array([0.5])
    """

    names = ("inflection", "slope")
    matlab = "sigmf"

    def _evaluate(self, x, inflection, slope):
        return _skfuzzy.sigmf(x, inflection, slope)

    def _matlab_parameters(self):
        return [self._parameters[1], self._parameters[0]]


def _sigmoid(x, inflection, slope):
    return 1.0 / (1.0 + np.exp(-slope * (x - inflection)))


class SigmoidDifference(Term):
    """``|f1 - f2|`` of two sigmoids (MATLAB ``dsigmf``, ``[rising left falling right]``).

    ``f1`` rises at ``left`` with slope ``rising``; ``f2`` at ``right`` with
    slope ``falling``. MATLAB and fuzzylite take the absolute difference;
    GNU Octave clamps the difference at 0 (they differ only where ``f1 < f2``).

    Examples
    --------
    >>> SigmoidDifference(0.0, 10.0, 10.0, 2.0)([1.0]).round(4)
    array([0.9999])
    """

    names = ("left", "rising", "falling", "right")
    matlab = "dsigmf"

    def _evaluate(self, x, left, rising, falling, right):
        return np.abs(_sigmoid(x, left, rising) - _sigmoid(x, right, falling))

    def _matlab_parameters(self):
        left, rising, falling, right = self._parameters[:4]
        return [rising, left, falling, right]


class SigmoidProduct(Term):
    """Product of two sigmoids (MATLAB ``psigmf``, ``[rising left falling right]``).

    Examples
    --------
    >>> SigmoidProduct(0.0, 10.0, -10.0, 2.0)([1.0]).round(4)
    array([0.9999])
    """

    names = ("left", "rising", "falling", "right")
    matlab = "psigmf"

    def _evaluate(self, x, left, rising, falling, right):
        return _skfuzzy.psigmf(x, left, rising, right, falling)

    def _matlab_parameters(self):
        left, rising, falling, right = self._parameters[:4]
        return [rising, left, falling, right]


class SShape(Term):
    """S-shaped spline from 0 at ``start`` to 1 at ``end`` (MATLAB ``smf``).

    Examples
    --------
    >>> SShape(0.0, 2.0)([0.5, 1.0, 3.0])
    array([0.125, 0.5  , 1.   ])
    """

    names = ("start", "end")
    matlab = "smf"

    def _check(self):
        if not self._parameters[0] < self._parameters[1]:
            self._fail("start < end")

    def _evaluate(self, x, start, end):
        return _skfuzzy.smf(x, start, end)


class ZShape(Term):
    """Z-shaped spline from 1 at ``start`` to 0 at ``end`` (MATLAB ``zmf``).

    Examples
    --------
    >>> ZShape(0.0, 2.0)([0.5, 1.0, 3.0])
    array([0.875, 0.5  , 0.   ])
    """

    names = ("start", "end")
    matlab = "zmf"

    def _check(self):
        if not self._parameters[0] < self._parameters[1]:
            self._fail("start < end")

    def _evaluate(self, x, start, end):
        return _skfuzzy.zmf(x, start, end)


class PiShape(Term):
    """S-shape up, flat top, Z-shape down (MATLAB ``pimf``).

    Examples
    --------
    >>> PiShape(0.0, 1.0, 2.0, 4.0)([0.5, 1.5, 3.0])
    array([0.5, 1. , 0.5])
    """

    names = ("bottom_left", "top_left", "top_right", "bottom_right")
    matlab = "pimf"

    def _check(self):
        a, b, c, d = self._parameters[:4]
        if not a < b <= c < d:
            self._fail("bottom_left < top_left <= top_right < bottom_right")

    def _evaluate(self, x, a, b, c, d):
        return _skfuzzy.pimf(x, a, b, c, d)


class Ramp(Term):
    """Ramp from 0 at ``start`` to 1 at ``end`` (falling when ``end < start``), fuzzylite's Ramp.

    ``(x - start) / (end - start)`` between the two, 1 beyond ``end`` and 0
    beyond ``start``; ``start == end`` is refused (fuzzylite answers NaN
    there). fuzzylite's FIS files write it ``'rampmf',[start end]``; MATLAB
    has no such function.

    Examples
    --------
    >>> Ramp(0.0, 2.0)([-1.0, 0.5, 3.0]), Ramp(2.0, 0.0)([0.5])
    (array([0.  , 0.25, 1.  ]), array([0.75]))
    >>> Ramp(1.0, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: Ramp needs start != end; got start=1.0, end=1.0.
    """

    names = ("start", "end")
    fuzzylite_fis = "rampmf"

    def _check(self):
        if self._parameters[0] == self._parameters[1]:
            self._fail("start != end")

    def _evaluate(self, x, start, end):
        if start < end:
            return np.clip((x - start) / (end - start), 0.0, 1.0)
        return np.clip((start - x) / (start - end), 0.0, 1.0)


class Rectangle(Term):
    """1 on ``[start, end]``, 0 elsewhere.

    Examples
    --------
    >>> Rectangle(0.0, 1.0)([-0.5, 0.0, 1.0, 1.5])
    array([0., 1., 1., 0.])
    """

    names = ("start", "end")

    def _evaluate(self, x, start, end):
        low, high = min(start, end), max(start, end)
        return ((low <= x) & (x <= high)).astype(float)


class Cosine(Term):
    """Raised cosine of full width ``width`` centred at ``center``.

    Examples
    --------
    >>> Cosine(0.0, 2.0)([0.0, 0.5, 2.0])
    array([1. , 0.5, 0. ])
    """

    names = ("center", "width")

    def _check(self):
        if self._parameters[1] == 0:
            self._fail("width != 0")

    def _evaluate(self, x, center, width):
        inside = (x >= center - 0.5 * width) & (x <= center + 0.5 * width)
        return np.where(inside, 0.5 * (1.0 + np.cos(2.0 / width * np.pi * (x - center))), 0.0)


class Concave(Term):
    """Concave curve reaching 1 at ``end`` (increasing if ``inflection <= end``).

    Examples
    --------
    >>> Concave(0.0, 1.0)([0.0, 1.0, 2.0])
    array([0.5, 1. , 1. ])
    """

    names = ("inflection", "end")

    def _evaluate(self, x, i, e):
        increasing = (i <= e) & (x < e)
        decreasing = (i >= e) & (x > e)
        with np.errstate(divide="ignore", invalid="ignore"):
            up = (e - i) / (2.0 * e - i - x)
            down = (i - e) / (i - 2.0 * e + x)
        return np.where(increasing, up, np.where(decreasing, down, 1.0))


class Spike(Term):
    """``exp(-|10 (x - center) / width|)``.

    Examples
    --------
    >>> Spike(0.0, 10.0)([0.0, 1.0]).round(4)
    array([1.    , 0.3679])
    """

    names = ("center", "width")

    def _check(self):
        if self._parameters[1] == 0:
            self._fail("width != 0")

    def _evaluate(self, x, center, width):
        return np.exp(-np.abs(10.0 / width * (x - center)))


class Discrete(Term):
    """Linear interpolation of points ``(x_1, y_1), ..., (x_k, y_k)``, flat beyond the ends.

    Parameters
    ----------
    *xy : float
        ``x_1, y_1, x_2, y_2, ...`` with the ``x`` in increasing order.
    height : float, optional
        Multiplies the interpolated values.

    Examples
    --------
    >>> Discrete(0.0, 0.0, 1.0, 1.0, 2.0, 0.0)([0.5, 1.5, 3.0])
    array([0.5, 0.5, 0. ])
    """

    def __init__(self, *xy, height=1.0):
        if len(xy) < 2 or len(xy) % 2:
            raise ValueError(
                f"Discrete takes pairs x_1, y_1, ..., x_k, y_k; got {len(xy)} number(s)."
            )
        self.names = tuple(f"{c}_{k // 2 + 1}" for k, c in enumerate("xy" * (len(xy) // 2)))
        super().__init__(*xy, height=height)

    def _check(self):
        xs = self._parameters[: len(self.names)][0::2]
        if any(b <= a for a, b in zip(xs, xs[1:], strict=False)):
            self._fail("x values in increasing order")

    def _evaluate(self, x, *xy):
        return np.interp(x, xy[0::2], xy[1::2])


# ---------------------------------------------------------------- output terms


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


#: Input terms by fuzzylite's type name.
INPUT_TERMS = {
    cls.__name__: cls
    for cls in (
        Triangle,
        Trapezoid,
        Gaussian,
        GaussianProduct,
        Bell,
        Sigmoid,
        SigmoidDifference,
        SigmoidProduct,
        SShape,
        ZShape,
        PiShape,
        Ramp,
        Rectangle,
        Cosine,
        Concave,
        Spike,
        Discrete,
    )
}

#: Output (consequent) terms by type name.
OUTPUT_TERMS = {"Constant": Constant, "Linear": Linear}

#: Term classes by MATLAB's membership-function name.
MATLAB_TERMS = {
    cls.matlab: cls for cls in [*INPUT_TERMS.values(), *OUTPUT_TERMS.values()] if cls.matlab
}

#: Term classes by the names FIS files give them: MATLAB's, and fuzzylite's for the others.
FIS_TERMS = {
    **MATLAB_TERMS,
    **{cls.fuzzylite_fis: cls for cls in INPUT_TERMS.values() if cls.fuzzylite_fis},
}


def make_term(kind, parameters):
    """The term of type name ``kind`` (fuzzylite's) from its parameters in order.

    ``height`` may follow the parameters of input terms (fuzzylite's layout);
    ``Linear`` takes the coefficients then the constant.

    Examples
    --------
    >>> make_term("Triangle", [0.0, 1.0, 2.0, 0.5])
    Triangle(0.0, 1.0, 2.0, height=0.5)
    >>> make_term("Linear", [1.0, 2.0, 3.0])
    Linear(1.0, 2.0, 3.0)
    """
    parameters = list(parameters)
    if kind == "Constant":
        return Constant(*parameters)
    if kind == "Linear":
        if not parameters:
            raise ValueError("Linear takes the coefficients and the constant; got none.")
        return Linear(parameters[:-1], parameters[-1])
    if kind not in INPUT_TERMS:
        known = sorted(INPUT_TERMS) + sorted(OUTPUT_TERMS)
        raise ValueError(f"Unknown term type {kind!r}; known: {', '.join(known)}.")
    cls = INPUT_TERMS[kind]
    if cls is Discrete:
        height = parameters.pop() if len(parameters) % 2 else 1.0
        return Discrete(*parameters, height=height)
    count = len(cls.names)
    if len(parameters) not in (count, count + 1):
        raise ValueError(
            f"{kind} takes {count} parameters ({', '.join(cls.names)}) and an optional "
            f"height; got {len(parameters)}."
        )
    return cls(*parameters[:count], height=parameters[count] if len(parameters) > count else 1.0)


def from_matlab(kind, parameters):
    """The term of MATLAB's membership function ``kind`` with MATLAB's parameter vector.

    Examples
    --------
    >>> from_matlab("gbellmf", [2.0, 3.0, 5.0])
    Bell(5.0, 2.0, 3.0)
    >>> from_matlab("linear", [1.0, 2.0, 3.0])
    Linear(1.0, 2.0, 3.0)
    """
    p = list(parameters)
    if kind not in MATLAB_TERMS:
        raise ValueError(
            f"Unknown MATLAB membership function {kind!r}; known: "
            f"{', '.join(sorted(MATLAB_TERMS))}."
        )
    cls = MATLAB_TERMS[kind]
    if cls is Linear:
        if not p:
            raise ValueError("'linear' takes the coefficients and the constant; got none.")
        return Linear(p[:-1], p[-1])
    expected = {Constant: 1}.get(cls, len(cls.names))
    if len(p) != expected:
        raise ValueError(f"'{kind}' takes {expected} parameter(s); got {len(p)}.")
    if cls in (Gaussian, Sigmoid):
        p = [p[1], p[0]]
    elif cls is GaussianProduct:
        p = [p[1], p[0], p[3], p[2]]
    elif cls is Bell:
        p = [p[2], p[0], p[1]]
    elif cls in (SigmoidDifference, SigmoidProduct):
        p = [p[1], p[0], p[2], p[3]]
    return cls(*p)


def from_fis(kind, parameters):
    """The term of a FIS membership function: MATLAB's names, and fuzzylite's ``rampmf``.

    MATLAB's functions take MATLAB's parameter vector (:func:`from_matlab`);
    fuzzylite's take its own order (``rampmf``: ``[start end]``), without a
    height.

    Examples
    --------
    >>> from_fis("rampmf", [5.0, 0.0])
    Ramp(5.0, 0.0)
    >>> from_fis("rampmf", [1.0, 2.0, 3.0])
    Traceback (most recent call last):
    ...
    ValueError: 'rampmf' takes 2 parameter(s) [start end]; got 3.
    """
    if kind in MATLAB_TERMS:
        return from_matlab(kind, parameters)
    if kind not in FIS_TERMS:
        raise ValueError(
            f"Unknown FIS membership function {kind!r}; known: {', '.join(sorted(FIS_TERMS))}."
        )
    cls, p = FIS_TERMS[kind], list(parameters)
    if len(p) != len(cls.names):
        raise ValueError(
            f"'{kind}' takes {len(cls.names)} parameter(s) [{' '.join(cls.names)}]; got {len(p)}."
        )
    return cls(*p)
