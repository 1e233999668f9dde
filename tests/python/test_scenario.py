"""Scenario files: the shipped ones load, and every kind of bad value is refused
with the file, the dotted key, the value and the allowed range."""

from __future__ import annotations

import textwrap

import pytest

from dtlsim.platform import load_platform
from dtlsim.scenario import builtin_scenarios, load_scenario, parse_override
from dtlsim.schema import FileError
from dtlsim.simulation import platform_figures
from dtlsim.template import new_scenario

GOOD = """
platform = "wismote"

[experiment]
id = "t-1"
title = "test"

[topology]
kind = "line"

[workload]
kind = "handshakes"

[mac]
kind = "tsch"

[mac.tsch]
slotframe_length = [101, 1001]
cells_per_link = [1, 2, 3]
"""


def write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def refused(path, *overrides):
    with pytest.raises(FileError) as e:
        load_scenario(path, list(overrides))
    return e.value


def test_every_builtin_scenario_loads():
    found = builtin_scenarios()
    assert {"exp3-tsch", "exp4-sessions", "exp5-llsec-tsch", "exp6-overhead"} <= set(found)
    for path in found.values():
        s = load_scenario(path)
        assert s.experiment.id == path.stem


def test_sweep_axes_make_a_cartesian_product(tmp_path):
    s = load_scenario(write(tmp_path, GOOD))
    assert s.axes() == {
        "mac.tsch.slotframe_length": [101, 1001],
        "mac.tsch.cells_per_link": [1, 2, 3],
    }
    points = list(s.points())
    assert len(points) == 6
    assert {(p["mac.tsch.slotframe_length"], p["mac.tsch.cells_per_link"]) for p in points} == {
        (L, c) for L in (101, 1001) for c in (1, 2, 3)
    }
    # every point carries every parameter
    assert all(p["experiment.seed"] == 1 and p["platform"] == "wismote" for p in points)


def test_out_of_range_value_names_file_key_value_and_range(tmp_path):
    e = refused(write(tmp_path, GOOD + "timeslot_ms = -5\n"))
    msg = str(e)
    assert str(tmp_path / "s.toml") in msg
    assert "mac.tsch.timeslot_ms = -5" in msg
    assert "must be > 0" in msg


def test_bad_value_inside_a_sweep_list_names_its_index(tmp_path):
    text = GOOD.replace("[101, 1001]", "[101, 0]")
    msg = str(refused(write(tmp_path, text)))
    assert "mac.tsch.slotframe_length[1] = 0" in msg and "must be >= 1" in msg


def test_wrong_type(tmp_path):
    msg = str(refused(write(tmp_path, GOOD.replace("[1, 2, 3]", '"three"'))))
    assert "mac.tsch.cells_per_link = 'three'" in msg
    assert "integer" in msg


XMAC_LINE = """
[experiment]
id = "t-2"
title = "types"

[topology]
kind = "line"
hops = 2
pdr = 0.9

[mac]
kind = "xmac"

[mac.xmac]
check_interval_ms = 125.0
encounter_optimization = true

[dtls]
extended_master_secret = false

[workload]
kind = "handshakes"
"""


# Strict types: none of these is coerced (already so when the core took the
# schema over; kept so it stays so). A wrong type under a ranged key states
# the whole range.
@pytest.mark.parametrize(
    ("old", "new", "shown", "allowed"),
    [
        ("hops = 2", "hops = true", "topology.hops = True",
         "must be a non-negative integer in the range [1, 64]"),
        ("pdr = 0.9", "pdr = true", "topology.pdr = True",
         "must be a number in the range (0, 1]"),
        ("check_interval_ms = 125.0", "check_interval_ms = true",
         "mac.xmac.check_interval_ms = True", "must be a number in the range (0, 60000]"),
        ("hops = 2", 'hops = "2"', "topology.hops = '2'", "in the range [1, 64]"),
        ("encounter_optimization = true", 'encounter_optimization = "yes"',
         "mac.xmac.encounter_optimization = 'yes'", "must be a boolean"),
        ("extended_master_secret = false", 'extended_master_secret = "yes"',
         "dtls.extended_master_secret = 'yes'", "must be a boolean"),
    ],
)  # fmt: skip
def test_wrong_types_are_refused_not_coerced(tmp_path, old, new, shown, allowed):
    assert old in XMAC_LINE
    msg = str(refused(write(tmp_path, XMAC_LINE.replace(old, new))))
    assert shown in msg and allowed in msg, msg


def test_a_missing_section_is_named(tmp_path):
    whole = load_scenario(write(tmp_path, XMAC_LINE))
    assert whole.defaulted() == []
    # no [mac]: the closed forms only, where the network's defaults may stand
    cut = XMAC_LINE.replace('[mac]\nkind = "xmac"\n', "").split("[mac.xmac]")[0]
    assert load_scenario(write(tmp_path, cut, "cut.toml")).defaulted() == ["mac", "workload"]


def test_a_missing_required_section_is_refused(tmp_path):
    # a simulated scenario says its network and its workload
    no_topology = XMAC_LINE.replace('[topology]\nkind = "line"\nhops = 2\npdr = 0.9\n', "")
    e = refused(write(tmp_path, no_topology, "no-topology.toml"))
    msg = str(e)
    assert "no-topology.toml" in msg, msg
    assert 'topology = (missing): required section when mac.kind = "xmac"' in msg, msg
    assert "[topology] with the network simulated" in msg, msg
    no_experiment = XMAC_LINE.split("[topology]")[1]
    msg = str(refused(write(tmp_path, "[topology]" + no_experiment, "no-experiment.toml")))
    assert "no-experiment.toml" in msg and "required section: [experiment]" in msg, msg


def test_a_binary_file_is_named(tmp_path):
    path = tmp_path / "b.toml"
    path.write_bytes(b"\x00\xff\xfe\x80")
    msg = str(refused(path))
    assert str(path) in msg and "not a text file" in msg


def test_unknown_key(tmp_path):
    msg = str(refused(write(tmp_path, GOOD + "slot_frame = 3\n")))
    assert "mac.tsch.slot_frame = 3" in msg and "unknown key" in msg


def test_missing_required_key(tmp_path):
    msg = str(refused(write(tmp_path, GOOD.replace('title = "test"', ""))))
    assert "experiment.title = (missing)" in msg and "required" in msg


def test_value_not_in_the_allowed_set(tmp_path):
    msg = str(refused(write(tmp_path, GOOD.replace('kind = "tsch"', 'kind = "aloha"'))))
    assert "mac.kind = 'aloha'" in msg and "'tsch'" in msg


def test_unknown_platform(tmp_path):
    msg = str(refused(write(tmp_path, GOOD.replace("wismote", "arduino"))))
    assert "platform = 'arduino'" in msg and "telosb" in msg


def test_cross_field_rules(tmp_path):
    text = GOOD.replace('kind = "tsch"', 'kind = "beacon"').split("[mac.tsch]")[0]
    text += textwrap.dedent(
        """
        [mac.beacon]
        beacon_order = 4
        superframe_order = [3, 5]
        """
    )
    msg = str(refused(write(tmp_path, text)))
    assert "mac.beacon.superframe_order[1] = 5" in msg and "beacon_order (4)" in msg
    msg = str(refused(write(tmp_path, GOOD.replace("[1, 2, 3]", "[1, 200]"))))
    assert "mac.tsch.cells_per_link[1] = 200" in msg and "slotframe_length (101)" in msg


def test_tsch_given_cells_and_channel_pdr_are_checked(tmp_path):
    path = write(tmp_path, GOOD)
    cells = "mac.tsch.cells=[{sender=0,receiver=1,slot=10},{sender=1,receiver=2,slot=10}]"
    msg = str(refused(path, "mac.tsch.cell_placement=given", cells))
    assert "node 1 already has a cell in slot 10" in msg
    msg = str(refused(path, "mac.tsch.cell_placement=given"))
    assert "mac.tsch.cells = []: must list cells" in msg
    far = "mac.tsch.cells=[{sender=0,receiver=1,slot=101}]"
    msg = str(refused(path, "mac.tsch.cell_placement=given", far))
    assert "slot must be in [0, 100]" in msg  # the shortest slotframe of the sweep
    msg = str(refused(path, cells.replace("slot=10}]", "slot=11}]")))
    assert "only with cell_placement = 'given'" in msg
    msg = str(refused(path, "mac.tsch.channel_pdr=[0.5, 1.0]"))
    assert "must list 16 values" in msg
    msg = str(refused(path, f"mac.tsch.channel_pdr=[{', '.join(['1.5'] * 16)}]"))
    assert "mac.tsch.channel_pdr[0] = 1.5" in msg


def test_several_problems_are_reported_together(tmp_path):
    text = GOOD.replace("[1, 2, 3]", "0") + "timeslot_ms = 0\n"
    e = refused(write(tmp_path, text))
    keys = {p.key for p in e.problems}
    assert {"mac.tsch.cells_per_link", "mac.tsch.timeslot_ms"} <= keys


def test_toml_syntax_error(tmp_path):
    msg = str(refused(write(tmp_path, GOOD + "this is not toml\n")))
    assert "not valid TOML" in msg and "s.toml" in msg


def test_missing_file(tmp_path):
    msg = str(refused(tmp_path / "absent.toml"))
    assert "absent.toml" in msg and "no such file" in msg


def test_a_misspelt_scenario_or_platform_gets_the_nearest_name(cli):
    # "No such file" with no suggestion
    msg = str(refused("exp1-xmax"))
    assert "(file) = 'exp1-xmax': no such file, and no shipped scenario of that name" in msg
    assert "(did you mean 'exp1-xmac'?)" in msg and "`dtlsim scenario list`" in msg
    out = cli("scenario", "show", "exp1-xmax", code=2)
    assert "did you mean 'exp1-xmac'?" in out and "Traceback" not in out
    msg = str(refused("exp1-xmac", "platform=wismot"))
    assert "--set platform=wismot: 1 invalid value(s)" in msg
    assert "platform = 'wismot': must be one of" in msg
    assert "(did you mean 'wismote'?); `dtlsim platforms` lists them" in msg
    out = cli("run", "exp1-xmax", "--quick", code=2)
    assert "did you mean 'exp1-xmac'?" in out and "Traceback" not in out


def test_a_problem_an_override_caused_is_blamed_on_the_override():
    # the shipped file was blamed for a table the override made
    e = refused("exp1-xmac", "mac.tsch.slotframe_length=5")
    assert str(e).startswith("--set mac.tsch.slotframe_length=5: 1 invalid value(s)")
    assert "exp1-xmac.toml" not in str(e)
    # a rule the override broke through another key names the override
    e = refused("exp1-xmac", "mac.xmac.on_time_ms=70")
    assert str(e).startswith("--set mac.xmac.on_time_ms=70 (with ")
    assert "exp1-xmac.toml): 1 invalid value(s)" in str(e)
    assert "mac.xmac.check_interval_ms[0] = 62.5: must be > 70.312 ms" in str(e)
    e = refused("exp1-xmac", "mac.kind=tsch")
    assert str(e).startswith("--set mac.kind=tsch (with ")  # the table is the file's
    assert "mac.xmac = '(table)': has no effect here: only with mac.kind = 'xmac'" in str(e)


def test_an_impossible_combination_is_refused_with_key_value_and_range():
    # a check interval shorter than the on time ran and printed 0.41 s
    e = refused("exp1-xmac", "mac.xmac.check_interval_ms=0.125")
    assert str(e) == (
        "--set mac.xmac.check_interval_ms=0.125: 1 invalid value(s)\n"
        "  mac.xmac.check_interval_ms = 0.125: must be > 7.812 ms, a wake-up's listen window "
        "(mac.xmac.on_time_ms 6.226 rounded up to whole clock ticks "
        "(listen_window_in_clock_ticks = true)), so that the radio sleeps between wake-ups "
        "(cxmac.c cpowercycle); range (7.812, 60000]"
    )
    e = refused(
        "exp2-beacon",
        "mac.beacon.beacon_order=0",
        "mac.beacon.superframe_order=0",
        "mac.beacon.guard_time_us=20000",
    )
    assert "mac.beacon.guard_time_us = 20000: must be < 15360" in str(e)
    assert "IEEE 802.15.4-2006 7.5.1.1" in str(e)


def test_an_override_or_axis_that_does_nothing_is_refused():
    # dtls.version x dtls.retransmission.initial_ms with EDHOC ran
    # every point, identical rows under different labels
    e = refused(
        "exp8-handshakes",
        "workload.handshake=edhoc",
        "dtls.version=1.2,1.3",
        "dtls.retransmission.initial_ms=1000,2000",
    )
    assert str(e) == (
        "--set dtls.version=1.2,1.3: 1 invalid value(s)\n"
        "  dtls.version = ['1.2', '1.3']: has no effect here: "
        "only with workload.handshake = 'dtls', not 'edhoc'\n"
        "--set dtls.retransmission.initial_ms=1000,2000: 1 invalid value(s)\n"
        "  dtls.retransmission.initial_ms = [1000, 2000]: has no effect here: "
        "only with workload.handshake = 'dtls', not 'edhoc'"
    )
    e = refused("exp1-xmac", "edhoc.credentials=ccs")
    assert "edhoc.credentials = 'ccs': has no effect here: only with workload.handshake" in str(e)
    # a key that counts in some point of the sweep is kept (tune-tsch sweeps
    # the handshake); EDHOC's cryptography has its own key, DTLS's does nothing
    load_scenario("tune-tsch", ["dtls.version=1.2,1.3"])
    load_scenario("exp8-handshakes", ["workload.handshake=edhoc", "edhoc.crypto_strategy=hardware"])
    e = refused("exp8-handshakes", "workload.handshake=edhoc", "dtls.crypto_strategy=hardware")
    assert "dtls.crypto_strategy = 'hardware': has no effect here" in str(e)


def test_a_point_where_a_swept_key_does_nothing_runs_once():
    # dtls.version x workload.handshake: EDHOC once, not once per version
    # (before: four points, two of them the same EDHOC run)
    sc = load_scenario(
        "exp8-handshakes",
        {"topology.hops": 3, "topology.pdr": 1.0, "mac.tsch.cells_per_link": 1,
         "workload.handshake": ["dtls", "edhoc"], "dtls.version": ["1.2", "1.3"]},
    )  # fmt: skip
    seen = [(p["workload.handshake"], p["dtls.version"]) for p in sc.points()]
    assert sorted(seen) == [("dtls", "1.2"), ("dtls", "1.3"), ("edhoc", "1.2")]


def test_edhoc_is_charged_at_its_own_strategy_by_default_the_boards_best(tmp_path):
    # RFC 9528 static DH on P-256: the OpenMote's CC2538 runs it on its PKA
    # (platform file crypto.hardware.p256_ecdh_us), where EDHOC's default
    # `platform` takes it; DTLS's default stays software
    edhoc = tmp_path / "edhoc.toml"
    edhoc.write_text(new_scenario("tsch", handshake="edhoc"))
    dtls = tmp_path / "dtls.toml"
    dtls.write_text(new_scenario("tsch"))
    om = ["platform=openmote-cc2538"]
    for path, overrides, ecdh_us in [
        (edhoc, om, 63000.0),
        (edhoc, [*om, "edhoc.crypto_strategy=software"], 563000.0),
        (dtls, om, 563000.0),
    ]:
        point = next(iter(load_scenario(path, overrides).points()))
        assert platform_figures(point)["crypto"]["ecdh_us"] == ecdh_us, (path.name, overrides)
    # experiment 8 compares the handshakes on equal (software) cryptography
    point = next(iter(load_scenario("exp8-handshakes", ["workload.handshake=edhoc"]).points()))
    assert platform_figures(point)["crypto"]["ecdh_us"] == 563000.0
    # a board without a hardware table: its best is the next one
    assert load_platform("greennet").best_strategy() == "hybrid"
    assert load_platform("telosb").best_strategy() == "hardware"


def test_a_sweep_axis_in_a_file_that_does_nothing_is_refused(tmp_path):
    text = GOOD + '\n[dtls]\nversion = ["1.2", "1.3"]\n'
    text = text.replace('kind = "handshakes"', 'kind = "handshakes"\nhandshake = "edhoc"')
    e = refused(write(tmp_path, text))
    assert "s.toml: 1 invalid value(s)" in str(e)
    assert "dtls.version = ['1.2', '1.3']: has no effect here" in str(e)


def test_overrides_replace_values_and_make_axes(tmp_path):
    s = load_scenario(write(tmp_path, GOOD), ["mac.tsch.cells_per_link=2", "topology.hops=[1,4]"])
    assert {p["mac.tsch.cells_per_link"] for p in s.points()} == {2}
    assert s.axes()["topology.hops"] == [1, 4]
    e = refused(write(tmp_path, GOOD), "topology.pdr=1.5")
    assert "topology.pdr = 1.5" in str(e) and "must be <= 1" in str(e)


def test_override_syntax():
    assert parse_override("a.b=[1, 2]") == ("a.b", [1, 2])
    assert parse_override("mac.kind=tsch") == ("mac.kind", "tsch")
    with pytest.raises(ValueError, match=r"key\.path=value"):
        parse_override("novalue")


def test_scenario_check_command(cli, tmp_path):
    r = cli.json("scenario", "check", str(write(tmp_path, GOOD)))
    assert r["points"] == 6
    out = cli("scenario", "check", str(write(tmp_path, GOOD + "timeslot_ms = 0\n")), code=2)
    assert "mac.tsch.timeslot_ms = 0" in out


def test_beacon_poll_policy_is_checked():
    path = builtin_scenarios()["exp2-beacon"]
    assert {p["mac.beacon.poll"] for p in load_scenario(path, []).points()} == {"once-per-beacon"}
    msg = str(refused(path, "mac.beacon.poll=often"))
    assert "--set mac.beacon.poll=often:" in msg and "mac.beacon.poll = 'often'" in msg
    assert "exp2-beacon.toml" not in msg  # the override is to blame, not the file
    assert "'standard'" in msg and "'once-per-beacon'" in msg


def test_keys_that_do_nothing_are_refused(tmp_path):
    msg = str(refused(write(tmp_path, GOOD + "[mac.beacon]\nbeacon_order = 4\n")))
    assert "mac.beacon = '(table)'" in msg and "only with mac.kind = 'beacon'" in msg
    path = write(tmp_path, GOOD)
    msg = str(refused(path, "topology.nodes=5"))
    assert "topology.nodes = 5" in msg and "topology.kind = 'random'" in msg
    msg = str(refused(path, "dtls.retransmission.policy=tinydtls", "dtls.retransmission.max_ms=10"))
    assert "dtls.retransmission.max_ms = 10" in msg and "policy = 'doubling'" in msg


def test_shipped_schema_is_what_the_core_generates():
    from dtlsim import _core
    from dtlsim.schema import SCENARIO_SCHEMA

    assert SCENARIO_SCHEMA.read_text(encoding="utf-8") == _core.scenario_schema()


def test_schema_tells_sweep_axes_from_list_keys(tmp_path):
    text = GOOD + "channel_pdr = [" + ", ".join(["1.0"] * 16) + "]\n"
    s = load_scenario(write(tmp_path, text))
    assert "mac.tsch.channel_pdr" not in s.axes()
    assert all(len(p["mac.tsch.channel_pdr"]) == 16 for p in s.points())


def test_a_setup_s_choice_is_not_a_sweep_axis(tmp_path):
    msg = str(refused(write(tmp_path, GOOD), 'workload.kind=["ping", "handshakes"]'))
    assert "workload.kind = ['ping', 'handshakes']: takes one value" in msg
    msg = str(refused(write(tmp_path, GOOD), "experiment.seed=[1, 2]"))
    assert "experiment.seed = [1, 2]" in msg and "not a sweep axis" in msg


def test_key_constants_are_the_keys_of_the_schema_and_of_every_point():
    """`dtlsim.keys` (generated from the core's declarations) names every key a
    settled point has, and only keys the schema knows."""
    from dtlsim import keys
    from dtlsim.scenario import _shape

    constants = {v for k, v in vars(keys).items() if k.isupper()}
    assert all(_shape(tuple(key.split("."))) is not None for key in constants)
    for path in builtin_scenarios().values():
        for point in load_scenario(path).points():
            assert set(point) <= constants, set(point) - constants


def test_non_finite_numbers_are_refused_by_key(tmp_path):
    # NaN, inf or 1e400 (inf) gave "expected value at line 1
    # column 798" with no file or key (JSON has no form for them)
    for written, shown in (("nan", "nan"), ("inf", "inf"), ("1e400", "inf")):
        text = GOOD.replace("[1, 2, 3]", f"[1, {written}]")
        msg = str(refused(write(tmp_path, text)))
        assert f"mac.tsch.cells_per_link[1] = {shown}" in msg and "a finite number" in msg, msg
        assert "expected value" not in msg


def test_a_combination_the_board_lacks_is_a_point_not_run_not_an_error(cli):
    # experiment 5 sweeps every strategy x implementation; OpenWSN has no
    # hybrid path: the check lists those points instead of failing
    r = cli.json("scenario", "check", "exp5-llsec-tsch")
    assert r["points"] == 96 and len(r["not_run"]) == 16
    assert {n["link_security.strategy"] for n in r["not_run"]} == {"hybrid"}
    assert all("does not exist in implementation 'openwsn'" in n["why"] for n in r["not_run"])
