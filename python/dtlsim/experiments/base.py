"""What an experiment hands to the report: tables, figures and checks."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from matplotlib.figure import Figure as MplFigure


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
    def verdict(self) -> str:
        ok = math.isfinite(self.value) and self.low <= self.value <= self.high
        return "pass" if ok else "FAIL"

    def row(self) -> dict[str, Any]:
        return {
            "experiment": self.experiment,
            "quantity": self.quantity,
            "value": self.value,
            "reference": self.reference,
            "tolerance": self.tolerance,
            "unit": self.unit,
            "verdict": self.verdict,
            "statistical": self.statistical,
            "source": self.source,
            "params": self.params,
        }


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
class ExperimentResult:
    id: str
    title: str
    reference: str
    summary: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
