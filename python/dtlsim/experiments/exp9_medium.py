"""Experiment 9: the radio medium. Experiment 1's X-MAC line under per-link
PDR, under log-distance path loss with reception by SINR and capture, and
the same without capture; experiment 3's TSCH line over a real testbed's
K7 trace when one is at hand."""

from __future__ import annotations

import gzip
import itertools
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
Experiment 1's DTLS handshake over X-MAC (check interval 125 ms) on a line,
and experiment 3's over TSCH (4 hops, 2 cells per link), under each medium
at the same neighbour PDR (1, or within 1 % of it):

* `pdr`: every link delivers with its PDR; a frame overlapped by any other
  audible frame is lost (no capture), two-hop nodes do not hear each other.
* `udgm`: Cooja's UDGM, 40 m apart: neighbours in the 50 m range, two-hop
  nodes (80 m) in the 100 m interference range only, no capture.
* `log-distance`: 40 m apart, path loss 40.2 dB at 1 m, exponent 3, 0 dBm:
  neighbours at -88 dBm, two-hop nodes at -97 dBm (below the sensitivity,
  above the noise floor: interference only); reception by SINR with the
  O-QPSK packet error rate and the capture rule (3 dB); carrier sense by
  energy against the radio's CCA threshold.
* `log-distance, no capture`: the same with a 30 dB capture threshold, so
  any overlap loses the frame.
* `pister-hack`: the 6TiSCH simulator's links, 1 m apart: every node hears
  every other with PDR 0.99 to 1, overlapping frames collide.

With the FIT IoT-LAB Grenoble K7 trace at hand, the TSCH line also runs on
it (every link's PDR on the cell's channel, so channel hopping meets each
channel's quality), against the PDR medium at the trace's mean neighbour
PDR, and pinned to one channel at a time (`medium.trace_channel`: every
frame meets that channel's PDR, routes by that channel's links), for what
hopping buys against a single channel. And a 50-node TSCH network on the
whole trace: each node's DTLS 1.2 PSK, DTLS 1.3 PSK or EDHOC handshake with
the border router (node 0).
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


def overlap(a: pd.Series, b: pd.Series, metric: str) -> bool:
    """Do two rows' 95 % intervals of `metric` overlap?"""
    return bool(a[f"{metric}_ci_low"] <= b[f"{metric}_ci_high"]) and bool(
        b[f"{metric}_ci_low"] <= a[f"{metric}_ci_high"]
    )


def media_finding(xmac: pd.DataFrame, tsch: pd.DataFrame) -> str:
    """The side-by-side tables in words: completion per medium on the
    longest X-MAC line and whether capture made a difference there; the
    TSCH line's duration and energy per medium."""
    top = int(xmac[HOPS].max())
    x = xmac[xmac[HOPS] == top].set_index("medium")
    rates = ", ".join(f"{m} {r.success_rate:.2f}" for m, r in x.iterrows())
    cap, nocap = x.loc["log-distance"], x.loc["log-distance, no capture"]
    if cap.success_ci_low > nocap.success_ci_high:
        verdict = "capture rescues handshakes that overlapping frames kill without it"
    elif nocap.success_ci_low > cap.success_ci_high:
        verdict = "the run without capture completes more often"
    else:
        verdict = (
            "with and without capture the completion intervals overlap: at this count of "
            "replications capture is not shown to rescue the handshakes"
        )
    t = tsch.set_index("medium")
    line = t.loc[[m for m in LINE_MEDIA if m in t.index]]
    pdr = line.loc["pdr"]
    same = all(overlap(pdr, r, "duration_s") for _, r in line.iterrows() if r.n_successful)
    durations = ", ".join(
        f"{m} {r.duration_s_mean:.1f} s / {r.client_energy_uj_mean / 1000:.1f} mJ"
        for m, r in line.iterrows()
        if r.n_successful
    )
    return (
        f"\n**Media side by side.** X-MAC, {top} hops, completion: {rates}; {verdict} "
        f"(log-distance {cap.success_rate:.2f} [{cap.success_ci_low:.2f}, "
        f"{cap.success_ci_high:.2f}], without capture {nocap.success_rate:.2f} "
        f"[{nocap.success_ci_low:.2f}, {nocap.success_ci_high:.2f}]). Under Pister-hack "
        "1 m apart every node hears every other, so no node is hidden from a sender: "
        f"{x.loc['pister-hack'].success_rate:.2f} [{x.loc['pister-hack'].success_ci_low:.2f}, "
        f"{x.loc['pister-hack'].success_ci_high:.2f}]. TSCH, 4 hops, "
        f"duration / client energy: {durations}. "
        + (
            "The durations agree within their intervals: with a dedicated cell per link "
            "few frames overlap, so the collision and capture rules rarely act. "
            if same
            else "The durations differ beyond their intervals. "
        )
        + "The energy differs because the random-links schedule gives cells to every "
        "link a medium makes, hear-only ones included, and the client listens in each.\n"
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


# The 50-node network: every trace node a scenario node (node i is trace
# node i), trace node 0 the border router.
NETWORK_NODES = 50
BORDER_ROUTER = 0
# Quick mode: every 12th node's handshake (5 of the 49), full mode all 49.
QUICK_CLIENT_STEP = 12

# The handshakes compared with the border router, as exp8 chooses them.
NETWORK_HANDSHAKES: dict[str, dict[str, Any]] = {
    "DTLS 1.2 PSK": {keys.DTLS_VERSION: "1.2"},
    "DTLS 1.3 PSK": {keys.DTLS_VERSION: "1.3", keys.DTLS_PSK_MODE: "psk_ke"},
    "EDHOC static DH, kid": {
        keys.WORKLOAD_HANDSHAKE: "edhoc",
        keys.EDHOC_METHOD: "static_dh",
        keys.EDHOC_CREDENTIALS: "kid",
    },
}

# Each medium of the side-by-side tables at the same neighbour PDR, 1 (or
# within 1 % of it): under log-distance 40 m neighbours are at -88 dBm, SNR
# 13 dB, PER of a 127-octet frame ~1e-30; under UDGM (Cooja's defaults)
# 40 m is inside the 50 m range at success ratio 1; under Pister-hack 1 m
# apart every RSSI is at least -80 dBm (free space -40 dBm less at most
# 40 dB), so every PDR is 0.9903 to 1 by its table.
LINE_MEDIA: dict[str, dict[str, Any]] = {
    "pdr": {"kind": "pdr"},
    "udgm": {"kind": "udgm", "spacing_m": 40.0},
    "log-distance": {"kind": "log-distance", "spacing_m": 40.0},
    "log-distance, no capture": {
        "kind": "log-distance",
        "spacing_m": 40.0,
        "capture_threshold_db": 30.0,
    },
    "pister-hack": {"kind": "pister-hack", "spacing_m": 1.0},
}

METRICS = ["duration_s", "client_energy_uj"]


def folder(name: str) -> str:
    return name.replace(", ", "-").replace(" ", "-").replace(".", "")


def checked(raw: dict[str, Any]) -> Scenario:
    s, problems = check(raw)
    if problems or s is None:
        raise ValueError("; ".join(p.render() for p in problems))
    return s


def set_key(raw: dict[str, Any], dotted: str, value: Any) -> None:
    *tables, key = dotted.split(".")
    at = raw
    for t in tables:
        at = at.setdefault(t, {})
    at[key] = value


def tsch_line() -> dict[str, Any]:
    """Experiment 3's TSCH line, 4 hops, 2 cells per link, no link security."""
    raw = json.loads(json.dumps(load_scenario("exp3-tsch-dtls").raw))
    raw["topology"] = {"kind": "line", "hops": 4}
    raw["mac"]["tsch"]["cells_per_link"] = 2
    raw["link_security"]["level"] = "none"
    return raw


def neighbour_mean_pdr(trace: Path, nodes: list[int]) -> float:
    """The mean PDR of the trace's rounds between neighbours of `nodes` (a
    line, both ways), over every channel and round."""
    opener = gzip.open if trace.read_bytes()[:2] == b"\x1f\x8b" else open
    with opener(trace, "rt") as f:
        rows = pd.read_csv(f, skiprows=1)
    pairs = set(itertools.pairwise(nodes))
    pairs |= {(b, a) for a, b in pairs}
    mask = [(s, d) in pairs for s, d in zip(rows["src"], rows["dst"], strict=True)]
    return float(rows.loc[mask, "pdr"].mean())


def tsch_table(out: Path, reps: int, trace: Path | None) -> tuple[pd.DataFrame, str]:
    """Experiment 3's TSCH line under each medium, and over the trace
    (hopping, pinned to each channel, and the PDR medium at the trace's
    mean neighbour PDR)."""
    base = tsch_line()
    media: dict[str, dict[str, Any]] = dict(LINE_MEDIA)
    note = ""
    if trace is not None:
        mean = neighbour_mean_pdr(trace, TRACE_NODES)
        on_trace = {"kind": "trace", "trace_path": str(trace), "trace_nodes": TRACE_NODES}
        media[f"pdr {mean:.3f} (the trace's mean)"] = {"kind": "pdr", "pdr": round(mean, 3)}
        media["trace, hopping"] = on_trace
        for channel in trace_channels(trace):
            media[f"trace, channel {channel}"] = {**on_trace, "trace_channel": channel}
        note = (
            f" The trace's rounds between the line's neighbours have a mean PDR of {mean:.3f}"
            " (every channel and round); the PDR medium at that figure is the equal-PDR"
            " comparison."
        )
    rows = []
    for name, medium in media.items():
        r = json.loads(json.dumps(base))
        medium = dict(medium)
        pdr = medium.pop("pdr", 1.0)
        if medium["kind"] == "pdr":
            r["topology"]["pdr"] = pdr
        r["medium"] = medium
        _, summary = run_scenario(checked(r), out / ("tsch-" + folder(name)), reps)
        summary.insert(0, "medium", name)
        rows.append(summary)
    return pd.concat(rows, ignore_index=True), note


def network_scenario(trace: Path, handshake: dict[str, Any], clients: list[int]) -> Scenario:
    """The 50 trace nodes under TSCH, each of `clients` handshaking with
    the border router (node 0) alone in the network."""
    raw = json.loads(json.dumps(load_scenario("exp3-tsch-dtls").raw))
    raw["experiment"]["id"] = "exp9-network"
    raw["topology"] = {"kind": "line", "hops": NETWORK_NODES - 1}
    raw["medium"] = {
        "kind": "trace",
        "trace_path": str(trace),
        "trace_nodes": list(range(NETWORK_NODES)),
    }
    tsch = raw["mac"]["tsch"]
    tsch.pop("cells_per_link", None)
    tsch.update({"schedule": "tree-both", "shared_cells": 1})
    raw["link_security"]["level"] = "none"
    raw["edhoc"] = {"method": "static_dh", "suite": "p256", "credentials": "kid"}
    raw["workload"].update({"client_node": clients, "server_node": BORDER_ROUTER})
    raw["simulation"] = {"start_ms": 1000.0, "max_time_s": 900.0}
    for key, value in handshake.items():
        set_key(raw, key, value)
    return checked(raw)


def network_table(out: Path, reps: int, quick: bool, trace: Path) -> pd.DataFrame:
    """Per handshake, over every client's runs: completion; mean duration and
    client energy of the successful ones, and the slowest client's mean
    duration; the client's datagrams and the retransmissions (DTLS's
    timer, or CoAP's for EDHOC) per successful run."""
    step = QUICK_CLIENT_STEP if quick else 1
    clients = list(range(1, NETWORK_NODES, step))
    rows = []
    for label, handshake in NETWORK_HANDSHAKES.items():
        s = network_scenario(trace, handshake, clients)
        _, summary = run_scenario(s, out / ("network-" + folder(label)), reps)
        ok = summary[summary["n_successful"] > 0]

        def mean(frame: pd.DataFrame, column: str, weights: pd.Series) -> float:
            if column not in frame:
                return float("nan")
            v = frame[column]
            w = weights[v.notna()]
            return float((v.dropna() * w).sum() / w.sum()) if w.sum() else float("nan")

        rows.append(
            {
                "handshake": label,
                "clients": len(summary),
                "handshakes": int(summary["n_rows"].sum()),
                "completed": int(summary["n_successful"].sum()),
                "completion": summary["n_successful"].sum() / summary["n_rows"].sum(),
                "duration_s_mean": mean(ok, "duration_s_mean", ok["n_successful"]),
                "duration_s_slowest_client": ok["duration_s_mean"].max(),
                "client_energy_mj_mean": mean(ok, "client_energy_uj_mean", ok["n_successful"])
                / 1000.0,
                "client_datagrams_mean": mean(ok, "client_datagrams_sent_mean", ok["n_successful"]),
                "retransmissions_mean": mean(ok, "dtls_retransmissions_mean", ok["n_successful"]),
            }
        )
    return pd.DataFrame(rows)


def network_finding(t: pd.DataFrame) -> str:
    """The 50-node table in words: each handshake's figures, then which was
    fastest and cheapest for the client, with the datagrams and
    retransmissions that explain it."""
    by = t.set_index("handshake")
    fastest = by["duration_s_mean"].idxmin()
    cheapest = by["client_energy_mj_mean"].idxmin()

    def said(h: str, r: pd.Series) -> str:
        extra = f", {r.client_datagrams_mean:.1f} client datagrams"
        if pd.notna(r.retransmissions_mean):
            extra += f", {r.retransmissions_mean:.1f} retransmissions"
        return (
            f"{h}: {int(r.completed)}/{int(r.handshakes)} completed, "
            f"{r.duration_s_mean:.1f} s (slowest client {r.duration_s_slowest_client:.1f} s), "
            f"{r.client_energy_mj_mean:.1f} mJ{extra}"
        )

    figures = "; ".join(said(str(h), r) for h, r in by.iterrows())
    return (
        f"\n**The 50-node network on the trace.** {figures}. Fastest: {fastest}; least "
        f"energy for the client: {cheapest}. Every handshake crosses the same tree and "
        "cells, each frame waiting for its link's cell once per hop, so the differences "
        "come from the frames each handshake sends and resends.\n"
    )


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    out = (work or Path("results")) / scenario.experiment.id
    reps = replications_of(scenario, None, quick)
    frames = []
    for name, medium in LINE_MEDIA.items():
        _, summary = run_scenario(with_medium(scenario, medium), out / folder(name), reps)
        summary.insert(0, "medium", name)
        frames.append(summary)
    xmac = pd.concat(frames, ignore_index=True)
    cols = display.columns(xmac, ["medium", HOPS], METRICS)
    tables = [Table("exp9_xmac", "X-MAC line per medium", xmac[cols], f"{reps} replications")]
    trace = trace_path()
    t, equal = tsch_table(out, reps, trace)
    tcols = display.columns(t, ["medium"], METRICS)
    caption = "TSCH, 4-hop line per medium" + (
        "; Grenoble trace nodes 0, 18, 7, 28, 42, hopping and pinned to one channel"
        if trace
        else ""
    )
    tables.append(
        Table(
            "exp9_tsch",
            caption,
            t[tcols],
            f"{reps} replications; on the trace, routes by the links' mean PDR (pinned: "
            "that channel's)." + equal,
        )
    )
    if trace is None:
        why = f"no K7 trace: set {ENV_TRACE} to one (the Grenoble trace is not shipped)"
        progress.note(
            f"{scenario.experiment.id}: TSCH over a trace and the 50-node network not run: {why}"
        )
        note = (
            media_finding(xmac, t)
            + f"\n**TSCH over a trace and the 50-node network not run.** {why}.\n"
        )
    else:
        net = network_table(out, 1, quick, trace)
        tables.append(
            Table(
                "exp9_network",
                "50-node TSCH network on the Grenoble trace: each node's handshake with "
                "the border router (node 0)",
                net,
                "one handshake per client node, alone in the network (the concurrent "
                "storm is tsch-storm's); trace node i is node i; RPL-like tree to node 0 "
                "over the links' mean PDR, the minimal shared cell and one dedicated cell "
                "each way per tree link, 101-slot slotframe"
                + (f"; quick: every {QUICK_CLIENT_STEP}th node" if quick else "; all 49 nodes"),
            )
        )
        note = media_finding(xmac, t) + hopping_finding(t) + network_finding(net)
    return ExperimentResult.for_scenario(scenario, SUMMARY + note, tables=tables)
