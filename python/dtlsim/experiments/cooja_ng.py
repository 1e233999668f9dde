"""The TSCH experiment beside Cooja-NG running the same firmware (the
Contiki-NG oracle), shown on the TSCH experiment's page.

Cooja (the one Contiki-NG 4.9 pins) ran Contiki-NG 4.9 firmware with its
tinyDTLS over three MACs: csma with the radio always on, TSCH under the 6TiSCH
minimal schedule, and TSCH under Orchestra, on 1-3 hop lines with static
routes under UDGM (`reference/cooja-ng`, its README gives versions, settings
and dates). dtlsim runs the matching scenario for each MAC it models here
(`scenarios/cooja-ng-csma.toml`, `cooja-ng-tsch.toml`, `cooja-ng-orchestra.toml`) once
per logged configuration and judges it by the same agreement rule as the
Contiki 3.0 oracle (`cooja_oracle`), over runs: a configuration's first run
is `<configuration>.hs.log` (Cooja seed 1), its further runs
`<configuration>-s<seed>.hs.log`, pooled as `cooja_oracle` pools them. A MAC
whose dtlsim scenario does not exist yet is listed with Cooja's figures and
the reason, so the gap is visible rather than silently absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dtlsim import keys, resources
from dtlsim.experiments import cooja_oracle
from dtlsim.experiments.base import Check, Table
from dtlsim.runner import replications_of
from dtlsim.scenario import Scenario, load_scenario, variant

SOURCE = (
    "Cooja (Contiki-NG 4.9's) running Contiki-NG csma or TSCH and its tinyDTLS on native "
    "motes, UDGM, static routes (reference/cooja-ng)"
)

# The built-in scenario that writes each MAC's Cooja-NG set-up as dtlsim's;
# None: not modelled yet, with the reason.
SCENARIOS: dict[str, str | None] = {
    "csma": "cooja-ng-csma",
    "tsch": "cooja-ng-tsch",
    "orchestra": "cooja-ng-orchestra",
}
NOT_MODELLED: dict[str, str] = {}

# What is known of a difference, per MAC.
EXPLANATIONS = {
    "csma": "no mechanism found yet",
    "tsch": "mirrored from the oracle's radio logs and Contiki-NG's code: its 200 handshakes "
    "back to back at random slot phases, the server as TSCH coordinator, 8-byte link "
    "addresses, the receiver's radio off between a frame and its ACK "
    "(tsch-slot-operation.c), idle waits ending on Cooja's 1 ms mote steps and Cooja's "
    "airtime; not mirrored: the EBs and keep-alives that share Cooja's one cell",
    "orchestra": "mirrored as the 6TiSCH minimal set-up, with Orchestra's cells hashed from "
    "Cooja's node ids (the server is node 1) and TSCH CSMA's window counted down at every "
    "shared TX link as Contiki-NG does, the link the oracle's firmware makes the client add "
    "for the line's next id (a neighbour-table entry no mote answers) included, and "
    "Orchestra's EB slotframe (397 slots: a node's own EB slot hides its unicast TX cells "
    "and, when an EB goes, its receive cell; its time source's hides its receive cell). "
    "The oracle's radio logs show no keep-alive",
}


@dataclass(frozen=True)
class Setup:
    """One logged Cooja-NG configuration (its `# setup` line and file name)."""

    name: str
    hops: int
    tx_range_m: float
    interference_range_m: float
    spacing_m: float
    success_ratio_rx: float


@dataclass(frozen=True)
class Logged:
    """One Cooja-NG log: its MAC and the oracle set-up dtlsim mirrors."""

    mac: str
    setup: Setup
    rows: pd.DataFrame


def read_log(path: Path) -> Logged:
    fields, rows = cooja_oracle.read_rows(path)
    setup = Setup(
        name=cooja_oracle.configuration_of(path),
        hops=int(fields["hops"]),
        tx_range_m=float(fields["tx"]),
        interference_range_m=float(fields["ir"]),
        spacing_m=float(fields["spacing"]),
        success_ratio_rx=float(fields["pdr"]),
    )
    return Logged(fields["mac"], setup, rows)


def oracle_logs() -> list[Path]:
    return sorted(resources.reference_dir("cooja-ng").glob("*.hs.log"))


def read_runs(paths: list[Path]) -> Logged:
    """A configuration's runs (one log per Cooja seed): its MAC and set-up
    (the logs must agree on them) and a row per handshake with its run's
    number, as `cooja_oracle.read_runs` reads the Contiki 3.0 oracle's."""
    logs = [read_log(path) for path in paths]
    first = logs[0]
    if any((log.mac, log.setup) != (first.mac, first.setup) for log in logs):
        raise ValueError(f"{', '.join(map(str, paths))}: runs of different set-ups")
    rows = pd.concat(
        [log.rows.assign(run=number) for number, log in enumerate(logs)], ignore_index=True
    )
    return Logged(first.mac, first.setup, rows)


def overrides(setup: Setup) -> dict[str, object]:
    return {
        keys.TOPOLOGY_HOPS: setup.hops,
        # Cooja's node 1, the server, is the TSCH coordinator and the client
        # is the line's last node; the motes' link addresses end in their
        # node ids, which Orchestra's cells hash (ORCHESTRA_LINKADDR_HASH).
        # dtlsim's node k has the address ending in k + 1 and node 0 is the
        # TSCH root, so its server is node 0 and its client node `hops`.
        keys.WORKLOAD_SERVER_NODE: 0,
        keys.WORKLOAD_CLIENT_NODE: setup.hops,
        keys.MEDIUM_TX_RANGE_M: setup.tx_range_m,
        keys.MEDIUM_INTERFERENCE_RANGE_M: setup.interference_range_m,
        keys.MEDIUM_SPACING_M: setup.spacing_m,
        keys.MEDIUM_SUCCESS_RATIO_RX: setup.success_ratio_rx,
    }


SUMMARY = """\
Cooja-NG running the same firmware: Contiki-NG 4.9 with its tinyDTLS on Cooja's
native motes under UDGM, on 1-3 hop lines with static routes (reference/cooja-ng).
It runs over csma with the radio always on, TSCH with the 6TiSCH minimal schedule
and TSCH with Orchestra. dtlsim runs, each judged by the Contiki 3.0 oracle's rule:

* the csma set-up (scenarios/cooja-ng-csma.toml: Contiki-NG's csma on Cooja
  motes counts its backoff slot as 6 ms);
* the 6TiSCH minimal one (scenarios/cooja-ng-tsch.toml: one shared cell in a
  7-slot slotframe);
* the Orchestra one (scenarios/cooja-ng-orchestra.toml).

The agreement is judged over runs: every PDR-90 configuration was run at five
Cooja seeds (the PDR-100 ones at one), against dtlsim's five replications.
"""


def compare(quick: bool, out: Path) -> tuple[list[Table], list[Check]]:
    """Each Cooja-NG log beside dtlsim's run of the same set-up, where modelled."""
    rows, checks = [], []
    scenarios: dict[str, Scenario] = {
        mac: load_scenario(name) for mac, name in SCENARIOS.items() if name is not None
    }
    for paths in cooja_oracle.runs_of(oracle_logs()).values():
        logged = read_runs(paths)
        setup = logged.setup
        cooja = cooja_oracle.describe(logged.rows)
        base = {
            "configuration": setup.name,
            "mac": logged.mac,
            "hops": setup.hops,
            "success_ratio_rx": setup.success_ratio_rx,
        }
        scenario = scenarios.get(logged.mac)

        def run(scenario=scenario, setup=setup):
            reps = replications_of(scenario, None, quick)
            return cooja_oracle.simulate_runs(
                variant(scenario, overrides(setup)),
                setup.hops,
                reps,
                out / setup.name,
                client=setup.hops,
            )

        new_rows, new_checks = cooja_oracle.side_by_side(
            base,
            "Cooja-NG",
            cooja,
            run if scenario is not None else None,
            NOT_MODELLED.get(logged.mac, ""),
            setup.name,
            source=SOURCE,
            explanation=EXPLANATIONS.get(logged.mac, ""),
            # judged over runs, Cooja's seeds against dtlsim's replications
            cooja_runs=cooja_oracle.run_means(logged.rows, "run"),
        )
        rows += new_rows
        checks += new_checks
    walls = cooja_oracle.cooja_runs("cooja-ng")
    wall_rows = [
        cooja_oracle.wall_row(r["configuration"], walls, r["n"], r["dtlsim_wall_s"])
        for r in rows
        if r["simulator"] == "dtlsim" and "dtlsim_wall_s" in r
    ]
    wall_table = Table(
        "cooja_ng_wall_time",
        "Wall time for the same configuration: Cooja-NG (the whole run, a few seconds of "
        "it compiling the motes, at the lowest priority on a shared 2-core machine; "
        "reference/cooja-ng/runs.csv) beside dtlsim (in-process, this reproduce), and "
        "Cooja-NG's time per handshake over dtlsim's",
        pd.DataFrame(wall_rows),
    )
    table = Table(
        "cooja_ng_oracle",
        "Cooja-NG (same firmware) beside dtlsim on the Cooja-NG set-up, per configuration: "
        "share completed with its Wilson interval; means over completed handshakes with 95 % "
        "half-widths; dtlsim's in-process wall time",
        pd.DataFrame(rows),
        "Cooja-NG's n and runs (one per Cooja seed) per configuration as logged. The "
        "half-widths are over handshakes; the agreement checks judge over runs. Rows without "
        "dtlsim figures name what dtlsim does not model yet.",
    )
    return [table, wall_table], checks
