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

where ``n_blocks`` is the number of AES invocations CCM* needs for the frame,
counted by :func:`ccm_blocks`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator

from dtlsim.schema import FileError, Problem, StrictModel, parse_toml, validate

STRATEGIES: tuple[str, ...] = ("software", "hybrid", "hardware")

ENV_PLATFORMS = "DTLSIM_PLATFORMS"
"""Environment variable naming a directory to load platform files from."""

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


class ByteCount(Sourced):
    """A memory size in bytes: a positive integer."""

    value: Annotated[int, Field(strict=True, gt=0)]


# --------------------------------------------------------------------------
# Tables of a platform file.


class Supply(StrictModel):
    voltage_v: Voltage


class Mcu(StrictModel):
    part: Text
    clock_mhz: ClockMHz
    ram_bytes: ByteCount
    flash_bytes: ByteCount
    active_current_ma: Positive
    lpm_current_ma: Positive
    frame_processing_us: NonNegative


class Radio(StrictModel):
    part: Text
    on_chip: bool
    tx_current_ma: Positive
    rx_current_ma: Positive
    idle_current_ma: Positive
    off_current_ma: NonNegative
    bus_us_per_byte: NonNegative


class CryptoStrategy(StrictModel):
    """Costs of one implementation strategy; every number is required."""

    available: Literal[True] = True
    aes_block_us: NonNegative
    ccm_setup_us: NonNegative
    ccm_per_block_overhead_us: NonNegative
    bus_bytes_per_block: NonNegative
    sha256_block_us: NonNegative
    p256_ecdh_us: NonNegative
    p256_ecdsa_sign_us: NonNegative
    p256_ecdsa_verify_us: NonNegative

    def ccm_us(self, n_blocks: int, bus_us_per_byte: float) -> float:
        """Duration of one CCM* operation needing ``n_blocks`` AES invocations."""
        if n_blocks < 0:
            raise ValueError(f"n_blocks must be >= 0, got {n_blocks}")
        if n_blocks == 0:
            return 0.0
        per_block = (
            self.aes_block_us.value
            + self.ccm_per_block_overhead_us.value
            + self.bus_bytes_per_block.value * bus_us_per_byte
        )
        return self.ccm_setup_us.value + n_blocks * per_block


class UnavailableStrategy(StrictModel):
    """A strategy this hardware cannot do, and why."""

    available: Literal[False]
    reason: Source


class Crypto(StrictModel):
    """The three strategy tables; ``crypto["hybrid"]`` works as well as ``crypto.hybrid``."""

    software: CryptoStrategy | UnavailableStrategy
    hybrid: CryptoStrategy | UnavailableStrategy
    hardware: CryptoStrategy | UnavailableStrategy

    @field_validator("software", "hybrid", "hardware", mode="wrap")
    @classmethod
    def _pick_schema(cls, value: Any, handler: Any) -> Any:
        """Pick the schema by ``available`` so errors name the keys the user wrote."""
        if isinstance(value, dict):
            unavailable = value.get("available", True) is False
            model = UnavailableStrategy if unavailable else CryptoStrategy
            # A ValidationError raised here keeps its locations, prefixed by the field.
            return model.model_validate(value)
        return handler(value)

    def __getitem__(self, name: str) -> CryptoStrategy | UnavailableStrategy:
        if name not in STRATEGIES:
            raise KeyError(f"unknown strategy {name!r}; strategies are {', '.join(STRATEGIES)}")
        return getattr(self, name)

    def items(self) -> list[tuple[str, CryptoStrategy | UnavailableStrategy]]:
        return [(name, self[name]) for name in STRATEGIES]


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

    def available_strategies(self) -> list[str]:
        return [name for name in STRATEGIES if self.crypto[name].available]

    def ccm_star_us(self, strategy: str, a_len: int, m_len: int, mic_len: int) -> float:
        """Duration of CCM* on one frame: ``a_len`` authenticated-only bytes,
        ``m_len`` encrypted bytes and a MIC of ``mic_len`` bytes (0, 4, 8 or 16)."""
        blocks = ccm_blocks(a_len, m_len, mic_len)
        return self.strategy(strategy).ccm_us(blocks, self.radio.bus_us_per_byte.value)

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
# CCM* block count.

MIC_LENGTHS = (0, 4, 8, 16)


def ccm_blocks(a_len: int, m_len: int, mic_len: int) -> int:
    """Number of AES-128 invocations for CCM* (IEEE 802.15.4 annex B, RFC 3610).

    ``a_len``: bytes authenticated but not encrypted (MAC header, auxiliary
    security header, and for MIC-only levels the payload too); ``m_len``: bytes
    encrypted (0 for MIC-only levels); ``mic_len``: 0 for ENC-only, else 4/8/16.

    * CBC-MAC (only when ``mic_len > 0``): one block B0, then the 2-byte length
      field plus ``a`` padded to 16-byte blocks (nothing if ``a_len == 0``),
      then ``m`` padded to 16-byte blocks;
    * CTR: one block per 16 bytes of ``m``, plus A0 that encrypts the MIC.

    Example: l(a) = 50, l(m) = 69, MIC 8 (the CC2420 datasheet's 119-byte
    CCM example) gives 1 + 4 + 5 = 10 CBC-MAC blocks and 5 + 1 = 6 CTR blocks,
    16 in all.
    """
    if a_len < 0 or m_len < 0:
        raise ValueError(f"lengths must be >= 0, got a_len={a_len}, m_len={m_len}")
    if a_len + 2 >= 0xFF00:
        raise ValueError(f"a_len={a_len} needs a long length encoding, not an 802.15.4 frame")
    if mic_len not in MIC_LENGTHS:
        raise ValueError(f"mic_len must be one of {MIC_LENGTHS}, got {mic_len}")
    ctr = math.ceil(m_len / 16)
    if mic_len == 0:
        return ctr
    cbc = 1 + (math.ceil((a_len + 2) / 16) if a_len > 0 else 0) + math.ceil(m_len / 16)
    return cbc + ctr + 1


# --------------------------------------------------------------------------
# Finding and loading files.


def platforms_dir() -> Path:
    """``$DTLSIM_PLATFORMS`` if set, else the repository's ``platforms/``."""
    override = os.environ.get(ENV_PLATFORMS)
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent.parent / "platforms"


def _is_path(name: str | os.PathLike[str]) -> bool:
    text = os.fspath(name)
    return text.endswith(".toml") or os.sep in text or "/" in text


def platform_path(name: str | os.PathLike[str]) -> Path:
    """Path of platform ``name``: an id in the platforms directory, or a ``.toml`` path."""
    if _is_path(name):
        return Path(name)
    return platforms_dir() / f"{name}.toml"


def list_platforms() -> list[str]:
    """Ids of the platforms in the platforms directory, sorted."""
    directory = platforms_dir()
    if not directory.is_dir():
        return []
    return sorted(p.stem for p in directory.glob("*.toml") if p.is_file())


def load_platform(name: str | os.PathLike[str]) -> Platform:
    """Load and validate a platform by id (``"telosb"``) or by path (``"x/y.toml"``).

    Raises FileError naming the file, each bad key, its value and what is allowed.
    """
    path = platform_path(name)
    if not _is_path(name) and not path.is_file():
        known = ", ".join(list_platforms()) or "(none)"
        raise FileError(
            path, [Problem("(file)", os.fspath(name), f"no such platform; known: {known}")]
        )
    data = parse_toml(path)
    problems: list[Problem] = []
    platform: Platform | None = None
    try:
        platform = validate(path, data, Platform)
    except FileError as e:
        problems.extend(e.problems)
    file_id = data.get("id")
    if isinstance(file_id, str) and file_id != path.stem:
        problems.append(Problem("id", file_id, f"must equal the file name stem {path.stem!r}"))
    if problems or platform is None:
        raise FileError(path, problems)
    return platform
