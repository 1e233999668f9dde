"""The Cooja oracle's logs are read as written, and agreement is judged by one
rule: Wilson intervals that overlap for the share completed,
means within 15 % or inside Cooja's 95 % interval for the rest."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dtlsim import keys
from dtlsim.experiments import RUNNERS, cooja_oracle
from dtlsim.experiments.base import DIFFERS
from dtlsim.scenario import load_scenario, variant

LOG = """\
# setup hops=1 rate=2 tx=50 ir=100 spacing=40 pdr=0.9 seed=1 rdc=cxmac motes=2
# attempt ok t_end_ms dur_ms client_rtx client_tx why on_ms[1..n] tx_ms[1..n]
1 1 13446 11483 3 8 - 3284.1,2883.7 355.4,313.6
# mote 2 t=99: CLI_ALERT level=2 code=51
2 0 28670 14206 1 6 alert 3870.1,4876.6 415.8,528.3
"""


def test_a_log_gives_its_setup_and_a_row_per_handshake(tmp_path: Path) -> None:
    path = tmp_path / "h1-r2-ir100-pdr90.hs.log"
    path.write_text(LOG)
    setup, rows = cooja_oracle.read_log(path)
    assert setup.name == "h1-r2-ir100-pdr90"
    assert (setup.hops, setup.check_interval_ms, setup.interference_range_m) == (1, 500.0, 100.0)
    assert (setup.spacing_m, setup.success_ratio_rx, setup.encounter_optimization) == (
        40.0,
        0.9,
        False,
    )
    assert list(rows["success"]) == [True, False]
    assert list(rows["failure"]) == ["-", "alert"]
    first = rows.iloc[0]
    assert first["duration_s"] == pytest.approx(11.483)
    assert first["client_resent"] == 3
    # node n is the client: the last radio-on figure
    assert first["client_radio_on_s"] == pytest.approx(2.8837)
    assert first["radio_on_s"] == pytest.approx(3.2841 + 2.8837)


def test_every_shipped_log_reads_and_names_a_valid_point() -> None:
    logs = cooja_oracle.oracle_logs()
    assert logs, "reference/cooja has no logs"
    scenario = load_scenario("cooja-xmac")
    for path in logs:
        setup, rows = cooja_oracle.read_log(path)
        assert len(rows) >= 100, path
        variant(scenario, setup.overrides)  # raises on a value the scenario refuses


def _describe(ok: int, n: int, duration: float) -> dict[str, float]:
    rows = pd.DataFrame(
        {
            "success": [True] * ok + [False] * (n - ok),
            "duration_s": [duration] * n,
            "client_resent": [1] * n,
            "client_datagrams_sent": [6] * n,
        }
    )
    return cooja_oracle.describe(rows)


def test_agreement_is_overlap_for_shares_and_15_percent_for_means() -> None:
    setup = cooja_oracle.Setup("h1", 1, 500.0, 50.0, 100.0, 40.0, 1.0, False)
    cooja = _describe(80, 100, 10.0)
    # identical values: every check agrees; a constant sample has a 0-wide
    # interval, so 15 % of Cooja's mean is the tolerance
    same = cooja_oracle.agreement_checks(setup.name, cooja, _describe(80, 100, 10.0))
    assert [c.verdict for c in same] == ["pass"] * len(same)
    duration = next(c for c in same if "mean duration" in c.quantity)
    assert (duration.low, duration.high) == pytest.approx((8.5, 11.5))
    # 11.4 s is inside 15 %, 11.6 s is not; shares 0.80 and 0.20 do not overlap
    near = cooja_oracle.agreement_checks(setup.name, cooja, _describe(20, 100, 11.4))
    verdicts = {c.quantity.split(": ")[1]: c.verdict for c in near}
    assert verdicts["mean duration (completed handshakes)"] == "pass"
    assert verdicts["share completed (Wilson intervals overlap)"] == DIFFERS
    far = cooja_oracle.agreement_checks(setup.name, cooja, _describe(80, 100, 11.6))
    assert next(c for c in far if "mean duration" in c.quantity).verdict == DIFFERS
    # a difference from the oracle is reported, never a failure of reproduce
    assert not any(c.gates for c in far)


def test_cooja_wall_times_name_every_shipped_log() -> None:
    # reference/cooja/runs.csv has a row per log; blank only where the run
    # was not timed (the first batch's one log that was not re-run)
    runs = cooja_oracle.cooja_runs()
    names = {p.name.removesuffix(".hs.log") for p in cooja_oracle.oracle_logs()}
    assert set(runs.index) == names
    untimed = set(runs.index[runs["wall_s"].isna()])
    assert untimed == {"h3-r2-all"}


def test_the_comparison_is_on_experiment_1s_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one configuration, a few handshakes back to back: the tables and
    # checks exp1 adds
    scenario = variant(load_scenario("cooja-xmac"), {keys.WORKLOAD_HANDSHAKES: 3})
    one = cooja_oracle.oracle_logs()[:1]
    monkeypatch.setattr(cooja_oracle, "oracle_logs", lambda: one)
    cmp = cooja_oracle.compare(scenario, False, tmp_path)
    names = [t.name for t in cmp.tables]
    assert names == ["cooja_oracle", "cooja_wall_time"]
    wall = cmp.tables[1].frame.iloc[0]
    # three handshakes in each of the scenario's replications
    assert wall["dtlsim_handshakes"] == 3 * scenario.raw["experiment"]["replications"]
    assert wall["cooja_wall_s"] > 0 and wall["dtlsim_wall_s"] > 0
    assert len(cmp.checks) >= 5
    assert "cooja-xmac" not in RUNNERS, "shown on exp1's page, not as its own experiment"


def test_a_configurations_runs_are_its_logs_by_seed(tmp_path: Path) -> None:
    for name in (
        "h1-r2-ir100-pdr90-s3",
        "h1-r2-ir100-pdr90",
        "h1-r2-ir100-pdr90-s2",
        "h1-r4-ir100",
    ):
        (tmp_path / f"{name}.hs.log").write_text(LOG)
    runs = cooja_oracle.runs_of(sorted(tmp_path.glob("*.hs.log")))
    assert list(runs) == ["h1-r2-ir100-pdr90", "h1-r4-ir100"]
    assert [p.name for p in runs["h1-r2-ir100-pdr90"]] == [
        "h1-r2-ir100-pdr90.hs.log",
        "h1-r2-ir100-pdr90-s2.hs.log",
        "h1-r2-ir100-pdr90-s3.hs.log",
    ]
    setup, rows = cooja_oracle.read_runs(runs["h1-r2-ir100-pdr90"])
    assert setup.name == "h1-r2-ir100-pdr90"
    assert list(rows["run"]) == [0, 0, 1, 1, 2, 2]
    means = cooja_oracle.run_means(rows, "run")
    assert list(means["completed"]) == [0.5, 0.5, 0.5]
    assert list(means["duration_s"]) == pytest.approx([11.483] * 3)


def _runs(durations: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"completed": [0.8] * len(durations), "duration_s": durations})


def test_agreement_over_runs_takes_the_runs_spread() -> None:
    cooja = _describe(80, 100, 10.0)
    sim = _describe(80, 100, 13.0)
    duration = lambda checks: next(c for c in checks if "mean duration" in c.quantity)  # noqa: E731
    # by the handshakes alone 13 s is 30 % off a constant 10 s: differs
    assert duration(cooja_oracle.agreement_checks("h1", cooja, sim)).verdict == DIFFERS
    # Cooja's runs 8 and 12 s, dtlsim's 12, 13, 14 s: squares 8 + 2 = 10 on 3
    # degrees of freedom, half-width 5.30 s (test_stats): 13 s agrees
    spread = (_runs([8.0, 12.0]), _runs([12.0, 13.0, 14.0]))
    check = duration(cooja_oracle.agreement_checks("h1", cooja, sim, runs=spread))
    assert check.verdict == "pass"
    assert check.high == pytest.approx(10.0 + 5.30408, abs=1e-4)
    # runs that agree with each other leave the 15 % rule: 13 s differs
    tight = (_runs([10.0, 10.0]), _runs([13.0, 13.0, 13.0]))
    assert duration(cooja_oracle.agreement_checks("h1", cooja, sim, runs=tight)).verdict == DIFFERS
