"""What every file format shares: the registry, atomic writes, and careful reads.

A format is one class with ``to_string(model) -> str`` and
``from_string(text) -> RuleBase or FuzzySystem``; reading and writing files
is written once, here. Writes go to a temporary file in the target's folder that is then
renamed over the target, so an interrupted save never leaves a truncated
file. Reads refuse files larger than :data:`MAX_FILE_BYTES`, undecodable
bytes and (for formats that ask) a missing final newline, each with a
:class:`~randomts.exceptions.FormatError`.
"""

from __future__ import annotations

import copy
import json
import os
import re
import tempfile

import numpy as np

from randomts.exceptions import FormatError
from randomts.fuzzy.variables import declared_ranges, variable_ranges  # noqa: F401  (the writers' ranges)

__all__ = [
    "RuleBaseFormat",
    "FORMATS",
    "MAX_FILE_BYTES",
    "atomic_write",
    "read_text",
    "declared_ranges",
    "variable_ranges",
    "as_system",
    "without_disabled_inputs",
    "metadata_comment",
    "read_metadata_comment",
    "lock_in_metadata",
    "lock_from_metadata",
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

    def _rule_base_or_system(self, text):
        """``from_string`` of the engine formats: a RuleBase where the system has its shape.

        The RuleBase carries the system's metadata (which the FIS and FLL
        readers take from the comment line of :func:`metadata_comment`); any
        other system is returned as read.
        """
        system = self.system_from_string(text)
        if system.rule_base_mismatch() is not None:
            return system
        return system.to_rule_base()

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


def as_system(model):
    """``model`` as the :class:`~randomts.FuzzySystem` that the FIS and FLL writers write.

    A FuzzySystem is returned as it is. A :class:`~randomts.RuleBase` is
    converted by :meth:`~randomts.FuzzySystem.from_rule_base` (terms ``r1``,
    ``r2``, ..., the ranges of
    :func:`~randomts.fuzzy.variables.variable_ranges`, its metadata); an
    output named like an input (which a RuleBase allows and a FuzzySystem
    does not) gets a suffix ``_2``, ``_3``, ... first, as the formats rename
    the names they cannot hold.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], input_names=["y"])
    >>> as_system(rb).input_names, as_system(rb).output_names
    (('y',), ('y_2',))
    """
    from randomts.fuzzy.system import FuzzySystem
    from randomts.io._names import unique_names

    if isinstance(model, FuzzySystem):
        return model
    inputs = list(getattr(model, "input_names", ()))
    outputs = list(getattr(model, "output_names", ()))
    if set(inputs) & set(outputs):
        model = model.replace(output_names=unique_names(inputs + outputs)[len(inputs) :])
    return FuzzySystem.from_rule_base(model)


def lock_in_metadata(model):
    """A RuleBase with ``lock_range`` as one without, whose metadata say it is locked.

    For the formats that have no lock of their own (MATLAB's FIS, the text
    format): the file holds the rules and ranges as any other, and its
    metadata comment the key :data:`~randomts.fuzzy.rulebase.LOCK_KEY`,
    which :func:`lock_from_metadata` turns back into the lock. Anything
    else is returned as it is.

    Examples
    --------
    >>> from randomts import RuleBase
    >>> rb = RuleBase(centers=[[0.0]], sigmas=[[1.0]], input_range=[[-1.0, 1.0]],
    ...               output_range=[[0.0, 0.0]], lock_range=True)
    >>> written = lock_in_metadata(rb)
    >>> written.lock_range, written.metadata
    (False, {'lock_range': True})
    >>> lock_from_metadata(written) == rb
    True
    """
    from randomts.fuzzy.rulebase import LOCK_KEY, RuleBase

    if not isinstance(model, RuleBase) or not model.lock_range:
        return model
    return model.replace(lock_range=False, metadata={**model.metadata, LOCK_KEY: True})


def lock_from_metadata(model):
    """The model read from a file, locked if its metadata say so (see :func:`lock_in_metadata`).

    A RuleBase gets ``lock_range=True``; a FuzzySystem gets ``lock_range``
    on every variable. The key leaves the metadata.
    """
    from randomts.fuzzy.rulebase import LOCK_KEY, RuleBase

    metadata = model.metadata
    lock = metadata.pop(LOCK_KEY, False)
    if not isinstance(lock, bool):
        raise FormatError(f"the metadata's {LOCK_KEY!r} must be true or false; got {lock!r}")
    if not lock:
        return model
    if isinstance(model, RuleBase):
        if model.input_range is None or model.output_range is None:
            raise FormatError(
                f"the metadata say {LOCK_KEY!r}, but the file records no input and output "
                "ranges to hold the variables in"
            )
        return model.replace(lock_range=True, metadata=metadata)
    variables = {"inputs": [], "outputs": []}
    for key in variables:
        for variable in getattr(model, key):
            locked = copy.copy(variable)
            locked.lock_range = True
            variables[key].append(locked)
    return model.replace(**variables, metadata=metadata)


def without_disabled_inputs(rules, disabled):
    """``rules`` as fuzzylite evaluates them when the inputs named in ``disabled`` are disabled.

    fuzzylite gives a proposition on a disabled input the degree 0, whatever
    its hedges (``not``, ``any`` included). Every T-norm maps ``a and 0`` to
    0 and every S-norm maps ``a or 0`` to ``a``, so the proposition is
    dropped from an ``or``, and a rule that needs one through ``and`` never
    fires: it keeps its place and its antecedent, with the weight 0 (a rule
    of degree 0 concludes nothing). The outputs are those of fuzzylite
    wherever the degrees lie in [0, 1], where these identities hold exactly.

    Parameters
    ----------
    rules : sequence of FuzzyRule
    disabled : collection of str
        Names of the disabled inputs.

    Returns
    -------
    list of FuzzyRule
        One per rule, in order.

    Examples
    --------
    >>> from randomts.fuzzy import parse_rule
    >>> rules = [parse_rule("if a is x and b is y then z is t"),
    ...          parse_rule("if a is x or b is not y then z is t")]
    >>> [rule.to_text() for rule in without_disabled_inputs(rules, {"b"})]
    ['if a is x and b is y then z is t with 0.0', 'if a is x then z is t']
    """
    from randomts.fuzzy.rules import Connective, FuzzyRule, Proposition

    def kept(node):
        """The node without the disabled propositions, or None where its degree is 0."""
        if isinstance(node, Proposition):
            return None if node.variable in disabled else node
        operands = [kept(operand) for operand in node.operands]
        if node.operator == "and" and any(operand is None for operand in operands):
            return None
        operands = [operand for operand in operands if operand is not None]
        if not operands:
            return None
        if len(operands) == 1:
            return operands[0]
        return Connective(node.operator, tuple(operands))

    out = []
    for rule in rules:
        antecedent = kept(rule.antecedent)
        if antecedent is None:
            out.append(FuzzyRule(rule.antecedent, rule.consequent, 0.0))
        else:
            out.append(FuzzyRule(antecedent, rule.consequent, rule.weight))
    return out


#: Marks the comment line that carries a rule base's metadata in formats without a place for it.
METADATA_TAG = "randomts-metadata:"


def metadata_comment(rule_base, comment) -> list:
    """The comment line that carries ``rule_base.metadata``, as a list of 0 or 1 lines.

    ``rule_base`` is a RuleBase or a FuzzySystem. The metadata are written as one line of JSON (ASCII, numbers with
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

    ``model.output_bounds()`` bounds, per output, the sums that inference
    forms over the declared input ranges (see ``FuzzySystem.output_bounds``);
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
    bounds = getattr(model, "output_bounds", None)
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
