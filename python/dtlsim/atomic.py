"""Files written whole or not at all.

A result file is written under a temporary name beside its final one and
renamed into place (a rename within a directory is atomic on POSIX), so a
run killed mid-write leaves the old file or none, never a truncated one.
The temporary name is unique to the writer (process, thread and a random
token): two runs writing the same file at once (two sweeps on one `--out`)
never write into each other's temporary file; each renames a whole file
into place and the last rename wins. Temporary names start with a dot and
end in `.partial`, so readers of a results directory skip them.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable
from pathlib import Path


def partial_name(path: Path) -> Path:
    """A temporary name beside `path` that no other writer uses: the
    process id, the thread id and a random token."""
    token = f"{os.getpid()}-{threading.get_ident()}-{secrets.token_hex(4)}"
    return path.with_name(f".{path.name}.{token}.partial")


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Have `write` fill a temporary file, then rename it to `path`."""
    tmp = partial_name(path)
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
    tmps = [partial_name(path) for path in paths]
    try:
        write(tmps)
        for tmp, path in zip(tmps, paths, strict=True):
            os.replace(tmp, path)
    finally:
        for tmp in tmps:
            tmp.unlink(missing_ok=True)
