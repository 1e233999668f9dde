"""`dtlsim trace`: what a `--trace` file shows, drawn."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from dtlsim.cli.common import check_output_file, console, fail, failing_on

app = typer.Typer(help="Event traces written by `dtlsim run --trace`.", no_args_is_help=True)

FORMATS = (".html", ".svg")


@app.command("show")
def trace_show(
    trace: Annotated[Path, typer.Argument(help="A trace: `dtlsim run SCENARIO --trace FILE`.")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Where to draw it: F.html (the timeline and its messages) or F.svg "
            "(the picture alone). Default: the trace's name with .html.",
        ),
    ] = None,
    start_ms: Annotated[
        float | None,
        typer.Option(help="Draw from this virtual time (default: the first handshake)."),
    ] = None,
    end_ms: Annotated[
        float | None, typer.Option(help="Draw up to this virtual time (default: its end).")
    ] = None,
) -> None:
    """Draw one handshake of a trace as a timeline: a lane per node, its frames
    and strobes on air, lost receptions, the DTLS or EDHOC messages from
    sender to receiver, and retransmissions, on a virtual-time axis."""
    from dtlsim import timeline

    target = out or trace.with_suffix(".html")
    if target.suffix not in FORMATS:
        fail(f"--out {target}: the picture is written as .html or .svg, not {target.suffix!r}")
    check_output_file("--out", target)
    with failing_on(timeline.TraceFileError):
        events = timeline.read(trace)
    window = timeline.handshake_window(events)
    if start_ms is not None or end_ms is not None:
        first, last = float(events.time_us.min()), float(events.time_us.max())
        start = start_ms * 1000 if start_ms is not None else first
        end = end_ms * 1000 if end_ms is not None else last
        if not start < end:
            fail(
                f"--start-ms {start / 1000:g}, --end-ms {end / 1000:g}: the start must be "
                f"before the end (the trace runs {first / 1000:g} ms to {last / 1000:g} ms)"
            )
        if end < first or start > last:
            fail(
                f"--start-ms {start / 1000:g}, --end-ms {end / 1000:g}: no event there (the "
                f"trace runs {first / 1000:g} ms to {last / 1000:g} ms)"
            )
        window = timeline.Window(start, end, "the chosen window")
    timeline.write(events, trace.name, target, window)
    span = f"{window.start_us / 1000:.1f} ms to {window.end_us / 1000:.1f} ms"
    console.print(escape(f"timeline of {window.what} ({span}) → {target}"))
