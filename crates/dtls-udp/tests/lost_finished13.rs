//! Our DTLS 1.3 client and server over a loopback relay that loses the
//! client's third datagram, its Finished (experiment 7's
//! loss table showed `echo_returned = False` for both 1.3 rows of that
//! position). The client sends its data right after its Finished; the
//! server, still waiting for the Finished, now keeps the epoch-3 record
//! until the client's timer resends the Finished, and echoes it.

mod common;
mod common13;

use std::time::Duration;

use common::*;
use common13::*;

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls_udp::{run_client13, ClientOptions13};

#[test]
fn the_first_data_of_a_client_whose_finished_was_lost_is_echoed() {
    let config = ServerConfig13::psk(Config13::psk_ccm8(), b"id", &[3; 16]);
    let (port, server) = our_server(config, 7, stop_after_one_session(10));
    let relay = drop_nth_relay(addr(port), Direction::ClientToServer, 3);
    let client = ClientConfig13::psk(Config13::psk_ccm8(), b"id", &[3; 16]);
    let mut opts = ClientOptions13::new(relay.addr, client);
    opts.messages = vec![b"after a lost Finished".to_vec()];
    opts.expect_replies = 1;
    opts.seed = Some(8);
    opts.handshake_timeout = Duration::from_secs(6);
    let report = run_client13(&opts);
    assert_eq!(relay.dropped(), 1);
    let report = report.expect("the client completes");
    assert_eq!(
        report.received,
        vec![b"after a lost Finished".to_vec()],
        "{report:?}"
    );
    let s = server.join().unwrap();
    assert_eq!(s.handshakes.len(), 1);
}
