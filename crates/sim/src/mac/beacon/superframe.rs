//! The superframes a node takes part in: as a coordinator, its own
//! (beacon, then its CAP until the end of the active period); as a device,
//! its parent's (wake a guard time before each beacon, track its CAP, poll
//! when the beacon lists this node as pending).

use super::slotted::{Cap, Side, Step};
use super::{BeaconBody, BeaconMac, Kind, MAX_LOST_BEACONS, SUPERFRAME_SLOTS};
use crate::channel::airtime_us;
use crate::mac::address::{short_addr, PAN_ID};
use crate::mac::phy;
use crate::world::{Cx, Received};
use crate::Time;
use wpan::frame::{Address, Repr, SuperframeSpec};

impl BeaconMac {
    /// Start of the first superframe at or after `t` of a coordinator whose
    /// first superframe started at `first`.
    pub(super) fn sf_at_or_after(&self, first: Time, t: Time) -> Time {
        let bi = self.p.beacon_interval_us();
        if t <= first {
            first
        } else {
            first + (t - first).div_ceil(bi) * bi
        }
    }

    pub(super) fn send_beacon(&mut self, cx: &mut Cx) {
        if self.own_sf.is_some() {
            // BO = SO: the last superframe ends as this one begins (its end
            // timer, due now, is superseded by the one armed below)
            self.own_superframe_over(cx);
        }
        let now = cx.now();
        let bi = self.p.beacon_interval_us();
        let sd = self.p.superframe_duration_us();
        self.own_sf = Some(now);
        self.timers.set(cx, Kind::OwnBeacon, now + bi);
        self.timers.set(cx, Kind::OwnEnd, now + sd);
        // (no indirect frame is in flight: the last CAP is over)
        self.expire_indirect(now);
        let pending_short = self.pending_addresses();
        let body = BeaconBody {
            superframe: SuperframeSpec {
                beacon_order: self.p.beacon_order,
                superframe_order: self.p.superframe_order,
                final_cap_slot: SUPERFRAME_SLOTS - 1,
                battery_life_extension: false,
                pan_coordinator: self.role.pan_coordinator,
                association_permit: false,
            },
            gts_permit: false,
            pending_short,
            pending_ext: Vec::new(),
            payload: Vec::new(),
        };
        let frame = Repr::beacon(self.bsn, PAN_ID, Address::Short(short_addr(cx.node)), body)
            .to_bytes_with_fcs()
            .expect("a beacon with at most seven pending addresses fits");
        self.bsn = self.bsn.wrapping_add(1);
        self.stats.beacons_sent += 1;
        cx.charge_cpu(self.p.frame_processing_us);
        self.own_beacon_on_air = Some(cx.transmit(frame));
    }

    pub(super) fn own_superframe_over(&mut self, cx: &mut Cx) {
        self.own_cap = None;
        self.own_sf = None;
        self.requested.clear();
        if self.down.step != Step::Idle {
            // an indirect frame not sent in this CAP waits for the next poll
            self.defer(cx, Side::Down, false);
        }
        self.update_radio(cx);
    }

    /// Wake a guard time before the parent's next beacon.
    pub(super) fn arm_beacon_wake(&mut self, cx: &mut Cx, after: Time) {
        let Some((_, first)) = self.role.parent else {
            return;
        };
        let sf = self.sf_at_or_after(first, after);
        let at = sf.saturating_sub(self.p.guard_us);
        self.timers.set(cx, Kind::BeaconWake, at);
    }

    pub(super) fn beacon_wake(&mut self, cx: &mut Cx) {
        let Some((_, first)) = self.role.parent else {
            return;
        };
        let now = cx.now();
        let sf = self.sf_at_or_after(first, now);
        self.beacon_window = Some(sf);
        // a beacon of at most aMaxPHYPacketSize bytes has ended by then
        self.timers
            .set(cx, Kind::BeaconMiss, sf + airtime_us(phy::MAX_PSDU));
        self.arm_beacon_wake(cx, sf + 1);
        self.update_radio(cx);
    }

    pub(super) fn beacon_missed(&mut self, cx: &mut Cx) {
        let Some(sf) = self.beacon_window.take() else {
            return;
        };
        self.lost_beacons += 1;
        if self.p.cap_without_beacon && self.lost_beacons <= MAX_LOST_BEACONS {
            let now = cx.now();
            let end = sf + self.p.superframe_duration_us();
            let cap = Cap {
                sf_start: sf,
                start: 0,
                end,
            };
            self.parent_cap = Some(Cap {
                start: cap.boundary(now),
                ..cap
            });
            self.timers.set(cx, Kind::ParentEnd, end);
            self.cap_started(cx, Side::Up);
        }
        self.update_radio(cx);
    }

    pub(super) fn parent_beacon(&mut self, cx: &mut Cx, rx: &Received, beacon: &BeaconBody) {
        let Some(sf) = self.beacon_window.take() else {
            return;
        };
        self.lost_beacons = 0;
        self.timers.stop(Kind::BeaconMiss);
        let sd = self.p.superframe_duration_us();
        let cap = Cap {
            sf_start: sf,
            start: 0,
            end: sf + sd,
        };
        self.parent_cap = Some(Cap {
            start: cap.boundary(rx.at),
            ..cap
        });
        self.timers.set(cx, Kind::ParentEnd, sf + sd);
        let me = short_addr(cx.node);
        let my_ext = crate::mac::security::extended_addr(cx.node);
        if beacon.pending_short.contains(&me) || beacon.pending_ext.contains(&my_ext) {
            self.poll_due = true;
        }
        self.cap_started(cx, Side::Up);
        self.update_radio(cx);
    }
}
