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


def test_the_python_api_page_runs_as_one_notebook(tmp_path, monkeypatch, capsys):
    """The page's cells in order, sharing one namespace as a notebook's do:
    the session ends with result rows and a summary as pandas DataFrames."""
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__notebook__"}
    for page, index, code in examples():
        if page == "python-api.md":
            exec(compile(code, f"{page} cell {index}", "exec"), namespace)
    assert isinstance(namespace["rows"], pd.DataFrame) and len(namespace["rows"]) > 0
    assert isinstance(namespace["summary"], pd.DataFrame)
    assert {"success_rate", "rtt_ms_mean"} <= set(namespace["summary"].columns)
    assert not list(tmp_path.iterdir())  # in memory: nothing written
