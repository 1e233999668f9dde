"""`dtlsim model`: the closed forms (TSCH latency, Engset blocking, DTLS
overhead, the minimal TSCH timeslot), computed by the Rust core."""

from __future__ import annotations

from typing import Annotated

import typer

from dtlsim import _core
from dtlsim.cli.common import Json, console, emit_json, fail, failing_on, float_list, int_list, show
from dtlsim.problems import FileError

app = typer.Typer(
    help="Closed-form models: TSCH latency, Engset blocking, overhead, timeslot.",
    no_args_is_help=True,
)

# ----------------------------------------------------------------- model tsch


@app.command("tsch")
def model_tsch(
    slotframe: Annotated[int, typer.Option(help="Slotframe length L in timeslots.")],
    cells: Annotated[
        int | None, typer.Option(help="Dedicated cells C per link (every hop).")
    ] = None,
    hops: Annotated[int | None, typer.Option(help="Number of hops H (with --cells).")] = None,
    cells_per_hop: Annotated[
        str | None, typer.Option(help="Cells per hop, e.g. 1,2,1 (instead of --cells/--hops).")
    ] = None,
    pdr: Annotated[float | None, typer.Option(help="Delivery ratio P of every hop.")] = None,
    pdr_per_hop: Annotated[str | None, typer.Option(help="PDR per hop, e.g. 1,0.9,1.")] = None,
    frames: Annotated[int, typer.Option(help="Frames F per handshake.")] = 10,
    timeslot_ms: Annotated[float, typer.Option(help="Timeslot duration T in ms.")] = 10.0,
    as_json: Json = False,
) -> None:
    """Expected handshake duration over TSCH: closed form (1 + L/(C+1))/P and exact expectation."""
    if cells_per_hop is not None:
        if cells is not None or hops is not None:
            fail("give either --cells-per-hop or --cells with --hops, not both")
        per_hop = int_list(cells_per_hop, "--cells-per-hop")
    else:
        if cells is None:
            fail("give --cells (with --hops) or --cells-per-hop")
        per_hop = [cells] * (hops if hops is not None else 1)
    if not per_hop:
        fail("the path needs at least one hop")
    if pdr_per_hop is not None:
        if pdr is not None:
            fail("give either --pdr or --pdr-per-hop, not both")
        pdrs = float_list(pdr_per_hop, "--pdr-per-hop")
    else:
        pdrs = [1.0 if pdr is None else pdr] * len(per_hop)
    if len(pdrs) != len(per_hop):
        fail(f"--pdr-per-hop has {len(pdrs)} values for {len(per_hop)} hops")
    with failing_on(ValueError):
        r = _core.tsch_handshake(slotframe, per_hop, pdrs, frames, timeslot_ms)
    result = {
        "slotframe": slotframe,
        "cells_per_hop": per_hop,
        "pdr_per_hop": pdrs,
        "frames": frames,
        "timeslot_ms": timeslot_ms,
        "closed_form": {
            "handshake_s": r["closed_form_s"],
            "slots_per_frame": r["closed_form_slots_per_frame"],
            "slots_per_hop": [h[0] for h in r["per_hop_slots"]],
            "formula": "F * sum_hops (1 + L/(C+1)) / P timeslots",
            "assumes": "L >> C: cells as random points on a continuous circle; "
            "each retry a fresh uniform draw",
        },
        "exact": {
            "handshake_s": r["exact_s"],
            "slots_per_frame": r["exact_slots_per_frame"],
            "slots_per_hop": [h[1] for h in r["per_hop_slots"]],
            "assumes": "C distinct slots drawn uniformly among L; a retry waits for the next "
            "cell of the same schedule; first hop entered at a uniform instant, later hops "
            "on a slot boundary",
        },
        "common_assumptions": "frames independent (empty queues), hops' cells independent, "
        "no collisions",
    }
    if as_json:
        emit_json(result)
        return
    rows = [
        {
            "hop": i + 1,
            "cells": c,
            "pdr": p,
            "closed form (slots)": h[0],
            "exact (slots)": h[1],
        }
        for i, (c, p, h) in enumerate(zip(per_hop, pdrs, r["per_hop_slots"], strict=True))
    ]
    show(f"TSCH latency per hop, L = {slotframe}", rows)
    console.print(
        f"Handshake of {frames} frames, {timeslot_ms:g} ms slots: "
        f"closed form [bold]{r['closed_form_s']:.4g} s[/], exact [bold]{r['exact_s']:.4g} s[/]"
    )
    console.print(f"[dim]closed form assumes {result['closed_form']['assumes']}[/]")
    console.print(f"[dim]exact assumes {result['exact']['assumes']}[/]")


# --------------------------------------------------------------- model engset


@app.command("engset")
def model_engset(
    slots: Annotated[int, typer.Option(help="Session slots R at the server.")],
    clients: Annotated[int, typer.Option(help="Clients N.")],
    erlang: Annotated[float, typer.Option(help="Offered traffic ρ = λ/μ of one idle client.")],
    as_json: Json = False,
) -> None:
    """Session blocking in an M/M/R/R/N (Engset) system: time and call congestion."""
    with failing_on(ValueError):
        r = _core.engset(slots, clients, erlang)
    result = {
        "slots": slots,
        "clients": clients,
        "erlang": erlang,
        "time_congestion": r["time_congestion"],
        "time_congestion_means": "fraction of time all R slots are busy",
        "call_congestion": r["call_congestion"],
        "call_congestion_means": "fraction of session requests refused (what a client sees)",
        "carried_erlang": r["carried_erlang"],
        "busy_distribution": r["busy_distribution"],
    }
    if as_json:
        emit_json(result)
        return
    show(
        f"Busy session slots, R = {slots}, N = {clients}, ρ = {erlang:g}",
        [{"busy k": k, "P(k)": p} for k, p in enumerate(r["busy_distribution"])],
    )
    console.print(
        f"time congestion [bold]{r['time_congestion']:.6g}[/]  ({result['time_congestion_means']})"
    )
    console.print(
        f"call congestion [bold]{r['call_congestion']:.6g}[/]  ({result['call_congestion_means']})"
    )


# ------------------------------------------------------------- model overhead


@app.command("overhead")
def model_overhead(
    version: Annotated[str, typer.Option(help="DTLS version: 1.2 or 1.3.")] = "1.2",
    suite: Annotated[
        list[str] | None, typer.Option(help="Suite (repeatable); default every suite of --version.")
    ] = None,
    payload: Annotated[int, typer.Option(help="Application bytes per datagram.")] = 32,
    max_frame: Annotated[int, typer.Option(help="aMaxPHYPacketSize in bytes.")] = 127,
    addressing: Annotated[str, typer.Option(help="short or extended (both addresses).")] = "short",
    pan_id_compression: Annotated[bool, typer.Option(help="PAN ID compression.")] = True,
    level: Annotated[str, typer.Option(help="802.15.4 security level, e.g. enc-mic-32.")] = "none",
    key_id_mode: Annotated[int, typer.Option(help="Key identifier mode 0..3.")] = 1,
    frame_counter_suppressed: Annotated[bool, typer.Option(help="No frame counter.")] = False,
    compression: Annotated[
        str, typer.Option(help="link-local, context, global-inline or uncompressed.")
    ] = "link-local",
    udp_ports: Annotated[str, typer.Option(help="inline, 8bit or 4bit.")] = "inline",
    udp_checksum_elided: Annotated[bool, typer.Option(help="Elide the UDP checksum.")] = False,
    hop_limit_inline: Annotated[bool, typer.Option(help="Hop limit carried inline.")] = False,
    cid_len: Annotated[int, typer.Option(help="DTLS 1.3 connection ID bytes.")] = 0,
    seq_len: Annotated[int, typer.Option(help="DTLS 1.3 sequence number bytes (1, 2).")] = 1,
    length_present: Annotated[bool, typer.Option(help="DTLS 1.3 length field.")] = False,
    padding: Annotated[int, typer.Option(help="DTLS 1.3 record padding bytes.")] = 0,
    as_json: Json = False,
) -> None:
    """Bytes DTLS adds per datagram, and what is left in one 802.15.4 frame."""
    with failing_on(ValueError):
        frame = _core.FrameSpec(
            max_frame=max_frame,
            dst=addressing,
            src=addressing,
            pan_id_compression=pan_id_compression,
            level=level,
            key_id_mode=key_id_mode,
            frame_counter_suppressed=frame_counter_suppressed,
            compression=compression,
            udp_ports=udp_ports,
            udp_checksum_elided=udp_checksum_elided,
            hop_limit_inline=hop_limit_inline,
        )
        names = suite or [s["name"] for s in _core.suites() if s["version"] == version]
        unified = {
            "cid_len": cid_len,
            "seq_len": seq_len,
            "length_present": length_present,
            "padding": padding,
        }
        rows = []
        for name in [None, *names]:
            c = _core.datagram_cost(frame, version, name, payload, **unified)
            max_app = _core.max_unfragmented_app_payload(frame, version, name, **unified)
            rows.append(
                {
                    "suite": name or "plain UDP",
                    "header": c["record_header"],
                    "nonce/IV": c["nonce_or_iv"],
                    "tag/MAC": c["tag_or_mac"],
                    "padding": c["padding"],
                    "overhead": c["record_overhead"],
                    "UDP payload": c["udp_payload"],
                    "frames": c["frames"],
                    "max app in 1 frame": max_app,
                    "fragmentation from": None if max_app is None else max_app + 1,
                }
            )
        budget = frame.budget()
    if as_json:
        emit_json(
            {
                "version": version,
                "app_bytes": payload,
                "frame": budget
                | {
                    "max_frame": max_frame,
                    "addressing": addressing,
                    "level": level,
                    "key_id_mode": key_id_mode,
                    "compression": compression,
                    "udp_ports": udp_ports,
                },
                "suites": [
                    {
                        "suite": r["suite"],
                        "record_header": r["header"],
                        "nonce_or_iv": r["nonce/IV"],
                        "tag_or_mac": r["tag/MAC"],
                        "padding": r["padding"],
                        "bytes_per_datagram": r["overhead"],
                        "udp_payload": r["UDP payload"],
                        "frames": r["frames"],
                        "max_app_bytes_one_frame": r["max app in 1 frame"],
                        "fragmentation_starts_at": r["fragmentation from"],
                    }
                    for r in rows
                ],
            }
        )
        return
    show(f"DTLS {version} record overhead for {payload} application bytes", rows)
    show(
        f"One {max_frame}-byte frame: {addressing} addresses, security {level}, {compression}",
        [budget],
    )


# ------------------------------------------------------------- model timeslot


@app.command("timeslot")
def model_timeslot(
    platform: Annotated[str, typer.Option(help="Platform id (see `dtlsim platforms`).")],
    strategy: Annotated[str, typer.Option(help="software, hybrid or hardware.")] = "hardware",
    implementation: Annotated[
        str,
        typer.Option(
            help="datasheet (the parts alone, the lower bound) or openwsn (what the OpenWSN "
            "firmware adds on that board)."
        ),
    ] = "datasheet",
    level: Annotated[
        list[str] | None, typer.Option(help="Security level (repeatable); default all eight.")
    ] = None,
    frame_bytes: Annotated[int, typer.Option(help="Data frame length (PSDU bytes).")] = 127,
    key_id_mode: Annotated[int, typer.Option(help="Key identifier mode 0..3.")] = 3,
    frame_counter_suppressed: Annotated[bool, typer.Option(help="No frame counter.")] = False,
    cells: Annotated[int, typer.Option(help="Cells N_i the device owns per slotframe.")] = 1,
    slotframe: Annotated[int, typer.Option(help="Slotframe length N_ts.")] = 101,
    as_json: Json = False,
) -> None:
    """Durations of sec1..sec4, the minimal TSCH timeslot, and the rate bound."""
    from dtlsim import models
    from dtlsim.platform import load_platform

    with failing_on(FileError, ValueError):
        plat = load_platform(platform)
        rows = []
        for lv in level or list(models.SECURITY_LEVELS):
            t = models.timeslot(
                plat,
                strategy,
                lv,
                implementation,
                frame_bytes=frame_bytes,
                key_id_mode=key_id_mode,
                frame_counter_suppressed=frame_counter_suppressed,
            )
            rate = _core.rate_bound_bps(
                cells, t["app_bits_per_frame"], slotframe, t["slot_duration_us"]
            )
            rows.append({"level": lv} | t | {"rate_bound_bps": rate})
    if as_json:
        emit_json(
            {
                "platform": plat.id,
                "strategy": strategy,
                "implementation": implementation,
                "frame_bytes": frame_bytes,
                "owned_cells": cells,
                "slotframe": slotframe,
                "levels": rows,
            }
        )
        return
    keep = [
        "level",
        "sec1_us",
        "sec2_us",
        "sec3_us",
        "sec4_us",
        "tx_offset_us",
        "tx_ack_delay_us",
        "slot_duration_us",
        "app_bits_per_frame",
        "rate_bound_bps",
    ]
    show(
        f"{plat.name}, {strategy} CCM*, {implementation} profile: minimal TSCH timeslot (µs)",
        [{k: r[k] for k in keep} for r in rows],
        caption=f"rate bound: {cells} cell(s) per {slotframe}-slot slotframe, minimal slot",
    )
