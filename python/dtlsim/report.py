"""The reproduction report: an HTML page and its Markdown twin, figures as
PNG beside vector SVG, every table as CSV.

The page fits a screen: a wide table scrolls inside its own box, a long one
shows its first rows and links its CSV, and figures are files beside the
page, not inlined, so the page stays small."""

from __future__ import annotations

import html
import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from dtlsim import __version__, timeline
from dtlsim.experiments import style
from dtlsim.experiments.base import (
    CHANCE_MISS,
    CONFIRM_FACTOR,
    DIFFERS,
    Check,
    ExperimentResult,
    Timeline,
)
from dtlsim.experiments.references import cite
from dtlsim.provenance import code_state
from dtlsim.stats import MIN_SUCCESSES

# A table up to INLINE_ROWS rows is shown whole; a longer one shows its first
# PREVIEW_ROWS and links its CSV, which has every row.
INLINE_ROWS = 30
PREVIEW_ROWS = 10
# What the page shows of a reference value; summary.csv and summary.json have every column.
CHECK_COLUMNS = ["quantity", "value", "reference", "tolerance", "unit", "verdict", "explanation"]
VERDICT_CLASS = {"FAIL": "fail", "pass": "pass", CHANCE_MISS: "chance", DIFFERS: "differs"}


def fmt(v: Any) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        return f"{v:.6g}"
    if v is None:
        return ""
    return str(v)


def summary_frame(checks: list[Check]) -> pd.DataFrame:
    rows = [c.row() for c in checks]
    cols = [
        "experiment",
        "quantity",
        "value",
        "reference",
        "tolerance",
        "unit",
        "verdict",
        "explanation",
    ]
    extra = ["statement", "statistical", "against_measurement", "gates", "source", "params"]
    return pd.DataFrame(rows, columns=[*cols, *extra])


def confirmation_sentence(misses: list[Check]) -> str:
    """What the confirmation runs of the missed statistical checks said, counted."""
    confirmed = [c.confirmation for c in misses if c.confirmation is not None]
    if not confirmed:
        return ""
    chance = sum(c.contains for c in confirmed)
    who = "Each miss was" if len(confirmed) == len(misses) else f"{len(confirmed)} misses were"
    text = (
        f" {who} run once more, alone, with an independent seed and {CONFIRM_FACTOR}× the "
        f"replications (column explanation): {chance} of "
        f"{len(confirmed)} then contain the reference, chance misses, shown as "
        f"“{CHANCE_MISS}”; {len(confirmed) - chance} still exclude it, where model and "
        "simulation disagree, shown as FAIL."
    )
    not_run = len(misses) - len(confirmed)
    if not_run:
        text += f" {not_run} other miss(es) had no confirmation run."
    return text


def measurement_sentence(claims: list[Check]) -> str:
    """How many claims of the published measurements the model reproduces."""
    if not claims:
        return ""
    differ = [c for c in claims if c.verdict == DIFFERS]
    text = (
        f" {len(claims) - len(differ)} of {len(claims)} claims of the published "
        "measurements are reproduced"
    )
    if not differ:
        return text + "."
    return text + (
        f"; {len(differ)} are not, shown as “{DIFFERS}” with the reason (column "
        "explanation): the model follows its sources (standards, datasheets, the "
        "measured stacks' code), and a difference there is a finding, not a failure of "
        "`reproduce`."
    )


def markdown_table(df: pd.DataFrame, limit: int | None = None) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in (df if limit is None else df.head(limit)).iterrows():
        cells = (fmt(row[c]).replace("|", "\\|") for c in cols)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def html_table(df: pd.DataFrame, limit: int | None = None, raw: tuple[str, ...] = ()) -> str:
    """A table in a box that scrolls sideways when it is wider than the page;
    the columns `raw` are HTML already (links), shown as they are."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = []
    for _, row in (df if limit is None else df.head(limit)).iterrows():
        cells = []
        for c in df.columns:
            text = fmt(row[c]) if c in raw else html.escape(fmt(row[c]))
            cls = VERDICT_CLASS.get(text, "text" if c in ("explanation", "quantity") else "")
            cells.append(f'<td class="{cls}">{text}</td>' if cls else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def reasons_of(checks: list[Check]) -> list[str]:
    """The reasons the rows of one experiment share, each once, in the order
    the rows first give them: a check's `reasons`, and a note given verbatim
    on two rows or more."""
    notes = [c.note for c in checks if c.note and c.verdict == DIFFERS]
    shared = {n for n in notes if notes.count(n) > 1}
    out: list[str] = []
    for c in checks:
        if c.verdict != DIFFERS:
            continue
        own = [c.note] if c.note in shared else []
        for r in [*own, *c.reasons]:
            if r not in out:
                out.append(r)
    return out


def reason_anchor(experiment: str, k: int) -> str:
    return f"{experiment}-why-{k}"


def check_table(
    experiment: str, checks: list[Check], reasons: list[str], markdown: bool
) -> pd.DataFrame:
    """The rows of an experiment's reference values as the page shows them:
    the reference as its statement where it has one, and the explanation as
    the row's own note with links to the shared reasons (said once, below)."""
    rows = []
    for c in checks:
        row = {k: v for k, v in c.row().items() if k in CHECK_COLUMNS}
        if not markdown:
            row["explanation"] = html.escape(row["explanation"])
        if c.statement:
            row["reference"] = c.statement
        if c.verdict == DIFFERS:
            own = "" if c.note in reasons else c.note
            ks = [reasons.index(r) + 1 for r in c.notes if r in reasons]
            links = [
                f"[why {k}](#{reason_anchor(experiment, k)})"
                if markdown
                else f"<a href='#{reason_anchor(experiment, k)}'>why {k}</a>"
                for k in ks
            ]
            text = html.escape(own) if not markdown else own
            joined = "; ".join(p for p in [text, ", ".join(links)] if p)
            row["explanation"] = joined
        rows.append(row)
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


def verdict_counts(results: list[ExperimentResult]) -> pd.DataFrame:
    """Per experiment, how many reference values got each verdict."""
    rows = []
    for r in results:
        if r.checks:
            row = {"experiment": r.id, "title": r.title, "reference values": len(r.checks)}
            rows.append(row | {v: sum(c.verdict == v for c in r.checks) for v in VERDICT_CLASS})
    return pd.DataFrame(rows)


CSS = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
.scroll{overflow-x:auto;max-width:100%;margin:.5em 0 1.5em}
table{border-collapse:collapse;font-size:12px}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}
th{background:#f0f0f0}td.text{text-align:left;white-space:normal;min-width:14em}
td.pass{color:#070}td.fail{color:#b00;font-weight:bold}
td.chance{color:#965a00}td.differs{color:#7a2d8f;font-weight:bold}
figure{margin:1em 0}figure img,svg.timeline{max-width:100%;height:auto}
.note{color:#666;font-size:12px}.cite{border-left:3px solid #0072B2;padding-left:.6em}
pre{background:#f7f7f7;padding:.5em;overflow-x:auto}
"""


def write_report(results: list[ExperimentResult], out: Path, quick: bool) -> pd.DataFrame:
    """Write report/ and return the summary table (one row per reference value)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    (out / "figures").mkdir(exist_ok=True)
    checks = [c for r in results for c in r.checks]
    summary = summary_frame(checks)
    summary.drop(columns=["params"]).to_csv(out / "summary.csv", index=False)
    (out / "summary.json").write_text(
        json.dumps([c.row() for c in checks], indent=2, default=str), encoding="utf-8"
    )

    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    mode = "quick (fewer replications)" if quick else "full"
    passed = sum(c.verdict == "pass" for c in checks)
    statistical = [c for c in checks if c.statistical]
    misses = [c for c in statistical if c.verdict != "pass"]
    intro = (
        f"dtlsim {__version__}, {mode} run, {stamp}. "
        f"{passed} of {len(checks)} reference values within tolerance. "
        f"{len(statistical)} of them are judged by a 95 % confidence interval, which misses "
        f"about 1 in 20 even when model and simulation agree ({len(misses)} missed here); "
        f"points of one experiment share random numbers, so misses come together."
    )
    intro += confirmation_sentence(misses)
    intro += measurement_sentence([c for c in checks if c.against_measurement])
    code = code_state()
    tree = {True: "with uncommitted changes", False: "clean", None: "state unknown"}
    provenance = (
        f"Code: git commit {code['commit']} (work tree {tree[code['dirty']]}), "
        f"dtlsim {code['dtlsim_version']}, Rust core build {code['core_build']}. "
        "Every simulated result was produced by this code: finished units of a sweep "
        "are reused only when parameters, platform file, dtlsim version, Python "
        "sources and core build are all unchanged."
    )
    intro += "\n\n" + provenance + "\n\n" + STATISTICS
    counts = verdict_counts(results)
    whole = "Every reference value, with its source and parameters: `summary.csv`, `summary.json`."
    md = ["# dtlsim reproduction report", "", intro, "", "## Summary", ""]
    md += [markdown_table(counts), "", whole]
    page = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>dtlsim reproduction report</title><style>{CSS}</style></head><body>",
        "<h1>dtlsim reproduction report</h1>",
        _paragraphs(intro),
        "<h2>Summary</h2>",
        html_table(counts),
        f"<p class='note'>{_inline(whole)}</p>",
    ]

    for r in results:
        reproduces = f"Reproduces: {cite(r.reference)}."
        origin = _origin(r, code["commit"])
        md += ["", f"## {r.title} (`{r.id}`)", "", f"**{reproduces}**", "", f"*{origin}*"]
        md += ["", r.summary]
        page += [
            f"<section class='experiment' id='{html.escape(r.id)}'>",
            f"<h2>{html.escape(r.title)} (<code>{html.escape(r.id)}</code>)</h2>",
            f"<p class='cite'>{html.escape(reproduces)}</p>",
            f"<p class='note'>{html.escape(origin)}</p>",
            _paragraphs(r.summary),
        ]
        if r.checks:
            reasons = reasons_of(r.checks)
            md += ["", "### Reference values", ""]
            md += [markdown_table(check_table(r.id, r.checks, reasons, markdown=True))]
            page += ["<h3>Reference values</h3>"]
            shown = check_table(r.id, r.checks, reasons, markdown=False)
            page += [html_table(shown, raw=("explanation",))]
            if reasons:
                md += ["", "Why the model differs from the measurements:", ""]
                md += [
                    f"{k}. <a id='{reason_anchor(r.id, k)}'></a>{why}"
                    for k, why in enumerate(reasons, 1)
                ]
                page += ["<h4>Why the model differs from the measurements</h4><ol class='why'>"]
                page += [
                    f"<li id='{reason_anchor(r.id, k)}'>{_inline(why)}</li>"
                    for k, why in enumerate(reasons, 1)
                ]
                page += ["</ol>"]
        for f in r.figures:
            files = style.save(f.figure, out / "figures", f.name)
            png, svg = (f"figures/{files[k].name}" for k in ("png", "svg"))
            md += ["", f"![{f.title}]({png})", "", f"{f.caption} Vector: [{svg}]({svg})".strip()]
            page += [
                f"<figure><a href='{svg}'><img alt='{html.escape(f.title)}' src='{png}'></a>",
                f"<figcaption class='note'>{html.escape(f.caption)} "
                f"Vector (SVG): <a href='{svg}'>{svg}</a></figcaption></figure>",
            ]
        for tl in r.timelines:
            md, page = _timeline(tl, out, md, page)
        for t in r.tables:
            csv = f"tables/{t.name}.csv"
            t.frame.to_csv(out / csv, index=False)
            long = len(t.frame) > INLINE_ROWS
            shown = f"First {PREVIEW_ROWS} of {len(t.frame)} rows; every row" if long else "CSV"
            md += ["", f"### {t.title}", "", t.note, ""]
            md += [markdown_table(t.frame, PREVIEW_ROWS if long else None)]
            md += ["", f"{shown}: [{csv}]({csv})"]
            page += [
                f"<h3>{html.escape(t.title)}</h3>",
                f"<p class='note'>{html.escape(t.note)} {shown}: <a href='{csv}'>{csv}</a></p>",
                html_table(t.frame, PREVIEW_ROWS if long else None),
            ]
        page.append("</section>")
    page.append("</body></html>")
    (out / "index.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "index.html").write_text("\n".join(page), encoding="utf-8")
    return summary


STATISTICS = (
    "How to read the tables:\n\n"
    "* A success rate comes with its Wilson score 95 % interval (never outside [0, 1]).\n"
    "* A duration or an energy is the mean over successful runs with its Student-t 95 % "
    "interval. Where the t interval would reach below zero, the percentile bootstrap is "
    "used instead: a duration or an energy is never negative.\n"
    "* Beside it: the success rate and n (`n_rows` runs, `n_successful` of them "
    "successful).\n"
    "* Means over successes alone favour the runs that got through. The "
    "`*_censored_*` columns count a failed handshake at the time it gave up "
    "(`give_up_s` in the raw rows) with the energy spent until then, a lower bound of "
    "the true mean.\n"
    f"* A point with fewer than {MIN_SUCCESSES} successes is marked `few_successes` "
    "and drawn hollow, without an error bar."
)


def _timeline(
    tl: Timeline, out: Path, md: list[str], page: list[str]
) -> tuple[list[str], list[str]]:
    """One run drawn as a timeline: inline on the page (its marks say what
    they are on hover), and as files beside it, SVG and a page with its
    messages as a table."""
    (out / "timelines").mkdir(exist_ok=True)
    svg, full = (f"timelines/{tl.name}.{ext}" for ext in ("svg", "html"))
    window = timeline.handshake_window(tl.events)
    timeline.write(tl.events, tl.name, out / svg, window)
    timeline.write(tl.events, tl.name, out / full, window)
    picture = timeline.svg(tl.events, window, tl.title)
    caption = f"{tl.caption} {timeline.describe(window)}"
    md += ["", f"### {tl.title}", "", f"![{tl.title}]({svg})", ""]
    md += [f"{caption} With its messages as a table: [{full}]({full})"]
    page += [
        f"<h3>{html.escape(tl.title)}</h3>",
        f"<figure class='timeline'><div class='scroll'>{picture}</div>",
        f"<figcaption class='note'>{_inline(caption)} With its messages as a table: "
        f"<a href='{full}'>{full}</a>; the picture alone: <a href='{svg}'>{svg}</a>"
        "</figcaption></figure>",
    ]
    return md, page


def _origin(r: ExperimentResult, commit: str) -> str:
    """The seed(s) of an experiment and the code that ran it."""
    seeds = ", ".join(str(s) for s in r.seeds) if r.seeds else "none (no random draw)"
    return f"Seed: {seeds}. Code: git commit {commit}."


def _paragraphs(text: str) -> str:
    """The experiments' summaries are small Markdown: paragraphs, `*` bullets, `code`."""
    out = []
    for block in text.strip().split("\n\n"):
        lines = [ln.strip() for ln in block.splitlines()]
        if not lines:
            continue
        if not lines[0].startswith("* "):
            out.append(f"<p>{_inline(' '.join(lines))}</p>")
            continue
        items: list[list[str]] = []
        for ln in lines:
            if ln.startswith("* "):
                items.append([ln.removeprefix("* ")])
            else:
                items[-1].append(ln)
        out.append("<ul>" + "".join(f"<li>{_inline(' '.join(i))}</li>" for i in items) + "</ul>")
    return "\n".join(out)


def _inline(text: str) -> str:
    parts = html.escape(text).split("`")
    out = "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))
    bold = out.split("**")
    return "".join(f"<strong>{p}</strong>" if i % 2 else p for i, p in enumerate(bold))
