"""One look for every figure of the report: sizes, fonts, colours, markers,
legends, error bars, axes, and how a figure is saved (PNG beside a vector SVG).

Experiments draw with `subplots`, set their axes with `count_axis` and
`log_axis`, place the legend with `legend`, and the report saves with `save`;
none of them sets a font size, a colour list or a layout of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot as plt
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.figure import Figure as MplFigure
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullLocator

# One panel fits one column of a two-column paper (IEEE: 3.5 in wide), so a
# figure put in a paper at column width keeps its 8–9 pt text legible.
PANEL_WIDTH_IN = 3.4
PANEL_HEIGHT_IN = 2.6

# Okabe and Ito's colour-blind-safe palette ("Color Universal Design", 2008;
# its yellow left out: too pale on white), each colour with its own marker so
# that lines stay apart in greyscale print too.
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X"]

# Every error bar: a 95 % interval from dtlsim.stats, drawn the same way.
ERRORBAR: dict[str, Any] = {"capsize": 2.5, "elinewidth": 0.8, "capthick": 0.8}

RC: dict[str, Any] = {
    "font.family": "DejaVu Sans",  # ships with matplotlib: the same glyphs everywhere
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 7.5,
    "axes.prop_cycle": cycler(color=COLOURS, marker=MARKERS),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.2,
    "lines.markersize": 4.5,
    "legend.frameon": False,
    "figure.constrained_layout.use": True,
    "savefig.dpi": 150,  # PNG: about 500 px per panel, sharp on screen
    "svg.fonttype": "none",  # SVG text stays text: searchable, small, editable
    "svg.hashsalt": "dtlsim",  # same figure, same SVG bytes
    "pdf.fonttype": 42,
}

# The formats every figure is saved in, the first the one the page shows.
FORMATS = ("png", "svg")


def subplots(
    ncols: int = 1, nrows: int = 1, wide: bool = False, **kw: Any
) -> tuple[MplFigure, list[Axes]]:
    """A figure of `nrows` × `ncols` panels of the one panel size (`wide`:
    twice as wide, for bars with long labels), its axes as one flat list."""
    plt.rcParams.update(RC)
    size = (PANEL_WIDTH_IN * (2 if wide else 1) * ncols, PANEL_HEIGHT_IN * nrows)
    fig, axes = plt.subplots(nrows, ncols, figsize=size, squeeze=False, **kw)
    return fig, list(axes.flat)


def yerr(mean: Any, low: Any, high: Any) -> list[Any]:
    """Error bar lengths below and above `mean` for the interval [low, high],
    the lower end cut at zero: every quantity drawn (a duration, an energy,
    a count, a probability) is non-negative, and so is its bar."""
    below = (mean - low).clip(lower=0)
    return [below.where(below <= mean, mean), (high - mean).clip(lower=0)]


def count_axis(ax: Axes, axis: str = "x") -> None:
    """Ticks on whole numbers only: an axis of counts (hops, cells, slots)
    has no tick at half a hop."""
    which = ax.xaxis if axis == "x" else ax.yaxis
    which.set_major_locator(MaxNLocator(integer=True))
    which.set_minor_locator(NullLocator())


def log_axis(ax: Axes, axis: str = "x", base: float = 10, ticks: Sequence[float] = ()) -> None:
    """A log scale for values that span decades, labelled as plain numbers
    (0.25, 1, 4 — not 2⁻², 2⁰, 2²): with `ticks`, exactly those; otherwise,
    on a base-10 axis, at 1, 2 and 5 times each power of ten."""
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=base)
    which = ax.xaxis if axis == "x" else ax.yaxis
    if ticks:
        which.set_major_locator(FixedLocator(list(ticks)))
    elif base == 10:
        which.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    which.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    which.set_minor_locator(NullLocator())


def legend(fig: MplFigure, ax: Axes | None = None, columns: int = 4) -> None:
    """One legend per figure, below its panels (it never hides a point): the
    entries of `ax` (default: the first panel), de-duplicated, in as many
    columns (at most `columns`) as the figure's width holds."""
    source = ax or fig.axes[0]
    handles, labels = source.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    if not unique:
        return
    # an entry is its marker (about 0.45 in) and its text (about 0.06 in a
    # character at the legend's 7.5 pt), with a little space after it
    entry_in = 0.55 + 0.06 * max(len(label) for label in unique)
    fit = max(1, int(fig.get_figwidth() // entry_in))
    fig.legend(
        unique.values(),
        unique.keys(),
        loc="outside lower center",
        ncols=min(columns, fit, len(unique)),
    )


def save(fig: MplFigure, directory: Path, name: str) -> dict[str, Path]:
    """Write `name`.png and its vector twin `name`.svg; close the figure."""
    plt.rcParams.update(RC)
    paths = {}
    for fmt in FORMATS:
        paths[fmt] = directory / f"{name}.{fmt}"
        fig.savefig(paths[fmt], format=fmt, metadata=_metadata(fmt))
    plt.close(fig)
    return paths


def _metadata(fmt: str) -> dict[str, Any]:
    """No creation date in the files: the same run gives the same bytes."""
    return {"Date": None} if fmt == "svg" else {"Software": "dtlsim"}
