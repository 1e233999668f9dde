"""`dtlsim reproduce`: the reference experiments, their report, and a
verdict per reference value."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.text import Text

from dtlsim.cli.common import (
    Json,
    check_output_dir,
    console,
    emit_json,
    err_console,
    resumable,
    show,
)


def reproduce_cmd(
    out: Annotated[Path, typer.Option(help="Report directory.")] = Path("report"),
    quick: Annotated[bool, typer.Option(help="Fewer replications, for a fast look.")] = False,
    only: Annotated[
        list[str] | None, typer.Option(help="Run only this experiment id (repeatable).")
    ] = None,
    csv: Annotated[
        bool,
        typer.Option(
            "--csv",
            help="Also write each run's rows as runs/…/results.csv beside its results.parquet "
            "(several times its size).",
        ),
    ] = False,
    as_json: Json = False,
) -> None:
    """Run the reference experiments and write report/: an HTML page and its
    Markdown twin, figures as PNG and vector SVG, tables as CSV.

    Each experiment names the published work it reproduces (Vučinić et al., PIMRC
    2015; Sciancalepore et al., ETT 2017; Kothmayr et al., Ad Hoc Networks 2013;
    RFC 6347, RFC 6655), its seed and the git commit of the code."""
    from dtlsim.experiments.base import CHANCE_MISS, DIFFERS
    from dtlsim.progress import Reporter, reporting
    from dtlsim.reproduce import reproduce

    check_output_dir("--out", out)
    with (
        resumable("units of one experiment"),
        reporting(Reporter(err_console, enabled=not as_json)),
    ):
        results, summary = reproduce(out, quick=quick, only=only, csv=csv)
    failed = int(((summary.verdict == "FAIL") & summary.gates.astype(bool)).sum())
    if as_json:
        emit_json(summary.to_dict(orient="records"))
    else:
        hidden = ["params", "source", "statistical", "against_measurement", "gates"]
        shown = summary.drop(columns=[*hidden, "explanation", "statement"])
        # a reference that is a statement (a ratio's direction) is shown in words
        said = summary.statement.fillna("") != ""
        shown["reference"] = shown.reference.astype(object).where(~said, summary.statement)
        # neither a confirmed chance miss nor a difference from a measurement is a red FAIL
        shown["verdict"] = shown.verdict.map(
            lambda v: {
                CHANCE_MISS: Text(CHANCE_MISS, style="yellow"),
                DIFFERS: Text(DIFFERS, style="magenta"),
            }.get(v, v)
        )
        show("Reference values", shown.to_dict(orient="records"))
        # each explanation once, after the rows that share it
        explained = summary[summary.explanation.fillna("") != ""]
        for (experiment, why), rows in explained.groupby(["experiment", "explanation"], sort=False):
            console.print(
                f"[bold]{escape(f'{experiment} · ' + '; '.join(rows.quantity))}[/bold]: "
                f"{escape(why)}"
            )
        missed = int((summary.verdict != "pass").sum())
        chance = int((summary.verdict == CHANCE_MISS).sum())
        differ = int((summary.verdict == DIFFERS).sum())
        statistical = int(((summary.verdict != "pass") & summary.statistical.astype(bool)).sum())
        not_run = [r.id for r in results if r.not_run]
        if not_run:
            console.print(
                f"[bold]not run[/bold] (see the report for why): {escape(', '.join(not_run))}"
            )
        # the side-by-side comparison is a page of its own, not an experiment run
        from dtlsim.experiments.compare import COMPARISON_ID

        runs = [r for r in results if r.id != COMPARISON_ID]
        also = " and their side-by-side comparison" if len(runs) < len(results) else ""
        console.print(
            f"{len(runs)} experiment(s){also}; {len(summary) - missed} of {len(summary)} within "
            f"tolerance ({statistical} statistical miss(es), {chance} of them confirmed "
            f"as chance; {differ} difference(s) from the published measurements; "
            f"{failed} failure(s)). Report: {escape(str(out / 'index.html'))}"
        )
    if failed:
        raise typer.Exit(1)
