"""Nodes powered on over a window (simulation.power_on_window_s): a bad
window is refused naming the key, the value and the range; a small storm
over a window secures every node, later than with every node on at once;
a window of 0 is no window, and the same seed gives the same rows."""

from __future__ import annotations

import math

import pytest

import dtlsim
from dtlsim.schema import FileError
from test_tsch_storm import SMALL as STORM

# the storm of test_tsch_storm (15 nodes, 600 s at most), CoJP through
# join proxies
SMALL = [*STORM, "sessions.handshake=cojp", "sessions.join_proxy=true"]


def storm(*more: str):
    sc = dtlsim.load_scenario("tsch-storm-1000", [*SMALL, *more])
    return dtlsim.run(sc, replications=1, workers=1)


@pytest.mark.parametrize(
    ("value", "why"),
    [("-1", "range [0, 10000000]"), ("nan", "finite"), ("1e9", "range [0, 10000000]")],
)
def test_a_bad_window_is_refused_naming_key_value_and_range(value, why):
    with pytest.raises(FileError) as e:
        dtlsim.load_scenario("tsch-storm-1000", [*SMALL, f"simulation.power_on_window_s={value}"])
    msg = str(e.value)
    assert "simulation.power_on_window_s" in msg and why in msg, msg


def test_a_window_needs_the_sessions_workload():
    with pytest.raises(FileError) as e:
        dtlsim.load_scenario("exp3-tsch", ["simulation.power_on_window_s=60"])
    assert "simulation.power_on_window_s = 60: needs workload.kind = 'sessions'" in str(e.value)


def test_a_storm_over_a_window_secures_every_node_later():
    at_once = storm()
    spread = storm("simulation.power_on_window_s=120")
    assert spread["secured_share"].iloc[0] == 1.0
    # the half of the nodes secured later: each node's wait now starts at
    # a power-on up to 120 s late
    assert spread["secured_50_s"].iloc[0] > at_once["secured_50_s"].iloc[0]
    again = storm("simulation.power_on_window_s=120")
    assert again.equals(spread)


def test_a_window_of_zero_is_no_window():
    zero = storm("simulation.power_on_window_s=0")
    none = storm()
    # the same results: every column but the point's key and the key set
    assert set(zero.columns) - set(none.columns) == {"simulation.power_on_window_s"}
    same = [c for c in none.columns if c != "point_key"]
    assert zero[same].equals(none[same])
    assert not math.isnan(none["secured_50_s"].iloc[0])
