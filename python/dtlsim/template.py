"""`dtlsim scenario new`: a scenario file to start from.

The file holds the chosen MAC's table and every simulator section with the
core's defaults (the values a file that left the key out would get), each key
with its documentation from the scenario schema as a comment, so a new user
edits values instead of looking keys up. The closed forms' sections
(`model`, `sessions`, `overhead`) are left out: they do nothing in a
simulation.
"""

from __future__ import annotations

import json
import math
from typing import Any

from dtlsim import _core
from dtlsim.scenario import _node

MACS = ("csma", "xmac", "beacon", "tsch")
WORKLOADS = ("handshakes", "ping", "frames", "periodic")
SECTIONS = ("topology", "mac", "link_security", "dtls", "workload", "simulation")
HANDSHAKES = ("dtls", "edhoc")


def new_scenario(
    mac: str, workload: str = "handshakes", hops: int = 2, handshake: str = "dtls"
) -> str:
    """The text of a new scenario file: a line of `hops` hops, `mac`, `workload`
    and, in the handshakes workload, `handshake` (DTLS or EDHOC)."""
    if mac not in MACS:
        raise ValueError(f"--mac {mac!r}: must be one of {', '.join(MACS)}")
    if workload not in WORKLOADS:
        raise ValueError(f"--workload {workload!r}: must be one of {', '.join(WORKLOADS)}")
    if handshake not in HANDSHAKES:
        raise ValueError(f"--handshake {handshake!r}: must be one of {', '.join(HANDSHAKES)}")
    if handshake == "edhoc" and workload != "handshakes":
        raise ValueError(
            f"--handshake edhoc --workload {workload}: EDHOC runs in --workload handshakes only"
        )
    name = handshake.upper()
    raw = {
        "experiment": {"id": f"my-{mac}", "title": f"{name} over {mac}, {hops} hops"},
        "topology": {"kind": "line", "hops": hops},
        "mac": {"kind": mac},
        "workload": {"kind": workload} | ({"handshake": handshake} if handshake != "dtls" else {}),
    }
    core, problems = _core.scenario_point(json.dumps(raw))
    if core is None:  # the core's defaults always make a valid point
        raise ValueError("; ".join(f"{k}: {a}" for k, _, a in problems))
    point = json.loads(core.json())
    lines = [
        f"# A new scenario: {'EDHOC' if handshake == 'edhoc' else 'DTLS 1.2'} over {mac} "
        f"on a line of {hops} hops, workload {workload}.",
        "# Every value is the default; a list at a key that takes one value is a",
        "# sweep axis. Check it: dtlsim scenario check THIS.toml",
        "",
        *_key(("platform",), point["platform"]),
        "",
        *_table(("experiment",), point["experiment"]),
    ]
    for section in SECTIONS:
        table = point[section]
        if handshake == "edhoc" and section == "dtls":
            # an EDHOC file has [edhoc] (its own crypto_strategy included)
            # in place of [dtls], which EDHOC does not read
            lines += ["", *_table(("edhoc",), point["edhoc"])]
            continue
        lines += ["", *_table((section,), table)]
    return "\n".join(lines) + "\n"


def _table(path: tuple[str, ...], table: dict[str, Any]) -> list[str]:
    out = [f"[{'.'.join(path)}]"]
    subtables = []
    for key, value in table.items():
        if isinstance(value, dict) and _is_table((*path, key)):
            subtables.append((key, value))
        else:
            out += _key((*path, key), value)
    for key, value in subtables:
        out += ["", *_table((*path, key), value)]
    return out


def _is_table(path: tuple[str, ...]) -> bool:
    """A section's setup table (`[mac.tsch]`), not an inline value (`retransmission`)."""
    return path[0] == "mac" and len(path) == 2


def _key(path: tuple[str, ...], value: Any) -> list[str]:
    if value is None or value == []:
        return []  # the default is "none given"
    node, _ = _node(path)
    doc = " ".join((node or {}).get("description", "").split())
    comment = [f"# {doc}"] if doc else []
    return [*comment, f"{path[-1]} = {_toml(value)}"]


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")
