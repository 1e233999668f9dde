"""Experiment 1: DTLS 1.2 PSK handshakes over X-MAC, simulated."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from dtlsim.experiments import display
from dtlsim.experiments.base import Check, ExperimentResult, Figure, Table
from dtlsim.runner import replications_of, run_scenario
from dtlsim.scenario import Scenario

CI = "mac.xmac.check_interval_ms"
HOPS = "topology.hops"
PDR = "topology.pdr"

SUMMARY = """\
Real DTLS 1.2 PSK-AES128-CCM-8 handshakes (the `crates/dtls` stack,
tinyDTLS-like: one record per datagram and tinyDTLS's retransmission timer,
dtls.c `dtls_send_multi` / `dtls_retransmit`: 2 s before the first
retransmission of a record, then 4, 8, 16 ... s, given up after 7
retransmissions, global.h `DTLS_DEFAULT_MAX_RETRANSMIT`) carried in real
802.15.4 frames over X-MAC between WiSMote nodes in a line, in virtual time.
Each replication is a fresh network (random wake-up phases, fresh keys)
doing one handshake; the figures show mean and 95 % confidence interval of
successful handshakes and the share that completed before the DTLS stack
gave up.

What the simulation shows that a per-hop delay budget does not: with the
encounter optimisation every frame after the first one to a neighbour waits
for that neighbour's next wake-up, so a handshake of about ten datagrams
costs about ten check intervals per hop. Once that exceeds 2 s the timer
fires before the answer can arrive and records are sent again; the doubling
schedule leaves time for the answer to arrive, at the price of duplicate
records queued at every hop. Like tinyDTLS, the stack answers no repeat of
the peer's previous flight except a repeated ClientHello, and a server never
resends its last flight (ChangeCipherSpec, Finished): a lost server Finished
fails the handshake. Under the MAC, Contiki 2.7's csma (csma.c
`packet_sent`) retries a strobe train that got no strobe ACK up to three
times and one aborted by another node's strobe (cxmac.c `send_packet`) without
counting it; a node backing off still answers strobes. Data frames are not
acknowledged in X-MAC, so a frame lost to a hidden terminal (a node two hops
away strobing while its neighbour receives) is recovered only by the DTLS
timer.

What limited multi-hop handshakes at PDR 100 %: without a bound on the MAC
queue, every DTLS retransmission added its records to the queues at both
ends of the path; the client and the server (or the next relay) then always
had a frame for the same relay, and with the encounter optimisation both
started their trains just before that relay's wake-up, two hops apart and
unable to hear each other, so their strobes collided there train after
train. Contiki's csma holds at most QUEUEBUF_NUM = 8 packets (csma.c
MAX_QUEUED_PACKETS; platform/wismote/contiki-conf.h), drops a packet that
finds it full, and waits one check interval after each packet before the
next (csma.c `free_packet`); cxmac starts strobing at once when the
neighbour is due within the lead (cxmac.c `send_packet`). With these rules
two-hop handshakes at a check interval of 1 s complete.

What the model still does not reproduce, and why. Published measurements
show every handshake completing at PDR 100 % up to a 4 s check interval,
with duration linear in the check interval and nearly linear in hops. In
this model, built from the sources above, two mechanisms prevent that: (1)
each queued packet costs about two check intervals — csma waits one check
interval after a packet (csma.c `free_packet`), by which time the
neighbour's wake-up has just passed, so cxmac's encounter wait (cxmac.c
`send_packet`: `(e->time - now) % DEFAULT_PERIOD`) runs almost a whole
period more. A flight of three records then takes longer than tinyDTLS's 2,
4, 8, 16 s retransmission schedule, every expiry queues the whole flight
again, the eight queue buffers fill and packets are dropped, so duration
grows faster than the check interval (one hop: about 16 s at 1 s, 49 s at 2
s, 121 s at 4 s) and at 4 s about half the one-hop handshakes fail. (2) On
three and four hops the client's duplicate records travel towards the server
while the server's last flight travels back; both sides of a relay know its
wake-up and strobe just before it, cannot hear each other, and a strobe
overlapping a data frame at the relay destroys it (no capture between equal-
power frames). A lost server ChangeCipherSpec or Finished is never resent by
tinyDTLS, which ignores the client's repeated flight once connected, so the
handshake fails. Stock cxmac cannot run a check interval of 2 s or more on
MSP430 nodes: the period is counted in 16-bit rtimer ticks at 32768 Hz (at
most 65535 ticks, just under 2 s) and set as an integer check rate per
second; the model assumes a cxmac whose period arithmetic is exact at any
check interval. tinyDTLS of 2015 also freed a retransmitted record while it
was still queued (the Contiki retransmit process in dtls.c), so real
retransmissions after the first were unreliable; that undefined behaviour is
not modelled.
"""


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    out = (work or Path("results")) / scenario.experiment.id
    reps = replications_of(scenario, None, quick)
    _, summary = run_scenario(scenario, out, reps)
    metrics = ["duration_s", "client_energy_uj", "dtls_retransmissions"]
    table = summary[display.columns(summary, [HOPS, PDR, CI], metrics)].sort_values([HOPS, PDR, CI])

    figures = [
        _per_hops(table, "duration_s", "handshake duration (s)", "exp1_duration_vs_ci"),
        _per_hops(table, "client_energy_uj", "client energy (mJ)", "exp1_energy_vs_ci", 1e-3),
        _vs_hops(table),
        _success(table),
    ]
    return ExperimentResult(
        id=scenario.experiment.id,
        title=scenario.experiment.title,
        reference=scenario.experiment.reference,
        summary=SUMMARY,
        tables=[
            Table(
                "exp1_xmac",
                "Handshake duration and client energy per point (means over successful "
                "handshakes; censored means count failures at their give-up time)",
                table,
                f"{reps} replications per point; full rows in {out}/results.parquet.",
            )
        ],
        figures=figures,
        checks=checks(scenario.experiment.id, table),
    )


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
            )
        )
    return out


def _ci_axis(ax, cis: list[float]) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(cis)
    ax.set_xticklabels([f"{c:g}" for c in cis], rotation=45, fontsize=7)
    ax.minorticks_off()
    ax.set_xlabel("check interval (ms)")


def _per_hops(t: pd.DataFrame, metric: str, ylabel: str, name: str, scale: float = 1.0) -> Figure:
    hops = sorted(t[HOPS].unique())
    fig, axes = plt.subplots(1, len(hops), figsize=(3.2 * len(hops), 3.4), sharey=True)
    for ax, h in zip(list(axes) if len(hops) > 1 else [axes], hops, strict=True):
        for pdr, sub in t[t[HOPS] == h].groupby(PDR):
            display.errorbar(ax, sub, CI, metric, scale, f"PDR {pdr:.0%}")
        _ci_axis(ax, sorted(t[CI].unique()))
        ax.set_title(f"{h} hop(s)")
        ax.grid(alpha=0.3)
    (axes[0] if len(hops) > 1 else axes).set_ylabel(ylabel)
    (axes[0] if len(hops) > 1 else axes).legend(fontsize=7)
    fig.tight_layout()
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
    fig, ax = plt.subplots(figsize=(5, 3.4))
    for pdr, sub in t[t[CI] == ci].groupby(PDR):
        display.errorbar(ax, sub, HOPS, "duration_s", 1.0, f"PDR {pdr:.0%}")
    ax.set_xlabel("hops")
    ax.set_ylabel("handshake duration (s)")
    ax.set_title(f"Duration vs hops, CI = {ci:g} ms")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return Figure("exp1_duration_vs_hops", "Handshake duration vs hops", fig, display.FEW_NOTE)


def _success(t: pd.DataFrame) -> Figure:
    hops = sorted(t[HOPS].unique())
    fig, axes = plt.subplots(1, len(hops), figsize=(3.2 * len(hops), 3.0), sharey=True)
    for ax, h in zip(list(axes) if len(hops) > 1 else [axes], hops, strict=True):
        for pdr, sub in t[t[HOPS] == h].groupby(PDR):
            display.success(ax, sub, CI, f"PDR {pdr:.0%}")
        _ci_axis(ax, sorted(t[CI].unique()))
        ax.set_title(f"{h} hop(s)")
        ax.grid(alpha=0.3)
    (axes[0] if len(hops) > 1 else axes).set_ylabel("handshakes completed")
    (axes[0] if len(hops) > 1 else axes).legend(fontsize=7)
    fig.tight_layout()
    return Figure(
        "exp1_success_vs_ci",
        "Share of handshakes completed",
        fig,
        "Success rate with its Wilson score 95 % interval.",
    )
