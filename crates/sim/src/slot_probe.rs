//! The shortest TSCH timeslot found by simulation: one secured data frame
//! and its secured Enhanced ACK exchanged in one cell, with the template
//! shortened until the exchange fails. The timeslot closed form (crate
//! `models`, same frame layout) must give the same values; this probe is
//! what checks that the simulated slot mechanics and the real CCM* block
//! counts agree with it.

use crate::energy::{Energy, PowerProfile};
use crate::engine::{Sim, Stack};
use crate::mac::address::LinkAddressing;
use crate::mac::security::LinkSecurity;
use crate::mac::tsch::{Cell, SecTimings, SlotStack, Template, Tsch, TschParams};
use crate::mac::{phy, Mac, NodeMac};
use crate::net::Net;
use crate::node::app::{App, Idle};
use crate::topology::Topology;
use crate::world::World;
use crate::Time;

/// What one exchange in one slot did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotOutcome {
    pub success: bool,
    pub sender: SecTimings,
    pub receiver: SecTimings,
    /// Energy of the sender and the receiver over the slot (µJ).
    pub sender_energy: Energy,
    pub receiver_energy: Energy,
    /// PSDU bytes of the data frame and the ACK.
    pub frame_bytes: usize,
    pub ack_bytes: usize,
}

/// MAC payload that makes the data frame exactly `frame_bytes` long.
fn payload_len(
    security: Option<&LinkSecurity>,
    addressing: LinkAddressing,
    frame_bytes: usize,
) -> usize {
    let overhead =
        addressing.data_overhead(security.is_some()) + security.map_or(0, |s| s.overhead());
    frame_bytes.saturating_sub(overhead)
}

/// How the probe's frames look: the data frame's length and how both
/// frames are addressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeFrames {
    pub frame_bytes: usize,
    pub addressing: LinkAddressing,
}

/// Exchange one data frame in one slot with `template`.
pub fn exchange(
    template: Template,
    security: Option<LinkSecurity>,
    power: PowerProfile,
    frames: ProbeFrames,
) -> SlotOutcome {
    exchange_with(template, security, SlotStack::default(), power, frames)
}

/// [`exchange`] on a stack that adds `stack` to the slot.
pub fn exchange_with(
    template: Template,
    security: Option<LinkSecurity>,
    stack: SlotStack,
    power: PowerProfile,
    frames: ProbeFrames,
) -> SlotOutcome {
    let world = World::new(Topology::line(2, 1.0).expect("two nodes"), 1, 0);
    let cell = |peer, tx| Cell {
        slot: 0,
        channel_offset: 0,
        peer,
        tx,
        shared: false,
        contention: false,
    };
    let mac = |cells| -> NodeMac {
        NodeMac::Tsch(Tsch::new(TschParams {
            template,
            slotframe: 1,
            cells,
            hopping: vec![0],
            max_retries: 0,
            frame_processing_us: 0,
            security,
            min_be: 1,
            max_be: 7,
            addressing: frames.addressing,
            stack,
            formation: None,
            msf: None,
            sync: None,
            busy_wait_step_us: 0,
            eb_slotframe: None,
        }))
    };
    let stacks = vec![
        Stack {
            mac: mac(vec![cell(1, true)]),
            net: Net::with_link_addresses(0, 1, frames.addressing, security.is_some()),
            app: Box::new(Idle) as Box<dyn App<()>>,
        },
        Stack {
            mac: mac(vec![cell(0, false)]),
            net: Net::with_link_addresses(1, 1, frames.addressing, security.is_some()),
            app: Box::new(Idle) as Box<dyn App<()>>,
        },
    ];
    let mut sim = Sim::new(world, stacks);
    sim.world.sent = Some(Vec::new());
    sim.start();
    let payload = vec![0x41; payload_len(security.as_ref(), frames.addressing, frames.frame_bytes)];
    sim.stacks[0].mac.send(&mut sim.world.cx(0), 1, payload);
    let end: Time = template.slot_us;
    sim.run(end - 1, |_| false);
    let tsch = |n: usize| sim.stacks[n].mac.as_tsch().expect("TSCH");
    let (sender, receiver) = (tsch(0), tsch(1));
    // acknowledged in this slot: nothing left, nothing given up
    let success = sender.queued() == 0
        && sender.stats().drops == 0
        && receiver.stats().data_frames_received == 1;
    let sent = sim.world.sent.as_ref().expect("recorded");
    let bytes = |node: usize| {
        sent.iter()
            .find(|s| s.node == node)
            .map_or(0, |s| s.frame.len())
    };
    SlotOutcome {
        success,
        sender: sender.timings,
        receiver: receiver.timings,
        sender_energy: sim.world.energest(0).times(end).energy(&power),
        receiver_energy: sim.world.energest(1).times(end).energy(&power),
        frame_bytes: bytes(0),
        ack_bytes: bytes(1),
    }
}

/// The shortest TsTxOffset, TsTxAckDelay and TsSlotDuration with which the
/// exchange still succeeds (each searched with the others generous).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinimalSlot {
    pub tx_offset_us: Time,
    pub tx_ack_delay_us: Time,
    pub slot_us: Time,
    /// The exchange in the shortest template found.
    pub at_minimum: SlotOutcome,
    /// The exchange in the IEEE default 10 ms template (which slow CCM* does not fit).
    pub default_slot: SlotOutcome,
}

fn smallest(lo: Time, hi: Time, ok: impl Fn(Time) -> bool) -> Time {
    // invariant: ok(hi); find the least value in [lo, hi] that is ok
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

pub fn minimal_slot(
    security: Option<LinkSecurity>,
    power: PowerProfile,
    frames: ProbeFrames,
) -> MinimalSlot {
    minimal_slot_with(security, SlotStack::default(), power, frames)
}

/// [`minimal_slot`] on a stack that adds `stack` to the slot.
pub fn minimal_slot_with(
    security: Option<LinkSecurity>,
    stack: SlotStack,
    power: PowerProfile,
    frames: ProbeFrames,
) -> MinimalSlot {
    // generous enough for software CCM* of a 127-byte frame on a 16-bit MCU
    // with a real stack's processing (tens of ms per operation)
    let roomy = Template {
        slot_us: 400_000,
        rx_offset_us: 0,
        rx_wait_us: 150_000,
        tx_offset_us: 100_000,
        tx_ack_delay_us: 150_000,
        ..Template::default()
    };
    let works = |t: Template| exchange_with(t, security, stack, power, frames).success;
    let tx_offset = smallest(0, roomy.tx_offset_us, |v| {
        works(Template {
            tx_offset_us: v,
            ..roomy
        })
    });
    let tx_ack_delay = smallest(0, roomy.tx_ack_delay_us, |v| {
        works(Template {
            tx_offset_us: tx_offset,
            tx_ack_delay_us: v,
            ..roomy
        })
    });
    let tight = Template {
        tx_offset_us: tx_offset,
        tx_ack_delay_us: tx_ack_delay,
        ..roomy
    };
    let upper = tx_offset + phy::MAX_PSDU as Time * 64 + tx_ack_delay + 100_000;
    let slot = smallest(1, upper, |v| {
        works(Template {
            slot_us: v,
            ..tight
        })
    });
    MinimalSlot {
        tx_offset_us: tx_offset,
        tx_ack_delay_us: tx_ack_delay,
        slot_us: slot,
        at_minimum: exchange_with(
            Template {
                slot_us: slot,
                ..tight
            },
            security,
            stack,
            power,
            frames,
        ),
        default_slot: exchange_with(Template::default(), security, stack, power, frames),
    }
}
