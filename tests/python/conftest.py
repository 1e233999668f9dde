"""Shared helpers: run the real `dtlsim` command line in-process."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dtlsim.cli import app

# A suite started in the background of a shell without job control inherits
# SIGINT ignored, and an ignored signal stays ignored across exec: the
# commands the Ctrl-C tests start would never see their Ctrl-C. A handler
# here is reset to the default in every child, which Python then turns into
# KeyboardInterrupt as it does at a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


class Cli:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, code: int = 0) -> str:
        result = self.runner.invoke(app, list(args))
        assert result.exit_code == code, (result.exit_code, result.output)
        return result.output

    def stdout(self, *args: str, code: int = 0) -> str:
        """What the command wrote to stdout alone (a server's log goes to
        stderr)."""
        result = self.runner.invoke(app, list(args))
        assert result.exit_code == code, (result.exit_code, result.output)
        return result.stdout

    def json(self, *args: str) -> Any:
        return json.loads(self.stdout(*args, "--json"))


@pytest.fixture
def cli() -> Cli:
    return Cli()


# --- Where the suite's time goes (docs/performance.md, "`make test`") ---

# The files whose tests take longest, started first under `--dist loadfile`
# so that no worker is left running one of them alone at the end. Measured
# with `--durations=0`: the quick report 334 s at load 6-7, the tshark
# captures 229 s, the browser's page 141 s, the Ctrl-C tests 64 s, the
# state learner 43 s, the progress lines 48 s.
SLOW_FIRST = (
    "tests/python/test_reproduce.py",
    "tests/python/test_capture_tshark.py",
    "tests/python/test_cli_hardening.py",
    "tests/python/test_progress.py",
    "tests/python/test_learner13.py",
)

# Files that read the session's quick report (`quick_report`, below) run on
# the same worker as the file that makes it, so it is made once.
SAME_WORKER = {"tests/python/test_report_browser.py": "tests/python/test_reproduce.py"}


def _file_of(nodeid: str) -> str:
    file = nodeid.split("::", 1)[0]
    return SAME_WORKER.get(file, file)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # A stable sort: within a file the tests keep their order.
    rank = {file: i for i, file in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(_file_of(item.nodeid), len(rank)))


# optional: without pytest-xdist (`-p no:xdist`) pytest would refuse the
# conftest for implementing a hook it does not know
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadfile`: a file's tests on one worker as ever, the
    files of SAME_WORKER together, and the files handed out in the order
    collected (the slow ones first) rather than by their number of tests."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _file_of(nodeid)

    config.option.loadscopereorder = False
    return Scheduling(config, log)


@pytest.fixture(scope="session")
def quick_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """`dtlsim reproduce --quick --json`, every experiment, once a session:
    its report directory and the summary rows it printed. Its runs/ hold
    every quick unit, which a smaller report reuses (`report_from_quick_units`)."""
    from dtlsim.cli import app

    out = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(app, ["reproduce", "--quick", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.output)


def report_from_quick_units(out: Path, quick: Path, *args: str) -> None:
    """`dtlsim reproduce --quick --out OUT ARGS` run over a copy of the quick
    report's units: the experiments resume from them (a unit is keyed by
    everything that produced it), so only the report is written anew."""
    from dtlsim.cli import app

    shutil.copytree(quick / "runs", out / "runs")
    result = CliRunner().invoke(app, ["reproduce", "--quick", "--out", str(out), *args])
    assert result.exit_code == 0, result.output
