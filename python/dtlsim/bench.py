"""`dtlsim bench`: the speed of the stack, the simulator and the command
itself, and the same figures of the previous commit beside them.

Two kinds of figure, labelled in every row (`measure`):

- in-process: timed inside this Python process around the work alone
  (the DTLS stack in memory, a sweep through `run_scenario`);
- whole-process: a fresh `python -m dtlsim …` timed from start to exit, as a
  user waits for it: interpreter start-up, imports, scenario validation,
  simulation and the result files. Start-up cases are the median of a few
  runs, since a single process start varies with the page cache.

Each run's figures are kept per commit in a store directory (`.bench/` at
the top of a source checkout, untracked), one JSON file per code state:
`<commit>.json`, or `<commit>-dirty.json` for a work tree with changes.
`--compare` puts beside each figure the one of the previous state: the
commit itself when the tree has changes, else its parent. A previous
commit's figures that are not stored are computed only when asked
(`--build-previous`): that commit is checked out in a temporary git
worktree, its Rust extension built there, and its own `dtlsim bench` run
for the in-process figures and this module's whole-process cases against
its sources.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dtlsim import _core, bench_peers, keys

IN_PROCESS = "in-process"
WHOLE_PROCESS = "whole-process"

# A tiny run: one replication of one point of experiment 1 (one hop, the
# shortest check interval), the smallest handshake the reference scenarios hold.
TINY_RUN = [
    "exp1-xmac",
    "--set", f"{keys.TOPOLOGY_HOPS}=1",
    "--set", f"{keys.TOPOLOGY_PDR}=1.0",
    "--set", f"{keys.MAC_XMAC_CHECK_INTERVAL_MS}=62.5",
    "--replications", "1",
    "--workers", "1",
]  # fmt: skip

# Process starts per start-up figure (the median is reported).
STARTS = 5

Row = dict[str, Any]


@dataclass(frozen=True)
class Settings:
    replications: int = 1000
    workers: int | None = None
    handshakes: int = 20_000


def _row(case: str, measure: str, wall_s: float | None, per_s: float | None, note: str) -> Row:
    return {"case": case, "measure": measure, "wall_s": wall_s, "per_s": per_s, "note": note}


# ------------------------------------------------------------- whole process


def dtlsim_command(python: str, *args: str) -> list[str]:
    return [python, "-m", "dtlsim", *args]


def time_process(
    cmd: Sequence[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> float:
    """Wall seconds from start to exit of `cmd` (refused if it fails)."""
    t = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")
    return wall


def _median_start(cmd: Callable[[Path], list[str]], env: dict[str, str] | None) -> float:
    walls = []
    for _ in range(STARTS):
        with tempfile.TemporaryDirectory() as tmp:
            walls.append(time_process(cmd(Path(tmp)), env, cwd=Path(tmp)))
    return statistics.median(walls)


def startup_help(python: str, env: dict[str, str] | None = None) -> Row:
    wall = _median_start(lambda _: dtlsim_command(python, "--help"), env)
    return _row(
        "startup-help", WHOLE_PROCESS, wall, None,
        f"`python -m dtlsim --help`, median of {STARTS} process starts",
    )  # fmt: skip


def startup_tiny_run(python: str, env: dict[str, str] | None = None) -> Row:
    def cmd(tmp: Path) -> list[str]:
        return dtlsim_command(python, "run", *TINY_RUN, "--out", str(tmp / "out"))

    wall = _median_start(cmd, env)
    return _row(
        "startup-tiny-run", WHOLE_PROCESS, wall, None,
        f"`python -m dtlsim run` of one handshake over one X-MAC hop to Parquet, "
        f"median of {STARTS} process starts",
    )  # fmt: skip


def tsch_100_whole(python: str, env: dict[str, str] | None = None) -> Row:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = dtlsim_command(
            python, "run", "tsch-100", "--replications", "1", "--workers", "1",
            "--out", str(Path(tmp) / "out"),
        )  # fmt: skip
        wall = time_process(cmd, env, cwd=Path(tmp))
    return _row(
        "tsch-100-nodes", WHOLE_PROCESS, wall, None,
        "`python -m dtlsim run tsch-100`, 1 replication, 1 worker, start to exit",
    )  # fmt: skip


def exp1_grid_whole(python: str, env: dict[str, str] | None = None) -> Row:
    import resource

    # the grid as a user runs it: every point, the scenario's replications,
    # as many workers as cores, results to Parquet
    with tempfile.TemporaryDirectory() as tmp:
        cmd = dtlsim_command(python, "run", "exp1-xmac", "--out", str(Path(tmp) / "out"))
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time_process(cmd, env, cwd=Path(tmp))
        done = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds of the process and its workers: wall x cores when both are busy
    cpu_s = (done.ru_utime - cpu.ru_utime) + (done.ru_stime - cpu.ru_stime)
    peak_mb = done.ru_maxrss / 1024
    return _row(
        "exp1-xmac-grid", WHOLE_PROCESS, wall, None,
        f"`python -m dtlsim run exp1-xmac`, start to exit; {cpu_s:.1f} CPU s "
        f"({cpu_s / wall:.2f} cores busy on average); peak RSS of the largest "
        f"child so far {peak_mb:.0f} MB",
    )  # fmt: skip


def tsch_storm_whole(python: str, env: dict[str, str] | None = None) -> Row:
    import resource

    with tempfile.TemporaryDirectory() as tmp:
        cmd = dtlsim_command(
            python, "run", "tsch-storm-10000", "--workers", "1",
            "--out", str(Path(tmp) / "out"),
        )  # fmt: skip
        wall = time_process(cmd, env, cwd=Path(tmp))
    # the largest child this process has waited for: on Linux, ru_maxrss in KiB
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return _row(
        "tsch-storm-10000", WHOLE_PROCESS, wall, None,
        f"`python -m dtlsim run tsch-storm-10000`, 1 replication, 1 worker, start to exit; "
        f"peak RSS of the largest child so far {peak_mb:.0f} MB",
    )  # fmt: skip


def _exp7_udp(python: str, env: dict[str, str] | None, quick: bool) -> Row:
    # the peers are required: without them the experiment is "not run" in
    # no time, which is no figure
    env = {**(os.environ if env is None else env), "DTLSIM_REQUIRE_PEERS": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        args = ["reproduce", "--only", "exp7-dtls13-udp", "--out", str(Path(tmp) / "report")]
        wall = time_process(dtlsim_command(python, *args, *(["--quick"] if quick else [])), env)
    how = "quick" if quick else "full replications"
    return _row(
        f"exp7-udp-{'quick' if quick else 'full'}", WHOLE_PROCESS, wall, None,
        f"`python -m dtlsim reproduce --only exp7-dtls13-udp` ({how}, real UDP on "
        "loopback with our stack and wolfSSL, report written), start to exit",
    )  # fmt: skip


def exp7_udp_quick_whole(python: str, env: dict[str, str] | None = None) -> Row:
    return _exp7_udp(python, env, quick=True)


def exp7_udp_full_whole(python: str, env: dict[str, str] | None = None) -> Row:
    return _exp7_udp(python, env, quick=False)


# The lines `dtlsim reproduce` prints as it starts each experiment, and
# before the report: the marks its per-experiment wall times are read from.
EXPERIMENT_MARK = re.compile(r"^experiment \d+ of \d+: (\S+) ")
REPORT_MARK = "writing the report"


def experiment_walls(marks: Sequence[tuple[float, str]], end: float) -> dict[str, float]:
    """Wall seconds per experiment from `reproduce`'s timed progress lines
    (each experiment until the next starts, the last until the report is
    written; `end` if it never is)."""
    starts = [(t, m[1]) for t, line in marks if (m := EXPERIMENT_MARK.match(line))]
    report = next((t for t, line in marks if line.startswith(REPORT_MARK)), end)
    ends = [t for t, _ in starts[1:]] + [report]
    return {name: stop - t for (t, name), stop in zip(starts, ends, strict=True)}


def reproduce_quick_whole(python: str, env: dict[str, str] | None = None) -> Row:
    return _reproduce_whole(python, env, quick=True)


def reproduce_full_whole(python: str, env: dict[str, str] | None = None) -> Row:
    return _reproduce_whole(python, env, quick=False)


def _reproduce_whole(python: str, env: dict[str, str] | None, quick: bool) -> Row:
    env = {**(os.environ if env is None else env), "DTLSIM_REQUIRE_PEERS": "1"}
    flags = ["--quick"] if quick else []
    with tempfile.TemporaryDirectory() as tmp:
        cmd = dtlsim_command(python, "reproduce", *flags, "--out", str(Path(tmp) / "report"))
        marks: list[tuple[float, str]] = []
        t = time.perf_counter()
        with subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        ) as proc:
            assert proc.stderr is not None
            for line in proc.stderr:
                marks.append((time.perf_counter() - t, line.strip()))
        wall = time.perf_counter() - t
    if proc.returncode != 0:
        tail = "\n".join(line for _, line in marks[-20:])
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {tail}")
    walls = experiment_walls(marks, wall)
    top = sorted(walls.items(), key=lambda kv: -kv[1])
    return _row(
        "reproduce-quick" if quick else "reproduce", WHOLE_PROCESS, wall, None,
        f"`python -m dtlsim reproduce{' --quick' if quick else ''}` (every experiment, "
        "report written), start to exit; per experiment (s): "
        + ", ".join(f"{k} {v:.1f}" for k, v in top),
    )  # fmt: skip


# Whole-process cases by bench case name: each runs against any source tree
# (the previous commit's too) through the interpreter and environment given.
WHOLE: dict[str, Sequence[Callable[[str, dict[str, str] | None], Row]]] = {
    "startup": (startup_help, startup_tiny_run),
    "exp1-xmac-grid": (exp1_grid_whole,),
    "tsch-100-nodes": (tsch_100_whole,),
    "tsch-storm-10000": (tsch_storm_whole,),
    "exp7-udp": (exp7_udp_quick_whole, exp7_udp_full_whole),
    "reproduce-quick": (reproduce_quick_whole,),
    "reproduce": (reproduce_full_whole,),
}


def _peer_case(case: bench_peers.PeerCase) -> Callable[[str, dict[str, str] | None], list[Row]]:
    def measure(python: str, env: dict[str, str] | None = None) -> list[Row]:
        found = bench_peers.figures(
            case,
            lambda args: dtlsim_command(python, *args),
            lambda cmd, cwd: time_process(cmd, env, cwd=cwd),
            env,
        )
        return [_row(name, WHOLE_PROCESS, wall, None, note) for name, wall, note in found]

    return measure


# Peer cases give a row each for dtlsim and the peer, or one saying "not run".
PEERS = {c.case: _peer_case(c) for c in bench_peers.CASES}


def whole_rows(case: str, python: str, env: dict[str, str] | None = None) -> list[Row]:
    if case in PEERS:
        return PEERS[case](python, env)
    return [measure(python, env) for measure in WHOLE[case]]


# ---------------------------------------------------------------- in process


def dtls_in_process(s: Settings) -> Row:
    dt = _core.bench_dtls_handshakes(s.handshakes)
    return _row(
        "dtls-psk-ccm8-handshake-in-memory", IN_PROCESS, dt, s.handshakes / dt,
        f"{s.handshakes} full handshakes with cookie, client+server, one thread",
    )  # fmt: skip


# Events a minimal loop keeps in flight when it times the floor: the order of
# what an X-MAC line of 1-4 hops has pending at once (each node's wake-up and
# MAC timers, the frame on the air, the handshakes' retransmission timers).
# An estimate: the core does not count its queue's length.
FLOOR_PENDING = 16


def exp1_grid_in_process(s: Settings) -> list[Row]:
    import pyarrow.compute as pc

    from dtlsim.runner import run_scenario
    from dtlsim.scenario import load_scenario

    sc = load_scenario("exp1-xmac")
    points = sum(1 for _ in sc.points())
    workers = s.workers or os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        rows, _ = run_scenario(sc, Path(tmp), s.replications, s.workers)
        wall = time.perf_counter() - t
        counted = rows.table(["replication_events"])
    n = counted.num_rows
    events = int(pc.sum(counted.column("replication_events")).as_py() or 0) if n else 0
    grid = _row(
        "exp1-xmac-grid", IN_PROCESS, wall, n / wall,
        f"{points} points x {s.replications} replications = {n} simulated handshakes, "
        f"{events} events ({events / wall:.3g}/s), {workers} workers",
    )  # fmt: skip
    return [grid, event_loop_floor(events, workers, wall)]


def event_loop_floor(events: int, workers: int, grid_wall: float) -> Row:
    """The floor for the grid's own event count: a minimal loop over as many
    events on one thread (`_core.bench_event_loop_floor`), shared out over
    the grid's workers; the note gives the grid's time over it."""
    one_thread = _core.bench_event_loop_floor(events, FLOOR_PENDING)
    floor = one_thread / workers
    per_event = one_thread / max(events, 1) * 1e9
    return _row(
        FLOOR_CASE, IN_PROCESS, floor, events / floor if floor else None,
        f"a binary heap of 16-byte events, {FLOOR_PENDING} pending, {events} events "
        f"(the grid's): {per_event:.1f} ns per event on one thread, over {workers} "
        f"workers; the grid took {grid_wall / floor:.1f}x this" if floor else "no events",
    )  # fmt: skip


FLOOR_CASE = "exp1-xmac-grid-floor"


def _one_replication(sc) -> tuple[float, dict]:
    """One replication of `sc` on one worker into a scratch directory: its
    in-process wall time and its result row."""
    from dtlsim.runner import run_scenario

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        rows, _ = run_scenario(sc, Path(tmp), 1, 1)
        wall = time.perf_counter() - t
        return wall, rows.table().to_pylist()[0]


def tsch_100_in_process(s: Settings) -> Row:
    from dtlsim.scenario import load_scenario

    # one replication on one worker: the wall time of one network run
    sc = load_scenario("tsch-100")
    wall, r = _one_replication(sc)
    virtual = float(r["virtual_time_s"])
    return _row(
        "tsch-100-nodes", IN_PROCESS, wall, virtual / wall,
        f"1 replication, 1 worker: {virtual:.0f} s virtual ({virtual / wall:.3g} virtual s "
        f"per wall s), {int(r['replication_events'])} events, {int(r['reports_sent'])} "
        f"reports, delivery {float(r['delivery_ratio']):.3f}",
    )  # fmt: skip


def tsch_storm_in_process(s: Settings) -> Row:
    return _storm_in_process("tsch-storm-10000")


# the storm at 100 and 1 000 nodes beside 10 000: the cost per event across
# network sizes (the storm experiment's own 100-node variant, the
# 1 000-node scenario)
def tsch_storm_100_in_process(s: Settings) -> Row:
    return _storm_in_process("tsch-storm-100")


def tsch_storm_1000_in_process(s: Settings) -> Row:
    return _storm_in_process("tsch-storm-1000")


def _storm_in_process(case: str) -> Row:
    from dtlsim.experiments import tsch_storm
    from dtlsim.scenario import load_scenario, variant

    # the secure-bootstrap storm: one replication, one worker
    if case == "tsch-storm-100":
        sc = variant(load_scenario("tsch-storm-1000"), tsch_storm.SMALL)
    else:
        sc = load_scenario(case)
    wall, r = _one_replication(sc)
    events = int(r["replication_events"])
    secured = ", ".join(
        f"{q} % at {float(r[f'secured_{q}_s']):.0f} s" for q in (50, 90, 99)
    )  # NaN: not within the run
    return _row(
        case, IN_PROCESS, wall, events / wall,
        f"1 replication, 1 worker: {int(r['clients'])} handshakes asked for over "
        f"{float(r['virtual_time_s']):.0f} s virtual, {events} events "
        f"({wall / events * 1e9:.0f} ns/event); secured {float(r['secured_share']):.3f} "
        f"({secured}), {float(r['energy_per_node_uj']) / 1e6:.2f} J per node, "
        f"peak {int(r['peak_slots_taken'])} sessions in the table",
    )  # fmt: skip


def tsch_storm_br_in_process(s: Settings) -> list[Row]:
    """The 10 000-node storm with one border router per 100 nodes
    (topology.border_routers = 100), each join protocol under the tree
    schedule (EDHOC with the JRC on a backend host, as the storm
    experiment's table shows why): a row each, with its in-process time."""
    from dtlsim import keys
    from dtlsim.experiments import tsch_storm
    from dtlsim.scenario import load_scenario, variant

    base = load_scenario("tsch-storm-10000")
    base = variant(base, {keys.TOPOLOGY_BORDER_ROUTERS: tsch_storm.border_routers_for(base)})
    joins = {
        "dtls": {},
        "dtls13": {},
        "edhoc": {keys.SESSIONS_SERVER_CRYPTO: "host"},
        "cojp": {},
    }
    out = []
    for handshake, extra in joins.items():
        # as the experiment runs it: through its join proxy where it has one
        sc = variant(base, {**tsch_storm.join(handshake), **extra})
        wall, r = _one_replication(sc)
        events = int(r["replication_events"])
        out.append(
            _row(
                f"tsch-storm-10000-br/{handshake}",
                IN_PROCESS,
                wall,
                events / wall,
                f"100 border routers, 1 replication, 1 worker: secured "
                f"{float(r['secured_share']):.3f} ({float(r['secured_99_s']):.0f} s to 99 %) "
                f"over {float(r['virtual_time_s']):.0f} s virtual, {events} events "
                f"({wall / events * 1e9:.0f} ns/event), "
                f"{int(r['backbone_datagrams'])} datagrams over the backbone",
            )
        )
    return out


# The medium's cost per event: experiment 9's X-MAC line (4 hops, 40 m
# apart) under the default per-link PDR medium and under log-distance with
# reception by SINR, one worker, so the figure is one core's.
MEDIUM_HOPS = 4
MEDIUM_REPLICATIONS = 200
# Timed runs per figure (the median is reported): one run of 0.1 s varies
# by half on a shared machine.
MEDIUM_RUNS = 5


def _medium_in_process(case: str, medium: dict[str, Any], s: Settings) -> Row:
    import pyarrow.compute as pc

    from dtlsim.experiments.exp9_medium import with_medium
    from dtlsim.scenario import load_scenario
    from dtlsim.simulation import run_unit

    sc = with_medium(load_scenario("exp9-medium"), medium, {keys.TOPOLOGY_HOPS: MEDIUM_HOPS})
    point = next(sc.points())
    reps = min(s.replications, MEDIUM_REPLICATIONS)
    run_unit(point, 0, 1)  # untimed: the first run pays the platform's loading
    walls = []
    for _ in range(MEDIUM_RUNS):
        t = time.perf_counter()
        rows = run_unit(point, 0, reps)  # the simulation alone: no files, no workers
        walls.append(time.perf_counter() - t)
    wall = statistics.median(walls)
    events = int(pc.sum(rows.column("replication_events")).as_py() or 0)
    done = float(pc.mean(rows.column("success")).as_py() or 0.0)
    return _row(
        case, IN_PROCESS, wall, events / wall,
        f"exp9's X-MAC line, {MEDIUM_HOPS} hops, {reps} replications, one thread, median "
        f"of {MEDIUM_RUNS} runs: "
        f"{events} events, {wall / max(events, 1) * 1e9:.0f} ns/event (the whole "
        f"simulation per event: stack, MAC and medium), success {done:.3f}",
    )  # fmt: skip


def medium_pdr_in_process(s: Settings) -> Row:
    return _medium_in_process("medium-pdr", {"kind": "pdr"}, s)


def medium_sinr_in_process(s: Settings) -> Row:
    return _medium_in_process("medium-sinr", {"kind": "log-distance", "spacing_m": 40.0}, s)


IN: dict[str, Callable[[Settings], Row | list[Row]]] = {
    "dtls": dtls_in_process,
    "exp1-xmac-grid": exp1_grid_in_process,
    "tsch-100-nodes": tsch_100_in_process,
    "tsch-storm-100": tsch_storm_100_in_process,
    "tsch-storm-1000": tsch_storm_1000_in_process,
    "tsch-storm-10000": tsch_storm_in_process,
    "tsch-storm-10000-br": tsch_storm_br_in_process,
    "medium-pdr": medium_pdr_in_process,
    "medium-sinr": medium_sinr_in_process,
}


def run_cases(cases: Sequence[str], s: Settings) -> list[Row]:
    rows: list[Row] = []
    for case in cases:
        if case in IN:
            got = IN[case](s)
            rows.extend(got if isinstance(got, list) else [got])
        if case in WHOLE or case in PEERS:
            rows.extend(whole_rows(case, sys.executable))
    return rows


# --------------------------------------------------------------------- store


@dataclass(frozen=True)
class CodeState:
    commit: str
    dirty: bool

    @property
    def name(self) -> str:
        return f"{self.commit}-dirty" if self.dirty else self.commit


def _git(checkout: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(checkout), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def code_state(checkout: Path) -> CodeState | None:
    commit = _git(checkout, "rev-parse", "HEAD")
    if commit is None:
        return None
    status = _git(checkout, "status", "--porcelain", "--untracked-files=no")
    return CodeState(commit, bool(status))


def previous_commit(checkout: Path, now: CodeState) -> str | None:
    """The code state figures are compared with: the commit itself when the
    tree has changes, else its first parent."""
    if now.dirty:
        return now.commit
    return _git(checkout, "rev-parse", "HEAD^")


def store_path(store: Path, name: str) -> Path:
    return store / f"{name}.json"


def save(store: Path, state: CodeState, rows: list[Row]) -> Path:
    """Keep `rows` as `state`'s figures, merged over those stored before
    (a run of some cases keeps the others' figures)."""
    from dtlsim.atomic import write_text_atomically

    store.mkdir(parents=True, exist_ok=True)
    path = store_path(store, state.name)
    kept = {(r["case"], r["measure"]): r for r in load(path)}
    kept.update({(r["case"], r["measure"]): r for r in rows})
    doc = {"commit": state.commit, "dirty": state.dirty, "results": list(kept.values())}
    write_text_atomically(path, json.dumps(doc, indent=2))
    return path


def load(path: Path) -> list[Row]:
    """Stored figures; rows of a bench from before `measure` existed were in-process."""
    if not path.is_file():
        return []
    rows = json.loads(path.read_text(encoding="utf-8"))
    return load_rows(rows["results"] if isinstance(rows, dict) else rows)


def load_rows(rows: list[Row]) -> list[Row]:
    """Rows of any bench's JSON, each with its `measure`."""
    return [{"measure": IN_PROCESS} | r for r in rows]


def replace_rows(rows: list[Row], newer: list[Row]) -> list[Row]:
    """`rows` with each figure `newer` has for the same case and measure replaced by it."""
    by_key = {(r["case"], r["measure"]): r for r in newer}
    return [by_key.get((r["case"], r["measure"]), r) for r in rows]


def compare(now: list[Row], before: list[Row]) -> list[Row]:
    """Each of our figures with the previous one and the ratio (>1: slower now)."""
    # a peer case that was not run has no figure (None) then
    old = {(r["case"], r["measure"]): r["wall_s"] for r in before if r["wall_s"] is not None}
    out = []
    for r in now:
        prev = old.get((r["case"], r["measure"]))
        out.append(
            {
                "case": r["case"],
                "measure": r["measure"],
                "wall_s": r["wall_s"],
                "previous_wall_s": prev,
                "ratio": None if prev is None or r["wall_s"] is None else r["wall_s"] / prev,
            }
        )
    return out


# ------------------------------------------------------ the previous commit


def _cdylib_file(manifest: Path) -> str:
    """The file cargo writes for the extension crate of `manifest`: its
    `[lib] name` (`_core`, as Python imports it), not the package's name."""
    import tomllib

    doc = tomllib.loads(manifest.read_text(encoding="utf-8"))
    name = doc.get("lib", {}).get("name") or doc["package"]["name"].replace("-", "_")
    suffix = {"darwin": ".dylib", "win32": ".dll"}.get(sys.platform, ".so")
    return f"{'' if sys.platform == 'win32' else 'lib'}{name}{suffix}"


def build_previous(
    checkout: Path, commit: str, cases: Sequence[str], s: Settings, say: Callable[[str], None]
) -> tuple[list[Row], list[Row]]:
    """`commit`'s figures, measured now on a temporary worktree of it: its
    extension built with cargo (into this checkout's target directory, so
    unchanged crates are not compiled again), its own bench for the
    in-process cases, this module's whole-process cases on its sources.
    Also ours of the whole-process cases, measured again right after each
    of its: on a shared machine the load of minutes earlier (before the
    build) is no measure to compare with."""
    tmp = Path(tempfile.mkdtemp(prefix="dtlsim-bench-"))
    tree = tmp / "tree"
    try:
        if _git(checkout, "worktree", "add", "--detach", str(tree), commit) is None:
            raise RuntimeError(f"git worktree add {commit} failed")
        say(f"building {commit[:12]} in {tree} (cargo build --release -p dtlsim-py)")
        target = Path(os.environ.get("CARGO_TARGET_DIR", checkout / "target"))
        cargo_target = tmp / "target" if not target.is_dir() else target
        features = ["--features", "pyo3/extension-module"]
        subprocess.run(
            ["cargo", "build", "--release", "-p", "dtlsim-py", *features,
             "--target-dir", str(cargo_target)],
            cwd=tree, check=True,
        )  # fmt: skip
        built = cargo_target / "release" / _cdylib_file(tree / "crates" / "py" / "Cargo.toml")
        if not built.is_file():
            raise RuntimeError(f"cargo built no {built}")
        so = tree / "python" / "dtlsim" / Path(_core.__file__).name
        shutil.copy2(built, so)
        env = os.environ | {"PYTHONPATH": str(tree / "python")}
        rows: list[Row] = []
        again: list[Row] = []
        in_cases = [c for c in cases if c in IN]
        if in_cases:
            cmd = [sys.executable, "-m", "dtlsim.cli", "bench", "--json",
                   "--replications", str(s.replications),
                   "--handshakes", str(s.handshakes)]  # fmt: skip
            if s.workers:
                cmd += ["--workers", str(s.workers)]
            for c in in_cases:
                cmd += ["--case", c]
            say(f"running {commit[:12]}'s own bench: {' '.join(in_cases)}")
            done = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"{commit[:12]}'s bench failed: {done.stderr.strip()}")
            got = load_rows(json.loads(done.stdout))
            rows += [r for r in got if r["measure"] == IN_PROCESS]
        for c in cases:
            if c in WHOLE:
                say(f"timing {commit[:12]} whole-process, and ours again beside it: {c}")
                rows += whole_rows(c, sys.executable, env)
                again += whole_rows(c, sys.executable)
        return rows, again
    finally:
        _git(checkout, "worktree", "remove", "--force", str(tree))
        shutil.rmtree(tmp, ignore_errors=True)
