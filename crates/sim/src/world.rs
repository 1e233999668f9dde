//! The physical world shared by every node: the event queue, the channel,
//! each node's radio and energy meter, and the random streams. Protocol
//! layers reach it through a [`Cx`] that knows which node is acting.

use std::rc::Rc;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

use crate::channel::{Channel, Emission, EmissionId, SignalLoss};
use crate::energy::{Energest, RadioState};
use crate::queue::EventQueue;
use crate::rng::{mix, stream, unit_interval, Purpose};
use crate::topology::Topology;
use crate::trace::{RxOutcome, Trace};
use crate::{NodeId, Time};

/// The protocol layer a timer belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Mac,
    App,
    /// the routing protocol (RPL), when a network runs one
    Routing,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Judge whether `node` received copy `copy` of `emission`.
    RxEnd {
        node: NodeId,
        emission: EmissionId,
        copy: u64,
    },
    /// The last copy of `emission` left `node`'s antenna.
    TxEnd { node: NodeId, emission: EmissionId },
    Timer {
        node: NodeId,
        layer: Layer,
        token: crate::timer::Token,
    },
    /// A received MAC payload reaches `node`'s network layer.
    Deliver {
        node: NodeId,
        from: NodeId,
        payload: Vec<u8>,
    },
    /// `node` is powered on (a power-on window: [`crate::power_on`]).
    PowerOn { node: NodeId },
}

/// A frame a node received intact.
#[derive(Debug, Clone)]
pub struct Received {
    pub frame: Rc<[u8]>,
    pub from: NodeId,
    pub emission: EmissionId,
    pub copy: u64,
    /// When its last bit arrived.
    pub at: Time,
}

/// How long a node's CPU takes over a received frame before its network
/// layer has it: reading it from the radio over the bus, then handling it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Processing {
    /// Mean CPU time per frame; each frame takes a uniform draw in [0.5, 1.5] of it.
    pub frame_us: f64,
    /// Bus transfer per byte (0 with the radio on the MCU's die).
    pub bus_us_per_byte: f64,
}

/// A frame as it went on the air, for the pcap writer: `copies` copies
/// (a strobe train; 1 for a plain frame) every `period` µs from `at`.
#[derive(Debug, Clone)]
pub struct Sent {
    pub node: NodeId,
    pub at: Time,
    pub frame: Rc<[u8]>,
    pub emission: EmissionId,
    pub period: Time,
    pub copies: u64,
    /// Its place among `node`'s emissions (what [`World::jammed`] names).
    pub ordinal: u64,
    /// The channel index (0..=15, IEEE channel 11 + index) the sender's
    /// radio was tuned to.
    pub channel: u8,
}

struct Radio {
    state: RadioState,
    /// Start of the current uninterrupted listening period.
    listen_since: Time,
    /// The train this node is sending, if any (its radio counts as listening
    /// between strobes).
    train: Option<EmissionId>,
    /// The channel (frequency) the radio is tuned to.
    channel: u8,
    energest: Energest,
}

pub struct World {
    pub queue: EventQueue<Event>,
    /// Per node: not joined yet (a pledge), as the join workload says
    /// (`Sim::set_joined`); a join proxy tells a pledge by its unsecured
    /// join frames, and the simulator reads it here.
    pledges: Vec<bool>,
    /// Per node, with TSCH formation: the neighbour whose Enhanced Beacon
    /// it last associated on (its time source at association), the join
    /// proxy of a pledge that joins through one (RFC 9031 §4-5); None
    /// without formation or before the first.
    synced_on: Vec<Option<NodeId>>,
    /// How many associations on an EB there have been in the run (the
    /// join workload looks for new ones to let pledges go).
    associations: u64,
    pub channel: Channel,
    radios: Vec<Radio>,
    /// Per receiver, the key of its delivery draws (see [`World::judge`]).
    channel_keys: Vec<u64>,
    mac_rng: Vec<ChaCha8Rng>,
    processing: Processing,
    cpu_rng: Vec<ChaCha8Rng>,
    /// Per node, the MAC timer to fire when a neighbour starts a strobe
    /// train (see [`Cx::wake_on_train`]).
    train_wake: Vec<Option<crate::timer::Token>>,
    /// Per node: the interrupt to raise whenever a frame it hears goes on the air.
    frame_wake: Vec<Option<crate::timer::Token>>,
    /// How many nodes asked for `frame_wake` (none: no emission looks).
    frame_wakers: usize,
    /// Per node, the MAC timer to fire when a neighbour starts sending in a
    /// slot (see [`Cx::wake_on_neighbour_send`]).
    send_wake: Vec<Option<crate::timer::Token>>,
    /// Interrupts (train starts, neighbours about to send) not yet told to
    /// the nodes that asked: (hearer, its token, the channel the neighbour
    /// is about to send on, if it said).
    pub wakes: Vec<(NodeId, crate::timer::Token, Option<u8>)>,
    /// The channel of the interrupt being told (see [`Cx::waking_channel`]).
    pub waking_channel: Option<u8>,
    /// First train copy not yet scheduled for a reception check, per (node,
    /// train): a node that stops and starts listening must not judge a copy twice.
    watched: FxHashMap<(NodeId, EmissionId), u64>,
    /// Radios whose `train` is set: none (TSCH, CSMA, beacon-enabled), and a
    /// node that starts listening has no neighbour's train to look for.
    trains: usize,
    /// The trains a node that starts listening must watch (kept to reuse its allocation).
    to_catch: Vec<(EmissionId, u64)>,
    /// Judge the copies of a train that a listener's own strobe train
    /// overlaps at once, not one event each ([`World::follow_train`]).
    pub skip_own_collisions: bool,
    /// The runs of copies skipped so, until their next copy is judged.
    skips: Vec<Skip>,
    /// A Cooja mote's strobe loop runs its quiet 1 ms steps (ones that
    /// change nothing another node or layer sees) without an event each,
    /// caught up when the mote next runs (`Xmac::run_cooja_loop`).
    pub skip_quiet_loop_steps: bool,
    /// Reception checks scheduled for a skipped run's next copy and made
    /// void when the listener's own train was cut: (node, emission, copy).
    void_checks: Vec<(NodeId, EmissionId, u64)>,
    /// Every frame put on the air (copies of a train once), when recording.
    pub sent: Option<Vec<Sent>>,
    /// Every copy a radio received intact, when recording frames (a
    /// per-node capture keeps what one node received): (receiver, emission,
    /// copy), in the order they were judged.
    pub heard: Vec<(NodeId, EmissionId, u64)>,
    /// The per-event trace, when asked for (see [`crate::trace`]).
    pub trace: Option<Trace>,
    /// Fault injection: (node, n) jams the n-th emission of `node` (0-based),
    /// so no one receives it — to test recovery by the layers above.
    pub jammed: Vec<(NodeId, u64)>,
    /// Per radio channel (0..=15 for IEEE channels 11..26), a factor on every
    /// link's PDR (external interference on some frequencies); empty: all 1.
    pub channel_pdr: Vec<f64>,
    /// A replayed K7 trace: each link's PDR on the frame's channel at its
    /// time replaces the topology's (see [`crate::k7::Replay`]).
    pub replay: Option<std::sync::Arc<crate::k7::Replay>>,
    emissions_by_node: Vec<u64>,
    emission_ordinal: FxHashMap<EmissionId, (NodeId, u64)>,
    /// Per node, the copies of its last two emissions (newest first), kept
    /// after the channel forgets them: when frames ended near a node (see
    /// [`Cx::last_frame_end_heard`]).
    recent: Vec<[Option<Copies>; 2]>,
    /// Per node, where its TSCH slot boundaries stand against the
    /// network's (TSCH with clock drift only; all zero otherwise): a
    /// receiver reads the sender's to know when its frame began on the
    /// receiver's clock.
    clock_lines: Vec<crate::clock::ClockLine>,
}

/// Copies of `emission` that `node` did not judge one by one: each
/// overlapped a copy of `node`'s own train `own`, so each would have been
/// judged collided, with no effect on any layer. `after` was judged
/// collided; the next one judged is `next` (None: none was left).
#[derive(Clone, Copy, Debug)]
struct Skip {
    node: NodeId,
    emission: EmissionId,
    own: EmissionId,
    after: u64,
    next: Option<u64>,
}

/// When the copies of one emission start and end.
#[derive(Clone, Copy, Debug)]
struct Copies {
    id: EmissionId,
    start: Time,
    airtime: Time,
    period: Time,
    count: u64,
    /// Where the sender's run that put it on the air stood among the runs
    /// due at that instant ([`Cx::order_last_emission`]); None: unknown.
    order: Option<RunOrder>,
}

/// A Cooja mote's place among the wake-ups due at one instant: Cooja's
/// EventQueue runs them in the order they were queued, and a mote woken
/// by a frame edge keeps that place for the 1 ms ticks that follow (each
/// queued as it runs). The edge's time first, then who was woken: the
/// frame's sender (its own end), its receivers, the radios it interfered
/// (AbstractRadioMedium.java TRANSMISSION_FINISHED: the sender's
/// `requestImmediateWakeup` comes before it notifies the medium, which
/// signals destinations, then interfered radios).
pub type RunOrder = (Time, u8);

impl Copies {
    /// End of the last copy ending at or before `t`.
    fn last_end_by(&self, t: Time) -> Option<Time> {
        let first_end = self.start + self.airtime;
        if self.count == 0 || t < first_end {
            return None;
        }
        let k = ((t - first_end) / self.period.max(1)).min(self.count - 1);
        Some(first_end + k * self.period)
    }

    /// Start of the first copy starting in `[a, b)`.
    fn first_start_in(&self, a: Time, b: Time) -> Option<Time> {
        if self.count == 0 {
            return None;
        }
        let k = if a <= self.start {
            0
        } else {
            (a - self.start).div_ceil(self.period.max(1))
        };
        let start = self.start + k * self.period;
        (k < self.count && start < b).then_some(start)
    }

    /// End of the first copy ending in `[a, b)`.
    fn first_end_in(&self, a: Time, b: Time) -> Option<Time> {
        let first_end = self.start + self.airtime;
        if self.count == 0 {
            return None;
        }
        let k = if a <= first_end {
            0
        } else {
            (a - first_end).div_ceil(self.period.max(1))
        };
        let end = first_end + k * self.period;
        (k < self.count && end < b).then_some(end)
    }
}

impl World {
    /// Mark `node` a pledge (not joined yet) or a member of the network.
    pub fn set_pledge(&mut self, node: NodeId, pledge: bool) {
        self.pledges[node] = pledge;
    }

    /// The neighbour `node` last associated on by an Enhanced Beacon (None
    /// without formation or before it synchronised).
    pub fn synced_on(&self, node: NodeId) -> Option<NodeId> {
        self.synced_on.get(node).copied().flatten()
    }

    /// Whether `node` has not joined the network yet (a pledge).
    pub fn is_pledge(&self, node: NodeId) -> bool {
        self.pledges.get(node).copied().unwrap_or(false)
    }

    /// How many associations on an EB there have been so far.
    pub fn associations(&self) -> u64 {
        self.associations
    }

    pub fn new(topology: Topology, seed: u64, replication: u64) -> Self {
        let n = topology.nodes();
        let streams = |p| {
            (0..n as u64)
                .map(|i| stream(seed, replication, i, p))
                .collect()
        };
        World {
            queue: EventQueue::new(),
            pledges: vec![false; n],
            synced_on: vec![None; n],
            associations: 0,
            channel: Channel::new(topology),
            radios: (0..n)
                .map(|_| Radio {
                    state: RadioState::Off,
                    listen_since: 0,
                    train: None,
                    channel: 0,
                    energest: Energest::new(0, RadioState::Off),
                })
                .collect(),
            channel_keys: (0..n as u64)
                .map(|i| stream(seed, replication, i, Purpose::Channel).next_u64())
                .collect(),
            mac_rng: streams(Purpose::Mac),
            processing: Processing::default(),
            cpu_rng: streams(Purpose::Cpu),
            train_wake: vec![None; n],
            frame_wake: vec![None; n],
            frame_wakers: 0,
            send_wake: vec![None; n],
            wakes: Vec::new(),
            waking_channel: None,
            watched: FxHashMap::default(),
            trains: 0,
            to_catch: Vec::new(),
            skip_own_collisions: false,
            skips: Vec::new(),
            skip_quiet_loop_steps: false,
            void_checks: Vec::new(),
            sent: None,
            heard: Vec::new(),
            trace: None,
            jammed: Vec::new(),
            channel_pdr: Vec::new(),
            replay: None,
            emissions_by_node: vec![0; n],
            emission_ordinal: FxHashMap::default(),
            recent: vec![[None; 2]; n],
            clock_lines: vec![crate::clock::ClockLine::default(); n],
        }
    }

    pub fn now(&self) -> Time {
        self.queue.now()
    }

    pub fn set_processing(&mut self, p: Processing) {
        self.processing = p;
    }

    pub fn nodes(&self) -> usize {
        self.radios.len()
    }

    pub fn radio(&self, node: NodeId) -> RadioState {
        self.radios[node].state
    }

    /// The strobe train `node` is sending, if any.
    pub fn train_of(&self, node: NodeId) -> Option<EmissionId> {
        self.radios[node].train
    }

    /// `node` powers on at `at` (now or later): its energy meter counts
    /// from then (reading all zeros before), its radio off until its MAC
    /// turns it on.
    pub fn power_on_at(&mut self, node: NodeId, at: Time) {
        let r = &mut self.radios[node];
        debug_assert_eq!(r.state, RadioState::Off, "a node powered on twice");
        r.listen_since = at;
        r.energest = Energest::new(at, RadioState::Off);
    }

    pub fn energest(&self, node: NodeId) -> &Energest {
        &self.radios[node].energest
    }

    pub fn cx(&mut self, node: NodeId) -> Cx<'_> {
        Cx { w: self, node }
    }

    /// Judge a reception at its end (see the channel module for the rules).
    pub fn judge(&mut self, node: NodeId, emission: EmissionId, copy: u64) -> Option<Received> {
        self.judge_outcome(node, emission, copy).ok()
    }

    /// [`World::judge`], saying why a frame was not received.
    pub fn judge_outcome(
        &mut self,
        node: NodeId,
        emission: EmissionId,
        copy: u64,
    ) -> Result<Received, RxOutcome> {
        self.verdict(node, emission, copy)?;
        let e = self.channel.get(emission).ok_or(RxOutcome::Cut)?;
        if self.sent.is_some() {
            self.heard.push((node, emission, copy));
        }
        Ok(Received {
            frame: e.frame.clone(),
            from: e.src,
            emission,
            copy,
            at: e.copy_start(copy) + e.airtime,
        })
    }

    /// What [`World::judge_outcome`] would say, without recording anything
    /// (the event census reads it before the event runs).
    pub fn peek_outcome(
        &self,
        node: NodeId,
        emission: EmissionId,
        copy: u64,
    ) -> Result<(), RxOutcome> {
        self.verdict(node, emission, copy)
    }

    /// Whether `node` receives copy `copy` of `emission` (see the channel
    /// module for the rules), and if not, why.
    #[inline]
    fn verdict(&self, node: NodeId, emission: EmissionId, copy: u64) -> Result<(), RxOutcome> {
        let e = self.channel.get(emission).ok_or(RxOutcome::Cut)?;
        if copy >= e.count {
            return Err(RxOutcome::Cut); // the train was cut before this copy
        }
        if !self.channel.transmitted(e, copy) {
            return Err(RxOutcome::Faded); // lost for every radio (UDGM's success_ratio_tx)
        }
        let (a, b) = (e.copy_start(copy), e.copy_start(copy) + e.airtime);
        let r = &self.radios[node];
        if r.state != RadioState::Listen || r.listen_since > a || r.channel != e.channel {
            return Err(RxOutcome::NotListening);
        }
        let by_sinr = if self.channel.signals().is_some() {
            match self.channel.sinr_success(node, emission, a, b) {
                Ok(p) => Some(p),
                Err(SignalLoss::TooWeak) => return Err(RxOutcome::Faded),
                Err(SignalLoss::Collided) => return Err(RxOutcome::Collided),
            }
        } else {
            if self.channel.interfered(node, emission, a, b) {
                return Err(RxOutcome::Collided);
            }
            None
        };
        if !self.jammed.is_empty()
            && self
                .emission_ordinal
                .get(&emission)
                .is_some_and(|o| self.jammed.contains(o))
        {
            return Err(RxOutcome::Jammed);
        }
        let pdr = match (by_sinr, &self.replay) {
            (Some(p), _) => p,
            (None, Some(replay)) => replay
                .pdr_from_first(e.src, node, e.channel + crate::k7::FIRST_CHANNEL, a)
                .ok_or(RxOutcome::Faded)?,
            (None, None) => {
                self.channel
                    .topology()
                    .pdr(e.src, node)
                    .ok_or(RxOutcome::Faded)?
                    * self.channel_pdr.get(usize::from(e.channel)).unwrap_or(&1.0)
            }
        };
        // The draw is a function of (receiver, emission, copy), not of how
        // many frames the receiver judged before: simulating fewer idle
        // wake-ups, or any other change in what is listened to, leaves the
        // fate of every frame unchanged.
        let draw = unit_interval(mix(self.channel_keys[node] ^ mix(emission ^ mix(copy))));
        if draw < pdr {
            Ok(())
        } else {
            Err(RxOutcome::Faded)
        }
    }

    /// Schedule reception checks at `node`, which has just started listening,
    /// for the next copy of every audible train still on the air.
    fn catch_trains(&mut self, node: NodeId, now: Time) {
        if self.trains == 0 {
            return;
        }
        let mut checks = std::mem::take(&mut self.to_catch);
        for &src in self.channel.topology().heard_by(node) {
            let Some(train) = self.radios[src].train else {
                continue;
            };
            if let Some(e) = self.channel.get(train) {
                let next = if now <= e.start {
                    0
                } else {
                    (now - e.start).div_ceil(e.period)
                };
                checks.push((train, next));
            }
        }
        for &(train, copy) in &checks {
            self.watch_copy(node, train, copy);
        }
        checks.clear();
        self.to_catch = checks;
    }

    /// After judging `copy` of a train at `node`: if the node still listens,
    /// the next copy is worth judging too.
    ///
    /// With [`World::skip_own_collisions`], a copy that `node`'s own strobe
    /// train collided with is followed by the first copy that train does
    /// not overlap: the copies between would each be judged collided (a
    /// listener's own transmission overlapping a copy is a collision,
    /// whatever else is on the air), and a lost copy of a train moves
    /// nothing in a MAC that does not emulate a Cooja mote's radio buffer.
    /// Two neighbours strobing at once overlap copy after copy: this was
    /// most of experiment 1's events at long check intervals. If the own
    /// train is cut before that copy, the copies it no longer overlaps are
    /// judged after all ([`World::resume_skipped`]).
    pub fn follow_train(&mut self, node: NodeId, emission: EmissionId, copy: u64, collided: bool) {
        if !self.skips.is_empty() {
            self.skips
                .retain(|s| !(s.node == node && s.emission == emission));
        }
        if self.radios[node].state != RadioState::Listen {
            return;
        }
        let own = self.radios[node].train.filter(|&t| t != emission);
        let (Some(own), true, true) = (own, collided, self.skip_own_collisions) else {
            return self.watch_copy(node, emission, copy + 1);
        };
        let next = self.first_copy_clear_of(emission, own, copy + 1);
        if next > copy + 1 {
            let count = self.channel.get(emission).map_or(0, |e| e.count);
            self.skips.push(Skip {
                node,
                emission,
                own,
                after: copy,
                next: (next < count).then_some(next),
            });
        }
        self.watch_copy(node, emission, next);
    }

    /// Is a copy of `own` (a hearer's own train) that went out on the air,
    /// on `e`'s channel, during copy `copy` of `e`? Then that copy is
    /// collided at the hearer, whatever else is on the air (its own
    /// transmission drowns it): the rule [`World::follow_train`] skips
    /// copies by, and the event census labels collisions by.
    pub fn train_overlaps_copy(&self, own: &Emission, e: &Emission, copy: u64) -> bool {
        if own.channel != e.channel {
            return false;
        }
        let a = e.copy_start(copy);
        self.channel.on_air_during(own, a, a + e.airtime)
    }

    /// The first copy of `emission`, from `from` on, that no copy of `own`
    /// (a train) overlaps on its channel.
    fn first_copy_clear_of(&self, emission: EmissionId, own: EmissionId, from: u64) -> u64 {
        let (Some(e), Some(o)) = (self.channel.get(emission), self.channel.get(own)) else {
            return from;
        };
        if o.channel != e.channel {
            return from;
        }
        let overlaps = |copy: u64| self.train_overlaps_copy(o, e, copy);
        if from >= e.count || !overlaps(from) {
            return from;
        }
        if o.period == e.period && self.channel.every_copy_goes_out() {
            // Same period: copy j meets the copies of `own` that copy
            // `from` meets, shifted by j − from, so once past the end of
            // `own` no later copy meets one: bisect for the first clear one.
            let (mut lo, mut hi) = (from, e.count); // lo overlaps; hi is clear or past the end
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if overlaps(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return hi;
        }
        let mut copy = from + 1;
        while copy < e.count && overlaps(copy) {
            copy += 1;
        }
        copy
    }

    /// `node` cut its own train `own` now: the copies of other trains
    /// skipped because `own` overlapped them ([`World::follow_train`]) and
    /// that it no longer overlaps are judged after all, from the first
    /// that ends after now; the check scheduled for the run's next copy
    /// is made void (the copies are followed one by one up to it again).
    fn resume_skipped(&mut self, node: NodeId, own: EmissionId, now: Time) {
        let mut i = 0;
        while i < self.skips.len() {
            let s = self.skips[i];
            if s.node != node || s.own != own {
                i += 1;
                continue;
            }
            let Some(e) = self.channel.get(s.emission) else {
                self.skips.swap_remove(i);
                continue;
            };
            // the first copy ending after now
            let ending_after = if now < e.start + e.airtime {
                0
            } else {
                (now - e.start - e.airtime) / e.period + 1
            };
            let from = (s.after + 1).max(ending_after);
            let clear = self.first_copy_clear_of(s.emission, own, from);
            let count = e.count;
            if clear >= s.next.unwrap_or(count) {
                i += 1;
                continue;
            }
            self.skips.swap_remove(i);
            if let Some(next) = s.next {
                self.void_checks.push((node, s.emission, next));
            }
            self.watched.insert((node, s.emission), clear);
            if self.radios[node].state == RadioState::Listen {
                self.watch_copy(node, s.emission, clear);
            }
        }
    }

    /// Was this reception check made void by [`World::resume_skipped`]?
    /// (Without forgetting it: the event census asks before it runs.)
    pub fn is_void_check(&self, node: NodeId, emission: EmissionId, copy: u64) -> bool {
        self.void_checks.contains(&(node, emission, copy))
    }

    /// Is this reception check one made void by [`World::resume_skipped`]?
    /// (Then it is dropped, and forgotten.)
    pub fn void_check(&mut self, node: NodeId, emission: EmissionId, copy: u64) -> bool {
        if self.void_checks.is_empty() {
            return false;
        }
        let key = (node, emission, copy);
        match self.void_checks.iter().position(|&v| v == key) {
            Some(i) => {
                self.void_checks.swap_remove(i);
                true
            }
            None => false,
        }
    }

    fn watch_copy(&mut self, node: NodeId, emission: EmissionId, copy: u64) {
        let Some(e) = self.channel.get(emission) else {
            return;
        };
        if e.count <= 1 || copy >= e.count {
            return;
        }
        let at = e.copy_start(copy) + e.airtime;
        let first_unwatched = self.watched.entry((node, emission)).or_insert(0);
        if copy >= *first_unwatched {
            *first_unwatched = copy + 1;
            self.queue.schedule(
                at,
                Event::RxEnd {
                    node,
                    emission,
                    copy,
                },
            );
        }
    }

    /// Forget bookkeeping of emissions that can no longer be heard.
    pub fn prune(&mut self, now: Time) {
        self.channel.prune(now);
        let channel = &self.channel;
        self.watched.retain(|(_, id), _| channel.get(*id).is_some());
        if !self.skips.is_empty() {
            self.skips
                .retain(|s| channel.get(s.emission).is_some() && channel.get(s.own).is_some());
        }
    }
}

/// One node's view of the world, handed to its protocol layers.
pub struct Cx<'a> {
    pub w: &'a mut World,
    pub node: NodeId,
}

impl Cx<'_> {
    pub fn now(&self) -> Time {
        self.w.now()
    }

    /// Whether `node` has not joined the network yet (a pledge).
    pub fn is_pledge(&self, node: NodeId) -> bool {
        self.w.pledges.get(node).copied().unwrap_or(false)
    }

    /// This node associated on the Enhanced Beacon of `source` (TSCH
    /// formation): its join proxy while it is a pledge.
    pub fn set_synced_on(&mut self, source: NodeId) {
        self.w.synced_on[self.node] = Some(source);
        self.w.associations += 1;
    }

    /// The neighbour this node last associated on (see [`World::synced_on`]).
    pub fn synced_on(&self) -> Option<NodeId> {
        self.w.synced_on[self.node]
    }

    pub fn radio(&self) -> RadioState {
        self.w.radios[self.node].state
    }

    pub fn topology(&self) -> &Topology {
        self.w.channel.topology()
    }

    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.w.mac_rng[self.node]
    }

    /// Where this node's slot boundaries now stand (see [`crate::clock::ClockLine`]).
    pub fn set_clock_line(&mut self, line: crate::clock::ClockLine) {
        self.w.clock_lines[self.node] = line;
    }

    /// `node`'s slot-boundary offset at true time `t`, in ns.
    pub fn clock_offset_ns(&self, node: NodeId, t: Time) -> i64 {
        self.w.clock_lines[node].offset_ns_at(t)
    }

    /// Turn the receiver on (listen) or the radio off.
    pub fn set_radio(&mut self, state: RadioState) {
        debug_assert!(state != RadioState::Tx, "use transmit()");
        let now = self.now();
        let r = &mut self.w.radios[self.node];
        if r.state == state {
            return;
        }
        r.energest.set_radio(now, state);
        r.state = state;
        if state == RadioState::Listen {
            r.listen_since = now;
            self.w.catch_trains(self.node, now);
        }
    }

    /// Put one frame on the air now. The radio is in TX until its end, then
    /// listens; the MAC hears of the end through `on_tx_end`.
    pub fn transmit(&mut self, frame: Vec<u8>) -> EmissionId {
        self.transmit_copies(frame, 0, 1)
    }

    /// Send `count` copies of `frame` every `period` µs (an X-MAC strobe
    /// train), listening between copies; cut it with [`Cx::end_train`].
    pub fn transmit_train(&mut self, frame: Vec<u8>, period: Time, count: u64) -> EmissionId {
        self.transmit_copies(frame, period, count)
    }

    fn transmit_copies(&mut self, frame: Vec<u8>, period: Time, count: u64) -> EmissionId {
        let now = self.now();
        let node = self.node;
        let frame: Rc<[u8]> = frame.into();
        let tuned = self.w.radios[node].channel;
        let id = self
            .w
            .channel
            .emit(node, now, frame.clone(), period, count, tuned);
        if let Some(sent) = &mut self.w.sent {
            let e = self.w.channel.get(id).expect("just emitted");
            sent.push(Sent {
                node,
                at: now,
                frame,
                emission: id,
                period: e.period,
                copies: count,
                ordinal: self.w.emissions_by_node[node],
                channel: tuned,
            });
        }
        let ordinal = self.w.emissions_by_node[node];
        self.w.emissions_by_node[node] += 1;
        if !self.w.jammed.is_empty() {
            self.w.emission_ordinal.insert(id, (node, ordinal));
        }
        let (end, first_end) = {
            let e = self.w.channel.get(id).expect("just emitted");
            let recent = &mut self.w.recent[node];
            recent[1] = recent[0].replace(Copies {
                id,
                start: e.start,
                airtime: e.airtime,
                period: e.period,
                count: e.count,
                order: None,
            });
            (e.end(), e.start + e.airtime)
        };
        let r = &mut self.w.radios[node];
        if count > 1 {
            // A train is accounted as listening; end_train moves its strobes to TX.
            r.energest.set_radio(now, RadioState::Listen);
            r.state = RadioState::Listen;
            r.listen_since = now;
            if r.train.replace(id).is_none() {
                self.w.trains += 1;
            }
        } else {
            r.energest.set_radio(now, RadioState::Tx);
            r.state = RadioState::Tx;
        }
        self.w
            .queue
            .schedule(end, Event::TxEnd { node, emission: id });
        if self.w.frame_wakers > 0 {
            // a Cooja mote hearing a frame begin or end runs then
            // (ContikiRadio.java `requestImmediateWakeup`): those that
            // asked re-plan their next run now it is on the air
            let hearers = self.w.channel.topology().hearers_slice(node);
            wake_asked(&mut self.w.wakes, hearers, &self.w.frame_wake);
        }
        // Who is listening now can receive the first copy (indexed: the
        // topology stays borrowed only for each lookup, nothing is collected).
        let hearers = self.w.channel.topology().hearers_slice(node).len();
        if count > 1 {
            let hearers = self.w.channel.topology().hearers_slice(node);
            wake_asked(&mut self.w.wakes, hearers, &self.w.train_wake);
        }
        for i in 0..hearers {
            let h = self.w.channel.topology().hearers_slice(node)[i];
            if self.w.radios[h].state == RadioState::Listen {
                if count > 1 {
                    self.w.watch_copy(h, id, 0);
                } else {
                    self.w.queue.schedule(
                        first_end,
                        Event::RxEnd {
                            node: h,
                            emission: id,
                            copy: 0,
                        },
                    );
                }
            }
        }
        id
    }

    /// Stop the train after `copies` copies; returns when its last copy ends.
    pub fn end_train(&mut self, id: EmissionId, copies: u64) -> Time {
        let now = self.now();
        self.w.channel.truncate(id, copies);
        if !self.w.skips.is_empty() {
            self.w.resume_skipped(self.node, id, now);
        }
        for c in self.w.recent[self.node].iter_mut().flatten() {
            if c.id == id {
                c.count = c.count.min(copies);
            }
        }
        let e = self.w.channel.get(id).expect("train on the air").clone();
        if let Some(sent) = &mut self.w.sent {
            if let Some(s) = sent.iter_mut().rev().find(|s| s.emission == id) {
                s.copies = e.count;
            }
        }
        let r = &mut self.w.radios[self.node];
        if r.train == Some(id) {
            r.train = None;
            self.w.trains -= 1;
            // flush listening time, then move the strobes' airtime to TX
            let state = r.state;
            r.energest.set_radio(now.max(e.end()), state);
            r.energest.reclassify_listen_as_tx(e.count * e.airtime);
        }
        e.end()
    }

    /// After TX the radio listens until the MAC says otherwise.
    pub(crate) fn tx_done(&mut self) {
        let now = self.now();
        let r = &mut self.w.radios[self.node];
        if r.state == RadioState::Tx {
            r.energest.set_radio(now, RadioState::Listen);
            r.state = RadioState::Listen;
            r.listen_since = now;
        }
    }

    /// Count `us` of off time as listening (a duty cycle's unsimulated windows).
    pub fn reclassify_off_as_listen(&mut self, us: u64) {
        let now = self.now();
        self.w.radios[self.node]
            .energest
            .reclassify_off_as_listen(now, us);
    }

    /// The sources whose frames end near this node: the nodes it hears
    /// (interference range included) and itself.
    fn near_sources(&self) -> impl Iterator<Item = NodeId> + '_ {
        let hears = self.w.channel.topology().heard_by(self.node);
        hears.iter().copied().chain(std::iter::once(self.node))
    }

    /// When the last frame heard at this node, or sent by it, ended at or
    /// before `t` (a frame in interference range counts, whether the radio
    /// was on or not; copies a train was cut before are not counted).
    pub fn last_frame_end_heard(&self, t: Time) -> Option<Time> {
        self.near_sources()
            .flat_map(|src| self.w.recent[src].iter().flatten())
            .filter_map(|c| c.last_end_by(t))
            .max()
    }

    /// The first end of a frame heard at this node, or sent by it, in
    /// `[a, b)` among the frames on the air by now.
    pub fn frame_end_heard_in(&self, a: Time, b: Time) -> Option<Time> {
        self.near_sources()
            .flat_map(|src| self.w.recent[src].iter().flatten())
            .filter_map(|c| c.first_end_in(a, b))
            .min()
    }

    /// The first time in `[a, b)` another node's frame starts within this
    /// node's range (a link it can receive on) or ends within its hearing
    /// (interference range included): when a Cooja mote's radio wakes it
    /// (ContikiRadio.java `signalReceptionStart` / `signalReceptionEnd`;
    /// beyond the transmitting range only the end, AbstractRadioMedium.java
    /// TRANSMISSION_FINISHED). Among the frames on the air by now.
    pub fn first_wake_in(&self, a: Time, b: Time) -> Option<Time> {
        self.first_wake(a, b, None)
    }

    /// [`Cx::first_wake_in`] for a Cooja mote that ran at `a` on its own
    /// 1 ms tick from its place `order`: a frame that starts at exactly `a`
    /// wakes it once more only if its sender ran after it at that instant
    /// (a wake-up requested while the mote is already due then is dropped:
    /// AbstractWakeupMote.java `scheduleNextWakeup`).
    pub fn first_wake_after_tick(&self, a: Time, b: Time, order: RunOrder) -> Option<Time> {
        self.first_wake(a, b, Some(order))
    }

    /// The two above: with the place `tick` of a run on the mote's own tick
    /// at `a`, a frame starting at `a` counts only if its sender ran after.
    ///
    /// Plain loops, not nested iterator adapters: a Cooja mote asks this
    /// at every 1 ms step of its strobe loop, and the adapters' overhead
    /// was 46 % of a Cooja X-MAC oracle run's CPU.
    fn first_wake(&self, a: Time, b: Time, tick: Option<RunOrder>) -> Option<Time> {
        let topology = self.w.channel.topology();
        let me = self.node;
        let mut first: Option<Time> = None;
        let mut keep = |t: Option<Time>| {
            if let Some(t) = t {
                if first.is_none_or(|f| t < f) {
                    first = Some(t);
                }
            }
        };
        for &src in topology.heard_by(me) {
            let in_range = topology.pdr(src, me).is_some_and(|p| p > 0.0);
            for c in self.w.recent[src].iter().flatten() {
                if in_range {
                    let after = tick.is_none_or(|order| c.order.is_none_or(|o| o > order));
                    let from = if after { a } else { a + 1 };
                    keep(c.first_start_in(from, b));
                }
                keep(c.first_end_in(a, b));
            }
        }
        first
    }

    /// Note where the run that put this node's last emission (or the copy
    /// of its train going out now) on the air stood ([`RunOrder`]).
    pub fn order_last_emission(&mut self, order: RunOrder) {
        if let Some(c) = &mut self.w.recent[self.node][0] {
            c.order = Some(order);
        }
    }

    /// When the last strobe train this node can hear ends, if one is on the air.
    pub fn audible_train_end(&self) -> Option<Time> {
        let now = self.now();
        self.w
            .channel
            .topology()
            .heard_by(self.node)
            .iter()
            .filter_map(|&src| self.w.radios[src].train)
            .filter_map(|t| self.w.channel.get(t))
            .map(|e| e.end())
            .filter(|&end| end > now)
            .max()
    }

    /// When the strobe train that started last among those this node can
    /// hear ends (the one that raised a [`wake_on_train`](Cx::wake_on_train)
    /// interrupt, when asked then).
    pub fn newest_train_end(&self) -> Option<Time> {
        self.w
            .channel
            .topology()
            .heard_by(self.node)
            .iter()
            .filter_map(|&src| self.w.radios[src].train)
            .filter_map(|t| self.w.channel.get(t).map(|e| (e.start, t, e.end())))
            .max_by_key(|&(start, id, _)| (start, id))
            .map(|(_, _, end)| end)
    }

    /// Fire the MAC timer `token` whenever a neighbour starts a strobe
    /// train (None: stop). A duty-cycled MAC that does not simulate its idle
    /// wake-ups one by one learns this way when one of them would find a
    /// train; the interrupt comes within the event that started the train.
    pub fn wake_on_train(&mut self, token: Option<crate::timer::Token>) {
        self.w.train_wake[self.node] = token;
    }

    /// Fire the MAC timer `token` whenever a node this one hears
    /// (interference range included) puts a frame on the air.
    pub fn wake_on_frame(&mut self, token: Option<crate::timer::Token>) {
        let before = std::mem::replace(&mut self.w.frame_wake[self.node], token);
        self.w.frame_wakers =
            self.w.frame_wakers + usize::from(token.is_some()) - usize::from(before.is_some());
    }

    /// Fire the MAC timer `token` whenever a neighbour calls
    /// [`wake_hearers`](Cx::wake_hearers) (None: stop). A slotted MAC that
    /// does not simulate its idle receive slots one by one learns this way
    /// that one of them would hear something.
    pub fn wake_on_neighbour_send(&mut self, token: Option<crate::timer::Token>) {
        self.w.send_wake[self.node] = token;
    }

    /// Tell every node that hears this one and asked for it
    /// ([`wake_on_neighbour_send`](Cx::wake_on_neighbour_send)) that this
    /// node is about to send on `channel`; the interrupts come within the
    /// current event.
    pub fn wake_hearers(&mut self, channel: u8) {
        let (topology, wake) = (self.w.channel.topology(), &self.w.send_wake);
        self.w.wakes.extend(
            topology
                .hearers_slice(self.node)
                .iter()
                .filter_map(|&h| wake[h].map(|t| (h, t, Some(channel)))),
        );
    }

    /// In the handler of an interrupt from [`wake_hearers`](Cx::wake_hearers):
    /// the channel the neighbour is about to send on.
    pub fn waking_channel(&self) -> Option<u8> {
        self.w.waking_channel
    }

    /// Energy detection over the last `window` µs (CCA) on the tuned channel.
    pub fn channel_busy(&self, window: Time) -> bool {
        let now = self.now();
        let tuned = self.w.radios[self.node].channel;
        self.w
            .channel
            .busy(self.node, now.saturating_sub(window), now.max(1), tuned)
    }

    /// A frame the radio could be synchronising on, on the air during the
    /// last `window` µs on the tuned channel ([`Channel::frame_on_air`]):
    /// a receiver's reason to keep listening, which energy detection is
    /// not under a signal medium (a decodable frame below the CCA
    /// threshold).
    pub fn frame_on_air(&self, window: Time) -> bool {
        let now = self.now();
        let tuned = self.w.radios[self.node].channel;
        self.w
            .channel
            .frame_on_air(self.node, now.saturating_sub(window), now.max(1), tuned)
    }

    /// cooja-radio.c `radio_send`'s CCA (WITH_SEND_CCA) on a Cooja mote:
    /// is the channel busy now, by the medium's rule, with its own
    /// emission left out ([`Channel::busy_before_sending`])?
    /// Then the radio sends nothing and returns RADIO_TX_COLLISION, which
    /// cxmac ignores.
    pub fn cooja_cca_busy(&self) -> bool {
        let tuned = self.w.radios[self.node].channel;
        self.w
            .channel
            .busy_before_sending(self.node, self.now(), tuned)
    }

    /// Tune the radio to `channel`; a receiver that retunes starts listening anew.
    pub fn tune(&mut self, channel: u8) {
        let now = self.now();
        let r = &mut self.w.radios[self.node];
        if r.channel != channel {
            r.channel = channel;
            r.listen_since = now;
        }
    }

    /// Queue a timer event of `layer` (its [`TimerTable`](crate::timer::TimerTable) made `token`).
    pub fn set_timer(&mut self, at: Time, layer: Layer, token: crate::timer::Token) {
        let node = self.node;
        self.w
            .queue
            .schedule(at, Event::Timer { node, layer, token });
    }

    /// Pass the payload of a received `frame_len`-byte frame up to this
    /// node's network layer, once the CPU has read and handled it (charged
    /// as CPU time; the draw also keeps nodes from running in lockstep).
    pub fn deliver(&mut self, from: NodeId, frame_len: usize, payload: Vec<u8>) {
        self.deliver_after(0, from, frame_len, payload);
    }

    /// [`Cx::deliver`] after `extra_us` of work already charged (unsecuring).
    pub fn deliver_after(
        &mut self,
        extra_us: Time,
        from: NodeId,
        frame_len: usize,
        payload: Vec<u8>,
    ) {
        use rand::RngExt;
        let node = self.node;
        let p = self.w.processing;
        let spread: f64 = self.w.cpu_rng[node].random_range(0.5..1.5);
        let cpu = (p.frame_us * spread).round() as Time;
        let bus = (p.bus_us_per_byte * frame_len as f64).round() as Time;
        self.charge_cpu(cpu + bus);
        let at = self.now() + cpu + bus + extra_us;
        self.w.queue.schedule(
            at,
            Event::Deliver {
                node,
                from,
                payload,
            },
        );
    }

    /// CPU work (crypto, frame handling) at the platform's cost.
    pub fn charge_cpu(&mut self, us: u64) {
        self.w.radios[self.node].energest.charge_cpu(us);
    }
}

/// A MAC's timers go to the engine's queue through its [`Cx`].
impl crate::timer::Schedule for Cx<'_> {
    fn schedule(&mut self, at: Time, token: crate::timer::Token) {
        self.set_timer(at, Layer::Mac, token);
    }

    fn schedule_via_hops(
        &mut self,
        first: Time,
        hops: crate::queue::Hops,
        token: crate::timer::Token,
    ) {
        let node = self.node;
        let event = Event::Timer {
            node,
            layer: Layer::Mac,
            token,
        };
        self.w.queue.schedule_via_hops(first, hops, event);
    }
}

/// Queue a wake-up for each of `hearers` that asked for one (`asked`: its
/// timer token, per node) when a transmission it hears goes on the air.
fn wake_asked(
    wakes: &mut Vec<(NodeId, crate::timer::Token, Option<u8>)>,
    hearers: &[NodeId],
    asked: &[Option<crate::timer::Token>],
) {
    wakes.extend(
        hearers
            .iter()
            .filter_map(|&h| asked[h].map(|t| (h, t, None))),
    );
}
