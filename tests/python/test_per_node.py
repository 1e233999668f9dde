"""The per-node table beside the result rows: one row per node and result row
saying what that node did over the row's interval, for every workload and
topology; the rows' network totals are its sums, and each node's lifetime
follows from the battery the scenario's `battery` key chooses."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import dtlsim
from dtlsim.platform import load_platform

REPO = Path(__file__).resolve().parents[2]

# A result row's identity, in both tables.
ROW = ["point_key", "replication", "index"]

# What the scenarios page lists as the per-node table's columns.
MEASURED = [
    "interval_s", "energy_uj", "cpu_active_uj", "cpu_lpm_uj", "radio_tx_uj", "radio_rx_uj",
    "radio_off_uj", "frames_sent", "frame_bytes_sent", "frames_received", "acks_sent",
    "mac_retransmissions", "mac_drops", "mac_drops_queue_full", "datagrams_forwarded",
    "net_drops", "app_generated", "app_delivered", "delivery_ratio", "mean_power_mw",
    "lifetime_days", "charge_drawn_mah",
]  # fmt: skip

# A 200-node random network under Orchestra reporting to its root: the
# network of issue 26 whose one row hid where its reports were lost.
ORCHESTRA_200 = [
    "topology.nodes=200", "topology.area_side_m=280.0", "mac.tsch.schedule=orchestra",
    "workload.duration_s=300.0",
]  # fmt: skip


def sums(nodes: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    return nodes.groupby(ROW)[columns].sum()


def test_a_200_node_orchestra_run_says_which_nodes_lost_what():
    rows, nodes = dtlsim.run_with_nodes(
        dtlsim.load_scenario("tsch-100", ORCHESTRA_200), replications=2, workers=1
    )
    assert len(rows) == 2 and len(nodes) == 2 * 200
    assert set(MEASURED) <= set(nodes.columns)
    # every node once per result row, each with the row's parameters
    assert (nodes.groupby(ROW).node.nunique() == 200).all()
    assert (nodes["topology.nodes"] == 200).all()
    got = sums(nodes, ["energy_uj", "frames_sent", "mac_drops", "app_generated", "app_delivered"])
    want = rows.set_index(ROW)
    assert got.energy_uj.to_numpy() == pytest.approx(want.energy_total_uj.to_numpy(), rel=1e-12)
    assert (got.frames_sent == want.frames_sent).all()
    assert (got.mac_drops == want.mac_drops).all()
    assert (got.app_generated == want.reports_sent).all()
    assert (got.app_delivered == want.reports_delivered).all()
    # the drops are somewhere: at nodes, not spread evenly
    assert want.mac_drops.sum() > 0
    per_node = nodes.groupby("node").mac_drops.sum()
    assert per_node.max() > 5 * per_node.mean()
    # the root reports nothing: no delivery ratio, not a ratio of 0 or 1
    root = nodes[nodes.node == 0]
    assert (root.app_generated == 0).all() and root.delivery_ratio.isna().all()
    reporters = nodes[nodes.node != 0]
    ratio = reporters.app_delivered / reporters.app_generated
    assert reporters.delivery_ratio.to_numpy() == pytest.approx(ratio.to_numpy())
    # the network lasts as long as its first node
    assert nodes.lifetime_days.min() > 0 and math.isfinite(nodes.lifetime_days.max())


@pytest.mark.parametrize(
    "scenario, overrides, totals",
    [
        # handshakes over X-MAC: a row per handshake, node columns in the row
        ("exp1-xmac", ["topology.hops=2", "workload.handshakes=3"],
         {"energy_total_uj": "energy_uj"}),
        # TSCH frames
        ("exp3-tsch", ["topology.hops=3", "mac.tsch.cells_per_link=1"],
         {"energy_total_uj": "energy_uj"}),
        # sessions over CSMA
        ("exp4-sessions", ["sessions.slots=2", "sessions.warmup_s=60",
                           "sessions.duration_s=1200"], {"energy_total_uj": "energy_uj"}),
        # pings over CSMA: no energy in the row, the table has it
        ("exp6-rtt", ["topology.hops=2"], {}),
    ],
)  # fmt: skip
def test_every_workload_has_its_per_node_table(scenario, overrides, totals):
    sc = dtlsim.load_scenario(scenario, overrides)
    rows, nodes = dtlsim.run_with_nodes(sc, replications=2, workers=1)
    assert not nodes.empty
    n = nodes.node.max() + 1
    # one row per node for every result row that has an interval (a ping's
    # rows share one: the run's)
    assert (nodes.groupby(ROW).size() == n).all()
    assert set(MEASURED) <= set(nodes.columns)
    got = sums(nodes, list(totals.values())).join(rows.set_index(ROW)[list(totals)])
    for total, column in totals.items():
        assert got[column].to_numpy() == pytest.approx(got[total].to_numpy(), rel=1e-12)
    # where a row has a node's own columns, the table has the same values
    for k in range(n):
        if f"node{k}_energy_uj" not in rows.columns:
            continue
        mine = nodes[nodes.node == k].set_index(ROW)
        theirs = rows.set_index(ROW).loc[mine.index]
        for q in ("energy_uj", "frames_sent", "mac_drops", "radio_tx_uj"):
            assert mine[q].to_numpy() == pytest.approx(theirs[f"node{k}_{q}"].to_numpy())
    assert (nodes.energy_uj > 0).all()


def test_a_handshake_is_generated_by_its_client_and_delivered_when_it_succeeds():
    sc = dtlsim.load_scenario("exp1-xmac", ["topology.hops=2", "workload.handshakes=3"])
    rows, nodes = dtlsim.run_with_nodes(sc, replications=1, workers=1)
    started = nodes[nodes.app_generated > 0]
    # a handshake per row, started by one node: the client, the same in every row
    assert (started.groupby(ROW).size() == 1).all() and started.node.nunique() == 1
    assert (started.app_generated == 1).all() and len(started) == len(rows)
    success = rows.set_index(ROW).loc[started.set_index(ROW).index].success
    assert (started.app_delivered.to_numpy() == success.astype(int).to_numpy()).all()


def test_a_csma_node_lasts_its_battery_over_its_radio_current():
    """By hand: an always-on CSMA radio draws between its transmit and receive
    currents, all the time. On the Cooja platform (CC2420: RX 18.8 mA, TX
    17.4 mA; MCU 0.001 mA; two AA cells of 2,500 mAh) a node lasts between
    2500 / (18.8 + 0.001) / 24 = 5.540 days and 2500 / (17.4 + 0.001) / 24
    = 5.986 days, and its mean power is that current at 3.0 V."""
    plat = load_platform("cooja")
    assert plat.supply.battery_mah.value == 2500.0
    assert (plat.radio.rx_current_ma.value, plat.radio.tx_current_ma.value) == (18.8, 17.4)
    sc = dtlsim.load_scenario("cooja-ng-csma", ["topology.hops=1", "medium.success_ratio_rx=1.0"])
    _, nodes = dtlsim.run_with_nodes(sc, replications=1, workers=1)
    assert nodes.lifetime_days.between(5.540, 5.986).all()
    assert nodes.mean_power_mw.between(17.4 * 3.0, 18.801 * 3.0).all()
    # the node that transmitted more drew less (TX draws less than RX on the CC2420)
    by_tx = nodes.sort_values("radio_tx_uj")
    assert by_tx.lifetime_days.iloc[-1] > by_tx.lifetime_days.iloc[0]


def test_dtlsim_run_writes_the_per_node_table_beside_the_rows(cli, tmp_path):
    cli("run", "tsch-100", "--replications", "1", "--out", str(tmp_path),
        "--set", "workload.duration_s=120.0")  # fmt: skip
    rows = pd.read_parquet(tmp_path / "results.parquet")
    nodes = pd.read_parquet(tmp_path / "nodes.parquet")
    assert len(nodes) == 100 * len(rows)
    assert set(MEASURED) <= set(nodes.columns)
    assert nodes.energy_uj.sum() == pytest.approx(rows.energy_total_uj.sum(), rel=1e-12)
    # resumed: nothing runs again, the same table comes back
    cli("run", "tsch-100", "--replications", "1", "--out", str(tmp_path),
        "--set", "workload.duration_s=120.0")  # fmt: skip
    pd.testing.assert_frame_equal(nodes, pd.read_parquet(tmp_path / "nodes.parquet"))


def test_the_scenarios_page_documents_every_per_node_column():
    page = (REPO / "docs" / "scenarios.md").read_text(encoding="utf-8")
    section = page.split("## The per-node table", 1)[1].split("\n## ", 1)[0]
    for column in ["node", *MEASURED]:
        assert f"`{column}`" in section, column


def test_the_battery_key_names_a_charge_of_the_platform_file():
    """What a lifetime is figured on (the formula itself, by hand: the
    core's `unit_files::tables` tests): the nRF52840 at 3.0 V, one CR2032
    of 225 mAh, two AA cells of 2,500 mAh, and `battery = "platform"` the
    file's own supply.battery_mah (two AA cells)."""
    plat = load_platform("nrf52840")
    assert plat.supply.voltage_v.value == 3.0
    for battery, mah in [("cr2032", 225.0), ("2xAA", 2500.0), ("platform", 2500.0)]:
        charge = plat.battery(battery)
        assert charge is not None and charge.value == mah, battery


def test_the_battery_key_chooses_the_charge_of_a_run():
    """The same run on a CR2032 and on two AA cells: the same energy, the
    lifetimes in the ratio of the charges, 225 / 2500 = 0.09."""
    runs = {}
    for battery in ("cr2032", "2xAA"):
        sc = dtlsim.load_scenario(
            "exp9-medium", ["platform=nrf52840", f"battery={battery}", "topology.hops=1"]
        )
        _, runs[battery] = dtlsim.run_with_nodes(sc, replications=1, workers=1)
    coin, cells = runs["cr2032"], runs["2xAA"]
    assert (coin.battery == "cr2032").all() and (cells.battery == "2xAA").all()
    assert coin.energy_uj.to_numpy() == pytest.approx(cells.energy_uj.to_numpy(), rel=0)
    ratio = coin.lifetime_days.to_numpy() / cells.lifetime_days.to_numpy()
    assert ratio == pytest.approx(225.0 / 2500.0, rel=1e-12)
    # the charge drawn is the battery's whatever its size: energy at 3.0 V
    drawn = coin.energy_uj.to_numpy() / 1e6 / 3.0 / 3.6
    assert coin.charge_drawn_mah.to_numpy() == pytest.approx(drawn, rel=1e-12)
    assert cells.charge_drawn_mah.to_numpy() == pytest.approx(drawn, rel=1e-12)


@pytest.mark.parametrize(
    "platform, battery, allowed",
    [
        ("nrf52840", "9V", "must be one of 'platform', 'cr2032', '2xAA'"),
        ("telosb", "cr2032", "platform telosb lists no [supply.batteries], so no 'cr2032'"),
        ("wismote", "2xAA", "platform wismote lists no [supply.batteries], so no '2xAA'"),
    ],
)
def test_a_battery_the_platform_does_not_list_is_refused(platform, battery, allowed):
    from dtlsim.scenario import check

    raw = {"experiment": {"id": "b", "title": "b"}, "platform": platform, "battery": battery}
    scenario, problems = check(raw)
    assert scenario is None
    assert [(p.key, p.value) for p in problems] == [("battery", battery)]
    assert allowed in problems[0].allowed
