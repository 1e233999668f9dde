"""Implementation profiles: the datasheet lower bound and the OpenWSN stack,
one secured TelosB slot taken apart by hand from the platform figures."""

from __future__ import annotations

import json
import math

import pytest

from dtlsim import _core, models
from dtlsim.platform import load_platform
from dtlsim.scenario import load_scenario
from dtlsim.schema import FileError


def test_openwsn_telosb_hardware_slot_by_hand() -> None:
    # platforms/telosb.toml, ENC-MIC-32, 127-byte frame, 14-byte aux header:
    # data: header 21 + 14 = 35, private 127 - 35 - 4 - 2 = 86 -> 17 AES blocks;
    # ACK: 2+1+2+8+14+4 = 31 header bytes, 37-byte PSDU, nothing private -> 5.
    # CCM* in the CC2420: 13.875 us per block, no setup (SWRS041 Table 8).
    #   data: 17 x 13.875 = 235.875;  ACK: 5 x 13.875 = 69.375
    # SPI, 7.874 us per byte; per operation 32 command/nonce/register bytes
    # (cryptoengine.c), the whole frame written, private part + MIC read back:
    #   data: 32 + 127 + 86 + 4 = 249 B x 7.874 = 1960.626
    #   ACK:  32 + 37 + 0 + 4  =  73 B x 7.874 =  574.802
    # policy/key lookup: 139 per operation.
    #   sec1 = sec2 = 139 + 1960.626 + 235.875 = 2335.501
    #   sec3 = sec4 = 139 + 574.802 + 69.375  =  783.177
    # stack (board_info.h, measured): TX prepare 2989 + delayTx 539 = 3528,
    # ACK prepare 1405 + 539 = 1944.
    #   TsTxOffset   = 3528 + 2335.501 = 5863.501
    #   TsTxAckDelay = 2335.501 + 1944 + 783.177 = 5062.678
    #   TsSlot = 5863.501 + 4256 + 5062.678 + 2400 + 783.177 = 18365.356
    t = models.timeslot(load_platform("telosb"), "hardware", "enc-mic-32", "openwsn")
    expect = {
        "sec1_lookup_us": 139.0,
        "sec1_bus_us": 1960.626,
        "sec1_ccm_us": 235.875,
        "sec3_lookup_us": 139.0,
        "sec3_bus_us": 574.802,
        "sec3_ccm_us": 69.375,
        "sec1_us": 2335.501,
        "sec2_us": 2335.501,
        "sec3_us": 783.177,
        "sec4_us": 783.177,
        "tx_prepare_us": 3528.0,
        "ack_prepare_us": 1944.0,
        "tx_offset_us": 5863.501,
        "tx_ack_delay_us": 5062.678,
        "slot_duration_us": 18365.356,
    }
    for key, value in expect.items():
        assert t[key] == pytest.approx(value, abs=1e-6), key


def test_openwsn_telosb_software_uses_the_ti_c_aes() -> None:
    # 17 blocks x (1175 + 22.5 per-block overhead) + 75 setup + 139 lookup, no bus
    t = models.timeslot(load_platform("telosb"), "software", "enc-mic-32", "openwsn")
    assert t["sec1_bus_us"] == 0.0
    assert t["sec1_us"] == pytest.approx(139 + 75 + 17 * (1175 + 22.5))


@pytest.mark.parametrize("pid", ["telosb", "openmote-cc2538", "wismote", "greennet"])
@pytest.mark.parametrize("level", ["none", "mic-64", "enc-mic-32", "enc-mic-128"])
def test_datasheet_profile_adds_nothing(pid: str, level: str) -> None:
    plat = load_platform(pid)
    for strategy in plat.available_strategies():
        t = models.timeslot(plat, strategy, level, "datasheet")
        bare = _core.minimal_timeslot(level, **models.ccm_cost(plat, strategy))
        assert t == bare
        assert all(t[f"sec{i}_lookup_us"] == t[f"sec{i}_bus_us"] == 0 for i in (1, 2, 3, 4))


def test_without_security_only_the_stack_remains() -> None:
    t = models.timeslot(load_platform("openmote-cc2538"), "hardware", "none", "openwsn")
    assert (t["sec1_us"], t["sec3_us"]) == (0.0, 0.0)
    # board_info.h: 213 + 388 before TsTxOffset, 211 + 388 within TsTxAckDelay
    assert (t["tx_offset_us"], t["tx_ack_delay_us"]) == (601.0, 599.0)


def test_simulated_slot_agrees_with_the_closed_form_for_openwsn() -> None:
    from dtlsim.simulation import _power

    plat = load_platform("telosb")
    cost = models.ccm_cost(plat, "hardware", "openwsn")
    stack = models.stack_cost(plat, "hardware", "openwsn")
    sim = _core.tsch_minimal_timeslot(
        5, 127, json.dumps(cost), json.dumps(_power(plat)), True, stack=json.dumps(stack)
    )
    closed = models.timeslot(plat, "hardware", "enc-mic-32", "openwsn")
    for i in (1, 2, 3, 4):
        assert abs(sim[f"sec{i}_us"] - closed[f"sec{i}_us"]) <= 1.0
        stack_part = closed[f"sec{i}_lookup_us"] + closed[f"sec{i}_bus_us"]
        assert abs(sim[f"sec{i}_stack_us"] - stack_part) <= 0.5
    assert abs(sim["tx_offset_us"] - closed["tx_offset_us"]) <= 1.0
    assert abs(sim["tx_ack_delay_us"] - closed["tx_ack_delay_us"]) <= 2.0
    # a stack that fits nothing shorter than about 18 ms
    assert not sim["fits_default_template"]


def test_openwsn_has_no_hybrid_path_and_no_port_elsewhere() -> None:
    with pytest.raises(ValueError, match="does not exist in implementation 'openwsn'"):
        models.timeslot(load_platform("telosb"), "hybrid", "enc-mic-32", "openwsn")
    with pytest.raises(ValueError, match="no port for this board"):
        models.timeslot(load_platform("wismote"), "hardware", "enc-mic-32", "openwsn")
    with pytest.raises(ValueError, match="unknown implementation"):
        load_platform("telosb").profile("contiki", "hardware")


def test_scenario_refuses_openwsn_where_it_has_no_port(tmp_path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        'platform = ["wismote"]\n[experiment]\nid = "x"\ntitle = "x"\n'
        '[link_security]\nimplementation = "openwsn"\n'
    )
    with pytest.raises(FileError) as e:
        load_scenario(path)
    text = str(e.value)
    assert "link_security.implementation" in text and "wismote" in text
    path.write_text(path.read_text().replace('"openwsn"', '"riot"'))
    with pytest.raises(FileError, match=r"link_security\.implementation"):
        load_scenario(path)


def test_profile_figures_are_sourced() -> None:
    plat = load_platform("telosb")
    keys = dict(plat.sourced_fields())
    assert "implementation.openwsn.tx_data_prepare_us" in keys
    assert "PORT_maxTxDataPrepare" in keys["implementation.openwsn.tx_data_prepare_us"].source
    assert math.isclose(keys["implementation.openwsn.software.aes_block_us"].value, 1175.0)


def test_a_simulated_tsch_network_runs_the_chosen_profile(cli, tmp_path) -> None:
    # OpenWSN's TelosB port prepares a data frame for 2,989 + 539 µs
    # (board_info.h PORT_maxTxDataPrepare + PORT_delayTx), longer than the IEEE
    # default TsTxOffset of 2,120 µs: with that template no frame can leave, as
    # on the device, whose OpenWSN build uses its own longer slot instead. The
    # datasheet profile sends every frame.
    rows = cli.json(
        "run", "exp3-tsch", "--replications", "2", "--out", str(tmp_path),
        "--set", "platform=telosb", "--set", "topology.hops=1",
        "--set", "mac.tsch.slotframe_length=101", "--set", "mac.tsch.cells_per_link=1",
        "--set", "link_security.level=enc-mic-32",
        "--set", 'link_security.implementation=["datasheet","openwsn"]',
    )  # fmt: skip
    rate = {r["link_security.implementation"]: r["success_rate"] for r in rows}
    assert rate == {"datasheet": 1.0, "openwsn": 0.0}


def test_openwsn_is_a_tsch_profile_only(tmp_path) -> None:
    with pytest.raises(FileError) as e:
        load_scenario("exp1-xmac", ["link_security.implementation=openwsn", "platform=telosb"])
    assert "link_security.implementation" in str(e.value) and "tsch" in str(e.value)
