"""Experiment 8 (which handshake to ship) and experiment 7 in the simulator:
what their tables and checks are made of, on small hand-made summaries."""

from __future__ import annotations

import pandas as pd

from dtlsim import keys
from dtlsim.experiments import exp7_sim, exp8_handshakes
from dtlsim.scenario import load_scenario

HOPS, PDR = exp8_handshakes.HOPS, exp8_handshakes.PDR


def test_record_and_oscore_overheads_follow_their_rfcs():
    added = dict(exp8_handshakes.overhead_table().values.tolist())
    by = {k.split(",")[0] + ("" if "connection" not in k else " cid"): v for k, v in added.items()}
    # DTLS 1.2: 13-byte header, 8-byte explicit nonce, 8-byte tag (RFC 6347, RFC 6655)
    assert by["DTLS 1.2 record"] == 29
    # DTLS 1.3: unified header byte, 1-byte sequence, content type, 8-byte tag (RFC 9147)
    assert by["DTLS 1.3 record"] == 11
    assert by["DTLS 1.3 record cid"] == 12
    # OSCORE request: option header and value (flags, Partial IV, kid), inner code,
    # second payload marker, 8-byte tag (RFC 8613 sections 5 and 6)
    assert by["OSCORE request (1-byte kid"] == 14
    assert by["OSCORE request (empty kid"] == 13
    assert by["OSCORE response (no Partial IV"] == 11


def test_edhoc_signatures_are_refused_with_the_checkers_reason_not_run():
    base = load_scenario("exp8-handshakes")
    runs, refused = exp8_handshakes._available(base)
    assert "EDHOC signature" in refused and "lakers" in refused["EDHOC signature"]
    ran = {h.label for h, _ in runs}
    assert "EDHOC signature" not in ran
    assert {"DTLS 1.2 ECDHE-ECDSA", "DTLS 1.3 RPK", "EDHOC static DH, kid"} <= ran


def _summary(values: dict[str, tuple[float, float]], pdr: float = 1.0) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "mac": "TSCH",
                "mac_setting": "C = 1",
                "handshake": h,
                HOPS: 1,
                PDR: pdr,
                "duration_s_mean": d,
                "frames_on_air_mean": f,
                "success_rate": 1.0,
            }
            for h, (d, f) in values.items()
        ]
    )


def test_the_finding_is_computed_from_the_table():
    a = exp8_handshakes.finding(_summary({"DTLS 1.2 PSK": (4.0, 7), "DTLS 1.3 PSK": (8.0, 11)}))
    assert "fastest DTLS 1.2 PSK (4.00 s, 7 frames)" in a and "slowest DTLS 1.3 PSK" in a
    b = exp8_handshakes.finding(_summary({"DTLS 1.2 PSK": (9.0, 7), "DTLS 1.3 PSK": (3.0, 11)}))
    assert "fastest DTLS 1.3 PSK (3.00 s, 11 frames)" in b


def _pair_summary(keys: tuple[float, float], lossy_extra: tuple[float, float]) -> pd.DataFrame:
    rows = []
    for h12, h13 in exp7_sim.PAIRS.values():
        for h, k, extra in ((h12, keys[0], lossy_extra[0]), (h13, keys[1], lossy_extra[1])):
            for pdr, more in ((1.0, 0.0), (0.8, extra)):
                rows.append(
                    {
                        "mac": "X-MAC",
                        "handshake": h,
                        PDR: pdr,
                        "keys_s_mean": k,
                        "frames_on_air_mean": 7.0,
                        "client_bytes_sent_mean": 200.0 + more,
                        "client_bytes_received_mean": 200.0,
                    }
                )
    return pd.DataFrame(rows)


def test_a_statement_that_holds_passes_and_one_that_does_not_differs_with_its_numbers():
    holds, _ = exp7_sim.checks(_pair_summary((4.0, 2.0), (300.0, 100.0)), "x")
    assert [c.verdict for c in holds] == ["pass"] * 4
    misses, _ = exp7_sim.checks(_pair_summary((2.0, 4.0), (100.0, 300.0)), "x")
    assert all(c.verdict == "differs from the measurements" for c in misses)
    assert "4.00 s against 2.00 s" in misses[0].note
    assert "300 B against 100 B" in misses[1].note


def test_no_resend_in_either_version_is_not_checked_but_said():
    found, unchecked = exp7_sim.checks(_pair_summary((4.0, 2.0), (0.0, 0.0)), "x")
    assert all("time to the client's keys" in c.quantity for c in found)
    assert len(unchecked) == len(exp7_sim.PAIRS) and "recovered every loss" in unchecked[0]


def test_one_handshake_a_day_on_a_battery_by_hand():
    # 10 mJ a day on a 225 mAh CR2032 at 3.0 V: the cell holds 225 x 3.6 x 3.0
    # = 2,430 J; a year of handshakes 365 x 0.010 = 3.65 J, 3.65 / 2,430 =
    # 0.150 % of it; alone they would take 2,430 / 3.65 = 665.8 years
    share, years = exp8_handshakes.battery_share(10.0, 225.0, 3.0)
    assert round(share, 4) == 0.1502 and round(years, 1) == 665.8
    # two AA cells (2,500 mAh): 27,000 J, 11.1 times the coin cell
    share, years = exp8_handshakes.battery_share(10.0, 2500.0, 3.0)
    assert round(share, 5) == 0.01352 and round(years) == 7397


def test_the_battery_table_reads_each_boards_batteries():
    summary = pd.DataFrame(
        [
            {
                "board": board,
                "mac": "CSL (Thread SSED)",
                "handshake": "DTLS 1.3 PSK",
                HOPS: 1,
                PDR: pdr,
                "client_energy_mj_mean": 10.0,
            }
            for board in ("nrf52840", "cc2652r")
            for pdr in (1.0, 0.8)
        ]
    )
    table = exp8_handshakes.battery_table(summary)
    # loss-free rows only, one per board; both boards run at 3.0 V from a
    # 225 mAh CR2032 or 2,500 mAh in two AA cells (their platform files)
    assert list(table.board) == ["nRF52840", "TI CC2652R"]
    assert list(table["CR2032 %/year"]) == [0.1502, 0.1502]
    assert list(table["2 x AA years alone"]) == [7397, 7397]


def test_the_boards_part_runs_the_four_handshakes_on_both_boards_and_three_macs():
    names = exp8_handshakes.BOARD_SCENARIOS
    macs = {load_scenario(n).settled[0]["mac"]["kind"] for n in names}
    assert macs == {"csl", "contikimac", "tsch"}
    for n in names:
        s = load_scenario(n)
        assert {p["platform"] for p in s.points()} == {"nrf52840", "cc2652r"}
        runs, refused = exp8_handshakes._available(s)
        ran = {h.label for h, _ in runs}
        assert set(exp8_handshakes.BOARD_HANDSHAKES) <= ran, refused
        point = next(s.points())
        assert point[keys.DTLS_CRYPTO_STRATEGY] == point[keys.EDHOC_CRYPTO_STRATEGY] == "hardware"


def test_the_board_table_names_the_battery_the_lifetimes_are_drawn_on():
    # the scenario's `battery` key and its charge from the platform file
    assert exp8_handshakes.battery_label("nrf52840", "cr2032") == "CR2032, 225 mAh"
    assert exp8_handshakes.battery_label("cc2652r", "2xAA") == "2 x AA, 2500 mAh"
    assert exp8_handshakes.battery_label("nrf52840", "platform") == "the board's own, 2500 mAh"
    for n in exp8_handshakes.BOARD_SCENARIOS:
        assert {p[keys.BATTERY] for p in load_scenario(n).points()} == {"platform"}
