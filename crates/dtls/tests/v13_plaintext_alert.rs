//! A plaintext (epoch 0) alert does not end an established DTLS 1.3
//! session: after the handshake every alert is protected, so an
//! unprotected one can come from anyone who spoofs the peer's address.
//! Found by learning the server's state machine (docs/robustness.md).

mod common13;

use dtls::v13::config::Config13;
use dtls::Event;
use dtls::Session;

/// A DTLSPlaintext record (RFC 9147 §4): alert(21), legacy version
/// {254, 253}, epoch 0, sequence number `seq`, length 2, fatal(2)
/// `description`.
fn plaintext_alert(seq: u8, description: u8) -> Vec<u8> {
    vec![
        21,
        0xFE,
        0xFD,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        seq,
        0,
        2,
        2,
        description,
    ]
}

#[test]
fn a_plaintext_fatal_alert_is_dropped_once_established() {
    let (mut cli, mut srv, _) = common13::handshake(Config13::default(), Config13::default());
    while cli.poll_event().is_some() {}
    while srv.poll_event().is_some() {}
    // handshake_failure(40), to each side
    srv.handle_datagram(1, &plaintext_alert(9, 40));
    cli.handle_datagram(1, &plaintext_alert(9, 40));
    assert!(srv.is_established() && cli.is_established());
    let events: Vec<Event> = std::iter::from_fn(|| srv.poll_event())
        .chain(std::iter::from_fn(|| cli.poll_event()))
        .collect();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::AlertReceived(_) | Event::Failed(_))),
        "{events:?}"
    );
    // the session still carries data both ways
    cli.send(b"still here").unwrap();
    while let Some(d) = cli.poll_transmit(2) {
        srv.handle_datagram(2, &d);
    }
    assert!(std::iter::from_fn(|| srv.poll_event())
        .any(|e| matches!(e, Event::ApplicationData(ref d) if d == b"still here")));
}
