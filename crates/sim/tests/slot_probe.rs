//! The shortest TSCH timeslot found by simulation equals the closed form of
//! the timeslot closed form for the same frames (crate `models`), with short and with
//! extended addresses.

use models::overhead::AddrMode;
use models::security::{AuxHeader, SecurityLevel as ModelLevel};
use models::timeslot::{minimal_timeslot, CcmCost, SlotSetup};
use sim::channel::airtime_us;
use sim::energy::PowerProfile;
use sim::mac::address::LinkAddressing;
use sim::mac::security::LinkSecurity;
use sim::slot_probe::{minimal_slot, ProbeFrames};
use wpan::security::SecurityLevel;

const POWER: PowerProfile = PowerProfile {
    voltage_v: 3.0,
    cpu_active_ma: 13.0,
    cpu_lpm_ma: 0.0013,
    radio_tx_ma: 24.0,
    radio_rx_ma: 20.0,
    radio_off_ma: 0.0013,
};

#[test]
fn simulated_minimal_timeslot_equals_the_closed_form() {
    // a slow (software-like) and a fast (hardware-like) CCM*
    let cases = [(75.0, 286.5), (29.0, 3.5)]
        .into_iter()
        .flat_map(|c| [LinkAddressing::Short, LinkAddressing::Extended].map(|a| (c, a)));
    for ((setup_us, per_block_us), addressing) in cases {
        for bits in [0u8, 1, 3, 4, 5, 7] {
            let level = SecurityLevel::from_bits(bits);
            let security = (bits > 0).then_some(LinkSecurity {
                level,
                key_id_mode: 3,
                key: [9; 16],
                key_index: 1,
                frame_counter_suppressed: false,
                after_join: false,
                setup_us,
                per_block_us,
            });
            let frames = ProbeFrames {
                frame_bytes: 127,
                addressing,
            };
            let sim = minimal_slot(security, POWER, frames);
            let out = sim.at_minimum;
            assert!(out.success, "level {bits}");
            assert_eq!(out.frame_bytes, 127, "level {bits}");
            let model_level = ModelLevel::from_value(bits).unwrap();
            let extended = addressing == LinkAddressing::Extended;
            let setup = SlotSetup {
                level: model_level,
                aux: AuxHeader::new(3, false).unwrap(),
                frame_bytes: 127,
                stack: Default::default(),
                data_dst: if extended {
                    AddrMode::Extended
                } else {
                    AddrMode::Short
                },
                data_src: if extended || bits > 0 {
                    AddrMode::Extended
                } else {
                    AddrMode::Short
                },
                ack_dst: if extended {
                    AddrMode::Extended
                } else {
                    AddrMode::Short
                },
                ack_dst_pan: extended,
                max_ack_us: airtime_us(out.ack_bytes) as f64,
                min_turnaround_us: 192.0,
            };
            if extended {
                // the layout of experiment 5's closed form, but for the ACK's airtime
                let largest = SlotSetup::largest(model_level);
                assert_eq!(
                    SlotSetup {
                        max_ack_us: largest.max_ack_us,
                        ..setup
                    },
                    largest
                );
            }
            let cost = CcmCost {
                setup_us,
                aes_block_us: per_block_us,
                per_block_overhead_us: 0.0,
                bus_bytes_per_block: 0.0,
                bus_us_per_byte: 0.0,
            };
            let closed = minimal_timeslot(&cost, &setup).unwrap();
            assert_eq!(setup.ack_bytes(), out.ack_bytes, "ACK size, level {bits}");
            // the simulator rounds each CCM* operation to whole µs (± 0.5 µs
            // each): TsTxOffset holds one, TsTxAckDelay two, the slot four
            let close = |sim: u64, model: f64, ops: f64, what: &str| {
                assert!(
                    (sim as f64 - model).abs() <= 0.5 * ops,
                    "{what} level {bits} {addressing:?}: sim {sim} closed form {model}"
                )
            };
            close(sim.tx_offset_us, closed.tx_offset_us, 1.0, "TsTxOffset");
            close(
                sim.tx_ack_delay_us,
                closed.tx_ack_delay_us,
                2.0,
                "TsTxAckDelay",
            );
            close(sim.slot_us, closed.slot_duration_us, 4.0, "TsSlotDuration");
            // the IEEE 10 ms template fits exactly when the closed form says so
            assert_eq!(
                sim.default_slot.success,
                closed.slot_duration_us <= 10_000.0
                    && closed.tx_offset_us <= 2120.0
                    && closed.tx_ack_delay_us <= 1000.0,
                "level {bits}"
            );
            assert!(out.sender_energy.radio_tx_uj > 0.0 && out.receiver_energy.radio_tx_uj > 0.0);
        }
    }
}
