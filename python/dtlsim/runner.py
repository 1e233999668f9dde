"""`dtlsim run`: a scenario's sweep through the simulator, to files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from dtlsim import simulation
from dtlsim.scenario import Scenario
from dtlsim.sweep import run_sweep, summarize

# What a summary reports per point, by workload kind.
METRICS = {
    "handshakes": ["success", "duration_s", "client_energy_uj", "energy_total_uj",
                   "dtls_retransmissions", "client_datagrams_sent"],
    "ping": ["success", "rtt_ms"],
    "frames": ["success", "slot_latency_s", "latency_s", "energy_total_uj"],
    "periodic": ["success", "delivery_ratio", "mean_latency_s", "energy_total_uj"],
}  # fmt: skip


def replications_of(scenario: Scenario, replications: int | None, quick: bool) -> int:
    if replications is not None:
        return replications
    e = scenario.experiment
    return e.quick_replications if quick else e.replications


def run_scenario(
    scenario: Scenario,
    out: Path,
    replications: int,
    workers: int | None = None,
    pcap: Path | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    keep: Callable[[dict[str, Any]], bool] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run every point × replication (resuming in `out`); write and return rows and summary.

    `keep` leaves out points of the sweep that cannot be run (an experiment
    says which, and its report says why)."""
    points = [p for p in scenario.points() if keep is None or keep(p)]
    if pcap is not None:
        simulation.run_unit(points[0], 0, 1, pcap=pcap)
    rows = run_sweep(
        points, replications, simulation.run_unit, out, workers, on_progress=on_progress
    )
    summary = summarize_rows(rows, list(scenario.axes()) or ["point_key"], scenario.workload.kind)
    write_tables(rows, summary, out)
    return rows, summary


def summarize_rows(rows: pd.DataFrame, by: list[str], kind: str) -> pd.DataFrame:
    """Success rate over every row; the other metrics over successful rows only."""
    metrics = [m for m in METRICS[kind] if m in rows.columns and m != "success"]
    rate = summarize(rows.assign(success=rows.success.astype(float)), by, ["success"])
    rate = rate.rename(columns={"success_mean": "success_rate", "n": "n_rows"})
    ok = summarize(rows[rows.success.astype(bool)], by, metrics).rename(
        columns={"n": "n_successful"}
    )
    return rate.merge(ok, on=by, how="left")


def write_tables(rows: pd.DataFrame, summary: pd.DataFrame, out: Path) -> None:
    table = pa.Table.from_pandas(rows, preserve_index=False)
    pq.write_table(table, out / "results.parquet")
    pa_csv.write_csv(table, out / "results.csv")  # Arrow's writer: several times pandas' speed
    summary.to_csv(out / "summary.csv", index=False)


def summary_records(summary: pd.DataFrame) -> list[dict[str, Any]]:
    return summary.to_dict(orient="records")
