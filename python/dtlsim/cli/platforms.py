"""`dtlsim platforms`: the device profiles, every value with its source."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from dtlsim.cli.common import Json, emit_json, fail, failing_on, show
from dtlsim.problems import FileError


def platforms_cmd(
    platform: Annotated[
        str | None,
        typer.Argument(help="Show one platform in full (an id or a file), or `new`."),
    ] = None,
    board: Annotated[
        str | None, typer.Argument(help="With `new`: the board's id (the file's name).")
    ] = None,
    as_json: Json = False,
) -> None:
    """List the device platforms, show one with every value and its source,
    or write a template for a board of one's own (`dtlsim platforms new
    nrf52840 > nrf52840.toml`: every key with its unit and allowed values)."""
    from dtlsim.platform import list_platforms, load_platform

    if platform == "new":
        _new(board)
        return
    if board is not None:
        fail(f"dtlsim platforms {platform} {board}: one platform at a time (or `new BOARD`)")
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


def _new(board: str | None) -> None:
    """Print a platform file for `board` with every key, from the schema."""
    import re

    from dtlsim.platform import template

    if not board:
        fail("dtlsim platforms new BOARD: name the board (e.g. nrf52840)")
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", board):
        fail(
            f"dtlsim platforms new {board}: a board's id is lower-case letters, digits, "
            "'.', '_' and '-', starting with a letter or digit (it is the file's name)"
        )
    print(template(board), end="")


def _flatten_sourced(data: Any, prefix: str = "") -> Any:
    if isinstance(data, dict):
        if set(data) == {"value", "source"}:
            yield {"key": prefix, "value": data["value"], "source": data["source"]}
            return
        for k, v in data.items():
            yield from _flatten_sourced(v, f"{prefix}.{k}" if prefix else str(k))
    else:
        yield {"key": prefix, "value": data, "source": ""}
