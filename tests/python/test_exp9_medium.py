"""Experiment 9's parts that do not need a run: the 50-node network's
scenario, its finding in words, and "not run" without a trace."""

from __future__ import annotations

import pandas as pd

from dtlsim import resources
from dtlsim.experiments import exp9_medium as e


def test_without_a_trace_the_trace_parts_say_not_run(monkeypatch):
    monkeypatch.delenv(e.ENV_TRACE, raising=False)
    monkeypatch.setattr(resources, "source_checkout", lambda: None)
    assert e.trace_path() is None


def test_the_network_is_every_trace_node_with_node_0_answering(tmp_path):
    # a 50-node trace of one round on every channel, all links PDR 1
    header = (
        '{"node_count": 50, "channels": [' + ", ".join(str(c) for c in range(11, 27)) + "], "
        '"tx_length": 100, "interframe_duration": 100, "start_date": "2020-01-01T00:00:00", '
        '"stop_date": "2020-01-01T01:00:00"}\n'
    )
    rows = [
        f"2020-01-01T00:00:00,{a},{b},{c},-70,1.0,10"
        for a in range(50)
        for b in (a - 1, a + 1)
        if 0 <= b < 50
        for c in range(11, 27)
    ]
    trace = tmp_path / "line.k7"
    trace.write_text(header + "datetime,src,dst,channel,mean_rssi,pdr,tx_count\n" + "\n".join(rows))
    s = e.network_scenario(trace, e.NETWORK_HANDSHAKES["DTLS 1.3 PSK"], [1, 13, 25])
    points = list(s.points())
    assert [p["workload.client_node"] for p in points] == [1, 13, 25]
    assert {p["workload.server_node"] for p in points} == {0}
    assert {p["dtls.version"] for p in points} == {"1.3"}
    assert {p["topology.hops"] for p in points} == {49}
    assert points[0]["medium.trace_nodes"] == list(range(50))


def test_the_network_finding_names_the_fastest_and_the_cheapest():
    t = pd.DataFrame(
        [
            ("DTLS 1.2 PSK", 5, 5, 20.0, 30.0, 12.0, 6.0, 0.4),
            ("DTLS 1.3 PSK", 5, 4, 40.0, 60.0, 25.0, 5.0, 2.0),
            ("EDHOC static DH, kid", 5, 5, 10.0, 15.0, 14.0, 3.0, float("nan")),
        ],
        columns=[
            "handshake",
            "handshakes",
            "completed",
            "duration_s_mean",
            "duration_s_slowest_client",
            "client_energy_mj_mean",
            "client_datagrams_mean",
            "retransmissions_mean",
        ],
    )
    text = e.network_finding(t)
    assert "DTLS 1.3 PSK: 4/5 completed, 40.0 s (slowest client 60.0 s), 25.0 mJ" in text
    assert "Fastest: EDHOC static DH, kid; least energy for the client: DTLS 1.2 PSK" in text
    assert "2.0 retransmissions" in text
    assert (
        "EDHOC static DH, kid: 5/5 completed, 10.0 s (slowest client 15.0 s), 14.0 mJ, "
        "3.0 client datagrams. Fastest" in text
    )


def test_the_media_finding_says_capture_rescues_only_beyond_the_intervals():
    def row(medium, rate, low, high, duration=10.0, energy=5000.0):
        return {
            "medium": medium,
            "topology.hops": 4,
            "n_successful": 10,
            "success_rate": rate,
            "success_ci_low": low,
            "success_ci_high": high,
            "duration_s_mean": duration,
            "duration_s_ci_low": duration - 1,
            "duration_s_ci_high": duration + 1,
            "client_energy_uj_mean": energy,
        }

    media = ["pdr", "udgm", "log-distance", "log-distance, no capture", "pister-hack"]
    overlapping = pd.DataFrame([row(m, 0.8, 0.6, 0.9) for m in media])
    text = e.media_finding(overlapping, overlapping)
    assert "capture is not shown to rescue" in text
    assert "pdr 10.0 s / 5.0 mJ" in text
    assert "agree within their intervals" in text
    apart = pd.DataFrame(
        [row(m, 0.8, 0.6, 0.9) for m in media if "log" not in m]
        + [row("log-distance", 0.95, 0.91, 0.99), row("log-distance, no capture", 0.4, 0.2, 0.6)]
    )
    slower = apart.copy()
    slower.loc[slower.medium == "udgm", ["duration_s_ci_low", "duration_s_mean"]] = [20.0, 21.0]
    text = e.media_finding(apart, slower)
    assert "capture rescues handshakes that overlapping frames kill" in text
    assert "durations differ beyond their intervals" in text
