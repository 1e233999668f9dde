"""`dtlsim platforms`: the device profiles, every value with its source."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from dtlsim.cli.common import Json, emit_json, failing_on, show
from dtlsim.problems import FileError


def platforms_cmd(
    platform: Annotated[str | None, typer.Argument(help="Show one platform in full.")] = None,
    as_json: Json = False,
) -> None:
    """List the device platforms, or show one with every value and its source."""
    from dtlsim.platform import list_platforms, load_platform

    with failing_on(FileError):
        if platform is None:
            plats = [load_platform(p) for p in list_platforms()]
            rows = [
                {
                    "id": p.id,
                    "name": p.name,
                    "mcu": p.mcu.part,
                    "radio": p.radio.part,
                    "supply V": p.supply.voltage_v.value,
                }
                for p in plats
            ]
            emit_json(rows) if as_json else show("Platforms", rows)
            return
        p = load_platform(platform)
    data = p.model_dump()
    if as_json:
        emit_json(data)
        return
    rows = list(_flatten_sourced(data))
    show(f"{p.name} ({p.id})", rows)


def _flatten_sourced(data: Any, prefix: str = "") -> Any:
    if isinstance(data, dict):
        if set(data) == {"value", "source"}:
            yield {"key": prefix, "value": data["value"], "source": data["source"]}
            return
        for k, v in data.items():
            yield from _flatten_sourced(v, f"{prefix}.{k}" if prefix else str(k))
    else:
        yield {"key": prefix, "value": data, "source": ""}
