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
from typing import Any

import numpy as np
import pyarrow as pa

from dtlsim import _core, arrays, keys, models
from dtlsim.platform import Platform, load_platform
from dtlsim.scenario import Point


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
    node did over that row's interval, with its lifetime on the platform's
    battery (`with_lifetime`)."""
    plat = load_platform(point["platform"])
    columns, node_columns = _core.simulate(
        settled(point),
        json.dumps(platform_figures(point, plat)),
        first,
        count,
        pcap=str(pcap) if pcap else None,
        jammed=jammed or [],
        pcap_node=pcap_node,
    )
    table = without_other_macs(columns_to_table(columns), point[keys.MAC_KIND])
    if point[keys.WORKLOAD_KIND] == "handshakes":
        # a success has `duration_s`, a failure `give_up_s`, a client that
        # got its keys `keys_s`: every column, even in a block whose
        # handshakes all went one way
        for name in ("duration_s", "give_up_s", "keys_s"):
            if name not in table.column_names:
                table = table.append_column(name, pa.nulls(table.num_rows, pa.float64()))
    nodes = columns_to_table(node_columns)
    if "delivery_ratio" not in nodes.column_names:  # no node started a packet
        nodes = nodes.append_column("delivery_ratio", pa.nulls(nodes.num_rows, pa.float64()))
    return table, with_lifetime(nodes, plat, point[keys.BATTERY])


def with_lifetime(nodes: pa.Table, plat: Platform, battery: str = "platform") -> pa.Table:
    """The per-node table with each node's mean power (`mean_power_mw`) and
    lifetime on the battery the scenario's `battery` key chooses among the
    platform's (`lifetime_days`; the charge it used in `battery_mah`): the
    battery's charge over the node's mean current, the current being its
    energy over the interval at the supply voltage (energy = current x
    voltage x time, so this is the current the model drew). A node that
    keeps spending as it did in the interval empties a `battery_mah`
    battery after battery_mah / current_ma hours. Regulator losses,
    self-discharge and the cell's voltage falling with charge are not
    modelled."""
    charge = plat.battery(battery)
    if charge is None:  # refused when the scenario is checked (platform_checks)
        raise ValueError(f"platform {plat.id} lists no battery {battery!r}")
    energy_uj = arrays.floats(nodes.column("energy_uj"))
    interval_s = arrays.floats(nodes.column("interval_s"))
    with np.errstate(divide="ignore", invalid="ignore"):
        power_mw = energy_uj / interval_s / 1e3  # µJ/s = µW
        current_ma = power_mw / plat.supply.voltage_v.value
        days = charge.value / current_ma / 24.0
    # an interval of no time, or a node that spent nothing: no figure
    nodes = nodes.append_column(
        "mean_power_mw", arrays.numbers(power_mw, null=~np.isfinite(power_mw))
    )
    # from NumPy's buffer: a Python list would have pyarrow load pandas
    charge_mah = np.full(nodes.num_rows, charge.value)
    nodes = nodes.append_column("battery_mah", arrays.numbers(charge_mah))
    return nodes.append_column("lifetime_days", arrays.numbers(days, null=~np.isfinite(days)))


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
    return columns_to_table(columns), dropped


# Per-node counts that only one MAC keeps: the core writes them (as 0) for
# every MAC, the rows of another MAC leave them out.
ONE_MAC_COUNTS = {"strobes_sent": "xmac"}


def without_other_macs(table: pa.Table, mac: str) -> pa.Table:
    """`table` without the per-node columns of MACs other than `mac`."""
    other = {q for q, owner in ONE_MAC_COUNTS.items() if owner != mac}
    return table.drop_columns(
        [c for c in table.column_names if c.startswith("node") and c.split("_", 1)[-1] in other]
    )


_TYPES = {"f64": pa.float64(), "i64": pa.int64()}


def _column(kind: str, data: Any, valid: bytes | None) -> pa.Array:
    """One simulator column as an Arrow array, built on its buffers (`dtlsim.arrays`)."""
    validity = None if valid is None else arrays.bits(valid)
    if kind == "str":
        return arrays.strings(data, validity)
    if kind == "bool":
        return pa.Array.from_buffers(pa.bool_(), len(data), [validity, arrays.bits(data)])
    n = len(data) // 8
    return pa.Array.from_buffers(_TYPES[kind], n, [validity, pa.py_buffer(data)])


def columns_to_table(columns: list[tuple[str, str, Any, bytes | None]]) -> pa.Table:
    """The simulator's columns (name, kind, data, validity) as an Arrow table."""
    arrays = [_column(kind, data, valid) for _, kind, data, valid in columns]
    return pa.table(arrays, names=[c[0] for c in columns])
