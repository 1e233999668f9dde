//! The event queue: events ordered by (time, sequence number).
//!
//! The sequence number is the order of scheduling, so events due at the same
//! microsecond run first-scheduled first — the tie-break that makes a run
//! reproducible bit for bit.
//!
//! A calendar of buckets, each [`BUCKET_US`] wide, holds what is due within
//! [`BUCKETS`] buckets of now; a heap holds what lies beyond. Only the
//! current bucket is kept in order (sorted once when time reaches it, plus
//! a small heap for what is scheduled into it afterwards), so scheduling is
//! a push and popping is cheap however many timers a large network has
//! pending. The order is exactly (time, sequence).
//!
//! An event can also be queued via hops ([`EventQueue::schedule_via_hops`]):
//! the queue re-schedules it at each hop as a handler doing nothing else
//! would, in that hop's place in the order, so it comes out where that
//! chain of handlers would have put it, without an event per hop.
//!
//! A bucket's vector, once emptied, serves the next bucket that needs one
//! (a queue allocates as many as buckets hold events at once, not one per
//! bucket it ever used), and a bitmap says which buckets hold anything, so
//! the next occupied bucket is found a 64-bucket word at a time. Short
//! runs with few nodes (experiment 1's handshakes) create a queue per
//! replication and find most buckets empty.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::Time;

/// Width of a calendar bucket (µs): about a TSCH timeslot's busiest part.
const BUCKET_US: Time = 1 << 10;
/// Buckets ahead of the current one (≈ 4.2 s: a slotframe of 101 10-ms
/// slots, and most MAC and application timers, fall inside).
const BUCKETS: u64 = 1 << 12;
/// Words of the occupied-bucket bitmap.
const WORDS: usize = (BUCKETS / 64) as usize;

struct Entry<E> {
    at: Time,
    /// The scheduling order, times two; the low bit set: the entry is a hop
    /// ([`EventQueue::schedule_via_hops`]), whose course is kept beside the
    /// queue (so a plain entry stays as small as before).
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    fn is_hop(&self) -> bool {
        self.seq & 1 == 1
    }
}

/// The course of an event that a chain of handlers doing nothing else
/// would have re-scheduled: at the first hop, then every `step` up to
/// `last`, each scheduling the following one, the last scheduling the
/// event at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hops {
    pub step: Time,
    pub last: Time,
    pub at: Time,
}

impl<E> Entry<E> {
    fn key(&self) -> (Time, u64) {
        (self.at, self.seq)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
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
        self.key().cmp(&other.key())
    }
}

/// A min-queue of events; `pop` never goes back in time.
pub struct EventQueue<E> {
    /// The current bucket's events as it was entered, latest first.
    sorted: Vec<Entry<E>>,
    /// Events scheduled into the current bucket after it was entered.
    late: BinaryHeap<Reverse<Entry<E>>>,
    /// Bucket `b` (for `current < b < current + BUCKETS`) at `b % BUCKETS`;
    /// the calendar is empty until a bucket is first used.
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `i` set: bucket index `i` holds events.
    occupied: [u64; WORDS],
    /// Emptied bucket vectors, kept for the next bucket that needs one.
    spare: Vec<Vec<Entry<E>>>,
    /// Events in the buckets.
    in_buckets: usize,
    /// Events due at or after bucket `current + BUCKETS`.
    far: BinaryHeap<Reverse<Entry<E>>>,
    current: u64,
    len: usize,
    next_seq: u64,
    now: Time,
    /// The course of each hop in the queue, by its sequence number (a few
    /// at a time: one per Cooja mote in its strobe loop, and the stale).
    hops: Vec<(u64, Hops)>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

fn bucket_of(at: Time) -> u64 {
    at / BUCKET_US
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            sorted: Vec::new(),
            late: BinaryHeap::new(),
            buckets: Vec::new(),
            occupied: [0; WORDS],
            spare: Vec::new(),
            in_buckets: 0,
            far: BinaryHeap::new(),
            current: 0,
            len: 0,
            next_seq: 0,
            now: 0,
            hops: Vec::new(),
        }
    }

    /// The time of the last event popped.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at `at`; a time in the past is clamped to now, so a
    /// handler can never make time run backwards.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        self.push(at, event, None);
    }

    /// Schedule `event` as a chain of handlers would that, from `first`
    /// every `hops.step` up to `hops.last`, each did nothing but schedule
    /// the next, the last scheduling `event` at `hops.at`: the queue takes
    /// each hop in its place in the (time, sequence) order and gives it a
    /// new sequence number then, so `event` comes out in the same place
    /// among the events due at `hops.at` as it would after those handlers
    /// (and the hops are not events: `pop` never returns them).
    pub fn schedule_via_hops(&mut self, first: Time, hops: Hops, event: E) {
        debug_assert!(first <= hops.last && hops.last <= hops.at && hops.step > 0);
        self.push(first, event, Some(hops));
    }

    #[inline]
    fn push(&mut self, at: Time, event: E, hops: Option<Hops>) {
        // the low bit marks a hop; the order is the counter's
        let seq = self.next_seq << 1 | u64::from(hops.is_some());
        self.next_seq += 1;
        if let Some(h) = hops {
            self.hops.push((seq, h));
        }
        let e = Entry {
            at: at.max(self.now),
            seq,
            event,
        };
        self.len += 1;
        let b = bucket_of(e.at);
        if b <= self.current {
            self.late.push(Reverse(e));
        } else if b < self.current + BUCKETS {
            self.push_bucket(b, e);
        } else {
            self.far.push(Reverse(e));
        }
    }

    /// Put `e` in bucket `b`.
    fn push_bucket(&mut self, b: u64, e: Entry<E>) {
        if self.buckets.is_empty() {
            self.buckets = (0..BUCKETS).map(|_| Vec::new()).collect();
        }
        let i = (b % BUCKETS) as usize;
        let bucket = &mut self.buckets[i];
        if bucket.capacity() == 0 {
            if let Some(spare) = self.spare.pop() {
                *bucket = spare;
            }
        }
        bucket.push(e);
        self.occupied[i / 64] |= 1 << (i % 64);
        self.in_buckets += 1;
    }

    /// How many buckets after index `start` (counting it as 0) the first
    /// occupied one lies, going round the calendar.
    fn first_occupied_from(&self, start: usize) -> Option<u64> {
        let mut w = start / 64;
        let mut bits = self.occupied[w] & (!0u64 << (start % 64));
        // one word more than the bitmap: the start word's low bits come last
        for _ in 0..=WORDS {
            if bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                return Some(((i + BUCKETS as usize - start) % BUCKETS as usize) as u64);
            }
            w = (w + 1) % WORDS;
            bits = self.occupied[w];
        }
        None
    }

    /// The next event (inline: the engine's loop pops one per event, and
    /// the event is moved out rather than returned through memory).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let mut e = self.pop_entry()?;
        if e.is_hop() {
            e = self.pop_after_hops(e)?;
        }
        self.now = e.at;
        Some((e.at, e.event))
    }

    /// The first event after the hop `e` and those that follow it.
    #[cold]
    #[inline(never)]
    fn pop_after_hops(&mut self, mut e: Entry<E>) -> Option<Entry<E>> {
        while e.is_hop() {
            self.hop(e);
            e = self.pop_entry()?;
        }
        Some(e)
    }

    /// The first entry, hops included.
    #[inline]
    fn pop_entry(&mut self) -> Option<Entry<E>> {
        self.settle();
        let from_late = match (self.sorted.last(), self.late.peek()) {
            (Some(a), Some(Reverse(b))) => b < a,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        let e = if from_late {
            self.late.pop().map(|Reverse(e)| e)
        } else {
            self.sorted.pop()
        }?;
        // a hop does not move the clock: only a popped event does
        self.len -= 1;
        Some(e)
    }

    /// Take the hop `e` has come to: on to the next one, or the event to
    /// its time.
    fn hop(&mut self, e: Entry<E>) {
        let Some(i) = self.hops.iter().position(|&(seq, _)| seq == e.seq) else {
            return;
        };
        let (_, hops) = self.hops.swap_remove(i);
        if e.at < hops.last {
            let next = (e.at + hops.step).min(hops.last);
            self.push(next, e.event, Some(hops));
        } else {
            self.push(hops.at, e.event, None);
        }
    }

    /// Make the current bucket the first that holds anything (called before
    /// every pop and peek: the common case, a current bucket with events
    /// left, stays inline).
    #[inline]
    fn settle(&mut self) {
        if self.sorted.is_empty() && self.late.is_empty() && self.len > 0 {
            self.enter_next_bucket();
        }
    }

    /// Move to the next bucket that holds anything and sort it.
    fn enter_next_bucket(&mut self) {
        let next = if self.in_buckets > 0 {
            let start = ((self.current + 1) % BUCKETS) as usize;
            self.current
                + 1
                + self
                    .first_occupied_from(start)
                    .expect("in_buckets counts them")
        } else {
            let Reverse(first) = self.far.peek().expect("len counts it");
            bucket_of(first.at)
        };
        self.current = next;
        // what the calendar now reaches comes in from beyond it
        while let Some(Reverse(e)) = self.far.peek() {
            let b = bucket_of(e.at);
            if b >= next + BUCKETS {
                break;
            }
            let Reverse(e) = self.far.pop().expect("peeked");
            self.push_bucket(b, e);
        }
        // enter the bucket; the vector `sorted` held waits for another
        let i = (next % BUCKETS) as usize;
        self.occupied[i / 64] &= !(1 << (i % 64));
        let entered = std::mem::take(&mut self.buckets[i]);
        let emptied = std::mem::replace(&mut self.sorted, entered);
        if emptied.capacity() > 0 {
            self.spare.push(emptied);
        }
        self.in_buckets -= self.sorted.len();
        self.sorted.sort_unstable_by_key(|e| Reverse(e.key()));
    }

    /// Move the clock forward to `t`, when nothing is due before it: the
    /// quiet time up to a run's end passes without an event.
    pub fn advance_to(&mut self, t: Time) {
        debug_assert!(
            self.peek_time().is_none_or(|next| next >= t),
            "an event is due earlier"
        );
        self.now = self.now.max(t);
    }

    /// When the next event is due (a hop that comes first is taken: it
    /// is no event, and what it schedules may come first too).
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        match self.first()? {
            (at, false) => Some(at),
            (_, true) => self.peek_after_hops(),
        }
    }

    /// The first entry's time and whether it is a hop.
    #[inline]
    fn first(&mut self) -> Option<(Time, bool)> {
        self.settle();
        let first = match (self.sorted.last(), self.late.peek()) {
            (Some(a), Some(Reverse(b))) => Some(if b < a { b } else { a }),
            (Some(a), None) => Some(a),
            (None, Some(Reverse(b))) => Some(b),
            (None, None) => None,
        }?;
        Some((first.at, first.is_hop()))
    }

    #[cold]
    #[inline(never)]
    fn peek_after_hops(&mut self) -> Option<Time> {
        loop {
            match self.first()? {
                (at, false) => return Some(at),
                (_, true) => {
                    let e = self.pop_entry().expect("a hop is first");
                    self.hop(e);
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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
    fn the_calendar_keeps_the_order_of_a_plain_heap() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut seq = 0u64;
        let mut now = 0;
        for round in 0..20_000 {
            // near and far times, ties, and bursts at one instant
            for _ in 0..rng.random_range(0..4) {
                let ahead = match rng.random_range(0..4) {
                    0 => 0,
                    1 => rng.random_range(0..BUCKET_US * 3),
                    2 => rng.random_range(0..BUCKET_US * BUCKETS * 2),
                    _ => 10_000 * rng.random_range(0..3),
                };
                q.schedule(now + ahead, seq);
                reference.push(Reverse((now + ahead, seq)));
                seq += 1;
            }
            if round % 3 != 0 {
                assert_eq!(q.peek_time(), reference.peek().map(|Reverse((t, _))| *t));
                let got = q.pop();
                let want = reference.pop().map(|Reverse(x)| x);
                assert_eq!(got, want);
                if let Some((t, _)) = got {
                    now = t;
                }
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(Reverse(want)) = reference.pop() {
            assert_eq!(q.pop(), Some(want));
        }
        assert!(q.is_empty() && q.pop().is_none());
    }

    /// A step of the property test: schedule at `now + ahead`, or pop.
    #[derive(Debug, Clone)]
    enum Op {
        Schedule(Time),
        Pop,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            // the same instant, the current bucket, the calendar's span and its edge, beyond it
            1 => Just(Op::Schedule(0)),
            1 => (0..BUCKET_US * 2).prop_map(Op::Schedule),
            1 => (0..BUCKET_US * BUCKETS).prop_map(Op::Schedule),
            1 => (BUCKET_US * (BUCKETS - 2)..BUCKET_US * (BUCKETS + 2)).prop_map(Op::Schedule),
            1 => (0..BUCKET_US * BUCKETS * 4).prop_map(Op::Schedule),
            3 => Just(Op::Pop),
        ]
    }

    proptest::proptest! {
        /// Any interleaving of schedules and pops comes out in a plain
        /// heap's (time, sequence) order, bucket vectors emptied and reused on the way.
        #[test]
        fn any_interleaving_keeps_the_order_of_a_plain_heap(
            ops in proptest::collection::vec(op(), 0..400)
        ) {
            let mut q = EventQueue::new();
            let mut reference = BinaryHeap::new();
            let (mut seq, mut now) = (0u64, 0);
            for op in ops {
                match op {
                    Op::Schedule(ahead) => {
                        q.schedule(now + ahead, seq);
                        reference.push(Reverse((now + ahead, seq)));
                        seq += 1;
                    }
                    Op::Pop => {
                        let want = reference.pop().map(|Reverse(x)| x);
                        proptest::prop_assert_eq!(q.pop(), want);
                        if let Some((t, _)) = want {
                            now = t;
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
            }
            while let Some(Reverse(want)) = reference.pop() {
                proptest::prop_assert_eq!(q.peek_time(), Some(want.0));
                proptest::prop_assert_eq!(q.pop(), Some(want));
            }
            proptest::prop_assert!(q.pop().is_none());
        }
    }

    /// What the reference queue holds: an event's id, and for a hop, the
    /// hops left (the test re-schedules it as a handler would).
    type Held = (u64, Option<Hops>);

    /// Pop the reference's next event, re-scheduling hops one by one.
    fn pop_reference(q: &mut EventQueue<Held>) -> Option<(Time, u64)> {
        loop {
            let (at, (id, hops)) = q.pop()?;
            match hops {
                Some(h) if at < h.last => q.schedule(at + h.step, (id, Some(h))),
                Some(h) => q.schedule(h.at, (id, None)),
                None => return Some((at, id)),
            }
        }
    }

    proptest::proptest! {
        /// An event scheduled via hops comes out where a chain of handlers
        /// re-scheduling it at every hop would put it, among plain events
        /// and other chains, ties at one instant included.
        #[test]
        fn hops_keep_the_place_of_a_re_scheduling_chain(
            ops in proptest::collection::vec(
                (0u8..4, 0..BUCKET_US * 4, 1u64..4, 0u64..4, 0..BUCKET_US),
                0..300,
            )
        ) {
            let mut q: EventQueue<u64> = EventQueue::new();
            let mut reference: EventQueue<Held> = EventQueue::new();
            let (mut id, mut now) = (0u64, 0);
            for (kind, ahead, step_ms, n, extra) in ops {
                // whole milliseconds, so chains and plain events meet
                let at = now + ahead / 1000 * 1000;
                match kind {
                    0 | 1 => {
                        q.schedule(at, id);
                        reference.schedule(at, (id, None));
                        id += 1;
                    }
                    2 => {
                        let step = step_ms * 1000;
                        let hops = Hops { step, last: at + n * step, at: at + n * step + extra };
                        q.schedule_via_hops(at, hops, id);
                        reference.schedule(at, (id, Some(hops)));
                        id += 1;
                    }
                    _ => {
                        let want = pop_reference(&mut reference);
                        proptest::prop_assert_eq!(q.peek_time(), want.map(|(t, _)| t));
                        proptest::prop_assert_eq!(q.pop(), want);
                        if let Some((t, _)) = want {
                            now = t;
                        }
                    }
                }
            }
            while let Some(want) = pop_reference(&mut reference) {
                proptest::prop_assert_eq!(q.pop(), Some(want));
            }
            proptest::prop_assert!(q.pop().is_none());
        }
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
