"""`dtlsim reproduce` end to end: the report, its tables, plots and summary."""

from __future__ import annotations

import re

import pandas as pd
import pytest


@pytest.fixture(scope="module")
def report(quick_report):
    """`dtlsim reproduce --quick --json`, every experiment (conftest)."""
    return quick_report


def test_summary_has_one_row_per_reference_value(report):
    out, rows = report
    assert rows, "no reference values"
    for row in rows:
        assert {"experiment", "quantity", "value", "reference", "tolerance", "verdict"} <= set(row)
        assert row["source"]
        if row["gates"]:
            assert row["verdict"] == "pass", row
        if row["verdict"] == "differs from the measurements":
            assert row["against_measurement"] and row["explanation"], row
    judged_by_ci = [r for r in rows if r["statistical"]]
    assert judged_by_ci, "the simulated TSCH points are judged against the closed form"
    assert all("95 % CI" in r["source"] for r in judged_by_ci if r["experiment"] == "3")
    experiments = {r["experiment"] for r in rows}
    assert {"3", "4", "5", "6"} <= experiments
    ref = next(r for r in rows if r["experiment"] == "3" and not r["statistical"])
    assert ref["value"] == pytest.approx(5.15)
    assert ref["params"]["slotframe_L"] == 101  # every row carries its parameters
    csv = pd.read_csv(out / "summary.csv")
    assert len(csv) == len(rows)


def test_report_files(report):
    out, _ = report
    html = (out / "index.html").read_text()
    assert html.count("<img") >= 4
    for title in ("TSCH", "Session capacity", "TSCH timeslot", "overhead"):
        assert title in html
    md = (out / "index.md").read_text()
    assert "| experiment |" in md
    figures = {p.name for p in (out / "figures").glob("*.png")}
    for prefix in ("exp1_", "exp2_", "exp3_", "exp4_", "exp5_", "exp6_"):
        assert any(f.startswith(prefix) for f in figures), prefix


def test_every_figure_is_a_sane_png_beside_a_parsing_svg(report):
    """Each figure the page shows exists as PNG (within sane pixel bounds:
    legible, not a poster) and as the SVG it links, which parses as SVG."""
    import re
    import xml.etree.ElementTree as ET

    from PIL import Image

    out, _ = report
    html = (out / "index.html").read_text()
    shown = re.findall(r"<img alt='[^']*' src='(figures/[^']+)'>", html)
    assert len(shown) == len(list((out / "figures").glob("*.png"))) >= 20
    for png in shown:
        path = out / png
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
        with Image.open(path) as im:
            width, height = im.size
            assert 300 <= width <= 3000 and 200 <= height <= 2000, (png, im.size)
            assert len(im.convert("L").getcolors(256)) > 10, f"{png} is blank"
        svg = path.with_suffix(".svg")
        assert f"href='{png[:-4]}.svg'" in html, f"the page does not link {svg.name}"
        root = ET.parse(svg).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg", svg
        assert "<text" in svg.read_text(), f"{svg.name}: text should stay text"


def test_the_page_is_small_and_names_what_each_experiment_reproduces(report):
    from html import escape

    from dtlsim.experiments.references import CITATIONS

    out, _ = report
    html = (out / "index.html").read_text()
    assert "data:image" not in html  # figures are files beside the page
    assert len(html.encode()) < 500_000
    sections = re.findall(r"<section class='experiment' id='([^']+)'>(.*?)</section>", html, re.S)
    assert len(sections) >= 8
    for exp_id, body in sections:
        cite = re.search(r"<p class='cite'>Reproduces: (.*?)</p>", body)
        works = [escape(w, quote=True) for w in CITATIONS.values()]
        assert cite and any(w in cite.group(1) for w in works), exp_id
    # a long table shows its first rows and links the CSV that has them all
    rows = re.findall(r"First (\d+) of (\d+) rows; every row: <a href='(tables/[^']+)'>", html)
    assert rows, "no long table in a quick run"
    for first, total, csv in rows:
        assert len(pd.read_csv(out / csv)) == int(total) > int(first)
    # no results.csv beside the Parquet files unless asked for
    assert list(out.glob("runs/**/results.parquet"))
    assert not list(out.glob("runs/**/results.csv"))


def test_tables_hold_the_experiment_grids(report):
    out, _ = report
    exp3 = pd.read_csv(out / "tables" / "exp3_tsch_latency.csv")
    assert len(exp3) == 2 * 3 * 4  # L × C × H
    assert set(exp3.slotframe_L) == {101, 1001}
    exp5 = pd.read_csv(out / "tables" / "exp5_timeslot.csv")
    assert set(exp5.platform) == {"TelosB", "OpenMote-CC2538"}
    assert exp5.groupby("platform")["level"].nunique().eq(8).all()
    # Security only adds time: every level's slot is at least the unsecured one.
    for (_plat, _strat), sub in exp5.groupby(["platform", "strategy"]):
        none = sub[sub["level"] == "none"].min_slot_duration_us.iloc[0]
        assert (sub.min_slot_duration_us >= none).all()
    # The simulated exchange uses the closed form's frames: the same CCM*
    # durations and offsets (whole-µs rounding), and a slot shorter by exactly
    # the TsMaxAck the closed form reserves beyond the ACK's real airtime.
    for i in (1, 2, 3, 4):
        assert ((exp5[f"sim_sec{i}_us"] - exp5[f"sec{i}_us"]).abs() <= 0.5).all()
    assert ((exp5.sim_min_tx_offset_us - exp5.min_tx_offset_us).abs() <= 0.5).all()
    assert ((exp5.sim_min_tx_ack_delay_us - exp5.min_tx_ack_delay_us).abs() <= 1).all()
    reserved = exp5.min_slot_duration_us - exp5.closed_real_ack_slot_us
    assert ((2400 - exp5.ack_airtime_us - reserved).abs() < 1e-6).all()
    assert ((exp5.sim_min_slot_us - exp5.closed_real_ack_slot_us).abs() <= 2).all()
    exp6 = pd.read_csv(out / "tables" / "exp6_fragmentation.csv")
    ccm8 = exp6[(exp6.suite == "psk-aes128-ccm8") & (exp6.link_level == "none")]
    plain = exp6[(exp6.suite == "plain UDP") & (exp6.link_level == "none")]
    # DTLS CCM-8 hits fragmentation exactly 29 bytes earlier than plain UDP.
    assert (
        (
            plain.set_index("compression").fragmentation_starts_at
            - ccm8.set_index("compression").fragmentation_starts_at
        )
        .eq(29)
        .all()
    )


def test_beacon_grid_and_the_side_by_side_comparison(report):
    out, rows = report
    exp2 = pd.read_csv(out / "tables" / "exp2_beacon.csv")
    bo, so, hops = "mac.beacon.beacon_order", "mac.beacon.superframe_order", "topology.hops"
    # 5 BO × 3 SO × 4 hops × 2 PDR, less the points whose active periods do not
    # fit in BI (SO 3, BO 4: room for two coordinators; 3 and 4 hops need more)
    assert len(exp2) == 5 * 3 * 4 * 2 - 2 * 2
    assert exp2[(exp2[so] == 3) & (exp2[bo] == 4)][hops].max() == 2
    assert exp2.cap_ms.round(1).drop_duplicates().sort_values().tolist() == [30.7, 61.4, 122.9]
    assert (exp2.success_rate[exp2["topology.pdr"] == 1.0] == 1.0).all()
    rfc = pd.read_csv(out / "tables" / "exp2_rfc6347_timer.csv")
    # a 1 s timer against a 3.9 s beacon interval: spurious retransmissions
    assert rfc[rfc[bo] == 8].dtls_retransmissions_mean.min() > 1
    assert any(r["experiment"] == "2" for r in rows)
    side = pd.read_csv(out / "tables" / "compare_1_3.csv")
    assert len(side) == 4 * 3  # hops × TSCH cells per link
    assert side[["beacon_duration_s", "xmac_duration_s"]].notna().all().all()


def test_the_storm_shows_the_6tisch_simulator_beside_its_100_node_cojp_storm(report):
    from dtlsim.experiments import storm_reference, tsch_storm

    out, _ = report
    side = pd.read_csv(out / "tables" / "storm-100-6tisch-simulator.csv")
    runs = storm_reference.reference_runs()
    ref = side[side.simulator == "6TiSCH simulator"]
    # a row per shipped run and the pooled one, as read from the files
    assert list(ref.run) == [f"seed {r.seed}" for r in runs] + [f"{len(runs)} seeds pooled"]
    assert list(ref["wall time (s)"].iloc[:-1]) == [r.wall_s for r in runs]
    ours = side[side.simulator == "dtlsim"]
    assert set(ours.schedule) == set(tsch_storm.SCHEDULES)
    assert (ours.pledges == 99).all() and (ours["wall time measured"] == "in process").all()
    assert ours["50 % joined (s)"].notna().all()


def test_the_storm_runs_on_the_grenoble_testbed_trace_when_one_is_at_hand(report):
    from dtlsim.experiments import tsch_storm
    from dtlsim.experiments.exp9_medium import trace_path

    out, _ = report
    page = (out / "index.md").read_text()
    table = out / "tables" / "storm-grenoble.csv"
    # the report, made in this process, sees the trace this test sees
    if trace_path() is None:
        assert "storm on the Grenoble trace not run" in page
        assert not table.exists()
        return
    t = pd.read_csv(table)
    assert len(t) == len(tsch_storm.PROTOCOLS) * len(tsch_storm.SCHEDULES) * (
        tsch_storm.TRACE_QUICK_REPLICATIONS
    )
    assert (t["nodes asking"] == tsch_storm.TRACE_NODES - 1).all()
    # every join protocol secures nodes on the testbed's links
    assert (t.groupby("join protocol")["share secured at the end"].min() > 0.5).all()
    assert "Grenoble testbed trace" in page


def test_unknown_experiment_is_refused(cli, tmp_path):
    out = cli("reproduce", "--only", "exp99", "--out", str(tmp_path), code=2)
    assert "exp99" in out


def test_a_missed_statistical_check_is_confirmed_once_and_keeps_its_verdict(tmp_path):
    """A point forced off the closed form (P = 0.5: a retry waits a whole slotframe,
    the closed form assumes half) misses; it is run once more, alone, with the
    scenario's seed + CONFIRM_SEED_OFFSET and 4x the replications, beside the miss."""
    from dtlsim.experiments import exp3_tsch
    from dtlsim.experiments.base import CONFIRM_FACTOR, CONFIRM_SEED_OFFSET
    from dtlsim.report import write_report
    from dtlsim.scenario import load_scenario

    one_point = [
        "mac.tsch.slotframe_length=1001",
        "mac.tsch.cells_per_link=1",
        "topology.hops=1",
        "topology.pdr=0.5",
        "experiment.quick_replications=20",
    ]
    scenario = load_scenario("exp3-tsch", one_point)
    result = exp3_tsch.run(scenario, quick=True, work=tmp_path / "runs")
    (check,) = [c for c in result.checks if c.statistical]
    assert check.verdict == "FAIL"  # the original verdict stays
    seed = scenario.experiment.seed + CONFIRM_SEED_OFFSET
    assert check.confirmation is not None
    assert (check.confirmation.seed, check.confirmation.replications) == (seed, CONFIRM_FACTOR * 20)
    assert not check.confirmation.contains
    assert check.explanation.startswith(
        f"confirmation: independent seed {seed}, {CONFIRM_FACTOR * 20} replications: "
    )
    assert check.explanation.endswith(
        "still excludes the closed form: model and simulation disagree here"
    )
    confirm_dir = tmp_path / "runs" / "exp3-tsch-confirm" / f"L1001-C1-H1-pdr0.5-seed{seed}"
    assert list((confirm_dir / "units").glob("*/*.parquet"))
    again = exp3_tsch.run(scenario, quick=True, work=tmp_path / "runs")  # resumes: same numbers
    assert [c.row() for c in again.checks] == [c.row() for c in result.checks]

    summary = write_report([result], tmp_path / "report", quick=True)
    assert summary.explanation.tolist() == [check.explanation]
    md = (tmp_path / "report" / "index.md").read_text()
    assert "0 of 1 then contain the reference" in md
    assert "1 still exclude it" in md


def test_confirmation_that_contains_the_reference_is_a_chance_miss(tmp_path):
    from dtlsim.experiments.base import (
        CHANCE_MISS,
        CONFIRM_FACTOR,
        Check,
        ExperimentResult,
        confirm_misses,
        confirmation_seed,
    )
    from dtlsim.report import confirmation_sentence, write_report

    def check(value: float) -> Check:
        return Check.within(
            "9", f"q {value}", value, 75.375, 1.07, unit="s", source="test", statistical=True
        )

    calls = []

    def rerun(c: Check, seed: int, reps: int) -> tuple[float, float, int]:
        calls.append((c.quantity, seed, reps))
        return 75.1349, 0.5347, reps

    checks = confirm_misses([check(75.0), check(74.28)], rerun, 3, 1000, "the closed form")
    assert calls == [("q 74.28", confirmation_seed(3), CONFIRM_FACTOR * 1000)]  # misses only, once
    ok, miss = checks
    assert ok.confirmation is None and ok.explanation == ""
    assert miss.verdict == CHANCE_MISS and not miss.passed  # not a red FAIL, still a miss
    assert miss.explanation == (
        f"confirmation: independent seed {confirmation_seed(3)}, 4000 replications: "
        "75.13 ± 0.53 s — contains the closed form: a chance miss"
    )
    assert miss.row()["confirmation"]["contains_reference"] is True
    assert "1 of 1 then contain the reference" in confirmation_sentence([miss])
    assert confirmation_sentence([check(74.28)]) == ""  # nothing re-run, nothing said
    assert check(74.28).verdict == "FAIL"  # a miss not (yet) confirmed as chance stays red

    write_report([ExperimentResult("9", "t", "", "", checks=checks)], tmp_path, quick=True)
    html = (tmp_path / "index.html").read_text()
    assert f'<td class="chance">{CHANCE_MISS}</td>' in html and 'class="fail"' not in html
    assert f"| {CHANCE_MISS} |" in (tmp_path / "index.md").read_text()


def test_a_claim_of_the_measurements_that_the_model_misses_differs(tmp_path):
    from dtlsim.experiments.base import DIFFERS, Check, ExperimentResult
    from dtlsim.report import measurement_sentence, write_report

    def claim(value: float) -> Check:
        return Check.between(
            "9", f"share completed {value}", value, 0.95, 1.0, unit="", source="paper",
            against_measurement=True, note="the server's last flight is never resent",
        )  # fmt: skip

    held, missed = claim(1.0), claim(0.6)
    assert held.verdict == "pass" and held.explanation == ""
    assert missed.verdict == DIFFERS and not missed.passed and not missed.gates
    assert missed.explanation == "the server's last flight is never resent"
    gating = Check.between("9", "q", 0.6, 0.95, 1.0, unit="", source="own rule")
    assert gating.verdict == "FAIL" and gating.gates
    assert "1 of 2 claims of the published measurements are reproduced" in (
        measurement_sentence([held, missed])
    )
    write_report([ExperimentResult("9", "t", "", "", checks=[held, missed])], tmp_path, True)
    html = (tmp_path / "index.html").read_text()
    assert f'<td class="differs">{DIFFERS}</td>' in html and 'class="fail"' not in html


def test_experiment_1_shows_the_testbed_layout_beside_the_line(report):
    out, _ = report
    from dtlsim.experiments.exp1_xmac import LINE_LAYOUT, TESTBED_CIS, TESTBED_LAYOUT

    t = pd.read_csv(out / "tables" / "exp1_testbed.csv")
    assert set(t.layout) == {LINE_LAYOUT, TESTBED_LAYOUT}
    # every (hops, CI) point once per layout, at the testbed check intervals
    assert t.groupby(["topology.hops", "mac.xmac.check_interval_ms"]).size().eq(2).all()
    assert set(t["mac.xmac.check_interval_ms"]) == set(TESTBED_CIS)
    assert t.success_ci_low.between(0, 1).all() and t.success_ci_high.between(0, 1).all()
    md = (out / "index.md").read_text()
    # the summary's numbers come from this run's table
    two = t[t["topology.hops"] == 2]
    bed = two[two.layout == TESTBED_LAYOUT].success_rate.min()
    line2 = two[two.layout == LINE_LAYOUT].success_rate.min()
    assert f"2 hops {line2:.2f} on the line, {bed:.2f} on the testbed" in md
    assert "Why the client's energy bends" in md
