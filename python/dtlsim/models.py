"""The closed-form models with platform data plugged in (thin over `_core`)."""

from __future__ import annotations

from typing import Any

from dtlsim import _core
from dtlsim.platform import Platform

SECURITY_LEVELS: tuple[str, ...] = tuple(_core.security_levels())


def ccm_cost(
    platform: Platform, strategy: str, implementation: str = "datasheet"
) -> dict[str, float]:
    """The CCM* cost parameters of one strategy, as the Rust models take them;
    an implementation profile replaces the figures it names."""
    s = platform.strategy(strategy)
    _, table = platform.profile(implementation, strategy)

    def figure(name: str) -> float:
        override = getattr(table, name) if table is not None else None
        return float((override or getattr(s, name)).value)

    return {
        "setup_us": figure("ccm_setup_us"),
        "aes_block_us": figure("aes_block_us"),
        "per_block_overhead_us": figure("ccm_per_block_overhead_us"),
        "bus_bytes_per_block": figure("bus_bytes_per_block"),
        "bus_us_per_byte": platform.radio.bus_us_per_byte.value,
    }


def stack_cost(
    platform: Platform, strategy: str, implementation: str = "datasheet"
) -> dict[str, float | bool]:
    """What a real stack adds around CCM* (all zero for ``datasheet``): the
    per-operation lookup and bus bytes, and its per-slot processing before
    TsTxOffset and within TsTxAckDelay (each including the radio's start of
    transmission, which stands in for the 192 µs turnaround)."""
    profile, table = platform.profile(implementation, strategy)
    if profile is None or table is None:
        return {
            "key_lookup_us": 0.0,
            "bus_bytes_per_op": 0.0,
            "frame_over_bus": False,
            "tx_prepare_us": 0.0,
            "ack_prepare_us": 0.0,
        }
    start_tx = profile.radio_tx_delay_us.value
    return {
        "key_lookup_us": profile.key_lookup_us.value,
        "bus_bytes_per_op": table.bus_bytes_per_op.value,
        "frame_over_bus": table.frame_over_bus,
        "tx_prepare_us": profile.tx_data_prepare_us.value + start_tx,
        "ack_prepare_us": profile.tx_ack_prepare_us.value + start_tx,
    }


def ccm_duration_us(
    platform: Platform, strategy: str, level: str, header_len: int, payload_len: int
) -> float:
    """One CCM* operation on this platform: `header_len` bytes authenticated only,
    `payload_len` bytes private (cost model computed in `crates/models`)."""
    return _core.ccm_star_duration_us(
        level, header_len, payload_len, **ccm_cost(platform, strategy)
    )


def timeslot(
    platform: Platform,
    strategy: str,
    level: str,
    implementation: str = "datasheet",
    **kw: Any,
) -> _core.MinimalTimeslot:
    """Minimal TSCH timeslot for one platform, strategy, level and implementation
    profile, with sec1..sec4 taken apart (lookup, bus, CCM*)."""
    return _core.minimal_timeslot(
        level,
        **ccm_cost(platform, strategy, implementation),
        **stack_cost(platform, strategy, implementation),
        **kw,
    )


def engset(slots: int, clients: int, erlang: float) -> _core.Engset:
    """M/M/R/R/N (Engset) blocking of a server with `slots` DTLS sessions and
    `clients` clients offering `erlang` each while idle: time and call
    congestion (Vučinić et al., PIMRC 2015)."""
    return _core.engset(slots, clients, erlang)


def tsch_handshake(
    slotframe: int, cells: list[int], pdr: list[float], frames: int, timeslot_ms: float
) -> _core.TschHandshake:
    """Expected time of a `frames`-frame handshake over TSCH hops with `cells`
    cells per slotframe and link PDR `pdr` each: the closed form
    (1 + L/(C+1))/P per hop and the exact expectation for C random cells."""
    return _core.tsch_handshake(slotframe, cells, pdr, frames, timeslot_ms)


def datagram_cost(
    suite: str | None, app_bytes: int, frame: _core.FrameSpec | None = None
) -> _core.DatagramCost:
    """Bytes one DTLS record of `suite` (None: plain UDP) adds around
    `app_bytes`, and the IEEE 802.15.4 frames the datagram takes under
    `frame` (default: short addresses, no link security, link-local IPHC)."""
    version = next((s["version"] for s in _core.suites() if s["name"] == suite), "1.2")
    return _core.datagram_cost(frame or _core.FrameSpec(), version, suite, app_bytes)
