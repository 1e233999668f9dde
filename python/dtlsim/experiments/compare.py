"""Experiments 1–3 side by side: for each TSCH schedule (L = 101, C cells per
link), the X-MAC check interval and the beacon-enabled configuration whose
handshakes take about as long."""

from __future__ import annotations

import pandas as pd

from dtlsim import keys
from dtlsim.experiments.base import ExperimentResult, Table

# The id of the side-by-side page: a comparison of runs, not a run of its own.
COMPARISON_ID = "compare-1-3"

HOPS, PDR = keys.TOPOLOGY_HOPS, keys.TOPOLOGY_PDR

SUMMARY = """\
The same DTLS 1.2 PSK-AES128-CCM-8 handshake (the same stack) over the three
duty-cycled MACs, at link PDR 100 % and the same number of hops:

* TSCH with L = 101 slots of 10 ms and C = 1, 2, 3 dedicated cells per link
  (experiment 3, real handshakes, no link-layer security);
* the X-MAC check interval (experiment 1) whose mean handshake duration is
  closest;
* the beacon interval / CAP (experiment 2) whose mean handshake duration is
  closest.

Durations compare directly. Energies are each experiment's own platform:
WiSMote for X-MAC, GreenNet for beacon-enabled, OpenMote-CC2538 for TSCH.
The experiments' DTLS settings differ too:

* X-MAC: one record per datagram, tinyDTLS's timer from 2 s;
* beacon: one record per datagram, tinyDTLS's timer from 40 s;
* TSCH: packed flights, 64-byte handshake fragments, 5 s timer.

So read energy as what each configuration costs on its own hardware, not as
a MAC-only comparison.
"""


def _source(results: list[ExperimentResult], name: str) -> ExperimentResult | None:
    """The experiment that produced the table `name`."""
    return next((r for r in results if any(t.name == name for t in r.tables)), None)


def _table(result: ExperimentResult, name: str) -> pd.DataFrame:
    return next(t.frame for t in result.tables if t.name == name)


def _closest(candidates: pd.DataFrame, duration: float) -> pd.Series | None:
    """The configuration of closest mean duration among those with enough successes."""
    ok = candidates[candidates.duration_s_mean.notna() & ~candidates.few_successes.astype(bool)]
    if ok.empty:
        return None
    return ok.loc[(ok.duration_s_mean - duration).abs().idxmin()]


def _outcome(mac: str, point: pd.Series) -> dict[str, float]:
    """Success rate, its Wilson interval and n of the point a mean came from."""
    names = ("success_rate", "success_ci_low", "success_ci_high", "n_rows")
    return {f"{mac}_{n}": point[n] for n in names}


def side_by_side(results: list[ExperimentResult]) -> ExperimentResult | None:
    """None unless experiments 1, 2 and 3 (DTLS over TSCH) all ran."""
    names = ("exp1_xmac", "exp2_beacon", "exp3_tsch_dtls")
    sources = [_source(results, n) for n in names]
    if any(r is None for r in sources):
        return None
    xmac, beacon, tsch = (_table(r, n) for r, n in zip(sources, names, strict=True))
    tsch = tsch[(tsch[PDR] == 1.0) & (tsch[keys.LINK_SECURITY_LEVEL] == "none")]
    rows = []
    for _, t in tsch.sort_values([keys.MAC_TSCH_CELLS_PER_LINK, HOPS]).iterrows():
        hops, d = t[HOPS], t.duration_s_mean
        if pd.isna(d) or t.few_successes:
            continue
        row = {
            "hops": hops,
            "tsch_cells_per_link": t[keys.MAC_TSCH_CELLS_PER_LINK],
            "tsch_duration_s": d,
            "tsch_client_energy_mj": t.client_energy_uj_mean / 1e3,
        } | _outcome("tsch", t)
        b = _closest(beacon[(beacon[HOPS] == hops) & (beacon[PDR] == 1.0)], d)
        if b is not None:
            row |= {
                "beacon_bi_s": b.bi_s,
                "beacon_cap_ms": b.cap_ms,
                "beacon_duration_s": b.duration_s_mean,
                "beacon_client_energy_mj": b.client_energy_uj_mean / 1e3,
            } | _outcome("beacon", b)
        x = _closest(xmac[(xmac[HOPS] == hops) & (xmac[PDR] == 1.0)], d)
        if x is not None:
            row |= {
                "xmac_check_interval_ms": x[keys.MAC_XMAC_CHECK_INTERVAL_MS],
                "xmac_duration_s": x.duration_s_mean,
                "xmac_client_energy_mj": x.client_energy_uj_mean / 1e3,
            } | _outcome("xmac", x)
        rows.append(row)
    return ExperimentResult(
        id=COMPARISON_ID,
        title="Experiments 1–3 side by side: X-MAC, beacon-enabled and TSCH",
        reference="vucinic2015: handshake duration over preamble sampling, beacon-enabled "
        "IEEE 802.15.4 and TSCH, compared",
        summary=SUMMARY,
        tables=[
            Table(
                "compare_1_3",
                "Configurations of closest mean handshake duration, PDR 100 %",
                pd.DataFrame(rows),
                "Each MAC's duration and energy is the mean over its successful handshakes, "
                "beside that point's success rate (Wilson 95 % interval) and runs; only "
                "points with enough successes are matched. See the experiments' own "
                "tables for the intervals of the means.",
            )
        ],
        seeds=[seed for r in sources for seed in r.seeds],
    )
