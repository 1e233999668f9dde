"""Progress of long work with an estimate of the time left.

On a terminal, a rich progress bar per sweep (units done, elapsed, time
left). Anywhere else (a pipe, a CI log, a file) a plain line now and then
and when a sweep ends, so nothing there holds an escape code and a log does
not fill with redrawn bars.

`dtlsim run` hands its reporter to the sweep directly; `dtlsim reproduce`
runs experiments that start sweeps of their own, so it makes its reporter
the current one (`reporting`) and every sweep started meanwhile reports to
it (`current`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import timedelta

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

# A plain line at most this often (and always when a sweep ends): often
# enough to see a run is alive, rarely enough to keep a CI log short.
PLAIN_EVERY_S = 10.0

OnProgress = Callable[[int, int], None]


def clock_text(seconds: float) -> str:
    """'0:01:05' (whole seconds)."""
    return str(timedelta(seconds=round(seconds)))


class Eta:
    """The time left of a sweep from its pace since it started here: units
    found finished on disk at the start do not count as speed."""

    def __init__(self, now: float):
        self.start = now
        self.first_done: int | None = None

    def left_s(self, done: int, total: int, now: float) -> float | None:
        if self.first_done is None:
            self.first_done = done
        ran = done - self.first_done
        if ran <= 0 or now <= self.start:
            return None
        return (total - done) * (now - self.start) / ran


class Reporter:
    """Progress lines or bars on `console` (stderr), one task per sweep."""

    def __init__(
        self,
        console: Console,
        enabled: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.console = console
        self.enabled = enabled
        self.clock = clock
        self.bars: Progress | None = None
        if enabled and console.is_terminal:
            self.bars = Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                "units",
                TimeElapsedColumn(),
                "left",
                TimeRemainingColumn(),
                console=console,
            )

    def __enter__(self) -> Reporter:
        if self.bars is not None:
            self.bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bars is not None:
            self.bars.stop()

    def note(self, text: str) -> None:
        """A line of its own (above the bars on a terminal)."""
        if self.enabled:
            self.console.print(escape(text), highlight=False)

    def task(self, label: str) -> OnProgress:
        """The progress callback of one sweep: (units done, units in all)."""
        if not self.enabled:
            return lambda done, total: None
        if self.bars is not None:
            bars = self.bars
            task = bars.add_task(escape(label), total=None)
            return lambda done, total: bars.update(task, completed=done, total=total)
        return self._plain(label)

    def _plain(self, label: str) -> OnProgress:
        eta = Eta(self.clock())
        last = [-PLAIN_EVERY_S]

        def on_progress(done: int, total: int) -> None:
            now = self.clock()
            if done < total and now - last[0] < PLAIN_EVERY_S:
                return
            last[0] = now
            line = f"{label}: {done}/{total} units, {clock_text(now - eta.start)} elapsed"
            left = eta.left_s(done, total, now)
            if done < total:
                line += ", time left unknown" if left is None else f", {clock_text(left)} left"
            self.console.print(line, markup=False, highlight=False)

        return on_progress


_current: ContextVar[Reporter | None] = ContextVar("dtlsim_progress", default=None)


@contextmanager
def reporting(reporter: Reporter) -> Iterator[Reporter]:
    """Make `reporter` the one every sweep started inside reports to."""
    token = _current.set(reporter)
    try:
        with reporter:
            yield reporter
    finally:
        _current.reset(token)


def current(label: str) -> OnProgress | None:
    """The progress callback of a new sweep named `label`, if some command is
    reporting progress (`reporting`); None otherwise."""
    reporter = _current.get()
    return None if reporter is None else reporter.task(label)


def note(text: str) -> None:
    """A line to the current reporter, if any."""
    reporter = _current.get()
    if reporter is not None:
        reporter.note(text)
