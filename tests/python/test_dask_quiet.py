"""Killing a Dask worker printed a CommClosedError traceback although the
sweep finished correctly. While a sweep runs on Dask, a
closed connection is told in one line; any other error keeps its
traceback."""

from __future__ import annotations

import io
import logging

from distributed.comm.core import CommClosedError

from dtlsim.cluster import quiet_closed_comms


def _log(logger: logging.Logger, exc: Exception, message: str) -> None:
    try:
        raise exc
    except type(exc):
        logger.exception(message)


def test_a_closed_connection_is_one_line_and_a_real_error_keeps_its_traceback():
    # a handler as Dask's own (a stream on the "distributed" logger), read back
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    dask = logging.getLogger("distributed")
    dask.addHandler(handler)
    core = logging.getLogger("distributed.core")
    try:
        with quiet_closed_comms():
            _log(core, CommClosedError("in <TCP (closed)>: Stream is closed"), "handling op")
            _log(core, ValueError("a real one"), "a real error")
        err = stream.getvalue()
        assert "handling op (a connection closed: CommClosedError)" in err
        assert err.count("Traceback") == 1
        assert "ValueError: a real one" in err
        # only while a sweep runs on Dask
        _log(core, CommClosedError("closed"), "after the sweep")
        assert stream.getvalue().count("Traceback") == 2
    finally:
        dask.removeHandler(handler)
