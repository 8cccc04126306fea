"""The ``randomts`` command: parse arguments, call the library, print.

Each group of subcommands has its module: :mod:`~randomts.cli.demo`,
:mod:`~randomts.cli.models` (``generate``), :mod:`~randomts.cli.convert` (``convert``,
also to C and ONNX), :mod:`~randomts.cli.fit`,
:mod:`~randomts.cli.rules` (``rules``, ``predict``, ``explain``) and
:mod:`~randomts.cli.plot`; :mod:`~randomts.cli.common` holds what they share.
"""

import argparse
import sys

from randomts.cli import convert, demo, fit, models, plot, rules
from randomts.cli.common import blas_threads

__all__ = ["build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser that reports errors as one line and exit code 2."""

    def error(self, message):
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


# Each subcommand has one ``add_<name>`` function that registers its arguments and
# its handler; a handler takes the parsed arguments and returns the text to print.
_SUBCOMMANDS = [
    demo.add_demo,
    models.add_generate,
    fit.add_fit,
    rules.add_rules,
    rules.add_predict,
    rules.add_explain,
    convert.add_convert,
    plot.add_plot,
]


def build_parser():
    """The argument parser of the ``randomts`` command.

    Examples
    --------
    >>> build_parser().parse_args(["demo", "--rules", "10"]).rules
    10
    """
    from randomts._version import __version__

    parser = _Parser(prog="randomts", description="Takagi-Sugeno fuzzy models with random rules.")
    from randomts.core.folds import compiled

    kernel = "compiled kernel" if compiled() else "no compiled kernel: SciPy's LAPACK wrappers"
    parser.add_argument("--version", action="version", version=f"randomts {__version__} ({kernel})")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an error, show Python's full traceback instead of one line",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for add in _SUBCOMMANDS:
        add(commands)
    for command in commands.choices.values():  # also after the subcommand's name
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )
    return parser


def _one_line(exc):
    """The line that reports ``exc``: an error of the input, or of randomts itself."""
    from randomts._version import __version__

    message = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, MemoryError):
        if "memory" not in message.lower():
            message = f"not enough memory: {message}"
        return f"randomts: error: {message}"
    if isinstance(exc, (ValueError, TypeError, OSError)):
        return f"randomts: error: {message}"
    return (
        f"randomts: internal error: {type(exc).__name__}: {message} (a bug of randomts "
        f"{__version__}: please report it with the command; 'randomts --debug ...' shows the "
        "traceback)"
    )


def main(argv=None):
    """Run the command line; return the exit code (0 ok, 1 error, 2 usage, 130 interrupted).

    Without arguments, print the usage and the subcommands to stderr and
    return 2. Whatever goes wrong is one line on stderr, never a traceback:
    ``randomts: error: <what>`` for bad input, missing files and work too
    large for the memory, and ``randomts: internal error: ...`` for a
    failure of randomts itself, which asks for a report; ``randomts --debug
    ...`` shows the traceback instead.

    Examples
    --------
    >>> main(["demo", "--rules", "0"])
    1
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        print(build_parser().format_help(), file=sys.stderr, end="")
        return 2
    args = None
    try:
        args = build_parser().parse_args(argv)
        with blas_threads():
            output = args.handler(args)
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("randomts: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # one line, whatever it is
        if getattr(args, "debug", False):
            raise
        print(_one_line(exc), file=sys.stderr)
        return 1
    if output:
        try:
            print(output)
        except BrokenPipeError:  # e.g. `randomts rules MODEL | head`
            sys.stderr.close()
    return 0
