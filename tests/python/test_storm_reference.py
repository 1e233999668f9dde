"""The 6TiSCH simulator's join runs beside the storm (reference/6tisch-simulator):
a run file is read or refused naming the file and the line, the table's
figures are the ones worked out by hand from a small fixture, the shipped
runs read, and the positions shipped beside them are the storm's own."""

from __future__ import annotations

import csv
import math

import pytest

import dtlsim
from dtlsim import resources
from dtlsim.experiments import storm_reference, tsch_storm
from dtlsim.scenario import variant

HEADER = (
    "# 6tisch-simulator run: seed=7 nodes=5 simulated_s=3600 wall_s=12.5 cpu_s=10.5 max_rss_mb=70 "
    "started=2026-11-29T06:00:00Z commit=f2b0995b8859518e9f6987bbb8200c8c692d7630\n"
    "# node synced_s joined_s desyncs\n"
)
# four pledges: three joined (after 10, 20 and 30 s of synchronisation), one never
GOOD = HEADER + "1 100.0 110.0 0\n2 50.0 70.0 1\n3 300.0 330.0 0\n4 400.0 - 2\n"


def write(tmp_path, text, name="seed-7.joins"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_run_file_is_read_as_written(tmp_path):
    run = storm_reference.read_run(write(tmp_path, GOOD))
    assert (run.seed, run.nodes, run.simulated_s, run.wall_s) == (7, 5, 3600.0, 12.5)
    assert run.commit.startswith("f2b0995b")
    assert list(run.joins.node) == [1, 2, 3, 4]
    assert run.joins.joined_s.iloc[1] == 70.0 and math.isnan(run.joins.joined_s.iloc[3])
    assert list(run.joins.desyncs) == [0, 1, 0, 2]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("node synced joined\n" + GOOD, 1, "first line must start"),
        (HEADER.replace("wall_s=12.5 ", ""), 1, "missing wall_s"),
        (HEADER.replace("seed=7", "seed=seven"), 1, "malformed"),
        (GOOD.replace("seed=7", "seed=9"), 1, "named for seed 7"),
        (GOOD.replace("2 50.0 70.0 1", "2 50.0 7O.0 1"), 4, "joined_s = '7O.0'"),
        (GOOD.replace("2 50.0 70.0 1", "2 50.0 40.0 1"), 4, "before synchronising"),
        (GOOD.replace("3 300.0 330.0 0", "3 300.0 3700.0 0"), 5, "outside [0, 3600] s"),
        (GOOD.replace("4 400.0 - 2", "9 400.0 - 2"), 6, "not a pledge 1..4"),
        (GOOD.replace("4 400.0 - 2", "4 400.0 -"), 6, "3 fields, expected 4"),
        (GOOD.replace("4 400.0 - 2\n", ""), 5, "3 pledge lines, expected each of 1..4 once"),
        (GOOD.replace("4 400.0 - 2", "3 400.0 - 2"), 6, "node 3 again"),
    ],
)
def test_a_malformed_run_file_is_refused_naming_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as e:
        storm_reference.read_run(path)
    assert f"{path}:{line}: " in str(e.value), str(e.value)
    assert words in str(e.value), str(e.value)


def test_the_share_rule_is_the_storms():
    # ceil(share x pledges)-th earliest: of 4 pledges, 50 % is the 2nd, 90 %
    # the 4th (not reached: 3 joined)
    assert storm_reference.time_to_share([110.0, 70.0, 330.0, math.nan], 4, 0.5) == 110.0
    assert storm_reference.time_to_share([110.0, 70.0, 330.0, math.nan], 4, 0.75) == 330.0
    assert math.isnan(storm_reference.time_to_share([110.0, 70.0, 330.0, math.nan], 4, 0.9))


def test_the_reference_rows_of_a_small_fixture(tmp_path):
    write(tmp_path, GOOD)
    # a second run: every pledge joined, at 40, 60, 80, 100 s, 5 s after syncing
    second = HEADER.replace("seed=7", "seed=8").replace("wall_s=12.5", "wall_s=7.5") + (
        "1 35.0 40.0 0\n2 55.0 60.0 0\n3 75.0 80.0 0\n4 95.0 100.0 0\n"
    )
    write(tmp_path, second, "seed-8.joins")
    write(tmp_path, "not a run", "README.md")
    frame = storm_reference.reference_rows(storm_reference.reference_runs(tmp_path))
    assert list(frame.columns) == storm_reference.COLUMNS
    first, other, pooled = (frame.iloc[i] for i in range(3))
    assert (first.run, first.schedule, first.pledges) == ("seed 7", "MSF", 4)
    assert first["share joined in the hour"] == 0.75
    assert first["50 % joined (s)"] == 110.0
    assert math.isnan(first["90 % joined (s)"]) and math.isnan(first["99 % joined (s)"])
    assert first["mean join exchange (s)"] == pytest.approx(20.0)  # (10 + 20 + 30) / 3
    assert (first["wall time (s)"], first["CPU time (s)"]) == (12.5, 10.5)
    assert first["wall time measured"] == "whole process"
    assert other["99 % joined (s)"] == 100.0 and other["mean join exchange (s)"] == 5.0
    # pooled: 8 pledges, 7 joined at 40 60 70 80 100 110 330; the 4th earliest is 80
    assert (pooled.run, pooled.pledges) == ("2 seeds pooled", 8)
    assert pooled["share joined in the hour"] == 7 / 8
    assert pooled["50 % joined (s)"] == 80.0
    assert pooled["90 % joined (s)"] != pooled["90 % joined (s)"]  # 8th not joined: NaN
    assert pooled["mean join exchange (s)"] == pytest.approx((60 + 20) / 7)
    assert (pooled["wall time (s)"], pooled["CPU time (s)"]) == (10.0, 10.5)


def test_a_directory_without_runs_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no 6TiSCH simulator run"):
        storm_reference.reference_runs(tmp_path)


def test_the_shipped_runs_read_and_state_their_source():
    runs = storm_reference.reference_runs()
    assert len(runs) >= 5
    assert len({r.seed for r in runs}) == len(runs)
    for r in runs:
        assert (r.nodes, r.simulated_s) == (100, 3600.0)
        assert r.commit == "f2b0995b8859518e9f6987bbb8200c8c692d7630"
        assert r.wall_s > 0 and r.cpu_s > 0
    readme = (resources.reference_dir("6tisch-simulator") / "README.md").read_text()
    assert "f2b0995b8859518e9f6987bbb8200c8c692d7630" in readme


def test_the_shipped_positions_are_the_storms_own():
    # the 100-node storm with the shipped positions given runs exactly as with
    # the positions it draws from its seed: they are the graph the 6TiSCH
    # simulator was given
    path = resources.reference_dir("6tisch-simulator") / "positions.csv"
    with path.open() as f:
        positions = [{"x_m": float(r["x_m"]), "y_m": float(r["y_m"])} for r in csv.DictReader(f)]
    assert len(positions) == 100
    base = dtlsim.load_scenario("tsch-storm-1000", ["sessions.handshake=cojp"])
    drawn = variant(base, tsch_storm.SMALL)
    given = variant(drawn, {"topology.positions": positions})
    a = dtlsim.run(drawn, replications=1, workers=1)
    b = dtlsim.run(given, replications=1, workers=1)
    cols = ["secured_share", "secured_50_s", "secured_99_s", "handshake_s", "energy_per_node_uj"]
    assert a[cols].equals(b[cols]), (a[cols], b[cols])
