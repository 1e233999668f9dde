"""The core's tidy form (`unit_files::tidy`, through `_core.tidy_columns`)
against a melt written out here and put in order by Arrow's stable sort:
the same rows in the same order, out-of-order and repeated run rows, null
keys, text Arrow orders by its bytes and integers past 2**53 included."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pytest

from dtlsim import _core, arrays
from dtlsim.tidy_rows import tidy


def wide_rows(seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    n = 40
    energy = rng.random(n) * 100
    energy[rng.random(n) < 0.2] = np.nan  # a node without a value in some rows
    success = rng.random(n) < 0.7
    return pa.table(
        {
            "point_key": pa.array(rng.choice(["b7", "a1", "a10", "é2"], n).tolist()),
            "topology.hops": pa.array(rng.integers(1, 4, n)),
            "platform": pa.array(rng.choice(["telosb", "wismote"], n).tolist()),
            "replication": pa.array(rng.integers(0, 6, n)),  # repeats: ties keep their order
            "index": pa.array(rng.integers(0, 3, n)),
            "duration_s": pa.array(rng.random(n) * 10),
            "success": pa.array(success),
            "outcome": pa.array(rng.choice(["ok", "timeout"], n).tolist()),
            "node1_energy_uj": pa.array(energy, from_pandas=True),
            "node0_energy_uj": pa.array(rng.random(n)),
            "node0_frames": pa.array(rng.integers(0, 50, n)),
        }
    )


def melted(rows: pa.Table, axes: list[str]) -> list[dict]:
    """The tidy rule written out: the measured columns (numbers and yes/no,
    not a parameter nor the row's identity) a value at a time, in Arrow's
    stable order of the row's identity, then node (the whole run first)."""
    ids = [c for c in dict.fromkeys(["point_key", *axes, "replication", "index"])
           if c in rows.column_names]  # fmt: skip
    records = []
    for field in rows.schema:
        c, t = field.name, field.type
        if c in ids or "." in c or c == "platform":
            continue
        if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)):
            continue
        m = re.match(r"^node(\d+)_(.+)$", c)
        node, quantity = (int(m[1]), m[2]) if m else (None, c)
        for i, v in enumerate(rows.column(c).to_pylist()):
            if v is None or v != v:
                continue
            record = {k: rows.column(k)[i].as_py() for k in ids}
            records.append(record | {"node": node, "quantity": quantity, "value": float(v)})
    long = pa.Table.from_pylist(records)
    by = [(c, "ascending") for c in ("point_key", "replication", "index") if c in ids]
    return long.sort_by([*by, ("node", "ascending", "at_start")]).to_pylist()


def core_tidy(rows: pa.Table, axes: list[str]) -> list[dict]:
    columns, _ = _core.tidy_columns(arrays.columns(rows), axes)
    return arrays.table(columns).to_pylist()


@pytest.mark.parametrize("seed", range(5))
def test_the_cores_order_is_arrows_stable_sort(seed):
    rows = wide_rows(seed)
    axes = ["topology.hops", "platform"]
    got = core_tidy(rows, axes)
    assert got == melted(rows, axes)
    assert len(got) > rows.num_rows  # it did melt


def test_a_null_key_goes_last():
    rows = wide_rows(0).set_column(3, "replication", pa.array([None, *range(39)], pa.int64()))
    assert core_tidy(rows, []) == melted(rows, [])


def test_text_in_byte_order_and_integers_past_2_53_exactly():
    rows = pa.table(
        {
            "point_key": ["a\0", "a", "é", "z"],
            "replication": pa.array([2**53 + 1, 2**53, 0, 1], pa.int64()),
            "x": [1.0, 2.0, 3.0, 4.0],
        }
    )
    got = core_tidy(rows, [])
    assert got == melted(rows, [])
    assert [r["point_key"] for r in got] == ["a", "a\0", "z", "é"]


def test_a_data_frame_melts_with_node_a_nullable_integer_and_quantity_a_category():
    rows = wide_rows(1)
    long = tidy(rows.to_pandas(), ["topology.hops"])
    assert str(long["node"].dtype) == "Int64"
    # the categories in the order of the wide columns
    assert list(long["quantity"].cat.categories) == ["duration_s", "success", "energy_uj", "frames"]


def test_the_tidy_file_keeps_each_points_dictionary_as_built(tmp_path):
    # the quantities of a point's columns in their order, one no row has
    # included (`gap_s`), as pyarrow wrote them; a reader gets them back so
    rows = pa.table(
        {
            "point_key": ["p", "p"],
            "replication": pa.array([0, 1], pa.int64()),
            "index": pa.array([0, 0], pa.int64()),
            "node0_energy_uj": [1.0, 2.0],
            "gap_s": pa.array([None, None], pa.float64()),
            "success": [True, False],
        }
    )
    units, nodes = tmp_path / "u.parquet", tmp_path / "n.parquet"
    _core.write_unit(arrays.columns(rows), units)
    _core.write_unit(arrays.columns(pa.table({"node": pa.array([0], pa.int64())})), nodes)
    files = (tmp_path / "r.parquet", tmp_path / "t.parquet", tmp_path / "nodes.parquet")
    _core.write_results([([units], [nodes]), ([units], [nodes])], files, [], ["point_key"], [])
    import pyarrow.parquet as pq

    quantity = pq.read_table(files[1]).column("quantity")
    assert quantity.num_chunks == 2  # a row group per point
    for chunk in quantity.chunks:
        assert chunk.dictionary.to_pylist() == ["energy_uj", "gap_s", "success"]
    assert quantity.to_pylist() == ["success", "energy_uj"] * 4
