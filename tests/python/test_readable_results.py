"""What `dtlsim run` shows and writes: a narrow summary on the screen, the
wide rows and their tidy form on disk, no columns of MACs that did not run."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import dtlsim
from dtlsim.brief import brief, headings, with_interval
from dtlsim.tidy_rows import tidy

REPO = Path(__file__).resolve().parents[2]
DTLSIM = Path(sys.executable).parent / "dtlsim"


def test_a_mean_is_shown_with_its_interval_and_nothing_without_a_mean():
    assert with_interval(12.345, 11.0, 13.6) == "12.3 [11, 13.6]"
    assert with_interval(12345.0, 11000.0, 13600.0, 1e-3) == "12.3 [11, 13.6]"
    assert with_interval(4.78, math.nan, math.nan) == "4.78"
    assert with_interval(math.nan, math.nan, math.nan) == "-"


def test_axes_are_named_by_their_last_part_unless_two_share_it():
    assert headings(["topology.hops", "mac.xmac.check_interval_ms"]) == {
        "topology.hops": "hops",
        "mac.xmac.check_interval_ms": "check_interval_ms",
    }
    assert headings(["a.level", "b.level"]) == {"a.level": "a.level", "b.level": "b.level"}


def test_the_brief_summary_holds_axes_rate_and_headline_metrics_only():
    summary = pd.DataFrame(
        {
            "topology.hops": [1, 2],
            "success_rate": [1.0, 0.5],
            "success_ci_low": [0.8, 0.3],
            "success_ci_high": [1.0, 0.7],
            "n_rows": [20, 20],
            "duration_s_mean": [1.5, 3.0],
            "duration_s_ci_low": [1.4, 2.0],
            "duration_s_ci_high": [1.6, 4.0],
            "client_energy_uj_mean": [12000.0, 30000.0],
            "client_energy_uj_ci_low": [11000.0, 20000.0],
            "client_energy_uj_ci_high": [13000.0, 40000.0],
            "dtls_retransmissions_mean": [0.1, 2.0],
            "few_successes": [False, False],
        }
    )
    rows = brief(summary.to_dict("records"), ["topology.hops"], "handshakes")
    assert list(rows[0]) == ["hops", "n", "success", "duration s", "client mJ"]
    assert rows[1] == {
        "hops": 2,
        "n": 20,
        "success": "0.5 [0.3, 0.7]",
        "duration s": "3 [2, 4]",
        "client mJ": "30 [20, 40]",
    }


def test_a_point_that_did_not_run_says_why_in_the_brief_summary():
    summary = pd.DataFrame(
        {"topology.hops": [3], "n_rows": [0], "not_run": ["beacon order too small"]}
    )
    (row,) = brief(summary.to_dict("records"), ["topology.hops"], "handshakes")
    assert row == {"hops": 3, "n": 0, "success": "not run: beacon order too small"}


def test_tidy_rows_are_one_per_node_and_quantity_with_the_wide_values():
    wide = pd.DataFrame(
        {
            "point_key": ["a", "a", "b"],
            "platform": ["wismote"] * 3,
            "topology.hops": [1, 1, 2],
            "mac.kind": ["csma"] * 3,
            "replication": [0, 1, 0],
            "index": [0, 0, 0],
            "success": [True, False, True],
            "failure": [None, "timeout", None],
            "duration_s": [1.5, math.nan, 2.5],
            "node0_energy_uj": [10.0, 11.0, 12.0],
            "node1_energy_uj": [20.0, 21.0, 22.0],
            "node2_energy_uj": [math.nan, math.nan, 32.0],
        }
    )
    long = tidy(wide, ["topology.hops"])
    assert list(long.columns) == [
        "point_key", "topology.hops", "replication", "index", "node", "quantity", "value",
    ]  # fmt: skip
    # a parameter other than an axis, and text, are not quantities
    assert set(long.quantity) == {"success", "duration_s", "energy_uj"}
    # a value the wide row lacks is no tidy row
    assert len(long) == 3 + 2 + 3 + 3 + 1
    energy = long[long.quantity == "energy_uj"]
    per_node = energy.groupby(["topology.hops", "node"]).value.sum()
    assert per_node[(1, 0)] == 21.0 and per_node[(2, 2)] == 32.0
    whole_run = long[long.node.isna()]
    assert set(whole_run.quantity) == {"success", "duration_s"}
    assert whole_run[whole_run.quantity == "success"].value.tolist() == [1.0, 0.0, 1.0]


@pytest.fixture(scope="module")
def csma_scenario(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("csma") / "csma.toml"
    text = subprocess.run(
        [str(DTLSIM), "scenario", "new", "--mac", "csma", "--hops", "1"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    path.write_text(text, encoding="utf-8")
    return path


def test_rows_hold_no_column_of_a_mac_that_did_not_run(csma_scenario):
    rows = dtlsim.run(dtlsim.load_scenario(csma_scenario), replications=2, workers=1)
    assert "node0_frames_sent" in rows.columns
    assert not [c for c in rows.columns if c.endswith("strobes_sent")]
    assert not [c for c in rows.columns if c.startswith("mac.") and not c.startswith("mac.csma.")
                and c != "mac.kind"]  # fmt: skip


def test_x_mac_rows_keep_their_strobe_counts():
    sc = dtlsim.load_scenario("exp1-xmac", ["topology.hops=1", "topology.pdr=1",
                                            "mac.xmac.check_interval_ms=125"])  # fmt: skip
    rows = dtlsim.run(sc, replications=1, workers=1)
    assert rows["node0_strobes_sent"].iloc[0] > 0


def test_run_prints_a_narrow_summary_and_writes_wide_and_tidy_rows(csma_scenario, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [str(DTLSIM), "run", str(csma_scenario), "--replications", "3", "--out", str(out),
         "--set", "topology.hops=[1,2]"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if "│" in line or "┃" in line]
    assert len(table) == 1 + 2  # heading and a line per point
    assert all(len(line) <= 100 for line in table), done.stdout
    heading = table[0]
    for column in ("hops", "success", "duration s", "client mJ"):
        assert column in heading
    assert "client_datagrams_sent" not in done.stdout
    assert "summary.csv" in done.stdout and "results_tidy.parquet" in done.stdout

    wide = pd.read_parquet(out / "results.parquet")
    summary = pd.read_csv(out / "summary.csv")
    assert "client_energy_uj_mean" in summary.columns  # every column is on disk
    long = pd.read_parquet(out / "results_tidy.parquet")
    energy = long[long.quantity == "energy_uj"].groupby(["topology.hops", "node"]).value.sum()
    for hops, node in energy.index:
        expected = wide.loc[wide["topology.hops"] == hops, f"node{node}_energy_uj"].sum()
        assert energy[(hops, node)] == pytest.approx(expected)
    assert sorted(energy.index) == [(1, 0), (1, 1), (2, 0), (2, 1), (2, 2)]


def test_a_sessions_run_shows_blocking_beside_engset(tmp_path):
    done = subprocess.run(
        [str(DTLSIM), "run", "exp4-sessions", "--quick", "--out", str(tmp_path / "out")],
        cwd=REPO, capture_output=True, text=True, timeout=300,
        env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if "│" in line or "┃" in line]
    for column in ("slots", "call congestion", "time congestion", "Engset call", "Engset time"):
        assert column in table[0], table[0]
    # R = 3, N = 5, ρ = 0.5: Engset's call congestion is 0.1 exactly
    r3 = next(line for line in table[1:] if line.split("│")[1].strip() == "3")
    assert r3.split("│")[-3].strip() == "0.1", r3


def test_dtlsim_tidy_stays_the_function_after_a_run_imports_its_module() -> None:
    # docs/python-api.md calls dtlsim.tidy(rows); a submodule of the same
    # name, imported by the runner, used to replace the function
    import dtlsim
    import dtlsim.runner  # imports the tidying module

    assert callable(dtlsim.tidy)
    assert dtlsim.tidy.__module__ == "dtlsim.api"
