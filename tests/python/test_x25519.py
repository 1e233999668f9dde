"""DTLS 1.3's x25519 group in the simulator pays the platform's X25519 cost."""

from __future__ import annotations

import pytest

import dtlsim
from dtlsim.platform import load_platform


def test_an_x25519_key_exchange_is_charged_at_x25519s_cost():
    software = load_platform("openmote-cc2538").strategy("software")
    p256, x25519 = software.p256_ecdh_us.value, software.curve25519.x25519_us.value
    cpu = {}
    for group in ("secp256r1", "x25519"):
        sc = dtlsim.load_scenario(
            "exp7-dtls13-sim",
            {"dtls.psk_mode": "psk_dhe_ke", "dtls.group": group, "topology.pdr": 1.0},
        )
        rows = dtlsim.run(sc, replications=1)
        assert rows.success.all()
        cpu[group] = rows.client_crypto_cpu_us.iloc[0]
    # the client generates a key share and computes one shared secret: two
    # ECDH operations; the rest differs by a few hash blocks (shorter shares)
    sha = software.sha256_block_us.value
    assert cpu["secp256r1"] - cpu["x25519"] == pytest.approx(2 * (p256 - x25519), abs=4 * sha)


def test_x25519_is_refused_where_no_key_exchange_runs(cli):
    out = cli("scenario", "check", "exp7-dtls13-sim", "--set", "dtls.group=x25519", code=2)
    assert "dtls.group = 'x25519'" in out and "psk_dhe_ke" in out
