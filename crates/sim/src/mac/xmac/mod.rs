//! X-MAC preamble sampling, as Contiki's `cxmac` does it (Buettner et al., SenSys 2006; Contiki 2.7 cxmac.c).
//!
//! Every node wakes once per check interval (CI) at its own random phase and
//! listens for `on_time`. A sender repeats short strobes carrying the
//! destination address every `strobe_period` for at most `strobe_time`,
//! listening between them; the destination, hearing a strobe, answers with
//! a strobe ACK and stays awake for the data frame, which is sent once and
//! not acknowledged — a lost data frame is recovered only by the layer above.
//!
//! Strobes and strobe ACKs are 802.15.4 data frames whose payload starts with
//! a 6LoWPAN NALP dispatch (not a LoWPAN frame), so captures still dissect.
//!
//! As in cxmac under Contiki 2.6/2.7's `csma` layer: a sender that hears
//! someone else's strobe while strobing aborts its train (cxmac.c
//! `send_packet` returns MAC_TX_COLLISION), and so does one whose backoff
//! ends while it is receiving (`qsend_packet`: someone_is_sending). A train
//! that got no strobe ACK (MAC_TX_NOACK) counts as a transmission; a
//! collision does not (csma.c `packet_sent` counts it in `collisions`, not
//! `transmissions`). Either is tried again after one check interval plus a
//! random part below `min(n + 1, 3)` check intervals, n the transmissions
//! so far; after `max_transmissions` unanswered trains the payload is
//! dropped. While backing off the node duty-cycles and answers strobes
//! addressed to it (the backoff is a csma ctimer; cxmac's `input_packet`
//! keeps running).
//!
//! Packets wait in Contiki 2.7 csma's per-neighbour queues (`queues.rs`,
//! csma.c `struct neighbor_queue`): at most two neighbours have packets
//! queued at once, all queues draw from one pool of eight packet buffers,
//! and each queue has its own transmit timer and retry count. cxmac strobes
//! synchronously, so one train runs at a time; a queue whose timer expires
//! meanwhile is served when the radio is free again.
//!
//! A strobe train is one channel emission, not one event per strobe: only
//! the strobes that fall while the destination (or another neighbour) is
//! listening are judged, each with its own delivery draw, so the work per
//! frame does not grow with CI while per-strobe loss stays exact. With the
//! encounter optimisation (cxmac's default), a sender that has heard a
//! strobe ACK remembers when that neighbour wakes and starts its next train
//! just before then.

mod cooja_loop;
mod queues;

use std::collections::HashMap;

use wpan::frame::FrameType;

use super::address::{addressed_to, LinkAddressing};
use super::common::{draw_below, pass_up, queued_data_frame};
use super::cooja_mote::{ctimer_due, on_cooja_tick, COOJA_TICK_US};
use super::frame::{addressed_frame, heard, max_data_payload, Parsed};
use super::phy;
use super::security::{LinkSecurity, NodeSecurity};
use super::{Mac, MacStats};
use crate::channel::{airtime_us, EmissionId};
use crate::clock::Crystal;
use crate::energy::RadioState;
use crate::timer::{TimerTable, Token};
use crate::world::{Cx, Received, RunOrder};
use crate::{NodeId, Time};
use cooja_loop::{next_run, Action, Heard, StrobeLoop};
use queues::{NeighbourQueue, NeighbourQueues, Pending};

/// 6LoWPAN NALP dispatch (RFC 4944 §5.1) followed by the cxmac frame type.
const NALP: u8 = 0x01;
const STROBE: u8 = 0x01;
const STROBE_ACK: u8 = 0x02;

/// Contiki 2.7's queue buffers on WiSMote with IPv6
/// (platform/wismote/contiki-conf.h QUEUEBUF_CONF_NUM 8; core/net/queuebuf.h
/// defaults QUEUEBUF_NUM to 8 too).
pub const CONTIKI_QUEUEBUF_NUM: usize = 8;

/// Neighbours that can have packets queued at once (Contiki 2.7 csma.c
/// CSMA_MAX_NEIGHBOR_QUEUES, default 2; WiSMote's contiki-conf.h does not
/// change it).
pub const CONTIKI_MAX_NEIGHBOR_QUEUES: usize = 2;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XmacParams {
    pub check_interval_us: Time,
    pub on_time_us: Time,
    /// Longest strobe train.
    pub strobe_time_us: Time,
    /// Start-to-start distance of strobes (cxmac's strobe wait time).
    pub strobe_period_us: Time,
    /// With `listen_before_strobe`, how long a sender listens before its
    /// first strobe. None: one strobe period (cxmac.c `send_packet` runs its
    /// strobe-wait loop once before the first strobe as before every other).
    pub first_strobe_lead_us: Option<Time>,
    /// How long a node that sent a strobe ACK stays awake for the data.
    pub data_wait_us: Time,
    pub encounter_optimization: bool,
    /// With the optimisation, how early before the expected wake-up to start.
    pub encounter_lead_us: Time,
    /// CPU time to handle one frame (platform file).
    pub frame_processing_us: Time,
    /// Wake-up phase within the check interval; None draws it at random.
    pub phase_us: Option<Time>,
    /// Trains per payload before it is dropped (Contiki csma: 3).
    pub max_transmissions: u32,
    /// Packets the MAC holds, over all neighbour queues (csma.c
    /// MAX_QUEUED_PACKETS = QUEUEBUF_NUM, one `packet_memb` pool).
    /// One arriving when all are taken is dropped (csma.c `send_packet`:
    /// `memb_alloc` fails, MAC_TX_ERR), and so is the head of a full queue
    /// when its train would start (cxmac.c `send_packet` needs one more
    /// queuebuf, `queuebuf_new_from_packetbuf` fails, MAC_TX_ERR, and csma's
    /// `packet_sent` frees the packet).
    pub queue_capacity: usize,
    /// Neighbours that can have packets queued at once; a packet for one
    /// more is dropped (csma.c `send_packet`: `memb_alloc(&neighbor_memb)`
    /// fails).
    pub neighbour_queues: usize,
    /// Wait after a packet leaves its neighbour's queue (sent or dropped)
    /// before that queue's next one is tried (csma.c `free_packet`: `ctimer_set(...,
    /// default_timebase(), ...)`, the RDC's channel check interval).
    pub next_packet_wait_us: Time,
    /// Abort the own train on hearing another node's strobe (cxmac does).
    pub abort_on_strobe: bool,
    /// Simulate only the wake-ups that can hear something: a sleeping node
    /// wakes for real when a neighbour's strobe train overlaps one of its
    /// listening windows, and the windows in which nothing could be heard
    /// are charged as listening time without an event each. Results are
    /// those of waking every check interval; only the work is less.
    pub lazy_idle_listening: bool,
    /// IEEE 802.15.4 security of data frames (strobes stay unsecured, as
    /// cxmac builds them itself).
    pub security: Option<LinkSecurity>,
    /// Each node's 32 kHz crystal is off by a uniform draw within this many
    /// ppm (platform file); every period the MAC counts (check interval,
    /// strobe period, backoffs) lasts that much more or less. 0: perfect
    /// clocks.
    pub crystal_tolerance_ppm: f64,
    /// One tick of Contiki's `clock` (the ctimer time base), in ns: 1/128 s
    /// on MSP430 platforms (platform/wismote/platform-conf.h
    /// CLOCK_CONF_SECOND 128UL).
    pub clock_tick_ns: u64,
    /// A wake-up listens for the on time rounded up to whole clock ticks,
    /// starting on a tick: cxmac's duty cycle is a ctimer (cxmac.c
    /// `CSCHEDULE_POWERCYCLE(rtime)` = CLOCK_SECOND·rtime/RTIMER_ARCH_SECOND,
    /// 128·204/32768 = 0 ticks, which `cschedule_powercycle` raises to 1).
    pub listen_window_in_clock_ticks: bool,
    /// A sender listens one strobe period before its first strobe, and any
    /// frame but a strobe ACK heard then or between strobes ends the train
    /// as a collision (cxmac.c `send_packet`: the strobe loop reads the radio
    /// for `strobe_wait_time` before each strobe, the first included, and
    /// counts every other frame in `collisions`). Replaces the CCA.
    pub listen_before_strobe: bool,
    /// cxmac.c `someone_is_sending`: hearing a strobe sets it to 2 (1 after
    /// answering one), a data frame clears it, an aborted train adds one,
    /// and each wake-up takes one off (`cpowercycle`); while it is above 0 a
    /// send is refused as a collision (`qsend_packet`), and csma backs off.
    /// A strobe for another node leaves the radio on to the end of the
    /// window (`input_packet` does not call `off()` for it).
    pub someone_is_sending: bool,
    /// csma's retransmission backoff and the wait between packets are
    /// ctimers (csma.c `packet_sent`, `free_packet`): whole clock ticks of
    /// the check interval (cxmac.c `channel_check_interval`), expiring on a
    /// tick.
    pub backoff_in_clock_ticks: bool,
    /// Width of the rtimer counter the encounter wait is computed in
    /// (cxmac.c `send_packet`: `wait = ((rtimer_clock_t)(e->time - now)) %
    /// DEFAULT_PERIOD`, rtimer_clock_t 16-bit in core/sys/rtimer.h: 65,536
    /// ticks of 32,768 Hz = 2 s). None: wide enough.
    pub rtimer_wrap_us: Option<Time>,
    /// cxmac.c `waiting_for_packet`: a node that sent a strobe ACK keeps its
    /// radio on until a data frame for it arrives or its second on time
    /// since has ended (`cpowercycle` counts the flag up at the end of every
    /// on time and turns the radio off once it passes 2; each strobe ACK sets
    /// it to 1 again). Its own send ends the wait: `send_packet` turns the
    /// radio off after the data, sicslowpan setting no RELIABLE attribute.
    /// false: awake for `data_wait_us` after the ACK.
    pub waiting_for_packet: bool,
    /// cxmac.c `send_packet` is a busy loop from the wait for a remembered
    /// encounter (`while(RTIMER_CLOCK_LT(RTIMER_NOW(), expected))`) through
    /// the strobe loop (polling `NETSTACK_RADIO.read`) to the data frame:
    /// the CPU never sleeps in it, and Energest counts all of it as CPU
    /// time. false: only frame handling costs CPU time.
    pub busy_send_cpu: bool,
    /// cxmac.c `send_packet` turns the radio off (`off()`) before the
    /// encounter wait, and no other process runs until it returns: the
    /// node hears nothing and skips the wake-ups due meanwhile. Contiki
    /// then runs the skipped wake-up late, when `send_packet` returns, and
    /// re-bases the duty cycle there (a ctimer counts from its late
    /// expiry): use it with `rebase_after_send`, or it deafens a node for
    /// longer than cxmac does. Off by default; on in the Cooja oracle's
    /// scenario, where it brings the encounter-optimisation run closer
    /// (reference/cooja/README.md, "The encounter wait on a cooja mote").
    pub deaf_encounter_wait: bool,
    /// cxmac's duty cycle is a ctimer (`cpowercycle`), and a ctimer cannot
    /// run while `send_packet` busy-waits: a wake-up (or the end of a
    /// window) due during a send runs late, when the send returns, and the
    /// next on or off time counts from there (`CSCHEDULE_POWERCYCLE` sets
    /// the ctimer from the time it runs). So a node's wake-ups are re-based
    /// on the end of every send that outlasted one: a window opens as the
    /// send returns and the next comes one check interval later. false:
    /// wake-ups keep their boot-time grid. Seen in the Cooja oracle's radio
    /// log (reference/cooja/README.md: each mote's window phase moves to the
    /// end of its own sends); Contiki's logic, not Cooja's, so real motes
    /// re-base too.
    pub rebase_after_send: bool,
    /// With `rebase_after_send`: answering a strobe is a busy period too
    /// (cxmac.c `input_packet` sends the strobe ACK with the radio driver's
    /// busy wait): a window end due meanwhile runs as the ACK ends (the
    /// oracle's radio log: all 50 such windows).
    pub rebase_after_ack: bool,
    /// Cooja's native motes run only when woken, and their time moves in
    /// whole milliseconds from the last wake: a Contiki timer due at clock
    /// tick E runs at E plus the sub-millisecond part of the last radio
    /// event at the mote, or at the first radio event between E and then.
    /// Cooja wakes a mote at every frame end in its interference range,
    /// radio on or off (UDGM.java `createConnections` lists an off radio
    /// as interfered; ContikiRadio.java `signalReceptionEnd` calls
    /// `requestImmediateWakeup`), and at the end of its own transmissions;
    /// between wakes it schedules its next tick whole milliseconds on
    /// (ContikiClock.java `doActionsAfterTick`: now + nextExpirationTime
    /// ms). So during a neighbour's strobe train a duty-cycle window opens
    /// a whole number of milliseconds after a strobe ends, or exactly at a
    /// strobe end, and then closes as the next strobe starts (6.736 ms
    /// apart on these motes). Applied to cxmac's duty-cycle steps (window
    /// open and close); the check interval and every wake-up phase are
    /// whole milliseconds (the 1 kHz clock).
    pub cooja_mote_ticks: bool,
    /// csma's wait before retrying a packet whose train failed: Contiki
    /// 3.0's truncated exponential backoff (csma.c `packet_sent`: one
    /// check interval plus `random_rand() % (2^min(n, 3) · CI)` after the
    /// n-th failed train) instead of Contiki 2.7's linear one (plus
    /// `random_rand() % (min(n + 1, 3) · CI)`).
    pub exponential_backoff: bool,
    /// How data frames and strobes name the two ends of a link: Contiki's
    /// uIP builds use 8-byte link addresses (LINKADDR_CONF_SIZE 8 in 3.0's
    /// platform/cooja/contiki-conf.h, RIMEADDR_CONF_SIZE 8 in 2.7's
    /// platform/wismote/contiki-conf.h), so every frame carries two
    /// extended addresses and the far end of a route goes inline as a
    /// 64-bit interface identifier.
    pub addressing: LinkAddressing,
    /// The 6LoWPAN layer above writes the context identifier byte even for
    /// context 0, as Contiki's HC06 does (see
    /// `wpan::sixlowpan::Contexts::always_carry_cid`).
    pub contiki_context_byte: bool,
    /// The 6LoWPAN layer above reassembles one datagram at a time, as
    /// Contiki 3.0's does (see `wpan::fragment::Reassembler::contiki3`).
    pub contiki_reassembly: bool,
}

/// cxmac's encounter wait on a Cooja mote, from `now` to the wake-up it
/// expects of a neighbour last heard awake at `seen`, the check interval
/// being `ci`. cxmac.c `send_packet` computes `wait = ((rtimer_clock_t)
/// (e->time - now)) % DEFAULT_PERIOD`, meaning the time to the next
/// multiple of the period after `e->time`; that holds when the counter's
/// range is a multiple of the period, as on MSP430 motes (16 bits of a
/// 32,768 Hz rtimer, a power-of-two period). On a Cooja mote
/// `rtimer_clock_t` is `unsigned long` (platform/cooja/contiki-conf.h: 64
/// bits on x86-64) counting 1 ms ticks, and 2^64 is no multiple of a
/// 125, 250, 500 or 1 000 ms period: the wait comes out 2^64 mod period
/// ticks later than meant (116 ms, ≡ 9 ms early at 125 ms; 616 ms at 1 s).
/// A Cooja artefact; the oracle's `eo-on-unpatched` runs have it.
fn cooja_encounter_wait(now: Time, seen: Time, ci: Time) -> Time {
    let tick = COOJA_TICK_US;
    let period = u128::from((ci / tick).max(1));
    let behind = u128::from(now / tick - seen.min(now) / tick);
    // (e->time - now) in unsigned 64-bit arithmetic, then modulo the period
    let wrapped = ((1u128 << 64) - behind) % (1u128 << 64);
    (wrapped % period) as Time * tick
}

/// Contiki 2.7's rtimer on MSP430 platforms: 32,768 ticks a second
/// (platform/wismote/platform-conf.h RTIMER_CONF_SECOND (4096U*8)).
pub const CONTIKI_RTIMER_HZ: u64 = 32_768;

/// cxmac's on time in rtimer ticks (cxmac.c DEFAULT_ON_TIME =
/// RTIMER_ARCH_SECOND / 160 = 204 with integer division).
pub const CXMAC_ON_TIME_TICKS: u64 = CONTIKI_RTIMER_HZ / 160;

/// cxmac's check interval at its default 8 Hz channel check rate
/// (NETSTACK_RDC_CHANNEL_CHECK_RATE 8: RTIMER_ARCH_SECOND/8 ticks).
pub const CXMAC_CHECK_INTERVAL_US: Time = rtimer_us(CONTIKI_RTIMER_HZ / 8);

/// `ticks` of the 32,768 Hz rtimer in µs, rounded.
pub const fn rtimer_us(ticks: u64) -> Time {
    (ticks * 1_000_000 + CONTIKI_RTIMER_HZ / 2) / CONTIKI_RTIMER_HZ
}

impl XmacParams {
    /// The periods as they pass on a node whose clock is `crystal`: cxmac
    /// counts them in rtimer ticks and csma in clock ticks, both from the
    /// node's own 32 kHz crystal.
    pub fn counted_on(self, crystal: Crystal) -> Self {
        let t = |us: Time| crystal.true_duration(us);
        XmacParams {
            check_interval_us: t(self.check_interval_us),
            on_time_us: t(self.on_time_us),
            strobe_time_us: t(self.strobe_time_us),
            strobe_period_us: t(self.strobe_period_us),
            first_strobe_lead_us: self.first_strobe_lead_us.map(t),
            data_wait_us: t(self.data_wait_us),
            encounter_lead_us: t(self.encounter_lead_us),
            next_packet_wait_us: t(self.next_packet_wait_us),
            clock_tick_ns: crystal.true_duration(self.clock_tick_ns),
            rtimer_wrap_us: self.rtimer_wrap_us.map(t),
            ..self
        }
    }

    /// Contiki 2.7 cxmac on an MSP430 platform, for a given check interval,
    /// its rtimer constants counted in 32,768 Hz ticks (cxmac.c): on time
    /// RTIMER_ARCH_SECOND/160 = 204 ticks (6,226 µs); strobe wait time 7/8
    /// of it, 7·204/8 = 178 ticks (5,432 µs); strobe time 4·on + off = CI +
    /// 3·204 ticks (CI + 18,677 µs); the encounter lead 2·204 ticks (12,451
    /// µs). The listen window is one 128 Hz clock tick, csma's backoffs whole
    /// ticks, the sender listens before its first strobe and `someone_is_sending`
    /// holds sends back (see the fields). csma with [`CONTIKI_QUEUEBUF_NUM`]
    /// queued packets in at most [`CONTIKI_MAX_NEIGHBOR_QUEUES`] neighbour
    /// queues and one check interval between packets of a queue.
    pub fn contiki(check_interval_us: Time) -> Self {
        let on = CXMAC_ON_TIME_TICKS;
        XmacParams {
            check_interval_us,
            on_time_us: rtimer_us(on),
            strobe_time_us: check_interval_us + rtimer_us(3 * on),
            strobe_period_us: rtimer_us(7 * on / 8),
            first_strobe_lead_us: None,
            data_wait_us: rtimer_us(2 * on),
            encounter_optimization: true,
            encounter_lead_us: rtimer_us(2 * on),
            frame_processing_us: 0,
            phase_us: None,
            max_transmissions: 3,
            queue_capacity: CONTIKI_QUEUEBUF_NUM,
            neighbour_queues: CONTIKI_MAX_NEIGHBOR_QUEUES,
            next_packet_wait_us: check_interval_us,
            abort_on_strobe: true,
            lazy_idle_listening: true,
            security: None,
            crystal_tolerance_ppm: 0.0,
            clock_tick_ns: 1_000_000_000 / 128,
            listen_window_in_clock_ticks: true,
            listen_before_strobe: true,
            someone_is_sending: true,
            backoff_in_clock_ticks: true,
            // The 16-bit wrap is not modelled by default: with it, stock
            // cxmac could not strobe at all from CI 1 s on (its strobe_time,
            // also an rtimer_clock_t, exceeds RTIMER_CLOCK_LT's half range),
            // yet the reference measurements completed handshakes there, so
            // the measured firmware had wider timers.
            rtimer_wrap_us: None,
            waiting_for_packet: true,
            busy_send_cpu: true,
            deaf_encounter_wait: false,
            rebase_after_send: false,
            rebase_after_ack: false,
            cooja_mote_ticks: false,
            exponential_backoff: false,
            addressing: LinkAddressing::Short,
            contiki_context_byte: false,
            contiki_reassembly: false,
        }
    }

    /// How long a wake-up listens.
    pub fn listen_window_us(&self) -> Time {
        if self.listen_window_in_clock_ticks {
            let tick = self.clock_tick_ns;
            (self.on_time_us * 1000).div_ceil(tick) * tick / 1000
        } else {
            self.on_time_us
        }
    }
}

/// Why a train ended without its data sent (csma hears MAC_TX_NOACK or
/// MAC_TX_COLLISION either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// No strobe ACK within the strobe time: counts as a transmission.
    NoAck,
    /// `send_packet`'s strobe loop read another frame: not counted as a
    /// transmission, and `someone_is_sending` goes up by one.
    Collision,
    /// `qsend_packet` refused the send while `someone_is_sending`: neither.
    Refused,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tx {
    Idle,
    /// No train under way; the earliest neighbour queue timer is armed
    /// (a backoff, the wait between packets, or securing a frame). The
    /// radio duty-cycles meanwhile.
    Backoff,
    /// Waiting for the destination's expected wake-up (encounter optimisation).
    Waiting,
    /// Sensing the channel before the train.
    Cca,
    Strobing {
        train: EmissionId,
        dst: NodeId,
    },
    /// Strobe ACK heard; the data goes after the turnaround.
    DataDue,
    /// On a Cooja mote, cxmac's strobe loop run step by step
    /// ([`cooja_loop`]) over a strobe train to `dst`, cut and restarted
    /// where the loop's timing leaves the train's period; the loop runs
    /// on `Kind::Tx`.
    CoojaLoop {
        dst: NodeId,
        train: Option<EmissionId>,
    },
    SendingData(EmissionId),
}

crate::timer_kinds! {
    /// Timer kinds, one [`TimerTable`] entry each: re-arming a kind makes its
    /// earlier arming stale.
    enum Kind {
        Wake,
        Sleep,
        Tx,
        DataWait,
        Ack,
        /// A neighbour started a strobe train (an interrupt asked for by a
        /// lazy node, see [`Cx::wake_on_train`]).
        TrainHeard,
        /// A node this one hears put a frame on the air.
        FrameHeard,
    }
}

pub struct Xmac {
    p: XmacParams,
    phase: Time,
    tx: Tx,
    queues: NeighbourQueues,
    /// The neighbour whose packet the train under way carries.
    current: Option<NodeId>,
    /// Strobe ACKed, the data not yet here.
    waiting_for_data: bool,
    ack_to: Option<NodeId>,
    ack_on_air: Option<EmissionId>,
    /// When each neighbour was last heard awake (encounter optimisation).
    encounters: HashMap<NodeId, Time>,
    timers: TimerTable<Kind>,
    seq: u8,
    stats: MacStats,
    security: Option<NodeSecurity>,
    /// Lazy idle listening: since when the radio has been asleep between
    /// wake-ups (windows starting from then on are owed as listening time),
    /// up to when they have been charged, and the pending real wake-up.
    idle_since: Option<Time>,
    charged_until: Time,
    lazy_wake_at: Option<Time>,
    /// End of the listening window the duty cycle turned the radio on for.
    window_end: Option<Time>,
    /// Where this node's clock ticks fall: tick n ends at `tick_origin_ns` +
    /// n·`clock_tick_ns` (the node booted at its own moment).
    tick_origin_ns: u64,
    /// cxmac.c `someone_is_sending` as last set, and when.
    someone_sending: u8,
    someone_sending_at: Time,
    /// With `busy_send_cpu`: when the send under way began (its CPU time
    /// is charged when it ends).
    send_started: Option<Time>,
    /// When `send_packet` under way began (cxmac's busy loop).
    busy_since: Option<Time>,
    /// With `cooja_mote_ticks`, of the send under way: when the csma timer
    /// that began it was armed, and whether it began in its tick's first
    /// `process_run` (see [`Xmac::owed_step_runs_late`]).
    send_armed_at: Time,
    send_first_run: bool,
    /// When a data frame was last passed up, and when a packet came down
    /// other than at such an instant (an application's timer sent it).
    passed_up_at: Option<Time>,
    app_send_at: Option<Time>,
    /// With `cooja_mote_ticks`: a window's end fell due on the tick a
    /// strobe for this node ended in, and runs when its ACK has gone.
    window_end_owed_to_ack: bool,
    /// With `cooja_mote_ticks`: when uIP's periodic timer first expires
    /// (see [`CONTIKI_DS6_PERIOD_US`]).
    ds6_phase: Time,
    /// When the strobe being answered was heard.
    ack_busy_since: Option<Time>,
    /// With `cooja_mote_ticks`: when the duty cycle's pending window opening
    /// and closing run, once settled on the mote's ticks.
    wake_settled: Option<Time>,
    sleep_settled: Option<Time>,
    /// The same for the end of a send the lead's wait loop found a
    /// collision in (`LeadHeard::Read`).
    lead_abort_settled: Option<Time>,
    /// The same for csma's transmit timer (its wait for the next packet or
    /// a retry), a ctimer too.
    csma_settled: Option<Time>,
    /// When the duty cycle was last re-based (`rebase_duty_cycle`): its
    /// windows before then never opened.
    rebased_at: Time,
    /// When the listening before the first strobe began (`sense`).
    lead_started: Time,
    /// With `cooja_mote_ticks`: another node's frame heard in the lead
    /// before the first strobe (see `LeadHeard`).
    lead_heard: LeadHeard,
    /// With `cooja_mote_ticks`: the strobe loop run step by step.
    cooja: Option<CoojaLoopState>,
    /// With `cooja_mote_ticks`: the turnaround of a strobe ACK under way.
    ack_turnaround: Option<AckTurnaround>,
    /// With `cooja_mote_ticks`: a strobe for this node that arrived during
    /// that turnaround, waiting in the radio to be answered next.
    owed_strobe: Option<NodeId>,
}

/// When a Cooja mote that yielded at `yielded_at`, from its place `order`
/// at that instant, runs again ([`cooja_loop::next_run`] on the frames
/// its radio hears).
fn next_mote_run(
    cx: &Cx,
    yielded_at: Time,
    consumed: Option<Time>,
    order: RunOrder,
) -> (Time, bool) {
    next_run(
        yielded_at,
        consumed,
        |a, b| cx.first_wake_in(a, b),
        |a, b| cx.first_wake_after_tick(a, b, order),
    )
}

/// The loop reading the radio at `at`: the frame in its buffer if it had
/// ended by then, which the read takes out.
fn read_buffer(buffered: &mut Option<(Time, Option<Heard>)>, at: Time) -> Option<Heard> {
    match *buffered {
        Some((end, heard)) if end <= at => {
            *buffered = None;
            heard
        }
        _ => None,
    }
}

/// The first frame edge at a Cooja mote in a span of time, looked up once
/// for a run of its strobe loop's 1 ms ticks (each would otherwise ask
/// `first_wake` about its own millisecond; the answers are the same, the
/// frames on the air being the same within one event).
#[derive(Clone, Copy, Debug, Default)]
struct EdgesAhead {
    from: Time,
    until: Time,
    /// The first edge in `[from, until)`.
    first: Option<Time>,
}

/// How far [`EdgesAhead`] looks at once: past the loop's wait between two
/// strobes (its wait loop's 5 ticks, exit and 2 ms turnaround); further
/// on, it looks again (a span, not a limit: any span gives the same runs).
const EDGES_AHEAD_US: Time = 16 * COOJA_TICK_US;

impl EdgesAhead {
    /// Is there no edge in `[a, b)`?
    fn none_in(&mut self, cx: &Cx, a: Time, b: Time) -> bool {
        let known = self.from <= a && b <= self.until && self.first.is_none_or(|e| e >= a);
        if !known {
            self.from = a;
            self.until = b + EDGES_AHEAD_US;
            self.first = cx.first_wake_in(a, self.until);
        }
        self.first.is_none_or(|e| e >= b)
    }

    /// [`next_mote_run`] for the loop in `c`: with no edge in the
    /// millisecond after it yielded, its tick (whatever the edge rules), so
    /// `first_wake` is asked only when an edge is near.
    fn next_run(&mut self, cx: &Cx, c: &CoojaLoopState) -> (Time, bool) {
        let y = c.yielded_at;
        if self.none_in(cx, y, y + COOJA_TICK_US) {
            (y + COOJA_TICK_US, false)
        } else {
            next_mote_run(cx, y, c.consumed, c.order)
        }
    }
}

/// A Cooja mote answering a strobe: cooja-radio.c `radio_send` yields twice
/// for 1 ms before the ACK goes out (WITH_TURNAROUND), and a frame starting
/// or ending at its radio runs it at once ([`cooja_loop::next_run`]), so
/// the ACK follows the strobe by 2 ms when nothing else is heard and sooner
/// when another strobe starts and ends meanwhile (the Cooja oracle's radio
/// logs: 6 655 ACKs 2.000 ms after their strobe, 201 earlier, each on a
/// frame edge the receiver heard).
#[derive(Clone, Copy, Debug)]
struct AckTurnaround {
    yielded_at: Time,
    /// The wake-up event that ran the mote last, if one did.
    consumed: Option<Time>,
    /// Its place among the runs due at one instant.
    order: RunOrder,
    yields_left: u8,
}

/// A Cooja mote's strobe loop between its runs ([`cooja_loop`]).
#[derive(Clone, Copy, Debug)]
struct CoojaLoopState {
    /// The loop after the last strobe; None while a strobe is on the air
    /// (`Kind::Tx` fires as it ends).
    lp: Option<StrobeLoop>,
    /// The train's copy on the air, or last sent.
    copy: u64,
    /// `t0 + strobe_time`, in ms.
    train_until_ms: Time,
    /// When the strobe on the air began.
    strobe_start: Time,
    /// When the mote last yielded, and the wake-up event that ran it then.
    yielded_at: Time,
    consumed: Option<Time>,
    /// Its place among the runs due at one instant.
    order: RunOrder,
    /// The frame in the radio's one buffer (a newer one replaces it), and
    /// when it ended: read by the loop.
    buffered: Option<(Time, Option<Heard>)>,
}

/// uIP's periodic timer on a Contiki 3.0 IPv6 node: 100 ms (uip-ds6.h
/// UIP_DS6_PERIOD = CLOCK_SECOND / 10, armed in `uip_ds6_init`, re-armed by
/// `etimer_reset` in `uip_ds6_periodic`, which tcpip.c runs as it expires).
/// On a Cooja mote it decides, with cxmac's duty-cycle timer, when a
/// duty-cycle step owed during a send runs (see [`Xmac::owed_step_runs_late`]).
pub const CONTIKI_DS6_PERIOD_US: Time = 100_000;

/// On a Cooja mote, the end of the lead before the first strobe in which
/// the radio is no longer read: cxmac.c `send_packet` (Contiki 3.0 lines
/// 551-603) reads the radio in its strobe-wait loop, each `RTIMER_NOW()`
/// yielding 1 ms when read twice in one millisecond (platform/cooja
/// rtimer-arch.c), so after the loop's last read come its exit test (1
/// ms), `t = RTIMER_NOW()` (1 ms) and cooja-radio.c's 2 ms turnaround
/// before the strobe leaves. A frame received in those 4 ms stays in the
/// radio's buffer and is read, as a collision, only in the wait after the
/// first strobe. Seen in the oracle's radio log (reference/cooja): of the
/// trains whose first strobe followed another node's frame ending less than
/// the 10 ms lead before it, all 94 ended after that one strobe, the
/// frame having ended 1, 2 or 3 ms before it; none followed a frame ending
/// 4-9 ms before (those were read in time and no strobe went out).
const COOJA_LEAD_UNREAD_US: Time = 4 * COOJA_TICK_US;

/// On a Cooja mote, cooja-radio.c `radio_send` (WITH_TURNAROUND, lines
/// 175-182) yields twice for 1 ms before any frame longer than 3 bytes: a
/// strobe ACK leaves 2 ms after the strobe that woke the receiver ended
/// (ContikiRadio.java `signalReceptionEnd` wakes the mote at once). Seen in
/// the oracle's radio log (reference/cooja, h1-r2-ir100-debug100): 3,458
/// of 3,481 strobe ACKs start 2.000 ms after their strobe's end.
const COOJA_TURNAROUND_US: Time = 2 * COOJA_TICK_US;

/// What kept a mote from its duty cycle (`Xmac::rebase_duty_cycle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BusyPeriod {
    /// `send_packet` (csma's timer started it).
    Send,
    /// Answering a strobe heard in a window.
    StrobeAck,
}

/// On a Cooja mote, what a frame heard in the lead before the first strobe
/// does. cxmac.c `send_packet` counts it as a collision when its wait loop
/// reads the radio, sends no strobe and returns; the mote's window due
/// meanwhile then opens. When: by the oracle's radio log (h1-r1 and h1-r2,
/// 100 handshakes each), in every one of the 675 sends whose lead read a
/// strobe ending 0.7-2.7 ms after the radio came on, the window was open
/// for the next strobe, 6 ms after the read one ended: the send had returned
/// by the lead's last read, 6 ms in, not 8 ms in as counting the loop's
/// rtimer yields would give. Taken: the send returns at the lead's last
/// read, on the mote's tick. A frame the loop can no longer read
/// (`COOJA_LEAD_UNREAD_US`) is read after the first strobe, which ends the
/// train as a collision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeadHeard {
    Nothing,
    Read,
    Unread,
}

impl Xmac {
    pub fn new(p: XmacParams) -> Self {
        Xmac {
            p,
            phase: 0,
            tx: Tx::Idle,
            queues: NeighbourQueues::new(p.queue_capacity, p.neighbour_queues),
            current: None,
            waiting_for_data: false,
            ack_to: None,
            ack_on_air: None,
            encounters: HashMap::new(),
            timers: TimerTable::new(),
            seq: 0,
            stats: MacStats::default(),
            security: p.security.map(NodeSecurity::new),
            idle_since: None,
            charged_until: 0,
            lazy_wake_at: None,
            window_end: None,
            tick_origin_ns: 0,
            someone_sending: 0,
            someone_sending_at: 0,
            send_started: None,
            busy_since: None,
            send_armed_at: 0,
            send_first_run: true,
            passed_up_at: None,
            app_send_at: None,
            ds6_phase: 0,
            window_end_owed_to_ack: false,
            ack_busy_since: None,
            wake_settled: None,
            sleep_settled: None,
            lead_started: 0,
            lead_abort_settled: None,
            csma_settled: None,
            rebased_at: 0,
            lead_heard: LeadHeard::Nothing,
            ack_turnaround: None,
            owed_strobe: None,
            cooja: None,
        }
    }

    /// Should a duty-cycle step (`settled`: its settled time, if settled)
    /// that fell due now wait for the mote's tick (see
    /// `XmacParams::cooja_mote_ticks`)? Then its timer is moved there and
    /// true is returned. A window's close runs after a frame ending at its
    /// tick: a window closing as a strobe for it ends has heard the strobe.
    fn defer_to_cooja_tick(
        &mut self,
        cx: &mut Cx,
        kind: Kind,
        settled: fn(&mut Self) -> &mut Option<Time>,
    ) -> bool {
        if !self.p.cooja_mote_ticks {
            return false;
        }
        let now = cx.now();
        if settled(self).take() == Some(now) {
            return false;
        }
        let after_frame = Time::from(kind == Kind::Sleep);
        let at = on_cooja_tick(cx, now, after_frame);
        if at == now {
            return false;
        }
        *settled(self) = Some(at);
        if kind == Kind::Wake && self.lazy() {
            self.lazy_wake_at = Some(at);
        }
        self.timers.set(cx, kind, at);
        true
    }

    /// With `cooja_mote_ticks`: csma's transmit timer is a ctimer, so it
    /// expires as a duty-cycle step does, on the mote's tick after its
    /// clock tick (see [`on_cooja_tick`]). Seen in the oracle's radio log
    /// (reference/cooja/README.md, "The client's last flight resent at 2
    /// hops"): a queued datagram's first strobe leaves the CI plus 10 ms
    /// after the previous data frame's end plus the sub-millisecond shift
    /// of the last frame end the mote heard meanwhile. True when the
    /// timer was moved to that tick.
    fn csma_timer_waits_for_tick(&mut self, cx: &mut Cx) -> bool {
        let now = cx.now();
        let clock_due = self
            .queues
            .next_due()
            .is_some_and(|(dst, due)| due == now && self.queues.on_clock(dst));
        if !clock_due {
            self.csma_settled = None;
            return false;
        }
        self.defer_to_cooja_tick(cx, Kind::Tx, |m| &mut m.csma_settled)
    }

    fn lazy(&self) -> bool {
        self.p.lazy_idle_listening
    }

    /// When a ctimer set at `now` for `ticks` clock ticks expires: the
    /// clock counts on from its last tick (ctimer.c / etimer.c measure from
    /// `clock_time()`), so it expires on a tick.
    fn after_clock_ticks(&self, now: Time, ticks: u64) -> Time {
        let (tick, origin) = (self.p.clock_tick_ns, self.tick_origin_ns);
        let now_ns = now * 1000;
        let last_tick = if now_ns < origin {
            origin
        } else {
            origin + (now_ns - origin) / tick * tick
        };
        (last_tick + ticks * tick).div_ceil(1000)
    }

    /// `someone_is_sending` now: one is taken off at every wake-up since it
    /// was set (cxmac.c `cpowercycle`).
    fn someone_is_sending(&self, now: Time) -> u8 {
        if !self.p.someone_is_sending || self.someone_sending == 0 {
            return 0;
        }
        let (ci, set) = (self.p.check_interval_us, self.someone_sending_at);
        // wake-ups in (set, now] that ran: none of the re-based cycle's
        // before its re-basing
        let first = self.window_at_or_after((set + 1).max(self.rebased_at));
        let wakeups = if now < first {
            0
        } else {
            (now - first) / ci + 1
        };
        u64::from(self.someone_sending).saturating_sub(wakeups) as u8
    }

    /// Fold the wake-ups up to `t` into `someone_is_sending` before the
    /// duty cycle is re-based, so they still count: `someone_is_sending`
    /// counts only the current cycle's wake-ups since it was set. Each of
    /// them took one off in the oracle's instrumented run, whatever the
    /// cycle did after (reference/cooja/README.md, "A send refused while
    /// someone is sending").
    fn settle_someone_is_sending(&mut self, t: Time) {
        if self.someone_sending > 0 && self.someone_sending_at < t {
            let value = self.someone_is_sending(t);
            self.someone_sending = value;
            self.someone_sending_at = t;
        }
    }

    fn set_someone_is_sending(&mut self, now: Time, value: u8) {
        self.someone_sending = value;
        self.someone_sending_at = now;
    }

    /// Start of the first listening window at or after `t`.
    fn window_at_or_after(&self, t: Time) -> Time {
        let ci = self.p.check_interval_us;
        if t <= self.phase {
            self.phase
        } else {
            self.phase + (t - self.phase).div_ceil(ci) * ci
        }
    }

    /// The window (start) containing `t`, if `t` falls in one.
    fn window_containing(&self, t: Time) -> Option<Time> {
        let ci = self.p.check_interval_us;
        if t < self.phase {
            return None;
        }
        let start = self.phase + (t - self.phase) / ci * ci;
        (t < start + self.p.listen_window_us()).then_some(start)
    }

    /// When `waiting_for_packet`, set at `t`, runs out: at the end of the
    /// second on time ending after `t` (the one under way counts).
    fn second_on_time_end(&self, t: Time) -> Time {
        let on = self.p.listen_window_us();
        let first = match self.window_containing(t) {
            Some(start) => start + on,
            None => self.window_at_or_after(t) + on,
        };
        first + self.p.check_interval_us
    }

    /// Listening time owed for windows that started while asleep, over
    /// `[charged_until, until)`.
    fn owed_listening(&self, until: Time) -> Time {
        let Some(since) = self.idle_since else {
            return 0;
        };
        let (ci, on) = (self.p.check_interval_us, self.p.listen_window_us());
        let mut owed = 0;
        // A window starting the very microsecond the node fell asleep was
        // skipped: its wake-up came first and found the radio still on.
        let mut w = self.window_at_or_after(since + 1);
        while w < until {
            let a = w.max(self.charged_until);
            let b = (w + on).min(until);
            owed += b.saturating_sub(a);
            w += ci;
        }
        owed
    }

    /// Charge the owed windows up to now as listening time.
    fn charge_idle_listening(&mut self, cx: &mut Cx) {
        let now = cx.now();
        let owed = self.owed_listening(now);
        if owed > 0 {
            cx.reclassify_off_as_listen(owed);
        }
        self.charged_until = now;
    }

    fn radio_on(&mut self, cx: &mut Cx) {
        if cx.radio() == RadioState::Off {
            self.charge_idle_listening(cx);
            self.idle_since = None;
            cx.set_radio(RadioState::Listen);
        }
    }

    fn radio_off(&mut self, cx: &mut Cx) {
        if cx.radio() != RadioState::Off {
            self.window_end = None;
            cx.set_radio(RadioState::Off);
            let now = cx.now();
            self.idle_since = Some(now);
            self.charged_until = now;
            if self.lazy() {
                // a train still on the air may reach one of the next windows
                let end = cx.audible_train_end();
                self.arm_lazy_wake(cx, end);
            }
        }
    }

    /// Wake for real at the first window that a train ending at `end` can reach.
    fn arm_lazy_wake(&mut self, cx: &mut Cx, end: Option<Time>) {
        let Some(end) = end else {
            return;
        };
        let now = cx.now();
        // Inside a window that began after the node fell asleep it would be
        // listening already; a window that began while it was busy was skipped.
        let asleep_since = self.idle_since.unwrap_or(now);
        let at = match self.window_containing(now) {
            Some(start) if start > asleep_since => {
                // the window is open already: no tick to wait for
                self.wake_settled = Some(now);
                now
            }
            _ => self.window_at_or_after(now),
        };
        if at < end && self.lazy_wake_at.is_none_or(|t| at < t || t < now) {
            self.lazy_wake_at = Some(at);
            self.timers.set(cx, Kind::Wake, at);
        }
    }

    fn busy(&self) -> bool {
        // Waiting for a neighbour's wake-up or backing off, a node duty-cycles.
        !matches!(self.tx, Tx::Idle | Tx::Backoff | Tx::Waiting)
            || self.waiting_for_data
            || self.ack_to.is_some()
    }

    /// Answering a strobe or waiting for the data it announced.
    fn receiving(&self) -> bool {
        self.waiting_for_data || self.ack_to.is_some() || self.ack_on_air.is_some()
    }

    /// Radio off unless something keeps this node awake.
    fn maybe_sleep(&mut self, cx: &mut Cx) {
        if !self.busy() && self.ack_on_air.is_none() {
            self.radio_off(cx);
        }
    }

    fn strobe(&mut self, src: NodeId, dst: NodeId, kind: u8) -> Vec<u8> {
        self.seq = self.seq.wrapping_add(1);
        addressed_frame(self.p.addressing, self.seq, src, dst, vec![NALP, kind])
    }

    /// The queue the train under way belongs to.
    fn current_queue(&mut self) -> Option<&mut NeighbourQueue> {
        let dst = self.current?;
        self.queues.get_mut(dst)
    }

    /// No train under way: serve the queue whose timer has expired, or
    /// sleep until the earliest one does.
    fn schedule(&mut self, cx: &mut Cx) {
        self.current = None;
        let Some((dst, due)) = self.queues.next_due() else {
            self.tx = Tx::Idle;
            self.maybe_sleep(cx);
            return;
        };
        if due <= cx.now() {
            return self.serve(cx, dst);
        }
        self.tx = Tx::Backoff;
        self.maybe_sleep(cx);
        self.timers.set(cx, Kind::Tx, due);
    }

    /// A neighbour queue's timer has expired and the radio is free: send
    /// its head (csma.c `transmit_packet_list`, cxmac.c `qsend_list`): wait
    /// for an encounter, or sense and strobe.
    fn serve(&mut self, cx: &mut Cx, dst: NodeId) {
        self.current = Some(dst);
        let refused = if self.p.someone_is_sending {
            self.someone_is_sending(cx.now()) > 0
        } else {
            self.receiving()
        };
        if refused {
            // cxmac.c `qsend_packet`: someone is sending, MAC_TX_COLLISION
            return self.train_failed(cx, Failure::Refused);
        }
        let Some(ready) = self
            .current_queue()
            .and_then(|q| q.packets.front())
            .map(|p| p.ready_at)
        else {
            return self.schedule(cx);
        };
        let now = cx.now();
        if ready > now {
            // the CPU is still securing the frame
            self.queues.set_timer(dst, now, ready, false);
            return self.schedule(cx);
        }
        if self.queues.full() {
            // cxmac's `send_packet` finds no free queuebuf for the head:
            // MAC_TX_ERR, dropped
            return self.drop_head(cx);
        }
        if self.p.busy_send_cpu {
            self.send_started = Some(now);
        }
        self.busy_since = Some(now);
        self.send_armed_at = self.queues.armed_at(dst).unwrap_or(now);
        self.send_first_run = self.send_starts_first(now);
        if let (true, Some(&seen)) = (self.p.encounter_optimization, self.encounters.get(&dst)) {
            let ci = self.p.check_interval_us;
            let lead = self.p.encounter_lead_us;
            // cxmac.c `send_packet`: expected = now + (e->time - now) %
            // period - 2 on times; strobing starts at once when that has
            // passed (the neighbour wakes within the lead)
            let next_wake = if self.p.cooja_mote_ticks {
                now + cooja_encounter_wait(now, seen, ci)
            } else {
                match self.p.rtimer_wrap_us {
                    // the wait is taken modulo the period of a counter that
                    // has wrapped: known only modulo its range
                    Some(wrap) => {
                        let back = now.saturating_sub(seen) % wrap;
                        now + (wrap - back) % wrap % ci
                    }
                    None => seen + now.saturating_sub(seen).div_ceil(ci) * ci,
                }
            };
            let start = next_wake.saturating_sub(lead);
            if start > now {
                self.tx = Tx::Waiting;
                self.timers.set(cx, Kind::Tx, start);
                if self.p.deaf_encounter_wait {
                    return self.go_deaf(cx);
                }
                // otherwise: cxmac.c `send_packet` waits for the encounter without
                // touching the radio: a listening window in progress runs to
                // its end (the duty cycle's `powercycle` turns it off).
                if self.window_end.is_none_or(|end| end <= now) {
                    self.maybe_sleep(cx);
                }
                return;
            }
        }
        self.sense(cx);
    }

    /// The busy wait for an encounter: radio off, no wake-ups, nothing
    /// heard, no listening owed for the windows it spans.
    fn go_deaf(&mut self, cx: &mut Cx) {
        if cx.radio() == RadioState::Off {
            self.charge_idle_listening(cx);
        } else {
            cx.set_radio(RadioState::Off);
        }
        self.window_end = None;
        self.idle_since = None;
        self.lazy_wake_at = None;
        if self.lazy() {
            self.timers.stop(Kind::Wake);
        }
        self.timers.stop(Kind::Sleep);
    }

    /// Busy-waiting for an encounter inside `send_packet`.
    fn deaf(&self) -> bool {
        self.p.deaf_encounter_wait && self.tx == Tx::Waiting
    }

    /// `send_packet` has returned: its busy time is CPU time.
    fn send_ended(&mut self, cx: &mut Cx) {
        if let Some(start) = self.send_started.take() {
            cx.charge_cpu(cx.now() - start);
        }
        if let Some(start) = self.busy_since.take() {
            if self.p.rebase_after_send {
                self.rebase_duty_cycle(cx, start, BusyPeriod::Send);
            }
        }
    }

    /// `cpowercycle` runs late when a busy period (a send, or answering a
    /// strobe) that began at `start` ends now (see
    /// `XmacParams::rebase_after_send`): a wake-up that fell due opens its
    /// window then; a window end that fell due turns the radio off then
    /// and the next wake-up follows one off time later.
    fn rebase_duty_cycle(&mut self, cx: &mut Cx, start: Time, busy: BusyPeriod) {
        let (now, ci, on) = (
            cx.now(),
            self.p.check_interval_us,
            self.p.listen_window_us(),
        );
        // the wake-ups before the busy period ran on the cycle about to be
        // re-based: count them down now
        self.settle_someone_is_sending(start);
        // the busy period's end (its last frame's end) wakes the mote
        let run = now;
        // a Cooja mote's ctimer counts from the clock tick it runs in
        let tick = if self.p.cooja_mote_ticks {
            run / COOJA_TICK_US * COOJA_TICK_US
        } else {
            run
        };
        // A duty-cycle step owed during a send runs as it returns, or one
        // clock tick later, the mote's next run a whole millisecond on (see
        // `owed_step_runs_late`).
        let (run, tick) = if busy == BusyPeriod::Send && self.owed_step_runs_late(start, now) {
            let later = run + COOJA_TICK_US;
            (later, later / COOJA_TICK_US * COOJA_TICK_US)
        } else {
            (run, tick)
        };
        // A wake-up due on the clock tick a send began in waits for it when
        // csma's transmit timer ran first: both are ctimers expiring on one
        // tick, and Contiki runs timers expiring together newest-armed
        // first (etimer.c `add_timer` puts a timer at the head of its list,
        // `etimer_process` posts in list order). Seen in the oracle's
        // instrumented runs (reference/cooja/README.md, "When a step owed
        // during a send runs").
        let on_start_tick = |w: Time| {
            let same_tick = if self.p.cooja_mote_ticks {
                w / COOJA_TICK_US == start / COOJA_TICK_US
            } else {
                w == start
            };
            same_tick && (!self.p.cooja_mote_ticks || self.csma_armed_after_last_step(w))
        };
        match self.window_containing(start) {
            Some(w) if busy == BusyPeriod::Send && on_start_tick(w) => {
                self.open_window_at_send_end(cx, tick, run)
            }
            // the window end was due: off then, on again after the off time
            _ if std::mem::take(&mut self.window_end_owed_to_ack) => {
                self.phase = (tick + ci - on) % ci;
                self.rebased_at = run;
            }
            Some(w) if w + on <= now => {
                self.phase = (tick + ci - on) % ci;
                self.rebased_at = run;
            }
            Some(_) => {}
            None if self.window_at_or_after(start) < now => {
                // the wake-up was due: its window opens as the send returns
                self.open_window_at_send_end(cx, tick, run);
            }
            None => {}
        }
    }

    /// The duty cycle's last step (a window opening or closing) at or
    /// before `t`: when cxmac's ctimer was last armed.
    fn last_step_before(&self, t: Time) -> Time {
        let (ci, on) = (self.p.check_interval_us, self.p.listen_window_us());
        let grid = if t < self.phase {
            // before the first window: the previous cycle's close
            (self.phase + on).saturating_sub(ci)
        } else {
            let w = self.phase + (t - self.phase) / ci * ci;
            if w + on <= t {
                w + on
            } else if w < t {
                w
            } else {
                (w + on).saturating_sub(ci)
            }
        };
        if self.rebased_at < t {
            grid.max(self.rebased_at)
        } else {
            grid
        }
    }

    /// With a wake-up due at `w` on the tick the send under way began in:
    /// was csma's timer armed after the duty cycle's last step, so that it
    /// ran first (Contiki runs timers expiring together newest-armed first)?
    fn csma_armed_after_last_step(&self, w: Time) -> bool {
        self.send_armed_at > self.last_step_before(w)
    }

    /// Does a duty-cycle step owed during a send that began at `start` and
    /// returns at `end` run one clock tick late on a Cooja mote? The step's
    /// ctimer expired during the send, but a cooja mote's Contiki runs
    /// nothing else until the send returns (platform/cooja/contiki-cooja-
    /// main.c: a tick resumes the thread where it yielded). As it returns,
    /// the `process_run` loop has one pass left only if the send began in
    /// its tick's first pass, and that pass runs one expired timer's event:
    /// the newest-armed one's (etimer.c). So the step runs at once only if
    /// the send began in a first pass (a reply to a frame, or csma's timer
    /// with nothing newer due on its tick; not a packet an application's
    /// timer sent, whose csma timer needs the etimer process polled again)
    /// and no timer armed after the duty cycle's last step expired during
    /// the send: uIP's periodic timer ([`CONTIKI_DS6_PERIOD_US`]), re-armed
    /// at each expiry. Otherwise it runs on the next tick. Seen in the
    /// oracle's instrumented runs (reference/cooja/README.md): at 1 hop,
    /// CI 500 ms, of the steps owed at a send's end, 105 ran at once when
    /// the duty cycle's timer was first among the expired ones and 331 on
    /// the next tick when uIP's was.
    fn owed_step_runs_late(&self, start: Time, end: Time) -> bool {
        if !self.p.cooja_mote_ticks {
            return false;
        }
        if !self.send_first_run {
            return true;
        }
        let ds6 = CONTIKI_DS6_PERIOD_US;
        let tick = |t: Time| t / COOJA_TICK_US * COOJA_TICK_US;
        // uIP's last expiry at or before the send's start, and whether it
        // expired again during the send
        let start_tick = tick(start);
        let last = if start_tick < self.ds6_phase {
            None
        } else {
            Some(self.ds6_phase + (start_tick - self.ds6_phase) / ds6 * ds6)
        };
        let next = last.map_or(self.ds6_phase, |l| l + ds6);
        if next > tick(end) {
            return false;
        }
        last.is_some_and(|l| l >= tick(self.last_step_before(start)))
    }

    /// Does the send starting now begin in its tick's first `process_run`
    /// pass? Not when an application's timer sent the packet, and not when
    /// a wake-up due on this tick was armed after csma's timer (it runs
    /// first).
    fn send_starts_first(&mut self, now: Time) -> bool {
        if !self.p.cooja_mote_ticks {
            return true;
        }
        if self.app_send_at.take() == Some(now) {
            return false;
        }
        match self.window_containing(now) {
            Some(w) if w / COOJA_TICK_US == now / COOJA_TICK_US => {
                self.csma_armed_after_last_step(w)
            }
            _ => true,
        }
    }

    /// A wake-up that fell due in a busy period opens its window as the
    /// period ends (at `run`, on clock tick `tick`), and the cycle counts on
    /// from there.
    fn open_window_at_send_end(&mut self, cx: &mut Cx, tick: Time, run: Time) {
        self.phase = tick % self.p.check_interval_us;
        self.rebased_at = tick;
        if self.lazy() {
            self.lazy_wake_at = Some(run);
        }
        // the busy period's end woke the mote: the step runs then
        self.wake_settled = Some(run);
        self.timers.set(cx, Kind::Wake, run);
    }

    fn sense(&mut self, cx: &mut Cx) {
        if self.p.waiting_for_packet && self.waiting_for_data {
            // `send_packet` turns the radio off before its train and after
            // its data: the wait for someone's data ends here
            self.waiting_for_data = false;
            self.timers.stop(Kind::DataWait);
        }
        self.tx = Tx::Cca;
        self.lead_started = cx.now();
        self.lead_heard = LeadHeard::Nothing;
        self.radio_on(cx);
        let listen = if self.p.listen_before_strobe {
            self.first_strobe_lead()
        } else {
            phy::CCA_US
        };
        let at = cx.now() + listen;
        self.timers.set(cx, Kind::Tx, at);
    }

    /// How long a sender listens before its first strobe.
    fn first_strobe_lead(&self) -> Time {
        self.p
            .first_strobe_lead_us
            .unwrap_or(self.p.strobe_period_us)
    }

    fn begin_train(&mut self, cx: &mut Cx) {
        let Some(dst) = self.current else {
            return self.schedule(cx);
        };
        if !self.p.listen_before_strobe && cx.channel_busy(phy::CCA_US) {
            // someone is on the air: try again within one strobe period
            let wait = 1 + draw_below(cx, self.p.strobe_period_us);
            self.tx = Tx::Waiting;
            let at = cx.now() + wait;
            self.timers.set(cx, Kind::Tx, at);
            return;
        }
        let frame = self.strobe(cx.node, dst, STROBE);
        if self.p.cooja_mote_ticks {
            return self.begin_cooja_loop(cx, dst, frame);
        }
        // the train's time (cxmac.c: until t0 + strobe_time) counts from
        // before the listening; a lead longer than one period leaves less
        let extra_lead = if self.p.listen_before_strobe {
            self.first_strobe_lead()
                .saturating_sub(self.p.strobe_period_us)
        } else {
            0
        };
        let count = if self.lead_heard == LeadHeard::Unread {
            // the frame read after it ends the loop (COOJA_LEAD_UNREAD_US)
            1
        } else {
            self.p.strobe_time_us.saturating_sub(extra_lead) / self.p.strobe_period_us + 1
        };
        let period = self.p.strobe_period_us.max(airtime_us(frame.len()));
        if !self.p.busy_send_cpu {
            cx.charge_cpu(self.p.frame_processing_us);
        }
        let train = cx.transmit_train(frame, period, count);
        self.tx = Tx::Strobing { train, dst };
    }

    /// A Cooja mote's first strobe: the loop goes step by step from here
    /// ([`cooja_loop`]); `t0` was read as the send began.
    fn begin_cooja_loop(&mut self, cx: &mut Cx, dst: NodeId, frame: Vec<u8>) {
        let now = cx.now();
        let t0_ms = self.lead_started / COOJA_TICK_US;
        // a frame the lead could no longer read waits in the radio
        let buffered = (self.lead_heard == LeadHeard::Unread).then_some((now, Some(Heard::Other)));
        self.lead_heard = LeadHeard::Nothing;
        self.cooja = Some(CoojaLoopState {
            lp: None,
            copy: 0,
            train_until_ms: t0_ms + self.p.strobe_time_us / COOJA_TICK_US,
            strobe_start: now,
            yielded_at: now,
            consumed: None,
            order: (now, 0),
            buffered,
        });
        if cx.cooja_cca_busy() {
            // cooja-radio.c's CCA: no first strobe; the loop goes on
            self.tx = Tx::CoojaLoop { dst, train: None };
            return self.cooja_strobe_refused(cx);
        }
        self.cooja_train_from(cx, dst, frame);
    }

    /// Strobes every strobe period from now until the train's time is up
    /// (a train, so sleeping neighbours learn of it; the loop cuts it).
    fn cooja_train_from(&mut self, cx: &mut Cx, dst: NodeId, frame: Vec<u8>) {
        let now = cx.now();
        let Some(c) = &mut self.cooja else {
            return;
        };
        // the loop's period when nothing is heard (the train's copies; the
        // loop cuts the train where it strobes otherwise)
        let airtime = cx.w.channel.airtime.of(&frame);
        let period = airtime + cooja_loop::UNDISTURBED_GAP_US;
        let until = c.train_until_ms * COOJA_TICK_US;
        let count = until.saturating_sub(now) / period + 1;
        let train = cx.transmit_train(frame, period, count);
        c.copy = 0;
        c.strobe_start = now;
        c.lp = None;
        self.stats.strobes_sent += 1;
        self.tx = Tx::CoojaLoop {
            dst,
            train: Some(train),
        };
        self.timers.set(cx, Kind::Tx, now + airtime);
    }

    /// cooja-radio.c's CCA refused a strobe: cxmac ignores
    /// RADIO_TX_COLLISION and its loop goes on as after a strobe.
    fn cooja_strobe_refused(&mut self, cx: &mut Cx) {
        let now = cx.now();
        let Some(c) = &mut self.cooja else {
            return;
        };
        match StrobeLoop::after_strobe(now, now, c.train_until_ms) {
            Some(lp) => {
                c.lp = Some(lp);
                c.yielded_at = now;
                c.consumed = None;

                self.run_cooja_loop(cx)
            }
            None => {
                self.cooja = None;
                self.train_failed(cx, Failure::NoAck)
            }
        }
    }

    /// Stop a Cooja mote's train after the copy last sent.
    fn cut_cooja_train(&mut self, cx: &mut Cx) {
        if let (
            Tx::CoojaLoop {
                train: Some(train), ..
            },
            Some(c),
        ) = (self.tx, self.cooja)
        {
            if cx.w.channel.get(train).is_some() {
                cx.end_train(train, c.copy + 1);
            }
        }
    }

    /// A Cooja mote's strobe ended: the loop's `for` test, then its wait.
    fn cooja_strobe_ended(&mut self, cx: &mut Cx) {
        let now = cx.now();
        let Some(c) = &mut self.cooja else {
            return;
        };
        let Some(lp) = StrobeLoop::after_strobe(c.strobe_start, now, c.train_until_ms) else {
            // the train's time is up: no ACK read, no data
            self.cut_cooja_train(cx);
            self.cooja = None;
            return self.train_failed(cx, Failure::NoAck);
        };
        c.lp = Some(lp);
        c.yielded_at = now;
        c.consumed = None;
        // its own frame's end runs it first
        c.order = (now, 0);
        self.run_cooja_loop(cx);
    }

    /// Run the loop's steps due by now, each when the mote ran (1 ms after
    /// it yielded, or at a frame start or end it heard before that: those
    /// are known only once on the air, so steps are caught up here), and
    /// suspend it until its next run — or, with
    /// [`World::skip_quiet_loop_steps`](crate::world::World), until the
    /// first run that can do something another node or layer sees
    /// ([`Xmac::next_loud_step`]); the quiet runs before it are caught up
    /// then, or when a frame reaches the radio's buffer first.
    fn run_cooja_loop(&mut self, cx: &mut Cx) {
        let Tx::CoojaLoop { dst, train } = self.tx else {
            return;
        };
        let now = cx.now();
        let mut edges = EdgesAhead::default();
        loop {
            let Some(c) = &self.cooja else {
                return;
            };
            let (at, by_event) = if cx.w.skip_quiet_loop_steps {
                edges.next_run(cx, c)
            } else {
                next_mote_run(cx, c.yielded_at, c.consumed, c.order)
            };
            if at > now {
                return self.arm_cooja_loop(cx, at, by_event, &mut edges);
            }
            let action = self.take_cooja_step(at, by_event, dst);
            debug_assert!(
                action == Action::Yield || at == now,
                "the loop's step at {at} acts only at {now}: a loud step was not planned"
            );
            let Some(c) = &mut self.cooja else {
                return;
            };
            match action {
                Action::Yield => {}
                Action::SendStrobe if cx.cooja_cca_busy() => {
                    self.cut_cooja_train(cx);
                    return self.cooja_strobe_refused(cx);
                }
                Action::SendStrobe => {
                    let next = c.copy + 1;
                    let nominal = train
                        .and_then(|t| cx.w.channel.get(t))
                        .filter(|e| next < e.count)
                        .filter(|e| e.copy_start(next) == now)
                        .map(|e| e.airtime);
                    if let Some(airtime) = nominal {
                        // the train's next copy is this strobe
                        let order = c.order;
                        cx.order_last_emission(order);
                        c.copy = next;
                        c.strobe_start = now;
                        c.lp = None;
                        self.stats.strobes_sent += 1;
                        self.timers.set(cx, Kind::Tx, now + airtime);
                        return;
                    }
                    let order = c.order;
                    self.cut_cooja_train(cx);
                    let frame = self.strobe(cx.node, dst, STROBE);
                    self.cooja_train_from(cx, dst, frame);
                    return cx.order_last_emission(order);
                }
                Action::SendData => {
                    let order = c.order;
                    self.cut_cooja_train(cx);
                    self.cooja = None;
                    self.send_data(cx);
                    if matches!(self.tx, Tx::SendingData(_)) {
                        cx.order_last_emission(order);
                    }
                    return;
                }
                Action::Collision => {
                    self.cut_cooja_train(cx);
                    self.cooja = None;
                    return self.train_failed(cx, Failure::Collision);
                }
            }
        }
    }

    /// Take the loop's step at `at`, when the mote ran (woken by a frame
    /// edge if `by_event`): the state it leaves, and what it does.
    fn take_cooja_step(&mut self, at: Time, by_event: bool, dst: NodeId) -> Action {
        let Some(c) = &mut self.cooja else {
            return Action::Yield;
        };
        let mut lp = c.lp.expect("the loop runs after a strobe");
        let buffered = &mut c.buffered;
        let action = lp.run(at, || read_buffer(buffered, at));
        c.lp = Some(lp);
        c.yielded_at = at;
        c.consumed = by_event.then_some(at);
        if by_event {
            // a frame it heard ran it: it runs after that frame's sender
            c.order = (at, 1);
        }
        if action == Action::Yield && lp.acked() && lp.step == cooja_loop::Step::LoopExit {
            // cxmac.c: `encounter_time = now` as the ACK is read
            self.encounters.insert(dst, at);
        }
        action
    }

    /// Queue the loop's coming runs, the next being at `at` (by a frame
    /// edge if `by_event`): with [`World::skip_quiet_loop_steps`](crate::world::World)
    /// as one event at the first run that can do something seen outside
    /// the loop ([`Xmac::next_loud_step`]), queued via the quiet runs
    /// before it as hops ([`crate::queue::EventQueue::schedule_via_hops`]):
    /// it keeps the place among the events due at its instant that it has
    /// when every run is an event re-arming the timer for the next.
    fn arm_cooja_loop(&mut self, cx: &mut Cx, at: Time, by_event: bool, edges: &mut EdgesAhead) {
        if !cx.w.skip_quiet_loop_steps {
            return self.timers.set(cx, Kind::Tx, at);
        }
        match self.next_loud_step(cx, at, by_event, edges) {
            (target, Some(last)) => {
                // the quiet runs from `at` to `last` are 1 ms ticks
                let hops = crate::queue::Hops {
                    step: cooja_loop::TICK_US,
                    last,
                    at: target,
                };
                self.timers.set_via_hops(cx, Kind::Tx, at, hops);
            }
            (target, None) => self.timers.set(cx, Kind::Tx, target),
        }
    }

    /// The first of the loop's coming runs, the next being at `at` (by a
    /// frame edge if `by_event`), to be an event, and the quiet run before
    /// it (None: it is the next). Loud runs: one a frame edge brings, or at
    /// the instant of one (whether the edge runs the mote again depends on
    /// who ran first), or one that sends or ends the loop. The quiet runs
    /// only yield on the mote's 1 ms ticks; what they change (the step, the
    /// time read, the frame read from the radio's buffer) only the loop
    /// reads, and they are taken when the mote next runs for real
    /// ([`Xmac::run_cooja_loop`]: the same steps at the same times, as the
    /// frames on the air then give them) or before a frame reaches the
    /// buffer ([`Xmac::catch_up_cooja_loop`]). A frame that goes on the air
    /// meanwhile runs the loop at once (`Kind::FrameHeard`), which plans
    /// anew; a frame edge brought by a train's copy can still vanish (the
    /// train cut before it) with no run, so such a run is planned only to
    /// the quiet run before it, whose event then looks again, as when
    /// every run is one.
    fn next_loud_step(
        &self,
        cx: &Cx,
        mut at: Time,
        mut by_event: bool,
        edges: &mut EdgesAhead,
    ) -> (Time, Option<Time>) {
        let Some(mut c) = self.cooja else {
            return (at, None);
        };
        // the last two quiet runs planned
        let (mut last_quiet, mut before_last) = (None, None);
        loop {
            if by_event {
                return match last_quiet {
                    Some(q) => (q, before_last),
                    None => (at, None),
                };
            }
            let Some(mut lp) = c.lp else {
                return (at, last_quiet);
            };
            if !edges.none_in(cx, at, at + 1) {
                return (at, last_quiet);
            }
            let buffered = &mut c.buffered;
            if lp.run(at, || read_buffer(buffered, at)) != Action::Yield {
                return (at, last_quiet);
            }
            c.lp = Some(lp);
            c.yielded_at = at;
            c.consumed = None;
            before_last = last_quiet;
            last_quiet = Some(at);
            (at, by_event) = edges.next_run(cx, &c);
        }
    }

    /// Take the loop's quiet steps due before `before` (a frame reaching
    /// the radio's buffer then: the steps before it read the buffer as it
    /// was). Only with [`World::skip_quiet_loop_steps`](crate::world::World):
    /// otherwise each ran as its own event.
    fn catch_up_cooja_loop(&mut self, cx: &Cx, before: Time) {
        if !cx.w.skip_quiet_loop_steps {
            return;
        }
        let Tx::CoojaLoop { dst, .. } = self.tx else {
            return;
        };
        let mut edges = EdgesAhead::default();
        loop {
            let Some(c) = &self.cooja else {
                return;
            };
            let Some(mut lp) = c.lp else {
                return;
            };
            let (at, by_event) = edges.next_run(cx, c);
            if at >= before {
                return;
            }
            // a step that acts is a planned run (`next_loud_step`), never
            // one caught up here: look before taking it
            let mut buffered = c.buffered;
            if lp.run(at, || read_buffer(&mut buffered, at)) != Action::Yield {
                debug_assert!(false, "a loud step at {at} caught up before {before}");
                return;
            }
            self.take_cooja_step(at, by_event, dst);
        }
    }

    /// A frame heard during a Cooja mote's strobe loop: it waits in the
    /// radio for the loop to read it (ContikiRadio.java
    /// `signalReceptionEnd`; a newer frame replaces it). An ACK for someone
    /// else reads as nothing.
    fn buffer_in_cooja_loop(
        &mut self,
        rx: &Received,
        view: &wpan::frame::Frame<&[u8]>,
        dst: NodeId,
        for_me: bool,
    ) {
        let Some(c) = &mut self.cooja else {
            return;
        };
        let heard = match view.payload_without_ies() {
            Some([NALP, STROBE_ACK]) if for_me && rx.from == dst => Some(Heard::Ack),
            Some([NALP, STROBE_ACK]) => None,
            _ => Some(Heard::Other),
        };
        c.buffered = Some((rx.at, heard));
    }

    /// No strobe ACK, a collision, or a send refused: back off this
    /// neighbour's queue and try again, or give up on its head.
    fn train_failed(&mut self, cx: &mut Cx, failure: Failure) {
        self.send_ended(cx);
        let max = self.p.max_transmissions;
        let Some(q) = self.current_queue() else {
            return self.schedule(cx);
        };
        if failure == Failure::NoAck {
            q.transmissions += 1;
            if q.transmissions >= max {
                return self.drop_head(cx);
            }
        }
        let transmissions = q.transmissions;
        self.stats.retransmissions += 1;
        if failure == Failure::Collision && self.p.someone_is_sending {
            // cxmac.c `send_packet`: `someone_is_sending++` on a collision;
            // not when `qsend_packet` refused the send (it returns
            // MAC_TX_COLLISION without calling `send_packet`). Seen in the
            // oracle's instrumented run (reference/cooja/README.md, "A send
            // refused while someone is sending").
            let now = cx.now();
            let v = self.someone_is_sending(now).saturating_add(1);
            self.set_someone_is_sending(now, v);
        }
        // Contiki 2.7 csma.c `packet_sent`: time = channel check interval;
        // backoff_transmissions = transmissions + 1, at most 3; next try at
        // time + random_rand() % (backoff_transmissions * time). Contiki
        // 3.0: backoff_transmissions = 1 << min(transmissions, 3)
        // (CSMA_MAX_BACKOFF_EXPONENT).
        let ci = self.p.check_interval_us;
        let k = self.backoff_spread(transmissions);
        let at = if self.p.backoff_in_clock_ticks {
            let time = self.ci_in_clock_ticks();
            let ticks = time + draw_below(cx, k * time);
            self.after_clock_ticks(cx.now(), ticks)
        } else if self.p.cooja_mote_ticks {
            // a ctimer of whole 1 ms ticks from the tick it is set in
            // (the cooja platform's CLOCK_CONF_SECOND 1000)
            let spread = draw_below(cx, k * ci) / COOJA_TICK_US * COOJA_TICK_US;
            ctimer_due(cx.now(), ci + spread)
        } else {
            cx.now() + ci + draw_below(cx, k * ci)
        };
        let dst = self.current.expect("a queue is being served");
        self.queues.set_timer(dst, cx.now(), at, true);
        self.tx = Tx::Idle;
        self.schedule(cx);
    }

    /// After `transmissions` failed trains, csma's retry waits one check
    /// interval plus a draw below this many (see `train_failed`).
    fn backoff_spread(&self, transmissions: u32) -> u64 {
        if self.p.exponential_backoff {
            1u64 << transmissions.min(3)
        } else {
            u64::from((transmissions + 1).min(3))
        }
    }

    /// cxmac.c `channel_check_interval`: the period in clock ticks
    /// (CLOCK_SECOND·DEFAULT_PERIOD/RTIMER_ARCH_SECOND, truncated).
    fn ci_in_clock_ticks(&self) -> u64 {
        (self.p.check_interval_us * 1000 / self.p.clock_tick_ns).max(1)
    }

    fn drop_head(&mut self, cx: &mut Cx) {
        if let Some(q) = self.current_queue() {
            q.packets.pop_front();
        }
        self.stats.drops += 1;
        self.after_packet(cx);
    }

    /// The head has left the current queue (csma.c `free_packet`): the
    /// queue's next packet waits `next_packet_wait_us`; an emptied queue is
    /// freed.
    fn after_packet(&mut self, cx: &mut Cx) {
        if let Some(dst) = self.current {
            let at = if self.p.backoff_in_clock_ticks {
                let ticks = self.p.next_packet_wait_us * 1000 / self.p.clock_tick_ns;
                self.after_clock_ticks(cx.now(), ticks)
            } else if self.p.cooja_mote_ticks {
                // whole 1 ms ticks from the tick it is set in
                ctimer_due(cx.now(), self.p.next_packet_wait_us)
            } else {
                cx.now() + self.p.next_packet_wait_us
            };
            self.queues.head_done(dst, cx.now(), at, true);
        }
        self.tx = Tx::Idle;
        self.schedule(cx);
    }

    /// The data frame is done with (on the air or not): csma's next.
    fn data_sent(&mut self, cx: &mut Cx) {
        self.send_ended(cx);
        if let Some(q) = self.current_queue() {
            q.packets.pop_front();
        }
        self.after_packet(cx);
    }

    /// The answer to a strobe is over (sent, or refused by a Cooja mote's
    /// CCA): the duty cycle goes on from here.
    fn ack_ended(&mut self, cx: &mut Cx) {
        if let Some(start) = self.ack_busy_since.take() {
            if self.p.rebase_after_send && self.p.rebase_after_ack {
                self.rebase_duty_cycle(cx, start, BusyPeriod::StrobeAck);
            }
        }
    }

    fn send_data(&mut self, cx: &mut Cx) {
        let Some(frame) = self
            .current_queue()
            .and_then(|q| q.packets.front())
            .map(|p| p.frame.clone())
        else {
            return self.schedule(cx);
        };
        self.stats.data_frames_sent += 1;
        self.stats.data_bytes_sent += frame.len() as u64;
        if !self.p.busy_send_cpu {
            cx.charge_cpu(self.p.frame_processing_us);
        }
        if self.p.cooja_mote_ticks && cx.cooja_cca_busy() {
            // cooja-radio.c's CCA: the data does not go out, and cxmac
            // ignores it (csma hears MAC_TX_OK)
            return self.data_sent(cx);
        }
        let id = cx.transmit(frame);
        self.tx = Tx::SendingData(id);
    }

    /// Answer a strobe from `from` that ended at `end` after the
    /// turnaround, and stay awake for the data.
    fn answer_strobe(&mut self, cx: &mut Cx, from: NodeId, end: Time, order: RunOrder) {
        if self.p.someone_is_sending {
            self.set_someone_is_sending(cx.now(), 1);
        }
        self.ack_to = Some(from);
        self.ack_busy_since = Some(cx.now());
        self.waiting_for_data = true;
        let at = if self.p.cooja_mote_ticks {
            // the strobe's end ran the mote: the turnaround's first yield
            // returns at the next event after it, or 1 ms on
            self.ack_turnaround = Some(AckTurnaround {
                yielded_at: end,
                consumed: Some(end),
                order,
                yields_left: 2,
            });
            self.run_ack_turnaround(cx);
            end + COOJA_TURNAROUND_US
        } else {
            let at = end + phy::TURNAROUND_US;
            self.timers.set(cx, Kind::Ack, at);
            at
        };
        let until = if self.p.waiting_for_packet {
            self.second_on_time_end(cx.now())
        } else {
            at + self.p.data_wait_us
        };
        self.timers.set(cx, Kind::DataWait, until);
    }

    /// Take the ACK turnaround's yields due by now (each when the mote ran:
    /// 1 ms after it yielded, or at a frame edge it heard before that), and
    /// send the ACK after the second; else wait for the next run.
    fn run_ack_turnaround(&mut self, cx: &mut Cx) {
        let now = cx.now();
        while let Some(t) = &mut self.ack_turnaround {
            let (at, by_event) = next_mote_run(cx, t.yielded_at, t.consumed, t.order);
            if at > now {
                self.timers.set(cx, Kind::Ack, at);
                return;
            }
            t.yielded_at = at;
            t.consumed = by_event.then_some(at);
            if by_event {
                // a frame it heard ran it: it runs after that frame's sender
                t.order = (at, 1);
            }
            t.yields_left -= 1;
            if t.yields_left == 0 {
                let order = t.order;
                self.ack_turnaround = None;
                self.send_ack(cx);
                if self.ack_on_air.is_some() {
                    cx.order_last_emission(order);
                }
            }
        }
    }

    /// Put the strobe ACK owed on the air, unless cooja-radio.c's CCA
    /// refuses it (then nothing goes out, and the next strobe waiting in
    /// the radio is answered).
    fn send_ack(&mut self, cx: &mut Cx) {
        let Some(to) = self.ack_to.take() else {
            return;
        };
        if self.p.cooja_mote_ticks && cx.cooja_cca_busy() {
            self.ack_ended(cx);
            return self.answer_owed_strobe(cx);
        }
        let frame = self.strobe(cx.node, to, STROBE_ACK);
        self.ack_on_air = Some(cx.transmit(frame));
    }

    /// A Cooja mote's `radio_send` returned: a strobe that waited in the
    /// radio meanwhile is read and answered now, with its own turnaround
    /// (the oracle's logs: the second ACK 2.000 ms after the first ends).
    fn answer_owed_strobe(&mut self, cx: &mut Cx) {
        if let Some(from) = self.owed_strobe.take() {
            if matches!(self.tx, Tx::Idle | Tx::Waiting | Tx::Backoff) {
                let now = cx.now();
                // its own ACK's end ran it, before the radios that heard it
                self.answer_strobe(cx, from, now, (now, 0));
            }
        }
    }

    /// A strobe was heard, for this node or for another.
    fn strobe_heard(&mut self, cx: &mut Cx, rx: &Received, for_me: bool) {
        if self.p.someone_is_sending {
            // cxmac.c `input_packet`: someone_is_sending = 2 (the strobe
            // loop of a sender does not pass frames there)
            if !matches!(
                self.tx,
                Tx::Strobing { .. } | Tx::Cca | Tx::CoojaLoop { .. }
            ) {
                self.set_someone_is_sending(cx.now(), 2);
            }
        }
        if self.p.abort_on_strobe && matches!(self.tx, Tx::Strobing { .. } | Tx::Cca) {
            // someone else is strobing too: abort ours (cxmac counts a collision)
            self.abort_train(cx);
        } else if for_me
            && matches!(self.tx, Tx::Idle | Tx::Waiting | Tx::Backoff)
            && self.ack_on_air.is_none()
        {
            if self.ack_turnaround.is_some() {
                // a Cooja mote answering another strobe: this one waits in
                // the radio's buffer and is answered once that ACK is out
                // (cxmac.c `input_packet` answers every strobe it reads)
                self.owed_strobe = Some(rx.from);
                return;
            }
            self.answer_strobe(cx, rx.from, rx.at, (rx.at, 1));
        } else if !for_me {
            if self.ack_turnaround.is_some() {
                // the radio's one-frame buffer now holds this strobe instead
                self.owed_strobe = None;
            }
            // a strobe for someone else: back to sleep, or (cxmac.c
            // `input_packet` does not call `off()` for it) on to the end of
            // the listening window, whose timer turns the radio off
            let now = cx.now();
            let window_open = self.window_end.is_some_and(|end| end > now);
            if !(self.p.someone_is_sending && window_open) {
                self.maybe_sleep(cx);
            }
        }
    }

    /// A data frame for another node: it ends a strobe loop as a
    /// collision (with `listen_before_strobe`); otherwise it clears
    /// `someone_is_sending` (cxmac.c `input_packet`, no cxmac dispatch).
    fn other_frame_heard(&mut self, cx: &mut Cx) {
        if matches!(self.tx, Tx::Strobing { .. } | Tx::Cca) {
            if self.p.listen_before_strobe {
                self.abort_train(cx);
            }
        } else if self.p.someone_is_sending {
            self.set_someone_is_sending(cx.now(), 0);
        }
    }

    /// Another node's frame ended our strobe loop (or the listening before
    /// it): cxmac.c `send_packet` counts a collision and sends no data.
    fn abort_train(&mut self, cx: &mut Cx) {
        match self.tx {
            Tx::Strobing { train, .. } => {
                let e = cx.w.channel.get(train).expect("our train").clone();
                let sent = (cx.now() - e.start).div_ceil(e.period).min(e.count);
                self.stats.strobes_sent += sent;
                cx.end_train(train, sent);
                self.train_failed(cx, Failure::Collision);
            }
            Tx::Cca if self.p.listen_before_strobe => {
                if self.p.cooja_mote_ticks {
                    // the lead runs its course (LeadHeard)
                    let first_strobe = self.lead_started + self.first_strobe_lead();
                    if self.lead_heard == LeadHeard::Nothing {
                        if cx.now() + COOJA_LEAD_UNREAD_US > first_strobe {
                            self.lead_heard = LeadHeard::Unread;
                        } else {
                            self.lead_heard = LeadHeard::Read;
                            let tick = self.lead_started / COOJA_TICK_US * COOJA_TICK_US;
                            let at = (tick + self.first_strobe_lead())
                                .saturating_sub(COOJA_LEAD_UNREAD_US)
                                .max(cx.now());
                            self.timers.set(cx, Kind::Tx, at);
                        }
                    }
                    return;
                }
                self.timers.stop(Kind::Tx);
                self.train_failed(cx, Failure::Collision);
            }
            _ => {}
        }
    }
}

impl Mac for Xmac {
    fn start(&mut self, cx: &mut Cx) {
        if self.p.crystal_tolerance_ppm > 0.0 {
            use rand::RngExt;
            // the node's own crystal, drawn from the seed
            let unit: f64 = cx.rng().random();
            let crystal = Crystal::within(self.p.crystal_tolerance_ppm, unit);
            self.p = self.p.counted_on(crystal);
        }
        let tick = self.p.clock_tick_ns;
        if self.p.listen_window_in_clock_ticks || self.p.backoff_in_clock_ticks {
            // estimate: nodes boot at unrelated moments, so where a node's
            // clock ticks fall is uniform within one tick
            self.tick_origin_ns = draw_below(cx, tick);
        }
        self.phase = match self.p.phase_us {
            Some(p) => p % self.p.check_interval_us,
            None if self.p.listen_window_in_clock_ticks => {
                // the duty cycle's ctimer starts every window on a tick
                let ticks = (self.p.check_interval_us * 1000 / tick).max(1);
                (self.tick_origin_ns + draw_below(cx, ticks) * tick) / 1000
            }
            // a Cooja mote's clock ticks every millisecond from its boot,
            // which falls on a whole millisecond
            None if self.p.cooja_mote_ticks => {
                draw_below(cx, (self.p.check_interval_us / COOJA_TICK_US).max(1)) * COOJA_TICK_US
            }
            None => draw_below(cx, self.p.check_interval_us),
        };
        if self.p.cooja_mote_ticks {
            cx.wake_on_frame(Some(self.timers.interrupt(Kind::FrameHeard)));
            // uIP's periodic timer starts as the mote boots, on a whole
            // millisecond: its phase within the period is uniform
            self.ds6_phase = draw_below(cx, CONTIKI_DS6_PERIOD_US / COOJA_TICK_US) * COOJA_TICK_US;
        }
        if self.lazy() {
            let now = cx.now();
            self.idle_since = Some(now);
            self.charged_until = now;
            // idle wake-ups are not simulated: hear of trains instead
            cx.wake_on_train(Some(self.timers.interrupt(Kind::TrainHeard)));
        } else {
            let at = self.phase;
            self.timers.set(cx, Kind::Wake, at);
        }
    }

    fn settle_energy(&mut self, cx: &mut Cx) {
        if cx.radio() == RadioState::Off {
            self.charge_idle_listening(cx);
        }
    }

    fn send(&mut self, cx: &mut Cx, next_hop: NodeId, payload: Vec<u8>) {
        self.seq = self.seq.wrapping_add(1);
        let (frame, ready_at) = queued_data_frame(
            cx,
            self.security.as_mut(),
            self.p.addressing,
            self.seq,
            next_hop,
            payload,
        );
        // Numbered and secured before a queue can refuse it, as in Contiki
        // (csma.c `send_packet` sets PACKETBUF_ATTR_MAC_SEQNO first; llsec
        // secures above csma). Then the neighbour's queue, or a new one if a
        // neighbour_queue is free, and a packet buffer from the shared pool;
        // failing either, MAC_TX_ERR: the packet is dropped.
        let Some(queued) = self.queues.push(next_hop, Pending { frame, ready_at }) else {
            self.stats.drops += 1;
            self.stats.drops_queue_full += 1;
            return;
        };
        if queued == 1 {
            // the first packet of its queue goes as soon as it can
            // (`ctimer_set(&n->transmit_timer, 0, ...)`)
            let now = cx.now();
            self.queues.set_timer(next_hop, now, now, false);
            if self.passed_up_at != Some(now) {
                // an application's own timer sent it, not a frame's arrival
                self.app_send_at = Some(now);
            }
            if matches!(self.tx, Tx::Idle | Tx::Backoff) {
                self.schedule(cx);
            }
        }
    }

    fn on_timer(&mut self, cx: &mut Cx, token: Token) {
        let Some(kind) = self.timers.fired(token) else {
            return;
        };
        let now = cx.now();
        match kind {
            Kind::TrainHeard => {
                if cx.radio() == RadioState::Off && !self.deaf() {
                    let end = cx.newest_train_end();
                    self.arm_lazy_wake(cx, end);
                }
            }
            Kind::Wake => {
                if self.defer_to_cooja_tick(cx, Kind::Wake, |m| &mut m.wake_settled) {
                    return;
                }
                let window = if self.lazy() {
                    self.lazy_wake_at = None;
                    self.window_containing(now).unwrap_or(now)
                } else {
                    // on a Cooja mote the window ran late, on its tick
                    let due = if self.p.cooja_mote_ticks {
                        self.window_containing(now).unwrap_or(now)
                    } else {
                        now
                    };
                    let next = due + self.p.check_interval_us;
                    self.timers.set(cx, Kind::Wake, next);
                    due
                };
                // a wake-up due in a busy wait is skipped (its ctimer waits)
                if cx.radio() == RadioState::Off && !self.deaf() {
                    self.radio_on(cx);
                    let at = window + self.p.listen_window_us();
                    self.window_end = Some(at);
                    self.timers.set(cx, Kind::Sleep, at);
                }
            }
            Kind::Sleep => {
                if self.defer_to_cooja_tick(cx, Kind::Sleep, |m| &mut m.sleep_settled) {
                    return;
                }
                if self.p.cooja_mote_ticks && self.ack_busy_since == Some(now.saturating_sub(1)) {
                    // The mote runs first at the end of a strobe for it:
                    // Contiki polls the radio's process before the etimer
                    // process (it was started later, and `do_poll` walks
                    // the process list from its head), so the strobe is
                    // answered, with the ACK's busy wait, before the window
                    // end runs (see `ack_ended`).
                    self.window_end_owed_to_ack = true;
                    return;
                }
                self.maybe_sleep(cx)
            }
            Kind::DataWait => {
                self.waiting_for_data = false;
                self.maybe_sleep(cx);
            }
            Kind::FrameHeard => {
                if self.ack_turnaround.is_some() {
                    self.run_ack_turnaround(cx);
                }
                if matches!(self.tx, Tx::CoojaLoop { .. })
                    && self.cooja.is_some_and(|c| c.lp.is_some())
                {
                    self.run_cooja_loop(cx);
                }
            }
            Kind::Ack if self.ack_turnaround.is_some() => self.run_ack_turnaround(cx),
            Kind::Ack => self.send_ack(cx),
            Kind::Tx => match self.tx {
                Tx::Waiting if self.receiving() => {
                    // cxmac.c `qsend_packet`: someone is sending to us
                    self.train_failed(cx, Failure::Collision)
                }
                Tx::Waiting => self.sense(cx),
                Tx::Backoff => {
                    if self.csma_timer_waits_for_tick(cx) {
                        return;
                    }
                    self.schedule(cx)
                }
                Tx::Cca if self.lead_heard == LeadHeard::Read => {
                    if self.defer_to_cooja_tick(cx, Kind::Tx, |m| &mut m.lead_abort_settled) {
                        return;
                    }
                    // the lead's wait loop read a collision: no strobe
                    self.train_failed(cx, Failure::Collision)
                }
                Tx::Cca => self.begin_train(cx),
                Tx::DataDue => self.send_data(cx),
                Tx::CoojaLoop { .. } => match self.cooja.and_then(|c| c.lp) {
                    None => self.cooja_strobe_ended(cx),
                    Some(_) => self.run_cooja_loop(cx),
                },
                _ => {}
            },
        }
    }

    fn describe_timer(&self, token: Token) -> (&'static str, bool) {
        let (kind, stale) = self.timers.describe(token);
        // the transmit timer by the state it finds the send in
        let kind = match (kind, self.tx) {
            ("Tx", Tx::Idle) => "Tx (idle)",
            ("Tx", Tx::Backoff) => "Tx (backoff)",
            ("Tx", Tx::Waiting) => "Tx (encounter wait)",
            ("Tx", Tx::Cca) => "Tx (lead)",
            ("Tx", Tx::Strobing { .. }) => "Tx (strobing)",
            ("Tx", Tx::DataDue) => "Tx (data due)",
            ("Tx", Tx::CoojaLoop { .. }) => "Tx (Cooja strobe loop)",
            ("Tx", Tx::SendingData(_)) => "Tx (sending data)",
            (kind, _) => kind,
        };
        (kind, stale)
    }

    fn on_frame(&mut self, cx: &mut Cx, rx: Received) {
        let Some(view) = heard(&rx.frame) else {
            return;
        };
        let for_me = addressed_to(view.dst_addr(), cx.node);
        if let Tx::CoojaLoop { dst, .. } = self.tx {
            if view.frame_type() == FrameType::Data {
                self.catch_up_cooja_loop(cx, cx.now());
                self.buffer_in_cooja_loop(&rx, &view, dst, for_me);
            }
            return;
        }
        let in_strobe_loop = matches!(self.tx, Tx::Strobing { .. } | Tx::Cca);
        if !for_me {
            // of a frame for someone else only a strobe matters, read in
            // place (no allocation); a data frame with IEs is parsed below
            if view.frame_type() != FrameType::Data {
                return;
            }
            if let Some(body) = view.payload_without_ies() {
                match body {
                    [NALP, STROBE] => self.strobe_heard(cx, &rx, false),
                    [NALP, STROBE_ACK] => {}
                    _ => self.other_frame_heard(cx),
                }
                return;
            }
        }
        let Some(parsed) = Parsed::of_heard(view) else {
            return;
        };
        let Some(payload) = parsed.data() else {
            return;
        };
        match payload {
            [NALP, STROBE_ACK] if for_me => {
                if let Tx::Strobing { train, dst } = self.tx {
                    if dst == rx.from {
                        let e = cx.w.channel.get(train).expect("our train").clone();
                        // strobes that had started before the ACK arrived were sent
                        let sent = (cx.now() - e.start).div_ceil(e.period).min(e.count);
                        self.stats.strobes_sent += sent;
                        let end = cx.end_train(train, sent);
                        self.encounters.insert(dst, rx.at);
                        self.tx = Tx::DataDue;
                        let at = end.max(cx.now()) + phy::TURNAROUND_US;
                        self.timers.set(cx, Kind::Tx, at);
                    }
                }
            }
            [NALP, STROBE] => self.strobe_heard(cx, &rx, for_me),
            [NALP, STROBE_ACK] => {}
            _ if for_me && in_strobe_loop && self.p.listen_before_strobe => {
                // read by the strobe loop, not passed up: a collision
                self.abort_train(cx);
            }
            _ if for_me => {
                if self.p.someone_is_sending {
                    self.set_someone_is_sending(cx.now(), 0);
                }
                if self.waiting_for_data {
                    self.waiting_for_data = false;
                    self.timers.stop(Kind::DataWait);
                }
                self.passed_up_at = Some(cx.now());
                pass_up(cx, self.security.as_mut(), &mut self.stats, &rx, parsed);
                self.maybe_sleep(cx);
            }
            _ => self.other_frame_heard(cx),
        }
    }

    /// On a Cooja mote the end of a frame the radio heard but did not
    /// receive (collided, lost to UDGM's success ratio, or from within the
    /// interference range only) empties the radio's one-frame buffer
    /// (ContikiRadio.java `signalReceptionEnd`: an interfered reception
    /// sets simInSize to 0): a strobe ACK waiting there for the strobe loop
    /// to read it, or a strobe waiting for its ACK, is gone (the Cooja
    /// oracle at 3 hops, interference range 100 m: 437 of 4 078 ACKs its
    /// senders received whole were erased before their loop read them).
    fn on_frame_lost(&mut self, cx: &mut Cx) {
        self.catch_up_cooja_loop(cx, cx.now());
        if let Some(c) = &mut self.cooja {
            c.buffered = None;
        }
        self.owed_strobe = None;
    }

    fn on_tx_end(&mut self, cx: &mut Cx, emission: EmissionId) {
        if self.ack_on_air == Some(emission) {
            self.ack_on_air = None;
            self.stats.acks_sent += 1;
            self.ack_ended(cx);
            self.answer_owed_strobe(cx);
            return; // keep listening for the data
        }
        match self.tx {
            Tx::Strobing { train, .. } if train == emission => {
                // the whole train went out unanswered (or, after a frame
                // left unread in the lead, its one strobe: a collision)
                let e = cx.w.channel.get(train).expect("our train").clone();
                self.stats.strobes_sent += e.count;
                cx.end_train(train, e.count);
                let failure = if self.lead_heard == LeadHeard::Unread {
                    Failure::Collision
                } else {
                    Failure::NoAck
                };
                self.lead_heard = LeadHeard::Nothing;
                self.train_failed(cx, failure);
            }
            Tx::SendingData(id) if id == emission => self.data_sent(cx),
            _ => {}
        }
    }

    fn max_payload(&self) -> usize {
        max_data_payload(self.security.as_ref(), self.p.addressing)
    }

    fn security_stats(&self) -> Option<super::security::SecurityStats> {
        self.security.as_ref().map(|s| s.stats)
    }

    fn queued(&self) -> usize {
        self.queues.packets()
    }

    fn stats(&self) -> MacStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drifted_node_wakes_later_every_interval() {
        // +20 ppm at a 500 ms check interval: each interval lasts 500,010 us,
        // the strobe period 5,432 x 1.00002 = 5,432.1 -> 5,432 us, the
        // encounter lead 12,451 x 1.00002 = 12,451.25 -> 12,451 us
        let p = XmacParams::contiki(500_000).counted_on(Crystal::with_error_ppb(20_000));
        assert_eq!(p.check_interval_us, 500_010);
        assert_eq!(p.strobe_period_us, 5_432);
        assert_eq!(p.encounter_lead_us, 12_451);
        assert_eq!(p.next_packet_wait_us, 500_010);
        // waking at phase 1,000 us, the 100th wake-up after it comes at
        // 1,000 + 100 x 500,010 = 50,002,000 us, 1 ms after a perfect clock's
        let mut mac = Xmac::new(p);
        mac.phase = 1_000;
        assert_eq!(mac.window_at_or_after(50_001_001), 50_002_000);
        assert_eq!(mac.window_at_or_after(50_002_000), 50_002_000);
        let perfect = Xmac {
            phase: 1_000,
            ..Xmac::new(XmacParams::contiki(500_000))
        };
        assert_eq!(perfect.window_at_or_after(50_000_001), 50_001_000);
        assert_eq!(perfect.window_at_or_after(50_001_001), 50_501_000);
    }

    #[test]
    fn contiki_timings_are_whole_rtimer_and_clock_ticks() {
        // 204 ticks of 32,768 Hz: 204e6/32768 = 6,225.6 -> 6,226 us; strobe
        // wait 7*204/8 = 178 ticks = 5,432.1 -> 5,432 us; 3*204 = 612 ticks
        // = 18,676.8 -> 18,677 us; lead 408 ticks = 12,451.2 -> 12,451 us
        let p = XmacParams::contiki(500_000);
        assert_eq!(p.on_time_us, 6_226);
        assert_eq!(p.strobe_period_us, 5_432);
        assert_eq!(p.strobe_time_us, 518_677);
        assert_eq!(p.encounter_lead_us, 12_451);
        // mechanism 1: the on time rounds up to one 1/128 s tick, 7,812.5 us
        assert_eq!(p.listen_window_us(), 7_812);
        let nominal = XmacParams {
            listen_window_in_clock_ticks: false,
            ..p
        };
        assert_eq!(nominal.listen_window_us(), 6_226);
        // a 10 ms on time would take two ticks
        let longer = XmacParams {
            on_time_us: 10_000,
            ..p
        };
        assert_eq!(longer.listen_window_us(), 15_625);
    }

    #[test]
    fn a_csma_backoff_expires_on_a_clock_tick() {
        // mechanism 4: the node's ticks fall at 1,000 us + n x 7,812.5 us.
        // Armed at 50,000 us (last tick: 1,000 + 6 x 7,812.5 = 47,875 us),
        // 64 ticks (500 ms) expire at 47,875 + 500,000 = 547,875 us, not
        // 550,000 us.
        let mut mac = Xmac::new(XmacParams::contiki(500_000));
        mac.tick_origin_ns = 1_000_000;
        assert_eq!(mac.ci_in_clock_ticks(), 64);
        assert_eq!(mac.after_clock_ticks(50_000, 64), 547_875);
        // armed exactly on a tick: it counts from that tick
        assert_eq!(mac.after_clock_ticks(47_875, 1), 55_688);
        // a 62.5 ms check interval is 8 ticks
        let fast = Xmac::new(XmacParams::contiki(62_500));
        assert_eq!(fast.ci_in_clock_ticks(), 8);
    }

    #[test]
    fn a_cooja_motes_encounter_wait_is_off_by_2_pow_64_mod_the_period() {
        // 2^64 = 18 446 744 073 709 551 616: 116 modulo 125 and 250, 616
        // modulo 1 000 (the last three digits, 1 000 being 8 · 125)
        let ms = 1_000;
        // last heard awake 10 ms ago: cxmac means to wait 115 ms (CI 125
        // ms); unsigned 64-bit arithmetic gives (116 - 10) mod 125 = 106
        assert_eq!(cooja_encounter_wait(10 * ms, 0, 125 * ms), 106 * ms);
        assert_eq!(cooja_encounter_wait(10 * ms, 0, 250 * ms), 106 * ms);
        assert_eq!(cooja_encounter_wait(10 * ms, 0, 1_000 * ms), 606 * ms);
        // whole ticks: the sub-millisecond parts do not count
        assert_eq!(cooja_encounter_wait(10 * ms + 999, 400, 125 * ms), 106 * ms);
        // heard in this very tick: no wrap, no wait
        assert_eq!(cooja_encounter_wait(5 * ms + 10, 5 * ms, 125 * ms), 0);
    }

    #[test]
    fn csma_retries_spread_linearly_in_contiki_2_7_and_exponentially_in_3_0() {
        // csma.c packet_sent: 2.7 waits CI + U(0, min(n + 1, 3) CI), 3.0
        // CI + U(0, 2^min(n, 3) CI) after the n-th failed train (a
        // collision leaves n unchanged: n = 0 before any)
        let linear = Xmac::new(XmacParams::contiki(500_000));
        let exponential = Xmac::new(XmacParams {
            exponential_backoff: true,
            ..XmacParams::contiki(500_000)
        });
        let spread = |m: &Xmac| (0..6).map(|n| m.backoff_spread(n)).collect::<Vec<_>>();
        assert_eq!(spread(&linear), [1, 2, 3, 3, 3, 3]);
        assert_eq!(spread(&exponential), [1, 2, 4, 8, 8, 8]);
    }

    #[test]
    fn someone_is_sending_runs_down_one_per_wake_up() {
        // mechanism 3: set to 2 at 10 ms by a strobe; the node wakes at
        // 100 ms + k x 500 ms; one is taken off at each wake-up
        let mut mac = Xmac::new(XmacParams::contiki(500_000));
        mac.phase = 100_000;
        mac.set_someone_is_sending(10_000, 2);
        assert_eq!(mac.someone_is_sending(99_999), 2);
        assert_eq!(mac.someone_is_sending(100_000), 1);
        assert_eq!(mac.someone_is_sending(599_999), 1);
        assert_eq!(mac.someone_is_sending(600_000), 0);
        // set during a wake-up: that one does not count
        mac.set_someone_is_sending(100_000, 1);
        assert_eq!(mac.someone_is_sending(599_999), 1);
        assert_eq!(mac.someone_is_sending(600_000), 0);
        let off = Xmac::new(XmacParams {
            someone_is_sending: false,
            ..XmacParams::contiki(500_000)
        });
        assert_eq!(off.someone_is_sending(0), 0);
    }

    #[test]
    fn a_re_based_cycle_s_windows_before_the_re_basing_never_ran() {
        // set to 1 at 10 ms; at 30 ms the cycle is re-based (a window end
        // was due in a busy period) so that its grid has a window at 20 ms,
        // which never opened: only the one at 520 ms takes it down
        let mut mac = Xmac::new(XmacParams::contiki(500_000));
        mac.set_someone_is_sending(10_000, 1);
        mac.phase = 20_000;
        mac.rebased_at = 30_000;
        assert_eq!(mac.someone_is_sending(519_999), 1);
        assert_eq!(mac.someone_is_sending(520_000), 0);
    }

    #[test]
    fn the_old_cycle_s_wake_ups_still_count_after_a_re_basing() {
        // set to 2 at 10 ms; the node woke at 100 ms (one off) and began a
        // send at 300 ms, during which its cycle was re-based to open a
        // window at 700 ms: that window takes the second one off, where
        // counting only the new cycle's wake-ups would leave 1 until 1.2 s
        let mut mac = Xmac::new(XmacParams::contiki(500_000));
        mac.phase = 100_000;
        mac.set_someone_is_sending(10_000, 2);
        mac.settle_someone_is_sending(300_000);
        assert_eq!(mac.someone_is_sending(300_000), 1);
        mac.phase = 200_000;
        mac.rebased_at = 700_000;
        assert_eq!(mac.someone_is_sending(699_999), 1);
        assert_eq!(mac.someone_is_sending(700_000), 0);
    }

    #[test]
    fn a_refused_send_leaves_someone_is_sending_as_it_was() {
        // cxmac.c `qsend_packet` refuses while someone_is_sending (csma
        // hears MAC_TX_COLLISION) without calling `send_packet`, the only
        // place that counts a collision up
        let mut sim = {
            use crate::topology::Topology;
            crate::world::World::new(Topology::line(2, 1.0).unwrap(), 1, 0)
        };
        let mut cx = sim.cx(0);
        let mut mac = Xmac::new(XmacParams::contiki(500_000));
        mac.phase = 100_000;
        mac.set_someone_is_sending(0, 1);
        mac.send(&mut cx, 1, vec![0xAA; 10]);
        assert_eq!(mac.someone_is_sending(cx.now()), 1);
        assert_eq!(mac.stats.retransmissions, 1, "refused: csma backs off");
    }
}
