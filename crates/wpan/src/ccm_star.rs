//! CCM* (IEEE 802.15.4-2015 Annex B; RFC 3610 CCM extended with M = 0) with
//! AES-128 from the RustCrypto `aes` crate, for all eight security levels,
//! and securing / unsecuring whole MAC frames in place.
//!
//! - Levels with a MIC and no encryption (1-3): the whole frame (header,
//!   auxiliary security header, header IEs and payload) is authenticated,
//!   nothing is encrypted; the tag is still encrypted with keystream block A0.
//! - Level 4 (ENC, M = 0): CTR mode only, no authentication.
//! - Levels 4-7: the private payload (incl. payload IEs, and a 2015 frame's
//!   Command ID) is encrypted; with a MIC (5-7) the header (incl. auxiliary
//!   security header and header IEs) and the open payload (2003/2006 frames:
//!   command identifier; beacon superframe/GTS/pending fields) are
//!   authenticated with it.
//!
//! The MIC is appended to the MPDU, before the FCS.
//!
//! Nonces: 2006/2011 and non-TSCH 2015 frames use source extended address (8,
//! most significant byte first) ‖ frame counter (4, big endian) ‖ security
//! level (1). TSCH frames (frame counter suppressed, or the 2015 "ASN in
//! nonce" bit set) use source extended
//! address (8) ‖ ASN (5, big endian) — 13 bytes, no level byte, as in
//! IEEE 802.15.4-2015 §9.3.3.2 (and Contiki-NG `tsch-security.c`).
//!
//! Every operation reports the number of AES block encryptions it did, so
//! the simulator can charge CPU time for the work actually done.

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use aes::Aes128;

use crate::frame::{Address, Layout};
use crate::security::{SecurityHeader, SecurityLevel};
use crate::{Error, Result};

/// Nonce length (L = 2: 15 - 2).
pub const NONCE_LEN: usize = 13;
const BLOCK: usize = 16;

/// An AES-128 key for CCM*. Its `Debug` output never shows the key.
#[derive(Clone)]
pub struct Key {
    cipher: Aes128,
}

impl core::fmt::Debug for Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Key(<redacted>)")
    }
}

/// What one CCM* operation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CcmReport {
    /// AES block encryptions performed (CBC-MAC + CTR, incl. A0).
    pub aes_blocks: u32,
    /// Bytes authenticated only (l(a)).
    pub auth_len: usize,
    /// Bytes encrypted (l(m)).
    pub enc_len: usize,
    /// MIC length (M).
    pub mic_len: usize,
}

/// The 2006/2011 nonce: source extended address ‖ frame counter ‖ level.
pub fn nonce(src_ext: u64, frame_counter: u32, level: SecurityLevel) -> [u8; NONCE_LEN] {
    let mut n = [0u8; NONCE_LEN];
    n[..8].copy_from_slice(&src_ext.to_be_bytes());
    n[8..12].copy_from_slice(&frame_counter.to_be_bytes());
    n[12] = level.bits();
    n
}

/// The TSCH nonce: source extended address ‖ 5-byte ASN.
pub fn tsch_nonce(src_ext: u64, asn: u64) -> [u8; NONCE_LEN] {
    let mut n = [0u8; NONCE_LEN];
    n[..8].copy_from_slice(&src_ext.to_be_bytes());
    n[8..13].copy_from_slice(&asn.to_be_bytes()[3..8]);
    n
}

fn check_mic_len(m: usize) -> Result<()> {
    if matches!(m, 0 | 4 | 6 | 8 | 10 | 12 | 14 | 16) {
        Ok(())
    } else {
        Err(Error::BadValue {
            field: "CCM* MIC length",
            value: m as u32,
        })
    }
}

impl Key {
    /// A key from its 16 bytes.
    pub fn new(key: &[u8; 16]) -> Key {
        Key {
            cipher: Aes128::new(&(*key).into()),
        }
    }

    fn encrypt(&self, block: &mut [u8; BLOCK], count: &mut u32) {
        let mut b = aes::Block::from(*block);
        self.cipher.encrypt_block(&mut b);
        block.copy_from_slice(&b);
        *count += 1;
    }

    /// CBC-MAC tag T over (a, m), M = `mic_len` > 0.
    fn cbc_mac(
        &self,
        nonce: &[u8; NONCE_LEN],
        mic_len: usize,
        a: &[u8],
        m: &[u8],
        count: &mut u32,
    ) -> [u8; BLOCK] {
        let mut x = [0u8; BLOCK];
        x[0] = (u8::from(!a.is_empty()) << 6) | (((mic_len as u8 - 2) / 2) << 3) | 1;
        x[1..14].copy_from_slice(nonce);
        x[14..16].copy_from_slice(&(m.len() as u16).to_be_bytes());
        self.encrypt(&mut x, count);
        let mut absorb = |data: &mut dyn Iterator<Item = u8>, x: &mut [u8; BLOCK]| {
            let mut i = 0;
            let mut any = false;
            for byte in data {
                x[i] ^= byte;
                i += 1;
                any = true;
                if i == BLOCK {
                    self.encrypt(x, count);
                    i = 0;
                    any = false;
                }
            }
            if any {
                self.encrypt(x, count);
            }
        };
        if !a.is_empty() {
            let la = (a.len() as u16).to_be_bytes();
            absorb(&mut la.iter().copied().chain(a.iter().copied()), &mut x);
        }
        absorb(&mut m.iter().copied(), &mut x);
        x
    }

    fn ctr_block(&self, nonce: &[u8; NONCE_LEN], i: u16, count: &mut u32) -> [u8; BLOCK] {
        let mut a = [0u8; BLOCK];
        a[0] = 1; // L' = L - 1
        a[1..14].copy_from_slice(nonce);
        a[14..16].copy_from_slice(&i.to_be_bytes());
        self.encrypt(&mut a, count);
        a
    }

    fn ctr(&self, nonce: &[u8; NONCE_LEN], m: &mut [u8], count: &mut u32) {
        for (i, chunk) in m.chunks_mut(BLOCK).enumerate() {
            let s = self.ctr_block(nonce, (i + 1) as u16, count);
            for (c, k) in chunk.iter_mut().zip(s.iter()) {
                *c ^= k;
            }
        }
    }

    fn check_lengths(a: &[u8], m: &[u8]) -> Result<()> {
        if a.len() >= 0xff00 {
            return Err(Error::TooLong {
                what: "CCM* authenticated data",
                len: a.len(),
                max: 0xfeff,
            });
        }
        if m.len() > 0xffff {
            return Err(Error::TooLong {
                what: "CCM* message",
                len: m.len(),
                max: 0xffff,
            });
        }
        Ok(())
    }

    /// CCM* encryption: authenticate `a` and `m`, encrypt `m` in place, write
    /// the encrypted tag into `mic` (whose length is M: 0, 4, 6, ... 16).
    /// Returns the number of AES block operations.
    pub fn seal(
        &self,
        nonce: &[u8; NONCE_LEN],
        a: &[u8],
        m: &mut [u8],
        mic: &mut [u8],
    ) -> Result<u32> {
        check_mic_len(mic.len())?;
        Self::check_lengths(a, m)?;
        let mut count = 0;
        if !mic.is_empty() {
            let t = self.cbc_mac(nonce, mic.len(), a, m, &mut count);
            let s0 = self.ctr_block(nonce, 0, &mut count);
            for (i, out) in mic.iter_mut().enumerate() {
                *out = t[i] ^ s0[i];
            }
        }
        self.ctr(nonce, m, &mut count);
        Ok(count)
    }

    /// CCM* decryption: decrypt `c` in place and verify `mic` (length M).
    /// On failure the plaintext is wiped (zeroed) and
    /// [`Error::AuthenticationFailed`] returned.
    pub fn open(&self, nonce: &[u8; NONCE_LEN], a: &[u8], c: &mut [u8], mic: &[u8]) -> Result<u32> {
        check_mic_len(mic.len())?;
        Self::check_lengths(a, c)?;
        let mut count = 0;
        self.ctr(nonce, c, &mut count);
        if !mic.is_empty() {
            let t = self.cbc_mac(nonce, mic.len(), a, c, &mut count);
            let s0 = self.ctr_block(nonce, 0, &mut count);
            let mut diff = 0u8;
            for (i, u) in mic.iter().enumerate() {
                diff |= u ^ t[i] ^ s0[i];
            }
            if diff != 0 {
                c.iter_mut().for_each(|b| *b = 0);
                return Err(Error::AuthenticationFailed);
            }
        }
        Ok(count)
    }
}

/// Where the nonce of a frame comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NonceSource {
    /// Extended address of the frame's originator; `None`: take it from the
    /// frame's source address (must then be extended).
    pub src_ext: Option<u64>,
    /// Absolute slot number, used when the frame counter is suppressed or the
    /// "ASN in nonce" bit is set (TSCH).
    pub asn: Option<u64>,
}

impl NonceSource {
    /// Source address from the frame, frame counter from the frame.
    pub const FROM_FRAME: NonceSource = NonceSource {
        src_ext: None,
        asn: None,
    };
}

struct Parts {
    header: SecurityHeader,
    nonce: [u8; NONCE_LEN],
    /// end of authenticated-only data when encrypting
    auth_end: usize,
}

fn frame_parts(mpdu: &[u8], ns: NonceSource, with_mic: bool) -> Result<Parts> {
    let layout = if with_mic {
        Layout::parse_secured(mpdu)?
    } else {
        Layout::parse(mpdu)?
    };
    let aux = layout.aux_offset.ok_or(Error::Missing(
        "security enabled bit / auxiliary security header",
    ))?;
    let (header, _) = SecurityHeader::parse(&mpdu[aux..])?;
    let src_ext = match (ns.src_ext, layout.src_addr) {
        (Some(e), _) => e,
        (None, Address::Extended(e)) => e,
        _ => {
            return Err(Error::Missing(
                "extended source address for the nonce (frame source is not extended)",
            ))
        }
    };
    let nonce = match header.frame_counter {
        Some(fc) if !header.asn_in_nonce => nonce(src_ext, fc, header.level),
        _ => tsch_nonce(
            src_ext,
            ns.asn.ok_or(Error::Missing(
                "ASN for a frame with suppressed frame counter / ASN in nonce",
            ))?,
        ),
    };
    Ok(Parts {
        header,
        nonce,
        auth_end: layout.header_len + layout.open_payload_len,
    })
}

/// Secure a plaintext MPDU (without FCS; security enabled bit set and
/// auxiliary security header present, as emitted by
/// [`crate::frame::Repr::emit`]) in place: encrypt the private payload (if
/// the level encrypts) and append the MIC.
pub fn secure_frame(mpdu: &mut Vec<u8>, key: &Key, ns: NonceSource) -> Result<CcmReport> {
    let p = frame_parts(mpdu, ns, false)?;
    let level = p.header.level;
    let mic_len = level.mic_len();
    if level == SecurityLevel::None {
        return Ok(CcmReport::default());
    }
    if p.auth_end > mpdu.len() {
        return Err(Error::Truncated {
            what: "secured frame open payload",
            need: p.auth_end,
            have: mpdu.len(),
        });
    }
    let split = if level.encrypts() {
        p.auth_end
    } else {
        mpdu.len()
    };
    let mut mic = [0u8; 16];
    let (a, m) = mpdu.split_at_mut(split);
    let blocks = key.seal(&p.nonce, a, m, &mut mic[..mic_len])?;
    let report = CcmReport {
        aes_blocks: blocks,
        auth_len: a.len(),
        enc_len: m.len(),
        mic_len,
    };
    mpdu.extend_from_slice(&mic[..mic_len]);
    Ok(report)
}

/// Unsecure a secured MPDU (without FCS) in place: verify and strip the MIC,
/// decrypt the private payload. The result parses with
/// [`crate::frame::Repr::parse`].
pub fn unsecure_frame(mpdu: &mut Vec<u8>, key: &Key, ns: NonceSource) -> Result<CcmReport> {
    let p = frame_parts(mpdu, ns, true)?;
    let level = p.header.level;
    let mic_len = level.mic_len();
    if level == SecurityLevel::None {
        return Ok(CcmReport::default());
    }
    if p.auth_end + mic_len > mpdu.len() {
        return Err(Error::Truncated {
            what: "secured frame (open payload + MIC)",
            need: p.auth_end + mic_len,
            have: mpdu.len(),
        });
    }
    let body_end = mpdu.len() - mic_len;
    let mut mic = [0u8; 16];
    mic[..mic_len].copy_from_slice(&mpdu[body_end..]);
    mpdu.truncate(body_end);
    let split = if level.encrypts() {
        p.auth_end
    } else {
        body_end
    };
    let (a, c) = mpdu.split_at_mut(split);
    let blocks = key.open(&p.nonce, a, c, &mic[..mic_len])?;
    Ok(CcmReport {
        aes_blocks: blocks,
        auth_len: a.len(),
        enc_len: c.len(),
        mic_len,
    })
}

/// AES block operations CCM* needs for l(a) authenticated-only bytes, l(m)
/// encrypted bytes and an M-byte MIC (the count [`Key::seal`] reports),
/// for cost models that do not run the cipher.
pub fn aes_blocks_for(auth_len: usize, enc_len: usize, mic_len: usize) -> u32 {
    let ctr = enc_len.div_ceil(BLOCK);
    if mic_len == 0 {
        return ctr as u32;
    }
    let a_blocks = if auth_len > 0 {
        (auth_len + 2).div_ceil(BLOCK)
    } else {
        0
    };
    (1 + a_blocks + enc_len.div_ceil(BLOCK) + 1 + ctr) as u32
}
