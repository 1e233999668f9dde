"""Experiment 3: handshake duration over TSCH, closed form and exact expectation."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from dtlsim import _core, keys
from dtlsim.experiments import style
from dtlsim.experiments.base import Check, ExperimentResult, Figure, Table, confirm_misses
from dtlsim.scenario import Scenario, variant

SUMMARY = """\
Expected duration of a handshake of F frames over H hops of TSCH dedicated
cells, C cells per link in a slotframe of L timeslots:

* **closed form** `F · Σ_hops (1 + L/(C+1)) / P` timeslots — the cells as
  points on a continuous circle, each retry a fresh uniform draw; valid for L ≫ C;
* **exact** — C *distinct* slots drawn uniformly among L, retries waiting for
  the next cell of the same schedule, later hops entered on a slot boundary.

They coincide for C = 1 and P = 1; for C > 1 the exact value is lower by about
half a slot per hop (integer gaps), and for P < 1 the closed form
underestimates, because after a loss a frame waits a whole gap, not half.
Both assume frames of a handshake are independent (empty queues) and cells of
different hops independent.

**Simulated**: 10 datagrams passed back and forth between the ends of a line
over real TSCH cells (C random distinct slots per directed link, avoiding
slots either end already uses; a channel offset per link; Enhanced ACKs;
retries), each sent after a uniformly random wait of up to one slotframe —
the arrival the models assume. The latency of a frame is counted to the end
of the timeslot that delivered it, as the closed form counts slots.

Each point's mean and 95 % confidence interval is judged against the closed
form where its assumptions hold: L ≫ C (L/C ≥ 100) and hops independent.

* The simulated schedule, like any real one, never gives a forwarder a
  receive cell and a send cell in the same slot.
* So the next hop's cell is never in the slot just used. This removes the
  longest waits and shortens each forwarding hop by about half a slot on
  average.
* With L = 1001 that is far inside the interval. With L = 101 and two or
  more hops it is not.
* With C = 2, 3 and L = 101 the continuous-circle approximation itself is
  off by a similar amount.
* Those points are shown beside both models, not judged.

A judged point whose interval misses the closed form is run once more,
alone, with an independent seed (the scenario's seed + 1 000 000) and four
times the replications. The summary shows what that run gives beside the
miss, which stays on record:

* an interval that now contains the closed form marks a chance miss (shown
  as such);
* one that still excludes it marks a real disagreement (FAIL).
"""


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    rows = []
    for p in scenario.points():
        hops, cells, pdr = (
            p[keys.TOPOLOGY_HOPS],
            p[keys.MAC_TSCH_CELLS_PER_LINK],
            p[keys.TOPOLOGY_PDR],
        )
        slotframe, frames = p[keys.MAC_TSCH_SLOTFRAME_LENGTH], p[keys.MODEL_HANDSHAKE_FRAMES]
        r = _core.tsch_handshake(
            slotframe, [cells] * hops, [pdr] * hops, frames, p[keys.MAC_TSCH_TIMESLOT_MS]
        )
        rows.append(
            {
                "slotframe_L": slotframe,
                "cells_C": cells,
                "hops_H": hops,
                "pdr": pdr,
                "frames_F": frames,
                "timeslot_ms": p[keys.MAC_TSCH_TIMESLOT_MS],
                "closed_form_s": r["closed_form_s"],
                "exact_s": r["exact_s"],
                "exact_minus_closed_s": r["exact_s"] - r["closed_form_s"],
                "L_over_C": slotframe / cells,
            }
        )
    df = pd.DataFrame(rows).sort_values(["slotframe_L", "cells_C", "hops_H"], ignore_index=True)
    checks = []
    if work is not None and scenario.workload.kind == "frames":
        df = _with_simulation(scenario, quick, work, df, checks)

    ref = df[(df.slotframe_L == 101) & (df.cells_C == 1) & (df.hops_H == 1) & (df.pdr == 1.0)]
    for _, row in ref.iterrows():
        checks.append(
            Check.within(
                "3",
                "handshake duration, closed form, L=101 C=1 H=1 F=10",
                float(row.closed_form_s),
                5.15,
                0.005,
                unit="s",
                source="Vučinić et al., PIMRC 2015: 10 frames, L = 101, C = 1, one hop",
                params=row.to_dict(),
            )
        )

    fig, axes = style.subplots(2)
    for ax, (slotframe, sub) in zip(axes, df.groupby("slotframe_L"), strict=False):
        for i, (cells, line) in enumerate(sub.groupby("cells_C")):
            mark = {"color": style.COLOURS[i], "marker": style.MARKERS[i]}
            # the two nearly coincide: the exact values as large hollow marks
            # underneath, the closed form's small filled ones drawn over them
            ax.plot(line.hops_H, line.exact_s, "--", mfc="white", ms=8, zorder=2,
                    label=f"C={cells} exact", **mark)  # fmt: skip
            ax.plot(line.hops_H, line.closed_form_s, "-", ms=3.5, zorder=3,
                    label=f"C={cells} closed form", **mark)  # fmt: skip
        ax.set_title(f"L = {slotframe} slots")
        ax.set_xlabel("hops H")
        ax.set_ylabel("expected handshake duration (s)")
        style.count_axis(ax)
    style.legend(fig)

    return ExperimentResult(
        id=scenario.experiment.id,
        title=scenario.experiment.title,
        reference=scenario.experiment.reference,
        summary=SUMMARY,
        tables=[Table("exp3_tsch_latency", "Expected handshake duration over TSCH", df)],
        figures=[
            Figure(
                "exp3_duration_vs_hops",
                "Handshake duration vs hops",
                fig,
                "Closed form (1 + L/(C+1))/P and exact expectation for random distinct cells.",
            )
        ],
        checks=checks,
    )


# The simulation's sweep axes, by the name the table gives them.
AXES = {
    keys.MAC_TSCH_SLOTFRAME_LENGTH: "slotframe_L",
    keys.MAC_TSCH_CELLS_PER_LINK: "cells_C",
    keys.TOPOLOGY_HOPS: "hops_H",
    keys.TOPOLOGY_PDR: "pdr",
}


def _simulate(
    scenario: Scenario,
    out: Path,
    reps: int,
    keep: Callable[[dict[str, Any]], bool] | None = None,
) -> pd.DataFrame:
    """Mean slot-counted duration and its 95 % CI half-width per point."""
    from dtlsim.runner import run_scenario

    _, summary = run_scenario(scenario, out, reps, keep=keep)
    sim = summary.rename(
        columns={
            **AXES,
            "slot_latency_s_mean": "sim_mean_s",
            "success_rate": "sim_success_rate",
            "success_ci_low": "sim_success_ci_low",
            "success_ci_high": "sim_success_ci_high",
        }
    )
    sim["sim_half_s"] = sim.slot_latency_s_ci_high - sim.sim_mean_s
    return sim


def _with_simulation(
    scenario: Scenario, quick: bool, work: Path, df: pd.DataFrame, checks: list[Check]
) -> pd.DataFrame:
    """Run the frame exchange over simulated TSCH and judge each point."""
    from dtlsim.runner import replications_of

    reps = replications_of(scenario, None, quick)
    sim = _simulate(scenario, work / scenario.experiment.id, reps)
    axes = [k for k in AXES.values() if k in sim.columns]
    cols = [
        *axes, "sim_mean_s", "sim_half_s", "sim_success_rate", "sim_success_ci_low",
        "sim_success_ci_high", "n_rows", "n_successful",
    ]  # fmt: skip
    # a scenario of one point has no axes: its one summary row is that point's
    df = df.merge(sim[cols], on=axes, how="left") if axes else df.merge(sim[cols], how="cross")
    judged = []
    for _, r in df.iterrows():
        assumptions_hold = r.slotframe_L / r.cells_C >= 100 and (
            r.hops_H == 1 or r.slotframe_L >= 1000
        )
        if not assumptions_hold:
            continue
        judged.append(
            Check.within(
                "3",
                f"simulated duration, 10 frames, L={r.slotframe_L:g} C={r.cells_C:g} "
                f"H={r.hops_H:g} (closed form)",
                float(r.sim_mean_s),
                float(r.closed_form_s),
                float(r.sim_half_s),
                unit="s",
                source=f"closed form (1 + L/(C+1))/P; tolerance: the simulation's 95 % CI "
                f"({int(r.n_rows)} replications)",
                params=r.to_dict(),
                statistical=True,
            )
        )
    checks += confirm_misses(
        judged,
        partial(_confirm, scenario, work),
        scenario.experiment.seed,
        reps,
        reference_name="the closed form",
    )
    return df


def _confirm(
    scenario: Scenario, work: Path, check: Check, seed: int, reps: int
) -> tuple[float, float, int]:
    """One point of the sweep again, alone, with another seed: in its own resumable directory."""
    point = {key: check.params[name] for key, name in AXES.items()}
    name = "-".join(f"{n.split('_')[-1]}{check.params[n]:g}" for n in AXES.values())
    out = work / f"{scenario.experiment.id}-confirm" / f"{name}-seed{seed}"
    again = variant(scenario, {keys.EXPERIMENT_SEED: seed})
    sim = _simulate(again, out, reps, keep=lambda p: all(p[k] == v for k, v in point.items()))
    (r,) = sim.itertuples()
    return float(r.sim_mean_s), float(r.sim_half_s), int(r.n_rows)
