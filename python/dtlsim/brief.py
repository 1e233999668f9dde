"""The narrow summary `dtlsim run` prints: per point, the sweep axes, the
success rate with its interval, and a duration and an energy with theirs.

Every other column of the summary is in `summary.csv`; this one fits a
terminal. Intervals are those of `dtlsim.stats` (Wilson for the rate,
Student t for the means, over the successful runs, or the bootstrap where
t would reach below zero).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from dtlsim import keys
from dtlsim.plan import NOT_RUN
from dtlsim.stats import MIN_SUCCESSES

# Per workload kind: the time and the energy a reader looks at first, and
# their headings (each a metric of `runner.METRICS`, summarized as mean and
# 95 % interval). A workload without one of them shows what it has.
HEADLINE: dict[str, list[tuple[str, str, float]]] = {
    # metric, heading, factor from the metric's unit to the heading's
    "handshakes": [("duration_s", "duration s", 1.0), ("client_energy_uj", "client mJ", 1e-3)],
    "ping": [("rtt_ms", "RTT ms", 1.0)],
    "frames": [("latency_s", "latency s", 1.0), ("energy_total_uj", "network mJ", 1e-3)],
    "periodic": [
        ("delivery_ratio", "delivered", 1.0),
        ("mean_latency_s", "latency s", 1.0),
        ("energy_total_uj", "network mJ", 1e-3),
    ],
    "sessions": [
        ("call_congestion", "call congestion", 1.0),
        ("time_congestion", "time congestion", 1.0),
        ("handshake_s", "handshake s", 1.0),
        ("energy_per_session_uj", "mJ/session", 1e-3),
    ],
}


def with_interval(mean: Any, low: Any, high: Any, factor: float = 1.0) -> str:
    """'12.3 [11.0, 13.6]'; '-' without a mean, the mean alone without an interval."""
    if _missing(mean):
        return "-"
    shown = _num(mean * factor)
    if _missing(low) or _missing(high):
        return shown
    return f"{shown} [{_num(low * factor)}, {_num(high * factor)}]"


def _missing(v: Any) -> bool:
    # pandas' NA (a summary read back by pandas) is its own type: named, not imported
    return v is None or (isinstance(v, float) and math.isnan(v)) or type(v).__name__ == "NAType"


def _num(v: float) -> str:
    return f"{v:.3g}"


FEW = f"(few): fewer than {MIN_SUCCESSES} successful runs"


def headings(axes: Sequence[str]) -> dict[str, str]:
    """Each axis by the last part of its dotted key (`topology.hops` → `hops`)
    where no other axis ends the same way."""
    last = [a.rsplit(".", 1)[-1] for a in axes]
    return {a: s if last.count(s) == 1 else a for a, s in zip(axes, last, strict=True)}


def brief(
    summary: Sequence[Mapping[str, Any]], axes: Sequence[str], kind: str
) -> list[dict[str, Any]]:
    """One short record per point of `summary` (the records of
    `runner.summarize_point`, with `plan.mark_records`' not-run ones): axes,
    n, success rate, headline metrics."""
    names = headings([a for a in axes if any(a in r for r in summary)])
    out = []
    for r in summary:
        rec: dict[str, Any] = {name: r.get(a) for a, name in names.items()}
        why = r.get(NOT_RUN)
        if isinstance(why, str) and why:
            rec |= {"n": 0, "success": f"not run: {why}"}
            out.append(rec)
            continue
        rec["n"] = int(r["n_rows"])
        rec["success"] = with_interval(r["success_rate"], r["success_ci_low"], r["success_ci_high"])
        for metric, heading, factor in HEADLINE[kind]:
            if f"{metric}_mean" in r:
                rec[heading] = with_interval(
                    r[f"{metric}_mean"], r[f"{metric}_ci_low"], r[f"{metric}_ci_high"], factor
                )
        if bool(r.get("few_successes", False)):
            rec["success"] += " (few)"
        out.append(rec)
    return out


def with_engset(
    records: list[dict[str, Any]],
    summary: Sequence[Mapping[str, Any]],
    axes: Sequence[str],
    points: Sequence[dict[str, Any]],
) -> list[dict[str, Any]]:
    """Each sessions record with the Engset closed form's call and time
    congestion for its point's R, N and ρ beside the simulated ones (the
    closed form knows no handshake time, eviction or attacker)."""
    from dtlsim import models

    shown = [a for a in axes if any(a in r for r in summary)]
    by_axes = {tuple(p[a] for a in shown): p for p in points}
    for rec, r in zip(records, summary, strict=True):
        p = by_axes.get(tuple(r.get(a) for a in shown))
        if p is None or str(rec.get("success", "")).startswith("not run"):
            continue
        e = models.engset(
            int(p[keys.SESSIONS_SLOTS]),
            int(p[keys.SESSIONS_CLIENTS]),
            float(p[keys.SESSIONS_ERLANG]),
        )
        rec["Engset call"] = _num(e["call_congestion"])
        rec["Engset time"] = _num(e["time_congestion"])
    return records
