"""`dtlsim run`: a scenario's sweep through the simulator, to files."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from dtlsim import plan, progress, simulation
from dtlsim.atomic import write_atomically
from dtlsim.plan import NotRun
from dtlsim.scenario import Scenario
from dtlsim.stats import MIN_SUCCESSES, summarize, summarize_proportion
from dtlsim.sweep import SECRETS, Pool, run_sweep
from dtlsim.tidy import tidy

TIDY_FILE = "results_tidy.parquet"

# What a summary reports per point, by workload kind.
METRICS = {
    "handshakes": ["success", "duration_s", "client_energy_uj", "energy_total_uj",
                   "dtls_retransmissions", "client_datagrams_sent"],
    "ping": ["success", "rtt_ms"],
    "frames": ["success", "slot_latency_s", "latency_s", "energy_total_uj"],
    "periodic": ["success", "delivery_ratio", "mean_latency_s", "energy_total_uj"],
    "sessions": ["success", "time_congestion", "call_congestion", "mean_busy_slots",
                 "handshake_s", "energy_per_session_uj", "sessions_evicted"],
}  # fmt: skip


# Rows a trace keeps at most by default: some tens of MB of Parquet.
TRACE_LIMIT = 1_000_000


@dataclass(frozen=True)
class Capture:
    """Which run's frames go to a pcap (`path`) and its events to a Parquet
    trace (`trace`, at most `trace_limit` rows): replication `replication`
    of point `point` of the sweep (both 0-based, points in sweep order), as
    the sweep itself runs it (same seed, same frames)."""

    path: Path | None
    point: int = 0
    replication: int = 0
    trace: Path | None = None
    trace_limit: int = TRACE_LIMIT


def replications_of(scenario: Scenario, replications: int | None, quick: bool) -> int:
    if replications is not None:
        return replications
    e = scenario.experiment
    return e.quick_replications if quick else e.replications


def run_scenario(
    scenario: Scenario,
    out: Path | None,
    replications: int,
    workers: int | None = None,
    pcap: Capture | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    keep: Callable[[dict[str, Any]], bool] | None = None,
    csv: bool = False,
    on_not_run: Callable[[list[NotRun]], None] | None = None,
    pool: Pool | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run every point × replication (resuming in `out`); write and return rows and summary.

    Without `out`, nothing is written and the rows stay in memory. `keep`
    leaves out points of the sweep (an experiment says which); points the
    core cannot run are found before any unit starts, told to `on_not_run`
    and marked in the summary (`dtlsim.plan`). `pool` runs the units
    elsewhere than on `workers` local threads (a Dask cluster: `dtlsim.cluster`)."""
    kept = [p for p in scenario.points() if keep is None or keep(p)]
    points, refused = plan.split(scenario, kept)
    if on_not_run is not None and refused:
        on_not_run(refused)
    if pcap is not None:
        write_capture(scenario, kept, pcap)
    if on_progress is None:  # inside `dtlsim reproduce`, say
        on_progress = progress.current(sweep_label(scenario, out))
    rows = run_sweep(
        points, replications, simulation.run_unit, out, workers, on_progress=on_progress, pool=pool
    )
    # a swept key is in the rows as its fingerprint
    by = [SECRETS.get(k, k) for k in scenario.axes()] or ["point_key"]
    summary = plan.mark(summarize_rows(rows, by, scenario.workload.kind), refused)
    if out is not None:
        write_tables(rows, summary, out, csv, axes=by)
    return rows, summary


def write_capture(scenario: Scenario, points: Sequence[dict[str, Any]], capture: Capture) -> None:
    """Write the frames and events of the run `capture` names (a point that
    cannot run is refused). The trace's metadata says how many rows its
    limit left out (`dropped_events`)."""
    if not 0 <= capture.point < len(points):
        raise ValueError(
            f"pcap point {capture.point}: the sweep has {len(points)} point(s), "
            f"0..{len(points) - 1}"
        )
    if capture.replication < 0:
        raise ValueError(f"pcap replication {capture.replication}: must be >= 0")
    point = points[capture.point]
    why = plan.why_not(point)
    if why is not None:
        where = plan.NotRun({k: point[k] for k in scenario.axes()}, why).render()
        raise ValueError(f"pcap point {capture.point} cannot run: {where}")
    if capture.trace is None:
        simulation.run_unit(point, capture.replication, 1, pcap=capture.path)
        return
    table, dropped = simulation.trace_unit(
        point, capture.replication, capture.trace_limit, pcap=capture.path
    )
    meta = {"dropped_events": str(dropped), "limit": str(capture.trace_limit)}
    table = table.replace_schema_metadata(meta)
    write_atomically(capture.trace, lambda tmp: pq.write_table(table, tmp))


def sweep_label(scenario: Scenario, out: Path | None) -> str:
    """How progress names a sweep: its experiment, and its directory where an
    experiment runs several (`exp2-beacon/rfc6347-timer`)."""
    name = scenario.experiment.id
    if out is not None and out.name != name:
        return f"{name}/{out.name}"
    return name


# Handshake metrics also given "censored": over every handshake, a failed one
# counted at the time it gave up (`give_up_s`) with the energy it had spent
# by then. The mean over successes alone favours the lucky; the censored
# mean is a lower bound of the true mean time to a handshake.
# metric → (censored name, the column a failed row's value is in, if another).
CENSORED = {
    "duration_s": ("duration_censored_s", "give_up_s"),
    # a failed row already holds the energy spent until it gave up
    "client_energy_uj": ("client_energy_censored_uj", None),
    "energy_total_uj": ("energy_total_censored_uj", None),
}


def summarize_rows(rows: pd.DataFrame, by: list[str], kind: str) -> pd.DataFrame:
    """Per point: the success rate with its Wilson interval over every row,
    the other metrics (mean, t interval) over successful rows only, and for
    handshakes the censored metrics over every row."""
    metrics = [m for m in METRICS[kind] if m in rows.columns and m != "success"]
    ok_rows = rows[rows.success.astype(bool)]
    rate = summarize_proportion(rows, by, "success", name="success_rate").rename(
        columns={"success_rate_ci_low": "success_ci_low", "success_rate_ci_high": "success_ci_high"}
    )
    counts = rows.groupby(by, sort=True, dropna=False).size().rename("n_rows").reset_index()
    out = rate.merge(counts, on=by)
    ok = summarize(ok_rows, by, metrics).rename(columns={"n": "n_successful"})
    out = out.merge(ok, on=by, how="left")
    out["n_successful"] = out.n_successful.fillna(0).astype(int)
    out["few_successes"] = out.n_successful < MIN_SUCCESSES
    if kind == "handshakes":
        censored = {
            name: rows[m].fillna(rows[failed]) if failed in rows.columns else rows[m]
            for m, (name, failed) in CENSORED.items()
            if m in rows.columns
        }
        stats = summarize(rows.assign(**censored), by, list(censored)).drop(columns="n")
        out = out.merge(stats, on=by, how="left")
    if "delivery_ratio_ci_low" in out.columns:
        # The share of reports delivered is a proportion per replication, but
        # the reports of one replication share its network: the spread between
        # replications (a t interval over their ratios) is the uncertainty, not
        # a pooled binomial one. A proportion's interval stays within [0, 1].
        out["delivery_ratio_ci_low"] = out["delivery_ratio_ci_low"].clip(lower=0.0)
        out["delivery_ratio_ci_high"] = out["delivery_ratio_ci_high"].clip(upper=1.0)
    return out


def write_tables(
    rows: pd.DataFrame,
    summary: pd.DataFrame,
    out: Path,
    csv: bool = False,
    axes: Sequence[str] = (),
) -> None:
    """The rows as Parquet (the record), the same in tidy form (one row per
    node and quantity, `dtlsim.tidy`) and, with `csv`, as CSV too (several
    times the Parquet's size); the per-point summary as CSV. Each file is
    whole or absent, whenever the run is killed."""
    table = pa.Table.from_pandas(rows, preserve_index=False)
    write_atomically(out / "results.parquet", lambda tmp: pq.write_table(table, tmp))
    long = pa.Table.from_pandas(tidy(rows, axes), preserve_index=False)
    write_atomically(out / TIDY_FILE, lambda tmp: pq.write_table(long, tmp))
    if csv:
        # Arrow's writer: several times pandas' speed
        write_atomically(out / "results.csv", lambda tmp: pa_csv.write_csv(table, tmp))
    write_atomically(out / "summary.csv", lambda tmp: summary.to_csv(tmp, index=False))


def summary_records(summary: pd.DataFrame) -> list[dict[str, Any]]:
    return summary.to_dict(orient="records")
