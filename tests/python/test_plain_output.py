"""Output that goes to a pipe or a file holds no terminal escape codes: a CI
log, `dtlsim … > out.txt` and `dtlsim … | less` read as plain text. On a
terminal, colours and bold stay."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DTLSIM = Path(sys.executable).parent / "dtlsim"
ESCAPE = "\x1b["


def plain_env() -> dict[str, str]:
    """A colour-capable terminal type, and none of the variables by which a
    user asks for colour even in a pipe."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "PY_COLORS")}
    env.pop("GITHUB_ACTIONS", None)
    env["TERM"] = "xterm-256color"
    return env


@pytest.mark.parametrize(
    "args, code",
    [
        (["--help"], 0),
        (["reproduce", "--help"], 0),
        (["platforms"], 0),
        (["platforms", "telosb"], 0),
        (["model", "tsch", "--slotframe", "101", "--cells", "1", "--hops", "1"], 0),
        (["scenario", "check", "scenarios/exp3-tsch.toml"], 0),
        # an error message, and the one for an unknown option
        (["reproduce", "--only", "exp99", "--out", "unused"], 2),
        (["model", "tsch", "--no-such-option"], 2),
    ],
)
def test_cli_through_a_pipe_prints_no_escape_codes(args, code):
    done = subprocess.run(
        [str(DTLSIM), *args],
        cwd=REPO,
        env=plain_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == code, done.stdout + done.stderr
    assert done.stdout or done.stderr
    assert ESCAPE not in done.stdout
    assert ESCAPE not in done.stderr


def test_a_simulation_run_with_its_progress_prints_no_escape_codes(tmp_path):
    done = subprocess.run(
        [str(DTLSIM), "run", "exp6-rtt", "--replications", "1", "--out", str(tmp_path)],
        cwd=REPO,
        env=plain_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert ESCAPE not in done.stdout + done.stderr


def headings(on_terminal: bool) -> str:
    """What scripts/terminal.sh sets for headings, with stdout a pipe or a terminal."""
    command = ["bash", "-c", '. scripts/terminal.sh; printf "%s|%s" "$BOLD" "$RESET"']
    if not on_terminal:
        return subprocess.run(command, cwd=REPO, capture_output=True, text=True).stdout
    leader, follower = pty.openpty()
    try:
        subprocess.run(command, cwd=REPO, stdout=follower, check=True)
        return os.read(leader, 100).decode()
    finally:
        os.close(leader)
        os.close(follower)


def test_setup_and_test_scripts_print_bold_headings_only_on_a_terminal():
    assert headings(on_terminal=False) == "|"
    assert ESCAPE in headings(on_terminal=True)
    for script in ("setup.sh", "test.sh"):
        text = (REPO / "scripts" / script).read_text()
        assert ". scripts/terminal.sh" in text
        assert "\\033" not in text, script  # headings go through terminal.sh
