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
    /// When the flight was last resent, by this timer or for a repeat of
    /// the peer's flight (None: not yet for this flight).
    last_resend: Option<Instant>,
}

impl RetransmitTimer {
    /// New stopped timer.
    pub fn new(policy: RetransmitPolicy) -> Self {
        RetransmitTimer {
            policy,
            deadline: None,
            count: 0,
            last_resend: None,
        }
    }
    /// Start for a new flight: resets the interval and the count.
    pub fn start(&mut self, now: Instant) {
        self.count = 0;
        self.last_resend = None;
        self.deadline = Some(now.saturating_add(self.policy.interval_us(0)));
    }
    /// Stop (the flight was answered, or it is the last flight, which is
    /// resent only when the peer repeats its own).
    pub fn stop(&mut self) {
        self.deadline = None;
        self.last_resend = None;
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
        self.last_resend = Some(now);
        true
    }
    /// The peer repeated its previous flight at `now`: may ours be resent?
    /// At most once per timer interval, counting the timer's own resends
    /// (RFC 6347 §4.2.4, RFC 9147 §5.8): the first repeat is answered at
    /// once (our flight was lost); a repeat within the interval of a resend
    /// is not, so a peer that answers every datagram cannot drive both
    /// sides into a storm, and a repeat that arrives as our timer fires
    /// does not make the flight go out twice. An allowed resend is recorded
    /// and restarts a running timer's interval from `now`, as RFC 6347's
    /// state machine goes back through SENDING.
    pub fn resend_on_repeat(&mut self, now: Instant) -> bool {
        let interval = self.policy.interval_us(self.count);
        let allowed = self
            .last_resend
            .is_none_or(|t| now >= t.saturating_add(interval));
        if allowed {
            self.last_resend = Some(now);
            if self.deadline.is_some() {
                self.deadline = Some(now.saturating_add(interval));
            }
        }
        allowed
    }
    /// Retransmissions made for the current flight.
    pub fn count(&self) -> u32 {
        self.count
    }
}
