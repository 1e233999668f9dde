"""The shipped text names what the tool ships: every scenario file has a row
in docs/scenarios.md, every section of a scenario and every workload kind is
described there, and every key has its line in docs/scenario-keys.md (issue
26). A new scenario, section, kind or key fails here until it is documented."""

from __future__ import annotations

import json
import re
from pathlib import Path

from dtlsim import resources

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _schema() -> dict:
    return json.loads((resources.PACKAGE / "scenario.schema.json").read_text())


def _scenarios_page() -> str:
    return (DOCS / "scenarios.md").read_text()


def test_every_shipped_scenario_has_a_row() -> None:
    page = _scenarios_page()
    rows = set(re.findall(r"^\| `([\w.-]+)` \|", page, flags=re.M))
    shipped = {p.stem for p in resources.scenarios_dir().glob("*.toml")}
    assert shipped - rows == set(), "scenario files without a row in docs/scenarios.md"


def test_every_section_is_described() -> None:
    page = _scenarios_page()
    sections = [k for k, v in _schema()["properties"].items() if "$ref" in v or "allOf" in v]
    missing = [s for s in sections if f"`[{s}]`" not in page]
    assert missing == [], f"sections without a `[section]` entry in docs/scenarios.md: {missing}"


def test_every_workload_kind_is_described() -> None:
    schema = _schema()
    kinds = [v["const"] for v in schema["$defs"]["WorkloadKind"]["oneOf"]]
    bullet = _scenarios_page().split("- `[workload]`", 1)[1].split("\n- ", 1)[0]
    missing = [k for k in kinds if f"`{k}`" not in bullet]
    assert missing == [], f"workload kinds the [workload] entry does not name: {missing}"


def _documented_keys() -> set[str]:
    """The dotted keys docs/scenario-keys.md has a row for: its sections are
    headed `[table]` (or `[[array]]`, or "Top level"), its rows name a key."""
    keys, section = set(), ""
    for line in (DOCS / "scenario-keys.md").read_text().splitlines():
        heading = re.match(r"^## (?:`\[\[?([\w.]+)\]?\]`|Top level)", line)
        if heading:
            section = f"{heading.group(1)}." if heading.group(1) else ""
        row = re.match(r"^\| `(\w+)` \|", line)
        if row:
            keys.add(section + row.group(1))
    return keys


def test_every_key_has_its_line() -> None:
    schema = _schema()

    def keys(node: dict, prefix: str) -> list[str]:
        out = []
        for name, sub in node.get("properties", {}).items():
            key = f"{prefix}{name}"
            refs = [sub.get("$ref"), (sub.get("items") or {}).get("$ref")]
            refs += [x.get("$ref") for x in sub.get("allOf", []) + sub.get("anyOf", [])]
            ref = next((r for r in refs if r), None)
            target = schema["$defs"].get(ref.rsplit("/", 1)[1]) if ref else None
            if target and "properties" in target:
                out += keys(target, f"{key}.")
            else:
                out.append(key)
        return out

    missing = sorted(set(keys(schema, "")) - _documented_keys())
    assert missing == [], f"keys without a row in docs/scenario-keys.md: {missing}"
