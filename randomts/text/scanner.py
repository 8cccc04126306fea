"""The one scanner of randomts' text readers: tokens of a line, errors with the line and column.

Numbers are decimal floats (finite); names are plain tokens (see
:func:`randomts.text.numbers.format_name`) or JSON strings in double quotes.
"""

from __future__ import annotations

import json
import re

import numpy as np

from randomts.exceptions import FormatError

__all__ = ["Scanner", "NUMBER"]

#: A decimal number as the readers accept it.
NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_PLAIN_TOKEN = re.compile(r"[A-Za-z_][^\s\"'*,=]*")
_SPACES = re.compile(r"\s*")
_INFINITY = re.compile(r"[-+]?inf\b")
_WORD = re.compile(r'"(?:[^"\\]|\\.)*"(?:\^[^\s()]+)?|\(|\)|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*')
_DECODER = json.JSONDecoder()


class Scanner:
    """Reads the tokens of one line, raising :class:`~randomts.exceptions.FormatError` with its line number.

    Parameters
    ----------
    text : str
        The line.
    line : int or None
        Its number in the file (from 1), for the messages; None for a text
        that is not part of a file (a rule given as a string).

    Examples
    --------
    >>> scan = Scanner('x1 = 2.5e-3 "temp (C)"', line=7)
    >>> scan.name(), scan.literal("="), scan.number(), scan.name(), scan.at_end()
    ('x1', None, 0.0025, 'temp (C)', True)
    >>> Scanner("x1 =", line=7).number()
    Traceback (most recent call last):
    ...
    randomts.exceptions.FormatError: line 7: expected a number at column 1 (found 'x1 ='): 'x1 ='
    """

    def __init__(self, text, line):
        self.text, self.line, self.pos = text, line, 0

    def fail(self, what):
        found = self.text[self.pos :] or "end of line"
        raise FormatError(
            f"expected {what} at column {self.pos + 1} (found {found[:30]!r})",
            line=self.line,
            text=self.text,
        )

    def skip(self):
        self.pos = _SPACES.match(self.text, self.pos).end()

    def at_end(self):
        self.skip()
        return self.pos == len(self.text)

    def literal(self, word, what=None):
        self.skip()
        if not self.text.startswith(word, self.pos):
            self.fail(what or repr(word))
        self.pos += len(word)

    def peek(self, word):
        self.skip()
        return self.text.startswith(word, self.pos)

    def number(self, what="a number", *, infinite=False):
        """A decimal number; with ``infinite``, also ``inf``, ``+inf`` or ``-inf``."""
        self.skip()
        match = NUMBER.match(self.text, self.pos)
        if infinite and not match:
            match = _INFINITY.match(self.text, self.pos)
        if not match:
            self.fail(what)
        value = float(match.group())
        if not infinite and not np.isfinite(value):
            self.fail(f"{what} of finite size")
        self.pos = match.end()
        return value

    def match(self, pattern, what):
        """The text of ``pattern`` (a compiled regular expression) at the position."""
        self.skip()
        found = pattern.match(self.text, self.pos)
        if not found:
            self.fail(what)
        self.pos = found.end()
        return found.group()

    def word(self):
        """A token of the rule syntax: ``(``, ``)``, a quoted name (with a power ``^p``) or a word.

        A word runs to the next space or parenthesis, except that it may hold
        balanced parentheses after its first character, as names do
        (``y(k-1)``).
        """
        return self.match(_WORD, "a word or a parenthesis")

    def name(self):
        self.skip()
        if self.text.startswith('"', self.pos):
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except ValueError:
                self.fail("a name (a quoted JSON string)")
            if not isinstance(value, str) or not value.strip():
                self.fail("a non-empty name")
            self.pos = end
            return value
        match = _PLAIN_TOKEN.match(self.text, self.pos)
        if not match:
            self.fail("a name")
        self.pos = match.end()
        return match.group()
