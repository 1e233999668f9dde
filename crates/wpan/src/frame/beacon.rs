//! The MAC payload of a (non-enhanced, 2003/2006) beacon: superframe
//! specification, GTS fields (no GTS descriptors), pending address list,
//! then the beacon payload. An Enhanced Beacon (2015) carries its content in
//! payload IEs instead ([`crate::ie`]).
//!
//! ```text
//! | superframe spec (2) | GTS spec (1) | pending spec (1) | short addrs (2 each) |
//! | extended addrs (8 each) | beacon payload |
//! GTS spec: descriptor count 0-2, reserved 3-6, permit 7
//! pending spec: short count 0-2, reserved 3, extended count 4-6, reserved 7
//! ```

use crate::{need, room, Error, Result};

/// Superframe specification of a (non-enhanced) beacon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SuperframeSpec {
    /// Beacon order BO (0-15; 15 = non-beacon-enabled).
    pub beacon_order: u8,
    /// Superframe order SO (0-15).
    pub superframe_order: u8,
    /// Final CAP slot (0-15).
    pub final_cap_slot: u8,
    /// Battery life extension.
    pub battery_life_extension: bool,
    /// Sent by the PAN coordinator.
    pub pan_coordinator: bool,
    /// Association permitted.
    pub association_permit: bool,
}

impl SuperframeSpec {
    /// The 16-bit field value.
    pub fn to_bits(&self) -> u16 {
        u16::from(self.beacon_order & 0xf)
            | u16::from(self.superframe_order & 0xf) << 4
            | u16::from(self.final_cap_slot & 0xf) << 8
            | u16::from(self.battery_life_extension) << 12
            | u16::from(self.pan_coordinator) << 14
            | u16::from(self.association_permit) << 15
    }

    /// From the 16-bit field value (bit 13, reserved, is ignored).
    pub fn from_bits(v: u16) -> Self {
        SuperframeSpec {
            beacon_order: (v & 0xf) as u8,
            superframe_order: ((v >> 4) & 0xf) as u8,
            final_cap_slot: ((v >> 8) & 0xf) as u8,
            battery_life_extension: v & (1 << 12) != 0,
            pan_coordinator: v & (1 << 14) != 0,
            association_permit: v & (1 << 15) != 0,
        }
    }
}

/// GTS permit (bit 7 of the GTS specification).
const GTS_PERMIT: u8 = 0x80;
/// Offset of the pending address list.
const PENDING_LIST: usize = 4;

/// A beacon's MAC payload read in place. [`BeaconPayload::new_checked`]
/// checks the GTS and pending address specifications and that the pending
/// address list is there, so the accessors cannot fail or panic.
#[derive(Debug, Clone, Copy)]
pub struct BeaconPayload<T: AsRef<[u8]>> {
    buffer: T,
    pending_short: usize,
    pending_ext: usize,
}

impl<T: AsRef<[u8]>> BeaconPayload<T> {
    /// Check the open fields (superframe, GTS and pending address
    /// specifications, and the pending address list).
    pub fn new_checked(buffer: T) -> Result<BeaconPayload<T>> {
        let buf = buffer.as_ref();
        need(buf, PENDING_LIST, "beacon superframe/GTS/pending fields")?;
        let gts = buf[2];
        if gts & 0x07 != 0 {
            return Err(Error::Unsupported("GTS descriptors in beacons"));
        }
        if gts & 0x78 != 0 {
            return Err(Error::BadValue {
                field: "GTS specification reserved bits",
                value: u32::from(gts),
            });
        }
        let pend = buf[3];
        if pend & 0x88 != 0 {
            return Err(Error::BadValue {
                field: "pending address specification reserved bits",
                value: u32::from(pend),
            });
        }
        let pending_short = usize::from(pend & 0x07);
        let pending_ext = usize::from((pend >> 4) & 0x07);
        need(
            buf,
            PENDING_LIST + 2 * pending_short + 8 * pending_ext,
            "beacon pending address list",
        )?;
        Ok(BeaconPayload {
            buffer,
            pending_short,
            pending_ext,
        })
    }

    fn bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Superframe specification.
    pub fn superframe(&self) -> SuperframeSpec {
        SuperframeSpec::from_bits(u16::from_le_bytes([self.bytes()[0], self.bytes()[1]]))
    }

    /// GTS permit flag.
    pub fn gts_permit(&self) -> bool {
        self.bytes()[2] & GTS_PERMIT != 0
    }

    /// Short addresses with pending data.
    pub fn pending_short(&self) -> impl Iterator<Item = u16> + '_ {
        self.bytes()[PENDING_LIST..PENDING_LIST + 2 * self.pending_short]
            .chunks_exact(2)
            .map(|a| u16::from_le_bytes([a[0], a[1]]))
    }

    /// Extended addresses with pending data.
    pub fn pending_ext(&self) -> impl Iterator<Item = u64> + '_ {
        let at = PENDING_LIST + 2 * self.pending_short;
        self.bytes()[at..at + 8 * self.pending_ext]
            .chunks_exact(8)
            .map(|a| {
                let mut e = [0u8; 8];
                e.copy_from_slice(a);
                u64::from_le_bytes(e)
            })
    }

    /// Length of the open (never encrypted) fields: superframe, GTS and
    /// pending address fields.
    pub fn open_len(&self) -> usize {
        PENDING_LIST + 2 * self.pending_short + 8 * self.pending_ext
    }

    /// The beacon payload after the open fields.
    pub fn payload(&self) -> &[u8] {
        &self.bytes()[self.open_len()..]
    }
}

/// Body of a (non-enhanced) beacon: superframe spec, GTS fields (no GTS
/// descriptors), pending address list, beacon payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beacon {
    /// Superframe specification.
    pub superframe: SuperframeSpec,
    /// GTS permit flag (the GTS descriptor list is always empty).
    pub gts_permit: bool,
    /// Short addresses with pending data (at most 7).
    pub pending_short: Vec<u16>,
    /// Extended addresses with pending data (at most 7).
    pub pending_ext: Vec<u64>,
    /// Beacon payload.
    pub payload: Vec<u8>,
}

impl Beacon {
    /// Read a beacon's MAC payload.
    pub fn parse(buf: &[u8]) -> Result<Beacon> {
        let view = BeaconPayload::new_checked(buf)?;
        Ok(Beacon {
            superframe: view.superframe(),
            gts_permit: view.gts_permit(),
            pending_short: view.pending_short().collect(),
            pending_ext: view.pending_ext().collect(),
            payload: view.payload().to_vec(),
        })
    }

    /// Length of the MAC payload: open fields and beacon payload.
    pub fn buffer_len(&self) -> usize {
        PENDING_LIST
            + 2 * self.pending_short.len()
            + 8 * self.pending_ext.len()
            + self.payload.len()
    }

    /// Refuse what the pending address specification cannot count.
    pub(super) fn check(&self) -> Result<()> {
        if self.pending_short.len() > 7 || self.pending_ext.len() > 7 {
            return Err(Error::TooLong {
                what: "pending address list",
                len: self.pending_short.len().max(self.pending_ext.len()),
                max: 7,
            });
        }
        Ok(())
    }

    /// Write the MAC payload at the start of `buf`; returns its length.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        self.check()?;
        let len = self.buffer_len();
        room(buf, len)?;
        buf[..2].copy_from_slice(&self.superframe.to_bits().to_le_bytes());
        buf[2] = if self.gts_permit { GTS_PERMIT } else { 0 };
        buf[3] = (self.pending_short.len() as u8) | (self.pending_ext.len() as u8) << 4;
        let mut off = PENDING_LIST;
        for s in &self.pending_short {
            buf[off..off + 2].copy_from_slice(&s.to_le_bytes());
            off += 2;
        }
        for e in &self.pending_ext {
            buf[off..off + 8].copy_from_slice(&e.to_le_bytes());
            off += 8;
        }
        buf[off..len].copy_from_slice(&self.payload);
        Ok(len)
    }
}
