"""What the command line could not do that the stack does, and what the
UDP server tells while it runs: over real UDP
on loopback, our own server and client as peers, and OpenSSL's s_client."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from udp_peers import NEED_PEERS, WOLF_SERVER, lines_until, peer_on_free_port

PSK = "000102030405060708090a0b0c0d0e0f"
DTLSIM = [sys.executable, "-m", "dtlsim.cli"]
# a bound on waiting for a line a correct server prints at once, so a
# broken one fails the test instead of hanging it (no result depends on it)
NO_HANG_S = 60


class Server:
    """`dtlsim dtls server --json` on a free port: its stderr read line by
    line as it comes, its JSON report at the end."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*DTLSIM, "dtls", "server", "--bind", "127.0.0.1:0", "--duration", "60",
             "--psk", PSK, "--json", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        first = self.line()
        assert first.startswith("listening on "), first
        self.addr = first.split()[2]

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))

    def line(self) -> str:
        return self.lines.get(timeout=NO_HANG_S)

    def line_with(self, text: str) -> str:
        while True:
            line = self.line()
            if text in line:
                return line

    def report(self) -> dict:
        out, _ = self.proc.communicate(timeout=NO_HANG_S)
        return json.loads(out)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()


def client(addr: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*DTLSIM, "dtls", "client", "--connect", addr, "--psk", PSK, "--json", *args],
        capture_output=True, text=True, timeout=NO_HANG_S, check=check,
    )  # fmt: skip


def test_a_connection_id_with_dtls12():
    """`--cid` was refused with 1.2 ("a DTLS 1.3 option here") though the
    stack implements RFC 9146."""
    with Server("--cid", "4", "--handshakes", "1") as server:
        r = json.loads(client(server.addr, "--cid", "4").stdout)
        assert r["cid_negotiated"] is True
        (h,) = server.report()["handshakes"]
        assert h["cid_negotiated"] is True


def test_the_server_counts_the_cookie_round_of_each_handshake():
    """The server's per-handshake figures left out the stateless cookie
    round (2+2 datagrams reported, 3+3 on the wire): they now equal the
    client's, which saw every datagram."""
    with Server("--handshakes", "1") as server:
        c = json.loads(client(server.addr).stdout)
        (h,) = server.report()["handshakes"]
    s = h["stats"]
    assert (s["datagrams_received"], s["datagrams_sent"]) == (3, 3)
    assert (s["datagrams_received"], s["datagrams_sent"]) == (
        c["handshake_datagrams_sent"],
        c["handshake_datagrams_received"],
    )
    assert (s["bytes_received"], s["bytes_sent"]) == (
        c["handshake_bytes_sent"],
        c["handshake_bytes_received"],
    )


def test_the_server_logs_each_handshake_as_it_happens():
    """The server printed nothing until it exited. The line of
    the first handshake comes while the server waits for the second."""
    with Server("--handshakes", "2") as server:
        client(server.addr)
        done = server.line_with("handshake done")
        assert server.proc.poll() is None  # still serving
        assert "DTLS 1.2 psk-aes128-ccm8" in done and " ms" in done
        assert "127.0.0.1:" in done
        assert "closed by the peer" in server.line_with("closed")
        client(server.addr)
        server.line_with("handshake done")
        assert len(server.report()["handshakes"]) == 2


@pytest.mark.parametrize(("ours", "theirs"), [("1.2", "1.3"), ("1.3", "1.2")])
def test_the_server_says_when_a_client_speaks_the_other_version(ours, theirs):
    with Server("--version", ours, "--handshakes", "1") as server:
        r = client(server.addr, "--version", theirs, "--timeout", "2", check=False)
        assert r.returncode != 0
        line = server.line_with("speaks")
        assert f"speaks DTLS {theirs}, not DTLS {ours}" in line
        assert f"--version {theirs}" in line


# DTLSIM_REQUIRE_PEERS=1 (scripts/test.sh): run anyway, so a missing openssl fails.
@pytest.mark.skipif(
    shutil.which("openssl") is None and os.environ.get("DTLSIM_REQUIRE_PEERS") != "1",
    reason="openssl missing: scripts/setup.sh installs it",
)
def test_openssl_s_client_with_the_documented_flags_gets_in():
    """docs/dtls.md shows the s_client flags `dtls server` needs; run them
    as written there (the port aside) against the server."""
    text = (Path(__file__).parents[2] / "docs" / "dtls.md").read_text()
    shown = text.split("openssl s_client", 1)[1].split("\n```", 1)[0]
    flags = shown.replace("\\\n", " ").split()
    assert flags[flags.index("-connect") + 1] == "127.0.0.1:5684"
    with Server("--handshakes", "1") as server:
        flags[flags.index("-connect") + 1] = server.addr
        s_client = subprocess.Popen(
            ["openssl", "s_client", *flags, "-quiet"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        try:
            done = server.line_with("handshake done")
            assert "psk-aes128-ccm8" in done
        finally:
            s_client.kill()
            s_client.wait()


def test_a_client_whose_session_fails_after_the_handshake_still_prints_json():
    """A client failing after the handshake printed `error:` and no JSON.
    Here the session fails at its first message, longer than a record may
    carry (2^14 bytes, RFC 6347 §4.1 / RFC 5246 §6.2.1): the handshake's
    figures are still reported, with why the session failed."""
    with Server("--handshakes", "1") as server:
        r = client(server.addr, "--send", "x" * 17_000, check=False)
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["cipher_suite"] == "psk-aes128-ccm8"
    assert out["handshake_datagrams_sent"] == 3 and out["messages_sent"] == 0
    assert "too long" in out["error"]
    assert "failed after the handshake" in r.stderr


def test_a_list_of_groups_exercises_the_key_share_hello_retry_request():
    """`--group` offered one group, so a key-share HelloRetryRequest (RFC
    8446 §4.1.4) could not be exercised. A client preferring x25519 sends
    its key share for it; the server takes only secp256r1, so it asks for
    that one, and the client makes a second key pair: 3 ECDH operations
    (two key generations, one agreement) where a matching first group
    takes 2."""
    ecdh = {}
    for groups in ("secp256r1", "x25519,secp256r1"):
        with Server("--version", "1.3", "--psk-dhe", "--group", "secp256r1",
                    "--handshakes", "1") as server:  # fmt: skip
            r = json.loads(
                client(server.addr, "--version", "1.3", "--psk-dhe", "--group", groups).stdout
            )
            assert server.report()["handshakes"][0]["cipher_suite"] == r["cipher_suite"]
        ecdh[groups] = r["stats"]["ecdh_ops"]
    assert ecdh == {"secp256r1": 2, "x25519,secp256r1": 3}


ROOT = Path(__file__).parents[2]


def p256_key_and_cert(d: Path, name: str) -> tuple[Path, Path]:
    key, crt = d / f"{name}.key", d / f"{name}.crt"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-nodes", "-keyout", key, "-out", crt, "-days", "30", "-subj", f"/CN={name}"],
        check=True, capture_output=True,
    )  # fmt: skip
    return key, crt


def read_until(proc: subprocess.Popen[str], text: str) -> list[str]:
    """Lines of `proc`'s stdout up to one holding `text`."""
    assert proc.stdout is not None
    seen = lines_until(proc.stdout, text, NO_HANG_S)
    assert any(text in s for s in seen), seen
    return seen


@pytest.mark.skipif(
    shutil.which("openssl") is None and not NEED_PEERS,
    reason="openssl missing: scripts/setup.sh installs it",
)
def test_the_client_authenticates_with_its_certificate(tmp_path):
    """The client had no --cert/--key. OpenSSL's s_server demanding a
    client certificate (-Verify) it trusts gets ours, with its subject."""
    srv_key, srv_crt = p256_key_and_cert(tmp_path, "server")
    cli_key, cli_crt = p256_key_and_cert(tmp_path, "dtlsim-client")
    s_server, port = peer_on_free_port(
        lambda port: ["openssl", "s_server", "-dtls1_2", "-listen", "-cert", srv_crt,
                      "-key", srv_key, "-cipher", "ECDHE-ECDSA-AES128-CCM8", "-groups",
                      "P-256", "-no_ticket", "-Verify", "1", "-CAfile", cli_crt, "-accept",
                      f"127.0.0.1:{port}"],
        "ACCEPT",
    )  # fmt: skip
    try:
        r = client(f"127.0.0.1:{port}", "--cipher", "ecdhe-ecdsa-aes128-ccm8",
                   "--ca", str(srv_crt), "--cert", str(cli_crt), "--key", str(cli_key),
                   "--count", "0")  # fmt: skip
        assert json.loads(r.stdout)["cipher_suite"] == "ecdhe-ecdsa-aes128-ccm8"
        seen = read_until(s_server, "CIPHER is")
        assert any("subject=CN = dtlsim-client" in s for s in seen), seen
    finally:
        s_server.kill()
        s_server.wait()


@pytest.mark.skipif(
    not WOLF_SERVER.exists() and not NEED_PEERS,
    reason="wolfSSL peer missing: scripts/setup.sh builds it",
)
def test_the_client_authenticates_with_its_raw_public_key(tmp_path):
    """A server that asks for the client's raw public key (RFC 7250; what
    tinydtls's ECDHE server always does): wolfSSL pinned to ours."""
    wolf_key, _ = p256_key_and_cert(tmp_path, "wolf")
    cli_key, _ = p256_key_and_cert(tmp_path, "ours")
    spki = {}
    for name, key in (("wolf", wolf_key), ("ours", cli_key)):
        for form, suffix in (("DER", "der"), ("PEM", "pem")):
            spki[name, form] = tmp_path / f"{name}.spki.{suffix}"
            subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-outform", form,
                            "-out", spki[name, form]], check=True)  # fmt: skip
    server, port = peer_on_free_port(
        lambda port: [WOLF_SERVER, "--version", "1.2", "--port", str(port), "--cipher",
                      "ECDHE-ECDSA-AES128-CCM-8", "--cert", spki["wolf", "DER"], "--key",
                      wolf_key, "--rpk", spki["ours", "DER"], "--sessions", "1",
                      "--duration", "30"],
        "listening",
    )  # fmt: skip
    try:
        r = client(f"127.0.0.1:{port}", "--cipher", "ecdhe-ecdsa-aes128-ccm8", "--rpk",
                   "--ca", str(spki["wolf", "PEM"]), "--key", str(cli_key),
                   "--send", "raw")  # fmt: skip
        assert json.loads(r.stdout)["received"] == ["raw"]
    finally:
        server.kill()
        server.wait()


def test_session_resumption_on_the_command_line(tmp_path):
    """No resumption on either side of the command line: `dtls server
    --session-cache N` keeps sessions by ID, `dtls client --resume FILE`
    saves the session (readable by its owner alone, never printed) and
    offers it the next time: the abbreviated handshake (RFC 5246 §7.3)."""
    saved = tmp_path / "session.json"
    with Server("--session-cache", "4", "--handshakes", "2") as server:
        first = json.loads(client(server.addr, "--resume", str(saved)).stdout)
        assert saved.stat().st_mode & 0o777 == 0o600
        second = json.loads(client(server.addr, "--resume", str(saved)).stdout)
        resumed = server.line_with("resumed")
        hs = server.report()["handshakes"]
    assert (first["resumed"], second["resumed"]) == (False, True)
    assert [h["resumed"] for h in hs] == [False, True]
    assert "DTLS 1.2 psk-aes128-ccm8" in resumed
    # no key exchange: the server's flight is shorter
    assert second["handshake_bytes_received"] < first["handshake_bytes_received"]
    secret = json.loads(saved.read_text())["master_secret"]
    assert len(bytes.fromhex(secret)) == 48
    assert "resumable_session" not in first and secret not in json.dumps(second)


def test_dtls13_session_resumption_on_the_command_line(tmp_path):
    """`--session-cache` and `--resume` were refused with DTLS 1.3 (no
    tickets). The server now sends a ticket after each handshake (RFC 8446
    §4.6.1), the client waits for it, saves it as 1.2's session is saved
    (its owner alone may read it, never printed) and offers it next time;
    the ticket is used up by that resumption and replaced by a new one, and
    a server that does not hold it (restarted) does a full handshake."""
    saved = tmp_path / "ticket.json"
    v13 = ("--version", "1.3")
    with Server(*v13, "--session-cache", "4", "--handshakes", "2") as server:
        first = json.loads(client(server.addr, *v13, "--resume", str(saved)).stdout)
        assert saved.stat().st_mode & 0o777 == 0o600
        ticket = json.loads(saved.read_text())
        second = json.loads(client(server.addr, *v13, "--resume", str(saved)).stdout)
        resumed = server.line_with("resumed")
        hs = server.report()["handshakes"]
    assert (first["resumed"], second["resumed"]) == (False, True)
    assert [h["resumed"] for h in hs] == [False, True]
    assert "DTLS 1.3" in resumed
    assert ticket["version"] == "1.3" and len(bytes.fromhex(ticket["psk"])) == 32
    renewed = json.loads(saved.read_text())
    assert renewed["identity"] != ticket["identity"]
    out = first | second
    assert "resumable_session" not in out
    assert ticket["psk"] not in json.dumps([first, second])
    # a server without the ticket (restarted, so on another port: the file
    # names the server it is for): a full handshake, no failure
    with Server(*v13, "--session-cache", "4", "--handshakes", "1") as server:
        saved.write_text(json.dumps(renewed | {"server": server.addr}))
        third = json.loads(client(server.addr, *v13, "--resume", str(saved)).stdout)
        assert server.report()["failures"] == []
    assert third["resumed"] is False
    # a DTLS 1.2 session file is not offered to a 1.3 server
    one_two = tmp_path / "one_two.json"
    one_two.write_text(json.dumps(renewed | {"version": "1.2", "server": "127.0.0.1:9"}))
    r = client("127.0.0.1:9", *v13, "--resume", str(one_two), check=False)
    assert r.returncode != 0 and "a DTLS 1.2 session, not 1.3" in r.stderr


@pytest.mark.parametrize(
    ("server_args", "client_args", "rounds"),
    [
        # the cookie round alone (the server requires a cookie, RFC 9147 §5.1)
        ((), (), 2),
        # a key-share HelloRetryRequest (RFC 8446 §4.1.4) carrying the cookie:
        # the client's first share is for x25519, the server takes secp256r1
        (("--psk-dhe", "--group", "secp256r1"), ("--psk-dhe", "--group", "x25519,secp256r1"), 2),
    ],
    ids=["cookie", "key-share"],
)
def test_the_dtls13_server_counts_the_hello_retry_request_round(server_args, client_args, rounds):
    """The 1.3 server's per-handshake figures left out the HelloRetryRequest
    round (its first ClientHello and the HelloRetryRequest are answered
    statelessly, before the session exists): 2+2 datagrams were reported,
    3+3 were on the wire. They now equal what the client sent, datagrams and
    bytes, and what it received plus the ACK of its Finished (RFC 9147
    §5.8.1, §7), which comes after the client's handshake completed."""
    with Server("--version", "1.3", *server_args, "--handshakes", "1") as server:
        c = json.loads(client(server.addr, "--version", "1.3", *client_args).stdout)
        report = server.report()
    (h,) = report["handshakes"]
    s = h["stats"]
    assert report["hello_retry_requests"] == 1
    assert c["handshake_datagrams_sent"] == rounds + 1, c
    assert (s["datagrams_received"], s["bytes_received"]) == (
        c["handshake_datagrams_sent"],
        c["handshake_bytes_sent"],
    )
    assert s["datagrams_sent"] == c["handshake_datagrams_received"] + 1
