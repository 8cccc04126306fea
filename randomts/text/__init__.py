"""Text for people: numbers and names, tables, the rules of a rule base and of a system; the one scanner.

Printers only, which compute nothing about the model: what the rules do on
data comes from :mod:`randomts.analysis`. The machine text of each format and
its reader live with the format in :mod:`randomts.io` (the TXT format:
:mod:`randomts.io.text_format`). Human text rounds (``precision``, 4
significant digits by default); the text of a system with ``precision=None``
keeps every bit. The printers are importable from here and documented in
their modules.
"""

from randomts.text.numbers import (
    format_name as format_name,
    format_number as format_number,
)
from randomts.text.rule_base import (
    LABELS as LABELS,
    describe_rules as describe_rules,
    format_html as format_html,
    format_table as format_table,
    linguistic_labels as linguistic_labels,
)
from randomts.text.system import (
    format_system as format_system,
    format_system_table as format_system_table,
)
from randomts.text.tables import (
    TABLE_FORMATS as TABLE_FORMATS,
    render_table as render_table,
)
