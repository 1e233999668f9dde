"""Loading data files: TOML parsed here, checked by the core.

Every data file of dtlsim (platforms, hosts, scenarios) is refused the same
way: the file, the dotted key, the value found and what is allowed. The
rules of platform and host files are `crates/schema` (`platform_file.rs`);
`check_file` hands a parsed file to them and builds the values they give
back into the reader's classes.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import tomllib
from pathlib import Path
from typing import Any

from dtlsim import _core
from dtlsim.problems import _MISSING, FileError, Problem

# the tag the core gives each table of a checked file: its class's name
CLASS = "$class"


class Table:
    """Base of the classes a checked file's tables are built into (frozen
    dataclasses with the file's keys)."""

    def model_dump(self) -> dict[str, Any]:
        """The values as plain dicts, every key the file may hold (None where left out)."""
        return dataclasses.asdict(self)  # type: ignore[call-overload,no-any-return]


def _finite(data: Any) -> Any:
    """`nan` and `inf` (TOML has them, JSON does not) as the core's `{"$float": ...}`."""
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_finite(v) for v in data]
    if isinstance(data, float) and not math.isfinite(data):
        return {"$float": "NaN" if math.isnan(data) else ("Infinity" if data > 0 else "-Infinity")}
    return data


def _as_json(data: dict[str, Any]) -> str:
    # a TOML date or time is text to the core (refused where a number or name goes)
    try:
        return json.dumps(data, allow_nan=False, default=str)
    except ValueError:
        return json.dumps(_finite(data), allow_nan=False, default=str)


def check_file(
    path: Path | str, data: dict[str, Any], kind: str, classes: dict[str, type[Table]]
) -> Any:
    """`data` (a parsed `kind` file: "platform", "host") checked by the core
    and built into `classes`; FileError naming every bad value."""
    values, problems = _core.platform_file(kind, _as_json(data))
    if values is None:
        raise FileError(
            path,
            [Problem(k, _MISSING if v is None else json.loads(v), a) for k, v, a in problems],
        )
    return _build(json.loads(values), classes)


def _build(data: Any, classes: dict[str, type[Table]]) -> Any:
    if isinstance(data, dict):
        cls = classes[data.pop(CLASS)]
        return cls(**{k: _build(v, classes) for k, v in data.items()})
    return data


@functools.cache
def file_schema(kind: str) -> dict[str, Any]:
    """The core's declarations of a `kind` file: its fields, each table's
    own, and under `classes` every class and its fields."""
    out: dict[str, Any] = json.loads(_core.platform_file_schema(kind))
    return out


def parse_toml(path: Path | str) -> dict[str, Any]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise FileError(
            path, [Problem("(file)", str(path), f"cannot be read: {e.strerror}")]
        ) from e
    except UnicodeDecodeError as e:
        why = f"not a text file: byte {e.object[e.start]:#04x} at offset {e.start} is not UTF-8"
        raise FileError(path, [Problem("(file)", str(path), why)]) from e
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise FileError(path, [Problem("(syntax)", _MISSING, f"not valid TOML: {e}")]) from e


SCENARIO_SCHEMA = Path(__file__).with_name("scenario.schema.json")
"""The Rust core's JSON Schema of a scenario point (`dtlsim scenario schema`
writes it; a test checks it is what the core generates now)."""


@functools.cache
def scenario_schema() -> dict[str, Any]:
    return json.loads(SCENARIO_SCHEMA.read_text(encoding="utf-8"))


def scenario_names(definition: str) -> tuple[str, ...]:
    """The names a choice of the scenario schema allows (`Strategy`, `Implementation`)."""
    return tuple(scenario_schema()["$defs"][definition]["enum"])
