"""A refused value and a file refused for its values: what every loader
raises and the command line catches.

Kept apart from `dtlsim.schema` (which calls the core to check files) so
that the command line can name these errors without loading the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One refused value."""

    key: str
    value: Any
    allowed: str

    def render(self) -> str:
        shown = "(missing)" if self.value is _MISSING else repr(self.value)
        return f"{self.key} = {shown}: {self.allowed}"


class FileError(ValueError):
    """A data file that cannot be used, with every problem found in it."""

    def __init__(self, path: Path | str, problems: list[Problem]):
        self.path = str(path)
        self.problems = problems
        lines = "\n".join(f"  {p.render()}" for p in problems)
        super().__init__(f"{self.path}: {len(problems)} invalid value(s)\n{lines}")


class _Missing:
    def __repr__(self) -> str:
        return "(missing)"


_MISSING = _Missing()


def did_you_mean(name: str, known: list[str] | tuple[str, ...]) -> str:
    """ " (did you mean 'x'?)" for the known name closest to `name`, or ""."""
    import difflib

    near = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""
