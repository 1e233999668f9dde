"""What produced a result besides its parameters: the code and the data files.

A finished unit of a sweep is reused only if all of it is unchanged (see
`dtlsim.sweep.unit_key`); the report names the same code (`code_state`).
"""

from __future__ import annotations

import hashlib
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

from dtlsim import __version__, _core, resources
from dtlsim import platform as platforms


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def core_build_id() -> str:
    """Digest of the loaded Rust extension file.

    Any rebuild from changed sources gives a different file, and this is the
    very binary that ran, whatever way it was installed; a build id compiled
    into the core would need the build to stamp it, and a digest of the
    sources would miss a different compiler or profile. Hashing the file
    (some MB) once per process costs milliseconds."""
    return _sha256(Path(_core.__file__))[:16]


@cache
def python_code_id() -> str:
    """Digest of this package's Python sources: they turn a point's parameters
    into the simulator's input (`dtlsim.simulation`, `dtlsim.models`), so a
    change there can change a result as a changed core can."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        h.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def platform_digest(name: str) -> str:
    """Digest of the platform file a point names, read now (not cached: it may change)."""
    return _sha256(platforms.platform_path(name))[:16]


def inputs(params: dict[str, Any]) -> dict[str, Any]:
    """Everything besides `params` that a point's result depends on."""
    out: dict[str, Any] = {
        "dtlsim_version": __version__,
        "core_build": core_build_id(),
        "python_code": python_code_id(),
    }
    name = params.get("platform")
    if isinstance(name, str) and platforms.platform_path(name).is_file():
        out["platform_sha256"] = platform_digest(name)
    return out


@cache
def code_state() -> dict[str, Any]:
    """The git commit of the code and whether the work tree differs from it."""
    checkout = resources.source_checkout()

    def git(*args: str) -> str | None:
        if checkout is None:
            return None
        try:
            done = subprocess.run(
                ["git", "-C", str(checkout), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {
        "commit": commit or "unknown (not a git checkout)",
        "dirty": bool(status) if status is not None else None,
        "dtlsim_version": __version__,
        "core_build": core_build_id(),
    }
