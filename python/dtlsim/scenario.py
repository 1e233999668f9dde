"""Scenario files: one experiment, its parameters and its sweep axes.

A scenario is a TOML file validated by `Scenario`. Any key marked as a sweep
axis accepts a single value or a non-empty list; a list makes the experiment
run once per value, and several lists make the cartesian product. Keys carry
their units (`timeslot_ms`, `check_interval_ms`). A bad value is refused with
the file, the dotted key, the value and the allowed range.

Sections and who fills them:

- `[experiment]` id, title, seed, replications (every experiment).
- `[topology]` line of nodes or explicit links with per-link PDR.
- `[mac]` kind and one table per MAC protocol (`csma`, `xmac`, `beacon`, `tsch`).
- `[link_security]` IEEE 802.15.4 security level, key-id mode, strategy.
- `[dtls]` version, suite, records per datagram, fragments, retransmission.
- `[model]` inputs only the closed forms use (e.g. frames per handshake).
- `[sessions]` the session-capacity experiment (slots, clients, traffic).
- `[overhead]` payload sizes and suites of the per-datagram overhead study.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationError, model_validator

from dtlsim import platform as platforms
from dtlsim import resources
from dtlsim.schema import FileError, Problem, StrictModel, parse_toml, problems_from

SCENARIO_DIR = resources.scenarios_dir()

_SWEEP = "sweep"


def _as_list(v: Any) -> Any:
    return v if isinstance(v, list) else [v]


def Sweep(item: Any, **bounds: Any) -> Any:
    """A sweep axis of `item`s within `bounds`: one value or a non-empty list."""
    element = Annotated[item, Field(**bounds)] if bounds else item
    return Annotated[
        list[element],  # type: ignore[valid-type]
        BeforeValidator(_as_list),
        Field(min_length=1, json_schema_extra={_SWEEP: True}),
    ]


Level = Literal[
    "none", "mic-32", "mic-64", "mic-128", "enc", "enc-mic-32", "enc-mic-64", "enc-mic-128"
]
Strategy = Literal["software", "hybrid", "hardware"]
Implementation = Literal["datasheet", "openwsn"]
SuiteName = Literal[
    "psk-aes128-ccm8",
    "ecdhe-ecdsa-aes128-ccm8",
    "psk-aes128-ccm",
    "psk-aes128-gcm-sha256",
    "ecdhe-ecdsa-aes128-gcm-sha256",
    "psk-aes128-cbc-sha",
    "psk-aes128-cbc-sha256",
    "aes128-ccm8-sha256",
    "aes128-ccm-sha256",
    "aes128-gcm-sha256",
    "chacha20-poly1305-sha256",
]


class Experiment(StrictModel):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=64)
    title: str = Field(min_length=1)
    reference: str = Field(default="", description="where the experiment is described")
    seed: int = Field(default=1, ge=0, le=2**63 - 1)
    replications: int = Field(default=1, ge=1, le=10_000_000)
    quick_replications: int = Field(default=20, ge=1, le=10_000_000)


class Link(StrictModel):
    a: int = Field(ge=0)
    b: int = Field(ge=0)
    pdr: float = Field(gt=0.0, le=1.0)


class Topology(StrictModel):
    """A line of hops + 1 nodes, explicit links, or nodes at random in a
    square (node 0, the root, at the centre; PDR 1 up to half the range,
    falling linearly to 0 at the range)."""

    kind: Literal["line", "links", "random"] = "line"
    hops: Sweep(int, ge=1, le=64) = [1]
    pdr: Sweep(float, gt=0.0, le=1.0) = [1.0]
    links: list[Link] = []
    nodes: Sweep(int, ge=2, le=10_000) = [100]
    area_side_m: Sweep(float, gt=0.0, le=100_000.0) = [200.0]
    range_m: Sweep(float, gt=0.0, le=100_000.0) = [40.0]


class Csma(StrictModel):
    """Always-on unslotted CSMA with link-layer ACKs (the no-duty-cycle baseline)."""

    max_retries: Sweep(int, ge=0, le=7) = [3]
    min_be: Sweep(int, ge=0, le=8) = [3]
    max_be: Sweep(int, ge=3, le=8) = [5]
    max_backoffs: Sweep(int, ge=0, le=5) = [4]


class Xmac(StrictModel):
    """X-MAC preamble sampling; defaults are Contiki's cxmac (8 Hz channel check).

    The longest strobe train lasts the check interval plus
    `strobe_margin_ms` (cxmac: 4·on + off = CI + 3 on times); `strobe_period_ms`
    is cxmac's strobe wait time, 7/8 of the on time.
    """

    check_interval_ms: Sweep(float, gt=0.0, le=60_000.0) = [125.0]
    on_time_ms: Sweep(float, gt=0.0, le=1000.0) = [6.25]
    strobe_margin_ms: Sweep(float, ge=0.0, le=60_000.0) = [18.75]
    strobe_period_ms: Sweep(float, gt=0.0, le=100.0) = [5.46875]
    data_wait_ms: Sweep(float, gt=0.0, le=10_000.0) = [12.5]
    encounter_optimization: Sweep(bool) = [True]
    encounter_lead_ms: Sweep(float, ge=0.0, le=10_000.0) = [12.5]
    # Contiki's csma layer above cxmac: trains per payload before dropping it.
    max_transmissions: Sweep(int, ge=1, le=16) = [3]
    # cxmac aborts its own train on hearing another node's strobe.
    abort_on_strobe: Sweep(bool) = [True]


class Beacon(StrictModel):
    """Beacon-enabled IEEE 802.15.4: 0 <= SO <= BO <= 14."""

    beacon_order: Sweep(int, ge=0, le=14) = [6]
    superframe_order: Sweep(int, ge=0, le=14) = [2]
    min_be: Sweep(int, ge=0, le=8) = [3]
    max_be: Sweep(int, ge=3, le=8) = [5]
    max_backoffs: Sweep(int, ge=0, le=5) = [4]
    max_retries: Sweep(int, ge=0, le=7) = [3]
    guard_time_us: Sweep(int, ge=0, le=100_000) = [1000]
    # how far each cluster head's superframe starts after its parent's;
    # none: one superframe duration (active periods back to back)
    superframe_offset_us: int | None = Field(default=None, ge=0, le=251_658_240)
    # after an indirect frame whose frame pending bit is set, a device polls
    # again in the same CAP ("standard", IEEE 802.15.4-2006 7.5.6.3) or waits
    # for the next beacon to list it ("once-per-beacon"). Default: what the
    # open 802.15.4-2006 MAC of the time did, TinyOS TKN15.4 (PollP.nc leaves
    # the bit unread, BeaconSynchronizeP.nc polls once per beacon).
    poll: Sweep(Literal["standard", "once-per-beacon"]) = ["once-per-beacon"]


class GivenCell(StrictModel):
    """A dedicated TSCH cell: `sender` transmits to `receiver` in it."""

    sender: int = Field(ge=0, le=9_999)
    receiver: int = Field(ge=0, le=9_999)
    slot: int = Field(ge=0, le=65_534)
    channel_offset: int = Field(default=0, ge=0, le=15)


class Tsch(StrictModel):
    """TSCH with dedicated cells per link; IEEE default 10 ms template."""

    slotframe_length: Sweep(int, ge=1, le=65_535) = [101]
    cells_per_link: Sweep(int, ge=1, le=65_535) = [1]
    timeslot_ms: Sweep(float, gt=0.0, le=1000.0) = [10.0]
    max_retries: Sweep(int, ge=0, le=7) = [3]
    # "random": cells_per_link distinct random slots per directed link;
    # "given": exactly `cells`
    cell_placement: Literal["random", "given"] = "random"
    cells: list[GivenCell] = []
    # "links": cells_per_link dedicated cells on every directed link;
    # "tree": shared_cells shared cells, one dedicated cell per child→parent link.
    schedule: Literal["links", "tree"] = "links"
    shared_cells: Sweep(int, ge=0, le=65_535) = [1]
    # per channel 11..26 (16 values), a factor on every link's PDR on that
    # channel (interference on some frequencies); empty: none
    channel_pdr: list[Annotated[float, Field(ge=0.0, le=1.0)]] = []
    # data frames and Enhanced ACKs name both ends by their 64-bit extended
    # addresses (as Contiki-NG and OpenWSN do; IPv6 interface identifiers then
    # come from them); false: 16-bit short addresses
    extended_addresses: Sweep(bool) = [False]


class Mac(StrictModel):
    kind: Literal["csma", "xmac", "beacon", "tsch", "none"] = "none"
    csma: Csma = Csma()
    xmac: Xmac = Xmac()
    beacon: Beacon = Beacon()
    tsch: Tsch = Tsch()


class LinkSecurity(StrictModel):
    """IEEE 802.15.4 security of data frames: level, key identifier mode, the
    network key, and how CCM* runs on the platform (its cost comes from there)."""

    level: Sweep(Level) = ["none"]
    key_id_mode: Sweep(int, ge=0, le=3) = [1]
    frame_counter_suppressed: bool = False
    strategy: Sweep(Strategy) = ["hardware"]
    # whose costs: "datasheet" (the parts' figures alone, the ideal lower
    # bound) or "openwsn" (what the OpenWSN firmware adds on that board:
    # per-slot processing, policy/key lookup, bus transfers; platform file
    # table [implementation.openwsn]); TSCH only: the timeslot experiment
    # and every simulated TSCH exchange use it
    implementation: Sweep(Implementation) = ["datasheet"]
    key_hex: str = Field(default="c0c1c2c3c4c5c6c7c8c9cacbcccdcecf", pattern=r"^[0-9a-fA-F]{32}$")
    # fault injection: these nodes hold an outdated key (another index and
    # key bytes); their neighbours refuse what they send, and count it
    outdated_key_nodes: list[Annotated[int, Field(ge=0, le=9_999)]] = []
    # fault injection: these nodes are configured with below_policy_level, a
    # secured level the network's `level` refuses; neighbours refuse (and
    # count) their frames as below policy
    below_policy_nodes: list[Annotated[int, Field(ge=0, le=9_999)]] = []
    below_policy_level: Level = "mic-32"


# What a policy starts from when the file leaves a key out. tinyDTLS: 2 s
# before the first retransmission (dtls.c `dtls_send_multi`: timeout =
# 2 * CLOCK_SECOND), 7 retransmissions (global.h DTLS_DEFAULT_MAX_RETRANSMIT).
_POLICY_DEFAULTS: dict[str, dict[str, Any]] = {
    "tinydtls": {"initial_ms": [2000.0], "max_retransmissions": [7]},
}


class Retransmission(StrictModel):
    """The DTLS retransmission timer. `fixed`: initial_ms every time.
    `doubling` (RFC 6347 section 4.2.4): initial_ms, doubling up to max_ms.
    `tinydtls`: tinyDTLS's per-record timer, initial_ms (2 s) then
    initial_ms << n after the n-th retransmission with no ceiling (max_ms
    does not apply); a repeat of the peer's previous flight is not answered,
    a repeated ClientHello included while the handshake is under way."""

    policy: Literal["fixed", "doubling", "tinydtls"] = "doubling"
    initial_ms: Sweep(float, gt=0.0, le=600_000.0) = [1000.0]
    max_ms: Sweep(float, gt=0.0, le=600_000.0) = [60_000.0]
    max_retransmissions: Sweep(int, ge=0, le=100) = [7]

    @model_validator(mode="before")
    @classmethod
    def _policy_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("policy"), str):
            return {**_POLICY_DEFAULTS.get(data["policy"], {}), **data}
        return data


class Dtls(StrictModel):
    version: Sweep(Literal["1.2", "1.3"]) = ["1.2"]
    suite: Sweep(SuiteName) = ["psk-aes128-ccm8"]
    records_per_datagram: Sweep(Literal["one", "flight"]) = ["one"]
    max_fragment_bytes: Sweep(int, ge=16, le=16_384) = [16_384]
    mtu_bytes: Sweep(int, ge=64, le=65_507) = [1280]
    extended_master_secret: Sweep(bool) = [True]
    identity: str = Field(default="Client_identity", min_length=1, max_length=128)
    psk_hex: str = Field(
        default="000102030405060708090a0b0c0d0e0f", pattern=r"^([0-9a-fA-F]{2}){1,64}$"
    )
    server_max_sessions: Sweep(int, ge=1, le=100_000) = [16]
    # Where the node's DTLS cryptography runs (costs from the platform file).
    crypto_strategy: Sweep(Strategy) = ["software"]
    retransmission: Retransmission = Retransmission()


class Workload(StrictModel):
    """What the simulated client does in one replication."""

    kind: Literal["handshakes", "ping", "frames", "periodic"] = "handshakes"
    handshakes: int = Field(default=1, ge=1, le=1_000_000)
    pause_ms: Sweep(float, ge=0.0, le=3_600_000.0) = [1000.0]
    ping_payload_bytes: Sweep(int, ge=0, le=1200) = [32]
    pings: int = Field(default=10, ge=1, le=1_000_000)
    ping_timeout_ms: Sweep(float, gt=0.0, le=3_600_000.0) = [10_000.0]
    # frames: datagrams passed back and forth, each after a random wait
    # (one slotframe in TSCH, 1 s otherwise, unless given)
    # periodic: every node reports to node 0
    report_interval_s: Sweep(float, gt=0.0, le=86_400.0) = [60.0]
    report_payload_bytes: Sweep(int, ge=8, le=1200) = [90]
    duration_s: Sweep(float, gt=0.0, le=1e7) = [1010.0]
    frames: int = Field(default=10, ge=1, le=100_000)
    frame_payload_bytes: int = Field(default=40, ge=12, le=1200)
    frame_max_wait_ms: float | None = Field(default=None, ge=0.0, le=3_600_000.0)
    # "none": plain UDP; a suite name: pings inside DTLS records of that
    # suite (after a handshake; it replaces dtls.suite for the point).
    ping_security: Sweep(Literal["none"] | SuiteName) = ["none"]


class Simulation(StrictModel):
    start_ms: float = Field(default=1000.0, ge=0.0, le=3_600_000.0)
    max_time_s: float = Field(default=3600.0, gt=0.0, le=1e7)
    # Software timers fire on clock ticks: Contiki's CLOCK_SECOND is 128 on
    # MSP430 and CC2538 motes (7.8125 ms); 0 makes timers exact.
    timer_tick_ms: float = Field(default=7.8125, ge=0.0, le=1000.0)


class Model(StrictModel):
    handshake_frames: Sweep(int, ge=1, le=10_000) = [10]


class Sessions(StrictModel):
    slots: Sweep(int, ge=1, le=100_000) = [3]
    clients: Sweep(int, ge=1, le=100_000) = [5]
    erlang: Sweep(float, gt=0.0, le=1e6) = [0.5]


class Overhead(StrictModel):
    """Application payload sizes (a range, in bytes) and the suites to compare."""

    payload_min_bytes: int = Field(default=0, ge=0, le=65_000)
    payload_max_bytes: int = Field(default=256, ge=0, le=65_000)
    payload_step_bytes: int = Field(default=1, ge=1, le=65_000)
    suites: list[SuiteName] = Field(default=["psk-aes128-ccm8"], min_length=1)
    compression: Sweep(Literal["link-local", "context", "global-inline", "uncompressed"]) = [
        "link-local"
    ]
    addressing: Sweep(Literal["short", "extended"]) = ["short"]
    udp_ports: Sweep(Literal["inline", "8bit", "4bit"]) = ["inline"]

    def payloads(self) -> list[int]:
        return list(
            range(self.payload_min_bytes, self.payload_max_bytes + 1, self.payload_step_bytes)
        )


class Scenario(StrictModel):
    experiment: Experiment
    platform: Sweep(str, min_length=1) = ["wismote"]
    topology: Topology = Topology()
    mac: Mac = Mac()
    link_security: LinkSecurity = LinkSecurity()
    dtls: Dtls = Dtls()
    workload: Workload = Workload()
    simulation: Simulation = Simulation()
    model: Model = Model()
    sessions: Sessions = Sessions()
    overhead: Overhead = Overhead()

    def axes(self) -> dict[str, list[Any]]:
        """Every sweep axis with more than one value, by dotted key."""
        return {k: v for k, v in sweep_values(self).items() if len(v) > 1}

    def points(self) -> Iterator[dict[str, Any]]:
        """Each point of the sweep as a flat {dotted key: value} of every parameter."""
        flat = flatten(self)
        sweeps = sweep_values(self)
        keys = list(sweeps)
        for combo in itertools.product(*(sweeps[k] for k in keys)):
            point = dict(flat)
            point.update(zip(keys, combo, strict=True))
            yield point


def _sweep_fields(model: StrictModel, prefix: str = "") -> Iterator[tuple[str, Any, bool]]:
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        key = f"{prefix}{name}"
        if isinstance(value, StrictModel):
            yield from _sweep_fields(value, key + ".")
        else:
            extra = info.json_schema_extra
            is_sweep = isinstance(extra, dict) and extra.get(_SWEEP) is True
            yield key, value, is_sweep


def sweep_values(model: StrictModel) -> dict[str, list[Any]]:
    return {k: list(v) for k, v, is_sweep in _sweep_fields(model) if is_sweep}


def flatten(model: StrictModel) -> dict[str, Any]:
    """Every parameter by dotted key; sweep axes keep their list."""
    out: dict[str, Any] = {}
    for k, v, _ in _sweep_fields(model):
        # lists of tables (links, cells) as plain dicts: points go to JSON and Parquet
        is_tables = isinstance(v, list) and v and isinstance(v[0], StrictModel)
        out[k] = [x.model_dump() for x in v] if is_tables else v
    return out


def _lookup(data: Any, key: str) -> Any:
    for part in key.replace("[", ".[").split("."):
        if part.startswith("["):
            data = data[int(part[1:-1])] if isinstance(data, list) else None
        elif isinstance(data, dict):
            data = data.get(part)
        else:
            return None
    return data


def _tidy(problem: Problem, raw: dict[str, Any]) -> Problem:
    """A scalar given for a sweep axis is reported under its own key, not `key[0]`."""
    if problem.key.endswith("[0]"):
        base = problem.key[: -len("[0]")]
        if not isinstance(_lookup(raw, base), list):
            return Problem(base, problem.value, problem.allowed)
    return problem


def cross_checks(s: Scenario) -> list[Problem]:
    """Rules that tie several keys together; each problem names the key to change."""
    out = []
    known = platforms.list_platforms()
    out += [
        Problem("platform", p, f"must be one of {', '.join(known)}")
        for p in s.platform
        if p not in known
    ]
    for pid in (p for p in s.platform if p in known):
        for impl in s.link_security.implementation:
            profile = getattr(platforms.load_platform(pid).implementation, impl, None)
            if profile is not None and not profile.available:
                out.append(
                    Problem(
                        "link_security.implementation",
                        impl,
                        f"not available on platform {pid}: {profile.reason}",
                    )
                )

    if s.mac.kind != "tsch":
        # the profile is OpenWSN's TSCH firmware: its slot timing means nothing elsewhere
        out += [
            Problem(
                "link_security.implementation",
                impl,
                f"only with mac.kind = 'tsch' (OpenWSN is a TSCH stack), not {s.mac.kind!r}",
            )
            for impl in s.link_security.implementation
            if impl != "datasheet"
        ]

    def at_most(key: str, values: list[Any], bound_key: str, bounds: list[Any]) -> None:
        limit = min(bounds)
        out.extend(
            Problem(key, v, f"must be <= {bound_key} (smallest value {limit})")
            for v in values
            if v > limit
        )

    b, t, c, r = s.mac.beacon, s.mac.tsch, s.mac.csma, s.dtls.retransmission
    at_most(
        "mac.beacon.superframe_order", b.superframe_order, "mac.beacon.beacon_order", b.beacon_order
    )
    at_most("mac.beacon.min_be", b.min_be, "mac.beacon.max_be", b.max_be)
    at_most("mac.csma.min_be", c.min_be, "mac.csma.max_be", c.max_be)
    at_most(
        "mac.tsch.cells_per_link", t.cells_per_link, "mac.tsch.slotframe_length", t.slotframe_length
    )
    if r.policy == "tinydtls":
        if "max_ms" in r.model_fields_set:
            out.extend(
                Problem("dtls.retransmission.max_ms", v, "has no meaning for policy tinydtls")
                for v in r.max_ms
            )
    else:
        at_most(
            "dtls.retransmission.initial_ms", r.initial_ms, "dtls.retransmission.max_ms", r.max_ms
        )
    o = s.overhead
    if o.payload_min_bytes > o.payload_max_bytes:
        out.append(
            Problem(
                "overhead.payload_min_bytes",
                o.payload_min_bytes,
                f"must be <= overhead.payload_max_bytes ({o.payload_max_bytes})",
            )
        )
    if t.cell_placement == "given":
        if not t.cells:
            why = "must list cells when cell_placement = 'given'"
            out.append(Problem("mac.tsch.cells", [], why))
        if t.schedule != "links":
            out.append(Problem("mac.tsch.schedule", t.schedule, "must be 'links' with given cells"))
        last = min(t.slotframe_length) - 1
        out.extend(
            Problem("mac.tsch.cells", c.model_dump(), f"slot must be in [0, {last}]")
            for c in t.cells
            if c.slot > last
        )
        used: set[tuple[int, int]] = set()
        for c in t.cells:
            if c.sender == c.receiver:
                out.append(Problem("mac.tsch.cells", c.model_dump(), "sender = receiver"))
            for node in (c.sender, c.receiver):
                if (node, c.slot) in used:
                    why = f"node {node} already has a cell in slot {c.slot} (one per slot)"
                    out.append(Problem("mac.tsch.cells", c.model_dump(), why))
                used.add((node, c.slot))
    elif t.cells:
        out.append(
            Problem("mac.tsch.cells", "[...]", "cells are used only with cell_placement = 'given'")
        )
    if len(t.channel_pdr) not in (0, 16):
        out.append(
            Problem(
                "mac.tsch.channel_pdr",
                t.channel_pdr,
                f"must list 16 values (channels 11..26) or none, not {len(t.channel_pdr)}",
            )
        )
    if s.topology.kind == "links" and not s.topology.links:
        out.append(Problem("topology.links", [], "must list at least one link when kind = 'links'"))
    return out


def parse_override(assignment: str) -> tuple[str, Any]:
    """`mac.tsch.cells_per_link=[1,2]` -> ('mac.tsch.cells_per_link', [1, 2])."""
    key, sep, text = assignment.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"--set {assignment!r}: expected key.path=value")
    try:
        value = tomllib.loads(f"v = {text.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = text.strip()  # a bare word is a string
    return key.strip(), value


def apply_overrides(data: dict[str, Any], overrides: list[tuple[str, Any]]) -> dict[str, Any]:
    for key, value in overrides:
        node = data
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"--set {key}: {part} is not a table")
        node[leaf] = value
    return data


def load_scenario(path: Path | str, overrides: list[str] | None = None) -> Scenario:
    """Load, override (`key.path=value`) and validate one scenario file."""
    path = Path(path)
    if not path.exists() and (SCENARIO_DIR / f"{path}.toml").exists():
        path = SCENARIO_DIR / f"{path}.toml"
    raw = parse_toml(path)
    raw = apply_overrides(raw, [parse_override(o) for o in overrides or []])
    try:
        scenario = Scenario.model_validate(raw)
    except ValidationError as e:
        raise FileError(path, [_tidy(p, raw) for p in problems_from(e)]) from None
    problems = cross_checks(scenario)
    if problems:
        raise FileError(path, problems)
    return scenario


def variant(scenario: Scenario, overrides: dict[str, Any]) -> Scenario:
    """`scenario` with some values replaced (dotted keys), validated again."""
    # only what the file set: defaults that depend on other values (a
    # retransmission policy's) are filled in again for the new values
    raw = apply_overrides(scenario.model_dump(exclude_unset=True), list(overrides.items()))
    out = Scenario.model_validate(raw)
    problems = cross_checks(out)
    if problems:
        raise ValueError("; ".join(p.render() for p in problems))
    return out


def builtin_scenarios() -> dict[str, Path]:
    """The reference experiments shipped in scenarios/, by file stem."""
    return {p.stem: p for p in sorted(SCENARIO_DIR.glob("*.toml"))}
