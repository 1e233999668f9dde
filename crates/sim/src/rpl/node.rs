//! One node's RPL in storing mode (RFC 6550 §9), sans-IO: it takes the
//! ICMPv6 RPL messages heard and the fate of its unicast frames, and gives
//! the messages to send (real bytes, `wpan::rpl`), its preferred parent,
//! its Rank and its next hop to a destination.
//!
//! What it does, with the rule each follows (Contiki-NG 4.9's storing-mode
//! RPL, os/net/routing/rpl-classic, where RFC 6550 leaves a choice):
//! - **DIO** (§6.3, §8.3): multicast to all RPL nodes (ff02::1a) on the
//!   Trickle timer ([`super::trickle`]) with Imin 2^12 ms = 4.096 s, 8
//!   doublings, k = 10 (rpl-conf.h `RPL_DIO_INTERVAL_MIN`,
//!   `RPL_DIO_INTERVAL_DOUBLINGS`, `RPL_DIO_REDUNDANCY`), always with the
//!   DODAG Configuration option (rpl-icmp6.c `dio_output`: "Always add a
//!   DAG configuration option"). A DIO heard from a neighbour whose Rank
//!   has not changed is consistent (rpl-dag.c `rpl_process_dio`:
//!   `dio_counter++`); the timer is reset (RFC 6206 §4.2 rule 6) when the
//!   preferred parent changes or advertises an infinite Rank, and when the
//!   node joins or loses the DODAG.
//! - **Rank and parent** (§8.2, RFC 6719): MRHOF over the neighbours heard
//!   in DIOs with the link ETX of [`super::link_stats`], Contiki-NG's
//!   constants ([`MrhofConfig::CONTIKI_NG`]); a candidate whose Rank
//!   through it would exceed the lowest Rank the node has had plus
//!   MaxRankIncrease is refused (§8.2.2.4; rpl-dag.c `acceptable_rank`).
//!   The choice is made again after every DIO and every unicast frame's
//!   fate, so a parent whose link degrades past the hysteresis is left.
//! - **DAO** (§6.4, §9): the node's own address as a Target with a
//!   Transit Information option of lifetime `RPL_DEFAULT_LIFETIME` 30 units
//!   of `RPL_DEFAULT_LIFETIME_UNIT` 60 s, unicast to the preferred parent
//!   `RPL_DAO_DELAY` 4 s (uniform in [2, 6) s, rpl-timers.c
//!   `schedule_dao`) after the parent changes or asks (a DTSN increase
//!   heard from it), and again between 1/2 and 3/4 of the lifetime
//!   (`set_dao_lifetime_timer`). A relay stores the route (target via the
//!   child) and forwards the DAO to its own preferred parent at once; a
//!   DAO from the preferred parent itself is a loop and dropped
//!   (rpl-icmp6.c `dao_input_storing`). On a parent change a No-Path DAO
//!   (lifetime 0) goes to the old parent (rpl-dag.c `rpl_select_dag`), and
//!   the node increments its DTSN so its children send DAOs again (§9.6).
//!   The root increments its DTSN with every DIO (rpl-conf.h
//!   `RPL_DIO_REFRESH_DAO_ROUTES` 1), so every node re-registers once per
//!   DIO of the root. DAO-ACKs are neither asked for nor sent
//!   (`RPL_WITH_DAO_ACK` 0 in rpl-classic); one heard is counted.
//! - a message that does not parse, or names a target that is no node of
//!   the network, is counted in `malformed` and changes nothing.
//!
//! - DIS (rpl-timers.c `handle_periodic_timer`, rpl-icmp6.c `dis_input`):
//!   a node without a Rank sends a multicast DIS every `RPL_DIS_INTERVAL`;
//!   a node with one that hears it restarts its DIO timer at Imin.
//!
//! Not modelled: a unicast DIS (answered by a unicast DIO), global
//! repair (one DODAG version), the Prefix Information option (the
//! simulator's addresses are configured beforehand), route-lifetime
//! expiry of the default route.

use std::collections::BTreeMap;
use std::net::Ipv6Addr;

use wpan::rpl::{self as wire, DodagConfig, RplOption};

use super::link_stats::LinkStats;
use super::mrhof::{self, MrhofConfig, Neighbour, INFINITE_RANK};
use super::trickle::{Trickle, TrickleConfig, TrickleFired};
use crate::mac::address::LinkAddressing;
use crate::rng::UniformBelow;
use crate::{NodeId, Time};

/// The parameters of a node's RPL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RplParams {
    /// the DIO Trickle timer
    pub trickle: TrickleConfig,
    /// the objective function
    pub mrhof: MrhofConfig,
    /// RPLInstanceID (rpl-conf.h `RPL_DEFAULT_INSTANCE` 0x1e)
    pub instance_id: u8,
    /// mean DAO delay, drawn uniform in [d/2, 3d/2) (`RPL_DAO_DELAY`)
    pub dao_delay_us: Time,
    /// route lifetime in units (`RPL_DEFAULT_LIFETIME`)
    pub default_lifetime: u8,
    /// the lifetime unit in s (`RPL_DEFAULT_LIFETIME_UNIT`)
    pub lifetime_unit_s: u16,
    /// mean interval between link probes, drawn uniform in [p/2, 3p/2)
    /// (`RPL_PROBING_INTERVAL`, `get_probing_delay`); 0: no probing
    pub probing_interval_us: Time,
    /// a node without a Rank sends a multicast DIS this often
    /// (`RPL_DIS_INTERVAL` 60 s, `RPL_DIS_SEND` 1 in rpl-private.h); its
    /// first after [`RplParams::dis_start_delay_us`] less a draw (below); 0:
    /// no DIS
    pub dis_interval_us: Time,
    /// `RPL_DIS_START_DELAY` (5 s)
    pub dis_start_delay_us: Time,
}

impl RplParams {
    /// Contiki-NG 4.9 rpl-classic's defaults (module comment).
    pub const CONTIKI_NG: RplParams = RplParams {
        trickle: TrickleConfig {
            imin_us: 4_096_000,
            doublings: 8,
            k: 10,
        },
        mrhof: MrhofConfig::CONTIKI_NG,
        instance_id: 0x1e,
        dao_delay_us: 4_000_000,
        default_lifetime: 30,
        lifetime_unit_s: 60,
        probing_interval_us: 60_000_000,
        dis_interval_us: 60_000_000,
        dis_start_delay_us: 5_000_000,
    };

    fn lifetime_us(&self, lifetime: u8) -> Time {
        Time::from(lifetime) * Time::from(self.lifetime_unit_s) * 1_000_000
    }
}

/// Where a message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum To {
    /// every neighbour (all-RPL-nodes, ff02::1a: a broadcast frame)
    AllNodes,
    /// one neighbour (a unicast frame)
    Neighbour(NodeId),
}

/// A message to send: the ICMPv6 message's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Out {
    pub to: To,
    pub icmp: Vec<u8>,
}

/// Per-node counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RplStats {
    pub dio_sent: u64,
    pub dio_suppressed: u64,
    pub dio_received: u64,
    /// DAOs for the node's own address
    pub dao_sent: u64,
    /// DAOs of descendants passed on to the parent
    pub dao_forwarded: u64,
    pub dao_received: u64,
    pub no_path_sent: u64,
    pub no_path_received: u64,
    /// multicast DIS sent while without a Rank
    pub dis_sent: u64,
    /// multicast DIS heard that reset the DIO timer
    pub dis_received: u64,
    pub dao_ack_received: u64,
    /// unicast DIOs sent to probe a neighbour's link
    pub probes_sent: u64,
    /// DAOs from the node's own preferred parent (a loop), dropped
    pub dao_loops: u64,
    /// changes from one preferred parent to another
    pub parent_switches: u64,
    /// times the node had no parent left after having one
    pub parent_losses: u64,
    /// local repairs: the MAC left the network (lost synchronisation)
    /// and told RPL ([`RplNode::local_repair`])
    pub local_repairs: u64,
    /// messages that did not parse or made no sense, dropped
    pub malformed: u64,
    /// messages heard before RPL started (before the node joined)
    pub ignored_unjoined: u64,
    /// when the node first had a preferred parent
    pub first_parent_at: Option<Time>,
    /// when it first sent its own DAO
    pub first_dao_at: Option<Time>,
}

/// A neighbour heard in DIOs.
#[derive(Debug, Clone, Copy)]
struct Heard {
    rank: u16,
    dtsn: u8,
}

/// A downward route learned from a DAO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub via: NodeId,
    pub expires: Time,
}

/// All-RPL-nodes (RFC 6550 §20.19).
pub const ALL_RPL_NODES: Ipv6Addr = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 0, 0x1a);

/// A node's link-local address (fe80::/64 and the interface identifier of
/// its global address, [`crate::net::address`]).
pub fn link_local(node: NodeId) -> Ipv6Addr {
    let mut o = crate::net::address(node, LinkAddressing::Short).octets();
    o[..8].copy_from_slice(&[0xfe, 0x80, 0, 0, 0, 0, 0, 0]);
    Ipv6Addr::from(o)
}

/// RFC 6550 §7.2's lollipop counters, as rpl-private.h implements them.
const LOLLIPOP_CIRCULAR: u8 = 127;
const LOLLIPOP_WINDOW: i32 = 16;
/// The initial value (`RPL_LOLLIPOP_INIT`, 255 - 16 + 1).
pub const LOLLIPOP_INIT: u8 = 240;

fn lollipop_increment(c: u8) -> u8 {
    if c > LOLLIPOP_CIRCULAR {
        c.wrapping_add(1)
    } else {
        (c + 1) & LOLLIPOP_CIRCULAR
    }
}

/// `a` is newer than `b` (rpl-dag.c `lollipop_greater_than`).
fn lollipop_greater(a: u8, b: u8) -> bool {
    let (a, b) = (i32::from(a), i32::from(b));
    let circular = i32::from(LOLLIPOP_CIRCULAR);
    if a > circular && b <= circular {
        return 256 + b - a > LOLLIPOP_WINDOW;
    }
    (a > b && a - b < LOLLIPOP_WINDOW) || (a < b && b - a > circular + 1 - LOLLIPOP_WINDOW)
}

/// One node's RPL.
#[derive(Debug, Clone)]
pub struct RplNode {
    me: NodeId,
    root: NodeId,
    p: RplParams,
    /// None until started (a 6TiSCH node starts once joined)
    trickle: Option<Trickle>,
    rank: u16,
    /// the lowest Rank had in this DODAG version
    min_rank: u16,
    parent: Option<NodeId>,
    heard: BTreeMap<NodeId, Heard>,
    links: BTreeMap<NodeId, LinkStats>,
    dtsn: u8,
    dao_seq: u8,
    dao_due: Option<Time>,
    dao_refresh_at: Option<Time>,
    probe_at: Option<Time>,
    /// when a DIS is due if the node still has no Rank then
    dis_at: Option<Time>,
    routes: BTreeMap<NodeId, Route>,
    /// when each target's route first appeared here
    first_route_at: BTreeMap<NodeId, Time>,
    stats: RplStats,
}

impl RplNode {
    /// Node `me` of a DODAG rooted at `root`, not started.
    pub fn new(me: NodeId, root: NodeId, p: RplParams) -> RplNode {
        RplNode {
            me,
            root,
            p,
            trickle: None,
            rank: INFINITE_RANK,
            min_rank: INFINITE_RANK,
            parent: None,
            heard: BTreeMap::new(),
            links: BTreeMap::new(),
            dtsn: LOLLIPOP_INIT,
            dao_seq: LOLLIPOP_INIT,
            dao_due: None,
            dao_refresh_at: None,
            probe_at: None,
            dis_at: None,
            routes: BTreeMap::new(),
            first_route_at: BTreeMap::new(),
            stats: RplStats::default(),
        }
    }

    fn is_root(&self) -> bool {
        self.me == self.root
    }

    /// Start RPL at `now`: the root begins its DODAG and its DIO timer,
    /// another node listens for DIOs (its timer starts when it has a parent).
    pub fn start(&mut self, now: Time, rng: &mut impl UniformBelow) {
        if self.started() {
            return;
        }
        if self.is_root() {
            self.rank = self.p.mrhof.root_rank();
            self.min_rank = self.rank;
            self.trickle = Some(Trickle::start(self.p.trickle, now, rng));
        } else {
            // a placeholder until the first parent: it sends nothing before
            // (`on_deadline` skips DIOs while the Rank is infinite)
            self.trickle = Some(Trickle::start(self.p.trickle, now, rng));
            self.schedule_probe(now, rng);
            self.schedule_first_dis(now, rng);
        }
    }

    /// rpl-timers.c `rpl_reset_periodic_timer`: a counter of seconds
    /// starts at I/2 + draw in [0, I) - start delay and a DIS goes when it
    /// reaches I (checked each second): the first after
    /// max(1 s, I - counter).
    fn schedule_first_dis(&mut self, now: Time, rng: &mut impl UniformBelow) {
        let i = self.p.dis_interval_us;
        if i == 0 {
            return;
        }
        let s = 1_000_000;
        let counter = (i / 2 + rng.below(i / s) * s).saturating_sub(self.p.dis_start_delay_us);
        self.dis_at = Some(now + i.saturating_sub(counter).max(s));
    }

    /// Whether RPL has started.
    pub fn started(&self) -> bool {
        self.trickle.is_some()
    }

    pub fn rank(&self) -> u16 {
        self.rank
    }

    pub fn parent(&self) -> Option<NodeId> {
        self.parent
    }

    pub fn stats(&self) -> RplStats {
        self.stats
    }

    /// The link ETX * 128 to a neighbour (0: unknown).
    pub fn link_etx(&self, n: NodeId) -> u16 {
        self.links.get(&n).map_or(0, LinkStats::etx)
    }

    /// Downward routes held now.
    pub fn routes(&self) -> &BTreeMap<NodeId, Route> {
        &self.routes
    }

    /// When the route to `target` first appeared here (at the root: when
    /// `target` became reachable from above).
    pub fn first_route_at(&self, target: NodeId) -> Option<Time> {
        self.first_route_at.get(&target).copied()
    }

    /// The next hop towards `dst` at `now`: a live downward route, else the
    /// preferred parent (the default route); None at the root without a
    /// route, or before the node has a parent.
    pub fn next_hop(&self, dst: NodeId, now: Time) -> Option<NodeId> {
        if dst == self.me {
            return None;
        }
        match self.routes.get(&dst) {
            Some(r) if r.expires > now => Some(r.via),
            _ if self.is_root() => None,
            _ => self.parent,
        }
    }

    /// When [`RplNode::on_deadline`] must be called next.
    pub fn deadline(&self) -> Option<Time> {
        let tr = self.trickle.as_ref()?;
        [
            Some(tr.deadline()),
            self.dao_due,
            self.dao_refresh_at,
            self.probe_at,
            self.dis_at,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Timers due at `now`: DIOs of the Trickle timer, the DAO.
    pub fn on_deadline(&mut self, now: Time, rng: &mut impl UniformBelow) -> Vec<Out> {
        let mut out = Vec::new();
        let Some(mut tr) = self.trickle.take() else {
            return out;
        };
        while tr.deadline() <= now {
            match tr.on_deadline(now, rng) {
                Some(TrickleFired::Transmit) => {
                    if self.rank != INFINITE_RANK || self.parent_lost() {
                        out.push(self.dio());
                        self.stats.dio_sent += 1;
                        if self.is_root() {
                            // RPL_DIO_REFRESH_DAO_ROUTES: every multicast
                            // DIO of the root asks for new DAOs
                            self.dtsn = lollipop_increment(self.dtsn);
                        }
                    }
                }
                Some(TrickleFired::Suppressed) => self.stats.dio_suppressed += 1,
                Some(TrickleFired::NewInterval) => {}
                None => break,
            }
        }
        self.trickle = Some(tr);
        if self.probe_at.is_some_and(|t| t <= now) {
            self.probe_at = None;
            if let Some(target) = self.probing_target(now, rng) {
                out.push(Out {
                    to: To::Neighbour(target),
                    icmp: emit_dio_to(self, target),
                });
                self.stats.probes_sent += 1;
            }
            self.schedule_probe(now, rng);
        }
        if self.dis_at.is_some_and(|t| t <= now) {
            // (rpl-timers.c `handle_periodic_timer`): only without a Rank;
            // with one, the counter waits, and a lost parent sends at the
            // next second (`reselect`)
            self.dis_at = None;
            if self.rank == INFINITE_RANK {
                let repr = wire::Repr::Dis { options: vec![] };
                out.push(Out {
                    to: To::AllNodes,
                    icmp: emit(&repr, &link_local(self.me), &ALL_RPL_NODES),
                });
                self.stats.dis_sent += 1;
                self.dis_at = Some(now + self.p.dis_interval_us);
            }
        }
        if self.dao_due.is_some_and(|t| t <= now) || self.dao_refresh_at.is_some_and(|t| t <= now) {
            self.dao_due = None;
            if let Some(parent) = self.parent {
                out.push(self.dao(parent, self.me, self.p.default_lifetime));
                self.stats.dao_sent += 1;
                self.stats.first_dao_at.get_or_insert(now);
                // re-register between 1/2 and 3/4 of the lifetime
                let half = self.p.lifetime_us(self.p.default_lifetime) / 2;
                self.dao_refresh_at = Some(now + half + rng.below(half / 2));
            } else {
                self.dao_refresh_at = None;
            }
        }
        out
    }

    /// A node that had a parent and lost it advertises an infinite Rank
    /// (poisoning) once, so its children leave it.
    fn parent_lost(&self) -> bool {
        !self.is_root() && self.stats.parent_losses > 0 && self.parent.is_none()
    }

    /// An ICMPv6 RPL message from neighbour `from` was received.
    pub fn on_message(
        &mut self,
        now: Time,
        from: NodeId,
        icmp: &[u8],
        rng: &mut impl UniformBelow,
    ) -> Vec<Out> {
        if !self.started() {
            self.stats.ignored_unjoined += 1;
            return Vec::new();
        }
        // a DIO or DIS goes to all RPL nodes, or to one as a probe; the
        // rest to this node's link-local address
        let src = link_local(from);
        let own = link_local(self.me);
        let parsed = match wire::Packet::new_checked(icmp).map(|p| p.code()) {
            Ok(wire::code::DIO) | Ok(wire::code::DIS) => {
                wire::Repr::parse(icmp, Some((&src, &ALL_RPL_NODES)))
                    .or_else(|_| wire::Repr::parse(icmp, Some((&src, &own))))
            }
            _ => wire::Repr::parse(icmp, Some((&src, &own))),
        };
        match parsed {
            Ok(wire::Repr::Dio(dio)) if dio.instance_id == self.p.instance_id => {
                self.on_dio(now, from, &dio, rng)
            }
            Ok(wire::Repr::Dao(dao)) if dao.instance_id == self.p.instance_id => {
                self.on_dao(now, from, &dao, rng)
            }
            Ok(wire::Repr::Dis { .. }) => {
                // rpl-icmp6.c `dis_input`: a multicast DIS resets the DIO
                // timer of a node in a DODAG (not a leaf)
                if self.rank != INFINITE_RANK {
                    self.stats.dis_received += 1;
                    self.reset_trickle(now, rng);
                }
                Vec::new()
            }
            Ok(wire::Repr::DaoAck(_)) => {
                self.stats.dao_ack_received += 1;
                Vec::new()
            }
            _ => {
                self.stats.malformed += 1;
                Vec::new()
            }
        }
    }

    fn on_dio(
        &mut self,
        now: Time,
        from: NodeId,
        dio: &wire::Dio,
        rng: &mut impl UniformBelow,
    ) -> Vec<Out> {
        self.stats.dio_received += 1;
        self.links.entry(from).or_default().heard();
        let before = self.heard.insert(
            from,
            Heard {
                rank: dio.rank,
                dtsn: dio.dtsn,
            },
        );
        let consistent = before.is_some_and(|h| h.rank == dio.rank);
        if consistent && dio.rank != INFINITE_RANK {
            if let Some(tr) = self.trickle.as_mut() {
                tr.hear_consistent();
            }
        }
        if self.is_root() {
            return Vec::new();
        }
        if dio.rank == INFINITE_RANK && self.parent == Some(from) {
            self.reset_trickle(now, rng);
        }
        let out = self.reselect(now, rng);
        // the preferred parent asks for new DAOs (rpl_process_dio's
        // should_refresh_routes): pass the request on and register again
        if let (Some(p), Some(b)) = (self.parent, before) {
            if p == from && lollipop_greater(dio.dtsn, b.dtsn) {
                self.dtsn = lollipop_increment(self.dtsn);
                self.schedule_dao(now, rng);
            }
        }
        out
    }

    fn on_dao(
        &mut self,
        now: Time,
        from: NodeId,
        dao: &wire::Dao,
        rng: &mut impl UniformBelow,
    ) -> Vec<Out> {
        let mut target = None;
        let mut lifetime = None;
        for o in &dao.options {
            match o {
                RplOption::Target {
                    prefix_len: 128,
                    prefix,
                    ..
                } if prefix.len() == 16 => {
                    let a: [u8; 16] = prefix[..].try_into().expect("16 bytes");
                    target = crate::net::node_of_address(&Ipv6Addr::from(a));
                }
                RplOption::Transit { path_lifetime, .. } => lifetime = Some(*path_lifetime),
                _ => {}
            }
        }
        let (Some(target), Some(lifetime)) = (target, lifetime) else {
            self.stats.malformed += 1;
            return Vec::new();
        };
        self.stats.dao_received += 1;
        // a loop (rpl-icmp6.c `dao_input_storing`): a DAO from the
        // preferred parent, or from a neighbour advertising a lower
        // DAGRank than this node's; that neighbour's Rank is taken as
        // infinite until its next DIO. A DAO for this node itself too.
        let mhri = self.p.mrhof.min_hop_rank_increase.max(1);
        let lower = (self.heard.get(&from)).is_some_and(|h| h.rank / mhri < self.rank / mhri);
        if self.parent == Some(from) || lower || target == self.me {
            self.stats.dao_loops += 1;
            if let Some(h) = self.heard.get_mut(&from) {
                h.rank = INFINITE_RANK;
                if self.parent == Some(from) {
                    return self.reselect(now, rng);
                }
            }
            return Vec::new();
        }
        if lifetime == 0 {
            self.stats.no_path_received += 1;
            if self.routes.get(&target).is_none_or(|r| r.via != from) {
                return Vec::new(); // a stale No-Path: the route goes elsewhere now
            }
            self.routes.remove(&target);
        } else {
            let expires = now + self.p.lifetime_us(lifetime);
            self.routes.insert(target, Route { via: from, expires });
            self.first_route_at.entry(target).or_insert(now);
        }
        match self.parent {
            Some(parent) if !self.is_root() => {
                self.stats.dao_forwarded += 1;
                vec![self.dao(parent, target, lifetime)]
            }
            _ => Vec::new(),
        }
    }

    /// A unicast frame to `to` ended after `numtx` transmissions,
    /// acknowledged or not: the link's ETX moves, and the parent may change.
    pub fn on_tx_result(
        &mut self,
        now: Time,
        to: NodeId,
        acked: bool,
        numtx: u32,
        rng: &mut impl UniformBelow,
    ) -> Vec<Out> {
        self.links.entry(to).or_default().sent(now, acked, numtx);
        if !self.started() || self.is_root() {
            return Vec::new();
        }
        self.reselect(now, rng)
    }

    fn reset_trickle(&mut self, now: Time, rng: &mut impl UniformBelow) {
        if let Some(tr) = self.trickle.as_mut() {
            tr.hear_inconsistent(now, rng);
        }
    }

    fn schedule_probe(&mut self, now: Time, rng: &mut impl UniformBelow) {
        let p = self.p.probing_interval_us;
        if p > 0 {
            self.probe_at = Some(now + p / 2 + rng.below(p));
        }
    }

    /// The MAC left the network (Contiki-NG tsch-rpl.c
    /// `tsch_rpl_callback_leaving_network`): the link statistics are
    /// forgotten (link-stats.c `link_stats_reset`), and RPL repairs
    /// locally (rpl-classic rpl-dag.c `rpl_local_repair`): Rank infinite,
    /// every parent nullified (`nullify_parents`; the preferred one gets a
    /// No-Path DAO, `rpl_nullify_parent`), no downward route, the DIO
    /// timer back to Imin (`rpl_reset_dio_timer`) and, in storing mode, the
    /// DTSN stepped. The neighbours heard stay (nullified, not removed), so
    /// the next DIO heard, once synchronised again, picks a parent anew.
    /// Nothing at the root, or before RPL started.
    pub fn local_repair(&mut self, now: Time, rng: &mut impl UniformBelow) -> Vec<Out> {
        if !self.started() || self.is_root() {
            return Vec::new();
        }
        self.stats.local_repairs += 1;
        self.links.clear();
        self.rank = INFINITE_RANK;
        let mut out = Vec::new();
        if let Some(old) = self.parent.take() {
            out.push(self.dao(old, self.me, 0));
            self.stats.no_path_sent += 1;
            self.stats.parent_losses += 1;
            self.dao_due = None;
            self.dao_refresh_at = None;
            if self.p.dis_interval_us > 0 {
                // rpl-timers.c `handle_periodic_timer`: a DIS at the next
                // second without a Rank (as on any loss of the parent)
                self.dis_at = Some(now + 1_000_000);
            }
        }
        self.dtsn = lollipop_increment(self.dtsn);
        self.reset_trickle(now, rng);
        out
    }

    /// rpl-timers.c `get_probing_target`: the preferred parent if its
    /// statistics are not fresh; else, with probability 1/2, the
    /// neighbour with stale statistics giving the least Rank; else the
    /// neighbour sent to longest ago.
    fn probing_target(&self, now: Time, rng: &mut impl UniformBelow) -> Option<NodeId> {
        let fresh = |n: NodeId| self.links.get(&n).is_some_and(|l| l.is_fresh_at(now));
        if let Some(p) = self.parent.filter(|&p| !fresh(p)) {
            return Some(p);
        }
        if rng.below(2) == 0 {
            let mhri = u32::from(self.p.mrhof.min_hop_rank_increase);
            let best = (self.heard.iter())
                .filter(|(&id, _)| !fresh(id))
                .map(|(&id, h)| {
                    let etx = match self.link_etx(id) {
                        0 => u32::from(u16::MAX),
                        e => u32::from(e),
                    };
                    let via = (u32::from(h.rank) + etx).max(u32::from(h.rank) + mhri);
                    (via, id)
                })
                .min();
            if let Some((_, id)) = best {
                return Some(id);
            }
        }
        // the least recently sent to (never: the oldest of all)
        (self.heard.keys())
            .filter_map(|&id| self.links.get(&id).map(|l| (l.last_tx(), id)))
            .min()
            .map(|(_, id)| id)
    }

    fn schedule_dao(&mut self, now: Time, rng: &mut impl UniformBelow) {
        if self.dao_due.is_none() {
            let d = self.p.dao_delay_us;
            self.dao_due = Some(now + d / 2 + rng.below(d.max(1)));
        }
    }

    /// MRHOF's choice among the neighbours heard; on a change of parent the
    /// No-Path DAO, the DTSN step, the DAO and the Trickle reset.
    fn reselect(&mut self, now: Time, rng: &mut impl UniformBelow) -> Vec<Out> {
        let cfg = self.p.mrhof;
        let mhri = u32::from(cfg.min_hop_rank_increase);
        let limit = u32::from(self.min_rank).saturating_add(u32::from(cfg.max_rank_increase));
        let cands: Vec<Neighbour> = (self.heard.iter())
            .map(|(&id, h)| Neighbour {
                id: id as u32,
                rank: h.rank,
                link_etx: match self.link_etx(id) {
                    0 => u16::MAX,
                    e => e,
                },
            })
            // §8.2.2.4: not a Rank beyond the lowest had + MaxRankIncrease
            // (whole ranks, DAGRank, as `acceptable_rank` compares)
            .filter(|n| {
                let via = (mrhof::path_cost(n)).max(u32::from(n.rank) + mhri);
                self.min_rank == INFINITE_RANK || via / mhri <= limit / mhri
            })
            .collect();
        let sel = mrhof::select(&cfg, &cands, self.parent.map(|p| p as u32));
        let new_parent = sel.parent.map(|p| p as NodeId);
        let old = self.parent;
        self.rank = sel.rank;
        if sel.rank != INFINITE_RANK {
            self.min_rank = self.min_rank.min(sel.rank);
        }
        if new_parent == old {
            return Vec::new();
        }
        let mut out = Vec::new();
        self.parent = new_parent;
        if let Some(old) = old {
            out.push(self.dao(old, self.me, 0));
            self.stats.no_path_sent += 1;
        }
        match (old, new_parent) {
            (None, Some(_)) => {
                self.stats.first_parent_at.get_or_insert(now);
            }
            (Some(_), Some(_)) => self.stats.parent_switches += 1,
            (Some(_), None) => {
                self.stats.parent_losses += 1;
                if self.p.dis_interval_us > 0 {
                    self.dis_at = Some(now + 1_000_000);
                }
                self.dao_due = None;
                self.dao_refresh_at = None;
                // a new version would be needed to take a lower Rank again
                // (§8.2.2.4); with one version the floor is lifted here
                self.min_rank = INFINITE_RANK;
            }
            (None, None) => {}
        }
        if new_parent.is_some() {
            self.dtsn = lollipop_increment(self.dtsn);
            self.schedule_dao(now, rng);
        }
        self.reset_trickle(now, rng);
        out
    }

    /// This node's DIO.
    fn dio(&self) -> Out {
        let c = self.p;
        let repr = wire::Repr::Dio(wire::Dio {
            instance_id: c.instance_id,
            version: LOLLIPOP_INIT,
            rank: self.rank,
            grounded: false,
            // storing mode without multicast (RFC 6550 §6.3.1, MOP 2)
            mop: 2,
            preference: 0,
            dtsn: self.dtsn,
            dodag_id: crate::net::address(self.root, LinkAddressing::Short),
            options: vec![RplOption::DodagConfig(DodagConfig {
                authentication: false,
                path_control_size: 0,
                dio_interval_doublings: c.trickle.doublings as u8,
                dio_interval_min: imin_exponent(c.trickle.imin_us),
                dio_redundancy_constant: c.trickle.k as u8,
                max_rank_increase: c.mrhof.max_rank_increase,
                min_hop_rank_increase: c.mrhof.min_hop_rank_increase,
                ocp: 1, // MRHOF (RFC 6719 §6)
                default_lifetime: c.default_lifetime,
                lifetime_unit: c.lifetime_unit_s,
            })],
        });
        Out {
            to: To::AllNodes,
            icmp: emit(&repr, &link_local(self.me), &ALL_RPL_NODES),
        }
    }

    /// A DAO to `parent` for `target` with `lifetime` (0: No-Path).
    fn dao(&mut self, parent: NodeId, target: NodeId, lifetime: u8) -> Out {
        self.dao_seq = lollipop_increment(self.dao_seq);
        let repr = dao_repr(self.p.instance_id, self.dao_seq, target, lifetime);
        Out {
            to: To::Neighbour(parent),
            icmp: emit(&repr, &link_local(self.me), &link_local(parent)),
        }
    }
}

/// A storing-mode DAO (rpl-icmp6.c `dao_output_target_seq`): no K flag
/// (no DAO-ACK), no DODAGID (`RPL_DAO_SPECIFY_DAG` 0 with one DODAG), one
/// Target of 128 bits and one Transit Information option without parent
/// address.
pub fn dao_repr(instance_id: u8, seq: u8, target: NodeId, lifetime: u8) -> wire::Repr {
    wire::Repr::Dao(wire::Dao {
        instance_id,
        expect_ack: false,
        sequence: seq,
        dodag_id: None,
        options: vec![
            RplOption::Target {
                flags: 0,
                prefix_len: 128,
                prefix: crate::net::address(target, LinkAddressing::Short)
                    .octets()
                    .to_vec(),
            },
            RplOption::Transit {
                external: false,
                path_control: 0,
                path_sequence: 0,
                path_lifetime: lifetime,
                parent: None,
            },
        ],
    })
}

fn emit(repr: &wire::Repr, src: &Ipv6Addr, dst: &Ipv6Addr) -> Vec<u8> {
    let mut b = vec![0u8; repr.buffer_len()];
    repr.emit(src, dst, &mut b)
        .expect("a DIO or DAO built here fits its own length");
    b
}

/// `node`'s DIO unicast to `target` (a probe): the same message, its
/// checksum over the target's link-local address.
fn emit_dio_to(node: &RplNode, target: NodeId) -> Vec<u8> {
    let mut icmp = node.dio().icmp;
    let repr = wire::Repr::parse(&icmp, None).expect("a DIO built here parses");
    icmp = emit(&repr, &link_local(node.me), &link_local(target));
    icmp
}

/// DIOIntervalMin of an Imin in µs (Imin = 2^this ms).
fn imin_exponent(imin_us: Time) -> u8 {
    (imin_us / 1000).max(1).ilog2() as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Scripted;

    // the scripted draws below were written before DIS: without it (its
    // own test below)
    const P: RplParams = RplParams {
        dis_interval_us: 0,
        ..RplParams::CONTIKI_NG
    };

    /// Node `n`'s global address: 2001:db8::ff:fe00:(n + 1) (net::address).
    fn global(n: NodeId) -> [u8; 16] {
        let s = (n as u16 + 1).to_be_bytes();
        [
            0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 0, s[0], s[1],
        ]
    }

    fn started(me: NodeId) -> RplNode {
        let mut n = RplNode::new(me, 0, P);
        n.start(0, &mut Scripted::new(&[0, 0]));
        n
    }

    #[test]
    fn a_node_without_a_rank_solicits_dios_and_a_dis_resets_the_roots_timer() {
        let p = RplParams::CONTIKI_NG;
        let mut n = RplNode::new(1, 0, p);
        // draws: Trickle's first t (0), the probe's delay (0), the DIS
        // counter's 10 s: 30 + 10 - 5 = 35 s, the first DIS 60 - 35 = 25 s on
        n.start(0, &mut Scripted::new(&[0, 0, 10]));
        let at = 25_000_000;
        assert!(n.deadline().is_some_and(|d| d <= at));
        let mut out = Vec::new();
        let mut r = Scripted::new(&[0; 16]);
        while let Some(d) = n.deadline().filter(|&d| d <= at) {
            out.extend(n.on_deadline(d, &mut r));
        }
        let dis: Vec<_> = out.iter().filter(|o| o.icmp[..2] == [155, 0]).collect();
        assert_eq!(dis.len(), 1, "{out:?}");
        assert_eq!(dis[0].to, To::AllNodes);
        assert_eq!(n.stats().dis_sent, 1);
        // the root's Trickle, in its fourth interval (28.672 s, 32.768 s
        // long: its DIO due at 45.056 s), restarts at Imin: 30 + 2.048 s
        let mut root = RplNode::new(0, 0, p);
        root.start(0, &mut Scripted::new(&[0]));
        let mut r = Scripted::new(&[0; 16]);
        while let Some(d) = root.deadline().filter(|&d| d < 30_000_000) {
            root.on_deadline(d, &mut r);
        }
        assert_eq!(root.deadline(), Some(45_056_000));
        root.on_message(30_000_000, 1, &dis[0].icmp, &mut Scripted::new(&[0]));
        assert_eq!(root.stats().dis_received, 1);
        assert_eq!(root.deadline(), Some(32_048_000));
        // a node with no Rank ignores a DIS
        let mut other = RplNode::new(2, 0, p);
        other.start(0, &mut Scripted::new(&[0, 0, 0]));
        other.on_message(1_000, 1, &dis[0].icmp, &mut Scripted::new(&[]));
        assert_eq!(other.stats().dis_received, 0);
    }

    #[test]
    fn the_roots_dio_bytes_follow_rfc_6550() {
        let mut root = started(0);
        // Imin 4.096 s: t = 2.048 s + the draw 0
        assert_eq!(root.deadline(), Some(2_048_000));
        let out = root.on_deadline(2_048_000, &mut Scripted::new(&[]));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].to, To::AllNodes);
        let b = &out[0].icmp;
        // ICMPv6 type 155, code 1 (DIO); 4 + 24 (base) + 16 (configuration)
        assert_eq!(b.len(), 44);
        assert_eq!(&b[..2], &[155, 1]);
        // base (§6.3.1): instance 0x1e, version 240 (lollipop init), Rank
        // 128 = 0x0080 (ROOT_RANK = MinHopRankIncrease), G 0 | MOP 2 << 3 |
        // Prf 0 = 0x10, DTSN 240, flags 0, reserved 0
        assert_eq!(&b[4..12], &[0x1e, 240, 0x00, 0x80, 0x10, 240, 0, 0]);
        // DODAGID: the root's global address
        assert_eq!(&b[12..28], &global(0));
        // DODAG Configuration (§6.7.6): type 4, length 14, A 0 PCS 0,
        // doublings 8, Imin exponent 12, k 10, MaxRankIncrease 896 =
        // 0x0380, MinHopRankIncrease 128 = 0x0080, OCP 1, reserved,
        // lifetime 30, unit 60 = 0x003c
        assert_eq!(
            &b[28..],
            &[4, 14, 0, 8, 12, 10, 0x03, 0x80, 0x00, 0x80, 0x00, 0x01, 0, 30, 0x00, 0x3c]
        );
        // the checksum is the ICMPv6 one from the root's link-local address
        let src = link_local(0);
        assert!(wire::Repr::parse(b, Some((&src, &ALL_RPL_NODES))).is_ok());
        // the root's DTSN steps with each DIO (RPL_DIO_REFRESH_DAO_ROUTES)
        assert_eq!(root.dtsn, 241);
        assert_eq!(root.stats().dio_sent, 1);
    }

    #[test]
    fn a_daos_bytes_follow_rfc_6550() {
        let mut n = started(2);
        let out = n.dao(1, 2, 30);
        assert_eq!(out.to, To::Neighbour(1));
        let b = &out.icmp;
        // 4 + 4 (base without DODAGID) + 2 + 18 (target) + 2 + 4 (transit)
        assert_eq!(b.len(), 34);
        assert_eq!(&b[..2], &[155, 2]);
        // instance 0x1e, K 0 D 0, reserved, sequence 241 (240 + 1)
        assert_eq!(&b[4..8], &[0x1e, 0x00, 0x00, 241]);
        // Target (§6.7.7): type 5, length 18, flags 0, prefix length 128
        assert_eq!(&b[8..12], &[5, 18, 0, 128]);
        assert_eq!(&b[12..28], &global(2));
        // Transit Information (§6.7.8): type 6, length 4, E 0, path
        // control 0, path sequence 0, path lifetime 30
        assert_eq!(&b[28..], &[6, 4, 0, 0, 0, 30]);
        let (src, dst) = (link_local(2), link_local(1));
        assert!(wire::Repr::parse(b, Some((&src, &dst))).is_ok());
    }

    fn dio_from(rank: u16, dtsn: u8, from: NodeId) -> Vec<u8> {
        let mut n = RplNode::new(from, 0, P);
        n.rank = rank;
        n.dtsn = dtsn;
        n.dio().icmp
    }

    #[test]
    fn the_parent_changes_once_its_etx_passes_the_hysteresis() {
        let mut n = started(3);
        let mut r = Scripted::new(&[0; 16]);
        n.on_message(0, 1, &dio_from(256, 240, 1), &mut r);
        n.on_message(0, 2, &dio_from(256, 240, 2), &mut r);
        // both links unknown, ETX 2 (256): cost 512 each, the lower id wins;
        // Rank max(512, 256 + 128) = 512
        assert_eq!((n.parent(), n.rank()), (Some(1), 512));
        // acknowledged after 3 tries: (256 * 75 + 384 * 25) / 100 = 288:
        // cost 544 against 512, within 96: kept
        assert!(n.on_tx_result(1_000, 1, true, 3, &mut r).is_empty());
        assert_eq!((n.parent(), n.link_etx(1)), (Some(1), 288));
        // fresh now (freshness 3 + 3): (288 * 90 + 384 * 10) / 100 = 297
        n.on_tx_result(2_000, 1, true, 3, &mut r);
        assert_eq!((n.parent(), n.link_etx(1)), (Some(1), 297));
        // not acknowledged after 4: sample (4 + 12) * 128 = 2048;
        // (297 * 90 + 2048 * 10) / 100 = 472: cost 728, 216 above 512
        let out = n.on_tx_result(3_000, 1, false, 4, &mut r);
        assert_eq!(n.link_etx(1), 472);
        assert_eq!((n.parent(), n.rank()), (Some(2), 512));
        assert_eq!(n.stats().parent_switches, 1);
        // a No-Path DAO (lifetime 0) to the old parent
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].to, To::Neighbour(1));
        assert_eq!(out[0].icmp[33], 0);
        // its DAO, scheduled with the first parent at 0 + 2 s + the draw 0
        // and not yet sent, stays (schedule_dao keeps a running timer) and
        // goes to the parent of the moment: the new one
        assert_eq!(n.dao_due, Some(2_000_000));
        let out = n.on_deadline(2_000_000, &mut r);
        let dao: Vec<&Out> = out.iter().filter(|o| o.icmp[1] == 2).collect();
        assert_eq!(dao.len(), 1);
        assert_eq!(dao[0].to, To::Neighbour(2));
    }

    #[test]
    fn a_local_repair_forgets_the_links_and_the_parent_and_picks_one_again() {
        // rpl-classic `rpl_local_repair` as tsch-rpl.c calls it on leaving
        let mut n = started(3);
        let mut r = Scripted::new(&[0; 16]);
        n.on_message(0, 1, &dio_from(256, 240, 1), &mut r);
        n.on_message(0, 2, &dio_from(256, 240, 2), &mut r);
        n.on_tx_result(1_000, 1, true, 1, &mut r);
        assert_eq!((n.parent(), n.link_etx(1)), (Some(1), 224));
        let dtsn = n.dtsn;
        let out = n.local_repair(5_000_000, &mut r);
        // a No-Path DAO to the parent nullified (lifetime 0)
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].to, To::Neighbour(1));
        assert_eq!(out[0].icmp[33], 0);
        assert_eq!((n.parent(), n.rank()), (None, INFINITE_RANK));
        // link-stats.c `link_stats_reset`: no statistics left
        assert_eq!(n.link_etx(1), 0);
        assert_eq!(n.dtsn, lollipop_increment(dtsn));
        let s = n.stats();
        assert_eq!(
            (s.local_repairs, s.parent_losses, s.no_path_sent),
            (1, 1, 1)
        );
        // the DIO timer back at Imin (4.096 s): its next DIO, poisoning
        // (Rank infinite), within it
        let tr = n.trickle.as_ref().unwrap();
        assert_eq!(tr.interval_us(), P.trickle.imin_us);
        // the next DIO picks a parent again: its sender, the one link with
        // statistics again (the default ETX 2 of a neighbour heard,
        // link-stats.c `link_stats_input_callback`); node 1 has none until
        // it is heard again
        n.on_message(6_000_000, 2, &dio_from(256, 240, 2), &mut r);
        assert_eq!(
            (n.parent(), n.link_etx(2), n.link_etx(1)),
            (Some(2), 256, 0)
        );
        // the root and a node not started do nothing
        let mut root = started(0);
        assert!(root.local_repair(1, &mut r).is_empty());
        assert_eq!(root.stats().local_repairs, 0);
        let mut idle = RplNode::new(4, 0, P);
        assert!(idle.local_repair(1, &mut r).is_empty());
    }

    /// A line 0 - 1 - 2 with perfect links: every message is delivered to
    /// the neighbours it is for, every unicast frame acknowledged at once.
    fn run_line(until: Time) -> Vec<RplNode> {
        use crate::rng::{stream, Purpose};
        let neighbours = |n: NodeId| -> Vec<NodeId> {
            match n {
                0 => vec![1],
                1 => vec![0, 2],
                _ => vec![1],
            }
        };
        let mut rngs: Vec<_> = (0..3).map(|i| stream(5, 0, i, Purpose::Mac)).collect();
        let mut nodes: Vec<RplNode> = (0..3).map(|i| RplNode::new(i, 0, P)).collect();
        for (i, n) in nodes.iter_mut().enumerate() {
            n.start(0, &mut rngs[i]);
        }
        let next = |nodes: &[RplNode]| {
            (0..3)
                .filter_map(|i| nodes[i].deadline().map(|t| (t, i)))
                .min()
                .filter(|&(t, _)| t <= until)
        };
        while let Some((at, who)) = next(&nodes) {
            let mut pending: Vec<(NodeId, Out)> = nodes[who]
                .on_deadline(at, &mut rngs[who])
                .into_iter()
                .map(|o| (who, o))
                .collect();
            while let Some((from, out)) = pending.pop() {
                let to = match out.to {
                    To::AllNodes => neighbours(from),
                    To::Neighbour(n) => {
                        let more = nodes[from].on_tx_result(at, n, true, 1, &mut rngs[from]);
                        pending.extend(more.into_iter().map(|o| (from, o)));
                        vec![n]
                    }
                };
                for n in to {
                    let more = nodes[n].on_message(at, from, &out.icmp, &mut rngs[n]);
                    pending.extend(more.into_iter().map(|o| (n, o)));
                }
            }
        }
        nodes
    }

    #[test]
    fn a_line_forms_its_routes_from_dios_and_daos_alone() {
        let nodes = run_line(60_000_000);
        assert_eq!(nodes[1].parent(), Some(0));
        assert_eq!(nodes[2].parent(), Some(1));
        // upwards by the default route, downwards by the stored ones
        assert_eq!(nodes[2].next_hop(0, 60_000_000), Some(1));
        assert_eq!(nodes[0].next_hop(2, 60_000_000), Some(1));
        assert_eq!(nodes[1].next_hop(2, 60_000_000), Some(2));
        assert_eq!(nodes[0].next_hop(1, 60_000_000), Some(1));
        // node 1's DAOs went up with every acknowledgement, its ETX to the
        // root falling from 2 towards 1, and the Ranks follow
        assert!(nodes[1].link_etx(0) < 256);
        assert!(nodes[1].rank() < nodes[2].rank());
        assert!(nodes[0].routes().len() == 2 && nodes[1].routes().len() == 1);
        // node 2's route reached the root through node 1's forwarding
        assert!(nodes[1].stats().dao_forwarded >= 1);
        let at2 = nodes[0].first_route_at(2).unwrap();
        assert!(at2 >= nodes[2].stats().first_dao_at.unwrap());
        for n in &nodes {
            assert!(n.stats().dio_sent >= 1, "{:?}", n.stats());
            assert_eq!(n.stats().malformed, 0);
            assert_eq!(n.stats().parent_switches, 0);
        }
        // the root's routes expire without refresh: at 30 min + 1 s with
        // no traffic they would be gone, but DAOs refresh them within 3/4
        let later = run_line(3_700_000_000);
        assert_eq!(later[0].next_hop(2, 3_700_000_000), Some(1));
        // same seed, same run
        let again = run_line(60_000_000);
        for (a, b) in nodes.iter().zip(&again) {
            assert_eq!(a.stats(), b.stats());
        }
    }

    #[test]
    fn malformed_messages_are_counted_and_dropped() {
        let mut n = started(1);
        let mut r = Scripted::new(&[0; 8]);
        let good = dio_from(128, 240, 0);
        let mut bad_sum = good.clone();
        bad_sum[10] ^= 1; // the checksum no longer matches
        let mut truncated = good.clone();
        truncated.truncate(20);
        let mut bad_option = good.clone();
        bad_option[29] = 40; // DODAG configuration longer than the message
                             // a DAO whose target is no node of the network
        let mut stranger = dao_repr(0x1e, 1, 2, 30);
        if let wire::Repr::Dao(d) = &mut stranger {
            d.options[0] = RplOption::Target {
                flags: 0,
                prefix_len: 128,
                prefix: vec![0xfd; 16],
            };
        }
        let stranger = emit(&stranger, &link_local(2), &link_local(1));
        // a DAO with no transit information
        let mut no_transit = dao_repr(0x1e, 1, 2, 30);
        if let wire::Repr::Dao(d) = &mut no_transit {
            d.options.pop();
        }
        let no_transit = emit(&no_transit, &link_local(2), &link_local(1));
        let inputs: [&[u8]; 8] = [
            &[],
            &[155],
            &[128, 0, 0, 0],
            &bad_sum,
            &truncated,
            &bad_option,
            &stranger,
            &no_transit,
        ];
        for (i, m) in inputs.iter().enumerate() {
            assert!(n.on_message(0, 2, m, &mut r).is_empty(), "input {i}");
        }
        assert_eq!(n.stats().malformed, 8);
        assert_eq!((n.parent(), n.rank()), (None, INFINITE_RANK));
        assert!(n.routes().is_empty());
        // the good DIO is taken
        n.on_message(0, 0, &good, &mut r);
        assert_eq!(n.parent(), Some(0));
        // before RPL starts, nothing is read
        let mut idle = RplNode::new(3, 0, P);
        assert!(idle.on_message(0, 0, &good, &mut r).is_empty());
        assert_eq!(idle.stats().ignored_unjoined, 1);
    }

    #[test]
    fn a_probe_is_a_unicast_dio_to_the_parent_with_stale_statistics() {
        // started at 0: Trickle draw 0, probe at 30 s + draw 0
        let mut n = started(2);
        let mut r = Scripted::new(&[0; 8]);
        n.on_message(0, 1, &dio_from(256, 240, 1), &mut r);
        assert_eq!(n.parent(), Some(1));
        assert_eq!(n.probe_at, Some(30_000_000));
        let out = n.on_deadline(30_000_000, &mut r);
        let probe: Vec<&Out> = (out.iter())
            .filter(|o| o.to == To::Neighbour(1) && o.icmp[1] == 1)
            .collect();
        assert_eq!(probe.len(), 1);
        assert_eq!(n.stats().probes_sent, 1);
        // the parent reads it as a DIO (its checksum over the parent's own
        // link-local address), not as malformed
        let mut parent = started(1);
        parent.on_message(30_000_000, 2, &probe[0].icmp, &mut r);
        assert_eq!(parent.stats().dio_received, 1);
        assert_eq!(parent.stats().malformed, 0);
        // the next probe in [30, 90) s
        assert!(n
            .probe_at
            .is_some_and(|t| (60_000_000..120_000_000).contains(&t)));
    }

    #[test]
    fn lollipop_counters() {
        assert_eq!(lollipop_increment(240), 241);
        assert_eq!(lollipop_increment(255), 0);
        assert_eq!(lollipop_increment(127), 0);
        assert!(lollipop_greater(241, 240));
        assert!(!lollipop_greater(240, 241));
        // 5 follows the initial region's 250 (RFC 6550 §7.2)
        assert!(lollipop_greater(5, 250));
        assert!(lollipop_greater(2, 120));
    }
}
