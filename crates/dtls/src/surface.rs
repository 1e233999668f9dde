//! The sans-IO calls whose bodies are the same in both versions: one
//! definition, expanded into the 1.2 [`crate::Connection`] and the 1.3
//! [`crate::v13::connection::Connection13`] (a macro rather than a trait,
//! so that they stay inherent methods and callers need no import).
//!
//! Each connection type holds the fields these bodies read under the same
//! names (`phase`, `stats`, `tx`, `events`, `timer`, `hs_started_at`,
//! `hs_completed_at`) and the methods where the versions differ:
//! `transmit_flight` (1.3 resends only what was not acknowledged),
//! `send_alert`, `drop_flight` (what a closed or failed connection no
//! longer needs) and `retransmit_limit_reached`.

use crate::error::Error;
use crate::session::Phase;

/// Refuse application data before the handshake completes, or longer than
/// one record carries (`max`: 2^14 bytes, RFC 6347 §4.1 / RFC 9147 §4).
pub(crate) fn refuse_send(phase: Phase, len: usize, max: usize) -> Result<(), Error> {
    if phase != Phase::Established {
        return Err(Error::NotConnected);
    }
    if len > max {
        return Err(Error::MessageTooLong);
    }
    Ok(())
}

/// The shared accessors, queue polls, timeout and close, for inside an
/// `impl` block.
macro_rules! shared_surface {
    () => {
        /// Life-cycle phase.
        pub fn phase(&self) -> Phase {
            self.phase
        }

        /// True once the handshake completed and until closed or failed.
        pub fn is_established(&self) -> bool {
            self.phase == Phase::Established
        }

        /// Keep every message sent and accepted, in order, in
        /// [`Stats::sent`] and [`Stats::received`]'s logs (a trace asks).
        pub fn log_messages(&mut self) {
            self.stats.sent.keep_log();
            self.stats.received.keep_log();
        }

        /// Counters (crypto operations, bytes per message kind, datagrams).
        pub fn stats(&self) -> &Stats {
            &self.stats
        }

        /// Handshake duration (first flight sent, or hello accepted by a
        /// server session → handshake complete).
        pub fn handshake_duration_us(&self) -> Option<u64> {
            self.hs_completed_at
                .map(|t| t.saturating_sub(self.hs_started_at))
        }

        /// Next datagram to send, if any.
        pub fn poll_transmit(&mut self, _now: Instant) -> Option<Vec<u8>> {
            let d = self.tx.pop_front()?;
            self.stats.datagrams_sent += 1;
            self.stats.bytes_sent += d.len() as u64;
            Some(d)
        }

        /// When `handle_timeout` should be called next.
        pub fn poll_timeout(&self) -> Option<Instant> {
            self.timer.deadline()
        }

        /// Call when the deadline from `poll_timeout` has passed: resend
        /// the flight (1.3: what of it was not acknowledged), or give up
        /// once the retransmission limit is reached.
        pub fn handle_timeout(&mut self, now: Instant) {
            if !self.timer.expired(now) {
                return;
            }
            if self.timer.on_expiry(now) {
                self.stats.retransmissions += 1;
                self.transmit_flight();
            } else {
                self.retransmit_limit_reached();
            }
        }

        /// Next event, if any.
        pub fn poll_event(&mut self) -> Option<Event> {
            self.events.pop_front()
        }

        /// Send close_notify and close.
        pub fn close(&mut self) {
            if matches!(self.phase, Phase::Closed | Phase::Failed) {
                return;
            }
            self.send_alert(AlertLevel::Warning, AlertDescription::CloseNotify);
            self.phase = Phase::Closed;
            self.timer.stop();
            self.drop_flight();
            self.events.push_back(Event::Closed);
        }
    };
}

pub(crate) use shared_surface;
