"""The simulator end to end through `dtlsim run`: reproducibility, captures."""

from __future__ import annotations

import os
import shutil
import subprocess

import pandas as pd
import pytest

from dtlsim.scenario import load_scenario
from dtlsim.simulation import run_unit

SMALL = [
    "topology.hops=[1,2]",
    "topology.pdr=[1.0,0.8]",
    "mac.xmac.check_interval_ms=125.0",
]

# DTLSIM_REQUIRE_PEERS=1 (scripts/test.sh): run anyway, so a missing tshark fails.
needs_tshark = pytest.mark.skipif(
    shutil.which("tshark") is None and os.environ.get("DTLSIM_REQUIRE_PEERS") != "1",
    reason="tshark missing: scripts/setup.sh installs it",
)


def run(cli, out, *extra):
    args = ["run", "exp1-xmac", "--replications", "6", "--out", str(out), "--json"]
    for s in SMALL:
        args += ["--set", s]
    return cli.json(*args, *extra)


def test_same_seed_gives_identical_result_files(cli, tmp_path):
    run(cli, tmp_path / "a", "--csv")
    run(cli, tmp_path / "b", "--csv")
    a = (tmp_path / "a" / "results.csv").read_bytes()
    assert a == (tmp_path / "b" / "results.csv").read_bytes()
    assert (tmp_path / "a" / "summary.csv").read_bytes() == (
        tmp_path / "b" / "summary.csv"
    ).read_bytes()
    df = pd.read_parquet(tmp_path / "a" / "results.parquet")
    assert len(df) == 4 * 6 and df.success.any()
    # a different seed gives different handshakes
    run(cli, tmp_path / "c", "--seed", "99", "--csv")
    assert a != (tmp_path / "c" / "results.csv").read_bytes()


def test_csv_is_written_on_request_only(cli, tmp_path):
    """The Parquet file is the record; its CSV twin, several times larger, on request."""
    run(cli, tmp_path / "plain")
    assert (tmp_path / "plain" / "results.parquet").exists()
    assert not (tmp_path / "plain" / "results.csv").exists()
    run(cli, tmp_path / "csv", "--csv")
    rows = pd.read_csv(tmp_path / "csv" / "results.csv")
    assert len(rows) == len(pd.read_parquet(tmp_path / "plain" / "results.parquet"))


def test_worker_count_and_order_do_not_matter(cli, tmp_path):
    run(cli, tmp_path / "one", "--workers", "1", "--csv")
    run(cli, tmp_path / "two", "--workers", "2", "--csv")
    one = pd.read_csv(tmp_path / "one" / "results.csv")
    pd.testing.assert_frame_equal(one, pd.read_csv(tmp_path / "two" / "results.csv"))
    # a replication run alone equals the same replication inside the sweep
    point = next(load_scenario("exp1-xmac", SMALL).points())
    alone = run_unit(point, 4, 1).to_pandas()
    inside = one[(one["topology.hops"] == 1) & (one["topology.pdr"] == 1.0)]
    inside = inside[inside.replication == 4]
    for col in ("duration_s", "client_energy_uj", "node0_frames_sent", "replication_events"):
        assert alone[col].iloc[0] == pytest.approx(inside[col].iloc[0], rel=1e-12), col


def test_a_resumed_run_does_not_redo_finished_units(cli, tmp_path):
    run(cli, tmp_path)
    units = {p: p.stat().st_mtime_ns for p in (tmp_path / "units").glob("*/*.parquet")}
    run(cli, tmp_path)
    assert {p: p.stat().st_mtime_ns for p in units} == units


@needs_tshark
def test_pcap_dissects_as_dtls_and_decrypts_with_the_psk(cli, tmp_path):
    pcap = tmp_path / "run.pcap"
    cli(
        "run", "exp1-xmac", "--replications", "1", "--out", str(tmp_path / "r"),
        "--set", "topology.hops=2", "--set", "topology.pdr=1.0",
        "--set", "mac.xmac.check_interval_ms=125.0", "--pcap", str(pcap),
    )  # fmt: skip

    def fields(*opts):
        out = subprocess.run(
            ["tshark", "-r", str(pcap), *opts, "-T", "fields", "-e", "frame.protocols",
             "-e", "dtls.handshake.type", "-e", "wpan.fcs_ok", "-e", "wpan-tap.ch_num"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        return [line.split("\t") for line in out.splitlines()]

    plain = fields()
    dtls = [r for r in plain if r[0] == "wpan-tap:6lowpan:ipv6:udp:dtls"]
    assert dtls, "no frame dissected as DTLS"
    types = {t for r in dtls for t in r[1].split(",") if t}
    assert {"1", "3", "2", "14", "16"} <= types  # ClientHello … ClientKeyExchange
    assert "20" not in types  # Finished is encrypted
    assert all(r[2] in ("1", "True") for r in plain)  # every FCS correct
    # X-MAC never hops and no scenario key names its channel: no channel TLV
    assert all(r[3] == "" for r in plain)
    decrypted = {t for r in fields("-o", "dtls.psk:000102030405060708090a0b0c0d0e0f")
                 for t in r[1].split(",") if t}  # fmt: skip
    assert "20" in decrypted  # Finished, visible with the PSK


def test_a_scenario_without_a_mac_is_refused_clearly(cli, tmp_path):
    out = cli("run", "exp6-overhead", "--replications", "1", "--out", str(tmp_path),
              code=2)  # fmt: skip
    # refused before any work, with the way to what the file does compute
    assert "mac.kind = 'none'" in out and "nothing to simulate" in out
    assert "dtlsim reproduce --only exp6-overhead" in out
    assert not (tmp_path / "units").exists()


def test_a_mac_table_the_chosen_mac_does_not_read_is_refused(cli, tmp_path):
    out = cli("run", "exp1-xmac", "--replications", "1", "--out", str(tmp_path),
              "--set", "mac.kind=csma", code=2)  # fmt: skip
    assert "exp1-xmac.toml" in out and "mac.xmac = '(table)'" in out
    assert "only with mac.kind = 'xmac', not 'csma'" in out


@needs_tshark
@pytest.mark.parametrize(
    "level, key_id_mode", [("enc-mic-32", 1), ("enc-mic-64", 2), ("enc-mic-128", 3)]
)
def test_link_layer_security_in_the_pcap_decrypts_with_the_key(cli, tmp_path, level, key_id_mode):
    pcap = tmp_path / "secured.pcap"
    rows = cli.json(
        "run", "exp1-xmac", "--replications", "1", "--out", str(tmp_path / "r"),
        "--set", "topology.hops=2", "--set", "topology.pdr=1.0",
        "--set", "mac.xmac.check_interval_ms=125.0", "--set", f"link_security.level={level}",
        "--set", f"link_security.key_id_mode={key_id_mode}", "--pcap", str(pcap),
    )  # fmt: skip
    assert rows[0]["success_rate"] == 1.0

    def protocols(*opts):
        out = subprocess.run(
            ["tshark", "-r", str(pcap), *opts, "-T", "fields", "-e", "frame.protocols"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        return set(out.split())

    assert "wpan-tap:6lowpan:ipv6:udp:dtls" not in protocols()  # encrypted at the link layer
    key = "uat:ieee802154_keys:" + '"c0c1c2c3c4c5c6c7c8c9cacbcccdcecf","1","No hash"'
    assert "wpan-tap:6lowpan:ipv6:udp:dtls" in protocols("-o", key)


def tap_fields(pcap):
    """Per frame: protocols, channel, channel page, ASN, timestamp (µs), FCS ok."""
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-T", "fields", "-e", "frame.protocols",
         "-e", "wpan-tap.ch_num", "-e", "wpan-tap.ch_page", "-e", "wpan-tap.asn",
         "-e", "frame.time_epoch", "-e", "wpan.fcs_ok"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return [
        (proto, int(ch), int(page), int(asn), round(float(t) * 1e6), ok)
        for proto, ch, page, asn, t, ok in (line.split("\t") for line in out.splitlines())
    ]


@needs_tshark
def test_a_tsch_pcap_of_any_run_names_channel_and_asn(cli, tmp_path):
    def capture(name, point, replication):
        pcap = tmp_path / f"{name}.pcap"
        out = cli(
            "run", "exp3-tsch-dtls", "--replications", "2", "--out", str(tmp_path / "r"),
            "--set", "topology.hops=[1,2]", "--set", "topology.pdr=1.0",
            "--set", "mac.tsch.cells_per_link=1", "--set", "link_security.level=none",
            "--pcap", str(pcap), "--pcap-point", str(point),
            "--pcap-replication", str(replication),
        )  # fmt: skip
        assert (
            f"frames of point {point} (topology.hops={point + 1}), replication {replication}" in out
        )
        return pcap

    frames = tap_fields(capture("p1r1", 1, 1))
    assert any(f[0] == "wpan-tap:6lowpan:ipv6:udp:dtls" for f in frames)
    assert all(f[5] in ("1", "True") for f in frames)  # the FCS is still found and correct
    assert all(11 <= f[1] <= 26 and f[2] == 0 for f in frames)  # page 0, 2.4 GHz channels
    assert len({f[1] for f in frames}) > 1  # it hops
    # 10 ms slots from time 0: each frame's ASN is the slot its timestamp is in
    assert all(f[3] == f[4] // 10_000 for f in frames)
    # another replication or another point: other frames
    assert frames != tap_fields(capture("p1r0", 1, 0))
    assert frames != tap_fields(capture("p0r1", 0, 1))


def test_a_pcap_of_a_run_that_is_not_there_is_refused(cli, tmp_path):
    args = ["run", "exp3-tsch-dtls", "--replications", "2", "--out", str(tmp_path / "r"),
            "--set", "topology.hops=[1,2]", "--set", "topology.pdr=1.0",
            "--set", "mac.tsch.cells_per_link=1", "--set", "link_security.level=none"]  # fmt: skip
    pcap = str(tmp_path / "x.pcap")
    out = cli(*args, "--pcap", pcap, "--pcap-point", "2", code=2)
    assert "--pcap-point 2: the sweep has 2 point(s), 0..1" in out
    out = cli(*args, "--pcap", pcap, "--pcap-replication", "2", code=2)
    assert "--pcap-replication 2: this run has 2 replication(s) per point, 0..1" in out
    out = cli(*args, "--pcap-point", "1", code=2)
    assert "give --pcap FILE" in out
    assert not (tmp_path / "r" / "units").exists()  # refused before any work


def test_a_100_node_tsch_network_reports_to_its_root(cli, tmp_path):
    # 300 s of the tsch-100 scenario: every node reports every 60 s over a
    # routing tree with one dedicated cell per child→parent link.
    rows = cli.json(
        "run", "tsch-100", "--replications", "2", "--out", str(tmp_path),
        "--set", "workload.duration_s=300",
    )  # fmt: skip
    assert rows[0]["delivery_ratio_mean"] > 0.85
    # two replications: a wide t interval, kept within [0, 1] as a proportion's
    assert 0.0 <= rows[0]["delivery_ratio_ci_low"] <= rows[0]["delivery_ratio_mean"]
    assert rows[0]["delivery_ratio_mean"] <= rows[0]["delivery_ratio_ci_high"] <= 1.0
    df = pd.read_parquet(tmp_path / "results.parquet")
    # 99 reporters, each 5 reports in 300 s (random phases within the first 60 s)
    assert (df.reports_sent == 99 * 5).all()
    assert (df.max_hops >= 3).all()  # a 200 m square with 40 m links is multi-hop
    # different placements per replication, each reaching the root
    assert df.replication_events.nunique() == 2
    assert (df.reports_delivered + df.mac_drops + df.frames_queued_at_end >= df.reports_sent).all()


def test_a_network_that_cannot_connect_is_refused_clearly(cli, tmp_path):
    out = cli("run", "tsch-100", "--replications", "1", "--out", str(tmp_path),
              "--set", "topology.range_m=5", code=2)  # fmt: skip
    assert "no connected placement" in out and "5" in out


def test_tsch_extended_addresses_are_a_sweep_axis(cli, tmp_path):
    rows = cli.json(
        "run", "exp3-tsch-dtls", "--out", str(tmp_path), "--replications", "3",
        "--set", "topology.hops=2", "--set", "topology.pdr=1.0",
        "--set", "mac.tsch.cells_per_link=3", "--set", "link_security.level=none",
        "--set", "mac.tsch.extended_addresses=[false,true]",
    )  # fmt: skip
    assert len(rows) == 2 and all(r["success_rate"] == 1.0 for r in rows)
    df = pd.read_parquet(tmp_path / "results.parquet")
    by = df.groupby("mac.tsch.extended_addresses")
    # 12 more MAC header bytes per data frame; IPHC elides what it can
    assert by.node0_frame_bytes_sent.mean()[True] > by.node0_frame_bytes_sent.mean()[False]


@needs_tshark
@pytest.mark.parametrize(
    "extended, ends",
    [
        ("false", {"2001:db8::ff:fe00:1", "2001:db8::ff:fe00:3"}),
        # EUI-64 with the universal/local bit inverted
        ("true", {"2001:db8::12:4b00:0:1", "2001:db8::12:4b00:0:3"}),
    ],
)
def test_tsch_link_addresses_give_the_ipv6_addresses(cli, tmp_path, extended, ends):
    # tshark rebuilds the elided IPv6 addresses from the MAC addresses (RFC
    # 4944 §6, RFC 6282) and the prefix from context 0, and checks the UDP
    # checksum we computed over ours; client node 0, server node 2
    pcap = tmp_path / "run.pcap"
    cli(
        "run", "exp3-tsch-dtls", "--replications", "1", "--out", str(tmp_path / "r"),
        "--set", "topology.hops=2", "--set", "topology.pdr=1.0",
        "--set", "mac.tsch.cells_per_link=3", "--set", "link_security.level=none",
        "--set", f"mac.tsch.extended_addresses={extended}", "--pcap", str(pcap),
    )  # fmt: skip
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-o", "udp.check_checksum:TRUE",
         "-o", "6lowpan.context0:2001:db8::/64", "-T", "fields",
         "-e", "frame.protocols", "-e", "wpan.dst64", "-e", "wpan.src64", "-e", "ipv6.src",
         "-e", "ipv6.dst", "-e", "udp.checksum.status", "-e", "dtls.handshake.type"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    rows = [line.split("\t") for line in out.splitlines()]
    dtls = [r for r in rows if r[0] == "wpan-tap:6lowpan:ipv6:udp:dtls"]
    assert len(dtls) >= 6, rows
    for r in dtls:
        assert bool(r[1] and r[2]) == (extended == "true"), "64-bit MAC addresses"
        assert {r[3], r[4]} == ends, r
        assert r[5] == "1", r  # checksum good
    assert {"1", "2"} <= {t for r in dtls for t in r[6].split(",") if t}


def test_tsch_secures_with_the_asn_and_may_drop_the_frame_counter(cli, tmp_path):
    base = ["--replications", "3", "--set", "topology.hops=2", "--set", "topology.pdr=1.0",
            "--set", "mac.tsch.cells_per_link=3",
            "--set", "link_security.level=enc-mic-32"]  # fmt: skip
    for suppressed in ("false", "true"):
        rows = cli.json(
            "run", "exp3-tsch-dtls", "--out", str(tmp_path / suppressed), *base,
            "--set", f"link_security.frame_counter_suppressed={suppressed}",
        )  # fmt: skip
        assert rows[0]["success_rate"] == 1.0
    with_counter = pd.read_parquet(tmp_path / "false" / "results.parquet")
    without = pd.read_parquet(tmp_path / "true" / "results.parquet")
    # each frame 4 bytes (the counter) shorter, which leaves 4 more for
    # 6LoWPAN: never more frames, and fewer bytes
    assert (without.node0_frames_sent <= with_counter.node0_frames_sent).all()
    assert (without.node0_frame_bytes_sent < with_counter.node0_frame_bytes_sent).all()
    # nothing refused on a clean network, and the refusal columns are there
    for why in ("mic", "replay", "level", "unknown_key"):
        col = f"ll_refused_{why}"
        assert (without[f"node1_{col}"] == 0).all(), col


def test_frame_counter_suppression_outside_tsch_is_refused(cli, tmp_path):
    out = cli("run", "exp1-xmac", "--replications", "1", "--out", str(tmp_path),
              "--set", "link_security.level=enc-mic-32",
              "--set", "link_security.frame_counter_suppressed=true", code=2)  # fmt: skip
    # the override that set the value is blamed, not the file
    assert "--set link_security.frame_counter_suppressed=true:" in out
    assert "only with mac.kind = 'tsch'" in out and "exp1-xmac.toml" not in out


@pytest.mark.parametrize("key_id_mode, refusal", [(1, "unknown_key"), (0, "mic")])
def test_frames_under_an_outdated_key_are_refused_and_counted(cli, tmp_path, key_id_mode, refusal):
    # the client holds an old key: its relay refuses every frame it sends
    cli(
        "run", "exp1-xmac", "--replications", "1", "--out", str(tmp_path),
        "--set", "topology.hops=2", "--set", "topology.pdr=1.0",
        "--set", "mac.xmac.check_interval_ms=125.0", "--set", "link_security.level=enc-mic-32",
        "--set", f"link_security.key_id_mode={key_id_mode}",
        "--set", "link_security.outdated_key_nodes=[0]",
    )  # fmt: skip
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert not df.success.any()
    assert (df[f"node1_ll_refused_{refusal}"] > 0).all()
    others = {"unknown_key", "mic"} - {refusal}
    assert (df[f"node1_ll_refused_{others.pop()}"] == 0).all()


@pytest.mark.parametrize("mac", ["xmac", "tsch"])
def test_frames_below_the_network_level_are_refused_and_counted(cli, tmp_path, mac):
    # the client is configured with MIC-32 in an ENC-MIC-32 network
    scenario = {"xmac": "exp1-xmac", "tsch": "exp3-tsch-dtls"}[mac]
    cli(
        "run", scenario, "--replications", "1", "--out", str(tmp_path),
        "--set", "topology.hops=2", "--set", "topology.pdr=1.0",
        "--set", "link_security.level=enc-mic-32",
        "--set", "link_security.below_policy_nodes=[0]",
        "--set", "link_security.below_policy_level=mic-32",
        "--set", "simulation.max_time_s=60",
    )  # fmt: skip
    df = pd.read_parquet(tmp_path / "results.parquet")
    assert not df.success.any()
    if mac == "tsch":
        # the DTLS timer (5 s, doubling) outlasts the 60 s run: a failed row all the same
        assert (df.failure == "not finished by simulation.max_time_s").all()
        assert (df.give_up_s > 50).all() and df.duration_s.isna().all()
    assert (df.node1_ll_refused_level > 0).all()
    assert (df.node1_ll_refused_mic == 0).all() and (df.node1_ll_refused_unknown_key == 0).all()


def test_a_below_policy_level_the_network_accepts_is_refused(cli, tmp_path):
    out = cli(
        "run", "exp1-xmac", "--replications", "1", "--out", str(tmp_path),
        "--set", "link_security.level=mic-32",
        "--set", "link_security.below_policy_nodes=[0]",
        "--set", "link_security.below_policy_level=enc-mic-64", code=2,
    )  # fmt: skip
    assert "below_policy_level" in out and "enc-mic-64" in out


def test_given_tsch_cells_fix_when_frames_go(cli, tmp_path):
    cells = "[{sender=0,receiver=1,slot=10,channel_offset=2},{sender=1,receiver=0,slot=60}]"
    rows = cli.json(
        "run", "exp3-tsch", "--replications", "5", "--out", str(tmp_path), "--json",
        "--set", "topology.hops=1", "--set", "mac.tsch.slotframe_length=101",
        "--set", "mac.tsch.cells_per_link=1", "--set", "mac.tsch.cell_placement=given",
        "--set", f"mac.tsch.cells={cells}",
    )  # fmt: skip
    assert rows[0]["success_rate"] == 1.0
    df = pd.read_parquet(tmp_path / "results.parquet")
    # the schedule is recorded with every row
    assert (df["mac.tsch.cells"].str.contains("'slot': 60")).all()


@needs_tshark
def test_beacon_enabled_pcap_shows_superframes_pending_addresses_and_polls(cli, tmp_path):
    pcap = tmp_path / "beacon.pcap"
    cli(
        "run", "exp2-beacon", "--replications", "1", "--out", str(tmp_path / "r"),
        "--set", "topology.hops=2", "--set", "topology.pdr=1.0",
        "--set", "mac.beacon.beacon_order=5", "--set", "mac.beacon.superframe_order=2",
        "--pcap", str(pcap),
    )  # fmt: skip
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-T", "fields", "-E", "separator=;",
         "-e", "wpan.frame_type", "-e", "wpan.beacon_order", "-e", "wpan.superframe_order",
         "-e", "wpan.pending16", "-e", "wpan.cmd", "-e", "dtls.handshake.type",
         "-e", "wpan.fcs_ok"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    rows = [line.split(";") for line in out.splitlines()]
    beacons = [r for r in rows if r[0] == "0x0000"]
    assert beacons and all(r[1] == "5" and r[2] == "2" for r in beacons)
    assert any(r[3] for r in beacons)  # a coordinator announcing a pending frame
    assert any(r[4] == "0x04" for r in rows)  # data requests (polls)
    types = {t for r in rows for t in r[5].split(",") if t}
    assert {"1", "3", "2", "14", "16"} <= types
    assert all(r[6] in ("1", "True") for r in rows)


def test_cluster_head_offsets_are_a_parameter_and_overlaps_are_refused(cli, tmp_path):
    base = ["--replications", "10", "--set", "topology.hops=3", "--set", "topology.pdr=1.0",
            "--set", "mac.beacon.beacon_order=6",
            "--set", "mac.beacon.superframe_order=2"]  # fmt: skip
    default = cli.json("run", "exp2-beacon", "--out", str(tmp_path / "a"), *base)
    # BI - SD: each cluster head just before its parent, so frames climb the
    # chain within one active period but come down one beacon interval per hop
    late = cli.json("run", "exp2-beacon", "--out", str(tmp_path / "b"), *base,
                    "--set", "mac.beacon.superframe_offset_us=921600")  # fmt: skip
    assert default[0]["success_rate"] == late[0]["success_rate"] == 1.0
    assert default[0]["duration_s_mean"] != late[0]["duration_s_mean"]
    out = cli("run", "exp2-beacon", "--out", str(tmp_path / "c"), *base,
              "--set", "mac.beacon.superframe_offset_us=0", code=2)  # fmt: skip
    assert "overlap" in out
