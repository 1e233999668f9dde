"""Our DTLS 1.3 server's state machine, learned over real UDP on loopback
(AALpy's L*, `dtlsim.statelearn` with the 1.3 mapper), has no path RFC 9147
does not allow: no application data before the client's Finished, and no
record the client protected in epoch 3 before its Finished accepted."""

from __future__ import annotations

from dtlsim.statelearn import INPUTS13, deviations13, learn, mealy_machine


def test_learned_dtls13_server_has_no_unexpected_path():
    learned = learn(INPUTS13, walks_per_state=5, walk_len=5, dtls13=True)
    outputs = {s.output_fun[i] for s in learned.model.states for i in INPUTS13}
    # the handshake was learned to its end (cookie exchange, the server's
    # flight, the client's Finished acknowledged), and echoes after it
    assert "HelloRetryRequest" in outputs, outputs
    assert any(o.startswith("ServerHello+EncryptedFlight") for o in outputs), outputs
    assert "ApplicationData" in outputs, outputs
    assert learned.states >= 4 and learned.queries < 20_000, learned
    assert deviations13(learned.model) == []


def test_the_dtls13_checks_find_what_they_look_for():
    # a server that echoes before the client's Finished (an early epoch-3
    # record read once the Finished arrives is allowed: the server keeps
    # the client's data sent after a Finished that was lost or overtaken)
    bad = mealy_machine(
        {
            "s0": {
                "ClientHelloCookie": ("ServerHello+EncryptedFlight", "s1"),
                "Finished": ("TIMEOUT", "s0"),
                "ApplicationData": ("TIMEOUT", "s0"),
            },
            "s1": {
                "ClientHelloCookie": ("TIMEOUT", "s1"),
                "Finished": ("Epoch3", "s2"),
                "ApplicationData": ("ApplicationData", "s3"),
            },
            "s2": {
                "ClientHelloCookie": ("TIMEOUT", "s2"),
                "Finished": ("TIMEOUT", "s2"),
                "ApplicationData": ("ApplicationData", "s2"),
            },
            "s3": {
                "ClientHelloCookie": ("TIMEOUT", "s3"),
                "Finished": ("Epoch3+ApplicationData", "s2"),
                "ApplicationData": ("TIMEOUT", "s3"),
            },
        }
    )
    found = deviations13(bad)
    assert any(f.startswith("application data before the client's Finished") for f in found), found
    good = mealy_machine({
        "s0": {"ClientHelloCookie": ("ServerHello+EncryptedFlight", "s1"),
               "Finished": ("TIMEOUT", "s0"), "ApplicationData": ("TIMEOUT", "s0")},
        "s1": {"ClientHelloCookie": ("TIMEOUT", "s1"),
               "Finished": ("Epoch3", "s2"), "ApplicationData": ("TIMEOUT", "s1")},
        "s2": {"ClientHelloCookie": ("TIMEOUT", "s2"),
               "Finished": ("TIMEOUT", "s2"), "ApplicationData": ("ApplicationData", "s2")},
    })  # fmt: skip
    assert deviations13(good) == []


def test_the_dtls13_checks_find_a_forged_record_ending_the_session():
    # an established session (it echoes) that a plaintext ServerHello ends
    bad = mealy_machine({
        "s0": {"Finished": ("Epoch3", "s1"), "ApplicationData": ("TIMEOUT", "s0"),
               "ServerHello": ("TIMEOUT", "s0")},
        "s1": {"Finished": ("TIMEOUT", "s1"), "ApplicationData": ("ApplicationData", "s1"),
               "ServerHello": ("Alert(encrypted,10)", "s2")},
        "s2": {"Finished": ("TIMEOUT", "s2"), "ApplicationData": ("TIMEOUT", "s2"),
               "ServerHello": ("TIMEOUT", "s2")},
    })  # fmt: skip
    found = deviations13(bad)
    assert any(f.startswith("an unauthenticated record ended the session") for f in found), found
    # the same machine ignoring it has no such path
    good = mealy_machine({
        "s0": {"Finished": ("Epoch3", "s1"), "ApplicationData": ("TIMEOUT", "s0"),
               "ServerHello": ("TIMEOUT", "s0")},
        "s1": {"Finished": ("TIMEOUT", "s1"), "ApplicationData": ("ApplicationData", "s1"),
               "ServerHello": ("TIMEOUT", "s1")},
    })  # fmt: skip
    assert not any(f.startswith("an unauthenticated") for f in deviations13(good))
