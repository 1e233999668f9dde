"""`dtlsim dtls server|client` over real UDP on loopback, with OpenSSL as the
other peer where it is installed (scripts/setup.sh installs it)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys

import pytest

import udp_peers
from udp_peers import our_server, peer_on_free_port

PSK = "000102030405060708090a0b0c0d0e0f"
DTLSIM = [sys.executable, "-m", "dtlsim.cli"]


def test_our_client_and_server_over_udp():
    server, port = our_server("--psk", PSK, "--handshakes", "1", "--duration", "20")
    try:
        out = subprocess.run(
            [*DTLSIM, "dtls", "client", "--connect", f"127.0.0.1:{port}", "--psk", PSK,
             "--send", "ping over dtls", "--count", "3", "--json"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout  # fmt: skip
        client = json.loads(out)
        assert client["cipher_suite"] == "psk-aes128-ccm8"
        assert client["received"] == ["ping over dtls"] * 3
        assert client["handshake_datagrams_sent"] >= 2
        assert client["handshake_bytes_sent"] > 0 and client["handshake_time_s"] > 0
        report = json.loads(server.communicate(timeout=30)[0])
        assert report["echoed"] == 3
        assert len(report["handshakes"]) == 1
        assert report["hello_verify_requests"] >= 1
    finally:
        server.kill()


# DTLSIM_REQUIRE_PEERS=1 (scripts/test.sh): run anyway, so a missing openssl fails.
@pytest.mark.skipif(
    shutil.which("openssl") is None and os.environ.get("DTLSIM_REQUIRE_PEERS") != "1",
    reason="openssl missing: scripts/setup.sh installs it",
)
def test_our_client_against_openssl_server():
    server, port = peer_on_free_port(
        lambda port: ["openssl", "s_server", "-dtls1_2", "-listen", "-psk", PSK,
                      "-psk_identity", "Client_identity", "-cipher", "PSK-AES128-CCM8",
                      "-nocert", "-accept", f"127.0.0.1:{port}"],
        "ACCEPT",
    )  # fmt: skip
    try:
        out = subprocess.run(
            [*DTLSIM, "dtls", "client", "--connect", f"127.0.0.1:{port}", "--psk", PSK,
             "--cipher", "PSK-AES128-CCM8", "--send", "hello openssl", "--count", "0",
             "--json"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout  # fmt: skip
        client = json.loads(out)
        assert client["cipher_suite"] == "psk-aes128-ccm8"
        assert client["handshake_datagrams_received"] >= 2
    finally:
        server.kill()


def test_bad_address_is_refused(cli):
    out = cli("dtls", "client", "--connect", "nowhere", "--psk", PSK, code=2)
    assert "HOST:PORT" in out


def test_a_psk_suite_without_a_key_is_refused(cli):
    # no built-in or empty key: the option to use is named
    out = cli("dtls", "server", "--duration", "0.1", code=2)
    assert "--psk" in out and "--psk-file" in out and "DTLSIM_PSK" in out
    out = cli("dtls", "server", "--psk", "", "--duration", "0.1", code=2)
    assert "psk_hex" in out and "1 to 64 bytes" in out


def test_the_key_may_come_from_a_file_or_the_environment(cli, tmp_path, monkeypatch):
    key = tmp_path / "psk.hex"
    key.write_text(PSK + "\n")
    out = cli.stdout("dtls", "server", "--psk-file", str(key), "--bind", "127.0.0.1:0",
                     "--duration", "0.1", "--json")  # fmt: skip
    assert json.loads(out)["handshakes"] == []
    out = cli("dtls", "server", "--psk-file", str(key), "--psk", PSK, "--duration", "0.1",
              code=2)  # fmt: skip
    assert "not both" in out
    monkeypatch.setenv("DTLSIM_PSK", PSK)
    out = cli.stdout("dtls", "server", "--bind", "127.0.0.1:0", "--duration", "0.1", "--json")
    assert json.loads(out)["handshakes"] == []


def test_session_limits_reach_the_server_and_bad_ones_are_refused():
    from dtlsim import _core

    dtls = json.dumps({"psk_hex": PSK})
    ok = _core.UdpServer(
        "127.0.0.1:0", dtls, max_sessions=2, max_half_open=1, half_open_timeout_s=5.0,
        per_address=1, eviction="refuse",
    )  # fmt: skip
    assert ok.local_addr.startswith("127.0.0.1:")
    with pytest.raises(ValueError, match="evict-half-open"):
        _core.UdpServer("127.0.0.1:0", dtls, eviction="evict-newest")
    with pytest.raises(ValueError, match="max_half_open"):
        _core.UdpServer("127.0.0.1:0", dtls, max_half_open=0)
    with pytest.raises(ValueError, match="half_open_timeout_s"):
        _core.UdpServer("127.0.0.1:0", dtls, half_open_timeout_s=0.0)


def test_session_limits_reach_the_dtls13_server_too():
    # the 1.3 server keeps the same session table with the same options
    # (they were refused for 1.3)
    from dtlsim import _core

    dtls = json.dumps({"psk_hex": PSK})
    ok = _core.UdpServer13(
        "127.0.0.1:0", dtls, max_sessions=2, max_half_open=1, half_open_timeout_s=5.0,
        per_address=1, eviction="refuse",
    )  # fmt: skip
    assert ok.local_addr.startswith("127.0.0.1:")
    with pytest.raises(ValueError, match="evict-half-open"):
        _core.UdpServer13("127.0.0.1:0", dtls, eviction="evict-newest")
    with pytest.raises(ValueError, match="max_half_open"):
        _core.UdpServer13("127.0.0.1:0", dtls, max_half_open=0)


def test_the_idle_timeout_reaches_both_servers_and_bad_ones_are_refused(cli):
    # established sessions expire when idle: there was
    # no option for it
    from dtlsim import _core

    dtls = json.dumps({"psk_hex": PSK})
    for server in (_core.UdpServer, _core.UdpServer13):
        assert server("127.0.0.1:0", dtls, idle_timeout_s=30.0).local_addr
        with pytest.raises(ValueError, match="idle_timeout_s"):
            server("127.0.0.1:0", dtls, idle_timeout_s=float("nan"))
    out = cli("dtls", "server", "--psk", PSK, "--idle-timeout", "0", code=2)
    assert "idle-timeout" in out


def test_bad_client_and_server_options_are_refused_by_name(cli):
    # a huge --count printed an OverflowError traceback, a
    # client without --psk a stray "error: 2", --mtu -5 was blamed on
    # dtls.max_fragment_bytes, and the server printed "listening" before it
    # refused a bad --duration
    out = cli("dtls", "client", "--psk", PSK, "--count", "10000000000000000000000", code=2)
    assert "--count" in out and "Traceback" not in out and "OverflowError" not in out
    out = cli("dtls", "client", "--timeout", "1", code=2)
    assert "--psk" in out and "error: 2" not in out
    out = cli("dtls", "client", "--psk", PSK, "--mtu", "-5", code=2)
    assert "--mtu" in out and "max_fragment_bytes" not in out
    out = cli("dtls", "server", "--psk", PSK, "--duration", "-1", code=2)
    assert "--duration" in out and "listening" not in out


@pytest.mark.skipif(
    shutil.which("openssl") is None and os.environ.get("DTLSIM_REQUIRE_PEERS") != "1",
    reason="openssl missing: scripts/setup.sh installs it",
)
def test_a_peer_whose_port_was_taken_meanwhile_starts_on_another(monkeypatch):
    # pytest's two workers pick ports at once: the one found free may be
    # bound by the other before the peer binds it
    taken = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    taken.bind(("127.0.0.1", 0))
    ports = [taken.getsockname()[1]]
    free = udp_peers.free_udp_port
    monkeypatch.setattr(udp_peers, "free_udp_port", lambda: ports.pop() if ports else free())
    with taken:
        server, port = peer_on_free_port(
            lambda port: ["openssl", "s_server", "-dtls1_2", "-listen", "-psk", PSK,
                          "-nocert", "-accept", f"127.0.0.1:{port}"],
            "ACCEPT",
        )  # fmt: skip
        server.kill()
        server.wait()
        assert not ports and port != taken.getsockname()[1]
