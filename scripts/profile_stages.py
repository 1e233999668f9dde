"""Where a sweep's CPU time goes, stage by stage, in process.

    .venv/bin/python scripts/profile_stages.py grid [REPLICATIONS] [WORKERS]
    .venv/bin/python scripts/profile_stages.py reproduce-quick
    .venv/bin/python scripts/profile_stages.py tiny-run

`tiny-run` is `dtlsim bench`'s tiny run (one handshake over one X-MAC hop,
to Parquet) after the imports; this script imports more than a run does
(the report's matplotlib and pandas), so a run's imports are measured
with `python -X importtime -m dtlsim run ...` instead.

`grid` runs experiment 1's grid (every point, REPLICATIONS per point,
default the scenario's 1000, on WORKERS threads, default 1) into a scratch
directory; `reproduce-quick` runs `dtlsim reproduce --quick` the same way.
Each stage below is wrapped by a timer of the calling thread's CPU time
(`time.thread_time`), so stages run on worker threads add up to CPU
seconds, not wall seconds; a stage nested in another is counted in both.
Work pyarrow hands to its own thread pool (decoding Parquet) is in the
process's CPU total but in no stage.
The figures are a profile for the performance note (docs/performance.md),
not a benchmark: `dtlsim bench` is the benchmark.

Written here rather than with a sampling profiler because Python 3.11's
frames are invisible to perf and cProfile sees only the main thread, while
the units run on worker threads.
"""

from __future__ import annotations

import collections
import functools
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dtlsim import _core, runner, simulation, sweep
from dtlsim import reproduce as reproducing

spent: collections.Counter[str] = collections.Counter()
calls: collections.Counter[str] = collections.Counter()

# (module, function, what the stage is)
STAGES = [
    (_core, "simulate", "core.simulate: the Rust simulator, rows as buffers"),
    (simulation, "run_unit_with_nodes", "run_unit_with_nodes: simulate + Arrow tables"),
    (sweep, "_write_unit", "a unit's Parquet file written"),
    (sweep, "_read_unit", "a unit's Parquet file read back"),
    (sweep, "conform", "a unit conformed to the sweep's schema"),
    (_core, "write_results", "core.write_results: results/tidy/nodes Parquet from the units"),
    (runner, "summarize_figures", "summary of a point"),
    (runner, "write_tables", "the result files and each point's summary"),
    (reproducing, "write_report", "the report (tables, plots, page)"),
]


def timed(label: str, f: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return f(*args, **kwargs)
        finally:
            spent[label] += time.thread_time() - start
            calls[label] += 1

    return wrapper


def wrap_stages() -> None:
    for module, name, label in STAGES:
        setattr(module, name, timed(label, getattr(module, name)))


def grid(replications: int | None, workers: int) -> str:
    import pyarrow.compute as pc

    from dtlsim.scenario import load_scenario

    sc = load_scenario("exp1-xmac")
    n = replications or sc.experiment.replications
    with tempfile.TemporaryDirectory() as tmp:
        rows, _ = runner.run_scenario(sc, Path(tmp), n, workers)
        counted = rows.table(["replication_events"])
    events = int(pc.sum(counted.column("replication_events")).as_py() or 0)
    handshakes = counted.num_rows
    return (
        f"exp1-xmac grid: {handshakes} handshakes ({n} per point, {workers} worker(s)), "
        f"{events} events, {events / max(handshakes, 1):.1f} events per handshake"
    )


def tiny_run() -> str:
    from dtlsim.bench import TINY_RUN
    from dtlsim.scenario import load_scenario

    sets = [TINY_RUN[i + 1] for i, a in enumerate(TINY_RUN) if a == "--set"]
    scenario = load_scenario(TINY_RUN[0], sets)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        runner.run(scenario, Path(tmp) / "out", 1, 1)
        wall = time.perf_counter() - start
    return f"tiny run: runner.run {wall * 1e3:.1f} ms wall (the scenario loaded before)"


def reproduce_quick() -> str:
    per: dict[str, tuple[float, float]] = {}
    for exp_id, run in list(reproducing.RUNNERS.items()):

        def measured(*args: Any, _run: Any = run, _id: str = exp_id, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return _run(*args, **kwargs)
            finally:
                per[_id] = (time.perf_counter() - wall, time.process_time() - cpu)

        reproducing.RUNNERS[exp_id] = measured
    with tempfile.TemporaryDirectory() as tmp:
        reproducing.reproduce(Path(tmp) / "out", quick=True)
    lines = ["reproduce --quick, per experiment (wall s, process CPU s):"]
    for exp_id, (wall, cpu) in sorted(per.items(), key=lambda kv: -kv[1][0]):
        lines.append(f"  {exp_id:28s} {wall:7.1f} {cpu:7.1f}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    if not argv or argv[0] not in ("grid", "reproduce-quick", "tiny-run"):
        sys.exit(__doc__)
    wrap_stages()
    wall, cpu = time.perf_counter(), time.process_time()
    if argv[0] == "grid":
        replications = int(argv[1]) if len(argv) > 1 else None
        what = grid(replications, int(argv[2]) if len(argv) > 2 else 1)
    elif argv[0] == "tiny-run":
        what = tiny_run()
    else:
        what = reproduce_quick()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(what)
    print(f"in process: {wall:.3f} s wall, {cpu:.3f} s CPU (every thread)")
    print("CPU by stage (thread time, summed over threads; nested stages counted twice):")
    for label, seconds in spent.most_common():
        print(f"  {seconds:8.3f} s {calls[label]:6d} calls  {label}")


if __name__ == "__main__":
    main(sys.argv[1:])
