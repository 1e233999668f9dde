//! IEEE 802.15.4 link-layer security as every MAC applies it: data frames
//! secured with CCM* (wpan) under one network key, a frame counter per
//! sender, incoming frames checked (level, replay, MIC) with a reason for
//! each refusal. Each secure or unsecure costs CPU time from the platform's
//! CCM* cost model (setup + AES blocks actually run × per-block cost).

use std::collections::HashMap;

use wpan::ccm_star::{secure_frame, unsecure_frame, Key, NonceSource};
use wpan::fcs;
use wpan::frame::{Layout, Repr};
use wpan::security::{KeyId, SecurityHeader, SecurityLevel};

use crate::{NodeId, Time};

/// The network's link-layer security settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkSecurity {
    pub level: SecurityLevel,
    /// Key identifier mode 0..=3.
    pub key_id_mode: u8,
    pub key: [u8; 16],
    /// CCM* cost on the platform: fixed part and per AES block (µs).
    pub setup_us: f64,
    pub per_block_us: f64,
}

impl LinkSecurity {
    fn key_id(&self) -> KeyId {
        match self.key_id_mode {
            0 => KeyId::Implicit,
            1 => KeyId::Index(1),
            2 => KeyId::Source4 {
                source: [0, 0, 0, 1],
                index: 1,
            },
            _ => KeyId::Source8 {
                source: [0, 0, 0, 0, 0, 0, 0, 1],
                index: 1,
            },
        }
    }

    /// Bytes security adds to a frame: auxiliary header and MIC.
    pub fn overhead(&self) -> usize {
        SecurityHeader::new(self.level, self.key_id(), 0).buffer_len() + self.level.mic_len()
    }

    fn duration(&self, blocks: u32) -> Time {
        (self.setup_us + f64::from(blocks) * self.per_block_us).round() as Time
    }
}

/// A node's extended address (the CCM* nonce names the originator by it).
pub fn extended_addr(node: NodeId) -> u64 {
    0x0212_4b00_0000_0000 | (node as u64 + 1)
}

/// Why an incoming secured frame was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Unsecured, or secured below the network's level.
    LevelBelowPolicy,
    /// Frame counter not above the last one accepted from that sender.
    Replayed,
    /// MIC check failed (wrong key, corrupted).
    BadMic,
    /// Not parseable as a secured frame.
    Malformed,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SecurityStats {
    pub secured: u64,
    pub unsecured: u64,
    pub refused_level: u64,
    pub refused_replay: u64,
    pub refused_mic: u64,
    pub refused_malformed: u64,
}

/// One node's link-layer security state.
pub struct NodeSecurity {
    cfg: LinkSecurity,
    key: Key,
    counter: u32,
    last_counter: HashMap<NodeId, u32>,
    pub stats: SecurityStats,
}

impl NodeSecurity {
    pub fn new(cfg: LinkSecurity) -> Self {
        NodeSecurity {
            key: Key::new(&cfg.key),
            cfg,
            counter: 0,
            last_counter: HashMap::new(),
            stats: SecurityStats::default(),
        }
    }

    pub fn overhead(&self) -> usize {
        self.cfg.overhead()
    }

    /// Secure `repr` as sent by `node`: the frame with MIC and FCS, and the CPU time it took.
    pub fn seal(&mut self, node: NodeId, mut repr: Repr) -> (Vec<u8>, Time) {
        self.counter = self.counter.wrapping_add(1);
        repr.security = Some(SecurityHeader::new(
            self.cfg.level,
            self.cfg.key_id(),
            self.counter,
        ));
        let mut mpdu = repr
            .to_bytes()
            .expect("a secured data frame of a valid size");
        let report = secure_frame(
            &mut mpdu,
            &self.key,
            NonceSource {
                src_ext: Some(extended_addr(node)),
                asn: None,
            },
        )
        .expect("a frame this node built");
        fcs::append(&mut mpdu);
        self.stats.secured += 1;
        (mpdu, self.cfg.duration(report.aes_blocks))
    }

    /// Check and unsecure a frame (with FCS) from `from`: its plaintext
    /// representation and the CPU time it took, or why it was refused (the
    /// CPU time is spent either way once the MIC is checked).
    pub fn open(&mut self, from: NodeId, frame: &[u8]) -> Result<(Repr, Time), (Refusal, Time)> {
        let refuse = |stats: &mut SecurityStats, r: Refusal, t: Time| {
            match r {
                Refusal::LevelBelowPolicy => stats.refused_level += 1,
                Refusal::Replayed => stats.refused_replay += 1,
                Refusal::BadMic => stats.refused_mic += 1,
                Refusal::Malformed => stats.refused_malformed += 1,
            }
            Err((r, t))
        };
        let Some(mpdu) = frame.len().checked_sub(fcs::FCS_LEN).map(|n| &frame[..n]) else {
            return refuse(&mut self.stats, Refusal::Malformed, 0);
        };
        let Ok(layout) = Layout::parse_secured(mpdu) else {
            return refuse(&mut self.stats, Refusal::Malformed, 0);
        };
        let Some(aux) = layout.aux_offset else {
            return refuse(&mut self.stats, Refusal::LevelBelowPolicy, 0);
        };
        let Ok(header) = SecurityHeader::parse(&mpdu[aux..]).map(|(h, _)| h) else {
            return refuse(&mut self.stats, Refusal::Malformed, 0);
        };
        if (header.level as u8) < (self.cfg.level as u8)
            || header.level.mic_len() < self.cfg.level.mic_len()
        {
            return refuse(&mut self.stats, Refusal::LevelBelowPolicy, 0);
        }
        let counter = header.frame_counter.unwrap_or(0);
        if self
            .last_counter
            .get(&from)
            .is_some_and(|&last| counter <= last)
        {
            return refuse(&mut self.stats, Refusal::Replayed, 0);
        }
        let mut buf = mpdu.to_vec();
        match unsecure_frame(
            &mut buf,
            &self.key,
            NonceSource {
                src_ext: Some(extended_addr(from)),
                asn: None,
            },
        ) {
            Ok(report) => {
                let cpu = self.cfg.duration(report.aes_blocks);
                let Ok(mut repr) = Repr::parse(&buf) else {
                    return refuse(&mut self.stats, Refusal::Malformed, cpu);
                };
                repr.security = None;
                self.last_counter.insert(from, counter);
                self.stats.unsecured += 1;
                Ok((repr, cpu))
            }
            Err(_) => {
                let len = mpdu.len();
                let blocks = wpan::ccm_star::aes_blocks_for(len, 0, header.level.mic_len());
                let cpu = self.cfg.duration(blocks);
                refuse(&mut self.stats, Refusal::BadMic, cpu)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wpan::frame::Address;

    fn cfg(level: SecurityLevel, key: u8) -> LinkSecurity {
        LinkSecurity {
            level,
            key_id_mode: 1,
            key: [key; 16],
            setup_us: 10.0,
            per_block_us: 2.0,
        }
    }

    fn frame(payload: &[u8]) -> Repr {
        Repr::data(
            1,
            0xabcd,
            Address::Short(2),
            Address::Short(1),
            payload.to_vec(),
        )
    }

    #[test]
    fn sealed_frames_grow_by_header_and_mic_and_open_at_the_receiver() {
        let mut a = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        let mut b = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        let plain = frame(b"hello").to_bytes_with_fcs().unwrap();
        let (sealed, cpu) = a.seal(0, frame(b"hello"));
        // key-id mode 1: control 1 + counter 4 + index 1; MIC 4
        assert_eq!(sealed.len(), plain.len() + 6 + 4);
        assert_eq!(a.overhead(), 10);
        assert!(cpu >= 10);
        assert!(
            !sealed.windows(5).any(|w| w == b"hello"),
            "payload encrypted"
        );
        let (repr, _) = b.open(0, &sealed).unwrap();
        assert_eq!(repr.body, frame(b"hello").body);
        assert_eq!(b.stats.unsecured, 1);
    }

    #[test]
    fn refusals_are_told_apart_and_counted() {
        let mut a = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        let mut b = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        let (first, _) = a.seal(0, frame(b"one"));
        assert!(b.open(0, &first).is_ok());
        // the same frame again: its counter is not new
        assert_eq!(b.open(0, &first).unwrap_err().0, Refusal::Replayed);
        // another key
        let mut stranger = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 9));
        let (forged, _) = stranger.seal(0, frame(b"two"));
        let mut c = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        assert_eq!(c.open(0, &forged).unwrap_err().0, Refusal::BadMic);
        // a flipped bit in the ciphertext
        let (mut bent, _) = a.seal(0, frame(b"three"));
        let n = bent.len();
        bent[n - 8] ^= 1;
        let body = bent.len() - 2;
        let fcs = wpan::fcs::crc16(&bent[..body]).to_le_bytes();
        bent[body..].copy_from_slice(&fcs);
        assert_eq!(b.open(0, &bent).unwrap_err().0, Refusal::BadMic);
        // unsecured, and secured below the policy
        let plain = frame(b"four").to_bytes_with_fcs().unwrap();
        assert_eq!(b.open(0, &plain).unwrap_err().0, Refusal::LevelBelowPolicy);
        let mut weak = NodeSecurity::new(cfg(SecurityLevel::Mic32, 7));
        let (weak_frame, _) = weak.seal(0, frame(b"five"));
        assert_eq!(
            b.open(0, &weak_frame).unwrap_err().0,
            Refusal::LevelBelowPolicy
        );
        let s = b.stats;
        assert_eq!(
            (s.refused_replay, s.refused_mic, s.refused_level),
            (1, 1, 2)
        );
        assert_eq!(c.stats.refused_mic, 1);
    }
}

#[cfg(test)]
mod enh_ack {
    use super::*;
    use wpan::frame::Address;

    #[test]
    fn a_secured_enhanced_ack_opens() {
        let cfg = LinkSecurity {
            level: SecurityLevel::EncMic32,
            key_id_mode: 1,
            key: [7; 16],
            setup_us: 10.0,
            per_block_us: 2.0,
        };
        let mut a = NodeSecurity::new(cfg);
        let mut b = NodeSecurity::new(cfg);
        let (ack, _) = a.seal(1, Repr::enh_ack(5, Address::Short(1), 0, false));
        let r = b.open(1, &ack);
        assert!(r.is_ok(), "{:?}", r.err());
        assert_eq!(r.unwrap().0.seq, Some(5));
    }
}
