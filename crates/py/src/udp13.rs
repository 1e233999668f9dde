//! DTLS 1.3 (RFC 9147) over real UDP: the wall-clock driver of
//! `crates/dtls-udp` (`run_client13`, `BoundServer13`). The shared knobs
//! (MTU, record packing, retransmission) come from the same `[dtls]`
//! settings as 1.2; what only 1.3 has (its suite, key exchange, group,
//! connection ID, certificate type) is given by name here.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use dtls::cert::CertificateType;
use dtls::v13::config::{ClientConfig13, Config13, Credential13, ServerConfig13, MAX_CID_LEN};
use dtls::v13::header::{HeaderForm, SeqLen};
use dtls::v13::key_exchange::NamedGroup;
use dtls::v13::messages::PskMode;
use dtls::v13::suite::CipherSuite13;
use dtls::v13::ticket::{Ticket13, TicketStore13, TICKET_LIFETIME_S};
use dtls::CertificateVerifier;
use dtls_udp::{ClientOptions13, SavedTicket, ServerOptions13, ServerReportOf};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::scenario::{message, parse};
use crate::udp::{addr, own_key, server_report, stats_dict, value_err, OwnKey, UdpServerBase};
use schema::dtls::hex;

/// A suite by its RFC 8446 name, case and `-`/`_` not minded
/// (`tls-aes-128-ccm-8-sha256` too).
fn suite13(name: &str) -> PyResult<CipherSuite13> {
    let norm = |s: &str| s.to_ascii_uppercase().replace('-', "_");
    CipherSuite13::ALL
        .into_iter()
        .find(|s| norm(s.name()) == norm(name))
        .ok_or_else(|| {
            let names: Vec<_> = CipherSuite13::ALL.iter().map(|s| s.name()).collect();
            PyValueError::new_err(format!(
                "suite = {name:?}: the DTLS 1.3 stack runs {}",
                names.join(", ")
            ))
        })
}

fn group13(name: &str) -> PyResult<NamedGroup> {
    match name.to_ascii_lowercase().as_str() {
        "secp256r1" | "p-256" | "p256" => Ok(NamedGroup::Secp256r1),
        "x25519" => Ok(NamedGroup::X25519),
        _ => Err(PyValueError::new_err(format!(
            "group = {name:?}: one of secp256r1 (P-256), x25519"
        ))),
    }
}

/// A comma-separated list of groups, in order of preference: a client
/// sends a key share for the first and supports them all (a server that
/// prefers another asks for it with a HelloRetryRequest, RFC 8446 §4.1.4);
/// a server picks the first the client supports.
fn groups13(names: &str) -> PyResult<Vec<NamedGroup>> {
    let mut groups = Vec::new();
    for name in names.split(',').map(str::trim) {
        let g = group13(name)?;
        if groups.contains(&g) {
            return Err(PyValueError::new_err(format!(
                "group = {names:?}: {name} is listed twice"
            )));
        }
        groups.push(g);
    }
    Ok(groups)
}

/// The 1.3 knobs: the `[dtls]` table's shared ones plus the 1.3 choices.
/// `psk_dhe`: with a PSK, also an ECDHE exchange (psk_dhe_ke, RFC 8446
/// §4.2.9) instead of psk_ke.
fn config13(
    json: &str,
    suite: &str,
    group: &str,
    psk_dhe: bool,
    cid: Option<usize>,
    rpk: bool,
) -> PyResult<Config13> {
    let d = schema::read_dtls(&parse("DTLS settings", json)?)
        .map_err(|p| PyValueError::new_err(message(&p)))?;
    // the 1.2 suite of the table is not used by 1.3 (Config13::common)
    let common = d.config(dtls::CipherSuite::ALL[0]);
    if cid.is_some_and(|n| n > MAX_CID_LEN) {
        return Err(PyValueError::new_err(format!(
            "cid = {}: a connection ID of 0 to {MAX_CID_LEN} bytes",
            cid.unwrap_or_default()
        )));
    }
    Ok(Config13 {
        common,
        suites: vec![suite13(suite)?],
        psk_modes: vec![if psk_dhe {
            PskMode::PskDheKe
        } else {
            PskMode::PskKe
        }],
        groups: groups13(group)?,
        cid_len: cid,
        certificate_types: vec![if rpk {
            CertificateType::RawPublicKey
        } else {
            CertificateType::X509
        }],
        ..Config13::default()
    })
}

/// The unified header this side writes: `seq_len` sequence-number bytes
/// (RFC 9147 §4), the length left out of a datagram's last record. A
/// receiver reconstructs an 8-bit number only across fewer than 128 lost
/// records in a row (§4.2.2), which a sender outrunning a UDP socket
/// exceeds; 2 bytes allow 32 768.
fn header_form(seq_len: usize) -> PyResult<HeaderForm> {
    let seq_len = match seq_len {
        1 => SeqLen::Bits8,
        2 => SeqLen::Bits16,
        n => {
            return Err(PyValueError::new_err(format!(
                "seq_len = {n}: sequence numbers of 1 or 2 bytes"
            )))
        }
    };
    Ok(HeaderForm {
        seq_len,
        ..HeaderForm::COMPACT
    })
}

fn psk_of(json: &str) -> PyResult<Option<(String, Vec<u8>)>> {
    let d = schema::read_dtls(&parse("DTLS settings", json)?)
        .map_err(|p| PyValueError::new_err(message(&p)))?;
    let v: serde_json::Value = serde_json::from_str(json).map_err(value_err)?;
    // a PSK handshake only when a key was given (the table has a default)
    Ok(v.get("psk_hex")
        .is_some()
        .then(|| (d.identity.clone(), hex(&d.psk_hex).unwrap_or_default())))
}

/// This side's own credential, for the handshakes that authenticate it:
/// the raw public key of `private_key` (`rpk`), or `certificate` with
/// it (PEM or DER, P-256); none without a key.
fn credential13(
    certificate: Option<Vec<u8>>,
    private_key: Option<Vec<u8>>,
    rpk: bool,
) -> PyResult<Option<Credential13>> {
    own_key(certificate, private_key, rpk)?
        .map(|k| match k {
            OwnKey::RawPublicKey(key) => Credential13::raw_public_key(key).map_err(value_err),
            OwnKey::Certificate(c) => Ok(Credential13::x509(c)),
        })
        .transpose()
}

/// Handshake with a DTLS 1.3 server over UDP, send `messages`, wait for
/// `expect_replies` records back, close. With a `psk_hex` in the settings a
/// PSK handshake, else ECDHE with the server's certificate (or raw public
/// key, `rpk`) pinned to `server_certificate` (PEM or DER; a public key
/// for `rpk`).
#[pyfunction]
#[pyo3(signature = (connect, dtls_json, *, suite="TLS_AES_128_CCM_8_SHA256", group="secp256r1",
    psk_dhe=false, cid=None, rpk=false, messages=Vec::new(), expect_replies=0,
    server_certificate=None, certificate=None, private_key=None, resume=None,
    keep_session=false, timeout_s=10.0, seed=None, seq_len=1))]
#[allow(clippy::too_many_arguments)]
pub fn dtls_client13<'py>(
    py: Python<'py>,
    connect: &str,
    dtls_json: &str,
    suite: &str,
    group: &str,
    psk_dhe: bool,
    cid: Option<usize>,
    rpk: bool,
    messages: Vec<Vec<u8>>,
    expect_replies: usize,
    server_certificate: Option<Vec<u8>>,
    certificate: Option<Vec<u8>>,
    private_key: Option<Vec<u8>>,
    resume: Option<SavedTicketTuple>,
    keep_session: bool,
    timeout_s: f64,
    seed: Option<u64>,
    seq_len: usize,
) -> PyResult<Bound<'py, PyDict>> {
    crate::udp::check_message_counts(messages.len(), expect_replies)?;
    let server = addr(connect)?;
    let config = Config13 {
        header_form: header_form(seq_len)?,
        ..config13(dtls_json, suite, group, psk_dhe, cid, rpk)?
    };
    let client = match psk_of(dtls_json)? {
        Some((identity, key)) => ClientConfig13::psk(config, identity.as_bytes(), &key),
        None => {
            let verifier = match server_certificate.as_deref() {
                Some(b) if rpk => {
                    CertificateVerifier::Pinned(dtls_udp::public_key_der(b).map_err(value_err)?)
                }
                Some(b) => {
                    CertificateVerifier::Pinned(dtls_udp::certificate_der(b).map_err(value_err)?)
                }
                None => CertificateVerifier::AcceptAny,
            };
            ClientConfig13 {
                certificate: credential13(certificate, private_key, rpk)?,
                ..ClientConfig13::certificate(config, verifier)
            }
        }
    };
    // tickets are taken only by a client that resumes or saves a session
    let client = ClientConfig13 {
        accept_tickets: keep_session || resume.is_some(),
        ..client
    };
    let mut opts = ClientOptions13::new(server, client);
    opts.resume = resume.map(saved_ticket).transpose()?;
    opts.keep_session = keep_session;
    let report = crate::udp::run_client(py, opts, messages, expect_replies, timeout_s, seed)?;
    let d = PyDict::new(py);
    d.set_item("server", connect)?;
    d.set_item("version", "1.3")?;
    crate::udp::set_client_report(&d, &report, report.cipher_suite.map(CipherSuite13::name))?;
    d.set_item("resumed", report.resumed)?;
    // secret: the caller keeps it (a file of its own), never prints it
    let ticket = report.resumable.as_ref().map(|s| {
        let t = &s.ticket;
        (
            t.identity.clone(),
            t.psk.0.clone(),
            t.suite.name(),
            t.lifetime_s,
            t.age_add,
            s.age_ms,
        )
    });
    d.set_item("resumable_session", ticket)?;
    d.set_item("stats", stats_dict(py, &report.stats)?)?;
    Ok(d)
}

/// A saved DTLS 1.3 ticket as Python holds it: identity, PSK, suite name,
/// lifetime (s), ticket_age_add, age (ms).
type SavedTicketTuple = (Vec<u8>, Vec<u8>, String, u32, u32, u32);

/// A saved ticket to offer again (RFC 8446 §4.6.1, §4.2.11).
fn saved_ticket(
    (identity, psk, suite, lifetime_s, age_add, age_ms): SavedTicketTuple,
) -> PyResult<SavedTicket> {
    let suite = suite13(&suite)?;
    // PskIdentity.identity<1..2^16-1>; the PSK is as long as the suite's
    // hash (RFC 8446 §4.2.11, §4.6.1)
    if identity.is_empty() || identity.len() > 0xffff || psk.len() != suite.hash().output_len() {
        return Err(PyValueError::new_err(format!(
            "resume: a ticket of 1 to 65535 bytes and a {}-byte PSK for {}",
            suite.hash().output_len(),
            suite.name()
        )));
    }
    Ok(SavedTicket {
        ticket: Ticket13 {
            identity,
            psk: dtls::Secret(psk),
            suite,
            lifetime_s,
            age_add,
        },
        age_ms,
    })
}

/// A DTLS 1.3 server bound to a UDP socket, echoing application data.
#[pyclass(extends = UdpServerBase, module = "dtlsim._core")]
pub struct UdpServer13;

#[pymethods]
impl UdpServer13 {
    /// With a `psk_hex` in the settings a PSK server; with `certificate`
    /// and `private_key` (PEM or DER, P-256) also ECDHE authenticated by
    /// that certificate, or by the key's raw public key (`rpk`, then no
    /// certificate is needed).
    #[new]
    /// The session table is guarded as the 1.2 server's is (see
    /// `UdpServer`), with the same options.
    #[pyo3(signature = (bind, dtls_json, *, suite="TLS_AES_128_CCM_8_SHA256", group="secp256r1",
        psk_dhe=false, cid=None, rpk=false, certificate=None, private_key=None, echo=true,
        seed=None, receive_buffer_bytes=None, max_sessions=None, max_half_open=None, half_open_timeout_s=None,
        idle_timeout_s=None, per_address=None, eviction=None, session_cache=0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        bind: &str,
        dtls_json: &str,
        suite: &str,
        group: &str,
        psk_dhe: bool,
        cid: Option<usize>,
        rpk: bool,
        certificate: Option<Vec<u8>>,
        private_key: Option<Vec<u8>>,
        echo: bool,
        seed: Option<u64>,
        receive_buffer_bytes: Option<usize>,
        max_sessions: Option<usize>,
        max_half_open: Option<usize>,
        half_open_timeout_s: Option<f64>,
        idle_timeout_s: Option<f64>,
        per_address: Option<usize>,
        eviction: Option<&str>,
        session_cache: usize,
    ) -> PyResult<PyClassInitializer<Self>> {
        let bind = addr(bind)?;
        let config = config13(dtls_json, suite, group, psk_dhe, cid, false)?;
        let credential = credential13(certificate, private_key, rpk)?;
        let mut server = match (psk_of(dtls_json)?, credential) {
            (Some((identity, key)), cred) => {
                let mut s = ServerConfig13::psk(config, identity.as_bytes(), &key);
                s.certificate = cred;
                s
            }
            (None, Some(cred)) => ServerConfig13::certificate(config, cred),
            (None, None) => {
                return Err(PyValueError::new_err(
                    "a DTLS 1.3 server needs --psk, or --cert and --key, or --rpk and --key",
                ))
            }
        };
        let d = schema::read_dtls(&parse("DTLS settings", dtls_json)?)
            .map_err(|p| PyValueError::new_err(message(&p)))?;
        let (limits, policy) = crate::udp::session_limits(
            max_sessions.unwrap_or(d.server_max_sessions as usize),
            max_half_open,
            half_open_timeout_s,
            idle_timeout_s,
            per_address,
            eviction,
        )?;
        server.set_session_limits(limits, policy);
        // tickets for resumption (RFC 8446 §4.6.1), as many as the 1.2
        // server's session cache holds sessions
        server.tickets = (session_cache > 0)
            .then(|| Arc::new(TicketStore13::new(session_cache, TICKET_LIFETIME_S)));
        let opts = ServerOptions13 {
            bind,
            config: server,
            echo,
            seed,
            log: None,
        };
        let bound = UdpServerBase::bind(&opts, receive_buffer_bytes, server_report13)?;
        Ok(PyClassInitializer::from(bound).add_subclass(UdpServer13))
    }
}

/// DTLS 1.3's server report as a dict: the keys both versions share, the
/// handshakes' suite names and whether they negotiated a connection ID,
/// and the endpoint's counters.
fn server_report13<'py>(
    py: Python<'py>,
    local: SocketAddr,
    report: &ServerReportOf<ServerConfig13>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = server_report(py, local, report, |x, h| {
        x.set_item("cipher_suite", h.cipher_suite.map(CipherSuite13::name))?;
        x.set_item("cid_negotiated", h.cid_negotiated)
    })?;
    let e = &report.endpoint;
    d.set_item("hello_retry_requests", e.hello_retry_requests)?;
    d.set_item("refused_full", e.refused_full)?;
    d.set_item("refused_address_cap", e.refused_address_cap)?;
    d.set_item("evicted", e.evicted)?;
    d.set_item("expired_half_open", e.expired_half_open)?;
    d.set_item("expired_idle", e.expired_idle)?;
    d.set_item("rate_limited", e.rate_limited)?;
    d.set_item("dropped", e.dropped)?;
    Ok(d)
}

/// The seeded loopback relay of `crates/dtls-udp` (in Rust, so the delay
/// is not bound by the interpreter): a client sends to `addr`, the relay
/// forwards to `upstream` after `delay_ms`, losing the `drop_nth`
/// datagram going `drop_direction` ("client_to_server" or
/// "server_to_client") and each datagram with probability `loss`.
#[pyclass(module = "dtlsim._core")]
pub struct UdpRelay {
    relay: Mutex<dtls_udp::Relay>,
}

#[pymethods]
impl UdpRelay {
    #[new]
    #[pyo3(signature = (upstream, *, delay_ms=0.0, drop_direction=None, drop_nth=None, loss=0.0, seed=0))]
    fn new(
        upstream: &str,
        delay_ms: f64,
        drop_direction: Option<&str>,
        drop_nth: Option<u64>,
        loss: f64,
        seed: u64,
    ) -> PyResult<Self> {
        if !(0.0..=10_000.0).contains(&delay_ms) {
            return Err(PyValueError::new_err(format!(
                "delay_ms = {delay_ms}: must be in [0, 10000]"
            )));
        }
        let way = |s: &str| match s {
            "client_to_server" => Ok(dtls_udp::Direction::ClientToServer),
            "server_to_client" => Ok(dtls_udp::Direction::ServerToClient),
            _ => Err(PyValueError::new_err(format!(
                "drop_direction = {s:?}: client_to_server or server_to_client"
            ))),
        };
        let drop_nth = match (drop_direction, drop_nth) {
            (Some(d), Some(n)) if n >= 1 => Some((way(d)?, n)),
            (None, None) => None,
            _ => {
                return Err(PyValueError::new_err(
                    "drop_direction and drop_nth (from 1) go together",
                ))
            }
        };
        let relay = dtls_udp::Relay::start(dtls_udp::RelayOptions {
            upstream: addr(upstream)?,
            one_way_delay: std::time::Duration::from_secs_f64(delay_ms / 1000.0),
            drop_nth,
            loss,
            seed,
        })
        .map_err(value_err)?;
        Ok(UdpRelay {
            relay: Mutex::new(relay),
        })
    }

    /// "HOST:PORT" the client sends to.
    #[getter]
    fn addr(&self) -> PyResult<String> {
        Ok(self.lock()?.addr().to_string())
    }

    /// Datagrams and bytes each way so far, lost ones included.
    fn counts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.lock()?.counts();
        let d = PyDict::new(py);
        for (name, w) in [
            ("client_to_server", c.client_to_server),
            ("server_to_client", c.server_to_client),
        ] {
            let x = PyDict::new(py);
            x.set_item("datagrams", w.datagrams)?;
            x.set_item("bytes", w.bytes)?;
            x.set_item("dropped_datagrams", w.dropped_datagrams)?;
            x.set_item("dropped_bytes", w.dropped_bytes)?;
            d.set_item(name, x)?;
        }
        Ok(d)
    }

    /// Stop forwarding.
    fn stop(&self) -> PyResult<()> {
        self.lock()?.stop();
        Ok(())
    }
}

impl UdpRelay {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, dtls_udp::Relay>> {
        self.relay
            .lock()
            .map_err(|_| PyRuntimeError::new_err("relay lock poisoned"))
    }
}
