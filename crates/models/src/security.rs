//! IEEE 802.15.4 link-layer security as the models see it: levels, the size
//! of the auxiliary security header and MIC, and how many AES block
//! operations one CCM* operation costs.

use crate::error::{require, ModelError};

/// The eight security levels of IEEE 802.15.4, one definition with the
/// wire code's. Level 4 (ENC without MIC) was removed in 802.15.4-2015 but
/// stays so 2006/2011 devices can be modelled.
pub use wpan::security::SecurityLevel;

/// The level named `name` (`none`, `mic-32` … `enc-mic-128`).
pub fn level_named(name: &str) -> Result<SecurityLevel, ModelError> {
    SecurityLevel::from_name(name).ok_or_else(|| {
        let names: Vec<_> = SecurityLevel::ALL.iter().map(|l| l.name()).collect();
        ModelError::new(
            "level",
            name,
            format!("must be one of {}", names.join(", ")),
        )
    })
}

/// The auxiliary security header's variable parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuxHeader {
    /// Key identifier mode 0..=3: 0, 1, 5 or 9 key-identifier bytes.
    pub key_id_mode: u8,
    /// Frame counter suppressed (TSCH: the ASN is in the nonce instead).
    pub frame_counter_suppressed: bool,
}

impl AuxHeader {
    /// The largest header: frame counter present, key-id mode 3 — 14 bytes.
    pub const LARGEST: AuxHeader = AuxHeader {
        key_id_mode: 3,
        frame_counter_suppressed: false,
    };

    pub fn new(key_id_mode: u8, frame_counter_suppressed: bool) -> Result<Self, ModelError> {
        require(
            key_id_mode <= 3,
            "key_id_mode",
            key_id_mode,
            "must be in [0, 3]",
        )?;
        Ok(AuxHeader {
            key_id_mode,
            frame_counter_suppressed,
        })
    }

    /// Security control (1) + frame counter (4, unless suppressed) + key identifier.
    pub fn len_bytes(self) -> usize {
        let key_id = [0, 1, 5, 9][usize::from(self.key_id_mode)];
        1 + if self.frame_counter_suppressed { 0 } else { 4 } + key_id
    }
}

/// Number of AES block encryptions one CCM* operation performs on a frame
/// whose `header_len` bytes (MHR + auxiliary header + header IEs) are
/// authenticated only and whose `payload_len` bytes are the private payload.
///
/// Authentication (CBC-MAC): B0, then the encoded length of the
/// authenticated data (2 bytes) and that data, then the payload, each padded
/// to 16-byte blocks. Encryption (CTR): one block per 16 payload bytes, plus
/// A0 that encrypts the MIC. Without encryption, the payload is part of the
/// authenticated data; without MIC there is no CBC-MAC and no A0.
pub fn ccm_star_blocks(level: SecurityLevel, header_len: usize, payload_len: usize) -> usize {
    let blocks = |n: usize| n.div_ceil(16);
    let mic = level.mic_len() > 0;
    let (auth_data, private) = if level.encrypts() {
        (header_len, payload_len)
    } else {
        (header_len + payload_len, 0)
    };
    let cbc_mac = if mic {
        let aad = if auth_data > 0 {
            blocks(2 + auth_data)
        } else {
            0
        };
        1 + aad + blocks(private)
    } else {
        0
    };
    let ctr = blocks(private) + usize::from(mic);
    if level.is_secured() {
        cbc_mac + ctr
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mic_and_header_sizes() {
        let mics: Vec<usize> = SecurityLevel::ALL.iter().map(|l| l.mic_len()).collect();
        assert_eq!(mics, [0, 4, 8, 16, 0, 4, 8, 16]);
        assert_eq!(AuxHeader::LARGEST.len_bytes(), 14);
        assert_eq!(AuxHeader::new(0, true).unwrap().len_bytes(), 1);
        assert_eq!(AuxHeader::new(1, false).unwrap().len_bytes(), 6);
        assert_eq!(AuxHeader::new(2, false).unwrap().len_bytes(), 10);
        assert!(AuxHeader::new(4, false).is_err());
    }

    #[test]
    fn names_round_trip() {
        for l in SecurityLevel::ALL {
            assert_eq!(level_named(l.name()).unwrap(), l);
            assert_eq!(SecurityLevel::from_value(l as u8).unwrap(), l);
        }
        assert!(level_named("enc-mic-256").is_err());
        assert!(SecurityLevel::from_value(8).is_none());
    }

    #[test]
    fn block_counts_by_hand() {
        // 127-byte frame, MHR 21 + aux 14 = 35 header bytes, FCS 2.
        // ENC-MIC-32: payload = 127-35-4-2 = 86. CBC-MAC: B0 + ceil(37/16)=3
        // + ceil(86/16)=6 → 10; CTR: 6 + A0 → 7. Total 17.
        assert_eq!(ccm_star_blocks(SecurityLevel::EncMic32, 35, 86), 17);
        // MIC-64: payload 82 authenticated with the header: B0 + ceil((2+35+82)/16)=8
        // → 9, plus A0 → 10.
        assert_eq!(ccm_star_blocks(SecurityLevel::Mic64, 35, 82), 10);
        // ENC: CTR over 90 bytes = 6 blocks, no MIC.
        assert_eq!(ccm_star_blocks(SecurityLevel::Enc, 35, 90), 6);
        assert_eq!(ccm_star_blocks(SecurityLevel::None, 35, 90), 0);
        // An ACK with no payload under ENC-MIC-128: B0 + header + A0.
        assert_eq!(ccm_star_blocks(SecurityLevel::EncMic128, 31, 0), 1 + 3 + 1);
    }
}
