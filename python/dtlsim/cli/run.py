"""`dtlsim run`: simulate a scenario's sweep into a results directory,
resumable, with the frames or events of one run on request."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from dtlsim.cli.common import (
    Json,
    Quick,
    ScenarioFile,
    Workers,
    check_output_dir,
    check_output_file,
    console,
    emit_json,
    err_console,
    fail,
    notice_defaults,
    resumable,
    show,
)

if TYPE_CHECKING:
    from dtlsim.runner import Capture
    from dtlsim.scenario import Scenario


def run_cmd(
    scenario: ScenarioFile,
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
    pcap_node: Annotated[
        int | None,
        typer.Option(
            help="Write only what this node (0-based) sent and received to --pcap, as a "
            "sniffer at that node: a multi-hop run's datagrams once each, not once per hop."
        ),
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="Override key.path=value; a list (platform=telosb,openmote-cc2538 or "
            "topology.hops=[1,2]) makes a sweep axis.",
        ),
    ] = None,
    workers: Workers = None,
    dask: Annotated[
        str | None,
        typer.Option(
            help="Run the units as tasks on a Dask cluster: 'local' (a LocalCluster of "
            "--workers processes on this machine) or a scheduler address, tcp://host:8786. "
            "Results and resuming are as without it.",
        ),
    ] = None,
    quick: Quick = False,
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
    from dtlsim.runner import NODES_FILE, TIDY_FILE, replications_of, run
    from dtlsim.scenario import load_scenario
    from dtlsim.sweep import SECRETS, public

    overrides = list(set_ or [])
    if seed is not None:
        overrides.append(f"experiment.seed={seed}")
    with resumable():
        sc = load_scenario(scenario, overrides)
        n = replications_of(sc, replications, quick)
        if n < 1:
            fail(f"--replications {n}: must be >= 1")
        if not as_json:
            notice_defaults(scenario, sc.defaulted())
        target = out or Path("results") / sc.experiment.id
        check_output_dir("--out", target)
        capture = _capture(
            sc, n, pcap, pcap_point, pcap_replication, trace, trace_max_events, pcap_node
        )
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
    if as_json:
        emit_json([{c: r.get(c, math.nan) for c in ran.columns} for r in ran.summary])
        return
    axes = [SECRETS.get(k, k) for k in sc.axes()]
    records = brief(ran.summary, axes, sc.workload.kind)
    caption = (
        "success: Wilson interval; the others: t interval over successful runs "
        "(bootstrap where t would reach below zero); " + FEW
    )
    if sc.workload.kind == "sessions":
        records = with_engset(records, ran.summary, axes, sc.points())
        caption += "; Engset: the closed form for the point's R, N and ρ"
    show(f"{sc.experiment.id}: per point, mean [95 % CI]", records, caption=caption)
    files = ["results.parquet", TIDY_FILE, NODES_FILE, *(["results.csv"] if csv else [])]
    written = ", ".join(files)
    rows = sum(r.get("n_rows", 0) for r in ran.summary)
    console.print(escape(f"{rows} rows → {target}/{{{written}}}"))
    console.print(escape(f"every column of the summary → {target}/summary.csv"))
    if capture is not None:
        point = list(sc.points())[capture.point]
        where = ", ".join(f"{k}={v}" for k, v in public({k: point[k] for k in sc.axes()}).items())
        where = f"point {capture.point} ({where})" if where else f"point {capture.point}"
        run = f"{where}, replication {capture.replication}"
        if capture.path is not None:
            whose = "" if capture.node is None else f"node {capture.node}'s "
            console.print(escape(f"{whose}frames of {run} → {capture.path}"))
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
    node: int | None = None,
) -> Capture | None:
    """The run whose frames `--pcap` and events `--trace` write, refused
    before any work if it is not one."""
    from dtlsim.runner import Capture

    if node is not None and pcap is None:
        fail("--pcap-node chooses whose frames --pcap writes: give --pcap FILE")
    if node is not None and node < 0:
        fail(f"--pcap-node {node}: must be >= 0 (a node of the network, 0-based)")
    if pcap is None and trace is None:
        if (point, replication) != (0, 0):
            fail(
                "--pcap-point and --pcap-replication choose what --pcap and --trace write: "
                "give --pcap FILE or --trace FILE"
            )
        return None
    if pcap is not None:
        check_output_file("--pcap", pcap)
    if trace is not None:
        check_output_file("--trace", trace)
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
    return Capture(pcap, point, replication, trace, trace_limit, node)
