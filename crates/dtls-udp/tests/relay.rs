//! The seeded loopback relay: its delay is really added, the chosen
//! datagram is really lost (and a DTLS 1.3 handshake recovers), and its
//! random losses are the same for the same seed.

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use dtls::v13::config::{ClientConfig13, Config13, ServerConfig13};
use dtls_udp::{
    bind_server13, run_client13, ClientOptions13, Direction, Relay, RelayOptions, ServerOptions13,
    StopCondition,
};

const KEY: &[u8] = b"0123456789abcdef";

fn relay(
    upstream: SocketAddr,
    delay_ms: u64,
    drop_nth: Option<(Direction, u64)>,
    loss: f64,
) -> Relay {
    Relay::start(RelayOptions {
        upstream,
        one_way_delay: Duration::from_millis(delay_ms),
        drop_nth,
        loss,
        seed: 7,
    })
    .unwrap()
}

/// A plain UDP echo on loopback, for `n` datagrams.
fn echo(n: usize) -> SocketAddr {
    let s = UdpSocket::bind("127.0.0.1:0").unwrap();
    let a = s.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut buf = [0u8; 2048];
        for _ in 0..n {
            let (k, from) = s.recv_from(&mut buf).unwrap();
            s.send_to(&buf[..k], from).unwrap();
        }
    });
    a
}

#[test]
fn the_delay_is_added_each_way() {
    let r = relay(echo(1), 50, None, 0.0);
    let c = UdpSocket::bind("127.0.0.1:0").unwrap();
    c.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let t = Instant::now();
    c.send_to(b"ping", r.addr()).unwrap();
    let mut buf = [0u8; 16];
    let n = c.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"ping");
    let rtt = t.elapsed();
    assert!(rtt >= Duration::from_millis(100), "{rtt:?}");
    assert_eq!(r.counts().client_to_server.bytes, 4);
    assert_eq!(r.counts().server_to_client.datagrams, 1);
}

#[test]
fn a_lost_server_datagram_is_counted_and_the_handshake_recovers() {
    let config = Config13::psk_ccm8();
    let bound = bind_server13(&ServerOptions13 {
        bind: "127.0.0.1:0".parse().unwrap(),
        config: ServerConfig13::psk(config.clone(), b"id", KEY),
        echo: true,
        seed: Some(1),
        log: None,
    })
    .unwrap();
    let server = bound.local_addr().unwrap();
    let h = std::thread::spawn(move || {
        bound
            .run(StopCondition {
                max_duration: Some(Duration::from_secs(10)),
                after_sessions_ended: Some(1),
                ..StopCondition::default()
            })
            .unwrap()
    });
    // the second server datagram: its flight after the HelloRetryRequest
    let r = relay(server, 0, Some((Direction::ServerToClient, 2)), 0.0);
    let mut opts = ClientOptions13::new(r.addr(), ClientConfig13::psk(config, b"id", KEY));
    opts.seed = Some(2);
    let report = run_client13(&opts).unwrap();
    assert_eq!(report.received, vec![b"hello from dtlsim".to_vec()]);
    let served = h.join().unwrap();
    let c = r.counts();
    assert_eq!(c.server_to_client.dropped_datagrams, 1, "{c:?}");
    assert_eq!(c.client_to_server.dropped_datagrams, 0, "{c:?}");
    // recovered by a retransmission: the client's or the server's timer,
    // whichever fired first
    let server_resent: u64 = served
        .handshakes
        .iter()
        .map(|h| h.stats.retransmissions)
        .sum();
    assert!(
        report.stats.retransmissions + server_resent >= 1,
        "{report:?} {served:?}"
    );
}

#[test]
fn random_losses_are_the_same_for_the_same_seed() {
    let lost = || {
        let sink = UdpSocket::bind("127.0.0.1:0").unwrap();
        let r = relay(sink.local_addr().unwrap(), 0, None, 0.3);
        let c = UdpSocket::bind("127.0.0.1:0").unwrap();
        for i in 0..200u32 {
            c.send_to(&i.to_be_bytes(), r.addr()).unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while r.counts().client_to_server.datagrams < 200 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        r.counts().client_to_server
    };
    let (a, b) = (lost(), lost());
    assert_eq!(a.datagrams, 200);
    assert_eq!(a, b);
    // 30 % of 200, well inside a binomial's spread (sd ≈ 6.5)
    assert!((30..=90).contains(&a.dropped_datagrams), "{a:?}");
}
