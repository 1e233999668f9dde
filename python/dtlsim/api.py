"""The Python API: a scenario in, a pandas DataFrame out, from a script or a notebook.

The same functions the command line uses underneath (`dtlsim.scenario`,
`dtlsim.runner`): `run` is `dtlsim run` without the printing, in memory
unless given a directory, where it writes and resumes exactly as the
command does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from dtlsim import keys, plan, runner
from dtlsim import scenario as scenarios
from dtlsim.scenario import Scenario

if TYPE_CHECKING:
    from dtlsim.tuner import Tuning

NOT_RUN_ATTR = "not_run"
"""`DataFrame.attrs` key of `run`'s rows: the points that could not run (sweep values, why)."""


def load_scenario(
    path_or_name: str | Path, overrides: Mapping[str, Any] | Sequence[str] | None = None
) -> Scenario:
    """A checked scenario: a file, or a shipped scenario by name (`"exp1-xmac"`),
    with overrides as a {dotted key: value} mapping (a list makes a sweep axis)
    or `--set`-style `"key.path=value"` strings. A bad value raises
    `dtlsim.scenario.ScenarioError` naming the file or override, the key, the
    value and what is allowed."""
    return scenarios.load_scenario(path_or_name, overrides)


def run(
    scenario: Scenario | str | Path,
    replications: int | None = None,
    workers: int | None = None,
    out: str | Path | None = None,
    quick: bool = False,
) -> pd.DataFrame:
    """`run_with_nodes` without the per-node table: the result rows."""
    return run_with_nodes(scenario, replications, workers, out, quick)[0]


def run_with_nodes(
    scenario: Scenario | str | Path,
    replications: int | None = None,
    workers: int | None = None,
    out: str | Path | None = None,
    quick: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Simulate every point of the scenario's sweep × `replications` (default:
    the scenario's, or its quick count with `quick`) on `workers` threads
    (default: the cores). Returns the result rows, one per handshake, ping,
    frame or report, with every parameter as a column; `summarize` turns them
    into one row per point. With `out`, the rows and summary are also written
    there and a run started again resumes. Points the simulator cannot run are
    skipped and listed in `rows.attrs["not_run"]`.

    Returns (rows, nodes): `nodes` is the per-node table, one row per node
    and result row (`point_key`, `replication`, `index`, `node`, every
    parameter) with what the node did over that row's interval: energy by
    state, frames, MAC drops, application packets, mean power and lifetime
    on the platform's battery (columns in the scenarios page of the
    documentation).
    A result row's network totals are the sums of its nodes' rows."""
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    n = runner.replications_of(sc, replications, quick)
    if n < 1:
        raise ValueError(f"replications = {n}: must be >= 1")
    target = None if out is None else Path(out)
    refused: list[plan.NotRun] = []
    ran = runner.run(sc, target, n, workers, on_not_run=refused.extend)
    rows = ran.rows.frame()
    rows.attrs["axes"] = list(sc.axes())
    rows.attrs[NOT_RUN_ATTR] = [r.values | {"why": r.why} for r in refused]
    assert ran.rows.nodes is not None, "runner.run keeps the per-node table"
    nodes = ran.rows.nodes.frame()
    nodes.attrs["axes"] = list(sc.axes())
    return rows, nodes


def summarize(rows: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per point of `run`'s rows (or per group of `by` columns): the
    success rate with its Wilson interval, each metric's mean with its 95 % t
    interval over the successful rows, and `not_run` rows for points that did
    not run. Columns are described in the documentation's report page."""
    if rows.empty:
        raise ValueError("no rows to summarize")
    kinds = rows[keys.WORKLOAD_KIND].unique()
    if len(kinds) != 1:
        raise ValueError(f"rows of several workloads ({', '.join(kinds)}): summarize each")
    axes = list(by) if by is not None else rows.attrs.get("axes") or _varying(rows)
    summary = runner.summarize_rows(rows, axes or ["point_key"], str(kinds[0]))
    refused = [
        plan.NotRun({k: r[k] for k in axes if k in r}, r["why"])
        for r in rows.attrs.get(NOT_RUN_ATTR, [])
    ]
    return plan.mark(summary, refused)


def tidy(rows: pd.DataFrame) -> pd.DataFrame:
    """`run`'s rows in tidy form: one row per run row, node and quantity
    (columns: the sweep axes, `point_key`, `replication`, `index`, `node`,
    `quantity`, `value`), so `groupby([..., "node", "quantity"])` just works.
    `node` is missing for a measurement of the whole run (`duration_s`)."""
    from dtlsim.tidy_rows import tidy as melt

    return melt(rows, rows.attrs.get("axes") or _varying(rows))


def tune(
    scenario: str | Path,
    objective: str = "time",
    initial_s: Sequence[float] = (1.0, 2.0, 5.0, 9.0, 20.0),
    backoffs: Sequence[str] = ("fixed", "doubling"),
    random_factors: Sequence[float] = (1.5,),
    overrides: Mapping[str, Any] | Sequence[str] | None = None,
    replications: int | None = None,
    workers: int | None = None,
    quick: bool = False,
) -> Tuning:
    """`dtlsim tune` without the printing: every candidate retransmission
    timer (initial timer in seconds × back-off for DTLS; ACK_TIMEOUT ×
    ACK_RANDOM_FACTOR for EDHOC's CoAP) on every point of the scenario.
    Returns a `Tuning`: `.table` (a row per point, protocol and candidate:
    success rate with its Wilson interval, time and energy, spurious
    retransmissions, expected time and energy to a completed handshake) and
    `.best` (per point and protocol, the candidate minimising `objective`,
    "time" or "energy"). A bad option raises `dtlsim.tuner.TuneError`."""
    from dtlsim.tuner import tune as run_tuner

    return run_tuner(
        scenario, objective, initial_s, backoffs, random_factors, overrides, replications,
        workers, quick,
    )  # fmt: skip


def _varying(rows: pd.DataFrame) -> list[str]:
    """The parameter columns (dotted keys and `platform`) that take several values."""
    params = [c for c in rows.columns if "." in c or c == "platform"]
    return [c for c in params if rows[c].nunique(dropna=False) > 1]
