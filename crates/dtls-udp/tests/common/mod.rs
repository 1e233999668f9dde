//! Helpers shared by the interoperability tests (`mod common;` in each test
//! file): the openssl CLI as a child process that is always killed, free
//! loopback ports, output capture with deadlines, certificate generation, a
//! lossy UDP relay, and our own server on a thread.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dtls::{CertifiedKey, CipherSuite, Config, ServerConfig};
use dtls_udp::{
    bind_server, certificate_der, private_key, run_client, ClientOptions, ClientReport,
    ServerOptions, ServerReport, ServerVersion, StopCondition,
};

pub const PSK_HEX: &str = "000102030405060708090a0b0c0d0e0f";
pub const PSK: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
pub const IDENTITY: &[u8] = b"Client_identity";
/// A PSK that differs from [`PSK_HEX`], for the wrong-key tests.
pub const WRONG_PSK_HEX: &str = "ffffffffffffffffffffffffffffffff";

/// How long we wait for a line from an openssl child before failing.
pub const OUTPUT_TIMEOUT: Duration = Duration::from_secs(5);

/// True if the openssl CLI is available; prints a loud message otherwise,
/// or panics if `DTLSIM_REQUIRE_PEERS=1` (as in scripts/test.sh).
pub fn have_openssl() -> bool {
    peer_present(
        runs("openssl", "version"),
        "openssl is not on PATH (DTLSIM_REQUIRE_PEERS=1); scripts/setup.sh installs it",
        "`openssl` is not on PATH; interop not tested",
    )
}

/// Whether `program arg` runs and succeeds.
fn runs(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `ok`, said loudly when a peer is missing: the test is skipped, or fails
/// with `required` under `DTLSIM_REQUIRE_PEERS=1` (as in scripts/test.sh).
fn peer_present(ok: bool, required: &str, skipping: &str) -> bool {
    if !ok {
        if std::env::var("DTLSIM_REQUIRE_PEERS").as_deref() == Ok("1") {
            panic!("{required}");
        }
        eprintln!("\n\n*** SKIPPING: {skipping} ***\n\n");
    }
    ok
}

/// Runs one openssl CLI command to completion (key and certificate
/// generation) and fails the test if it does not succeed.
pub fn openssl(args: &[&str]) {
    let st = Command::new("openssl")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "{args:?}");
}

/// A loopback UDP port that was free a moment ago; another test thread (or
/// process) may bind it before the peer it is meant for: see [`on_free_port`].
pub fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// What a peer prints when the port it was given is taken.
const IN_USE: &str = "Address already in use";
/// A peer whose port was taken between the pick and its bind is started on
/// another port this many times at most.
const BIND_ATTEMPTS: usize = 5;

/// The peer `start(port)` on a free loopback port once it printed `ready`,
/// and that port; started again on another port when its bind failed.
fn on_free_port(start: impl Fn(u16) -> Peer, ready: &str, what: &str) -> (Peer, u16) {
    let mut seen = String::new();
    for _ in 0..BIND_ATTEMPTS {
        let port = free_port();
        let p = start(port);
        match p.wait_for_any(&[ready, IN_USE], OUTPUT_TIMEOUT) {
            Some(0) => return (p, port),
            Some(_) => seen = p.output(),
            None => panic!("{what} did not start: {}", p.output()),
        }
    }
    panic!("{what} found no free port in {BIND_ATTEMPTS} tries: {seen}");
}

pub fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// A config offering exactly one cipher suite.
pub fn only(suite: CipherSuite) -> Config {
    Config {
        cipher_suites: vec![suite],
        ..Config::default()
    }
}

/// Retransmission for a lossy path: start at 200 ms, double up to 1 s, give
/// up after 20 tries, so a handshake survives 20 % loss.
pub fn lossy_retransmit() -> dtls::RetransmitPolicy {
    dtls::RetransmitPolicy::Doubling {
        initial_us: 200_000,
        max_us: 1_000_000,
        max_retransmissions: 20,
    }
}

/// A child process that is killed when dropped, with its output captured.
pub struct Peer {
    child: Child,
    pub stdin: Option<ChildStdin>,
    out: Arc<Mutex<String>>,
}

/// Collects a child's stdout and stderr, line by line, into one string.
fn capture_output(child: &mut std::process::Child) -> Arc<Mutex<String>> {
    let out = Arc::new(Mutex::new(String::new()));
    for r in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let out = out.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(r);
            let mut line = String::new();
            while r.read_line(&mut line).is_ok_and(|n| n > 0) {
                out.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
    }
    out
}

impl Peer {
    /// Spawns `openssl args…`, capturing stdout and stderr together.
    pub fn spawn(args: &[&str]) -> Peer {
        let mut child = Command::new("openssl")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn openssl");
        let out = capture_output(&mut child);
        let stdin = child.stdin.take();
        Peer { child, stdin, out }
    }

    /// Writes to the child's stdin: `s_server` sends it to the client once
    /// connected, `s_client` sends each line to the server.
    pub fn write(&mut self, s: &str) {
        let w = self.stdin.as_mut().unwrap();
        w.write_all(s.as_bytes()).unwrap();
        w.flush().unwrap();
    }

    pub fn output(&self) -> String {
        self.out.lock().unwrap().clone()
    }

    /// Wait until the output contains `needle`.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> bool {
        self.wait_for_any(&[needle], timeout).is_some()
    }

    /// Wait until the output contains one of `needles`: the index of the
    /// first found, None if none came within `timeout`.
    pub fn wait_for_any(&self, needles: &[&str], timeout: Duration) -> Option<usize> {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            let out = self.output();
            if let Some(i) = needles.iter().position(|n| out.contains(n)) {
                return Some(i);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Fails the test unless the output contains `needle` within
    /// [`OUTPUT_TIMEOUT`]; the message shows everything the child printed.
    pub fn assert_sees(&self, needle: &str) {
        assert!(
            self.wait_for(needle, OUTPUT_TIMEOUT),
            "openssl did not print {needle:?}: {}",
            self.output()
        );
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `openssl s_server` for DTLS 1.2 on a free loopback port with `args`
/// (suite and credentials), once it is ready, and the port. `-listen` makes
/// it do the stateless cookie exchange (HelloVerifyRequest) like a real DTLS
/// server; `-no_ticket` keeps session tickets, which we do not implement,
/// out of the handshake.
pub fn s_server(args: &[&str]) -> (Peer, u16) {
    let start = |port: u16| {
        let accept = format!("127.0.0.1:{port}");
        let mut all = vec!["s_server", "-dtls1_2", "-listen"];
        all.extend_from_slice(args);
        all.extend(["-no_ticket", "-accept", &accept]);
        Peer::spawn(&all)
    };
    on_free_port(start, "ACCEPT", "s_server")
}

/// `openssl s_client` for DTLS 1.2 to `connect` with `args`.
pub fn s_client(connect: SocketAddr, args: &[&str]) -> Peer {
    let connect = connect.to_string();
    let mut all = vec!["s_client", "-dtls1_2"];
    all.extend_from_slice(args);
    all.extend(["-connect", &connect]);
    Peer::spawn(&all)
}

/// The options shared by PSK `s_server` and `s_client`: key `key_hex`,
/// identity `Client_identity`, and only `cipher` offered.
fn psk_args<'a>(key_hex: &'a str, cipher: &'a str) -> Vec<&'a str> {
    vec![
        "-psk",
        key_hex,
        "-psk_identity",
        "Client_identity",
        "-cipher",
        cipher,
    ]
}

/// PSK `s_server` (see [`psk_args`]) and its port; `-nocert`: no certificate at all.
pub fn s_server_psk(key_hex: &str, cipher: &str) -> (Peer, u16) {
    let mut args = psk_args(key_hex, cipher);
    args.push("-nocert");
    s_server(&args)
}

/// PSK `s_client` (see [`psk_args`]). `-quiet` leaves only application data
/// (and errors) in its output, so a received echo is easy to spot.
pub fn s_client_psk(connect: SocketAddr, key_hex: &str, cipher: &str, quiet: bool) -> Peer {
    let mut args = psk_args(key_hex, cipher);
    if quiet {
        args.push("-quiet");
    }
    s_client(connect, &args)
}

/// Our client with `cfg` and the test PSK against a PSK `s_server`
/// offering `cipher`: the server first queues `from_openssl` (sent once
/// connected), the client sends `from_us` (None: the default message) and
/// must receive exactly `from_openssl`. Returns the server, to look at what
/// it printed, and the client's report.
pub fn our_psk_client_to_s_server(
    cipher: &str,
    cfg: Config,
    seed: u64,
    from_openssl: &str,
    from_us: Option<&str>,
) -> (Peer, ClientReport) {
    let (mut srv, port) = s_server_psk(PSK_HEX, cipher);
    srv.write(from_openssl);
    let mut opts = ClientOptions::psk(addr(port), cfg, IDENTITY, PSK);
    if let Some(m) = from_us {
        opts.messages = vec![m.as_bytes().to_vec()];
    }
    opts.expect_replies = 1;
    opts.seed = Some(seed);
    let report = run_client(&opts).expect("handshake with openssl s_server");
    assert_eq!(
        report.received,
        vec![from_openssl.as_bytes().to_vec()],
        "{report:?}"
    );
    (srv, report)
}

/// A PSK `s_client` offering `cipher` sends `ping` to our echoing server
/// (`config`, `seed`), which stops after that one message. Returns the
/// client, to look at what it printed, and the server's report.
pub fn s_client_psk_to_our_server(
    config: Config,
    cipher: &str,
    seed: u64,
    ping: &str,
) -> (Peer, ServerReport) {
    let (port, h) = our_server(
        ServerConfig::psk(config, IDENTITY, PSK),
        seed,
        stop_after_messages(12, 1),
    );
    let mut cli = s_client_psk(addr(port), PSK_HEX, cipher, true);
    cli.write(ping);
    (cli, h.join().unwrap())
}

/// The checks for one PSK session from `s_client`: one handshake on
/// `suite` after one cookie exchange, `ping` received and echoed back (s_client
/// prints what it receives).
pub fn assert_echoed_once(cli: &Peer, report: &ServerReport, suite: CipherSuite, ping: &str) {
    assert_eq!(report.handshakes.len(), 1, "{report:?}\n{}", cli.output());
    assert_eq!(report.handshakes[0].cipher_suite, Some(suite));
    assert_eq!(report.received[0].1, ping.as_bytes().to_vec());
    assert_eq!(report.endpoint.hello_verify_requests, 1);
    cli.assert_sees(ping.trim_end());
}

/// Stop our server after `secs` seconds or `messages` application records.
pub fn stop_after_messages(secs: u64, messages: usize) -> StopCondition {
    StopCondition {
        max_duration: Some(Duration::from_secs(secs)),
        after_messages: Some(messages),
        ..StopCondition::default()
    }
}

/// Stop our server after `secs` seconds or `sessions` sessions ended (closed
/// or failed).
pub fn stop_after_sessions_ended(secs: u64, sessions: usize) -> StopCondition {
    StopCondition {
        max_duration: Some(Duration::from_secs(secs)),
        after_sessions_ended: Some(sessions),
        ..StopCondition::default()
    }
}

/// Runs our server (`opts`, bound to its address; either version) on a
/// thread until `stop`; returns its port and the handle that yields its
/// report.
pub fn spawn_server<C>(opts: &ServerOptions<C>, stop: StopCondition) -> (u16, JoinHandle<Report<C>>)
where
    C: ServerVersion + Send + 'static,
    Report<C>: Send,
{
    let bound = bind_server(opts).unwrap();
    let port = bound.local_addr().unwrap().port();
    (port, std::thread::spawn(move || bound.run(stop).unwrap()))
}

/// The report of a server of `C`'s version.
pub type Report<C> = dtls_udp::ServerReportOf<C>;

/// Our echoing server with `config` (either version) on an ephemeral
/// loopback port, seeded, on a thread until `stop`.
pub fn our_server<C>(config: C, seed: u64, stop: StopCondition) -> (u16, JoinHandle<Report<C>>)
where
    C: ServerVersion + Send + 'static,
    Report<C>: Send,
{
    spawn_server(
        &ServerOptions {
            bind: "127.0.0.1:0".parse().unwrap(),
            config,
            echo: true,
            seed: Some(seed),
            log: None,
        },
        stop,
    )
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("dtlsim-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub fn path(&self, f: &str) -> String {
        self.0.join(f).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Self-signed P-256 certificate and key made with the openssl CLI (PEM;
/// PKCS#8 key), as (certificate path, key path).
pub fn make_p256_cert(dir: &TempDir) -> (String, String) {
    let (crt, key) = (dir.path("ec.crt"), dir.path("ec.key"));
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        &key,
        "-out",
        &crt,
        "-days",
        "30",
        "-subj",
        "/CN=dtls-test",
    ]);
    (crt, key)
}

/// A new temporary directory named after `tag` holding a fresh self-signed
/// P-256 certificate and key (see [`make_p256_cert`]); keep the directory
/// alive as long as the files are needed.
pub fn p256_cert_in(tag: &str) -> (TempDir, String, String) {
    let dir = TempDir::new(tag);
    let (crt, key) = make_p256_cert(&dir);
    (dir, crt, key)
}

/// The DER certificate in the PEM file `path`.
pub fn cert_der(path: &str) -> Vec<u8> {
    certificate_der(&std::fs::read(path).unwrap()).unwrap()
}

/// Certificate and private key loaded from the PEM files the openssl CLI
/// wrote.
pub fn certified_key(crt: &str, key: &str) -> CertifiedKey {
    CertifiedKey {
        chain: vec![cert_der(crt)],
        private_key: private_key(&std::fs::read(key).unwrap()).unwrap(),
    }
}

/// A running relay; stops when dropped.
pub struct Relay {
    pub addr: SocketAddr,
    /// (datagrams seen, datagrams dropped)
    pub counts: Arc<Mutex<(u64, u64)>>,
    stop: Arc<AtomicBool>,
}

impl Relay {
    pub fn counts(&self) -> (u64, u64) {
        *self.counts.lock().unwrap()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A UDP relay on loopback that drops datagrams with probability `loss`
/// (seeded), in both directions.
pub fn lossy_relay(upstream: SocketAddr, loss: f64, seed: u64) -> Relay {
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let local = sock.local_addr().unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let counts = Arc::new(Mutex::new((0u64, 0u64)));
    let c2 = counts.clone();
    std::thread::spawn(move || {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            // xorshift64*: the relay's own loss pattern, not crypto
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut client: Option<SocketAddr> = None;
        let mut buf = vec![0u8; 65536];
        while !stop2.load(Ordering::Relaxed) {
            let Ok((n, from)) = sock.recv_from(&mut buf) else {
                continue;
            };
            let to = if from == upstream {
                match client {
                    Some(c) => c,
                    None => continue,
                }
            } else {
                client = Some(from);
                upstream
            };
            let mut c = c2.lock().unwrap();
            c.0 += 1;
            if next() < loss {
                c.1 += 1;
                continue;
            }
            drop(c);
            let _ = sock.send_to(&buf[..n], to);
        }
    });
    Relay {
        addr: local,
        counts,
        stop,
    }
}

// --- wolfSSL 5.9 (DTLS 1.2 and 1.3) ------------------------------------------
// Our own small server and client over wolfSSL (peers/wolfssl/), built by
// scripts/peers/wolfssl.sh into .peers/wolfssl/bin/. They print one line per
// event ("handshake version=… cipher=…", "data bytes=… text=…", "alert …",
// "datagrams_sent=N").

/// Where scripts/peers/wolfssl.sh puts the wolfSSL peer `name`.
pub fn wolfssl_bin(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../.peers/wolfssl/bin")
        .join(name)
}

/// wolfSSL's name of TLS_PSK_WITH_AES_128_CCM_8.
pub const WOLF_PSK_CCM8: &str = "PSK-AES128-CCM-8";

/// The wolfSSL 1.2 client with `args` to our server on `port`, run to its
/// end (12 s at most); it exited cleanly. Returns it and our server's
/// report (from `server`).
pub fn wolfssl_client12_to_ours<R>(port: u16, server: JoinHandle<R>, args: &[&str]) -> (Peer, R) {
    let mut cli = wolfssl_client("1.2", addr(port), args);
    let code = cli.wait_exit(Duration::from_secs(12));
    let report = server.join().unwrap();
    assert_eq!(code, Some(0), "{}", cli.output());
    (cli, report)
}

/// The hex CID wolfSSL prints after `key=` (e.g. `cid_tx=0a0b`).
pub fn wolf_cid(peer: &Peer, key: &str) -> String {
    let pat = format!("{key}=");
    peer.output()
        .split_whitespace()
        .find_map(|w| w.strip_prefix(&pat).map(str::to_owned))
        .unwrap_or_default()
}

/// True if the wolfSSL peers are built; prints a loud message otherwise, or
/// panics if `DTLSIM_REQUIRE_PEERS=1` (as in scripts/test.sh).
pub fn have_wolfssl() -> bool {
    peer_present(
        ["wolfssl-dtls-server", "wolfssl-dtls-client"]
            .iter()
            .all(|b| wolfssl_bin(b).is_file()),
        "the wolfSSL peers are not built (DTLSIM_REQUIRE_PEERS=1); run scripts/peers/wolfssl.sh",
        "wolfSSL peers not built (scripts/peers/wolfssl.sh); interop not tested",
    )
}

impl Peer {
    /// Spawns `program args…`, capturing stdout and stderr together (as
    /// [`Peer::spawn`] does for openssl).
    pub fn spawn_program(program: &std::path::Path, args: &[&str]) -> Peer {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", program.display()));
        let out = capture_output(&mut child);
        Peer {
            child,
            stdin: None,
            out,
        }
    }

    /// Waits up to `timeout` for the child to exit: its exit code, or None if
    /// it is still running (or was killed by a signal).
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<i32> {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if let Some(st) = self.child.try_wait().unwrap() {
                // let the reader threads take the last lines
                std::thread::sleep(Duration::from_millis(50));
                return st.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// The number after `key=` on the last line that has it.
    pub fn last_number(&self, key: &str) -> Option<u64> {
        let pat = format!("{key}=");
        self.output().lines().rev().find_map(|l| {
            let v = l.split_whitespace().find_map(|w| w.strip_prefix(&pat))?;
            v.parse().ok()
        })
    }
}

/// The wolfSSL server for DTLS `version` ("1.2", "1.3") on a free loopback
/// port with `args` (suite, credentials, limits), once it listens.
pub fn wolfssl_server(version: &str, args: &[&str]) -> (Peer, u16) {
    let start = |port: u16| {
        let port = port.to_string();
        let mut all = vec!["--version", version, "--port", &port];
        all.extend_from_slice(args);
        Peer::spawn_program(&wolfssl_bin("wolfssl-dtls-server"), &all)
    };
    on_free_port(start, "listening", "wolfssl-dtls-server")
}

/// The wolfSSL client for DTLS `version` to `connect` with `args`.
pub fn wolfssl_client(version: &str, connect: SocketAddr, args: &[&str]) -> Peer {
    let (host, port) = (connect.ip().to_string(), connect.port().to_string());
    let mut all = vec!["--version", version, "--host", &host, "--port", &port];
    all.extend_from_slice(args);
    Peer::spawn_program(&wolfssl_bin("wolfssl-dtls-client"), &all)
}

/// Fails the test unless the wolfSSL peer printed `needle` within
/// [`OUTPUT_TIMEOUT`].
pub fn assert_wolfssl_sees(peer: &Peer, needle: &str) {
    assert!(
        peer.wait_for(needle, OUTPUT_TIMEOUT),
        "the wolfSSL peer did not print {needle:?}: {}",
        peer.output()
    );
}

/// A UDP relay on loopback that forwards everything and counts datagrams
/// per direction; stops when dropped.
pub struct CountingRelay {
    pub addr: SocketAddr,
    from_client: Arc<AtomicU64>,
    from_server: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl CountingRelay {
    /// Datagrams the client sent towards the server so far.
    pub fn sent_by_client(&self) -> u64 {
        self.from_client.load(Ordering::Relaxed)
    }
    /// Datagrams the server sent towards the client so far.
    pub fn sent_by_server(&self) -> u64 {
        self.from_server.load(Ordering::Relaxed)
    }
}

impl Drop for CountingRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A [`CountingRelay`] in front of `upstream`.
pub fn counting_relay(upstream: SocketAddr) -> CountingRelay {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let relay = CountingRelay {
        addr: sock.local_addr().unwrap(),
        from_client: Arc::default(),
        from_server: Arc::default(),
        stop: Arc::default(),
    };
    let (from_client, from_server, stop) = (
        relay.from_client.clone(),
        relay.from_server.clone(),
        relay.stop.clone(),
    );
    std::thread::spawn(move || {
        let mut client: Option<SocketAddr> = None;
        let mut buf = vec![0u8; 65536];
        while !stop.load(Ordering::Relaxed) {
            let Ok((n, from)) = sock.recv_from(&mut buf) else {
                continue;
            };
            let to = if from == upstream {
                from_server.fetch_add(1, Ordering::Relaxed);
                match client {
                    Some(c) => c,
                    None => continue,
                }
            } else {
                from_client.fetch_add(1, Ordering::Relaxed);
                client = Some(from);
                upstream
            };
            let _ = sock.send_to(&buf[..n], to);
        }
    });
    relay
}

// --- tshark --------------------------------------------------------------------

/// True if tshark is available; prints a loud message otherwise, or panics
/// if `DTLSIM_REQUIRE_PEERS=1` (as in scripts/test.sh).
pub fn have_tshark() -> bool {
    peer_present(
        runs("tshark", "--version"),
        "tshark is not on PATH (DTLSIM_REQUIRE_PEERS=1); scripts/setup.sh installs it",
        "`tshark` is not on PATH; decoding not checked",
    )
}

/// tshark's verbose decoding of `datagrams` (a pcap in a temporary
/// directory named after `tag`) shows every one of `needles`.
pub fn assert_tshark_shows(tag: &str, datagrams: &[Vec<u8>], needles: &[&str]) {
    let dir = TempDir::new(tag);
    let pcap = dir.path("datagrams.pcap");
    write_payload_pcap(&pcap, datagrams);
    let decoded = tshark_dtls_verbose(&pcap);
    for needle in needles {
        assert!(
            decoded.contains(needle),
            "tshark did not show {needle:?}:\n{decoded}"
        );
    }
}

/// Writes `datagrams` (UDP payloads) to a pcap at `path` with link type
/// 147 (USER0): a capture needs no privileges this way, and
/// [`tshark_dtls_verbose`] maps that link type to the DTLS dissector.
pub fn write_payload_pcap(path: &str, datagrams: &[Vec<u8>]) {
    let mut f = Vec::new();
    // pcap header: magic, version 2.4, thiszone, sigfigs, snaplen, linktype
    f.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    f.extend_from_slice(&[2, 0, 4, 0]);
    for w in [0u32, 0, 65535, 147] {
        f.extend_from_slice(&w.to_le_bytes());
    }
    for (i, d) in datagrams.iter().enumerate() {
        // record header: seconds, microseconds, captured and original length
        for w in [i as u32, 0, d.len() as u32, d.len() as u32] {
            f.extend_from_slice(&w.to_le_bytes());
        }
        f.extend_from_slice(d);
    }
    std::fs::write(path, f).unwrap();
}

/// tshark's full decode (`-V`) of a pcap from [`write_payload_pcap`].
pub fn tshark_dtls_verbose(path: &str) -> String {
    let out = Command::new("tshark")
        .args([
            "-r",
            path,
            "-o",
            r#"uat:user_dlts:"User 0 (DLT=147)","dtls","0","","0","""#,
            "-V",
        ])
        .output()
        .expect("run tshark");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
