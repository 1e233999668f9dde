"""Experiment 8: which handshake to ship. DTLS 1.2, DTLS 1.3 and EDHOC, each
run as real protocol code in virtual time over TSCH, X-MAC and
beacon-enabled IEEE 802.15.4, 1 to 4 hops, loss-free and lossy links: time,
energy of each side, frames on air, bytes per flight, failures; and beside
them the per-message overhead of the traffic that follows (DTLS records,
OSCORE). Then the same question on today's boards (nRF52840, CC2652R, their
crypto engines) over CSL, ContikiMAC and TSCH, with what one handshake a day
costs their batteries."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from dtlsim import _core, keys
from dtlsim.experiments import display, style
from dtlsim.experiments.base import ExperimentResult, Figure, Table
from dtlsim.runner import replications_of, run_scenario, summarize_rows
from dtlsim.scenario import Scenario, load_scenario, resolve, variant
from dtlsim.stats import summarize

HOPS, PDR = keys.TOPOLOGY_HOPS, keys.TOPOLOGY_PDR

# The other MACs' parts of the experiment: same handshakes, same timers.
MAC_SCENARIOS = ("exp8-handshakes-xmac", "exp8-handshakes-beacon")

# What names one MAC setting in the rows, per MAC (its swept keys).
MAC_KEYS = {
    "tsch": [(keys.MAC_TSCH_CELLS_PER_LINK, "C = {}")],
    "csl": [(keys.MAC_CSL_PERIOD_MS, "period {:g} ms")],
    "contikimac": [(keys.MAC_CONTIKIMAC_CHANNEL_CHECK_RATE_HZ, "{} Hz")],
    "xmac": [(keys.MAC_XMAC_CHECK_INTERVAL_MS, "CI = {:g} ms")],
    "beacon": [
        (keys.MAC_BEACON_BEACON_ORDER, "BO = {}"),
        (keys.MAC_BEACON_SUPERFRAME_ORDER, "SO = {}"),
    ],
}
MAC_NAMES = {
    "tsch": "TSCH (L = 101)",
    "xmac": "X-MAC",
    "beacon": "beacon-enabled",
    "csl": "CSL (Thread SSED)",
    "contikimac": "ContikiMAC",
}

# Today's boards: nRF52840 and CC2652R, each with its crypto engines, over
# the duty cycling their stacks run (a part of the experiment of its own).
BOARD_SCENARIOS = ("exp8-boards-csl", "exp8-boards-contikimac", "exp8-boards-tsch")
BOARD_HANDSHAKES = ("DTLS 1.2 PSK", "DTLS 1.3 PSK", "DTLS 1.3 PSK+ECDHE", "EDHOC static DH, kid")

# The batteries of the lifetime table, as each platform file's
# [supply.batteries] names them.
BATTERIES = (("cr2032_mah", "CR2032"), ("aa2_mah", "2 x AA"))


@dataclass(frozen=True)
class Handshake:
    """One handshake of the comparison: the scenario values that choose it."""

    label: str
    overrides: dict[str, Any]


# The handshakes the IETF's comparison of security protocols for constrained
# networks counts bytes for, as this simulator's keys choose them. Whether
# each runs is the scenario checker's answer, not this list's: one it
# refuses is shown with the checker's reason and not run.
HANDSHAKES = (
    Handshake("DTLS 1.2 PSK", {keys.DTLS_VERSION: "1.2", keys.DTLS_SUITE: "psk-aes128-ccm8"}),
    Handshake(
        "DTLS 1.2 ECDHE-ECDSA",
        {keys.DTLS_VERSION: "1.2", keys.DTLS_SUITE: "ecdhe-ecdsa-aes128-ccm8"},
    ),
    Handshake("DTLS 1.3 PSK", {keys.DTLS_VERSION: "1.3", keys.DTLS_PSK_MODE: "psk_ke"}),
    Handshake("DTLS 1.3 PSK+ECDHE", {keys.DTLS_VERSION: "1.3", keys.DTLS_PSK_MODE: "psk_dhe_ke"}),
    Handshake(
        "DTLS 1.3 RPK", {keys.DTLS_VERSION: "1.3", keys.DTLS_AUTHENTICATION: "raw_public_key"}
    ),
    Handshake(
        "EDHOC static DH, kid",
        {
            keys.WORKLOAD_HANDSHAKE: "edhoc",
            keys.EDHOC_METHOD: "static_dh",
            keys.EDHOC_CREDENTIALS: "kid",
        },
    ),
    Handshake(
        "EDHOC static DH, by value",
        {
            keys.WORKLOAD_HANDSHAKE: "edhoc",
            keys.EDHOC_METHOD: "static_dh",
            keys.EDHOC_CREDENTIALS: "ccs",
        },
    ),
    Handshake(
        "EDHOC signature",
        {
            keys.WORKLOAD_HANDSHAKE: "edhoc",
            keys.EDHOC_METHOD: "signature",
            keys.EDHOC_CREDENTIALS: "kid",
        },
    ),
)

# Quick mode: the first setting of each MAC, 1 and 3 hops.
QUICK_HOPS = (1, 3)

# The retransmission timer that suits one MAC: the tuner on its example
# scenario (two TSCH hops, one cell per link, PDR 0.8), DTLS 1.3 PSK and EDHOC.
TUNER_SCENARIO = "tune-tsch"
TUNER_INITIAL_S = (1.0, 2.0, 5.0, 9.0, 20.0)
TUNER_BACKOFFS = ("fixed", "doubling")

METRICS = ["duration_s", "keys_s", "client_energy_mj", "server_energy_mj", "frames_on_air",
           "frame_bytes_on_air", "dtls_retransmissions"]  # fmt: skip

SUMMARY = """\
Every handshake here is real protocol code in virtual time:

* our DTLS 1.2 (RFC 6347) and DTLS 1.3 (RFC 9147) stacks;
* lakers' EDHOC (RFC 9528), carried over CoAP as RFC 9528 appendix A.2
  describes.

Each side's cryptography is charged at the OpenMote-CC2538's cost (its
platform file). The handshakes run over the MAC, 6LoWPAN fragmentation and
the lossy links of each row.

The IETF's comparison of security protocols for constrained networks counts
bytes per flight. It leaves frames, fragmentation, loss and duty cycling
out; this experiment puts them in.

* **duration** runs until the handshake is over for both sides (for DTLS
  1.3, the server's ACK of the client's Finished).
* **keys** runs until the client holds its session keys and may send
  application data (DTLS 1.3: as it sends its Finished; EDHOC: as
  message_3 leaves).
* DTLS timers start at 9 s (RFC 7925 section 11). EDHOC's CoAP requests
  use RFC 7252's defaults.
* A handshake the simulator cannot run is listed with the reason and not
  run.
"""


def _mac_setting(row: pd.Series | dict[str, Any], mac: str) -> str:
    return ", ".join(fmt.format(row[k]) for k, fmt in MAC_KEYS[mac])


def _available(base: Scenario) -> tuple[list[tuple[Handshake, Scenario]], dict[str, str]]:
    """The handshakes the checker accepts (each as its scenario variant), and
    why it refuses the others."""
    runs, refused = [], {}
    for h in HANDSHAKES:
        try:
            runs.append((h, variant(base, h.overrides)))
        except ValueError as e:
            refused[h.label] = str(e)
    return runs, refused


def rows_of(
    mac_scenario: Scenario,
    quick: bool,
    work: Path,
    keep: Callable[[dict[str, Any]], bool],
    refused: dict[str, str],
    wanted: set[str] | None = None,
) -> pd.DataFrame:
    """Every handshake (of `wanted`, if given) run on `mac_scenario`'s points
    that `keep` keeps, labelled; the ones refused are added to `refused`."""
    mac = mac_scenario.settled[0]["mac"]["kind"]
    reps = replications_of(mac_scenario, None, quick)
    runs, why = _available(mac_scenario)
    refused.update(why)
    frames = []
    for h, s in runs:
        if wanted is not None and h.label not in wanted:
            continue
        out = work / mac / _slug(h.label)
        try:
            ran, _ = run_scenario(s, out, reps, keep=keep)
            rows = ran.frame()
        except ValueError as e:  # refused when the core plans it
            refused[h.label] = str(e)
            continue
        if rows.empty:
            continue
        server = rows[HOPS].astype(int)  # the server is the last node of the line
        energy = {
            n: rows.get(f"node{n}_energy_uj", pd.Series(math.nan, index=rows.index))
            for n in range(int(server.max()) + 1)
        }
        node_cols = [c for c in rows.columns if c.startswith("node")]
        frame_cols = [c for c in node_cols if c.endswith("_frames_sent")]
        byte_cols = [c for c in node_cols if c.endswith("_frame_bytes_sent")]
        server_uj = [energy[s][i] for i, s in zip(rows.index, server, strict=True)]
        rows = rows.assign(
            handshake=h.label,
            board=rows["platform"],
            mac=MAC_NAMES[mac],
            mac_setting=[_mac_setting(r, mac) for _, r in rows.iterrows()],
            client_energy_mj=rows["client_energy_uj"] / 1000.0,
            server_energy_mj=[uj / 1000.0 for uj in server_uj],
            frames_on_air=rows[frame_cols].sum(axis=1),
            frame_bytes_on_air=rows[byte_cols].sum(axis=1),
        )
        frames.append(rows)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in label.lower()).strip("-")


def _flights(rows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Bytes per flight (UDP payloads, client's view) of each point's first
    handshake that completed without a retransmission."""
    clean = rows[rows.success.astype(bool) & (rows.dtls_retransmissions == 0)]
    first = clean.sort_values("replication").groupby(by, sort=True).head(1)
    return first[[*by, "flight_bytes"]]


def summary_of(
    rows: pd.DataFrame, more_metrics: Sequence[str] = (), boards: bool = False
) -> pd.DataFrame:
    """Per (MAC, setting, handshake, hops, PDR), and board with `boards`:
    success rate (Wilson) and n, and each metric's mean and t interval over
    the successful handshakes."""
    by = [*(["board"] if boards else []), "mac", "mac_setting", "handshake", HOPS, PDR]
    base = summarize_rows(rows, by, "handshakes")
    done = set(base.columns.str.removesuffix("_mean"))
    extra = [m for m in [*METRICS, *more_metrics] if m not in done]
    ok = rows[rows.success.astype(bool)]
    more = summarize(ok, by, [m for m in extra if m in rows.columns]).drop(columns="n")
    out = base.merge(more, on=by, how="left").merge(_flights(rows, by), on=by, how="left")
    order = {h.label: i for i, h in enumerate(HANDSHAKES)}
    return out.sort_values(
        by=[*(["board"] if boards else []), "mac", "mac_setting", HOPS, PDR, "handshake"],
        key=lambda c: c.map(order) if c.name == "handshake" else c,
    ).reset_index(drop=True)


def finding(summary: pd.DataFrame) -> str:
    """What the table shows, in words, computed from it."""
    if summary.empty:
        return "No handshake ran."
    full = summary[(summary[PDR] == summary[PDR].max()) & summary.duration_s_mean.notna()]
    lines = []
    for (mac, setting), g in full.groupby(["mac", "mac_setting"], sort=True):
        one = g[g[HOPS] == g[HOPS].min()]
        if one.empty:
            continue
        best = one.loc[one.duration_s_mean.idxmin()]
        worst = one.loc[one.duration_s_mean.idxmax()]
        lines.append(
            f"{mac} {setting}, {int(best[HOPS])} hop(s), loss-free: fastest "
            f"{best.handshake} ({best.duration_s_mean:.2f} s, "
            f"{best.frames_on_air_mean:.0f} frames), "
            f"slowest {worst.handshake} ({worst.duration_s_mean:.2f} s, "
            f"{worst.frames_on_air_mean:.0f} frames)."
        )
    lossy = summary[summary[PDR] == summary[PDR].min()]
    if not lossy.empty and lossy[PDR].iloc[0] < 1.0:
        rates = lossy.groupby("handshake").success_rate.mean().sort_values()
        lines.append(
            f"On links of PDR {lossy[PDR].iloc[0]:.0%}, the mean success rate over every MAC "
            f"and hop count ranges from {rates.iloc[0]:.0%} ({rates.index[0]}) to "
            f"{rates.iloc[-1]:.0%} ({rates.index[-1]})."
        )
    return "\n".join(f"- {line}" for line in lines)


def battery_share(energy_mj: float, battery_mah: float, volts: float) -> tuple[float, float]:
    """One handshake a day of `energy_mj` on a `battery_mah` battery at
    `volts`: the share of the battery a year of them takes (%), and how
    many years the battery would last on them alone. The battery holds
    battery_mah x 3.6 x volts joules (1 mAh = 3.6 C)."""
    joules = battery_mah * 3.6 * volts
    per_year = 365.0 * energy_mj / 1000.0
    return 100.0 * per_year / joules, joules / per_year


def battery_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Per board, MAC, handshake and hop count on loss-free links: the
    client's energy over the handshake and what one a day costs each of the
    board's batteries."""
    from dtlsim.platform import load_platform

    full = summary[(summary[PDR] == 1.0) & summary.client_energy_mj_mean.notna()]
    rows = []
    for _, r in full.iterrows():
        plat = load_platform(r.board)
        batteries = plat.supply.batteries
        row = {
            "board": plat.name,
            "mac": r.mac,
            "handshake": r.handshake,
            HOPS: r[HOPS],
            "client_mj": round(r.client_energy_mj_mean, 3),
        }
        for key, label in BATTERIES:
            if batteries is None:
                continue
            share, years = battery_share(
                r.client_energy_mj_mean, getattr(batteries, key).value, plat.supply.voltage_v.value
            )
            row[f"{label} %/year"] = round(share, 4)
            row[f"{label} years alone"] = round(years)
        rows.append(row)
    return pd.DataFrame(rows)


BOARDS_SUMMARY = """
**Today's boards.** The same question on nRF52840 and TI CC2652R nodes,
each handshake's cryptography in the board's engines (AES-CCM, SHA-256 and
P-256 in hardware: their platform files give every figure and its source),
over IEEE 802.15.4 CSL (the client a Thread 1.2 sleepy end device sampling
every 500 ms, its parent awake), ContikiMAC at 8 Hz and TSCH. The battery
table charges one handshake a day, at the client's energy over the
handshake, to a CR2032 coin cell and to two AA cells: the share of the
battery a year of them takes, and how long the battery would last on them
alone (the MAC's idle listening and the application come on top).
"""


# The application message the overheads are counted on (bytes): a small
# sensor reading, as the per-message counts of the IETF comparison assume.
OVERHEAD_PAYLOAD = 10


def overhead_table() -> pd.DataFrame:
    """Bytes each protected application message carries beyond its payload:
    DTLS 1.2 and 1.3 records (crates/models) beside OSCORE (crates/coap,
    from the real RFC 8613 encodings)."""
    frame = _core.FrameSpec()
    records = (
        ("DTLS 1.2 record, psk-aes128-ccm8", "1.2", "psk-aes128-ccm8", {}),
        ("DTLS 1.3 record, TLS_AES_128_CCM_8_SHA256 (1-byte sequence, no length)", "1.3",
         "aes128-ccm8-sha256", {}),
        ("DTLS 1.3 record, same, 1-byte connection ID", "1.3", "aes128-ccm8-sha256",
         {"cid_len": 1}),
    )  # fmt: skip
    rows = [
        {"message": name, "bytes added": _core.datagram_cost(
            frame, version, suite, OVERHEAD_PAYLOAD, **kw)["record_overhead"]}
        for name, version, suite, kw in records
    ]  # fmt: skip
    rows += [
        {"message": "OSCORE request (1-byte kid, 1-byte Partial IV)",
         "bytes added": _core.oscore_overhead(OVERHEAD_PAYLOAD, request=True, kid_len=1)},
        {"message": "OSCORE request (empty kid, 1-byte Partial IV)",
         "bytes added": _core.oscore_overhead(OVERHEAD_PAYLOAD, request=True, kid_len=0)},
        {"message": "OSCORE response (no Partial IV, no kid)",
         "bytes added": _core.oscore_overhead(OVERHEAD_PAYLOAD, request=False)},
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _figures(summary: pd.DataFrame) -> list[Figure]:
    figures = []
    handshakes = [h.label for h in HANDSHAKES if h.label in set(summary.handshake)]
    for metric, label, name in (
        ("duration_s", "handshake duration (s)", "duration"),
        ("frames_on_air_mean", "frames on air", "frames"),
    ):
        metric = metric.removesuffix("_mean")
        settings = summary[["mac", "mac_setting"]].drop_duplicates().values.tolist()
        fig, axes = style.subplots(len(settings), sharey=False)
        for ax, (mac, setting) in zip(axes, settings, strict=True):
            sub = summary[(summary.mac == mac) & (summary.mac_setting == setting)]
            for i, h in enumerate(handshakes):
                hs = sub[(sub.handshake == h) & (sub[PDR] == sub[PDR].max())]
                if hs.empty:
                    continue
                display.errorbar(
                    ax, hs, HOPS, metric, 1.0, h,
                    color=style.COLOURS[i % len(style.COLOURS)],
                    marker=style.MARKERS[i % len(style.MARKERS)],
                )  # fmt: skip
            ax.set_title(f"{mac}, {setting}")
            ax.set_xlabel("hops")
            style.count_axis(ax)
        axes[0].set_ylabel(label)
        style.legend(fig)
        figures.append(
            Figure(
                f"exp8_{name}_vs_hops",
                f"Which handshake to ship: {label}, loss-free links",
                fig,
                "Mean over successful handshakes and 95 % CI. " + display.FEW_NOTE,
            )
        )
    return figures


def board_finding(summary: pd.DataFrame) -> str:
    """`finding` for the boards' table: each board and MAC in turn."""
    if summary.empty:
        return "No handshake ran."
    by_board = summary.assign(mac=summary.board + ", " + summary.mac).drop(columns="board")
    return finding(by_board)


def boards(quick: bool, work: Path) -> tuple[pd.DataFrame, dict[str, str]]:
    """The boards part: its handshakes on each board scenario (quick mode:
    loss-free links only), summarised per board; and the handshakes refused."""
    refused: dict[str, str] = {}
    parts = [
        rows_of(
            load_scenario(resolve(name)),
            quick,
            work / "boards",
            lambda p: not quick or p[PDR] == 1.0,
            refused,
            set(BOARD_HANDSHAKES),
        )
        for name in BOARD_SCENARIOS
    ]
    rows = pd.concat(parts, ignore_index=True)
    refused = {k: v for k, v in refused.items() if k in BOARD_HANDSHAKES}
    if rows.empty:
        return rows, refused
    summary = summary_of(rows, boards=True)
    # the battery the rows' lifetimes (lifetime_days) are drawn on, per board
    chosen = rows.groupby("board")[keys.BATTERY].first()
    summary.insert(1, "battery", [battery_label(b, chosen[b]) for b in summary.board])
    return summary, refused


def battery_label(board: str, choice: str) -> str:
    """The scenario's `battery` on `board` as the board table shows it: the
    choice and its charge from the platform file."""
    from dtlsim.platform import load_platform

    charge = load_platform(board).battery(choice)
    names = {"platform": "the board's own", "cr2032": "CR2032", "2xAA": "2 x AA"}
    return f"{names[choice]}, {charge.value:g} mAh" if charge else names[choice]


def tuner_table(quick: bool) -> Table:
    """Every candidate timer of `dtlsim tune` on the tuner's example, and
    which one minimises the expected time to a completed handshake."""
    from dtlsim.tuner import tune

    tuning = tune(TUNER_SCENARIO, "time", TUNER_INITIAL_S, TUNER_BACKOFFS, quick=quick)
    t = tuning.table
    best = set(zip(tuning.best.protocol, tuning.best.backoff, tuning.best.initial_s, strict=True))
    table = pd.DataFrame({
        "protocol": t.protocol,
        "backoff": t.backoff,
        "initial_s": t.initial_s,
        "success": t.success_rate,
        "success_ci": [f"[{lo:.2f}, {hi:.2f}]" for lo, hi in zip(t.success_ci_low,
                                                                 t.success_ci_high, strict=True)],
        "duration_s": t.duration_s,
        "censored_s": t.duration_censored_s,
        "spurious": t.spurious_retransmissions,
        "retransmissions": t.retransmissions,
        "client_energy_mj": t.client_energy_uj / 1000.0,
        "expected_s": t.expected_time_s,
        "best": [(p, b, i) in best for p, b, i in zip(t.protocol, t.backoff, t.initial_s,
                                                         strict=True)],
    })  # fmt: skip
    n = tuning.table.n.iloc[0]
    return Table(
        "exp8_tuner",
        "The retransmission timer that suits TSCH (two hops, one cell per link, PDR 0.8)",
        table,
        f"`dtlsim tune {TUNER_SCENARIO}`, {n} handshakes per candidate. DTLS 1.3 PSK: "
        "initial timer and back-off (fixed, or doubling as RFC 6347 section 4.2.4); EDHOC: "
        "CoAP's ACK_TIMEOUT, always doubling (RFC 7252 section 4.2). success: Wilson 95 % "
        "interval; duration over successes, censored: failures at their give-up time; "
        "spurious: client retransmissions with nothing lost since the last one; expected: "
        "time to a completed handshake when failures start again; best: the smallest "
        "expected time per protocol.",
    )


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    work = (work or Path("results")) / scenario.experiment.id
    macs = [scenario] + [load_scenario(resolve(name)) for name in MAC_SCENARIOS]

    def keep_for(s: Scenario) -> Callable[[dict[str, Any]], bool]:
        mac = s.settled[0]["mac"]["kind"]
        first = _mac_setting(next(s.points()), mac)
        return lambda p: not quick or (p[HOPS] in QUICK_HOPS and _mac_setting(p, mac) == first)

    refused: dict[str, str] = {}
    rows = pd.concat(
        [rows_of(s, quick, work, keep_for(s), refused) for s in macs], ignore_index=True
    )
    summary = summary_of(rows)
    metrics = ["duration_s", "keys_s", "client_energy_mj", "server_energy_mj", "frames_on_air",
               "dtls_retransmissions"]  # fmt: skip
    cols = display.columns(summary, ["mac", "mac_setting", "handshake", HOPS, PDR], metrics)
    table = summary[[*cols, "flight_bytes"]]
    reps = replications_of(scenario, None, quick)
    tables = [
        Table(
            "exp8_handshakes",
            "Which handshake to ship: every MAC, hop count and link quality",
            table,
            f"{reps} replications per point (quick mode: the first setting of each MAC, "
            f"{' and '.join(map(str, QUICK_HOPS))} hops). Energies in mJ over the handshake; "
            "frames on air counts every node's data frames (6LoWPAN fragments and forwarding "
            "included); flight_bytes: UDP payload bytes of each flight, client's view, from "
            "the point's first handshake without a retransmission. Full rows in "
            f"{work}/<mac>/<handshake>/results.parquet.",
        ),
        Table(
            "exp8_overhead",
            "Per-message overhead after the handshake",
            overhead_table(),
            f"Bytes a protected application message of {OVERHEAD_PAYLOAD} bytes carries "
            "beyond its payload: DTLS records (RFC 6347 section 4.1, RFC 9147 section 4) and "
            "OSCORE (RFC 8613 sections 5 and 6, from the real encodings).",
        ),
    ]
    tables.append(tuner_table(quick))
    board_summary, board_refused = boards(quick, work)
    if not board_summary.empty:
        cols = display.columns(
            board_summary,
            ["board", "battery", "mac", "mac_setting", "handshake", HOPS, PDR],
            metrics,
        )
        tables.append(
            Table(
                "exp8_boards",
                "Which handshake to ship on nRF52840 and CC2652R, hardware crypto",
                board_summary[[*cols, "flight_bytes"]],
                f"{replications_of(load_scenario(resolve(BOARD_SCENARIOS[0])), None, quick)} "
                "replications per point (quick mode: loss-free links only). CSL: the client "
                "is a Thread sleepy end device (500 ms period, OpenThread's window "
                "defaults), its parent awake; ContikiMAC at 8 Hz; TSCH with one cell per "
                "link in a 101-slot slotframe. Energies in mJ over the handshake; battery: "
                "the one the scenarios' `battery` key chooses, which the per-node "
                "lifetime_days are drawn on. Full rows "
                f"in {work}/boards/<mac>/<handshake>/results.parquet.",
            )
        )
        tables.append(
            Table(
                "exp8_battery",
                "What one handshake a day costs the client's battery",
                battery_table(board_summary),
                "Loss-free links. client_mj: the client's energy over one handshake (mean); "
                "%/year: the share of the battery a year of one handshake a day takes; "
                "years alone: how long the battery lasts on those handshakes alone (battery "
                "charge x 3.6 x supply voltage over 365 handshakes' energy; the batteries "
                "and voltage from each platform file's [supply]).",
            )
        )
    refused.update(board_refused)
    not_run = pd.DataFrame(
        [{"handshake": k, "why not run": v} for k, v in refused.items()],
        columns=["handshake", "why not run"],
    )
    if not not_run.empty:
        tables.append(
            Table(
                "exp8_not_run",
                "Handshakes the simulator does not run",
                not_run,
                "The scenario checker's own words: these are refused, never faked.",
            )
        )
    return ExperimentResult(
        id=scenario.experiment.id,
        title=scenario.experiment.title,
        reference=scenario.experiment.reference,
        summary=SUMMARY
        + "\n**Finding** (computed from the table):\n\n"
        + finding(summary)
        + "\n"
        + BOARDS_SUMMARY
        + "\n**On the boards** (computed from the table):\n\n"
        + board_finding(board_summary),
        tables=tables,
        figures=_figures(summary),
    )
