"""Same seed, same result, bit for bit, where many sessions share an instant.

A DTLS server holding many sessions runs every timer due at one instant; the
order it visits them in decides the order its datagrams go out, and so the
whole run. That order once came from a hash map whose seed changes from
process to process (and from map to map): experiment 4's half-open attack
gave different figures on two runs of the same build. Each run here is a
fresh directory, so nothing is read back from an earlier one.
"""

from __future__ import annotations

import pandas as pd

from dtlsim import keys
from dtlsim.experiments import exp4_real
from dtlsim.runner import run_scenario
from dtlsim.scenario import load_scenario


def _attack_rows(out) -> pd.DataFrame:
    scenario = exp4_real._real(
        load_scenario("exp4-sessions"),
        {
            "mac": {"kind": "csma"},
            keys.SESSIONS_POLICY: exp4_real.POLICIES,
            keys.SESSIONS_ATTACKERS: exp4_real.ATTACKERS,
            keys.SESSIONS_ATTACK_INTERVAL_S: exp4_real.ATTACK_INTERVAL_S,
        },
    )
    rows, _ = run_scenario(scenario, out, 3)
    frame = rows.frame()
    return frame.drop(columns=[c for c in frame.columns if "wall" in c])


def test_a_flooded_servers_runs_repeat_bit_for_bit(tmp_path):
    runs = [_attack_rows(tmp_path / f"run-{i}") for i in range(3)]
    # the attack must make the server juggle sessions, or this proves nothing
    assert (runs[0]["attacker_slot_decisions"] > 0).all()
    for other in runs[1:]:
        pd.testing.assert_frame_equal(runs[0], other, check_exact=True)
