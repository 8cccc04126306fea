"""Terms by name: fuzzylite's, MATLAB's and the FIS files'."""

from __future__ import annotations

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
    """The term of a FIS membership function: MATLAB's names, and fuzzylite's for the others.

    MATLAB's functions take MATLAB's parameter vector (:func:`from_matlab`);
    fuzzylite's (``rampmf`` and ``rectmf``: ``[start end]``, ``cosinemf`` and
    ``spikemf``: ``[center width]``, ``concavemf``: ``[inflection end]``)
    take the order of their terms here, which is fuzzylite's, without a
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
