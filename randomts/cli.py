"""The ``randomts`` command: parse arguments, call the library, print."""

from __future__ import annotations

import argparse
import sys

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    """An argument parser that reports errors as one line and exit code 2."""

    def error(self, message):
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


# Each subcommand has one ``_add_<name>`` function that registers its arguments and
# its handler; a handler takes the parsed arguments and returns the text to print.


def _add_demo(commands):
    demo = commands.add_parser("demo", help="fit the paper's Van der Pol data and print the first rules")
    demo.add_argument("--rules", type=int, default=100, help="number of rules (default 100)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    demo.set_defaults(handler=_demo)


def _demo(args):
    from .demo import run_demo

    return run_demo(n_rules=args.rules, seed=args.seed)


_SUBCOMMANDS = [_add_demo]


def build_parser():
    """The argument parser of the ``randomts`` command.

    Examples
    --------
    >>> build_parser().parse_args(["demo", "--rules", "10"]).rules
    10
    """
    parser = _Parser(prog="randomts", description="Takagi-Sugeno fuzzy models with random rules.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for add in _SUBCOMMANDS:
        add(commands)
    return parser


def main(argv=None):
    """Run the command line; return the exit code (0 ok, 1 error, 2 usage).

    Examples
    --------
    >>> main(["demo", "--rules", "0"])
    1
    """
    try:
        args = build_parser().parse_args(argv)
        output = args.handler(args)
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as exc:
        print(f"randomts: error: {exc}", file=sys.stderr)
        return 1
    if output:
        try:
            print(output)
        except BrokenPipeError:  # e.g. `randomts rules MODEL | head`
            sys.stderr.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
