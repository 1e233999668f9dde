"""The suite's own hooks (conftest.py) work with or without pytest-xdist."""

from __future__ import annotations

import os
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


def test_cargo_test_names_a_bad_job_count() -> None:
    # scripts/cargo_test.py stops before building, naming the variable and
    # its value, rather than with a traceback
    for value in ("abc", "0", "-2", "1.5"):
        done = subprocess.run(
            [sys.executable, "scripts/cargo_test.py"],
            cwd=ROOT, capture_output=True, text=True, check=False, timeout=60,
            env={**os.environ, "DTLSIM_TEST_JOBS": value},
        )  # fmt: skip
        assert done.returncode != 0, value
        assert f"DTLSIM_TEST_JOBS = {value!r}" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
