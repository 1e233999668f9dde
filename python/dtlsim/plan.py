"""Which points of a sweep can run, found before any of them starts.

A point the schema accepts may still be one the simulator cannot run: the
coordinators of a beacon-enabled cluster tree whose active periods do not fit
in one beacon interval (each needs its own superframe duration SD: hops ×
SD > BI), a TSCH
schedule that names missing nodes, a DTLS version the simulator does not have
yet, a CCM* strategy the platform's implementation profile does not have.
The core plans each point without simulating it (`_core.plan_point`:
the same checks a replication makes before it starts), so the rule is written
once, in Rust, and a sweep learns about every such point up front, named by
its sweep values.

A sweep with some points that cannot run runs the others: a grid of beacon
and superframe orders × hops naturally holds combinations that do not exist,
and a researcher expects the rest of the grid, with the missing points listed
on the terminal and marked in the summary (`not_run`, the reason) rather than
a refusal that makes them write the grid out by hand. A sweep with no point
that can run is refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dtlsim import _core
from dtlsim.problems import FileError
from dtlsim.scenario import Scenario
from dtlsim.simulation import platform_figures, settled

if TYPE_CHECKING:
    import pandas as pd

NOT_RUN = "not_run"
"""The summary column that says why a point did not run (only when one did not)."""


@dataclass(frozen=True)
class NotRun:
    """A point of a sweep that cannot run: its sweep values and why."""

    values: dict[str, Any]
    why: str

    def render(self) -> str:
        where = ", ".join(f"{k}={v}" for k, v in self.values.items()) or "the point"
        return f"{where}: {self.why}"


def why_not(point: dict[str, Any]) -> str | None:
    """Why the core cannot run this point (of `Scenario.points()`), or None.
    A combination the point's platform file does not have (OpenWSN has no
    hybrid CCM* path) is such a point too: a product of strategies x
    implementations naturally holds it, as experiment 5's file does."""
    try:
        figures = platform_figures(point)
    except FileError:
        raise  # a platform file that cannot be read is the file's error
    except ValueError as e:
        return str(e)
    return _core.plan_point(settled(point), json.dumps(figures))


def closed_form_only(scenario: Scenario) -> str:
    """What a scenario without a simulated MAC is, for refusing to simulate it."""
    e = scenario.experiment
    return (
        f"{e.id} feeds the closed forms only (mac.kind = 'none'): there is nothing to "
        f"simulate; `dtlsim reproduce --only {e.id}` computes its tables"
    )


def split(
    scenario: Scenario, points: Sequence[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[NotRun]]:
    """The points that can run, and the others with why, in sweep order."""
    if not scenario.simulated:
        raise ValueError(closed_form_only(scenario))
    axes = list(scenario.axes())
    runnable, refused = [], []
    for point in points:
        why = why_not(point)
        if why is None:
            runnable.append(point)
        else:
            refused.append(NotRun({k: point[k] for k in axes}, why))
    if points and not runnable:
        lines = "\n".join(f"  {r.render()}" for r in refused)
        raise ValueError(f"{scenario.experiment.id}: no point of the sweep can run\n{lines}")
    return runnable, refused


def mark_records(
    summary: list[dict[str, Any]], columns: list[str], refused: Iterable[NotRun]
) -> tuple[list[dict[str, Any]], list[str]]:
    """`mark` for a summary as records with its columns: the records and columns."""
    marks = [r.values | {"n_rows": 0, NOT_RUN: r.why} for r in refused]
    if not marks:
        return summary, columns
    more = [k for m in marks for k in m if k not in columns]
    return [*summary, *marks], [*columns, *dict.fromkeys(more)]


def mark(summary: pd.DataFrame, refused: Iterable[NotRun]) -> pd.DataFrame:
    """The summary with a row per point that did not run (its sweep values,
    no rows, `not_run` saying why); unchanged when every point ran."""
    import pandas as pd

    marks = pd.DataFrame([r.values | {"n_rows": 0, NOT_RUN: r.why} for r in refused])
    if marks.empty:
        return summary
    return pd.concat([summary, marks], ignore_index=True)


def ran(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary's rows of points that ran."""
    if NOT_RUN not in summary.columns:
        return summary
    return summary[summary[NOT_RUN].isna()].drop(columns=NOT_RUN).reset_index(drop=True)
