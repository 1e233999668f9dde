//! The event queue: events ordered by (time, sequence number).
//!
//! The sequence number is the order of scheduling, so events due at the same
//! microsecond run first-scheduled first — the tie-break that makes a run
//! reproducible bit for bit.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::Time;

struct Entry<E> {
    at: Time,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// A min-queue of events; `pop` never goes back in time.
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    next_seq: u64,
    now: Time,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
            now: 0,
        }
    }

    /// The time of the last event popped.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at `at`; a time in the past is clamped to now, so a
    /// handler can never make time run backwards.
    pub fn schedule(&mut self, at: Time, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse(Entry {
            at: at.max(self.now),
            seq,
            event,
        }));
    }

    pub fn pop(&mut self) -> Option<(Time, E)> {
        let Reverse(e) = self.heap.pop()?;
        self.now = e.at;
        Some((e.at, e.event))
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|Reverse(e)| e.at)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(10, "c");
        q.schedule(5, "a");
        q.schedule(10, "d");
        q.schedule(5, "b");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, [(5, "a"), (5, "b"), (10, "c"), (10, "d")]);
    }

    #[test]
    fn the_past_is_clamped_to_now() {
        let mut q = EventQueue::new();
        q.schedule(100, 1);
        assert_eq!(q.pop(), Some((100, 1)));
        q.schedule(50, 2);
        assert_eq!(q.pop(), Some((100, 2)));
        assert_eq!(q.now(), 100);
    }
}
