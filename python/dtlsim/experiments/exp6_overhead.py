"""Experiment 6 (closed-form part): per-datagram overhead and fragmentation."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dtlsim import _core, keys
from dtlsim.experiments import style
from dtlsim.experiments.base import Check, ExperimentResult, Figure, Table
from dtlsim.scenario import Scenario, payloads

SUMMARY = """\
Bytes each protected DTLS record adds (RFC 6347 §4.1, RFC 6655):

* DTLS 1.2 has a 13-byte header, then either an 8-byte explicit nonce and
  the AEAD tag, or a 16-byte IV, the HMAC and 1–16 bytes of CBC padding
  (RFC 5246 §6.2.3.2: data + MAC + padding fill whole 16-byte blocks).
* DTLS 1.3's unified header is shown in its shortest form (no CID, 8-bit
  sequence number, no length) plus the inner content type byte.

Under it, one 127-byte IEEE 802.15.4 frame loses:

* the MAC header;
* the auxiliary security header and MIC of link-layer security;
* the FCS;
* 6LoWPAN IPHC and UDP NHC.

What is left decides the application payload at which 6LoWPAN
fragmentation starts.
"""

PLAIN = "plain UDP"


def _suite_versions() -> dict[str, str]:
    return {s["name"]: s["version"] for s in _core.suites()}


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    versions = _suite_versions()
    o = scenario.overhead
    suites = list(o.suites)

    # Record overhead per suite, for a few payload sizes.
    base = _core.FrameSpec()
    rec_rows = []
    for name in suites:
        for n in (0, 16, 32, 64):
            c = _core.datagram_cost(base, versions[name], name, n)
            rec_rows.append(
                {"suite": name, "version": versions[name], "app_bytes": n}
                | {k: c[k] for k in ("record_header", "nonce_or_iv", "tag_or_mac", "padding")}
                | {"record_overhead": c["record_overhead"]}
            )
    records = pd.DataFrame(rec_rows)

    # Frame budget and fragmentation threshold per stack configuration.
    configs = {
        (
            p[keys.OVERHEAD_COMPRESSION],
            p[keys.LINK_SECURITY_LEVEL],
            p[keys.LINK_SECURITY_KEY_ID_MODE],
            p[keys.OVERHEAD_ADDRESSING],
            p[keys.OVERHEAD_UDP_PORTS],
        )
        for p in scenario.points()
    }
    frag_rows, curve_rows = [], []
    for compression, level, kid, addressing, ports in sorted(configs):
        frame = _core.FrameSpec(
            dst=addressing,
            src=addressing,
            level=level,
            key_id_mode=kid,
            compression=compression,
            udp_ports=ports,
        )
        budget = frame.budget()
        for name in [None, *suites]:
            version = versions.get(name, "1.2") if name else "1.2"
            max_app = _core.max_unfragmented_app_payload(frame, version, name)
            frag_rows.append(
                {
                    "compression": compression,
                    "link_level": level,
                    "addressing": addressing,
                    "udp_ports": ports,
                    "suite": name or PLAIN,
                    "mac_payload": budget["mac_payload"],
                    "udp_payload_in_one_frame": budget["udp_payload"],
                    "max_app_bytes_one_frame": max_app,
                    "fragmentation_starts_at": None if max_app is None else max_app + 1,
                }
            )
            for n in payloads(o):
                c = _core.datagram_cost(frame, version, name, n)
                curve_rows.append(
                    {
                        "compression": compression,
                        "link_level": level,
                        "suite": name or PLAIN,
                        "app_bytes": n,
                        "udp_payload": c["udp_payload"],
                        "frames": c["frames"],
                    }
                )
    frag = pd.DataFrame(frag_rows)
    curves = pd.DataFrame(curve_rows)

    checks = []
    ccm8 = records[(records.suite == "psk-aes128-ccm8") & (records.app_bytes == 32)]
    if not ccm8.empty:
        checks.append(
            Check.within(
                "6",
                "DTLS 1.2 PSK-AES128-CCM-8 bytes per datagram",
                float(ccm8.record_overhead.iloc[0]),
                29,
                0,
                unit="B",
                source="RFC 6347 §4.1 (13-byte header), RFC 6655 (8-byte nonce, 8-byte tag)",
                params={"suite": "psk-aes128-ccm8", "app_bytes": 32},
            )
        )
    if "psk-aes128-cbc-sha" in suites:
        for n in (11, 12, 32):
            c = _core.datagram_cost(base, "1.2", "psk-aes128-cbc-sha", n)
            hand = 13 + 16 + 20 + (16 - (n + 20) % 16)
            checks.append(
                Check.within(
                    "6",
                    f"DTLS 1.2 PSK-AES128-CBC-SHA bytes per datagram, {n} B of data",
                    c["record_overhead"],
                    hand,
                    0,
                    unit="B",
                    source="RFC 6347 §4.1, RFC 5246 §6.2.3.2: 13 + 16 IV + 20 MAC + padding",
                    params={"suite": "psk-aes128-cbc-sha", "app_bytes": n},
                )
            )

    figures = [_frames_figure(curves)]

    return ExperimentResult(
        id=scenario.experiment.id,
        title=scenario.experiment.title,
        reference=scenario.experiment.reference,
        summary=SUMMARY,
        tables=[
            Table("exp6_record_overhead", "Bytes added per DTLS record", records),
            Table("exp6_fragmentation", "What fits in one 127-byte frame", frag),
            Table(
                "exp6_frames_vs_payload",
                "Frames per datagram vs payload",
                curves,
                "Full curve in the CSV; the figure shows plain UDP, CCM-8 and CBC-SHA1.",
            ),
        ],
        figures=figures,
        checks=checks,
    )


# The suites the figure shows (the CSV has every one) and a line style per
# stack configuration, so that one panel holds what four used to.
SHOWN = [PLAIN, "psk-aes128-ccm8", "psk-aes128-cbc-sha"]
DASHES = ["-", "--", ":", "-."]


def _frames_figure(curves: pd.DataFrame) -> Figure:
    """Frames per datagram against payload: colour the suite, line style the
    configuration (IPHC compression, link-layer security level)."""
    fig, (ax,) = style.subplots(wide=True)
    configs = list(dict.fromkeys(zip(curves.compression, curves.link_level, strict=True)))
    for i, name in enumerate(SHOWN):
        for j, (compression, level) in enumerate(configs):
            s = curves[
                (curves.suite == name)
                & (curves.compression == compression)
                & (curves.link_level == level)
            ]
            if not s.empty:
                ax.step(s.app_bytes, s.frames, where="post", marker="",
                        color=style.COLOURS[i], ls=DASHES[j % len(DASHES)])  # fmt: skip
        ax.plot([], [], color=style.COLOURS[i], marker="", label=name)
    for j, (compression, level) in enumerate(configs):
        ax.plot([], [], color="k", marker="", ls=DASHES[j % len(DASHES)],
                label=f"{compression}, {level}")  # fmt: skip
    ax.set_xlabel("application payload (bytes)")
    ax.set_ylabel("802.15.4 frames")
    style.count_axis(ax, "y")
    ax.set_title("Frames per datagram (line style: IPHC addressing, link security level)")
    style.legend(fig, columns=4)
    return Figure(
        "exp6_frames",
        "Fragmentation",
        fig,
        "Colour: the DTLS suite (plain UDP: none); line style: the stack's configuration. "
        "A step is where one more 6LoWPAN fragment is needed.",
    )
