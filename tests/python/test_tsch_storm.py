"""The bootstrap storm's join protocols (sessions.handshake = dtls, dtls13,
edhoc, cojp): a small storm completes with each, the same bit for bit on a
rerun; a value the key does not take is refused naming the file, the key,
the value and the values it takes."""

from __future__ import annotations

import math

import pytest

import dtlsim
from dtlsim.experiments import tsch_storm
from dtlsim.scenario import builtin_scenarios
from dtlsim.schema import FileError

# 15 nodes of the storm's density (100 in a 200 m square) around the border
# router, each joining after an exponential wait of mean 20 s, for 10 minutes
SMALL = [
    "topology.nodes=15",
    "topology.area_side_m=77.5",
    "sessions.slots=15",
    "sessions.clients=14",
    "sessions.erlang=500000.0",
    "sessions.duration_s=600.0",
]


def storm(handshake: str):
    sc = dtlsim.load_scenario("tsch-storm-1000", [*SMALL, f"sessions.handshake={handshake}"])
    return dtlsim.run(sc, replications=1, workers=1)


@pytest.mark.parametrize("handshake", sorted(set(tsch_storm.PROTOCOLS.values())))
def test_a_small_storm_is_secured_with_each_join_protocol_and_reruns_the_same(handshake):
    rows = storm(handshake)
    row = rows.iloc[0]
    # every node joined, once (a join is kept: one completed join each)
    assert row.secured_share == 1.0, row.to_dict()
    assert row.sessions_established == 14
    assert not math.isnan(row.secured_99_s) and row.secured_99_s < 600.0
    assert row.session_requests >= 14
    assert row.energy_per_node_uj > 0
    again = storm(handshake)
    assert rows.drop(columns=["wall_s"], errors="ignore").equals(
        again.drop(columns=["wall_s"], errors="ignore")
    )


def test_the_join_protocols_differ_in_what_they_cost():
    # a CoJP join is one exchange of 38 + 48 bytes with [edhoc]'s 4-byte
    # token (more where CoAP resent the request), fewer than EDHOC's two
    # exchanges and DTLS 1.3's flights
    bytes_of = {h: storm(h).iloc[0].handshake_bytes_full for h in ("cojp", "edhoc", "dtls13")}
    assert bytes_of["cojp"] >= 86.0
    assert bytes_of["cojp"] < bytes_of["edhoc"] < bytes_of["dtls13"]


@pytest.mark.parametrize("in_file", [True, False])
def test_a_handshake_the_key_does_not_take_is_refused_with_what_it_takes(tmp_path, in_file):
    if in_file:
        bad = tmp_path / "storm.toml"
        text = builtin_scenarios()["tsch-storm-1000"].read_text()
        bad.write_text(text.replace('handshake = "dtls"', 'handshake = "dtls14"'))
        source, overrides, blamed = bad, [], str(bad)
    else:
        source, overrides, blamed = "tsch-storm-1000", ["sessions.handshake=dtls14"], "--set"
    with pytest.raises(FileError) as e:
        dtlsim.load_scenario(source, overrides)
    msg = str(e.value)
    assert blamed in msg and "sessions.handshake = 'dtls14'" in msg, msg
    for allowed in ("instant", "dtls", "dtls13", "edhoc", "cojp"):
        assert f"'{allowed}'" in msg, msg
