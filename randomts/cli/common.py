"""What the subcommands share.

Argument types, loading and saving models, checking an output before any work,
the progress bar on stderr and the report of the library's warnings.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings

__all__ = [
    "int_at_least",
    "positive_int",
    "non_negative_int",
    "formats_help",
    "check_output",
    "save_model",
    "load_model",
    "delimiter",
    "add_delimiter",
    "progress_bar",
    "reported_warnings",
    "blas_threads",
    "note",
    "flush_notes",
]


def int_at_least(low, expected):
    """An argparse type: an int ``>= low``, else an error saying ``expected``."""

    def convert(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return convert


positive_int = int_at_least(1, "a positive integer")
non_negative_int = int_at_least(0, "an integer >= 0")


def formats_help():
    """The file formats, as ``{fis,fll,...}`` for a help text."""
    from randomts.io import FORMATS

    return "{" + ",".join(sorted(FORMATS)) + "}"


def check_output(path, format, option="--format"):
    """Refuse, before any work, an output whose format is unknown or whose folder is missing."""
    from randomts.io import format_for

    format_for(path, format, option=option)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"Cannot write {path!r}: the folder {folder!r} does not exist.")


def save_model(model, path, format):
    """Save ``model`` to ``path``; the line that reports what was written."""
    from randomts.analysis.protocol import as_model
    from randomts.io import save

    save(model, path, format=format)
    rule_base = as_model(model, "save")  # a fitted estimator is saved as its rules
    return (
        f"wrote {path} ({rule_base.n_rules} rules, {rule_base.n_features} inputs, "
        f"{rule_base.n_outputs} outputs)"
    )


def load_model(path, format=None, *, keep_names=False):
    """The rules in ``path`` (an estimator's, for a file saved from one).

    With ``keep_names``, a file whose terms are named otherwise than a rule
    base names them loads as a :class:`~randomts.fuzzy.system.FuzzySystem`.
    """
    from randomts.analysis.protocol import as_model
    from randomts.fuzzy.system import FuzzySystem
    from randomts.io import load

    model = load(path, format=format)
    model = as_model(model, "load")  # the rules of a file saved from an estimator
    if keep_names and not isinstance(model, FuzzySystem):
        # A FIS/FLL of RuleBase shape may name its terms its own way: keep the names.
        system = load(path, format=format, system=True)
        plain = FuzzySystem.from_rule_base(model)
        if [list(v.terms) for v in system.inputs + system.outputs] != [
            list(v.terms) for v in plain.inputs + plain.outputs
        ]:
            return system
    return model


def delimiter(text):
    """An argparse type: one character, or ``\\t`` or ``tab`` for a tab."""
    value = {"\\t": "\t", "tab": "\t"}.get(text, text)
    if len(value) != 1 or value in '"\r\n':
        raise argparse.ArgumentTypeError(
            f"expected one character (or '\\t' or 'tab' for a tab), got {text!r}"
        )
    return value


def add_delimiter(cmd):
    """Add the ``--delimiter`` option of a command that reads or writes CSV."""
    cmd.add_argument(
        "--delimiter",
        type=delimiter,
        default=",",
        metavar="CHAR",
        help="the character between cells (default ','; '\\t' or 'tab' for a tab)",
    )


class _NoBar:
    def update(self, n=1):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def progress_bar(total, *, quiet):
    """A tqdm bar on stderr when it is a terminal and the work lasts over a second, else nothing."""
    if quiet or not sys.stderr.isatty():
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is optional: no bar
        return _NoBar()
    return tqdm(
        total=total, desc="randomts fit", unit="fit", file=sys.stderr, leave=False, delay=1.0
    )


@contextlib.contextmanager
def reported_warnings(ignore=None):
    """Print the warnings raised in the block, once per message, as readable lines on stderr.

    Each line reads ``randomts: warning: <message> [<class>] (<n> times)``.
    Deprecation warnings (for developers, not for the data's owner),
    scikit-learn's note that an array has no feature names (the CLI selects
    the columns by name) and warnings of the class ``ignore`` (one the
    command has already reported in its own words) are left out.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=PendingDeprecationWarning)
        warnings.filterwarnings("ignore", message="X does not have valid feature names")
        if ignore is not None:
            warnings.filterwarnings("ignore", category=ignore)
        yield
    counts = {}
    for item in caught:
        key = (item.category.__name__, str(item.message))
        counts[key] = counts.get(key, 0) + 1
    for (category, message), count in counts.items():
        times = f" ({count} times)" if count > 1 else ""
        print(f"randomts: warning: {message} [{category}]{times}", file=sys.stderr)


@contextlib.contextmanager
def blas_threads():
    """Run a command with BLAS on one thread, and give the setting back after it.

    The command owns its process, so it may set what randomts as a library
    leaves alone. Its matrices are small for BLAS (a fit's factor has a few
    hundred to a few thousand columns; ``predict`` works row by row), so
    more threads gain little on an idle machine and lose much on a busy one,
    where BLAS threads spin waiting for cores that other processes hold: the
    demo's experiment took 5.8 times as long with OpenBLAS's two threads as
    with one, in paired runs on the loaded 2-core machine (see
    ``docs/reproduction.rst``). One thread also makes the command's results
    independent of the environment's thread setting.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def note(notes, text):
    """Say ``text`` on stderr as ``randomts: <text>``: now, or when ``notes`` (a list) is flushed.

    A command collects what it notes while it checks its input and flushes
    it when the work starts, so that input refused by a later check gets its
    one line of error and nothing else.
    """
    line = f"randomts: {text}"
    if notes is None:
        print(line, file=sys.stderr)
    else:
        notes.append(line)


def flush_notes(notes):
    """Print the lines collected in ``notes`` on stderr, and forget them."""
    for line in notes:
        print(line, file=sys.stderr)
    notes.clear()
