"""Backend hosts: the cost tables in ``platforms/hosts/*.toml`` that a
server may be charged at instead of its nodes' platform.

RFC 9031 §3 places the join registrar/coordinator (JRC) in the backend, not
on a constrained node; `sessions.server_crypto = "host"` charges the storm's
server (the DTLS server, the EDHOC responder, CoJP's JRC) at the host's
table. A host file holds only cryptography: the border router's radio and
energy stay the platform's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from dtlsim.platform import Curve25519, NonNegative, Text, platforms_dir
from dtlsim.problems import did_you_mean
from dtlsim.schema import FileError, Problem, StrictModel, parse_toml, validate

# the host `sessions.server_crypto = "host"` names (one so far)
HOST = "x86-64"


class HostCrypto(StrictModel):
    """What the server's handshakes pay on the host (µs)."""

    aes_block_us: NonNegative
    aes256_block_us: NonNegative
    sha256_block_us: NonNegative
    sha512_block_us: NonNegative
    p256_ecdh_us: NonNegative
    p256_ecdsa_sign_us: NonNegative
    p256_ecdsa_verify_us: NonNegative
    curve25519: Curve25519


class Host(StrictModel):
    """One backend host, as read from ``platforms/hosts/<id>.toml``."""

    schema_version: Literal[1]
    name: Text
    id: str
    summary: Text
    crypto: HostCrypto


def hosts_dir() -> Path:
    return platforms_dir() / "hosts"


def load_host(name: str = HOST) -> Host:
    """Load and validate a host by id; FileError names the file, each bad
    key, its value and what is allowed."""
    path = hosts_dir() / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in hosts_dir().glob("*.toml"))
        why = f"no such host{did_you_mean(name, known)}; known: {', '.join(known) or '(none)'}"
        raise FileError(path, [Problem("(file)", name, why)])
    host = validate(path, parse_toml(path), Host)
    if host.id != path.stem:
        raise FileError(
            path, [Problem("id", host.id, f"must equal the file name stem {path.stem!r}")]
        )
    return host


def server_crypto(host: Host) -> dict[str, Any]:
    """The host's table in the shape of the core's `CryptoCost`."""
    c = host.crypto
    return {
        "aes_block_us": c.aes_block_us.value,
        "sha256_block_us": c.sha256_block_us.value,
        "aes256_block_us": c.aes256_block_us.value,
        "sha512_block_us": c.sha512_block_us.value,
        "ecdh_us": c.p256_ecdh_us.value,
        "ecdsa_sign_us": c.p256_ecdsa_sign_us.value,
        "ecdsa_verify_us": c.p256_ecdsa_verify_us.value,
        "curve25519": {
            "x25519_us": c.curve25519.x25519_us.value,
            "ed25519_sign_us": c.curve25519.ed25519_sign_us.value,
            "ed25519_verify_us": c.curve25519.ed25519_verify_us.value,
        },
    }
