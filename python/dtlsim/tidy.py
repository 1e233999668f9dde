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

import re
from collections.abc import Sequence

import pandas as pd

# node<N>_<quantity>: what one node did in the run
_PER_NODE = re.compile(r"^node(\d+)_(.+)$")

# Which rows a measurement belongs to (kept in the tidy form as they are).
ROW_ID = ["point_key", "replication", "index"]

COLUMNS = ["node", "quantity", "value"]


def is_parameter(column: str) -> bool:
    """A scenario parameter (a dotted key, or `platform`), not a measurement."""
    return "." in column or column == "platform"


def tidy(rows: pd.DataFrame, axes: Sequence[str] = ()) -> pd.DataFrame:
    """`rows` (wide result rows) as one row per run row, node and quantity:
    the sweep `axes`, `point_key`, `replication`, `index`, then `node`
    (nullable integer), `quantity` and `value` (float; a yes/no as 0/1)."""
    ids = [c for c in dict.fromkeys([*ROW_ID[:1], *axes, *ROW_ID[1:]]) if c in rows.columns]
    measured = [
        c
        for c in rows.columns
        if c not in ids
        and not is_parameter(c)
        and (pd.api.types.is_numeric_dtype(rows[c]) or pd.api.types.is_bool_dtype(rows[c]))
    ]
    if rows.empty or not measured:
        return pd.DataFrame(columns=[*ids, *COLUMNS])
    values = rows[measured].astype("float64")
    long = pd.concat([rows[ids], values], axis=1).melt(
        id_vars=ids, var_name="column", value_name="value"
    )
    long = long.dropna(subset=["value"])
    parts = long["column"].str.extract(_PER_NODE.pattern)
    long["node"] = pd.array(parts[0].astype("float64"), dtype="Int64")
    long["quantity"] = parts[1].fillna(long["column"]).astype("category")
    # the rows of one run row together, its whole-run quantities first
    long = long.drop(columns="column").sort_values(
        [c for c in [*ROW_ID, "node"] if c in long.columns], kind="stable", na_position="first"
    )
    return long[[*ids, *COLUMNS]].reset_index(drop=True)
