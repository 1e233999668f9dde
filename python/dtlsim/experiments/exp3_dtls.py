"""Experiment 3, beyond the closed form: real DTLS handshakes over TSCH."""

from __future__ import annotations

from pathlib import Path

from dtlsim import keys
from dtlsim.experiments import cooja_ng, display, style
from dtlsim.experiments.base import ExperimentResult, Figure, Table
from dtlsim.runner import replications_of, run_scenario
from dtlsim.scenario import Scenario

HOPS, PDR, CELLS, LEVEL = (
    keys.TOPOLOGY_HOPS,
    keys.TOPOLOGY_PDR,
    keys.MAC_TSCH_CELLS_PER_LINK,
    (keys.LINK_SECURITY_LEVEL),
)

SUMMARY = """\
Real DTLS 1.2 PSK-AES128-CCM-8 handshakes (packed flights, handshake
fragments of at most 64 bytes) over simulated TSCH with L = 101: what the
closed form's "10 frames" hides.

* A flight larger than one frame is cut by 6LoWPAN into fragments.
* With C = 1 each fragment waits for the link's one cell per slotframe. So a
  flight of n frames takes about n slotframes per hop.
* Lossy links add retries in later slotframes.
* Link-layer security (ENC-MIC-32) takes 10 bytes of every frame (more
  fragments) and CPU time inside the timeslot.
* When a flight outlasts the DTLS timer (5 s at first, doubling), the stack
  retransmits spuriously. The retransmissions queue behind the originals;
  the datagram counts show it.
"""


def run(scenario: Scenario, quick: bool = False, work: Path | None = None) -> ExperimentResult:
    out = (work or Path("results")) / scenario.experiment.id
    reps = replications_of(scenario, None, quick)
    _, summary = run_scenario(scenario, out, reps)
    metrics = [
        "duration_s", "client_datagrams_sent", "dtls_retransmissions", "client_energy_uj",
        "energy_total_uj",
    ]  # fmt: skip
    table = summary[display.columns(summary, [HOPS, PDR, CELLS, LEVEL], metrics)].sort_values(
        [CELLS, LEVEL, PDR, HOPS]
    )
    cells = sorted(table[CELLS].unique())
    fig, axes = style.subplots(len(cells), sharey=True)
    for ax, c in zip(axes, cells, strict=True):
        pdrs = sorted(table[PDR].unique())
        for (level, pdr), sub in table[table[CELLS] == c].groupby([LEVEL, PDR]):
            i = pdrs.index(pdr)  # colour and marker: the PDR; line: link security
            display.errorbar(
                ax,
                sub.assign(x=sub[HOPS] + (0.05 if level != "none" else 0.0)),
                "x",
                "duration_s",
                1.0,
                f"PDR {pdr:.0%}, link security {level}",
                ls="-" if level == "none" else "--",
                color=style.COLOURS[i],
                marker=style.MARKERS[i],
            )
        ax.set_title(f"C = {c} cell(s) per link, L = 101")
        ax.set_xlabel("hops")
        style.count_axis(ax)
    axes[0].set_ylabel("handshake duration (s)")
    style.legend(fig)
    # "Cooja-NG, same firmware": the oracle's set-ups, beside its logs
    ng_tables, ng_checks = cooja_ng.compare(quick, out.with_name(f"{out.name}-cooja-ng"))
    return ExperimentResult.for_scenario(
        scenario,
        SUMMARY + "\n" + cooja_ng.SUMMARY,
        tables=[
            Table(
                "exp3_tsch_dtls",
                "DTLS handshakes over TSCH",
                table,
                f"{reps} replications per point; full rows in {out}/results.parquet.",
            ),
            *ng_tables,
        ],
        checks=ng_checks,
        figures=[
            Figure(
                "exp3_dtls_duration_vs_hops",
                "DTLS handshake over TSCH",
                fig,
                "Mean over successful handshakes and 95 % CI. " + display.FEW_NOTE,
            )
        ],
    )
