"""`dtlsim bench`: time the DTLS stack, the simulator and the command's
start-up, and compare with the previous commit's figures."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from dtlsim.cli.common import Json, Workers, console, emit_json, err_console, fail, show

BENCH_CASES = (
    "dtls", "exp1-xmac-grid", "tsch-100-nodes",
    "tsch-storm-100", "tsch-storm-1000", "tsch-storm-10000", "tsch-storm-10000-br", "startup",
    "exp7-udp", "reproduce-quick", "reproduce",
    "medium-pdr", "medium-sinr",
    "peer-tsch-sim-100", "peer-tsch-sim-1000", "peer-6tisch-sim-100", "peer-cooja-xmac",
)  # fmt: skip
# run only when named or with --all: a 10 000-node network for an hour of
# virtual time, experiment 7 over real UDP in full, and every experiment
# (`reproduce --quick`, `reproduce`) take minutes, and a plain `dtlsim bench` should not;
# nor do the peer cases (a peer named by its environment variable,
# `dtlsim.bench_peers`: half a minute to minutes each); the storm at 100 and
# 1 000 nodes is the 10 000's scale series, run with it; the 10 000 with 100
# border routers, every join protocol, takes minutes (DTLS 1.2's)
BENCH_OPT_IN = (
    "tsch-storm-100", "tsch-storm-1000", "tsch-storm-10000", "tsch-storm-10000-br", "exp7-udp",
    "reproduce-quick",
    "reproduce", "peer-tsch-sim-100", "peer-tsch-sim-1000", "peer-6tisch-sim-100",
    "peer-cooja-xmac",
)  # fmt: skip


def bench_cases(named: list[str] | None, run_all: bool) -> list[str]:
    """The bench cases to run: those named, else all (`--all`) or all but the opt-in ones."""
    if run_all and named:
        fail("give either --case or --all")
    chosen = named or [c for c in BENCH_CASES if run_all or c not in BENCH_OPT_IN]
    unknown = sorted(set(chosen) - set(BENCH_CASES))
    if unknown:
        fail(f"unknown bench case(s) {', '.join(unknown)}; known: {', '.join(BENCH_CASES)}")
    return chosen


def bench_cmd(
    replications: Annotated[
        int, typer.Option(help="Replications per point of the experiment-1 grid.")
    ] = 1000,
    workers: Workers = None,
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
    record: Annotated[
        bool,
        typer.Option(
            "--record",
            help="Judge every speed target on the figures stored for this commit (this run's "
            "and earlier runs') and keep them as its rows of bench/history.csv, the history "
            "kept in the repository.",
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
    if record and state is None:
        fail(f"--record: {checkout} is not a git checkout, so there is no commit to record")
    results = bench.run_cases(chosen, settings)
    if state is not None:
        bench.save(store, state, results)
    if not compare:
        if as_json:
            emit_json(results)
        else:
            show("dtlsim bench (per_s: handshakes, or virtual s, per wall second)", results)
        _targets(checkout, state, store, results, record, as_json)
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
            rows, again = bench.build_previous(
                checkout, previous, missing, settings, lambda t: err_console.print(t, markup=False)
            )
        except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
            fail(f"--build-previous: {e}")
        bench.save(store, bench.CodeState(previous, False), rows)
        before = bench.load(bench.store_path(store, previous))
        results = bench.replace_rows(results, again)
        bench.save(store, state, results)
    table = bench.compare(results, before)
    if as_json:
        emit_json({"commit": state.name, "previous": previous, "results": table})
        _targets(checkout, state, store, results, record, as_json)
        return
    show(
        f"dtlsim bench: {state.name[:18]} against {previous[:12]} (ratio > 1: slower now)",
        table,
    )
    _targets(checkout, state, store, results, record, as_json)
    if not before:
        console.print(
            escape(
                f"no figures of {previous[:12]} stored in {store}: check it out and run "
                "`dtlsim bench` there, or give --build-previous"
            )
        )


def _targets(
    checkout: Path, state: Any, store: Path, results: list[dict[str, Any]], record: bool,
    as_json: bool,
) -> None:  # fmt: skip
    """The speed targets judged on this run's figures (a table), or with
    `record` on every figure stored for this commit and kept in the history
    (the figures compared, measured again beside the previous commit's)."""
    from dtlsim import bench, bench_targets

    if record:
        _record(checkout, state, bench.load(bench.store_path(store, state.name)), as_json)
    elif not as_json:
        judged = bench_targets.judge(results)
        show("the speed targets on these figures", [_brief(r) for r in judged])


def _brief(r: dict[str, Any]) -> dict[str, Any]:
    return {k: r[k] for k in ("target", "limit", "measured", "holds")}


def _record(checkout: Path, state: Any, stored: list[dict[str, Any]], as_json: bool) -> None:
    """Keep the targets judged on `state`'s stored figures in the history."""
    from datetime import UTC, datetime

    from dtlsim import bench_targets

    judged = bench_targets.judge(stored)
    path = checkout / bench_targets.HISTORY
    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    bench_targets.record(path, state.name, date, judged, load)
    if not as_json:
        show(f"recorded in {path} as {state.name[:18]}", [_brief(r) for r in judged])


def _stored(case: str, rows: list[dict[str, Any]]) -> bool:
    """Whether a bench case has stored figures among `rows`."""
    names = {"dtls": "dtls-psk-ccm8-handshake-in-memory", "startup": "startup-help"}
    return any(r["case"] == names.get(case, case) for r in rows)
