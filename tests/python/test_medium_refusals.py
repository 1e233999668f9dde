"""A medium the simulator cannot honour is refused naming the file, the key,
the value and what is allowed: a trace with fewer nodes than the scenario,
a trace missing a channel the MAC sends on, a power in mW where dBm is
taken."""

from __future__ import annotations

import pytest

from dtlsim.plan import split
from dtlsim.scenario import load_scenario
from dtlsim.schema import FileError

# a K7 trace of 3 nodes measured on channels 11 and 12 only
TINY_K7 = """\
{"node_count": 3, "channels": [11, 12], "tx_length": 100, "interframe_duration": 10, \
"start_date": "2020-01-01T00:00:00", "stop_date": "2020-01-01T01:00:00", "location": "test"}
datetime,src,dst,channel,mean_rssi,pdr,tx_count
2020-01-01T00:00:00,0,1,11,-70,0.9,100
2020-01-01T00:00:00,1,0,11,-70,0.9,100
2020-01-01T00:00:00,1,2,11,-70,0.9,100
2020-01-01T00:00:00,2,1,11,-70,0.9,100
"""


def scenario(tmp_path, mac: str, hops: int, medium: str = "") -> str:
    trace = tmp_path / "tiny.k7"
    trace.write_text(TINY_K7)
    path = tmp_path / f"{mac}-{hops}.toml"
    path.write_text(
        f"""\
[experiment]
id = "t-medium"
title = "trace refusals"

[medium]
kind = "trace"
trace_path = "{trace}"
{medium}

[topology]
kind = "line"
hops = {hops}

[mac]
kind = "{mac}"

[workload]
kind = "handshakes"
"""
    )
    return str(path)


def why_not_run(path: str) -> str:
    s = load_scenario(path)
    with pytest.raises(ValueError) as e:
        split(s, list(s.points()))
    return str(e.value)


def test_a_trace_with_fewer_nodes_than_the_scenario_is_refused(tmp_path):
    # 5 hops are 6 nodes; the trace has 3, so at most 2 hops
    msg = why_not_run(scenario(tmp_path, "xmac", 5))
    assert "topology.hops = 5: at most 2 hops (3 nodes)" in msg, msg
    assert f"the trace {tmp_path / 'tiny.k7'} has node_count 3" in msg, msg
    # 2 hops fit: no refusal
    s = load_scenario(scenario(tmp_path, "xmac", 2))
    runnable, refused = split(s, list(s.points()))
    assert len(runnable) == 1 and not refused


def test_a_trace_missing_a_channel_the_mac_hops_over_is_refused(tmp_path):
    # TSCH hops over channels 11..26; the trace measured 11 and 12 only
    msg = why_not_run(scenario(tmp_path, "tsch", 2))
    assert f"medium.trace_path = '{tmp_path / 'tiny.k7'}'" in msg, msg
    assert "every channel the MAC sends on (11..26)" in msg, msg
    assert "no channel 13 (it measured [11, 12])" in msg, msg


def test_a_power_in_mw_is_refused_naming_the_file_and_the_dbm_key(tmp_path):
    path = tmp_path / "mw.toml"
    path.write_text(
        '[experiment]\nid = "t-mw"\ntitle = "mW"\n\n'
        '[medium]\nkind = "log-distance"\ntx_power_mw = 1.0\n\n'
        '[topology]\nkind = "line"\nhops = 1\n\n[mac]\nkind = "xmac"\n\n'
        '[workload]\nkind = "handshakes"\n'
    )
    with pytest.raises(FileError) as e:
        load_scenario(str(path))
    msg = str(e.value)
    assert "mw.toml" in msg, msg
    assert "medium.tx_power_mw" in msg and "write 'tx_power_dbm'" in msg, msg
    assert "range [-40, 30] dBm" in msg, msg


def test_a_channel_the_trace_did_not_measure_is_refused_and_a_measured_one_pins_it(tmp_path):
    msg = why_not_run(scenario(tmp_path, "tsch", 2, "trace_channel = 20"))
    assert "medium.trace_channel = 20: one of the channels the trace" in msg, msg
    assert "measured, [11, 12]" in msg, msg
    # pinned to channel 11, TSCH's hopping meets channel 11's links only:
    # the channels the trace lacks no longer matter
    s = load_scenario(scenario(tmp_path, "tsch", 2, "trace_channel = 11"))
    runnable, refused = split(s, list(s.points()))
    assert len(runnable) == 1 and not refused


def test_a_position_outside_the_area_is_refused_by_the_cli_without_a_traceback(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "area.toml"
    path.write_text(
        '[experiment]\nid = "t-area"\ntitle = "area"\n\n[medium]\nkind = "log-distance"\n\n'
        '[topology]\nkind = "random"\narea_side_m = 100.0\n'
        "positions = [{x_m = 50.0, y_m = 50.0}, {x_m = 120.5, y_m = 10.0}]\n\n"
        '[mac]\nkind = "csma"\n\n[workload]\nkind = "handshakes"\n'
    )
    run = subprocess.run(
        [sys.executable, "-m", "dtlsim", "run", str(path)], capture_output=True, text=True
    )
    assert run.returncode != 0
    assert "Traceback" not in run.stderr + run.stdout
    assert "area.toml" in run.stderr, run.stderr
    want = "topology.positions[1].x_m = 120.5: in [0, 100] m: inside the area"
    assert want in run.stderr, run.stderr
