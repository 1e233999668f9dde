//! Typed timers: one table per MAC or application over its own `enum` of
//! timer kinds, owning which arming of each kind is current.
//!
//! Events cannot be taken out of the queue, so a timer that is re-armed or
//! stopped still fires at its old time; the table tells such a stale event
//! from the current one by a per-kind generation carried in the event's
//! [`Token`]. Leaving stale events in the queue (rather than removing them)
//! keeps every other event's place in the (time, sequence) order.

use crate::Time;

/// Most kinds one table holds (the DTLS applications have nine, the TSCH
/// MAC with MSF fourteen).
pub const MAX_KINDS: usize = 16;

/// A layer's timer kinds: a small `enum` whose `index` is dense in
/// `0..ALL.len()` (define one with [`timer_kinds!`](crate::timer_kinds)).
pub trait Timer: Copy + Eq + std::fmt::Debug + 'static {
    /// Every kind, `ALL[k.index()] == k`.
    const ALL: &'static [Self];
    fn index(self) -> usize;
    /// The kind's name as written in its `enum` (for the event census).
    fn name(self) -> &'static str;
}

/// Define a layer's timer kinds: a fieldless `enum` and its [`Timer`]
/// implementation, whose list of kinds cannot miss one.
///
/// ```
/// sim::timer_kinds! {
///     /// What the layer waits for.
///     enum Kind {
///         /// The next step.
///         Step,
///         Ack,
///     }
/// }
/// use sim::timer::Timer;
/// assert_eq!(Kind::ALL, &[Kind::Step, Kind::Ack]);
/// assert_eq!(Kind::Ack.index(), 1);
/// ```
#[macro_export]
macro_rules! timer_kinds {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$variant_meta])* $variant),+
        }

        impl $crate::timer::Timer for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];
            fn index(self) -> usize {
                self as usize
            }
            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => stringify!($variant)),+
                }
            }
        }
    };
}

/// What a timer event carries back to its layer: which kind, and which
/// arming of it. Only a [`TimerTable`] makes or reads one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    kind: u8,
    /// Which life of its application armed it (0 unless something above
    /// the application restarts it: [`crate::node::app::AppCx::set_timer_tag`]);
    /// the tables never read it.
    tag: u32,
    /// 0: an arming that every firing counts for (see [`TimerTable::add`]).
    generation: u64,
}

impl Token {
    /// The token of a layer that keeps its own armings and ignores what
    /// the token says (the routing layer: [`crate::rpl::router`]).
    pub(crate) fn untracked() -> Token {
        Token {
            kind: 0,
            tag: 0,
            generation: 0,
        }
    }

    /// The same arming, marked as made by life `tag` of its application.
    pub(crate) fn tagged(self, tag: u32) -> Token {
        Token { tag, ..self }
    }

    /// The life of its application that armed it (0: untagged).
    pub fn tag(&self) -> u32 {
        self.tag
    }
}

/// Where a table's armings go: the engine's queue, on behalf of one layer
/// of one node.
pub trait Schedule {
    fn schedule(&mut self, at: Time, token: Token);

    /// Schedule `token` as a chain of handlers that, from `first` on, did
    /// nothing but re-arm it would ([`crate::queue::EventQueue::schedule_via_hops`]).
    /// Where no queue keeps hops, the event is simply scheduled.
    fn schedule_via_hops(&mut self, first: Time, hops: crate::queue::Hops, token: Token) {
        let _ = first;
        self.schedule(hops.at, token);
    }
}

/// The timers of one layer of one node.
#[derive(Debug, Clone)]
pub struct TimerTable<T: Timer> {
    /// Per kind, the generation of its current arming (0: never armed, or
    /// stopped before the first arming).
    generation: [u64; MAX_KINDS],
    _kind: std::marker::PhantomData<T>,
}

impl<T: Timer> Default for TimerTable<T> {
    fn default() -> Self {
        assert!(T::ALL.len() <= MAX_KINDS, "at most {MAX_KINDS} timer kinds");
        debug_assert!(T::ALL.iter().enumerate().all(|(i, k)| k.index() == i));
        TimerTable {
            generation: [0; MAX_KINDS],
            _kind: std::marker::PhantomData,
        }
    }
}

impl<T: Timer> TimerTable<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Arm `timer` for `at`; an earlier arming of the same kind, if still
    /// pending, will fire stale.
    pub fn set(&mut self, cx: &mut impl Schedule, timer: T, at: Time) {
        let g = &mut self.generation[timer.index()];
        *g += 1;
        let token = Token {
            kind: timer.index() as u8,
            tag: 0,
            generation: *g,
        };
        cx.schedule(at, token);
    }

    /// [`set`](Self::set) for `hops.at`, queued as if re-armed at every hop
    /// from `first` (see [`Schedule::schedule_via_hops`]).
    pub fn set_via_hops(
        &mut self,
        cx: &mut impl Schedule,
        timer: T,
        first: Time,
        hops: crate::queue::Hops,
    ) {
        let g = &mut self.generation[timer.index()];
        *g += 1;
        let token = Token {
            kind: timer.index() as u8,
            tag: 0,
            generation: *g,
        };
        cx.schedule_via_hops(first, hops, token);
    }

    /// Arm `timer` for `at` without replacing earlier armings: each fires
    /// (for kinds whose handler checks itself whether there is work, e.g. a
    /// send queue that may hold several release times). [`stop`](Self::stop)
    /// does not reach these.
    pub fn add(&mut self, cx: &mut impl Schedule, timer: T, at: Time) {
        let token = Token {
            kind: timer.index() as u8,
            tag: 0,
            generation: 0,
        };
        cx.schedule(at, token);
    }

    /// A token for `timer` that something other than the queue fires (an
    /// interrupt the world raises, see [`Cx::wake_on_train`](crate::world::Cx::wake_on_train));
    /// like an [`add`](Self::add) arming, every firing counts.
    pub fn interrupt(&self, timer: T) -> Token {
        Token {
            kind: timer.index() as u8,
            tag: 0,
            generation: 0,
        }
    }

    /// Make the pending [`set`](Self::set) arming of `timer`, if any, fire stale.
    pub fn stop(&mut self, timer: T) {
        self.generation[timer.index()] += 1;
    }

    /// For the event census ([`crate::census`]): the name of the kind a
    /// fired event belongs to, and whether it fired stale.
    pub fn describe(&self, token: Token) -> (&'static str, bool) {
        match T::ALL.get(usize::from(token.kind)) {
            Some(&kind) => (kind.name(), self.fired(token).is_none()),
            None => ("unknown", true),
        }
    }

    /// The kind of a fired event, None if it is stale.
    pub fn fired(&self, token: Token) -> Option<T> {
        let kind = *T::ALL.get(usize::from(token.kind))?;
        let current = token.generation == 0 || token.generation == self.generation[kind.index()];
        current.then_some(kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::timer_kinds! {
        enum K {
            A,
            B,
        }
    }

    #[derive(Default)]
    struct Queue(Vec<(Time, Token)>);

    impl Schedule for Queue {
        fn schedule(&mut self, at: Time, token: Token) {
            self.0.push((at, token));
        }
    }

    #[test]
    fn rearming_or_stopping_makes_the_earlier_arming_stale() {
        let mut t = TimerTable::<K>::new();
        let mut q = Queue::default();
        t.set(&mut q, K::A, 10);
        t.set(&mut q, K::B, 20);
        t.set(&mut q, K::A, 30);
        let fired: Vec<_> = q.0.iter().map(|&(_, tok)| t.fired(tok)).collect();
        assert_eq!(fired, [None, Some(K::B), Some(K::A)]);
        t.stop(K::B);
        assert_eq!(t.fired(q.0[1].1), None);
        assert_eq!(t.fired(q.0[2].1), Some(K::A));
    }

    #[test]
    fn added_armings_all_fire() {
        let mut t = TimerTable::<K>::new();
        let mut q = Queue::default();
        t.add(&mut q, K::A, 10);
        t.add(&mut q, K::A, 20);
        t.set(&mut q, K::A, 30);
        t.stop(K::A);
        let fired: Vec<_> = q.0.iter().map(|&(_, tok)| t.fired(tok)).collect();
        assert_eq!(fired, [Some(K::A), Some(K::A), None]);
    }
}
