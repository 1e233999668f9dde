"""The `dtlsim` command line: readable tables by default, `--json` for machines.

`app` assembles the commands, one module per command group; `common` holds
what they share (the consoles, tables, errors and options)."""

from dtlsim.cli.app import app, main

__all__ = ["app", "main"]
