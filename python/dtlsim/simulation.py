"""From a scenario point to the simulator's settings, and running it.

A point of `Scenario.points()` holds the core's settled point (`settled`:
read and settled once, when the scenario was checked) beside the flat
{dotted key: value} of its values. This module adds what the platform file
says (currents, voltage, crypto costs, per-frame CPU time) as JSON and hands
both to the Rust core, which turns them into the simulator's spec
(`crates/schema`) without reading the point again. One replication is one
independent network: fresh random wake-up phases, fresh keys,
`workload.handshakes` handshakes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dtlsim import _core, keys, models
from dtlsim.platform import Platform, load_platform
from dtlsim.scenario import Point

# pyarrow is imported where the rows come back as tables: a sweep to files
# has the core write them (`write_unit_files`) and needs none.
if TYPE_CHECKING:
    import pyarrow as pa


def settled(point: dict[str, Any]) -> _core.SettledPoint:
    """The core's settled point that a point of `Scenario.points()` holds."""
    if not isinstance(point, Point):
        raise TypeError(
            "a point of Scenario.points() is needed: it holds the core's settled point "
            "(dtlsim.scenario.variant makes a scenario with other values)"
        )
    return point.settled


def _power(plat: Platform) -> dict[str, float]:
    return {
        "voltage_v": plat.supply.voltage_v.value,
        "cpu_active_ma": plat.mcu.active_current_ma.value,
        "cpu_lpm_ma": plat.mcu.lpm_current_ma.value,
        "radio_tx_ma": plat.radio.tx_current_ma.value,
        "radio_rx_ma": plat.radio.rx_current_ma.value,
        "radio_off_ma": plat.radio.off_current_ma.value,
    }


def _crypto(plat: Platform, strategy: str) -> dict[str, float]:
    s = plat.strategy(strategy)
    return {
        "aes_block_us": s.aes_block_us.value,
        "sha256_block_us": s.sha256_block_us.value,
        "aes256_block_us": s.aes256_block_us.value,
        "sha512_block_us": s.sha512_block_us.value,
        "ecdh_us": s.p256_ecdh_us.value,
        "ecdsa_sign_us": s.p256_ecdsa_sign_us.value,
        "ecdsa_verify_us": s.p256_ecdsa_verify_us.value,
        "curve25519": {
            "x25519_us": s.curve25519.x25519_us.value,
            "ed25519_sign_us": s.curve25519.ed25519_sign_us.value,
            "ed25519_verify_us": s.curve25519.ed25519_verify_us.value,
        },
    }


def crypto_strategy(p: dict[str, Any], plat: Platform) -> str:
    """The platform cost table the point's handshake is charged at: EDHOC's
    own key (`platform`: the board's best), else DTLS's."""
    if p.get(keys.WORKLOAD_HANDSHAKE) == "edhoc":
        choice = p[keys.EDHOC_CRYPTO_STRATEGY]
        return plat.best_strategy() if choice == "platform" else choice
    return p[keys.DTLS_CRYPTO_STRATEGY]


def platform_figures(p: dict[str, Any], plat: Platform | None = None) -> dict[str, Any]:
    """What the point's platform file (`plat`, read if not given) says for
    its strategies and implementation (`crates/schema`'s `PlatformCosts`)."""
    plat = plat or load_platform(p["platform"])
    strategy, implementation = p[keys.LINK_SECURITY_STRATEGY], p[keys.LINK_SECURITY_IMPLEMENTATION]
    out: dict[str, Any] = {
        "power": _power(plat),
        "crypto": _crypto(plat, crypto_strategy(p, plat)),
        "frame_processing_us": plat.mcu.frame_processing_us.value,
        "bus_us_per_byte": plat.radio.bus_us_per_byte.value,
        "ram_bytes": plat.mcu.ram_bytes.value,
    }
    r = plat.radio
    figures = (
        r.tx_power_min_dbm,
        r.tx_power_max_dbm,
        r.sensitivity_dbm,
        r.cca_threshold_dbm,
        r.cca_hysteresis_db,
    )
    if all(f is not None for f in figures):
        names = ("tx_power_min_dbm", "tx_power_max_dbm", "sensitivity_dbm")
        names += ("cca_threshold_dbm", "cca_hysteresis_db")
        out["radio"] = {n: f.value for n, f in zip(names, figures, strict=True)}  # type: ignore[union-attr]
    if plat.mcu.crystal_tolerance_ppm is not None:
        out["crystal_tolerance_ppm"] = plat.mcu.crystal_tolerance_ppm.value
    if p.get(keys.SESSIONS_SERVER_CRYPTO) == "host":
        # the server on a backend host (RFC 9031 §3's JRC): its own table
        from dtlsim import hosts

        out["server_crypto"] = hosts.server_crypto(hosts.load_host())
    if p[keys.LINK_SECURITY_LEVEL] != "none":
        out["ccm"] = models.ccm_cost(plat, strategy, implementation)
    if p[keys.MAC_KIND] == "tsch":
        # what the node's stack adds to each timeslot and secured operation
        out["stack"] = models.stack_cost(plat, strategy, implementation)
    return out


def run_unit(
    point: dict[str, Any],
    first: int,
    count: int,
    pcap: Path | None = None,
    jammed: list[tuple[int, int]] | None = None,
    pcap_node: int | None = None,
) -> pa.Table:
    """Replications first..first+count-1 of one point: their result rows.
    With `pcap`, the first one's frames are written there (with `pcap_node`,
    only what that node sent and received)."""
    return run_unit_with_nodes(point, first, count, pcap, jammed, pcap_node)[0]


def run_unit_with_nodes(
    point: dict[str, Any],
    first: int,
    count: int,
    pcap: Path | None = None,
    jammed: list[tuple[int, int]] | None = None,
    pcap_node: int | None = None,
) -> tuple[pa.Table, pa.Table]:
    """`run_unit`'s result rows and, beside them, the per-node table: a row
    per node and result row (`replication`, `index`, `node`) saying what the
    node did over that row's interval, with its mean power and lifetime on
    the battery the scenario's `battery` key chooses among the platform's
    (the core's `unit_files::tables` says how)."""
    tables = _simulate(
        point, first, count, pcap=str(pcap) if pcap else None, jammed=jammed or [],
        pcap_node=pcap_node,
    )  # fmt: skip
    assert tables is not None  # no files asked for: the tables come back
    from dtlsim import arrays

    rows, nodes = tables
    return arrays.table(rows), arrays.table(nodes)


def write_unit_files(
    point: dict[str, Any],
    first: int,
    count: int,
    params: dict[str, Any],
    rows: Path,
    nodes: Path,
) -> None:
    """`run_unit_with_nodes` with `params` in front of every row, written by
    the core as Parquet: the result rows to `rows`, the per-node table to
    `nodes` (`dtlsim.sweep`'s unit files)."""
    _simulate(point, first, count, params=list(params.items()), files=(rows, nodes))


def _simulate(
    point: dict[str, Any], first: int, count: int, **options: Any
) -> tuple[list[_core.Column], list[_core.Column]] | None:
    """`_core.simulate` of the point on its platform's figures and battery
    (`options`: its keyword arguments)."""
    plat = load_platform(point["platform"])
    charge = plat.battery(point[keys.BATTERY])
    if charge is None:  # refused when the scenario is checked (platform_checks)
        raise ValueError(f"platform {plat.id} lists no battery {point[keys.BATTERY]!r}")
    figures = json.dumps(platform_figures(point, plat))
    return _core.simulate(settled(point), figures, first, count, charge.value, **options)


def trace_unit(
    point: dict[str, Any],
    replication: int,
    limit: int,
    pcap: Path | None = None,
    pcap_node: int | None = None,
) -> tuple[pa.Table, int]:
    """One replication's per-event trace (at most `limit` rows; `sim::trace`)
    and how many rows the limit left out; with `pcap`, its frames too."""
    columns, dropped = _core.trace(
        settled(point),
        json.dumps(platform_figures(point)),
        replication,
        limit,
        pcap=str(pcap) if pcap else None,
        pcap_node=pcap_node,
    )
    from dtlsim import arrays

    return arrays.table(columns), dropped
