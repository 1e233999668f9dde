//! Byte-exact wire code for dtlsim's low-power link: IEEE 802.15.4 MAC frames
//! (2003/2006 and 2015 formats, incl. TSCH Enhanced ACK / Enhanced Beacon and
//! their Information Elements), the auxiliary security header, CCM* for all
//! eight security levels, 6LoWPAN IPHC/NHC compression (RFC 6282) and
//! fragmentation (RFC 4944), and a pcap writer (plain or with the IEEE
//! 802.15.4 TAP header) that Wireshark/tshark dissect.
//!
//! This crate knows nothing about the simulator or DTLS. It follows the style
//! of smoltcp's `src/wire/`: one module per wire format, zero-copy views
//! that read a header in place, `Repr` structs with `parse` / `buffer_len` /
//! `emit`, field offsets as named constants, errors that say what is wrong,
//! and no panic on any input.
//!
//! # Layout
//! - [`frame`]: the 802.15.4 MPDU, one module per part (MAC header and its
//!   [`frame::Frame`] view, the whole frame's [`frame::Repr`] /
//!   [`frame::ReprRef`], beacon and MAC command payloads, the cleartext
//!   [`frame::Layout`] CCM* needs); [`ie`]: its Information Elements;
//!   [`security`]: its auxiliary security header; [`ccm_star`]: securing and
//!   opening it; [`fcs`]: its frame check sequence;
//! - [`ipv6`] and [`udp`]: the uncompressed headers of a datagram, and the
//!   UDP checksum;
//! - [`sixlowpan`]: their compression (IPHC, UDP NHC) and the 6LoWPAN
//!   dispatch; [`fragment`]: 6LoWPAN fragmentation and reassembly;
//! - [`pcap`] and [`tap`]: capture files Wireshark reads.
//!
//! # Why not smoltcp
//! Re-decided against smoltcp 0.14.0, the newest release on crates.io (read
//! from its published source), for a workspace that declares
//! `rust-version = 1.85`. It is not used:
//! - its 802.15.4 `Frame` ignores the 2015 sequence-number-suppression bit
//!   (`sequence_number` always reads byte 2), has no Information Element
//!   parsing (only the IE-present bit), so it cannot read or build a TSCH
//!   Enhanced ACK or Enhanced Beacon; it has no beacon / MAC command payload
//!   formats, no FCS and no CCM* (it only reads the auxiliary security header);
//! - it reads PAN ID fields by the 2015 table, but its `Repr::buffer_len` /
//!   `emit` still write them by the 2006 rule;
//! - its 6LoWPAN half (`wire::sixlowpan`: IPHC with address contexts, UDP
//!   and extension-header NHC, FRAG1/FRAGN) covers the forms used here by
//!   its feature list (not checked byte for byte against `tests/`), but it
//!   takes its own `ieee802154::Address` and `Ipv6Address` types, so using
//!   only that half would mean converting every frame's addresses twice,
//!   and it cannot be taken without the 802.15.4 half's MSRV below;
//! - it declares `rust-version = 1.91`, above this workspace's 1.85.
//!
//! Everything here is therefore written by hand and checked against tshark
//! (see `tests/tshark.rs`) and against the IEEE 802.15.4 Annex C vectors.

#![forbid(unsafe_code)]

pub mod ccm_star;
pub mod fcs;
pub mod fragment;
pub mod frame;
pub mod ie;
pub mod ipv6;
pub mod pcap;
pub mod rpl;
pub mod security;
pub mod sixlowpan;
pub mod sixtop;
pub mod tap;
pub mod udp;

use core::fmt;

/// Everything that can be wrong with bytes handed to a `parse` (or with a
/// `Repr` handed to an `emit`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The input ends before `what` is complete.
    Truncated {
        /// the field or structure being read
        what: &'static str,
        /// bytes needed from the start of that structure
        need: usize,
        /// bytes available
        have: usize,
    },
    /// The output buffer handed to `emit` is too small.
    BufferTooSmall {
        /// bytes needed
        need: usize,
        /// bytes available
        have: usize,
    },
    /// A field holds a value this crate does not accept.
    BadValue {
        /// the field
        field: &'static str,
        /// the offending value
        value: u32,
    },
    /// A valid but unsupported feature (e.g. GTS descriptors, multipurpose frames).
    Unsupported(&'static str),
    /// The combination of addressing modes / PAN IDs / PAN ID compression is
    /// not allowed by the frame version's rules.
    BadAddressing(&'static str),
    /// The frame check sequence does not match.
    BadFcs {
        /// CRC computed over the frame
        computed: u16,
        /// CRC found in the frame
        found: u16,
    },
    /// CCM* authentication failed (wrong key, nonce or tampered frame).
    AuthenticationFailed,
    /// A length that does not fit the field carrying it (e.g. a datagram
    /// larger than 2047 bytes for a 6LoWPAN fragment header).
    TooLong {
        /// what is too long
        what: &'static str,
        /// its length
        len: usize,
        /// the maximum
        max: usize,
    },
    /// Something that needs to be there is missing (e.g. an ASN for a frame
    /// whose frame counter is suppressed, a context for a context-based address).
    Missing(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { what, need, have } => {
                write!(f, "truncated {what}: need {need} bytes, have {have}")
            }
            Error::BufferTooSmall { need, have } => {
                write!(f, "output buffer too small: need {need} bytes, have {have}")
            }
            Error::BadValue { field, value } => write!(f, "bad value {value:#x} in {field}"),
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::BadAddressing(what) => write!(f, "invalid addressing: {what}"),
            Error::BadFcs { computed, found } => {
                write!(f, "bad FCS: computed {computed:#06x}, found {found:#06x}")
            }
            Error::AuthenticationFailed => write!(f, "CCM* MIC verification failed"),
            Error::TooLong { what, len, max } => {
                write!(f, "{what} too long: {len} bytes, maximum {max}")
            }
            Error::Missing(what) => write!(f, "missing {what}"),
        }
    }
}

impl std::error::Error for Error {}

/// Result alias of this crate.
pub type Result<T> = core::result::Result<T, Error>;

/// Check that `buf` holds at least `need` bytes for `what`.
pub(crate) fn need(buf: &[u8], need: usize, what: &'static str) -> Result<()> {
    if buf.len() < need {
        Err(Error::Truncated {
            what,
            need,
            have: buf.len(),
        })
    } else {
        Ok(())
    }
}

/// Check that an emit buffer holds at least `need` bytes.
pub(crate) fn room(buf: &[u8], need: usize) -> Result<()> {
    if buf.len() < need {
        Err(Error::BufferTooSmall {
            need,
            have: buf.len(),
        })
    } else {
        Ok(())
    }
}

pub use frame::{Address, FrameType, FrameVersion};
