"""Saving and loading rule bases: one module per file format.

==========  ===========  =====================================================
format      extension    module
==========  ===========  =====================================================
``text``    ``.txt``     :mod:`randomts.io.text_format` (the printed rules)
``json``    ``.json``    :mod:`randomts.io.json_format` (versioned schema)
``fis``     ``.fis``     :mod:`randomts.io.fis` (MATLAB / GNU Octave)
``fll``     ``.fll``     :mod:`randomts.io.fll` (fuzzylite)
==========  ===========  =====================================================

Every format writes numbers with ``repr``: ``load(save(m))`` predicts bit for
bit as ``m`` for ``text`` and ``json`` (the arrays are equal), and to rounding
for ``fis`` and ``fll``. Saving is atomic. No pickle is used anywhere.

Examples
--------
>>> import os, tempfile
>>> import randomts
>>> rb = randomts.RuleBase.random(n_features=2, n_rules=3, random_state=0)
>>> path = os.path.join(tempfile.mkdtemp(), "model.json")
>>> randomts.save(rb, path)
>>> randomts.load(path) == rb
True
"""

from __future__ import annotations

import os

from ..exceptions import FormatError
from . import fis, fll, json_format, text_format  # noqa: F401  (registers the formats)
from ._base import FORMATS, MAX_FILE_BYTES, RuleBaseFormat

__all__ = [
    "save",
    "load",
    "dumps",
    "loads",
    "format_for",
    "FormatError",
    "FORMATS",
    "MAX_FILE_BYTES",
    "RuleBaseFormat",
]


def format_for(path=None, format=None) -> RuleBaseFormat:
    """The format named ``format``, or else the one of ``path``'s extension.

    Examples
    --------
    >>> format_for("model.FIS").name
    'fis'
    >>> format_for("model.bin")
    Traceback (most recent call last):
    ...
    ValueError: Cannot tell the format of 'model.bin' from its extension; pass format= one of ...
    """
    names = sorted(FORMATS)
    if format is not None:
        if not isinstance(format, str) or format.lower() not in FORMATS:
            raise ValueError(
                f"The 'format' parameter must be one of {names}. Got {format!r} instead."
            )
        return FORMATS[format.lower()]
    extension = os.path.splitext(os.fspath(path))[1].lower()
    for candidate in FORMATS.values():
        if extension in candidate.extensions:
            return candidate
    extensions = sorted(e for f in FORMATS.values() for e in f.extensions)
    raise ValueError(
        f"Cannot tell the format of {os.fspath(path)!r} from its extension; pass format= one of "
        f"{names} or use one of the extensions {extensions}."
    )


def _rule_base_of(obj):
    from ..fuzzy_system import FuzzySystem
    from ..rulebase import RuleBase

    if isinstance(obj, (RuleBase, FuzzySystem)):
        return obj
    rule_base = getattr(obj, "rule_base_", None)
    if isinstance(rule_base, RuleBase):
        return rule_base
    raise TypeError(
        "save expects a RuleBase, a FuzzySystem or a fitted RandomTSRegressor; got "
        f"{type(obj).__name__}"
        + (" (not fitted: call fit first)" if hasattr(obj, "get_params") else "")
        + "."
    )


def save(obj, path, format=None) -> None:
    """Write a rule base, a fuzzy system or a fitted estimator's ``rule_base_`` to ``path``.

    Parameters
    ----------
    obj : RuleBase, FuzzySystem or fitted RandomTSRegressor
        What to save. A FuzzySystem's features that a format cannot hold
        (say, a Ramp term in a FIS) raise ValueError naming them.
    path : str or os.PathLike
        Destination; replaced atomically (temporary file, then rename).
    format : {"text", "json", "fis", "fll"}, optional
        Defaults to the one of ``path``'s extension.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from randomts import RandomTSRegressor
    >>> X = np.linspace(-1, 1, 40).reshape(-1, 1)
    >>> model = RandomTSRegressor(n_rules=5, random_state=0).fit(X, X[:, 0] ** 2)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.fll")
    >>> save(model, path)
    >>> open(path).readline()
    'Engine: randomts\\n'
    """
    rule_base = _rule_base_of(obj)
    format_for(path, format).write(rule_base, path)


def load(path, format=None, *, system=False):
    """Read a rule base or a Takagi-Sugeno fuzzy system from ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    format : {"text", "json", "fis", "fll"}, optional
        Defaults to the one of ``path``'s extension.
    system : bool, default False
        Always return a :class:`~randomts.FuzzySystem`, with the file's own
        variable and term names and ranges, even for a file of RuleBase shape.

    Returns
    -------
    RuleBase or FuzzySystem
        A RuleBase for files of its shape (a Gaussian term on every input,
        product, every rule concluding every output with a linear or
        constant term), unless ``system``; a FuzzySystem for any other
        Sugeno system.

    Raises
    ------
    FormatError
        If the file is not a valid rule base of that format (with the line
        number and the offending text).
    OSError
        If the file cannot be read.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "model.txt")
    >>> _ = open(path, "w").write("R1: IF x1 is G(0.0, 1.0) THEN y = 2.0\\n")
    >>> load(path)
    Traceback (most recent call last):
    ...
    randomts.exceptions.FormatError: ...model.txt: line 1: expected the header line ...
    """
    return format_for(path, format).read(path, system=system)


def dumps(obj, format) -> str:
    """The text that :func:`save` would write, as a string.

    Examples
    --------
    >>> import randomts
    >>> rb = randomts.RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
    >>> print(dumps(rb, "text"), end="")
    # Takagi-Sugeno rule base: 1 rules, inputs (x1), outputs (y)
    # G(c, s) = exp(-(x - c)^2 / (2 s^2)); AND = product; output = weighted sum
    R1: IF x1 is G(0.0, 1.0) THEN y = 2.0
    """
    return format_for(format=format).to_string(_rule_base_of(obj))


def loads(text, format, *, system=False):
    """Read a rule base or fuzzy system from a string in ``format`` (see :func:`load`).

    Examples
    --------
    >>> import randomts
    >>> rb = randomts.RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
    >>> loads(dumps(rb, "fis"), "fis") == rb
    True
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}.")
    fmt = format_for(format=format)
    return fmt.system_from_string(text) if system else fmt.from_string(text)
