"""The ``randomts`` command: one module per group of subcommands."""

from randomts.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
