"""What every command group shares: the two consoles, the tables, how an
error or a Ctrl-C ends a command, the checks of an output path before any
work, and the options several commands take."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable
from rich.text import Text

from dtlsim.problems import FileError

# Wide tables stay readable when piped (rich would otherwise assume 80 columns).
console = Console(width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else 160)

Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
ScenarioFile = Annotated[Path, typer.Argument(help="Scenario TOML file (or a built-in name).")]
Workers = Annotated[int | None, typer.Option(help="Parallel workers (default: cores).")]
Quick = Annotated[bool, typer.Option(help="The scenario's quick replication count.")]

N = TypeVar("N", int, float)


def emit_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, default=str))


def fail(message: str, code: int = 2) -> None:
    # the message quotes what the user gave (and patterns such as ^[a-z0-9]…):
    # never read as rich markup
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    raise typer.Exit(code)


def show(title: str, rows: list[dict[str, Any]], caption: str | None = None) -> None:
    if not rows:
        console.print(f"[bold]{escape(title)}[/]: nothing to show")
        return
    t = RichTable(
        title=escape(title),
        caption=None if caption is None else escape(caption),
        caption_justify="left",
    )
    for col in rows[0]:
        t.add_column(str(col), justify="right" if _numeric(rows[0][col]) else "left")
    for r in rows:
        t.add_row(*(_cell(v) for v in r.values()))
    console.print(t)


def _numeric(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _cell(v: Any) -> str | Text:
    """A table cell: a value is shown as written, never read as markup
    (a styled cell comes as rich `Text`)."""
    if isinstance(v, Text):
        return v
    if isinstance(v, float):
        return f"{v:.6g}"
    if v is None:
        return "-"
    if v == "FAIL":
        return Text("FAIL", style="bold red")
    if v == "pass":
        return Text("pass", style="green")
    return escape(str(v))


def int_list(text: str, name: str) -> list[int]:
    return _numbers(text, name, int, "integers such as 1,2,1")


def float_list(text: str, name: str) -> list[float]:
    return _numbers(text, name, float, "numbers such as 1,0.9,1")


def _numbers(text: str, name: str, parse: Callable[[str], N], expected: str) -> list[N]:
    """An option's comma-separated numbers; anything else is an error naming it."""
    try:
        return [parse(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"{name} {text!r}: expected comma-separated {expected}")
        raise


@contextmanager
def failing_on(*kinds: type[Exception]) -> Iterator[None]:
    """An exception of these kinds (a bad file, a value the core refuses)
    ends the command as an error with its message, exit code 2."""
    try:
        yield
    except kinds as e:
        fail(str(e))


def notice_defaults(path: Path, sections: list[str]) -> None:
    if sections:
        names = ", ".join(f"[{s}]" for s in sections)
        err_console.print(
            escape(
                f"notice: {path} has no {names} section: its defaults are used "
                "(`dtlsim scenario schema` shows them)"
            ),
            highlight=False,
        )


def check_output_dir(option: str, path: Path) -> None:
    """Refuse an output directory that cannot be one, before any work starts."""
    if path.exists() and not path.is_dir():
        fail(f"{option} {path}: is a file; give a directory (it is created if missing)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        fail(f"{option} {path}: cannot create the directory ({e.strerror})")
    if not os.access(path, os.W_OK | os.X_OK):
        fail(f"{option} {path}: the directory is not writable")


def check_output_file(option: str, path: Path) -> None:
    """Refuse a file that cannot be written, before any work starts."""
    parent = path.parent
    if path.is_dir():
        fail(f"{option} {path}: is a directory; give a file name")
    if not parent.is_dir():
        fail(f"{option} {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"{option} {path}: not writable")


def interrupted(what: str) -> None:
    """Ctrl-C: say what was kept and how to go on, and exit 130 (128 + SIGINT)
    at once: units still running in the worker threads cannot be stopped,
    and they are not written."""
    err_console.print(f"[bold yellow]interrupted:[/] {escape(what)}", highlight=False)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


@contextmanager
def resumable(units: str = "units") -> Iterator[None]:
    """A sweep that keeps its finished units (`run`, `reproduce`): a Ctrl-C
    says how many were kept and how to resume; a bad file or value is an
    error. `units` names them in that message."""
    from dtlsim.sweep import SweepInterrupted

    try:
        with failing_on(FileError, ValueError, OSError):
            yield
    except SweepInterrupted as e:
        interrupted(
            f"{e.done} of {e.total} {units} finished, kept in {e.units_dir}; "
            "run the same command again to resume from there"
        )
    except KeyboardInterrupt:
        interrupted("run the same command again to resume (finished units are kept)")
