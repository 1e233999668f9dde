//! ContikiMAC's timing, each constant as Contiki 3.0's contikimac.c
//! computes it from the platform's rtimer and clock rates (line numbers of
//! `core/net/mac/contikimac/contikimac.c` at tag 3.0).

use super::super::address::LinkAddressing;
use super::super::phy;
use super::super::security::LinkSecurity;
use crate::Time;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContikimacParams {
    /// CYCLE_TIME = RTIMER_ARCH_SECOND / NETSTACK_RDC_CHANNEL_CHECK_RATE (line 90).
    pub check_interval_us: Time,
    /// CCAs per wake-up: CCA_COUNT_MAX, 2 (line 118).
    pub cca_count: u32,
    /// One CCA: CCA_CHECK_TIME = RTIMER_ARCH_SECOND / 8192 (line 134).
    pub cca_check_us: Time,
    /// Between two CCAs: CCA_SLEEP_TIME = RTIMER_ARCH_SECOND / 2000, + 1
    /// when the rtimer runs at 8 kHz or less (lines 142-146).
    pub cca_sleep_us: Time,
    /// From a send's start to its first copy: the sender's CCAs,
    /// CHECK_TIME_TX = CCA_COUNT_MAX_TX (6, line 126) · (CCA_CHECK_TIME +
    /// CCA_SLEEP_TIME) (line 155).
    pub tx_cca_us: Time,
    /// LISTEN_TIME_AFTER_PACKET_DETECTED = RTIMER_ARCH_SECOND / 80 (line 163).
    pub listen_after_detect_us: Time,
    /// Fast sleep: MAX_NONACTIVITY_PERIODS, 10 (line 174).
    pub fast_sleep_periods: u32,
    /// End of one copy to the start of the next: INTER_PACKET_INTERVAL =
    /// RTIMER_ARCH_SECOND / 2500 (line 190) and the radio's RX-to-TX turnaround.
    pub copy_gap_us: Time,
    /// End of a frame to the start of its ACK: the radio's automatic ACK
    /// after aTurnaroundTime (IEEE 802.15.4-2006 §7.5.6.4.2).
    pub ack_delay_us: Time,
    /// End of a copy to the sender's look for an ACK: INTER_PACKET_INTERVAL
    /// (lines 708-713).
    pub ack_check_us: Time,
    /// Longest train: STROBE_TIME = CYCLE_TIME + 2 · CHECK_TIME (line 180),
    /// CHECK_TIME = CCA_COUNT_MAX · (CCA_CHECK_TIME + CCA_SLEEP_TIME) (line 151).
    pub strobe_time_us: Time,
    /// Longest train to an awake receiver (a burst):
    /// MAX_PHASE_STROBE_TIME = RTIMER_ARCH_SECOND / 60 (line 204).
    pub burst_strobe_time_us: Time,
    /// How long a receiver in a burst waits for the next frame:
    /// INTER_PACKET_DEADLINE = CLOCK_SECOND / 32 (line 109).
    pub burst_deadline_us: Time,
    /// One rtimer tick (a wake-up starts on one).
    pub rtimer_tick_ns: u64,
    /// One clock tick: csma's backoffs are ctimers counted in them.
    pub clock_tick_ns: u64,
    /// Trains per packet before csma drops it (csma.c
    /// CSMA_MAX_MAC_TRANSMISSIONS, or sicslowpan's
    /// SICSLOWPAN_CONF_MAX_MAC_TRANSMISSIONS).
    pub max_transmissions: u32,
    /// csma.c MAX_QUEUED_PACKETS = QUEUEBUF_NUM.
    pub queue_capacity: usize,
    /// csma.c CSMA_MAX_NEIGHBOR_QUEUES, 2 (line 108).
    pub neighbour_queues: usize,
    /// Wake-up phase within the cycle; None draws it.
    pub phase_us: Option<Time>,
    /// Cooja's native motes: a wake-up's CCAs run on the mote's 1 ms ticks
    /// counted from the last frame end it heard (every frame end in
    /// interference range wakes a Cooja mote, radio on or off:
    /// ContikiRadio.java signalReceptionEnd, ContikiClock.java
    /// doActionsAfterTick) and sense that instant; csma's transmit timer, a
    /// ctimer of whole clock ticks from the tick it is set in, runs on the
    /// same ticks (see `mac::cooja_mote`). A Cooja artefact.
    pub cooja_mote_ticks: bool,
    /// How data frames name the two ends of a link (Contiki's uIP builds:
    /// 8-byte link addresses; see `XmacParams::addressing`).
    pub addressing: LinkAddressing,
    /// The 6LoWPAN layer above writes the context byte for context 0, as
    /// Contiki's HC06 does (see `XmacParams::contiki_context_byte`).
    pub contiki_context_byte: bool,
    /// The 6LoWPAN layer above reassembles one datagram at a time, as
    /// Contiki 3.0's does (see `XmacParams::contiki_reassembly`).
    pub contiki_reassembly: bool,
    pub security: Option<LinkSecurity>,
}

/// Contiki's default channel check rate, 8 Hz (core/contiki-default-conf.h,
/// NETSTACK_CONF_RDC_CHANNEL_CHECK_RATE).
pub const CONTIKI_CHECK_RATE_HZ: u64 = 8;

/// `n` ticks of a `hz` clock, in µs (rounded).
fn ticks_us(n: u64, hz: u64) -> Time {
    (n * 1_000_000 + hz / 2) / hz
}

impl ContikimacParams {
    /// contikimac.c's constants for an rtimer of `rtimer_hz`, a clock of
    /// `clock_hz` and a channel check rate of `check_rate_hz`, with the
    /// integer divisions Contiki makes.
    pub fn contiki(rtimer_hz: u64, clock_hz: u64, check_rate_hz: u64) -> Self {
        let cycle = rtimer_hz / check_rate_hz;
        let cca_check = rtimer_hz / 8192;
        let cca_sleep = if rtimer_hz > 8000 {
            rtimer_hz / 2000
        } else {
            rtimer_hz / 2000 + 1
        };
        let check_time = 2 * (cca_check + cca_sleep);
        let check_time_tx = 6 * (cca_check + cca_sleep);
        let inter_packet = rtimer_hz / 2500;
        let t = |n| ticks_us(n, rtimer_hz);
        ContikimacParams {
            check_interval_us: t(cycle),
            cca_count: 2,
            cca_check_us: t(cca_check),
            cca_sleep_us: t(cca_sleep),
            tx_cca_us: t(check_time_tx),
            listen_after_detect_us: t(rtimer_hz / 80),
            fast_sleep_periods: 10,
            copy_gap_us: t(inter_packet) + phy::TURNAROUND_US,
            ack_delay_us: phy::TURNAROUND_US,
            ack_check_us: t(inter_packet),
            strobe_time_us: t(cycle + 2 * check_time),
            burst_strobe_time_us: t(rtimer_hz / 60),
            burst_deadline_us: ticks_us(clock_hz / 32, clock_hz),
            rtimer_tick_ns: 1_000_000_000 / rtimer_hz,
            clock_tick_ns: 1_000_000_000 / clock_hz,
            // csma.c CSMA_MAX_MAC_TRANSMISSIONS (line 78)
            max_transmissions: 3,
            // core/net/queuebuf.h QUEUEBUF_NUM default
            queue_capacity: 8,
            neighbour_queues: 2,
            phase_us: None,
            cooja_mote_ticks: false,
            addressing: LinkAddressing::Short,
            contiki_context_byte: false,
            contiki_reassembly: false,
            security: None,
        }
    }

    /// Contiki 3.0 on a 32,768 Hz rtimer and a 128 Hz clock (the MSP430
    /// platforms: platform/wismote/platform-conf.h), at 8 Hz.
    pub fn contiki_default() -> Self {
        Self::contiki(32_768, 128, CONTIKI_CHECK_RATE_HZ)
    }

    pub fn rtimer_tick_us(&self) -> Time {
        (self.rtimer_tick_ns / 1000).max(1)
    }
}

impl Default for ContikimacParams {
    fn default() -> Self {
        Self::contiki_default()
    }
}
