"""How every experiment shows a simulated point: the same columns, the same marks.

A duration or an energy is never shown without the success rate (with its
Wilson interval) and n beside it; a point with fewer than `MIN_SUCCESSES`
successes is flagged in tables and drawn hollow without an error bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from dtlsim.experiments.style import ERRORBAR, yerr
from dtlsim.runner import CENSORED
from dtlsim.stats import MIN_SUCCESSES

# What every table of a simulated point shows before its metrics.
OUTCOME = [
    "n_rows",
    "n_successful",
    "success_rate",
    "success_ci_low",
    "success_ci_high",
    "few_successes",
]

FEW_NOTE = (
    f"Hollow markers, without error bars: fewer than {MIN_SUCCESSES} successful runs, "
    "a mean of the lucky few."
)


def columns(summary: pd.DataFrame, axes: Sequence[str], metrics: Sequence[str]) -> list[str]:
    """Axes, the outcome columns, then each metric's mean and 95 % interval and,
    where the summary has it, its censored mean (failures counted at give-up)."""
    out = [*axes, *OUTCOME]
    for m in metrics:
        out += [f"{m}_mean", f"{m}_ci_low", f"{m}_ci_high"]
        if m in CENSORED:
            out.append(f"{CENSORED[m][0]}_mean")
    return [c for c in out if c in summary.columns]


def errorbar(ax: Any, sub: pd.DataFrame, x: str, metric: str, scale: float, label: str | None,
             **style: Any) -> None:  # fmt: skip
    """Mean and 95 % interval of `metric` against `x`: filled with error bars
    where enough runs succeeded, hollow without them where few did (the
    summary's `few_successes` flag). Colour and marker come from the figure
    style's cycle unless given."""
    has = sub[sub[f"{metric}_mean"].notna()].sort_values(x)
    few = (
        has.few_successes.astype(bool)
        if "few_successes" in has
        else has.n_successful < MIN_SUCCESSES
    )
    ok = has[~few]
    mean = has[f"{metric}_mean"] * scale
    ok_mean = ok[f"{metric}_mean"]
    bars_yerr = [
        e.fillna(0) * scale
        for e in yerr(ok_mean, ok[f"{metric}_ci_low"].fillna(ok_mean),
                      ok[f"{metric}_ci_high"].fillna(ok_mean))
    ]  # fmt: skip
    line = ax.plot(has[x], mean, label=label, **{k: v for k, v in style.items() if k != "capsize"})[
        0
    ]
    marks = {"color": line.get_color(), "marker": line.get_marker(), "ls": "none"}
    bars = ERRORBAR | {k: v for k, v in style.items() if k == "capsize"}
    ax.errorbar(ok[x], ok_mean * scale, yerr=bars_yerr, **marks, **bars)
    if few.any():
        ax.plot(has[x][few], mean[few], mfc="white", **marks)


def success(ax: Any, sub: pd.DataFrame, x: str, label: str, **style: Any) -> None:
    """Share of successful runs against `x` with its Wilson 95 % interval."""
    s = sub.sort_values(x)
    line = ax.plot(s[x], s.success_rate, label=label, **style)[0]
    marks = {"color": line.get_color(), "marker": line.get_marker(), "ls": "none"}
    bars = yerr(s.success_rate, s.success_ci_low, s.success_ci_high)
    ax.errorbar(s[x], s.success_rate, yerr=bars, **marks, **ERRORBAR)
    ax.set_ylim(-0.02, 1.02)
