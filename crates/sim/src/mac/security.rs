//! IEEE 802.15.4 link-layer security as every MAC applies it: data frames
//! secured with CCM* (wpan) under one network key, a frame counter per
//! sender (or, in TSCH with the counter suppressed, the slot's ASN in the
//! nonce), incoming frames checked
//! (level, key, replay, MIC) with a reason for each refusal. Each secure or unsecure costs CPU time from the platform's
//! CCM* cost model (setup + AES blocks actually run × per-block cost).

use std::collections::HashMap;

use wpan::ccm_star::{secure_frame, unsecure_frame, Key, NonceSource};
use wpan::fcs;
use wpan::frame::{FrameVersion, Layout, Repr};
use wpan::security::{KeyId, SecurityHeader, SecurityLevel};

use crate::{NodeId, Time};

/// The network's link-layer security settings (Debug by hand: it never
/// prints the key).
#[derive(Clone, Copy, PartialEq)]
pub struct LinkSecurity {
    pub level: SecurityLevel,
    /// Key identifier mode 0..=3.
    pub key_id_mode: u8,
    pub key: [u8; 16],
    /// The key's index (key-id modes 1–3); a frame naming another is refused.
    pub key_index: u8,
    /// TSCH frames may leave the frame counter out (the slot's ASN is in the
    /// nonce instead).
    pub frame_counter_suppressed: bool,
    /// TSCH only: a node secures its frames only once it has joined (the
    /// key set delivered by its join), and until then cannot open secured
    /// ones; border routers are joined from power-on (see
    /// `mac::tsch::after_join`). false: every node holds the key from power-on.
    pub after_join: bool,
    /// CCM* cost on the platform: fixed part and per AES block (µs).
    pub setup_us: f64,
    pub per_block_us: f64,
}

impl std::fmt::Debug for LinkSecurity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkSecurity")
            .field("level", &self.level)
            .field("key_id_mode", &self.key_id_mode)
            .field("key", &"(redacted)")
            .field("key_index", &self.key_index)
            .field("frame_counter_suppressed", &self.frame_counter_suppressed)
            .field("after_join", &self.after_join)
            .field("setup_us", &self.setup_us)
            .field("per_block_us", &self.per_block_us)
            .finish()
    }
}

impl LinkSecurity {
    fn key_id(&self) -> KeyId {
        match self.key_id_mode {
            0 => KeyId::Implicit,
            1 => KeyId::Index(self.key_index),
            2 => KeyId::Source4 {
                source: [0, 0, 0, 1],
                index: self.key_index,
            },
            _ => KeyId::Source8 {
                source: [0, 0, 0, 0, 0, 0, 0, 1],
                index: self.key_index,
            },
        }
    }

    /// The auxiliary security header of a frame sent with `counter`; in
    /// TSCH (`tsch`) with the counter suppressed, the slot's ASN stands in
    /// the nonce for it (IEEE 802.15.4-2015 9.3.2.2, the Frame Counter
    /// Suppression and ASN in Nonce bits of 9.4.2). A counter the frame
    /// carries is the nonce's (ASN in Nonce clear), as in a non-TSCH frame
    /// and as Wireshark's dissector reads such a frame.
    fn header(&self, counter: u32, tsch: bool) -> SecurityHeader {
        let mut h = SecurityHeader::new(self.level, self.key_id(), counter);
        if tsch && self.frame_counter_suppressed {
            h.asn_in_nonce = true;
            h.frame_counter = None;
        }
        h
    }

    /// Bytes security adds to a frame: auxiliary header and MIC (with the
    /// frame counter unless it is suppressed).
    pub fn overhead(&self) -> usize {
        self.header(0, self.frame_counter_suppressed).buffer_len() + self.level.mic_len()
    }

    fn duration(&self, blocks: u32) -> Time {
        (self.setup_us + f64::from(blocks) * self.per_block_us).round() as Time
    }
}

/// A node's extended address (the CCM* nonce names the originator by it).
pub fn extended_addr(node: NodeId) -> u64 {
    EXTENDED_PREFIX | (node as u64 + 1)
}

const EXTENDED_PREFIX: u64 = 0x0212_4b00_0000_0000;

/// The node an extended address of [`extended_addr`]'s form names.
pub fn node_of_extended(addr: u64) -> Option<NodeId> {
    let low = addr & 0xffff_ffff;
    (addr & !0xffff_ffff == EXTENDED_PREFIX && low != 0).then(|| (low - 1) as NodeId)
}

/// Whether a node secured at `policy` refuses a frame secured at `level`:
/// a lower level, or a shorter MIC (ENC alone is below MIC-32).
pub fn below_policy(policy: SecurityLevel, level: SecurityLevel) -> bool {
    (level as u8) < (policy as u8) || level.mic_len() < policy.mic_len()
}

/// Why an incoming secured frame was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Unsecured, or secured below the network's level.
    LevelBelowPolicy,
    /// Frame counter (or, in TSCH, ASN) not above the last one accepted
    /// from that sender.
    Replayed,
    /// The frame names a key this node does not have.
    UnknownKey,
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
    pub refused_unknown_key: u64,
    pub refused_mic: u64,
    pub refused_malformed: u64,
}

/// One node's link-layer security state.
pub struct NodeSecurity {
    cfg: LinkSecurity,
    key: Key,
    counter: u32,
    last_counter: HashMap<NodeId, u32>,
    last_asn: HashMap<NodeId, u64>,
    pub stats: SecurityStats,
}

impl NodeSecurity {
    pub fn new(cfg: LinkSecurity) -> Self {
        NodeSecurity {
            key: Key::new(&cfg.key),
            cfg,
            counter: 0,
            last_counter: HashMap::new(),
            last_asn: HashMap::new(),
            stats: SecurityStats::default(),
        }
    }

    pub fn overhead(&self) -> usize {
        self.cfg.overhead()
    }

    /// A secured frame a node without the key (a pledge) cannot open:
    /// dropped, counted as naming a key it does not have.
    pub fn refuse_without_key(&mut self) {
        self.stats.refused_unknown_key += 1;
    }

    /// Secure `repr` as sent by `node` (in TSCH: in the slot `asn`, whose
    /// number goes into the nonce): the frame with MIC and FCS, and the CPU
    /// time it took.
    pub fn seal(&mut self, node: NodeId, mut repr: Repr, asn: Option<u64>) -> (Vec<u8>, Time) {
        self.counter = self.counter.wrapping_add(1);
        if asn.is_some() {
            // the ASN-in-nonce bit and counter suppression exist in 2015 frames only
            repr.version = FrameVersion::V2015;
        }
        repr.security = Some(self.cfg.header(self.counter, asn.is_some()));
        let mut mpdu = repr
            .to_bytes()
            .expect("a secured data frame of a valid size");
        let report = secure_frame(
            &mut mpdu,
            &self.key,
            NonceSource {
                src_ext: Some(extended_addr(node)),
                asn,
            },
        )
        .expect("a frame this node built");
        fcs::append(&mut mpdu);
        self.stats.secured += 1;
        (mpdu, self.cfg.duration(report.aes_blocks))
    }

    /// Check and unsecure a frame (with FCS) from `from`, received in TSCH
    /// slot `asn` if given: its plaintext representation and the CPU time it
    /// took, or why it was refused (the CPU time is spent either way once
    /// the MIC is checked).
    pub fn open(
        &mut self,
        from: NodeId,
        frame: &[u8],
        asn: Option<u64>,
    ) -> Result<(Repr, Time), (Refusal, Time)> {
        let refuse = |stats: &mut SecurityStats, r: Refusal, t: Time| {
            match r {
                Refusal::LevelBelowPolicy => stats.refused_level += 1,
                Refusal::Replayed => stats.refused_replay += 1,
                Refusal::UnknownKey => stats.refused_unknown_key += 1,
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
        if below_policy(self.cfg.level, header.level) {
            return refuse(&mut self.stats, Refusal::LevelBelowPolicy, 0);
        }
        // the key: mode 0 is implicit (the network key); otherwise index and source must match
        if header.key_id.mode() != 0 && header.key_id != self.cfg.key_id() {
            return refuse(&mut self.stats, Refusal::UnknownKey, 0);
        }
        // TSCH: the nonce holds the slot's ASN, so a frame recorded in one slot
        // fails the MIC in any other; an ASN already used by that sender is a replay
        let uses_asn = header.asn_in_nonce || header.frame_counter.is_none();
        let replayed = match (uses_asn, asn) {
            (true, Some(asn)) => self.last_asn.get(&from).is_some_and(|&last| asn <= last),
            (true, None) => return refuse(&mut self.stats, Refusal::Malformed, 0),
            (false, _) => {
                let counter = header.frame_counter.unwrap_or(0);
                self.last_counter
                    .get(&from)
                    .is_some_and(|&last| counter <= last)
            }
        };
        if replayed {
            return refuse(&mut self.stats, Refusal::Replayed, 0);
        }
        let mut buf = mpdu.to_vec();
        match unsecure_frame(
            &mut buf,
            &self.key,
            NonceSource {
                src_ext: Some(extended_addr(from)),
                asn,
            },
        ) {
            Ok(report) => {
                let cpu = self.cfg.duration(report.aes_blocks);
                let Ok(mut repr) = Repr::parse(&buf) else {
                    return refuse(&mut self.stats, Refusal::Malformed, cpu);
                };
                repr.security = None;
                if let (true, Some(asn)) = (uses_asn, asn) {
                    self.last_asn.insert(from, asn);
                } else if let Some(counter) = header.frame_counter {
                    self.last_counter.insert(from, counter);
                }
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
            key_index: 1,
            frame_counter_suppressed: false,
            after_join: false,
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
    fn debug_does_not_print_the_key() {
        let shown = format!("{:?}", cfg(SecurityLevel::EncMic32, 0xab));
        assert!(!shown.contains("171"), "{shown}"); // 0xab as Debug prints it
        assert!(shown.contains("key: \"(redacted)\"") && shown.contains("EncMic32"));
    }

    #[test]
    fn sealed_frames_grow_by_header_and_mic_and_open_at_the_receiver() {
        let mut a = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        let mut b = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        let plain = frame(b"hello").to_bytes_with_fcs().unwrap();
        let (sealed, cpu) = a.seal(0, frame(b"hello"), None);
        // key-id mode 1: control 1 + counter 4 + index 1; MIC 4
        assert_eq!(sealed.len(), plain.len() + 6 + 4);
        assert_eq!(a.overhead(), 10);
        assert!(cpu >= 10);
        assert!(
            !sealed.windows(5).any(|w| w == b"hello"),
            "payload encrypted"
        );
        let (repr, _) = b.open(0, &sealed, None).unwrap();
        assert_eq!(repr.body, frame(b"hello").body);
        assert_eq!(b.stats.unsecured, 1);
    }

    #[test]
    fn refusals_are_told_apart_and_counted() {
        let mut a = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        let mut b = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        let (first, _) = a.seal(0, frame(b"one"), None);
        assert!(b.open(0, &first, None).is_ok());
        // the same frame again: its counter is not new
        assert_eq!(b.open(0, &first, None).unwrap_err().0, Refusal::Replayed);
        // another key
        let mut stranger = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 9));
        let (forged, _) = stranger.seal(0, frame(b"two"), None);
        let mut c = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        assert_eq!(c.open(0, &forged, None).unwrap_err().0, Refusal::BadMic);
        // a flipped bit in the ciphertext
        let (mut bent, _) = a.seal(0, frame(b"three"), None);
        let n = bent.len();
        bent[n - 8] ^= 1;
        let body = bent.len() - 2;
        let fcs = wpan::fcs::crc16(&bent[..body]).to_le_bytes();
        bent[body..].copy_from_slice(&fcs);
        assert_eq!(b.open(0, &bent, None).unwrap_err().0, Refusal::BadMic);
        // unsecured, and secured below the policy
        let plain = frame(b"four").to_bytes_with_fcs().unwrap();
        assert_eq!(
            b.open(0, &plain, None).unwrap_err().0,
            Refusal::LevelBelowPolicy
        );
        let mut weak = NodeSecurity::new(cfg(SecurityLevel::Mic32, 7));
        let (weak_frame, _) = weak.seal(0, frame(b"five"), None);
        assert_eq!(
            b.open(0, &weak_frame, None).unwrap_err().0,
            Refusal::LevelBelowPolicy
        );
        let s = b.stats;
        assert_eq!(
            (s.refused_replay, s.refused_mic, s.refused_level),
            (1, 1, 2)
        );
        assert_eq!(c.stats.refused_mic, 1);
    }

    #[test]
    fn a_frame_naming_another_key_is_refused_as_unknown() {
        let mut b = NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7));
        let mut other_index = NodeSecurity::new(LinkSecurity {
            key_index: 2,
            ..cfg(SecurityLevel::EncMic32, 7)
        });
        let (f, _) = other_index.seal(0, frame(b"six"), None);
        assert_eq!(b.open(0, &f, None).unwrap_err(), (Refusal::UnknownKey, 0));
        assert_eq!(b.stats.refused_unknown_key, 1);
    }

    #[test]
    fn tsch_frames_without_a_counter_put_the_asn_in_the_nonce() {
        let c = LinkSecurity {
            frame_counter_suppressed: true,
            after_join: false,
            ..cfg(SecurityLevel::EncMic32, 7)
        };
        let (mut a, mut b) = (NodeSecurity::new(c), NodeSecurity::new(c));
        let (f, _) = a.seal(0, frame(b"slot"), Some(1000));
        // suppressing the counter saves its 4 bytes
        let (g, _) =
            NodeSecurity::new(cfg(SecurityLevel::EncMic32, 7)).seal(0, frame(b"slot"), None);
        assert_eq!(f.len() + 4, g.len());
        assert_eq!(c.overhead() + 4, 10);
        // the frame needs its slot's ASN to open
        assert_eq!(b.open(0, &f, None).unwrap_err().0, Refusal::Malformed);
        // recorded and played in a later slot: the nonce differs, the MIC fails
        assert_eq!(b.open(0, &f, Some(1001)).unwrap_err().0, Refusal::BadMic);
        assert!(b.open(0, &f, Some(1000)).is_ok());
        // played again with the same ASN: a replay
        assert_eq!(b.open(0, &f, Some(1000)).unwrap_err().0, Refusal::Replayed);
        // the next slot's frame is new
        let (h, _) = a.seal(0, frame(b"next"), Some(1101));
        assert!(b.open(0, &h, Some(1101)).is_ok());
        let st = b.stats;
        assert_eq!(
            (
                st.refused_malformed,
                st.refused_mic,
                st.refused_replay,
                st.unsecured
            ),
            (1, 1, 1, 2)
        );
    }

    #[test]
    fn tsch_frames_with_a_counter_put_the_counter_in_the_nonce() {
        let c = cfg(SecurityLevel::EncMic32, 7);
        let (mut a, mut b) = (NodeSecurity::new(c), NodeSecurity::new(c));
        let (f, _) = a.seal(0, frame(b"slot"), Some(1000));
        // the same bytes as a frame sent outside TSCH with the same counter,
        // but for the 2015 frame version TSCH frames carry
        let (g, _) = NodeSecurity::new(c).seal(0, frame(b"slot"), None);
        assert_eq!(f.len(), g.len());
        assert_eq!(c.overhead(), 10);
        // the slot's ASN plays no part: opened in any slot
        assert!(b.open(0, &f, Some(1001)).is_ok());
        // played again in a later slot: its counter is not new
        assert_eq!(b.open(0, &f, Some(1101)).unwrap_err().0, Refusal::Replayed);
        let (h, _) = a.seal(0, frame(b"next"), Some(1101));
        assert!(b.open(0, &h, Some(1101)).is_ok());
        assert_eq!(b.stats.refused_replay, 1);
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
            key_index: 1,
            frame_counter_suppressed: false,
            after_join: false,
            setup_us: 10.0,
            per_block_us: 2.0,
        };
        let mut a = NodeSecurity::new(cfg);
        let mut b = NodeSecurity::new(cfg);
        let (ack, _) = a.seal(1, Repr::enh_ack(5, Address::Short(1), 0, false), None);
        let r = b.open(1, &ack, None);
        assert!(r.is_ok(), "{:?}", r.err());
        assert_eq!(r.unwrap().0.seq, Some(5));
    }
}
