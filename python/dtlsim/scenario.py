"""Scenario files: one experiment, its parameters and its sweep axes.

The file's keys, their defaults and every rule on their values belong to the
Rust core (`crates/schema`); its JSON Schema ships beside this module as
`scenario.schema.json` (`SCENARIO_SCHEMA`), generated from the same types. This module keeps
what is Python's: reading the file, applying `--set` overrides, expanding
sweep axes, checking names against the platform files, and saying what is
wrong with the file's name, the dotted key, the value and the allowed range.

A list at any key that takes one value is a sweep axis: the experiment runs
once per value, and several lists make the cartesian product. Keys carry
their units (`timeslot_ms`, `check_interval_ms`). Keys that would do nothing
in the chosen setup (a `[mac.tsch]` table when `mac.kind = "beacon"`,
`nodes` with a line topology) are refused.

Sections:

- `[experiment]` id, title, seed, replications (every experiment).
- `[topology]` line of nodes, explicit links with per-link PDR, or random nodes.
- `[mac]` kind and the chosen protocol's table (`csma`, `xmac`, `contikimac`, `csl`,
  `beacon`, `tsch`).
- `[link_security]` IEEE 802.15.4 security level, key-id mode, strategy.
- `[dtls]` version, suite, records per datagram, fragments, retransmission.
- `[workload]` what the simulated client does.
- `[model]` inputs only the closed forms use (e.g. frames per handshake).
- `[sessions]` the session-capacity experiment (slots, clients, traffic).
- `[overhead]` payload sizes and suites of the per-datagram overhead study.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NoReturn

from dtlsim import _core, keys, resources
from dtlsim import platform as platforms
from dtlsim.problems import did_you_mean
from dtlsim.schema import _MISSING, FileError, Problem, parse_toml
from dtlsim.schema import scenario_schema as schema

SCENARIO_DIR = resources.scenarios_dir()


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _resolve(schema()["$defs"][ref.removeprefix("#/$defs/")])
    return node


def _options(node: dict[str, Any]) -> list[dict[str, Any]]:
    """A schema node and its alternatives (an optional key's `anyOf`)."""
    return [node, *(_resolve(o) for o in node.get("anyOf", []) + node.get("oneOf", []))]


def _node(path: tuple[str, ...]) -> tuple[dict[str, Any] | None, bool]:
    """The schema node of the key at `path` (None if the schema does not know
    it) and whether the schema marks it, or a table above it, as no sweep axis."""
    node = schema()
    fixed = False
    for part in path:
        found = [o["properties"][part] for o in _options(node) if part in o.get("properties", {})]
        if not found:
            return None, fixed
        fixed = fixed or found[0].get("x-sweep") is False
        node = _resolve(found[0])
        fixed = fixed or node.get("x-sweep") is False
    return node, fixed


def _shape(path: tuple[str, ...]) -> str | None:
    """What the key at `path` takes: "list" (`links`, `cells`: a list is its
    value), "one" (a single value that the schema marks as no sweep axis:
    a setup's `kind`, `[experiment]`) or "value" (one value, or a list to
    sweep); None for a key the schema does not know (the core refuses it)."""
    node, fixed = _node(path)
    if node is None:
        return None
    if any("array" in _types(o) for o in _options(node)):
        return "list"
    return "one" if fixed else "value"


def _takes_text(path: tuple[str, ...]) -> bool:
    """The key takes a name and never a number (`dtls.version = "1.3"`,
    `platform`): a plain word given for it is that name, even `1.3`."""
    node, _ = _node(path)
    if node is None:
        return False
    types = {t for o in _options(node) for t in _types(o)}
    return "string" in types and not types & {"number", "integer", "boolean", "array", "object"}


def _types(node: dict[str, Any]) -> list[str]:
    t = node.get("type", [])
    return [t] if isinstance(t, str) else list(t)


def _lists(raw: dict[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Paths of the lists in `raw` (outside lists of tables)."""
    for key, value in raw.items():
        path = (*prefix, key)
        if isinstance(value, dict):
            yield from _lists(value, path)
        elif isinstance(value, list):
            yield path


def _set(raw: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = raw
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def _flat(nested: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{'mac': {'tsch': {'slotframe_length': 101}}} -> {'mac.tsch.slotframe_length': 101}."""
    out: dict[str, Any] = {}
    for key, value in nested.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _lookup(data: Any, key: str) -> Any:
    for part in key.replace("[", ".[").split("."):
        if part.startswith("["):
            index = int(part[1:-1])
            data = data[index] if isinstance(data, list) and index < len(data) else _MISSING
        elif isinstance(data, dict):
            data = data.get(part, _MISSING)
        else:
            return _MISSING
    return data


# The sections whose defaults would choose the simulated network itself
# (one hop, `mac.kind = "none"`, one handshake): a file that leaves one out is
# run with them, and `run` and `check` say so.
SIMULATED_SECTIONS = ("topology", "mac", "workload")


class Point(dict[str, Any]):
    """One point of a sweep: the flat {dotted key: value} of every
    parameter as the core settled it (what result rows carry, what keys and
    experiments read), holding `settled`, the core's settled point itself.
    That one runs: `simulation.run_unit` and `plan.why_not` hand it to the
    core as it is, never read again from these values. Read-only, so the
    values read here are the values that run; `variant` makes a scenario
    with others."""

    __slots__ = ("settled",)

    def __init__(self, values: Mapping[str, Any], settled: _core.SettledPoint) -> None:
        dict.__init__(self, values)
        self.settled = settled

    def __reduce__(self) -> tuple[Any, ...]:
        # a Dask worker gets both; the settled point pickles itself exactly
        return (Point, (dict(self), self.settled))

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(
            "a sweep point is read-only (its settled point runs as it is): "
            "dtlsim.scenario.variant makes a scenario with other values"
        )

    __setitem__ = __delitem__ = __ior__ = _read_only  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _read_only  # type: ignore[assignment]


@dataclass(frozen=True)
class Scenario:
    """A checked scenario: the values as the file (and overrides) gave them,
    every point of its sweep as the core settled it (`settled`, a copy of
    its values by table) and the points themselves (`points`)."""

    raw: dict[str, Any]
    sweeps: dict[str, list[Any]]
    settled: list[dict[str, Any]] = field(repr=False)
    sweep_points: list[Point] = field(repr=False)

    def axes(self) -> dict[str, list[Any]]:
        """Every sweep axis with more than one value, by dotted key."""
        return {k: v for k, v in self.sweeps.items() if len(v) > 1}

    def points(self) -> Iterator[Point]:
        """Each point of the sweep: a flat {dotted key: value} of every
        parameter, holding the core's settled point (`Point`)."""
        yield from self.sweep_points

    def section(self, name: str) -> SimpleNamespace:
        """A table of the first point (for what no sweep changes: experiment, workload kind)."""
        return SimpleNamespace(**self.settled[0][name])

    @property
    def experiment(self) -> SimpleNamespace:
        return self.section("experiment")

    @property
    def workload(self) -> SimpleNamespace:
        return self.section("workload")

    @property
    def overhead(self) -> SimpleNamespace:
        return self.section("overhead")

    def defaulted(self) -> list[str]:
        """The sections that choose the simulated network which the file
        leaves out (their defaults are used: the user is told so)."""
        return [name for name in SIMULATED_SECTIONS if name not in self.raw]

    @property
    def simulated(self) -> bool:
        """The scenario runs in the simulator (a MAC is chosen); without one
        it feeds the closed forms only (`mac.kind = "none"`)."""
        return self.settled[0]["mac"]["kind"] != "none"

    @property
    def platform(self) -> list[str]:
        """Every platform of the sweep."""
        return list(dict.fromkeys(p["platform"] for p in self.settled))


def payloads(overhead: SimpleNamespace) -> list[int]:
    """The overhead study's payload sizes."""
    o = overhead
    return list(range(o.payload_min_bytes, o.payload_max_bytes + 1, o.payload_step_bytes))


def check(raw: dict[str, Any], given: Sequence[str] = ()) -> tuple[Scenario | None, list[Problem]]:
    """Expand the sweep of `raw` and have the core read every point;
    `given`: the keys set for this run (`--set`), which, like every sweep
    axis, must do something in some point (`_inert`)."""
    lists = {path: _shape(path) for path in _lists(raw)}
    axes = [path for path, shape in lists.items() if shape == "value"]
    problems: dict[tuple[str, str, str], Problem] = {}

    def add(p: Problem) -> None:
        problems.setdefault((p.key, repr(p.value), p.allowed), p)

    # lists that cannot be swept are refused before any point is made
    for path, shape in lists.items():
        key = ".".join(path)
        if shape == "one":
            add(Problem(key, _lookup(raw, key), "takes one value (it is not a sweep axis)"))
        elif shape == "value" and not _lookup(raw, key):
            add(Problem(key, [], "must be a value or a non-empty list of values"))
    if problems:
        return None, list(problems.values())

    values = [list(enumerate(_lookup(raw, ".".join(path)))) for path in axes]
    settled: list[_core.SettledPoint] = []
    for combo in itertools.product(*values):
        point = json.loads(json.dumps(raw))
        for path, (_, value) in zip(axes, combo, strict=True):
            _set(point, path, value)
        index = {".".join(path): i for path, (i, _) in zip(axes, combo, strict=True)}
        # NaN, inf (and 1e400, which is inf) have no JSON form: the core
        # would see a syntax error with neither file nor key
        odd = list(_non_finite(point))
        for key, value in odd:
            add(Problem(f"{key}[{index[key]}]" if key in index else key, value, "a finite number"))
        if odd:
            continue
        # the one time the core reads the point: it keeps it settled
        core, found = _core.scenario_point(json.dumps(point))
        if core is not None:
            settled.append(core)
        for key, value, allowed in found:
            add(_problem(point, index, key, value, allowed))
        # the settled point: a platform left to its default is checked too
        for p in platform_checks(json.loads(core.json()) if core is not None else point):
            add(Problem(f"{p.key}[{index[p.key]}]", p.value, p.allowed) if p.key in index else p)
    out = list(problems.values())
    if not out:
        swept = [".".join(path) for path in axes if len(_lookup(raw, ".".join(path))) > 1]
        out = _inert(raw, [*dict.fromkeys([*given, *swept])], settled)
    if out:
        return None, out
    # Python's copy of each settled point's values, read once
    tables = [json.loads(core.json()) for core in settled]
    points = [Point(_flat(t), core) for t, core in zip(tables, settled, strict=True)]
    tables, points = _once_each(raw, axes, tables, points)
    order = list(points[0])
    dotted = sorted(
        (".".join(path) for path in axes), key=lambda k: order.index(k) if k in order else 0
    )
    sweeps = {k: list(_lookup(raw, k)) for k in dotted}
    return Scenario(raw, sweeps, tables, points), []


def _once_each(
    raw: dict[str, Any],
    axes: list[tuple[str, ...]],
    tables: list[dict[str, Any]],
    points: list[Point],
) -> tuple[list[dict[str, Any]], list[Point]]:
    """The points of the sweep, each once: a point in which a swept key does
    nothing (`dtls.version` beside `workload.handshake = "edhoc"`) repeats
    the point with that key's first value, and is left out (its rows would be
    the same under another label)."""
    swept = [k for k in (".".join(path) for path in axes) if len(_lookup(raw, k)) > 1]
    if not swept:
        return tables, points
    seen: set[tuple[tuple[str, str], ...]] = set()
    kept = []
    for table, point in zip(tables, points, strict=True):
        given = [(k, json.dumps(point[k])) for k in swept if k in point]
        inert = {key for key, _, _ in point.settled.unused(given)}
        values = tuple((k, v) for k, v in given if k not in inert)
        if values not in seen:
            seen.add(values)
            kept.append((table, point))
    return [t for t, _ in kept], [p for _, p in kept]


def _inert(
    raw: dict[str, Any], keys: list[str], settled: list[_core.SettledPoint]
) -> list[Problem]:
    """The keys set for this run (an override, a sweep axis) that do nothing
    in any point of the sweep: refused as a file's key that does nothing is,
    by the core's rule (`Point::inert`), naming the key and its setting."""
    out = []
    for key in keys:
        value = _lookup(raw, key)
        if value is _MISSING:
            continue
        given = [(key, json.dumps(value))]
        found = [core.unused(given) for core in settled]
        if found and all(found):
            _, _, allowed = found[0][0]
            out.append(Problem(key, value, allowed))
    return out


def _non_finite(node: Any, key: str = "") -> Iterator[tuple[str, float]]:
    """The dotted keys (list items as `key[i]`) holding NaN or an infinity."""
    if isinstance(node, float) and not math.isfinite(node):
        yield key, node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _non_finite(v, f"{key}.{k}" if key else str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _non_finite(v, f"{key}[{i}]")


def _problem(
    point: dict[str, Any], index: dict[str, int], key: str, value: str | None, allowed: str
) -> Problem:
    """A core problem in the file's terms: the value as the file wrote it, and
    under a sweep axis, the index of the value in its list."""
    shown = _lookup(point, key)
    if (shown is _MISSING or isinstance(shown, dict)) and value is not None:
        shown = json.loads(value)  # a table: the core names it
    if key in index:
        key = f"{key}[{index[key]}]"
    return Problem(key, shown, allowed)


def platform_checks(point: dict[str, Any]) -> list[Problem]:
    """What only the platform files can tell about the names a point gives:
    the platform exists, and has the battery and the link-security
    implementation asked for."""
    pid = point.get("platform")
    impl = _lookup(point, keys.LINK_SECURITY_IMPLEMENTATION)
    if not isinstance(pid, str):
        return []
    known = platforms.list_platforms()
    if pid not in known and not platforms.is_path(pid):
        why = (
            f"must be one of {', '.join(known)}, or a platform file's path"
            f"{did_you_mean(pid, known)}; `dtlsim platforms` lists them"
        )
        return [Problem("platform", pid, why)]
    if pid not in known and not Path(pid).is_file():
        return [Problem("platform", pid, "no such platform file")]
    found = []
    battery = point.get(keys.BATTERY)
    if isinstance(battery, str) and battery in platforms.BATTERIES:
        plat = platforms.load_platform(pid)
        if plat.battery(battery) is None:
            why = (
                f"'platform' (its {platforms.BATTERIES['platform']}): platform {pid} "
                f"lists no [supply.batteries], so no {battery!r}"
            )
            found.append(Problem(keys.BATTERY, battery, why))
    if not isinstance(impl, str):
        return found
    profile = getattr(platforms.load_platform(pid).implementation, impl, None)
    if profile is not None and not profile.available:
        why = f"not available on platform {pid}: {profile.reason}"
        found.append(Problem(keys.LINK_SECURITY_IMPLEMENTATION, impl, why))
    return found


def parse_override(assignment: str) -> tuple[str, Any]:
    """`mac.tsch.cells_per_link=[1,2]` -> ('mac.tsch.cells_per_link', [1, 2])."""
    key, sep, text = assignment.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"--set {assignment!r}: expected key.path=value")
    return key.strip(), parse_value(key.strip(), text.strip())


def parse_value(key: str, text: str) -> Any:
    """A `--set` value as its key takes it. TOML works (`[1, 2]`, `"x"`,
    `{ policy = "doubling" }`), and so do plain words: `telosb`, `1.3` for a
    key that takes a name (`dtls.version`), and a list without brackets
    (`telosb,openmote-cc2538`: a sweep axis). A key whose value is itself a
    list or a table (`topology.links`) takes TOML only."""
    path = tuple(key.split("."))
    if _shape(path) == "list" or text.startswith("{"):
        return _toml_or_word(text)
    bracketed = text.startswith("[") and text.endswith("]")
    inner = text[1:-1].strip() if bracketed else text
    parts = _split_list(inner) if inner else []
    values = [_scalar(part, _takes_text(path)) for part in parts]
    if bracketed or len(values) > 1:
        return values
    return values[0] if values else text


def _toml_or_word(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text  # a bare word is a string


def _scalar(text: str, takes_text: bool) -> Any:
    if text[:1] in ("'", '"'):
        return _toml_or_word(text)  # quoted: as TOML reads it
    return text if takes_text else _toml_or_word(text)


def _split_list(text: str) -> list[str]:
    """`a, "b,c", d` -> ['a', '"b,c"', 'd']: commas outside quotes and brackets."""
    parts, current, quote, depth = [], "", "", 0
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in ("'", '"'):
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += ch
    parts.append(current.strip())
    return parts


def apply_overrides(data: dict[str, Any], overrides: list[tuple[str, Any]]) -> dict[str, Any]:
    for key, value in overrides:
        node = data
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ValueError(f"--set {key}: {part} is not a table")
        node[leaf] = value
    return data


@dataclass(frozen=True)
class Override:
    """One replaced value: its dotted key, the value and how the user wrote it."""

    key: str
    value: Any
    written: str

    def covers(self, problem_key: str) -> bool:
        """A problem at this key, inside its table, in one of its list's
        values, or at a table the override wrote into (`mac.tsch`, refused
        as a whole, for `--set mac.tsch.timeslot_ms=…`)."""
        return (
            problem_key == self.key
            or problem_key.startswith((f"{self.key}.", f"{self.key}["))
            or self.key.startswith(f"{problem_key}.")
        )

    def caused(self, problem: Problem) -> bool:
        """The override set the value refused, or a key the refusal names
        (`mac.kind` in "only with mac.kind = 'tsch'")."""
        base = problem.key.split("[")[0]
        named = re.search(rf"(?<![\w.]){re.escape(self.key)}(?![\w])", problem.allowed)
        return self.covers(problem.key) or self.covers(base) or named is not None


def overrides_of(overrides: Mapping[str, Any] | Sequence[str] | None) -> list[Override]:
    """`--set` assignments (`key.path=value`) or a {dotted key: value} mapping."""
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [Override(k, v, f"override {k}={v!r}") for k, v in overrides.items()]
    if isinstance(overrides, str):
        overrides = [overrides]
    out = []
    for assignment in overrides:
        key, value = parse_override(assignment)
        out.append(Override(key, value, f"--set {assignment}"))
    return out


class ScenarioError(FileError):
    """A scenario that cannot be used: each problem blamed on the override
    that set the value, or else on the file."""

    def __init__(self, path: Path | str, problems: list[Problem], overrides: list[Override]):
        self.path = str(path)
        self.problems = problems
        groups: dict[str, list[Problem]] = {}
        for p in problems:
            base = p.key.split("[")[0]
            # the override that set the value, else one the refusal names
            # (the value refused is then the file's: both are said)
            blamed = next(
                (o.written for o in overrides if o.covers(p.key) or o.covers(base)),
                next((f"{o.written} (with {self.path})" for o in overrides if o.caused(p)), None),
            )
            groups.setdefault(blamed or self.path, []).append(p)
        text = "\n".join(
            f"{where}: {len(found)} invalid value(s)\n"
            + "\n".join(f"  {p.render()}" for p in found)
            for where, found in groups.items()
        )
        ValueError.__init__(self, text)


def resolve(path_or_name: Path | str) -> Path:
    """A scenario file's path, or a shipped scenario's by name (`exp1-xmac`);
    FileError with the nearest shipped name when it is neither."""
    path = Path(path_or_name)
    if not path.exists() and (SCENARIO_DIR / f"{path}.toml").exists():
        path = SCENARIO_DIR / f"{path}.toml"
    if not path.exists():
        name = str(path_or_name)
        hint = did_you_mean(Path(name).name.removesuffix(".toml"), list(builtin_scenarios()))
        why = (
            f"no such file, and no shipped scenario of that name{hint}; "
            "`dtlsim scenario list` lists the shipped ones"
        )
        raise FileError(name, [Problem("(file)", name, why)])
    return path


def load_scenario(
    path: Path | str, overrides: Mapping[str, Any] | Sequence[str] | None = None
) -> Scenario:
    """Load, override and check one scenario file (a path, or a shipped
    scenario's name). Overrides are `key.path=value` assignments as `--set`
    takes them, or a {dotted key: value} mapping; a problem with a value an
    override set is blamed on the override."""
    path = resolve(path)
    raw = _platform_paths(parse_toml(path), path.parent)
    given = overrides_of(overrides)
    raw = apply_overrides(raw, [(o.key, o.value) for o in given])
    if any(o.key == "platform" for o in given):
        raw = _platform_paths(raw, Path.cwd())
    scenario, problems = check(raw, [o.key for o in given])
    if problems or scenario is None:
        raise ScenarioError(path, problems, given)
    return scenario


def _platform_paths(raw: dict[str, Any], base: Path) -> dict[str, Any]:
    """`platform` given as a file's path (`./nrf52840.toml`, `boards/x.toml`)
    made absolute from `base` (the scenario file's directory; the working
    directory for `--set`), so every point names the same file wherever it runs."""

    def absolute(name: Any) -> Any:
        if isinstance(name, str) and platforms.is_path(name):
            return str((base / Path(name).expanduser()).resolve())
        return name

    value = raw.get("platform")
    if isinstance(value, list):
        raw["platform"] = [absolute(v) for v in value]
    elif value is not None:
        raw["platform"] = absolute(value)
    return raw


def variant(scenario: Scenario, overrides: dict[str, Any]) -> Scenario:
    """`scenario` with some values replaced (dotted keys), checked again."""
    # only what the file set: defaults that depend on other values (a
    # retransmission policy's) are filled in again for the new values
    raw = apply_overrides(json.loads(json.dumps(scenario.raw)), list(overrides.items()))
    out, problems = check(raw)
    if problems or out is None:
        raise ValueError("; ".join(p.render() for p in problems))
    return out


def builtin_scenarios() -> dict[str, Path]:
    """The reference experiments shipped in scenarios/, by file stem."""
    return {p.stem: p for p in sorted(SCENARIO_DIR.glob("*.toml"))}
