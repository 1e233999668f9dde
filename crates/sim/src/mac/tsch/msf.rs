//! The 6TiSCH Minimal Scheduling Function (MSF, RFC 9033), its pure parts:
//! the autonomous cells placed by the SAX hash of an EUI-64 (§3), the
//! cell-usage counters that decide when to add or delete a negotiated cell
//! (§5.1, §5.2), and the PDR counters that decide when to relocate one
//! (§5.3). The 6P transactions these decisions start are the
//! 6P module's ([`super::sixp`]).
//!
//! Constants (RFC 9033 §17's table, re-read): SLOTFRAME_LENGTH 101,
//! NUM_CH_OFFSET 16, MAX_NUM_CELLS 100, LIM_NUMCELLSUSED_HIGH 75,
//! LIM_NUMCELLSUSED_LOW 25, MAX_NUMTX 256, HOUSEKEEPINGCOLLISION_PERIOD
//! 1 min, RELOCATE_PDRTHRES 50 %, WAIT_DURATION_MIN / _MAX 30 s / 60 s.
//!
//! SAX (§3): h_0 = v; for each byte c_i of the EUI-64 in transmission order
//! (most significant first), h_{i+1} = h_i XOR (SL(h_i, l_bit) +
//! SR(h_i, r_bit) + c_i); the hash is the result reduced to the range.
//! The parameter values here (v = 0, l_bit = 5, r_bit = 2, the full-width
//! value truncated to 16 bits before the reduction) are the ones the 6TiSCH
//! simulator's MSF uses; RFC 9033's own values could not be re-read here
//! (as recalled they agree), so [`SaxParams`] keeps them a parameter.

use wpan::sixtop::Cell;

/// MSF's SFID (RFC 9033 §17: IANA "6P Scheduling Function Identifier" 0).
pub const SFID: u8 = 0;
/// SLOTFRAME_LENGTH: length of Slotframe 1, which holds the autonomous cells.
pub const SLOTFRAME_LENGTH: u16 = 101;
/// NUM_CH_OFFSET: channel offsets an autonomous cell may take.
pub const NUM_CH_OFFSET: u16 = 16;
/// MAX_NUM_CELLS: cells elapsed per usage decision (§5.1).
pub const MAX_NUM_CELLS: u32 = 100;
/// LIM_NUMCELLSUSED_HIGH: above it a cell is added (§5.1).
pub const LIM_NUMCELLSUSED_HIGH: u32 = 75;
/// LIM_NUMCELLSUSED_LOW: below it a cell is deleted (§5.1).
pub const LIM_NUMCELLSUSED_LOW: u32 = 25;
/// RELOCATE_PDRTHRES in percent (§5.3).
pub const RELOCATE_PDRTHRES_PERCENT: u32 = 50;
/// HOUSEKEEPINGCOLLISION_PERIOD (§17's table: 1 min), in µs.
pub const HOUSEKEEPINGCOLLISION_PERIOD_US: u64 = 60_000_000;
/// MAX_NUMTX (§17's table: 256): NumTx and NumTxAck are halved there.
pub const MAX_NUMTX: u32 = 256;
/// Transmissions after which a cell's PDR counts in the housekeeping: the
/// 6TiSCH simulator's `MSF_MIN_NUM_TX` (SimEngine/Mote/sf.py
/// `_housekeeping_collision`: "an implementation decision, which is easier
/// to implement than what section 5.3 [...] describes as the step-2").
pub const MIN_NUM_TX: u32 = 100;

/// The SAX parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaxParams {
    /// initial value v
    pub seed: u64,
    /// left shift l_bit
    pub l_bit: u32,
    /// right shift r_bit
    pub r_bit: u32,
}

impl SaxParams {
    /// The values MSF is run with (see the module note).
    pub const MSF: SaxParams = SaxParams {
        seed: 0,
        l_bit: 5,
        r_bit: 2,
    };
}

/// SAX over the eight bytes of `eui64` (most significant first), truncated
/// to 16 bits. Eight rounds of at most l_bit + 1 bits of growth stay well
/// inside 64 bits (8 * 6 + 8 = 56), so no intermediate value wraps.
pub fn sax(p: SaxParams, eui64: u64) -> u16 {
    let h = eui64.to_be_bytes().iter().fold(p.seed, |h, &c| {
        h ^ (h << p.l_bit)
            .wrapping_add(h >> p.r_bit)
            .wrapping_add(u64::from(c))
    });
    (h & 0xffff) as u16
}

/// The autonomous cell of the node with this EUI-64 (RFC 9033 §3):
/// slotOffset = 1 + hash mod (SLOTFRAME_LENGTH - 1) (slot 0 is the minimal
/// cell), channelOffset = hash mod NUM_CH_OFFSET. A node listens in its own
/// (AutoRxCell) and sends to a neighbour in the neighbour's (AutoTxCell,
/// TX | SHARED).
pub fn autonomous_cell(eui64: u64, slotframe_len: u16, num_ch_offset: u16) -> Cell {
    let h = sax(SaxParams::MSF, eui64);
    Cell {
        slot_offset: 1 + h % slotframe_len.saturating_sub(1).max(1),
        channel_offset: h % num_ch_offset.max(1),
    }
}

/// What the usage counters ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adapt {
    /// nothing
    Keep,
    /// 6P ADD one cell
    AddOne,
    /// 6P DELETE one cell
    DeleteOne,
}

/// NumCellsElapsed / NumCellsUsed for the negotiated cells to (TX) or from
/// (RX) the preferred parent (§5.1, §5.2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CellUsage {
    elapsed: u32,
    used: u32,
}

impl CellUsage {
    /// One negotiated cell passed; `used` when a frame was sent (TX) or
    /// received (RX) in it. Every MAX_NUM_CELLS cells the counters are read
    /// and reset: more than LIM_NUMCELLSUSED_HIGH used asks for a cell, fewer
    /// than LIM_NUMCELLSUSED_LOW asks to give one back (never the last one,
    /// `cells` being how many are scheduled: MSF keeps at least one
    /// negotiated cell to its parent, §5.1).
    pub fn on_cell(&mut self, used: bool, cells: usize) -> Adapt {
        self.elapsed += 1;
        self.used += u32::from(used);
        if self.elapsed < MAX_NUM_CELLS {
            return Adapt::Keep;
        }
        let used = self.used;
        *self = CellUsage::default();
        Self::decide(used, cells)
    }

    /// The rule read at the end of a window of MAX_NUM_CELLS cells with
    /// `used` of them used and `cells` scheduled (the one definition, for
    /// a caller that counts the window in closed form).
    pub fn decide(used: u32, cells: usize) -> Adapt {
        Self::decide_keeping(used, cells, 1)
    }

    /// [`CellUsage::decide`] for cells of which MSF keeps `keep` at least:
    /// one TX cell to the parent (§5.1), no RX cell from it (the 6TiSCH
    /// simulator's MSF, SimEngine/Mote/sf.py: NUM_INITIAL_NEGOTIATED_TX_CELLS
    /// 1, NUM_INITIAL_NEGOTIATED_RX_CELLS 0).
    pub fn decide_keeping(used: u32, cells: usize, keep: usize) -> Adapt {
        if used > LIM_NUMCELLSUSED_HIGH {
            Adapt::AddOne
        } else if used < LIM_NUMCELLSUSED_LOW && cells > keep {
            Adapt::DeleteOne
        } else {
            Adapt::Keep
        }
    }

    /// Counters so far (elapsed, used).
    pub fn counters(&self) -> (u32, u32) {
        (self.elapsed, self.used)
    }
}

/// NumTx / NumTxAck of one negotiated TX cell (§5.3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CellPdr {
    num_tx: u32,
    num_tx_ack: u32,
}

impl CellPdr {
    /// A transmission in the cell, acknowledged or not. When NumTx reaches
    /// 256 both counters are halved, so the PDR follows recent history.
    pub fn on_tx(&mut self, acked: bool) {
        self.num_tx += 1;
        self.num_tx_ack += u32::from(acked);
        if self.num_tx >= MAX_NUMTX {
            self.num_tx /= 2;
            self.num_tx_ack /= 2;
        }
    }

    /// NumTx now (halved at MAX_NUMTX).
    pub fn num_tx(&self) -> u32 {
        self.num_tx
    }

    /// PDR in percent, `None` before any transmission.
    pub fn pdr_percent(&self) -> Option<u32> {
        (self.num_tx > 0).then(|| 100 * self.num_tx_ack / self.num_tx)
    }
}

/// The cells whose PDR is below the best cell's by more than
/// RELOCATE_PDRTHRES (§5.3), by index into `cells`.
pub fn cells_to_relocate(cells: &[CellPdr]) -> Vec<usize> {
    let Some(best) = cells.iter().filter_map(CellPdr::pdr_percent).max() else {
        return Vec::new();
    };
    cells
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.pdr_percent()
                .is_some_and(|p| p + RELOCATE_PDRTHRES_PERCENT < best)
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sax_by_hand() {
        // EUI-64 00-12-4b-00-00-00-00-01, h0 = 0, h' = h ^ ((h << 5) + (h >> 2) + c):
        // c=00: 0;  c=12: 0x12;
        // c=4b: (0x240 + 0x4 + 0x4b) = 0x28f, 0x12 ^ 0x28f = 0x29d;
        // c=00: (0x53a0 + 0xa7 + 0) = 0x5447, 0x29d ^ 0x5447 = 0x56da;
        // c=00: (0xadb40 + 0x15b6) = 0xaf0f6, 0x56da ^ 0xaf0f6 = 0xaa62c;
        // c=00: (0x154c580 + 0x2a98b) = 0x1576f0b, ^ 0xaa62c = 0x15dc927;
        // c=00: (0x2bb924e0 + 0x577249) = 0x2c109729, ^ 0x15dc927 = 0x2d4d5e0e;
        // c=01: (0x5a9abc1c0 + 0xb535783 + 1) = 0x5b4ff1944, ^ 0x2d4d5e0e
        //       = 0x599b2474a; low 16 bits 0x474a = 18250.
        assert_eq!(sax(SaxParams::MSF, 0x0012_4b00_0000_0001), 0x474a);
        // ...-02: the last round adds 2 instead of 1: 0x5b4ff1945,
        // ^ 0x2d4d5e0e = 0x599b2474b -> 0x474b = 18251.
        assert_eq!(sax(SaxParams::MSF, 0x0012_4b00_0000_0002), 0x474b);
    }

    #[test]
    fn autonomous_cells_of_two_nodes() {
        // 18250 mod 100 = 50 -> slot 51; 18250 mod 16 = 10 (16 * 1140 = 18240)
        let a = autonomous_cell(0x0012_4b00_0000_0001, SLOTFRAME_LENGTH, NUM_CH_OFFSET);
        assert_eq!((a.slot_offset, a.channel_offset), (51, 10));
        // 18251 -> slot 52, channel 11
        let b = autonomous_cell(0x0012_4b00_0000_0002, SLOTFRAME_LENGTH, NUM_CH_OFFSET);
        assert_eq!((b.slot_offset, b.channel_offset), (52, 11));
        // never slot 0 (the minimal cell), never past the slotframe
        for eui in 0..2000u64 {
            let c = autonomous_cell(eui * 7919, SLOTFRAME_LENGTH, NUM_CH_OFFSET);
            assert!((1..SLOTFRAME_LENGTH).contains(&c.slot_offset));
            assert!(c.channel_offset < NUM_CH_OFFSET);
        }
    }

    #[test]
    fn usage_thresholds() {
        // 76 of 100 used (> 75): add; counters reset
        let mut u = CellUsage::default();
        for i in 0..99 {
            assert_eq!(u.on_cell(i < 76, 1), Adapt::Keep);
        }
        assert_eq!(u.on_cell(false, 1), Adapt::AddOne);
        assert_eq!(u.counters(), (0, 0));
        // exactly 75 used: keep (the rule is "greater than")
        for i in 0..100 {
            let a = u.on_cell(i < 75, 1);
            assert_eq!(a, Adapt::Keep);
        }
        // 24 used (< 25) with 2 cells: delete; with 1 cell: keep the last
        for i in 0..100 {
            let a = u.on_cell(i < 24, 2);
            assert_eq!(
                a,
                if i == 99 {
                    Adapt::DeleteOne
                } else {
                    Adapt::Keep
                }
            );
        }
        for i in 0..100 {
            assert_eq!(u.on_cell(i < 24, 1), Adapt::Keep);
        }
    }

    #[test]
    fn pdr_and_relocation() {
        let mut good = CellPdr::default();
        let mut bad = CellPdr::default();
        let mut mid = CellPdr::default();
        for i in 0..10 {
            good.on_tx(true); // 100 %
            bad.on_tx(i < 4); // 40 %: 40 + 50 < 100 -> relocate
            mid.on_tx(i < 5); // 50 %: 50 + 50 = 100, not below -> keep
        }
        assert_eq!(
            cells_to_relocate(&[good, bad, mid, CellPdr::default()]),
            vec![1]
        );
        // halving at 256: 256 tx, 128 acked -> 128 / 64, still 50 %
        let mut c = CellPdr::default();
        for i in 0..256 {
            c.on_tx(i % 2 == 0);
        }
        assert_eq!(
            (c.num_tx, c.num_tx_ack, c.pdr_percent()),
            (128, 64, Some(50))
        );
    }
}
