"""The sweep machinery: resumable, order- and worker-independent.

The unit runner here is a deterministic function of (parameters, replication),
standing in for the simulator so the bookkeeping is tested on its own.
"""

from __future__ import annotations

import random
import threading

import pandas as pd
import pyarrow as pa
import pytest

from dtlsim.stats import mean_ci95, summarize
from dtlsim.sweep import plan, point_key, run_sweep

POINTS = [{"a": a, "b": b} for a in (1, 2, 3) for b in ("x", "y")]


def runner(params, first, count):
    rows = []
    for rep in range(first, first + count):
        rng = random.Random(f"{point_key(params)}:{rep}")
        rows.append({"replication": rep, "index": 0, "value": params["a"] + rng.random()})
    return pa.Table.from_pylist(rows)


def test_plan_cuts_replications_into_blocks():
    units = plan(POINTS[:1], 120, block=50)
    assert [(u.first, u.count) for u in units] == [(0, 50), (50, 50), (100, 20)]
    assert len({u.file_name for u in plan(POINTS, 120, block=50)}) == 6 * 3


def test_worker_count_and_order_do_not_change_results(tmp_path):
    one = run_sweep(POINTS, 30, runner, tmp_path / "one", workers=1, block=7)
    two = run_sweep(POINTS, 30, runner, tmp_path / "two", workers=2, block=7)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 6 * 30
    assert set(one.columns) >= {"point_key", "replication", "value", "a", "b"}


def test_interrupted_sweep_resumes_without_redoing_finished_units(tmp_path):
    calls = []
    lock = threading.Lock()

    def flaky(params, first, count):
        with lock:
            calls.append((point_key(params), first))
            if len(calls) > 5:
                raise KeyboardInterrupt("stopped by the user")
        return runner(params, first, count)

    with pytest.raises(KeyboardInterrupt):
        run_sweep(POINTS, 20, flaky, tmp_path, workers=1, block=10)
    finished = sorted(p.name for p in (tmp_path / "units").glob("*.arrow"))
    assert len(finished) == 5
    assert not list((tmp_path / "units").glob("*.tmp"))

    again = []

    def counting(params, first, count):
        again.append((point_key(params), first))
        return runner(params, first, count)

    result = run_sweep(POINTS, 20, counting, tmp_path, workers=2, block=10)
    assert len(again) == 12 - 5  # only the unfinished units ran
    fresh = run_sweep(POINTS, 20, runner, tmp_path / "fresh", workers=2, block=10)
    pd.testing.assert_frame_equal(result, fresh)


def test_mean_and_confidence_interval_by_hand():
    mean, lo, hi, n = mean_ci95(pd.Series([1.0, 2.0, 3.0, 4.0]))
    # s = 1.2910, t(3) = 3.1824: half width = 3.1824 · 1.2910 / 2 = 2.054
    assert (mean, n) == (2.5, 4)
    assert hi - mean == pytest.approx(3.1824463 * 1.2909944 / 2, rel=1e-6)
    assert mean - lo == pytest.approx(hi - mean)
    s = summarize(pd.DataFrame({"g": [1, 1, 2, 2], "v": [1.0, 3.0, 5.0, 5.0]}), ["g"], ["v"])
    assert list(s.v_mean) == [2.0, 5.0]
    assert s.v_ci_low.iloc[1] == s.v_ci_high.iloc[1] == 5.0
