"""Start-up: the command line loads the heavy libraries only for the commands
that use them. A property of the imports (which modules are loaded), not a
timing: `dtlsim bench --case startup` measures the time."""

from __future__ import annotations

import subprocess
import sys

# Each costs a tenth of a second or more to import (`python -X importtime`).
HEAVY = ("pandas", "pyarrow", "matplotlib", "scipy", "pydantic")


def modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def loaded_after(code: str) -> set[str]:
    return {m.split(".")[0] for m in modules_after(code)}


def test_importing_the_command_line_loads_no_heavy_library():
    loaded = loaded_after("import dtlsim.cli")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_help_loads_no_heavy_library():
    code = (
        "import sys\nfrom dtlsim.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    )
    loaded = loaded_after(code)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_a_run_summary_does_not_load_scipy_stats():
    # a second of start-up for two quantiles; stats.py computes them itself
    loaded = loaded_after("from dtlsim import stats\nstats.proportion_ci95(3, 10)")
    assert "scipy" not in loaded


def test_a_tiny_run_to_files_loads_no_array_library(tmp_path):
    # the whole run path: planning, simulating, the unit dataset, the streamed
    # Parquet results and tidy rows (the core writes them all), the summary
    # of one replication (plain Python) and its printed brief; then the same
    # run resumed (the unit found whole by the core's check)
    code = (
        "from dtlsim.cli import app\n"
        "for _ in range(2):\n"
        "    try:\n"
        f"        app(['run', 'exp1-xmac', '--set', 'topology.hops=1', '--set', 'topology.pdr=1.0',"
        f" '--set', 'mac.xmac.check_interval_ms=62.5', '--replications', '1', '--workers', '1',"
        f" '--out', {str(tmp_path / 'out')!r}])\n"
        "    except SystemExit as e:\n"
        "        assert not e.code, e.code"
    )
    modules = modules_after(code)
    loaded = {m.split(".")[0] for m in modules}
    assert (tmp_path / "out" / "results_tidy.parquet").is_file()
    assert not loaded & {"pandas", "matplotlib", "scipy", "pyarrow", "numpy"}, sorted(loaded)


def test_a_tiny_run_below_the_command_line_loads_no_pydantic(tmp_path):
    # platform and host files are checked by the core (crates/schema,
    # platform_file.rs): loading the scenario and its platform, running it to
    # its files and its brief load no pydantic. (`dtlsim run` itself still
    # does: typer 0.29 builds each parameter's coercion with a pydantic
    # TypeAdapter, `typer._adapters`.)
    code = (
        "from pathlib import Path\n"
        "from dtlsim.scenario import load_scenario\n"
        "from dtlsim.runner import run\n"
        "from dtlsim.brief import brief\n"
        "sc = load_scenario('exp1-xmac', ['topology.hops=1', 'topology.pdr=1.0',"
        " 'mac.xmac.check_interval_ms=62.5'])\n"
        f"ran = run(sc, Path({str(tmp_path / 'out')!r}), 1, 1)\n"
        "brief(ran.summary, [], sc.workload.kind)"
    )
    loaded = loaded_after(code)
    assert (tmp_path / "out" / "results_tidy.parquet").is_file()
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_checking_a_platform_file_loads_no_pydantic():
    loaded = loaded_after(
        "from dtlsim.platform import load_platform\nfrom dtlsim.hosts import load_host\n"
        "load_platform('telosb')\nload_host()"
    )
    assert "pydantic" not in loaded
