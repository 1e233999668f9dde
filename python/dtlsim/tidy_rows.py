"""Result rows in tidy form: one row per (run row, node, quantity).

The wide rows (`dtlsim.run`, `results.parquet`) hold a column per node and
quantity (`node0_energy_uj`, `node1_energy_uj`, …) beside the run's own
measurements (`duration_s`, `client_energy_uj`). The tidy form melts them
into `node` and `quantity` columns with one numeric `value`, so that
`df.groupby(["topology.hops", "node", "quantity"]).value.mean()` needs no
column-name parsing. A measurement of the whole run (not of one node) has
`node` missing. Values a row does not have (the third node of a one-hop
point) are left out instead of kept as NaN.

Only the sweep axes of the parameters are kept: the others are the same in
every row (they are in `manifest.json` and the wide rows).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from dtlsim import arrays

if TYPE_CHECKING:
    import pandas as pd

# node<N>_<quantity>: what one node did in the run
_PER_NODE = re.compile(r"^node(\d+)_(.+)$")

# Which rows a measurement belongs to (kept in the tidy form as they are).
ROW_ID = ["point_key", "replication", "index"]

COLUMNS = ["node", "quantity", "value"]

# `quantity` is dictionary-encoded (a pandas category when read back).
QUANTITY = pa.dictionary(pa.int32(), pa.string())


def is_parameter(column: str) -> bool:
    """A scenario parameter (a dotted key, or `platform`), not a measurement."""
    return "." in column or column == "platform"


def _ids(names: Sequence[str], axes: Sequence[str]) -> list[str]:
    return [c for c in dict.fromkeys([*ROW_ID[:1], *axes, *ROW_ID[1:]]) if c in names]


def _measured(schema: pa.Schema, ids: Sequence[str]) -> list[str]:
    """The numeric and yes/no columns that are measurements."""
    return [
        f.name
        for f in schema
        if f.name not in ids
        and not is_parameter(f.name)
        and (
            pa.types.is_integer(f.type)
            or pa.types.is_floating(f.type)
            or pa.types.is_boolean(f.type)
        )
    ]


# pandas reads an integer column with nulls as floats unless the file's
# pandas metadata names its dtype: `node` as the nullable Int64.
_PANDAS_NODE = {
    "index_columns": [],
    "column_indexes": [],
    "columns": [
        {"name": "node", "field_name": "node", "pandas_type": "int64", "numpy_type": "Int64",
         "metadata": None}
    ],
}  # fmt: skip


def tidy_schema(schema: pa.Schema, axes: Sequence[str] = ()) -> pa.Schema:
    """The tidy form's columns for wide rows of `schema`."""
    ids = _ids(schema.names, axes)
    fields = [schema.field(c) for c in ids] + [
        pa.field("node", pa.int64()),
        pa.field("quantity", QUANTITY),
        pa.field("value", pa.float64()),
    ]
    return pa.schema(fields, metadata={"pandas": json.dumps(_PANDAS_NODE)})


def tidy_table(
    rows: pa.Table, axes: Sequence[str] = (), schema: pa.Schema | None = None
) -> pa.Table:
    """`rows` (wide result rows) as one row per run row, node and quantity:
    the sweep `axes`, `point_key`, `replication`, `index`, then `node`
    (null for a measurement of the whole run), `quantity` and `value`
    (float; a yes/no as 0/1), a run row's whole-run quantities first, then
    each node's in node order. `schema` (`tidy_schema`) fixes the columns'
    types when several tables go to one file."""
    schema = schema or tidy_schema(rows.schema, axes)
    ids = [c for c in schema.names if c not in COLUMNS]
    picks, values, nodes, quantities, codes = [], [], [], [], []
    for c in _measured(rows.schema, ids):
        v = arrays.floats(rows.column(c))
        keep = np.flatnonzero(~np.isnan(v))
        match = _PER_NODE.match(c)
        node, quantity = (int(match[1]), match[2]) if match else (-1, c)
        if quantity not in quantities:
            quantities.append(quantity)
        picks.append(keep)
        values.append(v[keep])
        nodes.append(np.full(len(keep), node))
        codes.append(np.full(len(keep), quantities.index(quantity), dtype=np.int32))
    if not picks:
        return schema.empty_table()
    pick = np.concatenate(picks)
    node = np.concatenate(nodes)
    code = np.concatenate(codes)
    value = np.concatenate(values)
    order = _row_order(rows, [c for c in ROW_ID if c in ids], pick, node)
    if order is not None:
        # the order Arrow's stable sort below gives, found in NumPy: the
        # same table without `pyarrow.compute` (20 ms or more of a tiny
        # run's start-up: docs/performance.md)
        pick, node, code, value = pick[order], node[order], code[order], value[order]
    columns = [arrays.take(rows.column(c), pick) for c in ids]
    quantity = pa.DictionaryArray.from_arrays(arrays.numbers(code), arrays.strings(quantities))
    columns += [
        arrays.numbers(node.astype(np.int64), null=node < 0),
        quantity,
        arrays.numbers(value),
    ]
    if order is not None and [a.type for a in columns] == schema.types:
        return pa.Table.from_arrays(columns, schema=schema)
    long = pa.Table.from_arrays(columns, names=[*ids, *COLUMNS])
    by = [(c, "ascending") for c in ROW_ID if c in ids] + [("node", "ascending", "at_start")]
    return long.sort_by(by).cast(schema)


def _row_order(
    rows: pa.Table, row_id: Sequence[str], pick: np.ndarray, node: np.ndarray
) -> np.ndarray | None:
    """The stable order of the tidy rows by `row_id` (of the run row each
    comes from, `pick`) and then `node`, the whole run's (-1) first. None
    (Arrow sorts) where a key column is neither integers nor strings, or
    holds a null, or a value NumPy would not order as Arrow does."""
    keys = []
    for c in row_id:
        column = rows.column(c)
        if pa.types.is_string(column.type):
            texts = column.to_pylist()
            # NumPy's fixed-width strings drop trailing NULs
            if None in texts or any("\0" in t for t in texts):
                return None
            # code point order is the order of UTF-8 bytes, Arrow's order of strings
            keys.append(np.unique(np.array(texts, dtype=str), return_inverse=True)[1])
        elif pa.types.is_integer(column.type):
            k = arrays.floats(column)
            # null, or beyond the integers a float64 holds exactly
            if np.isnan(k).any() or (len(k) and np.abs(k).max() >= 2.0**53):
                return None
            keys.append(k)
        else:
            return None
    by = [np.arange(len(pick)), node, *(k[pick] for k in reversed(keys))]
    return np.lexsort(by)


def tidy(rows: pd.DataFrame, axes: Sequence[str] = ()) -> pd.DataFrame:
    """`tidy_table` of a DataFrame of wide rows, as a DataFrame (`node` a
    nullable integer, `quantity` a category)."""
    table = pa.Table.from_pandas(rows, preserve_index=False)
    return tidy_table(table, axes).to_pandas()
