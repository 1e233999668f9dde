"""Intervals and per-point summaries: proportions stay in [0, 1], failures are
counted honestly beside the mean over successes, stale units are not reused."""

from __future__ import annotations

import json
import math
import shutil

import pandas as pd
import pytest

from dtlsim.runner import run_scenario, summarize_rows
from dtlsim.scenario import load_scenario
from dtlsim.stats import MIN_SUCCESSES, difference_half95, proportion_ci95


def test_wilson_interval_by_hand_and_never_outside_zero_one():
    # none of 20: the Wilson upper bound is z² / (n + z²) = 3.8415 / 23.8415
    rate, low, high = proportion_ci95(0, 20)
    assert (rate, low) == (0.0, 0.0)
    assert high == pytest.approx(1.959964**2 / (20 + 1.959964**2), rel=1e-6)
    rate, low, high = proportion_ci95(20, 20)
    assert (rate, high) == (1.0, 1.0)
    assert low == pytest.approx(1 - 1.959964**2 / (20 + 1.959964**2), rel=1e-6)
    for n in (1, 2, 5, 37):
        for k in range(n + 1):
            rate, low, high = proportion_ci95(k, n)
            assert 0.0 <= low <= rate <= high <= 1.0, (k, n)


def handshakes(successes: int, failures: int) -> pd.DataFrame:
    ok = [
        {"success": True, "duration_s": 2.0 + i, "give_up_s": None, "client_energy_uj": 10.0}
        for i in range(successes)
    ]
    failed = [
        {"success": False, "duration_s": None, "give_up_s": 100.0, "client_energy_uj": 90.0}
        for _ in range(failures)
    ]
    return pd.DataFrame([*ok, *failed]).assign(point="p")


def test_a_summary_shows_rate_interval_n_and_censored_means_beside_successes():
    (row,) = summarize_rows(handshakes(3, 1), ["point"], "handshakes").to_dict("records")
    assert (row["n_rows"], row["n_successful"], row["success_rate"]) == (4, 3, 0.75)
    assert 0.0 <= row["success_ci_low"] < 0.75 < row["success_ci_high"] <= 1.0
    # over the successes: 2, 3, 4
    assert row["duration_s_mean"] == 3.0
    # censored: the failure counted at its give-up time, a lower bound of the true mean
    assert row["duration_censored_s_mean"] == (2 + 3 + 4 + 100) / 4
    assert row["client_energy_uj_mean"] == 10.0
    assert row["client_energy_censored_uj_mean"] == (3 * 10 + 90) / 4
    assert row["few_successes"]  # 3 < MIN_SUCCESSES


def test_no_success_at_all_is_summarized_not_dropped():
    many = summarize_rows(handshakes(MIN_SUCCESSES, 0), ["point"], "handshakes")
    assert not many.few_successes.iloc[0]
    (row,) = summarize_rows(handshakes(0, 5), ["point"], "handshakes").to_dict("records")
    assert (row["success_rate"], row["success_ci_low"], row["n_successful"]) == (0.0, 0.0, 0)
    assert 0.0 < row["success_ci_high"] < 1.0
    assert pd.isna(row["duration_s_mean"]) and row["duration_censored_s_mean"] == 100.0


def test_a_changed_platform_file_reruns_its_units_and_only_them(tmp_path, monkeypatch):
    """Doubling the radio's RX current in one platform file re-runs the points
    on that platform into the same directory (their energy changes); the
    points on the other platform are reused untouched."""
    platforms = tmp_path / "platforms"
    shutil.copytree(load_platform_dir(), platforms)
    monkeypatch.setenv("DTLSIM_PLATFORMS", str(platforms))
    scenario = load_scenario(
        "exp1-xmac",
        ["platform=['wismote','telosb']", "topology.hops=1", "topology.pdr=1.0",
         "mac.xmac.check_interval_ms=125.0"],
    )  # fmt: skip
    out = tmp_path / "run"
    _, before = run_scenario(scenario, out, replications=3, workers=1)
    before = before.assign(point_key=_keys(out, before))
    units = {str(p.relative_to(out / "units")): p.stat().st_mtime_ns
             for p in (out / "units").glob("*/*.parquet")}  # fmt: skip
    assert len(units) == 2

    wismote = platforms / "wismote.toml"
    text = wismote.read_text()
    assert "rx_current_ma = { value = 18.5," in text
    wismote.write_text(
        text.replace("rx_current_ma = { value = 18.5,", "rx_current_ma = { value = 37.0,")
    )
    _, after = run_scenario(scenario, out, replications=3, workers=1)
    after = after.assign(point_key=_keys(out, after))

    now = {str(p.relative_to(out / "units")): p.stat().st_mtime_ns
           for p in (out / "units").glob("*/*.parquet")}  # fmt: skip
    assert all(now[name] == units[name] for name in units)  # nothing rewritten in place
    (new,) = set(now) - set(units)  # the wismote unit ran again, under a new key
    key = lambda s, p: s.set_index("platform").point_key[p]  # noqa: E731
    assert new.startswith(f"unit_key={key(after, 'wismote')}") and key(after, "wismote") != key(
        before, "wismote"
    )
    assert key(after, "telosb") == key(before, "telosb")  # reused
    energy = lambda s, p: s.set_index("platform").client_energy_uj_mean[p]  # noqa: E731
    assert energy(after, "telosb") == energy(before, "telosb")
    assert energy(after, "wismote") > 1.2 * energy(before, "wismote")
    rows = pd.read_parquet(out / "results.parquet")
    assert len(rows) == 2 * 3  # no stale rows mixed in


def load_platform_dir():
    from dtlsim.platform import platforms_dir

    return platforms_dir()


def _keys(out, summary):
    """The unit key of each platform's point, from the manifest just written."""
    points = json.loads((out / "manifest.json").read_text())["points"]
    by_platform = {p["params"]["platform"]: p["unit_key"] for p in points}
    return summary.platform.map(by_platform)


def test_units_are_named_by_the_code_too_rows_by_the_parameters_alone(monkeypatch):
    from dtlsim import provenance, sweep

    params = {"platform": "wismote", "topology.hops": 1}
    point, unit = sweep.point_key(params), sweep.unit_key(params)
    monkeypatch.setattr(provenance, "python_code_id", lambda: "edited sources")
    assert sweep.unit_key(params) != unit  # changed Python code re-runs the point
    assert sweep.point_key(params) == point  # the row column is the same on every build


def test_wilson_interval_is_scipys():
    # the closed form here against scipy's binomtest (method="wilson"), which
    # it replaces at start-up; both Newcombe's form of Wilson's interval
    from scipy.stats import binomtest

    for n in (1, 3, 10, 40, 1000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
            _, low, high = proportion_ci95(k, n)
            assert low == pytest.approx(ci.low, abs=1e-15), (k, n)
            assert high == pytest.approx(ci.high, abs=1e-15), (k, n)


def test_a_positive_quantity_never_gets_an_interval_below_zero():
    # "5.96 [-0.762, 12.7] s" from three skewed handshake durations
    from dtlsim.stats import bootstrap_ci95, mean_ci95

    durations = [0.7, 0.9, 16.3]
    mean, low, high, n = mean_ci95(durations)
    assert n == 3 and abs(mean - 5.9667) < 1e-3
    assert 0 <= low <= mean <= high <= max(durations)
    assert (low, high) == bootstrap_ci95(durations)  # the same values, the same interval
    # a t interval that stays above zero is kept as it was
    mean, low, high, _ = mean_ci95([10.0, 11.0, 12.0, 13.0])
    assert abs(low - (11.5 - 2.0540)) < 1e-3
    # a quantity that can be negative keeps its t interval
    assert mean_ci95([-1.0, 0.5, 3.0])[1] < -1.0


def test_the_interval_of_a_difference_over_runs_by_hand():
    # runs [1, 3] and [2, 4, 6]: squares about the means 2 + 8 = 10 on
    # 3 degrees of freedom, t(3, 0.975) = 3.182446 (tables), so the half-width
    # is 3.182446 · sqrt(10/3) · sqrt(1/2 + 1/3) = 5.30408
    assert difference_half95([1, 3], [2, 4, 6]) == pytest.approx(5.30408, abs=1e-5)
    # one run on each side: no spread to judge by
    assert math.isnan(difference_half95([1], [2]))
    # one run on one side borrows the other's spread: sqrt(2) on 1 degree of
    # freedom, t(1, 0.975) = 12.7062, times sqrt(1 + 1/2)
    assert difference_half95([1], [2, 4]) == pytest.approx(12.7062 * 2**0.5 * 1.5**0.5, rel=1e-5)
    # missing values are not runs
    assert difference_half95([1, 3, float("nan")], [2, 4, 6]) == pytest.approx(5.30408, abs=1e-5)
