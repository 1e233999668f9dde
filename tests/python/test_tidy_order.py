"""The tidy rows' order found in NumPy (`tidy_rows._row_order`, no
`pyarrow.compute`) is the order Arrow's stable sort gives: the same table
either way, out-of-order and repeated run rows included."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from dtlsim import tidy_rows


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
            "index": pa.array(rng.integers(0, 3, n), pa.int32()),
            "duration_s": pa.array(rng.random(n) * 10),
            "success": pa.array(success),
            "node1_energy_uj": pa.array(energy, from_pandas=True),
            "node0_energy_uj": pa.array(rng.random(n)),
            "node0_frames": pa.array(rng.integers(0, 50, n)),
        }
    )


@pytest.mark.parametrize("seed", range(5))
def test_the_numpy_order_is_arrows_stable_sort(seed, monkeypatch):
    rows = wide_rows(seed)
    axes = ["topology.hops", "platform"]
    fast = tidy_rows.tidy_table(rows, axes)
    monkeypatch.setattr(tidy_rows, "_row_order", lambda *_: None)
    by_arrow = tidy_rows.tidy_table(rows, axes)
    assert fast.schema.equals(by_arrow.schema, check_metadata=True)
    assert fast.equals(by_arrow)
    assert fast.num_rows > rows.num_rows  # it did melt


def test_a_null_key_leaves_the_order_to_arrow():
    rows = wide_rows(0).set_column(3, "replication", pa.array([None, *range(39)], pa.int64()))
    pick = np.arange(rows.num_rows)
    assert tidy_rows._row_order(rows, ["point_key", "replication"], pick, pick) is None


def test_keys_numpy_would_order_otherwise_leave_the_order_to_arrow():
    pick = np.arange(2)
    nul = pa.table({"point_key": ["a\0", "a"]})  # NumPy's strings drop a trailing NUL
    assert tidy_rows._row_order(nul, ["point_key"], pick, pick) is None
    big = pa.table({"replication": pa.array([2**53 + 1, 2**53], pa.int64())})
    assert tidy_rows._row_order(big, ["replication"], pick, pick) is None
    fine = pa.table({"point_key": ["b", "a"], "replication": pa.array([0, 1])})
    assert tidy_rows._row_order(fine, ["point_key", "replication"], pick, pick).tolist() == [1, 0]
