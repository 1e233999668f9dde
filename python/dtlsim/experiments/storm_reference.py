"""The 100-node storm beside the 6TiSCH simulator's join experiment, shown in
the storm's section: a published-code reference, not judged.

The 6TiSCH simulator (the IETF 6TiSCH working group's Python simulator,
Municio et al., "Simulating 6TiSCH Networks", ETT 2019) ran on the storm's
own 100-node graph (the positions and link PDRs dtlsim draws for the
storm's seed, replayed as a fixed K7 connectivity trace), every node
powered on at once, MSF, its CoJP join through the join proxy, one hour
simulated, once per random seed. Its per-node times to first
synchronisation and to join are reference data shipped with dtlsim
(`reference/6tisch-simulator/`, whose README says how they were produced
and names every difference between its model and dtlsim's).

The two are shown side by side and not judged: the 6TiSCH simulator forms
the network (a pledge scans for Enhanced Beacons, synchronises, joins, then
RPL and MSF start), while dtlsim's storm starts from a formed network
(synchronised, routes and cells in place) and starts each join after an
exponential wait. Their join-time distributions measure different things,
so no rule of agreement is expected to hold; the table says what each
figure is.

A run's file (`seed-<n>.joins`) is one `# 6tisch-simulator run: key=value
...` line, a comment line naming the columns, then a line per pledge
`node synced_s joined_s desyncs` ('-': not within the run).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dtlsim import keys, resources
from dtlsim.experiments.base import Table

# The shares of the pledges whose join time the table gives (the storm's).
SHARES = (0.5, 0.9, 0.99)

# A run's first line and the keys it must give.
RUN_LINE = "# 6tisch-simulator run:"
RUN_KEYS = ("seed", "nodes", "simulated_s", "wall_s", "cpu_s", "max_rss_mb", "started", "commit")

# A run's file name: the simulator's random seed.
RUN_FILE = re.compile(r"^seed-(\d+)\.joins$")

NOT_WITHIN = "-"

NOTE = """\
Reference, not judged. The 6TiSCH simulator forms the network: every node
boots unsynchronised at t = 0, hears an Enhanced Beacon (sent in the
minimal cell with probability 0.33 by nodes already joined and routed),
synchronises, sends its CoJP Join Request through that neighbour (the join
proxy), and only once joined starts RPL and MSF, after which it sends
beacons itself; the network joins outward from the border router, one ring
of neighbours after another. dtlsim's storm starts from a formed network
(every node synchronised, RPL routes and the schedule's cells in place at
t = 0) and each node starts its join after an exponential wait of mean
60 s, so its times are the join exchange's under load, not formation's.
"mean join exchange" is, for the 6TiSCH simulator, the time from a pledge's
first synchronisation to its join; for dtlsim, the mean join (handshake)
time. Wall and CPU (user + system) times: the 6TiSCH simulator's are
whole-process (one run per process, GNU time, on this project's shared
2-core machine, whose load varied: CPU time is the steadier figure);
dtlsim's are in-process (the CoJP run's `run_scenario` call, on this
report's machine). The
README of reference/6tisch-simulator lists every difference of the models."""

COLUMNS = [
    "simulator",
    "run",
    "schedule",
    "pledges",
    "share joined in the hour",
    "50 % joined (s)",
    "90 % joined (s)",
    "99 % joined (s)",
    "mean join exchange (s)",
    "wall time (s)",
    "CPU time (s)",
    "wall time measured",
]


@dataclass(frozen=True)
class Run:
    """One 6TiSCH simulator run: its first line's fields and a row per pledge."""

    seed: int
    nodes: int
    simulated_s: float
    wall_s: float
    cpu_s: float
    max_rss_mb: float
    started: str
    commit: str
    joins: pd.DataFrame  # node, synced_s, joined_s (NaN: not within the run), desyncs


def _refuse(path: Path, line: int, what: str) -> ValueError:
    return ValueError(f"{path}:{line}: {what}")


def _time(path: Path, line: int, field: str, text: str, simulated_s: float) -> float:
    if text == NOT_WITHIN:
        return math.nan
    try:
        value = float(text)
    except ValueError:
        raise _refuse(path, line, f"{field} = {text!r} is not a number or '-'") from None
    if not 0.0 <= value <= simulated_s:
        raise _refuse(path, line, f"{field} = {text} is outside [0, {simulated_s:g}] s")
    return value


def read_run(path: Path) -> Run:
    """One run's file; a malformed one is refused naming the file and line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith(RUN_LINE):
        raise _refuse(path, 1, f"the first line must start with '{RUN_LINE}'")
    fields: dict[str, str] = {}
    for kv in lines[0][len(RUN_LINE) :].split():
        key, sep, value = kv.partition("=")
        if not sep or not value:
            raise _refuse(path, 1, f"{kv!r} is not key=value")
        fields[key] = value
    missing = [k for k in RUN_KEYS if k not in fields]
    if missing:
        raise _refuse(path, 1, f"missing {', '.join(missing)} (a run line gives {RUN_KEYS})")
    try:
        seed, nodes = int(fields["seed"]), int(fields["nodes"])
        simulated_s, wall_s = float(fields["simulated_s"]), float(fields["wall_s"])
        cpu_s = float(fields["cpu_s"])
        max_rss_mb = float(fields["max_rss_mb"])
    except ValueError as e:
        raise _refuse(path, 1, f"a number is malformed ({e})") from None
    if nodes < 2 or simulated_s <= 0 or wall_s <= 0 or cpu_s <= 0:
        raise _refuse(path, 1, "nodes must be >= 2, simulated_s, wall_s and cpu_s > 0")
    named = RUN_FILE.match(path.name)
    if named and int(named.group(1)) != seed:
        raise _refuse(path, 1, f"seed = {seed}, but the file is named for seed {named.group(1)}")
    rows = []
    seen: set[int] = set()
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip() or text.startswith("#"):
            continue
        f = text.split()
        if len(f) != 4:
            raise _refuse(
                path, number, f"{len(f)} fields, expected 4 (node synced_s joined_s desyncs)"
            )
        if not f[0].isdigit() or not 1 <= int(f[0]) < nodes:
            raise _refuse(path, number, f"node = {f[0]!r} is not a pledge 1..{nodes - 1}")
        if int(f[0]) in seen:
            raise _refuse(path, number, f"node {f[0]} again (a line per pledge)")
        seen.add(int(f[0]))
        if not f[3].isdigit():
            raise _refuse(path, number, f"desyncs = {f[3]!r} is not a count")
        synced = _time(path, number, "synced_s", f[1], simulated_s)
        joined = _time(path, number, "joined_s", f[2], simulated_s)
        if not math.isnan(joined) and (math.isnan(synced) or joined < synced):
            raise _refuse(path, number, f"joined at {f[2]} s before synchronising ({f[1]})")
        rows.append(
            {"node": int(f[0]), "synced_s": synced, "joined_s": joined, "desyncs": int(f[3])}
        )
    joins = pd.DataFrame(rows, columns=["node", "synced_s", "joined_s", "desyncs"])
    if len(joins) != nodes - 1:
        raise _refuse(
            path, len(lines), f"{len(joins)} pledge lines, expected each of 1..{nodes - 1} once"
        )
    return Run(
        seed,
        nodes,
        simulated_s,
        wall_s,
        cpu_s,
        max_rss_mb,
        fields["started"],
        fields["commit"],
        joins,
    )


def reference_runs(directory: Path | None = None) -> list[Run]:
    """Every run shipped (or in `directory`), by seed."""
    where = directory or resources.reference_dir("6tisch-simulator")
    runs = [read_run(p) for p in sorted(where.iterdir()) if RUN_FILE.match(p.name)]
    if not runs:
        raise ValueError(f"{where}: no 6TiSCH simulator run (seed-<n>.joins)")
    return sorted(runs, key=lambda r: r.seed)


def time_to_share(times: Sequence[float], pledges: int, share: float) -> float:
    """When `share` of `pledges` had joined: the ceil(share × pledges)-th
    earliest time (NaN when fewer joined) — the rule dtlsim's storm uses for
    its own figures (crates/sim/src/workload/sessions.rs, `time_to_share`)."""
    done = sorted(t for t in times if not math.isnan(t))
    k = max(1, math.ceil(share * pledges))
    return done[k - 1] if k <= len(done) else math.nan


def _figures(joined: pd.Series, synced: pd.Series, pledges: int) -> dict[str, float]:
    out = {"pledges": pledges, "share joined in the hour": joined.notna().sum() / pledges}
    for share in SHARES:
        out[f"{share * 100:g} % joined (s)"] = time_to_share(list(joined), pledges, share)
    out["mean join exchange (s)"] = float((joined - synced).mean())
    return out


def reference_rows(runs: Sequence[Run]) -> pd.DataFrame:
    """A row per 6TiSCH simulator run, and one of all runs' joins pooled."""
    rows = []
    for r in runs:
        rows.append(
            {
                "simulator": "6TiSCH simulator",
                "run": f"seed {r.seed}",
                "schedule": "MSF",
                **_figures(r.joins["joined_s"], r.joins["synced_s"], r.nodes - 1),
                "wall time (s)": r.wall_s,
                "CPU time (s)": r.cpu_s,
                "wall time measured": "whole process",
            }
        )
    pooled = pd.concat([r.joins for r in runs], ignore_index=True)
    rows.append(
        {
            "simulator": "6TiSCH simulator",
            "run": f"{len(runs)} seeds pooled",
            "schedule": "MSF",
            **_figures(pooled["joined_s"], pooled["synced_s"], len(pooled)),
            "wall time (s)": sum(r.wall_s for r in runs) / len(runs),
            "CPU time (s)": sum(r.cpu_s for r in runs) / len(runs),
            "wall time measured": "whole process, mean",
        }
    )
    return pd.DataFrame(rows, columns=COLUMNS)


@dataclass(frozen=True)
class StormRun:
    """One storm configuration as `tsch_storm` ran it: the runner's rows (a
    row per replication) and its in-process wall and CPU time per
    replication."""

    frame: pd.DataFrame
    wall_s: float
    cpu_s: float


def dtlsim_rows(cojp: Mapping[str, StormRun]) -> pd.DataFrame:
    """dtlsim's 100-node CoJP storm under each schedule (`cojp`, by
    schedule): a row per replication, with the in-process time of its run."""
    rows = []
    for schedule, run in cojp.items():
        for _, r in run.frame.iterrows():
            rows.append(
                {
                    "simulator": "dtlsim",
                    "run": f"replication {int(r['replication'])}",
                    "schedule": schedule,
                    "pledges": int(r[keys.SESSIONS_CLIENTS]),
                    "share joined in the hour": r["secured_share_1h"],
                    "50 % joined (s)": r["secured_50_s"],
                    "90 % joined (s)": r["secured_90_s"],
                    "99 % joined (s)": r["secured_99_s"],
                    "mean join exchange (s)": r["handshake_s"],
                    "wall time (s)": run.wall_s,
                    "CPU time (s)": run.cpu_s,
                    "wall time measured": "in process",
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def table(cojp: Mapping[str, StormRun], runs: Sequence[Run] | None = None) -> Table:
    """The storm's section beside the 6TiSCH simulator: its runs, then
    dtlsim's CoJP storm as the storm experiment ran it (`cojp`, by schedule)."""
    frame = pd.concat(
        [reference_rows(runs or reference_runs()), dtlsim_rows(cojp)],
        ignore_index=True,
    )
    return Table(
        "storm-100-6tisch-simulator",
        "The 100-node CoJP storm beside the 6TiSCH simulator's join experiment "
        "(reference, not judged)",
        frame,
        NOTE,
    )
