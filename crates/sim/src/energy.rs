//! Energest-style accounting: time in each state of each component, turned
//! into energy with the platform's currents and supply voltage.
//!
//! The radio is always in exactly one state; its time is accumulated on each
//! state change. The CPU sleeps (low-power mode) except while it is charged
//! for work — cryptography the protocol code reports, per-frame processing —
//! so CPU active time is the sum of those charges and low-power time is the
//! rest of the run.

use crate::Time;

/// What the radio is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RadioState {
    /// Powered down.
    Off,
    /// Receiver on: listening or receiving.
    Listen,
    /// Transmitting.
    Tx,
}

/// Currents (mA) and supply voltage (V) of one platform: what turns time into energy.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerProfile {
    pub voltage_v: f64,
    pub cpu_active_ma: f64,
    pub cpu_lpm_ma: f64,
    pub radio_tx_ma: f64,
    pub radio_rx_ma: f64,
    pub radio_off_ma: f64,
}

/// Time spent per component and state, in µs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StateTimes {
    pub cpu_active_us: u64,
    pub cpu_lpm_us: u64,
    pub radio_tx_us: u64,
    pub radio_rx_us: u64,
    pub radio_off_us: u64,
}

/// Energy per component and state, in µJ.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Energy {
    pub cpu_active_uj: f64,
    pub cpu_lpm_uj: f64,
    pub radio_tx_uj: f64,
    pub radio_rx_uj: f64,
    pub radio_off_uj: f64,
}

impl Energy {
    pub fn total_uj(&self) -> f64 {
        self.cpu_active_uj
            + self.cpu_lpm_uj
            + self.radio_tx_uj
            + self.radio_rx_uj
            + self.radio_off_uj
    }
}

impl StateTimes {
    /// µs × mA × V = nJ; /1000 gives µJ.
    pub fn energy(&self, p: &PowerProfile) -> Energy {
        let uj = |t: u64, ma: f64| t as f64 * ma * p.voltage_v / 1000.0;
        Energy {
            cpu_active_uj: uj(self.cpu_active_us, p.cpu_active_ma),
            cpu_lpm_uj: uj(self.cpu_lpm_us, p.cpu_lpm_ma),
            radio_tx_uj: uj(self.radio_tx_us, p.radio_tx_ma),
            radio_rx_uj: uj(self.radio_rx_us, p.radio_rx_ma),
            radio_off_uj: uj(self.radio_off_us, p.radio_off_ma),
        }
    }

    /// Component-wise difference, for the energy of one interval (e.g. one handshake).
    pub fn since(&self, earlier: &StateTimes) -> StateTimes {
        StateTimes {
            cpu_active_us: self.cpu_active_us - earlier.cpu_active_us,
            // saturating: CPU work beyond the interval caps `active` at the
            // elapsed time, so low-power time can fall between snapshots
            cpu_lpm_us: self.cpu_lpm_us.saturating_sub(earlier.cpu_lpm_us),
            radio_tx_us: self.radio_tx_us - earlier.radio_tx_us,
            radio_rx_us: self.radio_rx_us - earlier.radio_rx_us,
            radio_off_us: self.radio_off_us - earlier.radio_off_us,
        }
    }
}

/// One node's meter.
#[derive(Debug, Clone)]
pub struct Energest {
    radio: RadioState,
    radio_since: Time,
    radio_us: [u64; 3],
    cpu_active_us: u64,
    start: Time,
}

impl Energest {
    pub fn new(start: Time, radio: RadioState) -> Self {
        Energest {
            radio,
            radio_since: start,
            radio_us: [0; 3],
            cpu_active_us: 0,
            start,
        }
    }

    fn slot(s: RadioState) -> usize {
        match s {
            RadioState::Off => 0,
            RadioState::Listen => 1,
            RadioState::Tx => 2,
        }
    }

    pub fn radio(&self) -> RadioState {
        self.radio
    }

    /// The radio changes state at `now`.
    pub fn set_radio(&mut self, now: Time, state: RadioState) {
        debug_assert!(now >= self.radio_since, "radio time went backwards");
        self.radio_us[Self::slot(self.radio)] += now.saturating_sub(self.radio_since);
        self.radio_since = now;
        self.radio = state;
    }

    /// Move `us` of time already counted as listening to transmitting: a strobe
    /// train is accounted as listening while it runs, and its strobes' airtime
    /// is moved to TX when it ends.
    pub fn reclassify_listen_as_tx(&mut self, us: u64) {
        let moved = us.min(self.radio_us[1]);
        self.radio_us[1] -= moved;
        self.radio_us[2] += moved;
    }

    /// Move `us` of time counted as off (up to `now`) to listening: the
    /// listening windows of a duty cycle that were not simulated one by one.
    pub fn reclassify_off_as_listen(&mut self, now: Time, us: u64) {
        let state = self.radio;
        self.set_radio(now, state);
        let moved = us.min(self.radio_us[0]);
        self.radio_us[0] -= moved;
        self.radio_us[1] += moved;
    }

    /// Charge `us` of CPU work (crypto, frame processing).
    pub fn charge_cpu(&mut self, us: u64) {
        self.cpu_active_us += us;
    }

    /// Times up to `now` (the current radio state counted to `now`).
    pub fn times(&self, now: Time) -> StateTimes {
        let mut radio = self.radio_us;
        radio[Self::slot(self.radio)] += now.saturating_sub(self.radio_since);
        let elapsed = now.saturating_sub(self.start);
        // CPU work charged beyond the elapsed time (a burst that outlasts the
        // interval) counts as active for the whole interval.
        let active = self.cpu_active_us.min(elapsed);
        StateTimes {
            cpu_active_us: active,
            cpu_lpm_us: elapsed - active,
            radio_off_us: radio[0],
            radio_rx_us: radio[1],
            radio_tx_us: radio[2],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wismote_like() -> PowerProfile {
        PowerProfile {
            voltage_v: 2.8,
            cpu_active_ma: 3.0,
            cpu_lpm_ma: 0.002,
            radio_tx_ma: 25.8,
            radio_rx_ma: 18.5,
            radio_off_ma: 0.001,
        }
    }

    #[test]
    fn one_frame_airtime_and_energy_by_hand() {
        // A 127-byte frame: (6 + 127) bytes × 32 µs = 4256 µs of TX.
        let mut m = Energest::new(0, RadioState::Off);
        m.set_radio(1000, RadioState::Tx);
        m.set_radio(1000 + 4256, RadioState::Off);
        let t = m.times(10_000);
        assert_eq!(t.radio_tx_us, 4256);
        assert_eq!(t.radio_off_us, 10_000 - 4256);
        assert_eq!(t.cpu_lpm_us, 10_000);
        let e = t.energy(&wismote_like());
        // 4256 µs × 25.8 mA × 2.8 V = 307.45 µJ
        assert!((e.radio_tx_uj - 4256.0 * 25.8 * 2.8 / 1000.0).abs() < 1e-9);
        assert!((e.radio_tx_uj - 307.453_44).abs() < 1e-6);
    }

    #[test]
    fn cpu_work_is_active_time_and_the_rest_is_low_power() {
        let mut m = Energest::new(0, RadioState::Listen);
        m.charge_cpu(300);
        m.charge_cpu(200);
        let t = m.times(2000);
        assert_eq!((t.cpu_active_us, t.cpu_lpm_us), (500, 1500));
        assert_eq!(t.radio_rx_us, 2000);
        let d = m.times(3000).since(&t);
        assert_eq!(
            (d.radio_rx_us, d.cpu_lpm_us, d.cpu_active_us),
            (1000, 1000, 0)
        );
    }

    #[test]
    fn cpu_work_beyond_the_interval_never_makes_low_power_time_negative() {
        // 1 s of CPU work charged at 0.5 s: active is capped at the elapsed
        // time, so low-power time goes from 0.4 s at 0.4 s to 0 at 0.6 s
        let mut m = Energest::new(0, RadioState::Off);
        let early = m.times(400_000);
        m.charge_cpu(1_000_000);
        let late = m.times(600_000);
        let d = late.since(&early);
        assert_eq!((d.cpu_active_us, d.cpu_lpm_us), (600_000, 0));
    }
}
