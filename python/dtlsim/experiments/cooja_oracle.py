"""Experiment 1 beside Cooja running the same firmware (the Cooja oracle),
shown on experiment 1's own page.

Cooja 3.0 ran real Contiki 3.0 firmware (csma over cxmac, IPv6/6LoWPAN HC06,
static routes) with the real tinyDTLS 0.8.2 on native "cooja" motes under its
UDGM radio medium; its per-handshake logs are reference data shipped with
dtlsim (`reference/cooja/`, read by `dtlsim.resources.reference_dir`). Experiment
1 runs `scenarios/cooja-xmac.toml` (the same set-up: the `cooja`
platform, UDGM, cxmac's constants on a 1 kHz rtimer) once per logged
configuration and judges each quantity by one rule of agreement:
completion shares whose Wilson intervals overlap; mean duration, client
retransmissions, client datagrams and radio-on time within 15 % of Cooja's
or inside the 95 % interval of the difference. A run is the unit of that
interval: a configuration may have several Cooja runs (one log per Cooja
seed) and dtlsim runs it in several replications, and the interval is the
two-sample t interval over the runs' means (`stats.difference_half95`).
Consecutive handshakes of one run are not independent (both simulators show
stretches of tens of handshakes with more resends than the rest: the run's
wake-up phases and tinyDTLS's leaked buffers carry over), so an interval
over one run's handshakes is too narrow: by it, Cooja's seed-2 run of a
configuration disagreed with its seed-1 run. With one run on each side
(`--quick`) there is no run-to-run spread to judge by, and Cooja's own
interval over its handshakes stands in.

The logs are the oracle's own format: a `# setup key=value …` line, then one
line per handshake (`attempt ok t_end_ms dur_ms client_rtx client_tx why
on_ms[1..n] tx_ms[1..n]`; node 1 is the server, node n the client). A
configuration's first run is `<configuration>.hs.log` (Cooja seed 1), its
further runs `<configuration>-s<seed>.hs.log`.
"""

from __future__ import annotations

import contextvars
import math
import os
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dtlsim import keys, resources
from dtlsim.experiments.base import Check, Table
from dtlsim.platform import load_platform
from dtlsim.runner import replications_of, run_scenario
from dtlsim.scenario import Scenario, variant
from dtlsim.stats import difference_half95, mean_ci95, proportion_ci95

# Agreement: within this share of Cooja's mean, or inside the 95 % interval of
# the difference over runs (Cooja's own interval over its handshakes where
# there is one run on each side).
RELATIVE = 0.15

SOURCE = (
    "Cooja 3.0 running Contiki 3.0 csma/cxmac and tinyDTLS 0.8.2 on native motes, "
    "UDGM (reference/cooja)"
)

# A PSK handshake's client datagrams when nothing is lost, one record per
# datagram and no PSK hint (RFC 6347 §4.2.1, §4.2.4): ClientHello, ClientHello
# with the cookie, ClientKeyExchange, ChangeCipherSpec, Finished. The oracle's
# client_rtx is the client's datagrams beyond these (client_tx − 5 in every
# log line); dtlsim's datagrams are turned into the same count.
FIRST_TRANSMISSIONS = 5

# dtlsim's columns read here (rows of completed handshakes)
COLUMNS = ["duration_s", "client_datagrams_sent", "success", "replication"]

# The quantities judged, as (column, words, unit): the means over completed handshakes.
QUANTITIES = (
    ("duration_s", "mean duration", "s"),
    ("client_resent", "client datagrams resent", ""),
    ("client_datagrams_sent", "client datagrams", ""),
    ("client_radio_on_s", "client radio-on time", "s"),
    ("radio_on_s", "radio-on time, all nodes", "s"),
)

# A further run of a configuration: `h2-r4-ir100-s2` is its Cooja seed-2 run.
FURTHER_RUN = re.compile(r"-s(\d+)$")


@dataclass(frozen=True)
class Setup:
    """One logged Cooja configuration (its `# setup` line and file name)."""

    name: str
    hops: int
    check_interval_ms: float
    tx_range_m: float
    interference_range_m: float
    spacing_m: float
    success_ratio_rx: float
    encounter_optimization: bool

    @property
    def overrides(self) -> dict[str, object]:
        return {
            keys.TOPOLOGY_HOPS: self.hops,
            keys.MAC_XMAC_CHECK_INTERVAL_MS: self.check_interval_ms,
            keys.MAC_XMAC_ENCOUNTER_OPTIMIZATION: self.encounter_optimization,
            keys.MEDIUM_TX_RANGE_M: self.tx_range_m,
            keys.MEDIUM_INTERFERENCE_RANGE_M: self.interference_range_m,
            keys.MEDIUM_SPACING_M: self.spacing_m,
            keys.MEDIUM_SUCCESS_RATIO_RX: self.success_ratio_rx,
        }


def read_log(path: Path) -> tuple[Setup, pd.DataFrame]:
    """One oracle log: its set-up and a row per handshake."""
    fields, rows = read_rows(path)
    setup = Setup(
        name=configuration_of(path),
        hops=int(fields["hops"]),
        # cxmac's channel check rate in Hz
        check_interval_ms=1000.0 / float(fields["rate"]),
        tx_range_m=float(fields["tx"]),
        interference_range_m=float(fields["ir"]),
        spacing_m=float(fields["spacing"]),
        success_ratio_rx=float(fields["pdr"]),
        # the oracle's runs keep it off unless the file says otherwise
        encounter_optimization="-eo-on" in path.name,
    )
    return setup, rows


def read_rows(path: Path) -> tuple[dict[str, str], pd.DataFrame]:
    """A log in the oracles' format (Cooja 3.0's and Cooja-NG's alike): the
    fields of its `# setup` line, and a row per handshake."""
    fields: dict[str, str] = {}
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("# setup "):
            fields = dict(kv.split("=", 1) for kv in line[len("# setup ") :].split())
        if not line[:1].isdigit():
            continue
        f = line.split()
        on_ms = [float(x) for x in f[7].split(",")]
        rows.append(
            {
                "success": f[1] == "1",
                "duration_s": float(f[3]) / 1000,
                "client_resent": int(f[4]),
                "client_datagrams_sent": int(f[5]),
                "failure": f[6],
                "client_radio_on_s": on_ms[-1] / 1000,
                "radio_on_s": sum(on_ms) / 1000,
            }
        )
    if not fields:
        raise ValueError(f"{path}: no '# setup' line")
    return fields, pd.DataFrame(rows)


def oracle_logs() -> list[Path]:
    return sorted(resources.reference_dir("cooja").glob("*.hs.log"))


def configuration_of(path: Path) -> str:
    """The configuration a log is a run of (its name without the seed suffix)."""
    return FURTHER_RUN.sub("", path.name.removesuffix(".hs.log"))


def seed_of(path: Path) -> int:
    """The Cooja seed a log was run with, by its name (1 without a suffix)."""
    further = FURTHER_RUN.search(path.name.removesuffix(".hs.log"))
    return int(further.group(1)) if further else 1


def runs_of(logs: list[Path]) -> dict[str, list[Path]]:
    """The logs grouped by configuration, in order of name; a configuration's
    runs in order of seed."""
    out: dict[str, list[Path]] = {}
    for path in sorted(logs, key=lambda p: (configuration_of(p), seed_of(p))):
        out.setdefault(configuration_of(path), []).append(path)
    return out


def read_runs(paths: list[Path]) -> tuple[Setup, pd.DataFrame]:
    """A configuration's runs: its set-up (from the first log; the others
    must name the same) and a row per handshake with its run's number."""
    setups, frames = [], []
    for number, path in enumerate(paths):
        setup, rows = read_log(path)
        setups.append(setup)
        frames.append(rows.assign(run=number))
    if any(s != setups[0] for s in setups):
        raise ValueError(f"{', '.join(map(str, paths))}: runs of different set-ups")
    return setups[0], pd.concat(frames, ignore_index=True)


def run_means(rows: pd.DataFrame, by: str) -> pd.DataFrame:
    """One row per run (`by` names it): the share completed and the means
    of the completed handshakes."""
    runs = rows.groupby(by)
    out = pd.DataFrame({"completed": runs["success"].mean().astype(float)})
    ok = rows[rows["success"].astype(bool)].groupby(by)
    for col, _, _ in QUANTITIES:
        if col in rows:
            out[col] = ok[col].mean()
    return out


def _mean_ci(x: pd.Series) -> tuple[float, float]:
    """Mean and its Student-t 95 % half-width."""
    mean, low, _, _ = mean_ci95(x)
    return mean, mean - low


def describe(rows: pd.DataFrame) -> dict[str, float]:
    """n, share completed with its Wilson interval, and the means (with 95 %
    half-widths) of the completed handshakes."""
    ok = rows[rows["success"]]
    share, low, high = proportion_ci95(len(ok), len(rows))
    out = {"n": len(rows), "completed": share, "completed_low": low, "completed_high": high}
    if "run" in rows:
        out["runs"] = rows["run"].nunique()
    for col in ("duration_s", "client_resent", "client_datagrams_sent"):
        out[col], out[f"{col}_half"] = _mean_ci(ok[col])
    for col in ("client_radio_on_s", "radio_on_s"):
        if col in ok:
            out[col], out[f"{col}_half"] = _mean_ci(ok[col])
    return out


def radio_on(rows: pd.DataFrame, nodes: int, client: int, platform: str) -> pd.DataFrame:
    """dtlsim's radio-on time per handshake, from its radio energy: time in a
    state = energy / (supply voltage × the platform's current in it)."""
    plat = load_platform(platform)
    volts = float(plat.supply.voltage_v)
    rx_mw = float(plat.radio.rx_current_ma) * volts
    tx_mw = float(plat.radio.tx_current_ma) * volts

    def on(n: int) -> pd.Series:
        # µJ / mW = ms
        return (rows[f"node{n}_radio_rx_uj"] / rx_mw + rows[f"node{n}_radio_tx_uj"] / tx_mw) / 1e3

    return rows.assign(client_radio_on_s=on(client), radio_on_s=sum(on(n) for n in range(nodes)))


def simulate_runs(
    point: Scenario, hops: int, reps: int, out: Path, client: int = 0
) -> tuple[dict[str, float], pd.DataFrame, float]:
    """dtlsim's run of one oracle configuration (`point`, a line of `hops`
    whose handshakes `client` starts) in `reps` replications: described as
    a Cooja log is (`describe`), the means of each replication
    (`run_means`), and the wall time."""
    platform = point.raw.get("platform", "cooja")
    started = time.perf_counter()
    finished, _ = run_scenario(point, out, reps)
    elapsed = time.perf_counter() - started
    rows = finished.frame(
        COLUMNS + [f"node{n}_radio_{s}_uj" for n in range(hops + 1) for s in ("rx", "tx")]
    )
    rows = radio_on(rows, hops + 1, client, platform).assign(
        client_resent=lambda r: r["client_datagrams_sent"] - FIRST_TRANSMISSIONS,
        run=lambda r: r["replication"],
    )
    return describe(rows), run_means(rows, "run"), elapsed


def side_by_side(
    base: dict[str, object],
    oracle: str,
    cooja: dict[str, float],
    run: Callable[[], tuple[dict[str, float], pd.DataFrame, float]] | None,
    not_judged: str,
    name: str,
    source: str = SOURCE,
    explanation: str = "",
    cooja_runs: pd.DataFrame | None = None,
) -> tuple[list[dict[str, object]], list[Check]]:
    """One configuration of an oracle (`oracle` names it in the table):
    its row and dtlsim's, and their agreement checks. `run` gives dtlsim's
    description, its means per replication and its wall time
    (`simulate_runs`); with Cooja's means per run (`cooja_runs`) the checks
    judge over runs. Without a run (`run` None) dtlsim's row says why
    (`not_judged`) and nothing is judged."""
    rows: list[dict[str, object]] = [base | {"simulator": oracle} | cooja]
    if run is None:
        rows.append(base | {"simulator": "dtlsim", "note": not_judged})
        return rows, []
    sim, sim_runs, elapsed = run()
    rows.append(base | {"simulator": "dtlsim", "dtlsim_wall_s": elapsed} | sim)
    runs = (cooja_runs, sim_runs) if cooja_runs is not None else None
    return rows, agreement_checks(
        name, cooja, sim, source=source, explanation=explanation, runs=runs
    )


def agreement_checks(
    name: str,
    cooja: dict[str, float],
    sim: dict[str, float],
    source: str = SOURCE,
    explanation: str = "",
    runs: tuple[pd.DataFrame, pd.DataFrame] | None = None,
) -> list[Check]:
    """The agreement rule per quantity, as checks against Cooja (`source`),
    with what is known of a difference (`explanation`). `runs`: Cooja's and
    dtlsim's means per run (`run_means`); the interval of the difference over
    runs is judged by where it exists (two runs or more in all), Cooja's
    interval over its handshakes where it does not."""
    params = {"configuration": name}

    def run_half(col: str) -> float:
        if runs is None or col not in runs[0] or col not in runs[1]:
            return math.nan
        return difference_half95(runs[0][col], runs[1][col])

    # Completion: Wilson intervals that overlap (sim's share is within its
    # own interval's reach of Cooja's), or the shares within the interval of
    # the difference over runs.
    share, half = sim["completed"], run_half("completed")
    low = cooja["completed_low"] - (sim["completed_high"] - share)
    high = cooja["completed_high"] + (share - sim["completed_low"])
    rule, over_runs = "Wilson intervals overlap", ""
    if math.isfinite(half):
        low, high = min(low, cooja["completed"] - half), max(high, cooja["completed"] + half)
        rule += ", or the runs' interval"
        over_runs = f"; the difference's interval over runs ±{half:.2f}"
    checks = [
        Check(
            "cooja",
            f"{name}: share completed ({rule})",
            share,
            cooja["completed"],
            low,
            high,
            f"in [{low:.2f}, {high:.2f}]",
            "",
            source,
            params=params,
            against_measurement=True,
            note=(
                f"dtlsim {share:.2f} [{sim['completed_low']:.2f}, "
                f"{sim['completed_high']:.2f}], Cooja {cooja['completed']:.2f} "
                f"[{cooja['completed_low']:.2f}, {cooja['completed_high']:.2f}]{over_runs}"
            ),
        )
    ]
    for col, what, unit in QUANTITIES:
        ref, half = cooja.get(col, math.nan), run_half(col)
        if not math.isfinite(ref):
            continue
        if not math.isfinite(half):
            half = cooja.get(f"{col}_half", math.nan)
        tol = max(RELATIVE * abs(ref), half if math.isfinite(half) else 0.0)
        checks.append(
            Check.within(
                "cooja",
                f"{name}: {what} (completed handshakes)",
                sim.get(col, math.nan),
                ref,
                tol,
                unit=unit,
                source=source,
                params=params,
                against_measurement=True,
                note=explanation or XMAC_EXPLANATION,
            )
        )
    return checks


# What is known of the remaining X-MAC differences.
XMAC_EXPLANATION = (
    "modelled from the oracle's traces and its instrumented firmware "
    "(reference/cooja/README.md): the firmware's frames (8-byte link addresses, HC06's "
    "context byte, fragments in the middle of 3-hop routes); Contiki 3.0's 6LoWPAN "
    "reassembly, one datagram at a time, another's fragments from the same neighbour "
    "dropped until it completes or 8 s pass (sicslowpan.c input, so a lost last "
    "fragment at a 3-hop route's middle relay blocks the sender's resends); wake-ups "
    "re-based after sends and strobe ACKs, and when a duty-cycle step owed during a send "
    "runs (Contiki's process_run passes and etimer order); Cooja's 1 ms mote ticks (the "
    "duty cycle's and csma's ctimers) and its strobe loop step by step; Contiki 3.0 "
    "csma's exponential backoff; tinyDTLS "
    "0.8.2's leaking buffers and the oracle's 200 back-to-back handshakes; the "
    "encounter wait in a Cooja mote's 64-bit rtimer arithmetic (2^64 is no multiple "
    "of the period, a Cooja artefact); cxmac's someone_is_sending as the traced "
    "firmware keeps it (a refused send leaves it as it was); every strobe answered in "
    "turn, the ACK's turnaround cut short by frame edges, a frame heard but lost emptying "
    "the radio's buffer, and Cooja's order of runs at one instant; tinyDTLS's client left "
    "waiting after refusing a Finished that overtook its ChangeCipherSpec. Runs of one "
    "configuration differ by more than their handshakes' intervals say, in Cooja as in "
    "dtlsim (reference/cooja/README.md), so a difference is judged over runs"
)

SUMMARY = """\
Cooja running the same firmware is the first reference for this experiment's
mechanisms: Contiki's csma and cxmac and tinyDTLS 0.8.2. They are compiled
and run on Cooja's native motes under its UDGM medium, and logged handshake
by handshake (reference/cooja holds the logs, their configuration and date).

dtlsim runs the same set-up for each logged configuration
(scenarios/cooja-xmac.toml):

* the cooja platform with no CPU time;
* cxmac's constants on the 1 kHz rtimer and Cooja's 1 ms mote ticks;
* UDGM with the oracle's ranges and spacing;
* tinyDTLS 0.8.2's buffers;
* the oracle's client loop of 200 handshakes back to back.

Agreement means overlapping Wilson intervals for the share completed, and
means within 15 % for the rest, or either inside the 95 % interval of the
difference over runs. A run is the unit there, not a handshake:

* One run's handshakes are not independent. In both simulators a run has
  stretches of tens of handshakes with more resends than the rest (the
  nodes' wake-up phases and tinyDTLS's leaked buffers carry over).
* So an interval over one run's handshakes is too narrow. By it, Cooja's
  own run at another seed differed from its seed-1 run.
* dtlsim runs each configuration five times (once with --quick, where
  Cooja's interval over its handshakes stands in); Cooja has one run per
  configuration, and more at other seeds for some.

A miss is shown as differing from the oracle, not as a failure of
reproduce. The mechanism behind it is given where it is known.
"""

# The scenario that writes the oracle's set-up as dtlsim's (a built-in).
SCENARIO = "cooja-xmac"


@dataclass(frozen=True)
class Comparison:
    """dtlsim beside Cooja: the side-by-side table, the agreement checks and
    the wall time each took for the same handshakes."""

    tables: list[Table]
    checks: list[Check]


def cooja_runs(oracle: str = "cooja") -> pd.DataFrame:
    """Cooja's handshakes, wall time and simulated time per logged
    configuration (reference/<oracle>/runs.csv; blank where not recorded)."""
    return pd.read_csv(resources.reference_dir(oracle) / "runs.csv").set_index("configuration")


def wall_row(name: str, walls: pd.DataFrame, sim_n: float, elapsed: float) -> dict[str, object]:
    """Cooja's wall time for configuration `name` (from `cooja_runs`) beside
    dtlsim's `elapsed` for its `sim_n` handshakes, and the ratio per
    handshake (the two ran different numbers of them)."""
    run = walls.loc[name] if name in walls.index else None
    cooja_wall = float(run["wall_s"]) if run is not None else math.nan
    cooja_n = float(run["handshakes"]) if run is not None else math.nan
    return {
        "configuration": name,
        "cooja_handshakes": cooja_n,
        "cooja_wall_s": cooja_wall,
        "dtlsim_handshakes": sim_n,
        "dtlsim_wall_s": elapsed,
        "cooja_over_dtlsim": (cooja_wall / cooja_n) / (elapsed / sim_n)
        if elapsed > 0 and sim_n and cooja_n > 0
        else math.nan,
    }


def compare(scenario: Scenario, quick: bool, out: Path) -> Comparison:
    """Run `scenario` (the oracle's set-up) once per Cooja log and judge it."""
    configurations = runs_of(oracle_logs())
    reps = replications_of(scenario, None, quick)
    handshakes = scenario.raw.get("workload", {}).get("handshakes", 1)
    walls = cooja_runs()
    rows, checks, wall_rows = [], [], []
    logs = [read_runs(paths) for paths in configurations.values()]
    # A configuration's replications fit in one unit, so one configuration
    # after another kept one core busy. As many run at once as there are
    # cores, each still on a core of its own, so its wall time (the table
    # `cooja_wall_time`) is still one core's; each in a copy of this
    # thread's context, so its sweep reports to reproduce's progress. The
    # longest lines start first, so no core is left with one alone at the end.
    longest_first = sorted(range(len(logs)), key=lambda i: -logs[i][0].hops)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        runs = {
            i: pool.submit(
                contextvars.copy_context().run,
                simulate_runs,
                variant(scenario, logs[i][0].overrides),
                logs[i][0].hops,
                reps,
                out / logs[i][0].name,
            )
            for i in longest_first
        }
        simulated = [runs[i].result() for i in range(len(logs))]
    for (setup, cooja_rows), (sim, sim_runs, elapsed) in zip(logs, simulated, strict=True):
        cooja = describe(cooja_rows)
        checks += agreement_checks(
            setup.name, cooja, sim, runs=(run_means(cooja_rows, "run"), sim_runs)
        )
        for who, d in (("Cooja", cooja), ("dtlsim", sim)):
            rows.append(
                {
                    "configuration": setup.name,
                    "hops": setup.hops,
                    "check_interval_ms": setup.check_interval_ms,
                    "interference_range_m": setup.interference_range_m,
                    "spacing_m": setup.spacing_m,
                    "success_ratio_rx": setup.success_ratio_rx,
                    "encounter_optimization": setup.encounter_optimization,
                    "simulator": who,
                }
                | d
            )
        wall_rows.append(wall_row(setup.name, walls, sim["n"], elapsed))
    return Comparison(
        tables=[
            Table(
                "cooja_oracle",
                "Cooja (same firmware) beside dtlsim on the Cooja set-up, per configuration: "
                "share completed with its Wilson interval; means over completed handshakes "
                "with 95 % half-widths",
                pd.DataFrame(rows),
                f"dtlsim: {handshakes} handshakes back to back in each of {reps} "
                "replication(s) per configuration, as the oracle runs them; Cooja's n and "
                "runs (one per Cooja seed) per configuration as logged. The half-widths "
                "are over handshakes; the agreement checks judge over runs.",
            ),
            Table(
                "cooja_wall_time",
                "Wall time for the same configuration: Cooja (the whole run, about 5 s of it "
                "compiling the motes, at the lowest priority on a shared 2-core machine; "
                "reference/cooja/runs.csv) beside dtlsim (in-process, this reproduce; near 0 "
                "when its results were reused), and Cooja's time per handshake over dtlsim's",
                pd.DataFrame(wall_rows),
                "Cooja's wall time is blank for the two first-batch logs that were not re-run.",
            ),
        ],
        checks=checks,
    )
