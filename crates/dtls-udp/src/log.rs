//! What a server tells as it happens: a line per handshake's outcome
//! (established, failed, closed) and a notice when a client speaks the
//! other DTLS version. The loop pushes [`ServerNote`]s into a bounded
//! [`ServerLog`] that another thread drains (the command line prints them);
//! a peer cannot make it grow without end.

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What happened, to whom.
#[derive(Clone, Debug, PartialEq)]
pub enum NoteKind {
    /// A handshake completed.
    Established {
        /// Its suite's name.
        suite: String,
        /// From the hello with a valid cookie to the handshake's end.
        duration: Duration,
        /// It resumed a session (the abbreviated handshake).
        resumed: bool,
        /// Connection IDs were negotiated.
        cid: bool,
    },
    /// A session failed, with the reason.
    Failed(String),
    /// The peer closed its session (close_notify).
    Closed,
    /// The peer's ClientHello does not offer this server's version.
    OtherVersion {
        /// What the hello offers, e.g. "DTLS 1.3".
        offered: &'static str,
    },
}

/// One line of a server's log.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerNote {
    /// The peer.
    pub peer: SocketAddr,
    /// This server's DTLS version, "1.2" or "1.3".
    pub version: &'static str,
    /// What happened.
    pub kind: NoteKind,
}

impl fmt::Display for ServerNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (peer, v) = (self.peer, self.version);
        match &self.kind {
            NoteKind::Established {
                suite,
                duration,
                resumed,
                cid,
            } => {
                let ms = duration.as_secs_f64() * 1e3;
                let mut how = String::new();
                if *resumed {
                    how.push_str(", resumed");
                }
                if *cid {
                    how.push_str(", connection ID");
                }
                write!(
                    f,
                    "{peer} DTLS {v} {suite}: handshake done in {ms:.1} ms{how}"
                )
            }
            NoteKind::Failed(why) => write!(f, "{peer} DTLS {v}: failed: {why}"),
            NoteKind::Closed => write!(f, "{peer} DTLS {v}: closed by the peer (close_notify)"),
            NoteKind::OtherVersion { offered } => write!(
                f,
                "{peer} speaks {offered}, not DTLS {v}: its ClientHello does not offer \
                 this server's version"
            ),
        }
    }
}

/// A bounded queue of [`ServerNote`]s shared between the server loop and
/// a reader; the oldest are dropped (and counted) beyond [`ServerLog::LIMIT`].
#[derive(Clone, Debug, Default)]
pub struct ServerLog(Arc<Mutex<LogInner>>);

#[derive(Debug, Default)]
struct LogInner {
    notes: VecDeque<ServerNote>,
    dropped: u64,
    /// Peers already told about speaking the other version (bounded).
    told: HashSet<SocketAddr>,
}

impl ServerLog {
    /// Notes held unread at most.
    pub const LIMIT: usize = 1024;
    /// Peers remembered as already told about the other version.
    const TOLD_LIMIT: usize = 4096;

    /// Add a note (dropping the oldest unread one when full).
    pub fn push(&self, note: ServerNote) {
        let Ok(mut g) = self.0.lock() else { return };
        if let NoteKind::OtherVersion { .. } = note.kind {
            if g.told.contains(&note.peer) || g.told.len() >= Self::TOLD_LIMIT {
                return;
            }
            g.told.insert(note.peer);
        }
        if g.notes.len() >= Self::LIMIT {
            g.notes.pop_front();
            g.dropped += 1;
        }
        g.notes.push_back(note);
    }

    /// The notes not read yet, and how many were dropped unread since the
    /// last call.
    pub fn take(&self) -> (Vec<ServerNote>, u64) {
        let Ok(mut g) = self.0.lock() else {
            return (Vec::new(), 0);
        };
        let dropped = std::mem::take(&mut g.dropped);
        (g.notes.drain(..).collect(), dropped)
    }
}

/// DTLS 1.2 and 1.3 on the wire (RFC 6347 §4.1: {254, 253}; RFC 9147
/// §5.3: {254, 252}).
const DTLS1_2: u16 = 0xfefd;
const DTLS1_3: u16 = 0xfefc;
/// supported_versions (RFC 8446 §4.2.1).
const SUPPORTED_VERSIONS: u16 = 43;

/// Which versions a datagram's plaintext ClientHello offers, (1.2, 1.3);
/// None when the datagram does not start with a whole, unfragmented
/// ClientHello. Without supported_versions a hello offers its
/// client_version (RFC 8446 §4.2.1, RFC 9147 §5.3).
pub fn hello_offers(datagram: &[u8]) -> Option<(bool, bool)> {
    let mut r = Reader(datagram);
    // DTLSPlaintext: type, version, epoch, sequence number, length (13 B)
    if r.u8()? != 22 {
        return None;
    }
    r.skip(2)?;
    if r.u16()? != 0 {
        return None; // epoch 0 only
    }
    r.skip(6)?;
    let len = r.u16()? as usize;
    let mut h = Reader(r.take(len)?);
    // Handshake: msg_type, length, message_seq, fragment_offset, fragment_length
    if h.u8()? != 1 {
        return None;
    }
    let total = h.u24()?;
    h.skip(2)?;
    let (offset, frag) = (h.u24()?, h.u24()?);
    if offset != 0 || frag != total {
        return None;
    }
    let mut b = Reader(h.take(frag as usize)?);
    let client_version = b.u16()?;
    b.skip(32)?; // random
    let n = b.u8()? as usize;
    b.skip(n)?; // session_id
    let n = b.u8()? as usize;
    b.skip(n)?; // cookie
    let n = b.u16()? as usize;
    b.skip(n)?; // cipher_suites
    let n = b.u8()? as usize;
    b.skip(n)?; // compression_methods
    if b.0.is_empty() {
        return Some((client_version == DTLS1_2, false));
    }
    let n = b.u16()? as usize;
    let mut e = Reader(b.take(n)?);
    while !e.0.is_empty() {
        let (kind, n) = (e.u16()?, e.u16()? as usize);
        let mut data = Reader(e.take(n)?);
        if kind == SUPPORTED_VERSIONS {
            let n = data.u8()? as usize;
            let mut v = Reader(data.take(n)?);
            let (mut v12, mut v13) = (false, false);
            while !v.0.is_empty() {
                match v.u16()? {
                    DTLS1_2 => v12 = true,
                    DTLS1_3 => v13 = true,
                    _ => {}
                }
            }
            return Some((v12, v13));
        }
    }
    Some((client_version == DTLS1_2, false))
}

/// What `hello_offers` says a server of `version` ("1.2" or "1.3") should
/// tell: the version the hello speaks instead, if it offers not ours.
pub(crate) fn other_version(version: &str, datagram: &[u8]) -> Option<&'static str> {
    let (v12, v13) = hello_offers(datagram)?;
    match version {
        "1.2" if !v12 => Some(if v13 { "DTLS 1.3" } else { "an older DTLS" }),
        "1.3" if !v13 => Some(if v12 { "DTLS 1.2" } else { "an older DTLS" }),
        _ => None,
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn skip(&mut self, n: usize) -> Option<()> {
        self.take(n).map(|_| ())
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }
    fn u24(&mut self) -> Option<u32> {
        self.take(3)
            .map(|b| u32::from_be_bytes([0, b[0], b[1], b[2]]))
    }
}
