//! The 6top Protocol (6P) message (RFC 8480 §3.2) and the 6top IE that
//! carries it (RFC 8480 §3.2.1): an IETF payload IE (RFC 8137) whose first
//! content byte is the 6P sub-ID.
//!
//! ```text
//! 6top IE:  | payload IE descriptor (group 0x5) | sub-ID 0xc9 | 6P message |
//! 6P:       | type (2) ver (4)  (byte 0: ver bits 0-3, type bits 4-5) | code | SFID | SeqNum | body |
//! ```
//!
//! Bodies by command (RFC 8480 §3.3.1-§3.3.7, multi-byte fields little
//! endian like every 802.15.4 IE):
//! - ADD / DELETE request: Metadata (2), CellOptions (1), NumCells (1), CellList;
//! - RELOCATE request: Metadata, CellOptions, NumCells, Relocation CellList
//!   (NumCells cells), Candidate CellList (the rest);
//! - COUNT request: Metadata, CellOptions;
//! - LIST request: Metadata, CellOptions, Reserved (1), Offset (2), MaxNumCells (2);
//! - SIGNAL request: Metadata, payload; CLEAR request: Metadata;
//! - responses / confirmations: a CellList (ADD, DELETE, RELOCATE, LIST), the
//!   cell count (COUNT, 2 bytes), the payload (SIGNAL) or nothing (CLEAR and
//!   every error return code).
//!
//! A response's body cannot be read without knowing which request it answers
//! (the header carries a return code, not the command), so
//! [`Repr::parse`] takes the command the transaction is waiting for.

use crate::{need, room, Error, Result};

/// IEEE 802.15.4 payload IE group ID of the IETF IE (RFC 8137; the value
/// as recalled, confirmed by tshark dissecting the 6top IE, see
/// `tests/tshark.rs`).
pub const IETF_IE_GROUP: u8 = 0x5;
/// IETF IE sub-ID of the 6top IE (RFC 8480 §5.1, IANA value 201).
pub const SUBIE_ID_6P: u8 = 0xc9;
/// The only 6P version (RFC 8480 §3.2.2: "MUST set this field to 0").
pub const VERSION: u8 = 0;
/// Header length: version/type, code, SFID, SeqNum.
pub const HEADER_LEN: usize = 4;
/// Length of one cell in a CellList (slotOffset, channelOffset).
pub const CELL_LEN: usize = 4;

/// Byte offsets of the 6P header fields.
pub mod field {
    /// version (bits 0-3), type (bits 4-5), reserved (bits 6-7)
    pub const VERSION_TYPE: usize = 0;
    /// command (requests) or return code (responses, confirmations)
    pub const CODE: usize = 1;
    /// scheduling function identifier
    pub const SFID: usize = 2;
    /// sequence number
    pub const SEQNUM: usize = 3;
}

/// 6P message type (RFC 8480 §3.2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MsgType {
    /// request
    Request = 0,
    /// response
    Response = 1,
    /// confirmation (3-step transactions)
    Confirmation = 2,
}

/// 6P command identifiers (RFC 8480 §6.2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// add cells
    Add = 1,
    /// delete cells
    Delete = 2,
    /// relocate cells
    Relocate = 3,
    /// count scheduled cells
    Count = 4,
    /// list scheduled cells
    List = 5,
    /// opaque signal to the scheduling function
    Signal = 6,
    /// clear all cells with the neighbour
    Clear = 7,
}

impl Command {
    /// The command of a code byte, `None` for a reserved value.
    pub fn from_code(code: u8) -> Option<Command> {
        Some(match code {
            1 => Command::Add,
            2 => Command::Delete,
            3 => Command::Relocate,
            4 => Command::Count,
            5 => Command::List,
            6 => Command::Signal,
            7 => Command::Clear,
            _ => return None,
        })
    }
}

/// 6P return codes (RFC 8480 §6.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReturnCode {
    /// operation succeeded
    Success = 0,
    /// end of list (LIST)
    Eol = 1,
    /// generic error
    Err = 2,
    /// critical error, reset
    Reset = 3,
    /// unsupported 6P version
    ErrVersion = 4,
    /// unsupported SFID
    ErrSfid = 5,
    /// schedule inconsistency (sequence number mismatch)
    ErrSeqnum = 6,
    /// cell list error
    ErrCelllist = 7,
    /// busy
    ErrBusy = 8,
    /// cells locked
    ErrLocked = 9,
}

impl ReturnCode {
    /// The return code of a code byte, `None` for a reserved value.
    pub fn from_code(code: u8) -> Option<ReturnCode> {
        Some(match code {
            0 => ReturnCode::Success,
            1 => ReturnCode::Eol,
            2 => ReturnCode::Err,
            3 => ReturnCode::Reset,
            4 => ReturnCode::ErrVersion,
            5 => ReturnCode::ErrSfid,
            6 => ReturnCode::ErrSeqnum,
            7 => ReturnCode::ErrCelllist,
            8 => ReturnCode::ErrBusy,
            9 => ReturnCode::ErrLocked,
            _ => return None,
        })
    }

    /// Whether the body may carry data (RFC 8480 §3.3: only SUCCESS and
    /// EOL responses carry a CellList / count / payload).
    pub fn carries_body(self) -> bool {
        matches!(self, ReturnCode::Success | ReturnCode::Eol)
    }
}

/// CellOptions bitmap (RFC 8480 §3.2.3, §6.2.5): TX, RX, SHARED.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CellOptions(pub u8);

impl CellOptions {
    /// transmit cell
    pub const TX: CellOptions = CellOptions(0b001);
    /// receive cell
    pub const RX: CellOptions = CellOptions(0b010);
    /// shared cell
    pub const SHARED: CellOptions = CellOptions(0b100);

    /// Whether every bit of `o` is set.
    pub fn contains(self, o: CellOptions) -> bool {
        self.0 & o.0 == o.0
    }
}

impl core::ops::BitOr for CellOptions {
    type Output = CellOptions;
    fn bitor(self, o: CellOptions) -> CellOptions {
        CellOptions(self.0 | o.0)
    }
}

/// A cell of a CellList (RFC 8480 §3.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// slot offset in the slotframe
    pub slot_offset: u16,
    /// channel offset
    pub channel_offset: u16,
}

/// A 6P request body (RFC 8480 §3.3.1-§3.3.7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// ADD: schedule `num_cells` of the candidate `cells`.
    Add {
        /// SF-defined metadata
        metadata: u16,
        /// options of the cells to add
        cell_options: CellOptions,
        /// number of cells to add
        num_cells: u8,
        /// candidate cells
        cells: Vec<Cell>,
    },
    /// DELETE: remove `num_cells` of `cells`.
    Delete {
        /// SF-defined metadata
        metadata: u16,
        /// options of the cells to delete
        cell_options: CellOptions,
        /// number of cells to delete
        num_cells: u8,
        /// candidate cells
        cells: Vec<Cell>,
    },
    /// RELOCATE: move `relocation` cells to some of `candidates`.
    Relocate {
        /// SF-defined metadata
        metadata: u16,
        /// options of the cells to relocate
        cell_options: CellOptions,
        /// cells to relocate (NumCells on the wire is their count)
        relocation: Vec<Cell>,
        /// candidate destinations
        candidates: Vec<Cell>,
    },
    /// COUNT: how many cells with these options are scheduled.
    Count {
        /// SF-defined metadata
        metadata: u16,
        /// options of the cells to count
        cell_options: CellOptions,
    },
    /// LIST: up to `max_num_cells` cells starting at `offset`.
    List {
        /// SF-defined metadata
        metadata: u16,
        /// options of the cells to list
        cell_options: CellOptions,
        /// index of the first cell
        offset: u16,
        /// most cells in the response
        max_num_cells: u16,
    },
    /// SIGNAL: opaque payload for the scheduling function.
    Signal {
        /// SF-defined metadata
        metadata: u16,
        /// payload
        payload: Vec<u8>,
    },
    /// CLEAR: remove every cell with the neighbour.
    Clear {
        /// SF-defined metadata
        metadata: u16,
    },
}

impl Request {
    /// The command this request carries.
    pub fn command(&self) -> Command {
        match self {
            Request::Add { .. } => Command::Add,
            Request::Delete { .. } => Command::Delete,
            Request::Relocate { .. } => Command::Relocate,
            Request::Count { .. } => Command::Count,
            Request::List { .. } => Command::List,
            Request::Signal { .. } => Command::Signal,
            Request::Clear { .. } => Command::Clear,
        }
    }

    fn body_len(&self) -> usize {
        match self {
            Request::Add { cells, .. } | Request::Delete { cells, .. } => {
                4 + CELL_LEN * cells.len()
            }
            Request::Relocate {
                relocation,
                candidates,
                ..
            } => 4 + CELL_LEN * (relocation.len() + candidates.len()),
            Request::Count { .. } => 3,
            Request::List { .. } => 8,
            Request::Signal { payload, .. } => 2 + payload.len(),
            Request::Clear { .. } => 2,
        }
    }

    fn emit_body(&self, b: &mut [u8]) -> Result<()> {
        match self {
            Request::Add {
                metadata,
                cell_options,
                num_cells,
                cells,
            }
            | Request::Delete {
                metadata,
                cell_options,
                num_cells,
                cells,
            } => {
                b[..2].copy_from_slice(&metadata.to_le_bytes());
                b[2] = cell_options.0;
                b[3] = *num_cells;
                emit_cells(cells, &mut b[4..]);
            }
            Request::Relocate {
                metadata,
                cell_options,
                relocation,
                candidates,
            } => {
                let n = u8::try_from(relocation.len()).map_err(|_| Error::TooLong {
                    what: "6P RELOCATE relocation cell list",
                    len: relocation.len(),
                    max: 255,
                })?;
                b[..2].copy_from_slice(&metadata.to_le_bytes());
                b[2] = cell_options.0;
                b[3] = n;
                emit_cells(relocation, &mut b[4..]);
                emit_cells(candidates, &mut b[4 + CELL_LEN * relocation.len()..]);
            }
            Request::Count {
                metadata,
                cell_options,
            } => {
                b[..2].copy_from_slice(&metadata.to_le_bytes());
                b[2] = cell_options.0;
            }
            Request::List {
                metadata,
                cell_options,
                offset,
                max_num_cells,
            } => {
                b[..2].copy_from_slice(&metadata.to_le_bytes());
                b[2] = cell_options.0;
                b[3] = 0; // reserved
                b[4..6].copy_from_slice(&offset.to_le_bytes());
                b[6..8].copy_from_slice(&max_num_cells.to_le_bytes());
            }
            Request::Signal { metadata, payload } => {
                b[..2].copy_from_slice(&metadata.to_le_bytes());
                b[2..2 + payload.len()].copy_from_slice(payload);
            }
            Request::Clear { metadata } => b[..2].copy_from_slice(&metadata.to_le_bytes()),
        }
        Ok(())
    }

    fn parse_body(cmd: Command, b: &[u8]) -> Result<Request> {
        let metadata = || -> Result<u16> {
            need(b, 2, "6P request metadata")?;
            Ok(u16::from_le_bytes([b[0], b[1]]))
        };
        Ok(match cmd {
            Command::Add | Command::Delete | Command::Relocate => {
                need(b, 4, "6P request metadata, CellOptions, NumCells")?;
                let (metadata, cell_options, num_cells) = (metadata()?, CellOptions(b[2]), b[3]);
                let cells = parse_cells(&b[4..])?;
                match cmd {
                    Command::Add => Request::Add {
                        metadata,
                        cell_options,
                        num_cells,
                        cells,
                    },
                    Command::Delete => Request::Delete {
                        metadata,
                        cell_options,
                        num_cells,
                        cells,
                    },
                    _ => {
                        let n = usize::from(num_cells);
                        if cells.len() < n {
                            return Err(Error::Truncated {
                                what: "6P RELOCATE relocation cell list",
                                need: 4 + CELL_LEN * n,
                                have: b.len(),
                            });
                        }
                        let mut relocation = cells;
                        let candidates = relocation.split_off(n);
                        Request::Relocate {
                            metadata,
                            cell_options,
                            relocation,
                            candidates,
                        }
                    }
                }
            }
            Command::Count => {
                exact(b, 3, "6P COUNT request body")?;
                Request::Count {
                    metadata: metadata()?,
                    cell_options: CellOptions(b[2]),
                }
            }
            Command::List => {
                exact(b, 8, "6P LIST request body")?;
                Request::List {
                    metadata: metadata()?,
                    cell_options: CellOptions(b[2]),
                    offset: u16::from_le_bytes([b[4], b[5]]),
                    max_num_cells: u16::from_le_bytes([b[6], b[7]]),
                }
            }
            Command::Signal => Request::Signal {
                metadata: metadata()?,
                payload: b[2..].to_vec(),
            },
            Command::Clear => {
                exact(b, 2, "6P CLEAR request body")?;
                Request::Clear {
                    metadata: metadata()?,
                }
            }
        })
    }
}

/// The body of a response or confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyBody {
    /// nothing (CLEAR, every error code)
    Empty,
    /// cells added / deleted / relocated / listed
    CellList(Vec<Cell>),
    /// COUNT result
    NumCells(u16),
    /// SIGNAL payload, or the bytes of a reply read without its command
    Payload(Vec<u8>),
}

impl ReplyBody {
    fn len(&self) -> usize {
        match self {
            ReplyBody::Empty => 0,
            ReplyBody::CellList(c) => CELL_LEN * c.len(),
            ReplyBody::NumCells(_) => 2,
            ReplyBody::Payload(p) => p.len(),
        }
    }

    fn emit(&self, b: &mut [u8]) {
        match self {
            ReplyBody::Empty => {}
            ReplyBody::CellList(c) => emit_cells(c, b),
            ReplyBody::NumCells(n) => b[..2].copy_from_slice(&n.to_le_bytes()),
            ReplyBody::Payload(p) => b[..p.len()].copy_from_slice(p),
        }
    }

    fn parse(code: ReturnCode, answering: Option<Command>, b: &[u8]) -> Result<ReplyBody> {
        if !code.carries_body() {
            exact(b, 0, "6P error reply body")?;
            return Ok(ReplyBody::Empty);
        }
        Ok(match answering {
            Some(Command::Add | Command::Delete | Command::Relocate | Command::List) => {
                ReplyBody::CellList(parse_cells(b)?)
            }
            Some(Command::Count) => {
                exact(b, 2, "6P COUNT reply body")?;
                ReplyBody::NumCells(u16::from_le_bytes([b[0], b[1]]))
            }
            Some(Command::Clear) => {
                exact(b, 0, "6P CLEAR reply body")?;
                ReplyBody::Empty
            }
            Some(Command::Signal) | None => ReplyBody::Payload(b.to_vec()),
        })
    }
}

/// What a 6P message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// a request
    Request(Request),
    /// a response
    Response {
        /// return code
        code: ReturnCode,
        /// body
        body: ReplyBody,
    },
    /// a confirmation (3-step transactions)
    Confirmation {
        /// return code
        code: ReturnCode,
        /// body
        body: ReplyBody,
    },
}

/// A zero-copy view of a 6P message (the bytes after the 6P sub-ID).
#[derive(Debug, Clone, Copy)]
pub struct Packet<T: AsRef<[u8]>> {
    buf: T,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wrap `buf` after checking that it holds the 4-byte header.
    pub fn new_checked(buf: T) -> Result<Packet<T>> {
        need(buf.as_ref(), HEADER_LEN, "6P header")?;
        Ok(Packet { buf })
    }

    /// Version (bits 0-3 of byte 0).
    pub fn version(&self) -> u8 {
        self.buf.as_ref()[field::VERSION_TYPE] & 0x0f
    }

    /// Type field (bits 4-5 of byte 0), 3 is reserved.
    pub fn msg_type(&self) -> u8 {
        (self.buf.as_ref()[field::VERSION_TYPE] >> 4) & 0x3
    }

    /// Command or return code.
    pub fn code(&self) -> u8 {
        self.buf.as_ref()[field::CODE]
    }

    /// Scheduling function identifier.
    pub fn sfid(&self) -> u8 {
        self.buf.as_ref()[field::SFID]
    }

    /// Sequence number.
    pub fn seqnum(&self) -> u8 {
        self.buf.as_ref()[field::SEQNUM]
    }

    /// The bytes after the header.
    pub fn body(&self) -> &[u8] {
        &self.buf.as_ref()[HEADER_LEN..]
    }
}

/// A 6P message as values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repr {
    /// scheduling function identifier (MSF is 0, RFC 9033 §17)
    pub sfid: u8,
    /// sequence number (RFC 8480 §3.4.6)
    pub seqnum: u8,
    /// what it says
    pub message: Message,
}

impl Repr {
    /// Parse a 6P message (after the sub-ID). A response or confirmation's
    /// body is read as the reply to `answering` (the command of the pending
    /// transaction); with `None` it is kept as [`ReplyBody::Payload`].
    pub fn parse(buf: &[u8], answering: Option<Command>) -> Result<Repr> {
        let p = Packet::new_checked(buf)?;
        if p.version() != VERSION {
            return Err(Error::BadValue {
                field: "6P version (RFC 8480 §3.2.2 allows 0)",
                value: u32::from(p.version()),
            });
        }
        let bad_code = |field| Error::BadValue {
            field,
            value: u32::from(p.code()),
        };
        let message = match p.msg_type() {
            0 => {
                let cmd = Command::from_code(p.code()).ok_or(bad_code("6P command (1..=7)"))?;
                Message::Request(Request::parse_body(cmd, p.body())?)
            }
            t @ (1 | 2) => {
                let code =
                    ReturnCode::from_code(p.code()).ok_or(bad_code("6P return code (0..=9)"))?;
                let body = ReplyBody::parse(code, answering, p.body())?;
                if t == 1 {
                    Message::Response { code, body }
                } else {
                    Message::Confirmation { code, body }
                }
            }
            t => {
                return Err(Error::BadValue {
                    field: "6P message type (0..=2)",
                    value: u32::from(t),
                })
            }
        };
        Ok(Repr {
            sfid: p.sfid(),
            seqnum: p.seqnum(),
            message,
        })
    }

    /// Parse the content of an IETF payload IE (group [`IETF_IE_GROUP`]),
    /// which must start with the 6P sub-ID.
    pub fn parse_ietf_ie_content(content: &[u8], answering: Option<Command>) -> Result<Repr> {
        need(content, 1, "IETF IE sub-ID")?;
        if content[0] != SUBIE_ID_6P {
            return Err(Error::BadValue {
                field: "IETF IE sub-ID (6P is 0xc9)",
                value: u32::from(content[0]),
            });
        }
        Repr::parse(&content[1..], answering)
    }

    /// Message type.
    pub fn msg_type(&self) -> MsgType {
        match self.message {
            Message::Request(_) => MsgType::Request,
            Message::Response { .. } => MsgType::Response,
            Message::Confirmation { .. } => MsgType::Confirmation,
        }
    }

    fn code(&self) -> u8 {
        match &self.message {
            Message::Request(r) => r.command() as u8,
            Message::Response { code, .. } | Message::Confirmation { code, .. } => *code as u8,
        }
    }

    /// Length of the 6P message on the wire.
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN
            + match &self.message {
                Message::Request(r) => r.body_len(),
                Message::Response { body, .. } | Message::Confirmation { body, .. } => body.len(),
            }
    }

    /// Write the 6P message at the start of `buf`; returns the bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let n = self.buffer_len();
        room(buf, n)?;
        buf[field::VERSION_TYPE] = VERSION | ((self.msg_type() as u8) << 4);
        buf[field::CODE] = self.code();
        buf[field::SFID] = self.sfid;
        buf[field::SEQNUM] = self.seqnum;
        match &self.message {
            Message::Request(r) => r.emit_body(&mut buf[HEADER_LEN..n])?,
            Message::Response { body, .. } | Message::Confirmation { body, .. } => {
                body.emit(&mut buf[HEADER_LEN..n])
            }
        }
        Ok(n)
    }

    /// Length of the whole 6top IE (payload IE descriptor, sub-ID, message).
    pub fn ie_buffer_len(&self) -> usize {
        crate::ie::DESCRIPTOR_LEN + 1 + self.buffer_len()
    }

    /// Write the whole 6top IE at the start of `buf`; returns the bytes written.
    pub fn emit_ie(&self, buf: &mut [u8]) -> Result<usize> {
        let content = 1 + self.buffer_len();
        if content > 0x7ff {
            return Err(Error::TooLong {
                what: "6top IE content",
                len: content,
                max: 0x7ff,
            });
        }
        room(buf, self.ie_buffer_len())?;
        let d = 0x8000 | (u16::from(IETF_IE_GROUP) << 11) | content as u16;
        buf[..2].copy_from_slice(&d.to_le_bytes());
        buf[2] = SUBIE_ID_6P;
        self.emit(&mut buf[3..])?;
        Ok(self.ie_buffer_len())
    }
}

fn exact(b: &[u8], len: usize, what: &'static str) -> Result<()> {
    if b.len() == len {
        Ok(())
    } else if b.len() < len {
        Err(Error::Truncated {
            what,
            need: len,
            have: b.len(),
        })
    } else {
        Err(Error::BadValue {
            field: what,
            value: b.len() as u32,
        })
    }
}

fn parse_cells(b: &[u8]) -> Result<Vec<Cell>> {
    if !b.len().is_multiple_of(CELL_LEN) {
        return Err(Error::BadValue {
            field: "6P CellList length (a multiple of 4)",
            value: b.len() as u32,
        });
    }
    Ok(b.chunks_exact(CELL_LEN)
        .map(|c| Cell {
            slot_offset: u16::from_le_bytes([c[0], c[1]]),
            channel_offset: u16::from_le_bytes([c[2], c[3]]),
        })
        .collect())
}

fn emit_cells(cells: &[Cell], b: &mut [u8]) {
    for (c, out) in cells.iter().zip(b.chunks_exact_mut(CELL_LEN)) {
        out[..2].copy_from_slice(&c.slot_offset.to_le_bytes());
        out[2..].copy_from_slice(&c.channel_offset.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add_request() -> Repr {
        Repr {
            sfid: 0,
            seqnum: 1,
            message: Message::Request(Request::Add {
                metadata: 0,
                cell_options: CellOptions::TX,
                num_cells: 1,
                cells: vec![
                    Cell {
                        slot_offset: 5,
                        channel_offset: 2,
                    },
                    Cell {
                        slot_offset: 17,
                        channel_offset: 3,
                    },
                ],
            }),
        }
    }

    #[test]
    fn add_request_bytes() {
        // byte 0: version 0 | type request 0 << 4 = 0x00; code ADD 0x01;
        // SFID 0 (MSF); SeqNum 1; metadata 00 00; CellOptions TX 0x01;
        // NumCells 1; cells (5,2) -> 05 00 02 00 and (17,3) -> 11 00 03 00.
        let r = add_request();
        let mut b = vec![0u8; r.buffer_len()];
        assert_eq!(r.emit(&mut b), Ok(16));
        assert_eq!(
            b,
            [
                0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x01, 0x01, 0x05, 0x00, 0x02, 0x00, 0x11, 0x00,
                0x03, 0x00
            ]
        );
        assert_eq!(Repr::parse(&b, None), Ok(r.clone()));
        // the IE: content 1 + 16 = 17 bytes; descriptor 0x8000 | 5 << 11 | 17
        // = 0xa811 -> 11 a8, then the sub-ID c9.
        let mut ie = vec![0u8; r.ie_buffer_len()];
        assert_eq!(r.emit_ie(&mut ie), Ok(19));
        assert_eq!(&ie[..3], &[0x11, 0xa8, 0xc9]);
        // the generic IE parser sees an IETF IE; its content reads back
        let (ies, _) = crate::ie::PayloadIe::parse_list(&ie).unwrap();
        let crate::ie::PayloadIe::Other { group: 5, content } = &ies[0] else {
            panic!("not an IETF IE: {ies:?}")
        };
        assert_eq!(Repr::parse_ietf_ie_content(content, None), Ok(r));
    }

    #[test]
    fn response_needs_its_command() {
        // byte 0: type response 1 << 4 = 0x10; RC_SUCCESS; SFID 0; SeqNum 1;
        // one cell (17,3).
        let b = [0x10, 0x00, 0x00, 0x01, 0x11, 0x00, 0x03, 0x00];
        let cell = Cell {
            slot_offset: 17,
            channel_offset: 3,
        };
        let r = Repr::parse(&b, Some(Command::Add)).unwrap();
        assert_eq!(
            r.message,
            Message::Response {
                code: ReturnCode::Success,
                body: ReplyBody::CellList(vec![cell])
            }
        );
        // the same bytes as a COUNT reply are 4 bytes where 2 are allowed
        assert!(Repr::parse(&b, Some(Command::Count)).is_err());
        let mut out = [0u8; 8];
        assert_eq!(r.emit(&mut out), Ok(8));
        assert_eq!(out, b);
        // RC_ERR_SEQNUM (6) carries no body
        let err = [0x10, 0x06, 0x00, 0x01];
        assert_eq!(
            Repr::parse(&err, Some(Command::Add)).unwrap().message,
            Message::Response {
                code: ReturnCode::ErrSeqnum,
                body: ReplyBody::Empty
            }
        );
    }

    #[test]
    fn relocate_splits_its_lists() {
        // NumCells 1: the first cell is relocated, the other two are candidates
        let b = [
            0x00, 0x03, 0x00, 0x07, 0x00, 0x00, 0x01, 0x01, 1, 0, 1, 0, 2, 0, 2, 0, 3, 0, 3, 0,
        ];
        let r = Repr::parse(&b, None).unwrap();
        let Message::Request(Request::Relocate {
            relocation,
            candidates,
            ..
        }) = &r.message
        else {
            panic!("{r:?}")
        };
        assert_eq!((relocation.len(), candidates.len()), (1, 2));
        assert_eq!(candidates[1].slot_offset, 3);
        let mut out = vec![0u8; r.buffer_len()];
        r.emit(&mut out).unwrap();
        assert_eq!(out, b);
        // NumCells 4 with three cells is malformed
        let mut bad = b;
        bad[7] = 4;
        assert!(Repr::parse(&bad, None).is_err());
    }

    #[test]
    fn malformed_headers_are_errors() {
        // version 1
        assert!(matches!(
            Repr::parse(&[0x01, 0x01, 0, 0, 0, 0, 0, 0], None),
            Err(Error::BadValue { value: 1, .. })
        ));
        // type 3
        assert!(Repr::parse(&[0x30, 0x00, 0, 0], None).is_err());
        // command 8, return code 10
        assert!(Repr::parse(&[0x00, 0x08, 0, 0, 0, 0], None).is_err());
        assert!(Repr::parse(&[0x10, 0x0a, 0, 0], None).is_err());
        // truncated header, cell list not a multiple of 4
        assert!(Repr::parse(&[0x00, 0x01, 0], None).is_err());
        assert!(Repr::parse(&[0x00, 0x01, 0, 0, 0, 0, 1, 1, 5, 0, 2], None).is_err());
        // a COUNT request and a CLEAR request of the right sizes
        assert!(Repr::parse(&[0x00, 0x04, 0, 0, 0, 0, 1], None).is_ok());
        assert!(Repr::parse(&[0x00, 0x07, 0, 0, 0, 0], None).is_ok());
        assert!(Repr::parse(&[0x00, 0x07, 0, 0, 0, 0, 0], None).is_err());
    }
}
