"""Long work shows progress with the time left: a bar on a terminal, plain
lines in a pipe (no escape codes there), and `reproduce` says which
experiment it is on."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

from rich.console import Console

from dtlsim import progress
from dtlsim.progress import PLAIN_EVERY_S, Eta, Reporter

REPO = Path(__file__).resolve().parents[2]
DTLSIM = Path(sys.executable).parent / "dtlsim"
ESCAPE = "\x1b["


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def plain_reporter() -> tuple[Reporter, io.StringIO, Clock]:
    out = io.StringIO()
    clock = Clock()
    console = Console(file=out, force_terminal=False, width=200)
    return Reporter(console, clock=clock), out, clock


def test_the_time_left_follows_the_pace_since_the_start_here():
    eta = Eta(now=0.0)
    assert eta.left_s(4, 20, 0.0) is None  # 4 units were finished before: no pace yet
    assert eta.left_s(4, 20, 5.0) is None
    # 4 units in 8 s, 12 to go: 24 s
    assert eta.left_s(8, 20, 8.0) == 24.0


def test_plain_progress_is_a_line_now_and_then_and_one_at_the_end():
    reporter, out, clock = plain_reporter()
    on_progress = reporter.task("exp1-xmac")
    on_progress(0, 10)
    for done in range(1, 10):
        clock.now += 1.0  # one unit a second
        on_progress(done, 10)
    clock.now += 1.0
    on_progress(10, 10)
    lines = out.getvalue().splitlines()
    assert lines[0] == "exp1-xmac: 0/10 units, 0:00:00 elapsed, time left unknown"
    # the next line only once PLAIN_EVERY_S have passed: here, the last
    assert len(lines) == 1 + (9 // int(PLAIN_EVERY_S)) + 1
    assert lines[-1] == "exp1-xmac: 10/10 units, 0:00:10 elapsed"
    assert ESCAPE not in out.getvalue()


def test_a_plain_line_between_says_the_time_left():
    reporter, out, clock = plain_reporter()
    on_progress = reporter.task("sweep")
    on_progress(0, 40)
    clock.now += PLAIN_EVERY_S
    on_progress(10, 40)
    assert out.getvalue().splitlines()[-1] == "sweep: 10/40 units, 0:00:10 elapsed, 0:00:30 left"


def test_sweeps_started_inside_reporting_report_to_it_and_none_outside():
    assert progress.current("x") is None
    reporter, out, _ = plain_reporter()
    with progress.reporting(reporter):
        progress.note("experiment 1 of 2: exp1-xmac")
        on_progress = progress.current("exp1-xmac")
        assert on_progress is not None
        on_progress(3, 3)
    assert progress.current("x") is None
    assert out.getvalue().splitlines() == [
        "experiment 1 of 2: exp1-xmac",
        "exp1-xmac: 3/3 units, 0:00:00 elapsed",
    ]


def test_a_disabled_reporter_prints_nothing():
    out = io.StringIO()
    reporter = Reporter(Console(file=out, force_terminal=True), enabled=False)
    with reporter:
        reporter.task("x")(1, 2)
        reporter.note("nothing")
    assert out.getvalue() == ""


def env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    e["TERM"] = "xterm-256color"
    return e


def test_run_in_a_pipe_prints_plain_progress_lines(tmp_path):
    done = subprocess.run(
        [str(DTLSIM), "run", "exp6-rtt", "--replications", "2", "--out", str(tmp_path)],
        cwd=REPO, env=env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ESCAPE not in done.stderr
    lines = [ln for ln in done.stderr.splitlines() if " units, " in ln]
    assert lines[0].startswith("exp6-rtt: 2 replication(s) per point: 0/")
    assert lines[-1].endswith("elapsed") and "left" not in lines[-1]


def test_run_on_a_terminal_draws_a_bar_with_the_time_left(tmp_path):
    leader, follower = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        # read while the run draws: a pty's buffer is small, and a bar
        # redrawn for minutes on a loaded machine would fill it and block
        # the writer if nobody read until the end
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        done = subprocess.run(
            [str(DTLSIM), "run", "exp6-rtt", "--replications", "2", "--out", str(tmp_path)],
            cwd=REPO, env=env(), stdout=subprocess.DEVNULL, stderr=follower, timeout=300,
        )  # fmt: skip
    finally:
        os.close(follower)
        reader.join(timeout=30)
        os.close(leader)
    assert done.returncode == 0
    shown = b"".join(chunks).decode(errors="replace")
    assert "units" in shown and "left" in shown
    assert ESCAPE in shown  # a terminal keeps its bar


def test_reproduce_in_a_pipe_says_which_experiment_and_how_far(tmp_path):
    done = subprocess.run(
        [str(DTLSIM), "reproduce", "--quick", "--only", "exp6-rtt", "--out", str(tmp_path)],
        cwd=REPO, env=env(), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ESCAPE not in done.stderr + done.stdout
    lines = done.stderr.splitlines()
    assert lines[0].startswith("experiment 1 of 1: exp6-rtt")
    assert any(ln.startswith("exp6-rtt: 0/") and "units" in ln for ln in lines)
    assert "writing the report" in lines
