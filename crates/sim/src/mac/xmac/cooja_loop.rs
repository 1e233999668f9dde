//! cxmac.c `send_packet`'s strobe loop as a Cooja native mote runs it, one
//! step per time the mote runs.
//!
//! On a Cooja mote the loop's timing comes from how the mote is scheduled,
//! not from the strobe wait alone, and the oracle's radio logs
//! (reference/cooja) show it: strobes 6.736 ms apart when nothing else is
//! heard, but 5.472 ms apart after a strobe ACK that came too late to be
//! read, and whole milliseconds after any frame end heard in between. The
//! rules, from the code:
//! - `RTIMER_NOW()` read twice in one millisecond yields for 1 ms
//!   (platform/cooja rtimer-arch.c `rtimer_arch_now`); cooja-radio.c
//!   `radio_send` yields twice for 1 ms before a frame (WITH_TURNAROUND).
//! - A yielding mote runs again 1 ms later (ContikiClock.java
//!   `doActionsAfterTick`: simProcessRunValue) or at once when a frame
//!   starts or ends at its radio (ContikiRadio.java `signalReceptionStart`,
//!   `signalReceptionEnd`: `requestImmediateWakeup`; a frame beyond the
//!   transmitting range wakes it only at its end, AbstractRadioMedium.java
//!   TRANSMISSION_FINISHED), whichever is first. Wake-ups due at one
//!   instant run in the order they were queued (EventQueue.java), and a
//!   request for a mote already due then is dropped: a frame edge at the
//!   instant of the mote's own tick runs it once more only if it came
//!   after that run ([`next_run`]).
//! - After a strobe (Contiki 3.0 cxmac.c lines 552-605): the `for` test
//!   reads the time (a new millisecond: no yield) and ends the train at
//!   `t0 + strobe_time`; the wait loop tests `RTIMER_NOW() < t +
//!   strobe_wait_time` (`t` read in the millisecond the strobe's turnaround
//!   began; 5 ticks), then reads `now` and the radio, and again; on leaving
//!   it, `t = RTIMER_NOW()`, then the next strobe's turnaround. A strobe
//!   ACK for this node read from the radio ends the loop (the data follows
//!   `t = RTIMER_NOW()` and its own turnaround); any other frame but an ACK
//!   for someone else counts a collision: no more strobes once the wait ends.
//!
//! Written by hand: it models one simulator's scheduling of one firmware
//! loop, which no library does.

use crate::Time;

/// One millisecond: a Cooja mote's clock and rtimer tick.
pub const TICK_US: Time = 1_000;

/// cxmac.c `strobe_wait_time` (7·on_time/8 with the 6-tick on time) in
/// the cooja platform's 1 ms rtimer ticks.
pub const STROBE_WAIT_TICKS: Time = 5;

/// From a strobe's end to the next strobe when nothing is heard between:
/// the wait loop's three reads and its exit read, then the 2 ms
/// turnaround, each a 1 ms yield (see the tests).
pub const UNDISTURBED_GAP_US: Time = 6 * TICK_US;

/// Where the loop is suspended: the step it takes when the mote next runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The wait loop's test returns (`RTIMER_NOW() < t + strobe_wait_time`).
    WaitTest,
    /// `now = RTIMER_NOW()` returns; the radio is read.
    Read,
    /// `t = RTIMER_NOW()` after the wait loop returns.
    LoopExit,
    /// The first turnaround yield of `radio_send` returns.
    Turnaround1,
    /// The second returns: the frame goes out (a strobe, or the data).
    Turnaround2,
}

/// What the radio holds when the loop reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// A strobe ACK for this node from the node it strobes.
    Ack,
    /// Any other cxmac frame but an ACK for someone else.
    Other,
}

/// What the mote does after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Yield: run the next step at the next wake-up.
    Yield,
    /// Put the next strobe on the air now.
    SendStrobe,
    /// Put the data on the air now.
    SendData,
    /// The loop ended with a collision counted: no data, csma backs off.
    Collision,
}

/// The loop's state between the mote's runs.
#[derive(Clone, Copy, Debug)]
pub struct StrobeLoop {
    pub step: Step,
    /// `t + strobe_wait_time`, in ms.
    wait_until_ms: Time,
    got_ack: bool,
    collision: bool,
}

impl StrobeLoop {
    /// The loop as a strobe that began at `start` ends at `end`
    /// (the mote runs then), with the train's end at `train_until_ms`.
    /// None: the `for` test ends the train (no ACK came in time).
    pub fn after_strobe(start: Time, end: Time, train_until_ms: Time) -> Option<Self> {
        if end / TICK_US >= train_until_ms {
            return None;
        }
        // `t` was read in the millisecond the strobe's two 1 ms turnaround
        // yields began
        let t_ms = (start / TICK_US).saturating_sub(2);
        Some(StrobeLoop {
            step: Step::WaitTest,
            wait_until_ms: t_ms + STROBE_WAIT_TICKS,
            got_ack: false,
            collision: false,
        })
    }

    /// Take the step due when the mote runs at `now`; `read` takes the
    /// frame waiting in the radio, if any, when the radio is read.
    pub fn run(&mut self, now: Time, read: impl FnOnce() -> Option<Heard>) -> Action {
        let ms = now / TICK_US;
        match self.step {
            Step::WaitTest => {
                self.step = if ms < self.wait_until_ms {
                    Step::Read
                } else {
                    Step::LoopExit
                };
                Action::Yield
            }
            Step::Read => {
                match read() {
                    Some(Heard::Ack) => self.got_ack = true,
                    Some(Heard::Other) => self.collision = true,
                    None => {}
                }
                // the test short-circuits on an ACK; otherwise it reads the
                // time again, in this millisecond: a yield either way
                self.step = if self.got_ack {
                    Step::LoopExit
                } else {
                    Step::WaitTest
                };
                Action::Yield
            }
            Step::LoopExit => {
                if self.collision && !self.got_ack {
                    return Action::Collision;
                }
                self.step = Step::Turnaround1;
                Action::Yield
            }
            Step::Turnaround1 => {
                self.step = Step::Turnaround2;
                Action::Yield
            }
            Step::Turnaround2 => {
                if self.got_ack {
                    Action::SendData
                } else {
                    Action::SendStrobe
                }
            }
        }
    }

    /// Has the loop read its ACK (the data is on its way)?
    pub fn acked(&self) -> bool {
        self.got_ack
    }
}

/// When a mote that yields at `now` runs again: 1 ms later, or at the
/// first wake-up event (`first_event_in(a, b)`: a frame start or end at
/// its radio in `[a, b)`) after `consumed` (the event that ran it last, if
/// it was one) — returned with whether an event woke it. If its own tick
/// ran it at `now`, `after_tick(a, b)` answers instead: an edge at exactly
/// `now` wakes it again only if it came after that run (Cooja runs the
/// wake-ups due at one instant in the order they were queued, and drops a
/// request for a mote already due then: AbstractWakeupMote.java
/// `scheduleNextWakeup`, EventQueue.java `addEvent`).
pub fn next_run(
    now: Time,
    consumed: Option<Time>,
    first_event_in: impl Fn(Time, Time) -> Option<Time>,
    after_tick: impl Fn(Time, Time) -> Option<Time>,
) -> (Time, bool) {
    let tick = now + TICK_US;
    let first = match consumed {
        Some(c) if c >= now => first_event_in(c + 1, tick),
        _ => after_tick(now, tick),
    };
    match first {
        Some(e) => (e, true),
        None => (tick, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the loop from a strobe's end with the given wake-up events and
    /// a radio that holds `heard` from `heard_at` on; returns the action
    /// that ends the run and when.
    fn play(
        start: Time,
        airtime: Time,
        events: &[Time],
        heard: Option<(Time, Heard)>,
    ) -> (Action, Time) {
        let end = start + airtime;
        let mut lp = StrobeLoop::after_strobe(start, end, 1_000_000).expect("train on");
        let (mut now, mut consumed) = (end, None);
        for _ in 0..100 {
            let find = |a: Time, b: Time| events.iter().copied().find(|&e| e >= a && e < b);
            let (at, by_event) = next_run(now, consumed, find, find);
            now = at;
            consumed = by_event.then_some(at);
            let read = || heard.filter(|&(t, _)| t <= now).map(|(_, h)| h);
            match lp.run(now, read) {
                Action::Yield => continue,
                other => return (other, now),
            }
        }
        panic!("the loop never left")
    }

    /// A 736 µs strobe beginning at `start`, ACKed 2 ms after its end (the
    /// receiver's turnaround; its start and end wake the sender), the
    /// radio holding an ACK from `held_from` on (None: the ACK itself):
    /// what the loop does and when, and the ACK's end.
    fn acked(start: Time, held_from: Option<Time>) -> ((Action, Time), Time) {
        let strobe = 736;
        let ack_start = start + strobe + 2_000;
        let ack_end = ack_start + 736;
        let held = held_from.unwrap_or(ack_end);
        let got = play(
            start,
            strobe,
            &[ack_start, ack_end],
            Some((held, Heard::Ack)),
        );
        (got, ack_end)
    }

    #[test]
    fn an_edge_at_the_instant_of_a_tick_is_judged_by_who_ran_first() {
        // ran by its tick at 10 ms: the edge at 10 ms came first (the
        // medium says none after the run), so the next run is the tick
        let first = |_: Time, _: Time| Some(10_000);
        assert_eq!(next_run(10_000, None, first, |_, _| None), (11_000, false));
        // the same edge after the run wakes it again at once
        assert_eq!(next_run(10_000, None, first, first), (10_000, true));
        // ran by that edge: it is used up, the next edge counts from after it
        let later = |a: Time, _: Time| (a <= 10_400).then_some(10_400);
        assert_eq!(
            next_run(10_000, Some(10_000), later, |_, _| None),
            (10_400, true)
        );
    }

    #[test]
    fn unanswered_strobes_leave_6_736_ms_apart() {
        // 0.736 ms strobe: the wait loop's three reads, its exit read and
        // the 2 ms turnaround after the strobe's end: 6 ms
        for start in [10_000, 10_100, 10_263, 10_264, 10_900] {
            assert_eq!(
                play(start, 736, &[], None),
                (Action::SendStrobe, start + 736 + UNDISTURBED_GAP_US)
            );
        }
    }

    #[test]
    fn an_ack_read_in_time_sends_the_data_3_ms_after_its_end() {
        // a strobe beginning 0.2 ms into its millisecond ends in it
        let (got, ack_end) = acked(10_200, None);
        assert_eq!(got, (Action::SendData, ack_end + 3_000)); // 6.472 ms after the strobe's start
    }

    #[test]
    fn an_ack_after_the_wait_sends_another_strobe_2_ms_after_its_end() {
        // a strobe beginning 0.3 ms in ends in the next millisecond: the
        // ACK's start finds the wait over; its end wakes the turnaround
        let (got, ack_end) = acked(10_300, None);
        assert_eq!(got, (Action::SendStrobe, ack_end + 2_000)); // 5.472 ms after the first
    }

    #[test]
    fn the_buffered_ack_sends_the_data_1_ms_after_the_second_ack() {
        // the second strobe of the exchange above: the first ACK waits in
        // the radio; the second ACK's start and end wake the mote
        let start = 10_300 + 5_472;
        let (got, ack_end) = acked(start, Some(start - 1));
        assert_eq!(got, (Action::SendData, ack_end + 1_000)); // 4.472 ms after its start
    }

    #[test]
    fn a_frame_end_heard_brings_the_next_strobe_forward() {
        // another node's frame ending 2.5 ms after our strobe's end wakes
        // the wait loop between its 1 ms steps: the remaining steps count
        // from there
        let (start, strobe) = (10_000, 736);
        let end = start + strobe;
        let got = play(start, strobe, &[end + 2_500], None);
        assert!(got.1 < start + 6_736, "{got:?}");
        assert_eq!((got.1 - (end + 2_500)) % TICK_US, 0, "{got:?}");
    }

    #[test]
    fn a_frame_read_in_the_wait_is_a_collision_when_the_wait_ends() {
        let (start, strobe) = (10_000, 736);
        let end = start + strobe;
        let (action, _) = play(start, strobe, &[end + 500], Some((end + 500, Heard::Other)));
        assert_eq!(action, Action::Collision);
    }
}
