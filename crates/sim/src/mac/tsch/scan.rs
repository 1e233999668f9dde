//! Joining a TSCH network, the first step: an unsynchronised node scans for
//! Enhanced Beacons and synchronises on one (IEEE 802.15.4-2015 §6.3.6;
//! RFC 8180 §4 and §6: EBs go out in the minimal cell and carry the TSCH
//! synchronization IE with the ASN and the join metric). Sans-IO.
//!
//! - the node listens on one channel of the hopping sequence at a time and
//!   moves to another, drawn at random, every `dwell_us` (the scan is the
//!   implementation's; Contiki-NG's `tsch_scan` does the same, as recalled);
//! - a frame that is not a plaintext 2015 Enhanced Beacon with a TSCH
//!   synchronization IE is ignored and counted: as malformed when its frame
//!   control says it is a plaintext 2015 beacon, as another frame otherwise;
//! - from the first EB heard, the node keeps listening `collect_us` more
//!   and then synchronises on the EB of least join metric (ties: the first
//!   heard); `collect_us = 0` takes the first EB;
//! - synchronising: the EB was sent macTsTxOffset after the start of its
//!   slot, whose ASN the IE gives, so the start of slot `asn` is the frame's
//!   start minus TsTxOffset and every later slot follows at the slot length.
//!
//! Out of scope here (stated): security of the EB (the node has no key
//! before it joins, so EBs are authenticated only after the join, RFC 9031),
//! clock drift during the scan, and the keep-alives after it.
//!
//! Driven by [`super::Tsch`] when the network forms by scan
//! ([`super::formation`]): the node listens on the channel asked for,
//! hands every frame heard here, and on [`ScanEvent::Synced`] follows the
//! slots from `sync.slot_start` and starts beaconing itself.

use wpan::frame::{Body, FrameVersion, Repr};
use wpan::ie::{MlmeSubIe, PayloadIe};

use crate::rng::UniformBelow;
use crate::Time;

/// Scan parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanConfig {
    /// the channels scanned (those of the hopping sequence)
    pub channels: Vec<u8>,
    /// time on one channel before moving to another
    pub dwell_us: Time,
    /// time to keep listening after the first EB, to pick the best one
    pub collect_us: Time,
    /// macTsTxOffset of the network's timeslot template
    pub tx_offset_us: Time,
    /// slot length of the template
    pub slot_us: Time,
}

/// The timing an EB gives a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sync {
    /// the EB's sender (its time source until RPL picks a parent)
    pub source: u64,
    /// the ASN of the slot the EB was sent in
    pub asn: u64,
    /// the start of that slot in local time
    pub slot_start: Time,
    /// the sender's join metric
    pub join_metric: u8,
}

impl Sync {
    /// Local start time of slot `asn` (at or after the EB's slot).
    pub fn slot_start_of(&self, asn: u64, slot_us: Time) -> Option<Time> {
        Some(self.slot_start + asn.checked_sub(self.asn)? * slot_us)
    }
}

/// What the owner must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanEvent {
    /// listen on this channel
    Listen(u8),
    /// synchronised: stop scanning, follow the schedule from this timing
    Synced(Sync),
}

/// The scan of one node.
#[derive(Debug, Clone)]
pub struct Scanner {
    cfg: ScanConfig,
    started: Time,
    channel: u8,
    next_hop: Time,
    best: Option<Sync>,
    collect_until: Option<Time>,
    ignored: u64,
    malformed: u64,
    heard: u64,
    /// channel changes so far
    hops: u64,
}

impl Scanner {
    /// Power on, unsynchronised, at `now`: the first channel to listen on.
    pub fn start(cfg: ScanConfig, now: Time, rng: &mut impl UniformBelow) -> (Scanner, ScanEvent) {
        assert!(!cfg.channels.is_empty(), "scan over no channel");
        let channel = cfg.channels[rng.below(cfg.channels.len() as u64) as usize];
        let s = Scanner {
            next_hop: now + cfg.dwell_us,
            cfg,
            started: now,
            channel,
            best: None,
            collect_until: None,
            ignored: 0,
            malformed: 0,
            heard: 0,
            hops: 0,
        };
        (s, ScanEvent::Listen(channel))
    }

    /// When the owner must call [`Scanner::on_deadline`].
    pub fn deadline(&self) -> Time {
        match self.collect_until {
            Some(t) => t.min(self.next_hop),
            None => self.next_hop,
        }
    }

    /// The dwell or the collection window ended.
    pub fn on_deadline(&mut self, now: Time, rng: &mut impl UniformBelow) -> Option<ScanEvent> {
        if let (Some(t), Some(best)) = (self.collect_until, self.best) {
            if now >= t {
                return Some(ScanEvent::Synced(best));
            }
        }
        if now >= self.next_hop {
            self.next_hop = now + self.cfg.dwell_us;
            let n = self.cfg.channels.len() as u64;
            self.channel = self.cfg.channels[rng.below(n) as usize];
            self.hops += 1;
            return Some(ScanEvent::Listen(self.channel));
        }
        None
    }

    /// A frame (MPDU without FCS) whose first bit arrived at `rx_start`
    /// on the channel being scanned.
    pub fn on_frame(&mut self, rx_start: Time, mpdu: &[u8]) -> Option<ScanEvent> {
        let Some((source, asn, join_metric)) = read_eb(mpdu) else {
            if claims_plain_eb(mpdu) {
                self.malformed += 1;
            } else {
                self.ignored += 1;
            }
            return None;
        };
        let Some(slot_start) = rx_start.checked_sub(self.cfg.tx_offset_us) else {
            self.ignored += 1;
            return None;
        };
        self.heard += 1;
        let s = Sync {
            source,
            asn,
            slot_start,
            join_metric,
        };
        if self.best.is_none_or(|b| s.join_metric < b.join_metric) {
            self.best = Some(s);
        }
        if self.collect_until.is_none() {
            self.collect_until = Some(rx_start + self.cfg.collect_us);
        }
        if self.cfg.collect_us == 0 {
            return self.best.map(ScanEvent::Synced);
        }
        None
    }

    /// When the scan began.
    pub fn started(&self) -> Time {
        self.started
    }

    /// EBs heard and other frames ignored.
    pub fn counts(&self) -> (u64, u64) {
        (self.heard, self.ignored)
    }

    /// Channel changes (dwells ended) so far.
    pub fn hops(&self) -> u64 {
        self.hops
    }

    /// Frames whose frame control said plaintext 2015 beacon but which
    /// could not be read as an EB with a TSCH synchronization IE.
    pub fn malformed(&self) -> u64 {
        self.malformed
    }
}

/// Does the frame control field (IEEE 802.15.4-2015 §7.2.2: frame type in
/// bits 0-2, security enabled bit 3, frame version bits 12-13) say
/// "beacon, unsecured, 2015"?
pub(super) fn claims_plain_eb(mpdu: &[u8]) -> bool {
    const BEACON: u8 = 0b000;
    const SECURITY_ENABLED: u8 = 1 << 3;
    const VERSION_2015: u8 = 0b10;
    match mpdu {
        [lo, hi, ..] => {
            lo & 0b111 == BEACON && lo & SECURITY_ENABLED == 0 && (hi >> 4) & 0b11 == VERSION_2015
        }
        _ => false,
    }
}

/// The sender, ASN and join metric of a plaintext 2015 Enhanced Beacon
/// with a TSCH synchronization IE; `None` for anything else.
pub(super) fn read_eb(mpdu: &[u8]) -> Option<(u64, u64, u8)> {
    let r = Repr::parse(mpdu).ok()?;
    if r.version != FrameVersion::V2015 || r.security.is_some() {
        return None;
    }
    let Body::EnhancedBeacon(_) = r.body else {
        return None;
    };
    let wpan::Address::Extended(source) = r.src_addr else {
        return None;
    };
    r.payload_ies.iter().find_map(|ie| match ie {
        PayloadIe::Mlme(subs) => subs.iter().find_map(|s| match s {
            MlmeSubIe::TschSync { asn, join_metric } => Some((source, *asn, *join_metric)),
            _ => None,
        }),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Scripted;

    fn cfg(collect_us: Time) -> ScanConfig {
        ScanConfig {
            channels: vec![11, 15, 20, 25],
            dwell_us: 1_000_000,
            collect_us,
            tx_offset_us: 2_120,
            slot_us: 10_000,
        }
    }

    fn eb(src: u64, asn: u64, join_metric: u8) -> Vec<u8> {
        Repr::enhanced_beacon(
            1,
            0xabcd,
            src,
            vec![PayloadIe::Mlme(vec![MlmeSubIe::TschSync {
                asn,
                join_metric,
            }])],
        )
        .to_bytes()
        .unwrap()
    }

    #[test]
    fn hops_channels_and_syncs_on_the_first_eb() {
        let mut r = Scripted::new(&[2, 0, 3]);
        let (mut s, ev) = Scanner::start(cfg(0), 500, &mut r);
        assert_eq!(ev, ScanEvent::Listen(20));
        assert_eq!(s.deadline(), 1_000_500);
        assert_eq!(
            s.on_deadline(1_000_500, &mut r),
            Some(ScanEvent::Listen(11))
        );
        // garbage and a data frame are ignored
        assert_eq!(s.on_frame(1_100_000, &[1, 2, 3]), None);
        let data = Repr::data(
            1,
            0xabcd,
            wpan::Address::Short(1),
            wpan::Address::Short(2),
            vec![0],
        );
        assert_eq!(s.on_frame(1_100_000, &data.to_bytes().unwrap()), None);
        // an EB whose first bit arrives at 1 234 567 in ASN 5000: that slot
        // began at 1 234 567 - 2 120 = 1 232 447; ASN 5001 at 1 242 447.
        let ev = s.on_frame(1_234_567, &eb(7, 5000, 1)).unwrap();
        let ScanEvent::Synced(sync) = ev else {
            panic!("{ev:?}")
        };
        assert_eq!(
            (sync.source, sync.asn, sync.slot_start),
            (7, 5000, 1_232_447)
        );
        assert_eq!(sync.slot_start_of(5001, 10_000), Some(1_242_447));
        assert_eq!(sync.slot_start_of(4999, 10_000), None);
        // time to synchronised: 1 234 567 - 500 = 1 234 067 µs
        assert_eq!(1_234_567 - s.started(), 1_234_067);
        assert_eq!(s.counts(), (1, 2));
        assert_eq!(s.malformed(), 0);
        assert_eq!(s.hops(), 1);
    }

    #[test]
    fn a_malformed_eb_is_counted_apart() {
        let mut r = Scripted::new(&[0]);
        let (mut s, _) = Scanner::start(cfg(0), 0, &mut r);
        // an EB cut inside its IEs: frame control still says 2015 beacon
        let whole = eb(7, 5000, 1);
        assert_eq!(s.on_frame(10_000, &whole[..whole.len() - 3]), None);
        // an EB without a TSCH synchronization IE
        let no_sync = Repr::enhanced_beacon(1, 0xabcd, 7, vec![PayloadIe::Mlme(vec![])]);
        assert_eq!(s.on_frame(20_000, &no_sync.to_bytes().unwrap()), None);
        // two bytes of frame control alone, 2015 beacon: malformed too
        assert_eq!(s.on_frame(30_000, &[0x00, 0x20]), None);
        assert_eq!(s.on_frame(40_000, &[0x01]), None);
        assert_eq!((s.malformed(), s.counts()), (3, (0, 1)));
    }

    #[test]
    fn collects_and_picks_the_least_join_metric() {
        let mut r = Scripted::new(&[0]);
        let (mut s, _) = Scanner::start(cfg(300_000), 0, &mut r);
        assert_eq!(s.on_frame(100_000, &eb(1, 10, 3)), None);
        // the window closes at 100 000 + 300 000 = 400 000
        assert_eq!(s.deadline(), 400_000);
        assert_eq!(s.on_frame(200_000, &eb(2, 20, 1)), None);
        assert_eq!(s.on_frame(250_000, &eb(3, 25, 1)), None);
        assert_eq!(s.on_deadline(399_999, &mut r), None);
        let Some(ScanEvent::Synced(sync)) = s.on_deadline(400_000, &mut r) else {
            panic!()
        };
        // metric 1 heard first wins the tie: node 2, slot start 200 000 - 2 120
        assert_eq!((sync.source, sync.join_metric), (2, 1));
        assert_eq!(sync.slot_start, 197_880);
    }
}
