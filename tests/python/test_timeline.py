"""`dtlsim trace show`: a real trace of one X-MAC handshake drawn as a
timeline, rendered by headless Chromium, and what it laid out checked: a
lane per node, frames and strobes on air, the handshake's messages in the
order they were sent, each joined to its reception; and bad input refused
by name."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from browser import probe, require_browser
from dtlsim.cli import app

require_browser()

LAYOUT = """
const svg = document.querySelector("svg.timeline");
const box = svg.getBoundingClientRect();
const centre = (e) => { const r = e.getBoundingClientRect(); return r.left + r.width / 2; };
const out = {
  width: box.width,
  lanes: [...svg.querySelectorAll("g.lane")].map((g) => ({
    node: g.dataset.node, label: g.querySelector("text").textContent,
    top: g.getBoundingClientRect().top })),
  frames: [...svg.querySelectorAll("rect.frame")].map((r) => ({
    kind: r.classList[1], width: r.getBoundingClientRect().width,
    inside: r.getBoundingClientRect().left >= box.left
      && r.getBoundingClientRect().right <= box.right + 1 })),
  messages: [...svg.querySelectorAll("g.message")].map((g) => ({
    name: g.dataset.message, x: centre(g.querySelector("path")),
    title: g.querySelector("title").textContent })),
  flights: svg.querySelectorAll("line.flight").length,
  received: svg.querySelectorAll("circle.received").length,
  axis: [...svg.querySelectorAll("g.axis text")].map((t) => t.textContent),
};
"""


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> tuple:
    """One real handshake over one X-MAC hop, its events as `--trace` writes them."""
    d = tmp_path_factory.mktemp("trace")
    code, out = cli(
        "run", "exp1-xmac", "--replications", "1", "--out", str(d / "run"),
        "--set", "topology.hops=1", "--set", "topology.pdr=1",
        "--set", "mac.xmac.check_interval_ms=125", "--trace", str(d / "handshake.parquet"),
    )  # fmt: skip
    assert code == 0, out
    return d, d / "handshake.parquet"


@pytest.mark.parametrize("suffix", ["html", "svg"])
def test_trace_show_draws_lanes_frames_and_messages(trace, suffix, tmp_path):
    d, path = trace
    target = d / f"timeline.{suffix}"
    code, out = cli("trace", "show", str(path), "--out", str(target))
    assert code == 0, out
    assert str(target) in out.replace("\n", "")
    seen = probe(target, LAYOUT, tmp_path / "profile")

    events = pd.read_parquet(path)
    # the first handshake, from its start to its end as the application recorded them
    app_events = events[events.layer == "app"].set_index("kind").time_us
    start, end = app_events["handshake_started"], app_events["handshake_ended"]
    pad = (end - start) * 0.02
    events = events[events.time_us.between(start - pad, end + pad)]
    assert [lane["label"] for lane in seen["lanes"]] == ["node 0 (client)", "node 1 (server)"]
    assert seen["lanes"][0]["top"] < seen["lanes"][1]["top"]
    # every frame the run put on air in the handshake, strobes and data, inside the picture
    kinds = {f["kind"] for f in seen["frames"]}
    assert {"strobe", "ack", "data"} <= kinds, kinds
    assert all(f["inside"] and f["width"] >= 1 for f in seen["frames"])
    on_air = events[(events.layer == "phy") & (events.kind == "tx")]
    assert len(seen["frames"]) == len(on_air)
    # the DTLS messages sent, in the order sent, left to right
    sent = events[(events.layer == "dtls") & (events.kind == "tx")]
    assert [m["name"] for m in seen["messages"]] == list(sent.message)
    xs = [m["x"] for m in seen["messages"]]
    assert xs == sorted(xs) and xs[0] < xs[-1]
    assert "ClientHello sent by node 0" in seen["messages"][0]["title"]
    # each message received is joined to where it was sent
    received = events[(events.layer == "dtls") & (events.kind == "rx")]
    assert seen["flights"] == seen["received"] == len(received)
    assert seen["axis"][-1].startswith("time (")


def test_trace_show_refuses_what_is_not_a_trace(trace, tmp_path):
    _, path = trace
    missing = tmp_path / "none.parquet"
    code, out = cli("trace", "show", str(missing))
    assert code == 2 and f"{missing}: no such file" in out
    text = tmp_path / "notes.parquet"
    text.write_text("not parquet")
    code, out = cli("trace", "show", str(text))
    assert code == 2 and "not a Parquet file" in out and str(text) in out
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"time_us": [1], "node": [0]}), other)
    code, out = cli("trace", "show", str(other))
    assert code == 2 and "not a dtlsim trace: no column(s) layer, kind" in out.replace("\n", "")
    empty = tmp_path / "empty.parquet"
    pq.write_table(pq.read_table(path).slice(0, 0), empty)
    code, out = cli("trace", "show", str(empty))
    assert code == 2 and "the trace has no events" in out
    code, out = cli("trace", "show", str(path), "--out", str(tmp_path / "t.png"))
    assert code == 2 and "--out" in out and "'.png'" in out
    code, out = cli("trace", "show", str(path), "--start-ms", "5", "--end-ms", "2")
    assert code == 2 and "--start-ms 5, --end-ms 2: the start must be before the end" in out
    code, out = cli("trace", "show", str(path), "--start-ms", "0", "--end-ms", "500")
    assert code == 2 and "no event there" in out
    assert "Traceback" not in out
