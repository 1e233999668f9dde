//! `[mac]`: which MAC protocol runs, and one table per protocol. Only the
//! chosen protocol's table may be given: another's would do nothing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use sim::mac::address::LinkAddressing;
use sim::mac::contikimac::ContikimacParams;
use sim::mac::csl::{timing::UNIT_US, CslParams};
use sim::mac::csma::CsmaParams;
use sim::mac::xmac::{XmacParams, CXMAC_CHECK_INTERVAL_US};

use crate::param::params;
use crate::problem::Low::{Above, AtLeast};
use crate::problem::Problems;
use crate::units::ms_from_us as ms;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MacKind {
    Csma,
    Xmac,
    Beacon,
    Tsch,
    Contikimac,
    Csl,
    /// No MAC: the scenario feeds closed forms only.
    #[default]
    None,
}

impl MacKind {
    pub fn name(self) -> &'static str {
        match self {
            MacKind::Csma => "csma",
            MacKind::Xmac => "xmac",
            MacKind::Beacon => "beacon",
            MacKind::Tsch => "tsch",
            MacKind::Contikimac => "contikimac",
            MacKind::Csl => "csl",
            MacKind::None => "none",
        }
    }
}

params! {
    /// Which MAC runs, and the chosen protocol's table.
    #[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Mac at "mac" {
        /// csma, xmac, contikimac, csl, beacon, tsch, or none (the closed forms only).
        kind: MacKind [serde(default), schemars(extend("x-sweep" = false))] = MacKind::None,
        /// With kind = "csma": its table.
        csma: Option<Csma> [serde(default, skip_serializing_if = "Option::is_none")] = None,
        /// With kind = "xmac": its table.
        xmac: Option<Xmac> [serde(default, skip_serializing_if = "Option::is_none")] = None,
        /// With kind = "beacon": its table.
        beacon: Option<Beacon> [serde(default, skip_serializing_if = "Option::is_none")] = None,
        /// With kind = "tsch": its table.
        tsch: Option<Tsch> [serde(default, skip_serializing_if = "Option::is_none")] = None,
        /// With kind = "contikimac": its table.
        contikimac: Option<Contikimac> [serde(default, skip_serializing_if = "Option::is_none")] = None,
        /// With kind = "csl": its table.
        csl: Option<Csl> [serde(default, skip_serializing_if = "Option::is_none")] = None,
    }
}

impl Mac {
    /// Refuse the tables of other protocols, then give the chosen one its
    /// defaults.
    pub fn settle(&mut self, p: &mut Problems) {
        let kind = self.kind;
        let given = [
            (MacKind::Csma, self.csma.is_some()),
            (MacKind::Xmac, self.xmac.is_some()),
            (MacKind::Beacon, self.beacon.is_some()),
            (MacKind::Tsch, self.tsch.is_some()),
            (MacKind::Contikimac, self.contikimac.is_some()),
            (MacKind::Csl, self.csl.is_some()),
        ];
        for (table, present) in given {
            if present && table != kind {
                let only = format!("mac.kind = '{}', not '{}'", table.name(), kind.name());
                p.unused(&format!("mac.{}", table.name()), "(table)", &only);
            }
        }
        let keep = |k: MacKind| k == kind;
        self.csma = keep(MacKind::Csma).then(|| self.csma.take().unwrap_or_default());
        self.xmac = keep(MacKind::Xmac).then(|| self.xmac.take().unwrap_or_default());
        self.beacon = keep(MacKind::Beacon).then(|| self.beacon.take().unwrap_or_default());
        self.tsch = keep(MacKind::Tsch).then(|| self.tsch.take().unwrap_or_default());
        self.contikimac =
            keep(MacKind::Contikimac).then(|| self.contikimac.take().unwrap_or_default());
        self.csl = keep(MacKind::Csl).then(|| self.csl.take().unwrap_or_default());
    }

    pub fn validate(&self, p: &mut Problems) {
        if let Some(c) = &self.csma {
            c.validate(p);
        }
        if let Some(x) = &self.xmac {
            x.validate(p);
        }
        if let Some(b) = &self.beacon {
            b.validate(p);
        }
        if let Some(t) = &self.tsch {
            t.validate(p);
        }
        if let Some(c) = &self.contikimac {
            c.check_ranges(p);
        }
        if let Some(c) = &self.csl {
            c.check_ranges(p);
        }
    }
}

/// Contiki 3.0's ContikiMAC on an MSP430 platform (32,768 Hz rtimer,
/// 128 Hz clock) at 8 Hz.
fn contikimac() -> ContikimacParams {
    ContikimacParams::contiki_default()
}

params! {
    /// ContikiMAC (Contiki 3.0 contikimac.c) under Contiki 3.0's csma. Its
    /// timing follows from the channel check rate and the platform's rtimer
    /// and clock rates as contikimac.c computes it; the four `*_ms` keys,
    /// when given, replace what a platform's radio driver makes of them.
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Contikimac at "mac.contikimac": Default {
        /// Wake-ups per second (NETSTACK_RDC_CHANNEL_CHECK_RATE; the cycle
        /// is RTIMER_ARCH_SECOND / this, contikimac.c CYCLE_TIME).
        channel_check_rate_hz: u32 = 8; range (AtLeast(1.0), 1000.0),
        /// rtimer ticks per second (RTIMER_ARCH_SECOND): 32,768 on MSP430
        /// platforms, 1,000 on Cooja's native motes.
        rtimer_second: u32 = 32_768; range (AtLeast(1000.0), 10_000_000.0),
        /// Clock ticks per second (CLOCK_SECOND, csma's backoff unit): 128
        /// on MSP430 platforms, 1,000 on Cooja's native motes.
        clock_second: u32 = 128; range (AtLeast(32.0), 1_000_000.0),
        /// CCAs per wake-up (CCA_COUNT_MAX).
        cca_count: u32 = contikimac().cca_count; range (AtLeast(1.0), 16.0),
        /// End of one copy of a frame to the start of the next; absent:
        /// INTER_PACKET_INTERVAL plus the radio's turnaround.
        copy_gap_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = None; range (AtLeast(0.0), 100.0),
        /// From a send's start to its first copy; absent: the six CCAs,
        /// CHECK_TIME_TX.
        tx_cca_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = None; range (AtLeast(0.0), 100.0),
        /// End of a frame to the start of its ACK; absent: the radio's
        /// automatic ACK after aTurnaroundTime.
        ack_delay_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = None; range (AtLeast(0.0), 100.0),
        /// End of a copy to the sender's look for its ACK (a later ACK is
        /// found after the next copy); absent: INTER_PACKET_INTERVAL.
        ack_check_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = None; range (AtLeast(0.0), 100.0),
        /// Trains per packet before csma drops it (csma.c
        /// CSMA_MAX_MAC_TRANSMISSIONS 3; sicslowpan's
        /// SICSLOWPAN_CONF_MAX_MAC_TRANSMISSIONS where set).
        max_transmissions: u32 = contikimac().max_transmissions; range (AtLeast(1.0), 16.0),
        /// Packet buffers csma's queues draw from (QUEUEBUF_NUM: 8 by
        /// default, 16 on Contiki 3.0's cooja platform).
        queued_packets: u32 = contikimac().queue_capacity as u32; range (AtLeast(1.0), 256.0),
        /// Cooja's native motes: a wake-up's CCAs and csma's transmit timer
        /// (a ctimer of whole clock ticks) run on the mote's 1 ms ticks
        /// counted from the last frame end it heard (every frame end in
        /// interference range wakes a Cooja mote). For the `cooja`
        /// platform; a Cooja artefact, not a property of ContikiMAC.
        cooja_mote_ticks: bool = false,
        /// Data frames name both ends by 64-bit extended addresses, as
        /// Contiki's uIP builds do (as `mac.xmac.extended_addresses`).
        extended_addresses: bool = false,
        /// The 6LoWPAN layer writes the context byte for context 0 too, as
        /// Contiki's HC06 does (as `mac.xmac.contiki_context_byte`).
        contiki_context_byte: bool = false,
        /// The 6LoWPAN layer reassembles one datagram at a time, given up
        /// 8 s after its first fragment, as Contiki 3.0 does (as
        /// `mac.xmac.contiki_reassembly`).
        contiki_reassembly: bool = false,
    }
}

impl Contikimac {
    /// The simulator's parameters (security and phase left to the run).
    pub fn runtime(&self) -> ContikimacParams {
        let us = crate::units::us_from_ms;
        let mut c = ContikimacParams::contiki(
            u64::from(self.rtimer_second),
            u64::from(self.clock_second),
            u64::from(self.channel_check_rate_hz),
        );
        c.cca_count = self.cca_count;
        c.max_transmissions = self.max_transmissions;
        c.queue_capacity = self.queued_packets as usize;
        c.cooja_mote_ticks = self.cooja_mote_ticks;
        c.addressing = LinkAddressing::from_extended(self.extended_addresses);
        c.contiki_context_byte = self.contiki_context_byte;
        c.contiki_reassembly = self.contiki_reassembly;
        if let Some(v) = self.copy_gap_ms {
            c.copy_gap_us = us(v);
        }
        if let Some(v) = self.tx_cca_ms {
            c.tx_cca_us = us(v);
        }
        if let Some(v) = self.ack_delay_ms {
            c.ack_delay_us = us(v);
        }
        if let Some(v) = self.ack_check_ms {
            c.ack_check_us = us(v);
        }
        c
    }
}

/// OpenThread's CSL defaults for a Thread 1.2 sleepy end device.
fn csl() -> CslParams {
    CslParams::openthread()
}

params! {
    /// IEEE 802.15.4-2015 CSL as OpenThread runs it for Thread 1.2
    /// synchronized sleepy end devices (each node with one neighbour other
    /// than the server; the others are awake), with Thread's data polling.
    /// Defaults: OpenThread's core configuration (crates/sim/src/mac/csl).
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Csl at "mac.csl": Default {
        /// CSL period of the sleepy end devices (rounded to whole units of
        /// ten symbols, 160 us, as the CSL IE carries it); 0: no CSL, the
        /// parent holds every frame until its child polls.
        period_ms: f64 = ms(csl().period_us); range (AtLeast(0.0), 10_000.0),
        /// Data poll period of the sleepy end devices; 0: no polls.
        poll_period_ms: f64 = ms(csl().poll_period_us); range (AtLeast(0.0), 3_600_000.0),
        /// How long a device whose poll was answered with the frame-pending
        /// bit listens for the frame.
        poll_wait_ms: f64 = ms(csl().poll_wait_us); range (Above(0.0), 10_000.0),
        /// Each side's clock accuracy (the CSL accuracy), ppm: the sample
        /// window widens by elapsed x (ppm + ppm) / 10^6 since the last sync.
        accuracy_ppm: u32 = csl().accuracy_ppm; range (AtLeast(0.0), 255.0),
        /// Each node's crystal is off by a uniform draw within this many ppm
        /// either way (its real drift, against which the accuracy above is
        /// only a claim; a parent aims at a drifted child's sample).
        crystal_tolerance_ppm: f64 = csl().crystal_tolerance_ppm; range (AtLeast(0.0), 1_000.0),
        /// Each side's scheduling uncertainty (the CSL uncertainty), us.
        uncertainty_us: u32 = csl().uncertainty_us as u32; range (AtLeast(0.0), 2_550.0),
        /// Reception scheduling and ramp-up before a window
        /// (OPENTHREAD_CONFIG_CSL_RECEIVE_TIME_AHEAD), us.
        receive_time_ahead_us: u32 = csl().receive_time_ahead_us as u32; range (AtLeast(0.0), 100_000.0),
        /// Receive state before the expected MHR (OPENTHREAD_CONFIG_MIN_RECEIVE_ON_AHEAD), us.
        min_receive_on_ahead_us: u32 = csl().min_receive_on_ahead_us as u32; range (AtLeast(0.0), 100_000.0),
        /// Receive state after the expected MHR (OPENTHREAD_CONFIG_MIN_RECEIVE_ON_AFTER;
        /// 0 on radios that extend the window on a detected preamble), us.
        min_receive_on_after_us: u32 = csl().min_receive_on_after_us as u32; range (AtLeast(0.0), 100_000.0),
        /// Retries of an unacknowledged frame (macMaxFrameRetries); a CSL
        /// frame is retried at the child's next sample.
        max_retries: u32 = csl().max_retries; range (AtLeast(0.0), 7.0),
    }
}

impl Csl {
    /// The simulator's parameters (security, CPU cost and phase left to the run).
    pub fn runtime(&self) -> CslParams {
        let us = crate::units::us_from_ms;
        let units = (us(self.period_ms) + UNIT_US / 2) / UNIT_US;
        CslParams {
            period_us: units * UNIT_US,
            poll_period_us: us(self.poll_period_ms),
            poll_wait_us: us(self.poll_wait_ms),
            accuracy_ppm: self.accuracy_ppm,
            crystal_tolerance_ppm: self.crystal_tolerance_ppm,
            uncertainty_us: u64::from(self.uncertainty_us),
            receive_time_ahead_us: u64::from(self.receive_time_ahead_us),
            min_receive_on_ahead_us: u64::from(self.min_receive_on_ahead_us),
            min_receive_on_after_us: u64::from(self.min_receive_on_after_us),
            max_retries: self.max_retries,
            ..CslParams::openthread()
        }
    }
}

/// The CSMA/CA backoff of IEEE 802.15.4-2006 7.5.1.4 (macMinBE,
/// macMaxBE): the exponents' order (their ranges are declared with them).
fn check_backoff(p: &mut Problems, at: &str, min_be: u32, max_be: u32) {
    p.at_most(
        &format!("{at}.min_be"),
        min_be,
        &format!("{at}.max_be"),
        max_be,
    );
}

/// The simulator's CSMA defaults (IEEE 802.15.4-2006 table 86).
fn csma() -> CsmaParams {
    CsmaParams::default()
}

params! {
    /// Always-on unslotted CSMA with link-layer ACKs (the no-duty-cycle baseline).
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Csma at "mac.csma": Default {
        /// Retransmissions of an unacknowledged frame (macMaxFrameRetries).
        max_retries: u32 = csma().max_retries; range (AtLeast(0.0), 7.0),
        /// The smallest backoff exponent (macMinBE).
        min_be: u32 = csma().min_be; range (AtLeast(0.0), 8.0),
        /// The largest backoff exponent (macMaxBE).
        max_be: u32 = csma().max_be; range (AtLeast(3.0), 8.0),
        /// Busy channel assessments before giving up (macMaxCSMABackoffs).
        max_backoffs: u32 = csma().max_backoffs; range (AtLeast(0.0), 5.0),
        /// One backoff slot: IEEE 802.15.4-2006's aUnitBackoffPeriod, 20
        /// symbols = 0.32 ms. Contiki-NG's csma counts it in clock ticks
        /// (csma-output.c `backoff_period`: CLOCK_SECOND/3125, at least one
        /// tick, so 7.8 ms at 128 Hz; on Cooja motes 20·CLOCK_SECOND/3125 =
        /// 6 ms, "to compensate for the coarse-grained radio medium").
        backoff_unit_ms: f64 = ms(csma().backoff_unit_us); range (Above(0.0), 1000.0),
    }
}

impl Csma {
    fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
        check_backoff(p, "mac.csma", self.min_be, self.max_be);
    }
}

/// Contiki's cxmac as the simulator defines it, at its 8 Hz channel check.
fn cxmac() -> XmacParams {
    XmacParams::contiki(CXMAC_CHECK_INTERVAL_US)
}

params! {
    /// X-MAC preamble sampling; defaults are Contiki's cxmac (8 Hz channel
    /// check). The longest strobe train lasts the check interval plus
    /// `strobe_margin_ms` (cxmac: 4·on + off = CI + 3 on times);
    /// `strobe_period_ms` is cxmac's strobe wait time, 7/8 of the on time.
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Xmac at "mac.xmac": Default {
        /// Time between two wake-ups of a node.
        check_interval_ms: f64 = ms(cxmac().check_interval_us); range (Above(0.0), 60_000.0),
        /// cxmac's on time, RTIMER_ARCH_SECOND/160 = 204 ticks of the 32,768
        /// Hz rtimer (cxmac.c DEFAULT_ON_TIME).
        on_time_ms: f64 = ms(cxmac().on_time_us); range (Above(0.0), 1000.0),
        /// How much longer than one check interval the longest strobe train
        /// lasts (cxmac: 4 on times + off time = the check interval + 3·204
        /// rtimer ticks).
        strobe_margin_ms: f64 = ms(cxmac().strobe_time_us - cxmac().check_interval_us);
            range (AtLeast(0.0), 60_000.0),
        /// Time between strobes (cxmac's strobe wait time, 7·204/8 = 178
        /// rtimer ticks).
        strobe_period_ms: f64 = ms(cxmac().strobe_period_us); range (Above(0.0), 100.0),
        /// With `listen_before_strobe`, how long a sender listens before its
        /// first strobe; absent: one strobe period (cxmac.c `send_packet`
        /// runs its strobe-wait loop before the first strobe as before the
        /// others).
        first_strobe_lead_ms: Option<f64> [serde(default, skip_serializing_if = "Option::is_none")]
            = None; range (Above(0.0), 1000.0),
        /// How long the destination stays awake for the data frame.
        data_wait_ms: f64 = ms(cxmac().data_wait_us); range (Above(0.0), 10_000.0),
        /// cxmac's default: having heard a neighbour's strobe
        /// acknowledgement, a node remembers when that neighbour wakes and
        /// starts its next train just before then.
        encounter_optimization: bool = cxmac().encounter_optimization,
        /// How early before the remembered wake-up the train starts.
        encounter_lead_ms: f64 = ms(cxmac().encounter_lead_us); range (AtLeast(0.0), 10_000.0),
        /// Strobe trains per packet before Contiki's csma layer drops it
        /// (csma.c's own default; for IPv6 datagrams sicslowpan.c passes its
        /// SICSLOWPAN_MAX_MAC_TRANSMISSIONS instead, 4, and WiSMote's
        /// contiki-conf.h 5, which experiment 1 uses).
        max_transmissions: u32 = cxmac().max_transmissions; range (AtLeast(1.0), 16.0),
        /// Packet buffers csma's queues draw from (csma.c MAX_QUEUED_PACKETS
        /// = QUEUEBUF_NUM; cxmac takes one more for the packet it strobes,
        /// so at least 2): Contiki 2.7 on WiSMote 8, Contiki 3.0's cooja
        /// platform 16.
        queued_packets: u32 = cxmac().queue_capacity as u32; range (AtLeast(2.0), 256.0),
        /// A sender that hears another node's strobe while strobing aborts
        /// its train (cxmac.c `send_packet`).
        abort_on_strobe: bool = cxmac().abort_on_strobe,
        /// A wake-up listens for the on time rounded up to whole 128 Hz
        /// clock ticks, 7.8125 ms, starting on a tick: cxmac's duty cycle is
        /// a ctimer (cxmac.c `cschedule_powercycle`; CLOCK_CONF_SECOND 128 in
        /// platform/wismote/platform-conf.h).
        listen_window_in_clock_ticks: bool = cxmac().listen_window_in_clock_ticks,
        /// A sender listens one strobe period before its first strobe
        /// (instead of a CCA), and any frame but a strobe acknowledgement
        /// heard then or between strobes ends its train as a collision
        /// (cxmac.c `send_packet`'s strobe loop).
        listen_before_strobe: bool = cxmac().listen_before_strobe,
        /// Hearing a strobe makes a node refuse to send for up to two
        /// wake-ups (cxmac.c `someone_is_sending`, `qsend_packet` returns
        /// MAC_TX_COLLISION and csma backs off); a strobe for another node
        /// leaves its radio on to the end of the window.
        someone_is_sending: bool = cxmac().someone_is_sending,
        /// csma's retransmission backoff and wait between packets are whole
        /// 128 Hz clock ticks, expiring on a tick (csma.c `packet_sent`,
        /// `free_packet` use ctimers).
        backoff_in_clock_ticks: bool = cxmac().backoff_in_clock_ticks,
        /// A node that sent a strobe acknowledgement keeps its radio on
        /// until a data frame for it arrives or its second on time since has
        /// ended (cxmac.c `waiting_for_packet`, counted up at the end of
        /// each on time in `cpowercycle`); its own send ends the wait.
        /// false: awake for `data_wait_ms`.
        waiting_for_packet: bool = cxmac().waiting_for_packet,
        /// A send is CPU time from the wait for a remembered wake-up through
        /// the strobe train to the data frame: cxmac.c `send_packet`
        /// busy-waits and polls the radio, and Contiki's Energest counts
        /// that as CPU, not low-power mode.
        busy_send_cpu: bool = cxmac().busy_send_cpu,
        /// The wait for a remembered wake-up has the radio off and skips the
        /// node's own wake-ups (cxmac.c `send_packet` calls `off()` and no
        /// other process runs); Contiki then runs the skipped wake-up late
        /// and re-bases the duty cycle there, so use it with
        /// `rebase_after_send`. Off by default.
        deaf_encounter_wait: bool = cxmac().deaf_encounter_wait,
        /// A wake-up due while the node's own send busy-waits runs when the
        /// send returns, and the duty cycle counts on from there (cxmac.c
        /// `cpowercycle` is a ctimer, which cannot run inside
        /// `send_packet`).
        rebase_after_send: bool = cxmac().rebase_after_send,
        /// With `rebase_after_send`: answering a strobe (the ACK's
        /// turnaround and transmission) also delays a due duty-cycle step.
        rebase_after_ack: bool = cxmac().rebase_after_ack,
        /// Cooja's native motes: the duty cycle's steps and csma's transmit
        /// timer (ctimers both) run on the mote's 1 ms ticks, counted from
        /// its last radio event (every frame end in interference range
        /// wakes a Cooja mote, radio on or off), and wake-up phases and
        /// csma's waits are whole milliseconds; the strobe loop runs step
        /// by step (1 ms yields, woken by every frame heard, so strobes
        /// leave the on-air time plus 6 ms apart and `strobe_period_ms` is
        /// not used), frames wait 2 ms for the radio's turnaround and are
        /// skipped while a node in range is on the air (cooja-radio.c's
        /// CCA), and frames are on the air as long as in Cooja. For the
        /// `cooja` platform; Cooja artefacts, not properties of cxmac.
        cooja_mote_ticks: bool = cxmac().cooja_mote_ticks,
        /// csma's retry wait after the n-th failed train: Contiki 3.0's CI +
        /// U(0, 2^min(n, 3) CI) instead of Contiki 2.7's CI + U(0, min(n + 1,
        /// 3) CI) (csma.c `packet_sent`).
        exponential_backoff: bool = cxmac().exponential_backoff,
        /// Data frames and strobes name both ends by 64-bit extended
        /// addresses, as Contiki's uIP builds do (LINKADDR_CONF_SIZE 8 in
        /// 3.0's platform/cooja/contiki-conf.h, RIMEADDR_CONF_SIZE 8 in
        /// 2.7's platform/wismote/contiki-conf.h); false: 16-bit short
        /// addresses.
        extended_addresses: bool = false,
        /// The 6LoWPAN layer writes the context identifier byte whenever a
        /// context compresses an address, context 0 included, as Contiki
        /// 2.7 and 3.0 do (core/net/sicslowpan.c `compress_hdr_hc06`); false:
        /// context 0 stays implicit (RFC 6282 §3.1.1), one byte less.
        contiki_context_byte: bool = false,
        /// The 6LoWPAN layer reassembles one datagram at a time, as Contiki
        /// 3.0 does (core/net/ipv6/sicslowpan.c `input`): while one is under
        /// way, fragments of another datagram from the same neighbour are
        /// dropped, until it completes or is given up 8 s after its first
        /// fragment (SICSLOWPAN_CONF_MAXAGE 8 in
        /// platform/cooja/contiki-conf.h); false: RFC 4944 reassembly, four
        /// datagrams at once, each kept up to 60 s.
        contiki_reassembly: bool = false,
    }
}

impl Xmac {
    fn validate(&self, p: &mut Problems) {
        self.check_ranges(p);
        // A wake-up listens for the on time (rounded up to whole clock ticks
        // with `listen_window_in_clock_ticks`) once per check interval
        // (cxmac.c `cpowercycle`: on, then off for the check interval less
        // the on time): the interval must leave an off time after it.
        if self.check_interval_ms > 0.0 && self.on_time_ms > 0.0 {
            let window_us = XmacParams {
                on_time_us: crate::units::us_from_ms(self.on_time_ms),
                listen_window_in_clock_ticks: self.listen_window_in_clock_ticks,
                ..cxmac()
            }
            .listen_window_us();
            let window = ms(window_us);
            if crate::units::us_from_ms(self.check_interval_ms) <= window_us {
                let num = crate::problem::num;
                let how = if self.listen_window_in_clock_ticks {
                    format!(
                        "mac.xmac.on_time_ms {} rounded up to whole clock ticks \
                         (listen_window_in_clock_ticks = true)",
                        num(self.on_time_ms)
                    )
                } else {
                    format!("mac.xmac.on_time_ms {}", num(self.on_time_ms))
                };
                let why = format!(
                    "must be > {} ms, a wake-up's listen window ({how}), so that \
                     the radio sleeps between wake-ups (cxmac.c cpowercycle); \
                     range ({}, 60000]",
                    num(window),
                    num(window)
                );
                p.push("mac.xmac.check_interval_ms", self.check_interval_ms, why);
            }
        }
    }
}

/// After an indirect frame whose frame pending bit is set, a device polls
/// again in the same CAP (`standard`, IEEE 802.15.4-2006 7.5.6.3) or waits
/// for the next beacon to list it (`once-per-beacon`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Poll {
    Standard,
    /// What the open 802.15.4-2006 MAC of the time did, TinyOS TKN15.4
    /// (PollP.nc leaves the bit unread, BeaconSynchronizeP.nc polls once
    /// per beacon).
    #[default]
    OncePerBeacon,
}

/// The longest beacon interval of IEEE 802.15.4-2006 7.5.1.1:
/// aBaseSuperframeDuration (960 symbols) · 2^14, at 16 µs a symbol (2.4 GHz O-QPSK).
const LONGEST_BEACON_INTERVAL_US: f64 = 960.0 * 16_384.0 * 16.0;

params! {
    /// Beacon-enabled IEEE 802.15.4: 0 <= SO <= BO <= 14 (IEEE 802.15.4-2006 7.5.1.1).
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Beacon at "mac.beacon": Default {
        /// BO: the beacon interval is 2^BO superframe base durations (15.36 ms).
        beacon_order: u8 = 6; range (AtLeast(0.0), 14.0),
        /// SO: the active part is 2^SO base durations.
        superframe_order: u8 = 2; range (AtLeast(0.0), 14.0),
        /// The smallest backoff exponent (macMinBE).
        min_be: u32 = 3; range (AtLeast(0.0), 8.0),
        /// The largest backoff exponent (macMaxBE).
        max_be: u32 = 5; range (AtLeast(3.0), 8.0),
        /// Busy channel assessments before giving up (macMaxCSMABackoffs).
        max_backoffs: u32 = 4; range (AtLeast(0.0), 5.0),
        /// Retransmissions of an unacknowledged frame (macMaxFrameRetries).
        max_retries: u32 = 3; range (AtLeast(0.0), 7.0),
        /// How early a device wakes before the beacon it expects.
        guard_time_us: u64 = 1000; range (AtLeast(0.0), 100_000.0),
        /// How far each cluster head's superframe starts after its parent's;
        /// absent: one superframe duration (active periods back to back).
        superframe_offset_us: Option<u64> [serde(skip_serializing_if = "Option::is_none")] = None;
            range (AtLeast(0.0), LONGEST_BEACON_INTERVAL_US),
        /// After an indirect frame with its frame pending bit set, poll
        /// again in the same CAP (`standard`) or wait for the next beacon to
        /// list it (`once-per-beacon`).
        poll: Poll = Poll::OncePerBeacon,
    }
}

impl Beacon {
    fn validate(&self, p: &mut Problems) {
        let b = self;
        self.check_ranges(p);
        p.at_most(
            "mac.beacon.superframe_order",
            b.superframe_order,
            "mac.beacon.beacon_order",
            b.beacon_order,
        );
        check_backoff(p, "mac.beacon", b.min_be, b.max_be);
        // BI = aBaseSuperframeDuration · 2^BO (IEEE 802.15.4-2006 7.5.1.1):
        // a device wakes `guard_time_us` before each beacon, and a cluster
        // head's superframe starts `superframe_offset_us` after its
        // parent's, both within one beacon interval.
        if b.beacon_order <= 14 {
            let bi_us = BASE_SUPERFRAME_US * (1u64 << b.beacon_order);
            let why = |what: &str| {
                format!(
                    "must be < {bi_us} ({what} within one beacon interval: 15360 us · 2^beacon_order, \
                     beacon_order = {}; IEEE 802.15.4-2006 7.5.1.1); range [0, {}]",
                    b.beacon_order,
                    bi_us - 1
                )
            };
            if b.guard_time_us >= bi_us {
                p.push(
                    "mac.beacon.guard_time_us",
                    b.guard_time_us,
                    why("the wake-up before a beacon"),
                );
            }
            if let Some(offset) = b.superframe_offset_us {
                if offset >= bi_us {
                    p.push(
                        "mac.beacon.superframe_offset_us",
                        offset,
                        why("a cluster head's superframe starts"),
                    );
                }
            }
        }
    }
}

/// aBaseSuperframeDuration, 960 symbols at 16 µs (IEEE 802.15.4-2006 7.4.1, 2.4 GHz O-QPSK).
const BASE_SUPERFRAME_US: u64 = 960 * 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellPlacement {
    /// `cells_per_link` distinct random slots per directed link.
    #[default]
    Random,
    /// Exactly `cells`.
    Given,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// `cells_per_link` dedicated cells on every directed link.
    #[default]
    Links,
    /// `shared_cells` shared cells, one dedicated cell per child→parent link.
    Tree,
    /// As `tree`, and one dedicated cell per parent→child link too (what
    /// goes down the tree then has cells of its own).
    #[serde(rename = "tree-both")]
    TreeBoth,
    /// Contiki-NG's Orchestra, receiver-based, RPL storing-mode rule: every
    /// node listens in its own unicast cell (hash of its address), its
    /// parent and children send there sharing it; a common shared cell for
    /// the rest. Slotframes of `orchestra_unicast_period` and
    /// `orchestra_common_period` slots (`slotframe_length` is not used).
    Orchestra,
    /// The 6TiSCH minimal configuration (RFC 8180 §4.1): one shared cell
    /// (slot offset 0, channel offset 0) in a slotframe of
    /// `slotframe_length` slots carries every frame after TSCH CSMA backoff.
    Minimal,
    /// 6TiSCH's Minimal Scheduling Function (RFC 9033) on the routing tree
    /// to node 0: the minimal shared cell (RFC 8180), every node's
    /// autonomous receive cell placed by the SAX hash of its EUI-64 (RFC
    /// 9033 §3), autonomous transmit cells to its parent and children, and
    /// cells to the parent added and removed by 6P (RFC 8480) as the
    /// cell-usage thresholds ask (RFC 9033 §5.1). A slotframe of 101 slots
    /// (RFC 9033 SLOTFRAME_LENGTH; `slotframe_length` is not used).
    Msf,
}

params! {
    /// A dedicated TSCH cell: `sender` transmits to `receiver` in it.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct GivenCell at "mac.tsch.cells[]" {
        sender: u32; range (AtLeast(0.0), 9_999.0),
        receiver: u32; range (AtLeast(0.0), 9_999.0),
        slot: u32; range (AtLeast(0.0), 65_534.0),
        channel_offset: u8 [serde(default)] = 0; range (AtLeast(0.0), 15.0),
    }
}

params! {
    /// TSCH; the IEEE 802.15.4-2015 default 10 ms timeslot template.
    #[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Tsch at "mac.tsch": Default {
        /// Slots in the slotframe.
        slotframe_length: u32 = 101; range (AtLeast(1.0), 65_535.0),
        /// Dedicated cells per directed link (`schedule = "links"`).
        cells_per_link: u32 = 1; range (AtLeast(1.0), 65_535.0),
        /// The timeslot's length (the IEEE default template needs 10 ms).
        timeslot_ms: f64 = 10.0; range (Above(0.0), 1000.0),
        /// Retransmissions of an unacknowledged frame.
        max_retries: u32 = 3; range (AtLeast(0.0), 7.0),
        /// TSCH CSMA's largest backoff exponent in shared cells (macMaxBe:
        /// IEEE 802.15.4-2015's default 7; Contiki-NG's TSCH_MAC_MAX_BE 5).
        /// The smallest is 1 (macMinBe).
        max_be: u32 = 7; range (AtLeast(1.0), 8.0),
        /// How the cells are laid out: at random or exactly `cells`.
        cell_placement: CellPlacement = CellPlacement::Random,
        /// With `cell_placement = "given"`: the cells.
        cells: Vec<GivenCell> = Vec::new(),
        /// Which links get cells (with `cell_placement = "random"`).
        schedule: Schedule = Schedule::Links,
        /// Shared cells of the `tree` schedules.
        shared_cells: u32 = 1; range (AtLeast(0.0), 65_535.0),
        /// Per channel 11..26 (16 values), a factor on every link's PDR on that
        /// channel (interference on some frequencies); empty: none.
        channel_pdr: Vec<f64> = Vec::new(); range (AtLeast(0.0), 1.0),
        /// Data frames and Enhanced ACKs name both ends by their 64-bit
        /// extended addresses (as Contiki-NG and OpenWSN do); false: 16-bit
        /// short addresses.
        extended_addresses: bool = false,
        /// With `schedule = "orchestra"`: the unicast slotframe's length
        /// (Contiki-NG orchestra-conf.h `ORCHESTRA_UNICAST_PERIOD`, 17; its
        /// least common multiple with the common period is the slotframe the
        /// cells are laid out on).
        orchestra_unicast_period: u32 = 17; range (AtLeast(1.0), 1_000.0),
        /// With `schedule = "orchestra"`: the common shared slotframe's length
        /// (orchestra-conf.h `ORCHESTRA_COMMON_SHARED_PERIOD`, 31).
        orchestra_common_period: u32 = 31; range (AtLeast(1.0), 1_000.0),
        /// With `schedule = "orchestra"`: 0, a node's neighbours are its
        /// routing-tree neighbours; N, each node also holds as neighbours the
        /// line positions next to its own up to the N-th (node k is the
        /// (k + 1)-th), whether or not a node is there, as a firmware that
        /// fills its neighbour table by id does (the Cooja-NG oracle's adds ids
        /// ± 1 up to its MAX_NODES 8). Orchestra adds a shared TX link in each
        /// neighbour's unicast cell (orchestra-rule-unicast-per-neighbor-rpl-ns.c
        /// `neighbor_updated`, `add_uc_link`), and TSCH CSMA counts its window
        /// down in every such link, the absent neighbour's too.
        orchestra_line_neighbours_up_to: u32 = 0; range (AtLeast(0.0), 65_535.0),
        /// With `schedule = "orchestra"` and `formation = "synchronised"`: 0,
        /// Orchestra's EB slotframe is left out; N, it is N slots long
        /// (orchestra-conf.h `ORCHESTRA_EBSF_PERIOD`, 397), handle 0: a node
        /// queues an EB every `eb_period_s` (tsch.c) and sends it in its own
        /// EB slot, hash(address) mod N, where none of its unicast cells
        /// sends and its receive cell listens only if no EB went; in its
        /// time source's EB slot it listens for EBs, not in its receive cell
        /// (tsch-schedule.c link selection: TX first, then the lowest handle).
        orchestra_eb_period: u32 = 0; range (AtLeast(0.0), 65_535.0),
        /// How nodes come to share the slots: "synchronised" (every node
        /// from power-on), or "scan" (node 0 from power-on; every other
        /// node scans for Enhanced Beacons, synchronises on the first it
        /// hears and then sends its own in the shared cell, RFC 8180; a
        /// client of the sessions workload only once its join succeeded,
        /// as a node advertises the network only once part of it, RFC
        /// 9031 §4).
        formation: Formation = Formation::Synchronised,
        /// With `formation = "scan"` or `orchestra_eb_period` > 0: the time
        /// between two Enhanced Beacons of a node, each gap drawn in
        /// [3/4, 1) of it (Contiki-NG
        /// tsch-conf.h `TSCH_EB_PERIOD`, 16 s, and tsch.c's draw).
        eb_period_s: f64 = 16.0; range (AtLeast(0.01), 3_600.0),
        /// With `formation = "scan"`: time on one channel while scanning
        /// (Contiki-NG tsch-conf.h `TSCH_CHANNEL_SCAN_DURATION`, 1 s).
        scan_dwell_s: f64 = 1.0; range (AtLeast(0.001), 3_600.0),
        /// With `formation = "scan"`: each node's crystal is off by a
        /// uniform draw within ± this many ppm, so its slot boundaries
        /// drift from its time source's; a frame outside the receiver's
        /// guard is not heard, and keep-alives, resynchronisation and loss
        /// of synchronisation follow Contiki-NG 4.9 (docs/macs.md). 0:
        /// clocks do not drift (estimate for a 32 kHz crystal: 20 ppm, as
        /// `mac.csl.crystal_tolerance_ppm`; Contiki-NG's keep-alive timeout
        /// assumes 40).
        drift_ppm: f64 = 0.0; range (AtLeast(0.0), 1_000.0),
        /// With `drift_ppm` > 0: a node that exchanged nothing with its
        /// time source for about this long sends it a keep-alive, each
        /// wait drawn in [0.9, 1) of it (Contiki-NG tsch-conf.h
        /// `TSCH_KEEPALIVE_TIMEOUT`, 12 s); 0 sends none. With
        /// `adaptive_timesync`, once the drift is learnt the wait becomes
        /// 60 s whatever this says, 0 included (tsch-adaptive-timesync.c
        /// `timesync_entry_add` sets `TSCH_MAX_KEEPALIVE_TIMEOUT`).
        keepalive_timeout_s: f64 = 12.0; range (AtLeast(0.0), 3_600.0),
        /// With `drift_ppm` > 0: a node not resynchronised for this long
        /// leaves the network and scans again (tsch-conf.h
        /// `TSCH_DESYNC_THRESHOLD`, 2 x 60 s).
        desync_threshold_s: f64 = 120.0; range (AtLeast(0.01), 36_000.0),
        /// With `drift_ppm` > 0: how far a frame's start may be off the
        /// instant the receiver expects it and still be heard, at most
        /// TsRxWait / 2 of the template (2 200 / 2 µs, where the receiver
        /// listens from TsRxOffset for TsRxWait around TsTxOffset).
        guard_us: f64 = 1_100.0; range (AtLeast(1.0), 1_100.0),
        /// With `drift_ppm` > 0: a node's time source, "eb" (the EB sender
        /// it synchronised to, Contiki-NG without RPL: tsch.c
        /// `tsch_associate`) or "parent" (its next hop to the root on the
        /// computed routes once a frame from it is heard, as Contiki-NG's tsch-rpl.c makes RPL's
        /// preferred parent the time source).
        time_source: TimeSource = TimeSource::Eb,
        /// How a node finds its next hop: "tree" (the least-ETX routes
        /// computed from the topology's links, fixed for the run) or "rpl"
        /// (storing-mode RPL, RFC 6550, its DIOs and DAOs carried as frames;
        /// docs/rpl.md). "rpl" needs formation = "scan": a node starts RPL
        /// once it has joined (RFC 9031 §4); with clock drift its time
        /// source then follows RPL's preferred parent, whatever
        /// `time_source` says (Contiki-NG tsch-rpl.c). Under MSF the
        /// negotiated cells move to RPL's new parent on a switch (6P ADD to
        /// it, CLEAR to the old one) and the autonomous TX cells follow
        /// RPL's parent and children (and, while a frame waits, any other
        /// neighbour). Orchestra's cells follow RPL's parent
        /// and children (not with `orchestra_line_neighbours_up_to` > 0); the tree
        /// schedules' dedicated cells stay on the computed tree. With
        /// "rpl" the results gain RPL's whole-run counts (`rpl_*`,
        /// docs/rpl.md) on each replication's first row, 0 on its others.
        routing: Routing = Routing::Tree,
        /// With `drift_ppm` > 0: learn the drift from the time source's
        /// corrections and compensate it, the keep-alive timeout growing
        /// to 60 s once learnt (Contiki-NG tsch-adaptive-timesync.c, on by
        /// default: tsch-conf.h `TSCH_ADAPTIVE_TIMESYNC`).
        adaptive_timesync: bool = true,
        /// Cooja's native motes running Contiki-NG (the Cooja-NG oracle):
        /// a busy-wait yields to Cooja, which runs the mote again 1 ms
        /// later, so an idle RX or ACK wait ends on a whole millisecond
        /// after it began (rtimer-arch.h `RTIMER_BUSYWAIT_UNTIL_ABS`,
        /// ContikiClock.java `doActionsAfterTick`), and a frame is on the
        /// air for its bytes less the FCS (ContikiRadio.java). A Cooja
        /// artefact, not a property of TSCH.
        cooja_mote_ticks: bool = false,
    }
}

/// How the nodes of a TSCH network come to share its slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Formation {
    /// Every node follows the slots from power-on (no Enhanced Beacons).
    #[default]
    Synchronised,
    /// Node 0 is the root; every other node scans for an Enhanced Beacon
    /// and synchronises on it, then beacons itself (a sessions client once
    /// it has joined).
    Scan,
}

/// Which neighbour a TSCH node keeps its clock on under clock drift.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TimeSource {
    /// The EB sender it synchronised to.
    #[default]
    Eb,
    /// Its next hop to the root (RPL's preferred parent).
    Parent,
}

/// How a TSCH node finds its next hop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Routing {
    /// The least-ETX routes computed from the topology, fixed for the run.
    #[default]
    Tree,
    /// Storing-mode RPL over the TSCH network's own frames.
    Rpl,
}

/// IEEE 802.15.4-2015 channels 11..26 of the 2.4 GHz band.
const CHANNELS: usize = 16;

impl Tsch {
    fn validate(&self, p: &mut Problems) {
        let t = self;
        self.check_ranges(p);
        p.at_most(
            "mac.tsch.cells_per_link",
            t.cells_per_link,
            "mac.tsch.slotframe_length",
            t.slotframe_length,
        );
        if t.timeslot_ms > 0.0 {
            let need_us = crate::runtime::template_minimum_us();
            if crate::units::us_from_ms(t.timeslot_ms) < need_us {
                let need = crate::problem::num(need_us as f64 / 1000.0);
                let why = format!("must be >= {need} (the IEEE default template needs {need} ms)");
                p.push("mac.tsch.timeslot_ms", t.timeslot_ms, why);
            }
        }
        if matches!(t.schedule, Schedule::Tree | Schedule::TreeBoth)
            && t.shared_cells >= t.slotframe_length
            && t.slotframe_length >= 1
        {
            // the tree schedules put the shared cells in slots 0..shared_cells
            // and each link's dedicated cell in a slot left free: none is left
            let why = format!(
                "must be < mac.tsch.slotframe_length ({}) with schedule = '{}': the shared \
                 cells take slots 0 to shared_cells - 1 and each tree link needs a free slot \
                 for its dedicated cell; range [0, {}]",
                t.slotframe_length,
                if t.schedule == Schedule::Tree {
                    "tree"
                } else {
                    "tree-both"
                },
                t.slotframe_length - 1
            );
            p.push("mac.tsch.shared_cells", t.shared_cells, why);
        }
        if !matches!(t.channel_pdr.len(), 0 | CHANNELS) {
            let n = t.channel_pdr.len();
            let why = format!("must list 16 values (channels 11..26) or none, not {n}");
            p.push("mac.tsch.channel_pdr", &t.channel_pdr, why);
        }
        if t.formation == Formation::Scan {
            // EBs go in the minimal shared cell (RFC 8180 §4.1)
            let shared = match (t.cell_placement, t.schedule) {
                (CellPlacement::Given, _) | (_, Schedule::Links) => false,
                (_, Schedule::Tree | Schedule::TreeBoth) => t.shared_cells >= 1,
                (_, Schedule::Minimal | Schedule::Orchestra | Schedule::Msf) => true,
            };
            if !shared {
                let why = "must be 'synchronised' unless the schedule has a shared cell for the \
                           Enhanced Beacons: schedule = 'minimal', 'orchestra', 'msf', or 'tree' / \
                           'tree-both' with shared_cells >= 1";
                p.push("mac.tsch.formation", t.formation, why);
            }
        }
        if t.drift_ppm > 0.0 && t.formation != Formation::Scan {
            // a node that loses synchronisation scans again: only with formation
            let why = "must be 0 unless mac.tsch.formation = 'scan' (a node that loses \
                       synchronisation scans for Enhanced Beacons again)";
            p.push("mac.tsch.drift_ppm", t.drift_ppm, why);
        }
        if t.routing == Routing::Rpl && t.formation != Formation::Scan {
            let why = "must be 'tree' unless mac.tsch.formation = 'scan' (a node starts RPL once \
                       it has joined the network); allowed: 'tree', 'rpl'";
            p.push("mac.tsch.routing", t.routing, why);
        }
        if t.routing == Routing::Rpl && t.orchestra_line_neighbours_up_to > 0 {
            // those cells are a Cooja set-up's fixed neighbour table, which
            // RPL's parent switches would not move
            let why = "must be 'tree' with mac.tsch.orchestra_line_neighbours_up_to > 0 (a fixed \
                       neighbour table's cells do not follow RPL); allowed: 'tree', or 'rpl' with \
                       orchestra_line_neighbours_up_to = 0";
            p.push("mac.tsch.routing", t.routing, why);
        }
        if t.orchestra_eb_period > 0 && t.formation != Formation::Synchronised {
            // the EB slotframe is modelled for nodes synchronised from power-on
            let why = "must be 0 unless mac.tsch.formation = 'synchronised' (the EB slotframe is \
                       modelled for nodes synchronised from power-on); range [0, 65535]";
            p.push("mac.tsch.orchestra_eb_period", t.orchestra_eb_period, why);
        }
        match t.cell_placement {
            CellPlacement::Given => self.validate_given(p),
            CellPlacement::Random if !t.cells.is_empty() => {
                let why = "cells are used only with cell_placement = 'given'";
                p.push("mac.tsch.cells", "[...]", why);
            }
            CellPlacement::Random => {}
        }
    }

    fn validate_given(&self, p: &mut Problems) {
        let t = self;
        if t.cells.is_empty() {
            p.push(
                "mac.tsch.cells",
                &t.cells,
                "must list cells when cell_placement = 'given'",
            );
        }
        if t.schedule != Schedule::Links {
            p.push(
                "mac.tsch.schedule",
                t.schedule,
                "must be 'links' with given cells",
            );
        }
        let last = t.slotframe_length.saturating_sub(1);
        let mut used = std::collections::BTreeSet::new();
        for (i, c) in t.cells.iter().enumerate() {
            let key = format!("mac.tsch.cells[{i}]");
            c.check_ranges_at(&key, p);
            if c.slot > last {
                p.push(&key, c, format!("slot must be in [0, {last}]"));
            }
            if c.sender == c.receiver {
                p.push(&key, c, "sender = receiver");
            }
            for node in [c.sender, c.receiver] {
                if !used.insert((node, c.slot)) {
                    let why = format!(
                        "node {node} already has a cell in slot {} (one per slot)",
                        c.slot
                    );
                    p.push(&key, c, why);
                }
            }
        }
    }
}
