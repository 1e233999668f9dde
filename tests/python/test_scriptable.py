"""Scripting dtlsim: the Python API, `--set` words and lists, the `scenario`
commands, and sweeps whose points the simulator cannot run."""

from __future__ import annotations

import pandas as pd
import pytest

import dtlsim
from dtlsim.scenario import ScenarioError, load_scenario, parse_override

# exp2's grid at BO 4, SO 3: BI = 2 SD holds the active periods of two
# coordinators, so 2 hops run and 3 do not
BEACON_GRID = {
    "topology.hops": [2, 3],
    "topology.pdr": 1.0,
    "mac.beacon.beacon_order": 4,
    "mac.beacon.superframe_order": 3,
}


def test_exp2s_infeasible_points_are_refused_by_scenario_check(cli):
    found = cli.json("scenario", "check", "exp2-beacon")
    assert found["points"] == 120
    not_run = found["not_run"]
    # hops x SD > BI: at BO 4 and SO 3 (BI = 2 SD), 3 and 4 hops, both PDRs
    assert {(p["topology.hops"], p["mac.beacon.beacon_order"], p["mac.beacon.superframe_order"])
            for p in not_run} == {(3, 4, 3), (4, 4, 3)}  # fmt: skip
    assert len(not_run) == 4
    assert all("active periods" in p["why"] for p in not_run)
    text = cli("scenario", "check", "exp2-beacon")
    assert "116 of 120 point(s) run" in text


def test_a_sweep_skips_the_points_that_cannot_run_before_any_starts(cli, tmp_path):
    sets = [a for k, v in BEACON_GRID.items() for a in ("--set", f"{k}={v}")]
    out = cli("run", "exp2-beacon", "--replications", "1", "--out", str(tmp_path), *sets)
    assert "1 point(s) the simulator cannot run" in out
    assert "topology.hops=3" in out
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert list(summary["topology.hops"]) == [2, 3]
    assert summary.not_run.isna().tolist() == [True, False]
    assert summary.n_rows.tolist()[1] == 0
    # no unit of the refused point was planned or written
    assert len(list((tmp_path / "units").iterdir())) == 1


def test_a_sweep_with_no_point_that_can_run_is_refused_before_work(cli, tmp_path):
    out = cli("run", "exp2-beacon", "--replications", "1", "--out", str(tmp_path),
              "--set", "topology.hops=3", "--set", "topology.pdr=1.0",
              "--set", "mac.beacon.beacon_order=4", "--set", "mac.beacon.superframe_order=3",
              code=2)  # fmt: skip
    assert "no point of the sweep can run" in out and "the point: beacon-enabled MAC" in out
    assert not (tmp_path / "units").exists()


def test_exp6_overhead_is_closed_form_and_run_says_so(cli, tmp_path):
    sc = load_scenario("exp6-overhead")
    assert not sc.simulated
    # what the file sweeps is what its closed form reads
    assert set(sc.axes()) == {"link_security.level", "overhead.compression"}
    out = cli("run", "exp6-overhead", "--out", str(tmp_path), code=2)
    assert "nothing to simulate" in out and "dtlsim reproduce --only exp6-overhead" in out
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "assignment, value",
    [
        ("platform=telosb,openmote-cc2538", ["telosb", "openmote-cc2538"]),
        ("platform=telosb", "telosb"),
        ("dtls.version=1.3", "1.3"),  # a key that takes a name: the word, not a number
        ("topology.hops=1,2", [1, 2]),
        ("topology.hops=[1, 2]", [1, 2]),
        ("topology.pdr=0.9", 0.9),
        ('experiment.title="a, b"', "a, b"),
        ("link_security.level=none, enc-mic-32", ["none", "enc-mic-32"]),
        ('dtls.retransmission={ policy = "fixed" }', {"policy": "fixed"}),
    ],
)
def test_set_takes_plain_words_and_lists(assignment, value):
    assert parse_override(assignment)[1] == value


def test_a_plain_list_of_platforms_is_a_sweep_axis(cli):
    found = cli.json("scenario", "check", "exp1-xmac", "--set", "platform=telosb,openmote-cc2538")
    assert found["axes"]["platform"] == ["telosb", "openmote-cc2538"]


def test_errors_blame_the_override_not_the_file(cli):
    out = cli("scenario", "check", "exp1-xmac", "--set", "topology.hops=0", code=2)
    assert "--set topology.hops=0: 1 invalid value(s)" in out and "exp1-xmac.toml" not in out
    # a list value: the index of the bad value in the override's list
    out = cli("scenario", "check", "exp1-xmac", "--set", "platform=telosb,nosuch", code=2)
    assert "--set platform=telosb,nosuch:" in out and "platform[1] = 'nosuch'" in out
    # the API's mapping is blamed the same way
    with pytest.raises(ScenarioError) as e:
        dtlsim.load_scenario("exp1-xmac", {"topology.pdr": 2.0})
    assert str(e.value).startswith("override topology.pdr=2.0:")


def test_a_misspelt_key_gets_a_did_you_mean(cli, tmp_path):
    out = cli("scenario", "check", "exp1-xmac", "--set", "topology.hopz=2", code=2)
    assert "topology.hopz = 2: unknown key: did you mean 'hops'?" in out
    bad = tmp_path / "bad.toml"
    bad.write_text('[experiment]\nid = "x"\ntitle = "x"\n[mac]\nkind = "tsch"\n'
                   "[mac.tsch]\nslotframe_lenght = 101\n")  # fmt: skip
    out = cli("scenario", "check", str(bad), code=2)
    assert "bad.toml" in out and "did you mean 'slotframe_length'?" in out


def test_dtls_1_3_runs_where_the_simulator_has_it_and_is_refused_up_front_elsewhere(cli):
    """DTLS 1.3 runs in the handshakes workload and as a join
    (sessions.handshake = "dtls13"); the sessions workload's slot table sits
    in front of the 1.2 endpoint only, and a suite the 1.3 stack
    lacks is refused naming it: found by `scenario check`, not after work
    has started."""
    cli("scenario", "check", "exp1-xmac", "--set", "dtls.version=1.2,1.3")
    out = cli("scenario", "check", "exp4-sessions", "--set", "dtls.version=1.3",
              "--set", "sessions.handshake=dtls", code=2)  # fmt: skip
    assert "no point of the sweep can run" in out
    assert 'a DTLS 1.3 join is sessions.handshake = "dtls13"' in out
    out = cli("scenario", "check", "exp1-xmac", "--set", "dtls.version=1.3",
              "--set", "dtls.suite=psk-aes128-ccm", code=2)  # fmt: skip
    assert "dtls.suite = 'psk-aes128-ccm'" in out and "the DTLS 1.3 stack runs" in out


def test_scenario_list_show_and_new(cli, tmp_path):
    names = {s["name"] for s in cli.json("scenario", "list")}
    assert {"exp1-xmac", "exp2-beacon", "exp6-overhead", "tsch-100"} <= names
    assert "[mac.beacon]" in cli("scenario", "show", "exp2-beacon")
    cli("scenario", "show", "no-such-scenario", code=2)
    for mac in ("csma", "xmac", "beacon", "tsch"):
        path = tmp_path / f"{mac}.toml"
        path.write_text(cli("scenario", "new", "--mac", mac))
        found = cli.json("scenario", "check", str(path))
        assert found["points"] == 1 and found["not_run"] == []
    cli("scenario", "new", "--mac", "aloha", code=2)


def test_the_api_runs_in_memory_and_resumes_in_a_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sc = dtlsim.load_scenario("exp1-xmac", ["topology.hops=1", "topology.pdr=[1.0, 0.9]",
                                            "mac.xmac.check_interval_ms=125"])  # fmt: skip
    rows = dtlsim.run(sc, replications=2, workers=1)
    assert isinstance(rows, pd.DataFrame) and len(rows) == 4
    assert not list(tmp_path.iterdir())
    summary = dtlsim.summarize(rows)
    assert list(summary["topology.pdr"]) == [0.9, 1.0] and "not_run" not in summary
    # the same code as `dtlsim run --out`: files, and a second run reads them back
    again = dtlsim.run(sc, replications=2, workers=1, out=tmp_path / "r")
    assert (tmp_path / "r" / "results.parquet").exists()
    units = sorted((tmp_path / "r" / "units").glob("*/*.parquet"))
    stamps = [u.stat().st_mtime_ns for u in units]
    third = dtlsim.run(sc, replications=2, workers=1, out=tmp_path / "r")
    assert [u.stat().st_mtime_ns for u in units] == stamps
    pd.testing.assert_frame_equal(again, third)
    pd.testing.assert_frame_equal(rows, again)


def test_import_is_lazy():
    import subprocess
    import sys

    code = "import sys, dtlsim; print('pandas' in sys.modules, 'dtlsim.api' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_scenario_new_starts_an_edhoc_scenario(cli, tmp_path):
    text = cli("scenario", "new", "--mac", "xmac", "--hops", "1", "--handshake", "edhoc")
    assert "\n[edhoc]\n" in text and 'handshake = "edhoc"' in text
    assert "EDHOC" in text.splitlines()[0]
    path = tmp_path / "edhoc.toml"
    path.write_text(text)
    found = cli.json("scenario", "check", str(path))
    assert found["points"] == 1 and found["not_run"] == []
    # a handshake that is not one, or EDHOC outside the handshakes workload, is refused by name
    assert "--handshake 'tls'" in cli("scenario", "new", "--handshake", "tls", code=2)
    out = cli("scenario", "new", "--handshake", "edhoc", "--workload", "ping", code=2)
    assert "--handshake edhoc" in out and "--workload handshakes" in out
