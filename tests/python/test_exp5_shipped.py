"""Experiment 5's shipped file is a product of CCM* strategies ×
implementation profiles, and OpenWSN has no hybrid path (hardware AES with
software CCM*). `dtlsim scenario check` and `dtlsim run` refused the
file that `dtlsim reproduce` runs; those points are points that cannot
run, listed and skipped like any other."""

from __future__ import annotations

import pandas as pd

from dtlsim.scenario import builtin_scenarios

EXP5 = str(builtin_scenarios()["exp5-llsec-tsch"])


def test_the_shipped_exp5_file_checks(cli):
    out = cli("scenario", "check", EXP5)
    assert "does not exist in implementation 'openwsn'" in " ".join(out.split())
    # 2 platforms × 8 levels × (3 + 3) strategy-implementation pairs, of which
    # openwsn × hybrid (2 × 8) cannot run
    assert "80 of 96 point(s) run" in out


def test_the_shipped_exp5_file_runs(cli, tmp_path):
    # one level and platform keep the run short; the sweep keeps both
    # implementations and all three strategies, openwsn × hybrid among them
    cli("run", EXP5, "--replications", "1", "--out", str(tmp_path),
        "--set", "link_security.level=enc-mic-64", "--set", "platform=openmote-cc2538")  # fmt: skip
    summary = pd.read_csv(tmp_path / "summary.csv")
    not_run = summary[summary["not_run"].notna()]
    assert len(summary) == 6 and len(not_run) == 1
    assert (not_run["link_security.strategy"] == "hybrid").all()
    assert (not_run["link_security.implementation"] == "openwsn").all()
