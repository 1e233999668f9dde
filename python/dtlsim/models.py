"""The closed-form models with platform data plugged in (thin over `_core`)."""

from __future__ import annotations

from typing import Any

from dtlsim import _core
from dtlsim.platform import Platform

SECURITY_LEVELS: tuple[str, ...] = tuple(_core.security_levels())


def ccm_cost(platform: Platform, strategy: str) -> dict[str, float]:
    """The CCM* cost parameters of one strategy, as the Rust models take them."""
    s = platform.strategy(strategy)
    return {
        "setup_us": s.ccm_setup_us.value,
        "aes_block_us": s.aes_block_us.value,
        "per_block_overhead_us": s.ccm_per_block_overhead_us.value,
        "bus_bytes_per_block": float(s.bus_bytes_per_block.value),
        "bus_us_per_byte": platform.radio.bus_us_per_byte.value,
    }


def ccm_duration_us(
    platform: Platform, strategy: str, level: str, header_len: int, payload_len: int
) -> float:
    """One CCM* operation on this platform: `header_len` bytes authenticated only,
    `payload_len` bytes private (cost model computed in `crates/models`)."""
    return _core.ccm_star_duration_us(
        level, header_len, payload_len, **ccm_cost(platform, strategy)
    )


def timeslot(platform: Platform, strategy: str, level: str, **kw: Any) -> dict[str, Any]:
    """Minimal TSCH timeslot for one platform, strategy and level."""
    return _core.minimal_timeslot(level, **ccm_cost(platform, strategy), **kw)
