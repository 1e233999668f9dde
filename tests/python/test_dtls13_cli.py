"""`dtlsim dtls server|client --version 1.3` over real UDP on loopback: our
client with our server (PSK, certificate with a connection ID, raw public
key), our client with the wolfSSL 5.9 server that scripts/setup.sh builds,
and a client that exits non-zero when its echoes never come."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dtlsim import _core
from udp_peers import NEED_PEERS, WOLF_SERVER, our_server, peer_on_free_port

PSK = "000102030405060708090a0b0c0d0e0f"
DTLSIM = [sys.executable, "-m", "dtlsim.cli"]
ROOT = Path(__file__).resolve().parents[2]


def serve_and_connect(server_args: list[str], client_args: list[str]) -> tuple[dict, dict]:
    """Our 1.3 server for one session and our 1.3 client to it, both by CLI;
    their JSON reports."""
    server, port = our_server(
        "--version", "1.3", "--handshakes", "1", "--duration", "20", *server_args
    )
    try:
        out = subprocess.run(
            [*DTLSIM, "dtls", "client", "--version", "1.3", "--connect", f"127.0.0.1:{port}",
             "--send", "ping 1.3", "--count", "2", "--json", *client_args],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout), json.loads(server.communicate(timeout=30)[0])
    finally:
        server.kill()


def test_our_13_client_and_server_with_a_psk():
    client, server = serve_and_connect(["--psk", PSK], ["--psk", PSK])
    assert client["version"] == "1.3"
    assert client["cipher_suite"] == "TLS_AES_128_CCM_8_SHA256"
    assert client["received"] == ["ping 1.3"] * 2
    assert server["echoed"] == 2 and len(server["handshakes"]) == 1
    # the server's cookie exchange (RFC 9147 §5.1)
    assert server["hello_retry_requests"] == 1


def p256_key_and_cert(tmp: Path) -> tuple[Path, Path, Path]:
    key, crt, pub = tmp / "key.pem", tmp / "crt.pem", tmp / "pub.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-keyout", key, "-out", crt, "-days", "2", "-subj", "/CN=dtlsim-test"],
        check=True, capture_output=True,
    )  # fmt: skip
    subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-out", pub], check=True)
    return key, crt, pub


def test_our_13_client_and_server_with_a_certificate_gcm_and_a_connection_id(tmp_path):
    key, crt, _ = p256_key_and_cert(tmp_path)
    suite = ["--suite", "TLS_AES_128_GCM_SHA256"]
    client, server = serve_and_connect(
        ["--cert", str(crt), "--key", str(key), "--cid", "4", *suite],
        ["--ca", str(crt), "--cid", "2", *suite],
    )
    assert client["cipher_suite"] == "TLS_AES_128_GCM_SHA256"
    assert client["cid_negotiated"] and server["handshakes"][0]["cid_negotiated"]
    assert client["stats"]["ecdsa_verifies"] == 1 and client["stats"]["ecdh_ops"] > 0
    assert client["received"] == ["ping 1.3"] * 2


def test_our_13_client_and_server_with_a_raw_public_key(tmp_path):
    key, _, pub = p256_key_and_cert(tmp_path)
    client, _ = serve_and_connect(["--rpk", "--key", str(key)], ["--rpk", "--ca", str(pub)])
    assert client["stats"]["ecdsa_verifies"] == 1
    assert client["received"] == ["ping 1.3"] * 2


def test_a_client_pinned_to_another_key_is_refused(tmp_path, cli):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    key, _, _ = p256_key_and_cert(tmp_path / "a")
    _, _, other = p256_key_and_cert(tmp_path / "b")
    server = _core.UdpServer13(
        "127.0.0.1:0", json.dumps({}), rpk=True, private_key=key.read_bytes(), seed=1
    )
    t = threading.Thread(target=server.run, kwargs={"max_seconds": 10.0, "after_sessions_ended": 1})
    t.start()
    out = cli("dtls", "client", "--version", "1.3", "--connect", server.local_addr, "--rpk",
              "--ca", str(other), "--timeout", "5", code=2)  # fmt: skip
    server.stop()
    t.join()
    assert "certificate" in out.lower(), out


def test_the_client_fails_when_its_echoes_never_come(cli):
    # our real 1.3 server, told not to echo: the handshake completes, the
    # data waited for never comes
    server = _core.UdpServer13("127.0.0.1:0", json.dumps({"psk_hex": PSK}), echo=False, seed=2)
    t = threading.Thread(target=server.run, kwargs={"max_seconds": 10.0, "after_messages": 1})
    t.start()
    out = cli("dtls", "client", "--version", "1.3", "--connect", server.local_addr, "--psk", PSK,
              "--timeout", "1.5", code=1)  # fmt: skip
    t.join()
    assert "waited for 1 echo(es), received 0" in out


def test_a_wrong_psk_is_reported_as_the_servers_alert(cli):
    server = _core.UdpServer13("127.0.0.1:0", json.dumps({"psk_hex": PSK}), seed=3)
    t = threading.Thread(target=server.run, kwargs={"max_seconds": 10.0, "after_sessions_ended": 1})
    t.start()
    out = cli("dtls", "client", "--version", "1.3", "--connect", server.local_addr, "--psk",
              "0f" * 16, "--timeout", "5", code=2)  # fmt: skip
    server.stop()
    t.join()
    assert "alert" in out.lower() and "not connected" not in out.lower(), out


def test_13_only_options_are_refused_with_12(cli):
    # --cid works with both versions (RFC 9146 for 1.2: test_dtls_cli_gaps)
    for option in (["--psk-dhe"], ["--group", "x25519"]):
        out = cli("dtls", "client", *option, "--psk", PSK, code=2)
        assert "--version 1.3" in out and option[0] in out


@pytest.mark.skipif(
    not WOLF_SERVER.exists() and not NEED_PEERS,
    reason="wolfSSL peer missing: scripts/setup.sh builds it",
)
def test_our_13_client_against_the_wolfssl_server():
    server, port = peer_on_free_port(
        lambda port: [WOLF_SERVER, "--version", "1.3", "--port", str(port), "--cipher",
                      "TLS13-AES128-CCM-8-SHA256", "--psk", PSK, "--sessions", "1",
                      "--duration", "15"],
        "listening",
    )  # fmt: skip
    try:
        out = subprocess.run(
            [*DTLSIM, "dtls", "client", "--version", "1.3", "--connect", f"127.0.0.1:{port}",
             "--psk", PSK, "--send", "hello wolfssl", "--json"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        client = json.loads(out.stdout)
        assert client["cipher_suite"] == "TLS_AES_128_CCM_8_SHA256"
        assert client["received"] == ["hello wolfssl"]
        log = server.communicate(timeout=20)[0]
        assert "handshake version=DTLSv1.3 cipher=TLS13-AES128-CCM-8-SHA256" in log
        assert "text=hello wolfssl" in log
    finally:
        server.kill()


def test_the_relay_delays_and_loses_what_it_is_told():
    server = _core.UdpServer13("127.0.0.1:0", json.dumps({"psk_hex": PSK}), seed=4)
    t = threading.Thread(target=server.run, kwargs={"max_seconds": 10.0, "after_sessions_ended": 1})
    t.start()
    relay = _core.UdpRelay(
        server.local_addr, delay_ms=50.0, drop_direction="server_to_client", drop_nth=2, seed=5
    )
    r = _core.dtls_client13(
        relay.addr, json.dumps({"psk_hex": PSK}), messages=[b"x"], expect_replies=1, seed=6
    )
    t.join()
    counts = relay.counts()
    relay.stop()
    assert r["received"] == [b"x"]
    # two round trips (cookie, then the handshake) of 100 ms each at least
    assert r["handshake_time_s"] >= 0.2
    assert counts["server_to_client"]["dropped_datagrams"] == 1
    assert counts["client_to_server"]["bytes"] == r["stats"]["bytes_sent"]


def test_a_bad_relay_setting_is_refused():
    with pytest.raises(ValueError, match="drop_direction"):
        _core.UdpRelay("127.0.0.1:9", drop_direction="sideways", drop_nth=1)


def test_the_binding_reports_sha384_work_and_session_state_of_a_13_session(tmp_path):
    key, cert, _ = p256_key_and_cert(tmp_path)
    settings = json.dumps({})
    suite = "TLS_AES_256_GCM_SHA384"
    server = _core.UdpServer13(
        "127.0.0.1:0", settings, suite=suite, certificate=cert.read_bytes(),
        private_key=key.read_bytes(), seed=7,
    )  # fmt: skip
    served: dict = {}
    t = threading.Thread(
        target=lambda: served.update(server.run(max_seconds=10.0, after_sessions_ended=1))
    )
    t.start()
    r = _core.dtls_client13(
        server.local_addr, settings, suite=suite, messages=[b"x"], expect_replies=1,
        server_certificate=cert.read_bytes(), seed=8, seq_len=2,
    )  # fmt: skip
    t.join()
    assert r["received"] == [b"x"]
    # SHA-384 runs SHA-512's compression (SHA-256 is left only to the
    # ecdsa_secp256r1_sha256 signatures); AES-256 blocks are counted apart
    assert r["stats"]["sha512_compressions"] > 10 * r["stats"]["sha256_compressions"]
    assert r["stats"]["aes256_blocks"] > 0 and r["stats"]["aes_blocks"] == 0
    assert r["session_state_bytes"] > 0
    (hs,) = served["handshakes"]
    assert hs["session_state_bytes"] > 0
    assert hs["stats"]["sha512_compressions"] > 0


def test_a_bad_sequence_number_length_is_refused():
    with pytest.raises(ValueError, match="seq_len = 3"):
        _core.dtls_client13("127.0.0.1:9", json.dumps({"psk_hex": PSK}), seq_len=3)
