//! CSL's parameters, each with where its default comes from (OpenThread's
//! core configuration for Thread 1.2 sleepy end devices, IEEE 802.15.4).

use super::super::security::LinkSecurity;
use super::timing::UNIT_US;
use crate::clock::Crystal;
use crate::Time;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CslParams {
    /// The CSL period of a sleepy end device; 0: no CSL, a plain sleepy
    /// end device that only polls. The CSL IE carries it in units of ten
    /// symbols (160 µs), so it is a whole number of them.
    pub period_us: Time,
    /// A sleepy end device's data poll period; 0: no polls.
    pub poll_period_us: Time,
    /// How long a device whose poll was answered with the frame-pending
    /// bit keeps its receiver on for the frame.
    pub poll_wait_us: Time,
    /// Each side's clock accuracy, ppm (the CSL accuracy a node advertises):
    /// what the receiver widens its window by, not what its crystal does.
    pub accuracy_ppm: u32,
    /// Each node's crystal is off by a uniform draw within this many ppm
    /// either way (its real drift; the accuracy above is only the claim).
    pub crystal_tolerance_ppm: f64,
    /// A node's crystal pinned (tests); None draws it within the tolerance.
    pub crystal: Option<Crystal>,
    /// Each side's scheduling uncertainty, µs (the CSL uncertainty, sent
    /// in units of 10 µs).
    pub uncertainty_us: Time,
    /// OPENTHREAD_CONFIG_CSL_RECEIVE_TIME_AHEAD: reception scheduling and
    /// ramp-up before a window.
    pub receive_time_ahead_us: Time,
    /// OPENTHREAD_CONFIG_MIN_RECEIVE_ON_AHEAD: receive state before the MHR.
    pub min_receive_on_ahead_us: Time,
    /// OPENTHREAD_CONFIG_MIN_RECEIVE_ON_AFTER: receive state after the MHR's
    /// expected start (a radio that extends its window on a detected
    /// preamble sets 0).
    pub min_receive_on_after_us: Time,
    /// macMaxFrameRetries: retries of a frame not acknowledged, direct
    /// (CSMA) or CSL (each retry at the next sample).
    pub max_retries: u32,
    /// Unslotted CSMA/CA for direct frames (IEEE 802.15.4-2006 §7.5.1.4).
    pub min_be: u32,
    pub max_be: u32,
    pub max_backoffs: u32,
    /// CPU time to handle one frame (from the platform file).
    pub frame_processing_us: Time,
    /// The receiver's first sample (its phase within the period); None
    /// draws it from the node's MAC stream.
    pub phase_us: Option<Time>,
    pub security: Option<LinkSecurity>,
}

impl CslParams {
    /// OpenThread's core defaults (src/core/config/mac.h, as read in the
    /// openthread repository): receive time ahead 320 µs, minimum receive
    /// on 6 x 32 = 192 µs ahead of the MHR (SHR + PHR) and (127 + 6 + 39)
    /// x 32 = 5,504 µs after it (a longest frame, AIFS and a longest
    /// Enh-ACK); a CSL period of 500 ms = 3,125 units of 160 µs (the
    /// period OpenThread's CLI documentation uses as its example; as
    /// recalled, not re-read); 20 ppm clocks and 100 µs uncertainty on
    /// each side (estimate: a 32 kHz crystal of ±20 ppm, OpenThread's CSL
    /// uncertainty of 10 units), the crystals really within those ±20 ppm
    /// (the same estimate: a node advertises what its crystal is rated
    /// for); macMaxFrameRetries 3 and the 2006 CSMA
    /// defaults (macMinBE 3, macMaxBE 5, macMaxCSMABackoffs 4); a poll every
    /// 236 s (estimate: OpenThread polls a sleepy child's parent somewhat
    /// before its 240 s child timeout; as recalled, not re-read) and 100 ms
    /// of listening after a poll answered with the frame-pending bit
    /// (estimate, OpenThread's data poll timeout as recalled).
    pub fn openthread() -> Self {
        CslParams {
            period_us: 3_125 * UNIT_US,
            poll_period_us: 236_000_000,
            poll_wait_us: 100_000,
            accuracy_ppm: 20,
            crystal_tolerance_ppm: 20.0,
            crystal: None,
            uncertainty_us: 100,
            receive_time_ahead_us: 320,
            min_receive_on_ahead_us: 6 * 32,
            min_receive_on_after_us: (127 + 6 + 39) * 32,
            max_retries: 3,
            min_be: 3,
            max_be: 5,
            max_backoffs: 4,
            frame_processing_us: 0,
            phase_us: None,
            security: None,
        }
    }
}

impl Default for CslParams {
    fn default() -> Self {
        Self::openthread()
    }
}
