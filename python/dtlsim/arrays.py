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
    from its buffers: `to_numpy` loads pandas, and `cast` loads
    `pyarrow.compute`, 20 ms or more of a tiny run's start-up)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks else pa.nulls(0, pa.float64())
    t, n, offset = column.type, len(column), column.offset
    if pa.types.is_null(t):
        return np.full(n, np.nan)
    kind = _VALUE_KIND.get(t)
    if kind is None:  # any other type: Arrow's own cast
        return floats(column.cast(pa.float64()))
    validity, data = column.buffers()[:2]
    if kind == "bool":
        flags = np.unpackbits(np.frombuffer(data, np.uint8), bitorder="little")
        values = flags[offset : offset + n].astype(np.float64)
    else:
        values = np.frombuffer(data, kind, count=n, offset=offset * kind.itemsize)
        values = values.astype(np.float64)  # a copy, also for float64
    if validity is not None and column.null_count:
        flags = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
        values[flags[offset : offset + n] == 0] = np.nan
    return values


# How each numeric Arrow type's values lie in its data buffer.
_VALUE_KIND: dict[pa.DataType, Any] = {
    pa.bool_(): "bool",
    **{
        t: np.dtype(d)
        for t, d in [
            (pa.int8(), np.int8), (pa.int16(), np.int16), (pa.int32(), np.int32),
            (pa.int64(), np.int64), (pa.uint8(), np.uint8), (pa.uint16(), np.uint16),
            (pa.uint32(), np.uint32), (pa.uint64(), np.uint64),
            (pa.float16(), np.float16), (pa.float32(), np.float32), (pa.float64(), np.float64),
        ]
    },
}  # fmt: skip


def take(column: pa.Array | pa.ChunkedArray, indices: np.ndarray) -> pa.Array:
    """`column`'s values at `indices` (a NumPy integer array), read from its
    buffers for a null, yes/no, numeric or string column (`take` loads
    `pyarrow.compute`); Arrow's own `take` for any other type."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks else pa.nulls(0, column.type)
    t, n, offset = column.type, len(column), column.offset
    if pa.types.is_null(t):
        return pa.nulls(len(indices))
    kind = _VALUE_KIND.get(t)
    if kind is None and t != pa.string():
        return column.take(numbers(indices.astype(np.int64)))
    buffers = column.buffers()
    validity = None
    if buffers[0] is not None and column.null_count:
        flags = np.unpackbits(np.frombuffer(buffers[0], np.uint8), bitorder="little")
        validity = bits(flags[offset : offset + n][indices])
    if t == pa.string():
        # each picked value's bytes, gathered by one index per byte
        offsets = np.frombuffer(buffers[1], np.int32, count=n + 1, offset=offset * 4)
        starts, lengths = offsets[indices], offsets[indices + 1] - offsets[indices]
        if lengths.sum(dtype=np.int64) > np.iinfo(np.int32).max:  # past 32-bit offsets
            return column.take(numbers(indices.astype(np.int64)))
        out = np.zeros(len(indices) + 1, np.int32)
        np.cumsum(lengths, out=out[1:])
        data = np.frombuffer(buffers[2], np.uint8) if buffers[2] is not None else np.zeros(0)
        at = np.repeat(starts - out[:-1], lengths) + np.arange(out[-1])
        picked = data[at].astype(np.uint8)
        return pa.Array.from_buffers(
            t, len(indices), [validity, pa.py_buffer(out), pa.py_buffer(picked)]
        )
    if kind == "bool":
        flags = np.unpackbits(np.frombuffer(buffers[1], np.uint8), bitorder="little")
        return pa.Array.from_buffers(t, len(indices), [validity, bits(flags[offset:][indices])])
    values = np.frombuffer(buffers[1], kind, count=n, offset=offset * kind.itemsize)[indices]
    return pa.Array.from_buffers(t, len(indices), [validity, pa.py_buffer(values)])


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


_TYPES = {"f64": pa.float64(), "i64": pa.int64()}


def _column(kind: str, data: Any, valid: bytes | None) -> pa.Array:
    """One core column (see `table`) as an Arrow array, built on its buffers."""
    validity = None if valid is None else bits(valid)
    if kind == "str":
        return strings(data, validity)
    if kind == "bool":
        return pa.Array.from_buffers(pa.bool_(), len(data), [validity, bits(data)])
    if kind == "null":
        return pa.nulls(data)
    n = len(data) // 8
    return pa.Array.from_buffers(_TYPES[kind], n, [validity, pa.py_buffer(data)])


def table(columns: list[tuple[str, str, Any, bytes | None]]) -> pa.Table:
    """The core's columns (name, kind, data, validity or None) as an Arrow
    table: kind f64, i64 or bool with little-endian bytes, str with a list
    of texts, null with the number of rows."""
    return pa.table([_column(k, d, v) for _, k, d, v in columns], names=[c[0] for c in columns])


# The core's kind of each Arrow type it takes back (`columns`).
_KINDS = {pa.float64(): "f64", pa.int64(): "i64", pa.bool_(): "bool", pa.string(): "str",
          pa.large_string(): "str"}  # fmt: skip


def columns(t: pa.Table) -> list[tuple[str, str, Any, bytes | None]]:
    """`t` as the core's columns (the inverse of `table`), for the core to
    write it (`_core.write_unit`). A column of another type is refused by name."""
    out: list[tuple[str, str, Any, bytes | None]] = []
    for name, column in zip(t.column_names, t.columns, strict=True):
        c = column.combine_chunks() if column.num_chunks else pa.nulls(0, column.type)
        n, offset = len(c), c.offset
        if pa.types.is_null(c.type):
            out.append((name, "null", n, None))
            continue
        kind = _KINDS.get(c.type)
        if kind is None:
            allowed = ", ".join(str(k) for k in _KINDS)
            raise TypeError(f"column {name!r} is {c.type}: a unit's columns are {allowed} or null")
        validity = c.buffers()[0]
        valid = None
        if validity is not None and c.null_count:
            flags = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
            valid = flags[offset : offset + n].tobytes()
        if kind == "str":
            data: Any = ["" if v is None else v for v in c.to_pylist()]
        elif kind == "bool":
            flags = np.unpackbits(np.frombuffer(c.buffers()[1], np.uint8), bitorder="little")
            data = flags[offset : offset + n].tobytes()
        else:
            data = np.frombuffer(c.buffers()[1], np.uint8, count=8 * n, offset=8 * offset).tobytes()
        out.append((name, kind, data, valid))
    return out
