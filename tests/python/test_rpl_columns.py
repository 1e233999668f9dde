"""RPL's result columns (`rpl_*`, docs/rpl.md) are whole-run totals: they
stand on a replication's first row only, so summing a replication's rows
gives each total once, however many rows its workload writes."""

from __future__ import annotations

import dtlsim

# the Cooja-NG Orchestra set-up routed by RPL over 2 hops, four handshakes
# (one row each), two replications
RPL = [
    "topology.hops=2",
    "medium.success_ratio_rx=1.0",
    "workload.handshakes=4",
    "mac.tsch.formation=scan",
    "mac.tsch.routing=rpl",
    "mac.tsch.orchestra_eb_period=0",
    "mac.tsch.orchestra_line_neighbours_up_to=0",
]


def test_rpl_totals_stand_on_each_replications_first_row_only():
    sc = dtlsim.load_scenario("cooja-ng-orchestra", RPL)
    rows = dtlsim.run(sc, replications=2, workers=1)
    columns = [c for c in rows.columns if c.startswith("rpl_")]
    assert "rpl_dio_sent" in columns and len(columns) == 13, columns
    for _, group in rows.groupby("replication"):
        assert len(group) == 4, group
        first, rest = group.iloc[0], group.iloc[1:]
        # DIOs went out in the run (the root's at least)
        assert first.rpl_dio_sent > 0, first[columns].to_dict()
        assert (rest[columns] == 0).all().all(), rest[columns]
        assert group.rpl_dio_sent.sum() == first.rpl_dio_sent
