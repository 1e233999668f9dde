"""Experiment 7: DTLS 1.3 against DTLS 1.2 over real UDP on loopback, through
the project's seeded relay, twice: our stack on both sides, and wolfSSL 5.9
on both sides (driven by `dtlsim.peers.wolfssl`): handshake time at two
one-way delays, bytes on the wire when one handshake datagram is lost (each
position in turn), and the time to send a bulk transfer."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from dtlsim import _core, progress
from dtlsim.experiments import style
from dtlsim.experiments.base import ExperimentResult, Figure, Table
from dtlsim.peers import wolfssl
from dtlsim.scenario import Scenario

SUMMARY = """\
Our DTLS 1.2 (RFC 6347) and DTLS 1.3 (RFC 9147) client and server over real
UDP on this machine's loopback, through the project's seeded relay: a fixed
one-way delay, or the n-th datagram one way lost. Beside them, the same
measurements with wolfSSL 5.9.4 as client and server (the `implementation`
column).

- wolfSSL runs the same suites, PSK mode and 1 s first timeout, with its own
  random numbers: its runs are not seeded.
- wolfSSL's client counts its 1.3 handshake until the server's ACK of its
  Finished arrives (wolfSSL_connect returns only then): one round trip more
  than our client, which counts until its Finished is sent. Its byte counts
  include that ACK, and its server sends each handshake message in a
  datagram of its own.

**These are wall-clock measurements on this machine, not model checks**:
nothing is compared against a number to pass or fail.

The reference is wolfSSL Inc.'s post "DTLS 1.3 Benchmarks" (November 2022):

- It measured wolfSSL with TLS_AES_256_GCM_SHA384 (1.3) and
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 (1.2) on P-256, 10 samples, mean and
  standard deviation.
- It states that with 100 ms latency 1.3 completes the handshake in half the
  time, and that it uses about half the bandwidth when a packet is lost.

Our pairs:

- PSK with AES-128-CCM-8 (psk-aes128-ccm8 / TLS_AES_128_CCM_8_SHA256).
- ECDHE P-256 with an ECDSA certificate and AES-GCM
  (ecdhe-ecdsa-aes128-gcm-sha256, the strongest certificate suite our 1.2
  runs / TLS_AES_256_GCM_SHA384).
- Both servers answer the first ClientHello with a cookie (HelloVerifyRequest,
  RFC 6347 §4.2.1; HelloRetryRequest, RFC 9147 §5.1): a 1.2 handshake takes
  three round trips, a 1.3 handshake two.
- The first retransmission timeout is 1 s in both (RFC 6347 §4.2.4.1, RFC
  9147 §5.8.2).
"""
# One-way delays the relay adds (ms): none, and the reference's 100 ms.
DELAYS_MS = (0.0, 100.0)
# Bulk transfer: the reference's 15 MB in 500-byte records (quick: 2 MB).
BULK_MB, QUICK_BULK_MB = 15, 2
RECORD_BYTES = 500
# A bulk sender outruns a UDP socket and loses runs of hundreds of records;
# an 8-bit DTLS 1.3 sequence number is reconstructed only across fewer than
# 128 lost in a row (RFC 9147 §4.2.2: the value closest to one more than the
# highest deprotected), so after the first longer run the receiver could
# deprotect nothing more. The bulk transfer's 1.3 client writes 16-bit
# numbers (32 768), as wolfSSL's does; the handshakes keep the compact form.
BULK_SEQ_LEN = 2
# The bulk receiver's socket buffer (SO_RCVBUF) asked for: 4 MiB, what
# Linux grants without privileges on this machine kind (a request is capped
# at net.core.rmem_max, 4194304 here; the kernel doubles it for its
# bookkeeping, socket(7)). With the default (about 208 KiB) our sender
# outran our receiver and 13-17 % of the records were decrypted: UDP has no
# flow control, so what did not fit was lost.
BULK_RECEIVE_BUFFER_BYTES = 4 * 2**20
# The wolfSSL server ends a bulk session after this long without a record
# (its --idle; each record restarts it). A sender on loopback leaves no such
# gap before its last record, so the count received is the same; it ends
# sooner when the close_notify was lost (1.2 bulk sessions, often): with
# 2 s the experiment waited about 2 s each time, idle.
# estimate: loopback records are microseconds to milliseconds apart
BULK_IDLE_S = 0.5
# estimate: one echo returns on loopback in well under a second; a lost
# echo is waited for this long before the run is ended
LOSS_TIMEOUT_S = 3.0
PSK_HEX = "000102030405060708090a0b0c0d0e0f"
# The first retransmission timeout, RFC 6347 §4.2.4.1 and RFC 9147 §5.8.2: 1 s.
INITIAL_RTO_MS = 1000.0
# Handshakes over the delaying relay run this many at once: each mostly
# waits on the relay's delay, with its own server, relay, ports and seed.
# estimate: 12 waiting sessions leave the 2 cores of this machine kind
# mostly idle. Sessions whose time measures the CPU (no delay, the bulk
# transfer) or whose bytes depend on a timer race (a lost datagram) run
# one at a time.
CONCURRENT_SESSIONS = 12
# A session's first flights take CPU time (key exchange, a wolfSSL process
# started), which its measured handshake time includes: concurrent
# sessions start this far apart so that these do not coincide.
SESSION_STAGGER_S = 0.1
# Implementations whose lost-datagram sessions run concurrently (the rest
# one at a time): those whose rows did not change when run so (see the
# loss sessions in `run`).
LOSS_CONCURRENTLY = ("wolfSSL",)

ARROWS = {"client_to_server": "client→server", "server_to_client": "server→client"}

IMPLEMENTATIONS = ("ours", "wolfSSL")

# (version, authentication) → the suite our stack runs for it.
SUITES = {
    ("1.2", "PSK"): "psk-aes128-ccm8",
    ("1.3", "PSK"): "TLS_AES_128_CCM_8_SHA256",
    ("1.2", "ECDHE P-256 certificate"): "ecdhe-ecdsa-aes128-gcm-sha256",
    ("1.3", "ECDHE P-256 certificate"): "TLS_AES_256_GCM_SHA384",
}
# The same suites by wolfSSL's names.
WOLFSSL_SUITES = {
    ("1.2", "PSK"): "PSK-AES128-CCM-8",
    ("1.3", "PSK"): "TLS13-AES128-CCM-8-SHA256",
    ("1.2", "ECDHE P-256 certificate"): "ECDHE-ECDSA-AES128-GCM-SHA256",
    ("1.3", "ECDHE P-256 certificate"): "TLS13-AES256-GCM-SHA384",
}


def _settings(suite: str, psk: bool) -> str:
    """The `[dtls]` table the CLI builds: one datagram per flight, 1400-byte MTU."""
    d: dict[str, Any] = {
        "suite": suite if suite.islower() else "psk-aes128-ccm8",
        "records_per_datagram": "flight",
        "mtu_bytes": 1400,
        "max_fragment_bytes": 1400,
        "retransmission": {
            "policy": "doubling",
            "initial_ms": INITIAL_RTO_MS,
            "max_ms": 60_000.0,
            "max_retransmissions": 6,
        },
    }
    if psk:
        d["psk_hex"] = PSK_HEX
    return json.dumps(d)


class _Credentials:
    """A throwaway P-256 key and self-signed certificate (openssl)."""

    def __init__(self, directory: Path) -> None:
        key, crt = directory / "key.pem", directory / "crt.pem"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-nodes", "-keyout", key, "-out", crt, "-days", "2", "-subj", "/CN=dtlsim-exp7"],
            check=True, capture_output=True,
        )  # fmt: skip
        self.key, self.cert = key.read_bytes(), crt.read_bytes()
        self.key_path, self.cert_path = key, crt


def _session(
    version: str,
    auth: str,
    creds: _Credentials,
    seed: int,
    *,
    delay_ms: float = 0.0,
    drop: tuple[str, int] | None = None,
    messages: list[bytes] | None = None,
    echo: bool = True,
    timeout_s: float = 10.0,
    seq_len: int = 1,
    receive_buffer_bytes: int | None = None,
) -> dict[str, Any]:
    """One server, one relay, one client session; what each measured.
    `seq_len`: bytes of the 1.3 client's record sequence numbers;
    `receive_buffer_bytes`: the server socket's SO_RCVBUF asked for."""
    suite = SUITES[(version, auth)]
    psk = auth == "PSK"
    cert = None if psk else creds.cert
    key = None if psk else creds.key
    settings = _settings(suite, psk)
    if version == "1.3":
        server = _core.UdpServer13(
            "127.0.0.1:0", settings, suite=suite, certificate=cert, private_key=key,
            echo=echo, seed=seed, receive_buffer_bytes=receive_buffer_bytes,
        )  # fmt: skip
    else:
        server = _core.UdpServer(
            "127.0.0.1:0", settings, certificate=cert, private_key=key, echo=echo, seed=seed,
            receive_buffer_bytes=receive_buffer_bytes,
        )  # fmt: skip
    served: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: served.update(
            server.run(max_seconds=timeout_s + 5.0, after_sessions_ended=1)
        )
    )
    thread.start()
    way = {"drop_direction": drop[0], "drop_nth": drop[1]} if drop else {}
    relay = _core.UdpRelay(server.local_addr, delay_ms=delay_ms, seed=seed + 1, **way)
    messages = [b"exp7"] if messages is None else messages
    common = {
        "messages": messages,
        "expect_replies": len(messages) if echo else 0,
        "server_certificate": cert,
        "timeout_s": timeout_s,
        "seed": seed + 2,
    }
    try:
        start = time.perf_counter()
        if version == "1.3":
            client = _core.dtls_client13(
                relay.addr, settings, suite=suite, seq_len=seq_len, **common
            )
        else:
            client = _core.dtls_client(relay.addr, settings, **common)
        wall = time.perf_counter() - start
    finally:
        # the server ends with the session; one whose close_notify was lost
        # (a bulk sender overrunning the socket) is stopped
        thread.join(timeout=1.0 if echo else 0.2)
        server.stop()
        thread.join()
        counts = relay.counts()
        relay.stop()
    served["receive_buffer_bytes"] = server.receive_buffer_bytes
    return {"client": client, "server": served, "relay": counts, "wall_s": wall}


def _not_run(scenario: Scenario, why: FileNotFoundError) -> ExperimentResult:
    """The experiment without its peers: said in the report and on the
    terminal, never an empty success. DTLSIM_REQUIRE_PEERS=1 (the test
    suite, `make reproduce`'s checkout) makes it the error it is."""
    if os.environ.get("DTLSIM_REQUIRE_PEERS") == "1":
        raise why
    progress.note(f"{scenario.experiment.id} not run: {why}")
    return ExperimentResult.for_scenario(scenario, f"**Not run.** {why}.", not_run=str(why))


def _run(
    implementation: str,
    version: str,
    auth: str,
    creds: _Credentials,
    seed: int,
    **kw: Any,
) -> dict[str, Any]:
    """One session of `implementation` on both sides."""
    if implementation == "wolfSSL":
        bulk = kw.pop("messages", None)
        kw.pop("echo", None)
        kw.pop("seq_len", None)  # wolfSSL writes 16-bit sequence numbers
        kw.pop("receive_buffer_bytes", None)  # its server keeps the default
        if bulk:
            kw["timeout_s"] = min(kw.get("timeout_s", BULK_IDLE_S), BULK_IDLE_S)
        return wolfssl.session(
            version,
            WOLFSSL_SUITES[(version, auth)],
            seed,
            psk_hex=PSK_HEX if auth == "PSK" else None,
            cert=creds.cert_path,
            key=creds.key_path,
            bulk_records=len(bulk) if bulk else 0,
            record_bytes=RECORD_BYTES,
            send="exp7",
            **kw,
        )
    r = _session(version, auth, creds, seed, **kw)
    r["client"]["bulk_send_s"] = r["wall_s"] - r["client"]["handshake_time_s"]
    return r


T = TypeVar("T")


def _concurrently(sessions: list[Callable[[], T]]) -> list[T]:
    """Each session's result, in the order given, at most
    CONCURRENT_SESSIONS running at once; a session's error is raised here.
    Every session is bounded in time by its own timeouts."""
    start = time.monotonic()

    def staggered(k: int, session: Callable[[], T]) -> T:
        time.sleep(max(0.0, start + k * SESSION_STAGGER_S - time.monotonic()))
        return session()

    with ThreadPoolExecutor(max_workers=CONCURRENT_SESSIONS) as pool:
        return list(pool.map(staggered, range(len(sessions)), sessions))


def bulk_figures(r: dict[str, Any], n_records: int) -> dict[str, float]:
    """What one bulk session measured: the sender's time after the
    handshake (`send_s`, what the reference reports), the share of records
    the receiver decrypted, and the rate at which data was delivered
    (decrypted bytes per second, MiB/s): over the receiver's own span from
    its first record to its last where it reports one (ours), else over the
    send time (wolfSSL's server reports no times)."""
    send_s = r["client"]["bulk_send_s"]
    received = r["server"]["received_total"]
    span = r["server"].get("data_span_s")
    seconds = span[1] - span[0] if span and span[1] > span[0] else send_s
    return {
        "send_s": send_s,
        "received_fraction": received / n_records,
        "delivered_mib_per_s": received * RECORD_BYTES / 2**20 / seconds,
        "sent_mib_per_s": n_records * RECORD_BYTES / 2**20 / send_s,
    }


def _wire_bytes(counts: dict[str, Any]) -> int:
    return counts["client_to_server"]["bytes"] + counts["server_to_client"]["bytes"]


def _mean_sd(values: list[float]) -> tuple[float, float]:
    s = pd.Series(values, dtype=float)
    return float(s.mean()), float(s.std(ddof=1)) if len(s) > 1 else 0.0


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    e = scenario.experiment
    samples = e.quick_replications if quick else e.replications
    seed = e.seed
    try:
        wolfssl.programs()
    except FileNotFoundError as why:
        missing = f"experiment 7 runs wolfSSL beside our stack, and {why}"
        return _not_run(scenario, FileNotFoundError(missing))
    with tempfile.TemporaryDirectory() as tmp:
        creds = _Credentials(Path(tmp))
        hs_rows, per_message_rows = [], []
        baseline: dict[tuple[str, str, str], dict[str, Any]] = {}
        # Every handshake sample: without delay one at a time (its time is
        # the CPU's), with delay concurrently (its time is the relay's).
        pairs = [(i, v, a) for i in IMPLEMENTATIONS for (v, a) in SUITES]
        keys = [(p, delay, i) for p in pairs for delay in DELAYS_MS for i in range(samples)]
        sessions = {k: partial(_run, *k[0], creds, seed + 10 * k[2], delay_ms=k[1]) for k in keys}
        waiting = [k for k in keys if k[1] > 0]
        sampled = {k: sessions[k]() for k in keys if k[1] == 0}
        sampled |= dict(zip(waiting, _concurrently([sessions[k] for k in waiting]), strict=True))
        for impl, ((version, auth), suite) in (
            (i, s) for i in IMPLEMENTATIONS for s in SUITES.items()
        ):
            if impl == "wolfSSL":
                suite = WOLFSSL_SUITES[(version, auth)]
            for delay in DELAYS_MS:
                times = []
                for i in range(samples):
                    r = sampled[((impl, version, auth), delay, i)]
                    c = r["client"]
                    times.append(c["handshake_time_s"] * 1000)
                    baseline.setdefault((impl, version, auth), r)
                mean, sd = _mean_sd(times)
                c = baseline[(impl, version, auth)]["client"]
                hs_rows.append(
                    {
                        "implementation": impl,
                        "authentication": auth,
                        "version": version,
                        "suite": suite,
                        "one_way_delay_ms": delay,
                        "samples": samples,
                        "handshake_ms_mean": mean,
                        "handshake_ms_sd": sd,
                        "round_trips": round(mean / (2 * delay), 2) if delay else None,
                        "handshake_datagrams_out": c["handshake_datagrams_sent"],
                        "handshake_datagrams_in": c["handshake_datagrams_received"],
                        "handshake_bytes_out": c["handshake_bytes_sent"],
                        "handshake_bytes_in": c["handshake_bytes_received"],
                    }
                )
            if impl != "ours":
                # bytes per message come from our stack's own counters
                continue
            base = baseline[(impl, version, auth)]
            for side, stats in (
                ("client", base["client"]["stats"]),
                ("server", base["server"]["handshakes"][0]["stats"]),
            ):
                for message, (nbytes, records) in stats["sent_bytes_records_per_message"].items():
                    per_message_rows.append(
                        {
                            "authentication": auth,
                            "version": version,
                            "sender": side,
                            "message": message,
                            "records": records,
                            "bytes": nbytes,
                        }
                    )
        handshakes = pd.DataFrame(hs_rows)
        per_message = pd.DataFrame(per_message_rows)

        # One handshake datagram lost, each position in turn (no delay): the
        # bytes both ways, lost ones included, against the same session
        # without a loss. One sample each (quick: the PSK pair only); not
        # deterministic: the client's and the server's 1 s retransmission
        # timers race on the wall clock, and whichever fires first decides
        # what is resent (two serial full runs agreed on 8 of 58 rows).
        loss_rows = []
        # Ours one at a time, though each mostly waits out a retransmission
        # timeout: the client's and the server's timers (both 1 s) race, and
        # which fires first decides the bytes resent. Concurrent sessions
        # may shift the winner (ours, 1.3 PSK, server→client #2 lost: the
        # client retransmitted in 2-4 of 6 concurrent sessions and none of
        # 6 serial ones once; later in 2 of 3 serial runs and 0 of 2
        # concurrent ones). wolfSSL's sessions run concurrently
        # (LOSS_CONCURRENTLY): over 3 serial and 3 concurrent quick runs its
        # 16 rows varied as much one at a time (1.2 client→server #2: 832 or
        # 863 bytes) as concurrently (1.3 client→server #3: 1364 or 1385).
        lost: list[tuple[tuple[str, str, str], str, int]] = []
        for impl, (version, auth) in ((i, s) for i in IMPLEMENTATIONS for s in SUITES):
            if quick and auth != "PSK":
                continue
            base = baseline[(impl, version, auth)]
            lost += [
                ((impl, version, auth), "client_to_server", n)
                for n in range(1, base["client"]["handshake_datagrams_sent"] + 1)
            ] + [
                ((impl, version, auth), "server_to_client", n)
                for n in range(1, base["client"]["handshake_datagrams_received"] + 1)
            ]
        losing = {
            k: partial(_run, *k[0], creds, seed, drop=(k[1], k[2]), timeout_s=LOSS_TIMEOUT_S)
            for k in lost
        }
        together = [k for k in lost if k[0][0] in LOSS_CONCURRENTLY]
        ran = dict(zip(together, _concurrently([losing[k] for k in together]), strict=True))
        ran |= {k: losing[k]() for k in lost if k[0][0] not in LOSS_CONCURRENTLY}
        for (impl, version, auth), way, n in lost:
            r = ran[((impl, version, auth), way, n)]
            clean = _wire_bytes(baseline[(impl, version, auth)]["relay"])
            total = _wire_bytes(r["relay"])
            loss_rows.append(
                {
                    "implementation": impl,
                    "authentication": auth,
                    "version": version,
                    "lost": f"{ARROWS[way]} #{n}",
                    "lost_bytes": r["relay"][way]["dropped_bytes"],
                    "wire_bytes": total,
                    "wire_bytes_without_loss": clean,
                    "extra_bytes": total - clean,
                    "retransmissions_client": r["client"]["retransmissions"],
                    "echo_returned": bool(r["client"]["received"]),
                }
            )
        losses = pd.DataFrame(loss_rows)

        # Bulk: N MB in 500-byte records, no echo, straight to the server
        # (no relay): the sender's time after the handshake, and how many
        # records the server received (UDP has no flow control). One at a
        # time: the time measures the CPU, which another session would share.
        mb = QUICK_BULK_MB if quick else BULK_MB
        n_records = mb * 2**20 // RECORD_BYTES
        bulk_rows = []
        for impl, ((version, auth), suite) in (
            (i, s) for i in IMPLEMENTATIONS for s in SUITES.items()
        ):
            if impl == "wolfSSL":
                suite = WOLFSSL_SUITES[(version, auth)]
            figures = []
            for i in range(samples):
                r = _run(
                    impl, version, auth, creds, seed + 10 * i,
                    messages=[b"\0" * RECORD_BYTES] * n_records, echo=False, timeout_s=2.0,
                    seq_len=BULK_SEQ_LEN, receive_buffer_bytes=BULK_RECEIVE_BUFFER_BYTES,
                )  # fmt: skip
                figures.append(bulk_figures(r, n_records))
            mean, sd = _mean_sd([f["send_s"] for f in figures])
            bulk_rows.append(
                {
                    "implementation": impl,
                    "authentication": auth,
                    "version": version,
                    "suite": suite,
                    "megabytes": mb,
                    "records": n_records,
                    "samples": samples,
                    "send_s_mean": mean,
                    "send_s_sd": sd,
                    "sent_mib_per_s_mean": _mean_sd([f["sent_mib_per_s"] for f in figures])[0],
                    "received_fraction_mean": _mean_sd([f["received_fraction"] for f in figures])[
                        0
                    ],
                    "delivered_mib_per_s_mean": _mean_sd(
                        [f["delivered_mib_per_s"] for f in figures]
                    )[0],
                    "receive_buffer_bytes": (
                        r["server"].get("receive_buffer_bytes") if impl == "ours" else None
                    ),
                }
            )
        bulk = pd.DataFrame(bulk_rows)

    return ExperimentResult(
        id=e.id,
        title=e.title,
        reference=e.reference,
        summary=SUMMARY + _findings(handshakes, losses, per_message),
        tables=[
            Table(
                "exp7_handshake",
                "Handshake time (wall clock, this machine)",
                handshakes,
                "round_trips: mean handshake time over the round-trip time (2 × one-way "
                "delay). Reference: 1.3 completes the handshake in half the time with "
                "100 ms latency.",
            ),
            Table(
                "exp7_loss",
                "Bytes on the wire with one handshake datagram lost",
                losses,
                "extra_bytes: both ways, lost datagrams included, minus the same session "
                "without loss. Reference: 1.3 uses about half the bandwidth when a packet "
                "is lost.",
            ),
            Table(
                "exp7_messages",
                "Handshake bytes per message (no loss, our stack)",
                per_message,
                "From our stack's own counters; wolfSSL's totals are in exp7_handshake.",
            ),
            Table(
                "exp7_bulk",
                f"Sending {mb} MB in {RECORD_BYTES}-byte records (wall clock)",
                bulk,
                "send_s: the client's time from the handshake's end to its last record "
                "sent, what the reference measured (\u201cthe time it takes to send 15 MB "
                "of data in 500 byte packets\u201d: the sender's time; it reports nothing "
                "on what arrived). received_fraction: records the server decrypted; "
                "delivered_mib_per_s: the bytes it decrypted per second of its own, from "
                "its first record to its last (wolfSSL's server reports no times: over "
                "the send time). UDP on loopback has no flow control: a sender faster than "
                "the receiver loses what does not fit the receiver's socket buffer, so "
                "our server asks for a 4 MiB one (receive_buffer_bytes: what the kernel "
                "granted, twice what it holds of data); wolfSSL's keeps the default. "
                "Our 1.3 client writes 16-bit record sequence numbers here, as wolfSSL's "
                "does: with 8-bit ones (RFC 9147 §4.2.2) a run of 128 or more lost records "
                "would leave the server unable to deprotect any later one.",
            ),
        ],
        figures=_figures(handshakes, losses),
    )


def _findings(hs: pd.DataFrame, losses: pd.DataFrame, msgs: pd.DataFrame) -> str:
    """Whether our 1.3 shows fewer round trips and less resent data, in
    numbers from this run."""
    lines = ["\n**What this run shows.**"]
    slow = hs[hs.one_way_delay_ms == max(DELAYS_MS)]
    for (impl, auth), sub in slow.groupby(["implementation", "authentication"], sort=False):
        t = sub.set_index("version").handshake_ms_mean
        lines.append(
            f"- {impl}, {auth}, {max(DELAYS_MS):g} ms one way: 1.3 {t['1.3']:.0f} ms vs 1.2 "
            f"{t['1.2']:.0f} ms ({t['1.3'] / t['1.2']:.2f} of 1.2)."
        )
    if not losses.empty:
        by = ["implementation", "authentication"]
        for (impl, auth), sub in losses.groupby(by, sort=False):
            x = sub.groupby("version").extra_bytes.mean()
            if {"1.2", "1.3"} <= set(x.index):
                lines.append(
                    f"- {impl}, {auth}, one datagram lost: on average {x['1.3']:.0f} extra "
                    f"bytes with 1.3, {x['1.2']:.0f} with 1.2."
                )
    hello = msgs[(msgs.message == "ClientHello") & (msgs.sender == "client")]
    for auth, sub in hello.groupby("authentication", sort=False):
        b = sub.set_index("version").bytes
        if {"1.2", "1.3"} <= set(b.index):
            lines.append(
                f"- ours, {auth}: the two ClientHellos (before and after the cookie) are "
                f"{b['1.3']} bytes in 1.3 and {b['1.2']} in 1.2: 1.3 carries its key "
                "share, supported groups and versions, signature algorithms (or PSK "
                "identity and binder) in each ClientHello (RFC 8446 §4.1.2), and its "
                "cookie holds the hash of the first ClientHello (RFC 8446 §4.4.1)."
            )
    return "\n".join(lines) + "\n"


def _figures(hs: pd.DataFrame, losses: pd.DataFrame) -> list[Figure]:
    figures = []
    fig, axes = style.subplots(ncols=len(DELAYS_MS), wide=True)
    for ax, delay in zip(axes, DELAYS_MS, strict=True):
        sub = hs[hs.one_way_delay_ms == delay]
        labels = [
            f"{i}\n{a.split()[0]} {v}"
            for i, a, v in zip(sub.implementation, sub.authentication, sub.version, strict=True)
        ]
        mean, sd = sub.handshake_ms_mean, sub.handshake_ms_sd
        ax.bar(labels, mean, yerr=style.yerr(mean, mean - sd, mean + sd), capsize=3)
        ax.set_ylabel("handshake time (ms)")
        ax.set_title(f"{delay:g} ms one-way delay")
        ax.tick_params(axis="x", labelsize=7)
    figures.append(
        Figure(
            "exp7_handshake",
            "Handshake time, DTLS 1.2 vs 1.3 (mean ± sd, wall clock)",
            fig,
            "Wall-clock measurements on this machine, loopback and the project's relay.",
        )
    )
    if not losses.empty:
        fig, axes = style.subplots(ncols=losses.authentication.nunique(), wide=True)
        for ax, (auth, sub) in zip(axes, losses.groupby("authentication", sort=False),
                                   strict=True):  # fmt: skip
            for (impl, version), v in sub.groupby(["implementation", "version"]):
                marker = "o" if impl == "ours" else "x"
                ax.plot(
                    v.lost, v.extra_bytes, marker=marker, linestyle="",
                    label=f"{impl}, DTLS {version}",
                )  # fmt: skip
            ax.set_ylabel("extra bytes on the wire")
            ax.set_title(f"{auth}: one datagram lost")
            ax.tick_params(axis="x", labelrotation=45, labelsize=7)
        style.legend(fig)
        figures.append(
            Figure(
                "exp7_loss",
                "Bytes resent after one lost handshake datagram",
                fig,
                "Each position lost in turn; bytes both ways minus the session without loss.",
            )
        )
    return figures
