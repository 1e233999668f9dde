//! 64-entry sliding anti-replay window (RFC 6347 §4.1.2.6).

/// Anti-replay window over 48-bit sequence numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayWindow {
    /// Highest sequence number accepted so far (valid if `bitmap != 0`).
    max_seq: u64,
    /// Bit i set: `max_seq - i` was accepted.
    bitmap: u64,
}

impl ReplayWindow {
    /// Window size.
    pub const SIZE: u64 = 64;

    /// Empty window.
    pub fn new() -> Self {
        Self::default()
    }

    /// Highest sequence number accepted so far, if any (DTLS 1.3
    /// reconstructs sequence numbers around it, RFC 9147 §4.2.2).
    pub fn highest(&self) -> Option<u64> {
        (self.bitmap != 0).then_some(self.max_seq)
    }

    /// Would `seq` be accepted (not a replay, not too old)? Does not change
    /// the window: call [`ReplayWindow::mark`] once the record authenticated.
    pub fn check(&self, seq: u64) -> bool {
        if self.bitmap == 0 || seq > self.max_seq {
            return true;
        }
        let diff = self.max_seq - seq;
        diff < Self::SIZE && self.bitmap & (1 << diff) == 0
    }

    /// Record `seq` as received.
    pub fn mark(&mut self, seq: u64) {
        if self.bitmap == 0 {
            self.max_seq = seq;
            self.bitmap = 1;
        } else if seq > self.max_seq {
            let shift = seq - self.max_seq;
            self.bitmap = if shift >= Self::SIZE {
                1
            } else {
                (self.bitmap << shift) | 1
            };
            self.max_seq = seq;
        } else {
            let diff = self.max_seq - seq;
            if diff < Self::SIZE {
                self.bitmap |= 1 << diff;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_window_rules() {
        let mut w = ReplayWindow::new();
        assert!(w.check(5));
        w.mark(5);
        assert!(!w.check(5));
        assert!(w.check(4));
        assert!(w.check(6));
        w.mark(100);
        assert!(!w.check(5), "older than the window");
        assert!(w.check(37), "inside the window, not seen");
        assert!(!w.check(36), "exactly 64 behind: outside");
        w.mark(37);
        assert!(!w.check(37));
        w.mark(1000);
        assert!(!w.check(100));
        assert!(w.check(999));
    }
}
