"""Device platforms: the data files in ``platforms/*.toml`` and their schema.

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
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import Field, StringConstraints, field_validator

from dtlsim import resources
from dtlsim.problems import _MISSING, did_you_mean
from dtlsim.schema import FileError, Problem, StrictModel, parse_toml, scenario_names, validate

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

Source = Annotated[str, StringConstraints(strip_whitespace=True, min_length=SOURCE_MIN_CHARS)]
"""Where a figure comes from: document, revision, table or section, or derivation."""

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


# --------------------------------------------------------------------------
# Sourced quantities: a value and where it comes from.


class Sourced(StrictModel):
    """A number with its source. Subclasses set the allowed range of ``value``."""

    value: float
    source: Source

    def __float__(self) -> float:
        return float(self.value)


class Positive(Sourced):
    """A physical quantity that must be strictly positive (currents, clock...)."""

    value: Annotated[float, Field(strict=True, gt=0)]


class NonNegative(Sourced):
    """A duration, count or current that may be zero."""

    value: Annotated[float, Field(strict=True, ge=0)]


class Voltage(Sourced):
    value: Annotated[float, Field(strict=True, gt=0, le=12)]


class ClockMHz(Sourced):
    value: Annotated[float, Field(strict=True, gt=0, le=1000)]


class PowerDbm(Sourced):
    """A power in dBm: a radio's output or what its receiver needs (a
    figure in mW would be positive and large: refused)."""

    value: Annotated[float, Field(strict=True, ge=-130, le=30)]


class Decibels(Sourced):
    value: Annotated[float, Field(strict=True, ge=0, le=60)]


class ByteCount(Sourced):
    """A memory size in bytes: a positive integer."""

    value: Annotated[int, Field(strict=True, gt=0)]


# --------------------------------------------------------------------------
# Tables of a platform file.


class Batteries(StrictModel):
    """The batteries a board is commonly run from, for lifetime figures
    beside the one `battery_mah` the result rows use."""

    # one CR2032 lithium coin cell
    cr2032_mah: Positive
    # two AA alkaline cells in series
    aa2_mah: Positive


class Supply(StrictModel):
    voltage_v: Voltage
    # the charge of the battery the supply runs from: a node's lifetime
    battery_mah: Positive
    # the common battery options, each with its charge (optional)
    batteries: Batteries | None = None


class Mcu(StrictModel):
    part: Text
    clock_mhz: ClockMHz
    ram_bytes: ByteCount
    flash_bytes: ByteCount
    active_current_ma: Positive
    lpm_current_ma: Positive
    frame_processing_us: NonNegative
    # the 32 kHz crystal's frequency tolerance; absent: perfect clocks
    crystal_tolerance_ppm: NonNegative | None = None


class Radio(StrictModel):
    part: Text
    on_chip: bool
    tx_current_ma: Positive
    rx_current_ma: Positive
    idle_current_ma: Positive
    off_current_ma: NonNegative
    bus_us_per_byte: NonNegative
    # the signal media's figures (medium.kind = "log-distance"); absent:
    # that medium is refused on this platform
    tx_power_min_dbm: PowerDbm | None = None
    tx_power_max_dbm: PowerDbm | None = None
    sensitivity_dbm: PowerDbm | None = None
    cca_threshold_dbm: PowerDbm | None = None
    cca_hysteresis_db: Decibels | None = None


class Curve25519(StrictModel):
    """X25519 (RFC 7748) and Ed25519 (RFC 8032) in one strategy."""

    x25519_us: NonNegative
    ed25519_sign_us: NonNegative
    ed25519_verify_us: NonNegative


class CryptoStrategy(StrictModel):
    """Costs of one implementation strategy; every number is required."""

    available: Literal[True] = True
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


class UnavailableStrategy(StrictModel):
    """A strategy this hardware cannot do, and why."""

    available: Literal[False]
    reason: Source


def _by_availability(
    value: Any,
    handler: Any,
    available: type[StrictModel],
    unavailable: type[StrictModel] | None = None,
) -> Any:
    """Pick a table's schema by ``available`` (a strategy's by default) so errors
    name the keys the user wrote; a ValidationError raised here keeps its
    locations, prefixed by the field."""
    if isinstance(value, dict):
        absent = value.get("available", True) is False
        model = (unavailable or UnavailableStrategy) if absent else available
        return model.model_validate(value)
    return handler(value)


class Crypto(StrictModel):
    """The three strategy tables; ``crypto["hybrid"]`` works as well as ``crypto.hybrid``."""

    software: CryptoStrategy | UnavailableStrategy
    hybrid: CryptoStrategy | UnavailableStrategy
    hardware: CryptoStrategy | UnavailableStrategy

    @field_validator("software", "hybrid", "hardware", mode="wrap")
    @classmethod
    def _pick_schema(cls, value: Any, handler: Any) -> Any:
        return _by_availability(value, handler, CryptoStrategy)

    def __getitem__(self, name: str) -> CryptoStrategy | UnavailableStrategy:
        if name not in STRATEGIES:
            raise KeyError(f"unknown strategy {name!r}; strategies are {', '.join(STRATEGIES)}")
        return getattr(self, name)

    def items(self) -> list[tuple[str, CryptoStrategy | UnavailableStrategy]]:
        return [(name, self[name]) for name in STRATEGIES]


class StrategyProfile(StrictModel):
    """What a stack changes in one strategy: the ``crypto.<strategy>`` figures
    it names replace the datasheet ones; the bus bytes are its own."""

    available: Literal[True] = True
    aes_block_us: NonNegative | None = None
    ccm_setup_us: NonNegative | None = None
    ccm_per_block_overhead_us: NonNegative | None = None
    bus_bytes_per_block: NonNegative | None = None
    bus_bytes_per_op: NonNegative
    frame_over_bus: bool


class ImplementationProfile(StrictModel):
    """A real stack on this platform: its per-slot processing (measured, no
    security), its policy/key lookup per secured operation, and per strategy
    what it changes."""

    available: Literal[True] = True
    stack: Text
    tx_data_prepare_us: NonNegative
    radio_tx_delay_us: NonNegative
    tx_ack_prepare_us: NonNegative
    key_lookup_us: NonNegative
    software: StrategyProfile | UnavailableStrategy
    hybrid: StrategyProfile | UnavailableStrategy
    hardware: StrategyProfile | UnavailableStrategy

    @field_validator("software", "hybrid", "hardware", mode="wrap")
    @classmethod
    def _pick_schema(cls, value: Any, handler: Any) -> Any:
        return _by_availability(value, handler, StrategyProfile)


class UnavailableProfile(StrictModel):
    """A stack that does not run on this platform, and why."""

    available: Literal[False]
    reason: Source


class Implementations(StrictModel):
    openwsn: ImplementationProfile | UnavailableProfile

    @field_validator("openwsn", mode="wrap")
    @classmethod
    def _pick_schema(cls, value: Any, handler: Any) -> Any:
        return _by_availability(value, handler, ImplementationProfile, UnavailableProfile)


# The scenario's `battery` key (declared in crates/schema, point.rs): each
# value and the [supply] figure holding that battery's charge.
BATTERIES = {
    "platform": "supply.battery_mah",
    "cr2032": "supply.batteries.cr2032_mah",
    "2xAA": "supply.batteries.aa2_mah",
}


class Platform(StrictModel):
    """One device profile, as read from ``platforms/<id>.toml``."""

    schema_version: Literal[1]
    name: Text
    id: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$")]
    summary: Text
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


def _walk(model: StrictModel, prefix: str) -> Iterator[tuple[str, Sourced]]:
    for field in type(model).model_fields:
        value = getattr(model, field)
        key = f"{prefix}.{field}" if prefix else field
        if isinstance(value, Sourced):
            yield key, value
        elif isinstance(value, StrictModel):
            yield from _walk(value, key)


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
# A template of a file, and every key it must hold, from the models above.

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


def _range_of(model: type[Sourced]) -> str:
    """The allowed values of a sourced figure's `value`, from its model."""
    parts = []
    for m in model.model_fields["value"].metadata:
        for attr, sign in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<=")):
            bound = getattr(m, attr, None)
            if bound is not None:
                parts.append(f"{sign} {bound}")
    kind = model.model_fields["value"].annotation
    whole = "a whole number " if kind is int or "int" in str(kind) else ""
    return whole + ", ".join(parts) if parts else "a number"


def _model_of(annotation: Any) -> tuple[Any, bool]:
    """The type a field takes (an optional or an unavailable alternative
    set aside), and whether it may be left out."""
    args = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else ()
    if not args:
        return annotation, False
    optional = type(None) in args
    taken = [a for a in args if a is not type(None) and not _unavailable(a)]
    return taken[0], optional


def _unavailable(t: Any) -> bool:
    return isinstance(t, type) and t.__name__.startswith("Unavailable")


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, StrictModel)


def required_keys(model: type[StrictModel] = Platform, prefix: str = "") -> Iterator[str]:
    """The dotted key of every figure and name a file must give, in the
    order of the template (a table's strategies in their available form)."""
    for name, field in model.model_fields.items():
        key = f"{prefix}.{name}" if prefix else name
        t, optional = _model_of(field.annotation)
        if optional or not field.is_required():
            continue
        if _is_model(t) and not issubclass(t, Sourced):
            yield from required_keys(t, key)
        else:
            yield key


def template(board: str) -> str:
    """A platform file for `board` with every key, its unit and its allowed
    values, generated from the models: each figure `{ value = 0, source = "" }`
    to fill in (the file is refused until every figure has its value and its
    source)."""
    out = [
        f'# Platform {board}: every figure {{ value = ..., source = "..." }}, the source',
        "# naming the datasheet and table, or the derivation (`estimate: ...` with the",
        f"# reasoning where no document gives it; at least {SOURCE_MIN_CHARS} characters).",
        "# A strategy or implementation the board cannot do is written",
        "# `available = false` with a `reason` instead of its figures.",
        f"# Check it with: dtlsim platforms {board}.toml",
        "",
    ]
    _template(Platform, "", out, board)
    return "\n".join(out).rstrip("\n") + "\n"


def _template(model: type[StrictModel], prefix: str, out: list[str], board: str) -> None:
    tables = []
    for name, field in model.model_fields.items():
        t, optional = _model_of(field.annotation)
        if name == "available":
            continue
        if _is_model(t) and not issubclass(t, Sourced):
            tables.append((name, t, any(_unavailable(a) for a in get_args(field.annotation))))
            continue
        comment = "# " if optional else ""
        if _is_model(t):
            unit = unit_of(name)
            what = f"{unit}, " if unit else ""
            line = f'{name} = {{ value = 0, source = "" }}'
            note = f"{what}{_range_of(t)}"
        elif name == "schema_version":
            line, note = "schema_version = 1", "the file format"
        elif name == "id":
            line, note = f'id = "{board}"', "the file's name without .toml"
        elif t is bool:
            line, note = f"{name} = false", "true or false"
        else:
            line, note = f'{name} = ""', "text"
        if optional:
            note += "; optional"
        out.append(f"{comment}{line}  # {note}")
    for name, t, may_be_absent in tables:
        key = f"{prefix}.{name}" if prefix else name
        if any(
            not _is_model(_model_of(f.annotation)[0])
            or issubclass(_model_of(f.annotation)[0], Sourced)
            for f in t.model_fields.values()
        ):
            out += ["", f"[{key}]"]
        if may_be_absent:
            out.append('# or: available = false and reason = "why the board cannot"')
        _template(t, key, out, board)


def _expand_missing(problems: list[Problem]) -> list[Problem]:
    """A missing table said as every key it must hold, so that one pass
    names all that is missing; a short source said with its reason."""
    tables = {k.rsplit(".", n)[0] for k in required_keys() for n in range(1, k.count(".") + 1)}
    out = []
    for p in problems:
        if p.value is _MISSING and p.key in tables:
            out.extend(
                Problem(k, _MISSING, "required key is missing")
                for k in required_keys()
                if k.startswith(f"{p.key}.")
            )
        elif p.allowed == "String should have at least 1 character":
            out.append(Problem(p.key, p.value, "must not be empty"))
        elif p.key.endswith((".source", ".reason")) and "at least" in p.allowed:
            why = (
                "a source must say where the figure comes from (datasheet and table, "
                "or the derivation, or `estimate:` with the reasoning): at least "
                f"{SOURCE_MIN_CHARS} characters"
            )
            out.append(Problem(p.key, p.value, why))
        else:
            out.append(p)
    return out


def load_platform(name: str | os.PathLike[str]) -> Platform:
    """Load and validate a platform by id (``"telosb"``) or by path (``"x/y.toml"``).

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
        platform = validate(path, data, Platform)
    except FileError as e:
        problems.extend(_expand_missing(e.problems))
    file_id = data.get("id")
    if isinstance(file_id, str) and file_id != path.stem:
        problems.append(Problem("id", file_id, f"must equal the file name stem {path.stem!r}"))
    if problems or platform is None:
        raise FileError(path, problems)
    return platform
