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


def write_all_atomically(paths: list[Path], write: Callable[[list[Path]], object]) -> None:
    """Have `write` fill a temporary file for each of `paths` (files written
    together, in one pass), then rename each into place."""
    tmps = [path.with_name(f".{path.name}.partial") for path in paths]
    try:
        write(tmps)
        for tmp, path in zip(tmps, paths, strict=True):
            os.replace(tmp, path)
    finally:
        for tmp in tmps:
            tmp.unlink(missing_ok=True)
