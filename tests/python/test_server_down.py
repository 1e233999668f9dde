"""A join server that is down (sessions.server_down_s): each bad window is
refused naming the key, the window, its value and the allowed range; a
small storm with the server down from power-on and again later completes no
join started while it was down, counts what it dropped, and every node
still joins after it; without the key a run is the run it was."""

from __future__ import annotations

import pytest

import dtlsim
from dtlsim.experiments import tsch_storm
from dtlsim.scenario import builtin_scenarios
from dtlsim.schema import FileError
from test_tsch_storm import SMALL

# SMALL: the storm of test_tsch_storm, 15 nodes at the storm's density,
# waits of mean 20 s, 600 s at most (the run is 601 s from power-on)
DOWN = "[[0, 120], [180, 240]]"


def storm(handshake: str, *more: str):
    sc = dtlsim.load_scenario("tsch-storm-1000", [*SMALL, f"sessions.handshake={handshake}", *more])
    return dtlsim.run(sc, replications=1, workers=1)


@pytest.mark.parametrize(
    ("windows", "blamed", "why"),
    [
        ("[[-1, 10]]", "sessions.server_down_s[0] = [-1, 10]", "must start at 0 s or later"),
        ("[[10, 10]]", "sessions.server_down_s[0] = [10, 10]", "must end after it starts"),
        (
            "[[0, 100], [50, 200]]",
            "sessions.server_down_s[1] = [50, 200]",
            "must start after the previous window's end (100 s)",
        ),
        (
            "[[200, 300], [0, 100]]",
            "sessions.server_down_s[1] = [0, 100]",
            "must start after the previous window's end (300 s)",
        ),
        (
            "[[0, 700]]",
            "sessions.server_down_s[0] = [0, 700]",
            "must end within the run: at most 601 s",
        ),
        ("[[0, nan]]", "sessions.server_down_s[0][1] = nan", "finite"),
        ("[[1, 2, 3]]", "sessions.server_down_s[0] = [1, 2, 3]", ""),
        ("[0, 10]", "sessions.server_down_s[0] = 0", "array"),
    ],
)
def test_each_bad_window_is_refused_naming_it_and_what_is_allowed(windows, blamed, why):
    with pytest.raises(FileError) as e:
        dtlsim.load_scenario("tsch-storm-1000", [*SMALL, f"sessions.server_down_s={windows}"])
    msg = str(e.value)
    assert blamed in msg and why in msg, msg


def test_a_bad_window_in_a_file_names_the_file_and_the_range(tmp_path):
    bad = tmp_path / "storm.toml"
    text = builtin_scenarios()["tsch-storm-1000"].read_text()
    bad.write_text(text.replace("stop_at_secured_share = 0.99", "server_down_s = [[0, 1e9]]"))
    with pytest.raises(FileError) as e:
        dtlsim.load_scenario(bad, [])
    msg = str(e.value)
    assert str(bad) in msg and "sessions.server_down_s[0]" in msg, msg
    assert "range [0, 21601]" in msg, msg


def test_an_outage_needs_a_server_on_the_air():
    with pytest.raises(FileError) as e:
        storm("instant", "sessions.server_down_s=[[0, 10]]")
    assert "needs a server on the air" in str(e.value), str(e.value)


@pytest.mark.parametrize("handshake", sorted(set(tsch_storm.PROTOCOLS.values())))
def test_no_join_started_while_the_server_is_down_completes_and_all_join_after(handshake):
    row = storm(handshake, f"sessions.server_down_s={DOWN}").iloc[0]
    # every node joined in the end, none before the server first came up
    # (at 120 s from power-on; the secured times count from start_ms, 1 s)
    assert row.secured_share == 1.0, row.to_dict()
    assert row.secured_50_s >= 119.0, row.to_dict()
    # a reply sent before the server went down may still arrive while it is
    # down; a join started while it is down cannot complete then
    assert row.sessions_started_while_down == 0, row.to_dict()
    assert row.server_down_drops > 0, row.to_dict()
    assert row.server_restarts >= 1, row.to_dict()


def test_without_the_key_a_run_is_the_run_it_was():
    plain = storm("cojp")
    empty = storm("cojp", "sessions.server_down_s=[]")
    assert not any(c.startswith("server_") for c in plain.columns)
    assert plain.drop(columns=["wall_s"], errors="ignore").equals(
        empty.drop(columns=["wall_s"], errors="ignore")
    )
    down = storm("cojp", f"sessions.server_down_s={DOWN}")
    assert down.iloc[0].secured_50_s > plain.iloc[0].secured_50_s
