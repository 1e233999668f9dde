"""The `dtlsim` command line: readable tables by default, `--json` for machines.

`root.py` assembles the commands, one module per command group; `common.py`
holds what they share (the consoles, tables, errors and options). `app`, the
whole command, is built on first use, so `import dtlsim.cli` stays light."""

from typing import TYPE_CHECKING, Any

from dtlsim.cli.root import main

if TYPE_CHECKING:
    import typer

    app: typer.Typer

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    if name == "app":
        from dtlsim.cli.root import build

        globals()["app"] = built = build()
        return built
    raise AttributeError(f"module 'dtlsim.cli' has no attribute {name!r}")
