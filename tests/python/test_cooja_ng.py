"""The Cooja-NG oracle's logs are read as written, every MAC they cover is
either run by dtlsim or named as not modelled, and the comparison lands on the
TSCH experiment's page with the Contiki 3.0 oracle's agreement rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from dtlsim import keys
from dtlsim.experiments import cooja_ng, cooja_oracle
from dtlsim.scenario import load_scenario, variant


def test_every_shipped_log_reads_and_its_mac_is_run_or_named() -> None:
    logs = cooja_ng.oracle_logs()
    configurations = cooja_oracle.runs_of(logs)
    assert len(configurations) == 18, "csma, tsch and orchestra over 1-3 hops at PDR 100 and 90 %"
    for path in logs:
        logged = cooja_ng.read_log(path)
        assert len(logged.rows) == 200, path
        assert logged.mac in cooja_ng.SCENARIOS
        name = cooja_ng.SCENARIOS[logged.mac]
        if name is None:
            assert cooja_ng.NOT_MODELLED[logged.mac]
        else:
            # raises on a value the scenario refuses
            variant(load_scenario(name), cooja_ng.overrides(logged.setup))


def test_the_server_is_node_0_and_the_client_the_far_end_as_in_cooja() -> None:
    # Cooja's node 1 (the server) is the TSCH coordinator and Orchestra hashes
    # each mote's link address, which ends in its node id; dtlsim's node k
    # has the address ending in k + 1, so the server is node 0
    logged = cooja_ng.read_log(
        next(p for p in cooja_ng.oracle_logs() if p.name == "orchestra-h3-pdr100.hs.log")
    )
    point = variant(load_scenario("cooja-ng-orchestra"), cooja_ng.overrides(logged.setup))
    assert point.raw["workload"]["server_node"] == 0
    assert point.raw["workload"]["client_node"] == 3


def test_a_log_gives_its_mac_hops_and_pdr() -> None:
    logged = cooja_ng.read_log(
        next(p for p in cooja_ng.oracle_logs() if p.name == "tsch-h3-pdr90.hs.log")
    )
    assert (logged.mac, logged.setup.hops, logged.setup.success_ratio_rx) == ("tsch", 3, 0.9)
    # one fatal alert in 200 (attempt 115, decrypt_error at the client)
    assert int((~logged.rows["success"]).sum()) == 1


def test_the_comparison_runs_modelled_macs_and_names_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    few = [
        p
        for p in cooja_ng.oracle_logs()
        if p.name in ("csma-h1-pdr100.hs.log", "tsch-h1-pdr100.hs.log")
    ]
    # a MAC not modelled is named in the table, not dropped
    monkeypatch.setitem(cooja_ng.SCENARIOS, "tsch", None)
    monkeypatch.setitem(cooja_ng.NOT_MODELLED, "tsch", "not modelled here")
    monkeypatch.setattr(cooja_ng, "oracle_logs", lambda: few)
    real = cooja_ng.load_scenario
    monkeypatch.setattr(
        cooja_ng,
        "load_scenario",
        lambda name: variant(
            real(name), {keys.EXPERIMENT_REPLICATIONS: 3, keys.WORKLOAD_HANDSHAKES: 2}
        ),
    )
    tables, checks = cooja_ng.compare(False, tmp_path)
    frame = tables[0].frame
    assert list(frame["simulator"]) == ["Cooja-NG", "dtlsim", "Cooja-NG", "dtlsim"]
    csma_sim = frame.iloc[1]
    # three runs of two handshakes back to back, as the oracle runs its 200
    assert csma_sim["n"] == 6 and csma_sim["completed"] == 1.0
    assert frame.iloc[3]["note"] == cooja_ng.NOT_MODELLED["tsch"]
    # Cooja-NG's wall time (runs.csv) beside dtlsim's, for the MAC that ran
    walls = tables[1].frame
    assert list(walls["configuration"]) == ["csma-h1-pdr100"]
    assert walls.iloc[0]["cooja_wall_s"] == 6 and walls.iloc[0]["dtlsim_handshakes"] == 6
    assert checks and all(c.params["configuration"] == "csma-h1-pdr100" for c in checks)


def test_tinydtls_resends_on_the_cooja_motes_millisecond_ticks() -> None:
    """tinyDTLS queues a flight due 2 * CLOCK_SECOND after it is sent
    (dtls.c) and its Contiki glue fires on clock ticks; Contiki-NG 4.9's
    cooja platform counts CLOCK_CONF_SECOND 1000 (arch/platform/cooja/
    contiki-conf.h), so a resend comes 2000 ms after the flight's last
    record, within the next 1 ms tick: [2000, 2001) ms (with the default
    128 Hz tick it came 2000.2, 2002.1 and 2007.7 ms after). Replication 3
    of the 1-hop Orchestra set-up at PDR 90 % (the comparison's seed)
    resends a flight in its 200 handshakes (once with the EB slotframe,
    twice without), slowed by lost frames and ACKs."""
    from dtlsim.timeline import traced

    logged = cooja_ng.read_log(
        next(p for p in cooja_ng.oracle_logs() if p.name == "orchestra-h1-pdr90.hs.log")
    )
    point = variant(load_scenario("cooja-ng-orchestra"), cooja_ng.overrides(logged.setup))
    events = traced(point, {}, replication=3)
    assert events is not None
    client = events[(events.layer == "dtls") & (events.node == 1)]
    resends = client[client.kind == "retransmit"].time_us
    assert len(resends) == 1
    for at in resends:
        last_sent = client[(client.kind == "tx") & (client.time_us < at)].time_us.max()
        assert 2_000_000 <= at - last_sent < 2_001_000, (at, last_sent)


def test_a_configurations_cooja_seeds_are_pooled_as_runs() -> None:
    # orchestra-h1-pdr90 was run at Cooja seeds 1-5 (`-s<seed>` for 2-5); the
    # comparison reads them as one configuration of five runs, as the Contiki
    # 3.0 oracle's seeds are read
    paths = cooja_oracle.runs_of(cooja_ng.oracle_logs())["orchestra-h1-pdr90"]
    assert [cooja_oracle.seed_of(p) for p in paths] == [1, 2, 3, 4, 5]
    logged = cooja_ng.read_runs(paths)
    assert logged.setup.name == "orchestra-h1-pdr90" and logged.mac == "orchestra"
    assert len(logged.rows) == 1000
    assert sorted(logged.rows["run"].unique()) == [0, 1, 2, 3, 4]
    # seed 1 alone: attempt 1 resent one datagram, the only resend in its 200
    seed1 = logged.rows[logged.rows["run"] == 0]
    assert int(seed1["client_resent"].sum()) == 1
    means = cooja_oracle.run_means(logged.rows, "run")
    assert len(means) == 5


def test_runs_of_different_set_ups_are_refused(tmp_path: Path) -> None:
    ref = next(p for p in cooja_ng.oracle_logs() if p.name == "orchestra-h1-pdr90.hs.log")
    other = tmp_path / "orchestra-h1-pdr90-s9.hs.log"
    other.write_text(ref.read_text().replace("hops=1 mac=orchestra", "hops=1 mac=tsch"))
    with pytest.raises(ValueError, match="different set-ups"):
        cooja_ng.read_runs([ref, other])
