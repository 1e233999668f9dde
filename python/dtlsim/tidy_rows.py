"""Result rows in tidy form: one row per (run row, node, quantity).

The wide rows (`dtlsim.run`, `results.parquet`) hold a column per node and
quantity (`node0_energy_uj`, `node1_energy_uj`, …) beside the run's own
measurements (`duration_s`, `client_energy_uj`). The tidy form melts them
into `node` and `quantity` columns with one numeric `value`, so that
`df.groupby(["topology.hops", "node", "quantity"]).value.mean()` needs no
column-name parsing. The rule (which columns are measurements, the rows'
order, `quantity` as a category) is the core's, `unit_files::tidy`, which
also writes `results_tidy.parquet`; this is its form for a DataFrame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def tidy(rows: pd.DataFrame, axes: Sequence[str] = ()) -> pd.DataFrame:
    """`rows` (wide result rows) as one row per run row, node and quantity:
    the sweep `axes`, `point_key`, `replication`, `index`, then `node` (a
    nullable integer, missing for a measurement of the whole run),
    `quantity` (a category, in the order of the wide columns) and `value`
    (float; a yes/no as 0/1). A value a wide row lacks is no tidy row."""
    import pandas as pd
    import pyarrow as pa

    from dtlsim import _core, arrays

    table = pa.Table.from_pandas(rows, preserve_index=False)
    columns, quantities = _core.tidy_columns(arrays.columns(table), list(axes))
    frame = arrays.table(columns).to_pandas()
    frame["node"] = frame["node"].astype("Int64")
    frame["quantity"] = pd.Categorical(frame["quantity"], categories=quantities)
    return frame
