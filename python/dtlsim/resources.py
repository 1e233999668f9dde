"""Where dtlsim finds the files it ships: platform profiles, reference
scenarios and reference data (other simulators' logs, `reference/`).

They are package data, in ``dtlsim/data/platforms``, ``dtlsim/data/scenarios``
and ``dtlsim/data/reference``, so an installed wheel finds them exactly as a
source checkout does. In the checkout those entries are symbolic links to the
repository's top-level ``platforms/``, ``scenarios/`` and ``reference/`` (where
people edit and cite them); the wheel and sdist builds (``[tool.maturin]
include`` in pyproject.toml) follow the links and copy the files themselves.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
DATA = PACKAGE / "data"


def platforms_dir() -> Path:
    """The shipped device profiles (``<id>.toml``); in a checkout, the
    top-level directory itself, so messages name the file people edit."""
    return (DATA / "platforms").resolve()


def scenarios_dir() -> Path:
    """The shipped reference scenarios (``<name>.toml``), resolved as above."""
    return (DATA / "scenarios").resolve()


def reference_dir(name: str) -> Path:
    """One set of shipped reference data (``reference/<name>/``: logs of
    another simulator with their README), resolved as above."""
    return (DATA / "reference" / name).resolve()


def source_checkout() -> Path | None:
    """The repository root when dtlsim runs from its source tree (an editable
    install), else None: an installed copy has no git history of its own, and
    a directory above site-packages may belong to an unrelated repository."""
    root = PACKAGE.parents[1]
    if PACKAGE.parent.name == "python" and (root / "Cargo.toml").is_file():
        return root
    return None
