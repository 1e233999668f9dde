//! What both versions' mappers share: our server on a thread on loopback,
//! the client socket the inputs go out of, and the probe socket whose
//! answered ClientHello marks the end of an input's answers (the server
//! answers a cookie-less hello statelessly and in the order received).

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dtls_udp::{bind_server, ServerOptions, ServerReportOf, ServerVersion, StopCondition};

use crate::PROBE_TIMEOUT;

pub struct Loopback {
    stop: Arc<AtomicBool>,
    sock: UdpSocket,
    /// The second client, whose answered ClientHello marks the end of an
    /// input's answers.
    probe: UdpSocket,
}

impl Loopback {
    /// Our echo server of `config` (seed 1) on an ephemeral 127.0.0.1
    /// port, on a thread that stops when this is dropped (or after 600 s),
    /// and the two client sockets connected to it.
    pub fn start<C>(config: C) -> std::io::Result<Loopback>
    where
        C: ServerVersion + Send + 'static,
        ServerReportOf<C>: Send,
    {
        let opts = ServerOptions {
            bind: "127.0.0.1:0".parse().expect("a literal address"),
            config,
            echo: true,
            seed: Some(1),
            log: None,
        };
        let bound = bind_server(&opts).map_err(std::io::Error::other)?;
        let addr: SocketAddr = bound.local_addr().map_err(std::io::Error::other)?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        std::thread::spawn(move || {
            bound.run(StopCondition {
                flag: Some(flag),
                max_duration: Some(Duration::from_secs(600)),
                ..StopCondition::default()
            })
        });
        let sock = UdpSocket::bind("127.0.0.1:0")?;
        sock.connect(addr)?;
        sock.set_nonblocking(true)?;
        let probe = UdpSocket::bind("127.0.0.1:0")?;
        probe.connect(addr)?;
        probe.set_read_timeout(Some(PROBE_TIMEOUT))?;
        Ok(Loopback { stop, sock, probe })
    }

    /// Send `input`, then `probe_hello` from the probe socket; once the
    /// probe is answered, every datagram the server sent in answer to the
    /// input, in order.
    pub fn exchange(&self, input: &[u8], probe_hello: &[u8]) -> std::io::Result<Vec<Vec<u8>>> {
        self.sock.send(input)?;
        self.probe.send(probe_hello)?;
        let mut buf = [0u8; 4096];
        self.probe.recv(&mut buf)?; // a timeout is an error: the server is gone
        let mut answers = Vec::new();
        loop {
            match self.sock.recv(&mut buf) {
                Ok(n) => answers.push(buf[..n].to_vec()),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(answers),
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// The abstract output of the server's records in answer to an input, by
/// name: joined with `+`, or `TIMEOUT` for none.
pub fn output(names: Vec<String>) -> String {
    if names.is_empty() {
        "TIMEOUT".into()
    } else {
        names.join("+")
    }
}
