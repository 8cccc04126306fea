"""Tables of already formatted cells, in any tabulate format."""

from __future__ import annotations

from tabulate import tabulate, tabulate_formats

from randomts._validation import check_option

__all__ = ["TABLE_FORMATS", "render_table"]

#: Table formats accepted by :func:`render_table` and the ``table`` methods (those of tabulate).
TABLE_FORMATS = tuple(tabulate_formats)


def render_table(headers, rows, fmt="plain") -> str:
    """Rows of already formatted cells as a tabulate table, numbers right-aligned.

    Parameters
    ----------
    headers : sequence of str
        Column titles.
    rows : sequence of sequences of str
        The cells, written as given (no re-parsing of numbers).
    fmt : str, default="plain"
        One of :data:`randomts.text.tables.TABLE_FORMATS`.

    Examples
    --------
    >>> print(render_table(["rule", "w"], [["R1", "0.5"], ["R2", "0.25"]]))
    rule      w
    R1      0.5
    R2     0.25
    """
    check_option(fmt, "fmt", TABLE_FORMATS)
    colalign = ("left",) + ("right",) * (len(headers) - 1)
    return tabulate(
        [list(row) for row in rows],
        headers=list(headers),
        tablefmt=fmt,
        disable_numparse=True,
        colalign=colalign,
    )
