//! DTLS 1.3 session resumption by ticket (RFC 8446 §4.6.1, §2.2), client
//! and server joined directly: the server's NewSessionTicket after the
//! handshake (acknowledged, RFC 9147 §7), a resumed handshake smaller and
//! cheaper than the full one (psk_dhe_ke and psk_ke), and a ticket that is
//! unknown or expired taking the full handshake instead of ending it, one
//! whose binder fails ending it.

mod common13;

use std::sync::Arc;

use common13::{deliver, settle, IDENTITY, PSK};
use dtls::cert::CertificateType;
use dtls::v13::config::{ClientConfig13, Config13, Credential13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::key_exchange::NamedGroup;
use dtls::v13::messages::PskMode;
use dtls::v13::suite::CipherSuite13;
use dtls::v13::ticket::{Ticket13, TicketStore13};
use dtls::{AlertDescription, CertificateVerifier, Event, Secret, Session};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

const PEER: &str = "[fe80::1]:5684";

fn config() -> Config13 {
    Config13 {
        suites: vec![CipherSuite13::Aes128GcmSha256],
        groups: vec![NamedGroup::Secp256r1],
        certificate_types: vec![CertificateType::X509],
        ..Config13::default()
    }
}

/// A certificate server with the ticket store `store`.
fn cert_server(store: &Arc<TicketStore13>) -> Arc<ServerConfig13> {
    let own = Credential13::self_signed(Secret(vec![3; 32]), "server").unwrap();
    let mut s = ServerConfig13::certificate(config(), own);
    s.require_cookie = false;
    s.tickets = Some(store.clone());
    Arc::new(s)
}

fn cert_client(modes: &[PskMode]) -> Arc<ClientConfig13> {
    let mut c = config();
    c.psk_modes = modes.to_vec();
    Arc::new(ClientConfig13 {
        accept_tickets: true,
        ..ClientConfig13::certificate(c, CertificateVerifier::AcceptAny)
    })
}

/// One handshake at `now`: client (resuming with `ticket` if any) and
/// server, settled (the ticket and its ACK included).
fn connect(
    client: &Arc<ClientConfig13>,
    server: &Arc<ServerConfig13>,
    ticket: Option<&Ticket13>,
    now: u64,
    seed: u64,
) -> (Connection13, Connection13) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut srv =
        Connection13::server(server.clone(), PEER.parse().unwrap(), &mut rng, now).unwrap();
    let mut cli = match ticket {
        Some(t) => Connection13::client_resuming(client.clone(), t, 1000, &mut rng, now),
        None => Connection13::client(client.clone(), &mut rng, now),
    }
    .unwrap();
    settle(&mut cli, &mut srv, now);
    assert!(cli.is_established() && srv.is_established());
    (cli, srv)
}

#[test]
fn the_server_issues_a_ticket_the_client_keeps_and_acknowledges() {
    let store = Arc::new(TicketStore13::new(4, 3600));
    let (cli, srv) = connect(
        &cert_client(&[PskMode::PskDheKe]),
        &cert_server(&store),
        None,
        0,
        1,
    );
    let t = cli.ticket().expect("a ticket");
    assert_eq!(
        (t.lifetime_s, t.suite),
        (3600, CipherSuite13::Aes128GcmSha256)
    );
    assert_eq!(store.len(), 1);
    assert!(!cli.resumed() && !srv.resumed());
    // the ticket was acknowledged: the server resends nothing
    assert!(srv.poll_timeout().is_none(), "{:?}", srv.poll_timeout());
    // a ticket's secret stays out of Debug
    assert!(!format!("{t:?}").contains("psk"));
}

#[test]
fn a_resumed_handshake_is_smaller_and_cheaper_than_a_full_one() {
    let store = Arc::new(TicketStore13::new(4, 3600));
    let server = cert_server(&store);
    // psk_ke: the client still makes a key share (it must be able to go on
    // with a full handshake), but agrees on none: 1 ECDH operation
    for (modes, ecdh_resumed) in [(vec![PskMode::PskDheKe], 2), (vec![PskMode::PskKe], 1)] {
        let client = cert_client(&modes);
        let (full, _) = connect(&client, &server, None, 0, 2);
        let ticket = full.ticket().unwrap().clone();
        let (again, srv) = connect(&client, &server, Some(&ticket), 1_000_000, 3);
        assert!(again.resumed() && srv.resumed(), "{modes:?}");
        let (f, r) = (full.stats(), again.stats());
        assert!(
            r.bytes_received < f.bytes_received / 2,
            "{modes:?}: {} vs {}",
            r.bytes_received,
            f.bytes_received
        );
        assert_eq!(f.crypto.ecdsa_verifies, 1);
        assert_eq!(r.crypto.ecdsa_verifies, 0);
        assert_eq!(f.crypto.ecdh_ops, 2);
        assert_eq!(r.crypto.ecdh_ops, ecdh_resumed, "{modes:?}");
        // the ticket was used up; the resumed connection got a new one
        assert!(again
            .ticket()
            .is_some_and(|t| t.identity != ticket.identity));
    }
}

#[test]
fn an_unknown_expired_or_badly_bound_ticket_gets_a_full_handshake() {
    let client = cert_client(&[PskMode::PskDheKe]);
    // unknown: another server's store
    let store = Arc::new(TicketStore13::new(4, 10));
    let (full, _) = connect(&client, &cert_server(&store), None, 0, 4);
    let ticket = full.ticket().unwrap().clone();
    let other = Arc::new(TicketStore13::new(4, 10));
    let (c, s) = connect(&client, &cert_server(&other), Some(&ticket), 0, 5);
    assert!(!c.resumed() && !s.resumed());
    // expired: 10 s lifetime, offered 11 s later
    let (c, s) = connect(&client, &cert_server(&store), Some(&ticket), 11_000_000, 6);
    assert!(!c.resumed() && !s.resumed());
    assert!(
        store.len() == 1,
        "the expired ticket forgotten, the new one kept"
    );
}

#[test]
fn a_ticket_whose_binder_fails_ends_the_handshake() {
    // RFC 8446 §4.2.11: the server selects the ticket it holds, and when its
    // binder does not verify it MUST abort (decrypt_error), not fall back
    let client = cert_client(&[PskMode::PskDheKe]);
    let store = Arc::new(TicketStore13::new(4, 3600));
    let (full, _) = connect(&client, &cert_server(&store), None, 0, 7);
    let mut wrong = full.ticket().unwrap().clone();
    wrong.psk = Secret(vec![0; 32]);
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let mut srv =
        Connection13::server(cert_server(&store), PEER.parse().unwrap(), &mut rng, 0).unwrap();
    let mut cli = Connection13::client_resuming(client.clone(), &wrong, 1000, &mut rng, 0).unwrap();
    settle(&mut cli, &mut srv, 0);
    assert!(!cli.is_established() && !srv.is_established());
    let received = std::iter::from_fn(|| cli.poll_event()).find_map(|e| match e {
        Event::AlertReceived(a) => Some(a.description),
        _ => None,
    });
    assert_eq!(received, Some(AlertDescription::DecryptError));
    // the honest ticket still resumes afterwards
    let good = full.ticket().unwrap();
    let (c, s) = connect(&client, &cert_server(&store), Some(good), 0, 9);
    assert!(c.resumed() && s.resumed());
}

#[test]
fn an_external_psk_client_offers_its_ticket_first_and_falls_back_to_the_psk() {
    let store = Arc::new(TicketStore13::new(4, 3600));
    let mut s = ServerConfig13::psk(config(), IDENTITY, PSK);
    s.require_cookie = false;
    s.tickets = Some(store.clone());
    let server = Arc::new(s);
    let client = Arc::new(ClientConfig13 {
        accept_tickets: true,
        ..ClientConfig13::psk(config(), IDENTITY, PSK)
    });
    let (full, _) = connect(&client, &server, None, 0, 10);
    let ticket = full.ticket().unwrap().clone();
    let (c, s) = connect(&client, &server, Some(&ticket), 0, 11);
    assert!(c.resumed() && s.resumed());
    // used up: offered again, the external PSK (identity 1) is taken
    let (c, s) = connect(&client, &server, Some(&ticket), 0, 12);
    assert!(!c.resumed() && !s.resumed());
}

#[test]
fn a_client_that_takes_no_tickets_acknowledges_and_ignores_one() {
    let store = Arc::new(TicketStore13::new(4, 3600));
    let client = Arc::new(ClientConfig13::certificate(
        config(),
        CertificateVerifier::AcceptAny,
    ));
    let (c, s) = connect(&client, &cert_server(&store), None, 0, 14);
    assert!(c.ticket().is_none());
    // acknowledged: the server resends nothing
    assert!(s.poll_timeout().is_none(), "{:?}", s.poll_timeout());
}

#[test]
fn a_server_without_tickets_sends_none() {
    let client = Arc::new(ClientConfig13::psk(config(), IDENTITY, PSK));
    let mut s = ServerConfig13::psk(config(), IDENTITY, PSK);
    s.require_cookie = false;
    let (mut c, mut s) = connect(&client, &Arc::new(s), None, 0, 13);
    assert!(c.ticket().is_none());
    assert_eq!(deliver(&mut s, &mut c, 0), 0);
}
