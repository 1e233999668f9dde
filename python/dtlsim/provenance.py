"""What produced a result besides its parameters: the code and the data files.

A finished unit of a sweep is reused only if all of it is unchanged (see
`dtlsim.sweep.unit_key`); the report names the same code (`code_state`).
"""

from __future__ import annotations

import hashlib
import struct
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
    """Identity of the loaded Rust extension file.

    Any rebuild from changed sources gives a different file, and this is the
    very binary that ran, whatever way it was installed; a digest of the
    sources would miss a different compiler or profile. Where the linker
    wrote a GNU build id (`ld --build-id`: a digest of the linked output, in
    an ELF note), that is read from the file's first kilobytes; elsewhere
    the whole file (6.6 MB) is hashed, 7 ms CPU and 11-19 ms wall of every
    run (docs/performance.md)."""
    path = Path(_core.__file__)
    build = elf_build_id(path)
    return f"elf-{build[:16]}" if build is not None else _sha256(path)[:16]


PT_NOTE = 4
NT_GNU_BUILD_ID = 3


def elf_build_id(path: Path) -> str | None:
    """The GNU build id of an ELF file, in hex, read from its program
    headers' notes; None for a file that is not ELF or has none."""
    with path.open("rb") as f:
        ident = f.read(16)
        if len(ident) < 16 or ident[:4] != b"\x7fELF" or ident[4] not in (1, 2):
            return None
        wide, order = ident[4] == 2, "<" if ident[5] == 1 else ">"
        head = f.read(48 if wide else 36)  # the rest of the file header
        if len(head) < (48 if wide else 36):
            return None
        # e_phoff, then e_phentsize and e_phnum (ELF64: at 0x20 and 0x36; ELF32: 0x1C, 0x2A)
        (phoff,) = struct.unpack_from(order + ("Q" if wide else "I"), head, 16 if wide else 12)
        phentsize, phnum = struct.unpack_from(order + "HH", head, 38 if wide else 26)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            ph = f.read(phentsize)
            if wide:
                kind, _, offset, _, _, size = struct.unpack_from(order + "IIQQQQ", ph)
            else:
                kind, offset, _, _, size = struct.unpack_from(order + "IIIII", ph)
            if kind != PT_NOTE:
                continue
            f.seek(offset)
            found = _gnu_build_id(f.read(size), order)
            if found is not None:
                return found
    return None


def _gnu_build_id(notes: bytes, order: str) -> str | None:
    """The build id among ELF notes (each: name size, descriptor size, type,
    then the name and the descriptor, each padded to 4 bytes)."""
    at = 0
    while at + 12 <= len(notes):
        name_size, desc_size, kind = struct.unpack_from(order + "III", notes, at)
        desc_at = at + 12 + (name_size + 3) // 4 * 4
        name = notes[at + 12 : at + 12 + name_size]
        if kind == NT_GNU_BUILD_ID and name == b"GNU\0" and desc_size:
            return notes[desc_at : desc_at + desc_size].hex()
        at = desc_at + (desc_size + 3) // 4 * 4
    return None


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
