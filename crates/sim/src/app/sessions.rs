//! Session capacity: clients that now and then want a session of a server
//! whose table has R slots (the M/M/R/R/N loss system of Engset, as
//! Vučinić et al., PIMRC 2015 apply it to DTLS sessions).
//!
//! A client without a session asks for one after an exponential idle time
//! (mean 1/λ); once it has one it holds it an exponential time (mean 1/μ),
//! sending a record now and then, and closes it. A refused or failed client
//! goes back to idle (lost calls cleared, as Engset assumes).
//!
//! - [`SlotGuard`] puts a [`SlotTable`] in front of the DTLS server: a
//!   handshake takes a slot when its ClientHello carries a cookie (RFC 6347
//!   4.2.1: the server keeps no state before), and holds it until the
//!   endpoint forgets the session.
//! - [`SessionClient`] runs the client's handshakes in full over the MAC; as
//!   an attacker it abandons each one once its cookie is verified (the
//!   half-open state) and starts another.
//! - [`InstantSessions`] makes handshakes instantaneous and leaves the
//!   network out: the N clients' requests meet the table at the server at
//!   once (the closed form's assumption, to check the simulation against it).

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

use dtls::endpoint::Version;
use dtls::{
    AlertDescription, ClientConfig, Connection, CryptoOps, Endpoint, Event, Phase,
    ResumableSession, Session,
};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use session_table::{Admission, Expiry, Limits, Peer, Policy, SlotTable};

use super::dtls::{diff, Kind};
use super::record::{Decision, Record, SessionEnd, SlotFreed};
use super::{AppCx, DTLS_PORT};
use crate::clock::TickClock;
use crate::net::{node_port, sockaddr, Udp};
use crate::node::app::App;
use crate::node::cpu::{Cpu, CryptoCost};
use crate::rng::{stream, Purpose};
use crate::timer::{TimerTable, Token};
use crate::{NodeId, Time};

/// An exponential time of mean `mean_us` (inverse transform).
pub(crate) fn exponential_us(rng: &mut ChaCha8Rng, mean_us: f64) -> Time {
    let u: f64 = rng.random_range(0.0..1.0);
    (-mean_us * (1.0 - u).ln()).round() as Time
}

/// The stream a client draws its idle and holding times from: the same in
/// both handshake modes, so they compare on the same habits.
pub(crate) fn habits(seed: u64, replication: u64, node: NodeId) -> ChaCha8Rng {
    stream(seed, replication, node as u64, Purpose::App)
}

/// A datagram whose first record is an epoch-0 ClientHello carrying a
/// cookie. Layout (RFC 6347 4.1 record header 13 B, 4.2.2 handshake header
/// 12 B, 4.2.1 ClientHello: version 2 B, random 32 B, session_id with a
/// 1-byte length, then the cookie's 1-byte length).
fn hello_with_cookie(d: &[u8]) -> bool {
    const SESSION_ID_LEN: usize = 13 + 12 + 2 + 32;
    let is_hello = d.len() > SESSION_ID_LEN && d[0] == 22 && d[3..5] == [0, 0] && d[13] == 1;
    is_hello
        && d.get(SESSION_ID_LEN + 1 + usize::from(d[SESSION_ID_LEN]))
            .is_some_and(|&cookie_len| cookie_len > 0)
}

/// The fatal handshake_failure alert (RFC 5246 7.2) that refuses a
/// ClientHello, in epoch 0 with the hello's record sequence number (RFC
/// 6347 4.2.1), as the endpoint itself refuses when full.
fn refusal(hello: &[u8]) -> Vec<u8> {
    let mut alert = vec![21, 0xfe, 0xfd, 0, 0];
    alert.extend_from_slice(&hello[5..11]);
    alert.extend_from_slice(&[0, 2, 2, AlertDescription::HandshakeFailure.to_u8()]);
    alert
}

/// What the server does with a datagram, by its table.
pub(crate) enum Verdict {
    /// To the endpoint as it is.
    Pass,
    /// Send this alert back; the endpoint never sees the hello.
    Refuse(Vec<u8>),
    /// Close this session first, then hand the hello to the endpoint.
    Evict(SocketAddr),
}

/// The server's table of session slots, kept beside the DTLS endpoint.
pub(crate) struct SlotGuard {
    table: SlotTable<SocketAddr>,
    taken: usize,
    /// Peers given a slot since the last [`SlotGuard::sync`]: with the
    /// endpoint's changed sessions, the only slots a sync can act on.
    admitted: Vec<SocketAddr>,
}

/// What a sync does to a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotAction {
    /// Its handshake completed: mark it established.
    Established,
    /// Its session is gone: free it, for this reason.
    Free(SlotFreed),
}

impl SlotGuard {
    /// A guard in front of `server`, which from now on lists the sessions
    /// that change for [`SlotGuard::sync`].
    pub(crate) fn new<V: Version>(
        limits: Limits,
        policy: Policy,
        server: &mut Endpoint<V>,
    ) -> Self {
        server.watch_changes();
        SlotGuard {
            table: SlotTable::new(limits, policy),
            taken: 0,
            admitted: Vec::new(),
        }
    }

    /// Before the endpoint sees a datagram from `from`: a new handshake
    /// past the cookie exchange asks the table for a slot; other traffic
    /// of a session marks it used.
    pub(crate) fn admit<V: Version>(
        &mut self,
        cx: &mut AppCx,
        server: &Endpoint<V>,
        from: SocketAddr,
        datagram: &[u8],
    ) -> Verdict {
        let now = cx.now();
        // a hello repeated during its handshake is the endpoint's business
        let handshaking = server
            .session(&from)
            .is_some_and(|c| c.phase() == Phase::Handshaking);
        if handshaking || !hello_with_cookie(datagram) {
            self.table.touch(&from, now);
            return Verdict::Pass;
        }
        let (decision, verdict) = match self.table.admit(from, now) {
            Admission::Admitted => (Decision::Admitted, Verdict::Pass),
            Admission::Evicted(victim) => (
                Decision::Evicted(node_port(&victim).0),
                Verdict::Evict(victim),
            ),
            Admission::Refused(_) => (Decision::Refused, Verdict::Refuse(refusal(datagram))),
        };
        let client = node_port(&from).0;
        cx.record(Record::SlotDecision { client, decision });
        if let Decision::Evicted(victim) = decision {
            cx.record(Record::SlotFreed {
                client: victim,
                why: SlotFreed::Evicted,
            });
        }
        if decision != Decision::Refused {
            cx.record(Record::SlotTaken { client });
            self.admitted.push(from);
        }
        self.record_taken(cx);
        verdict
    }

    /// After the endpoint worked: free the slots of sessions it forgot
    /// (closed, failed, or never made: a cookie that did not verify), mark
    /// completed handshakes.
    ///
    /// Only the slots of sessions the endpoint changed and of peers
    /// admitted since the last sync can need anything (every other slot's
    /// session was left handshaking, or established and marked so, by the
    /// last sync), so only those are looked at, in the table's order: the
    /// order a walk of every slot acts in, which debug builds check.
    pub(crate) fn sync<V: Version>(
        &mut self,
        cx: &mut AppCx,
        server: &mut Endpoint<V>,
        ended: &[(SocketAddr, SlotFreed)],
    ) {
        let now = cx.now();
        let mut looked: Vec<(u64, SocketAddr, bool)> = (server.take_changed().into_iter())
            .chain(self.admitted.drain(..))
            .filter_map(|p| self.table.rank(&p).map(|(rank, est)| (rank, p, est)))
            .collect();
        looked.sort_unstable();
        looked.dedup();
        let actions: Vec<(SocketAddr, SlotAction)> = (looked.into_iter())
            .filter_map(|(_, p, est)| Self::action(server, ended, p, est).map(|a| (p, a)))
            .collect();
        #[cfg(debug_assertions)]
        {
            let every: Vec<(SocketAddr, SlotAction)> = (self.table.peers_established())
                .filter_map(|(&p, est)| Self::action(server, ended, p, est).map(|a| (p, a)))
                .collect();
            assert_eq!(actions, every, "the slots a sync acts on");
        }
        for (peer, action) in actions {
            match action {
                SlotAction::Established => self.table.established(&peer, now),
                SlotAction::Free(why) => {
                    self.table.release(&peer);
                    let client = node_port(&peer).0;
                    cx.record(Record::SlotFreed { client, why });
                }
            }
        }
        self.record_taken(cx);
    }

    /// What a sync does to the slot of `peer` (`established`: marked so),
    /// by the endpoint's session there.
    fn action<V: Version>(
        server: &Endpoint<V>,
        ended: &[(SocketAddr, SlotFreed)],
        peer: SocketAddr,
        established: bool,
    ) -> Option<SlotAction> {
        let why = match server.session(&peer).map(Session::phase) {
            None => ended
                .iter()
                .find(|(p, _)| *p == peer)
                .map_or(SlotFreed::Forgotten, |&(_, why)| why),
            Some(Phase::Closed) => SlotFreed::Closed,
            Some(Phase::Failed) => SlotFreed::Failed,
            // marking an established slot again changes nothing
            Some(Phase::Established) => {
                return (!established).then_some(SlotAction::Established);
            }
            Some(Phase::Handshaking) => return None,
        };
        Some(SlotAction::Free(why))
    }

    /// Free the slots of half-open handshakes and idle sessions past their
    /// time; their peers, for the server to close.
    pub(crate) fn expire(&mut self, cx: &mut AppCx) -> Vec<SocketAddr> {
        let gone = self.table.expire(cx.now());
        for &(peer, why) in &gone {
            let why = match why {
                Expiry::HalfOpen => SlotFreed::HalfOpenTimeout,
                Expiry::Idle => SlotFreed::IdleTimeout,
            };
            let client = node_port(&peer).0;
            cx.record(Record::SlotFreed { client, why });
        }
        self.record_taken(cx);
        gone.into_iter().map(|(peer, _)| peer).collect()
    }

    pub(crate) fn next_expiry(&self) -> Option<Time> {
        self.table.next_expiry()
    }

    fn record_taken(&mut self, cx: &mut AppCx) {
        if self.table.len() != self.taken {
            self.taken = self.table.len();
            cx.record(Record::SlotsTaken { taken: self.taken });
        }
    }
}

#[derive(Debug, Clone)]
pub struct SessionParams {
    pub server: NodeId,
    pub config: Arc<ClientConfig>,
    pub idle_mean_us: f64,
    pub holding_mean_us: f64,
    pub data_interval_us: Time,
    pub data_bytes: usize,
    /// Repeat the close_notify until the server answers ([`Closing`]).
    pub close_until_answered: bool,
    /// When the client starts being idle.
    pub first_at: Time,
    /// Some: an attacker, starting a handshake this often and abandoning it
    /// once the server has verified its cookie.
    pub attack_interval_us: Option<Time>,
    pub cost: CryptoCost,
    pub seed: u64,
    pub replication: u64,
    pub timer_tick_us: Time,
    /// Every handshake from the same port (see `SessionsSpec::same_port`).
    pub same_port: bool,
}

/// A released session whose close_notify the server has not answered yet.
///
/// tinyDTLS (dtls.c `dtls_close`) sends its close_notify once; over a MAC
/// that does not acknowledge data frames (X-MAC) a lost one leaves the
/// server holding the session. RFC 5246 §7.2.1 has the server answer with a
/// close_notify of its own, so the client repeats the same record on the
/// DTLS retransmission timer (RFC 6347 §4.2.4) until any datagram of the
/// server reaches the closed session's port, or the timer gives up.
struct Closing {
    port: u16,
    close_notify: Vec<u8>,
    timer: dtls::timer::RetransmitTimer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Idle,
    Handshaking { since: Time },
    Holding,
}

/// A client of the sessions workload, with real DTLS handshakes.
pub struct SessionClient {
    p: SessionParams,
    node: NodeId,
    clock: TickClock,
    /// The DTLS stack's randomness.
    rng: ChaCha8Rng,
    /// Idle and holding times.
    habits: ChaCha8Rng,
    conn: Option<Connection>,
    cpu: Cpu,
    crypto_before: CryptoOps,
    timers: TimerTable<Kind>,
    state: State,
    /// Handshakes started: each from a fresh ephemeral port (unless
    /// `same_port`, every one from the first's).
    started: u32,
    closing: Option<Closing>,
    /// The last session the server gave an ID: offered again next time.
    saved: Option<ResumableSession>,
}

impl SessionClient {
    pub fn new(p: SessionParams, node: NodeId) -> Self {
        SessionClient {
            clock: TickClock::new(p.timer_tick_us, p.seed, p.replication, node),
            rng: stream(p.seed, p.replication, node as u64, Purpose::Dtls),
            habits: habits(p.seed, p.replication, node),
            p,
            node,
            conn: None,
            cpu: Cpu::default(),
            crypto_before: CryptoOps::default(),
            timers: TimerTable::new(),
            state: State::Idle,
            started: 0,
            closing: None,
            saved: None,
        }
    }

    fn src_port(&self) -> u16 {
        let n = if self.p.same_port { 0 } else { self.started };
        49152 + (n % 16384) as u16
    }

    /// Wait, idle, before the next request (an attacker: its interval).
    fn idle(&mut self, cx: &mut AppCx, from: Time) {
        self.state = State::Idle;
        self.conn = None;
        self.timers.stop(Kind::Release);
        self.timers.stop(Kind::Data);
        self.timers.stop(Kind::Retransmit);
        let wait = match self.p.attack_interval_us {
            Some(interval) => interval,
            None => exponential_us(&mut self.habits, self.p.idle_mean_us),
        };
        let at = self.clock.round_up(from + wait);
        self.timers.set(cx, Kind::Next, at);
    }

    fn request(&mut self, cx: &mut AppCx) {
        let now = cx.now();
        self.started += 1;
        cx.record(Record::SessionRequested { client: self.node });
        let conn = match self
            .saved
            .clone()
            .filter(|_| self.p.attack_interval_us.is_none())
        {
            Some(s) => Connection::client_resuming(self.p.config.clone(), s, &mut self.rng, now),
            None => Connection::client(self.p.config.clone(), &mut self.rng, now),
        };
        match conn {
            Ok(conn) => {
                self.conn = Some(conn);
                self.crypto_before = CryptoOps::default();
                self.state = State::Handshaking { since: now };
                self.pump(cx);
            }
            Err(_) => self.end(cx, now, SessionEnd::Failed),
        }
    }

    fn end(&mut self, cx: &mut AppCx, at: Time, end: SessionEnd) {
        cx.record(Record::SessionEnded {
            client: self.node,
            end,
        });
        self.idle(cx, at);
    }

    /// After any input: charge the crypto, queue the output for when the
    /// CPU is done, re-arm the DTLS timer, and act on the events.
    fn pump(&mut self, cx: &mut AppCx) {
        let Some(conn) = self.conn.as_mut() else {
            return;
        };
        let ops = diff(&conn.stats().crypto, &self.crypto_before);
        self.crypto_before = conn.stats().crypto;
        let ready = self.cpu.run(cx, self.p.cost.of(&ops));
        let to = sockaddr(self.p.server, DTLS_PORT);
        while let Some(d) = conn.poll_transmit(cx.now()) {
            self.cpu.send_at(ready, to, d);
        }
        if let Some(t) = conn.poll_timeout() {
            let at = self.clock.round_up(t.max(ready));
            self.timers.set(cx, Kind::Retransmit, at);
        }
        let mut events = Vec::new();
        while let Some(e) = conn.poll_event() {
            events.push(e);
        }
        let st = conn.stats();
        let handshake_bytes = st.bytes_sent + st.bytes_received;
        let (resumed, resumable) = (conn.resumed(), conn.resumable_session().cloned());
        let port = self.src_port();
        self.cpu.flush(cx, &mut self.timers, Kind::Send, port);
        for e in events {
            match (e, self.state) {
                (Event::Connected, State::Handshaking { since }) => {
                    cx.record(Record::SessionEstablished {
                        client: self.node,
                        handshake_us: ready - since,
                        handshake_bytes,
                        resumed,
                    });
                    // what resumes the next session, if the server gave an ID
                    if resumable.is_some() {
                        self.saved = resumable.clone();
                    }
                    self.state = State::Holding;
                    let hold = exponential_us(&mut self.habits, self.p.holding_mean_us);
                    let release = self.clock.round_up(ready + hold);
                    self.timers.set(cx, Kind::Release, release);
                    let data = self.clock.round_up(ready + self.p.data_interval_us);
                    self.timers.set(cx, Kind::Data, data.min(release));
                }
                (Event::Failed(_), State::Handshaking { .. } | State::Holding) => {
                    return self.end(cx, ready, SessionEnd::Failed);
                }
                // the server closed it: its slot went to another
                (Event::Closed, State::Handshaking { .. } | State::Holding) => {
                    return self.end(cx, ready, SessionEnd::Evicted);
                }
                _ => {}
            }
        }
    }

    fn send_data(&mut self, cx: &mut AppCx) {
        let data = vec![0u8; self.p.data_bytes];
        if let Some(conn) = self.conn.as_mut() {
            if conn.send(&data).is_ok() {
                self.pump(cx);
            }
        }
        if self.state == State::Holding {
            let at = self.clock.round_up(cx.now() + self.p.data_interval_us);
            self.timers.set(cx, Kind::Data, at);
        }
    }

    fn release(&mut self, cx: &mut AppCx) {
        let now = cx.now();
        // idle first: the close_notify's own Closed event is not an eviction
        self.state = State::Idle;
        if let Some(conn) = self.conn.as_mut() {
            conn.close();
            let ops = diff(&conn.stats().crypto, &self.crypto_before);
            self.crypto_before = conn.stats().crypto;
            let ready = self.cpu.run(cx, self.p.cost.of(&ops));
            let mut close_notify = None;
            while let Some(d) = conn.poll_transmit(now) {
                close_notify = Some(d.clone());
                self.cpu
                    .send_at(ready, sockaddr(self.p.server, DTLS_PORT), d);
            }
            if let Some(close_notify) = close_notify.filter(|_| self.p.close_until_answered) {
                let mut timer = dtls::timer::RetransmitTimer::new(self.p.config.config.retransmit);
                timer.start(ready);
                if let Some(at) = timer.deadline() {
                    let at = self.clock.round_up(at);
                    self.timers.set(cx, Kind::CloseRepeat, at);
                }
                self.closing = Some(Closing {
                    port: self.src_port(),
                    close_notify,
                    timer,
                });
            }
        }
        self.pump(cx);
        self.end(cx, now, SessionEnd::Released);
    }

    /// The close_notify went unanswered: repeat it, or give up.
    fn repeat_close(&mut self, cx: &mut AppCx) {
        let now = cx.now();
        let Some(c) = self.closing.as_mut() else {
            return;
        };
        if !c.timer.on_expiry(now) {
            self.closing = None;
            return;
        }
        // the same protected record again: no new cryptographic work
        cx.send(self.p.server, c.port, DTLS_PORT, c.close_notify.clone());
        if let Some(at) = c.timer.deadline() {
            let at = self.clock.round_up(at);
            self.timers.set(cx, Kind::CloseRepeat, at);
        }
    }
}

impl App<Record> for SessionClient {
    fn start(&mut self, cx: &mut AppCx) {
        let first = self.p.first_at;
        self.idle(cx, first);
    }

    fn on_udp(&mut self, cx: &mut AppCx, udp: Udp) {
        if udp.src != self.p.server {
            return;
        }
        if self
            .closing
            .as_ref()
            .is_some_and(|c| c.port == udp.dst_port)
        {
            // the server answered on the closed session: it heard us
            self.closing = None;
            self.timers.stop(Kind::CloseRepeat);
            return;
        }
        if udp.dst_port != self.src_port() {
            return;
        }
        let Some(conn) = self.conn.as_mut() else {
            return;
        };
        conn.handle_datagram(cx.now(), &udp.payload);
        self.pump(cx);
        // an attacker answers the HelloVerifyRequest, then goes silent
        if self.p.attack_interval_us.is_some() && self.conn.is_some() {
            let now = cx.now();
            self.conn = None;
            self.timers.stop(Kind::Retransmit);
            self.state = State::Idle;
            let at = self
                .clock
                .round_up(now + self.p.attack_interval_us.unwrap_or(0));
            self.timers.set(cx, Kind::Next, at);
        }
    }

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        match self.timers.fired(token) {
            Some(Kind::Send) => {
                let port = self.src_port();
                self.cpu.flush(cx, &mut self.timers, Kind::Send, port);
            }
            Some(Kind::Next) if self.state == State::Idle => self.request(cx),
            Some(Kind::Retransmit) => {
                if let Some(conn) = self.conn.as_mut() {
                    conn.handle_timeout(cx.now());
                    self.pump(cx);
                }
            }
            Some(Kind::Data) if self.state == State::Holding => self.send_data(cx),
            Some(Kind::Release) if self.state == State::Holding => self.release(cx),
            Some(Kind::CloseRepeat) => self.repeat_close(cx),
            _ => {}
        }
    }
}

/// A client, to the instantaneous table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Client(NodeId);

impl Peer for Client {
    fn same_host(&self, other: &Self) -> bool {
        self == other
    }
}

/// The sessions workload with instantaneous handshakes: the clients'
/// requests and releases, on an agenda at the server, meet the table at
/// once; nothing goes on the air.
pub struct InstantSessions {
    table: SlotTable<Client>,
    clients: Vec<NodeId>,
    habits: Vec<ChaCha8Rng>,
    idle_mean_us: f64,
    holding_mean_us: f64,
    first_at: Time,
    /// (when, client index, a release (else a request)).
    agenda: BTreeSet<(Time, usize, bool)>,
    timers: TimerTable<Kind>,
}

#[derive(Debug, Clone)]
pub struct InstantParams {
    pub limits: Limits,
    pub policy: Policy,
    pub clients: Vec<NodeId>,
    pub idle_mean_us: f64,
    pub holding_mean_us: f64,
    pub first_at: Time,
    pub seed: u64,
    pub replication: u64,
}

impl InstantSessions {
    pub fn new(p: InstantParams) -> Self {
        InstantSessions {
            table: SlotTable::new(p.limits, p.policy),
            habits: p
                .clients
                .iter()
                .map(|&n| habits(p.seed, p.replication, n))
                .collect(),
            clients: p.clients,
            idle_mean_us: p.idle_mean_us,
            holding_mean_us: p.holding_mean_us,
            first_at: p.first_at,
            agenda: BTreeSet::new(),
            timers: TimerTable::new(),
        }
    }

    fn plan(&mut self, i: usize, from: Time, release: bool) {
        let mean = if release {
            self.holding_mean_us
        } else {
            self.idle_mean_us
        };
        let at = from + exponential_us(&mut self.habits[i], mean);
        self.agenda.insert((at, i, release));
    }

    fn arm(&mut self, cx: &mut AppCx) {
        if let Some(&(at, _, _)) = self.agenda.first() {
            self.timers.set(cx, Kind::Next, at);
        }
    }

    fn request(&mut self, cx: &mut AppCx, i: usize) {
        let now = cx.now();
        let client = self.clients[i];
        cx.record(Record::SessionRequested { client });
        let decision = match self.table.admit(Client(client), now) {
            Admission::Admitted => Decision::Admitted,
            Admission::Evicted(Client(victim)) => Decision::Evicted(victim),
            Admission::Refused(_) => Decision::Refused,
        };
        cx.record(Record::SlotDecision { client, decision });
        if let Decision::Evicted(victim) = decision {
            cx.record(Record::SlotFreed {
                client: victim,
                why: SlotFreed::Evicted,
            });
            let v = self.clients.iter().position(|&c| c == victim).unwrap_or(0);
            self.agenda.retain(|&(_, j, _)| j != v);
            cx.record(Record::SessionEnded {
                client: victim,
                end: SessionEnd::Evicted,
            });
            self.plan(v, now, false);
        }
        if decision == Decision::Refused {
            cx.record(Record::SessionEnded {
                client,
                end: SessionEnd::Failed,
            });
            self.plan(i, now, false);
        } else {
            cx.record(Record::SlotTaken { client });
            self.table.established(&Client(client), now);
            cx.record(Record::SessionEstablished {
                client,
                handshake_us: 0,
                handshake_bytes: 0,
                resumed: false,
            });
            cx.record(Record::SlotsTaken {
                taken: self.table.len(),
            });
            self.plan(i, now, true);
        }
    }

    fn release(&mut self, cx: &mut AppCx, i: usize) {
        let client = self.clients[i];
        self.table.release(&Client(client));
        cx.record(Record::SlotFreed {
            client,
            why: SlotFreed::Closed,
        });
        cx.record(Record::SessionEnded {
            client,
            end: SessionEnd::Released,
        });
        cx.record(Record::SlotsTaken {
            taken: self.table.len(),
        });
        let now = cx.now();
        self.plan(i, now, false);
    }
}

impl App<Record> for InstantSessions {
    fn start(&mut self, cx: &mut AppCx) {
        for i in 0..self.clients.len() {
            self.plan(i, self.first_at, false);
        }
        self.arm(cx);
    }

    fn on_udp(&mut self, _: &mut AppCx, _: Udp) {}

    fn on_timer(&mut self, cx: &mut AppCx, token: Token) {
        if self.timers.fired(token) != Some(Kind::Next) {
            return;
        }
        let now = cx.now();
        while let Some(&(at, i, release)) = self.agenda.first() {
            if at > now {
                break;
            }
            self.agenda.pop_first();
            if release {
                self.release(cx, i);
            } else {
                self.request(cx, i);
            }
        }
        self.arm(cx);
    }
}
