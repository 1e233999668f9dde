//! DTLS over real UDP: the wall-clock driver of `crates/dtls-udp`.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dtls::session_table::{Limits, Policy};
use dtls::ServerConfig;
use dtls::Stats;
use dtls_udp::{
    ClientOptions, ClientReport, ClientVersion, HandshakeRecord, NoteKind, Sample, ServerLog,
    ServerOptions, ServerReport, ServerReportOf, ServerVersion, StopCondition,
};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::scenario::{message, parse};
use schema::dtls::{hex, Dtls};

pub(crate) fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Seconds as a Duration: refused unless finite, positive and at most a
/// day (`Duration::from_secs_f64` panics on negative, NaN or huge values).
pub(crate) fn seconds(name: &str, s: f64) -> PyResult<Duration> {
    const DAY_S: f64 = 86_400.0;
    if !(s > 0.0 && s <= DAY_S) {
        let shown = if s.abs() < 1e15 {
            format!("{s}")
        } else {
            format!("{s:e}") // 1e300, not 301 digits
        };
        return Err(PyValueError::new_err(format!(
            "{name} = {shown}: must be a number of seconds in the range (0, {DAY_S}]"
        )));
    }
    Ok(Duration::from_secs_f64(s))
}

pub(crate) fn addr(s: &str) -> PyResult<SocketAddr> {
    s.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "address {s:?}: expected HOST:PORT, e.g. 127.0.0.1:5684"
        ))
    })
}

/// The `[dtls]` settings (a scenario's names and rules) and the suite they name.
fn spec(json: &str) -> PyResult<(Dtls, dtls::CipherSuite)> {
    let d = schema::read_dtls(&parse("DTLS settings", json)?)
        .map_err(|p| PyValueError::new_err(message(&p)))?;
    let suite = dtls::CipherSuite::from_name(d.suite.0).ok_or_else(|| {
        let names: Vec<_> = dtls::CipherSuite::ALL.iter().map(|s| s.name()).collect();
        PyValueError::new_err(format!(
            "dtls.suite = {:?}: the DTLS 1.2 stack runs {}",
            d.suite.0,
            names.join(", ")
        ))
    })?;
    Ok((d, suite))
}

pub(crate) fn stats_dict<'py>(py: Python<'py>, s: &Stats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("aes_blocks", s.crypto.aes_blocks)?;
    d.set_item("aes256_blocks", s.crypto.aes256_blocks)?;
    d.set_item("sha256_compressions", s.crypto.sha256_compressions)?;
    d.set_item("sha1_compressions", s.crypto.sha1_compressions)?;
    d.set_item("sha512_compressions", s.crypto.sha512_compressions)?;
    d.set_item("ecdh_ops", s.crypto.ecdh_ops)?;
    d.set_item("ecdsa_signs", s.crypto.ecdsa_signs)?;
    d.set_item("ecdsa_verifies", s.crypto.ecdsa_verifies)?;
    d.set_item("datagrams_sent", s.datagrams_sent)?;
    d.set_item("datagrams_received", s.datagrams_received)?;
    d.set_item("bytes_sent", s.bytes_sent)?;
    d.set_item("bytes_received", s.bytes_received)?;
    d.set_item("retransmissions", s.retransmissions)?;
    d.set_item("records_dropped", s.records_dropped)?;
    let per_kind = PyDict::new(py);
    for (kind, bytes, records) in s.sent.iter() {
        per_kind.set_item(kind.name(), (bytes, records))?;
    }
    d.set_item("sent_bytes_records_per_message", per_kind)?;
    Ok(d)
}

/// The most messages one client run sends, and echoes it awaits: they are
/// all built before the handshake, so the bound keeps a run's memory and
/// length bounded (the CLI's `--count` takes its range from here).
pub(crate) const MAX_MESSAGES: usize = 100_000;

/// Refuse more `expect_replies` or `messages` than [`MAX_MESSAGES`], naming
/// the argument, its value and the allowed range.
pub(crate) fn check_message_counts(messages: usize, expect_replies: usize) -> PyResult<()> {
    for (name, n) in [("expect_replies", expect_replies), ("messages", messages)] {
        if n > MAX_MESSAGES {
            return Err(PyValueError::new_err(format!(
                "{name} = {n}: must be a number of messages in the range [0, {MAX_MESSAGES}] \
                 (all are built before the handshake)"
            )));
        }
    }
    Ok(())
}

/// Handshake with a DTLS server over UDP, send `messages`, wait for
/// `expect_replies` records back, close. Returns what was measured.
#[pyfunction]
#[pyo3(signature = (connect, dtls_json, *, messages=Vec::new(), expect_replies=0,
    server_certificate=None, rpk=false, cid=None, certificate=None, private_key=None,
    resume=None, timeout_s=10.0, seed=None))]
#[allow(clippy::too_many_arguments)]
pub fn dtls_client<'py>(
    py: Python<'py>,
    connect: &str,
    dtls_json: &str,
    messages: Vec<Vec<u8>>,
    expect_replies: usize,
    server_certificate: Option<Vec<u8>>,
    rpk: bool,
    cid: Option<usize>,
    certificate: Option<Vec<u8>>,
    private_key: Option<Vec<u8>>,
    resume: Option<(Vec<u8>, Vec<u8>, String, bool)>,
    timeout_s: f64,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    check_message_counts(messages.len(), expect_replies)?;
    let server = addr(connect)?;
    let (spec, suite) = spec(dtls_json)?;
    let mut config = spec.config(suite);
    config.cid_len = cid12(cid)?;
    // a client on the open network offers secure renegotiation as the
    // common stacks do (RFC 5746 §3.4), so a peer that answers it (pion on
    // resumption) does not make the handshake abort
    config.extensions.renegotiation_scsv = true;
    let own = client_key(certificate, private_key, rpk)?;
    let mut opts = if suite.is_psk() {
        let key = hex(&spec.psk_hex).unwrap_or_default();
        ClientOptions::psk(server, config, spec.identity.as_bytes(), &key)
    } else if rpk {
        let Some(pinned) = server_certificate.as_deref() else {
            return Err(PyValueError::new_err(
                "a raw public key (--rpk) is pinned: give the server's public key with --ca",
            ));
        };
        ClientOptions::raw_public_key(server, config, pinned).map_err(value_err)?
    } else {
        ClientOptions::certificate(server, config, server_certificate.as_deref())
            .map_err(value_err)?
    };
    // offered when a certificate suite's server asks for one (RFC 5246
    // §7.4.6), as a raw public key with `rpk` (RFC 7250)
    opts.config.client_certificate = own;
    opts.resume = resume.map(resumable).transpose()?;
    let report = run_client(py, opts, messages, expect_replies, timeout_s, seed)?;
    let d = PyDict::new(py);
    d.set_item("server", connect)?;
    set_client_report(&d, &report, report.cipher_suite.map(|s| s.name()))?;
    d.set_item("resumed", report.resumed)?;
    // secret: the caller keeps it (a file of its own), never prints it
    let session = report.resumable.as_ref().map(|s| {
        (
            s.session_id.clone(),
            s.master_secret.0.clone(),
            s.suite.name(),
            s.extended_master_secret,
        )
    });
    d.set_item("resumable_session", session)?;
    d.set_item("stats", stats_dict(py, &report.stats)?)?;
    Ok(d)
}

/// A saved session (session ID, 48-byte master secret, suite name,
/// extended master secret) to offer again (RFC 5246 §7.3).
fn resumable(
    (session_id, master_secret, suite, ems): (Vec<u8>, Vec<u8>, String, bool),
) -> PyResult<dtls_udp::ResumableSession> {
    // RFC 5246 §7.4.1.2: SessionID<0..32>; §8.1: a 48-byte master secret
    if session_id.is_empty() || session_id.len() > 32 || master_secret.len() != 48 {
        return Err(PyValueError::new_err(
            "resume: a session ID of 1 to 32 bytes and a 48-byte master secret",
        ));
    }
    let suite = dtls::CipherSuite::from_name(&suite)
        .ok_or_else(|| PyValueError::new_err(format!("resume: unknown suite {suite:?}")))?;
    Ok(dtls_udp::ResumableSession {
        session_id,
        master_secret: dtls::Secret(master_secret),
        suite,
        extended_master_secret: ems,
    })
}

/// What both versions' clients report: the suite (`suite`, its name), the
/// handshake's figures and messages, the alert and close seen, and why the
/// session failed after its handshake (`error`, None when it did not).
pub(crate) fn set_client_report<S, R>(
    d: &Bound<'_, PyDict>,
    report: &ClientReport<S, R>,
    suite: Option<&str>,
) -> PyResult<()> {
    d.set_item("cipher_suite", suite)?;
    d.set_item("cid_negotiated", report.cid_negotiated)?;
    set_handshake_figures(d, report)?;
    d.set_item("messages_sent", report.messages_sent)?;
    set_received(d, &report.received)?;
    d.set_item("session_state_bytes", report.session_state_bytes)?;
    d.set_item(
        "alert_received",
        report
            .alert_received
            .map(|a| format!("{:?}", a.description)),
    )?;
    let closed = report.closed_by_peer || report.failure == Some(dtls::Error::ClosedByPeer);
    d.set_item("closed_by_peer", closed)?;
    d.set_item("error", report.failure.as_ref().map(|e| e.to_string()))
}

/// A side's own key material as the command line gave it: the raw
/// public key of a private key (`--rpk --key`), or a certificate with its
/// private key (`--cert --key`; PEM or DER, P-256). Both versions build
/// their credential from it.
pub(crate) enum OwnKey {
    RawPublicKey(dtls::Secret),
    Certificate(dtls::CertifiedKey),
}

/// `certificate` and `private_key` read into an [`OwnKey`] (None when
/// neither was given), or the option that is missing.
pub(crate) fn own_key(
    certificate: Option<Vec<u8>>,
    private_key: Option<Vec<u8>>,
    rpk: bool,
) -> PyResult<Option<OwnKey>> {
    Ok(match (certificate, private_key) {
        (_, Some(key)) if rpk => Some(OwnKey::RawPublicKey(
            dtls_udp::private_key(&key).map_err(value_err)?,
        )),
        (Some(cert), Some(key)) => Some(OwnKey::Certificate(dtls::CertifiedKey {
            chain: vec![dtls_udp::certificate_der(&cert).map_err(value_err)?],
            private_key: dtls_udp::private_key(&key).map_err(value_err)?,
        })),
        (None, None) => None,
        (Some(_), None) => {
            return Err(PyValueError::new_err(
                "a certificate (--cert) needs its private key (--key)",
            ))
        }
        (None, Some(_)) => {
            return Err(PyValueError::new_err(
                "a private key (--key) needs its certificate (--cert), or --rpk",
            ))
        }
    })
}

/// The client's own key for certificate (or raw-public-key) client
/// authentication in DTLS 1.2 (see [`own_key`]).
fn client_key(
    certificate: Option<Vec<u8>>,
    private_key: Option<Vec<u8>>,
    rpk: bool,
) -> PyResult<Option<dtls::CertifiedKey>> {
    own_key(certificate, private_key, rpk)?
        .map(|k| match k {
            OwnKey::RawPublicKey(key) => dtls::CertifiedKey::raw_public_key(key).map_err(value_err),
            OwnKey::Certificate(c) => Ok(c),
        })
        .transpose()
}

/// A DTLS 1.2 server bound to a UDP socket, echoing application data.
#[pyclass(extends = UdpServerBase, module = "dtlsim._core")]
pub struct UdpServer;

#[pymethods]
impl UdpServer {
    #[new]
    /// The session table is guarded as for the open network
    /// (`Limits::guarded` on `max_sessions`, evicting half-open handshakes
    /// first); each bound given replaces its guarded value.
    #[pyo3(signature = (bind, dtls_json, *, certificate=None, private_key=None, rpk=false, cid=None,
        session_cache=0, echo=true, seed=None, receive_buffer_bytes=None, max_sessions=None, max_half_open=None, half_open_timeout_s=None, idle_timeout_s=None,
        per_address=None, eviction=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        bind: &str,
        dtls_json: &str,
        certificate: Option<Vec<u8>>,
        private_key: Option<Vec<u8>>,
        rpk: bool,
        cid: Option<usize>,
        session_cache: usize,
        echo: bool,
        seed: Option<u64>,
        receive_buffer_bytes: Option<usize>,
        max_sessions: Option<usize>,
        max_half_open: Option<usize>,
        half_open_timeout_s: Option<f64>,
        idle_timeout_s: Option<f64>,
        per_address: Option<usize>,
        eviction: Option<&str>,
    ) -> PyResult<PyClassInitializer<Self>> {
        let bind = addr(bind)?;
        let (spec, suite) = spec(dtls_json)?;
        let mut config = spec.config(suite);
        config.cid_len = cid12(cid)?;
        let mut opts = if suite.is_psk() {
            let key = hex(&spec.psk_hex).unwrap_or_default();
            ServerOptions::psk(bind, config, spec.identity.as_bytes(), &key)
        } else if rpk {
            let Some(key) = private_key else {
                return Err(PyValueError::new_err(
                    "a raw public key (--rpk) is the one of --key (PEM or DER, P-256)",
                ));
            };
            ServerOptions::raw_public_key(bind, config, &key).map_err(value_err)?
        } else {
            let (Some(cert), Some(key)) = (certificate, private_key) else {
                return Err(PyValueError::new_err(
                    "a certificate suite needs --cert and --key (PEM or DER, P-256)",
                ));
            };
            ServerOptions::certificate(bind, config, &cert, &key).map_err(value_err)?
        };
        opts.echo = echo;
        opts.seed = seed;
        // sessions kept for resumption by session ID (RFC 5246 §7.3)
        opts.config.session_cache = session_cache;
        let (limits, policy) = session_limits(
            max_sessions.unwrap_or(spec.server_max_sessions as usize),
            max_half_open,
            half_open_timeout_s,
            idle_timeout_s,
            per_address,
            eviction,
        )?;
        opts.config.set_session_limits(limits, policy);
        let bound = UdpServerBase::bind(&opts, receive_buffer_bytes, server_report12)?;
        Ok(PyClassInitializer::from(bound).add_subclass(UdpServer))
    }
}

/// The connection ID this side asks the peer to put in the records it
/// sends us (RFC 9146 §3: `opaque cid<0..2^8-1>`, so 0 to 255 bytes;
/// 0 means none of ours, though we still send the peer's).
fn cid12(cid: Option<usize>) -> PyResult<Option<usize>> {
    match cid {
        Some(n) if n > 255 => Err(PyValueError::new_err(format!(
            "cid = {n}: a DTLS 1.2 connection ID of 0 to 255 bytes (RFC 9146 §3)"
        ))),
        c => Ok(c),
    }
}

/// The session table of a server facing the open network (both
/// versions): `Limits::guarded` on `slots` slots, evicting half-open
/// handshakes first, with each bound given replacing its guarded value.
pub(crate) fn session_limits(
    slots: usize,
    max_half_open: Option<usize>,
    half_open_timeout_s: Option<f64>,
    idle_timeout_s: Option<f64>,
    per_address: Option<usize>,
    eviction: Option<&str>,
) -> PyResult<(Limits, Policy)> {
    let guarded = Limits::guarded(slots);
    let timeout_us = match half_open_timeout_s {
        Some(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Some((s * 1e6).round() as u64),
        Some(s) => {
            return Err(PyValueError::new_err(format!(
                "half_open_timeout_s = {s} is outside (0, 86400]"
            )))
        }
        None => guarded.half_open_timeout_us,
    };
    let idle_us = match idle_timeout_s {
        Some(s) if s.is_finite() && s > 0.0 && s <= 31_536_000.0 => Some((s * 1e6).round() as u64),
        Some(s) => {
            return Err(PyValueError::new_err(format!(
                "idle_timeout_s = {s} is outside (0, 31536000]"
            )))
        }
        None => guarded.idle_timeout_us,
    };
    let limits = Limits {
        slots,
        half_open_max: max_half_open.or(guarded.half_open_max),
        half_open_timeout_us: timeout_us,
        idle_timeout_us: idle_us,
        per_host_max: per_address.or(guarded.per_host_max),
        // an idle session is evicted no sooner than it would expire
        idle_evictable_us: guarded
            .idle_evictable_us
            .zip(idle_us)
            .map(|(a, b)| a.min(b)),
        ..guarded
    };
    let policy = match eviction {
        None => Policy::EvictHalfOpen,
        Some(name) => Policy::from_name(name).ok_or_else(|| {
            let names: Vec<_> = Policy::ALL.iter().map(|p| p.name()).collect();
            PyValueError::new_err(format!(
                "eviction = {name:?} is none of {}",
                names.join(", ")
            ))
        })?,
    };
    limits
        .validate()
        .map_err(|e| PyValueError::new_err(format!("session limits: {e}")))?;
    Ok((limits, policy))
}

/// DTLS 1.2's server report as a dict: the keys both versions share, the
/// handshakes' suite names and the endpoint's counters.
fn server_report12<'py>(
    py: Python<'py>,
    local: SocketAddr,
    report: &ServerReportOf<ServerConfig>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = server_report(py, local, report, |x, h| {
        x.set_item("cipher_suite", h.cipher_suite.map(|s| s.name()))?;
        x.set_item("cid_negotiated", h.cid_negotiated)
    })?;
    let e = &report.endpoint;
    d.set_item("hello_verify_requests", e.hello_verify_requests)?;
    d.set_item("refused_full", e.refused_full)?;
    d.set_item("dropped", e.dropped)?;
    Ok(d)
}

/// A version's server report as a dict.
pub(crate) type ReportDict<C> =
    for<'py> fn(Python<'py>, SocketAddr, &ServerReportOf<C>) -> PyResult<Bound<'py, PyDict>>;

/// A server's run: once, with a stop condition, its report as a dict.
type Serve =
    Box<dyn for<'py> FnOnce(Python<'py>, StopCondition) -> PyResult<Bound<'py, PyDict>> + Send>;

/// A DTLS server bound to a UDP socket, run once, stoppable from another
/// thread: the base of both versions' server classes (`UdpServer`,
/// `UdpServer13`), which only configure and bind it.
#[pyclass(subclass, module = "dtlsim._core")]
pub struct UdpServerBase {
    local: SocketAddr,
    /// The receive buffer the kernel granted (SO_RCVBUF), if one was asked.
    receive_buffer: Option<usize>,
    stop: Arc<AtomicBool>,
    serve: Mutex<Option<Serve>>,
    log: ServerLog,
}

impl UdpServerBase {
    /// Bind a server of `opts`'s version, whose report `to_dict` makes a
    /// dict of.
    pub(crate) fn bind<C: ServerVersion + Send + 'static>(
        opts: &ServerOptions<C>,
        receive_buffer_bytes: Option<usize>,
        to_dict: ReportDict<C>,
    ) -> PyResult<Self>
    where
        ServerReportOf<C>: Send,
    {
        let log = ServerLog::default();
        let opts = ServerOptions {
            log: Some(log.clone()),
            ..opts.clone()
        };
        let bound = dtls_udp::bind_server(&opts).map_err(value_err)?;
        let local = bound.local_addr().map_err(value_err)?;
        let receive_buffer = receive_buffer_bytes
            .map(|b| bound.set_receive_buffer(b))
            .transpose()
            .map_err(value_err)?;
        let serve: Serve = Box::new(move |py, stop| {
            let report = py
                .detach(|| bound.run(stop))
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            to_dict(py, local, &report)
        });
        Ok(UdpServerBase {
            local,
            receive_buffer,
            stop: Arc::new(AtomicBool::new(false)),
            serve: Mutex::new(Some(serve)),
            log,
        })
    }
}

#[pymethods]
impl UdpServerBase {
    /// The receive buffer the kernel granted (bytes; Linux reports twice
    /// what it can hold of data, and caps a request at net.core.rmem_max),
    /// or None when none was asked for.
    #[getter]
    fn receive_buffer_bytes(&self) -> Option<usize> {
        self.receive_buffer
    }

    /// "HOST:PORT" the socket is bound to.
    #[getter]
    fn local_addr(&self) -> String {
        self.local.to_string()
    }

    /// What the running server told since the last call, one
    /// `(kind, peer, line)` per handshake's outcome as it happened (`kind`:
    /// established, failed, closed, other_version, or dropped when more
    /// came than were kept unread), for a log printed while it runs.
    fn take_log(&self) -> Vec<(&'static str, String, String)> {
        let (notes, dropped) = self.log.take();
        let mut out: Vec<_> = notes
            .into_iter()
            .map(|n| {
                let kind = match n.kind {
                    NoteKind::Established { .. } => "established",
                    NoteKind::Failed(_) => "failed",
                    NoteKind::Closed => "closed",
                    NoteKind::OtherVersion { .. } => "other_version",
                };
                (kind, n.peer.to_string(), n.to_string())
            })
            .collect();
        if dropped > 0 {
            let line = format!("({dropped} more line(s) not shown)");
            out.insert(0, ("dropped", String::new(), line));
        }
        out
    }

    /// Ask a running `run` to return.
    fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Serve until a stop condition holds (or `stop()` is called).
    /// `failures` and `received` hold the first few (64) of each, and
    /// `failures_total` and `received_total` count them all: a peer cannot
    /// make the report grow. `max_seconds` must be in (0, 86400]. Both
    /// versions' reports have the same keys, but for the endpoint's
    /// `hello_verify_requests` (1.2) or `hello_retry_requests` (1.3) and
    /// the 1.3 handshakes' `cid_negotiated`.
    #[pyo3(signature = (*, max_seconds=None, after_handshakes=None, after_messages=None, after_sessions_ended=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        max_seconds: Option<f64>,
        after_handshakes: Option<usize>,
        after_messages: Option<usize>,
        after_sessions_ended: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let max_duration = max_seconds.map(|s| seconds("max_seconds", s)).transpose()?;
        let serve = self
            .serve
            .lock()
            .map_err(|_| PyRuntimeError::new_err("server lock poisoned"))?
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this server has already run"))?;
        let stop = StopCondition {
            max_duration,
            after_handshakes,
            after_sessions_ended,
            after_messages,
            flag: Some(self.stop.clone()),
        };
        serve(py, stop)
    }
}

/// A server report as a dict: the keys both versions share, with
/// `handshake_items` adding each handshake's own (its suite's name, …);
/// the caller adds the endpoint's counters.
pub(crate) fn server_report<'py, S, E>(
    py: Python<'py>,
    local: SocketAddr,
    report: &ServerReport<HandshakeRecord<S>, E>,
    handshake_items: impl Fn(&Bound<'py, PyDict>, &HandshakeRecord<S>) -> PyResult<()>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("local_addr", local.to_string())?;
    let hs = report
        .handshakes
        .iter()
        .map(|h| {
            let x = PyDict::new(py);
            x.set_item("peer", h.peer.to_string())?;
            handshake_items(&x, h)?;
            x.set_item("duration_s", h.duration.as_secs_f64())?;
            x.set_item("resumed", h.resumed)?;
            x.set_item("session_state_bytes", h.session_state_bytes)?;
            x.set_item("stats", stats_dict(py, &h.stats)?)?;
            Ok(x)
        })
        .collect::<PyResult<Vec<_>>>()?;
    d.set_item("handshakes", hs)?;
    set_samples(&d, &report.failures, &report.received)?;
    d.set_item("echoed", report.echoed)?;
    d.set_item("datagrams_received", report.datagrams_received)?;
    d.set_item("datagrams_sent", report.datagrams_sent)?;
    d.set_item("bytes_received", report.bytes_received)?;
    d.set_item("bytes_sent", report.bytes_sent)?;
    // seconds from the loop's start to the first and last application
    // record: a bulk transfer's delivered rate is measured over them
    d.set_item(
        "data_span_s",
        report
            .data_span
            .map(|(a, b)| (a.as_secs_f64(), b.as_secs_f64())),
    )?;
    Ok(d)
}

/// Run a client of either version with what both take from Python: the
/// messages, the replies awaited, one timeout for the handshake and for
/// the replies, the seed. The interpreter runs on meanwhile.
pub(crate) fn run_client<C: ClientVersion + Sync>(
    py: Python<'_>,
    mut opts: ClientOptions<C>,
    messages: Vec<Vec<u8>>,
    expect_replies: usize,
    timeout_s: f64,
    seed: Option<u64>,
) -> PyResult<dtls_udp::ReportOf<C>>
where
    C::Suite: Send,
    C::Resumable: Send + Sync,
{
    opts.messages = messages;
    opts.expect_replies = expect_replies;
    opts.handshake_timeout = seconds("timeout_s", timeout_s)?;
    opts.reply_timeout = opts.handshake_timeout;
    opts.seed = seed;
    py.detach(|| dtls_udp::run_client(&opts))
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// A client report's handshake figures, as both versions' clients report
/// them.
pub(crate) fn set_handshake_figures<S, R>(
    d: &Bound<'_, PyDict>,
    report: &ClientReport<S, R>,
) -> PyResult<()> {
    d.set_item("handshake_time_s", report.handshake_time.as_secs_f64())?;
    d.set_item("handshake_datagrams_sent", report.handshake_datagrams_sent)?;
    d.set_item(
        "handshake_datagrams_received",
        report.handshake_datagrams_received,
    )?;
    d.set_item("handshake_bytes_sent", report.handshake_bytes_sent)?;
    d.set_item("handshake_bytes_received", report.handshake_bytes_received)?;
    d.set_item("retransmissions", report.retransmissions)?;
    Ok(())
}

/// A client report's received records: the first few (64) as `received`,
/// `received_total` counting them all (a server cannot make the report
/// grow). Both versions' clients report them this way.
pub(crate) fn set_received(d: &Bound<'_, PyDict>, received: &Sample<Vec<u8>>) -> PyResult<()> {
    d.set_item("received", received.to_vec())?;
    d.set_item("received_total", received.total)?;
    Ok(())
}

/// A server report's failures and received records: the first few (64) of
/// each as `failures` / `received`, and `failures_total` / `received_total`
/// counting them all (a peer cannot make the report grow). Both versions'
/// servers report them this way.
pub(crate) fn set_samples(
    d: &Bound<'_, PyDict>,
    failures: &Sample<(SocketAddr, dtls::Error)>,
    received: &Sample<(SocketAddr, Vec<u8>)>,
) -> PyResult<()> {
    let f: Vec<(String, String)> = failures
        .iter()
        .map(|(p, e)| (p.to_string(), e.to_string()))
        .collect();
    d.set_item("failures", f)?;
    d.set_item("failures_total", failures.total)?;
    let r: Vec<(String, Vec<u8>)> = received
        .iter()
        .map(|(p, b)| (p.to_string(), b.clone()))
        .collect();
    d.set_item("received", r)?;
    d.set_item("received_total", received.total)?;
    Ok(())
}
