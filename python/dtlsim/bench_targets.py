"""The project's speed targets, judged on `dtlsim bench`'s figures, and
their history per commit (`bench/history.csv`, kept in the repository).

Every target is a row whether or not it was measured: one whose bench case
did not run, or that no bench case measures (`make test`), says so in
`holds` instead of being left out, so a missing figure is as visible as a
missed one.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Row = dict[str, Any]
Figures = dict[tuple[str, str], float]

IN_PROCESS = "in-process"
WHOLE_PROCESS = "whole-process"


@dataclass(frozen=True)
class Target:
    name: str
    what: str
    limit: float
    unit: str  # "s", or "x" for a ratio
    at_most: bool  # holds when measured <= limit (else >= limit)
    case: str | None  # the bench case that measures it; None: no case does
    figure: Callable[[Figures], float | None]
    how: str  # how it is measured, or how to measure it where no case does


def _wall(case: str, measure: str) -> Callable[[Figures], float | None]:
    return lambda f: f.get((case, measure))


def _ratio(top: tuple[str, str], bottom: tuple[str, str]) -> Callable[[Figures], float | None]:
    def figure(f: Figures) -> float | None:
        a, b = f.get(top), f.get(bottom)
        return None if a is None or b is None or b == 0 else a / b

    return figure


def _peer(case: str, peer: str, limit: float, what: str) -> Target:
    return Target(
        case, f"{peer} takes at least {limit:g}x dtlsim's time on {what}", limit, "x",
        False, case, _ratio((case, WHOLE_PROCESS), (f"{case}-dtlsim", WHOLE_PROCESS)),
        f"the peer's wall time over ours, both whole-process (`--case {case}`, the peer "
        "named by its environment variable)",
    )  # fmt: skip


# The speed targets, in the order the performance page lists them.
TARGETS: tuple[Target, ...] = (
    Target(
        "exp1-grid-floor", "experiment 1's grid within 2x the event-loop floor over its "
        "own event count", 2.0, "x", True, "exp1-xmac-grid",
        _ratio(("exp1-xmac-grid", IN_PROCESS), ("exp1-xmac-grid-floor", IN_PROCESS)),
        "the grid's in-process wall time over a minimal binary-heap loop's over the same "
        "number of events, shared over the same workers",
    ),
    Target(
        "reproduce", "`dtlsim reproduce` (every experiment, full replications) on a warm "
        "checkout", 120.0, "s", True, "reproduce",
        _wall("reproduce", WHOLE_PROCESS), "whole-process (`--case reproduce`)",
    ),
    Target(
        "reproduce-quick", "`dtlsim reproduce --quick`", 20.0, "s", True, "reproduce-quick",
        _wall("reproduce-quick", WHOLE_PROCESS), "whole-process (`--case reproduce-quick`)",
    ),
    Target(
        "tiny-run", "a tiny `run` (one handshake over one X-MAC hop to Parquet)", 0.15, "s",
        True, "startup", _wall("startup-tiny-run", WHOLE_PROCESS),
        "whole-process, the median of 5 process starts (`--case startup`)",
    ),
    Target(
        "make-test", "`make test` on a warm checkout", 300.0, "s", True, None,
        lambda f: None,
        "no bench case (it is the whole test suite, 5-10 min): `make test` is "
        "`scripts/setup.sh` (seconds when warm) then `scripts/test.sh`, which prints when each "
        "step starts and the total; time it with `/usr/bin/time -v bash scripts/test.sh`",
    ),
    _peer("peer-tsch-sim-100", "TSCH-Sim", 10.0, "100 nodes"),
    _peer("peer-tsch-sim-1000", "TSCH-Sim", 50.0, "1 000 nodes"),
    _peer("peer-6tisch-sim-100", "the 6TiSCH simulator", 200.0, "100 nodes"),
    _peer("peer-cooja-xmac", "Cooja", 1000.0, "the same firmware set-up"),
)  # fmt: skip


def figures(rows: Sequence[Row]) -> Figures:
    """Wall seconds by (case, measure); a case not run (None) has none."""
    return {(r["case"], r["measure"]): r["wall_s"] for r in rows if r.get("wall_s") is not None}


def judge(rows: Sequence[Row]) -> list[Row]:
    """Every target with its limit, what `rows` measured and whether it holds."""
    f = figures(rows)
    out = []
    for t in TARGETS:
        measured = t.figure(f)
        if measured is not None:
            holds = "yes" if (measured <= t.limit if t.at_most else measured >= t.limit) else "no"
        elif t.case is None:
            holds = "not measured by bench"
        else:
            holds = f"not measured: run --case {t.case}"
        out.append(
            {
                "target": t.name,
                "limit": f"{'<=' if t.at_most else '>='} {t.limit:g} {t.unit}",
                "measured": None if measured is None else round(measured, 4),
                "holds": holds,
                "what": t.what,
            }
        )
    return out


# Where the history is kept, from the top of the source checkout.
HISTORY = Path("bench") / "history.csv"
# `load`: the machine's 1-minute load average when the row was recorded (a
# shared machine's wall times grow with it; empty where not known).
HISTORY_COLUMNS = ("commit", "date", "load", "target", "limit", "measured", "holds")


def record(
    path: Path, commit: str, date: str, judged: Sequence[Row], load: float | None = None
) -> None:
    """Keep `judged` as `commit`'s rows of the history in `path` (a CSV, one
    row per commit and target, oldest commit first): a commit recorded again
    has its rows replaced in place."""
    from dtlsim.atomic import write_text_atomically

    kept = read_history(path)
    at_load = None if load is None else f"{load:.1f}"
    ours = [
        {"commit": commit, "date": date, "load": at_load, **{k: r[k] for k in HISTORY_COLUMNS[3:]}}
        for r in judged
    ]
    at = next((i for i, r in enumerate(kept) if r["commit"] == commit), len(kept))
    rest = [r for r in kept if r["commit"] != commit]
    rows = rest[:at] + ours + rest[at:]
    text = io.StringIO()
    w = csv.DictWriter(text, HISTORY_COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: "" if r.get(k) is None else r[k] for k in HISTORY_COLUMNS})
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, text.getvalue())


def read_history(path: Path) -> list[Row]:
    if not path.is_file():
        return []
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))
