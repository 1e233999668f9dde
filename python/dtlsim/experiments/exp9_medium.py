"""Experiment 9: the radio medium. Experiment 1's X-MAC line under per-link
PDR, under log-distance path loss with reception by SINR and capture, and
the same without capture; experiment 3's TSCH line over a real testbed's
K7 trace when one is at hand."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from dtlsim import keys, progress, resources
from dtlsim.experiments import display
from dtlsim.experiments.base import ExperimentResult, Table
from dtlsim.runner import replications_of, run_scenario
from dtlsim.scenario import Scenario, check, load_scenario

HOPS = keys.TOPOLOGY_HOPS
ENV_TRACE = "DTLSIM_K7_TRACE"

SUMMARY = """\
Experiment 1's DTLS handshake over X-MAC (check interval 125 ms) on a line
40 m apart, under three media at the same neighbour PDR (1):

* `pdr`: every link delivers with its PDR; a frame overlapped by any other
  audible frame is lost (no capture), two-hop nodes do not hear each other.
* `log-distance`: path loss 40.2 dB at 1 m, exponent 3, 0 dBm: neighbours
  at -88 dBm, two-hop nodes at -97 dBm (below the sensitivity, above the
  noise floor: interference only); reception by SINR with the O-QPSK
  packet error rate and the capture rule (3 dB); carrier sense by energy
  against the radio's CCA threshold.
* `log-distance, no capture`: the same with a 30 dB capture threshold, so
  any overlap loses the frame.

And experiment 3's DTLS handshake over TSCH with its links replayed from
the FIT IoT-LAB Grenoble K7 trace (every link's PDR on the cell's channel,
so channel hopping meets each channel's quality), against the PDR-1 line,
and on the same trace pinned to one channel at a time
(`medium.trace_channel`: every frame meets that channel's PDR, routes by
that channel's links), for what hopping buys against a single channel.
"""


def with_medium(
    base: Scenario, medium: dict[str, Any], topology: dict[str, Any] | None = None
) -> Scenario:
    """`base` under `medium` (the `[medium]` table), its topology keys
    overridden by `topology` (dotted keys, e.g. `topology.hops`)."""
    raw = json.loads(json.dumps(base.raw))
    if medium.get("kind", "pdr") != "pdr":
        raw["topology"].pop("pdr", None)
    raw["medium"] = medium
    for key, value in (topology or {}).items():
        raw["topology"][key.removeprefix("topology.")] = value
    out, problems = check(raw)
    if problems or out is None:
        raise ValueError("; ".join(p.render() for p in problems))
    return out


# Scenario nodes 0..4 of the TSCH line as Grenoble trace nodes.
TRACE_NODES = [0, 18, 7, 28, 42]


def trace_channels(trace: Path) -> list[int]:
    """The channels a K7 trace measured (its JSON header line)."""
    opener = gzip.open if trace.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(trace, "rt") as f:
        return sorted(int(c) for c in json.loads(f.readline())["channels"])


def hopping_finding(t: pd.DataFrame) -> str:
    """The TSCH table's finding in words: hopping against the best and the
    worst single channel, by handshake success then duration."""
    by = t.set_index("medium")
    pinned = by[by.index.str.startswith("trace, channel")]
    if "trace, hopping" not in by.index or pinned.empty:
        return ""
    order = pinned.sort_values(["success_rate", "duration_s_mean"], ascending=[False, True])
    hop, best, worst = by.loc["trace, hopping"], order.iloc[0], order.iloc[-1]

    def said(r: pd.Series) -> str:
        return f"success {r['success_rate']:.3f}, {r['duration_s_mean']:.2f} s"

    slower = int((pinned["duration_s_mean"] > hop["duration_s_mean"]).sum())
    return (
        f"\n**Channel hopping on the trace.** Hopping over the 16 channels: {said(hop)}; "
        f"pinned to the best channel ({best.name.removeprefix('trace, ')}): {said(best)}; "
        f"to the worst ({worst.name.removeprefix('trace, ')}): {said(worst)}. "
        f"{slower} of {len(pinned)} single channels are slower than hopping: a channel "
        "fixed without knowing the testbed is slower with that chance, while hopping "
        "meets every channel's links in turn and needs no choice.\n"
    )


def trace_path() -> Path | None:
    """The K7 trace: $DTLSIM_K7_TRACE, else the shared data beside a checkout."""
    named = os.environ.get(ENV_TRACE)
    if named:
        return Path(named)
    checkout = resources.source_checkout()
    if checkout is None:
        return None
    beside = checkout / ".." / "shared" / "data" / "grenoble.k7.gz"
    return beside if beside.is_file() else None


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    out = (work or Path("results")) / scenario.experiment.id
    reps = replications_of(scenario, None, quick)
    line = {"spacing_m": 40.0}
    media = {
        "pdr": {"kind": "pdr"},
        "log-distance": {"kind": "log-distance", **line},
        "log-distance, no capture": {
            "kind": "log-distance",
            **line,
            "capture_threshold_db": 30.0,
        },
    }
    frames = []
    for name, medium in media.items():
        _, summary = run_scenario(
            with_medium(scenario, medium), out / name.replace(", ", "-").replace(" ", "-"), reps
        )
        summary.insert(0, "medium", name)
        frames.append(summary)
    xmac = pd.concat(frames, ignore_index=True)
    cols = display.columns(xmac, ["medium", HOPS], ["success", "duration_s", "client_energy_uj"])
    tables = [Table("exp9_xmac", "X-MAC line per medium", xmac[cols], f"{reps} replications")]
    trace = trace_path()
    if trace is None:
        why = f"no K7 trace: set {ENV_TRACE} to one (the Grenoble trace is not shipped)"
        progress.note(f"{scenario.experiment.id}: TSCH over a trace not run: {why}")
        note = f"\n**TSCH over a trace not run.** {why}.\n"
    else:
        tsch = load_scenario("exp3-tsch-dtls")
        raw = json.loads(json.dumps(tsch.raw))
        raw["topology"] = {"kind": "line", "hops": 4}
        raw["mac"]["tsch"]["cells_per_link"] = 2
        raw["link_security"]["level"] = "none"
        rows = []
        on_trace = {"kind": "trace", "trace_path": str(trace), "trace_nodes": TRACE_NODES}
        media: dict[str, dict[str, Any]] = {"pdr": {"kind": "pdr"}, "trace, hopping": on_trace}
        for channel in trace_channels(trace):
            media[f"trace, channel {channel}"] = {**on_trace, "trace_channel": channel}
        for name, medium in media.items():
            r = json.loads(json.dumps(raw))
            if name == "pdr":
                r["topology"]["pdr"] = 1.0
            r["medium"] = medium
            s, problems = check(r)
            if problems or s is None:
                raise ValueError("; ".join(p.render() for p in problems))
            folder = "tsch-" + name.replace(", ", "-").replace(" ", "-")
            _, summary = run_scenario(s, out / folder, reps)
            summary.insert(0, "medium", name)
            rows.append(summary)
        t = pd.concat(rows, ignore_index=True)
        tcols = display.columns(t, ["medium"], ["success", "duration_s", "client_energy_uj"])
        tables.append(
            Table(
                "exp9_tsch",
                "TSCH, 4-hop PDR-1 line vs Grenoble trace nodes 0, 18, 7, 28, 42, "
                "hopping and pinned to one channel",
                t[tcols],
                f"{reps} replications; routes by the trace links' mean PDR (pinned: "
                "that channel's)",
            )
        )
        note = hopping_finding(t)
    return ExperimentResult.for_scenario(scenario, SUMMARY + note, tables=tables)
