"""Exceptions of randomts beyond the built-in ``ValueError`` and ``TypeError``."""

from __future__ import annotations

__all__ = ["FormatError"]

_SHOWN = 80  # characters of the offending text quoted in a message


class FormatError(ValueError):
    """A file or string is not a valid description of a rule base.

    Raised by every reader (:func:`randomts.load`, :func:`randomts.text.parse_rules`)
    for truncated, inconsistent, unsupported or unreadable input, never a
    partial model.

    Parameters
    ----------
    problem : str
        What is wrong, in words.
    line : int, optional
        1-based line number of the offending text.
    text : str, optional
        The offending text (shortened in the message when long).
    source : str, optional
        The file name, when reading a file.

    Attributes
    ----------
    problem, line, text, source
        As given.

    Examples
    --------
    >>> error = FormatError("expected a number", line=3, text="R1: IF x1 is G(a, 1.0)")
    >>> str(error)
    "line 3: expected a number: 'R1: IF x1 is G(a, 1.0)'"
    >>> isinstance(error, ValueError)
    True
    """

    def __init__(self, problem, *, line=None, text=None, source=None):
        self.problem = problem
        self.line = line
        self.text = text
        self.source = source
        super().__init__(self._message())

    def _message(self):
        parts = []
        if self.source is not None:
            parts.append(str(self.source))
        if self.line is not None:
            parts.append(f"line {self.line}")
        message = self.problem
        if self.text is not None:
            shown = self.text if len(self.text) <= _SHOWN else self.text[: _SHOWN - 3] + "..."
            message += f": {shown!r}"
        return ": ".join(parts + [message])

    def with_source(self, source) -> FormatError:
        """The same error, naming the file it came from.

        Examples
        --------
        >>> str(FormatError("empty file", line=1).with_source("model.txt"))
        'model.txt: line 1: empty file'
        """
        return FormatError(self.problem, line=self.line, text=self.text, source=source)
