"""Confidence intervals: one definition of each, used by every table and figure.

* A mean (a duration, an energy) gets a Student-t 95 % interval, except
  where that interval would reach below zero for a quantity that cannot
  (every value >= 0: a duration, an energy, a count, with few or skewed
  values, e.g. "5.96 [-0.762, 12.7] s" from three handshakes): there it
  gets the percentile bootstrap interval of the mean (B. Efron and
  R. J. Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13;
  `scipy.stats.bootstrap`, 9999 resamples, a fixed seed so the same values
  give the same interval), which stays within the values observed.
* A proportion (a success rate) gets a Wilson score 95 % interval: it stays
  inside [0, 1] and keeps its coverage near 0 and 1, where a t interval
  on 0/1 values spills out of the range or collapses to a width of zero
  (E. B. Wilson, "Probable inference, the law of succession, and statistical
  inference", J. Am. Stat. Assoc. 22(158), 1927; recommended over the Wald
  interval by L. D. Brown, T. T. Cai, A. DasGupta, "Interval estimation for
  a binomial proportion", Statistical Science 16(2), 2001).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

# NumPy is imported for two values or more: the summary of a point of one
# run needs none (a tenth of a second of a tiny run's start-up with pyarrow).
if TYPE_CHECKING:
    import pandas as pd

CONFIDENCE = 0.95

# The two-sided normal quantile of the Wilson interval (1.95996… for 95 %).
Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)

# A point whose mean rests on fewer successful runs than this is marked in
# tables (`few_successes`) and drawn hollow without an error bar in figures.
# Why 10: the t interval needs the mean to be near normal, which a handful of
# handshake durations (skewed by retransmission-timer steps) does not give,
# and a mean of few survivors is the mean of the lucky ones. Estimate: the
# usual rule of thumb for a t interval on skewed data, not a derived bound.
MIN_SUCCESSES = 10


def mean_ci95(values: Any) -> tuple[float, float, float, int]:
    """Mean and 95 % confidence interval (low, high), and n, of the values
    that are not missing (a Series, or an array with NaN): Student's t, or
    for values that cannot be negative whose t interval would reach below
    zero, the percentile bootstrap (`bootstrap_ci95`)."""
    if hasattr(values, "dropna"):  # a pandas Series: None or NaN missing
        values = values.dropna()
    if isinstance(values, list | tuple):
        present = [float(x) for x in values if x is not None and not math.isnan(x)]
        if not present:
            return math.nan, math.nan, math.nan, 0
        if len(present) == 1:
            return present[0], math.nan, math.nan, 1
    import numpy as np

    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    n = len(v)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(v.mean())
    if n == 1:
        return mean, math.nan, math.nan, 1
    # Student's t quantile: what scipy.stats.t.ppf computes, without
    # importing scipy.stats (a second of start-up) for one function
    from scipy.special import stdtrit

    t = float(stdtrit(n - 1, 0.5 + CONFIDENCE / 2))
    half = t * float(np.std(v, ddof=1)) / math.sqrt(n)
    if mean - half < 0 <= float(v.min()):
        low, high = bootstrap_ci95(v)
        return mean, low, high, n
    return mean, mean - half, mean + half, n


# The seed of the bootstrap's resampling: the same values, the same interval.
BOOTSTRAP_SEED = 20261124
BOOTSTRAP_RESAMPLES = 9999


def bootstrap_ci95(values: Any) -> tuple[float, float]:
    """The percentile bootstrap 95 % interval of the mean of `values` (no
    NaN, at least two): what `mean_ci95` gives a quantity that cannot be
    negative when the t interval would reach below zero."""
    import numpy as np
    from scipy.stats import bootstrap

    v = np.asarray(values, dtype=float)
    if float(v.min()) == float(v.max()):
        return float(v[0]), float(v[0])
    res = bootstrap(
        (v,),
        np.mean,
        confidence_level=CONFIDENCE,
        n_resamples=BOOTSTRAP_RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(BOOTSTRAP_SEED),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def proportion_ci95(successes: int, trials: int) -> tuple[float, float, float]:
    """Share of successes and its Wilson score 95 % interval (low, high), inside [0, 1]."""
    if trials == 0:
        return math.nan, math.nan, math.nan
    # Wilson's interval in Newcombe's form (R. G. Newcombe, "Two-sided
    # confidence intervals for the single proportion", Statistics in Medicine
    # 17(8), 1998, method 3), closed at 0 and 1 when every trial went one way
    n, k = trials, successes
    p = k / n
    denom = 2 * (n + Z**2)
    center = (2 * n * p + Z**2) / denom
    delta = Z / denom * math.sqrt(4 * n * p * (1 - p) + Z**2)
    low = 0.0 if k == 0 else center - delta
    high = 1.0 if k == n else center + delta
    return p, low, high


def difference_half95(a: Any, b: Any) -> float:
    """Half-width of the 95 % interval of the difference between the means of
    two samples of independent runs (`a`, `b`: one value per run), assuming
    one spread for both (the pooled-variance two-sample t interval, as under
    the hypothesis that both simulate the same process; W. S. Gosset's t, in
    e.g. A. M. Law, "Simulation Modeling and Analysis", 5th ed., 2015,
    §10.2.1). NaN when the runs give no degree of freedom (one run each).

    Why runs and not the values inside them: consecutive values of one run
    share its state (a simulation's wake-up phases, a stack's leaked
    buffers), so they are not independent and an interval over them is too
    narrow; the means of independent runs are (Law, §9.4, the method of
    independent replications)."""
    import numpy as np

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    df = len(x) + len(y) - 2
    if len(x) == 0 or len(y) == 0 or df < 1:
        return math.nan
    from scipy.special import stdtrit  # Student's t quantile, as in mean_ci95

    squares = float(((x - x.mean()) ** 2).sum() + ((y - y.mean()) ** 2).sum())
    spread = math.sqrt(squares / df)
    return float(stdtrit(df, 0.5 + CONFIDENCE / 2)) * spread * math.sqrt(1 / len(x) + 1 / len(y))


def _groups(df: pd.DataFrame, by: Sequence[str]):
    for key, g in df.groupby(list(by), sort=True, dropna=False):
        yield dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)), g


def summarize(df: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """Mean and 95 % interval (`mean_ci95`) of each metric per group, and n (rows with a value)."""
    rows = []
    for row, g in _groups(df, by):
        for m in metrics:
            mean, lo, hi, n = mean_ci95(g[m])
            row |= {f"{m}_mean": mean, f"{m}_ci_low": lo, f"{m}_ci_high": hi}
            row["n"] = n
        rows.append(row)
    # no group (e.g. no successful row at all): the columns all the same
    stats = [f"{m}_{s}" for m in metrics for s in ("mean", "ci_low", "ci_high")]
    import pandas as pd

    return pd.DataFrame(rows, columns=[*by, *stats, "n"])


def summarize_proportion(
    df: pd.DataFrame, by: Sequence[str], hits: str, name: str = ""
) -> pd.DataFrame:
    """Per group, the share `name` of rows whose 0/1 outcome `hits` is 1, with
    its Wilson interval (each row one independent trial)."""
    name = name or hits
    rows = []
    for row, g in _groups(df, by):
        k = int(g[hits].astype(int).sum())
        n = len(g)
        rate, lo, hi = proportion_ci95(k, n)
        rows.append(row | {name: rate, f"{name}_ci_low": lo, f"{name}_ci_high": hi})
    import pandas as pd

    return pd.DataFrame(rows, columns=[*by, name, f"{name}_ci_low", f"{name}_ci_high"])
