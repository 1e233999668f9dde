"""Experiment 7's wolfSSL columns: one session of the wolfSSL peers through
the relay, measured as our own sessions are, and a missing peer refused."""

from __future__ import annotations

import functools
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from dtlsim.experiments import exp7_udp
from dtlsim.peers import wolfssl
from dtlsim.scenario import load_scenario


def test_a_wolfssl_13_psk_session_is_measured_through_the_relay():
    with tempfile.TemporaryDirectory() as tmp:
        creds = exp7_udp._Credentials(Path(tmp))
        clean = exp7_udp._run("wolfSSL", "1.3", "PSK", creds, 1)
        lost = exp7_udp._run("wolfSSL", "1.3", "PSK", creds, 1, drop=("client_to_server", 1))
    c = clean["client"]
    assert c["received"] == ["echo"]
    # the hello, the hello with the cookie, then the Finished
    assert c["handshake_datagrams_sent"] == 3
    assert 0 < c["handshake_time_s"] < 5.0
    # the relay saw at least the handshake both ways
    sent = clean["relay"]["client_to_server"]["bytes"]
    assert sent >= c["handshake_bytes_sent"]
    # a lost first hello is sent again after wolfSSL's timer: one datagram
    # more from the client (counted, not summed in bytes: how many
    # acknowledgements the two sessions carry depends on timing)
    assert lost["relay"]["client_to_server"]["dropped_bytes"] > 0
    assert lost["client"]["handshake_datagrams_sent"] >= c["handshake_datagrams_sent"] + 1
    assert lost["client"]["handshake_time_s"] > 0.9


def test_a_missing_wolfssl_peer_is_an_error_where_peers_are_required(monkeypatch, tmp_path):
    monkeypatch.setattr(wolfssl, "BIN", tmp_path)
    monkeypatch.setenv("DTLSIM_REQUIRE_PEERS", "1")
    scenario = load_scenario(Path(exp7_udp.__file__).parents[3] / "scenarios/exp7-dtls13-udp.toml")
    with pytest.raises(FileNotFoundError, match=r"scripts/peers/wolfssl\.sh"):
        exp7_udp.run(scenario, quick=True)


def test_an_installed_tool_without_wolfssl_reports_the_experiment_as_not_run(monkeypatch, tmp_path):
    """A `pip install` has no checkout to build wolfSSL from: `reproduce`
    goes on, and the report and the terminal say what was not run and why."""
    monkeypatch.setattr(wolfssl, "BIN", tmp_path)
    monkeypatch.delenv("DTLSIM_REQUIRE_PEERS", raising=False)
    scenario = load_scenario(Path(exp7_udp.__file__).parents[3] / "scenarios/exp7-dtls13-udp.toml")
    result = exp7_udp.run(scenario, quick=True)
    assert result.summary.startswith("**Not run.**")
    assert "DTLSIM_WOLFSSL_BIN" in result.summary and not result.tables
    assert result.not_run and "DTLSIM_WOLFSSL_BIN" in result.not_run


def test_a_wolfssl_server_whose_port_was_taken_meanwhile_starts_on_another(monkeypatch):
    # Sessions run concurrently: the port found free may be bound by another
    # session before the wolfSSL server binds it.
    taken = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    taken.bind(("127.0.0.1", 0))
    ports = [taken.getsockname()[1]]
    free = wolfssl._free_udp_port
    monkeypatch.setattr(wolfssl, "_free_udp_port", lambda: ports.pop() if ports else free())
    with taken, tempfile.TemporaryDirectory() as tmp:
        creds = exp7_udp._Credentials(Path(tmp))
        r = exp7_udp._run("wolfSSL", "1.3", "PSK", creds, 1)
    assert not ports
    assert r["client"]["received"] == ["echo"]


def test_concurrent_sessions_keep_their_order_and_their_bound():
    running, most = 0, 0
    lock = threading.Lock()

    def session(k: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.15)
        with lock:
            running -= 1
        return k

    n = exp7_udp.CONCURRENT_SESSIONS + 4
    done = exp7_udp._concurrently([functools.partial(session, k) for k in range(n)])
    assert done == list(range(n))
    assert 1 < most <= exp7_udp.CONCURRENT_SESSIONS
