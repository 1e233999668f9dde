"""dtlsim as a user installs it: a wheel built by maturin, installed with pip
into a fresh virtual environment, run from a directory outside the repository.

The wheel is built from this tree (`maturin build --release`, which reuses the
release build `scripts/setup.sh` left in the cargo target directory, so it
takes seconds unless the Rust sources changed since). Its dependencies are not
downloaded again: the fresh environment borrows the project venv's
site-packages through a path file, which adds their directory to `sys.path`
but does not run the project venv's own path files, so the editable install of
this tree stays invisible and only the installed wheel can answer.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
# A build from scratch (a fresh machine whose cargo cache is cold) may take
# minutes; a hung build must still end the test.
BUILD_TIMEOUT_S = 1200


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the dtlsim wheel installed; returns its bin/ directory."""
    root = tmp_path_factory.mktemp("install")
    wheels = root / "wheels"
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [str(bin_dir / "maturin"), "build", "--release", "--quiet", "-o", str(wheels)],
        cwd=REPO,
        check=True,
        timeout=BUILD_TIMEOUT_S,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"},
    )
    (wheel,) = wheels.glob("dtlsim-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    target = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(target),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        check=True,
        timeout=300,
    )
    site = subprocess.run(
        [str(target), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "borrowed-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv / "bin"


def run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DTLSIM_PLATFORMS")}
    return subprocess.run(
        [str(bin_dir / "dtlsim"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_installed_package_is_the_one_that_runs(installed, tmp_path):
    where = subprocess.run(
        [str(installed / "python"), "-c", "import dtlsim; print(dtlsim.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(installed.parent), where
    assert not Path(where).resolve().is_relative_to(REPO), where


def test_installed_reproduce_writes_a_report_outside_the_repository(installed, tmp_path):
    assert not tmp_path.resolve().is_relative_to(REPO)
    listed = run(installed, tmp_path, "platforms", "--json")
    assert listed.returncode == 0, listed.stderr
    for name in ("wismote", "telosb", "openmote-cc2538", "greennet"):
        assert name in listed.stdout
    done = run(
        installed, tmp_path, "reproduce", "--quick", "--only", "exp6-overhead", "--out", "report"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = pd.read_csv(tmp_path / "report" / "summary.csv")
    assert len(summary) > 0
    assert summary.verdict.notna().all()
    assert "exp6-overhead" in (tmp_path / "report" / "index.md").read_text()
    # An installed copy is no git checkout, even under one: it says so.
    assert "not a git checkout" in (tmp_path / "report" / "index.md").read_text()


def test_reproduce_with_nothing_to_run_is_an_error(installed, tmp_path):
    site = installed.parent / "lib"
    (scenarios,) = site.glob("python3*/site-packages/dtlsim/data/scenarios")
    hidden = scenarios.with_name("scenarios-hidden")
    scenarios.rename(hidden)
    try:
        done = run(installed, tmp_path, "reproduce", "--quick", "--out", "report")
    finally:
        hidden.rename(scenarios)
    assert done.returncode != 0
    assert "no reference experiment to run" in done.stderr
    assert not (tmp_path / "report" / "summary.csv").exists()


def test_the_source_tree_reads_the_same_files_as_the_wheel():
    from dtlsim import resources

    assert resources.platforms_dir().resolve() == REPO / "platforms"
    assert resources.scenarios_dir().resolve() == REPO / "scenarios"
    assert resources.source_checkout() == REPO
