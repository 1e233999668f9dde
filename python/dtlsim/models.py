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
    """Duration of one CCM* operation on this platform (SPEC §5 cost model)."""
    if level == "none":
        return 0.0
    c = ccm_cost(platform, strategy)
    blocks = _core.ccm_star_blocks(level, header_len, payload_len)
    per_block = c["aes_block_us"] + c["per_block_overhead_us"]
    per_block += c["bus_bytes_per_block"] * c["bus_us_per_byte"]
    return c["setup_us"] + blocks * per_block


def timeslot(platform: Platform, strategy: str, level: str, **kw: Any) -> dict[str, Any]:
    """Minimal TSCH timeslot (SPEC §3) for one platform, strategy and level."""
    return _core.minimal_timeslot(level, **ccm_cost(platform, strategy), **kw)
