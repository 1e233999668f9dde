"""Loading TOML files into pydantic models with errors that point at the value.

Every data file of dtlsim (platforms, scenarios) goes through `load_toml`, so a
bad value is always refused the same way: the file, the dotted key, the value
found and what is allowed.
"""

from __future__ import annotations

import functools
import json
import tomllib
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from dtlsim.problems import _MISSING, FileError, Problem

M = TypeVar("M", bound=BaseModel)


class StrictModel(BaseModel):
    """Base of every file schema: unknown keys are errors, models are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def dotted(loc: tuple[Any, ...]) -> str:
    """('mac', 'tsch', 'cells', 1) -> 'mac.tsch.cells[1]'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _allowed(err: dict[str, Any]) -> str:
    """Say what would have been accepted, in words a user can act on."""
    kind = err["type"]
    ctx = err.get("ctx") or {}
    bounds = {
        "greater_than": "must be > {gt}",
        "greater_than_equal": "must be >= {ge}",
        "less_than": "must be < {lt}",
        "less_than_equal": "must be <= {le}",
    }
    if kind in bounds:
        return bounds[kind].format(**ctx)
    if kind == "missing":
        return "required key is missing"
    if kind == "extra_forbidden":
        return "unknown key (check the spelling; see the schema for the allowed keys)"
    if kind in ("literal_error", "enum"):
        return f"must be one of {ctx.get('expected', '?')}"
    return err["msg"]


def problems_from(exc: ValidationError) -> list[Problem]:
    out = []
    for err in exc.errors():
        # Union members add their type name to the location; users never wrote it.
        loc = tuple(p for p in err["loc"] if not _is_type_tag(p))
        value = _MISSING if err["type"] == "missing" else err.get("input")
        out.append(Problem(dotted(loc), value, _allowed(err)))
    return out


def _is_type_tag(part: Any) -> bool:
    return isinstance(part, str) and (
        part.startswith(("list[", "function-", "constrained-"))
        or part in ("int", "float", "str", "bool")
        or "[" in part
    )


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


def validate(path: Path | str, data: dict[str, Any], model: type[M]) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise FileError(path, problems_from(e)) from None


def load_toml(path: Path | str, model: type[M]) -> M:
    """Parse and validate one TOML file; raises FileError naming every bad value."""
    return validate(path, parse_toml(path), model)


SCENARIO_SCHEMA = Path(__file__).with_name("scenario.schema.json")
"""The Rust core's JSON Schema of a scenario point (`dtlsim scenario schema`
writes it; a test checks it is what the core generates now)."""


@functools.cache
def scenario_schema() -> dict[str, Any]:
    return json.loads(SCENARIO_SCHEMA.read_text(encoding="utf-8"))


def scenario_names(definition: str) -> tuple[str, ...]:
    """The names a choice of the scenario schema allows (`Strategy`, `Implementation`)."""
    return tuple(scenario_schema()["$defs"][definition]["enum"])
