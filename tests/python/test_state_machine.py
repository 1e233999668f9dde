"""Our DTLS 1.2 server's state machine, learned over real UDP on loopback
(AALpy's L*, `dtlsim.statelearn`), has no path RFC 6347 does not allow:
no application data accepted before the handshake completes, no Finished
from the server before the client's ClientKeyExchange, ChangeCipherSpec and
Finished."""

from __future__ import annotations

from dtlsim.statelearn import HANDSHAKE, deviations, learn, mealy_machine

# The alphabet of the test: the handshake's messages and application data
# (the full one, with alerts, is learned for docs/state-machine/).
INPUTS = (*HANDSHAKE, "ApplicationData")


def test_learned_server_has_no_unexpected_path():
    learned = learn(INPUTS, walks_per_state=5, walk_len=5)
    outputs = {s.output_fun[i] for s in learned.model.states for i in INPUTS}
    # the handshake was learned to its end, and echoes after it
    assert "ChangeCipherSpec+Finished" in outputs, outputs
    assert "ApplicationData" in outputs, outputs
    assert learned.states >= 5 and learned.queries < 20_000, learned
    assert deviations(learned.model) == []


def test_the_checks_find_what_they_look_for():
    # a server that echoes before the handshake, and finishes without a ChangeCipherSpec
    bad = mealy_machine(
        {
            "s0": {
                "ClientHello": ("HelloVerifyRequest", "s1"),
                "ChangeCipherSpec": ("TIMEOUT", "s0"),
                "Finished": ("TIMEOUT", "s0"),
                "ApplicationData": ("ApplicationData", "s0"),
            },
            "s1": {
                "ClientHello": ("ServerHello+ServerHelloDone", "s2"),
                "ChangeCipherSpec": ("TIMEOUT", "s1"),
                "Finished": ("TIMEOUT", "s1"),
                "ApplicationData": ("TIMEOUT", "s1"),
            },
            "s2": {
                "ClientHello": ("TIMEOUT", "s2"),
                "ChangeCipherSpec": ("TIMEOUT", "s2"),
                "Finished": ("ChangeCipherSpec+Finished", "s2"),
                "ApplicationData": ("TIMEOUT", "s2"),
            },
        }
    )
    found = deviations(bad)
    assert any(f.startswith("application data before") for f in found), found
    assert any("ClientHello ClientHello Finished →" in f for f in found), found
