"""Saving and loading rule bases: one module per file format.

==========  ===========  =====================================================
format      extension    module
==========  ===========  =====================================================
``text``    ``.txt``     :mod:`randomts.io.text_format` (the printed rules)
``json``    ``.json``    :mod:`randomts.io.json_format` (versioned schema)
``fis``     ``.fis``     :mod:`randomts.io.fis` (MATLAB / GNU Octave)
``fll``     ``.fll``     :mod:`randomts.io.fll` (fuzzylite)
==========  ===========  =====================================================

A model also exports, one way, to code that runs without Python or randomts:
:func:`to_c` (dependency-free C99, :mod:`randomts.io.c_code`) and
:func:`to_onnx` (an ONNX graph, :mod:`randomts.io.onnx_model`; the ``onnx``
extra).

Every format writes numbers with ``repr``: ``load(save(m))`` predicts bit for
bit as ``m`` for ``text`` and ``json`` (the arrays are equal), and to rounding
for ``fis`` and ``fll``. Saving is atomic. No pickle is used anywhere. A file
saved from a fitted estimator loads as that fitted estimator; one saved from
a :class:`~randomts.RuleBase` (or written by another tool) as a rule base.

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

from randomts.estimators.classifier import RandomTSClassifier
from randomts.estimators.narx import NARXRegressor
from randomts.estimators.regressor import RandomTSRegressor
from randomts.estimators.saving import STATE_KEY, restore, saved_rule_base
from randomts.exceptions import FormatError
from randomts.io import (
    fis,  # noqa: F401  (registers the formats)
    fll,  # noqa: F401  (registers the formats)
    json_format,  # noqa: F401  (registers the formats)
    text_format,  # noqa: F401  (registers the formats)
)
from randomts.io._base import FORMATS, MAX_FILE_BYTES, RuleBaseFormat, atomic_write, read_text
from randomts.io.c_code import to_c
from randomts.io.onnx_model import to_onnx

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
    "atomic_write",
    "to_c",
    "to_onnx",
]

# the estimators a file may hold, rebuilt by load from their record
_ESTIMATORS = (RandomTSRegressor, RandomTSClassifier, NARXRegressor)


def format_for(path=None, format=None, *, option="format=") -> RuleBaseFormat:
    """The format named ``format``, or else the one of ``path``'s extension.

    ``option`` is how the error names the way to give a format (the command
    line says ``--format``).

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
            given = "The 'format' parameter" if option == "format=" else option
            raise ValueError(f"{given} must be one of {names}. Got {format!r} instead.")
        return FORMATS[format.lower()]
    extension = os.path.splitext(os.fspath(path))[1].lower()
    for candidate in FORMATS.values():
        if extension in candidate.extensions:
            return candidate
    extensions = sorted(e for f in FORMATS.values() for e in f.extensions)
    raise ValueError(
        f"Cannot tell the format of {os.fspath(path)!r} from its extension; pass {option} one of "
        f"{names} or use one of the extensions {extensions}."
    )


def _restored(rule_base, read_text_again=None, source=None):
    """``restore(rule_base)``, its FormatError located on the line of the estimator record."""
    try:
        return restore(rule_base, _ESTIMATORS)
    except FormatError as error:
        text = read_text_again() if read_text_again is not None else ""
        lines = text.split("\n")
        line = next((k for k, raw in enumerate(lines, 1) if STATE_KEY in raw), None)
        located = FormatError(
            error.problem, line=line, text=None if line is None else lines[line - 1]
        )
        raise (located if source is None else located.with_source(source)) from None


def save(obj, path, format=None) -> None:
    """Write a rule base, a fuzzy system, a fitted estimator or a fitted pipeline to ``path``.

    An estimator is written as its ``rule_base_``, with a record in the
    metadata (``estimator_state``: the class, whether ``y`` was 1-D,
    ``feature_names_in_``, the variable names) from which :func:`load`
    rebuilds the fitted estimator. A ``Pipeline`` of per-feature scalers
    (``StandardScaler``, ``MinMaxScaler``, ``MaxAbsScaler``,
    ``RobustScaler``) and a randomts estimator is folded into one rule base in
    the data's own units (exact up to rounding); any other step raises a
    ``TypeError`` naming it. Every format carries the metadata (JSON in its
    ``metadata`` object, the others on one comment line that other engines
    skip).

    Parameters
    ----------
    obj : RuleBase, FuzzySystem, fitted RandomTSRegressor or fitted Pipeline
        What to save. A FuzzySystem's features that a format cannot hold
        (say, a Ramp term in a FIS) raise ValueError naming them.
    path : str or os.PathLike
        Destination; replaced atomically (temporary file, then rename).
    format : {"text", "json", "fis", "fll"}, optional
        Defaults to the one of ``path``'s extension.

    Raises
    ------
    TypeError
        If ``obj`` is none of these, is not fitted, or is a pipeline with a
        step that a rule base cannot hold.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import randomts
    >>> from randomts import RandomTSRegressor
    >>> X = np.linspace(-1, 1, 40).reshape(-1, 1)
    >>> model = RandomTSRegressor(n_rules=5, random_state=0).fit(X, X[:, 0] ** 2)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.fll")
    >>> save(model, path)
    >>> open(path).readline()
    'Engine: randomts\\n'
    >>> back = randomts.load(path)
    >>> type(back).__name__, back.predict(X[:2]).shape
    ('RandomTSRegressor', (2,))
    """
    rule_base = saved_rule_base(obj)
    format_for(path, format).write(rule_base, path)


def load(path, format=None, *, system=False):
    """Read a rule base, a Takagi-Sugeno fuzzy system, or the fitted estimator saved in ``path``.

    A file saved from a fitted estimator (or pipeline) by :func:`save` loads
    as that fitted estimator: ``predict`` gives the same shape and values
    (bit for bit from ``json`` and ``text``, to rounding from ``fis`` and
    ``fll``; a folded pipeline to rounding), and ``score``,
    ``feature_names_in_``, :meth:`~randomts.RandomTSRegressor.prune` work.
    Its rule base is ``load(path).rule_base_``. Any other file (a saved
    :class:`~randomts.RuleBase`, a file of another tool) loads as a rule base
    when it has its shape, else as a :class:`~randomts.FuzzySystem`.

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
    RuleBase, FuzzySystem or fitted estimator
        A RuleBase for files of its shape (a Gaussian term on every input,
        product, every rule concluding every output with a linear or
        constant term), unless ``system``; a FuzzySystem for any other
        Sugeno system, or for any file with ``system=True``; the fitted
        estimator for a file saved from one (unless ``system``).

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
    fmt = format_for(path, format)
    if system:
        return fmt.read(path, system=True)
    return _restored(
        fmt.read(path),
        lambda: read_text(path, final_newline=fmt.needs_final_newline),
        os.fspath(path),
    )


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
    return format_for(format=format).to_string(saved_rule_base(obj))


def loads(text, format, *, system=False):
    """Read a rule base, fuzzy system or fitted estimator from a string (see :func:`load`).

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
    if system:
        return fmt.parse(text, system=True)
    return _restored(fmt.parse(text), lambda: text)
