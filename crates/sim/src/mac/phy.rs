//! IEEE 802.15.4 2.4 GHz O-QPSK PHY and MAC constants (IEEE 802.15.4-2015, O-QPSK PHY and MAC PIB).

use crate::Time;

/// One symbol.
pub const SYMBOL_US: Time = 16;
/// aTurnaroundTime: 12 symbols.
pub const TURNAROUND_US: Time = 12 * SYMBOL_US;
/// CCA duration: 8 symbols.
pub const CCA_US: Time = 8 * SYMBOL_US;
/// aUnitBackoffPeriod: 20 symbols.
pub const UNIT_BACKOFF_US: Time = 20 * SYMBOL_US;
/// macAckWaitDuration: aUnitBackoffPeriod + aTurnaroundTime + SHR (10
/// symbols) + 6 · phySymbolsPerOctet (2) = 54 symbols.
pub const ACK_WAIT_US: Time = 54 * SYMBOL_US;
/// aMaxPHYPacketSize.
pub const MAX_PSDU: usize = 127;
