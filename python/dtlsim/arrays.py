"""Arrow arrays built on their buffers.

`pyarrow.array` and `pyarrow.scalar` load pandas (when it is installed) to
look at what they are given, a fifth of a second of start-up for a command
that never uses pandas; building an array from its buffers looks at
nothing. It is also the fast way from the simulator's columns: no Python
object per value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa


def bits(flags: Any) -> pa.Buffer:
    """One byte per row (0 or 1) as Arrow's bitmap (a bit per row, least significant first)."""
    return pa.py_buffer(np.packbits(np.frombuffer(flags, np.uint8), bitorder="little").tobytes())


def strings(texts: list[str], validity: pa.Buffer | None = None) -> pa.Array:
    encoded = [t.encode() for t in texts]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    buffers = [validity, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(encoded), buffers)


def repeat(value: Any, n: int) -> pa.Array:
    """`value` (None, bool, int, float or str) `n` times."""
    if value is None:
        return pa.nulls(n)
    if isinstance(value, bool):
        return pa.Array.from_buffers(pa.bool_(), n, [None, bits(np.full(n, value, np.uint8))])
    if isinstance(value, int):
        return pa.Array.from_buffers(
            pa.int64(), n, [None, pa.py_buffer(np.full(n, value, np.int64))]
        )
    if isinstance(value, float):
        data = pa.py_buffer(np.full(n, value, np.float64))
        return pa.Array.from_buffers(pa.float64(), n, [None, data])
    return strings([str(value)] * n)


def floats(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A numeric or yes/no column as float64 values, NaN where null (read
    from its buffers: `to_numpy` loads pandas)."""
    a = column.cast(pa.float64())
    if isinstance(a, pa.ChunkedArray):
        a = a.combine_chunks() if a.num_chunks else pa.nulls(0, pa.float64())
    n = len(a)
    validity, data = a.buffers()
    if data is None:  # every value null
        return np.full(n, np.nan)
    values = np.frombuffer(data, np.float64, count=n, offset=a.offset * 8).copy()
    if validity is not None and a.null_count:
        flags = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
        values[flags[a.offset : a.offset + n] == 0] = np.nan
    return values


_NUMERIC = {
    np.dtype(np.int32): pa.int32(),
    np.dtype(np.int64): pa.int64(),
    np.dtype(np.float64): pa.float64(),
}


def numbers(values: np.ndarray, null: np.ndarray | None = None) -> pa.Array:
    """A NumPy int32, int64 or float64 array as an Arrow array, null where `null` is set."""
    values = np.ascontiguousarray(values)
    validity = None if null is None else bits((~null).astype(np.uint8))
    return pa.Array.from_buffers(
        _NUMERIC[values.dtype], len(values), [validity, pa.py_buffer(values)]
    )
