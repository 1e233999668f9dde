//! DTLS 1.3 helpers for the wolfSSL interop tests (`mod common; mod
//! common13;` in each `wolfssl_13_*` file): our 1.3 client and server on
//! loopback, the wolfSSL peers in 1.3 mode, record counts by message kind,
//! and a relay that drops chosen datagrams.
#![allow(dead_code)]

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dtls::v13::config::ClientConfig13;
use dtls::{MessageKind, Stats};
use dtls_udp::{run_client13, ClientOptions13, ClientReport13, StopCondition};

use crate::common::{assert_wolfssl_sees, wolfssl_client, wolfssl_server, Peer, PSK_HEX};

/// wolfSSL's names of the TLS 1.3 suites we test.
pub const WOLF_CCM8: &str = "TLS13-AES128-CCM-8-SHA256";
pub const WOLF_GCM: &str = "TLS13-AES128-GCM-SHA256";

/// HandshakeType values (RFC 8446 §4): a HelloRetryRequest is a
/// ServerHello on the wire.
pub const CLIENT_HELLO: u8 = 1;
pub const SERVER_HELLO: u8 = 2;

/// Records of one kind a connection sent or received.
pub fn records(counts: &dtls::ByteCounts, kind: MessageKind) -> u64 {
    counts
        .iter()
        .find(|e| e.0 == kind)
        .map_or(0, |(_, _, records)| records)
}

/// ClientHellos a client sent: 2 after a HelloRetryRequest, 1 without.
pub fn client_hellos_sent(stats: &Stats) -> u64 {
    records(&stats.sent, MessageKind::Handshake(CLIENT_HELLO))
}

/// Our 1.3 client with `config` to `server`: sends `ping`, expects it
/// echoed, closes.
pub fn our_client13(
    server: SocketAddr,
    config: ClientConfig13,
    seed: u64,
    ping: &str,
) -> ClientReport13 {
    let mut opts = ClientOptions13::new(server, config);
    opts.messages = vec![ping.as_bytes().to_vec()];
    opts.expect_replies = 1;
    opts.seed = Some(seed);
    let report = run_client13(&opts).expect("DTLS 1.3 handshake with the wolfSSL server");
    assert_eq!(
        report.received,
        vec![ping.as_bytes().to_vec()],
        "{report:?}"
    );
    report
}

/// The wolfSSL 1.3 server for one session with `args`, echoing.
pub fn wolfssl_server13(args: &[&str]) -> (Peer, u16) {
    let mut all = vec!["--sessions", "1", "--duration", "15"];
    all.extend_from_slice(args);
    wolfssl_server("1.3", &all)
}

/// The wolfSSL 1.3 client to 127.0.0.1:`port` with `args`, sending `ping`.
pub fn wolfssl_client13(connect: SocketAddr, ping: &str, args: &[&str]) -> Peer {
    let mut all = vec!["--send", ping, "--duration", "10"];
    all.extend_from_slice(args);
    wolfssl_client("1.3", connect, &all)
}

/// wolfSSL's arguments for the test PSK offering `cipher`.
pub fn wolf_psk(cipher: &str) -> Vec<&str> {
    vec!["--cipher", cipher, "--psk", PSK_HEX]
}

/// The wolfSSL client sent `ping` to our server through a full 1.3
/// handshake on `wolf_cipher` and got the echo back.
pub fn assert_wolfssl_client_done(cli: &mut Peer, wolf_cipher: &str, ping: &str) {
    assert_eq!(
        cli.wait_exit(Duration::from_secs(12)),
        Some(0),
        "{}",
        cli.output()
    );
    assert_wolfssl_sees(
        cli,
        &format!("handshake version=DTLSv1.3 cipher={wolf_cipher}"),
    );
    assert_wolfssl_sees(cli, &format!("echo bytes={} text={ping}", ping.len()));
}

/// The wolfSSL server finished a 1.3 handshake on `wolf_cipher` and
/// received `ping`.
pub fn assert_wolfssl_server_served(srv: &Peer, wolf_cipher: &str, ping: &str) {
    assert_wolfssl_sees(
        srv,
        &format!("handshake version=DTLSv1.3 cipher={wolf_cipher}"),
    );
    assert_wolfssl_sees(srv, &format!("text={ping}"));
}

/// Stop our server once one session ended (the wolfSSL client's
/// close_notify), or after `secs`.
pub fn stop_after_one_session(secs: u64) -> StopCondition {
    StopCondition {
        max_duration: Some(Duration::from_secs(secs)),
        after_sessions_ended: Some(1),
        ..StopCondition::default()
    }
}

/// A loopback relay in front of `upstream` that forwards every datagram
/// except the `nth` (1-based) one in the chosen direction; stops when
/// dropped.
pub struct DropRelay {
    pub addr: SocketAddr,
    dropped: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

/// Which way the datagram to drop travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    ClientToServer,
    ServerToClient,
}

impl DropRelay {
    /// Datagrams dropped so far (0 or 1).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

impl Drop for DropRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A [`DropRelay`] that loses datagram `nth` going `direction`.
pub fn drop_nth_relay(upstream: SocketAddr, direction: Direction, nth: u64) -> DropRelay {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let relay = DropRelay {
        addr: sock.local_addr().unwrap(),
        dropped: Arc::default(),
        stop: Arc::default(),
    };
    let (dropped, stop) = (relay.dropped.clone(), relay.stop.clone());
    std::thread::spawn(move || {
        let mut client: Option<SocketAddr> = None;
        let mut seen = 0u64;
        let mut buf = vec![0u8; 65536];
        while !stop.load(Ordering::Relaxed) {
            let Ok((n, from)) = sock.recv_from(&mut buf) else {
                continue;
            };
            let (to, way) = if from == upstream {
                match client {
                    Some(c) => (c, Direction::ServerToClient),
                    None => continue,
                }
            } else {
                client = Some(from);
                (upstream, Direction::ClientToServer)
            };
            if way == direction {
                seen += 1;
                if seen == nth {
                    dropped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
            }
            let _ = sock.send_to(&buf[..n], to);
        }
    });
    relay
}
