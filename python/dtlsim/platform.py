"""Device platforms: the data files in ``platforms/*.toml`` and their values
(their schema and rules are the core's, ``crates/schema`` ``platform_file.rs``).

A platform file describes one device (MCU, radio, supply) and what each
cryptographic operation costs on it for each implementation strategy:

* ``software``: AES and CCM* entirely on the MCU;
* ``hybrid``: the AES block cipher in hardware, the CCM* mode in software;
* ``hardware``: the whole of CCM* in hardware (radio or crypto engine).

Every number in a file is an inline table ``{ value = ..., source = "..." }``
naming where the figure comes from (datasheet and table, or the derivation).
A strategy the hardware cannot do is written ``available = false`` with a
``reason`` and no numbers.

The duration of one CCM* operation is

    ccm_setup_us + n_blocks * (aes_block_us + ccm_per_block_overhead_us
                               + bus_bytes_per_block * bus_us_per_byte)

where ``n_blocks`` is the number of AES invocations CCM* needs for the frame.
Both are computed in one place, ``crates/models`` (``security::ccm_star_blocks``,
``timeslot::CcmCost``), reached through :func:`dtlsim.models.ccm_duration_us`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from dtlsim import resources
from dtlsim.problems import did_you_mean
from dtlsim.schema import (
    FileError,
    Problem,
    Table,
    check_file,
    file_schema,
    parse_toml,
    scenario_names,
)

STRATEGIES: tuple[str, ...] = scenario_names("Strategy")

IMPLEMENTATIONS: tuple[str, ...] = scenario_names("Implementation")
"""``datasheet``: the crypto tables alone (the ideal lower bound); the others
name a real stack whose measured costs the platform file adds
(``[implementation.<name>]``)."""

ENV_PLATFORMS = "DTLSIM_PLATFORMS"
"""Environment variable naming directories of platform files of one's own
(several joined by the path separator, `:` on Unix), searched before the
shipped platforms, which stay available."""

SOURCE_MIN_CHARS = 10
"""A source's least length (the core's `platform_file::SOURCE_MIN_CHARS`,
which refuses shorter ones)."""


# --------------------------------------------------------------------------
# The values of a checked file. Every rule (ranges, required keys, sources)
# is the core's (crates/schema, platform_file.rs); these classes hold what
# it gives back, one per table it declares, with the same fields
# (tests/python/test_platform.py checks they mirror the core's).


@dataclass(frozen=True)
class Sourced(Table):
    """A number with its source: a datasheet and table, or the derivation."""

    value: float
    source: str

    def __float__(self) -> float:
        return float(self.value)


class Positive(Sourced):
    """A physical quantity that must be strictly positive (currents, clock...)."""


class NonNegative(Sourced):
    """A duration, count or current that may be zero."""


class Voltage(Sourced):
    pass


class ClockMHz(Sourced):
    pass


class PowerDbm(Sourced):
    """A power in dBm: a radio's output or what its receiver needs."""


class Decibels(Sourced):
    pass


class ByteCount(Sourced):
    """A memory size in bytes: a positive integer."""

    value: int


@dataclass(frozen=True)
class Batteries(Table):
    """The batteries a board is commonly run from, for lifetime figures
    beside the one `battery_mah` the result rows use."""

    cr2032_mah: Positive
    aa2_mah: Positive


@dataclass(frozen=True)
class Supply(Table):
    voltage_v: Voltage
    battery_mah: Positive
    batteries: Batteries | None = None


@dataclass(frozen=True)
class Mcu(Table):
    part: str
    clock_mhz: ClockMHz
    ram_bytes: ByteCount
    flash_bytes: ByteCount
    active_current_ma: Positive
    lpm_current_ma: Positive
    frame_processing_us: NonNegative
    crystal_tolerance_ppm: NonNegative | None = None


@dataclass(frozen=True)
class Radio(Table):
    part: str
    on_chip: bool
    tx_current_ma: Positive
    rx_current_ma: Positive
    idle_current_ma: Positive
    off_current_ma: NonNegative
    bus_us_per_byte: NonNegative
    tx_power_min_dbm: PowerDbm | None = None
    tx_power_max_dbm: PowerDbm | None = None
    sensitivity_dbm: PowerDbm | None = None
    cca_threshold_dbm: PowerDbm | None = None
    cca_hysteresis_db: Decibels | None = None


@dataclass(frozen=True)
class Curve25519(Table):
    """X25519 (RFC 7748) and Ed25519 (RFC 8032) in one strategy."""

    x25519_us: NonNegative
    ed25519_sign_us: NonNegative
    ed25519_verify_us: NonNegative


@dataclass(frozen=True)
class CryptoStrategy(Table):
    """Costs of one implementation strategy."""

    available: bool
    aes_block_us: NonNegative
    ccm_setup_us: NonNegative
    ccm_per_block_overhead_us: NonNegative
    bus_bytes_per_block: NonNegative
    sha256_block_us: NonNegative
    aes256_block_us: NonNegative
    sha512_block_us: NonNegative
    p256_ecdh_us: NonNegative
    p256_ecdsa_sign_us: NonNegative
    p256_ecdsa_verify_us: NonNegative
    curve25519: Curve25519


@dataclass(frozen=True)
class UnavailableStrategy(Table):
    """A strategy this hardware cannot do, and why."""

    available: bool
    reason: str


@dataclass(frozen=True)
class Crypto(Table):
    """The three strategy tables; ``crypto["hybrid"]`` works as well as ``crypto.hybrid``."""

    software: CryptoStrategy | UnavailableStrategy
    hybrid: CryptoStrategy | UnavailableStrategy
    hardware: CryptoStrategy | UnavailableStrategy

    def __getitem__(self, name: str) -> CryptoStrategy | UnavailableStrategy:
        if name not in STRATEGIES:
            raise KeyError(f"unknown strategy {name!r}; strategies are {', '.join(STRATEGIES)}")
        table: CryptoStrategy | UnavailableStrategy = getattr(self, name)
        return table

    def items(self) -> list[tuple[str, CryptoStrategy | UnavailableStrategy]]:
        return [(name, self[name]) for name in STRATEGIES]


@dataclass(frozen=True)
class StrategyProfile(Table):
    """What a stack changes in one strategy: the ``crypto.<strategy>`` figures
    it names replace the datasheet ones; the bus bytes are its own."""

    available: bool
    aes_block_us: NonNegative | None
    ccm_setup_us: NonNegative | None
    ccm_per_block_overhead_us: NonNegative | None
    bus_bytes_per_block: NonNegative | None
    bus_bytes_per_op: NonNegative
    frame_over_bus: bool


@dataclass(frozen=True)
class ImplementationProfile(Table):
    """A real stack on this platform: its per-slot processing (measured, no
    security), its policy/key lookup per secured operation, and per strategy
    what it changes."""

    available: bool
    stack: str
    tx_data_prepare_us: NonNegative
    radio_tx_delay_us: NonNegative
    tx_ack_prepare_us: NonNegative
    key_lookup_us: NonNegative
    software: StrategyProfile | UnavailableStrategy
    hybrid: StrategyProfile | UnavailableStrategy
    hardware: StrategyProfile | UnavailableStrategy


@dataclass(frozen=True)
class UnavailableProfile(Table):
    """A stack that does not run on this platform, and why."""

    available: bool
    reason: str


@dataclass(frozen=True)
class Implementations(Table):
    openwsn: ImplementationProfile | UnavailableProfile


# The scenario's `battery` key (declared in crates/schema, point.rs): each
# value and the [supply] figure holding that battery's charge.
BATTERIES = {
    "platform": "supply.battery_mah",
    "cr2032": "supply.batteries.cr2032_mah",
    "2xAA": "supply.batteries.aa2_mah",
}


@dataclass(frozen=True)
class Platform(Table):
    """One device profile, as read from ``platforms/<id>.toml``."""

    schema_version: int
    name: str
    id: str
    summary: str
    supply: Supply
    mcu: Mcu
    radio: Radio
    crypto: Crypto
    implementation: Implementations

    def strategy(self, name: str) -> CryptoStrategy:
        """The costs of strategy ``name``; ValueError if unknown or not available here."""
        if name not in STRATEGIES:
            raise ValueError(
                f"platform {self.name} ({self.id}): unknown strategy {name!r}; "
                f"strategies are {', '.join(STRATEGIES)}"
            )
        table = self.crypto[name]
        if isinstance(table, UnavailableStrategy):
            raise ValueError(
                f"platform {self.name} ({self.id}): strategy {name!r} is not available: "
                f"{table.reason}"
            )
        return table

    def battery(self, choice: str) -> Positive | None:
        """The charge of the battery the scenario's `battery` key names
        (`BATTERIES`), with its source; None where this file lists no such
        battery (a platform without `[supply.batteries]`)."""
        if choice not in BATTERIES:
            raise ValueError(
                f"platform {self.name} ({self.id}): unknown battery {choice!r}; "
                f"batteries are {', '.join(BATTERIES)}"
            )
        if choice == "platform":
            return self.supply.battery_mah
        if self.supply.batteries is None:
            return None
        return getattr(self.supply.batteries, BATTERIES[choice].rsplit(".", 1)[1])

    def best_strategy(self) -> str:
        """The board's own best cost table: hardware where the file has it,
        else hybrid, else software (what `edhoc.crypto_strategy = "platform"`
        charges)."""
        for name in ("hardware", "hybrid", "software"):
            if not isinstance(self.crypto[name], UnavailableStrategy):
                return name
        raise ValueError(f"platform {self.name} ({self.id}): no crypto strategy is available")

    def profile(
        self, implementation: str, strategy: str
    ) -> tuple[ImplementationProfile | None, StrategyProfile | None]:
        """The stack profile ``implementation`` and its table for ``strategy``
        (both None for ``datasheet``); ValueError where it is not available."""
        if implementation not in IMPLEMENTATIONS:
            raise ValueError(
                f"platform {self.name} ({self.id}): unknown implementation {implementation!r}; "
                f"implementations are {', '.join(IMPLEMENTATIONS)}"
            )
        self.strategy(strategy)
        if implementation == "datasheet":
            return None, None
        profile = getattr(self.implementation, implementation)
        if isinstance(profile, UnavailableProfile):
            raise ValueError(
                f"platform {self.name} ({self.id}): implementation {implementation!r} is not "
                f"available: {profile.reason}"
            )
        table = getattr(profile, strategy)
        if isinstance(table, UnavailableStrategy):
            raise ValueError(
                f"platform {self.name} ({self.id}): strategy {strategy!r} does not exist in "
                f"implementation {implementation!r}: {table.reason}"
            )
        return profile, table

    def available_strategies(self) -> list[str]:
        return [name for name in STRATEGIES if self.crypto[name].available]

    def sourced_fields(self) -> Iterator[tuple[str, Sourced]]:
        """Every sourced number in the file, with its dotted key."""
        yield from _walk(self, "")


def _walk(table: Table, prefix: str) -> Iterator[tuple[str, Sourced]]:
    for field in fields(table):  # type: ignore[arg-type]
        value = getattr(table, field.name)
        key = f"{prefix}.{field.name}" if prefix else field.name
        if isinstance(value, Sourced):
            yield key, value
        elif isinstance(value, Table):
            yield from _walk(value, key)


CLASSES: dict[str, type[Table]] = {
    c.__name__: c
    for c in (
        Positive,
        NonNegative,
        Voltage,
        ClockMHz,
        PowerDbm,
        Decibels,
        ByteCount,
        Batteries,
        Supply,
        Mcu,
        Radio,
        Curve25519,
        CryptoStrategy,
        UnavailableStrategy,
        Crypto,
        StrategyProfile,
        ImplementationProfile,
        UnavailableProfile,
        Implementations,
        Platform,
    )
}
"""The class of each table the core tags a checked platform file's tables with."""


# --------------------------------------------------------------------------
# Finding and loading files.


def platforms_dir() -> Path:
    """The platforms dtlsim ships."""
    return resources.platforms_dir()


def platform_dirs() -> list[Path]:
    """Where platform ids are looked up, first match first: the directories
    of `$DTLSIM_PLATFORMS`, then the shipped platforms."""
    extra = os.environ.get(ENV_PLATFORMS, "")
    return [*(Path(d) for d in extra.split(os.pathsep) if d), platforms_dir()]


def is_path(name: str | os.PathLike[str]) -> bool:
    """`name` is a platform file's path (`./nrf52840.toml`), not an id."""
    text = os.fspath(name)
    return text.endswith(".toml") or os.sep in text or "/" in text


def platform_path(name: str | os.PathLike[str]) -> Path:
    """Path of platform ``name``: an id in the first platforms directory
    that has it (`platform_dirs`), or a ``.toml`` path."""
    if is_path(name):
        return Path(name)
    for directory in platform_dirs():
        path = directory / f"{name}.toml"
        if path.is_file():
            return path
    return platforms_dir() / f"{name}.toml"


def list_platforms() -> list[str]:
    """Ids of the platforms in every platforms directory, sorted."""
    ids = {p.stem for d in platform_dirs() if d.is_dir() for p in d.glob("*.toml") if p.is_file()}
    return sorted(ids)


# --------------------------------------------------------------------------
# A template of a file, and every key it must hold, from the core's declarations.

_UNITS = {
    "us": "µs",
    "ma": "mA",
    "v": "V",
    "mhz": "MHz",
    "bytes": "bytes",
    "ppm": "ppm",
    "dbm": "dBm",
    "db": "dB",
}


def unit_of(key: str) -> str:
    """The unit a key's name carries (`tx_current_ma`: mA; `bus_us_per_byte`:
    µs per byte); "" for none."""
    last = key.rsplit("_", 1)[-1]
    if last in _UNITS or "_per_" not in key:
        return _UNITS.get(last, "")
    head, _, tail = key.rpartition("_per_")
    return f"{unit_of(head)} per {tail}".strip()


def required_keys(table: dict[str, Any] | None = None, prefix: str = "") -> Iterator[str]:
    """The dotted key of every figure and name a file must give, in the
    order of the template (a table's strategies in their available form),
    from the core's declarations."""
    for field in (table or file_schema("platform"))["fields"]:
        key = f"{prefix}.{field['name']}" if prefix else field["name"]
        if field["optional"] or field["kind"] == "available":
            continue
        if field["kind"] in ("table", "choice"):
            yield from required_keys(field["table"], key)
        else:
            yield key


def template(board: str) -> str:
    """A platform file for `board` with every key, its unit and its allowed
    values, written from the core's declarations: each figure
    `{ value = 0, source = "" }` to fill in (the file is refused until every
    figure has its value and its source)."""
    out = [
        f'# Platform {board}: every figure {{ value = ..., source = "..." }}, the source',
        "# naming the datasheet and table, or the derivation (`estimate: ...` with the",
        f"# reasoning where no document gives it; at least {SOURCE_MIN_CHARS} characters).",
        "# A strategy or implementation the board cannot do is written",
        "# `available = false` with a `reason` instead of its figures.",
        f"# Check it with: dtlsim platforms {board}.toml",
        "",
    ]
    _template(file_schema("platform"), "", out, board)
    return "\n".join(out).rstrip("\n") + "\n"


def _template(table: dict[str, Any], prefix: str, out: list[str], board: str) -> None:
    tables = []
    for field in table["fields"]:
        name, kind, optional = field["name"], field["kind"], field["optional"]
        if kind == "available":
            continue
        if kind in ("table", "choice"):
            tables.append(field)
            continue
        comment = "# " if optional else ""
        if kind == "figure":
            unit = unit_of(name)
            what = f"{unit}, " if unit else ""
            line = f'{name} = {{ value = 0, source = "" }}'
            note = f"{what}{field['range']}"
        elif kind == "version":
            line, note = "schema_version = 1", "the file format"
        elif kind == "id":
            line, note = f'id = "{board}"', "the file's name without .toml"
        elif kind == "bool":
            line, note = f"{name} = false", "true or false"
        else:
            line, note = f'{name} = ""', "text"
        if optional:
            note += "; optional"
        out.append(f"{comment}{line}  # {note}")
    for field in tables:
        key = f"{prefix}.{field['name']}" if prefix else field["name"]
        inner = field["table"]
        if any(f["kind"] not in ("table", "choice") for f in inner["fields"]):
            out += ["", f"[{key}]"]
        if field["kind"] == "choice":
            out.append('# or: available = false and reason = "why the board cannot"')
        _template(inner, key, out, board)


def load_platform(name: str | os.PathLike[str]) -> Platform:
    """Load and check a platform by id (``"telosb"``) or by path (``"x/y.toml"``).

    Raises FileError naming the file, each bad key, its value and what is allowed.
    """
    path = platform_path(name)
    if not is_path(name) and not path.is_file():
        ids = list_platforms()
        known = ", ".join(ids) or "(none)"
        hint = did_you_mean(os.fspath(name), ids)
        why = f"no such platform{hint}; known: {known} (`dtlsim platforms` lists them)"
        raise FileError(path, [Problem("(file)", os.fspath(name), why)])
    data = parse_toml(path)
    problems: list[Problem] = []
    platform: Platform | None = None
    try:
        platform = check_file(path, data, "platform", CLASSES)
    except FileError as e:
        problems.extend(e.problems)
    file_id = data.get("id")
    if isinstance(file_id, str) and file_id != path.stem:
        problems.append(Problem("id", file_id, f"must equal the file name stem {path.stem!r}"))
    if problems or platform is None:
        raise FileError(path, problems)
    return platform
