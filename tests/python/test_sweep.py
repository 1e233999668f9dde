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
from dtlsim.sweep import SweepInterrupted, plan, point_key, run_sweep, unit_key

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
    one = run_sweep(POINTS, 30, runner, tmp_path / "one", workers=1, block=7).frame()
    two = run_sweep(POINTS, 30, runner, tmp_path / "two", workers=2, block=7).frame()
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

    with pytest.raises(SweepInterrupted) as stopped:
        run_sweep(POINTS, 20, flaky, tmp_path, workers=1, block=10)
    assert (stopped.value.done, stopped.value.total) == (5, 12)
    finished = sorted(p.name for p in (tmp_path / "units").glob("*/*.parquet"))
    assert len(finished) == 5
    assert not list((tmp_path / "units").glob(".*.partial"))

    again = []

    def counting(params, first, count):
        again.append((point_key(params), first))
        return runner(params, first, count)

    result = run_sweep(POINTS, 20, counting, tmp_path, workers=2, block=10).frame()
    assert len(again) == 12 - 5  # only the unfinished units ran
    fresh = run_sweep(POINTS, 20, runner, tmp_path / "fresh", workers=2, block=10).frame()
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


def _corrupt_mid_file(data: bytes, path) -> bytes:
    """`data` with one byte of the last column's values flipped: the
    footer (and so `read_metadata`) intact, the values not."""
    import pyarrow.parquet as pq

    meta = pq.read_metadata(path)
    column = meta.row_group(0).column(meta.num_columns - 1)
    start = column.dictionary_page_offset if column.has_dictionary_page else column.data_page_offset
    at = start + column.total_compressed_size - 3
    assert at < len(data) - 8 - int.from_bytes(data[-8:-4], "little")  # before the footer
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]


@pytest.mark.parametrize("damage", ["empty", "truncated", "mid-file"])
def test_a_damaged_unit_file_is_named_and_run_again(tmp_path, damage):
    whole = run_sweep(POINTS, 20, runner, tmp_path, workers=1, block=10).frame()
    victim = sorted((tmp_path / "units").glob("*/*.parquet"))[3]
    data = victim.read_bytes()
    if damage == "mid-file":
        # a unit corrupted mid-file with an intact footer
        # was taken as done, and failed only when the sweep was assembled
        victim.write_bytes(_corrupt_mid_file(data, victim))
    else:
        victim.write_bytes(b"" if damage == "empty" else data[: len(data) // 2])
    notices: list[str] = []
    again = []

    def counting(params, first, count):
        again.append(first)
        return runner(params, first, count)

    result = run_sweep(POINTS, 20, counting, tmp_path, workers=1, block=10,
                       on_notice=notices.append).frame()  # fmt: skip
    assert len(again) == 1  # only the damaged unit
    unreadable = [n for n in notices if "unreadable" in n]
    assert len(unreadable) == 1 and victim.name in unreadable[0]
    # and the user is told the run resumes, with how much of it is done
    assert [n for n in notices if n.startswith("resuming in ")] != []
    pd.testing.assert_frame_equal(result, whole)


def test_units_of_another_version_or_core_build_are_not_reused(tmp_path, monkeypatch):
    from dtlsim import provenance

    run_sweep(POINTS[:1], 10, runner, tmp_path, workers=1, block=10)
    before = unit_key(POINTS[0])
    monkeypatch.setattr(provenance, "core_build_id", lambda: "another-build")
    assert unit_key(POINTS[0]) != before
    ran = []

    def counting(params, first, count):
        ran.append(first)
        return runner(params, first, count)

    run_sweep(POINTS[:1], 10, counting, tmp_path, workers=1, block=10)
    assert ran == [0]
    monkeypatch.undo()
    monkeypatch.setattr(provenance, "__version__", "0.0.0-other")
    assert unit_key(POINTS[0]) != before


def test_keys_are_written_as_fingerprints(tmp_path):
    import json

    psk, link_key = "5ec2e75ec2e75ec2", "c0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
    points = [{"a": 1, "dtls.psk_hex": psk, "link_security.key_hex": link_key}]
    rows = run_sweep(points, 10, runner, tmp_path, workers=1, block=10).frame()
    manifest = (tmp_path / "manifest.json").read_text()
    units = b"".join(p.read_bytes() for p in (tmp_path / "units").glob("*/*.parquet"))
    for key in (psk, link_key):
        assert key not in manifest
        assert key.encode() not in units
        assert key not in rows.to_csv()
    assert "dtls.psk_hex" not in rows.columns
    shown = rows["dtls.psk_fingerprint"].iloc[0]
    assert (
        shown.startswith("sha256:")
        and shown == json.loads(manifest)["points"][0]["params"]["dtls.psk_fingerprint"]
    )
    assert rows["link_security.key_fingerprint"].iloc[0] != shown


def test_a_write_cut_short_leaves_the_old_file_whole(tmp_path):
    from dtlsim.atomic import write_atomically

    path = tmp_path / "results.csv"
    path.write_text("a,b\n1,2\n")

    def killed_midway(tmp):
        tmp.write_text("a,b\n1,")
        raise KeyboardInterrupt  # as a signal would, between two writes

    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, killed_midway)
    assert path.read_text() == "a,b\n1,2\n"
    assert list(tmp_path.iterdir()) == [path]


def test_two_writers_of_one_file_never_share_a_temporary_file(tmp_path):
    """Two runs on one `--out` wrote the same `.partial`
    name, so one renamed or removed the other's half-written file. Both
    writers are held inside their write at once; each must get a file of
    its own, and the result is one writer's whole file."""
    from dtlsim.atomic import write_atomically

    path = tmp_path / "summary.csv"
    both_inside = threading.Barrier(2, timeout=30)
    temporaries: list[str] = []
    errors: list[BaseException] = []

    def writer(text: str) -> None:
        def write(tmp):
            temporaries.append(tmp.name)
            tmp.write_text(text)
            both_inside.wait()  # the other writer is mid-write too

        try:
            write_atomically(path, write)
        except BaseException as e:  # reported by the assert below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(t,)) for t in ("a\n" * 100, "b\n" * 100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(set(temporaries)) == 2
    assert all(n.startswith(".") and n.endswith(".partial") for n in temporaries)
    assert path.read_text() in ("a\n" * 100, "b\n" * 100)
    assert list(tmp_path.iterdir()) == [path]
