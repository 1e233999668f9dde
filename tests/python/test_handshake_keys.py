"""The keys that choose a handshake (protocol, method, suite, credentials,
group) refuse a bad value naming the file, the key, the value and what is
allowed."""

from __future__ import annotations

import pytest

from dtlsim.scenario import SCENARIO_DIR

BASE = (SCENARIO_DIR / "tune-tsch.toml").read_text()


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('handshake = ["dtls", "edhoc"]', 'handshake = "tls"',
         "workload.handshake = 'tls': must be one of 'dtls' or 'edhoc'"),
        ('method = "static_dh"', 'method = "psk"',
         "edhoc.method = 'psk': must be one of 'static_dh' or 'signature'"),
        ('suite = "p256"', 'suite = "p384"',
         "edhoc.suite = 'p384': must be one of 'p256' or 'x25519'"),
        ('credentials = "kid"', 'credentials = "x509"',
         "edhoc.credentials = 'x509': must be one of 'kid' or 'ccs'"),
        ('version = "1.3"', 'version = "1.1"',
         "dtls.version = '1.1': must be one of '1.2' or '1.3'"),
        ('version = "1.3"', 'version = "1.3"\ngroup = "curve448"',
         "dtls.group = 'curve448': must be one of 'secp256r1' or 'x25519'"),
        ('method = "static_dh"', 'method = "signature"',
         "edhoc.method = 'signature': 'static_dh' (lakers 0.8 implements method 3 only)"),
    ],
)  # fmt: skip
def test_a_bad_handshake_key_names_file_key_value_and_allowed(cli, tmp_path, old, new, says):
    assert old in BASE
    path = tmp_path / "bad.toml"
    path.write_text(BASE.replace(old, new, 1))
    out = cli("scenario", "check", str(path), code=2)
    assert "bad.toml" in out
    assert says in " ".join(out.split())
