"""The `dtlsim` command: the root with its `--version`, and every command
group, each from its own module, in the order `--help` lists them."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from dtlsim import __version__
from dtlsim.cli import bench, dtls, model, platforms, reproduce, run, scenario, tune

app = typer.Typer(
    help="dtlsim: what DTLS and link-layer security cost on low-power IEEE 802.15.4 networks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(model.app, name="model")
app.add_typer(scenario.app, name="scenario")
app.command("platforms")(platforms.platforms_cmd)
app.command("run")(run.run_cmd)
app.add_typer(dtls.app, name="dtls")
app.command("bench")(bench.bench_cmd)
app.command("tune")(tune.tune_cmd)
app.command("reproduce")(reproduce.reproduce_cmd)


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    if version:
        print(f"dtlsim {__version__}")
        raise typer.Exit()


def main() -> None:
    try:
        app()
    except BrokenPipeError:  # `dtlsim ... | head`
        sys.stderr.close()
