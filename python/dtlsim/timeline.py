"""One run's events on a time axis, drawn from a `--trace` file: a lane per
node, its frames on air (a strobe train's copies grey, data frames blue),
the receptions it lost (red, with why), and the DTLS or EDHOC messages it
sent, each joined by a line to where its peer received it; retransmissions
marked orange. What a Cooja timeline or a Wireshark flow graph shows first.

The picture is SVG written by hand: every mark carries a class (`lane`,
`frame`, `lost`, `message`, `flight`, `retransmit`) and a `<title>` the
browser shows on hover, so a reader can point at a frame and read it.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

# The columns a trace must have to be drawn (docs/scenarios.md, "--trace").
COLUMNS = ("time_us", "node", "layer", "kind", "copy", "bytes", "peer", "outcome", "message")

# A frame's time on air: 802.15.4's 2.4 GHz O-QPSK PHY sends 250 kb/s, 32 µs
# per octet, after a 5-octet synchronisation header and a 1-octet PHY header
# (IEEE 802.15.4-2015 sections 12.1 and 12.3.2).
US_PER_OCTET = 32
PHY_HEADER_OCTETS = 6

# Lanes a picture holds at most: a thousand-node trace stays a picture of
# the nodes that took part in the handshake.
MAX_LANES = 24

WIDTH = 1200
LEFT = 130  # the lane labels
RIGHT = 20
TOP = 56  # the legend
LANE = 92
AXIS = 40

# The layers whose messages a lane shows: a handshake's own.
MESSAGE_LAYERS = ("dtls", "edhoc", "coap")
# (`cut`, a copy the train ended before, is X-MAC working: not drawn)
LOST = ("collided", "faded", "jammed")
# A frame this short carries no payload: an acknowledgement (802.15.4's
# imm-ACK is 5 octets, an X-MAC strobe ACK 13 with 2-byte addresses and 25
# with 8-byte ones); the shortest data frame with a DTLS record is longer.
SHORT = 32


class TraceFileError(ValueError):
    """A file that is not a trace `dtlsim run --trace` wrote."""


@dataclass(frozen=True)
class Window:
    start_us: float
    end_us: float
    what: str  # how the window was chosen, for the caption


def read(path: Path) -> pd.DataFrame:
    """The events of a `--trace` file, refused by name when it is not one."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not path.is_file():
        raise TraceFileError(f"{path}: no such file")
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError):
        raise TraceFileError(
            f"{path}: not a Parquet file; `dtlsim run SCENARIO --trace FILE` writes a trace"
        ) from None
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise TraceFileError(
            f"{path}: not a dtlsim trace: no column(s) {', '.join(missing)} "
            f"(a trace has {', '.join(COLUMNS)})"
        )
    events = table.to_pandas()
    if events.empty:
        raise TraceFileError(f"{path}: the trace has no events")
    return events


def traced(scenario: Any, where: dict[str, Any], replication: int = 0) -> pd.DataFrame | None:
    """The events of replication `replication` of the first point of
    `scenario`'s sweep that has the values `where`, exactly as the sweep
    runs it (what `dtlsim run --trace` writes); None if no point has them."""
    from dtlsim import simulation
    from dtlsim.runner import TRACE_LIMIT

    for point in scenario.points():
        if all(point.get(k) == v for k, v in where.items()):
            table, _ = simulation.trace_unit(point, replication, TRACE_LIMIT)
            return table.to_pandas()
    return None


def handshake_window(events: pd.DataFrame) -> Window:
    """The first handshake: from the first `handshake_started` to the first
    `handshake_ended` after it (the whole trace where the applications
    recorded neither)."""
    app = events[events.layer == "app"]
    start = app[app.kind == "handshake_started"].time_us
    if not start.empty:
        t0 = float(start.min())
        end = app[(app.kind == "handshake_ended") & (app.time_us >= t0)].time_us
        if not end.empty:
            return Window(t0, float(end.min()), "the first handshake")
    return Window(float(events.time_us.min()), float(events.time_us.max()), "the whole trace")


def airtime_us(octets: float) -> float:
    return (PHY_HEADER_OCTETS + octets) * US_PER_OCTET


def svg(events: pd.DataFrame, window: Window | None = None, title: str = "") -> str:
    """The timeline of `events` over `window` (default: the first handshake)."""
    w = window or handshake_window(events)
    span = max(w.end_us - w.start_us, 1.0)
    pad = span * 0.02
    t0, t1 = w.start_us - pad, w.end_us + pad
    shown = events[(events.time_us >= t0) & (events.time_us <= t1)]
    nodes = _lanes(shown)
    roles = _roles(shown)
    height = TOP + LANE * len(nodes) + AXIS
    plot = WIDTH - LEFT - RIGHT

    def x(t: float) -> float:
        return LEFT + (t - t0) / (t1 - t0) * plot

    lane_y = {n: TOP + i * LANE for i, n in enumerate(nodes)}
    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' class='timeline' width='{WIDTH}' "
        f"height='{height}' viewBox='0 0 {WIDTH} {height}' font-family='DejaVu Sans, sans-serif' "
        "font-size='11'>",
        f"<title>{html.escape(title or 'dtlsim timeline')}</title>",
        "<rect width='100%' height='100%' fill='white'/>",
        *_legend(),
    ]
    for n, y in lane_y.items():
        label = f"node {n}" + (f" ({roles[n]})" if n in roles else "")
        fill = "#f7f7f7" if (y - TOP) // LANE % 2 == 0 else "#ffffff"
        out += [
            f"<g class='lane' data-node='{n}'>",
            f"<rect x='0' y='{y}' width='{WIDTH}' height='{LANE}' fill='{fill}'/>",
            f"<text x='8' y='{y + LANE / 2 + 4}' font-weight='bold'>{html.escape(label)}</text>",
            f"<line x1='{LEFT}' x2='{WIDTH - RIGHT}' y1='{y + 22}' y2='{y + 22}' stroke='#ccc'/>",
            "</g>",
        ]
    out += _app_marks(shown, x, TOP, TOP + LANE * len(nodes))
    out += _frames(shown, lane_y, x)
    out += _flights(shown, lane_y, x)
    out += _messages(shown, lane_y, x)
    out += _axis(t0, t1, x, TOP + LANE * len(nodes))
    out.append("</svg>")
    return "\n".join(out)


def _lanes(events: pd.DataFrame) -> list[int]:
    """The nodes with a handshake message first, then those with frames, up
    to MAX_LANES, in node order."""
    talking = set(events[events.layer.isin(MESSAGE_LAYERS)].node.dropna().astype(int))
    on_air = set(events[events.layer == "phy"].node.dropna().astype(int))
    others = sorted(on_air - talking)
    return sorted([*talking, *others[: max(0, MAX_LANES - len(talking))]])


def _roles(events: pd.DataFrame) -> dict[int, str]:
    """Client: the node that sent the first handshake message; server: its peer."""
    first = events[events.layer.isin(MESSAGE_LAYERS) & (events.kind == "tx")].head(1)
    if first.empty:
        return {}
    row = first.iloc[0]
    roles = {int(row.node): "client"}
    if pd.notna(row.peer):
        roles[int(row.peer)] = "server"
    return roles


def _frames(events: pd.DataFrame, lane_y: dict[int, float], x) -> list[str]:
    out = []
    tx = events[(events.layer == "phy") & (events.kind == "tx") & events.node.isin(lane_y)]
    # a strobe: one copy of an emission sent many times (X-MAC's train); a
    # short frame sent once: an acknowledgement (a strobe ACK, a link ACK)
    trains = set(tx.emission[tx["copy"] > 0].dropna())
    for r in tx.itertuples(index=False):
        octets = float(r.bytes) if pd.notna(r.bytes) else 0.0
        kind = "strobe" if r.emission in trains else "ack" if octets < SHORT else "data"
        strobe = kind != "data"
        x0, x1 = x(r.time_us), x(r.time_us + airtime_us(octets))
        colour = {"strobe": "#999", "ack": "#56B4E9", "data": "#0072B2"}[kind]
        tip = f"{kind} frame, node {int(r.node)}, {octets:.0f} B, t = {r.time_us / 1000:.3f} ms"
        out.append(
            f"<rect class='frame {kind}' x='{x0:.2f}' y='{lane_y[int(r.node)] + 8}' "
            f"width='{max(x1 - x0, 1.0):.2f}' height='{10 if strobe else 14}' fill='{colour}'>"
            f"<title>{html.escape(tip)}</title></rect>"
        )
    rx = events[
        (events.layer == "phy")
        & (events.kind == "rx")
        & events.outcome.isin(LOST)
        & events.node.isin(lane_y)
    ]
    for r in rx.itertuples(index=False):
        cx, cy = x(r.time_us), lane_y[int(r.node)] + 15
        tip = f"reception lost at node {int(r.node)}: {r.outcome}, t = {r.time_us / 1000:.3f} ms"
        out.append(
            f"<g class='lost'><title>{html.escape(tip)}</title>"
            f"<path d='M{cx - 4:.2f},{cy - 4} l8,8 m0,-8 l-8,8' stroke='#D55E00' "
            "stroke-width='2'/></g>"
        )
    return out


def _flights(events: pd.DataFrame, lane_y: dict[int, float], x) -> list[str]:
    """A line from each message sent to where its peer received it."""
    msgs = events[events.layer.isin(MESSAGE_LAYERS) & events.node.isin(lane_y)]
    sent = msgs[msgs.kind == "tx"]
    out = []
    for r in msgs[msgs.kind == "rx"].itertuples(index=False):
        if pd.isna(r.peer) or int(r.peer) not in lane_y:
            continue
        before = sent[
            (sent.node == r.peer)
            & (sent.message == r.message)
            & (sent.layer == r.layer)
            & (sent.time_us <= r.time_us)
        ]
        if before.empty:
            continue
        s = before.iloc[-1]
        colour = "#009E73" if r.outcome != "dropped" else "#D55E00"
        out.append(
            f"<line class='flight' x1='{x(s.time_us):.2f}' y1='{lane_y[int(s.node)] + 30}' "
            f"x2='{x(r.time_us):.2f}' y2='{lane_y[int(r.node)] + 30}' stroke='{colour}' "
            f"stroke-width='1' stroke-dasharray='4 2'><title>"
            f"{html.escape(f'{r.message}: {(r.time_us - s.time_us) / 1000:.1f} ms')}</title></line>"
            f"<circle class='received' cx='{x(r.time_us):.2f}' cy='{lane_y[int(r.node)] + 30}' "
            f"r='3' fill='white' stroke='{colour}'><title>"
            f"{html.escape(f'{r.message} received by node {int(r.node)}: {r.outcome}')}"
            "</title></circle>"
        )
    return out


def _messages(events: pd.DataFrame, lane_y: dict[int, float], x) -> list[str]:
    """Each message sent: a mark and its name (staggered over three rows so
    that neighbours do not overwrite each other); each resend: an orange mark."""
    out = []
    msgs = events[events.layer.isin(MESSAGE_LAYERS) & events.node.isin(lane_y)]
    for i, r in enumerate(msgs[msgs.kind == "tx"].itertuples(index=False)):
        cx, y = x(r.time_us), lane_y[int(r.node)]
        ty = y + 44 + 14 * (i % 3)
        tip = (
            f"{r.layer} {r.message} sent by node {int(r.node)}, "
            f"{fmt_bytes(r.bytes)}, t = {r.time_us / 1000:.3f} ms"
        )
        out.append(
            f"<g class='message' data-message='{html.escape(str(r.message))}'>"
            f"<title>{html.escape(tip)}</title>"
            f"<path d='M{cx:.2f},{y + 25} l4,5 l-4,5 l-4,-5 z' fill='#222'/>"
            f"<text x='{cx + 3:.2f}' y='{ty}' font-size='10'>{html.escape(str(r.message))}</text>"
            "</g>"
        )
    resent = events[(events.kind == "retransmit") & events.node.isin(lane_y)]
    for r in resent.itertuples(index=False):
        cx, y = x(r.time_us), lane_y[int(r.node)]
        tip = f"{r.layer} retransmission at node {int(r.node)}, t = {r.time_us / 1000:.3f} ms"
        out.append(
            f"<g class='retransmit'><title>{html.escape(tip)}</title>"
            f"<path d='M{cx:.2f},{y + 2} l6,10 l-12,0 z' fill='#E69F00'/></g>"
        )
    return out


def fmt_bytes(b: object) -> str:
    return f"{float(b):.0f} B" if b is not None and pd.notna(b) else "size unknown"


def _app_marks(events: pd.DataFrame, x, top: float, bottom: float) -> list[str]:
    """The handshake's start and end, as the applications recorded them."""
    out = []
    app = events[
        (events.layer == "app") & events.kind.isin(["handshake_started", "handshake_ended"])
    ]
    for r in app.itertuples(index=False):
        what = r.kind.replace("_", " ") + (f" ({r.outcome})" if pd.notna(r.outcome) else "")
        out.append(
            f"<g class='app'><title>{html.escape(what)}</title>"
            f"<line x1='{x(r.time_us):.2f}' x2='{x(r.time_us):.2f}' y1='{top}' y2='{bottom}' "
            "stroke='#CC79A7' stroke-dasharray='2 3'/></g>"
        )
    return out


def _axis(t0: float, t1: float, x, y: float) -> list[str]:
    step = _nice_step((t1 - t0) / 8)
    unit, scale = ("s", 1e6) if step >= 1e5 else ("ms", 1e3)
    out = [
        f"<g class='axis'><line x1='{LEFT}' x2='{WIDTH - RIGHT}' y1='{y}' y2='{y}' stroke='#222'/>"
    ]
    t = math.ceil(t0 / step) * step
    while t <= t1:
        out.append(
            f"<line x1='{x(t):.2f}' x2='{x(t):.2f}' y1='{y}' y2='{y + 5}' stroke='#222'/>"
            f"<text x='{x(t):.2f}' y='{y + 17}' text-anchor='middle'>{t / scale:g}</text>"
        )
        t += step
    out.append(
        f"<text x='{WIDTH - RIGHT}' y='{y + 33}' text-anchor='end'>"
        f"time ({unit}, virtual)</text></g>"
    )
    return out


def _nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least `raw` (µs)."""
    power = 10 ** math.floor(math.log10(max(raw, 1.0)))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _legend() -> list[str]:
    items = [
        ("<rect x='0' y='-9' width='14' height='10' fill='#999'/>", "strobe"),
        ("<rect x='0' y='-9' width='14' height='10' fill='#56B4E9'/>", "ACK"),
        ("<rect x='0' y='-10' width='14' height='12' fill='#0072B2'/>", "data frame"),
        ("<path d='M2,-8 l8,8 m0,-8 l-8,8' stroke='#D55E00' stroke-width='2'/>", "reception lost"),
        ("<path d='M6,-10 l4,5 l-4,5 l-4,-5 z' fill='#222'/>", "message sent"),
        (
            "<line x1='0' x2='14' y1='-4' y2='-4' stroke='#009E73' stroke-dasharray='4 2'/>",
            "to its reception",
        ),
        ("<path d='M7,-10 l6,10 l-12,0 z' fill='#E69F00'/>", "retransmission"),
        (
            "<line x1='7' x2='7' y1='-12' y2='2' stroke='#CC79A7' stroke-dasharray='2 3'/>",
            "handshake start/end",
        ),
    ]
    out, cx = ["<g class='legend'>"], LEFT
    for mark, label in items:
        out.append(f"<g transform='translate({cx},24)'>{mark}<text x='18' y='0'>{label}</text></g>")
        cx += 30 + 7 * len(label)
    out.append("</g>")
    return out


def page(events: pd.DataFrame, source: str, window: Window | None = None) -> str:
    """An HTML page: the timeline, what it shows, and its messages as a table."""
    w = window or handshake_window(events)
    picture = svg(events, w, f"dtlsim timeline of {source}")
    msgs = events[
        events.layer.isin(MESSAGE_LAYERS)
        & events.kind.isin(["tx", "rx", "retransmit"])
        & (events.time_us >= w.start_us)
        & (events.time_us <= w.end_us)
    ]
    rows = "".join(
        f"<tr><td>{r.time_us / 1000:.3f}</td><td>{int(r.node)}</td><td>{html.escape(r.layer)}</td>"
        f"<td>{html.escape(r.kind)}</td><td>{html.escape(str(r.message or ''))}</td>"
        f"<td>{fmt_bytes(r.bytes)}</td><td>{html.escape(str(r.outcome or ''))}</td></tr>"
        for r in msgs.itertuples(index=False)
    )
    caption = describe(w)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Timeline: {html.escape(source)}</title><style>"
        "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}"
        ".scroll{overflow-x:auto}table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
        "p{max-width:60em}</style></head><body>"
        f"<h1>Timeline: {html.escape(source)}</h1><p>{html.escape(caption)}</p>"
        f"<div class='scroll'>{picture}</div>"
        "<h2>Handshake messages</h2><div class='scroll'><table><thead><tr><th>time (ms)</th>"
        "<th>node</th><th>layer</th><th>event</th><th>message</th><th>bytes</th>"
        f"<th>outcome</th></tr></thead><tbody>{rows}</tbody></table></div></body></html>"
    )


def describe(w: Window) -> str:
    return (
        f"{w.what.capitalize()}, {w.start_us / 1000:.1f} ms to {w.end_us / 1000:.1f} ms of "
        "virtual time. A lane per node: its frames on air (grey: the copies of a strobe "
        "train; light blue: acknowledgements; blue: data frames), the receptions it lost "
        "(red crosses), and the handshake messages it sent (black marks), each joined by "
        "a dashed line to where its peer received it. Orange triangles: retransmissions. "
        "Hover a mark for its details."
    )


def write(events: pd.DataFrame, source: str, out: Path, window: Window | None = None) -> Window:
    """Draw the events of trace `source` into `out` (.svg: the picture;
    .html: the page)."""
    w = window or handshake_window(events)
    if out.suffix == ".svg":
        text = svg(events, w, f"dtlsim timeline of {source}")
    else:
        text = page(events, source, w)
    out.write_text(text, encoding="utf-8")
    return w
