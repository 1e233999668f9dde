"""The report's figures, read back from the matplotlib objects the
experiments build: log axes where values span decades, no error bar
reaching below zero, the closed form visible over the exact values, and
one panel where four said nearly the same."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection

from dtlsim.experiments import display, exp1_xmac, exp3_tsch, exp6_overhead, style
from dtlsim.scenario import load_scenario

CI, HOPS, PDR = exp1_xmac.CI, exp1_xmac.HOPS, exp1_xmac.PDR


def _exp1_table() -> pd.DataFrame:
    """Experiment 1's summary shape, durations from a fraction of a second
    to minutes as the check interval doubles (what a run gives)."""
    rows = []
    for hops in (1, 2):
        for ci in (62.5, 250.0, 1000.0, 4000.0):
            mean = 0.4 * hops * (ci / 62.5) ** 1.3
            rows.append(
                {HOPS: hops, PDR: 1.0, CI: ci, "n_rows": 40, "n_successful": 40,
                 "few_successes": False, "duration_s_mean": mean,
                 "duration_s_ci_low": mean * 0.8, "duration_s_ci_high": mean * 1.2}
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_exp1_durations_spanning_decades_are_on_a_log_axis():
    t = _exp1_table()
    assert t.duration_s_mean.max() / t.duration_s_mean.min() > 100
    fig = exp1_xmac._per_hops(t, "duration_s", "handshake duration (s)", "d").figure
    assert [ax.get_yscale() for ax in fig.axes] == ["log"] * 2
    fig = exp1_xmac._vs_hops(t.assign(**{CI: 125.0})).figure
    assert fig.axes[0].get_yscale() == "log"


def _lower_ends(fig) -> list[float]:
    """The lowest point of every error bar drawn in `fig`."""
    ends = []
    for ax in fig.axes:
        for c in ax.collections:
            if isinstance(c, LineCollection):
                ends += [float(np.min(seg[:, 1])) for seg in c.get_segments() if len(seg)]
    return ends


def test_no_error_bar_reaches_below_zero():
    # a t interval of a count that is mostly zero reaches below zero (mean
    # 0.1, interval [-0.05, 0.25]): its bar stops at zero
    sub = pd.DataFrame(
        {"x": [1, 2], "n_successful": [40, 40], "few_successes": [False, False],
         "dtls_retransmissions_mean": [0.1, 2.0],
         "dtls_retransmissions_ci_low": [-0.05, 1.5],
         "dtls_retransmissions_ci_high": [0.25, 2.5]}
    )  # fmt: skip
    fig, (ax,) = style.subplots()
    display.errorbar(ax, sub, "x", "dtls_retransmissions", 1.0, "a count")
    ends = _lower_ends(fig)
    assert ends and min(ends) == 0.0
    assert math.isclose(sorted(ends)[1], 1.5)  # an interval above zero is drawn whole


def test_exp3_closed_form_is_drawn_over_the_exact_values():
    result = exp3_tsch.run(load_scenario("exp3-tsch"), quick=True, work=None)
    (fig,) = [f.figure for f in result.figures]
    for ax in fig.axes:
        lines = {ln.get_label(): ln for ln in ax.get_lines()}
        closed = [ln for label, ln in lines.items() if label.endswith("closed form")]
        exact = [ln for label, ln in lines.items() if label.endswith("exact")]
        assert closed and len(closed) == len(exact)
        for c, e in zip(closed, exact, strict=True):
            assert c.get_zorder() > e.get_zorder()
            # the exact value's hollow ring shows around the closed form's dot
            assert c.get_markersize() < e.get_markersize()


def test_exp6_fragmentation_is_one_panel():
    result = exp6_overhead.run(load_scenario("exp6-overhead"), quick=True, work=None)
    frag = [f for f in result.figures if "Fragmentation" in f.title]
    assert len(frag) == 1 and len(frag[0].figure.axes) == 1
    ax = frag[0].figure.axes[0]
    drawn = [ln for ln in ax.get_lines() if len(ln.get_xdata())]
    (curves,) = [t.frame for t in result.tables if t.name == "exp6_frames_vs_payload"]
    configs = curves[["compression", "link_level"]].drop_duplicates()
    assert len(configs) == 4
    # every suite shown in every configuration: colour the suite, line style the configuration
    assert len(drawn) == len(exp6_overhead.SHOWN) * len(configs)
    assert len({(ln.get_color(), ln.get_linestyle()) for ln in drawn}) == len(drawn)
