//! DTLS 1.3 session resumption by ticket over real UDP on loopback, our
//! client and server (RFC 8446 §4.6.1, §2.2): the client waits for the
//! server's ticket, offers it next time, and the resumed handshake takes
//! fewer bytes and public-key operations than the full one; a ticket the
//! server no longer holds gets the full handshake.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{addr, our_server};
use dtls::v13::config::{ClientConfig13, Config13, Credential13, ServerConfig13};
use dtls::v13::key_exchange::NamedGroup;
use dtls::v13::suite::CipherSuite13;
use dtls::v13::ticket::TicketStore13;
use dtls::{CertificateVerifier, Secret};
use dtls_udp::{run_client13, ClientOptions13, ClientReport13, SavedTicket, StopCondition};

/// The suite and group of this test; X.509 certificates.
fn config() -> Config13 {
    Config13 {
        suites: vec![CipherSuite13::Aes128GcmSha256],
        groups: vec![NamedGroup::Secp256r1],
        ..Config13::default()
    }
}

fn server_config(store: &Arc<TicketStore13>) -> ServerConfig13 {
    let own = Credential13::self_signed(Secret(vec![3; 32]), "server").unwrap();
    ServerConfig13 {
        tickets: Some(store.clone()),
        ..ServerConfig13::certificate(config(), own)
    }
}

fn client(port: u16, resume: Option<SavedTicket>, seed: u64) -> ClientReport13 {
    let mut opts = ClientOptions13::new(
        addr(port),
        ClientConfig13 {
            accept_tickets: true,
            ..ClientConfig13::certificate(config(), CertificateVerifier::AcceptAny)
        },
    );
    opts.resume = resume;
    opts.keep_session = true;
    opts.seed = Some(seed);
    run_client13(&opts).expect("handshake and echo")
}

fn stop(sessions: usize) -> StopCondition {
    StopCondition {
        max_duration: Some(Duration::from_secs(20)),
        after_sessions_ended: Some(sessions),
        ..StopCondition::default()
    }
}

#[test]
fn a_resumed_handshake_over_udp_is_smaller_and_cheaper() {
    let store = Arc::new(TicketStore13::new(8, 3600));
    let (port, server) = our_server(server_config(&store), 1, stop(2));
    let full = client(port, None, 1);
    let ticket = full.resumable.clone().expect("the server's ticket");
    let resumed = client(port, Some(ticket), 2);
    let report = server.join().unwrap();
    assert!(!full.resumed && resumed.resumed, "{resumed:?}");
    let resumed_on_server: Vec<bool> = report.handshakes.iter().map(|h| h.resumed).collect();
    assert_eq!(resumed_on_server, [false, true]);
    let line = |r: &ClientReport13| {
        format!(
            "{}+{} datagrams, {}+{} B, {} ECDH, {} ECDSA verify",
            r.handshake_datagrams_sent,
            r.handshake_datagrams_received,
            r.handshake_bytes_sent,
            r.handshake_bytes_received,
            r.stats.crypto.ecdh_ops,
            r.stats.crypto.ecdsa_verifies
        )
    };
    eprintln!("full:    {}\nresumed: {}", line(&full), line(&resumed));
    // the server's flight loses its Certificate and CertificateVerify
    // (under half the bytes); the client's hellos gain the ticket's
    // identity and binder, the whole handshake still shrinks
    let (r, f) = (line(&resumed), line(&full));
    assert!(
        resumed.handshake_bytes_received * 2 < full.handshake_bytes_received,
        "{r} vs {f}"
    );
    let bytes = |r: &ClientReport13| r.handshake_bytes_sent + r.handshake_bytes_received;
    assert!(bytes(&resumed) < bytes(&full), "{r} vs {f}");
    let signs: Vec<u64> = report
        .handshakes
        .iter()
        .map(|h| h.stats.crypto.ecdsa_signs)
        .collect();
    assert_eq!(signs, [1, 0]);
    assert_eq!(full.stats.crypto.ecdsa_verifies, 1);
    assert_eq!(resumed.stats.crypto.ecdsa_verifies, 0);
    // psk_dhe_ke: the same ECDHE, forward secret (RFC 8446 §2.2)
    assert_eq!(resumed.stats.crypto.ecdh_ops, full.stats.crypto.ecdh_ops);
    // the resumed session got a new ticket (each is used once)
    assert!(resumed.resumable.is_some());
}

#[test]
fn a_ticket_the_server_does_not_hold_gets_a_full_handshake_over_udp() {
    let store = Arc::new(TicketStore13::new(8, 3600));
    let (port, server) = our_server(server_config(&store), 3, stop(1));
    let full = client(port, None, 3);
    server.join().unwrap();
    // a restarted server: a new, empty store
    let store = Arc::new(TicketStore13::new(8, 3600));
    let (port, server) = our_server(server_config(&store), 4, stop(1));
    let again = client(port, full.resumable.clone(), 4);
    let report = server.join().unwrap();
    assert!(!again.resumed && !report.handshakes[0].resumed);
    assert!(report.failures.is_empty(), "{:?}", report.failures);
}
