//! Session resumption by session ID (RFC 5246 §7.3, and RFC 6347 §4.2.1
//! for DTLS): a client that kept a session's master secret offers its
//! session ID in a new ClientHello; a server that kept it too answers with
//! the same ID, ChangeCipherSpec and Finished at once (the abbreviated
//! handshake: no key exchange, no certificate, no public-key operation),
//! and the client closes with its ChangeCipherSpec and Finished. A server
//! that does not know the ID runs the full handshake under a new one.
//!
//! The extended master secret (RFC 7627 §5.3) must be the same in both: a
//! session made with it is resumed only by a hello that offers it, one made
//! without it only by a hello that does not.

use std::collections::VecDeque;

use crate::crypto::suite::{CipherSuite, Secret};

/// Longest session ID (RFC 5246 §7.4.1.2: `opaque SessionID<0..32>`).
pub const SESSION_ID_LEN: usize = 32;

/// What both sides keep of a session to resume it.
#[derive(Clone, PartialEq, Eq)]
pub struct ResumableSession {
    /// The ID the server gave it (1..=32 bytes).
    pub session_id: Vec<u8>,
    /// The 48-byte master secret both sides derive the new keys from.
    pub master_secret: Secret,
    /// The suite the session was made with.
    pub suite: CipherSuite,
    /// Made with the extended master secret (RFC 7627).
    pub extended_master_secret: bool,
}

impl core::fmt::Debug for ResumableSession {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ResumableSession")
            .field("session_id_len", &self.session_id.len())
            .field("suite", &self.suite)
            .field("extended_master_secret", &self.extended_master_secret)
            .finish_non_exhaustive()
    }
}

impl ResumableSession {
    /// May a hello offering `suites`, with the extended master secret
    /// offered or not, resume this session (RFC 5246 §7.4.1.2: the
    /// session's suite among those offered; RFC 7627 §5.3)?
    pub(crate) fn fits(&self, suites: &[u16], ems_offered: bool) -> bool {
        suites.contains(&self.suite.id()) && ems_offered == self.extended_master_secret
    }

    /// Bytes a compact server keeps per cached session: the ID, the
    /// 48-byte master secret, the suite (2 B) and a flag (1 B).
    pub fn compact_bytes(&self) -> usize {
        self.session_id.len() + 48 + 2 + 1
    }
}

/// A server's bounded cache of resumable sessions, oldest dropped first.
#[derive(Debug, Default)]
pub(crate) struct SessionCache {
    capacity: usize,
    sessions: VecDeque<ResumableSession>,
}

impl SessionCache {
    pub(crate) fn new(capacity: usize) -> Self {
        SessionCache {
            capacity,
            sessions: VecDeque::new(),
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.capacity > 0
    }

    pub(crate) fn get(&self, session_id: &[u8]) -> Option<&ResumableSession> {
        if session_id.is_empty() {
            return None;
        }
        self.sessions.iter().find(|s| s.session_id == session_id)
    }

    /// Keep `s` (replacing an entry of the same ID), dropping the oldest
    /// beyond the capacity.
    pub(crate) fn put(&mut self, s: ResumableSession) {
        if !self.enabled() {
            return;
        }
        self.sessions.retain(|k| k.session_id != s.session_id);
        self.sessions.push_back(s);
        while self.sessions.len() > self.capacity {
            self.sessions.pop_front();
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.sessions.len()
    }
}

impl crate::v12::connection::Connection {
    /// Server, before the hello is handled: the cached session its ID
    /// names (if any), and the ID a full handshake gives the new session
    /// (empty: the server keeps no sessions).
    pub(crate) fn server_sessions(&mut self, cached: Option<ResumableSession>, new_id: Vec<u8>) {
        if let Some(hs) = self.hs.as_mut() {
            hs.resuming = cached;
            hs.new_session_id = new_id;
        }
    }

    /// Keep what resumes this session, if the server gave it an ID (call
    /// while the handshake state still holds the master secret).
    pub(crate) fn keep_session(&mut self) {
        let Some(hs) = self.hs.as_ref() else { return };
        let (Some(ms), Some(suite)) = (hs.master_secret.as_ref(), self.suite) else {
            return;
        };
        if hs.new_session_id.is_empty() {
            return;
        }
        self.session = Some(ResumableSession {
            session_id: hs.new_session_id.clone(),
            master_secret: ms.clone(),
            suite,
            extended_master_secret: hs.extended_master_secret,
        });
    }
}
