"""The retransmission-timer tuner on a network whose answer follows by hand.

One TSCH hop, slotframe 101 × 10 ms = 1.01 s, one dedicated cell each way
and PDR 1: a frame waits for its link's cell, one per slotframe. The DTLS
1.3 PSK server's flight (ServerHello, EncryptedExtensions, Finished) does
not fit one 127-byte frame, so its fragments take at least two cells of the
server's link: the answer to a ClientHello cannot be complete within 1.01 s
of the ClientHello leaving. A 1 s timer therefore fires before every answer
with nothing lost (spurious, at least once a handshake); a 20 s timer, longer
than the whole handshake, never fires.
"""

from __future__ import annotations

import math

import pytest

import dtlsim
from dtlsim.tuner import TuneError

TINY = """
platform = "openmote-cc2538"

[experiment]
id = "tune-tiny"
title = "one TSCH hop"
seed = 5
replications = 6
quick_replications = 3

[topology]
kind = "line"
hops = [1]
pdr = [1.0]

[mac]
kind = "tsch"

[mac.tsch]
slotframe_length = 101
cells_per_link = [1]
timeslot_ms = 10.0

[dtls]
version = "1.3"
suite = "psk-aes128-ccm8"
records_per_datagram = "flight"

[workload]
kind = "handshakes"
handshake = "{handshake}"
handshakes = 1

[simulation]
start_ms = 1000.0
max_time_s = 900.0
"""


@pytest.fixture
def tiny(tmp_path):
    def write(handshake: str = "dtls"):
        path = tmp_path / f"tiny-{handshake}.toml"
        path.write_text(TINY.replace("{handshake}", handshake))
        return path

    return write


def test_a_timer_shorter_than_a_slotframe_resends_spuriously_and_a_long_one_never(tiny):
    result = dtlsim.tune(tiny(), initial_s=[1, 20], backoffs=["fixed", "doubling"], workers=1)
    t = result.table.set_index(["backoff", "initial_s"])
    assert len(t) == 4 and set(t.protocol) == {"dtls1.3"}
    for backoff in ("fixed", "doubling"):
        short, long = t.loc[(backoff, 1.0)], t.loc[(backoff, 20.0)]
        assert short.spurious_retransmissions >= 1  # at least the first firing
        assert short.spurious_retransmissions <= short.retransmissions
        assert long.retransmissions == 0 and long.spurious_retransmissions == 0
        assert long.success_rate == 1.0 and long.duration_s < 20.0
        # Wilson interval of 6 successes in 6: [0.61, 1]
        assert long.success_ci_low == pytest.approx(0.6097, abs=1e-3)
        assert long.expected_time_s == pytest.approx(long.duration_s)
    best = result.best
    assert list(best.initial_s) == [20.0]
    assert best.spurious_retransmissions.iloc[0] == 0


def test_the_energy_objective_and_an_infinite_expectation(tiny):
    result = dtlsim.tune(
        tiny(), objective="energy", initial_s=[1, 20], backoffs=["fixed"], replications=3
    )
    t = result.table.set_index("initial_s")
    # a fixed 1 s timer resends faster than the single cell drains its
    # queue: every handshake runs out of retransmissions, so none completes
    # and no expected value is finite
    assert t.loc[1.0].success_rate == 0
    assert math.isinf(t.loc[1.0].expected_client_energy_uj)
    assert result.best.initial_s.iloc[0] == 20.0
    assert result.best.expected_client_energy_uj.iloc[0] == pytest.approx(
        t.loc[20.0].client_energy_uj
    )


def test_edhoc_tunes_coaps_timer(tiny):
    result = dtlsim.tune(tiny("edhoc"), initial_s=[20], random_factors=[1.0, 1.5], replications=2)
    t = result.table
    assert set(t.protocol) == {"edhoc"} and set(t.backoff) == {"coap"}
    assert sorted(t.random_factor) == [1.0, 1.5]
    assert (t.retransmissions == 0).all() and (t.success_rate == 1.0).all()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--initial", "0,9"], "--initial 0: allowed 0.001 to 3600 (seconds)"),
        (["--backoff", "exponential"], "--backoff 'exponential': allowed fixed, doubling"),
        (["--objective", "speed"], "--objective 'speed': allowed time, energy"),
        (["--random-factor", "0.5"], "--random-factor 0.5: allowed 1 to 4"),
        (["--initial", "one"], "--initial 'one': expected comma-separated numbers"),
    ],
)
def test_a_bad_option_is_refused_by_name(cli, tiny, args, says):
    out = cli("tune", str(tiny()), *args, code=2)
    assert says in out


def test_a_bad_scenario_value_names_the_key(cli, tiny):
    out = cli("tune", str(tiny()), "--set", "topology.pdr=2", code=2)
    assert "topology.pdr" in out and "2" in out


def test_the_command_prints_the_best_setting(cli, tiny):
    out = cli("tune", str(tiny()), "--initial", "1,20", "--replications", "2")
    assert "Best setting for time" in out and "spurious" in out


def test_an_option_error_raises_from_python(tiny):
    with pytest.raises(TuneError, match="--backoff 'x'"):
        dtlsim.tune(tiny(), backoffs=["x"])


def test_experiment_8_reports_the_tuner_with_one_best_setting_per_protocol():
    from dtlsim.experiments.exp8_handshakes import tuner_table

    table = tuner_table(quick=True)
    frame = table.frame
    assert table.name == "exp8_tuner"
    assert set(frame.protocol) == {"dtls1.3", "edhoc"}
    assert frame.groupby("protocol").best.sum().to_dict() == {"dtls1.3": 1, "edhoc": 1}
    best = frame[frame.best]
    for protocol, group in frame.groupby("protocol"):
        assert best[best.protocol == protocol].expected_s.iloc[0] == group.expected_s.min()
