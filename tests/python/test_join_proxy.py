"""CoJP and EDHOC joins through RFC 9031's join proxy (sessions.join_proxy):
a small storm whose pledges talk to their parents on the link joins whole, the
parents' relaying counted per node and in the row; a join rate drops what
is over it and the storm still joins; the keys are refused, naming what
they need, where they cannot apply."""

from __future__ import annotations

import pytest

import dtlsim
from dtlsim.schema import FileError

# test_tsch_storm's small storm (15 nodes at the storm's density, joining
# after a mean 20 s wait, for 10 minutes), defined there once
from test_tsch_storm import SMALL


def storm(*overrides: str, handshake: str = "cojp"):
    sc = dtlsim.load_scenario(
        "tsch-storm-1000", [*SMALL, f"sessions.handshake={handshake}", *overrides]
    )
    return dtlsim.run_with_nodes(sc, replications=1, workers=1)


@pytest.mark.parametrize("handshake", ["cojp", "edhoc"])
def test_a_small_storm_joins_through_its_proxies(handshake):
    rows, nodes = storm("sessions.join_proxy=true", handshake=handshake)
    row = rows.iloc[0]
    assert row.secured_share == 1.0, row.to_dict()
    # pledges more than one hop out were relayed; every response went back
    assert row.jp_forwarded > 0 and row.jp_relayed > 0, row.to_dict()
    assert row.jp_dropped_rate == 0 and row.jp_refused == 0, row.to_dict()
    assert int(nodes.jp_forwarded.sum()) == row.jp_forwarded
    # the JRC relays nothing
    assert int(nodes[nodes.node == 0].jp_forwarded.iloc[0]) == 0
    routed, _ = storm(handshake=handshake)
    assert "jp_forwarded" not in routed.columns


@pytest.mark.parametrize("handshake", ["cojp", "edhoc"])
def test_a_join_rate_drops_and_the_storm_still_joins(handshake):
    # CoJP: the JRC's setting, each proxy enforcing it once its own Join
    # Response gave it; EDHOC: the key's value at every proxy
    row = storm(
        "sessions.join_proxy=true", "sessions.join_rate_bytes_per_s=20", handshake=handshake
    )[0].iloc[0]
    assert row.secured_share == 1.0, row.to_dict()
    assert row.jp_dropped_rate > 0, row.to_dict()


@pytest.mark.parametrize(
    "overrides, key, needs",
    [
        (["sessions.join_proxy=true", "sessions.handshake=dtls13"], "sessions.join_proxy", "cojp"),
        (["sessions.join_rate_bytes_per_s=100"], "sessions.join_rate_bytes_per_s", "join_proxy"),
        (
            ["sessions.join_proxy=true", "sessions.join_rate_bytes_per_s=-1"],
            "sessions.join_rate_bytes_per_s",
            "",
        ),
    ],
)
def test_the_keys_are_refused_where_they_cannot_apply(overrides, key, needs):
    with pytest.raises(FileError) as e:
        dtlsim.load_scenario("tsch-storm-1000", [*SMALL, *overrides])
    msg = str(e.value)
    assert key in msg and needs in msg, msg
