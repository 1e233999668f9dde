//! The auxiliary security header (IEEE 802.15.4-2015 §9.4): security control,
//! frame counter (absent when suppressed, as in TSCH where the ASN is in the
//! nonce) and key identifier (key source 0/4/8 bytes + key index).
//!
//! ```text
//! | security control (1) | frame counter (0/4) | key source (0/4/8) | key index (0/1) |
//! security control: bits 0-2 level, bits 3-4 key identifier mode,
//!                   bit 5 frame counter suppression, bit 6 ASN in nonce, bit 7 reserved
//! ```

use crate::{need, room, Error, Result};

/// Bit positions of the security control field.
pub mod field {
    /// Mask of the security level (bits 0-2).
    pub const LEVEL_MASK: u8 = 0x07;
    /// Shift of the key identifier mode (bits 3-4).
    pub const KEY_ID_MODE_SHIFT: u8 = 3;
    /// Frame counter suppression (2015).
    pub const FC_SUPPRESSION: u8 = 0x20;
    /// ASN in nonce (2015).
    pub const ASN_IN_NONCE: u8 = 0x40;
    /// Reserved bit.
    pub const RESERVED: u8 = 0x80;
    /// Length of the security control field.
    pub const CONTROL_LEN: usize = 1;
    /// Length of the frame counter.
    pub const FRAME_COUNTER_LEN: usize = 4;
}

/// The eight security levels: MIC length and whether the payload is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SecurityLevel {
    /// 0: no security.
    None = 0,
    /// 1: 4-byte MIC, no encryption.
    Mic32 = 1,
    /// 2: 8-byte MIC, no encryption.
    Mic64 = 2,
    /// 3: 16-byte MIC, no encryption.
    Mic128 = 3,
    /// 4: encryption without MIC (dropped in 2015).
    Enc = 4,
    /// 5: encryption and 4-byte MIC.
    EncMic32 = 5,
    /// 6: encryption and 8-byte MIC.
    EncMic64 = 6,
    /// 7: encryption and 16-byte MIC.
    EncMic128 = 7,
}

impl SecurityLevel {
    /// All eight levels in order.
    pub const ALL: [SecurityLevel; 8] = [
        SecurityLevel::None,
        SecurityLevel::Mic32,
        SecurityLevel::Mic64,
        SecurityLevel::Mic128,
        SecurityLevel::Enc,
        SecurityLevel::EncMic32,
        SecurityLevel::EncMic64,
        SecurityLevel::EncMic128,
    ];

    /// Level from its value 0..=7; None above.
    pub fn from_value(value: u8) -> Option<SecurityLevel> {
        Self::ALL.get(usize::from(value)).copied()
    }

    /// dtlsim's name of the level (scenario files, the command line).
    pub fn name(self) -> &'static str {
        match self {
            SecurityLevel::None => "none",
            SecurityLevel::Mic32 => "mic-32",
            SecurityLevel::Mic64 => "mic-64",
            SecurityLevel::Mic128 => "mic-128",
            SecurityLevel::Enc => "enc",
            SecurityLevel::EncMic32 => "enc-mic-32",
            SecurityLevel::EncMic64 => "enc-mic-64",
            SecurityLevel::EncMic128 => "enc-mic-128",
        }
    }

    /// The level of that name.
    pub fn from_name(name: &str) -> Option<SecurityLevel> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Whether frames at this level are secured at all.
    pub fn is_secured(self) -> bool {
        self != SecurityLevel::None
    }

    /// Level from its 3-bit code.
    pub fn from_bits(bits: u8) -> SecurityLevel {
        Self::ALL[usize::from(bits & field::LEVEL_MASK)]
    }

    /// The 3-bit code.
    pub fn bits(self) -> u8 {
        self as u8
    }

    /// MIC length in bytes (0, 4, 8 or 16).
    pub fn mic_len(self) -> usize {
        match self.bits() & 0x03 {
            0 => 0,
            1 => 4,
            2 => 8,
            _ => 16,
        }
    }

    /// Whether the private payload is encrypted.
    pub fn encrypts(self) -> bool {
        self.bits() & 0x04 != 0
    }
}

/// The key identifier field, by key identifier mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyId {
    /// Mode 0: key determined implicitly from originator and recipient.
    Implicit,
    /// Mode 1: key index only (key source = macDefaultKeySource).
    Index(u8),
    /// Mode 2: 4-byte key source (in wire order) and key index.
    Source4 {
        /// key source as it appears on the wire
        source: [u8; 4],
        /// key index
        index: u8,
    },
    /// Mode 3: 8-byte key source (in wire order) and key index.
    Source8 {
        /// key source as it appears on the wire
        source: [u8; 8],
        /// key index
        index: u8,
    },
}

impl KeyId {
    /// Key identifier mode (0-3).
    pub fn mode(&self) -> u8 {
        match self {
            KeyId::Implicit => 0,
            KeyId::Index(_) => 1,
            KeyId::Source4 { .. } => 2,
            KeyId::Source8 { .. } => 3,
        }
    }

    /// Length of the key identifier field (0, 1, 5 or 9).
    pub fn len(&self) -> usize {
        match self {
            KeyId::Implicit => 0,
            KeyId::Index(_) => 1,
            KeyId::Source4 { .. } => 5,
            KeyId::Source8 { .. } => 9,
        }
    }

    /// Whether the field is empty (mode 0).
    pub fn is_empty(&self) -> bool {
        matches!(self, KeyId::Implicit)
    }

    /// The key index, if the mode carries one.
    pub fn index(&self) -> Option<u8> {
        match *self {
            KeyId::Implicit => None,
            KeyId::Index(i) | KeyId::Source4 { index: i, .. } | KeyId::Source8 { index: i, .. } => {
                Some(i)
            }
        }
    }
}

/// High-level representation of the auxiliary security header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SecurityHeader {
    /// Security level.
    pub level: SecurityLevel,
    /// Key identifier.
    pub key_id: KeyId,
    /// Frame counter; `None` when suppressed (2015 frames only; the nonce then
    /// uses the ASN).
    pub frame_counter: Option<u32>,
    /// The 2015 "ASN in nonce" bit.
    pub asn_in_nonce: bool,
}

impl SecurityHeader {
    /// A 2006-style header: level, key id, explicit frame counter.
    pub fn new(level: SecurityLevel, key_id: KeyId, frame_counter: u32) -> Self {
        SecurityHeader {
            level,
            key_id,
            frame_counter: Some(frame_counter),
            asn_in_nonce: false,
        }
    }

    /// Parse from the start of `buf`; returns the header and its length.
    pub fn parse(buf: &[u8]) -> Result<(SecurityHeader, usize)> {
        need(buf, field::CONTROL_LEN, "security control")?;
        let sc = buf[0];
        if sc & field::RESERVED != 0 {
            return Err(Error::BadValue {
                field: "security control reserved bit",
                value: u32::from(sc),
            });
        }
        let level = SecurityLevel::from_bits(sc);
        let mode = (sc >> field::KEY_ID_MODE_SHIFT) & 0x03;
        let suppressed = sc & field::FC_SUPPRESSION != 0;
        let mut off = field::CONTROL_LEN;
        let frame_counter = if suppressed {
            None
        } else {
            need(buf, off + 4, "frame counter")?;
            let fc = u32::from_le_bytes([buf[off], buf[off + 1], buf[off + 2], buf[off + 3]]);
            off += 4;
            Some(fc)
        };
        let key_id = match mode {
            0 => KeyId::Implicit,
            1 => {
                need(buf, off + 1, "key index")?;
                KeyId::Index(buf[off])
            }
            2 => {
                need(buf, off + 5, "key identifier (mode 2)")?;
                let mut source = [0u8; 4];
                source.copy_from_slice(&buf[off..off + 4]);
                KeyId::Source4 {
                    source,
                    index: buf[off + 4],
                }
            }
            _ => {
                need(buf, off + 9, "key identifier (mode 3)")?;
                let mut source = [0u8; 8];
                source.copy_from_slice(&buf[off..off + 8]);
                KeyId::Source8 {
                    source,
                    index: buf[off + 8],
                }
            }
        };
        off += key_id.len();
        Ok((
            SecurityHeader {
                level,
                key_id,
                frame_counter,
                asn_in_nonce: sc & field::ASN_IN_NONCE != 0,
            },
            off,
        ))
    }

    /// Length on the wire: 1 + 0/4 + 0/1/5/9 (5 to 14 bytes with a counter).
    pub fn buffer_len(&self) -> usize {
        field::CONTROL_LEN + if self.frame_counter.is_some() { 4 } else { 0 } + self.key_id.len()
    }

    /// The security control byte.
    pub fn control(&self) -> u8 {
        self.level.bits()
            | (self.key_id.mode() << field::KEY_ID_MODE_SHIFT)
            | if self.frame_counter.is_none() {
                field::FC_SUPPRESSION
            } else {
                0
            }
            | if self.asn_in_nonce {
                field::ASN_IN_NONCE
            } else {
                0
            }
    }

    /// Write into the start of `buf`; returns the bytes written.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize> {
        room(buf, self.buffer_len())?;
        buf[0] = self.control();
        let mut off = 1;
        if let Some(fc) = self.frame_counter {
            buf[off..off + 4].copy_from_slice(&fc.to_le_bytes());
            off += 4;
        }
        match self.key_id {
            KeyId::Implicit => {}
            KeyId::Index(i) => buf[off] = i,
            KeyId::Source4 { source, index } => {
                buf[off..off + 4].copy_from_slice(&source);
                buf[off + 4] = index;
            }
            KeyId::Source8 { source, index } => {
                buf[off..off + 8].copy_from_slice(&source);
                buf[off + 8] = index;
            }
        }
        Ok(self.buffer_len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_5_to_14() {
        let mut lens = Vec::new();
        for key_id in [
            KeyId::Implicit,
            KeyId::Index(1),
            KeyId::Source4 {
                source: [1, 2, 3, 4],
                index: 2,
            },
            KeyId::Source8 {
                source: [1, 2, 3, 4, 5, 6, 7, 8],
                index: 3,
            },
        ] {
            let h = SecurityHeader::new(SecurityLevel::EncMic32, key_id, 0x0102_0304);
            let mut b = [0u8; 14];
            let n = h.emit(&mut b).unwrap();
            lens.push(n);
            assert_eq!(SecurityHeader::parse(&b[..n]).unwrap(), (h, n));
            for cut in 0..n {
                assert!(SecurityHeader::parse(&b[..cut]).is_err());
            }
        }
        assert_eq!(lens, vec![5, 6, 10, 14]);
    }

    #[test]
    fn annex_c_data_frame_aux_header() {
        // IEEE 802.15.4 Annex C.2.2: level 4, key id mode 0, frame counter 5.
        let b = [0x04, 0x05, 0x00, 0x00, 0x00];
        let (h, n) = SecurityHeader::parse(&b).unwrap();
        assert_eq!(n, 5);
        assert_eq!(h.level, SecurityLevel::Enc);
        assert_eq!(h.key_id, KeyId::Implicit);
        assert_eq!(h.frame_counter, Some(5));
    }

    #[test]
    fn suppressed_counter() {
        let h = SecurityHeader {
            level: SecurityLevel::EncMic64,
            key_id: KeyId::Index(1),
            frame_counter: None,
            asn_in_nonce: true,
        };
        let mut b = [0u8; 2];
        h.emit(&mut b).unwrap();
        assert_eq!(b, [0x6e, 0x01]);
        assert_eq!(SecurityHeader::parse(&b).unwrap().0, h);
    }

    #[test]
    fn levels() {
        let mics: Vec<usize> = SecurityLevel::ALL.iter().map(|l| l.mic_len()).collect();
        assert_eq!(mics, vec![0, 4, 8, 16, 0, 4, 8, 16]);
        assert!(!SecurityLevel::Mic128.encrypts());
        assert!(SecurityLevel::Enc.encrypts());
    }
}
