//! The 6P transaction state machine (RFC 8480 §3.3-§3.4), sans-IO: two-step
//! transactions (request, response) between a node and each neighbour,
//! their sequence numbers, timeout and error return codes. Which cells to
//! offer or accept is the scheduling function's (MSF, [`super::msf`]): the
//! responder's decision is a callback.
//!
//! - one transaction at a time with a neighbour (§3.4.3): a request from a
//!   neighbour with an open transaction is answered RC_ERR_BUSY, and
//!   [`Sixp::request`] refuses to start a second one;
//! - a request is checked in the order version (RC_ERR_VERSION), SFID
//!   (RC_ERR_SFID), command and body (RC_ERR), busy (RC_ERR_BUSY), SeqNum
//!   (RC_ERR_SEQNUM, §3.4.6.2) before the scheduling function sees it;
//! - SeqNum (§3.4.6): one counter per neighbour, 0 after boot and after a
//!   CLEAR, then 1, 2, ... 0xff, 1 (0 is never reused). Both ends advance it
//!   when a transaction completes: the initiator when the response arrives,
//!   the responder when its response is acknowledged at the link layer (the
//!   moment it applies the schedule change, §3.3.1). A transaction the
//!   initiator abandoned on timeout but the responder completed leaves the
//!   two counters apart, and the next request is answered RC_ERR_SEQNUM:
//!   that is how §3.4.6.2 detects a schedule inconsistency, reported as
//!   [`Outcome::Inconsistent`] so the scheduling function issues a CLEAR;
//! - a CLEAR resets the SeqNum with the peer to 0 at both ends whatever
//!   its fate: at the initiator on its response or its timeout, at the
//!   responder once the link layer is done with its response, acknowledged
//!   or not (the scheduling function drops the cells the same way). The
//!   6TiSCH simulator's rule (SimEngine/Mote/sixp.py resets the SeqNum when
//!   a CLEAR is sent and when one is received; sf.py
//!   `_receive_clear_request` removes the cells "no matter what happens"),
//!   RFC 8480 §3.3.5's text not being in the stored sources. Otherwise a
//!   CLEAR whose response is lost leaves the initiator without the cells
//!   and the responder with them, the two SeqNums equal, and no later
//!   request can find the difference;
//! - the 6P timeout (§3.4.5) is the scheduling function's figure, a
//!   parameter here; on expiry the initiator abandons the transaction;
//! - three-step transactions (confirmations) are not used by MSF and are
//!   not implemented: a confirmation received is counted and dropped.

use std::collections::BTreeMap;

use wpan::sixtop::{self, Command, Message, MsgType, Packet, ReplyBody, Repr, Request, ReturnCode};

use crate::Time;

/// A neighbour, by EUI-64.
pub type Peer = u64;

/// Which end of a transaction a node was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// sent the request
    Initiator,
    /// answered it
    Responder,
}

/// How a transaction ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// a response was exchanged with this code and body
    Reply {
        /// return code
        code: ReturnCode,
        /// body
        body: ReplyBody,
    },
    /// RC_ERR_SEQNUM: the schedules disagree; the SF must CLEAR
    Inconsistent,
    /// the initiator's timeout expired with no response
    Timeout,
    /// the responder's response was not acknowledged: nothing applied
    NotDelivered,
}

/// What the owner must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SixpEvent {
    /// send this 6P message to `peer` (in a 6top IE of a data frame)
    Send {
        /// destination
        peer: Peer,
        /// message
        repr: Repr,
    },
    /// a transaction ended
    Done {
        /// the other end
        peer: Peer,
        /// our role
        role: Role,
        /// its command
        command: Command,
        /// how it ended
        outcome: Outcome,
    },
}

/// Why [`Sixp::request`] refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestError {
    /// a transaction with that neighbour is open
    Busy,
}

/// Counts of what the machine did, for the per-node results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SixpStats {
    /// requests sent
    pub requests_sent: u64,
    /// responses sent (all codes)
    pub responses_sent: u64,
    /// transactions abandoned on timeout
    pub timeouts: u64,
    /// RC_ERR_SEQNUM sent or received
    pub inconsistencies: u64,
    /// messages dropped: unreadable header, unexpected response,
    /// confirmation, malformed response body
    pub dropped: u64,
}

#[derive(Debug, Clone)]
enum Open {
    Initiated {
        command: Command,
        seqnum: u8,
        deadline: Time,
    },
    Responding {
        command: Command,
        code: ReturnCode,
        body: ReplyBody,
    },
}

#[derive(Debug, Clone, Default)]
struct PeerState {
    seqnum: u8,
    open: Option<Open>,
}

/// The next SeqNum after `s` (§3.4.6: 0 only after boot or CLEAR).
pub fn next_seqnum(s: u8) -> u8 {
    if s == 0xff {
        1
    } else {
        s + 1
    }
}

/// Codes that mean the responder did not take the request into a
/// transaction, so neither end advances its SeqNum.
fn refused(code: ReturnCode) -> bool {
    matches!(
        code,
        ReturnCode::ErrVersion | ReturnCode::ErrSfid | ReturnCode::ErrSeqnum | ReturnCode::ErrBusy
    )
}

/// A node's 6P layer.
#[derive(Debug, Clone)]
pub struct Sixp {
    sfid: u8,
    timeout_us: Time,
    peers: BTreeMap<Peer, PeerState>,
    stats: SixpStats,
}

impl Sixp {
    /// A 6P layer for scheduling function `sfid` with a 6P timeout.
    pub fn new(sfid: u8, timeout_us: Time) -> Sixp {
        Sixp {
            sfid,
            timeout_us,
            peers: BTreeMap::new(),
            stats: SixpStats::default(),
        }
    }

    /// Start a transaction with `peer`.
    pub fn request(
        &mut self,
        now: Time,
        peer: Peer,
        req: Request,
    ) -> Result<SixpEvent, RequestError> {
        let st = self.peers.entry(peer).or_default();
        if st.open.is_some() {
            return Err(RequestError::Busy);
        }
        st.open = Some(Open::Initiated {
            command: req.command(),
            seqnum: st.seqnum,
            deadline: now + self.timeout_us,
        });
        self.stats.requests_sent += 1;
        Ok(SixpEvent::Send {
            peer,
            repr: Repr {
                sfid: self.sfid,
                seqnum: st.seqnum,
                message: Message::Request(req),
            },
        })
    }

    /// A 6P message (the bytes after the 6P sub-ID) arrived from `peer`.
    /// `decide` is the scheduling function's answer to a valid request.
    pub fn on_receive(
        &mut self,
        peer: Peer,
        bytes: &[u8],
        decide: &mut dyn FnMut(Peer, &Request) -> (ReturnCode, ReplyBody),
    ) -> Vec<SixpEvent> {
        let Ok(p) = Packet::new_checked(bytes) else {
            self.stats.dropped += 1;
            return Vec::new();
        };
        match p.msg_type() {
            t if t == MsgType::Request as u8 => self.on_request(peer, &p, bytes, decide),
            t if t == MsgType::Response as u8 => self.on_response(peer, &p, bytes),
            _ => {
                self.stats.dropped += 1;
                Vec::new()
            }
        }
    }

    fn respond(&mut self, peer: Peer, seqnum: u8, code: ReturnCode) -> Vec<SixpEvent> {
        self.respond_with(peer, seqnum, code, ReplyBody::Empty)
    }

    fn respond_with(
        &mut self,
        peer: Peer,
        seqnum: u8,
        code: ReturnCode,
        body: ReplyBody,
    ) -> Vec<SixpEvent> {
        self.stats.responses_sent += 1;
        vec![SixpEvent::Send {
            peer,
            repr: Repr {
                sfid: self.sfid,
                seqnum,
                message: Message::Response { code, body },
            },
        }]
    }

    fn on_request(
        &mut self,
        peer: Peer,
        p: &Packet<&[u8]>,
        bytes: &[u8],
        decide: &mut dyn FnMut(Peer, &Request) -> (ReturnCode, ReplyBody),
    ) -> Vec<SixpEvent> {
        let seqnum = p.seqnum();
        if p.version() != sixtop::VERSION {
            return self.respond(peer, seqnum, ReturnCode::ErrVersion);
        }
        if p.sfid() != self.sfid {
            return self.respond(peer, seqnum, ReturnCode::ErrSfid);
        }
        let req = match Repr::parse(bytes, None) {
            Ok(Repr {
                message: Message::Request(r),
                ..
            }) => r,
            _ => return self.respond(peer, seqnum, ReturnCode::Err),
        };
        let st = self.peers.entry(peer).or_default();
        if st.open.is_some() {
            return self.respond(peer, seqnum, ReturnCode::ErrBusy);
        }
        // CLEAR is always honoured: it is how inconsistencies are repaired
        if req.command() != Command::Clear && seqnum != st.seqnum {
            self.stats.inconsistencies += 1;
            return self.respond(peer, seqnum, ReturnCode::ErrSeqnum);
        }
        let (code, body) = decide(peer, &req);
        st.open = Some(Open::Responding {
            command: req.command(),
            code,
            body: body.clone(),
        });
        self.respond_with(peer, seqnum, code, body)
    }

    fn on_response(&mut self, peer: Peer, p: &Packet<&[u8]>, bytes: &[u8]) -> Vec<SixpEvent> {
        let st = self.peers.entry(peer).or_default();
        let Some(Open::Initiated {
            command, seqnum, ..
        }) = st.open
        else {
            self.stats.dropped += 1;
            return Vec::new();
        };
        if p.seqnum() != seqnum || p.sfid() != self.sfid {
            self.stats.dropped += 1;
            return Vec::new();
        }
        let Ok(Repr {
            message: Message::Response { code, body },
            ..
        }) = Repr::parse(bytes, Some(command))
        else {
            self.stats.dropped += 1;
            return Vec::new();
        };
        st.open = None;
        let outcome = if code == ReturnCode::ErrSeqnum {
            self.stats.inconsistencies += 1;
            Outcome::Inconsistent
        } else {
            Outcome::Reply { code, body }
        };
        if command == Command::Clear {
            st.seqnum = 0;
        } else if !refused(code) {
            st.seqnum = next_seqnum(st.seqnum);
        }
        vec![SixpEvent::Done {
            peer,
            role: Role::Initiator,
            command,
            outcome,
        }]
    }

    /// The link layer reports on the response we sent to `peer`:
    /// acknowledged or dropped after its retries. Only an acknowledged
    /// response completes the responder's transaction.
    pub fn on_response_sent(&mut self, peer: Peer, acked: bool) -> Vec<SixpEvent> {
        let Some(st) = self.peers.get_mut(&peer) else {
            return Vec::new();
        };
        let Some(Open::Responding {
            command,
            code,
            body,
        }) = st.open.take()
        else {
            return Vec::new();
        };
        // a CLEAR resets the SeqNum whether or not its response got
        // through: the initiator drops its cells on a timeout too, and
        // both ends start again from 0 (see the module note)
        if command == Command::Clear {
            st.seqnum = 0;
        }
        let outcome = if !acked {
            Outcome::NotDelivered
        } else {
            if command != Command::Clear && !refused(code) {
                st.seqnum = next_seqnum(st.seqnum);
            }
            Outcome::Reply { code, body }
        };
        vec![SixpEvent::Done {
            peer,
            role: Role::Responder,
            command,
            outcome,
        }]
    }

    /// The earliest 6P timeout, if a transaction waits for a response.
    pub fn next_deadline(&self) -> Option<Time> {
        self.peers
            .values()
            .filter_map(|s| match s.open {
                Some(Open::Initiated { deadline, .. }) => Some(deadline),
                _ => None,
            })
            .min()
    }

    /// Abandon the transactions whose timeout has expired at `now`.
    pub fn on_timer(&mut self, now: Time) -> Vec<SixpEvent> {
        let mut out = Vec::new();
        for (&peer, st) in &mut self.peers {
            if let Some(Open::Initiated {
                command, deadline, ..
            }) = st.open
            {
                if now >= deadline {
                    st.open = None;
                    if command == Command::Clear {
                        st.seqnum = 0;
                    }
                    self.stats.timeouts += 1;
                    out.push(SixpEvent::Done {
                        peer,
                        role: Role::Initiator,
                        command,
                        outcome: Outcome::Timeout,
                    });
                }
            }
        }
        out
    }

    /// Is a transaction with `peer` open (either role)?
    pub fn is_open(&self, peer: Peer) -> bool {
        self.peers.get(&peer).is_some_and(|s| s.open.is_some())
    }

    /// The SeqNum the next request to `peer` will carry.
    pub fn seqnum(&self, peer: Peer) -> u8 {
        self.peers.get(&peer).map_or(0, |s| s.seqnum)
    }

    /// Counters.
    pub fn stats(&self) -> SixpStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wpan::sixtop::{Cell, CellOptions};

    const A: Peer = 0x0012_4b00_0000_0001;
    const B: Peer = 0x0012_4b00_0000_0002;
    const TIMEOUT: Time = 10_000_000;

    fn cell(s: u16, c: u16) -> Cell {
        Cell {
            slot_offset: s,
            channel_offset: c,
        }
    }

    fn add(cells: Vec<Cell>) -> Request {
        Request::Add {
            metadata: 0,
            cell_options: CellOptions::TX,
            num_cells: 1,
            cells,
        }
    }

    fn bytes(ev: &SixpEvent) -> Vec<u8> {
        let SixpEvent::Send { repr, .. } = ev else {
            panic!("not a send: {ev:?}")
        };
        let mut b = vec![0u8; repr.buffer_len()];
        repr.emit(&mut b).unwrap();
        b
    }

    /// B's scheduling function: accept the last candidate.
    fn accept_last(_: Peer, r: &Request) -> (ReturnCode, ReplyBody) {
        match r {
            Request::Add { cells, .. } => (
                ReturnCode::Success,
                ReplyBody::CellList(cells.last().copied().into_iter().collect()),
            ),
            Request::Clear { .. } => (ReturnCode::Success, ReplyBody::Empty),
            _ => (ReturnCode::Err, ReplyBody::Empty),
        }
    }

    #[test]
    fn one_add_transaction_frame_by_frame() {
        let (mut a, mut b) = (Sixp::new(0, TIMEOUT), Sixp::new(0, TIMEOUT));
        let req = a.request(0, B, add(vec![cell(5, 2), cell(17, 3)])).unwrap();
        // request: type 0 | version 0, ADD, SFID 0, SeqNum 0, metadata 0,
        // TX, NumCells 1, cells (5,2) (17,3)
        let rb = bytes(&req);
        assert_eq!(
            rb,
            [0x00, 0x01, 0x00, 0x00, 0, 0, 0x01, 0x01, 5, 0, 2, 0, 17, 0, 3, 0]
        );
        let resp = b.on_receive(A, &rb, &mut accept_last);
        // response: type 1 << 4 = 0x10, RC_SUCCESS, SFID 0, SeqNum 0, (17,3)
        let sb = bytes(&resp[0]);
        assert_eq!(sb, [0x10, 0x00, 0x00, 0x00, 17, 0, 3, 0]);
        // B commits only when the response is acknowledged
        assert_eq!(b.seqnum(A), 0);
        let done_b = b.on_response_sent(A, true);
        assert_eq!(b.seqnum(A), 1);
        let done_a = a.on_receive(B, &sb, &mut accept_last);
        let ok = Outcome::Reply {
            code: ReturnCode::Success,
            body: ReplyBody::CellList(vec![cell(17, 3)]),
        };
        assert_eq!(
            done_a,
            vec![SixpEvent::Done {
                peer: B,
                role: Role::Initiator,
                command: Command::Add,
                outcome: ok.clone()
            }]
        );
        assert_eq!(
            done_b,
            vec![SixpEvent::Done {
                peer: A,
                role: Role::Responder,
                command: Command::Add,
                outcome: ok
            }]
        );
        assert_eq!(a.seqnum(B), 1);
        assert_eq!(a.next_deadline(), None);
        // the next request carries SeqNum 1
        let again = a.request(5, B, add(vec![cell(9, 1)])).unwrap();
        assert_eq!(bytes(&again)[3], 1);
    }

    #[test]
    fn timeout_then_inconsistency_then_clear() {
        let (mut a, mut b) = (Sixp::new(0, TIMEOUT), Sixp::new(0, TIMEOUT));
        let req = a.request(1_000, B, add(vec![cell(5, 2)])).unwrap();
        assert_eq!(a.next_deadline(), Some(1_000 + TIMEOUT));
        // B answers and its response is acknowledged, but A's timer fires
        // first (the response is still queued at B): A gives up.
        let resp = b.on_receive(A, &bytes(&req), &mut accept_last);
        b.on_response_sent(A, true);
        assert_eq!(a.on_timer(TIMEOUT), vec![]);
        let t = a.on_timer(1_000 + TIMEOUT);
        assert!(matches!(
            t[..],
            [SixpEvent::Done {
                outcome: Outcome::Timeout,
                ..
            }]
        ));
        // the late response is dropped
        assert!(a
            .on_receive(B, &bytes(&resp[0]), &mut accept_last)
            .is_empty());
        assert_eq!((a.seqnum(B), b.seqnum(A)), (0, 1));
        // the next request (SeqNum 0) meets B's 1: RC_ERR_SEQNUM (6)
        let req2 = a.request(20_000_000, B, add(vec![cell(7, 1)])).unwrap();
        let r2 = b.on_receive(A, &bytes(&req2), &mut accept_last);
        assert_eq!(bytes(&r2[0]), [0x10, 0x06, 0x00, 0x00]);
        let d = a.on_receive(B, &bytes(&r2[0]), &mut accept_last);
        assert!(matches!(
            d[..],
            [SixpEvent::Done {
                outcome: Outcome::Inconsistent,
                ..
            }]
        ));
        // A clears (SeqNum 0 still); B honours it whatever its counter
        let clear = a
            .request(21_000_000, B, Request::Clear { metadata: 0 })
            .unwrap();
        let r3 = b.on_receive(A, &bytes(&clear), &mut accept_last);
        b.on_response_sent(A, true);
        a.on_receive(B, &bytes(&r3[0]), &mut accept_last);
        assert_eq!((a.seqnum(B), b.seqnum(A)), (0, 0));
        assert_eq!(a.stats().timeouts, 1);
        assert_eq!(a.stats().inconsistencies, 1);
        assert_eq!(b.stats().inconsistencies, 1);
    }

    #[test]
    fn a_clear_whose_response_is_lost_resets_both_seqnums() {
        let (mut a, mut b) = (Sixp::new(0, TIMEOUT), Sixp::new(0, TIMEOUT));
        // one ADD completed: both at SeqNum 1
        let req = a.request(0, B, add(vec![cell(5, 2)])).unwrap();
        let resp = b.on_receive(A, &bytes(&req), &mut accept_last);
        b.on_response_sent(A, true);
        a.on_receive(B, &bytes(&resp[0]), &mut accept_last);
        assert_eq!((a.seqnum(B), b.seqnum(A)), (1, 1));
        // B gets the CLEAR, its response is never acknowledged, A's timer
        // fires: both ends are back at 0 (the cells go at both ends too),
        // so the next request is taken, not refused or mistaken for one
        // of a schedule that still holds the old cells
        let clear = a.request(1_000, B, Request::Clear { metadata: 0 }).unwrap();
        b.on_receive(A, &bytes(&clear), &mut accept_last);
        let lost = b.on_response_sent(A, false);
        assert!(matches!(
            lost[..],
            [SixpEvent::Done {
                command: Command::Clear,
                outcome: Outcome::NotDelivered,
                ..
            }]
        ));
        a.on_timer(1_000 + TIMEOUT);
        assert_eq!((a.seqnum(B), b.seqnum(A)), (0, 0));
        let next = a.request(2 * TIMEOUT, B, add(vec![cell(7, 1)])).unwrap();
        let r = b.on_receive(A, &bytes(&next), &mut accept_last);
        assert!(matches!(
            &r[..],
            [SixpEvent::Send {
                repr: Repr {
                    message: Message::Response {
                        code: ReturnCode::Success,
                        ..
                    },
                    ..
                },
                ..
            }]
        ));
    }

    #[test]
    fn error_codes_for_bad_requests() {
        let mut b = Sixp::new(0, TIMEOUT);
        // version 1 -> RC_ERR_VERSION (4), SeqNum echoed
        let r = b.on_receive(A, &[0x01, 0x01, 0x00, 0x07], &mut accept_last);
        assert_eq!(bytes(&r[0]), [0x10, 0x04, 0x00, 0x07]);
        // SFID 9 -> RC_ERR_SFID (5), answered with our SFID
        let r = b.on_receive(A, &[0x00, 0x01, 0x09, 0x00, 0, 0, 1, 1], &mut accept_last);
        assert_eq!(bytes(&r[0]), [0x10, 0x05, 0x00, 0x00]);
        // command 8 and a cell list of 3 bytes -> RC_ERR (2)
        let r = b.on_receive(A, &[0x00, 0x08, 0x00, 0x00], &mut accept_last);
        assert_eq!(bytes(&r[0]), [0x10, 0x02, 0x00, 0x00]);
        let r = b.on_receive(
            A,
            &[0x00, 0x01, 0, 0, 0, 0, 1, 1, 5, 0, 2],
            &mut accept_last,
        );
        assert_eq!(bytes(&r[0]), [0x10, 0x02, 0x00, 0x00]);
        // none of these opened a transaction or moved the SeqNum
        assert_eq!(b.seqnum(A), 0);
        assert!(b.on_response_sent(A, true).is_empty());
        // a second request while one is open -> RC_ERR_BUSY (8)
        let req = [0x00, 0x01, 0, 0, 0, 0, 1, 1, 5, 0, 2, 0];
        b.on_receive(A, &req, &mut accept_last);
        let r = b.on_receive(A, &req, &mut accept_last);
        assert_eq!(bytes(&r[0]), [0x10, 0x08, 0x00, 0x00]);
        // the first response is lost: nothing applied, SeqNum unchanged
        let d = b.on_response_sent(A, false);
        assert!(matches!(
            d[..],
            [SixpEvent::Done {
                outcome: Outcome::NotDelivered,
                ..
            }]
        ));
        assert_eq!(b.seqnum(A), 0);
        // garbage, unexpected responses and confirmations are dropped
        assert!(b.on_receive(A, &[0x00], &mut accept_last).is_empty());
        assert!(b
            .on_receive(A, &[0x10, 0, 0, 0], &mut accept_last)
            .is_empty());
        assert!(b
            .on_receive(A, &[0x20, 0, 0, 0], &mut accept_last)
            .is_empty());
        assert_eq!(b.stats().dropped, 3);
        // a local second request while busy is refused
        let mut a = Sixp::new(0, TIMEOUT);
        a.request(0, B, add(vec![])).unwrap();
        assert_eq!(a.request(1, B, add(vec![])), Err(RequestError::Busy));
    }

    #[test]
    fn seqnum_lollipop() {
        assert_eq!(next_seqnum(0), 1);
        assert_eq!(next_seqnum(0xfe), 0xff);
        assert_eq!(next_seqnum(0xff), 1);
    }
}
