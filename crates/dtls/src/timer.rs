//! Retransmission timer (RFC 6347 §4.2.4) driven by caller-supplied time;
//! the schedule is the policy's ([`RetransmitPolicy::interval_us`]).

use crate::config::RetransmitPolicy;
use crate::Instant;

/// Retransmission timer state for the flight in flight.
#[derive(Clone, Debug)]
pub struct RetransmitTimer {
    policy: RetransmitPolicy,
    deadline: Option<Instant>,
    count: u32,
}

impl RetransmitTimer {
    /// New stopped timer.
    pub fn new(policy: RetransmitPolicy) -> Self {
        RetransmitTimer {
            policy,
            deadline: None,
            count: 0,
        }
    }
    /// Start for a new flight: resets the interval and the count.
    pub fn start(&mut self, now: Instant) {
        self.count = 0;
        self.deadline = Some(now.saturating_add(self.policy.interval_us(0)));
    }
    /// Stop (the flight was answered).
    pub fn stop(&mut self) {
        self.deadline = None;
    }
    /// Deadline, if running.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }
    /// True if running and expired at `now`.
    pub fn expired(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|d| now >= d)
    }
    /// Called when the timer fired and the flight is resent. Returns false
    /// when the retransmission limit is exhausted.
    pub fn on_expiry(&mut self, now: Instant) -> bool {
        if self.count >= self.policy.max_retransmissions() {
            self.deadline = None;
            return false;
        }
        self.count += 1;
        self.deadline = Some(now.saturating_add(self.policy.interval_us(self.count)));
        true
    }
    /// Retransmissions made for the current flight.
    pub fn count(&self) -> u32 {
        self.count
    }
}
