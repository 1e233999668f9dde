"""The Rust extension's identity in unit keys: the GNU build id the linker
wrote (read from the ELF notes, not by hashing the whole file), else a
digest of the file."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from dtlsim import _core, provenance


def note(name: bytes, kind: int, desc: bytes, order: str) -> bytes:
    pad = lambda b: b + b"\0" * (-len(b) % 4)  # noqa: E731
    return struct.pack(order + "III", len(name), len(desc), kind) + pad(name) + pad(desc)


def elf(path: Path, wide: bool, order: str, notes: bytes | None) -> Path:
    """A minimal ELF file: the header, one program header (a PT_NOTE segment,
    or a PT_LOAD when `notes` is None) and the notes."""
    ident = b"\x7fELF" + bytes([2 if wide else 1, 1 if order == "<" else 2, 1]) + b"\0" * 9
    header_size, ph_size = (64, 56) if wide else (52, 32)
    body = notes or b""
    kind = 4 if notes is not None else 1
    at = header_size + ph_size
    if wide:
        header = struct.pack(order + "HHIQQQIHHHHHH", 3, 62, 1, 0, header_size, 0, 0,
                             header_size, ph_size, 1, 0, 0, 0)  # fmt: skip
        ph = struct.pack(order + "IIQQQQQQ", kind, 4, at, 0, 0, len(body), len(body), 4)
    else:
        header = struct.pack(order + "HHIIIIIHHHHHH", 3, 3, 1, 0, header_size, 0, 0,
                             header_size, ph_size, 1, 0, 0, 0)  # fmt: skip
        ph = struct.pack(order + "IIIIIIII", kind, at, 0, 0, len(body), len(body), 4, 4)
    path.write_bytes(ident + header + ph + body)
    return path


@pytest.mark.parametrize(("wide", "order"), [(True, "<"), (False, ">")])
def test_the_build_id_is_read_from_the_notes(tmp_path, wide, order):
    build = bytes(range(1, 21))
    notes = note(b"GNU\0", 1, b"\0" * 16, order)  # an ABI tag first: skipped
    notes += note(b"GNU\0", 3, build, order)
    f = elf(tmp_path / "lib.so", wide, order, notes)
    assert provenance.elf_build_id(f) == build.hex()


def test_a_file_without_one_has_none(tmp_path):
    assert provenance.elf_build_id(elf(tmp_path / "a.so", True, "<", None)) is None
    other = note(b"Go\0\0", 3, b"\1\2\3\4", "<")  # a build id, but not GNU's
    assert provenance.elf_build_id(elf(tmp_path / "b.so", True, "<", other)) is None
    (tmp_path / "c.dylib").write_bytes(b"\xcf\xfa\xed\xfe" + b"\0" * 60)
    assert provenance.elf_build_id(tmp_path / "c.dylib") is None
    (tmp_path / "d.so").write_bytes(b"\x7fELF\2\1")  # cut short
    assert provenance.elf_build_id(tmp_path / "d.so") is None


def test_a_file_without_a_build_id_is_hashed(tmp_path, monkeypatch):
    f = elf(tmp_path / "_core.so", True, "<", None)
    monkeypatch.setattr(provenance._core, "__file__", str(f))
    provenance.core_build_id.cache_clear()
    try:
        assert provenance.core_build_id() == provenance._sha256(f)[:16]
    finally:
        provenance.core_build_id.cache_clear()


@pytest.mark.skipif(shutil.which("readelf") is None, reason="binutils' readelf not installed")
def test_the_extensions_build_id_is_the_one_readelf_shows():
    path = Path(_core.__file__)
    shown = subprocess.run(["readelf", "-n", str(path)], capture_output=True, text=True).stdout
    ids = [line.split(":")[1].strip() for line in shown.splitlines() if "Build ID" in line]
    assert provenance.elf_build_id(path) == (ids[0] if ids else None)
