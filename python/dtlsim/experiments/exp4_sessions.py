"""Experiment 4: session blocking at a server with R slots (Engset)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from dtlsim import _core, keys
from dtlsim.experiments import exp4_real, style
from dtlsim.experiments.base import Check, ExperimentResult, Figure, Table, confirm_misses
from dtlsim.scenario import Scenario, variant

SUMMARY = """\
A server holds R DTLS session slots; N clients each ask for a session at
rate λ while they have none, and a session lasts 1/μ on average; ρ = λ/μ.
This is the M/M/R/R/N (Engset) loss system. Two figures answer
different questions:

* **time congestion** — the fraction of *time* all R slots are busy;
* **call congestion** — the fraction of *requests* refused: what a client sees.

Call congestion is lower, because when all slots are busy fewer clients are
idle to ask. The reference column is computed independently, by solving the
birth–death chain's balance equations numerically.

**Simulated**: the same clients and a server whose table holds R slots, run
in the simulator with handshakes made instantaneous (the closed form's
assumption) and refusal when full: time congestion is the share of the
measured time every slot was taken (while a client was left to ask), call
congestion the share of the table's decisions that refused. Each point's
mean over the replications and its 95 % confidence interval are judged
against Engset.
"""

AXES = {
    keys.SESSIONS_SLOTS: "slots_R",
    keys.SESSIONS_CLIENTS: "clients_N",
    keys.SESSIONS_ERLANG: "erlang_rho",
}


def _simulated(
    scenario: Scenario,
    quick: bool,
    work: Path | None,
    replications: int | None = None,
    keep: dict[str, float] | None = None,
    out: Path | None = None,
) -> pd.DataFrame | None:
    """Mean and 95 % interval of the simulated congestion per point (only the
    point `keep` names, when given)."""
    if scenario.workload.kind != "sessions":
        return None
    from dtlsim.runner import replications_of, run_scenario

    out = out or (work or Path("results")) / scenario.experiment.id
    n = replications or replications_of(scenario, None, quick)
    only = (lambda p: all(p[k] == v for k, v in keep.items())) if keep else None
    _, summary = run_scenario(scenario, out, n, keep=only)
    sim = summary.rename(columns=AXES)
    for c in ("time_congestion", "call_congestion"):
        sim[f"sim_{c}"] = sim[f"{c}_mean"]
        sim[f"sim_{c}_half"] = (sim[f"{c}_ci_high"] - sim[f"{c}_mean"]).fillna(0.0)
    axes = [k for k in AXES.values() if k in sim.columns]
    cols = [f"sim_{c}{h}" for c in ("time_congestion", "call_congestion") for h in ("", "_half")]
    return sim[[*axes, *cols, "n_rows"]]


def _confirm(
    scenario: Scenario, quick: bool, work: Path | None, check: Check, seed: int, reps: int
) -> tuple[float, float, int]:
    """One point again, alone, with another seed, in its own resumable directory."""
    point = {key: check.params[name] for key, name in AXES.items()}
    tag = "-".join(f"{name}{check.params[name]:g}" for name in AXES.values())
    out = (work or Path("results")) / f"{scenario.experiment.id}-confirm" / f"{tag}-seed{seed}"
    again = variant(scenario, {keys.EXPERIMENT_SEED: seed})
    sim = _simulated(again, quick, work, replications=reps, keep=point, out=out)
    assert sim is not None
    (r,) = sim.itertuples()
    q = check.params["quantity"]
    return float(getattr(r, f"sim_{q}")), float(getattr(r, f"sim_{q}_half")), int(r.n_rows)


def ctmc_reference(slots: int, clients: int, erlang: float) -> tuple[np.ndarray, float, float]:
    """Stationary distribution of the birth–death chain by linear algebra."""
    top = min(slots, clients)
    q = np.zeros((top + 1, top + 1))
    for k in range(top + 1):
        if k < top:
            q[k, k + 1] = (clients - k) * erlang  # μ = 1
        if k > 0:
            q[k, k - 1] = k
        q[k, k] = -q[k].sum()
    # πQ = 0 with Σπ = 1: replace one balance equation by the normalisation.
    a = np.vstack([q.T[:-1], np.ones(top + 1)])
    b = np.zeros(top + 1)
    b[-1] = 1.0
    pi = np.linalg.solve(a, b)
    if slots >= clients:
        return pi, 0.0, 0.0
    arrivals = np.array([(clients - k) * erlang for k in range(top + 1)]) * pi
    return pi, float(pi[-1]), float(arrivals[-1] / arrivals.sum())


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    rows, dist_rows, checks = [], [], []
    for p in scenario.points():
        r_, n, rho = p[keys.SESSIONS_SLOTS], p[keys.SESSIONS_CLIENTS], p[keys.SESSIONS_ERLANG]
        e = _core.engset(r_, n, rho)
        _, ref_time, ref_call = ctmc_reference(r_, n, rho)
        rows.append(
            {
                "slots_R": r_,
                "clients_N": n,
                "erlang_rho": rho,
                "time_congestion": e["time_congestion"],
                "call_congestion": e["call_congestion"],
                "carried_erlang": e["carried_erlang"],
                "ctmc_time_congestion": ref_time,
                "ctmc_call_congestion": ref_call,
            }
        )
        dist_rows += [
            {"slots_R": r_, "clients_N": n, "erlang_rho": rho, "busy_k": k, "probability": pk}
            for k, pk in enumerate(e["busy_distribution"])
        ]
        params = {"slots_R": r_, "clients_N": n, "erlang_rho": rho}
        for name, value, ref in (
            ("time congestion (P all slots busy)", e["time_congestion"], ref_time),
            ("call congestion (P request refused)", e["call_congestion"], ref_call),
        ):
            checks.append(
                Check.within(
                    "4",
                    f"{name}, R={r_} N={n} ρ={rho}",
                    value,
                    ref,
                    1e-9,
                    unit="",
                    source="birth–death chain solved numerically (independent of the formula)",
                    params=params,
                )
            )
    df = pd.DataFrame(rows)
    dist = pd.DataFrame(dist_rows)
    sim = _simulated(scenario, quick, work)
    if sim is not None:
        axes = [k for k in AXES.values() if k in sim.columns]
        df = df.merge(sim, on=axes, how="left") if axes else df.merge(sim, how="cross")
        judged = []
        for _, r in df.iterrows():
            for name in ("time_congestion", "call_congestion"):
                judged.append(
                    Check.within(
                        "4",
                        f"simulated {name.replace('_', ' ')}, instantaneous handshakes, "
                        f"R={r.slots_R:g} N={r.clients_N:g} ρ={r.erlang_rho:g} (Engset)",
                        float(r[f"sim_{name}"]),
                        float(r[name]),
                        float(r[f"sim_{name}_half"]),
                        unit="",
                        source=f"Engset (M/M/R/R/N); tolerance: the simulation's 95 % CI "
                        f"({int(r.n_rows)} replications)",
                        params={
                            **{k: r[k] for k in ("slots_R", "clients_N", "erlang_rho")},
                            "quantity": name,
                        },
                        statistical=True,
                    )
                )
        checks += confirm_misses(
            judged,
            partial(_confirm, scenario, quick, work),
            scenario.experiment.seed,
            int(df.n_rows.max()),
            reference_name="Engset",
        )

    fig, (a1, a2) = style.subplots(2)
    for (n, rho), sub in df.groupby(["clients_N", "erlang_rho"]):
        # a log axis has no 0: R ≥ N slots never block, and those points are left out
        time, call = sub[sub.time_congestion > 0], sub[sub.call_congestion > 0]
        a1.plot(time.slots_R, time.time_congestion, "o-", label=f"time congestion N={n} ρ={rho}")
        a1.plot(call.slots_R, call.call_congestion, "s--", label=f"call congestion N={n} ρ={rho}")
        if "sim_time_congestion" in sub.columns:
            for col, mark in (("time_congestion", "o"), ("call_congestion", "s")):
                shown = sub[sub[f"sim_{col}"] > 0]
                a1.errorbar(
                    shown.slots_R,
                    shown[f"sim_{col}"],
                    yerr=style.yerr(
                        shown[f"sim_{col}"],
                        shown[f"sim_{col}"] - shown[f"sim_{col}_half"],
                        shown[f"sim_{col}"] + shown[f"sim_{col}_half"],
                    ),
                    fmt=mark,
                    mfc="none",
                    capsize=3,
                    label=f"simulated {col.replace('_', ' ')}",
                )
    a1.set_xlabel("session slots R")
    a1.set_ylabel("blocking probability")
    style.log_axis(a1, "y")  # blocking falls by decades per slot
    style.count_axis(a1)
    a1.set_title("Blocking vs slots")
    ref_r = 3 if 3 in set(dist.slots_R) else int(dist.slots_R.max())
    sub = dist[dist.slots_R == ref_r]
    a2.bar(sub.busy_k, sub.probability, color=style.COLOURS[0])
    a2.set_xlabel("busy slots k")
    a2.set_ylabel("P(k busy), share of time")
    style.count_axis(a2)
    a2.set_title(f"Busy slots, R={ref_r}")
    style.legend(fig, a1, columns=2)

    summary = SUMMARY
    tables = [
        Table("exp4_blocking", "Engset blocking", df),
        Table("exp4_busy_distribution", "Distribution of busy slots", dist),
    ]
    figures = [Figure("exp4_blocking", "Session blocking", fig)]
    if scenario.workload.kind == "sessions":
        text, more_tables, more_figures = exp4_real.run(scenario, quick, work or Path("results"))
        summary += "\n" + text
        tables += more_tables
        figures += more_figures

    return ExperimentResult(
        id=scenario.experiment.id,
        title=scenario.experiment.title,
        reference=scenario.experiment.reference,
        summary=summary,
        tables=tables,
        figures=figures,
        checks=checks,
    )
