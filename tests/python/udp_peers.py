"""What the tests that run peers over real UDP on loopback share: a free
port, where the wolfSSL peer is built, and whether a missing peer must fail
(scripts/test.sh sets DTLSIM_REQUIRE_PEERS=1) instead of skipping."""

from __future__ import annotations

import os
import socket
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WOLF_SERVER = ROOT / ".peers/wolfssl/bin/wolfssl-dtls-server"
NEED_PEERS = os.environ.get("DTLSIM_REQUIRE_PEERS") == "1"


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 nobody is bound to now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
