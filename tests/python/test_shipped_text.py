"""Text a user reads stands on its own: it cites papers, RFCs and datasheets,
never the project's internal design notes, its issue tracker, or files outside
the repository."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from dtlsim.cli import app

REPO = Path(__file__).resolve().parents[2]

# The internal design note and its sections.
INTERNAL_SPEC = re.compile(r"\bSPEC\b")
# Notes and paths that exist only beside this repository.
OUTSIDE_PATHS = re.compile(r"\.\./shared|/work/|\b(?:SPEC|DESIGN|INTEROP)\.md\b")
# "issue 16", "issues #3": this project's tracker. Another project's issue is a
# citation and names its repository first ("lake-rs/lakers issue #7").
ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
CITED_REPOSITORY = re.compile(r"[\w.-]+/[\w.-]+ $")
# How the project is run, which a reader has no part in: its working
# sessions, its engineers, their briefs.
WORKING_NOTES = re.compile(r"\bsession \d+\b|engineers'|\bthe brief\b", re.IGNORECASE)
# Markdown links and their targets.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def problems(text: str) -> list[str]:
    found = [m.group(0) for m in INTERNAL_SPEC.finditer(text)]
    found += [m.group(0) for m in OUTSIDE_PATHS.finditer(text)]
    found += [m.group(0) for m in WORKING_NOTES.finditer(text)]
    found += [
        m.group(0)
        for m in ISSUE.finditer(text)
        if not CITED_REPOSITORY.search(text[max(0, m.start() - 80) : m.start()])
    ]
    return found


def shipped_files() -> Iterator[Path]:
    yield REPO / "README.md"
    yield REPO / "mkdocs.yml"
    for pattern in ("docs/**/*.md", "scenarios/*.toml", "platforms/*.toml"):
        yield from sorted(REPO.glob(pattern))
    for pattern in ("*.py", "*.pyi"):
        yield from sorted((REPO / "python" / "dtlsim").rglob(pattern))
    # the code's own comments are read too (docs.rs-style API docs, the
    # scripts a user runs)
    for pattern in ("*.rs", "*.md", "Cargo.toml"):
        yield from sorted(p for p in (REPO / "crates").rglob(pattern) if "target" not in p.parts)
    yield from sorted((REPO / "scripts").rglob("*.sh"))


def commands(command: object, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from commands(sub, (*path, name))


def test_the_checker_catches_what_it_looks_for():
    assert problems("see SPEC §3") == ["SPEC"]
    assert problems("as in SPEC section 5") == ["SPEC"]
    assert problems("fixed in issue 16") == ["issue 16"]
    assert problems("Issue #4 says") == ["Issue #4"]
    assert set(problems("read [it](../shared/SPEC.md)")) == {"SPEC", "../shared", "SPEC.md"}
    assert problems("lake-rs/lakers issue #7 measures it") == []
    assert problems("IEEE 802.15.4-2006 §7.5.6.3; RFC 6347 §4.2.4") == []
    assert problems("measured in session 21, beside other engineers' builds") == [
        "session 21",
        "engineers'",
    ]
    assert problems("the brief asked for it") == ["the brief"]
    assert problems("the server keeps this session for resumption") == []


@pytest.mark.parametrize("path", list(shipped_files()), ids=lambda p: str(p.relative_to(REPO)))
def test_shipped_file_cites_no_internal_note(path):
    assert path.is_file(), path
    assert problems(path.read_text()) == []


def test_readme_and_docs_link_only_inside_the_repository():
    for path in [REPO / "README.md", *sorted(REPO.glob("docs/**/*.md"))]:
        for target in LINK.findall(path.read_text()):
            assert "://" not in target, (path, target)
            if target.startswith("#"):
                continue
            resolved = (path.parent / target.split("#")[0]).resolve()
            assert resolved.is_relative_to(REPO), (path, target)
            assert resolved.exists(), (path, target)


def test_help_of_every_command_cites_no_internal_note():
    root = typer.main.get_command(app)
    runner = CliRunner()
    seen = 0
    for path in commands(root):
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert problems(result.output) == [], path
        seen += 1
    assert seen > 10  # the walk reached the subcommands
