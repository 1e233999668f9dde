//! The knobs both versions share ([`Config`]: MTU, fragmenting, record
//! packing, retransmission, connection IDs) and server-side PSK lookup.
//! Each version's client and server configurations wrap them
//! (`v12::config`, `v13::config`).

use crate::crypto::suite::{CipherSuite, Secret};
use crate::error::ConfigError;

/// How records are put into datagrams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordPacking {
    /// Every record in its own datagram (what tinyDTLS does).
    OneRecordPerDatagram,
    /// As many records of a flight as fit the MTU in one datagram.
    PackFlight,
}

/// Retransmission policy (all times in microseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetransmitPolicy {
    /// Same interval every time.
    Fixed {
        /// Interval.
        interval_us: u64,
        /// Retransmissions before the handshake fails.
        max_retransmissions: u32,
    },
    /// RFC 6347: start at `initial_us`, double on every expiry up to `max_us`.
    Doubling {
        /// First interval (RFC 6347: 1 s).
        initial_us: u64,
        /// Ceiling (RFC 6347: 60 s).
        max_us: u64,
        /// Retransmissions before the handshake fails.
        max_retransmissions: u32,
    },
    /// tinyDTLS (dtls.c `dtls_send_multi`, `dtls_retransmit`): every queued
    /// handshake record waits `initial_us` (2 · CLOCK_SECOND) before its
    /// first retransmission and `initial_us << n` after its n-th, with no
    /// ceiling; after `max_retransmissions` (global.h
    /// `DTLS_DEFAULT_MAX_RETRANSMIT` = 7) the next expiry drops it. tinyDTLS
    /// keeps one timer per record, but all records of a flight are queued
    /// at one instant, so they expire together: one timer per flight with
    /// this schedule is the same thing. The queue is cleared by the first
    /// in-order handshake message, ChangeCipherSpec or alert of the peer,
    /// not by the whole next flight (see [`RetransmitPolicy::peer_input_clears_flight`]).
    ///
    /// It answers nothing to a repeat of the peer's previous flight:
    /// `handle_handshake` drops a message whose message_seq is below the
    /// one it expects, a repeated ClientHello included while the handshake
    /// is under way (only a connected peer's epoch-0 ClientHello starts a
    /// new one, `hs_attempt_with_existing_peer`). This is the tinyDTLS of
    /// the reference measurements (2015; the code as first imported into
    /// eclipse/tinydtls, commit e1388b3 of 2016-02). Since 2022 tinyDTLS
    /// handles every epoch-0 ClientHello statelessly
    /// (`handle_0_client_hello`), so a repeated one restarts the
    /// handshake; not modelled. A lost flight is recovered by its own
    /// timer only. A server never resends its last flight
    /// (ChangeCipherSpec, Finished): it clears its queue on completing.
    /// Its buffers are limited, and leak: see [`crate::netq`] and
    /// [`Config::netq`] (the simulator gives every node running this
    /// policy a pool of its own).
    Tinydtls {
        /// Wait before the first retransmission (tinyDTLS: 2 s).
        initial_us: u64,
        /// Retransmissions before the handshake fails (tinyDTLS: 7).
        max_retransmissions: u32,
    },
}

impl RetransmitPolicy {
    /// RFC 6347 defaults: 1 s doubling to 60 s, 6 retransmissions.
    pub const RFC6347: RetransmitPolicy = RetransmitPolicy::Doubling {
        initial_us: 1_000_000,
        max_us: 60_000_000,
        max_retransmissions: 6,
    };
    /// tinyDTLS: 2 s, then 4, 8, 16 … s, 7 retransmissions (dtls.c
    /// `dtls_send_multi` sets `timeout = 2 * CLOCK_SECOND`; global.h
    /// `DTLS_DEFAULT_MAX_RETRANSMIT` = 7).
    pub const TINYDTLS: RetransmitPolicy = RetransmitPolicy::Tinydtls {
        initial_us: 2_000_000,
        max_retransmissions: 7,
    };
    /// Wait after the `made`-th retransmission (0: after the first
    /// transmission) before the next.
    pub fn interval_us(&self, made: u32) -> u64 {
        let doubled = |initial: u64| initial.checked_shl(made).filter(|v| v >> made == initial);
        match *self {
            RetransmitPolicy::Fixed { interval_us, .. } => interval_us,
            RetransmitPolicy::Doubling {
                initial_us, max_us, ..
            } => doubled(initial_us).map_or(max_us, |v| v.min(max_us)),
            // dtls_retransmit: node->t = now + (node->timeout << node->retransmit_cnt)
            RetransmitPolicy::Tinydtls { initial_us, .. } => {
                doubled(initial_us).unwrap_or(u64::MAX)
            }
        }
    }
    /// Retransmission limit.
    pub fn max_retransmissions(&self) -> u32 {
        match *self {
            RetransmitPolicy::Fixed {
                max_retransmissions,
                ..
            }
            | RetransmitPolicy::Doubling {
                max_retransmissions,
                ..
            }
            | RetransmitPolicy::Tinydtls {
                max_retransmissions,
                ..
            } => max_retransmissions,
        }
    }
    /// Does a repeat of the peer's previous flight (a sign that ours was
    /// lost) make this side resend its current flight at once? RFC 6347
    /// §4.2.4 says yes; tinyDTLS never does (see [`RetransmitPolicy::Tinydtls`]).
    pub fn resends_on_repeat(&self) -> bool {
        !matches!(self, RetransmitPolicy::Tinydtls { .. })
    }
    /// Does input from the peer clear this side's retransmission queue
    /// before the flight it answers is complete? tinyDTLS 0.8.2 calls
    /// `dtls_stop_retransmission` in `handle_handshake_msg` before it looks
    /// at the message, for every message `handle_handshake` passes on
    /// (message_seq equal to the one expected), and in `dtls_handle_message`
    /// before `handle_ccs` and `handle_alert`, for every ChangeCipherSpec and
    /// alert record of a known peer. So a server that has the
    /// ClientKeyExchange resends nothing if the client's ChangeCipherSpec or
    /// Finished is then lost, a client that has the ServerHello resends
    /// nothing if the ServerHelloDone is lost (the peer's own timer
    /// recovers both), and a client that has the server's ChangeCipherSpec
    /// waits for the Finished with no timer at all (the server never resends
    /// it). Seen in the Cooja oracle (reference/cooja): over 1-hop cxmac at
    /// CI 250 ms the client's Finished arrives 2.02 s after it sent its
    /// flight, past its 2 s timer, and its log counts no retransmission.
    /// RFC 6347 §4.2.4 cancels the timer only when the whole next flight has
    /// arrived (here: when this side sends its own).
    pub fn peer_input_clears_flight(&self) -> bool {
        matches!(self, RetransmitPolicy::Tinydtls { .. })
    }
    /// After how many unanswered retransmissions of a ClientHello that
    /// carries a cookie a 1.2 client starts over with a hello without it
    /// (a server that restarted has a new cookie secret, and some ignore a
    /// stale cookie rather than send a new HelloVerifyRequest: pion). None
    /// under tinyDTLS's policy, whose client does not.
    pub fn stale_cookie_resends(&self) -> Option<u32> {
        match self {
            RetransmitPolicy::Tinydtls { .. } => None,
            // estimate: 3 unanswered resends (at 1, 3 and 7 s on the RFC
            // 6347 timer; the fresh hello at 15 s) before starting over,
            // which costs one round trip more
            _ => Some(3),
        }
    }
    /// Is a record of the peer's next epoch that arrives during the
    /// handshake before the peer's ChangeCipherSpec (the CCS was lost, or
    /// overtaken) fatal, as in tinyDTLS 0.8.2, rather than kept for when the
    /// CCS comes (RFC 6347 §4.1 lets a receiver buffer or discard it)?
    /// tinyDTLS's server derives the new epoch's keys only on the client's
    /// CCS (dtls.c `handle_ccs` calls `calculate_key_block` for the server),
    /// so it finds no keys for the record (`dtls_security_params_epoch`
    /// NULL), `decrypt_verify` fails and `dtls_handle_message` sends a fatal
    /// decrypt_error and destroys the peer. Its client has the keys since
    /// it sent its ClientKeyExchange, decrypts the server's Finished, and
    /// `handle_handshake_msg` refuses a Finished outside
    /// DTLS_STATE_WAIT_FINISHED with a fatal unexpected_message alert,
    /// after the Finished has cleared its retransmission queue; it is left
    /// waiting, and the server drops the session on the alert.
    pub fn fatal_before_change_cipher_spec(&self) -> bool {
        matches!(self, RetransmitPolicy::Tinydtls { .. })
    }
}

/// Which hello extensions are sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extensions {
    /// extended_master_secret (RFC 7627). The server answers it when offered.
    pub extended_master_secret: bool,
    /// Refuse peers that do not negotiate the extended master secret.
    pub require_extended_master_secret: bool,
    /// Client: send an empty renegotiation_info (RFC 5746). The server always
    /// answers it (or the SCSV) when offered: OpenSSL 3.0 clients refuse
    /// servers that do not.
    pub renegotiation_info: bool,
    /// Client: offer TLS_EMPTY_RENEGOTIATION_INFO_SCSV (RFC 5746 §3.4)
    /// among the cipher suites when the renegotiation_info extension is
    /// not sent, as the common stacks do, and take the server's empty
    /// renegotiation_info in answer (pion sends it on resumption). Off for
    /// the constrained profiles (tinyDTLS sends neither).
    pub renegotiation_scsv: bool,
    /// Client, ECDHE suites: send supported_groups, ec_point_formats and
    /// signature_algorithms (OpenSSL needs them).
    pub ecc_extensions: bool,
}

impl Default for Extensions {
    fn default() -> Self {
        Extensions {
            extended_master_secret: true,
            require_extended_master_secret: false,
            renegotiation_info: true,
            renegotiation_scsv: true,
            ecc_extensions: true,
        }
    }
}

/// Knobs common to client and server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Largest datagram (UDP payload) this side sends. Handshake messages
    /// are fragmented to fit; the one floor is the first fragment of a
    /// ClientHello, which holds everything up to the cookie (61 B + the
    /// server's cookie length) because a stateless server needs it whole.
    /// Application data records are not fragmented (an application record
    /// larger than the MTU makes a larger datagram).
    pub mtu: usize,
    /// Largest handshake fragment body (bytes after the 12-byte handshake
    /// header) put in one record.
    pub max_fragment_len: usize,
    /// One record per datagram, or a packed flight.
    pub packing: RecordPacking,
    /// Retransmission timer.
    pub retransmit: RetransmitPolicy,
    /// Suites offered (client) or accepted (server), in preference order.
    pub cipher_suites: Vec<CipherSuite>,
    /// Hello extensions.
    pub extensions: Extensions,
    /// How many records of the peer's new epoch may fail authentication
    /// during the handshake before the handshake is aborted with a
    /// bad_record_mac alert (a wrong PSK shows up this way). The default, 1,
    /// alerts at the first failed Finished, so a peer that never resends
    /// (tinyDTLS) still learns why. Records failing authentication after
    /// the handshake are always dropped silently.
    pub handshake_auth_failures_before_alert: u32,
    /// Largest handshake message accepted (reassembly buffer bound).
    pub max_handshake_message_len: usize,
    /// Connection ID for DTLS 1.2 (RFC 9146): `None` does not offer or
    /// answer the connection_id extension; `Some(n)` negotiates it, asking
    /// the peer to put a random n-byte CID of this side in every protected
    /// record to it (0: this side sends CIDs but wants none). DTLS 1.3
    /// has its own knob, `Config13::cid_len`.
    pub cid_len: Option<usize>,
    /// tinyDTLS 0.8.2's packet buffers (see [`crate::netq`]): the mote's
    /// pool, shared by all its connections; None: unbounded (RFC 6347
    /// keeps a whole flight). Only with [`RetransmitPolicy::Tinydtls`].
    pub netq: Option<crate::netq::NetqPool>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            mtu: 1400,
            max_fragment_len: 1400,
            packing: RecordPacking::PackFlight,
            retransmit: RetransmitPolicy::RFC6347,
            cipher_suites: CipherSuite::ALL.to_vec(),
            extensions: Extensions::default(),
            handshake_auth_failures_before_alert: 1,
            max_handshake_message_len: 8192,
            cid_len: None,
            netq: None,
        }
    }
}

impl Config {
    /// Tightest settings for a PSK-CCM8 handshake: one suite, no optional
    /// extension, packed flights.
    pub fn tightest_psk_ccm8() -> Self {
        Config {
            cipher_suites: vec![CipherSuite::PskAes128Ccm8],
            extensions: Extensions {
                extended_master_secret: false,
                require_extended_master_secret: false,
                renegotiation_info: false,
                renegotiation_scsv: false,
                ecc_extensions: false,
            },
            ..Config::default()
        }
    }
    /// tinyDTLS-like settings: one record per datagram, tinyDTLS's
    /// retransmission timer, PSK-CCM8 with the extended master secret.
    pub fn tinydtls_like() -> Self {
        Config {
            packing: RecordPacking::OneRecordPerDatagram,
            retransmit: RetransmitPolicy::TINYDTLS,
            cipher_suites: vec![CipherSuite::PskAes128Ccm8],
            extensions: Extensions {
                extended_master_secret: true,
                require_extended_master_secret: false,
                renegotiation_info: false,
                renegotiation_scsv: false,
                ecc_extensions: false,
            },
            ..Config::default()
        }
    }
    pub(crate) fn validate(&self) -> Result<(), crate::Error> {
        if !(64..=65507).contains(&self.mtu) {
            return Err(crate::Error::Config(ConfigError::Mtu));
        }
        if self.max_handshake_message_len > 0xff_ffff {
            return Err(crate::Error::Config(ConfigError::MaxHandshakeMessageLen));
        }
        if self.max_fragment_len == 0 {
            return Err(crate::Error::Config(ConfigError::ZeroMaxFragmentLen));
        }
        if self.cipher_suites.is_empty() {
            return Err(crate::Error::Config(ConfigError::NoSuite));
        }
        // RFC 9146 §3: opaque cid<0..2^8-1>
        if self.cid_len.is_some_and(|n| n > 255) {
            return Err(crate::Error::Config(ConfigError::CidLenOver255));
        }
        Ok(())
    }
}

/// Server-side PSK lookup.
pub trait PskStore: Send + Sync {
    /// The key for `identity`, or None if unknown.
    fn lookup(&self, identity: &[u8]) -> Option<Secret>;
}

/// A store with one identity.
#[derive(Clone, Debug)]
pub struct SinglePsk {
    /// Identity.
    pub identity: Vec<u8>,
    /// Key.
    pub key: Secret,
}

impl PskStore for SinglePsk {
    fn lookup(&self, identity: &[u8]) -> Option<Secret> {
        (identity == self.identity.as_slice()).then(|| self.key.clone())
    }
}

impl PskStore for std::collections::HashMap<Vec<u8>, Secret> {
    fn lookup(&self, identity: &[u8]) -> Option<Secret> {
        self.get(identity).cloned()
    }
}

/// One definition of how a server configuration's session-table fields
/// (1.2's `ServerConfig` and 1.3's `ServerConfig13` carry the same ones;
/// `u64::MAX`/`usize::MAX` stand for "none") map to and from
/// [`session_table::Limits`]: generates `session_limits` and
/// `set_session_limits` in the `impl` it is called in.
macro_rules! session_limit_methods {
    () => {
        /// The session-table bounds these settings give.
        pub fn session_limits(&self) -> Limits {
            // u64::MAX is "none": no expiry (a deadline at the end of time
            // would be reported by poll_timeout as a timer to run)
            let some = |v: u64| (v != u64::MAX).then_some(v);
            Limits {
                slots: self.max_sessions,
                half_open_max: Some(self.max_half_open),
                half_open_timeout_us: some(self.half_open_timeout_us),
                idle_timeout_us: some(self.idle_timeout_us),
                per_host_max: Some(self.max_sessions_per_address),
                idle_evictable_us: some(self.idle_evictable_us),
                protect_progressed: self.protect_progressed,
                per_host_interval_us: some(self.per_host_interval_us),
            }
        }

        /// Set every session-table bound and the eviction policy at once.
        pub fn set_session_limits(&mut self, limits: Limits, eviction: Policy) {
            self.max_sessions = limits.slots;
            self.max_half_open = limits.half_open_max.unwrap_or(limits.slots);
            self.half_open_timeout_us = limits.half_open_timeout_us.unwrap_or(u64::MAX);
            self.idle_timeout_us = limits.idle_timeout_us.unwrap_or(u64::MAX);
            self.max_sessions_per_address = limits.per_host_max.unwrap_or(usize::MAX);
            self.idle_evictable_us = limits.idle_evictable_us.unwrap_or(u64::MAX);
            self.protect_progressed = limits.protect_progressed;
            self.per_host_interval_us = limits.per_host_interval_us.unwrap_or(u64::MAX);
            self.eviction = eviction;
        }
    };
}
pub(crate) use session_limit_methods;
