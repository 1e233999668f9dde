"""Link-layer security switched on with the keys the join delivers
(sessions.link_security_after_join): a small storm with the key delivered
by each join protocol is secured, refuses nothing it should take, and sends
fewer link-layer bytes than the same storm keyed from power-on (the
pledges' join frames go without the auxiliary header and MIC); the key is
refused, naming what it needs, where it cannot apply."""

from __future__ import annotations

import pytest

import dtlsim
from dtlsim.schema import FileError

# test_tsch_storm's small storm (15 nodes at the storm's density, joining
# after a mean 20 s wait, for 10 minutes), defined there once
from test_tsch_storm import SMALL

KEYED = [
    "link_security.level=mic-32",
    "link_security.key_id_mode=1",
    "link_security.strategy=hardware",
]


def storm(handshake: str, after_join: bool, schedule: str = "tree-both"):
    sc = dtlsim.load_scenario(
        "tsch-storm-1000",
        [
            *SMALL,
            *KEYED,
            f"mac.tsch.schedule={schedule}",
            f"sessions.handshake={handshake}",
            f"sessions.link_security_after_join={str(after_join).lower()}",
        ],
    )
    return dtlsim.run(sc, replications=1, workers=1)


@pytest.mark.parametrize(
    "handshake, schedule",
    [
        ("cojp", "tree-both"),
        ("edhoc", "tree-both"),
        ("dtls13", "tree-both"),
        ("dtls", "tree-both"),
        # 6P frames to and from a pledge go unsecured as its join does
        ("cojp", "msf"),
        ("dtls13", "orchestra"),
    ],
)
def test_a_storm_keyed_by_its_joins_is_secured_and_refuses_nothing_it_should_take(
    handshake, schedule
):
    row = storm(handshake, True, schedule).iloc[0]
    assert row.secured_share == 1.0, row.to_dict()
    # every join frame of a pledge reached its proxy unsecured, and was
    # taken; no pledge was sent a secured frame
    assert row.ll_refused_level == 0, row.to_dict()
    assert row.ll_refused_unknown_key == 0, row.to_dict()
    assert row.ll_frames_secured > 0 and row.ll_frames_opened > 0
    # the same storm keyed from power-on has no such columns
    assert "ll_refused_level" not in storm(handshake, False, schedule).columns


def test_the_pledges_join_frames_go_without_security_bytes():
    # a CoJP join is one request up and one response down per pledge: with
    # the key from the join, its first hop each way goes unsecured
    def sent_bytes(after_join: bool) -> int:
        sc = dtlsim.load_scenario(
            "tsch-storm-1000",
            [
                *SMALL,
                *KEYED,
                "sessions.handshake=cojp",
                f"sessions.link_security_after_join={str(after_join).lower()}",
            ],
        )
        _, nodes = dtlsim.run_with_nodes(sc, replications=1, workers=1)
        return int(nodes.frame_bytes_sent.sum())

    assert sent_bytes(True) < sent_bytes(False)


@pytest.mark.parametrize(
    "overrides, needs",
    [
        (["link_security.level=none"], "link_security.level"),
        (["sessions.handshake=instant", *KEYED], "sessions.handshake"),
        (["mac.kind=csma", *KEYED], "mac.kind = 'tsch'"),
    ],
)
def test_the_key_is_refused_where_it_cannot_apply(overrides, needs):
    with pytest.raises(FileError) as e:
        dtlsim.load_scenario(
            "tsch-storm-1000", [*SMALL, *overrides, "sessions.link_security_after_join=true"]
        )
    msg = str(e.value)
    assert "sessions.link_security_after_join" in msg and needs in msg, msg
