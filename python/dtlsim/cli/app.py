"""The `dtlsim` command line: readable tables by default, `--json` for machines."""

from __future__ import annotations

import json
import math
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable
from rich.text import Text

from dtlsim import __version__, _core
from dtlsim.problems import FileError

if TYPE_CHECKING:
    from dtlsim.runner import Capture
    from dtlsim.scenario import Scenario

app = typer.Typer(
    help="dtlsim: what DTLS and link-layer security cost on low-power IEEE 802.15.4 networks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
model_app = typer.Typer(
    help="Closed-form models: TSCH latency, Engset blocking, overhead, timeslot.",
    no_args_is_help=True,
)
scenario_app = typer.Typer(help="Scenario files.", no_args_is_help=True)
app.add_typer(model_app, name="model")
app.add_typer(scenario_app, name="scenario")

# Wide tables stay readable when piped (rich would otherwise assume 80 columns).
console = Console(width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else 160)

Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]


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
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"{name} {text!r}: expected comma-separated integers such as 1,2,1")
        raise


def float_list(text: str, name: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"{name} {text!r}: expected comma-separated numbers such as 1,0.9,1")
        raise


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    if version:
        print(f"dtlsim {__version__}")
        raise typer.Exit()


# ----------------------------------------------------------------- model tsch


@model_app.command("tsch")
def model_tsch(
    slotframe: Annotated[int, typer.Option(help="Slotframe length L in timeslots.")],
    cells: Annotated[
        int | None, typer.Option(help="Dedicated cells C per link (every hop).")
    ] = None,
    hops: Annotated[int | None, typer.Option(help="Number of hops H (with --cells).")] = None,
    cells_per_hop: Annotated[
        str | None, typer.Option(help="Cells per hop, e.g. 1,2,1 (instead of --cells/--hops).")
    ] = None,
    pdr: Annotated[float | None, typer.Option(help="Delivery ratio P of every hop.")] = None,
    pdr_per_hop: Annotated[str | None, typer.Option(help="PDR per hop, e.g. 1,0.9,1.")] = None,
    frames: Annotated[int, typer.Option(help="Frames F per handshake.")] = 10,
    timeslot_ms: Annotated[float, typer.Option(help="Timeslot duration T in ms.")] = 10.0,
    as_json: Json = False,
) -> None:
    """Expected handshake duration over TSCH: closed form (1 + L/(C+1))/P and exact expectation."""
    if cells_per_hop is not None:
        if cells is not None or hops is not None:
            fail("give either --cells-per-hop or --cells with --hops, not both")
        per_hop = int_list(cells_per_hop, "--cells-per-hop")
    else:
        if cells is None:
            fail("give --cells (with --hops) or --cells-per-hop")
        per_hop = [cells] * (hops if hops is not None else 1)
    if not per_hop:
        fail("the path needs at least one hop")
    if pdr_per_hop is not None:
        if pdr is not None:
            fail("give either --pdr or --pdr-per-hop, not both")
        pdrs = float_list(pdr_per_hop, "--pdr-per-hop")
    else:
        pdrs = [1.0 if pdr is None else pdr] * len(per_hop)
    if len(pdrs) != len(per_hop):
        fail(f"--pdr-per-hop has {len(pdrs)} values for {len(per_hop)} hops")
    try:
        r = _core.tsch_handshake(slotframe, per_hop, pdrs, frames, timeslot_ms)
    except ValueError as e:
        fail(str(e))
    result = {
        "slotframe": slotframe,
        "cells_per_hop": per_hop,
        "pdr_per_hop": pdrs,
        "frames": frames,
        "timeslot_ms": timeslot_ms,
        "closed_form": {
            "handshake_s": r["closed_form_s"],
            "slots_per_frame": r["closed_form_slots_per_frame"],
            "slots_per_hop": [h[0] for h in r["per_hop_slots"]],
            "formula": "F * sum_hops (1 + L/(C+1)) / P timeslots",
            "assumes": "L >> C: cells as random points on a continuous circle; "
            "each retry a fresh uniform draw",
        },
        "exact": {
            "handshake_s": r["exact_s"],
            "slots_per_frame": r["exact_slots_per_frame"],
            "slots_per_hop": [h[1] for h in r["per_hop_slots"]],
            "assumes": "C distinct slots drawn uniformly among L; a retry waits for the next "
            "cell of the same schedule; first hop entered at a uniform instant, later hops "
            "on a slot boundary",
        },
        "common_assumptions": "frames independent (empty queues), hops' cells independent, "
        "no collisions",
    }
    if as_json:
        emit_json(result)
        return
    rows = [
        {
            "hop": i + 1,
            "cells": c,
            "pdr": p,
            "closed form (slots)": h[0],
            "exact (slots)": h[1],
        }
        for i, (c, p, h) in enumerate(zip(per_hop, pdrs, r["per_hop_slots"], strict=True))
    ]
    show(f"TSCH latency per hop, L = {slotframe}", rows)
    console.print(
        f"Handshake of {frames} frames, {timeslot_ms:g} ms slots: "
        f"closed form [bold]{r['closed_form_s']:.4g} s[/], exact [bold]{r['exact_s']:.4g} s[/]"
    )
    console.print(f"[dim]closed form assumes {result['closed_form']['assumes']}[/]")
    console.print(f"[dim]exact assumes {result['exact']['assumes']}[/]")


# --------------------------------------------------------------- model engset


@model_app.command("engset")
def model_engset(
    slots: Annotated[int, typer.Option(help="Session slots R at the server.")],
    clients: Annotated[int, typer.Option(help="Clients N.")],
    erlang: Annotated[float, typer.Option(help="Offered traffic ρ = λ/μ of one idle client.")],
    as_json: Json = False,
) -> None:
    """Session blocking in an M/M/R/R/N (Engset) system: time and call congestion."""
    try:
        r = _core.engset(slots, clients, erlang)
    except ValueError as e:
        fail(str(e))
    result = {
        "slots": slots,
        "clients": clients,
        "erlang": erlang,
        "time_congestion": r["time_congestion"],
        "time_congestion_means": "fraction of time all R slots are busy",
        "call_congestion": r["call_congestion"],
        "call_congestion_means": "fraction of session requests refused (what a client sees)",
        "carried_erlang": r["carried_erlang"],
        "busy_distribution": r["busy_distribution"],
    }
    if as_json:
        emit_json(result)
        return
    show(
        f"Busy session slots, R = {slots}, N = {clients}, ρ = {erlang:g}",
        [{"busy k": k, "P(k)": p} for k, p in enumerate(r["busy_distribution"])],
    )
    console.print(
        f"time congestion [bold]{r['time_congestion']:.6g}[/]  ({result['time_congestion_means']})"
    )
    console.print(
        f"call congestion [bold]{r['call_congestion']:.6g}[/]  ({result['call_congestion_means']})"
    )


# ------------------------------------------------------------- model overhead


@model_app.command("overhead")
def model_overhead(
    version: Annotated[str, typer.Option(help="DTLS version: 1.2 or 1.3.")] = "1.2",
    suite: Annotated[
        list[str] | None, typer.Option(help="Suite (repeatable); default every suite of --version.")
    ] = None,
    payload: Annotated[int, typer.Option(help="Application bytes per datagram.")] = 32,
    max_frame: Annotated[int, typer.Option(help="aMaxPHYPacketSize in bytes.")] = 127,
    addressing: Annotated[str, typer.Option(help="short or extended (both addresses).")] = "short",
    pan_id_compression: Annotated[bool, typer.Option(help="PAN ID compression.")] = True,
    level: Annotated[str, typer.Option(help="802.15.4 security level, e.g. enc-mic-32.")] = "none",
    key_id_mode: Annotated[int, typer.Option(help="Key identifier mode 0..3.")] = 1,
    frame_counter_suppressed: Annotated[bool, typer.Option(help="No frame counter.")] = False,
    compression: Annotated[
        str, typer.Option(help="link-local, context, global-inline or uncompressed.")
    ] = "link-local",
    udp_ports: Annotated[str, typer.Option(help="inline, 8bit or 4bit.")] = "inline",
    udp_checksum_elided: Annotated[bool, typer.Option(help="Elide the UDP checksum.")] = False,
    hop_limit_inline: Annotated[bool, typer.Option(help="Hop limit carried inline.")] = False,
    cid_len: Annotated[int, typer.Option(help="DTLS 1.3 connection ID bytes.")] = 0,
    seq_len: Annotated[int, typer.Option(help="DTLS 1.3 sequence number bytes (1, 2).")] = 1,
    length_present: Annotated[bool, typer.Option(help="DTLS 1.3 length field.")] = False,
    padding: Annotated[int, typer.Option(help="DTLS 1.3 record padding bytes.")] = 0,
    as_json: Json = False,
) -> None:
    """Bytes DTLS adds per datagram, and what is left in one 802.15.4 frame."""
    try:
        frame = _core.FrameSpec(
            max_frame=max_frame,
            dst=addressing,
            src=addressing,
            pan_id_compression=pan_id_compression,
            level=level,
            key_id_mode=key_id_mode,
            frame_counter_suppressed=frame_counter_suppressed,
            compression=compression,
            udp_ports=udp_ports,
            udp_checksum_elided=udp_checksum_elided,
            hop_limit_inline=hop_limit_inline,
        )
        names = suite or [s["name"] for s in _core.suites() if s["version"] == version]
        unified = {
            "cid_len": cid_len,
            "seq_len": seq_len,
            "length_present": length_present,
            "padding": padding,
        }
        rows = []
        for name in [None, *names]:
            c = _core.datagram_cost(frame, version, name, payload, **unified)
            max_app = _core.max_unfragmented_app_payload(frame, version, name, **unified)
            rows.append(
                {
                    "suite": name or "plain UDP",
                    "header": c["record_header"],
                    "nonce/IV": c["nonce_or_iv"],
                    "tag/MAC": c["tag_or_mac"],
                    "padding": c["padding"],
                    "overhead": c["record_overhead"],
                    "UDP payload": c["udp_payload"],
                    "frames": c["frames"],
                    "max app in 1 frame": max_app,
                    "fragmentation from": None if max_app is None else max_app + 1,
                }
            )
        budget = frame.budget()
    except ValueError as e:
        fail(str(e))
    if as_json:
        emit_json(
            {
                "version": version,
                "app_bytes": payload,
                "frame": budget
                | {
                    "max_frame": max_frame,
                    "addressing": addressing,
                    "level": level,
                    "key_id_mode": key_id_mode,
                    "compression": compression,
                    "udp_ports": udp_ports,
                },
                "suites": [
                    {
                        "suite": r["suite"],
                        "record_header": r["header"],
                        "nonce_or_iv": r["nonce/IV"],
                        "tag_or_mac": r["tag/MAC"],
                        "padding": r["padding"],
                        "bytes_per_datagram": r["overhead"],
                        "udp_payload": r["UDP payload"],
                        "frames": r["frames"],
                        "max_app_bytes_one_frame": r["max app in 1 frame"],
                        "fragmentation_starts_at": r["fragmentation from"],
                    }
                    for r in rows
                ],
            }
        )
        return
    show(f"DTLS {version} record overhead for {payload} application bytes", rows)
    show(
        f"One {max_frame}-byte frame: {addressing} addresses, security {level}, {compression}",
        [budget],
    )


# ------------------------------------------------------------- model timeslot


@model_app.command("timeslot")
def model_timeslot(
    platform: Annotated[str, typer.Option(help="Platform id (see `dtlsim platforms`).")],
    strategy: Annotated[str, typer.Option(help="software, hybrid or hardware.")] = "hardware",
    implementation: Annotated[
        str,
        typer.Option(
            help="datasheet (the parts alone, the lower bound) or openwsn (what the OpenWSN "
            "firmware adds on that board)."
        ),
    ] = "datasheet",
    level: Annotated[
        list[str] | None, typer.Option(help="Security level (repeatable); default all eight.")
    ] = None,
    frame_bytes: Annotated[int, typer.Option(help="Data frame length (PSDU bytes).")] = 127,
    key_id_mode: Annotated[int, typer.Option(help="Key identifier mode 0..3.")] = 3,
    frame_counter_suppressed: Annotated[bool, typer.Option(help="No frame counter.")] = False,
    cells: Annotated[int, typer.Option(help="Cells N_i the device owns per slotframe.")] = 1,
    slotframe: Annotated[int, typer.Option(help="Slotframe length N_ts.")] = 101,
    as_json: Json = False,
) -> None:
    """Durations of sec1..sec4, the minimal TSCH timeslot, and the rate bound."""
    from dtlsim import models
    from dtlsim.platform import load_platform

    try:
        plat = load_platform(platform)
        rows = []
        for lv in level or list(models.SECURITY_LEVELS):
            t = models.timeslot(
                plat,
                strategy,
                lv,
                implementation,
                frame_bytes=frame_bytes,
                key_id_mode=key_id_mode,
                frame_counter_suppressed=frame_counter_suppressed,
            )
            rate = _core.rate_bound_bps(
                cells, t["app_bits_per_frame"], slotframe, t["slot_duration_us"]
            )
            rows.append({"level": lv} | t | {"rate_bound_bps": rate})
    except (FileError, ValueError) as e:
        fail(str(e))
    if as_json:
        emit_json(
            {
                "platform": plat.id,
                "strategy": strategy,
                "implementation": implementation,
                "frame_bytes": frame_bytes,
                "owned_cells": cells,
                "slotframe": slotframe,
                "levels": rows,
            }
        )
        return
    keep = [
        "level",
        "sec1_us",
        "sec2_us",
        "sec3_us",
        "sec4_us",
        "tx_offset_us",
        "tx_ack_delay_us",
        "slot_duration_us",
        "app_bits_per_frame",
        "rate_bound_bps",
    ]
    show(
        f"{plat.name}, {strategy} CCM*, {implementation} profile: minimal TSCH timeslot (µs)",
        [{k: r[k] for k in keep} for r in rows],
        caption=f"rate bound: {cells} cell(s) per {slotframe}-slot slotframe, minimal slot",
    )


# ------------------------------------------------------------------ platforms


@app.command("platforms")
def platforms_cmd(
    platform: Annotated[str | None, typer.Argument(help="Show one platform in full.")] = None,
    as_json: Json = False,
) -> None:
    """List the device platforms, or show one with every value and its source."""
    from dtlsim.platform import list_platforms, load_platform

    try:
        if platform is None:
            plats = [load_platform(p) for p in list_platforms()]
            rows = [
                {
                    "id": p.id,
                    "name": p.name,
                    "mcu": p.mcu.part,
                    "radio": p.radio.part,
                    "supply V": p.supply.voltage_v.value,
                }
                for p in plats
            ]
            emit_json(rows) if as_json else show("Platforms", rows)
            return
        p = load_platform(platform)
    except FileError as e:
        fail(str(e))
    data = p.model_dump()
    if as_json:
        emit_json(data)
        return
    rows = list(_flatten_sourced(data))
    show(f"{p.name} ({p.id})", rows)


def _flatten_sourced(data: Any, prefix: str = "") -> Any:
    if isinstance(data, dict):
        if set(data) == {"value", "source"}:
            yield {"key": prefix, "value": data["value"], "source": data["source"]}
            return
        for k, v in data.items():
            yield from _flatten_sourced(v, f"{prefix}.{k}" if prefix else str(k))
    else:
        yield {"key": prefix, "value": data, "source": ""}


# ------------------------------------------------------------------- scenario


@scenario_app.command("check")
def scenario_check(
    path: Annotated[Path, typer.Argument(help="Scenario TOML file (or a built-in name).")],
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

    try:
        s = load_scenario(path, set_ or [])
        points = list(s.points())
        refused = plan.split(s, points)[1] if s.simulated else []
    except (FileError, ValueError) as e:
        fail(str(e))
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
    _notice_defaults(path, s.defaulted())
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


@scenario_app.command("list")
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


@scenario_app.command("show")
def scenario_show(
    name: Annotated[str, typer.Argument(help="A shipped scenario's name, or a file.")],
) -> None:
    """A scenario file as written, comments and all (redirect it to start your own)."""
    from dtlsim.scenario import builtin_scenarios, resolve

    path = resolve(name)
    if not path.is_file():
        shipped = ", ".join(builtin_scenarios())
        fail(f"{name}: no such scenario file or shipped scenario ({shipped})")
    print(path.read_text(encoding="utf-8"), end="")


@scenario_app.command("new")
def scenario_new(
    mac: Annotated[str, typer.Option(help="csma, xmac, beacon or tsch.")] = "csma",
    workload: Annotated[
        str, typer.Option(help="handshakes, ping, frames or periodic.")
    ] = "handshakes",
    hops: Annotated[int, typer.Option(help="Hops from client to server (a line).")] = 2,
) -> None:
    """A new scenario file with every default written out and documented
    (`dtlsim scenario new --mac tsch > my.toml`)."""
    from dtlsim.template import new_scenario

    try:
        print(new_scenario(mac, workload, hops), end="")
    except ValueError as e:
        fail(str(e))


@scenario_app.command("schema")
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


# ------------------------------------------------------------------------ run


@app.command("run")
def run_cmd(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (or a built-in name).")],
    replications: Annotated[
        int | None, typer.Option(help="Replications per point (default: the scenario's).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Override experiment.seed.")] = None,
    out: Annotated[
        Path | None, typer.Option(help="Results directory (default results/<experiment id>).")
    ] = None,
    pcap: Annotated[
        Path | None,
        typer.Option(
            help="Write the frames of one run (--pcap-point, --pcap-replication) as a pcap in "
            "the IEEE 802.15.4 TAP link type (283): under TSCH each frame names its channel "
            "and ASN."
        ),
    ] = None,
    trace: Annotated[
        Path | None,
        typer.Option(
            help="Write the events of the same run (--pcap-point, --pcap-replication) as "
            "Parquet, a row per event: frames sent and judged (received, collided, faded, …), "
            "payloads delivered, timers fired, application records; DTLS messages of client "
            "and server with their records' epoch and sequence number, states and resent "
            "flights; EDHOC messages and the CoAP messages carrying them. Columns: time_us, "
            "node, layer, kind, emission, copy, bytes, peer, outcome, message, epoch, seq."
        ),
    ] = None,
    trace_max_events: Annotated[
        int, typer.Option(help="Rows --trace keeps at most (the rest are counted, not kept).")
    ] = 1_000_000,
    pcap_point: Annotated[
        int,
        typer.Option(
            help="Which point of the sweep --pcap and --trace write (0-based, sweep order)."
        ),
    ] = 0,
    pcap_replication: Annotated[
        int, typer.Option(help="Which replication of that point --pcap and --trace write.")
    ] = 0,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="Override key.path=value; a list (platform=telosb,openmote-cc2538 or "
            "topology.hops=[1,2]) makes a sweep axis.",
        ),
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Parallel workers (default: cores).")] = None,
    dask: Annotated[
        str | None,
        typer.Option(
            help="Run the units as tasks on a Dask cluster: 'local' (a LocalCluster of "
            "--workers processes on this machine) or a scheduler address, tcp://host:8786. "
            "Results and resuming are as without it.",
        ),
    ] = None,
    quick: Annotated[bool, typer.Option(help="The scenario's quick replication count.")] = False,
    csv: Annotated[
        bool,
        typer.Option(
            "--csv", help="Also write the rows as results.csv (several times the Parquet's size)."
        ),
    ] = False,
    as_json: Json = False,
) -> None:
    """Simulate a scenario: every point of its sweep × replications, resumable."""
    from contextlib import nullcontext

    from dtlsim.brief import FEW, brief, with_engset
    from dtlsim.plan import NotRun
    from dtlsim.progress import Reporter
    from dtlsim.runner import TIDY_FILE, replications_of, run
    from dtlsim.scenario import load_scenario
    from dtlsim.sweep import SECRETS, SweepInterrupted, public

    overrides = list(set_ or [])
    if seed is not None:
        overrides.append(f"experiment.seed={seed}")
    try:
        sc = load_scenario(scenario, overrides)
        n = replications_of(sc, replications, quick)
        if n < 1:
            fail(f"--replications {n}: must be >= 1")
        if not as_json:
            _notice_defaults(scenario, sc.defaulted())
        target = out or Path("results") / sc.experiment.id
        _check_output_dir("--out", target)
        capture = _capture(sc, n, pcap, pcap_point, pcap_replication, trace, trace_max_events)
        if dask is not None:
            from dtlsim.cluster import check_address, dask_pool

            why = check_address(dask)
            if why is not None:
                fail(f"--dask {dask}: {why}")
        pool = dask_pool(dask, workers) if dask is not None else nullcontext()
        with pool as units_pool, Reporter(err_console, enabled=not as_json) as reporter:
            on_progress = reporter.task(f"{sc.experiment.id}: {n} replication(s) per point")

            def on_not_run(refused: list[NotRun]) -> None:
                err_console.print(
                    f"{len(refused)} point(s) the simulator cannot run, skipped "
                    "(marked not_run in summary.csv):",
                    markup=False,
                )
                for r in refused:
                    err_console.print(f"  {r.render()}", markup=False, highlight=False)

            ran = run(
                sc,
                target,
                n,
                workers,
                capture,
                on_progress,
                csv=csv,
                on_not_run=on_not_run,
                pool=units_pool,
            )
    except SweepInterrupted as e:
        _interrupted(
            f"{e.done} of {e.total} units finished, kept in {e.units_dir}; "
            "run the same command again to resume from there"
        )
    except KeyboardInterrupt:
        _interrupted("run the same command again to resume (finished units are kept)")
    except (FileError, ValueError, OSError) as e:
        fail(str(e))
    if as_json:
        emit_json([{c: r.get(c, math.nan) for c in ran.columns} for r in ran.summary])
        return
    axes = [SECRETS.get(k, k) for k in sc.axes()]
    records = brief(ran.summary, axes, sc.workload.kind)
    caption = "success: Wilson interval; the others: t interval over successful runs; " + FEW
    if sc.workload.kind == "sessions":
        records = with_engset(records, ran.summary, axes, sc.points())
        caption += "; Engset: the closed form for the point's R, N and ρ"
    show(f"{sc.experiment.id}: per point, mean [95 % CI]", records, caption=caption)
    written = ", ".join(["results.parquet", TIDY_FILE, *(["results.csv"] if csv else [])])
    rows = sum(r.get("n_rows", 0) for r in ran.summary)
    console.print(escape(f"{rows} rows → {target}/{{{written}}}"))
    console.print(escape(f"every column of the summary → {target}/summary.csv"))
    if capture is not None:
        point = list(sc.points())[capture.point]
        where = ", ".join(f"{k}={v}" for k, v in public({k: point[k] for k in sc.axes()}).items())
        where = f"point {capture.point} ({where})" if where else f"point {capture.point}"
        run = f"{where}, replication {capture.replication}"
        if capture.path is not None:
            console.print(escape(f"frames of {run} → {capture.path}"))
        if capture.trace is not None:
            import pyarrow.parquet as pq

            meta = pq.read_metadata(capture.trace)
            dropped = int(meta.metadata[b"dropped_events"])
            more = f" ({dropped} more past --trace-max-events)" if dropped else ""
            console.print(escape(f"{meta.num_rows} events of {run}{more} → {capture.trace}"))


def _capture(
    sc: Scenario,
    replications: int,
    pcap: Path | None,
    point: int,
    replication: int,
    trace: Path | None = None,
    trace_limit: int = 1_000_000,
) -> Capture | None:
    """The run whose frames `--pcap` and events `--trace` write, refused
    before any work if it is not one."""
    from dtlsim.runner import Capture

    if pcap is None and trace is None:
        if (point, replication) != (0, 0):
            fail(
                "--pcap-point and --pcap-replication choose what --pcap and --trace write: "
                "give --pcap FILE or --trace FILE"
            )
        return None
    if pcap is not None:
        _check_output_file("--pcap", pcap)
    if trace is not None:
        _check_output_file("--trace", trace)
        if trace_limit < 1:
            fail(f"--trace-max-events {trace_limit}: must be >= 1")
    points = len(list(sc.points()))
    if not 0 <= point < points:
        fail(f"--pcap-point {point}: the sweep has {points} point(s), 0..{points - 1}")
    if not 0 <= replication < replications:
        fail(
            f"--pcap-replication {replication}: this run has {replications} "
            f"replication(s) per point, 0..{replications - 1}"
        )
    return Capture(pcap, point, replication, trace, trace_limit)


def _notice_defaults(path: Path, sections: list[str]) -> None:
    if sections:
        names = ", ".join(f"[{s}]" for s in sections)
        err_console.print(
            escape(
                f"notice: {path} has no {names} section: its defaults are used "
                "(`dtlsim scenario schema` shows them)"
            ),
            highlight=False,
        )


def _check_output_dir(option: str, path: Path) -> None:
    """Refuse an output directory that cannot be one, before any work starts."""
    if path.exists() and not path.is_dir():
        fail(f"{option} {path}: is a file; give a directory (it is created if missing)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        fail(f"{option} {path}: cannot create the directory ({e.strerror})")
    if not os.access(path, os.W_OK | os.X_OK):
        fail(f"{option} {path}: the directory is not writable")


def _check_output_file(option: str, path: Path) -> None:
    """Refuse a file that cannot be written, before any work starts."""
    parent = path.parent
    if path.is_dir():
        fail(f"{option} {path}: is a directory; give a file name")
    if not parent.is_dir():
        fail(f"{option} {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"{option} {path}: not writable")


def _interrupted(what: str) -> None:
    """Ctrl-C: say what was kept and how to go on, and exit 130 (128 + SIGINT)
    at once: units still running in the worker threads cannot be stopped,
    and they are not written."""
    err_console.print(f"[bold yellow]interrupted:[/] {escape(what)}", highlight=False)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


# ----------------------------------------------------------------------- dtls

dtls_app = typer.Typer(
    help="DTLS 1.2 (RFC 6347) or 1.3 (RFC 9147) over real UDP (the same stack as the simulator)."
)
app.add_typer(dtls_app, name="dtls")


def _psk_hex(cipher: str, psk: str | None, psk_file: Path | None) -> str | None:
    """The PSK for a PSK suite, from --psk, --psk-file or DTLSIM_PSK; a PSK
    suite without one is refused (never a built-in or empty key)."""
    if psk is not None and psk_file is not None:
        fail("--psk and --psk-file: give the key one way, not both")
    if psk_file is not None:
        try:
            psk = psk_file.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError) as e:
            fail(f"--psk-file {psk_file}: cannot read a hex key ({e})")
    if psk is None and cipher.lower().startswith("psk"):
        fail(
            f"--psk: the suite {cipher} needs a pre-shared key; give --psk HEX, "
            "--psk-file FILE (hex; not visible in the process list) or the "
            "DTLSIM_PSK environment variable"
        )
    return psk


PskFile = Annotated[
    Path | None,
    typer.Option(help="File holding the pre-shared key in hex (kept out of the process list)."),
]
Psk = Annotated[
    str | None,
    typer.Option(help="Pre-shared key, hex (or DTLSIM_PSK, or --psk-file).", envvar="DTLSIM_PSK"),
]


def _dtls_json(
    cipher: str,
    psk: str | None,
    identity: str,
    records: str,
    mtu: int,
    retransmit_ms: float,
) -> str:
    import json

    # a scenario's [dtls] table: its names, its rules; OpenSSL's suite
    # names are dtlsim's in upper case
    settings = {
        "suite": cipher.lower(),
        "identity": identity,
        "records_per_datagram": records,
        "mtu_bytes": mtu,
        "max_fragment_bytes": mtu,
        "retransmission": {
            "policy": "doubling",
            "initial_ms": retransmit_ms,
            "max_ms": 60_000.0,
            "max_retransmissions": 6,
        },
    }
    if psk is not None:
        settings["psk_hex"] = psk
    return json.dumps(settings)


Cipher = Annotated[
    str | None,
    typer.Option("--cipher", "--suite",
                 help="DTLS 1.2: psk-aes128-ccm8 (default), ecdhe-ecdsa-aes128-ccm8, "
                 "psk-aes128-gcm-sha256, ecdhe-ecdsa-aes128-gcm-sha256 (OpenSSL names work too). "
                 "DTLS 1.3: TLS_AES_128_CCM_8_SHA256 (default), TLS_AES_128_GCM_SHA256, "
                 "TLS_AES_256_GCM_SHA384 (RFC 8446 names)."),
]  # fmt: skip
Version = Annotated[str, typer.Option("--version", help="DTLS version: 1.2 or 1.3.")]
Cid = Annotated[
    int | None,
    typer.Option(min=0, max=20, help="DTLS 1.3: negotiate a connection ID of this many bytes "
                 "for this side (RFC 9147 §9)."),
]  # fmt: skip
Rpk = Annotated[
    bool,
    typer.Option(help="A raw public key (RFC 7250) instead of a certificate (DTLS 1.2 with an "
                 "ECDHE-ECDSA --cipher, or 1.3); the server's from --key, the client pins the "
                 "server's public key given by --ca."),
]  # fmt: skip
PskDhe = Annotated[
    bool, typer.Option(help="DTLS 1.3: with the PSK also ECDHE (psk_dhe_ke, RFC 8446 §4.2.9).")
]
Group = Annotated[str, typer.Option(help="DTLS 1.3 ECDHE group: secp256r1 or x25519.")]
CaCert = Annotated[
    Path | None,
    typer.Option("--ca-cert", "--ca", help="Accept only this server certificate (pinned); "
                 "with --rpk the server's public key (PEM)."),
]  # fmt: skip

DEFAULT_SUITE = {"1.2": "psk-aes128-ccm8", "1.3": "TLS_AES_128_CCM_8_SHA256"}


def _version_and_suite(version: str, cipher: str | None, cid: int | None, rpk: bool) -> str:
    """The suite a version runs (its default when none is given); the
    1.3-only options are refused with 1.2."""
    if version not in DEFAULT_SUITE:
        fail(f"--version {version}: one of 1.2, 1.3")
    if version == "1.2" and cid is not None:
        fail("--cid is a DTLS 1.3 option here; add --version 1.3")
    suite = cipher or DEFAULT_SUITE[version]
    if version == "1.2" and rpk and not suite.lower().startswith("ecdhe-ecdsa"):
        fail(f"--rpk authenticates ECDHE-ECDSA, not --cipher {suite}; "
             "add --cipher ecdhe-ecdsa-aes128-ccm8")  # fmt: skip
    return suite


def _psk13_hex(psk: str | None, psk_file: Path | None) -> str | None:
    """DTLS 1.3's PSK (optional: without one the handshake is ECDHE with a
    certificate or raw public key)."""
    return _psk_hex("", psk, psk_file)


Records = Annotated[str, typer.Option(help="Records per datagram: one or flight.")]


class Eviction(StrEnum):
    """What makes room for a new handshake when the session table is full."""

    refuse = "refuse"
    evict_lru = "evict-lru"
    evict_oldest = "evict-oldest"
    evict_half_open = "evict-half-open"


@dtls_app.command("server")
def dtls_server(
    bind: Annotated[str, typer.Option(help="HOST:PORT to listen on.")] = "127.0.0.1:5684",
    version: Version = "1.2",
    psk: Psk = None,
    psk_file: PskFile = None,
    identity: Annotated[str, typer.Option(help="PSK identity.")] = "Client_identity",
    cert: Annotated[Path | None, typer.Option(help="Certificate (PEM/DER, P-256).")] = None,
    key: Annotated[Path | None, typer.Option(help="Private key (PEM/DER).")] = None,
    cipher: Cipher = None,
    rpk: Rpk = False,
    cid: Cid = None,
    psk_dhe: PskDhe = False,
    group: Group = "secp256r1",
    records: Records = "flight",
    mtu: Annotated[int, typer.Option(help="Largest datagram.")] = 1400,
    handshakes: Annotated[
        int | None,
        typer.Option(min=1, help="Stop after this many handshakes (and their sessions)."),
    ] = None,
    duration: Annotated[float | None, typer.Option(help="Stop after this many seconds.")] = None,
    max_sessions: Annotated[
        int | None,
        typer.Option(
            min=1, help="DTLS 1.2: sessions held at once, half-open or established (default 16)."
        ),
    ] = None,
    max_half_open: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="DTLS 1.2: handshakes past the cookie exchange (RFC 6347 "
            "§4.2.1) held at once (default: half the sessions).",
        ),
    ] = None,
    half_open_timeout: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            max=86400.0,
            help="DTLS 1.2: seconds a handshake may stay "
            "half-open before its slot is freed (default 246: two flights of a client "
            "retrying on the RFC 6347 timer).",
        ),
    ] = None,
    per_address: Annotated[
        int | None,
        typer.Option(min=1, help="DTLS 1.2: sessions from one IP address, any port (default 4)."),
    ] = None,
    eviction: Annotated[
        Eviction | None,
        typer.Option(
            help="DTLS 1.2: what makes room when the table is full (default evict-half-open)."
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """Serve DTLS on UDP and echo application data (Ctrl-C stops)."""
    import threading

    suite = _version_and_suite(version, cipher, cid, rpk)
    limits = {
        "max_sessions": max_sessions,
        "max_half_open": max_half_open,
        "half_open_timeout_s": half_open_timeout,
        "per_address": per_address,
        "eviction": eviction.value if eviction else None,
    }
    if version == "1.3" and any(v is not None for v in limits.values()):
        fail("--max-sessions, --max-half-open, --half-open-timeout, --per-address and "
             "--eviction apply to the DTLS 1.2 server only")  # fmt: skip
    try:
        if version == "1.3":
            server = _core.UdpServer13(
                bind,
                _dtls_json("psk-aes128-ccm8", _psk13_hex(psk, psk_file), identity, records, mtu,
                           1000.0),
                suite=suite, group=group, psk_dhe=psk_dhe, cid=cid, rpk=rpk,
                certificate=cert.read_bytes() if cert else None,
                private_key=key.read_bytes() if key else None,
            )  # fmt: skip
        else:
            server = _core.UdpServer(
                bind,
                _dtls_json(suite, _psk_hex(suite, psk, psk_file), identity, records, mtu, 1000.0),
                certificate=cert.read_bytes() if cert else None,
                private_key=key.read_bytes() if key else None,
                rpk=rpk,
                **limits,
            )
    except (OSError, ValueError) as e:
        fail(str(e))
    if not as_json:
        console.print(escape(f"listening on {server.local_addr} (DTLS {version}, {suite})"))
    sys.stdout.flush()
    result: dict[str, Any] = {}

    finished = threading.Event()

    def serve() -> None:
        try:
            result["report"] = server.run(max_seconds=duration, after_sessions_ended=handshakes)
        except BaseException as e:  # a panic too: reported below, in the main thread
            result["error"] = e
        finally:
            finished.set()

    threading.Thread(target=serve, daemon=True).start()
    # an Event, not Thread.join: a join interrupted by Ctrl-C can mark the
    # thread finished while it still runs (CPython bpo-45274's fix), and the
    # report would be lost
    while not finished.is_set():
        try:
            finished.wait(0.2)
        except KeyboardInterrupt:
            # Ctrl-C is how a server is stopped: the report of what was
            # served is still shown (a second Ctrl-C lands here again)
            server.stop()
    if "error" in result:
        fail(_option_names(str(result["error"])))
    report = result["report"]
    if as_json:
        emit_json(report)
        return
    rows = [
        {
            "peer": h["peer"],
            "suite": h["cipher_suite"],
            "handshake ms": h["duration_s"] * 1000,
            "datagrams out": h["stats"]["datagrams_sent"],
            "bytes out": h["stats"]["bytes_sent"],
            "bytes in": h["stats"]["bytes_received"],
        }
        for h in report["handshakes"]
    ]
    show("Handshakes", rows)
    cookies = (
        f"{report['hello_retry_requests']} HelloRetryRequests"
        if version == "1.3"
        else f"{report['hello_verify_requests']} HelloVerifyRequests"
    )
    console.print(
        f"echoed {report['echoed']} record(s); {report['datagrams_received']} datagrams in, "
        f"{report['datagrams_sent']} out; {cookies}; "
        f"{report['failures_total']} failed session(s)"
    )


@dtls_app.command("client")
def dtls_client(
    connect: Annotated[str, typer.Option(help="Server HOST:PORT.")] = "127.0.0.1:5684",
    version: Version = "1.2",
    psk: Psk = None,
    psk_file: PskFile = None,
    identity: Annotated[str, typer.Option(help="PSK identity.")] = "Client_identity",
    ca_cert: CaCert = None,
    cipher: Cipher = None,
    rpk: Rpk = False,
    cid: Cid = None,
    psk_dhe: PskDhe = False,
    group: Group = "secp256r1",
    records: Records = "flight",
    mtu: Annotated[int, typer.Option(help="Largest datagram.")] = 1400,
    send: Annotated[str, typer.Option(help="Text to send after the handshake.")] = "hello",
    count: Annotated[
        int,
        typer.Option(
            min=0,
            help="How many times to send it (echoes awaited; the messages are built "
            f"before the handshake, so a run sends at most {_core.MAX_MESSAGES}).",
        ),
    ] = 1,
    timeout: Annotated[float, typer.Option(help="Seconds for the handshake and replies.")] = 10.0,
    as_json: Json = False,
) -> None:
    """Handshake with a DTLS server over UDP, send text, wait for the echoes;
    exits non-zero unless every echo came back."""
    suite = _version_and_suite(version, cipher, cid, rpk)
    # the core refuses a count above its maximum (naming --count): build no
    # more messages than that before asking it
    messages = [send.encode()] * min(count, _core.MAX_MESSAGES + 1)
    try:
        if version == "1.3":
            r = _core.dtls_client13(
                connect,
                _dtls_json("psk-aes128-ccm8", _psk13_hex(psk, psk_file), identity, records, mtu,
                           1000.0),
                suite=suite, group=group, psk_dhe=psk_dhe, cid=cid, rpk=rpk,
                messages=messages,
                expect_replies=count,
                server_certificate=ca_cert.read_bytes() if ca_cert else None,
                timeout_s=timeout,
            )  # fmt: skip
        else:
            r = _core.dtls_client(
                connect,
                _dtls_json(suite, _psk_hex(suite, psk, psk_file), identity, records, mtu, 1000.0),
                messages=messages,
                expect_replies=count,
                server_certificate=ca_cert.read_bytes() if ca_cert else None,
                rpk=rpk,
                timeout_s=timeout,
            )
    except (OSError, ValueError, RuntimeError) as e:
        fail(_option_names(str(e)))
    except KeyboardInterrupt:
        err_console.print("[bold yellow]interrupted[/]", highlight=False)
        raise typer.Exit(130) from None
    # the first few records are kept, all are counted (`received_total`)
    r["received"] = [b.decode(errors="replace") for b in r["received"]]
    if as_json:
        emit_json(r)
    else:
        show(
            f"DTLS {version} handshake with {connect}",
            [
                {
                    "suite": r["cipher_suite"],
                    "time ms": r["handshake_time_s"] * 1000,
                    "datagrams out": r["handshake_datagrams_sent"],
                    "datagrams in": r["handshake_datagrams_received"],
                    "bytes out": r["handshake_bytes_sent"],
                    "bytes in": r["handshake_bytes_received"],
                    "retransmissions": r["retransmissions"],
                }
            ],
        )
        for text in r["received"]:
            console.print(f"received: {escape(text)}")
    if r["received_total"] < count:
        # the data waited for never came: said why when the peer said why
        why = f"waited for {count} echo(es), received {r['received_total']}"
        if r.get("closed_by_peer"):
            why += "; the server closed the connection (close_notify)"
        elif r.get("alert_received"):
            why += f"; the server sent the alert {r['alert_received']}"
        else:
            why += f" within --timeout {timeout:g} s"
        fail(why, code=1)


# The core's names of the seconds it is given → the options that give them.
_OPTIONS = {
    "timeout_s =": "--timeout",
    "max_seconds =": "--duration",
    "expect_replies =": "--count",
}


def _option_names(message: str) -> str:
    for name, option in _OPTIONS.items():
        message = message.replace(name, option)
    return message


# ---------------------------------------------------------------------- bench


BENCH_CASES = ("dtls", "exp1-xmac-grid", "tsch-100-nodes", "tsch-storm-10000", "startup")
# run only when named or with --all: a 10 000-node network for an hour of
# virtual time takes minutes, and a plain `dtlsim bench` should not
BENCH_OPT_IN = ("tsch-storm-10000",)


def bench_cases(named: list[str] | None, run_all: bool) -> list[str]:
    """The bench cases to run: those named, else all (`--all`) or all but the opt-in ones."""
    if run_all and named:
        fail("give either --case or --all")
    chosen = named or [c for c in BENCH_CASES if run_all or c not in BENCH_OPT_IN]
    unknown = sorted(set(chosen) - set(BENCH_CASES))
    if unknown:
        fail(f"unknown bench case(s) {', '.join(unknown)}; known: {', '.join(BENCH_CASES)}")
    return chosen


@app.command("bench")
def bench_cmd(
    replications: Annotated[
        int, typer.Option(help="Replications per point of the experiment-1 grid.")
    ] = 1000,
    workers: Annotated[int | None, typer.Option(help="Parallel workers (default: cores).")] = None,
    handshakes: Annotated[int, typer.Option(help="In-memory DTLS handshakes to time.")] = 20_000,
    case: Annotated[
        list[str] | None,
        typer.Option(
            help=f"Run only these cases (repeatable): {', '.join(BENCH_CASES)}. Without it, "
            f"every case but {', '.join(BENCH_OPT_IN)} (minutes of wall time: name it, or "
            "give --all)."
        ),
    ] = None,
    run_all: Annotated[
        bool,
        typer.Option("--all", help=f"Run every case, {', '.join(BENCH_OPT_IN)} included."),
    ] = False,
    compare: Annotated[
        bool,
        typer.Option(
            "--compare",
            help="Print the previous commit's figures beside ours (the commit itself when the "
            "work tree has changes), from the store.",
        ),
    ] = False,
    build_previous: Annotated[
        bool,
        typer.Option(
            "--build-previous",
            help="With --compare: figures of the previous commit not in the store are measured "
            "now, on a temporary git worktree of it (builds its Rust extension: minutes).",
        ),
    ] = False,
    store: Annotated[
        Path | None,
        typer.Option(
            help="Where figures are kept per commit (default: .bench/ at the top of the "
            "source checkout, else of the current directory)."
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """Time the DTLS stack in memory, the experiment-1 grid, a 100-node TSCH network and
    the start-up of the command; in-process and whole-process figures, labelled."""
    import subprocess

    from dtlsim import bench
    from dtlsim.resources import source_checkout

    chosen = bench_cases(case, run_all)
    if build_previous and not compare:
        fail("--build-previous measures what --compare shows: give --compare too")
    checkout = source_checkout() or Path.cwd()
    store = store or checkout / ".bench"
    state = bench.code_state(checkout)
    settings = bench.Settings(replications, workers, handshakes)
    results = bench.run_cases(chosen, settings)
    if state is not None:
        bench.save(store, state, results)
    if not compare:
        if as_json:
            emit_json(results)
        else:
            show("dtlsim bench (per_s: handshakes, or virtual s, per wall second)", results)
        return
    if state is None:
        fail(f"--compare: {checkout} is not a git checkout, so there is no previous commit")
    previous = bench.previous_commit(checkout, state)
    if previous is None:
        fail(f"--compare: {state.commit[:12]} has no parent commit")
    before = bench.load(bench.store_path(store, previous))
    missing = [c for c in chosen if not _stored(c, before)]
    if missing and build_previous:
        try:
            rows = bench.build_previous(
                checkout, previous, missing, settings, lambda t: err_console.print(t, markup=False)
            )
        except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
            fail(f"--build-previous: {e}")
        bench.save(store, bench.CodeState(previous, False), rows)
        before = bench.load(bench.store_path(store, previous))
    table = bench.compare(results, before)
    if as_json:
        emit_json({"commit": state.name, "previous": previous, "results": table})
        return
    show(
        f"dtlsim bench: {state.name[:18]} against {previous[:12]} (ratio > 1: slower now)",
        table,
    )
    if not before:
        console.print(
            escape(
                f"no figures of {previous[:12]} stored in {store}: check it out and run "
                "`dtlsim bench` there, or give --build-previous"
            )
        )


def _stored(case: str, rows: list[dict[str, Any]]) -> bool:
    """Whether a bench case has stored figures among `rows`."""
    names = {"dtls": "dtls-psk-ccm8-handshake-in-memory", "startup": "startup-help"}
    return any(r["case"] == names.get(case, case) for r in rows)


# ------------------------------------------------------------------ reproduce


@app.command("tune")
def tune_cmd(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (or a built-in name).")],
    objective: Annotated[
        str,
        typer.Option(
            help="What the chosen setting minimises: 'time' (expected time to a completed "
            "handshake, failures started again) or 'energy' (the client's expected energy)."
        ),
    ] = "time",
    initial: Annotated[
        str,
        typer.Option(
            help="Initial retransmission timers to try, in seconds (DTLS initial_ms, CoAP "
            "ACK_TIMEOUT for EDHOC)."
        ),
    ] = "1,2,5,9,20",
    backoff: Annotated[
        str,
        typer.Option(
            help="DTLS back-offs to try: fixed, doubling (RFC 6347 section 4.2.4), tinydtls. "
            "EDHOC's CoAP always doubles (RFC 7252 section 4.2)."
        ),
    ] = "fixed,doubling",
    random_factor: Annotated[
        str, typer.Option(help="CoAP ACK_RANDOM_FACTOR values to try for EDHOC (RFC 7252: 1.5).")
    ] = "1.5",
    replications: Annotated[
        int | None, typer.Option(help="Replications per candidate (default: the scenario's).")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Override key.path=value in the scenario before tuning."),
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Parallel workers (default: cores).")] = None,
    quick: Annotated[bool, typer.Option(help="The scenario's quick replication count.")] = False,
    as_json: Json = False,
) -> None:
    """Which retransmission timer suits this network: every candidate initial
    timer and back-off per protocol on every point of the scenario, with
    handshake time (mean and censored), spurious retransmissions, energy,
    success (Wilson interval), and the setting that minimises the objective."""
    from dtlsim.tuner import TuneError, tune

    initial_s = float_list(initial, "--initial")
    factors = float_list(random_factor, "--random-factor")
    backoffs = [b.strip() for b in backoff.split(",") if b.strip()]
    try:
        result = tune(
            scenario,
            objective,
            initial_s,
            backoffs,
            factors,
            overrides=list(set_ or []),
            replications=replications,
            workers=workers,
            quick=quick,
        )
    except KeyboardInterrupt:
        _interrupted("nothing of the tuning is kept; run it again")
    except (TuneError, FileError, ValueError, OSError) as e:
        fail(str(e))
    if as_json:
        emit_json({
            "objective": result.objective,
            "candidates": result.table.to_dict(orient="records"),
            "best": result.best.to_dict(orient="records"),
        })  # fmt: skip
        return
    show(
        "Retransmission timers: per candidate, means over handshakes",
        _tune_rows(result.table, result.axes),
        caption="success: Wilson 95 % interval; time: over successes; censored: failures at "
        "their give-up time; expected: failures started again until one succeeds; spurious: the "
        "client's timer fired with nothing lost since its last firing; energy: the client's",
    )
    show(f"Best setting for {result.objective}", _tune_rows(result.best, result.axes))


def _tune_rows(table: Any, axes: list[str]) -> list[dict[str, Any]]:
    """The tuner's rows as a narrow table (every column is in `--json`)."""
    rows = []
    for r in table.to_dict(orient="records"):
        row = {a: r[a] for a in axes}
        row |= {"protocol": r["protocol"], "backoff": r["backoff"], "initial_s": r["initial_s"]}
        if r["protocol"] == "edhoc":
            row["backoff"] = f"coap x{r['random_factor']:g}"
        row |= {
            "success": f"{r['success_rate']:.2f} [{r['success_ci_low']:.2f}, "
            f"{r['success_ci_high']:.2f}]",
            "time_s": r["duration_s"],
            "censored_s": r["duration_censored_s"],
            "spurious": r["spurious_retransmissions"],
            "resent": r["retransmissions"],
            "energy_mj": r["client_energy_uj"] / 1000.0,
            "expected_s": r["expected_time_s"],
            "expected_mj": r["expected_client_energy_uj"] / 1000.0,
        }
        rows.append({k: None if isinstance(v, float) and math.isnan(v) else v
                     for k, v in row.items()})  # fmt: skip
    return rows


@app.command("reproduce")
def reproduce_cmd(
    out: Annotated[Path, typer.Option(help="Report directory.")] = Path("report"),
    quick: Annotated[bool, typer.Option(help="Fewer replications, for a fast look.")] = False,
    only: Annotated[
        list[str] | None, typer.Option(help="Run only this experiment id (repeatable).")
    ] = None,
    csv: Annotated[
        bool,
        typer.Option(
            "--csv",
            help="Also write each run's rows as runs/…/results.csv beside its results.parquet "
            "(several times its size).",
        ),
    ] = False,
    as_json: Json = False,
) -> None:
    """Run the reference experiments and write report/: an HTML page and its
    Markdown twin, figures as PNG and vector SVG, tables as CSV.

    Each experiment names the published work it reproduces (Vučinić et al., PIMRC
    2015; Sciancalepore et al., ETT 2017; Kothmayr et al., Ad Hoc Networks 2013;
    RFC 6347, RFC 6655), its seed and the git commit of the code."""
    from dtlsim.experiments.base import CHANCE_MISS, DIFFERS
    from dtlsim.progress import Reporter, reporting
    from dtlsim.reproduce import reproduce
    from dtlsim.sweep import SweepInterrupted

    _check_output_dir("--out", out)
    try:
        with reporting(Reporter(err_console, enabled=not as_json)):
            results, summary = reproduce(out, quick=quick, only=only, csv=csv)
    except SweepInterrupted as e:
        _interrupted(
            f"{e.done} of {e.total} units of one experiment finished, kept in {e.units_dir}; "
            "run the same command again to resume from there"
        )
    except KeyboardInterrupt:
        _interrupted("run the same command again to resume (finished units are kept)")
    except (FileError, ValueError, OSError) as e:
        fail(str(e))
    failed = int(((summary.verdict == "FAIL") & summary.gates.astype(bool)).sum())
    if as_json:
        emit_json(summary.to_dict(orient="records"))
    else:
        hidden = ["params", "source", "statistical", "against_measurement", "gates"]
        shown = summary.drop(columns=[*hidden, "explanation"])
        # neither a confirmed chance miss nor a difference from a measurement is a red FAIL
        shown["verdict"] = shown.verdict.map(
            lambda v: {
                CHANCE_MISS: Text(CHANCE_MISS, style="yellow"),
                DIFFERS: Text(DIFFERS, style="magenta"),
            }.get(v, v)
        )
        show("Reference values", shown.to_dict(orient="records"))
        for _, row in summary[summary.explanation.fillna("") != ""].iterrows():
            console.print(
                f"[bold]{escape(f'{row.experiment} · {row.quantity}')}[/bold]: "
                f"{escape(row.explanation)}"
            )
        missed = int((summary.verdict != "pass").sum())
        chance = int((summary.verdict == CHANCE_MISS).sum())
        differ = int((summary.verdict == DIFFERS).sum())
        statistical = int(((summary.verdict != "pass") & summary.statistical.astype(bool)).sum())
        not_run = [r.id for r in results if r.not_run]
        if not_run:
            console.print(
                f"[bold]not run[/bold] (see the report for why): {escape(', '.join(not_run))}"
            )
        console.print(
            f"{len(results)} experiment(s); {len(summary) - missed} of {len(summary)} within "
            f"tolerance ({statistical} statistical miss(es), {chance} of them confirmed "
            f"as chance; {differ} difference(s) from the published measurements; "
            f"{failed} failure(s)). Report: {escape(str(out / 'index.html'))}"
        )
    if failed:
        raise typer.Exit(1)


def main() -> None:
    try:
        app()
    except BrokenPipeError:  # `dtlsim ... | head`
        sys.stderr.close()


if __name__ == "__main__":
    main()
