"""The progress of a fit of several candidates: a bar on stderr, a counter, or nothing."""

from __future__ import annotations

import contextlib
import sys

__all__ = ["progress_bar"]


@contextlib.contextmanager
def progress_bar(total, progress, owner):
    """``tick(description)`` after every candidate: a bar on stderr, a counter, or nothing.

    ``progress``: ``"auto"`` (a tqdm bar on a terminal, shown after a
    second and gone at the end), True (always, and left), False (never);
    without tqdm (the ``progress`` extra) a counter. ``owner``: the
    estimator, for the bar and the messages.
    """
    if progress not in ("auto", True, False):
        raise ValueError(
            f"The 'progress' parameter of {owner} must be 'auto', True or False. "
            f"Got {progress!r} instead."
        )
    shown = progress is True or (progress == "auto" and sys.stderr.isatty())
    if not shown:
        yield lambda description: None
        return
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is optional: a counter
        tqdm = None
    if tqdm is None:
        done = [0]

        def count(description):
            done[0] += 1
            sys.stderr.write(f"\r{owner}.fit: {done[0]}/{total} candidates ({description})")
            sys.stderr.flush()

        yield count
        sys.stderr.write("\n")
        return
    bar = tqdm(
        total=total,
        desc=f"{owner}.fit",
        unit="candidate",
        file=sys.stderr,
        leave=progress is True,
        delay=1.0 if progress == "auto" else 0.0,
    )

    def tick(description):
        bar.set_postfix_str(description, refresh=False)
        bar.update(1)

    try:
        yield tick
    finally:
        bar.close()
