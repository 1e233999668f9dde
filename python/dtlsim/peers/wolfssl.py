"""wolfSSL's DTLS server and client (peers/wolfssl/*.c, built by
scripts/peers/wolfssl.sh) as subprocesses: one session through the project's
seeded relay, measured by the programs themselves and read from the lines
they print."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from dtlsim import _core

# Where DTLSIM_WOLFSSL_BIN names the programs, else where
# scripts/peers/wolfssl.sh (part of `make setup`) builds them in a checkout.
BIN = Path(
    os.environ.get("DTLSIM_WOLFSSL_BIN")
    or Path(__file__).resolve().parents[3] / ".peers" / "wolfssl" / "bin"
)
# estimate: 15 MB leave a loopback sender in a few seconds; a bulk sender
# still writing after this long is stopped
BULK_SEND_LIMIT_S = 60.0


def programs() -> tuple[Path, Path]:
    """The server and the client program; a missing one is an error that
    says how to build it."""
    server, client = BIN / "wolfssl-dtls-server", BIN / "wolfssl-dtls-client"
    for p in (server, client):
        if not p.is_file():
            raise FileNotFoundError(
                f"{p} is missing: build the peers with scripts/peers/wolfssl.sh (part of "
                "`make setup` in a checkout of dtlsim), or name their directory in "
                "DTLSIM_WOLFSSL_BIN"
            )
    return server, client


def session(
    version: str,
    cipher: str,
    seed: int,
    *,
    psk_hex: str | None = None,
    cert: Path | None = None,
    key: Path | None = None,
    delay_ms: float = 0.0,
    drop: tuple[str, int] | None = None,
    bulk_records: int = 0,
    record_bytes: int = 500,
    send: str = "hello",
    timeout_s: float = 10.0,
) -> dict[str, Any]:
    """The wolfSSL server, a relay (none for a bulk transfer) and the
    wolfSSL client, with a PSK (`psk_hex`) or the server's certificate and
    key (the client pins the certificate). The client sends `send` and waits
    for its echo, or sends `bulk_records` records of `record_bytes` without
    echo. Returns what the client measured (`handshake_*` as dtlsim's own
    client reports them), the records the server received and the relay's
    counts; `seed` seeds the relay (wolfSSL draws its own random numbers)."""
    server_bin, client_bin = programs()
    common = ["--version", version, "--cipher", cipher]
    server_args, client_args = [], []
    if psk_hex is not None:
        common += ["--psk", psk_hex]
        # a 1.3 PSK without ECDHE (psk_ke), as dtlsim's 1.3 PSK pair runs
        common += ["--psk-mode", "ke"] if version == "1.3" else []
    else:
        server_args += ["--cert", str(cert), "--key", str(key)]
        client_args += ["--ca", str(cert)]
    server, port = _start_server(
        [server_bin, *common, *server_args, "--sessions", "1",
         "--duration", str(timeout_s + BULK_SEND_LIMIT_S + 5.0),
         "--echo", "no" if bulk_records else "yes",
         "--idle", str(timeout_s)],
    )  # fmt: skip
    relay = None
    try:
        target = f"127.0.0.1:{port}"
        if not bulk_records:
            way = {"drop_direction": drop[0], "drop_nth": drop[1]} if drop else {}
            relay = _core.UdpRelay(target, delay_ms=delay_ms, seed=seed + 1, **way)
            target = relay.addr
        host, _, relay_port = target.rpartition(":")
        work = ["--bulk", str(bulk_records), "--record-bytes", str(record_bytes)]
        # a bulk transfer gets its own time; `timeout_s` bounds the waits
        client_s = timeout_s + (BULK_SEND_LIMIT_S if bulk_records else 0.0)
        start = time.perf_counter()
        client = subprocess.run(
            [client_bin, *common, *client_args, "--host", host, "--port", relay_port,
             "--duration", str(client_s), *(work if bulk_records else ["--send", send])],
            capture_output=True, text=True, timeout=client_s + 10.0,
        )  # fmt: skip
        wall = time.perf_counter() - start
        served, _ = server.communicate(timeout=timeout_s + BULK_SEND_LIMIT_S + 10.0)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
        counts = relay.counts() if relay else None
        if relay:
            relay.stop()
    measured = _fields(client.stdout, "measured")
    if not measured:
        raise OSError(f"the wolfSSL client did not complete a handshake:\n{client.stdout}")
    return {
        "client": {
            "handshake_time_s": measured["handshake_us"] / 1e6,
            "handshake_datagrams_sent": measured["datagrams_sent"],
            "handshake_datagrams_received": measured["datagrams_received"],
            "handshake_bytes_sent": measured["bytes_sent"],
            "handshake_bytes_received": measured["bytes_received"],
            # wolfSSL does not report its retransmissions
            "retransmissions": None,
            "received": ["echo"] if "echo bytes=" in client.stdout else [],
            "bulk_send_s": _fields(client.stdout, "bulk").get("send_us", 0) / 1e6,
        },
        "server": {"received_total": _fields(served, "records").get("received", 0)},
        "relay": counts,
        "wall_s": wall,
    }


# A free port is found by binding and closing a probe socket; a session
# running beside this one may take it before the server binds it, so the
# server is started on another one, this many times at most.
SERVER_START_ATTEMPTS = 5


def _start_server(command: list[str | Path]) -> tuple[subprocess.Popen[str], int]:
    """The wolfSSL server listening on a free loopback port, and the port."""
    for _ in range(SERVER_START_ATTEMPTS):
        port = _free_udp_port()
        server = subprocess.Popen(
            [*command, "--port", str(port)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert server.stdout is not None
        first = server.stdout.readline()
        if first.startswith("listening"):
            return server, port
        rest, _ = server.communicate()
        if "Address already in use" not in first + rest:
            break
    raise OSError(f"the wolfSSL server did not start: {first}{rest}")


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _fields(output: str, prefix: str) -> dict[str, int]:
    """The `key=number` pairs of the first `prefix …` line a peer printed."""
    for line in output.splitlines():
        if line.startswith(prefix + " "):
            return {k: int(v) for k, v in re.findall(r"(\w+)=(-?\d+)", line)}
    return {}
