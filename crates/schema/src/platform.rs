//! What one point needs from its platform file, resolved by the reader of
//! platform files (Python) for the point's strategies and implementation:
//! the simulator's own types, read as they are.

use models::timeslot::{CcmCost, StackCost};
use serde::Deserialize;
use sim::energy::PowerProfile;
use sim::node::cpu::CryptoCost;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformCosts {
    pub power: PowerProfile,
    /// DTLS cryptography with `dtls.crypto_strategy`.
    pub crypto: CryptoCost,
    /// The server's, when `sessions.server_crypto` is `host`: the backend
    /// host's cost table; absent otherwise.
    #[serde(default)]
    pub server_crypto: Option<CryptoCost>,
    /// CCM* with `link_security.strategy` and `.implementation`; absent
    /// when frames are not secured.
    #[serde(default)]
    pub ccm: Option<CcmCost>,
    /// What the stack of `link_security.implementation` adds (TSCH);
    /// absent: nothing, the datasheet lower bound.
    #[serde(default)]
    pub stack: StackCost,
    /// CPU time between a frame's reception and its network layer.
    pub frame_processing_us: f64,
    pub bus_us_per_byte: f64,
    /// How far a node's 32 kHz crystal may be off (X-MAC draws each node's
    /// error within it); absent: perfect clocks.
    #[serde(default)]
    pub crystal_tolerance_ppm: f64,
    /// The MCU's RAM (sizes the session table from its budget).
    #[serde(default)]
    pub ram_bytes: Option<u64>,
    /// The radio's output power range, sensitivity and CCA threshold
    /// (the signal media need them); absent where the file lacks them.
    #[serde(default)]
    pub radio: Option<sim::radio::RadioFigures>,
}
