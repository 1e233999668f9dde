"""Sweeps on a Dask cluster: a LocalCluster of two worker processes gives the
rows and files the local runner gives for the same seed, and a sweep stopped
after some units resumes without losing or running again a finished one."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from distributed import Client, LocalCluster

from dtlsim import plan, simulation
from dtlsim.scenario import load_scenario
from dtlsim.sweep import Pool, SweepInterrupted, run_sweep

DTLSIM = Path(sys.executable).parent / "dtlsim"
REPLICATIONS = 6
BLOCK = 2  # 3 units a point, 6 in all: room to stop mid-way


@pytest.fixture(scope="module")
def csma(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("csma") / "csma.toml"
    text = subprocess.run(
        [str(DTLSIM), "scenario", "new", "--mac", "csma", "--hops", "1"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


def cluster_pool(client: Client) -> Pool:
    return Pool(client.get_executor(pure=False), 4)


def points(csma: Path) -> list[dict]:
    sc = load_scenario(csma, ["topology.hops=[1,2]"])
    runnable, _ = plan.split(sc, list(sc.points()))
    return runnable


def sweep(csma: Path, out: Path | None, pool: Pool | None = None, on_progress=None):
    return run_sweep(
        points(csma), REPLICATIONS, simulation.run_unit, out, workers=1, block=BLOCK,
        on_progress=on_progress, pool=pool,
    ).frame()  # fmt: skip


def test_a_cluster_gives_the_local_rows(csma, client, tmp_path):
    local = sweep(csma, tmp_path / "local")
    remote = sweep(csma, tmp_path / "dask", cluster_pool(client))
    assert len(local) == 2 * REPLICATIONS
    pd.testing.assert_frame_equal(local, remote, check_exact=True)
    # and the unit files are the same bytes
    local_units = sorted((tmp_path / "local" / "units").glob("*/*.parquet"))
    assert len(local_units) == 6
    for f in local_units:
        name = f.relative_to(tmp_path / "local")
        assert f.read_bytes() == (tmp_path / "dask" / name).read_bytes()


def test_a_sweep_stopped_on_the_cluster_resumes_without_loss_or_repeat(csma, client, tmp_path):
    reference = sweep(csma, None)
    out = tmp_path / "r"
    stop_after = 2

    def stop(done: int, total: int) -> None:
        if done == stop_after:  # as Ctrl-C would, between two finished units
            raise KeyboardInterrupt

    with pytest.raises(SweepInterrupted) as e:
        sweep(csma, out, cluster_pool(client), on_progress=stop)
    assert (e.value.done, e.value.total) == (stop_after, 6)
    kept = {p.relative_to(out): p.stat().st_mtime_ns for p in (out / "units").glob("*/*.parquet")}
    assert len(kept) == stop_after

    seen = []
    rows = sweep(csma, out, cluster_pool(client), on_progress=lambda d, t: seen.append(d))
    assert seen[0] == stop_after  # the kept units count as done, not run again
    units = {p.relative_to(out): p.stat().st_mtime_ns for p in (out / "units").glob("*/*.parquet")}
    assert len(units) == 6
    assert {k: units[k] for k in kept} == kept  # not rewritten
    assert not rows.duplicated(["point_key", "replication"]).any()
    pd.testing.assert_frame_equal(rows, reference, check_exact=True)


def test_run_on_a_local_cluster_writes_the_files_of_a_local_run(csma, tmp_path):
    def run(out: Path, *extra: str) -> None:
        done = subprocess.run(
            [str(DTLSIM), "run", str(csma), "--set", "topology.hops=[1,2]",
             "--replications", "3", "--workers", "2", "--out", str(out), *extra],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

    run(tmp_path / "local")
    run(tmp_path / "dask", "--dask", "local")
    for name in ("results.parquet", "results_tidy.parquet", "summary.csv"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes()


def test_a_bad_cluster_address_is_refused_before_any_work(csma, tmp_path):
    done = subprocess.run(
        [str(DTLSIM), "run", str(csma), "--dask", "host:8786", "--out", str(tmp_path / "o")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--dask host:8786" in done.stderr and "tcp://host:port" in done.stderr
