"""What every file format shares: the registry, atomic writes, and careful reads.

A format is one class with ``to_string(rule_base) -> str`` and
``from_string(text) -> RuleBase``; reading and writing files is written once,
here. Writes go to a temporary file in the target's folder that is then
renamed over the target, so an interrupted save never leaves a truncated
file. Reads refuse files larger than :data:`MAX_FILE_BYTES`, undecodable
bytes and (for formats that ask) a missing final newline, each with a
:class:`~randomts.exceptions.FormatError`.
"""

from __future__ import annotations

import json
import os
import re
import tempfile

import numpy as np

from randomts.exceptions import FormatError

__all__ = [
    "RuleBaseFormat",
    "FORMATS",
    "MAX_FILE_BYTES",
    "atomic_write",
    "read_text",
    "declared_ranges",
    "variable_ranges",
    "metadata_comment",
    "read_metadata_comment",
    "check_bounded",
    "parse_json",
]

#: Largest file a reader opens (bytes): 256 MiB, about ten million numbers.
MAX_FILE_BYTES = 256 * 1024 * 1024

#: Registered formats by name, filled by subclasses of :class:`RuleBaseFormat`.
FORMATS: dict[str, RuleBaseFormat] = {}


class RuleBaseFormat:
    """Base class of the file formats: subclasses give ``to_string`` and ``from_string``.

    Attributes
    ----------
    name : str
        The format's name (``format=`` in :func:`randomts.save`).
    extensions : tuple of str
        File extensions that select the format, lower case with the dot.
    needs_final_newline : bool
        Reject files that do not end with a newline, when truncation would
        otherwise go unnoticed.

    Examples
    --------
    >>> from randomts.io import FORMATS
    >>> sorted(FORMATS), FORMATS["fis"].extensions
    (['fis', 'fll', 'json', 'text'], ('.fis',))
    """

    name = ""
    extensions: tuple = ()
    needs_final_newline = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            FORMATS[cls.name] = cls()

    def to_string(self, rule_base) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def from_string(self, text):  # pragma: no cover - abstract
        raise NotImplementedError

    def system_from_string(self, text):
        """The text read as a :class:`~randomts.FuzzySystem`, whatever its shape.

        Formats that hold names, terms and ranges (FIS, FLL) override this to
        keep them; here a rule base read by ``from_string`` is converted.
        """
        from randomts.fuzzy.system import FuzzySystem

        model = self.from_string(text)
        return model if isinstance(model, FuzzySystem) else FuzzySystem.from_rule_base(model)

    def _rule_base_or_system(self, text, comment):
        """``from_string`` of the engine formats: a RuleBase where the system has its shape.

        The RuleBase carries the metadata written on the ``comment`` line (see
        :func:`metadata_comment`); any other system is returned as read.
        """
        system = self.system_from_string(text)
        if system.rule_base_mismatch() is not None:
            return system
        rule_base = system.to_rule_base()
        metadata = read_metadata_comment(text, comment)
        return rule_base if metadata is None else rule_base.replace(metadata=metadata)

    def parse(self, text, *, system=False):
        """``from_string(text)`` (``system_from_string`` if ``system``), refused when unbounded.

        A model whose outputs cannot be evaluated as finite floats over its
        declared input ranges (a bound of what inference sums overflows)
        raises a :class:`~randomts.exceptions.FormatError` naming the line of
        the number that dominates the bound.
        """
        model = self.system_from_string(text) if system else self.from_string(text)
        check_bounded(model, text)
        return model

    def write(self, rule_base, path) -> None:
        """Write ``rule_base`` to ``path`` atomically (temporary file, then rename)."""
        text = self.to_string(rule_base)
        if not text.endswith("\n"):
            text += "\n"
        atomic_write(os.fspath(path), text.encode("utf-8"))

    def read(self, path, *, system=False):
        """Read a model from ``path`` (a FuzzySystem if ``system``); defects raise FormatError."""
        path = os.fspath(path)
        try:
            text = read_text(path, final_newline=self.needs_final_newline)
            return self.parse(text, system=system)
        except FormatError as error:
            raise error.with_source(path) from None


def read_text(path, *, final_newline=False) -> str:
    """A file's text: size-limited, strict UTF-8 (a BOM is dropped), ``\\n`` line ends.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "data.bin")
    >>> _ = open(path, "wb").write(b"ok\\r\\n\\xff\\n")
    >>> read_text(path)
    Traceback (most recent call last):
    ...
    randomts.exceptions.FormatError: line 2: not UTF-8 text (byte 0xff at offset 4); ...
    """
    size = os.stat(path).st_size
    if size > MAX_FILE_BYTES:
        raise FormatError(
            f"the file holds {size} bytes, more than the {MAX_FILE_BYTES} bytes a rule "
            "base file may hold"
        )
    with open(path, "rb") as stream:
        data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise FormatError(
            f"the file holds more than the {MAX_FILE_BYTES} bytes a rule base file may hold"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        begin = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        shown = data[begin : end if end >= 0 else len(data)][:60]
        raise FormatError(
            f"not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start}); "
            f"is this a binary file?",
            line=line,
            text=shown.decode("utf-8", "backslashreplace"),
        ) from None
    if not text.strip():
        raise FormatError("the file is empty", line=1)
    text = text.replace("\r\n", "\n")
    if final_newline and not text.endswith("\n"):
        lines = text.split("\n")
        raise FormatError(
            "the file does not end with a newline; it looks truncated",
            line=len(lines),
            text=lines[-1],
        )
    return text


def atomic_write(path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename.

    An interrupted write leaves ``path`` as it was (or absent) and removes
    the temporary file. An existing file keeps its permissions.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> atomic_write(path, b"done\\n")
    >>> open(path).read(), os.listdir(os.path.dirname(path))
    ('done\\n', ['out.txt'])
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise IsADirectoryError(f"Cannot save to {path!r}: it is a directory.")
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"Cannot save to {path!r}: the folder {folder!r} does not exist.")
    try:
        mode = os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, temporary = tempfile.mkstemp(
        prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def variable_ranges(rule_base):
    """Ranges of the inputs and outputs, for formats that declare them.

    The recorded ranges (:attr:`RuleBase.input_range`, :attr:`RuleBase.output_range`:
    the training data's, or those read from a file) when the rule base has
    them. Otherwise, inputs: every centre plus and minus three widths;
    outputs: the span of the rules' consequents at their own centres. A range
    that is one point (a constant variable) is widened, as MATLAB requires
    ``low < high``: an input's to also cover every centre plus and minus three
    widths, an output's by 1 on each side. Ranges never change outputs.

    Returns
    -------
    inputs : ndarray of shape (n_features, 2)
    outputs : ndarray of shape (n_outputs, 2)

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[2.0]])
    >>> variable_ranges(rb)
    (array([[-3.,  3.]]), array([[1., 3.]]))
    >>> variable_ranges(rb.replace(input_range=[[-0.5, 1.0]]))[0]
    array([[-0.5,  1. ]])
    """
    centers, sigmas = rule_base.centers, rule_base.sigmas
    spans = np.stack(
        [(centers - 3 * sigmas).min(axis=0), (centers + 3 * sigmas).max(axis=0)], axis=1
    )
    inputs = spans if rule_base.input_range is None else rule_base.input_range.copy()
    flat = inputs[:, 0] == inputs[:, 1]  # a constant input: MATLAB wants low < high
    inputs[flat] = np.stack(
        [np.minimum(inputs[flat, 0], spans[flat, 0]), np.maximum(inputs[flat, 1], spans[flat, 1])],
        axis=1,
    )
    outputs = rule_base.output_range
    if outputs is None:
        at_centers = np.einsum("imk,ik->im", rule_base.coef, centers) + rule_base.intercept
        outputs = np.stack([at_centers.min(axis=0), at_centers.max(axis=0)], axis=1)
    else:
        outputs = outputs.copy()
    flat = outputs[:, 0] == outputs[:, 1]
    outputs[flat] += [-1.0, 1.0]
    return inputs, outputs


def declared_ranges(values):
    """A list of ``[low, high]`` pairs read from a file, as a (n, 2) array, or None.

    None unless every pair is finite with ``low <= high``: such ranges are
    kept as the rule base's recorded ranges, others are not.

    Examples
    --------
    >>> declared_ranges([[0.0, 1.0], [-2.0, 2.0]]).shape
    (2, 2)
    >>> declared_ranges([[0.0, float("inf")]]) is None
    True
    """
    return _recorded_range(values, len(values))


def _recorded_range(value, count):
    """``value`` as a (count, 2) array of finite low <= high pairs, or None if it is not one."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    if (
        array.shape != (count, 2)
        or not np.all(np.isfinite(array))
        or np.any(array[:, 0] > array[:, 1])
    ):
        return None
    return array


#: Marks the comment line that carries a rule base's metadata in formats without a place for it.
METADATA_TAG = "randomts-metadata:"


def metadata_comment(rule_base, comment) -> list:
    """The comment line that carries ``rule_base.metadata``, as a list of 0 or 1 lines.

    The metadata are written as one line of JSON (ASCII, numbers with
    ``repr``) after ``comment`` and :data:`METADATA_TAG`, for formats whose
    own readers skip comments (``#`` in text and FLL, ``%`` in FIS); a rule
    base without metadata gets no line.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], metadata={"seed": 3})
    >>> metadata_comment(rb, "#")
    ['# randomts-metadata: {"seed": 3}']
    """
    metadata = rule_base.metadata
    if not metadata:
        return []
    try:
        text = json.dumps(metadata, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"The rule base's metadata cannot be saved as JSON: {exc}") from None
    return [f"{comment} {METADATA_TAG} {text}"]


def read_metadata_comment(text, comment):
    """The metadata of the comment line written by :func:`metadata_comment`, or None.

    Raises
    ------
    FormatError
        If the line is there twice or does not hold a JSON object.

    Examples
    --------
    >>> read_metadata_comment('x = 1\\n% randomts-metadata: {"seed": 3}\\n', "%")
    {'seed': 3}
    >>> read_metadata_comment('% randomts-metadata: {"seed": \\n', "%")
    Traceback (most recent call last):
    ...
    randomts.exceptions.FormatError: line 1: the metadata comment is not a JSON object ...
    """
    start = f"{comment} {METADATA_TAG}"
    found = None
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.startswith(start):
            continue
        if found is not None:
            raise FormatError("a second metadata comment", line=number, text=raw)
        try:
            found = parse_json(raw[len(start) :])
        except (ValueError, RecursionError):
            found = None
        if not isinstance(found, dict):
            raise FormatError(
                f"the metadata comment is not a JSON object (written by {METADATA_TAG!r} lines)",
                line=number,
                text=raw,
            )
    return found


def _no_constant(name):
    raise ValueError(f"{name} is not a finite number")


# Largest bound of a model's sums that is refused: a quarter of the largest float leaves room
# for the rounding of the bound itself and of the sums it bounds.
_LARGEST_BOUND = float(np.finfo(np.float64).max) / 4
_NUMBER_TOKEN = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _line_of(text, value):
    """``(line number, line)`` of the first number in ``text`` of the size of ``value``, or Nones."""
    for number, raw in enumerate(text.split("\n"), start=1):
        if any(abs(float(token)) == abs(value) for token in _NUMBER_TOKEN.findall(raw)):
            return number, raw  # by size: the text format writes "- 2.5*x1"
    return None, None


def check_bounded(model, text):
    """Raise :class:`FormatError` if ``model`` cannot predict finite numbers in its ranges.

    ``model._output_bounds()`` bounds, per output, the sums that inference
    forms over the declared input ranges (see ``FuzzySystem._output_bounds``);
    a bound beyond a quarter of
    the largest float means some input inside those ranges may give an
    infinite or NaN output. The error names the line of ``text`` holding the
    largest number behind that bound.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], intercept=[[1e308]], coef=[[[1e308]]])
    >>> check_bounded(rb, "R1: ... y = 1e308 + 1e308*x1")
    Traceback (most recent call last):
    ...
    randomts.exceptions.FormatError: line 1: output 1 cannot be evaluated as a finite number ...
    """
    bounds = getattr(model, "_output_bounds", None)
    if bounds is None:
        return
    for m, (bound, numbers) in enumerate(bounds(), start=1):
        if bound < _LARGEST_BOUND:
            continue
        culprit = max(numbers, key=abs, default=None)
        line, raw = (None, None) if culprit is None else _line_of(text, culprit)
        raise FormatError(
            f"output {m} cannot be evaluated as a finite number inside the declared input "
            f"ranges: its rules' weights and terms (largest {culprit!r}) sum beyond the "
            "floating-point range",
            line=line,
            text=raw,
        )


def _bounded_int(text):
    """A JSON integer: an int where float64 holds it exactly, else the float it rounds to."""
    if len(text) <= 17:
        number = int(text)
        if abs(number) <= 2**53:
            return number
    return float(text)  # inf past the largest float, without converting thousands of digits


def parse_json(text):
    """``json.loads`` of a file's JSON, as data at the border.

    ``NaN`` and ``Infinity`` raise a ValueError; an integer beyond float64's exact integers
    becomes a float (``inf`` past the largest float), which the readers' checks of
    finite numbers and integer counts refuse by name, instead of an ``OverflowError`` deep
    inside NumPy.

    Examples
    --------
    >>> parse_json('{"n": 3, "big": ' + "9" * 400 + "}")
    {'n': 3, 'big': inf}
    """
    return json.loads(text, parse_constant=_no_constant, parse_int=_bounded_int)
