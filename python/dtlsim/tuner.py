"""The retransmission-timer tuner: which initial timer and back-off suit a network.

For a scenario of handshakes, each candidate timer runs as a sweep of the
scenario (`dtlsim.runner`), and each point of the scenario's own sweep
gets, per protocol, every candidate's handshake time, spurious
retransmissions, energy and success rate, and the candidate that
minimises the expected time (or the client's expected energy) to a
completed handshake.

The knobs per protocol:
- DTLS 1.2 and 1.3: `dtls.retransmission.policy` (the back-off: `fixed`,
  `doubling` as RFC 6347 section 4.2.4, `tinydtls`) and its `initial_ms`;
  the retransmission limit (and `doubling`'s ceiling) stay the scenario's.
- EDHOC over CoAP: CoAP always doubles (RFC 7252 section 4.2); its knobs
  are ACK_TIMEOUT (`edhoc.ack_timeout_ms`, the initial timer) and
  ACK_RANDOM_FACTOR (`edhoc.ack_random_factor`).

Expected time to a completed handshake: when a failed handshake is started
again, independently, until one succeeds, the number of failures before
the success is geometric, so with success probability p, mean duration of
a success D and mean time until a failure gave up G,
    E[T] = D + (1 - p) / p * G,
and the same with energies. p = 0 gives no finite value (infinity). The
censored means (`dtlsim.runner.CENSORED`) are reported beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from dtlsim import keys, runner
from dtlsim import scenario as scenarios
from dtlsim.scenario import Scenario
from dtlsim.stats import proportion_ci95

OBJECTIVES = {
    "time": "expected_time_s",
    "energy": "expected_client_energy_uj",
}
"""What `tune` minimises → the column it minimises."""

BACKOFFS = ("fixed", "doubling", "tinydtls")
"""DTLS back-off policies (`dtls.retransmission.policy`)."""

DEFAULT_INITIAL_S = (1.0, 2.0, 5.0, 9.0, 20.0)
"""Initial timers tried by default: RFC 6347's 1 s, tinyDTLS's and CoAP's
2 s, RFC 7925 section 11's 9 s, and points around them."""

DEFAULT_RANDOM_FACTORS = (1.5,)
"""CoAP ACK_RANDOM_FACTOR tried by default: RFC 7252 section 4.8's."""

# The allowed ranges of the tuner's own options (the scenario's schema
# checks each value again as a key of the scenario).
INITIAL_RANGE_S = (0.001, 3600.0)
RANDOM_FACTOR_RANGE = (1.0, 4.0)

# The tuner's own columns, besides the scenario's other sweep axes.
SETTING = ["protocol", "backoff", "initial_s", "random_factor"]


class TuneError(ValueError):
    """A tuner option out of range: names the option, the value and what is allowed."""


@dataclass(frozen=True)
class Tuning:
    """The tuner's result: one row per point of the scenario's sweep,
    protocol and candidate setting (`table`), and the best setting per point
    and protocol (`best`) for `objective`."""

    table: pd.DataFrame
    best: pd.DataFrame
    objective: str
    axes: list[str] = field(default_factory=list)


def check_options(
    objective: str, initial_s: Sequence[float], backoffs: Sequence[str],
    random_factors: Sequence[float],
) -> None:  # fmt: skip
    """Refuse a bad option value, naming option, value and allowed values."""
    if objective not in OBJECTIVES:
        raise TuneError(f"--objective {objective!r}: allowed {', '.join(OBJECTIVES)}")
    if not initial_s:
        raise TuneError("--initial: give at least one initial timer in seconds, e.g. 1,2,9")
    lo, hi = INITIAL_RANGE_S
    for v in initial_s:
        if not (math.isfinite(v) and lo <= v <= hi):
            raise TuneError(f"--initial {v:g}: allowed {lo:g} to {hi:g} (seconds)")
    if not backoffs:
        raise TuneError(f"--backoff: give at least one of {', '.join(BACKOFFS)}")
    for b in backoffs:
        if b not in BACKOFFS:
            raise TuneError(f"--backoff {b!r}: allowed {', '.join(BACKOFFS)}")
    lo, hi = RANDOM_FACTOR_RANGE
    for v in random_factors:
        if not (math.isfinite(v) and lo <= v <= hi):
            raise TuneError(f"--random-factor {v:g}: allowed {lo:g} to {hi:g}")


def candidates(
    sc: Scenario, handshake: str, initial_s: Sequence[float], backoffs: Sequence[str],
    random_factors: Sequence[float],
) -> list[list[str]]:  # fmt: skip
    """Scenario overrides, one sweep per entry: the initial timers are a sweep
    axis of each (one run each through `dtlsim.runner`). A DTLS candidate
    replaces the whole `dtls.retransmission` table (a ceiling belongs to
    `doubling` only) and keeps the scenario's retransmission limit and, for
    `doubling`, its ceiling, so candidates differ in their timer alone."""
    ms = "[" + ",".join(f"{1000.0 * v:g}" for v in initial_s) + "]"
    if handshake == "edhoc":
        factors = "[" + ",".join(f"{v:g}" for v in random_factors) + "]"
        return [[f"edhoc.ack_timeout_ms={ms}", f"edhoc.ack_random_factor={factors}"]]
    first = next(iter(sc.points()))
    limit = f"max_retransmissions = {first['dtls.retransmission.max_retransmissions']}"
    ceiling = first.get(keys.DTLS_RETRANSMISSION_MAX_MS)
    out = []
    for b in backoffs:
        kept = f"{limit}, max_ms = {ceiling}" if b == "doubling" and ceiling else limit
        table = f'dtls.retransmission={{ policy = "{b}", {kept} }}'
        out.append([table, f"dtls.retransmission.initial_ms={ms}"])
    return out


def tune(
    scenario: str | Path,
    objective: str = "time",
    initial_s: Sequence[float] = DEFAULT_INITIAL_S,
    backoffs: Sequence[str] = ("fixed", "doubling"),
    random_factors: Sequence[float] = DEFAULT_RANDOM_FACTORS,
    overrides: Sequence[str] | Mapping[str, Any] | None = None,
    replications: int | None = None,
    workers: int | None = None,
    quick: bool = False,
) -> Tuning:
    """Run every candidate timer on every point of `scenario` (a file or a
    shipped name) and each protocol it runs (`workload.handshake`; for DTLS,
    `dtls.version`), and pick per point the setting minimising `objective`
    ("time": expected time to a completed handshake; "energy": the client's
    expected energy). Raises `TuneError` for a bad option and
    `dtlsim.scenario.ScenarioError` for a bad scenario or override."""
    check_options(objective, initial_s, backoffs, random_factors)
    base = list(_strings(overrides))
    sc = scenarios.load_scenario(scenario, base)
    if sc.workload.kind != "handshakes":
        raise TuneError(
            f"scenario {scenario}: workload.kind = {sc.workload.kind!r}; the tuner needs "
            "'handshakes'"
        )
    parts = []
    for handshake in _handshakes(sc):
        only_this = scenarios.load_scenario(scenario, [*base, f"workload.handshake={handshake}"])
        for extra in candidates(only_this, handshake, initial_s, backoffs, random_factors):
            only = [*base, f"workload.handshake={handshake}", *extra]
            one = scenarios.load_scenario(scenario, only)
            n = runner.replications_of(one, replications, quick)
            if n < 1:
                raise TuneError(f"--replications {n}: allowed 1 or more")
            ran = runner.run(one, None, n, workers)
            parts.append(ran.rows.frame())
    rows = pd.concat(parts, ignore_index=True)
    axes = [a for a in sc.axes() if a != keys.WORKLOAD_HANDSHAKE and a in rows.columns]
    table = summarize(_settings(rows), axes)
    return Tuning(table, best(table, axes, objective), objective, axes)


def _strings(overrides: Sequence[str] | Mapping[str, Any] | None) -> list[str]:
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [f"{k}={v}" for k, v in overrides.items()]
    return list(overrides)


def _handshakes(sc: Scenario) -> list[str]:
    """The handshakes the scenario runs: one, or a sweep axis of several."""
    values = {str(p.get(keys.WORKLOAD_HANDSHAKE) or "dtls") for p in sc.points()}
    return sorted(values)


def _settings(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows with the tuner's setting columns: protocol, back-off, initial timer (s)
    and CoAP's random factor (absent for DTLS)."""
    edhoc = rows[keys.WORKLOAD_HANDSHAKE].astype(str) == "edhoc"
    version = rows[keys.DTLS_VERSION].astype(str) if keys.DTLS_VERSION in rows else "1.2"
    protocol = ("dtls" + pd.Series(version, index=rows.index)).where(~edhoc, "edhoc")
    initial_ms = rows[keys.DTLS_RETRANSMISSION_INITIAL_MS].where(
        ~edhoc, rows[keys.EDHOC_ACK_TIMEOUT_MS]
    )
    return rows.assign(
        protocol=protocol,
        backoff=rows[keys.DTLS_RETRANSMISSION_POLICY].astype(str).where(~edhoc, "coap"),
        initial_s=initial_ms.astype(float) / 1000.0,
        random_factor=rows[keys.EDHOC_ACK_RANDOM_FACTOR].where(edhoc).astype(float),
    )


def summarize(rows: pd.DataFrame, axes: Sequence[str]) -> pd.DataFrame:
    """One row per point and setting: success rate with its Wilson 95 %
    interval, mean and censored time and energy, spurious retransmissions
    per handshake, and the expected time and client energy to a completed
    handshake (module docstring)."""
    by = [*axes, *SETTING]
    out = []
    for key, g in rows.groupby(by, sort=True, dropna=False):
        ok = g[g.success.astype(bool)]
        failed = g[~g.success.astype(bool)]
        p, low, high = proportion_ci95(len(ok), len(g))
        duration = ok.duration_s.mean()
        give_up = failed.give_up_s.mean() if "give_up_s" in g and len(failed) else 0.0
        energy = ok.client_energy_uj.mean()
        energy_failed = failed.client_energy_uj.mean() if len(failed) else 0.0
        out.append(
            dict(zip(by, key, strict=True))
            | {
                "n": len(g),
                "success_rate": p,
                "success_ci_low": low,
                "success_ci_high": high,
                "duration_s": duration,
                "duration_censored_s": g.duration_s.fillna(g.get("give_up_s")).mean(),
                "client_energy_uj": energy,
                "client_energy_censored_uj": g.client_energy_uj.mean(),
                "retransmissions": g.dtls_retransmissions.mean(),
                "spurious_retransmissions": g.spurious_retransmissions.mean(),
                "expected_time_s": _expected(p, duration, give_up),
                "expected_client_energy_uj": _expected(p, energy, energy_failed),
            }
        )
    return pd.DataFrame(out)


def _expected(p: float, success: float, failure: float) -> float:
    """E = success + (1 - p) / p * failure: a geometric count of failures before the success."""
    if p <= 0.0:
        return math.inf
    return float(success + (1.0 - p) / p * failure)


def best(table: pd.DataFrame, axes: Sequence[str], objective: str) -> pd.DataFrame:
    """Per point of the other axes and protocol, the setting minimising `objective`
    (ties: the first in sweep order, so the smaller timer)."""
    column = OBJECTIVES[objective]
    groups = [*axes, "protocol"]
    finite = table[table[column] < math.inf]
    if finite.empty:
        return finite
    index = finite.groupby(groups, sort=True, dropna=False)[column].idxmin()
    return finite.loc[index.values].reset_index(drop=True)
