"""The reproduction report: Markdown, a self-contained HTML page, CSV and PNG."""

from __future__ import annotations

import base64
import html
import io
import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot as plt
import pandas as pd

from dtlsim import __version__
from dtlsim.experiments.base import (
    CHANCE_MISS,
    CONFIRM_FACTOR,
    DIFFERS,
    Check,
    ExperimentResult,
)
from dtlsim.experiments.references import cite
from dtlsim.provenance import code_state
from dtlsim.stats import MIN_SUCCESSES

SHOWN_ROWS = 60  # longer tables are cut in the page; the CSV has every row


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
    extra = ["statistical", "against_measurement", "gates", "source", "params"]
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


def markdown_table(df: pd.DataFrame, limit: int = SHOWN_ROWS) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.head(limit).iterrows():
        cells = (fmt(row[c]).replace("|", "\\|") for c in cols)
        lines.append("| " + " | ".join(cells) + " |")
    if len(df) > limit:
        lines.append(f"\n*First {limit} of {len(df)} rows; every row is in the CSV.*")
    return "\n".join(lines)


def html_table(df: pd.DataFrame, limit: int = SHOWN_ROWS) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = []
    for _, row in df.head(limit).iterrows():
        cells = []
        for c in df.columns:
            text = html.escape(fmt(row[c]))
            cls = {
                "FAIL": ' class="fail"',
                "pass": ' class="pass"',
                CHANCE_MISS: ' class="chance"',
                DIFFERS: ' class="differs"',
            }
            cls = cls.get(text, "")
            cells.append(f"<td{cls}>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = (
        f"<p class='note'>First {limit} of {len(df)} rows; every row is in the CSV.</p>"
        if len(df) > limit
        else ""
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{more}"


CSS = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:12px;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#f0f0f0}td.pass{color:#070}td.fail{color:#b00;font-weight:bold}
td.chance{color:#965a00}td.differs{color:#7a2d8f;font-weight:bold}
img{max-width:100%}.note{color:#666;font-size:12px}pre{background:#f7f7f7;padding:.5em}
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
    md = ["# dtlsim reproduction report", "", intro, "", "## Summary", ""]
    md.append(markdown_table(summary.drop(columns=["params"]), limit=10_000))
    page = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>dtlsim reproduction report</title><style>{CSS}</style></head><body>",
        "<h1>dtlsim reproduction report</h1>",
        _paragraphs(intro),
        "<h2>Summary</h2>",
        html_table(summary.drop(columns=["params"]), limit=10_000),
    ]

    for r in results:
        origin = _origin(r, code["commit"])
        md += ["", f"## {r.title} (`{r.id}`)", "", f"*{origin}*", "", r.summary]
        page += [
            f"<h2>{html.escape(r.title)} (<code>{html.escape(r.id)}</code>)</h2>",
            f"<p><em>{html.escape(origin)}</em></p>",
            _paragraphs(r.summary),
        ]
        for f in r.figures:
            png = out / "figures" / f"{f.name}.png"
            buf = io.BytesIO()
            f.figure.savefig(buf, format="png", dpi=110)
            plt.close(f.figure)
            png.write_bytes(buf.getvalue())
            data = base64.b64encode(buf.getvalue()).decode("ascii")
            md += ["", f"![{f.title}](figures/{png.name})", "", f.caption]
            page += [
                f"<figure><img alt='{html.escape(f.title)}' src='data:image/png;base64,{data}'>",
                f"<figcaption class='note'>{html.escape(f.caption)}</figcaption></figure>",
            ]
        for t in r.tables:
            csv = out / "tables" / f"{t.name}.csv"
            t.frame.to_csv(csv, index=False)
            md += ["", f"### {t.title}", "", t.note, "", markdown_table(t.frame)]
            md += ["", f"CSV: [tables/{csv.name}](tables/{csv.name})"]
            page += [
                f"<h3>{html.escape(t.title)}</h3>",
                f"<p class='note'>{html.escape(t.note)} CSV: "
                f"<a href='tables/{csv.name}'>tables/{csv.name}</a></p>",
                html_table(t.frame),
            ]
    page.append("</body></html>")
    (out / "index.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "index.html").write_text("\n".join(page), encoding="utf-8")
    return summary


STATISTICS = (
    "How to read the tables: a success rate comes with its Wilson score 95 % interval "
    "(never outside [0, 1]); a duration or an energy is the mean over successful runs "
    "with its Student-t 95 % interval, beside the success rate and n (`n_rows` runs, "
    "`n_successful` of them successful). Means over successes alone favour the runs "
    "that got through: the `*_censored_*` columns count a failed handshake at the time "
    "it gave up (`give_up_s` in the raw rows) with the energy spent until then, a lower "
    f"bound of the true mean. A point with fewer than {MIN_SUCCESSES} successes is "
    "marked `few_successes` and drawn hollow, without an error bar."
)


def _origin(r: ExperimentResult, commit: str) -> str:
    """What the experiment reproduces, its seed(s) and the code that ran it."""
    seeds = ", ".join(str(s) for s in r.seeds) if r.seeds else "none (no random draw)"
    return f"Reproduces: {cite(r.reference)}. Seed: {seeds}. Code: git commit {commit}."


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
