//! IEEE 802.15.4 MAC frames (MPDU without FCS; see [`crate::fcs`] for the
//! FCS): frame control, sequence number (and the 2015 sequence number
//! suppression), addressing modes none/short/extended, PAN ID compression by
//! the 2003/2006 rules and by the 2015 table (Table 7-2), the auxiliary
//! security header, header and payload IEs (2015), and the bodies of data,
//! (Imm-/Enh-)ACK, MAC command and (enhanced) beacon frames.
//!
//! ```text
//! | frame control (2) | seq (0/1) | dst PAN (0/2) | dst addr (0/2/8) | src PAN (0/2) |
//! | src addr (0/2/8) | aux security header (0/5..14) | header IEs | payload IEs | payload |
//! ```
//!
//! Multi-byte fields are little endian on the wire. Extended addresses are held
//! as `u64` in the order they are written (`0xacde480000000001` is printed by
//! Wireshark as `ac:de:48:00:00:00:00:01` and sent as `01 00 00 00 00 48 de ac`).
//!
//! One module per part, each with a zero-copy view and/or a `Repr` with
//! `parse` / `buffer_len` / `emit`:
//! - `header`: frame control, addressing and [`Frame`], which reads those
//!   fields in place (no allocation), all a receiver needs to drop a frame
//!   that is not for it;
//! - `repr`: the whole MPDU as values. [`Repr::parse`] reads a plaintext
//!   frame: an unsecured one, or a secured one after
//!   [`crate::ccm_star::unsecure_frame`] (security bit and auxiliary header
//!   still there, payload decrypted, MIC removed — the "unsecured frame" of
//!   Annex C); [`ReprRef::parse`] reads the same without copying;
//! - `beacon`: a (non-enhanced) beacon's MAC payload ([`BeaconPayload`],
//!   [`Beacon`]);
//! - `command`: a MAC command's MAC payload ([`Command`]);
//! - `layout`: [`Layout::parse`] reads the cleartext structure of a frame
//!   whose payload may still be encrypted.

mod beacon;
mod command;
mod header;
mod layout;
mod repr;

pub use beacon::{Beacon, BeaconPayload, SuperframeSpec};
pub use command::{command_id, Command};
pub use header::{field, pan_id_presence, Address, Frame, FrameType, FrameVersion, BROADCAST};
pub use layout::Layout;
pub use repr::{Body, BodyRef, Borrowed, Owned, Repr, ReprOf, ReprRef, Storage};

/// aMaxPHYPacketSize: the largest PSDU (MPDU incl. MIC and FCS) in bytes.
pub const MAX_PSDU_LEN: usize = 127;
