"""`dtlsim run --trace`: one run's events as Parquet, a row each; its frames
are the pcap's frames, and a limit bounds it."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

DTLSIM = Path(sys.executable).parent / "dtlsim"
TAP_HEADER = 12


def pcap_frames(path: Path) -> list[int]:
    """Each record's captured length (classic pcap: 24-byte file header,
    16-byte record headers, little-endian as the writer emits)."""
    data = path.read_bytes()
    at, lengths = 24, []
    while at < len(data):
        incl = struct.unpack_from("<I", data, at + 8)[0]
        lengths.append(incl)
        at += 16 + incl
    return lengths


@pytest.fixture(scope="module")
def csma(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("csma") / "csma.toml"
    text = subprocess.run(
        [str(DTLSIM), "scenario", "new", "--mac", "csma", "--hops", "2"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    path.write_text(text, encoding="utf-8")
    return path


def run(csma: Path, tmp: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(DTLSIM), "run", str(csma), "--replications", "2", "--out", str(tmp / "o"),
         "--pcap-replication", "1", *extra],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def test_the_trace_holds_the_pcaps_frames_and_what_became_of_them(csma, tmp_path):
    done = run(csma, tmp_path, "--pcap", str(tmp_path / "r.pcap"),
               "--trace", str(tmp_path / "t.parquet"))  # fmt: skip
    t = pq.read_table(tmp_path / "t.parquet").to_pandas()
    assert f"{len(t)} events of point 0, replication 1" in done.stdout
    tx = t[(t.layer == "phy") & (t.kind == "tx")]
    frames = pcap_frames(tmp_path / "r.pcap")
    assert len(tx) == len(frames) > 0
    # frame by frame in time order: the TAP header (4 bytes and the FCS TLV
    # padded to 8; no channel or ASN outside TSCH) precedes the trace's bytes
    assert list(tx.bytes) == [n - TAP_HEADER for n in frames]
    # every judged reception is of a frame sent, by its sender
    rx = t[(t.layer == "phy") & (t.kind == "rx")]
    sent = dict(zip(tx.emission, tx.node, strict=False))
    assert len(rx) > 0 and all(sent[e] == p for e, p in zip(rx.emission, rx.peer, strict=True))
    assert set(rx.outcome) <= {"received", "cut", "not_listening", "collided", "jammed", "faded"}
    # the handshake of that replication is in it, and the rows are in time order
    assert (t.kind == "handshake_ended").sum() == 1
    assert t.time_us.is_monotonic_increasing
    assert set(t.layer) == {"phy", "mac", "net", "app", "dtls"}
    assert {"epoch", "seq"} <= set(t.columns)
    # the client's DTLS messages, in the order of RFC 6347's handshake
    dtls_tx = t[(t.layer == "dtls") & (t.kind == "tx")]
    client = dtls_tx.node.iloc[0]
    sent = list(dtls_tx[dtls_tx.node == client].message)
    assert sent[:5] == ["ClientHello", "ClientHello", "ClientKeyExchange",
                        "ChangeCipherSpec", "Finished"]  # fmt: skip


def test_the_servers_flights_carry_their_epochs_and_match_the_pcaps_frames(tmp_path):
    """One hop of CSMA at PDR 1: every DTLS record of this platform leaves
    in a datagram of its own, one frame each, so the records a node sent
    before the last frame are its data frames (the 5-byte frames are
    IEEE 802.15.4 ACKs: frame control 2, sequence number 1, FCS 2)."""
    scenario = tmp_path / "one.toml"
    scenario.write_text(
        subprocess.run(
            [str(DTLSIM), "scenario", "new", "--mac", "csma", "--hops", "1"],
            capture_output=True, text=True, check=True,
        ).stdout,
        encoding="utf-8",
    )  # fmt: skip
    run(scenario, tmp_path, "--pcap", str(tmp_path / "r.pcap"),
        "--trace", str(tmp_path / "t.parquet"))  # fmt: skip
    t = pq.read_table(tmp_path / "t.parquet").to_pandas()
    dtls = t[t.layer == "dtls"]
    client = dtls[dtls.kind == "tx"].node.iloc[0]
    server = dtls[(dtls.node != client)]
    flights = server[server.kind == "tx"]
    # RFC 6347 section 4.2.1 with a PSK (RFC 4279 section 2): the server's
    # messages in order, its ChangeCipherSpec the last record of epoch 0
    assert list(flights.message[:5]) == [
        "HelloVerifyRequest",
        "ServerHello",
        "ServerHelloDone",
        "ChangeCipherSpec",
        "Finished",
    ]
    assert list(flights.epoch[:5]) == [0, 0, 0, 0, 1]
    assert list(flights.seq[:5]) == [0, 1, 2, 3, 0]
    assert list(server[server.kind == "state"].message) == [
        "WaitClientKeyExchange",
        "WaitClientFinished",
        "Connected",
    ]
    # rows that are no DTLS record have no epoch or sequence number
    assert t[t.layer != "dtls"].epoch.isna().all() and t[t.layer != "dtls"].seq.isna().all()
    assert dtls[dtls.kind == "state"].epoch.isna().all()
    # the pcap's frames: each node's data frames are its DTLS records
    frames = pcap_frames(tmp_path / "r.pcap")
    phy = t[(t.layer == "phy") & (t.kind == "tx")]
    assert len(phy) == len(frames)
    last = phy.time_us.max()
    for node in (client, flights.node.iloc[0]):
        data = phy[(phy.node == node) & (phy.bytes > 5)]
        records = dtls[(dtls.node == node) & (dtls.kind == "tx") & (dtls.time_us <= last)]
        assert len(data) == len(records) > 0


def test_the_trace_is_bounded(csma, tmp_path):
    run(csma, tmp_path, "--trace", str(tmp_path / "all.parquet"))
    total = pq.read_metadata(tmp_path / "all.parquet").num_rows
    done = run(csma, tmp_path, "--trace", str(tmp_path / "t.parquet"), "--trace-max-events", "10")
    meta = pq.read_metadata(tmp_path / "t.parquet")
    assert meta.num_rows == 10
    assert int(meta.metadata[b"dropped_events"]) == total - 10
    assert f"({total - 10} more past --trace-max-events)" in done.stdout
