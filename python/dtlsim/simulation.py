"""From a scenario point to the simulator's settings, and running it.

A point is the flat {dotted key: value} of every scenario parameter (see
`Scenario.points`). This module adds what the platform file says (currents,
voltage, crypto costs, per-frame CPU time) and hands the whole to the Rust
simulator as JSON. One replication is one independent network: fresh
random wake-up phases, fresh keys, `workload.handshakes` handshakes.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from dtlsim import _core, models
from dtlsim.platform import Platform, load_platform

SIMULATED_MACS = ("csma", "xmac", "beacon", "tsch")


def _mac(p: dict[str, Any]) -> dict[str, Any]:
    kind = p["mac.kind"]
    if kind == "beacon":
        return {
            "kind": "beacon",
            "beacon_order": p["mac.beacon.beacon_order"],
            "superframe_order": p["mac.beacon.superframe_order"],
            "min_be": p["mac.beacon.min_be"],
            "max_be": p["mac.beacon.max_be"],
            "max_backoffs": p["mac.beacon.max_backoffs"],
            "max_retries": p["mac.beacon.max_retries"],
            "guard_time_us": p["mac.beacon.guard_time_us"],
            "offset_us": p["mac.beacon.superframe_offset_us"],
            "poll": p["mac.beacon.poll"],
        }
    if kind == "csma":
        return {
            "kind": "csma",
            "min_be": p["mac.csma.min_be"],
            "max_be": p["mac.csma.max_be"],
            "max_backoffs": p["mac.csma.max_backoffs"],
            "max_retries": p["mac.csma.max_retries"],
        }
    if kind == "xmac":
        ci = p["mac.xmac.check_interval_ms"]
        return {
            "kind": "xmac",
            "check_interval_ms": ci,
            "on_time_ms": p["mac.xmac.on_time_ms"],
            "strobe_time_ms": ci + p["mac.xmac.strobe_margin_ms"],
            "strobe_period_ms": p["mac.xmac.strobe_period_ms"],
            "data_wait_ms": p["mac.xmac.data_wait_ms"],
            "encounter_optimization": p["mac.xmac.encounter_optimization"],
            "encounter_lead_ms": p["mac.xmac.encounter_lead_ms"],
            "max_transmissions": p["mac.xmac.max_transmissions"],
            "abort_on_strobe": p["mac.xmac.abort_on_strobe"],
        }
    if kind == "tsch":
        return {
            "kind": "tsch",
            "slotframe": p["mac.tsch.slotframe_length"],
            "schedule": "given"
            if p["mac.tsch.cell_placement"] == "given"
            else p["mac.tsch.schedule"],
            "cells": [
                [c["sender"], c["receiver"], c["slot"], c["channel_offset"]]
                for c in p["mac.tsch.cells"]
            ],
            "shared_cells": p["mac.tsch.shared_cells"],
            "channel_pdr": p["mac.tsch.channel_pdr"],
            "cells_per_link": p["mac.tsch.cells_per_link"],
            "timeslot_ms": p["mac.tsch.timeslot_ms"],
            "max_retries": p["mac.tsch.max_retries"],
            "extended_addresses": p["mac.tsch.extended_addresses"],
        }
    raise ValueError(f"mac.kind = {kind!r}: the simulator runs {', '.join(SIMULATED_MACS)} so far")


def dtls_settings(p: dict[str, Any]) -> dict[str, Any]:
    """The DTLS knobs of a point, as `crates/py` reads them."""
    return {
        "suite": p["dtls.suite"],
        "identity": p["dtls.identity"],
        "psk": p["dtls.psk_hex"],
        "records_per_datagram": p["dtls.records_per_datagram"],
        "mtu": p["dtls.mtu_bytes"],
        "max_fragment": p["dtls.max_fragment_bytes"],
        "extended_master_secret": p["dtls.extended_master_secret"],
        "server_max_sessions": p["dtls.server_max_sessions"],
        "retransmission": {
            "policy": p["dtls.retransmission.policy"],
            "initial_ms": p["dtls.retransmission.initial_ms"],
            "max_ms": p["dtls.retransmission.max_ms"],
            "max_retransmissions": p["dtls.retransmission.max_retransmissions"],
        },
    }


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
        "ecdh_us": s.p256_ecdh_us.value,
        "ecdsa_sign_us": s.p256_ecdsa_sign_us.value,
        "ecdsa_verify_us": s.p256_ecdsa_verify_us.value,
    }


LEVELS = ("none", "mic-32", "mic-64", "mic-128", "enc", "enc-mic-32", "enc-mic-64", "enc-mic-128")


def _link_security(p: dict[str, Any], plat: Platform) -> dict[str, Any] | None:
    level = p["link_security.level"]
    implementation = p["link_security.implementation"]
    if level == "none":
        return None
    suppressed = p["link_security.frame_counter_suppressed"]
    if suppressed and p["mac.kind"] != "tsch":
        raise ValueError(
            "link_security.frame_counter_suppressed = true: only TSCH (ASN in the nonce) "
            f"suppresses the frame counter; mac.kind = {p['mac.kind']!r} sends it"
        )
    return {
        "level": LEVELS.index(level),
        "key_id_mode": p["link_security.key_id_mode"],
        "key": p["link_security.key_hex"],
        "frame_counter_suppressed": suppressed,
        "cost": models.ccm_cost(plat, p["link_security.strategy"], implementation),
    }


def _tsch_stack(p: dict[str, Any], plat: Platform) -> dict[str, Any]:
    """TSCH: what the node's stack adds to each timeslot and secured operation
    (`link_security.implementation`; nothing for the datasheet profile)."""
    if p["mac.kind"] != "tsch":
        return {}
    cost = models.stack_cost(plat, p["link_security.strategy"], p["link_security.implementation"])
    return {"stack": cost}


def settings(p: dict[str, Any]) -> dict[str, Any]:
    """Everything the simulator needs for one point."""
    if p["topology.kind"] == "line":
        hops = p["topology.hops"]
        topology = {"kind": "line", "nodes": hops + 1, "pdr": p["topology.pdr"]}
        client, server = 0, hops
    elif p["topology.kind"] == "random":
        nodes = p["topology.nodes"]
        topology = {
            "kind": "random",
            "nodes": nodes,
            "side_m": p["topology.area_side_m"],
            "range_m": p["topology.range_m"],
        }
        client, server = 0, nodes - 1
    else:
        links = p["topology.links"]
        nodes = 1 + max(max(link["a"], link["b"]) for link in links)
        topology = {
            "kind": "links",
            "nodes": nodes,
            "links": [[link["a"], link["b"], link["pdr"]] for link in links],
        }
        client, server = 0, nodes - 1
    if p["dtls.version"] != "1.2":
        raise ValueError(f"dtls.version = {p['dtls.version']!r}: the simulator runs 1.2 so far")
    plat = load_platform(p["platform"])
    dtls = dtls_settings(p)
    if p["workload.kind"] == "handshakes":
        workload: dict[str, Any] = {
            "kind": "handshakes",
            "count": p["workload.handshakes"],
            "pause_ms": p["workload.pause_ms"],
            "dtls": dtls,
        }
    elif p["workload.kind"] == "periodic":
        workload = {
            "kind": "periodic",
            "interval_ms": p["workload.report_interval_s"] * 1000.0,
            "payload": p["workload.report_payload_bytes"],
            "duration_s": p["workload.duration_s"],
        }
    elif p["workload.kind"] == "frames":
        wait = p["workload.frame_max_wait_ms"]
        if wait is None:
            tsch = p["mac.kind"] == "tsch"
            wait = p["mac.tsch.slotframe_length"] * p["mac.tsch.timeslot_ms"] if tsch else 1000.0
        workload = {
            "kind": "frames",
            "frames": p["workload.frames"],
            "payload": p["workload.frame_payload_bytes"],
            "max_wait_ms": wait,
        }
    else:
        security = p["workload.ping_security"]
        workload = {
            "kind": "ping",
            "payload": p["workload.ping_payload_bytes"],
            "count": p["workload.pings"],
            "timeout_ms": p["workload.ping_timeout_ms"],
            "pause_ms": p["workload.pause_ms"],
            "dtls": None if security == "none" else dtls | {"suite": security},
        }
    return {
        "topology": topology,
        "client": client,
        "server": server,
        "mac": _mac(p) | _tsch_stack(p, plat),
        "link_security": _link_security(p, plat),
        "frame_processing_us": plat.mcu.frame_processing_us.value,
        "bus_us_per_byte": plat.radio.bus_us_per_byte.value,
        "power": _power(plat),
        "crypto": _crypto(plat, p["dtls.crypto_strategy"]),
        "workload": workload,
        "start_ms": p["simulation.start_ms"],
        "max_time_s": p["simulation.max_time_s"],
        "timer_tick_ms": p["simulation.timer_tick_ms"],
        "seed": p["experiment.seed"],
        "outdated_key_nodes": _outdated_key_nodes(p, topology["nodes"]),
        "below_policy_nodes": _below_policy_nodes(p, topology["nodes"]),
    }


def _outdated_key_nodes(p: dict[str, Any], nodes: int) -> list[int]:
    listed = p["link_security.outdated_key_nodes"]
    if listed and p["link_security.level"] == "none":
        raise ValueError("link_security.outdated_key_nodes needs link_security.level != 'none'")
    for n in listed:
        if n >= nodes:
            raise ValueError(
                f"link_security.outdated_key_nodes: node {n} must be in [0, {nodes - 1}]"
            )
    return listed


def _below_policy_nodes(p: dict[str, Any], nodes: int) -> list[tuple[int, int]]:
    listed = p["link_security.below_policy_nodes"]
    if not listed:
        return []
    policy, level = p["link_security.level"], p["link_security.below_policy_level"]
    refused = partial(_core.below_policy, LEVELS.index(policy))
    allowed = [lv for lv in LEVELS[1:] if refused(LEVELS.index(lv))]
    if not allowed:
        raise ValueError(
            f"link_security.below_policy_nodes needs a link_security.level that refuses "
            f"some secured level; {policy!r} refuses none"
        )
    if level not in allowed:
        raise ValueError(
            f"link_security.below_policy_level = {level!r}: with level {policy!r} it must be "
            f"one of {', '.join(allowed)}"
        )
    for n in listed:
        if n >= nodes:
            raise ValueError(
                f"link_security.below_policy_nodes: node {n} must be in [0, {nodes - 1}]"
            )
    return [(n, LEVELS.index(level)) for n in listed]


def run_unit(
    point: dict[str, Any],
    first: int,
    count: int,
    pcap: Path | None = None,
    jammed: list[tuple[int, int]] | None = None,
) -> pa.Table:
    """Replications first..first+count-1 of one point: their result rows."""
    columns = _core.simulate(
        json.dumps(settings(point)),
        first,
        count,
        pcap=str(pcap) if pcap else None,
        jammed=jammed or [],
    )
    table = columns_to_table(columns)
    if point["workload.kind"] == "handshakes":
        # a success has `duration_s`, a failure `give_up_s`: both columns,
        # even in a block whose handshakes all went one way
        for name in ("duration_s", "give_up_s"):
            if name not in table.column_names:
                table = table.append_column(name, pa.nulls(table.num_rows, pa.float64()))
    return table


_DTYPES = {"f64": np.dtype("<f8"), "i64": np.dtype("<i8"), "bool": np.dtype(np.bool_)}


def columns_to_table(columns: list[tuple[str, str, Any, bytes | None]]) -> pa.Table:
    """The simulator's columns (name, kind, data, validity) as an Arrow table."""
    arrays = []
    for _, kind, data, valid in columns:
        mask = None if valid is None else np.frombuffer(valid, np.uint8) == 0
        values = data if kind == "str" else np.frombuffer(data, _DTYPES[kind])
        arrays.append(pa.array(values, mask=mask))
    return pa.table(arrays, names=[c[0] for c in columns])
