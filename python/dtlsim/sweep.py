"""Sweeps: every point of a scenario × its replications, in parallel, resumable.

Work is cut into units of (point, block of replications). Each finished
unit is written at once to its own Parquet file (written to a temporary name
and renamed, so a file that exists is complete); a sweep started again on
the same directory skips the units it finds. A unit file that cannot be
read (truncated, emptied) is named, removed and run again. A replication's result depends
only on (seed, replication index, parameters), never on the worker or the
order, so any number of workers gives the same files.

The units form a Hive-partitioned Parquet dataset, one directory per point:

    <out>/units/unit_key=<key>/r000000-000249.parquet

and, for a runner that also gives per-node rows (`run_sweep(..., nodes=True)`),
the same units' per-node tables beside them (a unit is finished when both are):

    <out>/node_units/unit_key=<key>/r000000-000249.parquet

`key` is the point's unit key, a digest of everything that produced the
result: the parameters (every value of the scenario for that point), the
platform file's contents, the dtlsim version and the code (Rust core build,
Python sources). When any of them changes the key changes, the unit runs
again into a new directory, and the rows of the old one are never read
again by a run (they stay until removed). `pandas.read_parquet(out /
"units")` or `pyarrow.dataset.dataset(out / "units", partitioning="hive")`
reads every unit directly, with the key as a `unit_key` column;
`manifest.json` lists the keys of the last run's points. Temporary files
start with a dot, which both readers skip. Unit directories written before
this layout held Arrow IPC files (`<key>-r….arrow`): they come from other
code, so no run reads them again, and a run says so once.

The simulator releases the GIL while it runs, so local parallelism uses
threads; `workers` defaults to the number of cores. Any other executor of
the standard interface can run the units instead (`Pool`): a Dask cluster
(`dtlsim.cluster`) runs each unit as a task and hands the rows back here,
where the core's writer stores them (`_core.write_unit`) as a local run's
worker writes its own (`run_sweep(..., writer=...)`), so a sweep begun on
one resumes on the other.

A finished sweep (`Finished`) is read back a point at a time in plan
order, so a sweep of any size is written out and summarized without all of
its rows in memory at once.

Keys are never written out: result rows and the manifest carry a
fingerprint of each key of the scenario (`SECRETS`) instead.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dtlsim import __version__, _core, keys, provenance
from dtlsim.atomic import write_all_atomically, write_atomically, write_text_atomically

# NumPy and pyarrow are imported where rows are read or handed over as
# tables: a local sweep to files, whose units the core writes and whose
# result files it makes (`dtlsim.runner.write_tables`), needs neither.
if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

# Runs replications [first, first + count) of one point; returns result
# rows, or (result rows, per-node rows) for a sweep run with `nodes=True`.
UnitRunner = Callable[[dict[str, Any], int, int], "pa.Table | tuple[pa.Table, pa.Table]"]

# Runs replications [first, first + count) of one point and writes their
# rows, with the given parameters in front, as a unit file: (point, first,
# count, params, rows path, per-node rows path).
UnitWriter = Callable[[dict[str, Any], int, int, dict[str, Any], Path, Path], None]

# Where the units' per-node tables are kept, beside `units/`.
NODE_UNITS = "node_units"

# Replications per unit: at least this many, and at most four units a point,
# so little is lost to an interruption and little time goes to small files.
MIN_BLOCK = 50
UNITS_PER_POINT = 4


# A point's keys (dotted) → the name its fingerprint is written under.
SECRETS = {
    keys.DTLS_PSK_HEX: "dtls.psk_fingerprint",
    keys.LINK_SECURITY_KEY_HEX: "link_security.key_fingerprint",
}


def fingerprint(key_hex: str) -> str:
    """Names a key without giving it away: the first 64 bits of its SHA-256."""
    try:
        key = bytes.fromhex(key_hex)
    except ValueError:  # not hex: fingerprint the text itself
        key = key_hex.encode()
    return "sha256:" + hashlib.sha256(key).hexdigest()[:16]


def public(params: dict[str, Any]) -> dict[str, Any]:
    """`params` as they may be written down: each key replaced by its fingerprint."""
    return {
        SECRETS.get(k, k): fingerprint(str(v)) if k in SECRETS else v for k, v in params.items()
    }


class SweepInterrupted(KeyboardInterrupt):
    """The sweep was stopped (Ctrl-C); the finished units are kept on disk."""

    def __init__(self, units_dir: Path, done: int, total: int):
        self.units_dir = units_dir
        self.done = done
        self.total = total
        super().__init__(f"interrupted after {done} of {total} units")


@dataclass(frozen=True)
class Pool:
    """Where units run: an executor, and how many units to keep submitted
    at once (enough to keep every worker busy, few enough that an
    interruption loses little)."""

    executor: Executor
    slots: int


def threads(workers: int | None) -> Pool:
    """The local pool: `workers` threads (default: the cores), two units each in flight."""
    workers = workers or os.cpu_count() or 1
    return Pool(ThreadPoolExecutor(max_workers=workers), workers * 2)


def block_size(replications: int) -> int:
    return max(MIN_BLOCK, math.ceil(replications / UNITS_PER_POINT))


def point_key(params: dict[str, Any]) -> str:
    """A stable name for a point: hash of its parameters in canonical JSON, the
    same on every machine and build (it is a column of every result row)."""
    text = json.dumps(params, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def unit_key(params: dict[str, Any]) -> str:
    """The name of a point's finished units: its parameters and everything else
    that produced them (`provenance.inputs`), so changed code or data re-runs them.

    The scenario enters through the parameters, which hold every value of
    the file for this point; its comments and its other points do not
    change this point's result, so widening a sweep reuses what is done."""
    keyed = {"point": point_key(params), "inputs": provenance.inputs(params)}
    text = json.dumps(keyed, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Unit:
    point: int
    key: str
    first: int
    count: int

    @property
    def file_name(self) -> str:
        """Where the unit is kept, relative to the units directory (its
        point's Hive partition, then its replications)."""
        return f"{PARTITION}={self.key}/r{self.first:06d}-{self.first + self.count - 1:06d}.parquet"


# The Hive partition column of the unit dataset: each point's unit key.
PARTITION = "unit_key"

# Unit files of dtlsim before the Parquet dataset (Arrow IPC, never read again).
OLD_UNITS = "*.arrow"


def plan(
    points: Sequence[dict[str, Any]], replications: int, block: int | None = None
) -> list[Unit]:
    block = block or block_size(replications)
    units = []
    for i, p in enumerate(points):
        key = unit_key(p)
        for first in range(0, replications, block):
            units.append(Unit(i, key, first, min(block, replications - first)))
    return units


def _write_unit(table: pa.Table, path: Path) -> None:
    """A unit's rows that came back as a table (from a cluster, or another
    runner), written by the core as it writes its own (`_core.write_unit`)."""
    from dtlsim import arrays

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, lambda tmp: _core.write_unit(arrays.columns(table), tmp))


def _damage(path: Path) -> str | None:
    """What is wrong with the unit file at `path`, or None when it is
    whole: a Parquet file whose footer reads and whose data matches the
    CRC-32 the footer holds, checked by the core that wrote it
    (`unit_files::parquet_file::damage`; units are small: reading one costs
    far less than running it)."""
    return _core.unit_damage(path)


def _complete(path: Path, on_notice: Callable[[str], None]) -> bool:
    """Whether the unit file at `path` exists and is whole (`_damage`). An
    unreadable one is named and removed, to be run again."""
    if not path.exists():
        return False
    why = _damage(path)
    if why is not None:
        on_notice(f"{path}: unreadable unit file ({why}); running that unit again")
        path.unlink(missing_ok=True)
        return False
    return True


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def run_sweep(
    points: Sequence[dict[str, Any]],
    replications: int,
    runner: UnitRunner,
    out: Path | None,
    workers: int | None = None,
    block: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_notice: Callable[[str], None] = _to_stderr,
    pool: Pool | None = None,
    nodes: bool = False,
    writer: UnitWriter | None = None,
) -> Finished:
    """Run every unit not already on disk; return the finished sweep.
    Without `out`, every unit runs and its rows stay in memory. `pool`
    runs the units (default: `workers` local threads) and is shut down after.
    With `nodes`, `runner` gives (rows, per-node rows) and the finished
    sweep's `nodes` holds the per-node rows, read back as the rows are.
    With `writer` (and `nodes`), a local sweep with `out` has each unit's
    files written by it, on the worker, instead of `runner`'s rows.

    Ctrl-C raises `SweepInterrupted` (with `out`, the finished units stay on
    disk)."""
    units = plan(points, replications, block)
    if out is None:
        kept: dict[Unit, pa.Table] = {}
        kept_nodes: dict[Unit, pa.Table] = {}

        def keep(u: Unit, result: pa.Table | tuple[pa.Table, pa.Table]) -> None:
            kept[u], node_rows = _split(result, nodes)
            if node_rows is not None:
                kept_nodes[u] = node_rows

        pool = pool or threads(workers)
        _run_units(units, _rows_with_params(points, runner), pool, on_progress, keep, 0, None)
        of_nodes = Finished(points, units, None, kept_nodes) if nodes else None
        return Finished(points, units, None, kept, of_nodes)
    units_dir = out / "units"
    nodes_dir = out / NODE_UNITS
    units_dir.mkdir(parents=True, exist_ok=True)
    old = sum(1 for _ in units_dir.glob(OLD_UNITS))
    if old:
        on_notice(
            f"{units_dir}: {old} unit file(s) of an earlier dtlsim (Arrow IPC, {OLD_UNITS}) "
            "are not read: their code differs, so their units run again as Parquet"
        )
    manifest = {
        "dtlsim_version": __version__,
        "replications": replications,
        "layout": f"units/{PARTITION}=<unit_key>/r<first>-<last>.parquet",
        "points": [
            {
                "key": point_key(p),
                "unit_key": unit_key(p),
                "params": public(p),
                "inputs": provenance.inputs(p),
            }
            for p in points
        ],
    }
    write_text_atomically(out / "manifest.json", json.dumps(manifest, indent=2, default=str))

    dirs = [units_dir, nodes_dir] if nodes else [units_dir]
    todo = [u for u in units if not all(_complete(d / u.file_name, on_notice) for d in dirs)]
    done = len(units) - len(todo)
    if done:
        on_notice(f"resuming in {out}: {done} of {len(units)} units already finished there")

    def store(u: Unit, result: pa.Table | tuple[pa.Table, pa.Table]) -> None:
        rows, node_rows = _split(result, nodes)
        if node_rows is not None:
            # the per-node table first: a unit whose rows exist is whole
            _write_unit(node_rows, nodes_dir / u.file_name)
        _write_unit(rows, units_dir / u.file_name)

    def write(u: Unit) -> None:
        assert writer is not None
        point = points[u.point]
        paths = [nodes_dir / u.file_name, units_dir / u.file_name]
        for p in paths:
            p.parent.mkdir(parents=True, exist_ok=True)
        # the per-node table renamed first: a unit whose rows exist is whole
        write_all_atomically(
            paths,
            lambda tmps: writer(point, u.first, u.count, unit_params(point), tmps[1], tmps[0]),
        )

    if writer is not None and pool is None and nodes:  # the files written where the unit ran
        _run_units(todo, write, threads(workers), on_progress, lambda u, _: None, done, units_dir)
    else:
        work = _rows_with_params(points, runner)
        _run_units(todo, work, pool or threads(workers), on_progress, store, done, units_dir)
    of_nodes = Finished(points, units, nodes_dir) if nodes else None
    return Finished(points, units, units_dir, None, of_nodes)


def _split(
    result: pa.Table | tuple[pa.Table, pa.Table], nodes: bool
) -> tuple[pa.Table, pa.Table | None]:
    """A unit's (rows, per-node rows), the latter None unless asked for."""
    if isinstance(result, tuple):
        return result if nodes else (result[0], None)
    if nodes:
        raise TypeError("run_sweep(..., nodes=True): the unit runner gave no per-node rows")
    return result, None


def _rows_with_params(
    points: Sequence[dict[str, Any]], runner: UnitRunner
) -> Callable[[Unit], pa.Table | tuple[pa.Table, pa.Table]]:
    """A unit's work: `runner`'s rows, with the point's parameters in front
    (every row carries every parameter that produced it)."""

    def work(u: Unit) -> pa.Table | tuple[pa.Table, pa.Table]:
        result = runner(points[u.point], u.first, u.count)
        params = unit_params(points[u.point])
        if isinstance(result, tuple):
            return _with_params(result[0], params), _with_params(result[1], params)
        return _with_params(result, params)

    return work


def _run_units(
    todo: Sequence[Unit],
    work: Callable[[Unit], Any],
    pool: Pool,
    on_progress: Callable[[int, int], None] | None,
    store: Callable[[Unit, Any], None],
    done: int,
    units_dir: Path | None,
) -> None:
    """Run `work` for each of `todo` on `pool`, handing each finished
    unit's result to `store` (`done` units of the sweep were finished
    before; `units_dir` is where they are kept, named when Ctrl-C
    interrupts)."""
    total = done + len(todo)
    if on_progress:
        on_progress(done, total)

    executor = pool.executor
    pending: dict[Future[Any], Unit] = {}
    try:
        queue = iter(todo)
        for u in _take(queue, pool.slots):
            pending[executor.submit(work, u)] = u
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            # units that finished are stored before one that raised (Ctrl-C
            # or a failure) ends the sweep: a set has no order of its own
            for f in sorted(finished, key=lambda f: f.exception() is not None):
                u = pending.pop(f)
                store(u, f.result())
                done += 1
                if on_progress:
                    on_progress(done, total)
                for nxt in _take(queue, 1):
                    pending[executor.submit(work, nxt)] = nxt
    except KeyboardInterrupt:
        # units not started are dropped; those running cannot be stopped
        # (the core holds no Python state): their rows are not stored, or
        # (a unit that writes its own files) its files are renamed whole
        # into place when it ends
        _cancel(pending)
        executor.shutdown(wait=False)
        if units_dir is None:
            raise
        raise SweepInterrupted(units_dir, done, total) from None
    except BaseException:
        _cancel(pending)  # a unit failed: start no other
        executor.shutdown()
        raise
    executor.shutdown()


def unit_params(point: dict[str, Any]) -> dict[str, Any]:
    """The parameters every row of a point's units carries, in front of its
    columns: its `point_key` and its public values (a list or table as its text)."""
    return {"point_key": point_key(point)} | {
        k: str(v) if isinstance(v, list | dict) else v for k, v in public(point).items()
    }


def _with_params(rows: pa.Table, params: dict[str, Any]) -> pa.Table:
    """`rows` with the `params` they lack in front (the core's rule:
    `_core.param_columns`)."""
    import pyarrow as pa

    from dtlsim import arrays

    constant = arrays.table(
        _core.param_columns(list(params.items()), rows.column_names, rows.num_rows)
    )
    return pa.table(
        constant.columns + rows.columns, names=constant.column_names + rows.column_names
    )


def _cancel(pending: Iterable[Future[Any]]) -> None:
    """Cancel the submitted units not yet started (what every executor can do)."""
    for f in pending:
        f.cancel()


def _take(it: Iterable[Unit], n: int) -> list[Unit]:
    out = []
    for u in it:
        out.append(u)
        if len(out) == n:
            break
    return out


def _read_unit(path: Path, columns: Sequence[str] | None = None) -> pa.Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        # one file, not a dataset: pyarrow.dataset would load pandas
        return pq.ParquetFile(path).read(columns=columns)
    except (pa.ArrowInvalid, OSError) as e:
        # whole at the start of the sweep, damaged since: the next run redoes it
        path.unlink(missing_ok=True)
        raise ValueError(f"{path}: unreadable unit file ({e}); removed, run again") from e


# A result row's place: point (plan order), replication, row within it
# (and, in the per-node table, its node).
ROW_ORDER = ("replication", "index", "node")


@dataclass(frozen=True)
class Finished:
    """A finished sweep: its units, on disk in `units_dir` or kept in memory
    (`kept`), read back a point at a time in plan order.

    Units of different points may have different columns (a one-hop point
    has no third node); every table read back has `schema`, the union of
    them all in first-seen order, with nulls where a point has no value.
    `nodes`: the same units' per-node tables, when the sweep made them."""

    points: Sequence[dict[str, Any]]
    units: Sequence[Unit]
    units_dir: Path | None
    kept: dict[Unit, pa.Table] | None = None
    nodes: Finished | None = None

    def _unit(self, u: Unit, columns: Sequence[str] | None = None) -> pa.Table:
        if self.kept is not None:
            t = self.kept[u]
            have = set(t.column_names)
            return t if columns is None else t.select([c for c in columns if c in have])
        assert self.units_dir is not None
        import pyarrow.parquet as pq

        path = self.units_dir / u.file_name
        if columns is None:
            return _read_unit(path)
        have = set(pq.read_schema(path).names)
        return _read_unit(path, [c for c in columns if c in have])

    @property
    def schema(self) -> pa.Schema:
        """Every column of every unit (read from the files' footers only)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self.kept is not None:
            schemas = [self.kept[u].schema for u in self.units]
        else:
            assert self.units_dir is not None
            schemas = [pq.read_schema(self.units_dir / u.file_name) for u in self.units]
        if not schemas:
            return pa.schema([])
        return pa.unify_schemas(schemas, promote_options="default").remove_metadata()

    def by_point(
        self, columns: Sequence[str] | None = None
    ) -> Iterator[tuple[dict[str, Any], pa.Table]]:
        """Each point that has units, in plan order, with its rows (all
        `columns` of `schema`, or only those named) in order of replication
        and row; one point in memory at a time."""
        import pyarrow as pa

        schema = self.schema
        if columns is not None:
            schema = pa.schema([schema.field(c) for c in columns if c in schema.names])
        of_point: dict[int, list[Unit]] = {}
        for u in self.units:
            of_point.setdefault(u.point, []).append(u)
        for i, units in of_point.items():
            table = pa.concat_tables([conform(self._unit(u, schema.names), schema) for u in units])
            order = [c for c in ROW_ORDER if c in table.column_names]
            if order and not _in_order(table, order):
                table = table.sort_by([(c, "ascending") for c in order])
            yield self.points[i], table

    def table(self, columns: Sequence[str] | None = None) -> pa.Table:
        """Every row (or every row's `columns`) in one table: for a sweep
        whose rows fit in memory; `by_point` reads one point at a time."""
        import pyarrow as pa

        tables = [t for _, t in self.by_point(columns)]
        if not tables:
            return pa.table({})
        return pa.concat_tables(tables)

    def frame(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """`table` as a pandas DataFrame."""
        return self.table(columns).to_pandas()

    def unit_files(self) -> list[tuple[list[Path], list[Path]]]:
        """Each point that has units, in plan order: its unit files (result
        rows, per-node rows), as the core makes the result files of them
        (`_core.write_results`)."""
        assert self.units_dir is not None and self.nodes is not None
        assert self.nodes.units_dir is not None
        of_point: dict[int, tuple[list[Path], list[Path]]] = {}
        for u in self.units:
            rows, nodes = of_point.setdefault(u.point, ([], []))
            rows.append(self.units_dir / u.file_name)
            nodes.append(self.nodes.units_dir / u.file_name)
        return list(of_point.values())


def _in_order(table: pa.Table, columns: Sequence[str]) -> bool:
    """Whether the rows already are in order of `columns` (no nulls), as
    they are when a point is one unit: then `sort_by`, which loads
    `pyarrow.compute` (20 ms or more of start-up), is not needed."""
    import numpy as np

    from dtlsim import arrays

    keys = [arrays.floats(table.column(c)) for c in columns]
    if any(np.isnan(k).any() for k in keys):
        return False
    # lexsort is stable: the identity exactly when no row comes before one it should follow
    order = np.lexsort(keys[::-1])
    return bool((order == np.arange(table.num_rows)).all())


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """`table` with exactly the columns of `schema`, in its order and types
    (a column the table lacks is all null)."""
    import pyarrow as pa

    n = table.num_rows
    # `column_names` builds a new list each call: looked up once, not per
    # field (a unit has some 150 columns, a sweep hundreds of units)
    have = set(table.column_names)
    columns = []
    for field in schema:
        if field.name in have:
            c = table.column(field.name)
            columns.append(c if c.type == field.type else c.cast(field.type))
        else:
            columns.append(pa.nulls(n, field.type))
    return pa.Table.from_arrays(columns, schema=schema)
