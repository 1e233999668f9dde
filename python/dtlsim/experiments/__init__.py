"""The reference experiments, one module each, keyed by scenario id."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dtlsim.experiments import (
    exp1_xmac,
    exp2_beacon,
    exp3_dtls,
    exp3_tsch,
    exp4_sessions,
    exp5_llsec,
    exp6_overhead,
    exp6_rtt,
    exp7_sim,
    exp7_udp,
    exp8_handshakes,
    exp9_medium,
    tsch_storm,
)
from dtlsim.experiments.base import Check, ExperimentResult, Figure, Table, Timeline
from dtlsim.scenario import Scenario

Runner = Callable[[Scenario, bool, Path | None], ExperimentResult]

RUNNERS: dict[str, Runner] = {
    "exp1-xmac": exp1_xmac.run,
    "exp2-beacon": exp2_beacon.run,
    "exp3-tsch": exp3_tsch.run,
    "exp3-tsch-dtls": exp3_dtls.run,
    "exp4-sessions": exp4_sessions.run,
    "exp5-llsec-tsch": exp5_llsec.run,
    "exp6-overhead": exp6_overhead.run,
    "exp6-rtt": exp6_rtt.run,
    "exp7-dtls13-sim": exp7_sim.run,
    "exp7-dtls13-udp": exp7_udp.run,
    "exp8-handshakes": exp8_handshakes.run,
    "exp9-medium": exp9_medium.run,
    "tsch-storm-1000": tsch_storm.run,
}

__all__ = ["RUNNERS", "Check", "ExperimentResult", "Figure", "Runner", "Table", "Timeline"]
