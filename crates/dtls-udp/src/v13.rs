//! DTLS 1.3 (RFC 9147) over real UDP: the same wall-clock loops as the 1.2
//! driver, around [`Connection13`] and [`Server13`](dtls::v13::endpoint::Server13).
//!
//! - [`run_client13`]: connect, handshake, send messages, collect replies,
//!   close; returns a [`ClientReport13`].
//! - [`bind_server13`] / [`BoundServer13::run`] (or [`run_server13`]):
//!   accept sessions, echo application data (optional), stop on a
//!   [`StopCondition`]; returns a [`ServerReport13`].
//!
//! The reports have the 1.2 reports' fields where 1.3 has the same thing;
//! the suite is a 1.3 suite and the endpoint counters are 1.3's
//! (HelloRetryRequests instead of HelloVerifyRequests).

use std::sync::Arc;

use dtls::v13::config::{ClientConfig13, ServerConfig13};
use dtls::v13::connection::Connection13;
use dtls::v13::endpoint::{Dtls13, EndpointStats13};
use dtls::v13::suite::CipherSuite13;
use dtls::v13::ticket::Ticket13;
use rand_chacha::ChaCha20Rng;

use super::{
    bind_server, run_client, run_server, BoundServer, ClientOptions, ClientReport, ClientVersion,
    Error, HandshakeRecord, ServerOptions, ServerReport, ServerVersion, StopCondition,
};

/// Options of [`run_client13`].
pub type ClientOptions13 = ClientOptions<ClientConfig13>;

/// What one DTLS 1.3 client run measured.
pub type ClientReport13 = ClientReport<CipherSuite13, SavedTicket>;

/// A DTLS 1.3 ticket to resume with (RFC 8446 §4.6.1) and its age: what
/// [`ClientOptions13::resume`] offers and a report's `resumable` keeps.
#[derive(Clone, Debug)]
pub struct SavedTicket {
    /// The ticket and its PSK (kept out of `Debug`).
    pub ticket: Ticket13,
    /// Milliseconds since it came (0 in a report: it has just come), for
    /// the obfuscated_ticket_age (RFC 8446 §4.2.11.1).
    pub age_ms: u32,
}

/// Connect to a DTLS 1.3 server: [`run_client`] for 1.3.
pub fn run_client13(opts: &ClientOptions13) -> Result<ClientReport13, Error> {
    run_client(opts)
}

// DTLS 1.3's client reports the peer's close_notify (and its last alert),
// says an unfinished handshake's end as what it was, and does not close a
// connection the peer closed.
impl ClientVersion for ClientConfig13 {
    type Suite = CipherSuite13;
    type Conn = Connection13;
    type Resumable = SavedTicket;
    fn connect(
        config: Arc<Self>,
        resume: Option<&SavedTicket>,
        rng: &mut ChaCha20Rng,
    ) -> Result<Connection13, dtls::Error> {
        match resume {
            Some(s) => Connection13::client_resuming(config, &s.ticket, s.age_ms, rng, 0),
            None => Connection13::client(config, rng, 0),
        }
    }
    fn resumption(conn: &Connection13) -> (bool, Option<SavedTicket>) {
        let saved = conn.ticket().map(|t| SavedTicket {
            ticket: t.clone(),
            age_ms: 0,
        });
        (conn.resumed(), saved)
    }
    fn cipher_suite(conn: &Connection13) -> Option<CipherSuite13> {
        conn.cipher_suite()
    }
    fn closed(report: &mut ClientReport13, _waiting: bool) -> Result<bool, dtls::Error> {
        report.closed_by_peer = true;
        Ok(true)
    }
    fn unfinished(report: &ClientReport13) -> dtls::Error {
        match report.alert_received {
            Some(a) => dtls::Error::AlertReceived(a.description),
            None => dtls::Error::NotConnected,
        }
    }
    fn closes(report: &ClientReport13) -> bool {
        !report.closed_by_peer
    }
    fn retransmit(&self) -> &dtls::RetransmitPolicy {
        &self.config.common.retransmit
    }
}

impl ServerVersion for ServerConfig13 {
    type Suite = CipherSuite13;
    type EndpointStats = EndpointStats13;
    type Endpoint = Dtls13<ChaCha20Rng>;
    const VERSION: &'static str = "1.3";
    fn cipher_suite(conn: &Connection13) -> Option<CipherSuite13> {
        conn.cipher_suite()
    }
    fn suite_name(suite: &CipherSuite13) -> &'static str {
        suite.name()
    }
    fn resumed(conn: &Connection13) -> bool {
        conn.resumed()
    }
    fn uncounted_retries(stats: &EndpointStats13) -> u64 {
        stats.hello_retry_requests
    }
}

/// Options of the DTLS 1.3 server loop.
pub type ServerOptions13 = ServerOptions<ServerConfig13>;

/// One completed DTLS 1.3 handshake.
pub type HandshakeRecord13 = HandshakeRecord<CipherSuite13>;

/// What one DTLS 1.3 server run measured: the 1.2 report's fields, with
/// 1.3's handshake records and endpoint counters (HelloRetryRequests
/// instead of HelloVerifyRequests).
pub type ServerReport13 = ServerReport<HandshakeRecord13, EndpointStats13>;

/// A bound DTLS 1.3 server socket, ready to [`BoundServer::run`].
pub type BoundServer13 = BoundServer<ServerConfig13>;

/// Bind the DTLS 1.3 server socket: [`bind_server`] for 1.3.
pub fn bind_server13(opts: &ServerOptions13) -> Result<BoundServer13, Error> {
    bind_server(opts)
}

/// Bind and run a DTLS 1.3 server until `stop`: [`run_server`] for 1.3.
pub fn run_server13(opts: &ServerOptions13, stop: StopCondition) -> Result<ServerReport13, Error> {
    run_server(opts, stop)
}
