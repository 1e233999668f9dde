"""Backend hosts: the cost tables in ``platforms/hosts/*.toml`` that a
server may be charged at instead of its nodes' platform.

RFC 9031 §3 places the join registrar/coordinator (JRC) in the backend, not
on a constrained node; `sessions.server_crypto = "host"` charges the storm's
server (the DTLS server, the EDHOC responder, CoJP's JRC) at the host's
table. A host file holds only cryptography: the border router's radio and
energy stay the platform's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dtlsim.platform import Curve25519, NonNegative, platforms_dir
from dtlsim.problems import did_you_mean
from dtlsim.schema import FileError, Problem, Table, check_file, parse_toml

# the host `sessions.server_crypto = "host"` names (one so far)
HOST = "x86-64"


@dataclass(frozen=True)
class HostCrypto(Table):
    """What the server's handshakes pay on the host (µs)."""

    aes_block_us: NonNegative
    aes256_block_us: NonNegative
    sha256_block_us: NonNegative
    sha512_block_us: NonNegative
    p256_ecdh_us: NonNegative
    p256_ecdsa_sign_us: NonNegative
    p256_ecdsa_verify_us: NonNegative
    curve25519: Curve25519


@dataclass(frozen=True)
class Host(Table):
    """One backend host, as read from ``platforms/hosts/<id>.toml`` (its
    rules: the core's, crates/schema platform_file.rs `HOST`)."""

    schema_version: int
    name: str
    id: str
    summary: str
    crypto: HostCrypto


# the class of each table the core tags a checked host file's tables with
CLASSES: dict[str, type[Table]] = {
    c.__name__: c for c in (NonNegative, Curve25519, HostCrypto, Host)
}


def hosts_dir() -> Path:
    return platforms_dir() / "hosts"


def load_host(name: str = HOST) -> Host:
    """Load and check a host by id; FileError names the file, each bad
    key, its value and what is allowed."""
    path = hosts_dir() / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in hosts_dir().glob("*.toml"))
        why = f"no such host{did_you_mean(name, known)}; known: {', '.join(known) or '(none)'}"
        raise FileError(path, [Problem("(file)", name, why)])
    host: Host = check_file(path, parse_toml(path), "host", CLASSES)
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
