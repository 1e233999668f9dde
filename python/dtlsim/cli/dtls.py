"""`dtlsim dtls server` and `dtlsim dtls client`: DTLS 1.2 or 1.3 over real
UDP with the simulator's stack; the key from an option, a file or the
environment, never a built-in one."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from dtlsim import _core
from dtlsim.cli.common import Json, console, emit_json, err_console, fail, failing_on, show

app = typer.Typer(
    help="DTLS 1.2 (RFC 6347) or 1.3 (RFC 9147) over real UDP (the same stack as the simulator)."
)


def _psk_hex(cipher: str, psk: str | None, psk_file: Path | None) -> str | None:
    """The PSK for a PSK suite, from --psk, --psk-file or DTLSIM_PSK; a PSK
    suite without one is refused (never a built-in or empty key)."""
    if psk is not None and psk_file is not None:
        fail("--psk and --psk-file: give the key one way, not both")
    if psk_file is not None:
        try:
            psk = psk_file.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError) as e:
            fail(f"--psk-file {psk_file}: cannot read a hex key ({e})")
    if psk is None and cipher.lower().startswith("psk"):
        fail(
            f"--psk: the suite {cipher} needs a pre-shared key; give --psk HEX, "
            "--psk-file FILE (hex; not visible in the process list) or the "
            "DTLSIM_PSK environment variable"
        )
    return psk


def _settings(
    version: str,
    suite: str,
    psk: str | None,
    psk_file: Path | None,
    identity: str,
    records: str,
    mtu: int,
) -> str:
    """The endpoint's settings as a scenario's [dtls] table (JSON): its names,
    its rules; OpenSSL's suite names are dtlsim's in upper case. DTLS 1.3 is
    given its suite apart (the table's 1.2 suite is not used) and its PSK is
    optional: without one the handshake is ECDHE with a certificate or raw
    public key."""
    import json

    if version == "1.3":
        cipher, key = "psk-aes128-ccm8", _psk_hex("", psk, psk_file)
    else:
        cipher, key = suite, _psk_hex(suite, psk, psk_file)
    settings = {
        "suite": cipher.lower(),
        "identity": identity,
        "records_per_datagram": records,
        "mtu_bytes": mtu,
        # a fragment fills a datagram, up to the largest one (2^14)
        "max_fragment_bytes": min(mtu, 16_384),
        "retransmission": {
            "policy": "doubling",
            "initial_ms": 1000.0,
            "max_ms": 60_000.0,
            "max_retransmissions": 6,
        },
    }
    if key is not None:
        settings["psk_hex"] = key
    return json.dumps(settings)


def _read(path: Path | None) -> bytes | None:
    """A certificate or key file's bytes, if one is given."""
    return path.read_bytes() if path else None


PskFile = Annotated[
    Path | None,
    typer.Option(help="File holding the pre-shared key in hex (kept out of the process list)."),
]
Psk = Annotated[
    str | None,
    typer.Option(help="Pre-shared key, hex (or DTLSIM_PSK, or --psk-file).", envvar="DTLSIM_PSK"),
]


Cipher = Annotated[
    str | None,
    typer.Option("--cipher", "--suite",
                 help="DTLS 1.2: psk-aes128-ccm8 (default), ecdhe-ecdsa-aes128-ccm8, "
                 "psk-aes128-gcm-sha256, ecdhe-ecdsa-aes128-gcm-sha256 (OpenSSL names work too). "
                 "DTLS 1.3: TLS_AES_128_CCM_8_SHA256 (default), TLS_AES_128_GCM_SHA256, "
                 "TLS_AES_256_GCM_SHA384 (RFC 8446 names)."),
]  # fmt: skip
Version = Annotated[str, typer.Option("--version", help="DTLS version: 1.2 or 1.3.")]
Cid = Annotated[
    int | None,
    typer.Option(min=0, max=20, help="Negotiate a connection ID of this many bytes for this "
                 "side (DTLS 1.2: RFC 9146; 1.3: RFC 9147 §9); 0 asks the peer for none but "
                 "accepts the peer's."),
]  # fmt: skip
Rpk = Annotated[
    bool,
    typer.Option(help="A raw public key (RFC 7250) instead of a certificate (DTLS 1.2 with an "
                 "ECDHE-ECDSA --cipher, or 1.3); the server's from --key, the client pins the "
                 "server's public key given by --ca."),
]  # fmt: skip
PskDhe = Annotated[
    bool, typer.Option(help="DTLS 1.3: with the PSK also ECDHE (psk_dhe_ke, RFC 8446 §4.2.9).")
]
Group = Annotated[
    str,
    typer.Option(help="DTLS 1.3 ECDHE groups, comma-separated in order of preference "
                 "(secp256r1, x25519): a client sends a key share for the first and offers "
                 "all; a server takes the first the client offers and, when the client's key "
                 "share is for another, asks for it with a HelloRetryRequest."),
]  # fmt: skip
CaCert = Annotated[
    Path | None,
    typer.Option("--ca-cert", "--ca", help="Accept only this server certificate (pinned); "
                 "with --rpk the server's public key (PEM)."),
]  # fmt: skip

DEFAULT_SUITE = {"1.2": "psk-aes128-ccm8", "1.3": "TLS_AES_128_CCM_8_SHA256"}


def _version_and_suite(
    version: str, cipher: str | None, rpk: bool, psk_dhe: bool = False, group: str = "secp256r1"
) -> str:
    """The suite a version runs (its default when none is given); the
    1.3-only options are refused with 1.2."""
    if version not in DEFAULT_SUITE:
        fail(f"--version {version}: one of 1.2, 1.3")
    if version == "1.2" and psk_dhe:
        fail("--psk-dhe is a DTLS 1.3 option (psk_dhe_ke); add --version 1.3")
    if version == "1.2" and group != "secp256r1":
        fail(f"--group {group}: DTLS 1.2 runs its ECDHE suites on secp256r1 here; "
             "--group is a DTLS 1.3 option (add --version 1.3)")  # fmt: skip
    suite = cipher or DEFAULT_SUITE[version]
    if version == "1.2" and rpk and not suite.lower().startswith("ecdhe-ecdsa"):
        fail(f"--rpk authenticates ECDHE-ECDSA, not --cipher {suite}; "
             "add --cipher ecdhe-ecdsa-aes128-ccm8")  # fmt: skip
    return suite


Records = Annotated[str, typer.Option(help="Records per datagram: one or flight.")]
Identity = Annotated[str, typer.Option(help="PSK identity.")]
# the scenario key dtls.mtu_bytes's range
Mtu = Annotated[int, typer.Option(min=64, max=65_507, help="Largest datagram (bytes).")]


class Eviction(StrEnum):
    """What makes room for a new handshake when the session table is full."""

    refuse = "refuse"
    evict_lru = "evict-lru"
    evict_oldest = "evict-oldest"
    evict_half_open = "evict-half-open"


@app.command("server")
def dtls_server(
    bind: Annotated[str, typer.Option(help="HOST:PORT to listen on.")] = "127.0.0.1:5684",
    version: Version = "1.2",
    psk: Psk = None,
    psk_file: PskFile = None,
    identity: Identity = "Client_identity",
    cert: Annotated[Path | None, typer.Option(help="Certificate (PEM/DER, P-256).")] = None,
    key: Annotated[Path | None, typer.Option(help="Private key (PEM/DER).")] = None,
    cipher: Cipher = None,
    rpk: Rpk = False,
    cid: Cid = None,
    psk_dhe: PskDhe = False,
    group: Group = "secp256r1",
    records: Records = "flight",
    mtu: Mtu = 1400,
    handshakes: Annotated[
        int | None,
        typer.Option(min=1, help="Stop after this many handshakes (and their sessions)."),
    ] = None,
    duration: Annotated[float | None, typer.Option(help="Stop after this many seconds.")] = None,
    max_sessions: Annotated[
        int | None,
        typer.Option(min=1, help="Sessions held at once, half-open or established (default 16)."),
    ] = None,
    max_half_open: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Handshakes past the cookie exchange (RFC 6347 "
            "§4.2.1, RFC 9147 §5.1) held at once (default: half the sessions).",
        ),
    ] = None,
    half_open_timeout: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            max=86400.0,
            help="Seconds a handshake may stay "
            "half-open before its slot is freed (default 246: two flights of a client "
            "retrying on the RFC 6347 timer).",
        ),
    ] = None,
    idle_timeout: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            max=31_536_000.0,
            help="Seconds an established session may stay silent before its slot is "
            "freed (default 3600: a client that vanished without a close_notify never "
            "comes back to it, RFC 7925 §10); a session silent 60 s or more is evicted "
            "rather than a newcomer refused.",
        ),
    ] = None,
    per_address: Annotated[
        int | None,
        typer.Option(min=1, help="Sessions from one IP address, any port (default 4)."),
    ] = None,
    eviction: Annotated[
        Eviction | None,
        typer.Option(help="What makes room when the table is full (default evict-half-open)."),
    ] = None,
    session_cache: Annotated[
        int,
        typer.Option(
            min=0,
            max=100_000,
            help="Sessions kept for resumption, the oldest dropped first: by "
            "session ID with DTLS 1.2 (RFC 5246 §7.3), as tickets with DTLS 1.3 "
            "(RFC 8446 §4.6.1, each good for one resumption within an hour); 0: none.",
        ),
    ] = 0,
    as_json: Json = False,
) -> None:
    """Serve DTLS on UDP and echo application data (Ctrl-C stops)."""
    import threading

    suite = _version_and_suite(version, cipher, rpk, psk_dhe, group)
    if duration is not None and not 0 < duration <= 86_400:
        # refused before the socket is bound and "listening" printed
        fail(f"--duration {duration:g}: must be a number of seconds in the range (0, 86400]")
    limits = {
        "max_sessions": max_sessions,
        "max_half_open": max_half_open,
        "half_open_timeout_s": half_open_timeout,
        "idle_timeout_s": idle_timeout,
        "per_address": per_address,
        "eviction": eviction.value if eviction else None,
    }
    with failing_on(OSError, ValueError):
        settings = _settings(version, suite, psk, psk_file, identity, records, mtu)
        keys = {"certificate": _read(cert), "private_key": _read(key), "rpk": rpk}
        if version == "1.3":
            server = _core.UdpServer13(
                bind,
                settings,
                suite=suite,
                group=group,
                psk_dhe=psk_dhe,
                cid=cid,
                session_cache=session_cache,
                **keys,
                **limits,
            )
        else:
            server = _core.UdpServer(
                bind, settings, cid=cid, session_cache=session_cache, **keys, **limits
            )
    listening = f"listening on {server.local_addr} (DTLS {version}, {suite})"
    if as_json:
        # stdout carries the JSON report alone; the log goes to stderr
        err_console.print(escape(listening), highlight=False)
    else:
        console.print(escape(listening))
    sys.stdout.flush()
    result: dict[str, Any] = {}

    finished = threading.Event()

    def serve() -> None:
        try:
            result["report"] = server.run(max_seconds=duration, after_sessions_ended=handshakes)
        except BaseException as e:  # a panic too: reported below, in the main thread
            result["error"] = e
        finally:
            finished.set()

    threading.Thread(target=serve, daemon=True).start()
    # an Event, not Thread.join: a join interrupted by Ctrl-C can mark the
    # thread finished while it still runs (CPython bpo-45274's fix), and the
    # report would be lost
    other = "1.2" if version == "1.3" else "1.3"
    while not finished.is_set():
        try:
            finished.wait(0.2)
        except KeyboardInterrupt:
            # Ctrl-C is how a server is stopped: the report of what was
            # served is still shown (a second Ctrl-C lands here again)
            server.stop()
        _print_log(server, other)
    _print_log(server, other)
    if "error" in result:
        fail(_option_names(str(result["error"])))
    report = result["report"]
    if as_json:
        emit_json(report)
        return
    rows = [
        {
            "peer": h["peer"],
            "suite": h["cipher_suite"],
            "handshake ms": h["duration_s"] * 1000,
            "datagrams out": h["stats"]["datagrams_sent"],
            "bytes out": h["stats"]["bytes_sent"],
            "bytes in": h["stats"]["bytes_received"],
        }
        for h in report["handshakes"]
    ]
    show("Handshakes", rows)
    cookies = (
        f"{report['hello_retry_requests']} HelloRetryRequests"
        if version == "1.3"
        else f"{report['hello_verify_requests']} HelloVerifyRequests"
    )
    console.print(
        f"echoed {report['echoed']} record(s); {report['datagrams_received']} datagrams in, "
        f"{report['datagrams_sent']} out; {cookies}; "
        f"{report['failures_total']} failed session(s)"
    )


def _print_log(server: Any, other: str) -> None:
    """The server's log since the last call, a line per handshake's
    outcome as it happened, on stderr (stdout keeps the report)."""
    for kind, _peer, line in server.take_log():
        if kind == "other_version":
            line += f" (dtls server --version {other} speaks it)"
        err_console.print(escape(line), highlight=False, soft_wrap=True)


@app.command("client")
def dtls_client(
    connect: Annotated[str, typer.Option(help="Server HOST:PORT.")] = "127.0.0.1:5684",
    version: Version = "1.2",
    psk: Psk = None,
    psk_file: PskFile = None,
    identity: Identity = "Client_identity",
    ca_cert: CaCert = None,
    cert: Annotated[
        Path | None,
        typer.Option(
            help="This client's certificate (PEM/DER, P-256), offered when the "
            "server asks for one (certificate suites)."
        ),
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(
            help="This client's private key (PEM/DER, P-256), for --cert, or with "
            "--rpk its raw public key (RFC 7250) is offered."
        ),
    ] = None,
    cipher: Cipher = None,
    rpk: Rpk = False,
    cid: Cid = None,
    psk_dhe: PskDhe = False,
    group: Group = "secp256r1",
    records: Records = "flight",
    mtu: Mtu = 1400,
    send: Annotated[str, typer.Option(help="Text to send after the handshake.")] = "hello",
    count: Annotated[
        int,
        typer.Option(
            min=0,
            help="How many times to send it (echoes awaited; the messages are built "
            f"before the handshake, so a run sends at most {_core.MAX_MESSAGES}).",
        ),
    ] = 1,
    timeout: Annotated[float, typer.Option(help="Seconds for the handshake and replies.")] = 10.0,
    resume: Annotated[
        Path | None,
        typer.Option(
            help="Offer to resume the session saved in this file (if it exists), "
            "and save the new session there: a session ID with DTLS 1.2 (RFC 5246 "
            "§7.3), the server's ticket with DTLS 1.3 (RFC 8446 §4.6.1). The file "
            "holds the session's secret and is made readable by you alone."
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """Handshake with a DTLS server over UDP, send text, wait for the echoes;
    exits non-zero unless every echo came back."""
    suite = _version_and_suite(version, cipher, rpk, psk_dhe, group)
    # the core refuses a count above its maximum (naming --count): build no
    # more messages than that before asking it
    if count > _core.MAX_MESSAGES:
        fail(f"--count {count}: must be an integer in the range [0, {_core.MAX_MESSAGES}]")
    messages = [send.encode()] * count
    try:
        settings = _settings(version, suite, psk, psk_file, identity, records, mtu)
        session = {
            "messages": messages,
            "expect_replies": count,
            "server_certificate": _read(ca_cert),
            "certificate": _read(cert),
            "private_key": _read(key),
            "rpk": rpk,
            "timeout_s": timeout,
        }
        saved = _load_session(resume, connect, version) if resume is not None else None
        if version == "1.3":
            r = _core.dtls_client13(
                connect,
                settings,
                suite=suite,
                group=group,
                psk_dhe=psk_dhe,
                cid=cid,
                resume=saved,
                keep_session=resume is not None,
                **session,
            )
        else:
            r = _core.dtls_client(connect, settings, cid=cid, resume=saved, **session)
        # the session's secret goes to the file, never to the output
        fresh = r.pop("resumable_session", None)
        if resume is not None and fresh is not None:
            _save_session(resume, connect, version, fresh)
    except typer.Exit:
        # a refusal already said (click's Exit is a RuntimeError)
        raise
    except (OSError, ValueError, RuntimeError) as e:
        fail(_option_names(str(e)))
    except KeyboardInterrupt:
        err_console.print("[bold yellow]interrupted[/]", highlight=False)
        raise typer.Exit(130) from None
    # the first few records are kept, all are counted (`received_total`)
    r["received"] = [b.decode(errors="replace") for b in r["received"]]
    if as_json:
        emit_json(r)
    else:
        show(
            f"DTLS {version} handshake with {connect}",
            [
                {
                    "suite": r["cipher_suite"],
                    "time ms": r["handshake_time_s"] * 1000,
                    "datagrams out": r["handshake_datagrams_sent"],
                    "datagrams in": r["handshake_datagrams_received"],
                    "bytes out": r["handshake_bytes_sent"],
                    "bytes in": r["handshake_bytes_received"],
                    "retransmissions": r["retransmissions"],
                    "resumed": r.get("resumed", False),
                }
            ],
        )
        for text in r["received"]:
            console.print(f"received: {escape(text)}")
    if r.get("error"):
        # the handshake completed and the session failed later: what was
        # measured is shown above (JSON too), then why it failed
        fail(f"the session failed after the handshake: {r['error']}", code=1)
    if r["received_total"] < count:
        # the data waited for never came: said why when the peer said why
        why = f"waited for {count} echo(es), received {r['received_total']}"
        if r.get("closed_by_peer"):
            why += "; the server closed the connection (close_notify)"
        elif r.get("alert_received"):
            why += f"; the server sent the alert {r['alert_received']}"
        else:
            why += f" within --timeout {timeout:g} s"
        fail(why, code=1)


# What a saved session holds, by version: the fields of the core's tuple
# (bytes as hex). 1.3's ticket also says when it came, so its age can be
# given when it is offered (RFC 8446 §4.2.11.1).
_SESSION_FIELDS = {
    "1.2": ("session_id", "master_secret", "suite", "extended_master_secret"),
    "1.3": ("identity", "psk", "suite", "lifetime_s", "age_add", "age_ms"),
}
_HEX_FIELDS = {"session_id", "master_secret", "identity", "psk"}


def _load_session(path: Path, server: str, version: str) -> tuple | None:
    """The DTLS `version` session saved in `path` for `server`, as the core
    takes it, if the file exists; None for a 1.3 ticket past its lifetime
    (the full handshake then)."""
    import json
    import time

    if not path.exists():
        return None
    try:
        s = json.loads(path.read_text(encoding="utf-8"))
        if s.get("server") != server:
            fail(f"--resume {path}: a session with {s.get('server')}, not {server}")
        if s.get("version") != version:
            fail(f"--resume {path}: a DTLS {s.get('version')} session, not {version}")
        fields = [bytes.fromhex(s[k]) if k in _HEX_FIELDS else s[k]
                  for k in _SESSION_FIELDS[version]]  # fmt: skip
        if version == "1.3":
            age_ms = max(0, int((time.time() - float(s["saved_at"])) * 1000))
            if age_ms > int(s["lifetime_s"]) * 1000:
                return None
            fields[-1] = age_ms
        return tuple(fields)
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"--resume {path}: not a saved DTLS {version} session ({e})")


def _save_session(path: Path, server: str, version: str, fresh: tuple) -> None:
    """Save a session to resume later, readable by this user alone."""
    import json
    import os
    import time

    from dtlsim.atomic import partial_name

    fields = {k: v.hex() if k in _HEX_FIELDS else v
              for k, v in zip(_SESSION_FIELDS[version], fresh, strict=True)}  # fmt: skip
    text = json.dumps({"version": version, "server": server, "saved_at": time.time(), **fields})
    tmp = partial_name(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


# The core's names of the seconds it is given → the options that give them.
_OPTIONS = {
    "timeout_s =": "--timeout",
    "max_seconds =": "--duration",
    "expect_replies =": "--count",
}


def _option_names(message: str) -> str:
    for name, option in _OPTIONS.items():
        message = message.replace(name, option)
    return message
