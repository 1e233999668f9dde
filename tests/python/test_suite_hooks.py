"""The suite's own hooks (conftest.py) work with or without pytest-xdist."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_suite_collects_without_xdist() -> None:
    # conftest.py implements an xdist hook; without the plugin (`-p no:xdist`,
    # or an environment without it) pytest must still accept the conftest
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "--collect-only", "-q",
         "tests/python/test_stats.py"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "unknown hook" not in done.stdout + done.stderr
