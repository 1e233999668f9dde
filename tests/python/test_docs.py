"""The documentation's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def examples() -> list[tuple[str, int, str]]:
    found = []
    for page in sorted(DOCS.glob("*.md")):
        for i, code in enumerate(PYTHON_BLOCK.findall(page.read_text())):
            found.append((page.name, i, code))
    return found


def test_the_python_api_page_has_examples():
    assert any(page == "python-api.md" for page, _, _ in examples())


@pytest.mark.parametrize("page, index, code", examples(), ids=lambda v: str(v)[:20])
def test_documented_example_runs(page, index, code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{page} example {index}", "exec"), {"__name__": "__docs__"})
    assert capsys.readouterr().out  # every example prints what it shows
