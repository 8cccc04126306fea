"""Variable names made safe for formats that restrict them."""

from __future__ import annotations

__all__ = ["unique_names"]


def unique_names(names):
    """``names`` with later duplicates suffixed ``_2``, ``_3``, ... so that all differ.

    Examples
    --------
    >>> unique_names(["a_b", "a_b", "c"])
    ['a_b', 'a_b_2', 'c']
    """
    seen, out = set(), []
    for name in names:
        candidate, k = name, 1
        while candidate in seen:
            k += 1
            candidate = f"{name}_{k}"
        seen.add(candidate)
        out.append(candidate)
    return out
