//! The MAC payload of a MAC command frame: the command frame identifier,
//! then the command's content (this crate does not interpret it).
//!
//! ```text
//! | command frame identifier (1) | content |
//! ```

use crate::{need, room, Result};

/// MAC command identifiers.
pub mod command_id {
    /// Association request.
    pub const ASSOCIATION_REQUEST: u8 = 0x01;
    /// Association response.
    pub const ASSOCIATION_RESPONSE: u8 = 0x02;
    /// Data request (poll for indirect transmission).
    pub const DATA_REQUEST: u8 = 0x04;
    /// Beacon request.
    pub const BEACON_REQUEST: u8 = 0x07;
}

/// A MAC command: identifier and content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Command frame identifier (see [`command_id`]).
    pub id: u8,
    /// Command content.
    pub content: Vec<u8>,
}

/// The identifier and content of a command's MAC payload, borrowed.
pub(super) fn split(buf: &[u8]) -> Result<(u8, &[u8])> {
    need(buf, 1, "command frame identifier")?;
    Ok((buf[0], &buf[1..]))
}

impl Command {
    /// Read a command's MAC payload.
    pub fn parse(buf: &[u8]) -> Result<Command> {
        let (id, content) = split(buf)?;
        Ok(Command {
            id,
            content: content.to_vec(),
        })
    }

    /// Length of the MAC payload.
    pub fn buffer_len(&self) -> usize {
        1 + self.content.len()
    }

    /// Write the MAC payload at the start of `buf`; returns its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        let len = self.buffer_len();
        room(buf, len)?;
        buf[0] = self.id;
        buf[1..len].copy_from_slice(&self.content);
        Ok(len)
    }
}
