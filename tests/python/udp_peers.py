"""What the tests that run peers over real UDP on loopback share: servers
started on a port nobody else holds, where the wolfSSL peer is built, and
whether a missing peer must fail (scripts/test.sh sets
DTLSIM_REQUIRE_PEERS=1) instead of skipping.

A port found free and then handed to another program can be taken in
between by another test (pytest runs two workers, each starting servers):
our server binds port 0 and says which port it got; a peer that needs a
port number is started again on another port when its bind failed with
"Address already in use", a bounded number of times.
"""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
WOLF_SERVER = ROOT / ".peers/wolfssl/bin/wolfssl-dtls-server"
NEED_PEERS = os.environ.get("DTLSIM_REQUIRE_PEERS") == "1"
DTLSIM = [sys.executable, "-m", "dtlsim.cli"]

# estimate: a server binds within a few seconds even on a loaded 2-core
# machine; one that has said nothing by then has hung, and the test fails.
READY_TIMEOUT_S = 60.0
# A peer whose port was taken between the pick and its bind is started on
# another port this many times at most (two workers race for ports rarely).
BIND_ATTEMPTS = 5
IN_USE = "Address already in use"


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 nobody is bound to now (it may be taken by
    the time it is used: see `peer_on_free_port`)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def lines_until(stream: IO[str], text: str, timeout_s: float = READY_TIMEOUT_S) -> list[str]:
    """The lines of `stream` up to and with the first holding `text`, or all
    of them if it ends first; read in a thread, so a program that prints
    neither fails the test (queue.Empty) instead of hanging it."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in iter(stream.readline, ""):
            lines.put(line)
            if text in line:
                break
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    seen = []
    while (line := lines.get(timeout=timeout_s)) is not None:
        seen.append(line)
    return seen


def our_server(*args: str | Path) -> tuple[subprocess.Popen[str], int]:
    """`dtlsim dtls server --json` (with `args`) on a port the kernel picks
    (port 0, no race), once it is listening, and that port. Its stdout
    holds the JSON report; stderr the rest of its log."""
    proc = subprocess.Popen(
        [*DTLSIM, "dtls", "server", "--bind", "127.0.0.1:0", "--json", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    seen = lines_until(proc.stderr, "listening on ")
    if not seen or not seen[-1].startswith("listening on "):
        proc.kill()
        raise AssertionError(f"our server did not start: {''.join(seen)}")
    # "listening on 127.0.0.1:PORT (DTLS …)"
    return proc, int(seen[-1].split()[2].rsplit(":", 1)[1])


def peer_on_free_port(
    command: Callable[[int], Sequence[str | Path]], ready: str
) -> tuple[subprocess.Popen[str], int]:
    """The peer `command(port)` started on a free port, once it printed
    `ready` (its stdout and stderr as one stream), and the port; started
    again on another port if the one picked was taken before it bound."""
    seen: list[str] = []
    for _ in range(BIND_ATTEMPTS):
        port = free_udp_port()
        proc = subprocess.Popen(
            [*command(port)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert proc.stdout is not None
        seen = lines_until(proc.stdout, ready)
        if seen and ready in seen[-1]:
            return proc, port
        proc.kill()
        proc.wait()
        if not any(IN_USE in line for line in seen):
            break
    raise AssertionError(f"the peer did not start: {''.join(seen)}")
