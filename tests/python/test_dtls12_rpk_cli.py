"""`dtlsim dtls server|client --version 1.2 --rpk` over real UDP on
loopback: ECDHE-ECDSA with raw public keys (RFC 7250), the server's from
its --key, the client pinning it with --ca; another key is refused."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

from dtlsim import _core

ECDHE = "ecdhe-ecdsa-aes128-ccm8"


def p256_key_and_public_key(tmp: Path) -> tuple[Path, Path]:
    key, pub = tmp / "key.pem", tmp / "pub.pem"
    subprocess.run(
        ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-out", key],
        check=True, capture_output=True,
    )  # fmt: skip
    subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-out", pub], check=True)
    return key, pub


def rpk_server(key: Path) -> tuple[_core.UdpServer, threading.Thread, dict]:
    server = _core.UdpServer(
        "127.0.0.1:0",
        json.dumps({"suite": ECDHE}),
        rpk=True,
        private_key=key.read_bytes(),
        seed=1,
    )
    result: dict = {}

    def run() -> None:
        result["report"] = server.run(max_seconds=10.0, after_sessions_ended=1)

    t = threading.Thread(target=run)
    t.start()
    return server, t, result


def test_our_12_client_and_server_with_raw_public_keys(tmp_path, cli):
    key, pub = p256_key_and_public_key(tmp_path)
    server, t, result = rpk_server(key)
    out = cli("dtls", "client", "--connect", server.local_addr, "--cipher", ECDHE, "--rpk",
              "--ca", str(pub), "--send", "ping rpk", "--count", "2", "--json")  # fmt: skip
    t.join()
    client = json.loads(out)
    assert client["cipher_suite"] == ECDHE
    assert client["received"] == ["ping rpk"] * 2
    assert client["stats"]["ecdsa_verifies"] == 1
    assert result["report"]["echoed"] == 2


def test_a_12_client_pinned_to_another_key_is_refused(tmp_path, cli):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    key, _ = p256_key_and_public_key(tmp_path / "a")
    _, other = p256_key_and_public_key(tmp_path / "b")
    server, t, _ = rpk_server(key)
    out = cli("dtls", "client", "--connect", server.local_addr, "--cipher", ECDHE, "--rpk",
              "--ca", str(other), "--timeout", "5", code=2)  # fmt: skip
    server.stop()
    t.join()
    assert "certificate" in out.lower(), out


def test_rpk_with_a_psk_suite_is_refused(cli):
    out = cli("dtls", "client", "--connect", "127.0.0.1:9", "--rpk", code=2)
    assert "--rpk authenticates ECDHE-ECDSA" in out, out
