//! Helpers for the interoperability tests: free ports, child processes that
//! are always killed, output capture with deadlines.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const PSK_HEX: &str = "000102030405060708090a0b0c0d0e0f";
pub const PSK: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
pub const IDENTITY: &[u8] = b"Client_identity";

/// True if the openssl CLI is available; prints a loud message otherwise.
pub fn have_openssl() -> bool {
    let ok = Command::new("openssl")
        .arg("version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("\n\n*** SKIPPING: `openssl` is not on PATH; interop not tested ***\n\n");
    }
    ok
}

pub fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn addr(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}

/// A child process that is killed when dropped, with its output captured.
pub struct Peer {
    child: Child,
    pub stdin: Option<ChildStdin>,
    out: Arc<Mutex<String>>,
}

impl Peer {
    pub fn spawn(args: &[&str]) -> Peer {
        let mut child = Command::new("openssl")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn openssl");
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
        let stdin = child.stdin.take();
        Peer { child, stdin, out }
    }

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
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if self.output().contains(needle) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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

/// Self-signed P-256 certificate and key made with the openssl CLI.
pub fn make_p256_cert(dir: &TempDir) -> (String, String) {
    let (crt, key) = (dir.path("ec.crt"), dir.path("ec.key"));
    let st = Command::new("openssl")
        .args([
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
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    (crt, key)
}

/// A running relay; stops when dropped.
pub struct Relay {
    pub addr: SocketAddr,
    /// (datagrams seen, datagrams dropped)
    pub counts: Arc<Mutex<(u64, u64)>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Relay {
    pub fn counts(&self) -> (u64, u64) {
        *self.counts.lock().unwrap()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A UDP relay on loopback that drops datagrams with probability `loss`
/// (seeded), in both directions.
pub fn lossy_relay(upstream: SocketAddr, loss: f64, seed: u64) -> Relay {
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
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
        while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
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
