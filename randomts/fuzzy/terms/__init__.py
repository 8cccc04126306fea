"""Membership-function terms of a general Takagi-Sugeno system: each stores its parameters.

A term is a small immutable object: its type, its parameters, and its
membership function. Printing, export and evaluation read the same numbers.

Input terms (the names are fuzzylite's; MATLAB's name is given where MATLAB
has the same function, and :func:`from_matlab` reads MATLAB's parameter order;
fuzzylite's own FIS files also name the terms in parentheses, with the
parameters in the order below, which :func:`from_fis` reads and MATLAB does
not):

=====================  ===============  ==========================================================
term                   FIS              parameters (``height`` is optional, 1)
=====================  ===============  ==========================================================
``Triangle``           ``trimf``        left, top, right
``Trapezoid``          ``trapmf``       bottom_left, top_left, top_right, bottom_right
``Gaussian``           ``gaussmf``      mean, standard_deviation
``GaussianProduct``    ``gauss2mf``     mean_a, standard_deviation_a, mean_b, standard_deviation_b
``Bell``               ``gbellmf``      center, width, slope
``Sigmoid``            ``sigmf``        inflection, slope
``SigmoidDifference``  ``dsigmf``       left, rising, falling, right
``SigmoidProduct``     ``psigmf``       left, rising, falling, right
``SShape``             ``smf``          start, end
``ZShape``             ``zmf``          start, end
``PiShape``            ``pimf``         bottom_left, top_left, top_right, bottom_right
``Ramp``               (``rampmf``)     start, end
``Rectangle``          (``rectmf``)     start, end
``Cosine``             (``cosinemf``)   center, width
``Concave``            (``concavemf``)  inflection, end
``Spike``              (``spikemf``)    center, width
``Discrete``                            x_1, y_1, ..., x_k, y_k
=====================  ===============  ==========================================================

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

from randomts.fuzzy.terms._base import Term
from randomts.fuzzy.terms._inputs import (
    Bell,
    Concave,
    Cosine,
    Discrete,
    Gaussian,
    GaussianProduct,
    PiShape,
    Ramp,
    Rectangle,
    Sigmoid,
    SigmoidDifference,
    SigmoidProduct,
    Spike,
    SShape,
    Trapezoid,
    Triangle,
    ZShape,
)
from randomts.fuzzy.terms._outputs import Constant, Linear
from randomts.fuzzy.terms._registry import (
    FIS_TERMS,
    INPUT_TERMS,
    MATLAB_TERMS,
    OUTPUT_TERMS,
    from_fis,
    from_matlab,
    make_term,
)

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
