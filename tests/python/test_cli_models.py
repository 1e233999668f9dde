"""`dtlsim model …` against hand computation (issue 2's done-when list)."""

from __future__ import annotations

import pytest


def test_tsch_reference_value(cli):
    # SPEC §6 experiment 3: 10 frames · (1 + 101/2) slots · 10 ms = 5.15 s.
    r = cli.json(
        "model", "tsch", "--slotframe", "101", "--cells", "1", "--hops", "1",
        "--pdr", "1", "--frames", "10", "--timeslot-ms", "10",
    )  # fmt: skip
    assert r["closed_form"]["handshake_s"] == pytest.approx(5.15, abs=1e-12)
    assert "L >> C" in r["closed_form"]["assumes"]
    assert "distinct" in r["exact"]["assumes"]


def test_tsch_multi_hop_is_the_sum_of_hops(cli):
    r = cli.json(
        "model", "tsch", "--slotframe", "101", "--cells-per-hop", "1,2,3",
        "--pdr-per-hop", "1,0.9,0.7", "--frames", "10", "--timeslot-ms", "10",
    )  # fmt: skip
    hand = (1 + 101 / 2) / 1 + (1 + 101 / 3) / 0.9 + (1 + 101 / 4) / 0.7
    assert r["closed_form"]["slots_per_frame"] == pytest.approx(hand, rel=1e-12)
    assert r["closed_form"]["handshake_s"] == pytest.approx(hand * 10 * 0.010, rel=1e-12)
    assert sum(r["closed_form"]["slots_per_hop"]) == pytest.approx(hand, rel=1e-12)


def test_tsch_same_cells_on_every_hop(cli):
    r = cli.json("model", "tsch", "--slotframe", "1001", "--cells", "2", "--hops", "4")
    assert r["closed_form"]["slots_per_frame"] == pytest.approx(4 * (1 + 1001 / 3))
    # Exact: first hop uniform arrival, later hops on slot boundaries (−½ slot each).
    # C = 2: the gap after a cell is uniform on 1..L−1, so E[g²] = L(2L−1)/6 and
    # the size-biased residual C·E[g²]/(2L) = (2L−1)/6 (closed form: L/3).
    L = 1001
    residual = (2 * L - 1) / 6
    hand = 4 * (1 + residual) - 3 * 0.5
    assert r["exact"]["slots_per_frame"] == pytest.approx(hand, rel=1e-12)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--slotframe", "10", "--cells", "11"], "cells = 11"),
        (["--slotframe", "10", "--cells", "1", "--pdr", "0"], "pdr = 0"),
        (["--slotframe", "10", "--cells-per-hop", "1,2", "--pdr-per-hop", "1"], "2 hops"),
        (["--slotframe", "10", "--cells-per-hop", "1,x"], "comma-separated"),
        (["--slotframe", "10"], "--cells"),
    ],
)
def test_tsch_bad_arguments_are_refused(cli, args, message):
    out = cli("model", "tsch", *args, code=2)
    assert message in out


def test_engset_reference_case(cli):
    r = cli.json("model", "engset", "--slots", "3", "--clients", "5", "--erlang", "0.5")
    # binom(5,k)·0.5^k = 1, 2.5, 2.5, 1.25 → E = 1.25 / 7.25.
    assert r["time_congestion"] == pytest.approx(1.25 / 7.25, abs=1e-12)
    # Arrivals see N−1 = 4 clients: 1, 2, 1.5, 0.5 → B = 0.5 / 5.
    assert r["call_congestion"] == pytest.approx(0.1, abs=1e-12)
    assert "time" in r["time_congestion_means"] and "refused" in r["call_congestion_means"]
    assert sum(r["busy_distribution"]) == pytest.approx(1.0)


def test_engset_refuses_zero_slots(cli):
    assert "slots = 0" in cli("model", "engset", "--slots", "0", "--clients", "5",
                              "--erlang", "0.5", code=2)  # fmt: skip


def _suite(rows, name):
    return next(r for r in rows["suites"] if r["suite"] == name)


def test_overhead_psk_ccm8_is_29_bytes(cli):
    r = cli.json("model", "overhead", "--version", "1.2", "--suite", "psk-aes128-ccm8")
    row = _suite(r, "psk-aes128-ccm8")
    assert row["bytes_per_datagram"] == 29
    assert (row["record_header"], row["nonce_or_iv"], row["tag_or_mac"]) == (13, 8, 8)


@pytest.mark.parametrize("payload", [0, 1, 11, 12, 13, 27, 28, 44, 100])
def test_overhead_cbc_sha1_follows_the_padding_rule(cli, payload):
    r = cli.json("model", "overhead", "--suite", "psk-aes128-cbc-sha", "--payload", str(payload))
    row = _suite(r, "psk-aes128-cbc-sha")
    # RFC 5246 §6.2.3.2: data + 20-byte MAC + padding (incl. its length byte)
    # fill whole 16-byte blocks with the least padding: 1..16 bytes.
    pad = 16 - (payload + 20) % 16
    assert row["padding"] == pad
    assert row["bytes_per_datagram"] == 13 + 16 + 20 + pad
    assert (payload + 20 + row["padding"]) % 16 == 0


def test_overhead_frame_budget_and_fragmentation(cli):
    r = cli.json(
        "model", "overhead", "--suite", "psk-aes128-ccm8", "--level", "enc-mic-32",
        "--key-id-mode", "1", "--compression", "link-local",
    )  # fmt: skip
    # 127 − MHR 9 − aux 6 − MIC 4 − FCS 2 = 106; − IPHC 2 − UDP NHC 7 = 97 UDP bytes.
    assert r["frame"]["udp_payload"] == 97
    row = _suite(r, "psk-aes128-ccm8")
    assert row["max_app_bytes_one_frame"] == 97 - 29
    assert row["fragmentation_starts_at"] == 97 - 29 + 1
    assert _suite(r, "plain UDP")["fragmentation_starts_at"] == 98


def test_overhead_dtls13_unified_header_options(cli):
    short = _suite(cli.json("model", "overhead", "--version", "1.3"), "aes128-ccm8-sha256")
    assert short["bytes_per_datagram"] == 1 + 1 + 1 + 8
    long = _suite(
        cli.json("model", "overhead", "--version", "1.3", "--cid-len", "4", "--seq-len", "2",
                 "--length-present"),
        "aes128-ccm8-sha256",
    )  # fmt: skip
    assert long["bytes_per_datagram"] == 1 + 4 + 2 + 2 + 1 + 8


def test_overhead_refuses_unknown_suite_and_level(cli):
    assert "suite = nope" in cli("model", "overhead", "--suite", "nope", code=2)
    assert "level = enc-mic-256" in cli("model", "overhead", "--level", "enc-mic-256", code=2)


def test_timeslot_uses_the_platform_file(cli):
    from dtlsim import models
    from dtlsim.platform import load_platform

    r = cli.json("model", "timeslot", "--platform", "telosb", "--strategy", "hardware",
                 "--level", "none", "--level", "enc-mic-32")  # fmt: skip
    none, enc = r["levels"]
    assert none["sec1_us"] == 0 and none["slot_duration_us"] == 192 + 4256 + 192 + 2400
    # sec1 of ENC-MIC-32: 127-byte frame, MHR 21 + aux 14 authenticated,
    # 127 − 35 − 4 − 2 = 86 private bytes → 17 AES blocks (by hand, see Rust tests).
    assert enc["data_blocks"] == 17
    plat = load_platform("telosb")
    expected = models.ccm_duration_us(plat, "hardware", "enc-mic-32", 35, 86)
    assert enc["sec1_us"] == pytest.approx(expected)
    s = plat.strategy("hardware")
    per_block = s.aes_block_us.value + s.ccm_per_block_overhead_us.value
    per_block += s.bus_bytes_per_block.value * plat.radio.bus_us_per_byte.value
    assert enc["sec1_us"] == pytest.approx(s.ccm_setup_us.value + 17 * per_block)
    assert enc["tx_offset_us"] == pytest.approx(max(enc["sec1_us"], 192))
    assert enc["slot_duration_us"] == pytest.approx(
        enc["tx_offset_us"] + 4256 + enc["tx_ack_delay_us"] + 2400 + enc["sec4_us"]
    )
    bits = enc["app_bits_per_frame"]
    assert enc["rate_bound_bps"] == pytest.approx(bits / (101 * enc["slot_duration_us"] * 1e-6))


def test_timeslot_unknown_platform_is_refused(cli):
    out = cli("model", "timeslot", "--platform", "nosuch", code=2)
    assert "nosuch" in out


def test_timeslot_takes_the_implementation_profile(cli):
    from dtlsim import models
    from dtlsim.platform import load_platform

    args = ("model", "timeslot", "--platform", "telosb", "--level", "enc-mic-32")
    ideal = cli.json(*args)["levels"][0]
    real = cli.json(*args, "--implementation", "openwsn")["levels"][0]
    expected = models.timeslot(load_platform("telosb"), "hardware", "enc-mic-32", "openwsn")
    assert real["slot_duration_us"] == pytest.approx(expected["slot_duration_us"])
    assert real["slot_duration_us"] > ideal["slot_duration_us"]
    out = cli("model", "timeslot", "--platform", "wismote", "--implementation", "openwsn", code=2)
    assert "openwsn" in out and "no port" in out
