//! In-memory driver: one client connection and one server endpoint joined
//! by a virtual network with optional seeded loss, in virtual time.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use dtls::Session;
use dtls::{ClientConfig, Config, Connection, Event, Server, ServerConfig};
use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

pub const IDENTITY: &[u8] = b"Client_identity";
pub const PSK: &[u8] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

pub fn client_addr() -> SocketAddr {
    "[fe80::1]:5684".parse().unwrap()
}

pub fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

pub struct Pair {
    pub now: u64,
    pub client: Connection,
    pub server: Server<ChaCha20Rng>,
    pub client_events: Vec<Event>,
    pub server_events: Vec<Event>,
    /// Every datagram client → server, as sent.
    pub c2s: Vec<Vec<u8>>,
    /// Every datagram server → client, as sent.
    pub s2c: Vec<Vec<u8>>,
    pub loss: Option<(ChaCha20Rng, f64)>,
    pub dropped: usize,
    /// One-way delay in µs.
    pub delay: u64,
    /// Interceptor: (client→server?, index in that direction, datagram) →
    /// the datagrams actually delivered.
    pub tamper: Option<Tamper>,
}

pub type Tamper = Box<dyn FnMut(bool, usize, Vec<u8>) -> Vec<Vec<u8>>>;

impl Pair {
    pub fn new(client: ClientConfig, server: ServerConfig, seed: u64) -> Pair {
        let mut r = rng(seed);
        let server = Server::new(Arc::new(server), rng(seed ^ 0x5555), 0).unwrap();
        let client = Connection::client(Arc::new(client), &mut r, 0).unwrap();
        Pair {
            now: 0,
            client,
            server,
            client_events: vec![],
            server_events: vec![],
            c2s: vec![],
            s2c: vec![],
            loss: None,
            dropped: 0,
            delay: 10_000,
            tamper: None,
        }
    }

    pub fn psk(client: Config, server: Config, seed: u64) -> Pair {
        Pair::new(
            ClientConfig::psk(client, IDENTITY, PSK),
            ServerConfig::psk(server, IDENTITY, PSK),
            seed,
        )
    }

    pub fn with_loss(mut self, seed: u64, p: f64) -> Self {
        self.loss = Some((rng(seed), p));
        self
    }

    fn intercept(&mut self, c2s: bool, d: Vec<u8>) -> Vec<Vec<u8>> {
        let i = if c2s { self.c2s.len() } else { self.s2c.len() } - 1;
        match &mut self.tamper {
            Some(f) => f(c2s, i, d),
            None => vec![d],
        }
    }

    fn lost(&mut self) -> bool {
        match &mut self.loss {
            Some((r, p)) => {
                let x = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let lost = x < *p;
                if lost {
                    self.dropped += 1;
                }
                lost
            }
            None => false,
        }
    }

    /// Move datagrams until both sides are quiet, then advance the clock to
    /// the next timer; stop when `done` holds or `until` is reached.
    pub fn run_until(&mut self, until: u64, done: impl Fn(&Pair) -> bool) {
        loop {
            let mut moved = false;
            while let Some(d) = self.client.poll_transmit(self.now) {
                moved = true;
                self.c2s.push(d.clone());
                if !self.lost() {
                    for d in self.intercept(true, d) {
                        self.now += self.delay;
                        self.server.handle_datagram(self.now, client_addr(), &d);
                    }
                }
            }
            while let Some(t) = self.server.poll_transmit(self.now) {
                moved = true;
                assert_eq!(t.destination, client_addr());
                self.s2c.push(t.payload.clone());
                if !self.lost() {
                    for d in self.intercept(false, t.payload) {
                        self.now += self.delay;
                        self.client.handle_datagram(self.now, &d);
                    }
                }
            }
            while let Some(e) = self.client.poll_event() {
                self.client_events.push(e);
            }
            while let Some((_, e)) = self.server.poll_event() {
                self.server_events.push(e);
            }
            if done(self) {
                return;
            }
            if moved {
                continue;
            }
            let next = [self.client.poll_timeout(), self.server.poll_timeout()]
                .into_iter()
                .flatten()
                .min();
            match next {
                Some(t) if t <= until => {
                    self.now = self.now.max(t);
                    self.client.handle_timeout(self.now);
                    self.server.handle_timeout(self.now);
                }
                _ => return,
            }
        }
    }

    pub fn handshake(&mut self) {
        self.run_until(600_000_000, |p| {
            p.client.is_established() && p.server_established()
        });
    }

    pub fn server_established(&self) -> bool {
        self.server
            .session(&client_addr())
            .is_some_and(|c| c.is_established())
    }

    pub fn failed_client(&self) -> Option<&dtls::Error> {
        self.client_events.iter().find_map(|e| match e {
            Event::Failed(e) => Some(e),
            _ => None,
        })
    }
    pub fn failed_server(&self) -> Option<&dtls::Error> {
        self.server_events.iter().find_map(|e| match e {
            Event::Failed(e) => Some(e),
            _ => None,
        })
    }

    /// Exchange application data both ways and check it arrives.
    pub fn exchange(&mut self, msg: &[u8]) {
        self.client.send(msg).unwrap();
        let n = self.server_events.len();
        self.run_until(self.now + 10_000_000, |p| {
            p.server_events[n..]
                .iter()
                .any(|e| matches!(e, Event::ApplicationData(_)))
        });
        assert!(
            self.server_events[n..].contains(&Event::ApplicationData(msg.to_vec())),
            "server did not receive the data: {:?}",
            &self.server_events[n..]
        );
        let reply: Vec<u8> = msg.iter().rev().copied().collect();
        self.server.send(client_addr(), &reply).unwrap();
        let n = self.client_events.len();
        self.run_until(self.now + 10_000_000, |p| {
            p.client_events[n..]
                .iter()
                .any(|e| matches!(e, Event::ApplicationData(_)))
        });
        assert!(self.client_events[n..].contains(&Event::ApplicationData(reply)));
    }

    pub fn handshake_bytes(&self) -> (usize, usize) {
        (
            self.c2s.len() + self.s2c.len(),
            self.c2s.iter().chain(&self.s2c).map(Vec::len).sum(),
        )
    }
}
