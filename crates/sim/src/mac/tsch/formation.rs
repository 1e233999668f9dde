//! TSCH network formation: a node powered on unsynchronised scans for
//! Enhanced Beacons ([`super::scan::Scanner`]) and, once synchronised,
//! sends an EB of its own in the minimal shared cell every EB period, so
//! the network's timing spreads hop by hop from the root (RFC 8180 §4.1
//! and §6; IEEE 802.15.4-2015 §6.3.6). This module holds the parameters,
//! the EB a node sends, the EB timer and what a node reports; [`super::Tsch`]
//! drives them.
//!
//! Clocks drift only with [`super::sync`] (`mac.tsch.drift_ppm` > 0):
//! then keep-alives, resynchronisation, loss of synchronisation and
//! rejoin follow its rules; without it a synchronised node follows the
//! network's slot boundaries exactly and sends no keep-alive. Stated
//! simplifications: a node's join metric is its hop count from
//! the root (until RPL gives it a rank); EBs are not secured (a node has no
//! key before it joins, RFC 9031).

use wpan::frame::Repr;
use wpan::ie::{join_metric, Link, MlmeSubIe, PayloadIe, Slotframe};

use super::scan::Scanner;
use crate::channel::EmissionId;
use crate::mac::address::PAN_ID;
use crate::Time;

/// Contiki-NG's EB period, `TSCH_EB_PERIOD` = 16 · CLOCK_SECOND
/// (os/net/mac/tsch/tsch-conf.h, read); RFC 8180 leaves the period to the
/// implementation.
pub const DEFAULT_EB_PERIOD_US: Time = 16_000_000;

/// Contiki-NG's time on one channel while scanning,
/// `TSCH_CHANNEL_SCAN_DURATION` = CLOCK_SECOND (tsch-conf.h, read).
pub const DEFAULT_SCAN_DWELL_US: Time = 1_000_000;

/// RPL's MinHopRankIncrease default, DEFAULT_MIN_HOP_RANK_INCREASE = 256
/// (RFC 6550 §17), the unit of the rank the join metric is derived from.
pub const MIN_HOP_RANK_INCREASE: u16 = 256;

/// Formation parameters of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FormationParams {
    /// The node is the network's root (the PAN coordinator): synchronised
    /// from power-on, join metric 0.
    pub root: bool,
    /// Mean time between two EBs of a synchronised node; each gap is drawn
    /// in [3/4, 1) of it, as Contiki-NG's `tsch_tx_process` does (tsch.c,
    /// read: "random delay within [period*0.75, period[").
    pub eb_period_us: Time,
    /// Time on one channel while scanning.
    pub scan_dwell_us: Time,
}

impl FormationParams {
    /// Contiki-NG's defaults.
    pub fn contiki(root: bool) -> Self {
        FormationParams {
            root,
            eb_period_us: DEFAULT_EB_PERIOD_US,
            scan_dwell_us: DEFAULT_SCAN_DWELL_US,
        }
    }
}

/// The gap before a node's next EB, in [3/4, 1) of `eb_period_us`:
/// `draw(n)` draws the part above 3/4 in `0..n` (tsch.c
/// `tsch_tx_process`'s "random delay within [period*0.75, period["). The
/// EB process with and without Orchestra's EB slotframe
/// ([`super::eb_slotframe::EbQueue`]) both draw their gaps here.
pub fn eb_gap_us(eb_period_us: Time, draw: impl FnOnce(Time) -> Time) -> Time {
    eb_period_us - eb_period_us / 4 + draw(eb_period_us / 4)
}

/// What one node's formation came to, for its result rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FormationStats {
    pub root: bool,
    pub powered_on_at: Time,
    /// When it synchronised (the root: never, it is the time source).
    pub synchronised_at: Option<Time>,
    pub ebs_sent: u64,
    /// EBs heard while scanning.
    pub ebs_heard: u64,
    /// Frames that claimed to be Enhanced Beacons and could not be read
    /// as one with a TSCH synchronization IE (dropped).
    pub ebs_malformed: u64,
    /// Time spent scanning in scans that ended (µs), and the channel
    /// changes of every scan, the one under way included.
    pub scan_us: Time,
    pub scan_hops: u64,
    /// When the scan under way began (None: not scanning).
    pub scanning_since: Option<Time>,
    /// Keep-alives, resynchronisations, losses of synchronisation (with
    /// clock drift only).
    pub sync: Option<super::sync::SyncStats>,
}

/// Where one node is in the formation, kept by its [`super::Tsch`].
#[derive(Debug, Clone)]
pub(super) struct Formation {
    pub p: FormationParams,
    /// Scanning until this is taken (never for the root).
    pub scanner: Option<Scanner>,
    /// Hops to the root of the node it synchronised on, plus one.
    pub hops: u8,
    /// When the next EB is queued (None while one is pending or on the air).
    pub next_eb_at: Option<Time>,
    /// When the pending EB was queued (the next one's gap counts from it).
    pub eb_queued_at: Time,
    /// The EB built for this slot, then on the air.
    pub eb_frame: Option<Vec<u8>>,
    pub eb_on_air: Option<EmissionId>,
    pub eb_seq: u8,
    /// Part of the network: a node sends EBs only once it has joined
    /// (RFC 9031 §4: a pledge hears the EBs of nodes already part of the
    /// network, one of which acts as its join proxy; RFC 8180 §4). True
    /// unless the workload holds it back until its join succeeds.
    pub joined: bool,
    pub stats: FormationStats,
}

impl Formation {
    pub fn new(p: FormationParams) -> Self {
        Formation {
            p,
            scanner: None,
            hops: 0,
            next_eb_at: None,
            eb_queued_at: 0,
            eb_frame: None,
            eb_on_air: None,
            eb_seq: 0,
            joined: true,
            stats: FormationStats {
                root: p.root,
                ..FormationStats::default()
            },
        }
    }

    /// When an EB is due to go in the next shared cell, if one is.
    pub fn eb_due(&self) -> Option<Time> {
        match (&self.scanner, &self.eb_frame, self.eb_on_air) {
            (None, None, None) => self.next_eb_at,
            _ => None,
        }
    }

    /// What the node reports, the scan's counts included while it runs.
    pub fn report(&self) -> FormationStats {
        let mut s = self.stats;
        if let Some(sc) = &self.scanner {
            s.ebs_heard += sc.counts().0;
            s.ebs_malformed += sc.malformed();
            s.scan_hops += sc.hops();
            s.scanning_since = Some(sc.started());
        }
        s
    }
}

/// A node's hop-count rank (the root's rank is MinHopRankIncrease, RFC
/// 6550 §8.2.2.1's ROOT_RANK) and the join metric its EBs carry.
pub fn hop_join_metric(hops: u8) -> u8 {
    let rank = (u16::from(hops) + 1).saturating_mul(MIN_HOP_RANK_INCREASE);
    join_metric(rank, MIN_HOP_RANK_INCREASE)
}

/// The Enhanced Beacon of RFC 8180 §6.1 sent in slot `asn` by `src`
/// (extended address) of join metric `metric`: the TSCH synchronization
/// IE, the timeslot IE (default template, ID 0), the channel hopping IE
/// (default sequence, ID 0) and the slotframe and link IE advertising the
/// minimal cell (slot 0, channel offset 0; TX, RX, shared, timekeeping).
/// Bytes with FCS.
pub fn enhanced_beacon(seq: u8, src: u64, asn: u64, metric: u8, slotframe: u32) -> Vec<u8> {
    let minimal_cell = Link {
        timeslot: 0,
        channel_offset: 0,
        options: 0b1111,
    };
    let ies = vec![PayloadIe::Mlme(vec![
        MlmeSubIe::TschSync {
            asn,
            join_metric: metric,
        },
        MlmeSubIe::TschTimeslot { template_id: 0 },
        MlmeSubIe::ChannelHopping { sequence_id: 0 },
        MlmeSubIe::SlotframeLink(vec![Slotframe {
            handle: 0,
            size: u16::try_from(slotframe).unwrap_or(u16::MAX),
            links: vec![minimal_cell],
        }]),
    ])];
    Repr::enhanced_beacon(seq, PAN_ID, src, ies)
        .to_bytes_with_fcs()
        .expect("an EB of four IEs fits in a frame")
}

#[cfg(test)]
mod tests {
    use super::*;
    use wpan::frame::{Body, FrameVersion};

    #[test]
    fn join_metric_is_the_hop_count() {
        // rank (h + 1) · 256: DAGRank h + 1, join metric h (RFC 8180 §6.1)
        assert_eq!(hop_join_metric(0), 0);
        assert_eq!(hop_join_metric(1), 1);
        assert_eq!(hop_join_metric(7), 7);
        // rank saturates at u16::MAX: DAGRank 255, metric 254
        assert_eq!(hop_join_metric(255), 254);
    }

    #[test]
    fn eb_gaps_span_three_quarters_to_one_period() {
        let p = FormationParams::contiki(false).eb_period_us;
        let mut asked = None;
        let lowest = eb_gap_us(p, |n| {
            asked = Some(n);
            0
        });
        assert_eq!(asked, Some(4_000_000)); // draws below a quarter period
        assert_eq!(lowest, 12_000_000);
        assert_eq!(eb_gap_us(p, |n| n - 1), 15_999_999);
    }

    #[test]
    fn the_eb_parses_back() {
        let bytes = enhanced_beacon(9, 0x0012_4b00_0000_0007, 0x01_2345_6789, 3, 101);
        assert_eq!(bytes.len(), 47); // as counted in tests/formation.rs
        let mpdu = wpan::fcs::check(&bytes).unwrap();
        let r = Repr::parse(mpdu).unwrap();
        assert_eq!(r.version, FrameVersion::V2015);
        assert!(matches!(r.body, Body::EnhancedBeacon(_)));
        assert_eq!(r.src_addr, wpan::Address::Extended(0x0012_4b00_0000_0007));
        assert_eq!(r.dst_pan, Some(PAN_ID));
        let PayloadIe::Mlme(subs) = &r.payload_ies[0] else {
            panic!("{:?}", r.payload_ies)
        };
        assert_eq!(
            subs[0],
            MlmeSubIe::TschSync {
                asn: 0x01_2345_6789,
                join_metric: 3
            }
        );
        assert_eq!(subs[1], MlmeSubIe::TschTimeslot { template_id: 0 });
        assert_eq!(subs[2], MlmeSubIe::ChannelHopping { sequence_id: 0 });
        let MlmeSubIe::SlotframeLink(sf) = &subs[3] else {
            panic!("{subs:?}")
        };
        assert_eq!((sf[0].size, sf[0].links[0].options), (101, 0b1111));
    }
}
