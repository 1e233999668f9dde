"""Shared helpers: run the real `dtlsim` command line in-process."""

from __future__ import annotations

import json
import signal
from typing import Any

import pytest
from typer.testing import CliRunner

from dtlsim.cli import app

# A suite started in the background of a shell without job control inherits
# SIGINT ignored, and an ignored signal stays ignored across exec: the
# commands the Ctrl-C tests start would never see their Ctrl-C. A handler
# here is reset to the default in every child, which Python then turns into
# KeyboardInterrupt as it does at a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


class Cli:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, code: int = 0) -> str:
        result = self.runner.invoke(app, list(args))
        assert result.exit_code == code, (result.exit_code, result.output)
        return result.output

    def stdout(self, *args: str, code: int = 0) -> str:
        """What the command wrote to stdout alone (a server's log goes to
        stderr)."""
        result = self.runner.invoke(app, list(args))
        assert result.exit_code == code, (result.exit_code, result.output)
        return result.stdout

    def json(self, *args: str) -> Any:
        return json.loads(self.stdout(*args, "--json"))


@pytest.fixture
def cli() -> Cli:
    return Cli()
