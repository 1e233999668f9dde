"""Where experiment 1's events go: events by kind, per replication, on
grid points and Cooja X-MAC oracle configurations (docs/performance.md).

    .venv/bin/python scripts/event_census.py [REPLICATIONS] [grid|oracle|all]

Writes each chosen point as the JSON the core is handed (`{"point",
"platform"}`, as in `crates/sim/benches/data/`) to a scratch directory and
runs `cargo run --release -p dtlsim-sim --example event_census` over them.
The grid points are the corners and the middle of experiment 1's grid (1
and 4 hops at 62.5 ms and 4 s, 3 hops at 1 s; links at 90 % PDR); the oracle's, one
configuration per line length at the check interval most logs have.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from dtlsim import keys
from dtlsim.experiments import cooja_oracle
from dtlsim.scenario import load_scenario, variant
from dtlsim.simulation import platform_figures, settled

GRID = [(1, 62.5), (1, 4000.0), (3, 1000.0), (4, 62.5), (4, 4000.0)]
GRID_PDR = 0.9


def grid_points() -> list[tuple[str, dict]]:
    sc = load_scenario("exp1-xmac")
    out = []
    for p in sc.points():
        key = (p[keys.TOPOLOGY_HOPS], p[keys.MAC_XMAC_CHECK_INTERVAL_MS])
        if key in GRID and p[keys.TOPOLOGY_PDR] == GRID_PDR:
            out.append((f"grid-{key[0]}hops-ci{key[1]:g}ms", p))
    return out


def oracle_points() -> list[tuple[str, dict]]:
    sc = load_scenario("cooja-xmac")
    runs = cooja_oracle.runs_of(cooja_oracle.oracle_logs())
    setups = [cooja_oracle.read_runs(paths)[0] for paths in runs.values()]
    chosen: dict[int, cooja_oracle.Setup] = {}
    for s in setups:
        chosen.setdefault(s.hops, s)
    out = []
    for _, s in sorted(chosen.items()):
        (p,) = list(variant(sc, s.overrides).points())
        out.append((f"oracle-{s.name}", p))
    return out


def main(argv: list[str]) -> None:
    reps = int(argv[0]) if argv else 20
    which = argv[1] if len(argv) > 1 else "all"
    points = (grid_points() if which in ("grid", "all") else []) + (
        oracle_points() if which in ("oracle", "all") else []
    )
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, p in points:
            f = Path(tmp) / f"{name}.json"
            stored = {"point": json.loads(settled(p).json()), "platform": platform_figures(p)}
            f.write_text(json.dumps(stored))
            files.append(str(f))
        cmd = ["cargo", "run", "-q", "--release", "-p", "dtlsim-sim"]
        cmd += ["--example", "event_census", "--", str(reps)]
        subprocess.run(cmd + files, check=True)


if __name__ == "__main__":
    main(sys.argv[1:])
