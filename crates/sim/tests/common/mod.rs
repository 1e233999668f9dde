//! What several simulator test binaries share.

use sim::energy::PowerProfile;

/// A WiSMote-like node at 2.8 V (the figures of platforms/wismote.toml,
/// rounded); tests compare runs with each other, not with the platform file.
pub fn wismote_like_power() -> PowerProfile {
    PowerProfile {
        voltage_v: 2.8,
        cpu_active_ma: 3.0,
        cpu_lpm_ma: 0.002,
        radio_tx_ma: 25.8,
        radio_rx_ma: 18.5,
        radio_off_ma: 0.001,
    }
}
