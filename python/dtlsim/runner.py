"""`dtlsim run`: a scenario's sweep through the simulator, to files."""

from __future__ import annotations

import csv as csv_text
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dtlsim import _core, plan, progress, simulation
from dtlsim.atomic import write_all_atomically, write_atomically
from dtlsim.plan import NotRun
from dtlsim.scenario import Scenario
from dtlsim.stats import MIN_SUCCESSES, mean_ci95, proportion_ci95
from dtlsim.sweep import SECRETS, Finished, Pool, run_sweep

# NumPy and pyarrow are imported where they are needed: a run to files
# needs neither (the core writes the files and hands back the figures of
# each point's summary), a tenth of a second of its start-up.
if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

TIDY_FILE = "results_tidy.parquet"
# The per-node table: a row per node and result row (`dtlsim.simulation.run_unit_with_nodes`).
NODES_FILE = "nodes.parquet"

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
    the sweep itself runs it (same seed, same frames). With `node`, the pcap
    holds only what that node sent and received (`sim::capture`)."""

    path: Path | None
    point: int = 0
    replication: int = 0
    trace: Path | None = None
    trace_limit: int = TRACE_LIMIT
    node: int | None = None


def replications_of(scenario: Scenario, replications: int | None, quick: bool) -> int:
    if replications is not None:
        return replications
    e = scenario.experiment
    return e.quick_replications if quick else e.replications


@dataclass(frozen=True)
class Ran:
    """A finished run: its rows (on disk, or in memory without `out`; read
    them with `rows.frame(columns)`), and its summary, one record per point
    (`summarize_point`, points that did not run marked as `plan.mark_records`
    says) with its `columns` in order."""

    rows: Finished
    summary: list[dict[str, Any]]
    columns: list[str]

    def summary_frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.summary, columns=self.columns)


def run(
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
) -> Ran:
    """Run every point × replication (resuming in `out`); write the rows and summary.

    Without `out`, nothing is written and the rows stay in memory. `keep`
    leaves out points of the sweep (an experiment says which); points the
    core cannot run are found before any unit starts, told to `on_not_run`
    and marked in the summary (`dtlsim.plan`). `pool` runs the units
    elsewhere than on `workers` local threads (a Dask cluster: `dtlsim.cluster`).
    The rows are read back and written a point at a time: a sweep never
    holds more than one point's rows in memory."""
    kept = [p for p in scenario.points() if keep is None or keep(p)]
    points, refused = plan.split(scenario, kept)
    if on_not_run is not None and refused:
        on_not_run(refused)
    if pcap is not None:
        write_capture(scenario, kept, pcap)
    if on_progress is None:  # inside `dtlsim reproduce`, say
        on_progress = progress.current(sweep_label(scenario, out))
    rows = run_sweep(
        points, replications, simulation.run_unit_with_nodes, out, workers,
        on_progress=on_progress, pool=pool, nodes=True, writer=simulation.write_unit_files,
    )  # fmt: skip
    # a swept key is in the rows as its fingerprint
    by = [SECRETS.get(k, k) for k in scenario.axes()] or ["point_key"]
    kind = scenario.workload.kind
    if out is None:
        records = [summarize_point(t, by, kind) for _, t in rows.by_point()]
    else:
        records = write_tables(rows, out, by, kind, csv)
    summary, columns = plan.mark_records(
        sort_records(records, by), summary_columns(records), refused
    )
    if out is not None:
        write_atomically(out / "summary.csv", lambda tmp: write_csv(tmp, summary, columns))
    return Ran(rows, summary, columns)


def run_scenario(
    scenario: Scenario, out: Path | None, replications: int, *args: Any, **options: Any
) -> tuple[Finished, pd.DataFrame]:
    """`run` (the same arguments after these three), with the summary as a
    DataFrame: (rows, summary)."""
    ran = run(scenario, out, replications, *args, **options)
    return ran.rows, ran.summary_frame()


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
        simulation.run_unit(
            point, capture.replication, 1, pcap=capture.path, pcap_node=capture.node
        )
        return
    table, dropped = simulation.trace_unit(
        point, capture.replication, capture.trace_limit, pcap=capture.path, pcap_node=capture.node
    )
    meta = {"dropped_events": str(dropped), "limit": str(capture.trace_limit)}
    table = table.replace_schema_metadata(meta)
    import pyarrow.parquet as pq

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


def summarize_point(rows: pa.Table, by: Sequence[str], kind: str) -> dict[str, Any]:
    """`summarize_figures` of one point's rows (a table)."""
    from dtlsim import arrays

    n = rows.num_rows
    first = {k: rows.column(k)[0].as_py() if n else None for k in by}
    names = set(rows.column_names)
    values = {c: arrays.floats(rows.column(c)).tolist() for c in wanted(kind) if c in names}
    return summarize_figures(first, n, values, kind)


def wanted(kind: str) -> list[str]:
    """The columns a summary of `kind` reads: success, the metrics, and the
    column a failed row's censored value is in."""
    failed = [f for _, f in CENSORED.values() if f is not None] if kind == "handshakes" else []
    return list(dict.fromkeys(["success", *METRICS[kind], *failed]))


def summarize_figures(
    first: dict[str, Any], n: int, values: dict[str, list[float]], kind: str
) -> dict[str, Any]:
    """One point's summary: its `by` values (`first`, those of its first
    row), the success rate with its Wilson interval over its `n` rows, the
    other metrics (mean, t interval) over successful rows only, and for
    handshakes the censored metrics over every row. `values`: the point's
    columns of `wanted(kind)` it has, as floats (NaN where null). Plain
    Python: a point of one success needs no NumPy (`stats.mean_ci95`)."""
    out: dict[str, Any] = dict(first)
    success = [v == 1.0 for v in values["success"]]
    ok = sum(success)
    rate, low, high = proportion_ci95(ok, n)
    out |= {"success_rate": rate, "success_ci_low": low, "success_ci_high": high, "n_rows": n}
    for m in metrics_of(list(values), kind):
        mean, lo, hi, _ = mean_ci95([v for v, s in zip(values[m], success, strict=True) if s])
        out |= {f"{m}_mean": mean, f"{m}_ci_low": lo, f"{m}_ci_high": hi}
    out |= {"n_successful": ok, "few_successes": ok < MIN_SUCCESSES}
    if kind == "handshakes":
        for m, (name, failed) in CENSORED.items():
            if m not in values:
                continue
            censored = values[m]
            if failed in values:
                censored = [
                    f if math.isnan(v) else v for v, f in zip(censored, values[failed], strict=True)
                ]
            mean, lo, hi, _ = mean_ci95(censored)
            out |= {f"{name}_mean": mean, f"{name}_ci_low": lo, f"{name}_ci_high": hi}
    if "delivery_ratio_ci_low" in out:
        # The share of reports delivered is a proportion per replication, but
        # the reports of one replication share its network: the spread between
        # replications (a t interval over their ratios) is the uncertainty, not
        # a pooled binomial one. A proportion's interval stays within [0, 1].
        out["delivery_ratio_ci_low"] = max(out["delivery_ratio_ci_low"], 0.0)
        out["delivery_ratio_ci_high"] = min(out["delivery_ratio_ci_high"], 1.0)
    return out


def metrics_of(columns: Sequence[str], kind: str) -> list[str]:
    """The metrics a summary of `kind` reports that the rows have (besides success)."""
    return [m for m in METRICS[kind] if m in columns and m != "success"]


def summary_columns(records: Sequence[dict[str, Any]]) -> list[str]:
    """Every key of the summary records, in first-seen order."""
    return list(dict.fromkeys(k for r in records for k in r))


def sort_records(records: list[dict[str, Any]], by: Sequence[str]) -> list[dict[str, Any]]:
    """The points in order of their `by` values (as a grouped table lists
    them); in plan order where values of one axis do not compare."""
    try:
        return sorted(records, key=lambda r: tuple(r[k] for k in by))
    except TypeError:
        return records


def summarize_rows(rows: pd.DataFrame, by: list[str], kind: str) -> pd.DataFrame:
    """`summarize_point` for each group of `rows` with the same `by` values."""
    import pandas as pd
    import pyarrow as pa

    needed = [*by, "success", *metrics_of(rows.columns, kind)]
    needed += [f for _, f in CENSORED.values() if f is not None and f in rows.columns]
    records = [
        summarize_point(
            pa.Table.from_pandas(g[list(dict.fromkeys(needed))], preserve_index=False), by, kind
        )
        for _, g in rows.groupby(by, sort=True, dropna=False)
    ]
    return pd.DataFrame(records, columns=summary_columns(records) or list(by))


def write_tables(
    rows: Finished, out: Path, by: Sequence[str], kind: str, csv: bool = False
) -> list[dict[str, Any]]:
    """The rows as Parquet (the record), the same in tidy form (one row per
    node and quantity: the core's `unit_files::tidy`), the per-node table
    (`NODES_FILE`) and, with `csv`, the rows as CSV too (several times the
    Parquet's size), a row group per point, written by the core from the
    unit files one point at a time; returns each point's summary
    (`summarize_figures`). Each file is whole or absent, whenever the run
    is killed."""
    names = ["results.parquet", TIDY_FILE, NODES_FILE, *(["results.csv"] if csv else [])]
    axes = [] if list(by) == ["point_key"] else list(by)
    figures: list[tuple[list[Any], int, dict[str, list[float]]]] = []

    def write(tmps: list[Path]) -> None:
        files = (tmps[0], tmps[1], tmps[2])
        figures.extend(_core.write_results(rows.unit_files(), files, axes, list(by), wanted(kind)))
        if csv:
            write_rows_csv(tmps[0], tmps[3])

    write_all_atomically([out / n for n in names], write)
    return [
        summarize_figures(dict(zip(by, first, strict=True)), n, values, kind)
        for first, n, values in figures
    ]


def write_rows_csv(parquet: Path, path: Path) -> None:
    """The rows of the Parquet file `parquet` as CSV, a row group at a time."""
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    rows = pq.ParquetFile(parquet)
    with pa_csv.CSVWriter(path, rows.schema_arrow) as w:
        for i in range(rows.num_row_groups):
            w.write_table(rows.read_row_group(i))


def write_csv(path: Path, records: Sequence[dict[str, Any]], columns: Sequence[str]) -> None:
    """Records as CSV, a missing value (None, NaN) as an empty cell."""

    def cell(v: Any) -> Any:
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else v

    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv_text.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in records:
            w.writerow([cell(r.get(c)) for c in columns])
