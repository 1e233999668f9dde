"""Shared helpers: run the real `dtlsim` command line in-process."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from dtlsim.cli import app


class Cli:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, code: int = 0) -> str:
        result = self.runner.invoke(app, list(args))
        assert result.exit_code == code, (result.exit_code, result.output)
        return result.output

    def json(self, *args: str) -> Any:
        return json.loads(self(*args, "--json"))


@pytest.fixture
def cli() -> Cli:
    return Cli()
