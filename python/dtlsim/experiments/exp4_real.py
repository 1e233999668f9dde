"""Experiment 4 with real DTLS handshakes: the same server and clients as the
Engset comparison, but every session starts with a full DTLS 1.2 handshake in
802.15.4 frames, so the handshake time holds a slot too; the policies for a
full table compared, with and without a half-open flood."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from dtlsim import _core, keys
from dtlsim.experiments import style
from dtlsim.experiments.base import Figure, Table
from dtlsim.runner import run_scenario
from dtlsim.scenario import Scenario, load_scenario, variant
from dtlsim.stats import mean_ci95

TEXT = """\
**Real handshakes.** The same N clients and ρ, with R = {slots} slots (what
the reference fits in a 16 kB node), one hop from the server (a star). Each
session now opens with a full DTLS 1.2 PSK handshake over the MAC.

* The server's table takes a slot when a ClientHello carries a valid
  cookie. A client holds its session for an exponential time after the
  handshake ends.
* So a slot is held for the handshake plus the session, and a refused
  client has spent a handshake's first flights. The closed form knows
  neither.
* The MACs run as their own experiments run them (the MAC and DTLS
  settings of experiments 1, 2 and 3 at the point named in the table),
  beside CSMA with the radio always on.

**Engset, handshake in holding time** is the closed form with each MAC's
mean measured handshake time added to the holding time (ρ' = ρ (1 + h μ)).

* Where the simulation agrees with it, the handshake time is all that
  moved the blocking.
* Where it does not, handshakes that fail or linger move it further: a
  slot held by a client that gave up, until the server's own
  retransmissions end.
* A slot stays taken while a handshake that lost a flight waits for its
  retransmission timer (in experiment 2 the first timeout is 40 s). With
  refuse, the newcomers are turned away meanwhile.

**Policies.** The same star over CSMA with R = {slots}:

* refuse sends the newcomer a fatal alert;
* evict-lru closes the session with the oldest traffic;
* evict-oldest closes the one that took its slot first;
* evict-half-open closes the oldest handshake not yet finished (refusing if
  there is none).

Without an attack, refusing turns blocking into failed requests, while
evicting serves every newcomer by tearing down a session that was held. The
table gives both, per request.

**Attack**: {attackers} more nodes each complete the cookie exchange once
every {interval:g} s and go silent, leaving a half-open handshake. The table
shows which policy still lets the legitimate clients finish their sessions
(a session evicted before its holding time ends does not count as served).

**Slots nobody uses.** tinyDTLS sends its close_notify once and keeps no
idle timer. So the server can be left holding a session no one will use
again:

* when a close_notify is lost on a MAC that does not acknowledge data
  frames (X-MAC);
* when a client gave up while the server's last flight was lost.

Here the clients repeat their close_notify until the server answers it
(RFC 5246 §7.2.1), and the server frees a slot silent for {idle:g} s. The
columns `mean_orphaned_slots` (slots held for clients that hold no session)
and `slots_freed_*` (why each slot was freed) show what remains.

Every number is a mean over the replications with its 95 % t interval and
n, the number of replications that had a value (a replication where no
session was established has no handshake time).
"""

# R of the real-handshake studies: what the reference fits beside the OS and
# network stack in a 16 kB node (vucinic2015).
REFERENCE_SLOTS = 3

# Each MAC as its own experiment runs it (that scenario's [mac], [dtls] and
# [link_security] sections), at one point of its sweep: X-MAC at Contiki's
# default 8 Hz channel check rate (125 ms); beacon-enabled with a 0.98 s
# beacon interval and a 61 ms active period (BO 6, SO 2); TSCH with one cell
# per link and no link-layer security, as the sessions study has none.
MACS: dict[str, tuple[str | None, dict[str, Any]]] = {
    "CSMA (radio on)": (None, {}),
    "X-MAC": ("exp1-xmac", {keys.MAC_XMAC_CHECK_INTERVAL_MS: 125.0}),
    "beacon-enabled": (
        "exp2-beacon",
        {keys.MAC_BEACON_BEACON_ORDER: 6, keys.MAC_BEACON_SUPERFRAME_ORDER: 2},
    ),
    "TSCH": ("exp3-tsch-dtls", {keys.MAC_TSCH_CELLS_PER_LINK: 1, keys.LINK_SECURITY_LEVEL: "none"}),
}
SECTIONS = ("mac", "dtls", "link_security")

POLICIES = ["refuse", "evict-lru", "evict-oldest", "evict-half-open"]
# The flood: two silent nodes, each abandoning a cookie-verified handshake
# every second (estimate: enough to keep R = 3 half-open slots taken, as the
# real UDP server's lock-out needed only 16 in a minute).
ATTACKERS = 2
ATTACK_INTERVAL_S = 1.0

# A session whose close_notify the server never heard (X-MAC does not
# acknowledge data frames; tinyDTLS's dtls_close sends it once) or whose
# client gave up while the server's last flight was lost would hold its slot
# for ever: tinyDTLS keeps no idle timer. The clients repeat their
# close_notify until the server's answering one arrives (RFC 5246 §7.2.1),
# and the server frees a slot silent for six of the clients' 10 s data
# intervals (estimate: six records lost in a row is no live session).
CLOSE = "until-answered"
IDLE_TIMEOUT_S = 60.0

# Replications of each real-handshake point, and how long each measures:
# an hour of 60 s sessions (about 60 per client) after 10 minutes to fill.
REPLICATIONS = 40
QUICK_REPLICATIONS = 3
WARMUP_S = 600.0
DURATION_S = 3600.0

# metric → label; every one a mean over replications with its interval and n
METRICS = {
    "mean_busy_slots": "mean occupied slots",
    "mean_orphaned_slots": "slots held for clients without a session",
    "call_congestion": "call congestion",
    "time_congestion": "time congestion",
    "request_failure_share": "requests with no session",
    "served_share": "requests served to the end",
    "evicted_per_hour": "sessions evicted per hour",
    "handshake_s": "handshake (s)",
    "energy_per_session_uj": "energy per session (µJ)",
}


def _star(nodes: int) -> dict[str, Any]:
    """The server (the last node, as the simulator places it) one hop from every other."""
    hub = nodes - 1
    # a listed link carries both directions
    links = [{"a": n, "b": hub, "pdr": 1.0} for n in range(hub)]
    return {"kind": "links", "links": links}


def _real(scenario: Scenario, overrides: dict[str, Any]) -> Scenario:
    """The scenario with real handshakes over a star, R fixed, plus `overrides`."""
    s = scenario.section("sessions")
    attackers = overrides.get(keys.SESSIONS_ATTACKERS, 0)
    base = {
        "topology": _star(int(s.clients) + attackers + 1),
        keys.SESSIONS_HANDSHAKE: "dtls",
        keys.SESSIONS_SLOTS: REFERENCE_SLOTS,
        keys.SESSIONS_CLOSE: CLOSE,
        keys.SESSIONS_IDLE_TIMEOUT_S: IDLE_TIMEOUT_S,
        keys.SESSIONS_WARMUP_S: WARMUP_S,
        keys.SESSIONS_DURATION_S: DURATION_S,
        keys.EXPERIMENT_REPLICATIONS: REPLICATIONS,
        keys.EXPERIMENT_QUICK_REPLICATIONS: QUICK_REPLICATIONS,
    }
    return variant(scenario, base | overrides)


def _mac_overrides(source: str | None, pins: dict[str, Any]) -> dict[str, Any]:
    if source is None:
        return {"mac": {"kind": "csma"}}
    raw = load_scenario(source).raw
    return {k: raw[k] for k in SECTIONS if k in raw} | pins


def _summarize(rows: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Mean, 95 % interval and n of every metric per group, over all replications."""
    rows = rows.assign(
        served_share=rows.sessions_released
        / rows.session_requests.where(rows.session_requests > 0),
        evicted_per_hour=rows.sessions_evicted / (rows.virtual_time_s / 3600.0),
    )
    out = []
    for key, g in rows.groupby(by, sort=False):
        row = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        for m in METRICS:
            mean, lo, hi, n = mean_ci95(g[m])
            row |= {m: mean, f"{m}_ci_low": lo, f"{m}_ci_high": hi, f"{m}_n": n}
        out.append(row)
    return pd.DataFrame(out)


def _run(s: Scenario, quick: bool, out: Path, label: dict[str, Any]) -> pd.DataFrame:
    reps = s.experiment.quick_replications if quick else s.experiment.replications
    rows, _ = run_scenario(s, out, reps)
    return rows.frame().assign(**label)


def macs(scenario: Scenario, quick: bool, work: Path) -> pd.DataFrame:
    """Blocking with real handshakes per MAC, beside Engset without and with the handshake time."""
    s = scenario.section("sessions")
    frames = []
    for i, (name, (source, pins)) in enumerate(MACS.items()):
        real = _real(scenario, _mac_overrides(source, pins))
        frames.append(_run(real, quick, work / f"mac-{i}", {"mac": name}))
    df = _summarize(pd.concat(frames, ignore_index=True), ["mac"])
    nominal = _core.engset(REFERENCE_SLOTS, int(s.clients), float(s.erlang))
    df["engset_call_congestion"] = nominal["call_congestion"]
    df["engset_time_congestion"] = nominal["time_congestion"]
    # the slot is held for the handshake too: ρ' = λ (1/μ + h) = ρ (1 + h μ)
    df["erlang_with_handshake"] = float(s.erlang) * (1 + df.handshake_s / float(s.holding_s))
    for c in ("call_congestion", "time_congestion"):
        df[f"engset_handshake_{c}"] = [
            _core.engset(REFERENCE_SLOTS, int(s.clients), rho)[c]
            for rho in df.erlang_with_handshake
        ]
    df.insert(1, "setting", [_setting(source, pins) for source, pins in MACS.values()])
    return df


def _setting(source: str | None, pins: dict[str, Any]) -> str:
    if source is None:
        return "radio always on"
    return f"as {source}: " + ", ".join(f"{k.split('.')[-1]} = {v}" for k, v in pins.items())


def policies(scenario: Scenario, quick: bool, work: Path) -> pd.DataFrame:
    """Each policy over CSMA, without and with the half-open flood."""
    frames = []
    for attackers in (0, ATTACKERS):
        real = _real(
            scenario,
            {
                "mac": {"kind": "csma"},
                keys.SESSIONS_POLICY: POLICIES,
                keys.SESSIONS_ATTACKERS: attackers,
                keys.SESSIONS_ATTACK_INTERVAL_S: ATTACK_INTERVAL_S,
            },
        )
        rows = _run(real, quick, work / f"attackers-{attackers}", {})
        frames.append(rows)
    df = _summarize(pd.concat(frames, ignore_index=True), ["attackers", "policy"])
    order = df.policy.map(POLICIES.index)
    return df.assign(_order=order).sort_values(["attackers", "_order"]).drop(columns="_order")


def _bars(ax, df: pd.DataFrame, x: str, metric: str, group: str | None, labels: dict) -> None:
    """Means with their 95 % intervals, one marker series per `group` value."""
    positions = {v: i for i, v in enumerate(dict.fromkeys(df[x]))}
    groups = [(None, df)] if group is None else list(df.groupby(group, sort=False))
    width = 0.6 / len(groups)
    for k, (g, sub) in enumerate(groups):
        xs = [positions[v] + (k - (len(groups) - 1) / 2) * width for v in sub[x]]
        ax.errorbar(
            xs,
            sub[metric],
            yerr=style.yerr(sub[metric], sub[f"{metric}_ci_low"], sub[f"{metric}_ci_high"]),
            linestyle="none",
            label=labels.get(g, g) if group else None,
            **style.ERRORBAR,
        )
    ax.set_xticks(range(len(positions)), list(positions), rotation=20, ha="right")
    ax.set_ylabel(METRICS[metric])


def run(scenario: Scenario, quick: bool, work: Path) -> tuple[str, list[Table], list[Figure]]:
    out = work / scenario.experiment.id / "real"
    by_mac = macs(scenario, quick, out)
    by_policy = policies(scenario, quick, out)

    fig, (a1, a2) = style.subplots(2)
    _bars(a1, by_mac, "mac", "call_congestion", None, {})
    x = range(len(by_mac))
    a1.plot(x, by_mac.engset_call_congestion, "_", markersize=14, label="Engset")
    a1.plot(
        x, by_mac.engset_handshake_call_congestion, "x", label="Engset, handshake in holding time"
    )
    a1.set_title(f"Call congestion, R={REFERENCE_SLOTS}")
    _bars(a2, by_mac, "mac", "handshake_s", None, {})
    a2.set_title("Handshake time")
    style.legend(fig, a1, columns=2)
    mac_fig = Figure("exp4_real_handshakes", "Blocking with real handshakes, per MAC", fig)

    fig, (b1, b2) = style.subplots(2)
    labels = {0: "no attack", ATTACKERS: f"{ATTACKERS} half-open attackers"}
    _bars(b1, by_policy, "policy", "request_failure_share", "attackers", labels)
    b1.set_title("Requests that got no session")
    _bars(b2, by_policy, "policy", "served_share", "attackers", labels)
    b2.set_title("Sessions held to their end")
    style.legend(fig, b1, columns=2)
    policy_fig = Figure("exp4_policies", "Policies for a full table, with and without attack", fig)

    text = TEXT.format(
        slots=REFERENCE_SLOTS,
        attackers=ATTACKERS,
        interval=ATTACK_INTERVAL_S,
        idle=IDLE_TIMEOUT_S,
    )
    tables = [
        Table("exp4_real_handshakes", "Blocking with real handshakes, per MAC", by_mac),
        Table("exp4_policies", "Policies for a full table, with and without attack", by_policy),
    ]
    return text, tables, [mac_fig, policy_fig]
