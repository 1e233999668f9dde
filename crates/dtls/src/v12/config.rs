//! DTLS 1.2's client and server configurations: the shared knobs
//! ([`Config`]) with a side's credentials, and the server endpoint's
//! cookie, session-table and resumption settings.

use std::fmt;
use std::sync::Arc;

use session_table::{Limits, Policy};

use crate::cert::{CertificateVerifier, CertifiedKey};
use crate::config::{Config, PskStore, SinglePsk};
use crate::crypto::suite::Secret;

/// Client configuration.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Common knobs.
    pub config: Config,
    /// PSK identity and key (for the PSK suites).
    pub psk: Option<(Vec<u8>, Secret)>,
    /// How the server certificate is accepted (ECDHE suites).
    pub server_verifier: CertificateVerifier,
    /// Client certificate offered if the server asks for one.
    pub client_certificate: Option<CertifiedKey>,
}

impl ClientConfig {
    /// A PSK client.
    pub fn psk(config: Config, identity: &[u8], key: &[u8]) -> Self {
        ClientConfig {
            config,
            psk: Some((identity.to_vec(), Secret(key.to_vec()))),
            server_verifier: CertificateVerifier::AcceptAny,
            client_certificate: None,
        }
    }
}

/// Server configuration.
#[derive(Clone)]
pub struct ServerConfig {
    /// Common knobs.
    pub config: Config,
    /// PSK lookup (None: no PSK suite is accepted).
    pub psk_store: Option<Arc<dyn PskStore>>,
    /// identity hint sent in a ServerKeyExchange (None: no ServerKeyExchange
    /// for PSK suites).
    pub psk_identity_hint: Option<Vec<u8>>,
    /// Certificate and key (None: no ECDHE-ECDSA suite is accepted).
    pub certificate: Option<CertifiedKey>,
    /// Ask the client for a certificate (ECDHE suites), verified this way.
    pub client_verifier: Option<CertificateVerifier>,
    /// Maximum concurrent sessions (handshaking or established).
    pub max_sessions: usize,
    /// Maximum concurrent half-open handshakes (cookie verified, not
    /// complete); see [`session_table`].
    pub max_half_open: usize,
    /// A half-open handshake older than this is dropped (default
    /// [`session_table::HALF_OPEN_TIMEOUT_US`], so a client silent after the
    /// cookie exchange cannot hold a slot forever; `u64::MAX`: never).
    pub half_open_timeout_us: u64,
    /// An established session silent this long is dropped (u64::MAX:
    /// never, as in tinyDTLS, which keeps no idle timer).
    pub idle_timeout_us: u64,
    /// Sessions kept for resumption by session ID (RFC 5246 §7.3), the
    /// oldest dropped first; 0: none, and no session ID is given (tinyDTLS
    /// has no resumption).
    pub session_cache: usize,
    /// Maximum sessions from one IP address (any port).
    pub max_sessions_per_address: usize,
    /// What makes room for a new handshake when a limit is reached.
    pub eviction: Policy,
    /// An established session silent at least this long is evicted
    /// rather than a new handshake refused (`u64::MAX`: never; see
    /// [`session_table::Limits::idle_evictable_us`]).
    pub idle_evictable_us: u64,
    /// Protect handshakes whose client answered the server's first flight
    /// from eviction by newcomers, and evict from the host holding the most
    /// half-open handshakes ([`session_table::Limits::protect_progressed`]).
    pub protect_progressed: bool,
    /// A host starts at most one handshake per this many µs; a verified
    /// hello sooner is dropped unanswered (`u64::MAX`: no limit; see
    /// [`session_table::Limits::per_host_interval_us`]).
    pub per_host_interval_us: u64,
    /// Answer a PSK identity the store does not know with an
    /// `unknown_psk_identity` alert. Off (the default), the handshake goes
    /// on with a random stand-in key and fails at the client's Finished with
    /// `bad_record_mac`, exactly as a known identity with a wrong key does,
    /// so a client cannot probe which identities exist (RFC 4279 §2 allows
    /// both answers).
    pub reveal_unknown_psk_identity: bool,
    /// Cookie length in bytes (1..=32).
    pub cookie_len: usize,
    /// Cookie secret rotation period; cookies made with the previous secret
    /// stay valid for one more period.
    pub cookie_rotation_us: u64,
    /// Send a HelloVerifyRequest (stateless cookie exchange). Turning it off
    /// is a measurement knob only: the server then creates state on the
    /// first ClientHello.
    pub require_cookie: bool,
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("config", &self.config)
            .field("psk_store", &self.psk_store.as_ref().map(|_| "…"))
            .field("psk_identity_hint", &self.psk_identity_hint)
            .field("certificate", &self.certificate)
            .field("client_verifier", &self.client_verifier)
            .field("max_sessions", &self.max_sessions)
            .field("max_half_open", &self.max_half_open)
            .field("half_open_timeout_us", &self.half_open_timeout_us)
            .field("idle_timeout_us", &self.idle_timeout_us)
            .field("session_cache", &self.session_cache)
            .field("max_sessions_per_address", &self.max_sessions_per_address)
            .field("eviction", &self.eviction)
            .field("idle_evictable_us", &self.idle_evictable_us)
            .field("protect_progressed", &self.protect_progressed)
            .field("per_host_interval_us", &self.per_host_interval_us)
            .field(
                "reveal_unknown_psk_identity",
                &self.reveal_unknown_psk_identity,
            )
            .field("cookie_len", &self.cookie_len)
            .field("cookie_rotation_us", &self.cookie_rotation_us)
            .field("require_cookie", &self.require_cookie)
            .finish()
    }
}

impl ServerConfig {
    crate::config::session_limit_methods!();

    /// A PSK server with one identity.
    pub fn psk(config: Config, identity: &[u8], key: &[u8]) -> Self {
        ServerConfig {
            config,
            psk_store: Some(Arc::new(SinglePsk {
                identity: identity.to_vec(),
                key: Secret(key.to_vec()),
            })),
            psk_identity_hint: None,
            certificate: None,
            client_verifier: None,
            // A table of 16 that refuses when full, as the constrained
            // servers the simulator models do; a server facing the open
            // network sets session_table::Limits::guarded (the UDP driver does).
            max_sessions: 16,
            max_half_open: 16,
            half_open_timeout_us: session_table::HALF_OPEN_TIMEOUT_US,
            idle_timeout_us: u64::MAX,
            session_cache: 0,
            max_sessions_per_address: usize::MAX,
            eviction: Policy::Refuse,
            idle_evictable_us: u64::MAX,
            protect_progressed: false,
            per_host_interval_us: u64::MAX,
            reveal_unknown_psk_identity: false,
            cookie_len: 16,
            cookie_rotation_us: 60_000_000,
            require_cookie: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cert::CertifiedKey;
    use crate::config::RetransmitPolicy;

    #[test]
    fn secrets_stay_out_of_debug_output() {
        let key = [0xA5u8; 16];
        let c = ClientConfig::psk(Config::default(), b"me", &key);
        let s = ServerConfig::psk(Config::default(), b"me", &key);
        let ck = CertifiedKey {
            chain: vec![vec![1, 2, 3]],
            private_key: Secret(vec![0xA5; 32]),
        };
        for text in [format!("{c:?}"), format!("{s:?}"), format!("{ck:?}")] {
            assert!(!text.contains("165"), "{text}");
            assert!(!text.to_lowercase().contains("a5"), "{text}");
        }
        assert!(format!("{c:?}").contains("redacted"));
    }

    #[test]
    fn the_half_open_timeout_outlasts_two_flights_of_a_live_rfc6347_peer() {
        let p = RetransmitPolicy::RFC6347;
        let one_flight: u64 = (0..=p.max_retransmissions())
            .map(|k| p.interval_us(k))
            .sum();
        assert_eq!(session_table::HALF_OPEN_TIMEOUT_US, 2 * one_flight);
        let s = ServerConfig::psk(Config::default(), b"me", &[1; 16]);
        assert_eq!(s.half_open_timeout_us, session_table::HALF_OPEN_TIMEOUT_US);
    }
}
