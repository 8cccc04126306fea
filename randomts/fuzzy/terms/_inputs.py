"""Input terms: membership functions of one input."""

from __future__ import annotations

import numpy as np
from skfuzzy import membership as _skfuzzy

from randomts.core.membership import SMALLEST_WIDTH, gaussian
from randomts.fuzzy.terms._base import Term


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
    fuzzylite_fis = "rectmf"

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
    fuzzylite_fis = "cosinemf"

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
    fuzzylite_fis = "concavemf"

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
    fuzzylite_fis = "spikemf"

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
