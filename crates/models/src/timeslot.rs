//! The shortest TSCH timeslot that fits link-layer CCM* (Sciancalepore et al., ETT 2017).
//!
//! In one timeslot of a secured link the sender secures the frame (sec1)
//! before TsTxOffset, transmits for TsMaxTx, the receiver unsecures it (sec2)
//! and secures the Enhanced ACK (sec3) within TsTxAckDelay, the ACK takes
//! TsMaxAck, and the sender unsecures the ACK (sec4) before the slot ends:
//!
//! ```text
//! TsTxOffset     ≥ dur(sec1)
//! TsTxAckDelay   ≥ dur(sec2) + dur(sec3)
//! TsSlotDuration ≥ TsTxOffset + TsMaxTx + TsTxAckDelay + TsMaxAck + dur(sec4)
//! ```
//!
//! A radio also needs its RX→TX turnaround before it can send, so the two
//! offsets never go below `min_turnaround_us` (aTurnaroundTime, 12 symbols).
//!
//! A real stack adds to this datasheet lower bound ([`StackCost`]): each
//! secured operation also looks up the security policy and key and, where
//! the cipher sits in a radio behind a bus, moves nonce, registers, frame and
//! result across it; and the slot holds the stack's own processing, which
//! exists without any security (building the frame and loading the radio
//! before TsTxOffset, building the ACK within TsTxAckDelay):
//!
//! ```text
//! dur(sec_i)     = lookup + bus + CCM*
//! TsTxOffset     ≥ tx_prepare + dur(sec1)
//! TsTxAckDelay   ≥ dur(sec2) + ack_prepare + dur(sec3)
//! ```

use crate::error::{require, ModelError};
use crate::overhead::{AddrMode, FrameConfig, FCS_LEN};
use crate::security::{ccm_star_blocks, AuxHeader, SecurityLevel};

/// 2.4 GHz O-QPSK: 32 µs per byte, 6 bytes of SHR + PHR before the PSDU.
pub const US_PER_BYTE: f64 = 32.0;
pub const PHY_OVERHEAD_BYTES: usize = 6;
/// aTurnaroundTime: 12 symbols of 16 µs.
pub const TURNAROUND_US: f64 = 192.0;
/// IEEE 802.15.4 default TsMaxAck (IEEE 802.15.4-2015 TSCH timeslot template).
pub const DEFAULT_MAX_ACK_US: f64 = 2400.0;

/// Cost of CCM* on one platform with one implementation strategy (the
/// numbers come from the platform file).
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CcmCost {
    pub setup_us: f64,
    pub aes_block_us: f64,
    pub per_block_overhead_us: f64,
    /// Bytes over the MCU↔radio bus per block (hybrid AES on a separate radio).
    pub bus_bytes_per_block: f64,
    pub bus_us_per_byte: f64,
}

impl CcmCost {
    pub fn per_block_us(&self) -> f64 {
        self.aes_block_us
            + self.per_block_overhead_us
            + self.bus_bytes_per_block * self.bus_us_per_byte
    }

    /// Duration of one CCM* operation of `blocks` AES blocks; nothing at all
    /// when the frame is not secured.
    pub fn duration_us(&self, level: SecurityLevel, blocks: usize) -> f64 {
        if level.is_secured() {
            self.setup_us + blocks as f64 * self.per_block_us()
        } else {
            0.0
        }
    }

    fn check(&self) -> Result<(), ModelError> {
        for (name, v) in [
            ("setup_us", self.setup_us),
            ("aes_block_us", self.aes_block_us),
            ("per_block_overhead_us", self.per_block_overhead_us),
            ("bus_bytes_per_block", self.bus_bytes_per_block),
            ("bus_us_per_byte", self.bus_us_per_byte),
        ] {
            require(v >= 0.0 && v.is_finite(), name, v, "must be >= 0")?;
        }
        Ok(())
    }
}

/// What a real stack adds to the datasheet's CCM* cost (all zero for the
/// datasheet lower bound; the numbers come from the platform file's
/// implementation profile).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackCost {
    /// Security-policy and key lookup, per secured operation (µs).
    pub key_lookup_us: f64,
    /// Command, nonce and register bytes over the MCU↔radio bus per operation.
    pub bus_bytes_per_op: f64,
    /// The radio secures the frame in its own RAM: the whole frame is written
    /// to it and the secured part (private payload and MIC) read back, per
    /// operation.
    pub frame_over_bus: bool,
    /// The stack's work before TsTxOffset without security: build the frame,
    /// load it into the radio, start the transmitter (µs).
    pub tx_prepare_us: f64,
    /// The receiver's work within TsTxAckDelay without security: build and
    /// load the ACK, start the transmitter (µs).
    pub ack_prepare_us: f64,
}

impl StackCost {
    /// Bytes crossing the bus for one operation at `level` on a frame of
    /// `psdu_bytes` with `payload_bytes` of payload: the frame goes in, the
    /// encrypted payload (only if the level encrypts) and the MIC come back.
    pub fn bus_bytes(&self, level: SecurityLevel, psdu_bytes: usize, payload_bytes: usize) -> f64 {
        let private = if level.encrypts() { payload_bytes } else { 0 };
        let frame = if self.frame_over_bus {
            (psdu_bytes + private + level.mic_len()) as f64
        } else {
            0.0
        };
        self.bus_bytes_per_op + frame
    }

    /// What the stack adds to one operation at `level` around CCM*: lookup
    /// and bus transfer (µs); nothing for an unsecured frame.
    pub fn op_extra_us(
        &self,
        level: SecurityLevel,
        psdu_bytes: usize,
        payload_bytes: usize,
        bus_us_per_byte: f64,
    ) -> (f64, f64) {
        if !level.is_secured() {
            return (0.0, 0.0);
        }
        let bus = self.bus_bytes(level, psdu_bytes, payload_bytes) * bus_us_per_byte;
        (self.key_lookup_us, bus)
    }

    fn check(&self) -> Result<(), ModelError> {
        for (name, v) in [
            ("key_lookup_us", self.key_lookup_us),
            ("bus_bytes_per_op", self.bus_bytes_per_op),
            ("tx_prepare_us", self.tx_prepare_us),
            ("ack_prepare_us", self.ack_prepare_us),
        ] {
            require(v >= 0.0 && v.is_finite(), name, v, "must be >= 0")?;
        }
        Ok(())
    }
}

/// One security operation taken apart; nothing at all on an unsecured frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SecParts {
    pub lookup_us: f64,
    pub bus_us: f64,
    pub ccm_us: f64,
}

impl SecParts {
    /// The one rule for the duration of a secured operation on a frame of
    /// `psdu_bytes` (with FCS) of which `private_bytes` are encrypted.
    pub fn of(
        ccm: &CcmCost,
        stack: &StackCost,
        level: SecurityLevel,
        blocks: usize,
        psdu_bytes: usize,
        payload_bytes: usize,
    ) -> Self {
        if !level.is_secured() {
            return SecParts::default();
        }
        let (lookup_us, bus_us) =
            stack.op_extra_us(level, psdu_bytes, payload_bytes, ccm.bus_us_per_byte);
        SecParts {
            lookup_us,
            bus_us,
            ccm_us: ccm.duration_us(level, blocks),
        }
    }

    pub fn total_us(&self) -> f64 {
        self.lookup_us + self.bus_us + self.ccm_us
    }
}

/// The frames secured in the slot and the template values that are not
/// derived from security.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotSetup {
    pub level: SecurityLevel,
    pub aux: AuxHeader,
    /// PSDU length of the data frame (MHR + payload + MIC + FCS).
    pub frame_bytes: usize,
    /// Data frame addressing (TSCH: extended addresses, PAN ID compression).
    pub data_dst: AddrMode,
    pub data_src: AddrMode,
    /// Enhanced ACK: FCF + seq + dst PAN + dst address, then the aux header,
    /// the time-correction header IE (2 + 2 bytes), MIC, FCS.
    pub ack_dst: AddrMode,
    /// Whether the Enhanced ACK carries the destination PAN ID (Contiki-NG
    /// sends it; a 2015 frame may elide it).
    pub ack_dst_pan: bool,
    pub max_ack_us: f64,
    pub min_turnaround_us: f64,
    /// What the stack adds (zero: the datasheet lower bound).
    pub stack: StackCost,
}

impl SlotSetup {
    /// Experiment 5: a 127-byte frame with the largest (14-byte) security header.
    pub fn largest(level: SecurityLevel) -> Self {
        SlotSetup {
            level,
            aux: AuxHeader::LARGEST,
            frame_bytes: 127,
            data_dst: AddrMode::Extended,
            data_src: AddrMode::Extended,
            ack_dst: AddrMode::Extended,
            ack_dst_pan: true,
            max_ack_us: DEFAULT_MAX_ACK_US,
            min_turnaround_us: TURNAROUND_US,
            stack: StackCost::default(),
        }
    }

    pub fn data_frame(&self) -> FrameConfig {
        FrameConfig {
            max_frame: self.frame_bytes,
            dst: self.data_dst,
            src: self.data_src,
            pan_id_compression: true,
            level: self.level,
            aux: self.aux,
            ..FrameConfig::default()
        }
    }

    /// (authenticated header bytes, private payload bytes) of the data frame.
    fn data_parts(&self) -> Result<(usize, usize), ModelError> {
        let f = self.data_frame();
        let b = f.budget()?;
        Ok((b.mac_header + b.aux_security_header, b.mac_payload))
    }

    const TIME_CORRECTION_IE: usize = 4;

    /// (authenticated header bytes, payload bytes) of the Enhanced ACK.
    fn ack_parts(&self) -> (usize, usize) {
        let aux = if self.level.is_secured() {
            self.aux.len_bytes()
        } else {
            0
        };
        (
            2 + 1
                + if self.ack_dst_pan { 2 } else { 0 }
                + self.ack_dst.len_bytes()
                + aux
                + Self::TIME_CORRECTION_IE,
            0,
        )
    }

    pub fn ack_bytes(&self) -> usize {
        let (header, payload) = self.ack_parts();
        header + payload + self.level.mic_len() + FCS_LEN
    }
}

/// The four security operations of one timeslot and the shortest template.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinimalTimeslot {
    pub data_blocks: usize,
    pub ack_blocks: usize,
    pub sec1_us: f64,
    pub sec2_us: f64,
    pub sec3_us: f64,
    pub sec4_us: f64,
    /// sec1..sec4 taken apart.
    pub parts: [SecParts; 4],
    pub tx_prepare_us: f64,
    pub ack_prepare_us: f64,
    pub max_tx_us: f64,
    pub max_ack_us: f64,
    pub tx_offset_us: f64,
    pub tx_ack_delay_us: f64,
    pub slot_duration_us: f64,
    /// Application (UDP payload) bits one data frame carries at this level.
    pub app_bits_per_frame: usize,
}

pub fn minimal_timeslot(cost: &CcmCost, setup: &SlotSetup) -> Result<MinimalTimeslot, ModelError> {
    cost.check()?;
    setup.stack.check()?;
    require(
        setup.max_ack_us >= 0.0,
        "max_ack_us",
        setup.max_ack_us,
        "must be >= 0",
    )?;
    let (data_hdr, data_payload) = setup.data_parts()?;
    let (ack_hdr, ack_payload) = setup.ack_parts();
    let level = setup.level;
    let data_blocks = ccm_star_blocks(level, data_hdr, data_payload);
    let ack_blocks = ccm_star_blocks(level, ack_hdr, ack_payload);
    // Decryption with CCM* costs the same blocks (and bus bytes) as encryption.
    let data = SecParts::of(
        cost,
        &setup.stack,
        level,
        data_blocks,
        setup.frame_bytes,
        data_payload,
    );
    let ack = SecParts::of(
        cost,
        &setup.stack,
        level,
        ack_blocks,
        setup.ack_bytes(),
        ack_payload,
    );
    let parts = [data, data, ack, ack];
    let [sec1, sec2, sec3, sec4] = parts.map(|p| p.total_us());
    let stack = setup.stack;
    let max_tx = (PHY_OVERHEAD_BYTES + setup.frame_bytes) as f64 * US_PER_BYTE;
    let tx_offset = (stack.tx_prepare_us + sec1).max(setup.min_turnaround_us);
    let tx_ack_delay = (sec2 + stack.ack_prepare_us + sec3).max(setup.min_turnaround_us);
    let slot = tx_offset + max_tx + tx_ack_delay + setup.max_ack_us + sec4;
    let app_bits = setup.data_frame().budget()?.udp_payload * 8;
    Ok(MinimalTimeslot {
        data_blocks,
        ack_blocks,
        sec1_us: sec1,
        sec2_us: sec2,
        sec3_us: sec3,
        sec4_us: sec4,
        parts,
        tx_prepare_us: stack.tx_prepare_us,
        ack_prepare_us: stack.ack_prepare_us,
        max_tx_us: max_tx,
        max_ack_us: setup.max_ack_us,
        tx_offset_us: tx_offset,
        tx_ack_delay_us: tx_ack_delay,
        slot_duration_us: slot,
        app_bits_per_frame: app_bits,
    })
}

/// Rate bound (Sciancalepore et al., ETT 2017): R ≤ N_i · A_j / (N_ts · TsSlotDuration), in bit/s.
pub fn rate_bound_bps(
    owned_cells: u32,
    app_bits_per_frame: usize,
    slotframe: u32,
    slot_duration_us: f64,
) -> Result<f64, ModelError> {
    require(slotframe >= 1, "slotframe", slotframe, "must be >= 1")?;
    require(
        owned_cells <= slotframe,
        "owned_cells",
        owned_cells,
        &format!("must be in [0, slotframe = {slotframe}]"),
    )?;
    require(
        slot_duration_us > 0.0,
        "slot_duration_us",
        slot_duration_us,
        "must be > 0",
    )?;
    Ok(f64::from(owned_cells) * app_bits_per_frame as f64
        / (f64::from(slotframe) * slot_duration_us * 1e-6))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cost() -> CcmCost {
        CcmCost {
            setup_us: 10.0,
            aes_block_us: 14.0,
            per_block_overhead_us: 2.0,
            bus_bytes_per_block: 0.0,
            bus_us_per_byte: 8.0,
        }
    }

    #[test]
    fn no_security_leaves_the_physical_minimum() {
        let t = minimal_timeslot(&cost(), &SlotSetup::largest(SecurityLevel::None)).unwrap();
        assert_eq!(
            (t.sec1_us, t.sec2_us, t.sec3_us, t.sec4_us),
            (0.0, 0.0, 0.0, 0.0)
        );
        assert_eq!(t.max_tx_us, 4256.0); // IEEE 802.15.4 TsMaxTx for 127 bytes
        assert_eq!(t.slot_duration_us, 192.0 + 4256.0 + 192.0 + 2400.0);
        // No aux header, no MIC: 127 - 21 (MHR, extended, PAN ID compression) - 2 - 9.
        assert_eq!(t.app_bits_per_frame, (127 - 21 - 2 - 9) * 8);
    }

    #[test]
    fn enc_mic_32_by_hand() {
        // Data: header 21 + 14 = 35, payload 127 - 35 - 4 - 2 = 86 → 17 blocks
        // (see security.rs). ACK: 2+1+2+8+14+4 = 31 header bytes, no payload:
        // B0 + ceil(33/16) = 3 → 4, plus A0 → 5 blocks.
        let t = minimal_timeslot(&cost(), &SlotSetup::largest(SecurityLevel::EncMic32)).unwrap();
        assert_eq!((t.data_blocks, t.ack_blocks), (17, 5));
        assert_eq!(t.sec1_us, 10.0 + 17.0 * 16.0);
        assert_eq!(t.sec3_us, 10.0 + 5.0 * 16.0);
        assert_eq!(t.tx_offset_us, 282.0);
        assert_eq!(t.tx_ack_delay_us, 282.0 + 90.0);
        assert_eq!(t.slot_duration_us, 282.0 + 4256.0 + 372.0 + 2400.0 + 90.0);
        assert_eq!(t.app_bits_per_frame, (86 - 9) * 8);
    }

    #[test]
    fn stack_costs_by_hand() {
        // ENC-MIC-32, 127-byte frame: 86 private bytes; ACK 2+1+2+8+14+4 = 31
        // header bytes + MIC 4 + FCS 2 = 37 bytes, nothing private.
        let stack = StackCost {
            key_lookup_us: 5.0,
            bus_bytes_per_op: 10.0,
            frame_over_bus: true,
            tx_prepare_us: 1000.0,
            ack_prepare_us: 500.0,
        };
        let setup = SlotSetup {
            stack,
            ..SlotSetup::largest(SecurityLevel::EncMic32)
        };
        let t = minimal_timeslot(&cost(), &setup).unwrap();
        let data_bus = (10.0 + 127.0 + 86.0 + 4.0) * 8.0;
        let ack_bus = (10.0 + 37.0 + 4.0) * 8.0;
        assert_eq!(t.parts[0].bus_us, data_bus);
        assert_eq!(t.parts[2].bus_us, ack_bus);
        assert_eq!(t.sec1_us, 5.0 + data_bus + 282.0);
        assert_eq!(t.sec3_us, 5.0 + ack_bus + 90.0);
        assert_eq!(t.tx_offset_us, 1000.0 + t.sec1_us);
        assert_eq!(t.tx_ack_delay_us, t.sec2_us + 500.0 + t.sec3_us);
        // without security the stack's own work remains, the crypto parts vanish
        let none = SlotSetup {
            stack,
            ..SlotSetup::largest(SecurityLevel::None)
        };
        let t = minimal_timeslot(&cost(), &none).unwrap();
        assert_eq!(t.parts, [SecParts::default(); 4]);
        assert_eq!((t.tx_offset_us, t.tx_ack_delay_us), (1000.0, 500.0));
    }

    #[test]
    fn bus_time_counts_per_block() {
        let hybrid = CcmCost {
            bus_bytes_per_block: 32.0,
            ..cost()
        };
        assert_eq!(hybrid.per_block_us(), 14.0 + 2.0 + 32.0 * 8.0);
    }

    #[test]
    fn rate_bound_by_hand() {
        // 1 cell of 101, 10 ms slots, 616 bits: 616 / 1.01 s.
        let r = rate_bound_bps(1, 616, 101, 10_000.0).unwrap();
        assert!((r - 616.0 / 1.01).abs() < 1e-9);
        assert!(rate_bound_bps(102, 616, 101, 10_000.0).is_err());
    }

    proptest! {
        #[test]
        fn slot_grows_with_crypto_cost(setup in 0.0f64..500.0, block in 0.0f64..200.0, level in 0u8..8) {
            let level = SecurityLevel::from_value(level).unwrap();
            let a = CcmCost { setup_us: setup, aes_block_us: block, ..cost() };
            let b = CcmCost { setup_us: setup + 1.0, aes_block_us: block + 1.0, ..cost() };
            let ta = minimal_timeslot(&a, &SlotSetup::largest(level)).unwrap();
            let tb = minimal_timeslot(&b, &SlotSetup::largest(level)).unwrap();
            prop_assert!(tb.slot_duration_us >= ta.slot_duration_us);
            prop_assert!(ta.tx_offset_us >= ta.sec1_us);
            prop_assert!(ta.tx_ack_delay_us >= ta.sec2_us + ta.sec3_us);
            prop_assert!(ta.slot_duration_us >= ta.tx_offset_us + ta.max_tx_us + ta.tx_ack_delay_us + ta.max_ack_us);
        }
    }
}
