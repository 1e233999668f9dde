"""Experiment 6, simulated part: round-trip time vs payload, plain vs DTLS."""

from __future__ import annotations

import json
from pathlib import Path

from dtlsim import _core, keys
from dtlsim.experiments import display, style
from dtlsim.experiments.base import ExperimentResult, Figure, Table
from dtlsim.runner import replications_of, run_scenario
from dtlsim.scenario import Scenario

PAYLOAD = keys.WORKLOAD_PING_PAYLOAD_BYTES
SECURITY = keys.WORKLOAD_PING_SECURITY
HOPS = keys.TOPOLOGY_HOPS

SUMMARY = """\
A ping-like exchange (the client sends a payload, the server echoes it) over
always-on CSMA with link-layer ACKs, one and three hops, route-over 6LoWPAN.

* Plain UDP against DTLS 1.2 application records of an established session.
* The DTLS cryptography is charged at the platform's software AES cost on
  both ends.
* The round-trip time steps up where a datagram needs one more 802.15.4
  frame.
* The dashed lines mark where the closed form of `exp6-overhead` says
  fragmentation starts. DTLS reaches each step earlier by its per-record
  overhead.
"""


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    out = (work or Path("results")) / scenario.experiment.id
    reps = replications_of(scenario, None, quick)
    _, summary = run_scenario(scenario, out, reps)
    table = summary[display.columns(summary, [HOPS, SECURITY, PAYLOAD], ["rtt_ms"])].sort_values(
        [HOPS, SECURITY, PAYLOAD]
    )

    frame = _core.FrameSpec()
    first_step = {
        sec: _core.max_unfragmented_app_payload(frame, "1.2", None if sec == "none" else sec)
        for sec in table[SECURITY].unique()
    }
    hops = sorted(table[HOPS].unique())
    fig, axes = style.subplots(len(hops))
    for ax, h in zip(axes, hops, strict=True):
        for i, (sec, sub) in enumerate(table[table[HOPS] == h].groupby(SECURITY, sort=False)):
            display.errorbar(
                ax,
                sub,
                PAYLOAD,
                "rtt_ms",
                1.0,
                "plain UDP" if sec == "none" else f"DTLS {sec}",
                color=style.COLOURS[i],
                marker=style.MARKERS[i],
                markersize=3,
            )
            step = first_step.get(sec)
            if step is not None:
                ax.axvline(step + 0.5, color=style.COLOURS[i], ls="--", lw=0.8)
        ax.set_title(f"{h} hop(s)")
        ax.set_xlabel("application payload (bytes)")
        ax.set_ylabel("round-trip time (ms)")
    style.legend(fig)
    return ExperimentResult.for_scenario(
        scenario,
        SUMMARY,
        tables=[
            Table(
                "exp6_rtt",
                "Round-trip time per payload",
                table,
                f"{reps} replications per point; largest payload in one frame: "
                + json.dumps({k: v for k, v in first_step.items()}),
            )
        ],
        figures=[
            Figure(
                "exp6_rtt_vs_payload",
                "RTT vs payload",
                fig,
                "Mean over answered pings and 95 % CI. " + display.FEW_NOTE,
            )
        ],
    )
