"""Experiment 1: DTLS 1.2 PSK handshakes over X-MAC, simulated."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pandas as pd

from dtlsim import keys, timeline
from dtlsim.experiments import cooja_contikimac, cooja_oracle, display, style
from dtlsim.experiments.base import Check, ExperimentResult, Figure, Table, Timeline
from dtlsim.runner import replications_of, run_scenario
from dtlsim.scenario import Scenario, load_scenario, variant

CI = keys.MAC_XMAC_CHECK_INTERVAL_MS
HOPS = keys.TOPOLOGY_HOPS
PDR = keys.TOPOLOGY_PDR
AUDIBLE = keys.TOPOLOGY_AUDIBLE

# The testbed layout, shown beside the default: every node in radio range of
# every other, the line made only by routes (or address filtering), as when
# a testbed's nodes share a table. A labelled variant, not the default: the
# reference measurements do not say how their nodes were placed.
TESTBED_CIS = (500.0, 1000.0, 4000.0)
# A Wilson 95 % interval on a share is at most ±0.05 wide once
# n ≥ 1.96² · 0.25 / 0.05² = 385 (worst case, a share of 0.5): 400.
TESTBED_REPLICATIONS = 400
LINE_LAYOUT = "line: only neighbours hear each other"
TESTBED_LAYOUT = "testbed: every node hears every other"

SUMMARY = """\
Real DTLS 1.2 PSK-AES128-CCM-8 handshakes (the `crates/dtls` stack) in real
802.15.4 frames over X-MAC, between WiSMote nodes in a line, in virtual time.
Each replication is a fresh network (random wake-up phases, fresh keys)
doing one handshake. The stacks behave as those the reference measurements
ran:

* tinyDTLS of 2015 (dtls.c, global.h) sends one record per datagram. It
  sends a queued record again 2 s after it left, then after 4, 8, 16 … s,
  and gives up after 7 retransmissions.
* tinyDTLS drops a repeat of the peer's previous flight, a repeated
  ClientHello included. The peer's first in-order message, a
  ChangeCipherSpec or an alert clears its queue (`dtls_stop_retransmission`).
  A server never resends its last flight.
* Contiki 2.7's csma keeps a queue per neighbour (at most two) in eight
  shared packet buffers. It waits one check interval between packets of a
  queue (csma.c `free_packet`). It tries a train without a strobe ACK three
  times, and a datagram in five trains at most (WiSMote's
  SICSLOWPAN_CONF_MAX_MAC_TRANSMISSIONS).
* cxmac runs on Contiki 2.7's MSP430 timing (cxmac.c, WiSMote's
  platform-conf.h): on time 204 ticks of the 32 768 Hz rtimer, a strobe
  every 178 ticks, a wake-up listening one 128 Hz tick (7.8 ms).
* A cxmac sender listens one strobe period before its first strobe and
  gives its train up on any frame but a strobe ACK. A node that heard a
  strobe waits up to two wake-ups (`someone_is_sending`). A node that sent a
  strobe ACK stays awake for the data frame (`waiting_for_packet`). The
  encounter optimisation starts a train just before the neighbour's
  remembered wake-up.
* `send_packet`'s busy loop counts as CPU time, as Energest counts it.
* Each node's 32 kHz crystal is off by a draw within the platform file's
  tolerance, so schedules drift apart as on real motes.

Tables and figures give the mean over completed handshakes. Beside it: the
completed share with its Wilson interval, and the censored mean (a failure
counted at its give-up time).

What matches the measurements: duration grows with the check interval and
with hops; a lower PDR lengthens handshakes and raises energy.

What does not: see "Why the model differs" below the reference values; each
row links to its reason. Each reason follows from the sources above, so the
measurements' configuration must have differed where the public sources do
not show it. Two such places are known:

* Stock cxmac cannot strobe at a check interval of 1 s or more on MSP430.
  Its strobe time is a 16-bit rtimer value, and from 1 s on it exceeds the
  half range `RTIMER_CLOCK_LT` compares over, so the strobe loop ends before
  its first strobe. The model assumes wide timers.
* The 2015 tinyDTLS freed a retransmitted record while it was still queued
  (dtls.c `dtls_retransmit_process`, fixed in 2016). Its retransmissions
  after the first were undefined behaviour, which is not modelled.

To see it: the timeline below draws one handshake.
`dtlsim run scenarios/exp1-xmac.toml --trace FILE --pcap-point N` writes
any run's events, and `dtlsim trace show FILE` draws them. In the failed
handshakes, the lost frames are mostly the server's, at the relay next to
the client, where the client's retransmissions meet them.
"""


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    out = (work or Path("results")) / scenario.experiment.id
    reps = replications_of(scenario, None, quick)
    rows, summary = run_scenario(scenario, out, reps)
    metrics = ["duration_s", "client_energy_uj", "dtls_retransmissions"]
    table = summary[display.columns(summary, [HOPS, PDR, CI], metrics)].sort_values([HOPS, PDR, CI])
    testbed = _testbed(scenario, table, quick, out.with_name(f"{out.name}-testbed"))

    figures = [
        _per_hops(table, "duration_s", "handshake duration (s)", "exp1_duration_vs_ci"),
        _per_hops(table, "client_energy_uj", "client energy (mJ)", "exp1_energy_vs_ci", 1e-3),
        _vs_hops(table),
        _success(table),
    ]
    tables = [
        Table(
            "exp1_xmac",
            "Handshake duration and client energy per point (means over successful "
            "handshakes; censored means count failures at their give-up time)",
            table,
            f"{reps} replications per point; full rows in {out}/results.parquet.",
        )
    ]
    if testbed is not None:
        tables.append(
            Table(
                "exp1_testbed",
                "PDR 100 %: the line as simulated by default beside the testbed layout (every "
                "node in range of every other, the line made by routes): share completed with "
                "its Wilson interval, and mean duration over completed handshakes",
                testbed,
                'The testbed rows are a variant (topology.audible = "all"), not the '
                "default: the reference measurements do not say how their nodes were placed.",
            )
        )
    # "Cooja, same firmware": the oracle's set-up, beside its logs
    cooja = cooja_oracle.compare(
        load_scenario(cooja_oracle.SCENARIO), quick, out.with_name(f"{out.name}-cooja")
    )
    # the same oracle over ContikiMAC
    cmac_tables, cmac_checks = cooja_contikimac.compare(
        quick, out.with_name(f"{out.name}-cooja-contikimac")
    )
    return ExperimentResult.for_scenario(
        scenario,
        SUMMARY
        + _findings(table, testbed, rows.frame(FINDINGS_COLUMNS))
        + "\n\n"
        + cooja_oracle.SUMMARY
        + "\n"
        + cooja_contikimac.SUMMARY,
        tables=tables + cooja.tables + cmac_tables,
        figures=figures,
        checks=checks(scenario.experiment.id, table) + cooja.checks + cmac_checks,
        timelines=_timelines(scenario),
    )


# The handshake drawn as a timeline: one hop, no loss, the shortest check
# interval the reference measured at every hop count.
TIMELINE_POINT = {HOPS: 1, PDR: 1.0, CI: 125.0}


def _timelines(scenario: Scenario) -> list[Timeline]:
    events = timeline.traced(scenario, TIMELINE_POINT)
    if events is None:
        return []
    return [
        Timeline(
            "exp1_handshake_1hop",
            "One handshake over one X-MAC hop, check interval 125 ms, PDR 100 %",
            events,
            "Replication 0 of that point, as the sweep ran it "
            "(`dtlsim run exp1-xmac --trace FILE` and `dtlsim trace show FILE` draw any run). "
            "Every datagram waits for the neighbour's wake-up: a strobe train (grey) until "
            "its strobe ACK, then the data frame.",
        )
    ]


def _testbed(
    scenario: Scenario, table: pd.DataFrame, quick: bool, out: Path
) -> pd.DataFrame | None:
    """PDR 100 % at the testbed check intervals, on the default line and on the
    testbed layout, a row each (None when the sweep has none of those points)."""
    line = table[(table[PDR] == 1.0) & table[CI].isin(TESTBED_CIS)]
    if line.empty:
        return None
    hops = sorted(int(h) for h in line[HOPS].unique())
    cis = sorted(float(c) for c in line[CI].unique())
    bed = variant(
        scenario,
        {
            AUDIBLE: "all",
            PDR: 1.0,
            HOPS: hops,
            CI: cis,
            keys.EXPERIMENT_REPLICATIONS: TESTBED_REPLICATIONS,
        },
    )
    _, summary = run_scenario(bed, out, replications_of(bed, None, quick))
    # a one-valued key is no sweep axis, so not a summary column
    summary = summary.assign(**{k: v[0] for k, v in [(HOPS, hops), (CI, cis)] if k not in summary})
    both = pd.concat([line.assign(layout=LINE_LAYOUT), summary.assign(layout=TESTBED_LAYOUT)])
    keep = display.columns(both, [HOPS, CI, "layout"], ["duration_s"])
    return both[keep].sort_values([HOPS, CI, "layout"])


# the client's energy split the findings explain, and the columns they read
ENERGY_PARTS = {"radio": ["node0_radio_tx_uj", "node0_radio_rx_uj"], "cpu": ["node0_cpu_active_uj"]}
FINDINGS_COLUMNS = [
    HOPS,
    PDR,
    CI,
    "success",
    "duration_s",
    *(c for cs in ENERGY_PARTS.values() for c in cs),
]


def _findings(table: pd.DataFrame, testbed: pd.DataFrame | None, rows: pd.DataFrame) -> str:
    """What this run shows about the testbed layout and the one-hop energy, in numbers."""
    out = ""
    if testbed is not None:
        worst = testbed.groupby(["layout", HOPS]).success_rate.min().unstack(HOPS)
        multi = [h for h in worst.columns if h > 1]
        if multi and LINE_LAYOUT in worst.index and TESTBED_LAYOUT in worst.index:
            cis = ", ".join(f"{c / 1000:g}" for c in sorted(testbed[CI].unique()))
            pairs = "; ".join(
                f"{h} hops {worst.loc[LINE_LAYOUT, h]:.2f} on the line, "
                f"{worst.loc[TESTBED_LAYOUT, h]:.2f} on the testbed"
                for h in multi
            )
            out += (
                "\n\nThe testbed layout (table below): every node hears every other, "
                "and only the routes make the line.\n\n"
                "* A relay's two neighbours are no longer hidden from each other: each "
                "senses the other's strobes.\n"
                "* cxmac listens before its first strobe, gives its train up on hearing "
                "another's, and keeps quiet while someone_is_sending.\n"
                "* So far fewer strobes overlap a data frame at the relay.\n"
                "* At PDR 100 % the fewest handshakes completed at any of the check "
                f"intervals {cis} s: {pairs}.\n"
                "* A loss that remains still fails the handshake when it hits the final "
                "flight, which tinyDTLS never resends."
            )
    one = rows[(rows[HOPS] == 1) & (rows[PDR] == 1.0) & rows.success.astype(bool)]
    parts = ENERGY_PARTS
    if not one.empty and all(c in one for cs in parts.values() for c in cs):
        by = one.groupby(CI)
        radio = by[parts["radio"]].mean().sum(axis=1) / 1000
        cpu = by[parts["cpu"]].mean().sum(axis=1) / 1000
        duration = by.duration_s.mean()
        cis = sorted(radio.index)
        if len(cis) >= 3:
            a, b = cis[-2], cis[-1]
            out += (
                "\n\nWhy the client's energy bends against the check interval on one hop "
                "(means over completed handshakes at PDR 100 %):\n\n"
                f"* From a check interval of {a / 1000:g} s to {b / 1000:g} s the handshake "
                f"lasts {duration[a]:.1f} s, then {duration[b]:.1f} s.\n"
                f"* The client's radio (TX + RX) uses {radio[a]:.0f} mJ, then "
                f"{radio[b]:.0f} mJ, and its CPU {cpu[a]:.0f} mJ, then {cpu[b]:.0f} mJ "
                f"(at {cis[0]:g} ms: radio {radio[cis[0]]:.1f} mJ, CPU {cpu[cis[0]]:.1f} mJ).\n"
                "* Once cxmac knows the neighbour's wake-up, a train is short whatever the "
                "check interval.\n"
                "* What grows with it is the wait for that wake-up, which send_packet "
                "spends in a busy loop (CPU time, not radio time), and the DTLS timer "
                "waits, asleep.\n"
                "* The radio part stops growing where the CPU part keeps on, so the sum is "
                "not a straight line through the points."
            )
    return out


# Tolerances of the shape checks. estimate: a handshake's duration is a sum
# of per-hop waits for the next hop's wake-up, each proportional to the
# check interval (Buettner et al., "X-MAC", SenSys 2006: a sender waits on
# average half a check interval), plus terms that do not depend on it (CPU,
# crypto, airtime, DTLS timer waits that mostly overlap); a straight line
# then leaves well under 5 % of the variance across the swept points
# unexplained, while a curve that bends (a timer cliff, a collapse of
# success) leaves more.
LINEAR_R2 = 0.95
# estimate: per hop the same waits add, but the first hop's and the relays'
# queues differ (the relay carries both directions), so allow 10 %.
HOPS_R2 = 0.90
# The reference measurements completed every handshake at PDR 100 %, at every
# check interval and hop count; hidden terminals cost retransmissions, not
# handshakes. estimate: allow 5 % lost to them before calling it a difference.
COMPLETE_RATE = 0.95
# Why the model, built from Contiki 2.7's csma/cxmac and the 2015 tinyDTLS,
# can differ from the published measurements (shown with a check that misses).
WHY_SLOWER = (
    "each packet queued behind another to the same neighbour costs about two check "
    "intervals (csma.c free_packet waits one, cxmac's encounter wait almost one more), "
    "so flights of two or three records outlast tinyDTLS's 2 s timer, whose expiries queue "
    "the flight again: duration grows faster than the check interval from about 1 s on"
)
WHY_LOST = (
    "the client's duplicate records travel towards the server while the server's last "
    "flight travels back; both neighbours of a relay strobe just before its wake-up "
    "(encounter optimisation), cannot hear each other, and a strobe overlapping a data "
    "frame at the relay destroys it; tinyDTLS never resends its last flight, so a lost "
    "ChangeCipherSpec or Finished fails the handshake"
)
WHY_ENERGY_BENDS = (
    "the client's radio energy stops growing at long check intervals (a train aimed at a "
    "known wake-up is short), while the CPU time of send_packet's busy wait for that "
    "wake-up keeps growing with it: the sum bends (numbers in the summary)"
)
LINEAR_SOURCE = (
    "X-MAC (Buettner et al., SenSys 2006): every frame waits for the next hop's "
    "wake-up, a time proportional to the check interval; tolerance an estimate "
    "(see exp1_xmac.py LINEAR_R2)"
)


def _r2(x: list[float], y: list[float]) -> float:
    """Coefficient of determination of the least-squares line through (x, y)."""
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return float("nan")
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    return sxy * sxy / (sxx * syy)


def _why_not_linear(metric: str, hops: int) -> tuple[str, ...]:
    why = [WHY_SLOWER]
    if metric == "client_energy_uj" and hops == 1:
        why.append(WHY_ENERGY_BENDS)
    if hops > 1:
        why.append(WHY_LOST)
    return tuple(why)


def checks(exp: str, t: pd.DataFrame) -> list[Check]:
    """Linear in CI and nearly linear in hops at PDR 100 %; not falling as PDR falls."""
    out: list[Check] = []
    full = t[t[PDR] == t[PDR].max()]
    for hops, sub in full.groupby(HOPS):
        worst = sub.loc[sub["success_rate"].idxmin()]
        out.append(
            Check.between(
                exp,
                f"fewest handshakes completed at any check interval, {hops} hop(s), PDR 100 %",
                float(worst["success_rate"]),
                COMPLETE_RATE,
                1.0,
                unit="",
                source="reference measurements: every handshake completed at PDR 100 %; "
                "tolerance an estimate (see exp1_xmac.py COMPLETE_RATE)",
                params={"hops": int(hops), "pdr": 1.0, "ci_ms": float(worst[CI])},
                against_measurement=True,
                reasons=(WHY_LOST if hops > 1 else WHY_SLOWER,),
            )
        )
    for hops, sub in full.groupby(HOPS):
        sub = sub.dropna(subset=["duration_s_mean", "client_energy_uj_mean"])
        if len(sub) < 3:
            continue
        for metric, what in [("duration_s", "duration"), ("client_energy_uj", "client energy")]:
            out.append(
                Check.between(
                    exp,
                    f"R² of {what} vs check interval, {hops} hop(s), PDR 100 %",
                    _r2(list(sub[CI]), list(sub[f"{metric}_mean"])),
                    LINEAR_R2,
                    1.0,
                    unit="",
                    source=LINEAR_SOURCE,
                    params={"hops": int(hops), "pdr": 1.0},
                    against_measurement=True,
                    reasons=_why_not_linear(metric, int(hops)),
                )
            )
    for ci, sub in full.groupby(CI):
        sub = sub.dropna(subset=["duration_s_mean"])
        if len(sub) < 3:
            continue
        out.append(
            Check.between(
                exp,
                f"R² of duration vs hops, CI {ci:g} ms, PDR 100 %",
                _r2(list(sub[HOPS]), list(sub["duration_s_mean"])),
                HOPS_R2,
                1.0,
                unit="",
                source="per-hop waits add up (X-MAC, Buettner et al., SenSys 2006); "
                "tolerance an estimate (see exp1_xmac.py HOPS_R2)",
                params={"ci_ms": float(ci), "pdr": 1.0},
                against_measurement=True,
                reasons=(WHY_LOST,),
            )
        )
    for metric, what in [("duration_s", "duration"), ("client_energy_uj", "client energy")]:
        # a fall is counted only when the lower PDR's whole 95 % interval
        # lies below the higher PDR's: chance alone makes that rare
        falls = pairs = 0
        for _, sub in t.groupby([HOPS, CI]):
            sub = sub.sort_values(PDR, ascending=False).dropna(subset=[f"{metric}_mean"])
            rows = list(sub.itertuples(index=False))
            for hi, lo in pairwise(rows):
                pairs += 1
                hi_low = getattr(hi, f"{metric}_ci_low")
                lo_high = getattr(lo, f"{metric}_ci_high")
                falls += int(lo_high < hi_low)
        out.append(
            Check.between(
                exp,
                f"{what}: steps where a lower PDR gives a lower value (of {pairs})",
                float(falls),
                0.0,
                0.0,
                unit="",
                source="losses add DTLS retransmission waits and strobe trains; "
                "a step counts when the 95 % intervals do not overlap",
                statistical=True,
                against_measurement=True,
                note="a lower PDR loses more flights, but the means are over completed "
                "handshakes only: the slow ones fail more often at lower PDR (see the "
                "censored means)",
            )
        )
    return out


def _ci_axis(ax, cis: list[float]) -> None:
    style.log_axis(ax, "x", base=2, ticks=cis)  # check intervals double: 62.5 ms … 4 s
    ax.tick_params(axis="x", labelrotation=45)
    ax.set_xlabel("check interval (ms)")


def _per_hops(t: pd.DataFrame, metric: str, ylabel: str, name: str, scale: float = 1.0) -> Figure:
    hops = sorted(t[HOPS].unique())
    fig, axes = style.subplots(len(hops), sharey=True)
    for ax, h in zip(axes, hops, strict=True):
        for pdr, sub in t[t[HOPS] == h].groupby(PDR):
            display.errorbar(ax, sub, CI, metric, scale, f"PDR {pdr:.0%}")
        _ci_axis(ax, sorted(t[CI].unique()))
        ax.set_title(f"{h} hop(s)")
    style.log_axis(axes[0], "y")  # a fraction of a second at 62.5 ms, minutes at 4 s
    axes[0].set_ylabel(ylabel)
    style.legend(fig, columns=4)
    return Figure(
        name,
        f"{ylabel} vs check interval",
        fig,
        "Mean over successful handshakes and 95 % CI; missing points: no handshake "
        "completed. " + display.FEW_NOTE,
    )


def _vs_hops(t: pd.DataFrame) -> Figure:
    cis = sorted(t[CI].unique())
    ci = 125.0 if 125.0 in cis else cis[0]
    fig, (ax,) = style.subplots()
    for pdr, sub in t[t[CI] == ci].groupby(PDR):
        display.errorbar(ax, sub, HOPS, "duration_s", 1.0, f"PDR {pdr:.0%}")
    style.count_axis(ax)
    style.log_axis(ax, "y")  # one hop's seconds beside four hops' minutes
    ax.set_xlabel("hops")
    ax.set_ylabel("handshake duration (s)")
    ax.set_title(f"Duration vs hops, CI = {ci:g} ms")
    style.legend(fig, columns=4)
    return Figure("exp1_duration_vs_hops", "Handshake duration vs hops", fig, display.FEW_NOTE)


def _success(t: pd.DataFrame) -> Figure:
    hops = sorted(t[HOPS].unique())
    fig, axes = style.subplots(len(hops), sharey=True)
    for ax, h in zip(axes, hops, strict=True):
        for pdr, sub in t[t[HOPS] == h].groupby(PDR):
            display.success(ax, sub, CI, f"PDR {pdr:.0%}")
        _ci_axis(ax, sorted(t[CI].unique()))
        ax.set_title(f"{h} hop(s)")
    axes[0].set_ylabel("share of handshakes completed")
    style.legend(fig, columns=4)
    return Figure(
        "exp1_success_vs_ci",
        "Share of handshakes completed",
        fig,
        "Success rate with its Wilson score 95 % interval.",
    )
