"""Captures read by real tshark: every shipped scenario with link-layer
security decrypts and verifies with the network key given as Wireshark's
key preference, and a capture at one node shows a multi-hop run's DTLS
records once each."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import dtlsim
from dtlsim import keys, plan
from dtlsim.simulation import run_unit

REPO = Path(__file__).resolve().parents[2]

# DTLSIM_REQUIRE_PEERS=1 (scripts/test.sh): run anyway, so a missing tshark fails.
needs_tshark = pytest.mark.skipif(
    shutil.which("tshark") is None and os.environ.get("DTLSIM_REQUIRE_PEERS") != "1",
    reason="tshark missing: scripts/setup.sh installs it",
)

# The scenarios' network key (link_security.key_hex's default) and index
# (link_security.key_index's default), as Wireshark's IEEE 802.15.4 key table
# takes them: key, key index, key hash. docs/scenarios.md gives this line.
KEY_PREF = 'uat:ieee802154_keys:"c0c1c2c3c4c5c6c7c8c9cacbcccdcecf","1","No hash"'
WRONG_KEY_PREF = 'uat:ieee802154_keys:"000102030405060708090a0b0c0d0e0f","1","No hash"'

# What the 802.15.4 dissector says of a secured frame it could not decrypt
# or whose MIC did not verify (a MIC that fails under every key in the table
# ends as "No encryption key set").
NOT_VERIFIED = ("MIC check failed", "No encryption key set", "Decrypt failed")
NO_SOURCE = "No extended source address - can't decrypt"

# tshark processes at once in the test of every secured scenario (it runs
# two per point, 36 to 70 points a scenario).
TSHARK_JOBS = 4


def tshark(pcap: Path, *fields: str, pref: str | None = None) -> list[list[str]]:
    opts = ["-o", pref] if pref else []
    out = subprocess.run(
        ["tshark", "-r", str(pcap), *opts, "-T", "fields", "-E", "occurrence=a",
         *[a for f in fields for a in ("-e", f)]],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout  # fmt: skip
    return [line.split("\t") for line in out.splitlines()]


def secured_scenarios() -> list[str]:
    """Every shipped scenario that simulates a MAC with link-layer security."""
    found = []
    for path in sorted((REPO / "scenarios").glob("*.toml")):
        sc = dtlsim.load_scenario(path)
        if any(
            p[keys.MAC_KIND] != "none" and p[keys.LINK_SECURITY_LEVEL] != "none"
            for p in sc.points()
        ):
            found.append(path.stem)
    return found


def test_the_secured_scenarios_are_found():
    # the loop below covers these at least (a scenario added later joins it)
    assert {"exp3-tsch-dtls", "exp5-llsec-tsch"} <= set(secured_scenarios())


@needs_tshark
@pytest.mark.parametrize("overrides", [[], ["link_security.frame_counter_suppressed=true"]],
                         ids=["as-shipped", "counter-suppressed"])  # fmt: skip
@pytest.mark.parametrize("name", secured_scenarios())
def test_every_secured_scenarios_capture_decrypts_and_verifies_in_tshark(name, overrides, tmp_path):
    """Every secured point of the scenario, as shipped (TSCH frames carry
    their frame counter, which is the nonce's) and with the counter left out
    (the slot's ASN is then the nonce's): every secured data frame decrypts
    with the key, its MIC verifies, and its payload dissects; a wrong key
    verifies none. The only secured frames tshark leaves alone are Enhanced
    ACKs, which name no source address for the nonce. (ENC alone carries no
    MIC: with it, only the dissected payload says the key was right.)"""
    sc = dtlsim.load_scenario(name, overrides)
    secured = [
        p for p in sc.points()
        if p[keys.LINK_SECURITY_LEVEL] != "none" and plan.why_not(p) is None
    ]  # fmt: skip
    assert secured
    fields = ("wpan.frame_type", "wpan.security", "wpan.src64", "frame.protocols",
              "_ws.expert.message")  # fmt: skip
    pcaps = []
    for i, point in enumerate(secured):
        pcaps.append(tmp_path / f"{i}.pcap")
        run_unit(point, 0, 1, pcap=pcaps[-1])
    # One tshark per capture, as ever (each file is dissected alone, with no
    # state from another point's frames), several at a time: a tshark spends
    # half its wall time starting up, not on the CPU.
    with ThreadPoolExecutor(max_workers=TSHARK_JOBS) as pool:
        keyed = pool.map(lambda pcap: tshark(pcap, *fields, pref=KEY_PREF), pcaps)
        wrong_keyed = pool.map(
            lambda pcap: tshark(pcap, "wpan.frame_type", "wpan.security", "_ws.expert.message",
                                pref=WRONG_KEY_PREF),
            [pcap for point, pcap in zip(secured, pcaps, strict=True)
             if "mic" in point[keys.LINK_SECURITY_LEVEL]],
        )  # fmt: skip
        keyed, wrong_keyed = list(keyed), iter(list(wrong_keyed))
    decrypted = 0
    for point, rows in zip(secured, keyed, strict=True):
        data = [r for r in rows if r[0] == "0x0001" and r[1] in ("1", "True")]
        for kind, _, src, _, expert in rows:
            assert not any(m in expert for m in NOT_VERIFIED), (point, expert)
            if kind == "0x0002" and expert:
                assert expert == NO_SOURCE and not src  # an Enhanced ACK
        assert all(":6lowpan" in r[3] for r in data), point
        decrypted += len(data)
        if "mic" not in point[keys.LINK_SECURITY_LEVEL]:
            continue  # ENC alone has no MIC: nothing to verify, any key "decrypts"
        wrong = next(wrong_keyed)
        wrong_data = [r for r in wrong if r[0] == "0x0001" and r[1] in ("1", "True")]
        assert all("No encryption key set" in r[2] for r in wrong_data)
    assert next(wrong_keyed, None) is None
    assert decrypted > 0


def dtls_records(pcap: Path) -> Counter[tuple[str, ...]]:
    """How often each DTLS record (its sender's IPv6 address, content type,
    epoch and sequence number) appears in the capture."""
    rows = tshark(pcap, "ipv6.src", "dtls.record.content_type", "dtls.record.epoch",
                  "dtls.record.sequence_number")  # fmt: skip
    seen: Counter[tuple[str, ...]] = Counter()
    for src, types, epochs, seqs in rows:
        if types:
            for record in zip(types.split(","), epochs.split(","), seqs.split(","), strict=True):
                seen[(src, *record)] += 1
    return seen


@needs_tshark
def test_a_capture_at_one_node_shows_each_record_of_a_multi_hop_run_once(cli, tmp_path):
    """Over three hops a sniffer hearing every node sees each DTLS record on
    every hop (three times); one at the client sees it once, and only
    frames the client sent or that were for it."""
    common = ["run", "exp1-xmac", "--replications", "1", "--set", "topology.hops=3",
              "--set", "topology.pdr=1.0", "--set", "mac.xmac.check_interval_ms=125.0"]  # fmt: skip
    everywhere, at_client = tmp_path / "all.pcap", tmp_path / "client.pcap"
    cli(*common, "--out", str(tmp_path / "a"), "--pcap", str(everywhere))
    out = cli(*common, "--out", str(tmp_path / "b"), "--pcap", str(at_client),
              "--pcap-node", "0")  # fmt: skip
    assert "node 0's frames" in out
    network, client = dtls_records(everywhere), dtls_records(at_client)
    assert len(client) >= 8  # ClientHello … Finished, both ways
    assert set(client.values()) == {1}
    assert max(network.values()) == 3
    # the client's own records and the server's, every one it received
    assert set(client) <= set(network)
    # nothing but the client's link: experiment 1's Contiki firmware names
    # both ends by 8-byte addresses, the client 02:12:4b:00:00:00:00:01
    # (node 0), its neighbour ...:02
    client_end = {"02:12:4b:00:00:00:00:01", "02:12:4b:00:00:00:00:02"}
    links = tshark(at_client, "wpan.src64", "wpan.dst64", "wpan.frame_type")
    for src, dst, kind in links:
        assert kind == "0x0002" or {src, dst} == client_end, (src, dst)


def test_a_capture_at_a_node_the_network_lacks_is_refused(cli, tmp_path):
    out = cli("run", "exp1-xmac", "--replications", "1", "--out", str(tmp_path),
              "--set", "topology.hops=1", "--pcap", str(tmp_path / "x.pcap"),
              "--pcap-node", "5", code=2)  # fmt: skip
    assert "--pcap-node 5" in out and "2 node(s)" in out
    out = cli("run", "exp1-xmac", "--replications", "1", "--out", str(tmp_path),
              "--pcap-node", "0", code=2)  # fmt: skip
    assert "--pcap-node" in out and "--pcap FILE" in out
