//! The IEEE 802.15.4 TAP header (pcap link type 283,
//! `LINKTYPE_IEEE802_15_4_TAP`): a little-endian header of TLVs before each
//! frame, so a capture can say on which channel and in which TSCH slot a
//! frame was sent. Layout as Wireshark's `packet-ieee802154.c` reads it:
//! version (8 bits, 0), reserved (8 bits), total header length (16 bits),
//! then TLVs of type (16), value length (16) and value, each padded with
//! zeros to a multiple of four bytes.

/// LINKTYPE_IEEE802_15_4_TAP.
pub const LINKTYPE_IEEE802_15_4_TAP: u32 = 283;

/// TLV types of the TAP specification.
const TLV_FCS_TYPE: u16 = 0;
const TLV_CHANNEL_ASSIGNMENT: u16 = 3;
const TLV_ASN: u16 = 7;
/// FCS type 1: the frame ends in the 16-bit ITU-T CRC of IEEE 802.15.4-2015
/// §7.2.10 (what every frame this crate writes carries).
const FCS_16_BIT: u8 = 1;

/// What a TAP header says about one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TapInfo {
    /// Channel number and channel page (IEEE 802.15.4-2015 §10.1.3: page 0
    /// holds the 2.4 GHz O-QPSK channels 11..=26).
    pub channel: Option<(u16, u8)>,
    /// The TSCH absolute slot number of the slot the frame was sent in.
    pub asn: Option<u64>,
}

/// The TAP header of a frame with a 16-bit FCS and what `info` knows.
pub fn tap_header(info: &TapInfo) -> Vec<u8> {
    let mut tlvs = Vec::new();
    push_tlv(&mut tlvs, TLV_FCS_TYPE, &[FCS_16_BIT]);
    if let Some((channel, page)) = info.channel {
        let [lo, hi] = channel.to_le_bytes();
        push_tlv(&mut tlvs, TLV_CHANNEL_ASSIGNMENT, &[lo, hi, page]);
    }
    if let Some(asn) = info.asn {
        push_tlv(&mut tlvs, TLV_ASN, &asn.to_le_bytes());
    }
    let len = u16::try_from(4 + tlvs.len()).expect("three TLVs fit in 16 bits");
    let mut header = vec![0, 0];
    header.extend_from_slice(&len.to_le_bytes());
    header.extend_from_slice(&tlvs);
    header
}

fn push_tlv(out: &mut Vec<u8>, kind: u16, value: &[u8]) {
    let len = u16::try_from(value.len()).expect("TLV values here are a few bytes");
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(value);
    out.resize(out.len().next_multiple_of(4), 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fcs_only() {
        assert_eq!(
            tap_header(&TapInfo::default()),
            [0, 0, 12, 0, 0, 0, 1, 0, 1, 0, 0, 0]
        );
    }

    #[test]
    fn channel_and_asn_are_padded_tlvs() {
        let h = tap_header(&TapInfo {
            channel: Some((26, 0)),
            asn: Some(0x0102_0304_0506),
        });
        assert_eq!(h.len(), 4 + 8 + 8 + 12);
        assert_eq!(&h[2..4], &32u16.to_le_bytes());
        assert_eq!(&h[12..20], &[3, 0, 3, 0, 26, 0, 0, 0]);
        assert_eq!(&h[20..24], &[7, 0, 8, 0]);
        assert_eq!(&h[24..32], &0x0102_0304_0506u64.to_le_bytes());
    }
}
