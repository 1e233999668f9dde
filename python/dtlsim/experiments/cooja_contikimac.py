"""Experiment 1's handshake over ContikiMAC beside Cooja running the same
firmware with Contiki 3.0's contikimac_driver, shown on experiment 1's page
after the X-MAC checks.

The oracle is the one of `cooja_oracle`, its RDC switched to ContikiMAC with
software ACKs (`reference/cooja-contikimac`, its README gives the
configuration and date). dtlsim runs `scenarios/cooja-contikimac.toml` once
per logged configuration and judges it by the same agreement rule. Logs in
which Cooja's own behaviour, not ContikiMAC's, decides the outcome are listed
with Cooja's figures and the reason, not judged.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dtlsim import keys, resources
from dtlsim.experiments import cooja_oracle
from dtlsim.experiments.base import Check, Table
from dtlsim.runner import replications_of
from dtlsim.scenario import load_scenario, variant

SOURCE = (
    "Cooja 3.0 running Contiki 3.0 csma/contikimac (software ACKs) and tinyDTLS 0.8.2 "
    "on native motes, UDGM (reference/cooja-contikimac)"
)

SCENARIO = "cooja-contikimac"

# Logs not judged, with the reason (reference/cooja-contikimac/README.md).
CLIENT_STOPS_WAKING = (
    "not compared: in Cooja the client's CCAs fall on the relay's copy starts, where "
    "Cooja's CCA reads a clear channel (the mote runs before the sender's transmission "
    "starts at the same instant), so it hears the relay only during its own sends; "
    "dtlsim does not model that artefact yet"
)
NOT_JUDGED = {
    "h2-r8-ir100": CLIENT_STOPS_WAKING,
    "h2-r8-ir100-pdr90": CLIENT_STOPS_WAKING,
    "h3-r8-ir100": CLIENT_STOPS_WAKING,
    "h3-r8-ir100-pdr90": CLIENT_STOPS_WAKING,
}

EXPLANATION = (
    "modelled from the oracle's radio log (reference/cooja-contikimac/README.md): the "
    "cooja mote's 4 ms between copies and before the first, its software ACK 1 ms after "
    "the frame and found after one more copy, its CCAs and csma's waits on whole milliseconds "
    "from the last frame end heard; the firmware's frames (8-byte link addresses, HC06's context "
    "byte) on the air as long as in Cooja. Not traced yet: over three Cooja runs at PDR "
    "100 % (seeds 1-3: 0.33, 0.17, 0.28) and three at 90 % (0.50, 0.56, 0.61) the client "
    "resends about 0.1-0.2 records a handshake more than in dtlsim's five"
)

SUMMARY = """\
Over ContikiMAC the same oracle runs Contiki 3.0's contikimac_driver with
software ACKs (reference/cooja-contikimac). dtlsim runs its set-up
(scenarios/cooja-contikimac.toml): contikimac.c's constants on the 1 kHz
rtimer, the cooja mote's measured loop timing and its 1 ms ticks. At 2 and 3
hops Cooja's client stops hearing its relay: its CCAs fall on the relay's
copy starts, where Cooja's CCA reads a clear channel (an artefact of
Cooja's event order); those logs are listed with the reason and not judged.
"""


def oracle_logs() -> list[Path]:
    return sorted(resources.reference_dir("cooja-contikimac").glob("*.hs.log"))


def overrides(setup: cooja_oracle.Setup) -> dict[str, object]:
    return {
        keys.TOPOLOGY_HOPS: setup.hops,
        keys.MEDIUM_TX_RANGE_M: setup.tx_range_m,
        keys.MEDIUM_INTERFERENCE_RANGE_M: setup.interference_range_m,
        keys.MEDIUM_SPACING_M: setup.spacing_m,
        keys.MEDIUM_SUCCESS_RATIO_RX: setup.success_ratio_rx,
    }


def compare(quick: bool, out: Path) -> tuple[list[Table], list[Check]]:
    """Each ContikiMAC Cooja log beside dtlsim's run of the same set-up."""
    scenario = load_scenario(SCENARIO)
    reps = replications_of(scenario, None, quick)
    rows, checks = [], []
    for paths in cooja_oracle.runs_of(oracle_logs()).values():
        setup, cooja_rows = cooja_oracle.read_runs(paths)
        cooja = cooja_oracle.describe(cooja_rows)
        base = {
            "configuration": setup.name,
            "hops": setup.hops,
            "check_interval_ms": setup.check_interval_ms,
            "success_ratio_rx": setup.success_ratio_rx,
        }

        def run(setup=setup):
            return cooja_oracle.simulate_runs(
                variant(scenario, overrides(setup)), setup.hops, reps, out / setup.name
            )

        new_rows, new_checks = cooja_oracle.side_by_side(
            base,
            "Cooja",
            cooja,
            run if setup.name not in NOT_JUDGED else None,
            NOT_JUDGED.get(setup.name, ""),
            f"contikimac {setup.name}",
            source=SOURCE,
            explanation=EXPLANATION,
            cooja_runs=cooja_oracle.run_means(cooja_rows, "run"),
        )
        rows += new_rows
        checks += new_checks
    table = Table(
        "cooja_contikimac",
        "Cooja (same firmware, ContikiMAC) beside dtlsim on the same set-up, per "
        "configuration: share completed with its Wilson interval; means over completed "
        "handshakes with 95 % half-widths; dtlsim's in-process wall time",
        pd.DataFrame(rows),
        "Rows without dtlsim figures say why that log is not judged.",
    )
    return [table], checks
