"""`dtlsim tune`: which retransmission timer suits a network, tried on
every point of a scenario."""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer

from dtlsim.cli.common import (
    Json,
    Quick,
    ScenarioFile,
    Workers,
    emit_json,
    fail,
    float_list,
    interrupted,
    show,
)
from dtlsim.problems import FileError


def tune_cmd(
    scenario: ScenarioFile,
    objective: Annotated[
        str,
        typer.Option(
            help="What the chosen setting minimises: 'time' (expected time to a completed "
            "handshake, failures started again) or 'energy' (the client's expected energy)."
        ),
    ] = "time",
    initial: Annotated[
        str,
        typer.Option(
            help="Initial retransmission timers to try, in seconds (DTLS initial_ms, CoAP "
            "ACK_TIMEOUT for EDHOC)."
        ),
    ] = "1,2,5,9,20",
    backoff: Annotated[
        str,
        typer.Option(
            help="DTLS back-offs to try: fixed, doubling (RFC 6347 section 4.2.4), tinydtls. "
            "EDHOC's CoAP always doubles (RFC 7252 section 4.2)."
        ),
    ] = "fixed,doubling",
    random_factor: Annotated[
        str, typer.Option(help="CoAP ACK_RANDOM_FACTOR values to try for EDHOC (RFC 7252: 1.5).")
    ] = "1.5",
    replications: Annotated[
        int | None, typer.Option(help="Replications per candidate (default: the scenario's).")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Override key.path=value in the scenario before tuning."),
    ] = None,
    workers: Workers = None,
    quick: Quick = False,
    as_json: Json = False,
) -> None:
    """Which retransmission timer suits this network: every candidate initial
    timer and back-off per protocol on every point of the scenario, with
    handshake time (mean and censored), spurious retransmissions, energy,
    success (Wilson interval), and the setting that minimises the objective."""
    from dtlsim.tuner import TuneError, tune

    initial_s = float_list(initial, "--initial")
    factors = float_list(random_factor, "--random-factor")
    backoffs = [b.strip() for b in backoff.split(",") if b.strip()]
    try:
        result = tune(
            scenario,
            objective,
            initial_s,
            backoffs,
            factors,
            overrides=list(set_ or []),
            replications=replications,
            workers=workers,
            quick=quick,
        )
    except KeyboardInterrupt:
        interrupted("nothing of the tuning is kept; run it again")
    except (TuneError, FileError, ValueError, OSError) as e:
        fail(str(e))
    if as_json:
        emit_json({
            "objective": result.objective,
            "candidates": result.table.to_dict(orient="records"),
            "best": result.best.to_dict(orient="records"),
        })  # fmt: skip
        return
    show(
        "Retransmission timers: per candidate, means over handshakes",
        _tune_rows(result.table, result.axes),
        caption="success: Wilson 95 % interval; time: over successes; censored: failures at "
        "their give-up time; expected: failures started again until one succeeds; spurious: the "
        "client's timer fired with nothing lost since its last firing; energy: the client's",
    )
    show(f"Best setting for {result.objective}", _tune_rows(result.best, result.axes))


def _tune_rows(table: Any, axes: list[str]) -> list[dict[str, Any]]:
    """The tuner's rows as a narrow table (every column is in `--json`)."""
    rows = []
    for r in table.to_dict(orient="records"):
        row = {a: r[a] for a in axes}
        row |= {"protocol": r["protocol"], "backoff": r["backoff"], "initial_s": r["initial_s"]}
        if r["protocol"] == "edhoc":
            row["backoff"] = f"coap x{r['random_factor']:g}"
        row |= {
            "success": f"{r['success_rate']:.2f} [{r['success_ci_low']:.2f}, "
            f"{r['success_ci_high']:.2f}]",
            "time_s": r["duration_s"],
            "censored_s": r["duration_censored_s"],
            "spurious": r["spurious_retransmissions"],
            "resent": r["retransmissions"],
            "energy_mj": r["client_energy_uj"] / 1000.0,
            "expected_s": r["expected_time_s"],
            "expected_mj": r["expected_client_energy_uj"] / 1000.0,
        }
        rows.append({k: None if isinstance(v, float) and math.isnan(v) else v
                     for k, v in row.items()})  # fmt: skip
    return rows
