"""README's Layout block stays true to the tree: every path and folder it
names exists, and every crate and every top-level folder is named.

It checks crates and folders, not files: a file moved inside a crate needs
no README edit; a crate or a folder added, removed or renamed does. A line
of the block is `PATHS  description`: PATHS are comma-separated paths from
the top of the repository (globs allowed); a word of the description that
ends in `/` (`mac/`, `v13/`) names a folder of that entry (for a crate, of
its `src/`) or of the repository; a line starting with spaces goes on with
the description above it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# A folder named in a description: `app/`, `cli/`, `scripts/peers/` (not
# `crates/*`, not a part of a longer word or path).
FOLDER = re.compile(r"(?<![\w./*-])([a-z][\w-]*(?:/[\w.-]+)*/)(?![\w*])")


def layout_block(readme: str) -> str:
    """The fenced block under the `## Layout` heading."""
    section = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```", 2)[1].strip("\n")


def entries(block: str) -> list[tuple[list[str], str]]:
    """(paths, description) per entry of the block."""
    found: list[tuple[list[str], str]] = []
    for line in block.splitlines():
        if not line.strip():
            continue
        if line[0].isspace():
            paths, text = found[-1]
            found[-1] = (paths, f"{text} {line.strip()}")
            continue
        paths, *text = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        found.append(([p.strip() for p in paths.split(",")], " ".join(text)))
    return found


def problems(root: Path, block: str, top_folders: set[str]) -> list[str]:
    """What the block says that the tree under `root` does not hold."""
    found = []
    named: set[str] = set()
    for paths, text in entries(block):
        bases = [root]
        for path in paths:
            if not list(root.glob(path)):
                found.append(f"{path}: named by the Layout, not in the tree")
            named.add(path)
            if path.endswith("/"):
                bases += [root / path, root / path / "src"]
        for folder in FOLDER.findall(text):
            if not any((base / folder).is_dir() for base in bases):
                where = ", ".join(paths)
                found.append(f"{folder} (on the line of {where}): not a folder in the tree")
    crates = {p.parent.name for p in root.glob("crates/*/Cargo.toml")}
    for crate in sorted(crates):
        if f"crates/{crate}/" not in named:
            found.append(f"crates/{crate}/: a crate the Layout does not name")
    first_parts = {p.split("/", 1)[0] for p in named}
    for folder in sorted(top_folders):
        if folder not in first_parts:
            found.append(f"{folder}/: a top-level folder the Layout does not name")
    return found


def tracked_top_folders(root: Path) -> set[str]:
    """The top-level folders git tracks files in, hidden ones (.ci) aside."""
    try:
        files = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked folders are unknown")
    return {f.split("/", 1)[0] for f in files if "/" in f and not f.startswith(".")}


def test_the_readme_layout_matches_the_tree():
    block = layout_block((REPO / "README.md").read_text(encoding="utf-8"))
    assert problems(REPO, block, tracked_top_folders(REPO)) == []


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for folder in ("crates/sim/src/mac", "crates/wpan/src", "docs", "python/dtlsim/cli"):
        (tmp_path / folder).mkdir(parents=True)
    for crate in ("sim", "wpan"):
        (tmp_path / "crates" / crate / "Cargo.toml").write_text("")
    (tmp_path / "docs" / "index.md").write_text("")
    return tmp_path


GOOD = """\
crates/sim/        the simulator: engine, mac/
crates/wpan/       frames
docs/*.md          the pages
python/dtlsim/     the package:
                   cli/ (a module per command group)"""


def test_a_true_layout_has_no_problem(tree):
    assert problems(tree, GOOD, {"crates", "docs", "python"}) == []


def test_a_missing_crate_folder_or_named_folder_is_a_problem(tree):
    stale = GOOD.replace("mac/", "mac/ app/").replace("docs/*.md", "docs/*.md, mkdocs.yml")
    stale += "\ncrates/gone/       removed"
    found = problems(tree, stale, {"crates", "docs", "python"})
    assert found == [
        "app/ (on the line of crates/sim/): not a folder in the tree",
        "mkdocs.yml: named by the Layout, not in the tree",
        "crates/gone/: named by the Layout, not in the tree",
    ]


def test_an_unnamed_crate_or_top_level_folder_is_a_problem(tree):
    (tree / "crates" / "coap").mkdir()
    (tree / "crates" / "coap" / "Cargo.toml").write_text("")
    found = problems(tree, GOOD, {"crates", "docs", "python", "peers"})
    assert found == [
        "crates/coap/: a crate the Layout does not name",
        "peers/: a top-level folder the Layout does not name",
    ]
