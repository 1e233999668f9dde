//! tshark decodes our DTLS 1.3 ClientHello and our server's
//! HelloRetryRequest (RFC 9147 §5.1): datagrams caught on loopback and
//! written to a pcap.

mod common;

use std::net::UdpSocket;
use std::time::Duration;

use common::*;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls_udp::{run_client13, ClientOptions13, StopCondition};

#[test]
fn tshark_decodes_our_dtls13_client_hello_and_hello_retry_request() {
    if !have_tshark() {
        return;
    }
    // our client's first datagram, caught by a plain socket
    let sink = UdpSocket::bind("127.0.0.1:0").unwrap();
    sink.set_read_timeout(Some(OUTPUT_TIMEOUT)).unwrap();
    let config = Config13 {
        cid_len: Some(2),
        ..Config13::psk_ccm8()
    };
    let mut opts = ClientOptions13::new(
        sink.local_addr().unwrap(),
        ClientConfig13::psk(config.clone(), IDENTITY, PSK),
    );
    opts.handshake_timeout = Duration::from_millis(300);
    opts.seed = Some(1351);
    let client = std::thread::spawn(move || run_client13(&opts));
    let mut buf = vec![0u8; 65536];
    let n = sink.recv(&mut buf).expect("our ClientHello");
    let hello = buf[..n].to_vec();
    assert!(client.join().unwrap().is_err(), "nobody answered");

    // the same hello to our server, which answers with a HelloRetryRequest
    let stop = StopCondition {
        max_duration: Some(Duration::from_secs(2)),
        ..StopCondition::default()
    };
    let (port, server) = our_server(ServerConfig13::psk(config, IDENTITY, PSK), 1352, stop);
    sink.send_to(&hello, common::addr(port)).unwrap();
    let n = sink.recv(&mut buf).expect("our HelloRetryRequest");
    let hrr = buf[..n].to_vec();
    assert_eq!(server.join().unwrap().endpoint.hello_retry_requests, 1);

    assert_tshark_shows(
        "ours-ch13",
        &[hello, hrr],
        &[
            "Handshake Type: Client Hello (1)",
            "Cipher Suite: TLS_AES_128_CCM_8_SHA256 (0x1305)",
            "(0xfefc)", // DTLS 1.3 in supported_versions (tshark 4.0 has no name for it)
            "Extension: pre_shared_key",
            "Extension: psk_key_exchange_modes",
            "Extension: connection_id",
            "Handshake Type: Server Hello (2)", // a HelloRetryRequest is a ServerHello
            "Extension: cookie",
        ],
    );
}
