"""A sweep's units on a Dask cluster (`dtlsim run … --dask`).

Dask distributed runs the units, one task each; nothing of the sweep
changes but where a unit runs. The client (this process) plans the units,
skips those already on disk, submits the rest, stores each unit's rows as
it comes back (`dtlsim.sweep`: the same files, written whole or not at
all) and reports progress as a local run does. A replication's result
depends only on its seed, index and parameters, so a cluster gives the
same rows as local threads, and a sweep interrupted on one resumes on the
other.

The workers need dtlsim installed (the same version: a unit's rows carry
the client's version and code digests, not the worker's), and only the
client needs the results directory: rows travel back with the task's result.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from dtlsim.sweep import Pool

LOCAL = "local"

# How long the client waits for a scheduler before giving up.
CONNECT_TIMEOUT_S = 30


def check_address(address: str) -> str | None:
    """Why `address` names no cluster (None when it does): 'local', or a
    scheduler address such as tcp://host:8786."""
    if address == LOCAL:
        return None
    scheme, sep, rest = address.partition("://")
    if not sep or not rest or scheme not in ("tcp", "tls", "ucx", "ws", "wss", "inproc"):
        return "give 'local' (a cluster on this machine) or a scheduler address, tcp://host:port"
    return None


class ClosedCommQuiet(logging.Filter):
    """Tell a closed connection in one line, not a traceback: a worker that
    dies (killed, out of memory, its machine gone) closes its connections,
    and Dask logs each `CommClosedError` (or tornado's
    `StreamClosedError`) with a traceback, although the scheduler runs the
    worker's tasks again and the sweep finishes correctly. Every other
    record, a real error's traceback included, passes unchanged; and a
    unit's own failure reaches the sweep as the task's exception."""

    CLOSED = ("CommClosedError", "StreamClosedError")

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and type(exc).__name__ in self.CLOSED:
            record.msg = f"{record.getMessage()} (a connection closed: {type(exc).__name__})"
            record.args = None
            record.exc_info = None
            record.exc_text = None
        return True


@contextmanager
def quiet_closed_comms() -> Iterator[None]:
    """`ClosedCommQuiet` on the handlers of Dask's loggers while inside."""
    handlers = logging.getLogger("distributed").handlers
    quiet = ClosedCommQuiet()
    for h in handlers:
        h.addFilter(quiet)
    try:
        yield
    finally:
        for h in handlers:
            h.removeFilter(quiet)


@contextmanager
def dask_pool(address: str, workers: int | None = None) -> Iterator[Pool]:
    """A pool that runs units on the Dask cluster at `address`, or on a
    LocalCluster of `workers` single-threaded worker processes (default:
    the cores) for 'local'; closed on exit. A worker that dies meanwhile is
    told in a line, not a traceback (`ClosedCommQuiet`)."""
    from distributed import Client, LocalCluster

    with quiet_closed_comms():
        cluster = None
        if address == LOCAL:
            # processes, not threads: each worker is its own interpreter, as
            # on a real cluster; no dashboard (it would need a free port and
            # bokeh)
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            client = Client(cluster)
        else:
            client = Client(address, timeout=CONNECT_TIMEOUT_S)
        try:
            threads = sum(client.nthreads().values()) or 1
            # pure=False: every submission is a new task (a unit is never run
            # twice on purpose, and its closure is not worth hashing)
            yield Pool(client.get_executor(pure=False), threads * 2)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
