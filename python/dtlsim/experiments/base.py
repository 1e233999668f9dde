"""What an experiment hands to the report: tables, figures and checks."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd
from matplotlib.figure import Figure as MplFigure

# A statistical check that misses is run once more, with an independent seed
# (the scenario's seed plus this offset: the report stays reproducible, and
# the simulator's streams hash the seed, so any other seed is independent)
# and this many times the replications. Exactly once: the verdict stays.
CONFIRM_SEED_OFFSET = 1_000_000
CONFIRM_FACTOR = 4


# The verdict of a statistical miss that its confirmation run showed to be chance.
CHANCE_MISS = "chance miss (confirmed)"
# The verdict of a comparison with a published measurement that the model,
# built from its sources, does not reproduce (the check says why, `note`).
DIFFERS = "differs from the measurements"


def confirmation_seed(seed: int) -> int:
    return (seed + CONFIRM_SEED_OFFSET) % 2**63


@dataclass(frozen=True)
class Confirmation:
    """The one re-run of a missed statistical check: mean ± 95 % CI half-width."""

    seed: int
    replications: int
    value: float
    half: float
    reference: float
    reference_name: str = "the reference"
    unit: str = ""

    @property
    def contains(self) -> bool:
        """Whether this run's confidence interval contains the reference."""
        return math.isfinite(self.value) and abs(self.value - self.reference) <= self.half

    def explanation(self) -> str:
        outcome = (
            f"contains {self.reference_name}: a chance miss"
            if self.contains
            else f"still excludes {self.reference_name}: model and simulation disagree here"
        )
        value = f"{_estimate(self.value, self.half)} {self.unit}".strip()
        return (
            f"confirmation: independent seed {self.seed}, {self.replications} replications: "
            f"{value} — {outcome}"
        )

    def row(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "replications": self.replications,
            "value": self.value,
            "half": self.half,
            "contains_reference": self.contains,
        }


def _estimate(value: float, half: float) -> str:
    """`75.13 ± 0.53`: the mean to the precision of its interval."""
    if not (math.isfinite(value) and math.isfinite(half) and half > 0):
        return f"{value:g} ± {half:g}"
    decimals = max(0, 1 - math.floor(math.log10(half)))
    return f"{value:.{decimals}f} ± {half:.{decimals}f}"


@dataclass(frozen=True)
class Check:
    """One dtlsim value judged against a reference value and its tolerance."""

    experiment: str
    quantity: str
    value: float
    reference: float
    low: float
    high: float
    tolerance: str
    unit: str
    source: str
    params: dict[str, Any] = field(default_factory=dict)
    # A check against a confidence interval misses 5 % of the time even
    # when nothing is wrong: reported, but it does not fail `reproduce`.
    statistical: bool = False
    # When a statistical check missed: its one confirmation run (see `confirm_misses`).
    confirmation: Confirmation | None = None
    # A claim of the published measurements (a testbed whose configuration the
    # public sources do not fully fix), not a value dtlsim must meet by its own
    # sources: a miss is a finding, shown as DIFFERS with `note` saying why, and
    # does not fail `reproduce`.
    against_measurement: bool = False
    note: str = ""
    # Why the model differs, where several rows share the reason: the report
    # says each once per experiment and links the rows to it (`note` is this
    # row's own numbers).
    reasons: tuple[str, ...] = ()
    # What the reference states, in words, where its number alone misleads
    # (a ratio whose tolerance is the statement's direction): "1.3 takes
    # about half of 1.2's time". The page shows it in place of the number.
    statement: str = ""

    @classmethod
    def within(
        cls, experiment: str, quantity: str, value: float, reference: float, tol: float, **kw: Any
    ) -> Check:
        """Passes when |value - reference| <= tol."""
        unit = kw.get("unit", "")
        text = f"±{tol:g} {unit}".strip()
        return cls(
            experiment, quantity, value, reference, reference - tol, reference + tol, text, **kw
        )

    @classmethod
    def between(
        cls,
        experiment: str,
        quantity: str,
        value: float,
        low: float,
        high: float,
        **kw: Any,
    ) -> Check:
        """Passes when low <= value <= high; the reference shown is the middle."""
        unit = kw.get("unit", "")
        text = f"in [{low:g}, {high:g}] {unit}".strip()
        return cls(experiment, quantity, value, (low + high) / 2, low, high, text, **kw)

    @property
    def passed(self) -> bool:
        return math.isfinite(self.value) and self.low <= self.value <= self.high

    @property
    def verdict(self) -> str:
        """`pass`, `FAIL`, or for a statistical miss whose one confirmation run
        contains the reference, `CHANCE_MISS`: the miss stays on record, but a
        95 % interval misses 1 time in 20 when nothing is wrong."""
        if self.passed:
            return "pass"
        if self.statistical and self.confirmation is not None and self.confirmation.contains:
            return CHANCE_MISS
        if self.against_measurement:
            return DIFFERS
        return "FAIL"

    @property
    def gates(self) -> bool:
        """Whether a miss fails `reproduce` (the one rule for its exit code)."""
        return not (self.statistical or self.against_measurement)

    @property
    def explanation(self) -> str:
        if self.confirmation:
            return self.confirmation.explanation()
        return "; ".join(self.notes) if self.verdict == DIFFERS else ""

    @property
    def notes(self) -> list[str]:
        """This row's own note, then the reasons it shares with other rows."""
        return [n for n in (self.note, *self.reasons) if n]

    def row(self) -> dict[str, Any]:
        return {
            "experiment": self.experiment,
            "quantity": self.quantity,
            "value": self.value,
            "reference": self.reference,
            "statement": self.statement,
            "tolerance": self.tolerance,
            "unit": self.unit,
            "verdict": self.verdict,
            "explanation": self.explanation,
            "statistical": self.statistical,
            "against_measurement": self.against_measurement,
            "gates": self.gates,
            "source": self.source,
            "params": self.params,
            "confirmation": self.confirmation.row() if self.confirmation else None,
        }


# Runs one check's point again: (check, seed, replications) -> (mean, CI half-width, rows).
Rerun = Callable[[Check, int, int], tuple[float, float, int]]


def confirm_misses(
    checks: list[Check],
    rerun: Rerun,
    seed: int,
    replications: int,
    reference_name: str = "the reference",
) -> list[Check]:
    """`checks`, each statistical one that missed with its confirmation run beside it.

    `seed` and `replications` are those of the original run; the confirmation
    uses `confirmation_seed(seed)` and `CONFIRM_FACTOR` times the replications,
    once. The verdict is the original run's, whatever the confirmation says."""
    out = []
    for c in checks:
        if c.statistical and not c.passed and c.confirmation is None:
            again = confirmation_seed(seed)
            value, half, n = rerun(c, again, CONFIRM_FACTOR * replications)
            confirmation = Confirmation(again, n, value, half, c.reference, reference_name, c.unit)
            c = replace(c, confirmation=confirmation)
        out.append(c)
    return out


@dataclass
class Table:
    name: str
    title: str
    frame: pd.DataFrame
    note: str = ""


@dataclass
class Figure:
    name: str
    title: str
    figure: MplFigure
    caption: str = ""


@dataclass
class Timeline:
    """One run's events (a `--trace`), drawn by `dtlsim.timeline`."""

    name: str
    title: str
    events: pd.DataFrame
    caption: str = ""


@dataclass
class ExperimentResult:
    id: str
    title: str
    reference: str
    summary: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    timelines: list[Timeline] = field(default_factory=list)
    # the scenario seed(s) the results came from (set by `reproduce`)
    seeds: list[int] = field(default_factory=list)
    # why the experiment could not run here (its peers are missing), or None
    not_run: str | None = None

    @classmethod
    def for_scenario(cls, scenario: Any, summary: str, **parts: Any) -> ExperimentResult:
        """The result of `scenario`'s experiment: its id, title and reference
        from the scenario's [experiment] table, then `parts` (tables, figures, checks)."""
        experiment = scenario.experiment
        return cls(
            id=experiment.id,
            title=experiment.title,
            reference=experiment.reference,
            summary=summary,
            **parts,
        )
