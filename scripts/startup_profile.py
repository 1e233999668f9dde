"""What a tiny `dtlsim run` pays for, whole-process, layer by layer.

    .venv/bin/python scripts/startup_profile.py [STARTS]

Starts fresh interpreters (STARTS of each, default 10) that import more
and more of what a tiny run imports, in the order it needs them, then the
tiny run itself (`dtlsim bench`'s: one handshake over one X-MAC hop to
Parquet) and `dtlsim --help`. Each line is the median wall time and the
median CPU time (user + system) of its processes; the difference between
two lines is what that layer adds. The starts of all lines are interleaved
so a change in the machine's load falls on every line alike.
For the performance note (docs/performance.md), not a benchmark:
`dtlsim bench --case startup` is the benchmark.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time

from dtlsim.bench import TINY_RUN

# Each layer imports what the ones above it do and more. A run imports
# neither NumPy nor pyarrow (the core writes its files): they are not layers.
LAYERS = [
    ("the interpreter", "pass"),
    ("+ the scenario and platform modules (and the core)", "import dtlsim.scenario"),
    ("+ rich and typer",
     "import dtlsim.scenario, typer, rich.console, rich.progress, rich.table"),
    ("+ pydantic (typer's parameter coercion, typer._adapters)",
     "import dtlsim.scenario, typer, rich.console, rich.progress, rich.table, typer._adapters"),
    ("+ the run's own modules (cli.run, runner, brief)",
     "import dtlsim.scenario, typer._adapters, dtlsim.cli.run, dtlsim.runner, dtlsim.brief, "
     "dtlsim.progress"),
]  # fmt: skip


def once(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(starts: int) -> None:
    py = sys.executable
    commands = [(label, [py, "-c", code]) for label, code in LAYERS]
    commands.append(("`dtlsim --help`", [py, "-m", "dtlsim", "--help"]))
    times: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in commands}
    times["a tiny `dtlsim run`"] = []
    for _ in range(starts):
        for label, cmd in commands:
            times[label].append(once(cmd))
        with tempfile.TemporaryDirectory() as tmp:
            run = [py, "-m", "dtlsim", "run", *TINY_RUN, "--out", f"{tmp}/out"]
            times["a tiny `dtlsim run`"].append(once(run))
    print(f"median of {starts} process starts each: wall ms, CPU ms")
    for label, xs in times.items():
        wall = statistics.median(w for w, _ in xs) * 1e3
        cpu = statistics.median(c for _, c in xs) * 1e3
        print(f"{wall:7.0f} {cpu:7.0f}  {label}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
