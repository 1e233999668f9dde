"""`dtlsim.arrays.floats` reads a column's buffers instead of Arrow's cast
(which loads `pyarrow.compute`): the same values as the cast for every
numeric type, nulls, slices and chunks."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from dtlsim import arrays

VALUES = [3, None, 0, 1, None, 7, 1, 0, 1, 5]
TYPES = [
    pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(),
    pa.uint64(), pa.float16(), pa.float32(), pa.float64(), pa.bool_(),
]  # fmt: skip


def by_cast(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    a = pc.cast(column, pa.float64())
    return np.array([np.nan if v is None else v for v in a.to_pylist()], np.float64)


def same(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, want)  # NaN equals NaN here


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_every_numeric_type_reads_as_the_cast_would(t):
    values = [None if v is None else (bool(v) if t == pa.bool_() else v) for v in VALUES]
    if t == pa.float16():
        a = pa.array(np.array([np.nan if v is None else v for v in values], np.float16),
                     from_pandas=True)  # fmt: skip
    else:
        a = pa.array(values, t)
    same(arrays.floats(a), by_cast(a))
    for start, stop in [(1, 9), (3, 10), (5, 5)]:  # slices start inside a bitmap byte
        same(arrays.floats(a[start:stop]), by_cast(a[start:stop]))
    chunked = pa.chunked_array([a[:3], a[3:8], a[8:]])
    same(arrays.floats(chunked), by_cast(chunked))


def test_a_column_without_nulls_and_an_all_null_one():
    same(arrays.floats(pa.array([1.5, 2.5])), np.array([1.5, 2.5]))
    same(arrays.floats(pa.nulls(3)), np.full(3, np.nan))
    same(arrays.floats(pa.array([None, None], pa.float64())), np.full(2, np.nan))
    same(arrays.floats(pa.chunked_array([], pa.int64())), np.array([]))


def test_the_result_is_a_copy_the_caller_may_write():
    a = pa.array([1.0, 2.0])
    got = arrays.floats(a)
    got[0] = 9.0
    assert a.to_pylist() == [1.0, 2.0]


def test_another_type_falls_back_to_arrows_cast():
    a = pa.array(["1.5", None, "2"])
    same(arrays.floats(a), np.array([1.5, np.nan, 2.0]))


@pytest.mark.parametrize("t", [*TYPES, pa.string(), pa.null()], ids=str)
def test_take_gives_what_arrows_take_gives(t):
    rng = np.random.default_rng(7)
    if t == pa.string():
        a = pa.array(["a", None, "", "ccc", "é", None, "b", "a", "x", "yy"])
    elif t == pa.null():
        a = pa.nulls(10)
    elif t == pa.float16():
        a = pa.array(np.arange(10, dtype=np.float16))
    else:
        a = pa.array([None if v is None else (bool(v) if t == pa.bool_() else v)
                      for v in VALUES], t)  # fmt: skip
    for column in (a, a[2:9], pa.chunked_array([a[:4], a[4:]])):
        n = len(column)
        indices = rng.integers(0, n, 25) if n else np.array([], np.int64)
        want = pc.take(column, pa.array(indices))
        got = arrays.take(column, indices)
        if isinstance(want, pa.ChunkedArray):
            want = want.combine_chunks()
        assert got.type == want.type
        assert got.to_pylist() == want.to_pylist()


def test_a_table_goes_to_the_core_and_back_as_it_was(tmp_path):
    """`columns` (what the core takes to write a unit) inverts `table`:
    nulls, a slice, chunks and an all-null column of no type; the core
    writes it and Parquet reads the same table back."""
    import pyarrow.parquet as pq

    from dtlsim import _core

    full = pa.table({
        "f": pa.array([1.5, None, 3.0, 4.0, -0.0]),
        "i": pa.chunked_array([[1, 2], [None, 4, 5]], pa.int64()),
        "b": pa.array([True, None, False, True, True]),
        "s": pa.array(["a", "bé", None, "", "d"]),
        "n": pa.nulls(5),
    })  # fmt: skip
    for t in (full, full.slice(1, 3)):
        back = arrays.table(arrays.columns(t))
        assert back.equals(t.combine_chunks()), t
        _core.write_unit(arrays.columns(t), tmp_path / "u.parquet")
        assert pq.read_table(tmp_path / "u.parquet").replace_schema_metadata(None).equals(back)
    with pytest.raises(TypeError, match="column 'x' is int32"):
        arrays.columns(pa.table({"x": pa.array([1], pa.int32())}))


@pytest.mark.parametrize("kind", ["f64", "i64"])
def test_a_word_column_of_a_partial_last_word_is_refused_by_name(tmp_path, kind):
    """An f64 or i64 column's data is 8-byte words: 12 bytes are refused,
    naming the column, not written as one value."""
    from dtlsim import _core

    whole = np.array([1.5, 2.5]).tobytes() if kind == "f64" else np.array([1, 2]).tobytes()
    _core.write_unit([("x", kind, whole, None)], tmp_path / "whole.parquet")
    with pytest.raises(ValueError, match=r"column \"x\": kind .* 12 bytes is not a multiple of 8"):
        _core.write_unit([("x", kind, whole[:12], None)], tmp_path / "u.parquet")
    assert not (tmp_path / "u.parquet").exists()
