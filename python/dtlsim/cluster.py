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


@contextmanager
def dask_pool(address: str, workers: int | None = None) -> Iterator[Pool]:
    """A pool that runs units on the Dask cluster at `address`, or on a
    LocalCluster of `workers` single-threaded worker processes (default:
    the cores) for 'local'; closed on exit."""
    from distributed import Client, LocalCluster

    cluster = None
    if address == LOCAL:
        # processes, not threads: each worker is its own interpreter, as on a
        # real cluster; no dashboard (it would need a free port and bokeh)
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
