"""The `dtlsim` command: the root with its `--version`, and the command
groups, each from its own module. A command line that names one command
loads only that command's module (start-up time: typer inspects every
command it is given); `--help` and the tests get them all."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from typing import Annotated

import typer

from dtlsim import __version__

# Every command, in the order `dtlsim --help` lists them: its module in
# dtlsim.cli and the function there (a group: the module's own Typer `app`).
COMMANDS = {
    "platforms": ("platforms", "platforms_cmd"),
    "run": ("run", "run_cmd"),
    "bench": ("bench", "bench_cmd"),
    "tune": ("tune", "tune_cmd"),
    "reproduce": ("reproduce", "reproduce_cmd"),
    "model": ("model", "app"),
    "scenario": ("scenario", "app"),
    "dtls": ("dtls", "app"),
    "trace": ("trace", "app"),
}


def build(names: Iterable[str] = COMMANDS) -> typer.Typer:
    """The root command with the commands `names`."""
    app = typer.Typer(
        help="dtlsim: what DTLS and link-layer security cost on low-power IEEE 802.15.4 networks.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    app.callback(invoke_without_command=True)(_root)
    for name in names:
        module, attr = COMMANDS[name]
        command = getattr(importlib.import_module(f"dtlsim.cli.{module}"), attr)
        if isinstance(command, typer.Typer):
            app.add_typer(command, name=name)
        else:
            app.command(name)(command)
    return app


def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    if version:
        print(f"dtlsim {__version__}")
        raise typer.Exit()


def main() -> None:
    named = sys.argv[1] if len(sys.argv) > 1 else None
    app = build([named]) if named in COMMANDS else build()
    try:
        app()
    except BrokenPipeError:  # `dtlsim ... | head`
        sys.stderr.close()
