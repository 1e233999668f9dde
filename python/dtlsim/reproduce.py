"""`dtlsim reproduce`: run the reference experiments and write the report."""

from __future__ import annotations

import time
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from dtlsim import progress, resources
from dtlsim.experiments import RUNNERS, ExperimentResult
from dtlsim.experiments.compare import side_by_side
from dtlsim.report import write_report
from dtlsim.scenario import builtin_scenarios, load_scenario


def reference_scenarios(only: list[str] | None = None) -> list[tuple[str, Path]]:
    """Built-in scenarios that have an experiment runner, in experiment order.

    Finding none is an error, not an empty report: it means the shipped
    scenarios are missing (a broken install), not that there is nothing to do."""
    found = []
    for path in builtin_scenarios().values():
        scenario = load_scenario(path)
        if scenario.experiment.id in RUNNERS:
            found.append((scenario.experiment.id, path))
    if not found:
        raise ValueError(
            f"no reference experiment to run: no scenario in {resources.scenarios_dir()} "
            f"names one of {', '.join(RUNNERS)} (is the installation complete?)"
        )
    if only:
        unknown = sorted(set(only) - {i for i, _ in found})
        if unknown:
            known = ", ".join(i for i, _ in found)
            raise ValueError(f"unknown experiment(s) {', '.join(unknown)}; known: {known}")
        found = [(i, p) for i, p in found if i in only]
    return found


def reproduce(
    out: Path, quick: bool = False, only: list[str] | None = None, csv: bool = False
) -> tuple[list[ExperimentResult], pd.DataFrame]:
    """Run the experiments into `out`/runs and write the report in `out`; with
    `csv`, every run's rows also as results.csv beside its results.parquet."""
    # The report holds every experiment's figures (a few dozen) until it writes
    # and closes them; pyplot's "more than 20 figures open" warning does not apply.
    plt.rcParams["figure.max_open_warning"] = 0
    results = []
    todo = reference_scenarios(only)
    started = time.monotonic()
    for i, (exp_id, path) in enumerate(todo):
        progress.note(
            f"experiment {i + 1} of {len(todo)}: {exp_id} "
            f"({progress.clock_text(time.monotonic() - started)} elapsed)"
        )
        scenario = load_scenario(path)
        # simulation results live beside the report so an interrupted run resumes
        result = RUNNERS[exp_id](scenario, quick, out / "runs")
        result.seeds = [scenario.experiment.seed]
        results.append(result)
    comparison = side_by_side(results)
    if comparison is not None:
        results.append(comparison)
    progress.note("writing the report")
    summary = write_report(results, out, quick)
    if csv:
        results_as_csv(out / "runs")
    return results, summary


def results_as_csv(runs: Path) -> None:
    """results.csv beside every results.parquet under `runs`: the same rows,
    for tools that read no Parquet (several times its size, so on request)."""
    for parquet in sorted(runs.rglob("results.parquet")):
        pa_csv.write_csv(pq.read_table(parquet), parquet.with_name("results.csv"))
