"""`dtlsim scenario`: check, list, show and start scenario files, and print
their JSON Schema."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from dtlsim import _core
from dtlsim.cli.common import (
    Json,
    ScenarioFile,
    console,
    emit_json,
    fail,
    failing_on,
    notice_defaults,
    show,
)
from dtlsim.problems import FileError

app = typer.Typer(help="Scenario files.", no_args_is_help=True)


@app.command("check")
def scenario_check(
    path: ScenarioFile,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="Override key.path=value (repeatable); plain words and lists work: "
            "platform=telosb,openmote-cc2538.",
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """Validate a scenario file, show its sweep axes, and list the points the
    simulator cannot run (`dtlsim run` skips them and marks them in the summary)."""
    from dtlsim import plan
    from dtlsim.scenario import load_scenario

    with failing_on(FileError, ValueError):
        s = load_scenario(path, set_ or [])
        points = list(s.points())
        refused = plan.split(s, points)[1] if s.simulated else []
    axes = s.axes()
    if as_json:
        not_run = [r.values | {"why": r.why} for r in refused]
        emit_json(
            {
                "id": s.experiment.id,
                "axes": axes,
                "points": len(points),
                "not_run": not_run,
                "defaulted": s.defaulted(),
            }
        )
        return
    notice_defaults(path, s.defaulted())
    console.print(f"[green]valid[/]: {escape(s.experiment.id)} — {escape(s.experiment.title)}")
    show("Sweep axes", [{"key": k, "values": ", ".join(map(str, v))} for k, v in axes.items()])
    if not s.simulated:
        console.print(plan.closed_form_only(s), markup=False)
    if refused:
        show(
            f"{len(refused)} point(s) the simulator cannot run (run skips them)",
            [r.values | {"why": r.why} for r in refused],
        )
    if s.simulated:
        console.print(f"{len(points) - len(refused)} of {len(points)} point(s) run")
    else:
        console.print(f"{len(points)} point(s)")


@app.command("list")
def scenario_list(as_json: Json = False) -> None:
    """The scenarios shipped with dtlsim (reference experiments and examples)."""
    from dtlsim.scenario import builtin_scenarios, load_scenario

    rows = []
    for name in builtin_scenarios():
        s = load_scenario(name)
        rows.append(
            {
                "name": name,
                "mac": s.settled[0]["mac"]["kind"],
                "points": len(s.settled),
                "title": s.experiment.title,
            }
        )
    if as_json:
        emit_json(rows)
        return
    show("Shipped scenarios (dtlsim scenario show NAME)", rows)


@app.command("show")
def scenario_show(
    name: Annotated[str, typer.Argument(help="A shipped scenario's name, or a file.")],
) -> None:
    """A scenario file as written, comments and all (redirect it to start your own)."""
    from dtlsim.scenario import builtin_scenarios, resolve

    with failing_on(FileError):
        path = resolve(name)
    if not path.is_file():
        shipped = ", ".join(builtin_scenarios())
        fail(f"{name}: no such scenario file or shipped scenario ({shipped})")
    print(path.read_text(encoding="utf-8"), end="")


@app.command("new")
def scenario_new(
    mac: Annotated[str, typer.Option(help="csma, xmac, beacon or tsch.")] = "csma",
    workload: Annotated[
        str, typer.Option(help="handshakes, ping, frames or periodic.")
    ] = "handshakes",
    hops: Annotated[int, typer.Option(help="Hops from client to server (a line).")] = 2,
    handshake: Annotated[
        str, typer.Option(help="dtls or edhoc (EDHOC over CoAP, the handshakes workload).")
    ] = "dtls",
) -> None:
    """A new scenario file with every default written out and documented
    (`dtlsim scenario new --mac tsch > my.toml`)."""
    from dtlsim.template import new_scenario

    with failing_on(ValueError):
        print(new_scenario(mac, workload, hops, handshake), end="")


@app.command("schema")
def scenario_schema(
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the schema here instead of printing it.")
    ] = None,
) -> None:
    """The JSON Schema of a scenario file, as the Rust core generates it (for
    editors: every key, its type, its default and its documentation)."""
    text = _core.scenario_schema()
    if out is None:
        print(text, end="")
    else:
        out.write_text(text, encoding="utf-8")
