"""Numbers and names as text: the one rule every printer and writer of randomts follows.

- A number is written with ``repr`` (the shortest text that reads back to the
  same float) when ``precision`` is None, else with ``precision`` significant
  digits.
- A name is written as it is when it is a plain token, else as a JSON string
  in double quotes. A plain token starts with a letter or ``_``, has no
  space, quote, ``*``, ``,``, ``=`` or ``^``, has parentheses only in
  balanced pairs after its first character (``y(k-1)``), and is not a word
  of the rule syntax (:data:`KEYWORDS`, in any case). Every reader of
  randomts (the TXT format, the text of a system, the rule syntax) reads
  both forms.
"""

from __future__ import annotations

import json
import re

__all__ = ["format_number", "format_name", "is_plain_name", "KEYWORDS"]

#: Words of the rule syntax (``if x is very low then ...``): the connectives and fuzzylite's hedges.
KEYWORDS = frozenset(
    {
        "if",
        "then",
        "is",
        "and",
        "or",
        "with",
        "not",
        "very",
        "somewhat",
        "seldom",
        "extremely",
        "any",
    }
)
_CHAR = r"[^\s\"'*,=()^]"
# \Z: "$" would let a final newline in
_PLAIN_NAME = re.compile(rf"[A-Za-z_](?:{_CHAR}|\({_CHAR}*\))*\Z")


def is_plain_name(name) -> bool:
    """Whether ``name`` is written as it is (a plain token) rather than quoted.

    Examples
    --------
    >>> is_plain_name("x1"), is_plain_name("y(k-1)"), is_plain_name("temp (C)"), is_plain_name("IF")
    (True, True, False, False)
    """
    return bool(_PLAIN_NAME.match(name)) and name.lower() not in KEYWORDS


def format_number(value, precision=None) -> str:
    """A float as text: ``repr`` when ``precision`` is None, else ``precision`` significant digits.

    Examples
    --------
    >>> format_number(0.1 + 0.2)
    '0.30000000000000004'
    >>> format_number(0.1 + 0.2, precision=3)
    '0.3'
    """
    value = float(value)
    if precision is None:
        return repr(value)
    return f"{value:.{int(precision)}g}"


def format_name(name) -> str:
    """A variable name, JSON-quoted unless it is a plain token.

    Examples
    --------
    >>> format_name("y1(k-1)")
    'y1(k-1)'
    >>> format_name("temp (C)")
    '"temp (C)"'
    """
    return name if is_plain_name(name) else json.dumps(name)
