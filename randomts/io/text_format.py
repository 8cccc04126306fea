"""The ``text`` format (``.txt``): the printed IF-THEN rules, loadable back.

The layout is that of :mod:`randomts.text` with lossless ``repr`` numbers and
a final newline; a file without one is taken as truncated. The rule base's
metadata, if any, follow the rules on one comment line
``# randomts-metadata: {...}`` (JSON), which :func:`randomts.text.parse_rules`
skips like any other comment.

Examples
--------
>>> from randomts import RuleBase
>>> rb = RuleBase.random(n_features=2, n_rules=2, random_state=0)
>>> fmt = TextFormat()
>>> fmt.from_string(fmt.to_string(rb)) == rb
True
"""

from __future__ import annotations

from ..text import format_rules, parse_rules
from ._base import RuleBaseFormat, metadata_comment, read_metadata_comment

__all__ = ["TextFormat"]


class TextFormat(RuleBaseFormat):
    """Numbered IF-THEN rules (:func:`randomts.text.format_rules`, ``precision=None``)."""

    name = "text"
    extensions = (".txt",)
    needs_final_newline = True

    def to_string(self, rule_base) -> str:
        """The rules as text, then the metadata comment, ending with a newline."""
        return "\n".join([format_rules(rule_base), *metadata_comment(rule_base, "#")]) + "\n"

    def from_string(self, text):
        """Parse text written by :meth:`to_string` (see :func:`randomts.text.parse_rules`)."""
        return parse_rules(text, metadata=read_metadata_comment(text, "#"))
