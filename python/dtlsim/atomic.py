"""Files written whole or not at all.

A result file is written under a temporary name beside its final one and
renamed into place (a rename within a directory is atomic on POSIX), so a
run killed mid-write leaves the old file or none, never a truncated one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Have `write` fill a temporary file, then rename it to `path`."""
    tmp = path.with_name(f".{path.name}.partial")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomically(path: Path, text: str) -> None:
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
