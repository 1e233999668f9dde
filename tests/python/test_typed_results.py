"""The typed records of the extension's stubs (`_core.pyi`) name exactly the
keys, with the types, that the extension returns."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import dtlsim
from dtlsim import _core, models
from dtlsim.platform import load_platform
from dtlsim.simulation import _power

STUB = Path(dtlsim.__file__).parent / "_core.pyi"
TYPES = {"int": int, "float": float, "bool": bool}


def stub_fields(record: str) -> dict[str, type]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == record]
    return {
        s.target.id: TYPES[ast.unparse(s.annotation)]
        for s in cls.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
    }


def check(record: str, value: dict) -> None:
    fields = stub_fields(record)
    assert set(value) == set(fields)
    for key, v in value.items():
        # an int is a valid float; a bool is not a valid int here
        assert type(v) is fields[key] or (fields[key] is float and type(v) is int), (key, v)


def test_minimal_timeslot_is_its_typed_record():
    check("MinimalTimeslot", models.timeslot(load_platform("telosb"), "hardware", "enc-mic-32"))


def test_simulated_timeslot_is_its_typed_record():
    plat = load_platform("telosb")
    cost = models.ccm_cost(plat, "hardware", "datasheet")
    stack = models.stack_cost(plat, "hardware", "datasheet")
    sim = _core.tsch_minimal_timeslot(
        5, 127, json.dumps(cost), json.dumps(_power(plat)), True, stack=json.dumps(stack)
    )
    check("SimulatedTimeslot", sim)
