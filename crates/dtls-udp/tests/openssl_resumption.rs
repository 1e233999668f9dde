//! Session resumption by session ID (RFC 5246 §7.3) with OpenSSL 3.0 over
//! UDP on 127.0.0.1: `s_client` saves the session our server gave it
//! (`-sess_out`), comes back with it (`-sess_in`) and OpenSSL reports the
//! session reused; our server ran the abbreviated handshake (no key
//! exchange: fewer hash operations, fewer bytes).

mod common;

use common::*;
use dtls::{CipherSuite, ServerConfig};

#[test]
fn openssl_client_resumes_a_session_of_our_server() {
    if !have_openssl() {
        return;
    }
    let mut config = ServerConfig::psk(only(CipherSuite::PskAes128Ccm8), IDENTITY, PSK);
    config.session_cache = 4;
    let (port, h) = our_server(config, 11, stop_after_messages(20, 2));
    let dir = TempDir::new("resume");
    let sess = dir.path("session.pem");
    let psk = [
        "-psk",
        PSK_HEX,
        "-psk_identity",
        "Client_identity",
        "-cipher",
        "PSK-AES128-CCM8",
    ];
    let mut first_args = psk.to_vec();
    first_args.extend(["-sess_out", sess.as_str()]);
    let mut first = s_client(addr(port), &first_args);
    first.write("first\n");
    first.assert_sees("first");
    first.assert_sees("New, TLSv1.2");
    drop(first);
    let mut second_args = psk.to_vec();
    second_args.extend(["-sess_in", sess.as_str()]);
    let mut second = s_client(addr(port), &second_args);
    second.write("second\n");
    second.assert_sees("Reused, TLSv1.2");
    let report = h.join().unwrap();
    assert_eq!(
        report.handshakes.len(),
        2,
        "{report:?}\n{}",
        second.output()
    );
    assert_eq!(report.received.first.len(), 2);
    let (full, resumed) = (&report.handshakes[0].stats, &report.handshakes[1].stats);
    // no premaster or master secret derived: fewer SHA-256 compressions
    assert!(
        resumed.crypto.sha256_compressions < full.crypto.sha256_compressions,
        "{} vs {}",
        resumed.crypto.sha256_compressions,
        full.crypto.sha256_compressions
    );
    eprintln!(
        "full: {} B sent, {} B received; resumed: {} B sent, {} B received",
        full.bytes_sent, full.bytes_received, resumed.bytes_sent, resumed.bytes_received
    );
}
