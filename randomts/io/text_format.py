"""The ``text`` format (``.txt``): the printed IF-THEN rules, loadable back.

The layout is that of :mod:`randomts.text.rules` with lossless ``repr`` numbers and
a final newline; a file without one is taken as truncated. The rule base's
metadata, if any, follow the rules on one comment line
``# randomts-metadata: {...}`` (JSON), which :func:`randomts.text.rules.parse_rules`
skips like any other comment. A :class:`~randomts.FuzzySystem` is written as
:func:`randomts.text.system.format_system` lays it out (every digit, no
metadata), and read back by its header line.

Examples
--------
>>> from randomts import RuleBase
>>> rb = RuleBase.random(n_features=2, n_rules=2, random_state=0)
>>> fmt = TextFormat()
>>> fmt.from_string(fmt.to_string(rb)) == rb
True
"""

from __future__ import annotations

from randomts.io._base import RuleBaseFormat, metadata_comment, read_metadata_comment
from randomts.text.rules import format_rules, parse_rules
from randomts.text.system import HEADER as SYSTEM_HEADER
from randomts.text.system import format_system, parse_system

__all__ = ["TextFormat"]


class TextFormat(RuleBaseFormat):
    """Numbered IF-THEN rules (:func:`randomts.text.rules.format_rules`, ``precision=None``)."""

    name = "text"
    extensions = (".txt",)
    needs_final_newline = True

    def to_string(self, rule_base) -> str:
        """The rules and the metadata comment (or a FuzzySystem's text), ending with a newline."""
        from randomts.fuzzy.system import FuzzySystem

        if isinstance(rule_base, FuzzySystem):
            return format_system(rule_base, precision=None) + "\n"
        return "\n".join([format_rules(rule_base), *metadata_comment(rule_base, "#")]) + "\n"

    def from_string(self, text):
        """Parse text written by :meth:`to_string` (a RuleBase or a FuzzySystem by its header)."""
        first = next((line for line in text.split("\n") if line.strip()), "")
        if first.startswith(SYSTEM_HEADER):
            return parse_system(text)
        return parse_rules(text, metadata=read_metadata_comment(text, "#"))
