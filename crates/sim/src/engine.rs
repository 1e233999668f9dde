//! The event loop: pops events in (time, sequence) order and hands each to
//! the layer it belongs to, then passes what that layer produced up or down
//! the stack of the node concerned.
//!
//! What the applications report (`R`, [`crate::app::record::Record`] in a
//! scenario's run) the engine only keeps, for the workload to read.

use crate::census::Census;
use crate::channel::EmissionId;
use crate::mac::{Mac, NodeMac};
use crate::net::{Net, NetInput, Udp};
use crate::node::app::{App, AppCx, Recorder};
use crate::rpl::router::{LinkMessage, RplRouter};
use crate::trace::{RxOutcome, TraceEvent};
use crate::world::{Event, Layer, Received, World};
use crate::{NodeId, Time};

/// The longest frame the census counts as short (bytes, FCS included):
/// an X-MAC strobe or strobe ACK is at most 25 (`Xmac::strobe`: a 2-byte
/// payload after a header naming both ends by 8-byte addresses, 21 bytes
/// as 2 + 1 + 2 + 8 + 8, and a 2-byte FCS; IEEE 802.15.4-2015 §7.2), an
/// immediate ACK 5 (`frame::ack_frame`); the test below builds both. A
/// handshake's data frames are longer (MAC, 6LoWPAN and UDP headers before
/// a DTLS record's 13-byte header). 30 sits between: an estimate, no
/// standard gives it.
const SHORT_FRAME_MAX_BYTES: usize = 30;

/// How long a datagram takes over the backbone between two border routers
/// (µs): estimate, no source gives it for this network. A switched
/// Ethernet LAN forwards a frame in well under a millisecond (a 1 500-byte
/// frame at 100 Mbit/s takes 120 µs to serialise; the storm's datagrams
/// are a tenth of that); 250 µs covers a switch and two hosts' stacks and
/// stays far below a 10 ms TSCH timeslot, so no result hangs on it.
pub const BACKBONE_DELAY_US: Time = 250;

/// One node's protocol stack.
pub struct Stack<R> {
    pub mac: NodeMac,
    pub net: Net,
    pub app: Box<dyn App<R>>,
}

pub struct Sim<R> {
    pub world: World,
    pub stacks: Vec<Stack<R>>,
    /// UDP datagrams applications asked to send, not yet handed to the network layer.
    outbox: Vec<Udp>,
    /// What the applications reported, for the workload to read.
    pub recorder: Recorder<R>,
    events: u64,
    /// Events by kind, when counted ([`crate::census`]).
    pub census: Option<Census>,
    /// RPL as the network's router (None: the computed routes).
    pub router: Option<RplRouter>,
    /// Datagrams handed from one border router to another over the
    /// backbone (never lost: a wired LAN, not the radio).
    pub backbone_datagrams: u64,
    /// Per node: when it powers on (empty: every node at [`Sim::start`]).
    power_on_at: Vec<Time>,
    /// Per node: whether it is powered on (empty until [`Sim::start`]).
    powered: Vec<bool>,
    /// Per node: released ([`Sim::release_app`]) before it was powered on,
    /// so its application is let go as it starts.
    release_at_power_on: Vec<bool>,
}

impl<R> Sim<R> {
    pub fn new(world: World, stacks: Vec<Stack<R>>) -> Self {
        assert_eq!(world.nodes(), stacks.len(), "one stack per node");
        Sim {
            world,
            stacks,
            outbox: Vec::new(),
            recorder: Recorder::default(),
            events: 0,
            census: None,
            router: None,
            backbone_datagrams: 0,
            power_on_at: Vec::new(),
            powered: Vec::new(),
            release_at_power_on: Vec::new(),
        }
    }

    /// Power each node on at its time in `at` (µs, one per node) instead
    /// of all at [`Sim::start`]; call before it.
    pub fn power_on_at(&mut self, at: Vec<Time>) {
        assert_eq!(at.len(), self.stacks.len(), "one power-on time per node");
        self.power_on_at = at;
    }

    /// Whether `node` is powered on (before [`Sim::start`]: every node).
    pub fn is_powered(&self, node: NodeId) -> bool {
        self.powered.get(node).copied().unwrap_or(true)
    }

    /// Route by RPL instead of the computed routes: its frames go through
    /// the nodes' MACs (TSCH), which report each unicast frame's fate.
    /// The root starts RPL at [`Sim::start`], another node once joined
    /// ([`Sim::set_joined`]).
    /// Under MSF, each node's MSF follows RPL's preferred parent from the
    /// first one RPL names (before that, the parent it was built with).
    pub fn route_by_rpl(&mut self, mut router: RplRouter) {
        let mut msf_parents = Vec::new();
        for s in &mut self.stacks {
            match &mut s.mac {
                NodeMac::Tsch(t) => {
                    t.carry_routing();
                    msf_parents.push(t.msf_parent());
                }
                _ => msf_parents.push(None),
            }
        }
        if msf_parents.iter().any(Option::is_some) {
            router = router.with_msf(msf_parents.into_iter().map(Option::flatten).collect());
        }
        self.router = Some(router);
    }

    pub fn now(&self) -> Time {
        self.world.now()
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Start every MAC, then every application, of the nodes on from now;
    /// each other node powers on at its time ([`Sim::power_on_at`]).
    pub fn start(&mut self) {
        let now = self.now();
        let n = self.stacks.len();
        let on_now = |at: &[Time], node: NodeId| at.get(node).is_none_or(|&t| t <= now);
        self.powered = (0..n).map(|node| on_now(&self.power_on_at, node)).collect();
        self.release_at_power_on = vec![false; n];
        for node in 0..n {
            if self.powered[node] {
                self.stacks[node].mac.start(&mut self.world.cx(node));
            }
        }
        if let Some(root) = self.router.as_ref().map(|r| r.root) {
            self.rpl_start(root);
        }
        for node in 0..n {
            if self.powered[node] {
                let mut cx = AppCx::new(self.world.cx(node), &mut self.outbox, &mut self.recorder);
                self.stacks[node].app.start(&mut cx);
            } else {
                let at = self.power_on_at[node];
                // its meter reads nothing until then
                self.world.power_on_at(node, at);
                self.world.queue.schedule(at, Event::PowerOn { node });
            }
        }
        self.flush();
    }

    /// `node` powers on: its energy meter from now, its MAC (formation:
    /// its scan) and its application start; an application released
    /// before is let go at once.
    fn power_on(&mut self, node: NodeId) {
        self.powered[node] = true;
        let now = self.now();
        self.world.power_on_at(node, now);
        self.stacks[node].mac.start(&mut self.world.cx(node));
        let mut cx = AppCx::new(self.world.cx(node), &mut self.outbox, &mut self.recorder);
        self.stacks[node].app.start(&mut cx);
        if self.release_at_power_on[node] {
            self.stacks[node].app.release(&mut cx);
        }
    }

    /// Run until `done` says so, the queue empties, or virtual time passes
    /// `until` (the clock then reads `until`: a MAC that skips its idle
    /// slots leaves no event to carry it there).
    pub fn run(&mut self, until: Time, mut done: impl FnMut(&Sim<R>) -> bool) {
        while !done(self) {
            match self.world.queue.peek_time() {
                Some(t) if t <= until => {}
                Some(_) => {
                    self.world.queue.advance_to(until);
                    break;
                }
                None => break,
            }
            let (_, event) = self.world.queue.pop().expect("peeked");
            self.events += 1;
            if self.census.is_some() {
                self.count(&event);
            }
            self.dispatch(event);
            // often: every interference check scans what is still on the air
            if self.events.is_multiple_of(64) {
                let now = self.now();
                self.world.prune(now);
            }
        }
    }

    /// Count `event` in the census, by what it will do: a copy's outcome
    /// at its hearer (short frames, strobes and strobe ACKs, apart), a
    /// timer by its kind and whether it is stale.
    fn count(&mut self, event: &Event) {
        let label = match *event {
            Event::RxEnd {
                node,
                emission,
                copy,
            } => {
                let short = self
                    .world
                    .channel
                    .get(emission)
                    .is_some_and(|e| e.frame.len() <= SHORT_FRAME_MAX_BYTES);
                let void = self.world.is_void_check(node, emission, copy);
                let outcome = match self.world.peek_outcome(node, emission, copy) {
                    _ if void => "void (hearer's own train cut)",
                    Ok(()) => "received",
                    Err(RxOutcome::Collided) if self.world.train_of(node).is_some() => {
                        let own = self
                            .world
                            .train_of(node)
                            .and_then(|t| self.world.channel.get(t));
                        let e = self.world.channel.get(emission);
                        let by_own = match (own, e) {
                            (Some(o), Some(e)) => self.world.train_overlaps_copy(o, e, copy),
                            _ => false,
                        };
                        if by_own {
                            "collided (by the hearer's own train)"
                        } else {
                            "collided (hearer strobing, by another)"
                        }
                    }
                    Err(why) => why.name(),
                };
                let what = if short { "short" } else { "long" };
                format!("phy rx {what} {outcome}")
            }
            Event::TxEnd { emission, .. } => {
                let now = self.now();
                let current = self
                    .world
                    .channel
                    .get(emission)
                    .is_some_and(|e| e.end() == now);
                if current {
                    "phy tx-end"
                } else {
                    "phy tx-end stale"
                }
                .to_owned()
            }
            Event::Deliver { .. } => "net deliver".to_owned(),
            Event::PowerOn { .. } => "power on".to_owned(),
            Event::Timer {
                node,
                layer: Layer::Mac,
                token,
            } => {
                let (kind, stale) = self.stacks[node].mac.describe_timer(token);
                let stale = if stale { " stale" } else { "" };
                format!("mac {kind}{stale}")
            }
            Event::Timer {
                layer: Layer::App, ..
            } => "app timer".to_owned(),
            Event::Timer {
                layer: Layer::Routing,
                ..
            } => "routing timer".to_owned(),
        };
        if let Some(c) = &mut self.census {
            c.count(&label);
        }
    }

    fn dispatch(&mut self, event: Event) {
        let node = match &event {
            Event::RxEnd { node, .. }
            | Event::TxEnd { node, .. }
            | Event::Deliver { node, .. }
            | Event::Timer { node, .. }
            | Event::PowerOn { node } => *node,
        };
        self.dispatch_to_layers(event);
        if self.router.is_some() {
            self.rpl_tx_results(node);
        }
        self.flush();
    }

    fn dispatch_to_layers(&mut self, event: Event) {
        match event {
            Event::RxEnd {
                node,
                emission,
                copy,
            } => {
                if self.world.void_check(node, emission, copy) {
                    return;
                }
                let rx = self.world.judge_outcome(node, emission, copy);
                if self.world.trace.is_some() {
                    self.trace_rx(node, emission, copy, &rx);
                }
                let collided = matches!(rx, Err(RxOutcome::Collided));
                self.world.follow_train(node, emission, copy, collided);
                match rx {
                    Ok(rx) => self.stacks[node].mac.on_frame(&mut self.world.cx(node), rx),
                    Err(RxOutcome::Collided | RxOutcome::Faded | RxOutcome::Jammed) => self.stacks
                        [node]
                        .mac
                        .on_frame_lost(&mut self.world.cx(node)),
                    Err(_) => {}
                }
            }
            Event::TxEnd { node, emission } => {
                let now = self.now();
                // a train cut short ends earlier than this event was planned for
                let ended_now = self
                    .world
                    .channel
                    .get(emission)
                    .is_some_and(|e| e.end() == now);
                if ended_now {
                    let mut cx = self.world.cx(node);
                    cx.tx_done();
                    self.stacks[node].mac.on_tx_end(&mut cx, emission);
                }
            }
            Event::Deliver {
                node,
                from,
                payload,
            } => {
                self.trace_event(
                    node,
                    "net",
                    "deliver",
                    Some(payload.len() as u64),
                    Some(from),
                );
                self.net_input(node, from, payload)
            }
            Event::Timer { node, layer, token } => {
                let name = match layer {
                    Layer::Mac => "mac",
                    Layer::App => "app",
                    Layer::Routing => "rpl",
                };
                self.trace_event(node, name, "timer", None, None);
                self.timer(node, layer, token)
            }
            Event::PowerOn { node } => {
                self.trace_event(node, "node", "power_on", None, None);
                self.power_on(node)
            }
        }
    }

    fn timer(&mut self, node: NodeId, layer: Layer, token: crate::timer::Token) {
        match layer {
            Layer::Mac => self.stacks[node]
                .mac
                .on_timer(&mut self.world.cx(node), token),
            Layer::App => {
                let mut cx = AppCx::new(self.world.cx(node), &mut self.outbox, &mut self.recorder);
                self.stacks[node].app.on_timer(&mut cx, token);
            }
            Layer::Routing => {
                let now = self.now();
                if let Some(r) = self.router.as_mut() {
                    let msgs = r.on_timer(node, now);
                    self.rpl_send(node, msgs);
                }
            }
        }
    }

    /// `node` starts RPL (the root at start, another once joined).
    fn rpl_start(&mut self, node: NodeId) {
        let now = self.now();
        if let Some(r) = self.router.as_mut() {
            r.start(node, now);
            self.rpl_send(node, Vec::new());
        }
    }

    /// The MAC's reports of `node`'s unicast frames, to its RPL.
    fn rpl_tx_results(&mut self, node: NodeId) {
        let NodeMac::Tsch(t) = &mut self.stacks[node].mac else {
            return;
        };
        let results = t.take_tx_results();
        let changes = t.take_network_changes();
        let now = self.now();
        if changes.left {
            // tsch-rpl.c `tsch_rpl_callback_leaving_network`
            if let Some(r) = self.router.as_mut() {
                // its No-Path DAO is not put on the link: a MAC not
                // associated drops what it is given (tsch.c `send_packet`)
                let _ = r.local_repair(node, now);
                self.rpl_send(node, Vec::new());
            }
        }
        if changes.rejoined {
            // synchronised again, on an EB sender: the time source is RPL's
            // parent again if RPL already has one (else its next parent
            // switch sets it, tsch-rpl.c `tsch_rpl_callback_parent_switch`)
            let parent = self.router.as_ref().and_then(|r| r.nodes[node].parent());
            if let (Some(p), NodeMac::Tsch(t)) = (parent, &mut self.stacks[node].mac) {
                t.set_time_source(p);
            }
        }
        for res in results {
            if let Some(r) = self.router.as_mut() {
                let msgs = r.on_tx_result(node, res.to, res.acked, res.numtx, now);
                self.rpl_send(node, msgs);
            }
        }
        if let NodeMac::Tsch(t) = &mut self.stacks[node].mac {
            t.msf_on_demand(&mut self.world.cx(node));
        }
    }

    /// Put `node`'s RPL messages on its links, let its MAC's time source
    /// follow its preferred parent, and arm its RPL timer.
    fn rpl_send(&mut self, node: NodeId, msgs: Vec<LinkMessage>) {
        let max = self.stacks[node].mac.max_payload();
        for m in msgs {
            let stack = &mut self.stacks[node];
            let payloads = stack.net.send_icmp(node, m.next_hop, max, m.addrs, &m.icmp);
            if !stack.net.admit(payloads.len(), stack.mac.free_frames()) {
                continue;
            }
            for p in payloads {
                self.stacks[node]
                    .mac
                    .send(&mut self.world.cx(node), m.next_hop, p);
            }
        }
        let Some(r) = self.router.as_mut() else {
            return;
        };
        if let Some(parent) = r.parent_change(node) {
            if let NodeMac::Tsch(t) = &mut self.stacks[node].mac {
                t.set_time_source(parent);
            }
        }
        if let Some(in_dodag) = r.in_dodag_change(node) {
            self.stacks[node]
                .mac
                .set_joined(&mut self.world.cx(node), in_dodag);
        }
        if let Some(cells) = r.cells_change(node, self.world.now()) {
            if let NodeMac::Tsch(t) = &mut self.stacks[node].mac {
                t.replace_cells(&mut self.world.cx(node), cells);
            }
        }
        if let Some(parent) = r.msf_parent_change(node) {
            if let NodeMac::Tsch(t) = &mut self.stacks[node].mac {
                t.msf_switch_parent(&mut self.world.cx(node), parent);
            }
        }
        if let Some(at) = r.rearm(node, self.world.now()) {
            self.world
                .cx(node)
                .set_timer(at, Layer::Routing, crate::timer::Token::untracked());
        }
    }

    /// A reception judged, to the trace.
    fn trace_rx(
        &mut self,
        node: NodeId,
        emission: EmissionId,
        copy: u64,
        rx: &Result<Received, RxOutcome>,
    ) {
        let at = self.now();
        let e = self.world.channel.get(emission);
        let (bytes, peer) = (e.map(|e| e.frame.len() as u64), e.map(|e| e.src));
        let outcome = match rx {
            Ok(_) => RxOutcome::Received,
            Err(why) => *why,
        };
        if let Some(t) = &mut self.world.trace {
            t.push(TraceEvent {
                at,
                node,
                layer: "phy",
                kind: "rx",
                emission: Some(emission),
                copy: Some(copy),
                bytes,
                peer,
                outcome: outcome.name(),
                ..TraceEvent::default()
            });
        }
    }

    /// Any other event, to the trace (when one is kept).
    fn trace_event(
        &mut self,
        node: NodeId,
        layer: &'static str,
        kind: &'static str,
        bytes: Option<u64>,
        peer: Option<NodeId>,
    ) {
        let at = self.now();
        if let Some(t) = &mut self.world.trace {
            t.push(TraceEvent {
                at,
                node,
                layer,
                kind,
                emission: None,
                copy: None,
                bytes,
                peer,
                ..TraceEvent::default()
            });
        }
    }

    /// Pass application datagrams down and raise the interrupts nodes
    /// asked for, until nothing moves.
    fn flush(&mut self) {
        loop {
            // the lists are taken while their handlers may add to them, and
            // given back emptied so their allocations serve the next event
            if !self.world.wakes.is_empty() {
                let mut wakes = std::mem::take(&mut self.world.wakes);
                for &(node, token, channel) in &wakes {
                    self.world.waking_channel = channel;
                    self.stacks[node]
                        .mac
                        .on_timer(&mut self.world.cx(node), token);
                }
                self.world.waking_channel = None;
                wakes.clear();
                if self.world.wakes.is_empty() {
                    self.world.wakes = wakes;
                }
            } else if !self.outbox.is_empty() {
                let mut out = std::mem::take(&mut self.outbox);
                for udp in out.drain(..) {
                    self.net_output(udp.src, udp);
                }
                if self.outbox.is_empty() {
                    self.outbox = out;
                }
            } else {
                break;
            }
        }
    }

    /// Let `node`'s application begin if it was held back ([`App::release`]).
    /// A node not powered on yet is let go as it powers on.
    pub fn release_app(&mut self, node: NodeId) {
        if !self.is_powered(node) {
            self.release_at_power_on[node] = true;
            return;
        }
        let mut cx = AppCx::new(self.world.cx(node), &mut self.outbox, &mut self.recorder);
        self.stacks[node].app.release(&mut cx);
        self.flush();
    }

    /// Tell `node`'s MAC whether it has joined the network (with TSCH
    /// formation it sends Enhanced Beacons only once joined; routed by
    /// RPL, only once RPL has a parent too: [`RplRouter::in_dodag_change`],
    /// told as it changes).
    pub fn set_joined(&mut self, node: NodeId, joined: bool) {
        self.world.set_pledge(node, !joined);
        let beacons = joined && self.router.as_ref().is_none_or(|r| r.in_dodag(node));
        self.stacks[node]
            .mac
            .set_joined(&mut self.world.cx(node), beacons);
        if joined && self.router.is_some() {
            self.rpl_start(node);
            self.flush();
        }
    }

    /// The run ends: every application records what is still under way
    /// (as failed for `why`).
    pub fn end_apps(&mut self, why: &str) {
        for node in 0..self.stacks.len() {
            if !self.is_powered(node) {
                continue; // never started: nothing under way
            }
            let mut cx = AppCx::new(self.world.cx(node), &mut self.outbox, &mut self.recorder);
            self.stacks[node].app.on_run_end(&mut cx, why);
        }
        self.flush();
    }

    /// Bring every node's energy meter up to now.
    pub fn settle_energy(&mut self) {
        for node in 0..self.stacks.len() {
            if !self.is_powered(node) {
                continue; // off: its meter counts nothing yet
            }
            self.stacks[node]
                .mac
                .settle_energy(&mut self.world.cx(node));
        }
    }

    fn net_input(&mut self, node: NodeId, from: NodeId, payload: Vec<u8>) {
        let now = self.now();
        let input = self.stacks[node].net.receive(now, from, &payload);
        match input {
            NetInput::Nothing => {}
            NetInput::Deliver(udp) => {
                let mut cx = AppCx::new(self.world.cx(node), &mut self.outbox, &mut self.recorder);
                self.stacks[node].app.on_udp(&mut cx, udp);
            }
            NetInput::Forward(udp) => self.net_output(node, udp),
            NetInput::Icmp(icmp) => {
                if let Some(r) = self.router.as_mut() {
                    let msgs = r.on_icmp(node, from, &icmp, now);
                    self.rpl_send(node, msgs);
                }
            }
        }
    }

    /// Send `udp` from `node` (its source, or a forwarder on the route).
    fn net_output(&mut self, node: NodeId, udp: Udp) {
        let next_hop = match self.router.as_mut() {
            // a link-local destination is a neighbour, reached directly
            _ if udp.link_local => Some(udp.dst),
            None => self.world.channel.topology().next_hop(node, udp.dst),
            Some(r) => {
                let now = self.world.now();
                let synced_on = self.world.synced_on(node);
                r.next_hop(
                    node,
                    udp.src,
                    udp.dst,
                    now,
                    self.world.channel.topology(),
                    synced_on,
                )
            }
        };
        let Some(next_hop) = next_hop else {
            self.stacks[node].net.count_unroutable();
            return;
        };
        if self.world.channel.topology().over_backbone(node, next_hop) {
            self.backbone_send(node, next_hop, &udp);
            return;
        }
        let max = self.stacks[node].mac.max_payload();
        let payloads = self.stacks[node].net.send(node, next_hop, max, &udp);
        let stack = &mut self.stacks[node];
        if !stack.net.admit(payloads.len(), stack.mac.free_frames()) {
            return;
        }
        for p in payloads {
            self.stacks[node]
                .mac
                .send(&mut self.world.cx(node), next_hop, p);
        }
    }

    /// Hand `udp` from border router `node` to border router `to` over the
    /// backbone: one whole datagram, no radio, arriving at `to`'s network
    /// layer [`BACKBONE_DELAY_US`] later, which takes it on from there.
    fn backbone_send(&mut self, node: NodeId, to: NodeId, udp: &Udp) {
        let Some(payload) = self.stacks[node].net.backbone_payload(node, to, udp) else {
            return;
        };
        self.backbone_datagrams += 1;
        let at = self.now() + BACKBONE_DELAY_US;
        let deliver = Event::Deliver {
            node: to,
            from: node,
            payload,
        };
        self.world.queue.schedule(at, deliver);
    }
}

#[cfg(test)]
mod tests {
    use super::SHORT_FRAME_MAX_BYTES;
    use crate::mac::address::LinkAddressing;
    use crate::mac::frame::{ack_frame, addressed_frame};

    #[test]
    fn strobes_and_acks_are_short_frames_by_the_census() {
        // an X-MAC strobe (a 2-byte payload: dispatch, kind) with both
        // ends named by 8-byte addresses, its longest form
        let strobe = addressed_frame(LinkAddressing::Extended, 1, 0, 1, vec![0x01, 0x00]);
        assert_eq!(strobe.len(), 25);
        assert_eq!(ack_frame(1, false).len(), 5);
        assert!(strobe.len() <= SHORT_FRAME_MAX_BYTES);
    }
}
