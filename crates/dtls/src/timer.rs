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
    /// When the flight was last resent because the peer repeated its own
    /// (None: not yet for this flight).
    last_resend_on_repeat: Option<Instant>,
}

impl RetransmitTimer {
    /// New stopped timer.
    pub fn new(policy: RetransmitPolicy) -> Self {
        RetransmitTimer {
            policy,
            deadline: None,
            count: 0,
            last_resend_on_repeat: None,
        }
    }
    /// Start for a new flight: resets the interval and the count.
    pub fn start(&mut self, now: Instant) {
        self.count = 0;
        self.last_resend_on_repeat = None;
        self.deadline = Some(now.saturating_add(self.policy.interval_us(0)));
    }
    /// Stop (the flight was answered, or it is the last flight, which is
    /// resent only when the peer repeats its own).
    pub fn stop(&mut self) {
        self.deadline = None;
        self.last_resend_on_repeat = None;
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
    /// The peer repeated its previous flight at `now`: may ours be resent?
    /// At most once per timer interval (RFC 6347 §4.2.4, RFC 9147 §5.8):
    /// the first repeat is answered at once (our flight was lost), further
    /// repeats within the current interval are not, so a peer that answers
    /// every datagram cannot drive both sides into a storm. Records the
    /// resend when it is allowed.
    pub fn resend_on_repeat(&mut self, now: Instant) -> bool {
        let interval = self.policy.interval_us(self.count);
        let allowed = self
            .last_resend_on_repeat
            .is_none_or(|t| now >= t.saturating_add(interval));
        if allowed {
            self.last_resend_on_repeat = Some(now);
        }
        allowed
    }
    /// Retransmissions made for the current flight.
    pub fn count(&self) -> u32 {
        self.count
    }
}
