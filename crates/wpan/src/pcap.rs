//! A pcap writer (classic libpcap format, microsecond timestamps) for
//! 802.15.4 frames with FCS: link type 195, `LINKTYPE_IEEE802_15_4_WITHFCS`,
//! or 283 with a TAP header before each frame (see [`crate::tap`]).
//! Timestamps are the caller's virtual time in µs.

use std::io::{self, Write};

use crate::tap::{tap_header, TapInfo, LINKTYPE_IEEE802_15_4_TAP};

/// LINKTYPE_IEEE802_15_4_WITHFCS.
pub const LINKTYPE_IEEE802_15_4_WITHFCS: u32 = 195;
/// Classic pcap magic (microsecond resolution).
pub const MAGIC: u32 = 0xa1b2_c3d4;
/// Snapshot length written in the global header.
pub const SNAPLEN: u32 = 65_535;

/// Writes a pcap stream to any `io::Write`.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    frames: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Write the global header (link type 195) and return the writer.
    pub fn new(out: W) -> io::Result<Self> {
        Self::with_link_type(out, LINKTYPE_IEEE802_15_4_WITHFCS)
    }

    /// Write the global header of link type 283: every frame is then
    /// written with [`PcapWriter::write_tap_frame`].
    pub fn tap(out: W) -> io::Result<Self> {
        Self::with_link_type(out, LINKTYPE_IEEE802_15_4_TAP)
    }

    fn with_link_type(mut out: W, link_type: u32) -> io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&MAGIC.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        h.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&link_type.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out, frames: 0 })
    }

    /// Write one frame (MPDU including its FCS) captured at `ts_us`.
    pub fn write_frame(&mut self, ts_us: u64, frame: &[u8]) -> io::Result<()> {
        let secs = u32::try_from(ts_us / 1_000_000).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "timestamp beyond pcap's 32-bit seconds",
            )
        })?;
        let usecs = (ts_us % 1_000_000) as u32;
        let len = u32::try_from(frame.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "frame too long"))?;
        let mut r = Vec::with_capacity(16 + frame.len());
        r.extend_from_slice(&secs.to_le_bytes());
        r.extend_from_slice(&usecs.to_le_bytes());
        r.extend_from_slice(&len.to_le_bytes());
        r.extend_from_slice(&len.to_le_bytes());
        r.extend_from_slice(frame);
        self.out.write_all(&r)?;
        self.frames += 1;
        Ok(())
    }

    /// Write one frame (MPDU including its FCS) behind its TAP header (for a
    /// writer made by [`PcapWriter::tap`]).
    pub fn write_tap_frame(&mut self, ts_us: u64, info: &TapInfo, frame: &[u8]) -> io::Result<()> {
        let mut record = tap_header(info);
        record.extend_from_slice(frame);
        self.write_frame(ts_us, &record)
    }

    /// Append the FCS to `mpdu` and write it.
    pub fn write_mpdu(&mut self, ts_us: u64, mpdu: &[u8]) -> io::Result<()> {
        self.write_frame(ts_us, &crate::fcs::with_fcs(mpdu))
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Flush and return the inner writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_record() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write_frame(1_500_000, &[1, 2, 3]).unwrap();
        let v = w.into_inner().unwrap();
        assert_eq!(&v[..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(&v[20..24], &195u32.to_le_bytes());
        assert_eq!(&v[24..28], &1u32.to_le_bytes());
        assert_eq!(&v[28..32], &500_000u32.to_le_bytes());
        assert_eq!(&v[32..36], &3u32.to_le_bytes());
        assert_eq!(&v[40..], &[1, 2, 3]);
    }
}
