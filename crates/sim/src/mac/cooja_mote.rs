//! A Cooja native mote's clock, as both Contiki MAC models on the `cooja`
//! platform see it: a mote runs only on whole 1 ms ticks counted from the
//! last radio event it heard, and Contiki's ctimers count whole clock
//! ticks (platform/cooja/contiki-conf.h CLOCK_CONF_SECOND 1000). Cooja
//! artefacts, not properties of either RDC.

use crate::world::Cx;
use crate::Time;

/// One millisecond: a Cooja mote's clock and rtimer tick.
pub const COOJA_TICK_US: Time = 1_000;

/// When a step due at clock tick `due` runs on a Cooja mote: at the first
/// of the mote's ticks from then, which fall the sub-millisecond part of
/// the last frame end it heard after whole milliseconds. A step woken by a
/// frame's end runs after that frame's reception (`after_frame`: 1 µs
/// later), as Contiki's scheduler serves the radio driver's poll before
/// timer events (process.c `process_run` calls `do_poll` first).
pub fn on_cooja_tick(cx: &Cx, due: Time, after_frame: Time) -> Time {
    let phase = cx
        .last_frame_end_heard(due)
        .map_or(0, |end| end % COOJA_TICK_US);
    let scheduled = due + phase;
    cx.frame_end_heard_in(due, scheduled)
        .map_or(scheduled, |end| end + after_frame)
}

/// The clock tick at which a ctimer of `wait` (whole ticks) set at `now`
/// expires: it counts from the clock tick `now` falls in (ctimer.c
/// `ctimer_set` arms an etimer from `clock_time()`). The mote runs it at
/// [`on_cooja_tick`] of that instant.
pub fn ctimer_due(now: Time, wait: Time) -> Time {
    now / COOJA_TICK_US * COOJA_TICK_US + wait
}
